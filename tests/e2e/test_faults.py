"""Discord fails, and what players see still catches up: a lost interaction answer on the
moves that used to leave a game stuck, a 503 and a run of 429s on the edit that shows the
AI's move, a permission lost and regained, a game message someone deleted. Time moves on
the game clock; nothing here sleeps to wait for a retry."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import discord
import pytest
from duel_support import Duel, diceman_lock
from fakediscord import CallbackFault, FakeDiscord, FakeGuild, FakeMessage, Player, routes
from knucklebones_support import ai_board_idle, board_turn, session_for, start_duel
from weighted_support import Table

from bot.app import DiceBot
from bot.model.clock import ManualClock
from bot.storage.publication import Snapshot
from cogs.knucklebones.cog import AI_MOVE_DELAY


async def advance_until(
    fake: FakeDiscord, clock: ManualClock, done: Callable[[], bool], what: str
) -> None:
    """Move the game clock a second at a time (the bot's retries wait on it) until ``done``;
    a retry that is not yet waiting when the clock moves is caught by the next step."""
    for _ in range(120):
        if done():
            return
        clock.advance(1.0)
        with contextlib.suppress(AssertionError):
            await fake.wait_for(done, timeout=0.2, what=what)
    assert done(), f"{what} did not happen within 120 s of game time"


def lost(fake: FakeDiscord, outcome: object) -> None:
    """The player saw "This interaction failed", and the fake recorded it."""
    assert getattr(outcome, "lost", False), outcome
    assert fake.take_problems("interaction-failed")


# -- 1. a lost answer on the move that changes what everyone sees --------------------------


async def test_a_lost_answer_to_accept_still_starts_the_game_on_the_message(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = (await alice.slash("knucklebones challenge", opponent=bob, first="me")).message
    assert board is not None
    lost(fake_discord, await bob.click(board, "Accept", fault="unknown-interaction"))
    await fake_discord.wait_for(lambda: board_turn(board) == 1, what="the game on the message")
    assert f"🎲 <@{alice.id}> rolled" in board.content
    # The game goes on from the repaired message.
    await alice.click(board, "Column 1")
    assert board_turn(board) == 2


async def test_a_lost_answer_to_the_last_lock_in_still_shows_the_reveal(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = (await alice.slash("diceman challenge", opponent=bob)).message
    assert board is not None
    duel = Duel(fake_discord, board, "dm")
    await bob.click(board, "Accept")
    await duel.wait_round(1)
    await diceman_lock(alice, await duel.dm_controls(alice, 1), ["priority", "shield"])
    bob_dm = await duel.dm_controls(bob, 1)
    await bob.select(bob_dm, ["magic", "sword"])
    confirm = next(c for c in bob_dm.custom_ids() if ":ok:" in c)
    # A 5xx on both of the bot's tries (discord.py's own retry, 1 s later, is the second).
    lost(fake_discord, await bob.click(bob_dm, confirm, fault=CallbackFault.server_error(times=2)))
    # The reveal shows on the game message, round 2's controls arrive by DM, and bob's
    # round-1 DM becomes the round's summary instead of dead controls.
    await duel.wait_round(2)
    assert "Round 1 reveal" in board.text()
    await duel.dm_controls(alice, 2)
    await duel.dm_controls(bob, 2)
    await fake_discord.wait_for(
        lambda: "round 1 is over" in bob_dm.text() and bob_dm.components == [],
        what="bob's round-1 DM to be retired",
    )
    # "Make your move" opens the current round, whatever round its button was drawn for.
    opened = await bob.click(board, "Make your move")
    assert opened.ephemeral and "round 2" in opened.text()


async def test_a_lost_answer_to_the_house_confirm_still_opens_betting(
    running_bot: DiceBot, fake_discord: FakeDiscord, make_member
) -> None:
    players = [await make_member(name) for name in ("ann", "ben", "cy", "dee", "eve")]
    table = Table(fake_discord, running_bot, players)
    await table.open()
    engine = await table.engine()
    house = table.player_at(engine.house)
    others = [p for p in players if p is not house]
    await table.wait_for_control(f"{engine.round}:setup")
    panel = (await house.click(table.message, "Set up round")).message
    assert panel is not None
    for index in (0, 1):
        await house.select(panel, [others[index].name.title()], select=f"Roller {index + 1}")
        await house.select(panel, ["d6"], select=f"Die for roller {index + 1}")
    lost(fake_discord, await house.click(panel, "Confirm", fault="unknown-interaction"))
    await table.wait_for_control(f"{engine.round}:bet:0")
    assert (await table.engine()).phase == "betting"


async def test_a_lost_answer_to_a_classic_roll_still_shows_the_roll(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    board = (await alice.slash("duel ai", mode="classic", hp=10)).message
    assert board is not None
    duel = Duel(fake_discord, board, "dd")
    await duel.wait_round(1)
    # The connection drops on the bot's answer and on its one retry.
    lost(fake_discord, await alice.click(board, "Roll", fault=CallbackFault.dropped(times=2)))
    await fake_discord.wait_for(
        lambda: duel.round() == 2 or duel.over(), what="the roll on the game message"
    )
    assert "Turn 1 reveal" in board.text()


# -- 2. the edit that shows the AI's move fails --------------------------------------------


async def start_ai_game(alice: Player) -> discord.Message:
    board = (await alice.slash("knucklebones ai", difficulty="easy", first="me")).message
    assert board is not None
    await alice.click(board, "Column 1")
    return board


async def test_a_503_on_the_ai_moves_edit_is_retried(
    running_bot: DiceBot, fake_discord: FakeDiscord, clock: ManualClock, alice: Player
) -> None:
    board = await start_ai_game(alice)
    failing = fake_discord.fail(
        routes.MESSAGE, method="PATCH", status=503, when=lambda r: r.message_id == board.id
    )
    clock.advance(AI_MOVE_DELAY + 0.1)
    await fake_discord.wait_for(lambda: failing.exhausted, what="the failed edit")
    assert board_turn(board) is None  # the AI's move is stored, not shown yet
    await advance_until(fake_discord, clock, lambda: board_turn(board) == 3, "the retried edit")
    assert ai_board_idle(board)


async def test_five_429s_in_a_row_on_the_ai_moves_edit_are_outlasted(
    running_bot: DiceBot, fake_discord: FakeDiscord, clock: ManualClock, alice: Player
) -> None:
    board = await start_ai_game(alice)
    limited = fake_discord.rate_limit(
        routes.MESSAGE,
        method="PATCH",
        times=5,
        retry_after=0.01,
        when=lambda r: r.message_id == board.id,
    )
    clock.advance(AI_MOVE_DELAY + 0.1)
    await fake_discord.wait_for(lambda: limited.exhausted, what="five 429s")
    await advance_until(
        fake_discord, clock, lambda: board_turn(board) == 3, "the edit after the 429s"
    )


async def test_a_game_shown_without_view_channel_catches_up_when_it_comes_back(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    clock: ManualClock,
    alice: Player,
) -> None:
    channel = guild.default_channel
    board = await start_ai_game(alice)
    await channel.set_bot_permissions(deny=discord.Permissions(view_channel=True))
    clock.advance(AI_MOVE_DELAY + 0.1)
    await fake_discord.wait_for(
        lambda: any(r.error_code == 50001 for r in fake_discord.requests_to(routes.MESSAGE)),
        what="the edit refused for want of View Channel",
    )
    assert board_turn(board) is None
    # Permission is back: the bot hears of it and shows the move at once, no clock needed.
    await channel.restore_bot_permissions()
    await fake_discord.wait_for(lambda: board_turn(board) == 3, what="the move after the outage")


async def test_a_dropped_answer_is_sent_again_and_the_player_sees_it(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob)
    # Discord never got the first try; the bot's second try, inside the 3 s, lands.
    answered = await alice.click(board, "Column 1", fault=CallbackFault.dropped())
    assert not answered.lost
    assert board_turn(board) == 2


async def test_a_move_its_answer_showed_costs_no_second_look_and_a_lost_one_is_edited_in(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    alice: Player,
    bob: Player,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    board = await start_duel(fake_discord, alice, bob)
    await running_bot.publisher.settled()
    store = running_bot.publisher.store
    looks: list[int] = []
    read_snapshot = store.snapshot

    async def counted(session_id: int) -> Snapshot | None:
        looks.append(session_id)
        return await read_snapshot(session_id)

    monkeypatch.setattr(store, "snapshot", counted)
    edits_before = running_bot.publisher.edits
    # The answer shows the move: the publisher has nothing to read, nothing to edit.
    answered = await alice.click(board, "Column 1")
    assert not answered.lost and board_turn(board) == 2
    await running_bot.publisher.settled()
    assert looks == [] and running_bot.publisher.edits == edits_before
    # Discord loses the next answer: the publisher reads the game and edits the board.
    lost(fake_discord, await bob.click(board, "Column 1", fault="unknown-interaction"))
    await fake_discord.wait_for(lambda: board_turn(board) == 3, what="the move after a lost answer")
    await running_bot.publisher.settled()
    assert looks and running_bot.publisher.edits == edits_before + 1


# -- a deleted game message ------------------------------------------------------------------


async def test_a_deleted_game_message_is_posted_again_and_plays_on(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    """The bot asks for no message events (they would be every message in every server),
    so it learns of the deletion at the game's next edit: at the latest the turn's
    warning, a minute before the timeout. It posts the game again there."""
    board = await start_duel(fake_discord, alice, bob)
    session = await session_for(running_bot, board)
    await alice.click(board, "Column 1")
    await fake_discord.delete_message(board)

    def reposted() -> FakeMessage | None:
        games = [m for m in guild.default_channel.messages() if m.id != board.id and board_turn(m)]
        return games[-1] if games else None

    await running_bot.publisher.settled()
    assert reposted() is None  # nothing tells the bot yet
    clock.advance(240)  # the warning of Bob's five-minute turn
    await fake_discord.wait_for(lambda: reposted() is not None, what="the game posted again")
    again = reposted()
    assert again is not None and board_turn(again) == 2

    await running_bot.publisher.settled()
    assert (await running_bot.sessions.require(session.id)).message_id == again.id
    await bob.click(again, "Column 2")
    assert board_turn(again) == 3
