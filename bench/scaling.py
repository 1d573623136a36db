"""Knucklebones move throughput and latency on SQLite with one bot process, on PostgreSQL
with one process, and on PostgreSQL with two processes sharing the shards, in one run.

Each configuration gets a fresh fake Discord (served by this process, which also plays the
users), a fresh database, and the real bot in its own process(es), as in
``bench/interactions.py`` (whose scenarios this reuses). With two processes the fake runs
two shards, one server on each, and the games are split between the servers, so each
process serves half the presses. For each configuration: /ping (the floor set by
discord.py and loopback), then Knucklebones moves (a full session transaction and the
board re-rendered in the answer), C in flight; interactions/s and p50/p99 from
INTERACTION_CREATE to the bot's first callback.

Then issue 14's targets for each configuration, PASS or FAIL: move throughput at least
0.25x /ping's and move p99 under 50 ms. "bot CPU/move" is the CPU time of the bot
process(es) per move (not the PostgreSQL server's).

Usage: ``.venv/bin/python bench/scaling.py [--count 2000] [--move-count 600]
[--concurrency 16] [--postgres postgresql://postgres@127.0.0.1:5432/test]
[--only sqlite-1,postgres-1,postgres-2] [--record]``; ``--record`` appends target 5's
figures (moves/s, bot CPU per move) to ``bench/history/scaling.jsonl`` and redraws its chart
(``bench/history.py``). The PostgreSQL URL (default ``TEST_DATABASE_URL``) names a server
where the bench may create and drop a database.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import signal
import sys
import tempfile
from dataclasses import dataclass
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
)


@dataclass
class Measured:
    configuration: Configuration
    ping: Result
    move: Result | None


# -- the bot's process ----------------------------------------------------------------------


async def child_main(port: int, token: str, guild_id: int, database: str, shards: str) -> None:
    """Run the real bot against the fake at ``port`` until SIGTERM. ``database`` is an
    SQLite path or a postgresql:// URL; ``shards`` is ``count:ids`` or ``-``."""
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
    runner = asyncio.create_task(bot.start(token))
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
    await bot.close()
    stopper.cancel()
    await asyncio.gather(runner, stopper, return_exceptions=True)


async def start_process(fake: FakeDiscord, guild_id: int, database: str, shards: str) -> Any:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(SCRIPT),
        "--child",
        str(fake.port),
        fake.token,
        str(guild_id),
        database,
        shards,
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
                processes.append(await start_process(fake, guild_id, database, shards))
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
            try:
                move = KnucklebonesMoveScenario()
                await move.prepare(fake, guilds[0], players)
                # As bench/interactions.py: the bot first finishes what the set-up left it
                # to publish (the games' first edits), which would otherwise land in the
                # first moves measured.
                await wait_quiet(fake, quiet=0.3, limit=10.0)
                move_result = await run(move, args.move_count, args.concurrency, bot_pids=pids)
            except ScenarioUnavailable as reason:
                print(f"  {configuration.label}: moves unavailable: {reason}")
            await wait_quiet(fake, quiet=0.3, limit=10.0)
            problems = fake.final_problems()
            if problems:
                raise SystemExit(f"{configuration.label}: the fake saw problems: {problems[:5]}")
            return Measured(configuration, ping_result, move_result)
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
    processes; the chart shows them per process) and bot CPU per move. No limit: the target
    asks for the figures."""
    figures = []
    for item in measured:
        if item.move is None:
            continue
        key = item.configuration.key
        figures.append(history.Figure(f"{key}/moves", round(item.move.rate, 1)))
        if item.move.cpu_ms is not None:
            figures.append(history.Figure(f"{key}/cpu-per-move", round(item.move.cpu_ms, 3)))
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
        port, token, guild, database, shards = sys.argv[2:7]
        asyncio.run(child_main(int(port), token, int(guild), database, shards))
    else:
        sys.exit(asyncio.run(main(parse(sys.argv[1:]))))
