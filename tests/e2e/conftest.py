"""Fixtures of the end-to-end tests beyond the shared ones in tests/conftest.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from clocked_support import ClockedBot
from fakediscord import FakeDiscord, FakeGuild

from bot.clock import ManualClock


@pytest.fixture
async def clocked_bot(
    fake_discord: FakeDiscord, guild: FakeGuild, clock: ManualClock, tmp_path: Path
) -> AsyncIterator[ClockedBot]:
    bot = ClockedBot(fake_discord, guild, clock, tmp_path / "bot.db")
    try:
        yield bot
    finally:
        await bot.process.ensure_dead()
