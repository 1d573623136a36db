"""Secrecy: a locked-in choice reaches nobody but its owner before the reveal.

Every payload the fake Discord receives, every message version that lands and every log
record is captured. Between the moment Alice starts choosing and the moment Bob locks in
(the reveal), the test sorts the payloads by who could read them: Alice alone (her DMs, her
ephemeral messages, updates of those) or anyone else (the public channel, Bob's DMs and
ephemerals, answers to Bob).

Two proofs, for each game:
* the same script is played twice, in two channels, with Alice choosing differently; the
  states anyone but Alice was shown (each new state of the public message, Bob's DMs and
  ephemeral messages, in the order they landed) and the log records above DEBUG are the
  same once ids are normalised, so they carry no information about her choice at all;
* Alice's own payloads do carry the choice (the capture is not blind), and no payload for
  anyone else, no log record above DEBUG (with its traceback) and no error text names it.

Neither proof depends on the machine's speed: what is compared is what players were shown,
not how it travelled. Under load the bot may defer an answer and fill it in by an edit
(a "thinking" state and an empty acknowledgement, then the same state), show a state it
had already shown again, or let a late request of the other game land in the window; and
it logs the deferral. States shown again, transport and the other game's messages are left
out, the deferral's log line too; every other state and log line counts, in order. The
public message's states only ever move forward, and it ends showing the stored game.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pytest
from duel_support import (
    Audience,
    Duel,
    Shown,
    confirm_id,
    diceman_lock,
    diceman_pick,
    duel_draft,
    duel_lock,
    normalise,
    parse_custom_id,
    shown_to_others,
    sort_payloads,
    states_in_order,
    stored_game_difference,
    version_mark,
)
from fakediscord import FakeChannel, FakeDiscord, FakeGuild, Player

from bot.app import DiceBot
from bot.ui import answers

# Log records that say how fast the machine was, not what happened: the watchdog's defer
# of an answer still unanswered after answers.DEFER_AFTER_SECONDS (under load only).
TIMING_RECORDS = frozenset(
    {(answers.log.name, "interaction %s: no answer after %.1f s, deferring")}
)


@dataclass
class Window:
    audience: Audience
    shown: list[Shown]  # new states anyone but Alice was shown, in the order they landed
    logs: list[str]  # log records above DEBUG, formatted, with their tracebacks
    reveal_text: str  # the public message right after the reveal
    board: list[str]  # every state of the public message, up to the reveal
    rounds: list[int]  # the round of each of those states


def records_above_debug(caplog: pytest.LogCaptureFixture, start: int) -> list[str]:
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    return [
        formatter.format(r)
        for r in caplog.records[start:]
        if r.levelno > logging.DEBUG and (r.name, r.msg) not in TIMING_RECORDS
    ]


def errors_in(caplog: pytest.LogCaptureFixture, start: int) -> list[str]:
    return [r.getMessage() for r in caplog.records[start:] if r.levelno >= logging.ERROR]


def mentions(texts: list[str], markers: tuple[str, ...]) -> list[str]:
    return [t for t in texts if any(m.lower() in t.lower() for m in markers)]


def assert_same_for_others(first: Window, second: Window) -> None:
    """Anyone but Alice was shown the same states in the same order, and the logs say the
    same, in both windows; the public message only moved forward."""
    assert first.shown, "the window should show the public message and Bob's controls"
    assert [s.where for s in first.shown] == [s.where for s in second.shown]
    assert [s.state for s in first.shown] == [s.state for s in second.shown]
    assert sorted(normalise(t) for t in first.logs) == sorted(normalise(t) for t in second.logs)
    for window in (first, second):
        # Each state of the public message came once: never back to an earlier one.
        assert len(set(window.board)) == len(window.board), window.board
        assert window.rounds == sorted(window.rounds) and window.rounds[-1] == 2


def rounds_of(duel: Duel) -> list[int]:
    """The round each version of the public message shows, oldest first."""
    found: list[int] = []
    for version in duel.board.history:
        for custom_id in version.custom_ids():
            match = parse_custom_id(custom_id)
            if match is not None and match["prefix"] == duel.prefix:
                found.append(int(match["round"]))
                break
    return found


async def diceman_window(
    bot: DiceBot,
    fake: FakeDiscord,
    caplog: pytest.LogCaptureFixture,
    channel: FakeChannel,
    alice: Player,
    bob: Player,
    pick: list[str],
) -> Window:
    challenge = await alice.slash("diceman challenge", channel=channel, opponent=bob)
    assert challenge.message is not None
    duel = Duel(fake, challenge.message, "dm")
    await bob.click(duel.board, "Accept")
    await duel.wait_round(1)
    alice_dm = await duel.dm_controls(alice, 1)
    bob_dm = await duel.dm_controls(bob, 1)

    # From a settled start: a state of the game before the window cannot land in it.
    await settled(bot, fake, duel)
    start, log_start, mark = len(fake.requests), len(caplog.records), version_mark(fake)
    # Alice drafts in an ephemeral copy, locks in by DM, then tries to confirm again.
    ephemeral = await duel.open_ephemeral(alice)
    await diceman_pick(alice, ephemeral, pick)
    await diceman_lock(alice, alice_dm, pick)
    again = await alice.click(ephemeral, confirm_id(ephemeral))
    assert "already locked in" in again.text()
    # The public message shows that she locked in before Bob acts, so both windows send
    # their payloads in the same order whatever the database's speed.
    await duel.wait_text("Waiting for Bob to lock in")
    # Bob looks around: his own controls, his DM, the public message.
    await duel.open_ephemeral(bob)
    await diceman_pick(bob, bob_dm, ["sword", "shield"])
    await duel.wait_text("Waiting for Bob to lock in")
    await settled(bot, fake, duel)
    audience = sort_payloads(fake, fake.requests[start:], alice)
    shown = shown_to_others(duel, alice, mark)
    logs = records_above_debug(caplog, log_start)

    await diceman_lock(bob, bob_dm, ["sword", "shield"])
    await duel.wait_round(2)
    await settled(bot, fake, duel)
    assert errors_in(caplog, log_start) == []
    return Window(
        audience, shown, logs, duel.board.text(), states_in_order(duel.board), rounds_of(duel)
    )


async def settled(bot: DiceBot, fake: FakeDiscord, duel: Duel) -> None:
    """Until the public message shows the stored game (it converges on it)."""

    difference: list[str | None] = [None]

    async def shows_it() -> bool:
        difference[0] = await stored_game_difference(bot, duel.board)
        return difference[0] is None

    try:
        await fake.wait_until(shows_it, timeout=10, what="the stored game on the public message")
    except AssertionError as error:
        raise AssertionError(f"{error}\n{difference[0]}") from None


async def duel_window(
    bot: DiceBot,
    fake: FakeDiscord,
    caplog: pytest.LogCaptureFixture,
    channel: FakeChannel,
    alice: Player,
    bob: Player,
    choice: tuple[str, str, str],
) -> Window:
    challenge = await alice.slash("duel challenge", channel=channel, opponent=bob)
    assert challenge.message is not None
    duel = Duel(fake, challenge.message, "dd")
    await bob.click(duel.board, "Accept")
    await duel.wait_round(1)
    alice_dm = await duel.dm_controls(alice, 1)
    bob_dm = await duel.dm_controls(bob, 1)

    # From a settled start: a state of the game before the window cannot land in it.
    await settled(bot, fake, duel)
    start, log_start, mark = len(fake.requests), len(caplog.records), version_mark(fake)
    ephemeral = await duel.open_ephemeral(alice)
    await duel_draft(alice, ephemeral, *choice)
    await duel_lock(alice, alice_dm, *choice)
    again = await alice.click(ephemeral, confirm_id(ephemeral))
    assert "already locked in" in again.text()
    await duel.wait_text("Waiting for Bob to lock in")
    await duel.open_ephemeral(bob)
    await duel_draft(bob, bob_dm, "tau", "torso", "bluff")
    await duel.wait_text("Waiting for Bob to lock in")
    await settled(bot, fake, duel)
    audience = sort_payloads(fake, fake.requests[start:], alice)
    shown = shown_to_others(duel, alice, mark)
    logs = records_above_debug(caplog, log_start)

    await bob.click(bob_dm, confirm_id(bob_dm))
    await duel.wait_round(2)
    await settled(bot, fake, duel)
    assert errors_in(caplog, log_start) == []
    return Window(
        audience, shown, logs, duel.board.text(), states_in_order(duel.board), rounds_of(duel)
    )


async def test_a_diceman_choice_is_secret_until_the_reveal(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    arena = await guild.add_channel("arena")
    first = await diceman_window(
        running_bot, fake_discord, caplog, guild.default_channel, alice, bob, ["priority", "sword"]
    )
    second = await diceman_window(
        running_bot, fake_discord, caplog, arena, alice, bob, ["magic", "shield"]
    )

    # 1. What anyone but Alice was shown is the same whatever she chose.
    assert first.audience.others, "the window should contain public and opponent payloads"
    assert_same_for_others(first, second)

    # 2. Her choice is in her own payloads only, and never in a log above DEBUG.
    for window, code, words in (
        (first, "ps", ("Priority + ⚔️ Sword", '"priority", "sword"')),
        (second, "mh", ("Magic + 🛡️ Shield", '"magic", "shield"')),
    ):
        markers = (f":pick:{code}", f":ok:{code}", *words)
        assert mentions(window.audience.owner, markers), "the capture must see her secret"
        assert mentions(window.audience.others, markers) == []
        assert mentions([s.state for s in window.shown], markers) == []
        assert mentions(window.logs, ("priority", "sword", "magic", "shield")) == []
    # Before the first reveal the public message names no die at all.
    public = [s.state for s in first.shown if s.where.startswith("channel")]
    assert public and mentions(public, ("magic", "priority", "sword", "shield")) == []
    # After the reveal, her choice is public.
    assert "**Alice** · ⚡ Priority **" in first.reveal_text
    assert "**Alice** · 🔮 Magic **" in second.reveal_text


async def test_a_tactical_duel_choice_is_secret_until_the_reveal(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    arena = await guild.add_channel("arena")
    first = await duel_window(
        running_bot,
        fake_discord,
        caplog,
        guild.default_channel,
        alice,
        bob,
        ("tau", "head", "intensifier"),
    )
    second = await duel_window(
        running_bot, fake_discord, caplog, arena, alice, bob, ("kaon", "extremities", "deflector")
    )

    assert first.audience.others
    assert_same_for_others(first, second)
    for window, code, words in (
        (first, "thi", ("Tau · Head · Intensifier",)),
        (second, "kxf", ("Kaon · Extremities · Deflector",)),
    ):
        markers = (f":ok:{code}", f":fn:{code}", *words)
        assert mentions(window.audience.owner, markers), "the capture must see her secret"
        assert mentions(window.audience.others, markers) == []
        assert mentions([s.state for s in window.shown], markers) == []
        assert mentions(window.logs, ("intensifier", "deflector", "extremities")) == []
    assert "Alice Intensifier" in first.reveal_text
    assert "Alice Deflector" in second.reveal_text
