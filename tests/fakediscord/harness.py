"""Running a real discord.py bot against the fake: start it, wait until it is ready and has
synced its commands, stop it cleanly (and say what it left behind), restart it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from discord.ext import commands

from .server import FakeDiscord

# AutoShardedBot is not a subclass of Bot: both share BotBase.
AnyBot = commands.Bot | commands.AutoShardedBot
BotFactory = Callable[..., AnyBot]


class BotStartError(AssertionError):
    pass


class BotHarness:
    """Starts bots made by ``factory`` (a fresh instance each time, e.g. on the same
    database) with ``await bot.start(token)`` in a task, raced against readiness, so a
    start-up error shows at once instead of as a time-out."""

    def __init__(
        self,
        fake: FakeDiscord,
        factory: BotFactory,
        *,
        ready_timeout: float = 10.0,
        wait_for_sync: bool = True,
        settle: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        self.fake = fake
        self.factory = factory
        # Passed to the factory as keyword arguments on every start (and restart).
        self.options: dict[str, Any] = {}
        self.ready_timeout = ready_timeout
        self.wait_for_sync = wait_for_sync
        # What the bot still finishes after READY that a test pressing at once would race
        # (a real player comes seconds later): the picture helper's warm-up, for one.
        self.settle = settle
        self.bot: AnyBot | None = None
        self.starts = 0
        self._task: asyncio.Task[None] | None = None
        self._baseline: set[asyncio.Task[Any]] = set()

    async def start(self) -> AnyBot:
        if self.bot is not None:
            raise RuntimeError("a bot is already running: stop() or restart() it first")
        if self.starts:
            # A real restart takes longer than Discord's one-second global window (a process
            # starts, imports, logs in), so a new bot never shares a window with its
            # predecessor's last requests, which it cannot know of. The harness restarts in
            # milliseconds: wait out that window, as the real gap would.
            await asyncio.sleep(self.fake.rate_limits.global_window_left())
        self._baseline = asyncio.all_tasks()
        syncs_before = self.fake.commands.sync_count
        bot = self.factory(**self.options)
        task = asyncio.create_task(bot.start(self.fake.token), name="fake-discord-bot-start")
        ready = asyncio.create_task(bot.wait_until_ready(), name="fake-discord-bot-ready")
        done, _ = await asyncio.wait(
            {task, ready}, timeout=self.ready_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            error = task.exception() if task in done else None
            await bot.close()
            await asyncio.gather(task, return_exceptions=True)
            raise BotStartError(
                f"the bot did not become ready within {self.ready_timeout} s"
                if error is None
                else f"the bot failed to start: {error!r}"
            ) from error
        self.bot = bot
        self._task = task
        self.starts += 1
        if self.wait_for_sync:
            await self.fake.wait_for(
                lambda: self.fake.commands.sync_count > syncs_before or task.done(),
                timeout=self.ready_timeout,
                what="the bot to sync its application commands",
            )
            if task.done():
                raise BotStartError(f"the bot stopped right after start: {task.exception()!r}")
        if self.settle is not None:
            await self.settle()
        return bot

    async def stop(self, *, grace: float = 2.0) -> list[str]:
        """Close the bot and wait for its start task to finish. Returns what it left behind
        (tasks still pending, an unclosed HTTP session) — empty when shutdown was clean."""
        bot, task = self.bot, self._task
        self.bot = None
        self._task = None
        if bot is None or task is None:
            return []
        await bot.close()
        leftovers: list[str] = []
        try:
            await asyncio.wait_for(task, grace)
        except TimeoutError:
            leftovers.append("bot.start() did not return after bot.close()")
        except Exception as error:
            leftovers.append(f"bot.start() ended with {error!r}")
        current = asyncio.current_task()
        pending = {
            t
            for t in asyncio.all_tasks() - self._baseline
            if t is not current and not t.done() and not _serves_a_connection(t)
        }
        if pending:
            # Give tasks that are already finishing (cancelled, closing) a moment to end.
            _, pending = await asyncio.wait(pending, timeout=grace)
        leftovers.extend(f"pending task {t.get_name()}: {t.get_coro()!r}" for t in pending)
        session = getattr(bot.http, "_HTTPClient__session", None)
        if session is not None and not session.closed:
            leftovers.append("the bot's aiohttp session is still open")
        return leftovers

    async def restart(self) -> AnyBot:
        """Stop the running bot and start a NEW instance (same factory, same database)."""
        leftovers = await self.stop()
        if leftovers:
            raise AssertionError(f"the bot did not shut down cleanly: {leftovers}")
        await self.fake.wait_for(
            lambda: not self.fake.gateway.connections,
            timeout=5,
            what="the old bot's gateway connection to close",
        )
        return await self.start()


def _serves_a_connection(task: asyncio.Task[Any]) -> bool:
    """The fake's own aiohttp task for one client connection: it ends when that client
    closes, which may be another bot still running in the same test (an unclosed session
    of this bot is reported on its own)."""
    return getattr(task.get_coro(), "__qualname__", "") == "RequestHandler.start"
