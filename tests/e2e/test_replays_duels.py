"""Replays of the secret duels (Diceman, Dimension Duel), end to end on the fake Discord:
each step shows the public message as players saw it, and a secret choice shows only
from the step that revealed it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from duel_support import Duel, diceman_lock, duel_lock
from fakediscord import FakeDiscord, FakeGuild, FakeMessage, Player
from replay_support import HEADER, navigation, open_replay, press, step_of

from bot.app import DiceBot
from cogs.dimension_duel.picture import FILENAME as DUEL_PICTURE

NEXT, BACK, FIRST, LAST = "▶️", "◀️", "⏮️", "⏭️"
# The round's clock, in play only: a replay's step has none.
CLOCK_FIELDS = ("⏱️", "⏰")

ALICE_PICK = ["priority", "sword"]
BOB_PICK = ["magic", "shield"]
# What a revealed Diceman round names (and nothing shows before the reveal).
DICEMAN_SECRETS = ("⚡ Priority", "⚔️ Sword", "🔮 Magic", "🛡️ Shield")


@dataclass(frozen=True)
class Board:
    """A duel's public message as players read it: everything but its clock."""

    content: str
    title: str
    description: str
    fields: tuple[tuple[str, str], ...]
    footer: str
    alt: str


def board_of(message: FakeMessage, *, replay: bool = False) -> Board:
    embed: dict[str, Any] = message.embed or {}
    fields = tuple(
        (str(f["name"]), str(f["value"]))
        for f in embed.get("fields", [])
        if not str(f["name"]).startswith(CLOCK_FIELDS)
    )
    alt = ""
    if any(a.filename == DUEL_PICTURE for a in message.attachments):
        alt = message.attachment(DUEL_PICTURE).description or ""
    content = HEADER.sub("", message.content) if replay else message.content
    return Board(
        content=content,
        title=str(embed.get("title", "")),
        description=str(embed.get("description", "")),
        fields=fields,
        footer=str((embed.get("footer") or {}).get("text", "")),
        alt=alt,
    )


def field_of(board: FakeMessage, name: str) -> str:
    for embed_field in (board.embed or {}).get("fields", []):
        if str(embed_field["name"]).startswith(name):
            return str(embed_field["value"])
    raise AssertionError(f"no field for {name} on {board.text()}")


Lock = Callable[[Duel, Player, FakeMessage, int], Awaitable[None]]


async def play(
    fake: FakeDiscord, duel: Duel, first: Player, second: Player, lock: Lock
) -> list[Board]:
    """Both players lock in by DM, round after round, ``first`` before ``second``; returns
    every version of the public message they saw (the start, each lock-in, each reveal)."""
    seen = [board_of(duel.board)]
    number = 1
    while True:
        first_dm = await duel.dm_controls(first, number)
        second_dm = await duel.dm_controls(second, number)
        await lock(duel, first, first_dm, number)
        name = first.name.capitalize()
        await fake.wait_for(
            lambda n=name: "🔒 Locked in" in field_of(duel.board, n), what=f"{name} locked in"
        )
        seen.append(board_of(duel.board))
        await lock(duel, second, second_dm, number)
        await fake.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        seen.append(board_of(duel.board))
        if duel.over():
            return seen
        number += 1
        assert number < 40


async def step_through(viewer: Player, board: FakeMessage, seen: list[Board]) -> FakeMessage:
    """Open the replay and check every step, forward to the end and back to the start."""
    replay = await open_replay(viewer, board)
    total = len(seen)
    assert step_of(replay) == (1, total)
    assert board_of(replay, replay=True) == seen[0]
    for step in range(2, total + 1):
        await press(viewer, replay, NEXT)
        assert step_of(replay) == (step, total)
        assert board_of(replay, replay=True) == seen[step - 1], step
    assert navigation(replay) == [True, True, False, False]
    for step in range(total - 1, 0, -1):
        await press(viewer, replay, BACK)
        assert board_of(replay, replay=True) == seen[step - 1], step
    return replay


