"""Fixtures of the end-to-end tests beyond the shared ones in tests/conftest.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from backends import isolated_database
from clocked_support import ClockedBot
from cluster_support import Cluster
from fakediscord import FakeDiscord, FakeGuild

from bot.i18n import PSEUDO_ENV
from bot.model.clock import ManualClock


@pytest.fixture(autouse=True)
def pseudo_localized_on_postgres(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each end-to-end test that runs on both backends plays pseudo-localized on
    PostgreSQL (tests/pseudo_locale.py): so one run of the suite with TEST_DATABASE_URL,
    as CI makes, is both the English run and the pseudo-localized run, at no extra cost.
    ``DICEBOT_PSEUDO_LOCALE=1`` pseudo-localizes every test."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("backend") == "postgresql":
        monkeypatch.setenv(PSEUDO_ENV, "1")


@pytest.fixture
async def clocked_bot(
    fake_discord: FakeDiscord, guild: FakeGuild, clock: ManualClock, tmp_path: Path
) -> AsyncIterator[ClockedBot]:
    bot = ClockedBot(fake_discord, guild, clock, tmp_path / "bot.db")
    try:
        yield bot
    finally:
        await bot.process.ensure_dead()


@pytest.fixture
async def sharded_fake(clock: ManualClock) -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord(time_source=clock.now, shard_count=2, max_concurrency=1)
    # Discord refuses an identify over max_concurrency: so does the fake.
    fake.gateway.enforce_identify_limit = True
    await fake.start()
    yield fake
    await fake.stop()
    problems = fake.final_problems()
    assert not problems, problems


@pytest.fixture
async def cluster(sharded_fake: FakeDiscord, clock: ManualClock) -> AsyncIterator[Cluster]:
    async with isolated_database() as url:
        running = Cluster(sharded_fake, clock, url)
        try:
            yield running
        finally:
            for shard in running.shards:
                await shard.process.ensure_dead()
