"""Replays of finished games, end to end on the fake Discord: the Replay button on a
finished game's message, a private replay stepped with ⏮ ◀ ▶ ⏭ that shows each step as
players saw it in play (in the viewer's language), refusals of forged and stale ids, and
a replay that goes on after a restart."""

from __future__ import annotations

import re
from typing import Any

import discord
from fakediscord import BotHarness, FakeDiscord, FakeGuild, FakeMessage, Player
from knucklebones_support import (
    board_turn,
    enabled_columns,
    is_finished,
    mover_id,
    press_column,
    session_for,
    start_duel,
)
from replay_support import HEADER, Seen, navigation, open_replay, press, seen, shown, step_of
from weighted_support import Table

from bot.app import DiceBot
from cogs.knucklebones.picture import FILENAME as BOARD

# The step buttons, in order.
FIRST, BACK, NEXT, LAST = "⏮️", "◀️", "▶️", "⏭️"


def button(custom_id: str, label: str) -> dict[str, object]:
    """An action row with one button, as a forged or copied message holds it."""
    return {
        "type": 1,
        "components": [{"type": 2, "style": 1, "label": label, "custom_id": custom_id}],
    }


async def play_knucklebones(
    fake: FakeDiscord, alice: Player, bob: Player
) -> tuple[FakeMessage, list[Seen]]:
    """A whole duel by button presses; returns its board and every version players saw."""
    board = await start_duel(fake, alice, bob, first="me")
    return await play_knucklebones_on(fake, board, alice, bob)


