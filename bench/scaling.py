"""Knucklebones move throughput and latency on SQLite with one bot process, and on one
PostgreSQL database with one, two and four processes sharing the shards, in one run
(issue 30, target 5).

Each configuration gets a fresh fake Discord (served by this process, which also plays the
users), a fresh database, and the real bot in its own process(es), as in
``bench/interactions.py`` (whose scenarios this reuses). With N processes the fake runs N
shards, one server on each, and the games are split between the servers, so each process
serves 1/N of the presses. For each configuration: /ping (the floor set by discord.py and
loopback), then Knucklebones moves (the move's read and write, the board re-rendered in the
answer), C in flight; interactions/s and p50/p99 from INTERACTION_CREATE to the bot's first
callback. "bot CPU/move" is the CPU time of the bot process(es) per move (not the
PostgreSQL server's); moves/s is of all the processes together (per process: divide by N).

On PostgreSQL, where a move's time goes, measured during the moves and until the bot is
quiet after them, per move:

- the bot's round trips: every asyncpg call of its processes timed from the call to its
  result back in the event loop (``RoundTrips``), by what it was (``SELECT sessions``, the
  move's one write statement, BEGIN/COMMIT, asyncpg's reset when a connection goes back to
  its pool) and whose (the press's own task or the background work after it: publishing,
  kept tokens, timers), and the time spent waiting for a free pooled connection;
- PostgreSQL's backends: pg_stat_activity sampled every 10 ms (``BackendSampler``), each
  state's backend-milliseconds: row-lock waits (``Lock:*``), the commits' WAL flushes
  (``IO:WALSync``/``WALWrite``; a statement outside a transaction commits by itself),
  running, idle inside a transaction.

Then issue 14's targets for each configuration, PASS or FAIL: move throughput at least
0.25x /ping's and move p99 under 50 ms.

Usage: ``.venv/bin/python bench/scaling.py [--count 2000] [--move-count 600]
[--concurrency 16] [--postgres postgresql://postgres@127.0.0.1:5432/test]
[--only sqlite-1,postgres-1,postgres-2,postgres-4] [--record]``; ``--record`` appends
target 5's figures (moves/s, bot CPU per move; on PostgreSQL the round trips a move makes,
its row-lock waits and WAL flushes) to ``bench/history/scaling.jsonl`` and redraws its
chart (``bench/history.py``). The PostgreSQL URL (default ``TEST_DATABASE_URL``) names a
server where the bench may create and drop a database.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import json
import logging
import os
import re
import secrets
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

SCRIPT = Path(__file__).resolve()
ROOT = SCRIPT.parents[1]
sys.path.insert(0, str(SCRIPT.parent))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import history  # noqa: E402
from fakediscord import FakeDiscord, Player  # noqa: E402
from interactions import (  # noqa: E402
    WARM_UP_PINGS,
    KnucklebonesMoveScenario,
    PingScenario,
    Result,
    ScenarioUnavailable,
    run,
    targets_for,
    wait_quiet,
)

DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"


@dataclass(frozen=True)
class Configuration:
    key: str
    label: str
    postgres: bool
    processes: int


CONFIGURATIONS = (
    Configuration("sqlite-1", "SQLite, one process", postgres=False, processes=1),
    Configuration("postgres-1", "PostgreSQL, one process", postgres=True, processes=1),
    Configuration("postgres-2", "PostgreSQL, two processes", postgres=True, processes=2),
    Configuration("postgres-4", "PostgreSQL, four processes", postgres=True, processes=4),
)


@dataclass
class Measured:
    configuration: Configuration
    ping: Result
    move: Result | None
    # Where the moves' time went (PostgreSQL only): the bot's round trips, all its
    # processes together, and what PostgreSQL's backends were doing.
    trips: dict[tuple[str, str], tuple[int, float]] = field(default_factory=dict)
    backends: dict[str, float] = field(default_factory=dict)
    backend_samples: int = 0


# -- where a move's time goes: the bot's round trips ---------------------------------------

TRIPS_SIGNAL = signal.SIGUSR1
POOL_WAIT = "waiting for a free pooled connection"


def statement_kind(query: str) -> str:
    """What a statement is, in a few words: ``SELECT sessions``, ``COMMIT``, the move's
    one write statement, or the reset asyncpg runs when a connection goes back to its
    pool."""
    text = " ".join(query.split())
    if "pg_advisory_unlock_all" in text:
        return "reset (connection back to the pool)"
    head = text.split(" ", 1)[0].upper().rstrip(";")
    if head in ("BEGIN", "COMMIT", "ROLLBACK"):
        return head
    if "moved AS" in text and "INSERT INTO events" in text:
        return "the move's write statement"
    verb = re.search(r"\b(SELECT|INSERT|UPDATE|DELETE)\b", text, re.IGNORECASE)
    table = re.search(r"\b(?:FROM|INTO|UPDATE)\s+(\w+)", text, re.IGNORECASE)
    return f"{verb.group(1).upper() if verb else head} {table.group(1) if table else '?'}"


# The role of a task discord.py or the bot did not name (the bot runs a statement outside
# a transaction in a task of its own): that of the task that started it.
INHERITED_ROLE: contextvars.ContextVar[str] = contextvars.ContextVar(
    "inherited_role", default="background"
)


def task_role() -> str:
    """Whose round trip: the press's own (discord.py's task for the interaction and the
    component's callback, and the unnamed tasks they start) or the bot's background work
    (publishing, kept tokens, timers: tasks the bot names)."""
    task = asyncio.current_task()
    name = task.get_name() if task is not None else ""
    if name.startswith("discord-ui") or "interaction" in name:
        INHERITED_ROLE.set("press")
        return "press"
    if re.fullmatch(r"Task-\d+", name):
        return INHERITED_ROLE.get()
    INHERITED_ROLE.set("background")
    return "background"


class RoundTrips:
    """Every round trip the bot's asyncpg connections make, timed on the bot's side (from
    the call to its result back in the event loop: the loop's own delays included, as a
    move feels them), by whose it is (``task_role``) and what it is (``statement_kind``),
    and the time spent waiting for a free pooled connection. Installed only in the bench's
    bot processes (``--child``), by wrapping asyncpg's methods; the cumulative totals are
    written to ``path`` at ``TRIPS_SIGNAL``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.totals: dict[tuple[str, str], list[float]] = {}

    def add(self, what: str, seconds: float) -> None:
        entry = self.totals.setdefault((task_role(), what), [0, 0.0])
        entry[0] += 1
        entry[1] += seconds

    def install(self) -> None:
        import asyncpg.connection
        import asyncpg.pool

        def timed(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
            async def wrapper(conn: Any, query: str, *args: Any, **kwargs: Any) -> Any:
                started = time.perf_counter()
                try:
                    return await method(conn, query, *args, **kwargs)
                finally:
                    self.add(statement_kind(query), time.perf_counter() - started)

            return wrapper

        # fetch/fetchrow/fetchval/executemany call asyncpg's internals, never each other;
        # BEGIN, COMMIT, ROLLBACK and the reset go through execute.
        for name in ("execute", "executemany", "fetch", "fetchrow", "fetchval"):
            method = getattr(asyncpg.connection.Connection, name)
            setattr(asyncpg.connection.Connection, name, timed(method))
        acquire = asyncpg.pool.Pool._acquire

        async def timed_acquire(pool: Any, *args: Any) -> Any:
            started = time.perf_counter()
            try:
                return await acquire(pool, *args)
            finally:
                self.add(POOL_WAIT, time.perf_counter() - started)

        asyncpg.pool.Pool._acquire = timed_acquire  # type: ignore[method-assign]

    def write(self) -> None:
        rows = [
            [role, what, count, seconds] for (role, what), (count, seconds) in self.totals.items()
        ]
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(rows))
        partial.replace(self.path)


