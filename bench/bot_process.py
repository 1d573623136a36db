"""A discord.py client in a process of its own, against a fake Discord the bench serves: the
real bot (``bot``) or a bare discord.py client with the bot's intents (``bare``), for
``bench/restart.py`` and ``bench/servers.py``.

The child writes what it sees as JSON lines on its stdout (``{"event": "ready", ...}``) and
takes orders on its stdin (``offset <seconds>``: move the bot's clock, answered with
``{"event": "offset", ...}``). Times are ``time.monotonic()``, which on Linux is the same
clock in every process (and the one ``time.perf_counter()`` reads), so the bench compares
them with its own. Memory is the resident set size (``VmRSS``) read from ``/proc``.

``BENCH_PROFILE_BOT=file`` runs the child under cProfile (CPU time of the event loop's
thread), as ``bench/interactions.py`` does.
"""

from __future__ import annotations

import asyncio
import compileall
import json
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

SCRIPT = Path(__file__).resolve()
ROOT = SCRIPT.parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from bot.model.clock import Clock  # noqa: E402

T = TypeVar("T")

# Every timer the games set, as long as the settings allow: a game seeded by the bench has
# no timer due during a run unless the bench seeded it in the past on purpose (the house's
# set-up allows an hour at most, the rest a day).
LONG_TIMERS: dict[str, int] = {
    "turn_timeout_seconds": 86_400,
    "round_timeout_seconds": 86_400,
    "challenge_expiry_seconds": 86_400,
    "lobby_expiry_seconds": 86_400,
    "house_setup_seconds": 3_600,
    "betting_window_seconds": 600,
}


class OffsetClock(Clock):
    """Real time moved by ``offset`` seconds: a bot whose clock stands in the past creates
    games whose timers are due once a bot on real time starts."""

    def __init__(self, offset: float = 0.0) -> None:
        self.offset = offset

    def now(self) -> float:
        return time.time() + self.offset


# -- what the bench reads about a process -----------------------------------------------------


def rss_kib(pid: int) -> int | None:
    """The process's resident set size in KiB, or None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def children_of(pid: int) -> list[int]:
    """The processes ``pid`` started (the bot's picture helper), from ``/proc``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def mib(kib: int | None) -> str:
    return "n/a" if kib is None else f"{kib / 1024:.0f} MiB"


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


# -- the bench's side ------------------------------------------------------------------------


@dataclass
class Child:
    """A started child: its process, the lines it reported, and when it was started."""

    process: asyncio.subprocess.Process
    started_at: float
    events: list[dict[str, Any]] = field(default_factory=list)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _reader: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def begin_reading(self) -> None:
        self._reader = asyncio.create_task(self._read(), name=f"bench-child-{self.pid}")

    async def _read(self) -> None:
        assert self.process.stdout is not None
        async for raw in self.process.stdout:
            line = raw.decode(errors="replace").strip()
            if line.startswith("{"):
                self.events.append(json.loads(line))
                self._changed.set()
        self._changed.set()

    def seen(self, event: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("event") == event]

    async def wait_event(
        self,
        event: str,
        *,
        timeout: float,  # noqa: ASYNC109
        count: int = 1,
    ) -> dict[str, Any]:
        """The ``count``-th line of ``event`` the child reported (waiting for it)."""
        async with asyncio.timeout(timeout):
            while len(self.seen(event)) < count:
                if self.process.returncode is not None or (
                    self._reader is not None and self._reader.done()
                ):
                    raise RuntimeError(
                        f"the child (pid {self.pid}) ended before reporting {event!r}"
                    )
                self._changed.clear()
                await self._changed.wait()
        return self.seen(event)[count - 1]

    async def guard(self, work: Awaitable[T]) -> T:
        """``work``'s result, or RuntimeError as soon as the child ends before it is done."""
        task = asyncio.ensure_future(work)
        ended = asyncio.ensure_future(self.process.wait())
        try:
            await asyncio.wait({task, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            raise RuntimeError(f"the child (pid {self.pid}) ended ({self.process.returncode})")
        return task.result()

    async def set_offset(self, seconds: float) -> None:
        """Move the child bot's clock to real time + ``seconds`` (and wait until it has)."""
        assert self.process.stdin is not None
        count = len(self.seen("offset")) + 1
        self.process.stdin.write(f"offset {seconds}\n".encode())
        await self.process.stdin.drain()
        await self.wait_event("offset", timeout=30, count=count)

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), 20)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)


async def start_child(
    kind: str,
    port: int,
    token: str,
    *,
    database: str = "-",
    settings: dict[str, Any] | None = None,
    offset: float = 0.0,
    watch_timers: bool = False,
    env: dict[str, str] | None = None,
) -> Child:
    """Start ``kind`` ("bot" or "bare") against the fake on ``port``. ``database``: an
    SQLite path or a postgresql:// URL; ``settings``: the bot's settings on top of the
    bench's; ``watch_timers``: report each timer the bot applies."""
    compile_like_installed()
    spec = {
        "kind": kind,
        "port": port,
        "token": token,
        "database": database,
        "settings": settings or {},
        "offset": offset,
        "watch_timers": watch_timers,
    }
    started_at = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SCRIPT),
        json.dumps(spec),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
            **(env or {}),
        },
    )
    child = Child(process, started_at)
    child.begin_reading()
    return child


