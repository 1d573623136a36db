"""Fixtures for the fake's own tests: the probe bot (``probe.py``) against the fake."""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord
import pytest

from fakediscord import BotHarness, FakeDiscord, FakeGuild
from fakediscord.probe import ProbeBot


@pytest.fixture
async def probe_harness(fake_discord: FakeDiscord, guild: FakeGuild) -> AsyncIterator[BotHarness]:
    harness = BotHarness(fake_discord, ProbeBot)
    await harness.start()
    yield harness
    assert await harness.stop() == []


@pytest.fixture
def probe(probe_harness: BotHarness) -> ProbeBot:
    bot = probe_harness.bot
    assert isinstance(bot, ProbeBot)
    return bot


@pytest.fixture
def bot_channel(probe: ProbeBot, guild: FakeGuild) -> discord.TextChannel:
    """#general as the probe's discord.py sees it (to send, edit and delete from a test)."""
    channel = probe.get_channel(guild.default_channel.id)
    assert isinstance(channel, discord.TextChannel)
    return channel
