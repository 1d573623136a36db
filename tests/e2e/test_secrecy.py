"""Secrecy: a locked-in choice reaches nobody but its owner before the reveal.

Every payload the fake Discord receives and every log record is captured. Between the
moment Alice starts choosing and the moment Bob locks in (the reveal), the test sorts the
payloads by who could read them: Alice alone (her DMs, her ephemeral messages, updates of
those) or anyone else (the public channel, Bob's DMs and ephemerals, answers to Bob).

Two proofs, for each game:
* the same script is played twice, in two channels, with Alice choosing differently; what
  anyone but Alice received (and every log record above DEBUG) is identical once ids are
  normalised, so it carries no information about her choice at all;
* Alice's own payloads do carry the choice (the capture is not blind), and no payload for
  anyone else and no log record above DEBUG names it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pytest
from duel_support import (
    Audience,
    Duel,
    confirm_id,
    diceman_lock,
    diceman_pick,
    duel_draft,
    duel_lock,
    normalise,
    sort_payloads,
)
from fakediscord import FakeChannel, FakeDiscord, FakeGuild, Player

from bot.app import DiceBot


@dataclass
class Window:
    audience: Audience
    logs: list[str]  # log records above DEBUG, formatted
    reveal_text: str  # the public message right after the reveal


def records_above_debug(caplog: pytest.LogCaptureFixture, start: int) -> list[str]:
    return [
        f"{r.name} {r.levelname} {r.getMessage()}"
        for r in caplog.records[start:]
        if r.levelno > logging.DEBUG
    ]


def mentions(texts: list[str], markers: tuple[str, ...]) -> list[str]:
    return [t for t in texts if any(m.lower() in t.lower() for m in markers)]


async def diceman_window(
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

    start, log_start = len(fake.requests), len(caplog.records)
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
    audience = sort_payloads(fake, fake.requests[start:], alice)
    logs = records_above_debug(caplog, log_start)

    await diceman_lock(bob, bob_dm, ["sword", "shield"])
    await duel.wait_round(2)
    return Window(audience, logs, duel.board.text())


async def duel_window(
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

    start, log_start = len(fake.requests), len(caplog.records)
    ephemeral = await duel.open_ephemeral(alice)
    await duel_draft(alice, ephemeral, *choice)
    await duel_lock(alice, alice_dm, *choice)
    again = await alice.click(ephemeral, confirm_id(ephemeral))
    assert "already locked in" in again.text()
    await duel.wait_text("Waiting for Bob to lock in")
    await duel.open_ephemeral(bob)
    await duel_draft(bob, bob_dm, "tau", "torso", "bluff")
    await duel.wait_text("Waiting for Bob to lock in")
    audience = sort_payloads(fake, fake.requests[start:], alice)
    logs = records_above_debug(caplog, log_start)

    await bob.click(bob_dm, confirm_id(bob_dm))
    await duel.wait_round(2)
    return Window(audience, logs, duel.board.text())


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
        fake_discord, caplog, guild.default_channel, alice, bob, ["priority", "sword"]
    )
    second = await diceman_window(fake_discord, caplog, arena, alice, bob, ["magic", "shield"])

    # 1. What anyone but Alice received is the same whatever she chose.
    assert first.audience.others, "the window should contain public and opponent payloads"
    assert [normalise(t) for t in first.audience.others] == [
        normalise(t) for t in second.audience.others
    ]
    assert [normalise(t) for t in first.logs] == [normalise(t) for t in second.logs]

    # 2. Her choice is in her own payloads only, and never in a log above DEBUG.
    for window, code, words in (
        (first, "ps", ("Priority + ⚔️ Sword", '"priority", "sword"')),
        (second, "mh", ("Magic + 🛡️ Shield", '"magic", "shield"')),
    ):
        markers = (f":pick:{code}", f":ok:{code}", *words)
        assert mentions(window.audience.owner, markers), "the capture must see her secret"
        assert mentions(window.audience.others, markers) == []
        assert mentions(window.logs, ("priority", "sword", "magic", "shield")) == []
    # Before the first reveal the public message names no die at all.
    public = [t for t in first.audience.others if "Diceman" in t and "Round 1" in t]
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
        fake_discord, caplog, guild.default_channel, alice, bob, ("tau", "head", "intensifier")
    )
    second = await duel_window(
        fake_discord, caplog, arena, alice, bob, ("kaon", "extremities", "deflector")
    )

    assert first.audience.others
    assert [normalise(t) for t in first.audience.others] == [
        normalise(t) for t in second.audience.others
    ]
    assert [normalise(t) for t in first.logs] == [normalise(t) for t in second.logs]
    for window, code, words in (
        (first, "thi", ("Tau · Head · Intensifier",)),
        (second, "kxf", ("Kaon · Extremities · Deflector",)),
    ):
        markers = (f":ok:{code}", f":fn:{code}", *words)
        assert mentions(window.audience.owner, markers), "the capture must see her secret"
        assert mentions(window.audience.others, markers) == []
        assert mentions(window.logs, ("intensifier", "deflector", "extremities")) == []
    assert "Alice Intensifier" in first.reveal_text
    assert "Alice Deflector" in second.reveal_text
