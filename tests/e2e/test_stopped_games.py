"""A game stopped without a result (``/dicebot cancel``, ``/weighted end``) shows it in its
picture too: the picture is drawn again as the game stood, and its alt text (what a screen
reader says in its place) says it was stopped instead of whose turn it is."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

import discord
import pytest
from fakediscord import FakeDiscord, FakeMessage, Player
from knucklebones_support import press_column, start_duel
from weighted_support import Table

from bot.app import DiceBot

MakeMember = Callable[..., Awaitable[Player]]


@pytest.fixture
async def admin(make_member: MakeMember) -> Player:
    return await make_member("admin", permissions=discord.Permissions(manage_guild=True))


async def cancelled(fake: FakeDiscord, bot: DiceBot, admin: Player, board: FakeMessage) -> str:
    """``/dicebot cancel`` in the game's channel; returns the picture's alt text once the
    message is shown stopped."""
    edits = len(board.history)
    final = await (await admin.slash("dicebot cancel")).final_message()
    assert final.text().startswith("🛑 Stopped 1 game")
    await fake.wait_for(
        lambda: len(board.history) > edits and not board.components, what="the stopped game"
    )
    await bot.publisher.settled()
    assert "stopped by an admin" in board.history[-1].content
    return board.attachments[0].description or ""


async def test_a_stopped_knucklebones_board_shows_it_stood_with_nobody_to_move(
    running_bot: DiceBot, fake_discord: FakeDiscord, admin: Player, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    await press_column(alice, board, 0)
    before = board.attachment("board.png")
    assert re.search(r"Bob to place a [1-6]\.$", before.description or "")

    alt = await cancelled(fake_discord, running_bot, admin, board)
    picture = board.attachment("board.png")
    assert picture.id != before.id and picture.content != before.content  # drawn again
    assert "to place" not in alt
    assert alt.endswith("The game was stopped by an admin; no result counts.")
    # The board as it was: Alice's die in her first column, Bob's grid empty.
    assert re.search(r"Alice \(top grid\), [1-6] points?\. column 1: [1-6] ", alt)
    assert "Bob (bottom grid), 0 points. column 1: empty; column 2: empty; column 3: empty" in alt


async def test_a_stopped_dimension_duel_announces_no_next_attack(
    running_bot: DiceBot, fake_discord: FakeDiscord, admin: Player, alice: Player
) -> None:
    board = (await alice.slash("duel ai", hp=10)).message
    assert board is not None
    await fake_discord.wait_for(lambda: bool(board.components), what="the duel")
    before = board.attachment("duel.png")
    assert re.search(r"Turn 1: \S+ attacks\.", before.description or "")

    alt = await cancelled(fake_discord, running_bot, admin, board)
    picture = board.attachment("duel.png")
    assert picture.id != before.id and picture.content != before.content
    assert not re.search(r"Turn \d+: \S+ attacks\.", alt), alt
    assert "The game was stopped by an admin; no result counts." in alt
    assert re.search(r"Alice \((Tau|Kaon)\): 10 of 10 hit points\.", alt), alt


async def test_a_stopped_diceman_game_has_no_picture_and_no_next_round(
    running_bot: DiceBot, fake_discord: FakeDiscord, admin: Player, alice: Player
) -> None:
    """Diceman is shown in words only: nothing there may announce a round either."""
    board = (await alice.slash("diceman ai")).message
    assert board is not None
    await fake_discord.wait_for(lambda: bool(board.components), what="the duel")
    edits = len(board.history)
    await (await admin.slash("dicebot cancel")).final_message()
    await fake_discord.wait_for(
        lambda: len(board.history) > edits and not board.components, what="the stopped game"
    )
    assert board.attachments == []
    assert "The game was stopped by an admin; no result counts." in board.content
    for words in ("Choosing…", "Locked in", "Time left", "Waiting for"):
        assert words not in board.text()


async def weighted_table(fake: FakeDiscord, bot: DiceBot, make_member: MakeMember) -> Table:
    players = [await make_member(name) for name in ("ann", "ben", "cat", "dan", "eve")]
    table = Table(fake, bot, players)
    await table.open()
    assert re.search(r"\w+, the house, picks the rollers\.", table.alt())
    return table


async def test_an_ended_weighted_dice_table_says_who_ended_it(
    running_bot: DiceBot, fake_discord: FakeDiscord, make_member: MakeMember
) -> None:
    table = await weighted_table(fake_discord, running_bot, make_member)
    before = table.message.attachment("table.png")

    await table.host.slash("weighted end")
    await table.wait_for_text("Stopped by")
    await running_bot.publisher.settled()
    picture = table.message.attachment("table.png")
    assert picture.id != before.id and picture.content != before.content
    alt = picture.description or ""
    assert alt.startswith(
        "Weighted Dice, round 1, first to 150 points. Ann ended the game; no result counts. "
        "Seats: Ann 20"
    ), alt
    assert "picks the rollers" not in alt and "to bet" not in alt
    assert "Stopped by" in table.message.history[-1].content


async def test_a_weighted_dice_table_stopped_by_an_admin_says_so(
    running_bot: DiceBot, fake_discord: FakeDiscord, admin: Player, make_member: MakeMember
) -> None:
    table = await weighted_table(fake_discord, running_bot, make_member)
    alt = await cancelled(fake_discord, running_bot, admin, table.message)
    assert alt.startswith(
        "Weighted Dice, round 1, first to 150 points. The game was stopped by an admin; no "
        "result counts. Seats: "
    ), alt
    assert "picks the rollers" not in alt
