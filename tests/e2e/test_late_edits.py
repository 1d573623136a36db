"""An edit of a game's message that lands late (held in Discord's queue, or in the bot's own
pacing under the global rate limit) is sent again only if another process claimed a newer
version meanwhile: a restart with thousands of timers due, whose edits all wait their
turn, once edited every message again and again (bench/restart.py: 32 edits a game)."""

from __future__ import annotations

import asyncio
import logging

import pytest
from fakediscord import FakeDiscord, Player, routes
from knucklebones_support import session_for, start_duel

from bot.app import DiceBot
from bot.model.clock import ManualClock
from bot.ui import publish_ledger

WARNED = "Running out of time"


@pytest.fixture
def late_after_a_moment(monkeypatch: pytest.MonkeyPatch) -> float:
    """An edit counts as late after 0.2 s of real time (4 s in the bot), so that a test
    need not hold one for seconds."""
    monkeypatch.setattr(publish_ledger, "SHOW_LATE_SECONDS", 0.2)
    return 0.2


async def test_a_late_edit_nothing_newer_overtook_is_sent_once(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
    bob: Player,
    late_after_a_moment: float,
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    held = fake_discord.hold(
        routes.MESSAGE, method="PATCH", when=lambda record: record.message_id == board.id
    )
    clock.advance(240)  # the turn warning: the board is edited, and that edit held
    await held.arrived()
    await asyncio.sleep(late_after_a_moment + 0.1)  # real time: the edit is late
    held.release()
    await fake_discord.wait_for(lambda: WARNED in board.content, what="the board's warning")
    await running_bot.publisher.settled()

    edits = [r for r in fake_discord.requests_to(routes.MESSAGE, "PATCH") if r.message == board]
    assert len(edits) == 1
    assert WARNED in board.content


async def test_a_late_edit_a_newer_claim_overtook_is_followed_by_the_newest(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
    bob: Player,
    late_after_a_moment: float,
    caplog: pytest.LogCaptureFixture,
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    held = fake_discord.hold(
        routes.MESSAGE, method="PATCH", when=lambda record: record.message_id == board.id
    )
    clock.advance(240)
    await held.arrived()
    session = await session_for(running_bot, board)
    # The edit's claim runs out, and another process claims the message for a newer version
    # (its edit may land before this late one).
    clock.advance(publish_ledger.SHOW_LEASE_SECONDS)
    await running_bot.publisher.store.claim_show(
        session.id, session.version + 1, owner="another process", now=clock.now(), lease_seconds=60
    )
    await asyncio.sleep(late_after_a_moment + 0.1)
    with caplog.at_level(logging.INFO, logger=publish_ledger.PUBLISHER_LOG):
        held.release()
        await fake_discord.wait_for(lambda: WARNED in board.content, what="the board's warning")
        await running_bot.publisher.settled()
    assert "a newer version was claimed meanwhile; showing the newest again" in caplog.text
