"""Shared fixtures: a fake Discord on 127.0.0.1 and the real bot running against it, on
either storage backend.

The machinery lives in ``tests/fakediscord`` (see its README.md for the API). ``backend``
runs a test on SQLite and on PostgreSQL (tests/backends.py: skipped, and said so in the
summary, without ``TEST_DATABASE_URL``); tests marked ``sqlite_only`` are about SQLite
itself and run on it alone."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from backends import BACKENDS, backend_url, postgres_unavailable
from fakediscord import BotHarness, FakeChannel, FakeDiscord, FakeGuild, Player, pseudo
from presentation import presentation_problems
from pseudo_locale import pseudo_problems
from pydantic import SecretStr

from bot.app import DiceBot, create_bot
from bot.config import Settings
from bot.model.clock import ManualClock
from bot.pictures import worker as picture_worker
from bot.pictures.worker import usable_cpus

BOT_SEED = 1234
# A bot goes online without waiting for its picture helper to warm up (bot.app): tests that
# press at once wait for it, as a player arriving a second after a restart would not.
PICTURE_WARM_UP_SECONDS = 30.0


async def warm_pictures() -> None:
    await picture_worker.warmed(at_most=PICTURE_WARM_UP_SECONDS)


POSTGRES_SKIPPED = pytest.StashKey[tuple[int, str | None]]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests about SQLite itself (files, pragmas, its locks) are not run on PostgreSQL; and
    without a PostgreSQL server (``TEST_DATABASE_URL``) no test runs on it: the summary
    says how many were skipped and why. On CI (``CI=true``) they run, and fail if the
    server is missing."""
    unavailable = postgres_unavailable()
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    skipped: list[pytest.Item] = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        on_postgres = "postgresql" in (params.get("backend"), params.get("postgres"))
        if on_postgres and item.get_closest_marker("sqlite_only") is not None:
            dropped.append(item)
        elif (on_postgres or item.get_closest_marker("postgres_only")) and unavailable:
            skipped.append(item)
        else:
            kept.append(item)
    if dropped or skipped:
        config.hook.pytest_deselected(items=dropped + skipped)
        items[:] = kept
    config.stash[POSTGRES_SKIPPED] = (len(skipped), unavailable)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker per CPU this process may use, a cgroup's CPU quota included
    (a container limited to 2 CPUs on a 64-core host runs 2, not 64). More workers than
    CPUs starve each other: ``-n 4`` on 2 CPUs was slower than ``-n 2`` and left bots
    unready after 10 s."""
    return usable_cpus()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist the workers collect, not the controller that writes the summary:
    each worker hands its count back (they all collect the same tests)."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        count, reason = session.config.stash.get(POSTGRES_SKIPPED, (0, None))
        workeroutput["postgres_skipped"] = [count, reason]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """The controller's side of ``pytest_sessionfinish`` above (an xdist hook)."""
    count, reason = getattr(node, "workeroutput", {}).get("postgres_skipped", [0, None])
    if count:
        node.config.stash[POSTGRES_SKIPPED] = (count, reason)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    count, reason = config.stash.get(POSTGRES_SKIPPED, (0, None))
    if count:
        terminalreporter.write_line(f"PostgreSQL: {count} tests skipped ({reason})", yellow=True)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The storage backend of the test: "sqlite" or "postgresql"."""
    return str(request.param)


@pytest.fixture
async def database_url(backend: str, tmp_path: Path) -> AsyncIterator[str | None]:
    """None on SQLite (a file in tmp_path), else the test's own PostgreSQL schema."""
    async with backend_url(backend, tmp_path) as url:
        yield url


@pytest.fixture
def clock() -> ManualClock:
    """The one clock of a test: the bot's deadlines and the fake's token expiry follow it."""
    return ManualClock()


@pytest.fixture
async def fake_discord(
    clock: ManualClock, request: pytest.FixtureRequest
) -> AsyncIterator[FakeDiscord]:
    """The running fake, with discord.py pointed at it. At teardown the test fails if the
    fake saw problems a player would notice (late or missing answers, rejected bodies, a
    429 the bot ran into...). Discord's rate limits apply (fakediscord/ratelimits.py); a
    test marked ``machine_speed("why")`` gets ten times their requests per window."""
    fake = FakeDiscord(time_source=clock.now, check_answers=True)
    machine_speed = request.node.get_closest_marker("machine_speed")
    if machine_speed is not None:
        fake.rate_limits.at_machine_speed(*machine_speed.args)
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
async def server_without_bot(fake_discord: FakeDiscord) -> FakeGuild:
    """A server that never added the bot ("Elsewhere", #general): its members reach the
    bot only through commands they installed themselves (``player.install_app()``), and
    every channel route there is refused (403 / 50001)."""
    return await fake_discord.create_guild("Elsewhere", with_bot=False)


@pytest.fixture
def dm_between(fake_discord: FakeDiscord) -> Callable[[Player, Player], FakeChannel]:
    """``dm_between(alice, bob)``: the DM channel between two users, where the bot is no
    member (a group DM: ``fake_discord.group_dm(alice, bob, carol)``)."""
    return fake_discord.dm_between


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
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    clock: ManualClock,
    tmp_path: Path,
    database_url: str | None,
    request: pytest.FixtureRequest,
) -> AsyncIterator[BotHarness]:
    """Starts the real bot (a NEW instance each ``start``/``restart``) on one temporary
    database (SQLite or PostgreSQL, see ``backend``), with the test's ManualClock and a
    fixed seed. Settings can be changed with ``bot_factory.options["settings"] = {...}``
    before starting. Fails the test if the bot does not shut down cleanly, or if it sent an
    embed off the house palette or a picture without alt text (``tests/presentation.py``)."""

    def make(**options: Any) -> DiceBot:
        values: dict[str, Any] = {
            "discord_token": SecretStr(fake_discord.token),
            "database_path": tmp_path / "bot.db",
            "database_url": database_url,
            "dev_guild_id": guild.id,
            **options.get("settings", {}),
        }
        settings = Settings(_env_file=None, **values)  # type: ignore[call-arg]
        return create_bot(
            settings,
            clock=clock,
            seed=options.get("seed", BOT_SEED),
            guild_ready_timeout=0.05,
        )

    harness = BotHarness(fake_discord, make, settle=warm_pictures)
    yield harness
    leftovers = await harness.stop()
    if leftovers:
        pytest.fail("the bot did not shut down cleanly:\n  " + "\n  ".join(leftovers))
    # One palette, alt text on every picture (tests/presentation.py).
    looks = presentation_problems([record.body for record in fake_discord.requests])
    if looks:
        pytest.fail("the bot sent messages that break the house look:\n  " + "\n  ".join(looks))
    # A pseudo-localized run: nothing players read skipped the catalogs (tests/pseudo_locale.py).
    if pseudo.active() and request.node.get_closest_marker("own_texts") is None:
        english = pseudo_problems(fake_discord)
        if english:
            pytest.fail("English left in what players see:\n  " + "\n  ".join(english))


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
