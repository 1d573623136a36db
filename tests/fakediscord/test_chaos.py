"""Seeded chaos: the same seed injects the same faults into the same requests, every fault
is accounted for, and once stopped everything works again."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import pytest

from bot.model.clock import ManualClock
from fakediscord import BotHarness, ChaosSettings, FakeDiscord, Player
from fakediscord.probe import ProbeBot

CHAOS = {
    "lost_answers": 0.3,
    "server_errors": 0.15,
    "rate_limit_bursts": 0.1,
    "connection_drops": 0.1,
    "permission_outage": 0.1,
    "retry_after": 0.001,
}


@dataclass
class Run:
    # (fault kind, method, route) in the order they were injected.
    faults: list[tuple[str, str, str]]
    # What each step looked like to the bot or the player.
    seen: list[str]


async def play(seed: int) -> Run:
    """Ten rounds of an answer, a send, an edit and a DM under chaos, then five without."""
    fake = FakeDiscord(time_source=ManualClock().now, check_answers=True)
    # Fifteen sends, edits and DMs in a row, as fast as the probe goes: a test of the
    # faults, not of Discord's pacing (that is test_ratelimits.py).
    fake.rate_limits.at_machine_speed("fifteen sends, edits and DMs in a row")
    await fake.start()
    try:
        with fake.redirect_discord_py():
            guild = await fake.create_guild("Dice Hall")
            alice = await guild.add_member("alice")
            harness = BotHarness(fake, ProbeBot)
            bot = await harness.start()
            try:
                assert isinstance(bot, ProbeBot)
                channel = bot.get_channel(guild.default_channel.id)
                assert isinstance(channel, discord.TextChannel)
                user = await bot.fetch_user(alice.id)
                chaos = fake.chaos(seed=seed, **CHAOS)
                seen = [step async for step in rounds(alice, channel, user, 10)]
                faults: list[tuple[str, str, str]] = [
                    (f.kind, f.record.method, f.record.route) for f in chaos.faults
                ]
                assert faults, "ten rounds of chaos injected nothing"
                account_for(fake, chaos.count(), seen)

                await chaos.stop()
                assert all(outage.ended for outage in chaos.outages)
                assert fake.bot_user.id not in guild.default_channel.overwrites
                calm = [step async for step in rounds(alice, channel, user, 5)]
                assert set(calm) == {"answered", "ok"}
                assert len(chaos.faults) == len(faults)
            finally:
                assert await harness.stop() == []
    finally:
        await fake.stop()
    assert fake.final_problems() == []
    return Run(faults, seen)


async def rounds(
    alice: Player, channel: discord.TextChannel, user: discord.User, count: int
) -> AsyncIterator[str]:
    board: discord.Message | None = None
    for turn in range(count):
        outcome = await alice.slash("answer", retries=1)
        yield "lost" if outcome.lost else "answered"
        try:
            board = await channel.send(f"turn {turn}")
            yield "ok"
        except (discord.HTTPException, aiohttp.ClientError) as error:
            yield seen_as(error)
        if board is not None:
            yield await outcome_of(board.edit(content=f"turn {turn}, edited"))
        yield await outcome_of(user.send(f"your hand {turn}"))


async def outcome_of(call: Awaitable[Any]) -> str:
    try:
        await call
    except (discord.HTTPException, aiohttp.ClientError) as error:
        return seen_as(error)
    return "ok"


def seen_as(error: Exception) -> str:
    if isinstance(error, discord.HTTPException):
        return f"{type(error).__name__} {error.status}/{error.code}"
    return type(error).__name__


def account_for(fake: FakeDiscord, injected: int, seen: list[str]) -> None:
    """Every faulted request is in the fault log, and every lost answer is a problem."""
    faulted = [r for r in fake.requests if r.fault is not None]
    request_faults = [f for f in fake.injected_faults if f.kind != "permission-outage"]
    assert len(faulted) == len(request_faults)
    assert injected == len(fake.injected_faults)
    assert len(fake.take_problems("interaction-failed")) == seen.count("lost")
    assert fake.problems == []


async def test_the_same_seed_injects_the_same_faults() -> None:
    first = await play(seed=7)
    again = await play(seed=7)
    other = await play(seed=8)
    assert first == again
    assert other.faults != first.faults
    kinds = {kind for kind, _, _ in first.faults + other.faults}
    assert {"rate-limit", "server-error"} <= kinds


def test_chaos_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="probability"):
        ChaosSettings(seed=1, lost_answers=1.5)
    with pytest.raises(ValueError, match="must not exceed 1"):
        ChaosSettings(seed=1, server_errors=0.6, rate_limit_bursts=0.6)
    with pytest.raises(ValueError, match="not a permission"):
        ChaosSettings(seed=1, outage_denies=("send",))
