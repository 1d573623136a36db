"""Dimension Duel end to end: refusals that change nothing, challenges declined or expired,
timeouts across a restart, and tactical drafts and lock-ins that survive a restart."""

from __future__ import annotations

from typing import Any

from duel_support import Duel, confirm_id, duel_draft, duel_lock
from fakediscord import BotHarness, FakeDiscord, Player

from bot.app import DiceBot
from bot.model.clock import ManualClock


async def start_duel(
    fake: FakeDiscord, challenger: Player, opponent: Player, **options: Any
) -> Duel:
    challenge = await challenger.slash("duel challenge", opponent=opponent, **options)
    assert challenge.message is not None
    duel = Duel(fake, challenge.message, "dd")
    await opponent.click(duel.board, "Accept")
    await duel.wait_round(1)
    return duel


async def snapshot(bot: DiceBot, duel: Duel) -> tuple[int, dict[str, Any], int]:
    session = await bot.sessions.require(duel.session_id)
    return session.version, session.state, duel.board.edit_count


async def test_decline_and_expiry(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    first = await alice.slash("duel challenge", opponent=bob, mode="classic", hp=30)
    assert first.message is not None
    assert "Mode **classic**" in first.message.text() and "**30 HP** each" in first.message.text()
    refused = await carol.click(first.message, "Decline")
    assert refused.ephemeral and "not for you" in refused.text()
    await bob.click(first.message, "Decline")
    await fake_discord.wait_for(lambda: "declined" in first.message.text(), what="declined")
    assert first.message.components == []

    second = await alice.slash("duel challenge", opponent=bob)
    assert second.message is not None
    clock.advance(301)
    await fake_discord.wait_for(lambda: "expired" in second.message.text(), what="expiry")
    assert second.message.components == []
    rows = await running_bot.db.fetch_all("SELECT status FROM sessions ORDER BY id")
    assert [r["status"] for r in rows] == ["cancelled", "cancelled"]
    assert await running_bot.db.fetch_all("SELECT * FROM results") == []


async def test_double_confirm_wrong_user_and_a_finished_turn(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player, carol: Player
) -> None:
    duel = await start_duel(fake_discord, alice, bob, hp=150)
    # Alice drafts in an ephemeral copy, then locks in (differently) by DM.
    ephemeral = await duel.open_ephemeral(alice)
    await duel_draft(alice, ephemeral, "kaon", "extremities", "deflector")
    await duel_lock(alice, await duel.dm_controls(alice, 1), "tau", "head", "bluff")
    await duel.wait_text("Waiting for Bob to lock in")
    before = await snapshot(running_bot, duel)

    again = await alice.click(ephemeral, confirm_id(ephemeral))
    assert again.ephemeral and "already locked in for this turn" in again.text()
    for word in ("kaon", "extremities", "deflector", "tau", "head", "bluff"):
        assert word not in again.text().lower()
    nosy = await carol.click(duel.board, "Make your move")
    assert nosy.ephemeral and "not your game" in nosy.text()
    assert await snapshot(running_bot, duel) == before
    alice_seat = 0 if _is_tau(duel, "Alice") else 1
    assert before[1]["game"]["choices"][alice_seat] == {
        "device": "tau",
        "region": "head",
        "function": "bluff",
    }

    await duel_lock(bob, await duel.dm_controls(bob, 1), "tau", "torso", "bluff")
    await duel.wait_round(2)
    await duel.dm_controls(alice, 2)
    before = await snapshot(running_bot, duel)
    late = await alice.click(ephemeral, confirm_id(ephemeral))
    assert late.ephemeral and "turn 1, which is over: this is turn 2" in late.text()
    assert await snapshot(running_bot, duel) == before


async def test_timeout_with_a_restart_in_between(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    bot_factory.options["settings"] = {"round_timeout_seconds": 90}
    await bot_factory.start()
    duel = await start_duel(fake_discord, alice, bob)
    assert "1 min 30 s per turn" in duel.board.text()
    await duel.dm_controls(alice, 1)
    await duel_lock(bob, await duel.dm_controls(bob, 1), "kaon", "head", "bluff")
    await duel.wait_text("Waiting for Alice")

    clock.advance(61)  # a third of the 90 s turn is left: the warning
    await fake_discord.wait_for(
        lambda: "Time is running out" in alice.last_dm().text(), what="the warning DM"
    )
    bot = await bot_factory.restart()
    assert isinstance(bot, DiceBot)
    clock.advance(30)
    await duel.wait_text("Alice ran out of time. **Bob wins!**")
    row = await bot.db.fetch_one("SELECT * FROM results WHERE session_id = ?", (duel.session_id,))
    assert row is not None and row["reason"] == "timeout"


async def test_drafts_and_lock_ins_survive_a_restart(
    bot_factory: BotHarness, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    await bot_factory.start()
    duel = await start_duel(fake_discord, alice, bob, hp=150)
    await duel_lock(alice, await duel.dm_controls(alice, 1), "tau", "head", "delayed_attack")
    bob_dm = await duel.dm_controls(bob, 1)
    await duel_draft(bob, bob_dm, "kaon", "torso", "intensifier")
    await duel.wait_text("Waiting for Bob")

    bot = await bot_factory.restart()
    assert isinstance(bot, DiceBot)
    note = await bob.click(bob_dm, confirm_id(bob_dm))
    assert "Kaon · Torso · Intensifier" in note.text()
    await duel.wait_round(2)
    text = duel.board.text()
    assert "Delayed Attack" in text and "Intensifier" in text
    picks = (await duel.session(bot)).state["ui"]["picks"]
    by_seat = [["delayed_attack"], ["intensifier"]]
    assert picks == (by_seat if _is_tau(duel, "Alice") else by_seat[::-1])


def _is_tau(duel: Duel, name: str) -> bool:
    for embed_field in (duel.board.embed or {}).get("fields", []):
        if embed_field["name"].startswith(name):
            return "Tau" in embed_field["name"]
    raise AssertionError(name)


async def test_forfeit(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    duel = await start_duel(fake_discord, alice, bob, mode="classic")
    answer = await bob.slash("duel forfeit")
    assert answer.ephemeral and "forfeited the Dimension Duel" in answer.text()
    await duel.wait_text("Bob forfeited. **Alice wins!**")
    row = await running_bot.db.fetch_one("SELECT reason FROM results")
    assert row is not None and row["reason"] == "forfeit"