def trips_path(directory: str, pid: int) -> Path:
    return Path(directory) / f"trips-{pid}.json"


async def read_trips(
    processes: list[Any], directory: str
) -> dict[tuple[str, str], tuple[int, float]]:
    """The round trips of every bot process so far, added up (``RoundTrips.write``)."""
    totals: dict[tuple[str, str], tuple[int, float]] = {}
    for process in processes:
        path = trips_path(directory, process.pid)
        path.unlink(missing_ok=True)
        process.send_signal(TRIPS_SIGNAL)
        deadline = time.monotonic() + 10
        while not path.exists():
            if time.monotonic() > deadline:
                raise SystemExit(f"bot process {process.pid} wrote no round trips")
            await asyncio.sleep(0.02)
        for role, what, count, seconds in json.loads(path.read_text()):
            before = totals.get((role, what), (0, 0.0))
            totals[(role, what)] = (before[0] + count, before[1] + seconds)
    return totals


def trips_between(
    before: dict[tuple[str, str], tuple[int, float]],
    after: dict[tuple[str, str], tuple[int, float]],
) -> dict[tuple[str, str], tuple[int, float]]:
    change = {}
    for key, (count, seconds) in after.items():
        old = before.get(key, (0, 0.0))
        if count - old[0]:
            change[key] = (count - old[0], seconds - old[1])
    return change