@pytest.mark.machine_speed("whole duels, their presses milliseconds apart")
async def test_a_diceman_replay_shows_each_step_and_no_pick_before_its_reveal(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    challenge = await alice.slash("diceman challenge", opponent=bob)
    assert challenge.message is not None
    duel = Duel(fake_discord, challenge.message, "dm")
    await bob.click(duel.board, "Accept")
    await duel.wait_round(1)

    async def lock(duel: Duel, player: Player, dm: FakeMessage, number: int) -> None:
        await diceman_lock(player, dm, ALICE_PICK if player is alice else BOB_PICK)

    seen = await play(fake_discord, duel, alice, bob, lock)
    assert duel.board.labels() == ["Rematch", "Replay"]
    # In play: the start and alice's lock-in named no pick; the first reveal named them.
    for before in seen[:2]:
        assert not any(secret in str(before) for secret in DICEMAN_SECRETS), before
    assert "⚡ Priority" in seen[2].description and "🔮 Magic" in seen[2].description

    replay = await step_through(carol, duel.board, seen)
    # The same in the replay: alice's lock-in (step 2) keeps her pick secret.
    await press(carol, replay, NEXT)
    assert step_of(replay)[0] == 2 and "🔒 Locked in" in field_of(replay, "Alice")
    assert not any(secret in replay.text() for secret in DICEMAN_SECRETS), replay.text()
    await press(carol, replay, NEXT)
    assert "⚡ Priority" in replay.text() and "🔮 Magic" in replay.text()
    await press(carol, replay, LAST)
    assert board_of(replay, replay=True) == seen[-1]
    assert " wins!**" in replay.content


@pytest.mark.machine_speed("whole duels, their presses milliseconds apart")
async def test_a_dimension_duel_replay_shows_each_step_and_no_choice_before_its_reveal(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
) -> None:
    challenge = await alice.slash("duel challenge", opponent=bob, hp=10)
    assert challenge.message is not None
    duel = Duel(fake_discord, challenge.message, "dd")
    await bob.click(duel.board, "Accept")
    await duel.wait_round(1)

    async def lock(duel: Duel, player: Player, dm: FakeMessage, number: int) -> None:
        name = player.name.capitalize()
        device, region = (
            ("tau", "head")
            if "attacking" in _name_of(duel.board, name)
            else (
                "kaon",
                "torso",
            )
        )
        await duel_lock(player, dm, device, region, "bluff")

    seen = await play(fake_discord, duel, alice, bob, lock)
    assert duel.board.labels() == ["Rematch", "Replay"]
    assert "1️⃣" not in str(seen[:2]) and "Turn 1 reveal" in seen[2].description

    jonas = await fake_discord.add_member(guild, "jonas", locale="de")
    replay = await open_replay(jonas, duel.board)
    assert replay.content.startswith(f"🎞️ Wiederholung: Schritt 1 von {len(seen)}\n")
    await press(jonas, replay, NEXT)
    # Alice's choice is hers until the reveal (its steps are numbered 1️⃣ to 4️⃣), in any
    # language.
    assert "🔒" in replay.text() and "1️⃣" not in replay.text(), replay.text()
    await press(jonas, replay, NEXT)
    assert "1️⃣" in replay.text() and "Zug 1" in replay.text(), replay.text()
    english = await step_through(bob, duel.board, seen)
    await press(bob, english, LAST)
    assert board_of(english, replay=True) == seen[-1]


def _name_of(board: FakeMessage, name: str) -> str:
    for embed_field in (board.embed or {}).get("fields", []):
        if str(embed_field["name"]).startswith(name):
            return str(embed_field["name"])
    raise AssertionError(f"no field for {name} on {board.text()}")


async def play_the_ai(fake: FakeDiscord, duel: Duel, alice: Player) -> list[Board]:
    """Alice plays a tactical duel against the AI, which locks in as each turn begins;
    returns every version of the public message (the start, then each reveal)."""
    await duel.wait_round(1)
    seen = [board_of(duel.board)]
    number = 1
    while True:
        controls = await duel.dm_controls(alice, number)
        attack = "attacking" in _name_of(duel.board, "Alice")
        device, region = ("tau", "head") if attack else ("kaon", "torso")
        await duel_lock(alice, controls, device, region, "bluff")
        await fake.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        seen.append(board_of(duel.board))
        if duel.over():
            return seen
        number += 1
        assert number < 40


@pytest.mark.machine_speed("whole duels, their presses milliseconds apart")
async def test_duels_against_the_ai_and_their_rematch_replay_as_played(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    # The AI's secret picks and the coin flip for Tau come from each move's own dice, and
    # the rematch names Tau instead: each replays as it was played.
    started = await alice.slash("duel ai", hp=10)
    assert started.message is not None
    first = Duel(fake_discord, started.message, "dd")
    seen = first_seen = await play_the_ai(fake_discord, first, alice)
    await step_through(alice, first.board, seen)

    again = await alice.click(first.board, "Rematch")
    assert again.message is not None and not again.ephemeral
    second = Duel(fake_discord, again.message, "dd")
    seen = await play_the_ai(fake_discord, second, alice)
    replay = await step_through(alice, second.board, seen)
    await press(alice, replay, LAST)
    assert board_of(replay, replay=True) == seen[-1]
    # The first game's message now offers its replay only (its rematch is on).
    await fake_discord.wait_for(
        lambda: first.board.labels() == ["Replay"], what="the old Rematch to go"
    )
    old = await open_replay(alice, first.board)
    assert step_of(old)[0] == 1
    await press(alice, old, LAST)
    assert board_of(old, replay=True) == first_seen[-1]
