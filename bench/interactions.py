"""Interaction throughput and first-answer latency of the real bot against the fake Discord.

The bot runs in its own process (this script started with ``--child``), pointed at a fake
Discord served by this process, which also plays the users. For each scenario it fires K
interactions with C in flight and reports interactions/s and p50/p99 of the time from
INTERACTION_CREATE leaving the fake to the bot's first callback arriving.

    (a) ping — ``/ping``, answered at once: the floor set by discord.py and loopback.
    (b) move — a real game move that commits to SQLite, from a pluggable scenario.

Usage: ``.venv/bin/python bench/interactions.py [--count 2000] [--move-count 1000]
[--concurrency 16]
[--move-scenario knucklebones | path/to/file.py:factory | package.module:factory]``

A move scenario is built in (``knucklebones``) or a module (file path or dotted name) with
a factory returning an object with ``name: str``, ``async prepare(fake, guild, players)``
and ``async fire(worker: int, index: int) -> FakeInteraction``; see ``PingScenario``.
Raise ``ScenarioUnavailable`` from the factory or ``prepare`` to report (b) as
unavailable.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import logging
import os
import re
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

SCRIPT = Path(__file__).resolve()
ROOT = SCRIPT.parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fakediscord import (  # noqa: E402
    FakeDiscord,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    Player,
    wait_for_answer,
)

DEFAULT_MOVE_SCENARIO = "knucklebones"


class ScenarioUnavailable(Exception):
    """The scenario cannot run yet (its game is not there): reported, not a failure."""


class Scenario(Protocol):
    name: str

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        """Set up whatever the measured interactions need (not measured)."""

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        """Send one measured interaction and return it without waiting for the answer."""


class PingScenario:
    name = "/ping"

    def __init__(self) -> None:
        self.players: list[Player] = []

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        self.players = players

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        return await self.players[index % len(self.players)].begin_slash("ping")


class KnucklebonesMoveScenario:
    """One Knucklebones game per worker (player against player, so nothing moves on its
    own); each measured interaction is the mover pressing a column: a full session
    transaction (load, rules, versioned save, commit) and the board re-rendered in the
    UPDATE_MESSAGE answer. A finished game is replaced by a new one, outside the timing."""

    name = "knucklebones move"
    custom_id = re.compile(r"kb:\d+:\d+:col:[0-2]")

    def __init__(self) -> None:
        self.fake: FakeDiscord | None = None
        self.pairs: list[tuple[Player, Player]] = []
        self.boards: list[FakeMessage] = []

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        self.fake = fake
        if "knucklebones challenge" not in fake.commands.names(guild.id):
            raise ScenarioUnavailable("the bot registers no /knucklebones challenge")
        self.pairs = [(players[2 * n], players[2 * n + 1]) for n in range(len(players) // 2)]
        self.boards = [await self._new_game(*pair) for pair in self.pairs]

    async def _new_game(self, challenger: Player, opponent: Player) -> FakeMessage:
        challenge = await challenger.slash("knucklebones challenge", opponent=opponent)
        board = challenge.message
        if board is None or challenge.ephemeral:
            raise ScenarioUnavailable(f"the challenge was not posted: {challenge!r}")
        await opponent.click(board, "Accept")
        assert self.fake is not None
        await self.fake.wait_for(
            lambda: self._columns(board),
            timeout=10,
            what=f"the Knucklebones board to show columns: {board.text()[:200]!r}",
        )
        return board

    def _columns(self, board: FakeMessage) -> list[dict[str, Any]]:
        return [
            b
            for b in board.buttons()
            if self.custom_id.fullmatch(str(b.get("custom_id"))) and not b.get("disabled")
        ]

    def _mover(self, worker: int) -> tuple[Player, dict[str, Any]] | None:
        board = self.boards[worker]
        columns = self._columns(board)
        if not columns:
            return None
        for player in self.pairs[worker]:
            if f"<@{player.id}>, your turn" in board.content:
                return player, columns[0]
        raise ScenarioUnavailable(f"cannot tell whose turn it is on: {board.text()[:200]!r}")

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        worker %= len(self.pairs)
        move = self._mover(worker)
        if move is None:
            self.boards[worker] = await self._new_game(*self.pairs[worker])
            move = self._mover(worker)
            assert move is not None, "a new game shows no column to press"
        player, button = move
        return await player.begin_click(self.boards[worker], button)


BUILT_IN_SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "knucklebones": KnucklebonesMoveScenario,
}


@dataclass
class Result:
    name: str
    count: int
    seconds: float
    latencies: list[float]

    @property
    def rate(self) -> float:
        return self.count / self.seconds

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies)

    def line(self, label: str) -> str:
        return (
            f"{label} {self.name:<24} {self.count:>6} in {self.seconds:6.2f} s: "
            f"{self.rate:8.0f}/s   p50 {self.p50 * 1000:7.2f} ms   "
            f"p99 {self.percentile(0.99) * 1000:7.2f} ms"
        )


async def run(scenario: Scenario, count: int, concurrency: int) -> Result:
    latencies: list[float] = []
    next_index = 0

    async def worker(number: int) -> None:
        nonlocal next_index
        while next_index < count:
            index = next_index
            next_index += 1
            interaction = await scenario.fire(number, index)
            await wait_for_answer(interaction, 10.0)
            assert interaction.latency is not None
            latencies.append(interaction.latency)

    started = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in range(concurrency)))
    return Result(scenario.name, count, time.perf_counter() - started, latencies)


def load_scenario(spec: str) -> Scenario:
    if spec in BUILT_IN_SCENARIOS:
        return BUILT_IN_SCENARIOS[spec]()
    target, _, attribute = spec.partition(":")
    if target.endswith(".py"):
        path = Path(target) if Path(target).is_absolute() else ROOT / target
        if not path.exists():
            raise ScenarioUnavailable(f"{target} does not exist yet")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        assert module_spec is not None and module_spec.loader is not None
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as error:
            raise ScenarioUnavailable(f"cannot import {target}: {error}") from error
    factory: Callable[[], Scenario] = getattr(module, attribute or "make_scenario")
    return factory()


# -- the bot's process ----------------------------------------------------------------------


async def child_main(port: int, token: str, guild_id: int, database: str) -> None:
    """Run the real bot against the fake at ``port`` until SIGTERM."""
    import discord.gateway
    import discord.http
    import yarl
    from pydantic import SecretStr

    from bot.app import create_bot
    from bot.config import Settings

    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gateway")
    settings = Settings(
        discord_token=SecretStr(token),
        database_path=Path(database),
        dev_guild_id=guild_id,
        log_level="WARNING",
        _env_file=None,  # type: ignore[call-arg]
    )
    bot = create_bot(settings, seed=1234, guild_ready_timeout=0.05)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    runner = asyncio.create_task(bot.start(token))
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
    await bot.close()
    stopper.cancel()
    await asyncio.gather(runner, stopper, return_exceptions=True)


# -- the driver -----------------------------------------------------------------------------


async def start_bot_process(fake: FakeDiscord, guild: FakeGuild, database: str) -> Any:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SCRIPT),
        "--child",
        str(fake.port),
        fake.token,
        str(guild.id),
        database,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        await fake.wait_for(
            lambda: fake.gateway.connected and fake.commands.sync_count > 0,
            timeout=60,
            what="the bot process to connect and sync its commands",
        )
    except AssertionError:
        process.kill()
        raise
    return process


async def wait_quiet(fake: FakeDiscord, *, quiet: float, limit: float) -> None:
    """Wait until the bot has made no request for ``quiet`` seconds (at most ``limit``)."""
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        try:
            await asyncio.wait_for(fake.next_change(), quiet)
        except TimeoutError:
            return


async def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING)
    fake = FakeDiscord()
    await fake.start()
    guild = await fake.create_guild("Bench Hall")
    players = [await guild.add_member(f"player{n}") for n in range(max(2, args.concurrency * 2))]
    with tempfile.TemporaryDirectory() as directory:
        process = await start_bot_process(fake, guild, str(Path(directory) / "bench.db"))
        try:
            print(
                f"bot in its own process (pid {process.pid}); fake Discord on 127.0.0.1:"
                f"{fake.port}; K={args.count} (a) / {args.move_count} (b) interactions, "
                f"C={args.concurrency} in flight; "
                f"latency = INTERACTION_CREATE sent -> first callback received"
            )
            ping = PingScenario()
            await ping.prepare(fake, guild, players)
            await run(ping, min(args.count, 200), args.concurrency)  # warm-up, not reported
            result_a = await run(ping, args.count, args.concurrency)
            print(result_a.line("(a)"))
            result_b: Result | None = None
            try:
                move = load_scenario(args.move_scenario)
                await move.prepare(fake, guild, players)
                result_b = await run(move, args.move_count, args.concurrency)
                print(result_b.line("(b)"))
            except ScenarioUnavailable as reason:
                print(f"(b) game move: UNAVAILABLE — {reason} (scenario {args.move_scenario})")
            if result_b is not None:
                print(
                    f"ratio (b)/(a): throughput {result_b.rate / result_a.rate:.2f}x, "
                    f"p50 latency {result_b.p50 / result_a.p50:.2f}x, "
                    f"p99 latency {result_b.percentile(0.99) / result_a.percentile(0.99):.2f}x"
                )
            else:
                print("ratio (b)/(a): n/a until a move scenario exists")
            # Let the bot finish the work that follows its first answers (edits, DMs)
            # before stopping it, so shutdown does not cut it off.
            await wait_quiet(fake, quiet=0.3, limit=10.0)
            problems = fake.final_problems()
            if problems:
                print(f"fake Discord problems ({len(problems)}):")
                for problem in problems[:10]:
                    print(f"  {problem}")
                return 1
            return 0
        finally:
            process.send_signal(signal.SIGTERM)
            await process.wait()
            await fake.stop()


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="interactions for (a) (K)")
    parser.add_argument(
        "--move-count", type=int, default=1000, help="interactions for (b): moves are slower"
    )
    parser.add_argument("--concurrency", type=int, default=16, help="interactions in flight (C)")
    parser.add_argument(
        "--move-scenario",
        default=DEFAULT_MOVE_SCENARIO,
        help="file.py:factory or package.module:factory for (b)",
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        port, token, guild_id, database = sys.argv[2:6]
        profile_to = os.environ.get("BENCH_PROFILE_BOT")
        if profile_to:
            import cProfile

            cProfile.run(
                "asyncio.run(child_main(int(port), token, int(guild_id), database))", profile_to
            )
        else:
            asyncio.run(child_main(int(port), token, int(guild_id), database))
    else:
        sys.exit(asyncio.run(main(parse(sys.argv[1:]))))
