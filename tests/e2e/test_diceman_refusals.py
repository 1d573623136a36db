"""Diceman end to end: what is refused (and changes nothing), challenges that are declined
or expire, timeouts across a restart, and choices that survive a restart."""

from __future__ import annotations

import json
from typing import Any

from crash_support import commit_unseen
from duel_support import Duel, confirm_id, diceman_lock, diceman_pick
from fakediscord import BotHarness, FakeDiscord, FakeGuild, Player

from bot.app import DiceBot
from bot.model.clock import ManualClock


async def start_duel(fake: FakeDiscord, challenger: Player, opponent: Player) -> Duel:
    challenge = await challenger.slash("diceman challenge", opponent=opponent)
    assert challenge.message is not None
    duel = Duel(fake, challenge.message, "dm")
    await opponent.click(duel.board, "Accept")
    await duel.wait_round(1)
    return duel


async def snapshot(bot: DiceBot, duel: Duel) -> tuple[int, dict[str, Any], int]:
    session = await bot.sessions.require(duel.session_id)
    return session.version, session.state, duel.board.edit_count


async def test_decline_withdraw_and_expiry(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    first = await alice.slash("diceman challenge", opponent=bob)
    assert first.message is not None
    board = first.message
    assert board.labels() == ["Accept", "Decline"]
    refused = await carol.click(board, "Accept")
    assert refused.ephemeral and "not for you" in refused.text()
    own = await alice.click(board, "Accept")
    assert own.ephemeral and "can't accept your own challenge" in own.text()
    await bob.click(board, "Decline")
    await fake_discord.wait_for(lambda: "declined" in board.text(), what="declined")
    assert board.components == []
    assert bob.dms() == [] and alice.dms() == []

    second = await alice.slash("diceman challenge", opponent=bob)
    assert second.message is not None
    withdrawn = await alice.slash("diceman forfeit")
    assert withdrawn.ephemeral and "challenge is off" in withdrawn.text()
    await fake_discord.wait_for(lambda: "withdrew" in second.message.text(), what="withdrawn")

    third = await alice.slash("diceman challenge", opponent=bob)
    assert third.message is not None
    clock.advance(301)  # the default challenge expiry is 300 s
    await fake_discord.wait_for(lambda: "expired" in third.message.text(), what="expiry")
    assert third.message.components == []
    rows = await running_bot.db.fetch_all("SELECT status FROM sessions ORDER BY id")
    assert [r["status"] for r in rows] == ["cancelled"] * 3
    assert await running_bot.db.fetch_all("SELECT * FROM results") == []


async def test_double_confirm_is_refused_and_changes_nothing(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    duel = await start_duel(fake_discord, alice, bob)
    dm = await duel.dm_controls(alice, 1)
    # Alice drafts one pick in an ephemeral copy, then locks another in by DM.
    ephemeral = await duel.open_ephemeral(alice)
    await diceman_pick(alice, ephemeral, ["magic", "shield"])
    await diceman_lock(alice, dm, ["priority", "sword"])
    await duel.wait_text("Waiting for Bob to lock in")
    before = await snapshot(running_bot, duel)

    again = await alice.click(ephemeral, confirm_id(ephemeral))
    assert again.ephemeral
    assert "already locked in" in again.text() and "a choice is final" in again.text()
    assert "magic" not in again.text().lower() and "priority" not in again.text().lower()
    reopen = await alice.click(duel.board, "Make your move")
    assert reopen.ephemeral and "already locked in" in reopen.text()
    assert await snapshot(running_bot, duel) == before
    state = (await duel.session(running_bot)).state
    assert state["game"]["choices"][0] == ["priority", "sword"]


async def test_presses_by_someone_else_are_refused(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player, carol: Player
) -> None:
    duel = await start_duel(fake_discord, alice, bob)
    await duel.dm_controls(bob, 1)
    before = await snapshot(running_bot, duel)
    refused = await carol.click(duel.board, "Make your move")
    assert refused.ephemeral and "not your game" in refused.text()
    forfeit = await carol.slash("diceman forfeit")
    assert forfeit.ephemeral and "no Diceman game open" in forfeit.text()
    assert await snapshot(running_bot, duel) == before


async def test_a_control_from_a_finished_round_is_refused(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    duel = await start_duel(fake_discord, alice, bob)
    stale = await duel.open_ephemeral(alice)
    await diceman_pick(alice, stale, ["sword", "shield"])
    await diceman_lock(alice, await duel.dm_controls(alice, 1), ["magic", "priority"])
    await diceman_lock(bob, await duel.dm_controls(bob, 1), ["sword", "shield"])
    await duel.wait_round(2)
    await duel.dm_controls(alice, 2)
    before = await snapshot(running_bot, duel)

    late = await alice.click(stale, confirm_id(stale))
    assert late.ephemeral
    assert "round 1, which is over: this is round 2" in late.text()
    changed = await alice.select(stale, ["magic", "shield"])
    assert changed.ephemeral and "which is over" in changed.text()
    assert await snapshot(running_bot, duel) == before


async def test_timeout_with_a_restart_in_between(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    bot = await bot_factory.start()
    duel = await start_duel(fake_discord, alice, bob)
    await diceman_lock(alice, await duel.dm_controls(alice, 1), ["priority", "sword"])
    await duel.dm_controls(bob, 1)
    await duel.wait_text("Waiting for Bob")

    clock.advance(121)  # 60 s before the default 180 s round timeout: the warning
    await fake_discord.wait_for(
        lambda: "Time is running out" in bob.last_dm().text(), what="the warning DM to Bob"
    )
    assert not any("Time is running out" in m.text() for m in alice.dms())

    assert isinstance(bot, DiceBot)
    bot = await bot_factory.restart()
    assert isinstance(bot, DiceBot)
    clock.advance(60)
    await duel.wait_text("Bob ran out of time. **Alice wins!**")
    row = await bot.db.fetch_one("SELECT * FROM results WHERE session_id = ?", (duel.session_id,))
    assert row is not None and row["reason"] == "timeout"
    session = await duel.session(bot)
    assert session.status == "finished"
    await fake_discord.wait_for(
        lambda: "You lost" in bob.dms()[-2].text() or "You lost" in bob.dms()[-1].text(),
        what="Bob's controls retired",
    )


async def test_nobody_moves_and_the_game_is_abandoned(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    duel = await start_duel(fake_discord, alice, bob)
    await duel.dm_controls(alice, 1)
    clock.advance(181)
    await duel.wait_text("the game is abandoned")
    assert (await duel.session(running_bot)).status == "cancelled"
    assert await running_bot.db.fetch_all("SELECT * FROM results") == []
    again = await alice.slash("diceman challenge", opponent=bob)
    assert not again.ephemeral  # the abandoned game no longer blocks the channel


async def test_locked_choices_and_drafts_survive_a_restart(
    bot_factory: BotHarness, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    await bot_factory.start()
    duel = await start_duel(fake_discord, alice, bob)
    await diceman_lock(alice, await duel.dm_controls(alice, 1), ["priority", "shield"])
    bob_dm = await duel.dm_controls(bob, 1)
    await diceman_pick(bob, bob_dm, ["magic", "sword"])  # drafted, not confirmed
    await duel.wait_text("Waiting for Bob")

    bot = await bot_factory.restart()
    assert isinstance(bot, DiceBot)
    # The draft lives in Bob's DM components; Confirm on the same message still works.
    note = await bob.click(bob_dm, confirm_id(bob_dm))
    assert "Locked in" in note.text() and "Magic + ⚔️ Sword" in note.text()
    await duel.wait_round(2)
    text = duel.board.text()
    assert "**Alice** · ⚡ Priority **" in text and "🛡️ Shield **" in text
    assert "**Bob** · 🔮 Magic **" in text
    summary_picks = (await duel.session(bot)).state["ui"]["picks"]
    assert summary_picks == [[["priority", "shield"]], [["magic", "sword"]]]
    await duel.dm_controls(alice, 2)
    assert json.dumps(duel.board.embed)  # the board is a well-formed embed after restart


async def test_a_round_whose_dms_never_went_out_is_resumed_after_a_restart(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    challenge = await alice.slash("diceman challenge", opponent=bob)
    assert challenge.message is not None
    duel = Duel(fake_discord, challenge.message, "dm")
    session = await bot.sessions.open_session_for(alice.id, guild.default_channel.id, "diceman")
    assert session is not None
    # Bob's Accept is committed but never shown, as when the bot dies right after.
    await commit_unseen(bot, session.id, bob.id, {"type": "accept"})
    assert bob.dms() == [] and "challenges" in duel.board.text()
    await bot_factory.restart()
    await duel.dm_controls(alice, 1)
    await duel.dm_controls(bob, 1)
    await duel.wait_round(1)
    assert "Waiting for Alice and Bob to lock in" in duel.board.text()


async def test_a_confirm_by_someone_else_or_on_a_finished_game_is_refused(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    """Confirm moves the game with no read of it first: the move's step gives the same
    answers a read would have, and changes nothing."""
    duel = await start_duel(fake_discord, alice, bob)
    alice_dm = await duel.dm_controls(alice, 1)
    await diceman_pick(alice, alice_dm, ["priority", "sword"])
    before = await snapshot(running_bot, duel)

    # Alice's Confirm, copied onto a message Carol can press.
    copied = await fake_discord.seed_bot_message(
        guild.default_channel, content="Alice's controls", components=alice_dm.components
    )
    confirm = confirm_id(alice_dm)
    nosy = await carol.click(copied, confirm)
    assert nosy.ephemeral and "not your game" in nosy.text()
    assert "priority" not in nosy.text().lower() and "sword" not in nosy.text().lower()
    assert await snapshot(running_bot, duel) == before

    await alice.slash("diceman forfeit")
    await duel.wait_over()
    await running_bot.publisher.settled()
    before = await snapshot(running_bot, duel)
    assert alice_dm.components == []  # her controls were retired with the game
    late = await alice.click(copied, confirm)
    assert late.ephemeral and "already over" in late.text()
    assert await snapshot(running_bot, duel) == before