async def test_a_knucklebones_replay_shows_each_step_as_it_was_played(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    board, history = await play_knucklebones(fake_discord, alice, bob)
    assert board.labels() == ["Rematch", "Replay"]
    public = board.content
    posted = len(guild.default_channel.messages())

    # Anyone in the server may watch it: carol did not play.
    replay = await open_replay(carol, board)
    total = len(history)
    assert step_of(replay) == (1, total)
    assert shown(replay, BOARD) == history[0]
    assert navigation(replay) == [False, False, True, True]
    for step in range(2, total + 1):
        await press(carol, replay, NEXT)
        assert step_of(replay) == (step, total)
        assert shown(replay, BOARD) == history[step - 1], step
    assert navigation(replay) == [True, True, False, False]
    # Back one, then to either end.
    await press(carol, replay, BACK)
    assert step_of(replay) == (total - 1, total) and shown(replay, BOARD) == history[-2]
    await press(carol, replay, FIRST)
    assert step_of(replay) == (1, total) and shown(replay, BOARD) == history[0]
    await press(carol, replay, LAST)
    assert step_of(replay) == (total, total) and shown(replay, BOARD) == history[-1]
    for step in range(total - 1, 0, -1):
        await press(carol, replay, BACK)
        assert shown(replay, BOARD) == history[step - 1], step

    # All of it private: the game's message and the channel are as they were.
    assert board.content == public and board.labels() == ["Rematch", "Replay"]
    assert len(guild.default_channel.messages()) == posted


async def test_a_replay_speaks_the_viewers_language(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
) -> None:
    board, history = await play_knucklebones(fake_discord, alice, bob)
    jonas = await fake_discord.add_member(guild, "jonas", locale="de")
    replay = await open_replay(jonas, board)
    assert replay.content.startswith(f"🎞️ Wiederholung: Schritt 1 von {len(history)}\n")
    alt = replay.attachment(BOARD).description or ""
    assert alt.startswith("Knucklebones-Brett, Zug 1."), alt
    await press(jonas, replay, LAST)
    assert replay.content.startswith(f"🎞️ Wiederholung: Schritt {len(history)} von {len(history)}\n")
    # The game's own message stays in the game's language.
    assert board.labels() == ["Rematch", "Replay"]


async def test_forged_and_stale_replay_ids_are_refused_and_change_nothing(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    session = await session_for(running_bot, board)
    # A game still in play has no replay, even by a forged id on its own message.
    columns = board.components
    board.components = [button(f"replay:{session.id}", "Replay")]
    refused = await alice.click(board, "Replay")
    assert refused.ephemeral
    assert "Only a finished game can be replayed" in refused.text(), refused.text()
    board.components = columns
    board, history = await play_knucklebones_on(fake_discord, board, alice, bob)

    replay = await open_replay(bob, board)
    before = (replay.content, replay.components)
    for forged, words in (
        (f"rstep:{session.id}:0:first", "That replay has no step 0"),
        (
            f"rstep:{session.id}:{len(history) + 1}:next",
            f"That replay has no step {len(history) + 1}",
        ),
        (f"rstep:{session.id + 1000}:1:first", "There is no such game in this server"),
        (f"replay:{session.id + 1000}", "There is no such game in this server"),
    ):
        replay.components = [button(forged, "Forged")]
        refused = await bob.click(replay, "Forged")
        assert refused.ephemeral and words in refused.text(), (forged, refused.text())
        assert refused.message is not replay
        replay.components = before[1]
        assert replay.content == before[0]

    # A Replay button copied into another server shows nothing of this one's game.
    other = await fake_discord.create_guild("Other")
    stranger = await fake_discord.add_member(other, "stranger")
    copied = await fake_discord.seed_bot_message(
        other.default_channel,
        content="copied",
        components=[button(f"replay:{session.id}", "Replay")],
    )
    refused = await stranger.click(copied, "Replay")
    assert refused.ephemeral and "There is no such game in this server" in refused.text()
    assert copied.content == "copied"


async def play_knucklebones_on(
    fake: FakeDiscord, board: FakeMessage, alice: Player, bob: Player
) -> tuple[FakeMessage, list[Seen]]:
    """Play a started duel to its end (what ``play_knucklebones`` does after the start)."""
    players = {alice.id: alice, bob.id: bob}
    history = [seen(board, BOARD)]
    while not is_finished(board):
        turn = board_turn(board)
        assert turn is not None, board.content
        columns = enabled_columns(board)
        await press_column(players[mover_id(board) or 0], board, columns[turn % len(columns)])
        history.append(seen(board, BOARD))
    return board, history


async def test_a_replay_goes_on_after_a_restart(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
) -> None:
    await bot_factory.start()
    board, history = await play_knucklebones(fake_discord, alice, bob)
    replay = await open_replay(alice, board)
    await press(alice, replay, NEXT)
    await bot_factory.restart()
    # The replay opened before the restart steps on, and a new one opens.
    await press(alice, replay, NEXT)
    assert step_of(replay) == (3, len(history)) and shown(replay, BOARD) == history[2]
    again = await open_replay(bob, board)
    await press(bob, again, LAST)
    assert shown(again, BOARD) == history[-1]
    # A rematch asked for since is not part of the game's play: the last step is the end
    # as it was shown then.
    await alice.click(board, "Rematch")
    await fake_discord.wait_for(lambda: board.labels() == ["Replay"], what="the old Rematch")
    third = await open_replay(bob, board)
    await press(bob, third, LAST)
    assert shown(third, BOARD) == history[-1]


async def test_a_weighted_dice_replay_steps_from_the_roll_off_to_the_end(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, make_member: Any
) -> None:
    players = [await make_member(name) for name in ("ann", "ben", "cat", "dan", "eve")]
    zed = await make_member("zed")  # watches: did not play
    table = Table(fake_discord, running_bot, players)
    await table.open()
    seen = [(table.message.content, table_clockless(table.text()), table.alt())]
    engine = await table.engine()
    house = engine.house
    order = sorted((s for s in range(5) if s != house), key=lambda seat: (seat - house) % 5)
    await table.setup_round(players[house], (players[order[0]], players[order[1]]), (20, 4))
    seen.append((table.message.content, table_clockless(table.text()), table.alt()))
    for index, seat in enumerate(order[2:]):
        await table.bet(players[seat], index % 2, 5)
    await table.settle()
    # A bettor leaves: below five players the table ends, with its standings.
    leaver = players[order[2]]
    await leaver.slash("weighted leave")
    await table.wait_for_text("fewer than 5 players remain")
    await table.settle()
    seen.append((table.message.content, table_clockless(table.text()), table.alt()))
    assert table.message.labels() == ["Play again", "Replay"]

    replay = await open_replay(zed, table.message)
    total = step_of(replay)[1]
    steps = [(HEADER.sub("", replay.content), _without_header(replay), replay_alt(replay))]
    for _ in range(2, total + 1):
        await press(zed, replay, NEXT)
        steps.append((HEADER.sub("", replay.content), _without_header(replay), replay_alt(replay)))
    # The start, the round set up and the end, as the table showed them, in that order;
    # between them a step for each bet and the roll.
    assert steps[0] == seen[0] and steps[1] == seen[1] and steps[-1] == seen[2]
    assert total == 2 + len(order[2:]) + 1
    assert "ended early" in steps[-1][1] and "ended early" not in steps[-2][1]
    await press(zed, replay, FIRST)
    assert (HEADER.sub("", replay.content), _without_header(replay), replay_alt(replay)) == seen[0]


# A table's phase timer, in play only: the replay says the same without it.
TABLE_CLOCKS = (
    (re.compile(r" If not done <t:\d+:R>, I'll pick at random\."), ""),
    (re.compile(r"Betting closes <t:\d+:R>, or as soon"), "Betting closes as soon"),
)


def table_clockless(text: str) -> str:
    for clock, instead in TABLE_CLOCKS:
        text = clock.sub(instead, text)
    return text


def replay_alt(replay: FakeMessage) -> str:
    return replay.attachment("table.png").description or ""


def _without_header(replay: FakeMessage) -> str:
    return HEADER.sub("", replay.text())


async def test_history_replays_a_game_of_a_closed_season(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    make_member: Any,
) -> None:
    board, history = await play_knucklebones(fake_discord, alice, bob)
    session = await session_for(running_bot, board)
    admin = await make_member("admin", permissions=discord.Permissions(manage_guild=True))
    asked = await admin.slash("dicebot season new", name="Summer", game="knucklebones")
    assert asked.message is not None
    closed = await admin.click(asked.message, "Close the season")
    assert "Season 1 closed" in closed.text()

    # /history lists the game; its menu opens the replay in private.
    listed = await bob.slash("history")
    assert listed.message is not None and not listed.ephemeral
    menu = listed.message.selects()
    assert len(menu) == 1 and menu[0]["custom_id"] == "replaypick"
    assert [option["value"] for option in menu[0]["options"]] == [str(session.id)]
    assert menu[0]["options"][0]["label"].startswith("1. Knucklebones · ")
    picked = await bob.select(listed.message, [str(session.id)])
    assert picked.ephemeral and picked.message is not None
    replay = picked.message
    assert step_of(replay) == (1, len(history)) and shown(replay, BOARD) == history[0]
    await press(bob, replay, LAST)
    assert shown(replay, BOARD) == history[-1]
    # The game's own Replay works the same after its season closed.
    again = await open_replay(alice, board)
    assert shown(again, BOARD) == history[0]

    # A value the menu never offered (a modified client) is refused and shows nothing.
    listing = (listed.message.content, listed.message.embeds)
    menu[0]["options"] = [{"label": "forged", "value": "not-a-game"}]
    refused = await bob.select(listed.message, ["not-a-game"])
    assert refused.ephemeral and "There is no such game in this server" in refused.text()
    assert (listed.message.content, listed.message.embeds) == listing


async def test_a_game_without_a_result_or_a_log_that_does_not_replay_is_refused(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    # A declined challenge never became a game: nothing to replay.
    declined = await alice.slash("knucklebones challenge", opponent=carol)
    assert declined.message is not None
    await carol.click(declined.message, "Decline")
    stopped = await session_for(running_bot, declined.message)
    assert stopped.status == "cancelled"
    copied = await fake_discord.seed_bot_message(
        guild.default_channel,
        content="copied",
        components=[button(f"replay:{stopped.id}", "Replay")],
    )
    refused = await carol.click(copied, "Replay")
    assert refused.ephemeral
    assert "This game ended without a result, so it has no replay." in refused.text()

    # A finished game whose stored moves no longer give its end (a log damaged by hand):
    # refused in words, not shown wrong.
    board, _history = await play_knucklebones(fake_discord, alice, bob)
    session = await session_for(running_bot, board)
    await running_bot.db.write(
        "UPDATE events SET events = ? WHERE session_id = ? AND version = ?",
        ("[]", session.id, session.version - 1),
    )
    refused = await bob.click(board, "Replay")
    assert refused.ephemeral
    assert "This game's replay could not be rebuilt from its record, sorry." in refused.text()
    assert board.labels() == ["Rematch", "Replay"]
