"""Shared fixtures: a fake Discord on 127.0.0.1 and the real bot running against it.

The machinery lives in ``tests/fakediscord`` (see its README.md for the API)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from fakediscord import BotHarness, FakeDiscord, FakeGuild, Player
from presentation import presentation_problems
from pydantic import SecretStr

from bot.app import DiceBot, create_bot
from bot.clock import ManualClock
from bot.config import Settings

BOT_SEED = 1234


@pytest.fixture
def clock() -> ManualClock:
    """The one clock of a test: the bot's deadlines and the fake's token expiry follow it."""
    return ManualClock()


@pytest.fixture
async def fake_discord(clock: ManualClock) -> AsyncIterator[FakeDiscord]:
    """The running fake, with discord.py pointed at it. At teardown the test fails if the
    fake saw problems a player would notice (late or missing answers, rejected bodies...)."""
    fake = FakeDiscord(time_source=clock.now)
    await fake.start()
    with fake.redirect_discord_py():
        yield fake
    await fake.stop()
    problems = fake.final_problems()
    if problems:
        pytest.fail("the fake Discord saw problems:\n" + "\n".join(f"  {p}" for p in problems))


@pytest.fixture
async def guild(fake_discord: FakeDiscord) -> FakeGuild:
    """A guild with the bot in it and one text channel, #general."""
    return await fake_discord.create_guild("Dice Hall")


@pytest.fixture
def make_member(guild: FakeGuild) -> Callable[..., Awaitable[Player]]:
    """``await make_member("dave", dms_open=False, permissions=Permissions(...))``."""

    async def make(name: str, **options: Any) -> Player:
        return await guild.add_member(name, **options)

    return make


@pytest.fixture
async def alice(guild: FakeGuild) -> Player:
    return await guild.add_member("alice")


@pytest.fixture
async def bob(guild: FakeGuild) -> Player:
    return await guild.add_member("bob")


@pytest.fixture
async def carol(guild: FakeGuild) -> Player:
    return await guild.add_member("carol")


@pytest.fixture
async def bot_factory(
    fake_discord: FakeDiscord, guild: FakeGuild, clock: ManualClock, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    """Starts the real bot (a NEW instance each ``start``/``restart``) on one temporary
    database, with the test's ManualClock and a fixed seed. Settings can be changed with
    ``bot_factory.options["settings"] = {...}`` before starting. Fails the test if the bot
    does not shut down cleanly, or if it sent an embed off the house palette or a picture
    without alt text (``tests/presentation.py``)."""

    def make(**options: Any) -> DiceBot:
        settings = Settings(
            discord_token=SecretStr(fake_discord.token),
            database_path=tmp_path / "bot.db",
            dev_guild_id=guild.id,
            _env_file=None,  # type: ignore[call-arg]
            **options.get("settings", {}),
        )
        return create_bot(
            settings,
            clock=clock,
            seed=options.get("seed", BOT_SEED),
            guild_ready_timeout=0.05,
        )

    harness = BotHarness(fake_discord, make)
    yield harness
    leftovers = await harness.stop()
    if leftovers:
        pytest.fail("the bot did not shut down cleanly:\n  " + "\n  ".join(leftovers))
    # One palette, alt text on every picture (tests/presentation.py).
    looks = presentation_problems([record.body for record in fake_discord.requests])
    if looks:
        pytest.fail("the bot sent messages that break the house look:\n  " + "\n  ".join(looks))


@pytest.fixture
async def running_bot(bot_factory: BotHarness) -> DiceBot:
    """The bot, started and ready, its commands synced."""
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    return bot


@pytest.fixture(autouse=True)
def no_error_logged(request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture) -> Any:
    """An ERROR in the log is a bug: any test that logs one fails, unless it injects a bug
    on purpose and says so with ``@pytest.mark.logs_errors``."""
    yield
    if request.node.get_closest_marker("logs_errors") is not None:
        return
    errors = [
        f"{record.name}: {record.getMessage()}"
        for record in caplog.get_records("call") + caplog.get_records("setup")
        if record.levelno >= logging.ERROR
    ]
    if errors:
        pytest.fail("ERROR logged during the test:\n  " + "\n  ".join(errors))