def compile_like_installed() -> None:
    """Compile the project's modules to bytecode, as a deployed bot has them: pip compiles
    a package it installs (the Docker image's too), as it did the bare client's discord.py.
    A checkout run with PYTHONDONTWRITEBYTECODE=1 (this machine, CI) would otherwise compile
    bot/, cogs/ and game_core/ at every start of a child: a third of a second that no host
    pays. Quick when already done (each file's timestamp is checked)."""
    for package in ("bot", "cogs", "game_core"):
        compileall.compile_dir(ROOT / package, quiet=1)


# -- the child's side ------------------------------------------------------------------------


def report(event: str, **values: Any) -> None:
    print(json.dumps({"event": event, "at": time.monotonic(), **values}), flush=True)


async def follow_orders(clock: OffsetClock) -> None:
    """Read ``offset <seconds>`` lines from stdin and move the clock."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async for raw in reader:
        words = raw.decode().split()
        if len(words) == 2 and words[0] == "offset":
            clock.offset = float(words[1])
            report("offset", offset=clock.offset)


def watch_timers(bot: Any) -> None:
    """Report each timer the bot claims (its due time) and applies (in the order it
    commits them): the bench checks that the oldest go first. Observes the session
    service's two public calls the deadline loop makes; changes nothing they do."""
    sessions = bot.sessions
    claim: Callable[..., Any] = sessions.claim_due_deadlines
    act: Callable[..., Any] = sessions.act

    async def claim_due_deadlines(**options: Any) -> Sequence[tuple[int, int, float, Any]]:
        claimed = await claim(**options)
        for deadline_id, session_id, due_at, action in claimed:
            report(
                "claimed",
                deadline=deadline_id,
                session=session_id,
                due_at=due_at,
                action=str(action.get("type")),
            )
        return claimed

    async def applied(session_id: int, actor_id: int | None, action: Any, **options: Any) -> Any:
        outcome = await act(session_id, actor_id, action, **options)
        deadline_id = options.get("deadline_id")
        if deadline_id is not None:
            report("applied", deadline=deadline_id, session=session_id)
        return outcome

    sessions.claim_due_deadlines = claim_due_deadlines
    sessions.act = applied


async def run_child(spec: dict[str, Any]) -> None:
    import discord
    import discord.gateway
    import discord.http
    import yarl
    from discord.ext.commands.bot import BotBase

    discord.http.Route.BASE = f"http://127.0.0.1:{spec['port']}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        f"ws://127.0.0.1:{spec['port']}/gateway"
    )
    client: discord.Client
    clock = OffsetClock(float(spec["offset"]))
    if spec["kind"] == "bare":
        # What the bot asks of Discord (bot.app.DiceBot): the GUILDS intent only, every shard
        # in this process.
        intents = discord.Intents.none()
        intents.guilds = True
        client = discord.AutoShardedClient(intents=intents)
    else:
        from pydantic import SecretStr

        from bot.app import create_bot
        from bot.config import Settings

        database = str(spec["database"])
        values: dict[str, Any] = {
            "discord_token": SecretStr(spec["token"]),
            "log_level": "WARNING",
            **LONG_TIMERS,
            **spec["settings"],
        }
        if database.startswith("postgresql://"):
            values["database_url"] = database
        else:
            values["database_path"] = Path(database)
        settings = Settings(_env_file=None, **values)  # type: ignore[call-arg]
        # As bot.service starts it: no client option of its own, the real clock (moved).
        client = create_bot(settings, clock=clock)
        if spec["watch_timers"]:
            watch_timers(client)

    async def on_ready() -> None:
        report("ready", rss_kib=rss_kib(os.getpid()), guilds=len(client.guilds))

    if isinstance(client, BotBase):
        # A listener beside the bot's own on_ready (which must still run).
        client.add_listener(on_ready, "on_ready")
    else:
        client.event(on_ready)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    orders = asyncio.create_task(follow_orders(clock))
    runner = asyncio.create_task(client.start(spec["token"]))
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
    await client.close()
    for task in (stopper, orders):
        task.cancel()
    await asyncio.gather(runner, stopper, orders, return_exceptions=True)
    if runner.done() and not runner.cancelled() and runner.exception() is not None:
        report("failed", error=repr(runner.exception()))


def child_main(argv: list[str]) -> None:
    spec = json.loads(argv[0])
    profile_to = os.environ.get("BENCH_PROFILE_BOT")
    if profile_to:
        import cProfile

        # CPU time of the event loop's thread: wall time would charge the loop for being
        # descheduled while the fake and the database share two cores.
        profiler = cProfile.Profile(time.thread_time)
        profiler.runcall(asyncio.run, run_child(spec))
        profiler.dump_stats(profile_to)
    else:
        asyncio.run(run_child(spec))


if __name__ == "__main__":
    child_main(sys.argv[1:])