# -- where a move's time goes: PostgreSQL's backends -----------------------------------------

BACKEND_STATES = """
SELECT CASE
    WHEN state = 'idle in transaction' THEN 'idle in a transaction (waiting for the bot)'
    WHEN wait_event_type IS NULL THEN 'running (no wait)'
    ELSE wait_event_type || ':' || wait_event
END
FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid()
    AND backend_type = 'client backend' AND state IN ('active', 'idle in transaction')
"""
SAMPLE_INTERVAL = 0.01


class BackendSampler:
    """What the bench database's backends are doing, sampled every ``SAMPLE_INTERVAL``
    from pg_stat_activity while the moves run: each state's backend-seconds (every sample
    counts the time since the previous one). Lock waits show as ``Lock:transactionid`` or
    ``Lock:tuple`` (a row another transaction holds), a commit's flush as ``IO:WALSync``
    or ``IO:WALWrite``, a transaction left open while the bot's loop is elsewhere as idle
    in a transaction."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.seconds: dict[str, float] = {}
        self.samples = 0
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        import asyncpg

        conn = await asyncpg.connect(self.database)
        self._task = asyncio.create_task(self._run(conn))

    async def _run(self, conn: Any) -> None:
        try:
            previous = time.perf_counter()
            while True:
                rows = await conn.fetch(BACKEND_STATES)
                now = time.perf_counter()
                self.samples += 1
                for row in rows:
                    self.seconds[row[0]] = self.seconds.get(row[0], 0.0) + now - previous
                previous = now
                await asyncio.sleep(SAMPLE_INTERVAL)
        finally:
            await conn.close()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


# -- the bot's process ----------------------------------------------------------------------


async def child_main(
    port: int, token: str, guild_id: int, database: str, shards: str, trips_directory: str
) -> None:
    """Run the real bot against the fake at ``port`` until SIGTERM. ``database`` is an
    SQLite path or a postgresql:// URL; ``shards`` is ``count:ids`` or ``-``;
    ``trips_directory`` where its round trips are written (``RoundTrips``), or ``-``."""
    import discord.gateway
    import discord.http
    import yarl
    from pydantic import SecretStr

    from bot.app import create_bot
    from bot.config import Settings

    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gateway")
    values: dict[str, Any] = {"discord_token": SecretStr(token), "log_level": "WARNING"}
    if database.startswith("postgresql://"):
        values["database_url"] = database
    else:
        values["database_path"] = Path(database)
    if guild_id:
        values["dev_guild_id"] = guild_id
    if shards != "-":
        count, ids = shards.split(":")
        values["shard_count"] = int(count)
        values["shard_ids"] = ids
    settings = Settings(_env_file=None, **values)  # type: ignore[call-arg]
    bot = create_bot(settings, seed=1234, guild_ready_timeout=0.05)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    if trips_directory != "-":
        trips = RoundTrips(trips_path(trips_directory, os.getpid()))
        trips.install()
        asyncio.get_running_loop().add_signal_handler(TRIPS_SIGNAL, trips.write)
    runner = asyncio.create_task(bot.start(token))
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
    await bot.close()
    stopper.cancel()
    await asyncio.gather(runner, stopper, return_exceptions=True)


async def start_process(
    fake: FakeDiscord, guild_id: int, database: str, shards: str, trips_directory: str
) -> Any:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(SCRIPT),
        "--child",
        str(fake.port),
        fake.token,
        str(guild_id),
        database,
        shards,
        trips_directory,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])},
    )


# -- a fresh PostgreSQL database per configuration ------------------------------------------


async def create_database(server: str) -> tuple[str, str]:
    import asyncpg

    name = f"dicebot_bench_{os.getpid()}_{secrets.token_hex(3)}"
    conn = await asyncpg.connect(server)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return name, urlunsplit(urlsplit(server)._replace(path="/" + name))


async def drop_database(server: str, name: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(server)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


# -- one configuration ----------------------------------------------------------------------


async def measure(configuration: Configuration, args: argparse.Namespace) -> Measured:
    shard_count = configuration.processes
    fake = FakeDiscord(shard_count=shard_count, max_concurrency=shard_count)
    # Throughput, not Discord's pacing (see bench/interactions.py).
    fake.rate_limits.for_benchmark("the bot's throughput, not Discord's pacing")
    await fake.start()
    guilds = [await fake.create_guild(f"Bench {n}", shard=n) for n in range(shard_count)]
    # Pairs of players (one game each) alternate between the servers.
    players: list[Player] = []
    for pair in range(max(1, args.concurrency)):
        guild = guilds[pair % shard_count]
        players += [await guild.add_member(f"p{pair}a"), await guild.add_member(f"p{pair}b")]
    database_name: str | None = None
    processes: list[Any] = []
    with tempfile.TemporaryDirectory() as directory:
        if configuration.postgres:
            database_name, database = await create_database(args.postgres)
        else:
            database = str(Path(directory) / "bench.db")
        try:
            for shard in range(shard_count):
                # One process: commands synced to the bench server at once; several: synced
                # globally by shard 0's process, as in production.
                guild_id = guilds[0].id if shard_count == 1 else 0
                shards = "-" if shard_count == 1 else f"{shard_count}:{shard}"
                trips_directory = directory if configuration.postgres else "-"
                processes.append(
                    await start_process(fake, guild_id, database, shards, trips_directory)
                )
            await fake.wait_for(
                lambda: fake.gateway.connected and fake.commands.sync_count > 0,
                timeout=90,
                what="the bot processes to connect and sync their commands",
            )
            ping = PingScenario()
            await ping.prepare(fake, guilds[0], players)
            pids = [process.pid for process in processes]
            await run(ping, WARM_UP_PINGS, args.concurrency)  # warm-up, not reported
            ping_result = await run(ping, args.count, args.concurrency, bot_pids=pids)
            move_result: Result | None = None
            trips: dict[tuple[str, str], tuple[int, float]] = {}
            sampler = BackendSampler(database) if configuration.postgres else None
            try:
                move = KnucklebonesMoveScenario()
                await move.prepare(fake, guilds[0], players)
                # As bench/interactions.py: the bot first finishes what the set-up left it
                # to publish (the games' first edits), which would otherwise land in the
                # first moves measured.
                await wait_quiet(fake, quiet=0.3, limit=10.0)
                if sampler is not None:
                    trips_before = await read_trips(processes, directory)
                    await sampler.start()
                try:
                    move_result = await run(move, args.move_count, args.concurrency, bot_pids=pids)
                    if sampler is not None:
                        # The work the moves left (their boards' publishing) is theirs too.
                        await wait_quiet(fake, quiet=0.3, limit=10.0)
                        after = await read_trips(processes, directory)
                        trips = trips_between(trips_before, after)
                finally:
                    if sampler is not None:
                        await sampler.stop()
            except ScenarioUnavailable as reason:
                print(f"  {configuration.label}: moves unavailable: {reason}")
            await wait_quiet(fake, quiet=0.3, limit=10.0)
            problems = fake.final_problems()
            if problems:
                raise SystemExit(f"{configuration.label}: the fake saw problems: {problems[:5]}")
            measured = Measured(configuration, ping_result, move_result, trips)
            if sampler is not None:
                measured.backends = dict(sampler.seconds)
                measured.backend_samples = sampler.samples
            return measured
        finally:
            for process in processes:
                if process.returncode is None:
                    process.send_signal(signal.SIGTERM)
            for process in processes:
                await process.wait()
            await fake.stop()
            if database_name is not None:
                await drop_database(args.postgres, database_name)


def history_figures(measured: list[Measured]) -> list[history.Figure]:
    """Target 5 as ``bench/history.py`` records it: each configuration's moves/s (all its
    processes; the chart shows them per process) and bot CPU per move, and on PostgreSQL
    the round trips per move (the bot's, all of them), the backends' row-lock waits and WAL
    flushes per move (backend-ms). No limit: the target asks for the figures."""
    figures = []
    for item in measured:
        if item.move is None:
            continue
        key = item.configuration.key
        move = item.move
        figures.append(history.Figure(f"{key}/moves", round(move.rate, 1)))
        if move.cpu_ms is not None:
            figures.append(history.Figure(f"{key}/cpu-per-move", round(move.cpu_ms, 3)))
        if item.trips:
            trips = sum(round_trips(item, role)[0] for role, _ in ROLES)
            per = 1000 / move.count
            figures += [
                history.Figure(f"{key}/round-trips-per-move", round(trips / move.count, 2)),
                history.Figure(f"{key}/lock-wait-ms", round(lock_waits(item.backends) * per, 3)),
                history.Figure(
                    f"{key}/wal-flush-ms", round(commit_flushes(item.backends) * per, 3)
                ),
            ]
    return figures


def report(measured: list[Measured]) -> None:
    baseline = next((m for m in measured if m.configuration.key == "sqlite-1"), None)
    print()
    print(
        f"{'configuration':<28} {'moves/s':>8} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'/ping/s':>8} {'move/ping':>10} {'vs SQLite, 1':>13} {'bot CPU/move':>13}"
    )
    for item in measured:
        move = item.move
        if move is None:
            print(f"{item.configuration.label:<28} {'n/a':>8}")
            continue
        versus = (
            f"{move.rate / baseline.move.rate:12.2f}x"
            if baseline is not None and baseline.move is not None
            else f"{'n/a':>13}"
        )
        print(
            f"{item.configuration.label:<28} {move.rate:8.0f} {move.p50 * 1000:8.1f}"
            f" {move.p99 * 1000:8.1f} {item.ping.rate:8.0f}"
            f" {move.rate / item.ping.rate:9.2f}x {versus}"
            + (f" {move.cpu_ms:10.2f} ms" if move.cpu_ms is not None else "")
        )


ROLES = (
    ("press", "the press's own task"),
    ("background", "background work after it (publishing, kept tokens, timers)"),
)


def lock_waits(backends: dict[str, float]) -> float:
    return sum(seconds for state, seconds in backends.items() if state.startswith("Lock:"))


def commit_flushes(backends: dict[str, float]) -> float:
    return sum(seconds for state, seconds in backends.items() if state.startswith("IO:WAL"))


def round_trips(item: Measured, role: str) -> tuple[int, float]:
    """A role's round trips and seconds waiting on them (no pool waits)."""
    rows = [value for (who, what), value in item.trips.items() if who == role and what != POOL_WAIT]
    return sum(count for count, _ in rows), sum(seconds for _, seconds in rows)


def report_time(item: Measured) -> None:
    """Where the moves' time went, per move: the bot's round trips by whose and what they
    were, the waits for a pooled connection, and PostgreSQL's backends."""
    move = item.move
    if move is None or not item.trips:
        return
    per = 1000 / move.count
    print(f"{item.configuration.label}: where a move's time goes (per move, all processes)")
    for role, label in ROLES:
        count, seconds = round_trips(item, role)
        print(f"  {label}: {count / move.count:.2f} round trips, {seconds * per:.2f} ms in them")
        rows = sorted(
            ((what, value) for (who, what), value in item.trips.items() if who == role),
            key=lambda row: -row[1][1],
        )
        for what, (count, seconds) in rows:
            print(
                f"    {what:<44} {count / move.count:5.2f} x {seconds / count * 1000:6.2f} ms"
                f" = {seconds * per:6.2f} ms"
            )
    states = sorted(item.backends.items(), key=lambda row: -row[1])
    print(
        f"  PostgreSQL's backends (pg_stat_activity every {SAMPLE_INTERVAL * 1000:.0f} ms,"
        f" {item.backend_samples} samples), backend-ms per move:"
        f" waiting on row locks {lock_waits(item.backends) * per:.3f},"
        f" flushing WAL (commits) {commit_flushes(item.backends) * per:.3f}"
    )
    for state, seconds in states:
        print(f"    {state:<44} {seconds * per:6.3f} ms")


async def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING)
    wanted = [c for c in CONFIGURATIONS if c.key in args.only.split(",")]
    print(
        f"Knucklebones moves: {args.move_count} per configuration, /ping: {args.count}; "
        f"C={args.concurrency} in flight; latency = INTERACTION_CREATE sent -> first callback"
    )
    measured = []
    for configuration in wanted:
        print(f"{configuration.label} ...", flush=True)
        result = await measure(configuration, args)
        print("  " + result.ping.line("(a)"))
        if result.move is not None:
            print("  " + result.move.line("(b)"))
        measured.append(result)
    report(measured)
    print()
    for item in measured:
        report_time(item)
    print()
    for item in measured:
        if item.move is not None:
            for target in targets_for([(item.ping, item.move)]):
                print(f"{target.line()}  [{item.configuration.label}]")
    if args.record:
        note = f"/ping K={args.count}, moves K={args.move_count}, C={args.concurrency}"
        path = history.record("scaling", history_figures(measured), note)
        print(f"recorded in {path} and its chart redrawn")
    return 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="/ping interactions")
    parser.add_argument("--move-count", type=int, default=600, help="Knucklebones moves")
    parser.add_argument("--concurrency", type=int, default=16, help="interactions in flight")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("TEST_DATABASE_URL") or DEFAULT_POSTGRES,
        help="a PostgreSQL server where the bench may create and drop a database",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="append target 5's figures to bench/history/scaling.jsonl and redraw its chart "
        "(BENCH_HISTORY_DIR, BENCH_CHART_DIR: elsewhere)",
    )
    parser.add_argument(
        "--only",
        default=",".join(c.key for c in CONFIGURATIONS),
        help="configurations to run, comma-separated: " + ", ".join(c.key for c in CONFIGURATIONS),
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        port, token, guild, database, shards, trips_directory = sys.argv[2:8]
        asyncio.run(child_main(int(port), token, int(guild), database, shards, trips_directory))
    else:
        sys.exit(asyncio.run(main(parse(sys.argv[1:]))))
