"""Running the bot as a service: start-up that retries a network failure with backoff, one
line per problem, the "ready" line, the heartbeat, and a stop on SIGTERM/SIGINT that takes
under five seconds whatever the bot is doing.

Every start attempt is a fresh ``DiceBot``: a failed attempt is closed whole (timers,
HTTP session, database) and the next starts clean, so nothing half-set-up is reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import platform
import signal
import threading
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import FrameType

import discord

from bot.app import DiceBot, create_bot
from bot.config import Settings
from bot.service.health import BEAT_SECONDS, Beat, remove_beat, write_beat
from bot.service.logs import describe_error
from bot.service.network import DiscordTimeout, Failure, Kind, classify
from bot.storage import StorageUnavailable, database_for
from bot.ui.permissions import invite_url, user_install_url

log = logging.getLogger("bot")

# Logging in is two small requests (the token check and the application); Discord answers
# them in well under a second. Past this, the attempt counts as a network failure.
REACH_TIMEOUT_SECONDS = 5.0
FIRST_RETRY_SECONDS = 1.0
MAX_RETRY_SECONDS = 60.0
# A clean stop gets this long (interactions in flight finish, the gateway and the database
# close); the watchdog ends the process past STOP_LIMIT_SECONDS in any case.
CLOSE_BUDGET_SECONDS = 3.5
STOP_LIMIT_SECONDS = 4.7
# Tools like `timeout` signal the process and then its whole group: one request, not two.
REPEAT_IGNORED_SECONDS = 1.0

EXIT_OK = 0
EXIT_BUG = 1
EXIT_HOST = 2


def retry_delay(attempt: int) -> float:
    """1, 2, 4, ... seconds, at most a minute: quick after a blip, gentle in an outage."""
    return min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** (attempt - 1))


def package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


# -- stopping -------------------------------------------------------------------------------


class StopRequest:
    """SIGTERM and SIGINT. The first asks for a clean stop and starts a watchdog that ends
    the process after ``STOP_LIMIT_SECONDS`` whatever is stuck (a DNS lookup in a thread,
    a peer that never acknowledges a close); a second signal ends it at once.

    ``signal.signal`` rather than ``loop.add_signal_handler``: its handler runs between two
    bytecodes of the main thread, so the watchdog starts even if the event loop is busy.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.event = asyncio.Event()
        self.name: str | None = None
        self._first_at = 0.0

    def install(self) -> None:
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, self._on_signal)

    @property
    def requested(self) -> bool:
        return self.event.is_set()

    async def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True if a stop was asked for meanwhile."""
        try:
            await asyncio.wait_for(self.event.wait(), seconds)
        except TimeoutError:
            return False
        return True

    def _on_signal(self, number: int, frame: FrameType | None) -> None:
        name = signal.Signals(number).name
        now = time.monotonic()
        if self.name is not None:
            if name == self.name and now - self._first_at < REPEAT_IGNORED_SECONDS:
                return  # the same signal sent twice at once (e.g. to the process group)
            # Not through logging: its lock may be held by the code this signal interrupted.
            os.write(2, f"dicebot: {name} again: exiting now\n".encode())
            os._exit(EXIT_BUG)
        self.name = name
        self._first_at = now
        watchdog = threading.Timer(STOP_LIMIT_SECONDS, self._give_up)
        watchdog.daemon = True
        watchdog.start()
        with contextlib.suppress(RuntimeError):  # the loop already closed: exiting anyway
            self.loop.call_soon_threadsafe(self.event.set)

    def _give_up(self) -> None:
        log.warning(
            "still stopping %.1f s after %s: exiting now (SQLite rolls back anything "
            "unfinished; nothing committed is lost)",
            STOP_LIMIT_SECONDS,
            self.name,
        )
        os._exit(EXIT_BUG)


# -- the heartbeat ----------------------------------------------------------------------------


@dataclass
class Heartbeat:
    """Keeps the health file (``python -m bot healthcheck``) fresh while the bot runs."""

    path: Path
    state: str = "starting"
    detail: str = ""
    bot: DiceBot | None = None
    _warned: bool = field(default=False, repr=False)

    def set(self, state: str, detail: str = "", bot: DiceBot | None = None) -> None:
        self.state, self.detail = state, detail
        if bot is not None:
            self.bot = bot
        self.beat()

    def beat(self) -> None:
        bot = self.bot
        connected = (
            bot is not None
            and bot.is_ready()
            and not bot.is_closed()
            and all(not shard.is_closed() for shard in bot.shards.values())
        )
        state = "reconnecting" if self.state == "ready" and not connected else self.state
        beat = Beat(
            pid=os.getpid(),
            at=time.time(),
            state=state,
            connected=connected,
            servers=len(bot.guilds) if bot is not None else 0,
            detail=self.detail,
        )
        try:
            write_beat(self.path, beat)
        except OSError as error:
            if not self._warned:
                self._warned = True
                log.warning("cannot write the health file %s: %s", self.path, error.strerror)

    async def run(self) -> None:
        while True:
            self.beat()
            await asyncio.sleep(BEAT_SECONDS)

    def remove(self) -> None:
        try:
            remove_beat(self.path)
        except OSError as error:
            log.warning("cannot remove the health file %s: %s", self.path, error.strerror)


# -- the ready line ---------------------------------------------------------------------------


def ready_line(bot: DiceBot) -> str:
    servers = len(bot.guilds)
    count = bot.shard_count or 1
    shard_ids = sorted(bot.shard_ids) if bot.shard_ids is not None else list(range(count))
    if len(shard_ids) == 1:
        shards = f"shard {shard_ids[0]} of {count}"
    elif shard_ids == list(range(shard_ids[0], shard_ids[-1] + 1)):
        shards = f"shards {shard_ids[0]}-{shard_ids[-1]} of {count}"
    else:
        shards = f"shards {', '.join(map(str, shard_ids))} of {count}"
    user = bot.user
    name = f"{user} (id {user.id})" if user is not None else "the bot"
    app_id = bot.application_id
    invite = invite_url(app_id) if app_id else "unknown"
    install = user_install_url(app_id) if app_id else "unknown"
    return (
        f"ready as {name}: {servers} server{'s' if servers != 1 else ''}, database "
        f"{bot.db.describe()}, {shards}; invite link: {invite}; user install link: {install}"
    )


# -- one start attempt -------------------------------------------------------------------------


async def _start(bot: DiceBot, token: str) -> None:
    """Open the database, log in (bounded by REACH_TIMEOUT_SECONDS), set up, then stay
    connected (discord.py reconnects the gateway by itself from here on)."""
    await bot.db.open()
    login = asyncio.create_task(bot.login(token), name="dicebot-login")
    try:
        await asyncio.wait({login}, timeout=REACH_TIMEOUT_SECONDS)
        if not login.done():
            if bot.application is None:
                # Still waiting for Discord's first answers.
                raise DiscordTimeout(REACH_TIMEOUT_SECONDS)
            # Past this point login is our own set-up (migrations), which may take a while on
            # a big database: no limit, but the host hears why it takes a while.
            log.info("logged in as %s; still setting up (migrations)", bot.user)
        await login
    finally:
        # A timeout, or this attempt being stopped: the login must not run on, orphaned.
        if not login.done():
            login.cancel()
            await asyncio.wait({login})
    log.info("logged in as %s; connecting to the gateway", bot.user)
    await bot.connect(reconnect=True)


async def serve(settings: Settings) -> int:
    """Run until a signal (exit 0) or a failure only the host can fix (exit 2)."""
    stop = StopRequest(asyncio.get_running_loop())
    stop.install()
    try:
        await _check_database(settings)
    except StorageUnavailable as error:
        log.error("%s", classify(error).text)
        return EXIT_HOST
    if stop.requested:
        return EXIT_OK
    heartbeat = Heartbeat(settings.health_file)
    beating = asyncio.create_task(heartbeat.run(), name="dicebot-heartbeat")
    try:
        return await _serve(settings, stop, heartbeat)
    finally:
        beating.cancel()
        heartbeat.remove()


async def _check_database(settings: Settings) -> None:
    """An unusable DATABASE_PATH (or DATABASE_URL) is said at once, in one line, before
    anything else."""
    database = database_for(settings)
    await database.open()
    await database.close()


async def _serve(settings: Settings, stop: StopRequest, heartbeat: Heartbeat) -> int:
    token = settings.discord_token.get_secret_value()
    # The bot never joins voice: without this, every start logs two warnings about voice
    # libraries that are not installed, which reads like a fault.
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False
    log.info(
        "starting dicebot %s (Python %s, discord.py %s), database %s",
        package_version("dicebot"),
        platform.python_version(),
        discord.__version__,
        database_for(settings).describe(),
    )
    attempt = 0
    while True:
        attempt += 1
        bot = create_bot(settings)
        was_ready = False

        async def on_ready(bot: DiceBot = bot) -> None:
            nonlocal was_ready
            was_ready = True
            heartbeat.set("ready", bot=bot)
            log.info("%s", ready_line(bot))

        bot.add_listener(on_ready, "on_ready")
        await bot.__aenter__()  # the client's loop-bound parts, so close() is always safe
        heartbeat.set("connecting", heartbeat.detail, bot=bot)
        running = asyncio.create_task(_start(bot, token), name="dicebot-start")
        stopping = asyncio.create_task(stop.event.wait(), name="dicebot-stop")
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if stop.requested:
            return await _shut_down(bot, running, stop, heartbeat, ready=was_ready)

        error = running.exception()
        await _close_quietly(bot)
        if error is None:
            # connect() returned although nobody closed the bot.
            failure = Failure(Kind.NETWORK, "Discord ended the gateway session")
        else:
            failure = classify(error, dev_guild_id=settings.dev_guild_id)
        if failure.kind is Kind.HOST:
            log.error("%s", failure.text)
            return EXIT_HOST
        if failure.kind is Kind.BUG:
            log.critical("%s", failure.text, exc_info=error)
            return EXIT_BUG
        if was_ready:
            attempt = 1  # it ran fine until now: start the backoff over
        delay = retry_delay(attempt)
        log.warning("%s; retrying in %g s (attempt %d)", failure.text, delay, attempt)
        heartbeat.set("connecting", f"{failure.text} (attempt {attempt})")
        if await stop.wait(delay):
            log.info("%s received while waiting to retry: stopped", stop.name)
            return EXIT_OK


async def _shut_down(
    bot: DiceBot,
    running: asyncio.Task[None],
    stop: StopRequest,
    heartbeat: Heartbeat,
    *,
    ready: bool,
) -> int:
    when = "" if ready else " while connecting to Discord"
    log.info("%s received%s: stopping", stop.name, when)
    heartbeat.set("stopping")
    running.cancel()
    await asyncio.wait({running}, timeout=0.5)
    try:
        await asyncio.wait_for(bot.close(), CLOSE_BUDGET_SECONDS)
    except TimeoutError:
        log.warning(
            "closing took over %g s: stopping without waiting for the rest", CLOSE_BUDGET_SECONDS
        )
        await _close_database(bot)
    except Exception as error:  # a stop must finish whatever a library raises
        log.warning("while stopping: %s", describe_error(error))
        await _close_database(bot)
    log.info("stopped")
    return EXIT_OK


async def _close_quietly(bot: DiceBot) -> None:
    try:
        await asyncio.wait_for(bot.close(), CLOSE_BUDGET_SECONDS)
    except Exception as error:
        log.debug("closing a failed attempt: %s", describe_error(error))
        await _close_database(bot)


async def _close_database(bot: DiceBot) -> None:
    try:
        await asyncio.wait_for(bot.db.close(), 0.5)
    except Exception as error:
        log.debug("closing the database: %s", describe_error(error))
