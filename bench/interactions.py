"""Interaction throughput and first-answer latency of the real bot against the fake Discord.

The bot runs in its own process (this script started with ``--child``), pointed at a fake
Discord served by this process, which also plays the users. For each scenario it fires K
interactions with C in flight and reports interactions/s, p50/p99 of the time from
INTERACTION_CREATE leaving the fake to the bot's first callback arriving, and the bot
process's CPU time per interaction (all its threads; steadier than rates on a shared
machine). In one run, against the same bot:

    (a) /ping, answered at once: the floor set by discord.py and loopback (C, then 1).
    (b) a Knucklebones move between two players: a column press, its transaction, the
        board re-rendered in the answer (C, then 1).
    (c) a Knucklebones move against the AI, the AI's reply included.
    (d) a Diceman lock-in (Confirm in the DM, after picking two dice).
    (e) a Weighted Dice bet at a 12-player table.

each move right after a /ping run of its own (the machine is shared: its load drifts
within a run), started once the bot has gone quiet (no set-up left to publish); then
each move's ratios to that /ping and issue 14's targets with PASS or FAIL: throughput
at least 0.25x /ping's and p99 under 50 ms at C in flight for every move, and the
Knucklebones move's p99 under 15 ms at 1 in flight.

Then (unless ``--no-floor``) the answer floor, in a second bot process: (f) the same
Knucklebones column press answered with its game's message as first drawn (status line,
board picture, buttons), sent again each time: no transaction, no rules, no drawing. It is
what discord.py, aiohttp and the fake cost for a move's answer; the move's CPU time less
the floor's is the bot's own work.

Usage: ``.venv/bin/python bench/interactions.py [--count 2000] [--move-count 1000]
[--concurrency 16] [--scenarios knucklebones-ai,diceman,weighted] [--no-floor]
[--move-scenario knucklebones | path/to/file.py:factory | package.module:factory]``

A move scenario for (b) is built in (``knucklebones``) or a module (file path or dotted
name) with a factory returning an object with ``name: str``, ``async prepare(fake, guild,
players)`` and ``async fire(worker: int, index: int) -> FakeInteraction``; see
``PingScenario``. Raise ``ScenarioUnavailable`` from the factory or ``prepare`` to report
it as unavailable. ``BENCH_PROFILE_BOT=file`` runs the bot under cProfile (CPU time of the
event loop's thread), the answer floor's bot into ``file.floor``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib
import importlib.util
import io
import logging
import os
import re
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
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
# A freshly started bot answers its first thousand or so interactions markedly slower
# (caches, allocator, the first garbage collections): not measured.
WARM_UP_PINGS = 1000


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
        # The board mentions the player to move (and only them while the game runs).
        for player in self.pairs[worker]:
            if f"<@{player.id}>" in board.content:
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


def _board_columns(board: FakeMessage) -> list[dict[str, Any]]:
    return [
        b
        for b in board.buttons()
        if KnucklebonesMoveScenario.custom_id.fullmatch(str(b.get("custom_id")))
        and not b.get("disabled")
    ]


class KnucklebonesAiScenario:
    """Knucklebones games against the AI, ``GAMES_PER_WORKER`` per worker; each measured
    interaction is a player pressing a column on a board where the AI's reply has landed,
    so the throughput includes the AI's moves (deadline, choice, transaction, edit). The
    bot runs with the AI's deliberate pause set to 0 (``BENCH_AI_MOVE_DELAY``) and a
    worker moves on to its next game while one waits for its reply (the publisher spaces
    two edits of one message by 0.25 s): the bench measures work, not pauses."""

    name = "knucklebones move vs AI"
    GAMES_PER_WORKER = 8

    def __init__(self) -> None:
        self.fake: FakeDiscord | None = None
        self.players: list[list[Player]] = []
        self.boards: list[list[FakeMessage]] = []
        self.turns: list[int] = []

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        self.fake = fake
        if "knucklebones ai" not in fake.commands.names(guild.id):
            raise ScenarioUnavailable("the bot registers no /knucklebones ai")
        workers = max(1, len(players) // 2)
        # One open game per player per channel: a player for every game.
        self.players = [
            [await guild.add_member(f"ai{worker}g{game}") for game in range(self.GAMES_PER_WORKER)]
            for worker in range(workers)
        ]
        self.boards = [[await self._new_game(p) for p in mine] for mine in self.players]
        self.turns = [0] * workers

    async def _new_game(self, player: Player) -> FakeMessage:
        started = await player.slash("knucklebones ai", difficulty="medium", first="me")
        if started.message is None or started.ephemeral:
            raise ScenarioUnavailable(f"the game was not posted: {started!r}")
        return started.message

    def _finished(self, board: FakeMessage) -> bool:
        # On the AI's turn the columns stay on the board, disabled; a finished game has none.
        return not any(
            KnucklebonesMoveScenario.custom_id.fullmatch(str(b.get("custom_id")))
            for b in board.buttons()
        )

    def _ready(self, worker: int) -> int | None:
        """The worker's next game (round robin) whose board waits for the player."""
        boards = self.boards[worker]
        for step in range(len(boards)):
            game = (self.turns[worker] + step) % len(boards)
            if _board_columns(boards[game]) or self._finished(boards[game]):
                return game
        return None

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        worker %= len(self.players)
        assert self.fake is not None
        await self.fake.wait_for(
            lambda: self._ready(worker) is not None, timeout=10, what="the AI's reply"
        )
        game = self._ready(worker)
        assert game is not None
        self.turns[worker] = game + 1
        board = self.boards[worker][game]
        if not _board_columns(board):
            board = self.boards[worker][game] = await self._new_game(self.players[worker][game])
            await self.fake.wait_for(
                lambda: bool(_board_columns(board)), timeout=10, what="a new game's columns"
            )
        return await self.players[worker][game].begin_click(board, _board_columns(board)[0])


DICEMAN_PAIRS = (
    ["magic", "shield"],
    ["sword", "shield"],
    ["magic", "sword"],
    ["priority", "sword"],
)


@dataclass
class _Duel:
    board: FakeMessage
    players: tuple[Player, Player]
    # The round each player locks in next.
    next_round: list[int] = field(default_factory=lambda: [1, 1])


class DicemanLockInScenario:
    """Diceman games with secret choices by DM, ``GAMES_PER_PAIR`` per pair of workers
    (one worker plays seat 0 of its games, the other seat 1); each measured interaction is
    a player's **Confirm** (the lock-in: its transaction, the DM turned into the "locked
    in" note and, for the second player, the round's reveal and the next round's DMs).
    Before each lock-in the player picks two dice in the same DM (not measured, but part
    of the throughput: a lock-in takes both). A worker moves on to its next game while one
    waits for its round (the publisher spaces two edits of one message by 0.25 s)."""

    name = "diceman lock-in"
    GAMES_PER_PAIR = 8
    controls = re.compile(r"dm:(?P<session>[0-9]+):(?P<round>[0-9]+):pick:.*")

    def __init__(self) -> None:
        self.fake: FakeDiscord | None = None
        self.duels: list[list[_Duel]] = []
        self.turns: list[int] = []
        self.renewing: list[asyncio.Lock] = []

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        self.fake = fake
        if "diceman challenge" not in fake.commands.names(guild.id):
            raise ScenarioUnavailable("the bot registers no /diceman challenge")
        groups = max(1, len(players) // 2)
        for group in range(groups):
            duels = []
            for game in range(self.GAMES_PER_PAIR):
                pair = (
                    await guild.add_member(f"dm{group}g{game}a"),
                    await guild.add_member(f"dm{group}g{game}b"),
                )
                duels.append(await self._new_duel(pair))
            self.duels.append(duels)
        self.turns = [0] * (groups * 2)
        self.renewing = [asyncio.Lock() for _ in range(groups)]

    async def _new_duel(self, pair: tuple[Player, Player]) -> _Duel:
        challenger, opponent = pair
        challenge = await challenger.slash("diceman challenge", opponent=opponent)
        if challenge.message is None or challenge.ephemeral:
            raise ScenarioUnavailable(f"the challenge was not posted: {challenge!r}")
        await opponent.click(challenge.message, "Accept")
        return _Duel(challenge.message, pair)

    def _controls(self, duel: _Duel, seat: int) -> FakeMessage | None:
        message = duel.players[seat].last_dm()
        if message is None:
            return None
        for custom_id in message.custom_ids():
            match = self.controls.fullmatch(custom_id)
            if match is not None and int(match["round"]) == duel.next_round[seat]:
                return message
        return None

    def _over(self, duel: _Duel) -> bool:
        # A finished duel keeps one button (Rematch): it is over when it says so.
        return "game over" in duel.board.text().lower()

    def _ready(self, worker: int) -> int | None:
        duels = self.duels[worker // 2]
        seat = worker % 2
        for step in range(len(duels)):
            game = (self.turns[worker] + step) % len(duels)
            duel = duels[game]
            if self._controls(duel, seat) is not None or self._over(duel):
                return game
        return None

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        assert self.fake is not None
        worker %= len(self.turns)
        seat = worker % 2
        duels = self.duels[worker // 2]
        while True:
            await self.fake.wait_for(
                lambda: self._ready(worker) is not None, timeout=10, what="a Diceman round"
            )
            game = self._ready(worker)
            assert game is not None
            self.turns[worker] = game + 1
            duel = duels[game]
            controls = self._controls(duel, seat)
            if controls is not None:
                break
            # Over: whichever of the two workers sees it first starts the next game.
            async with self.renewing[worker // 2]:
                if duels[game] is duel:
                    duels[game] = await self._new_duel(duel.players)
        duel.next_round[seat] += 1
        player = duel.players[seat]
        picks = [s["custom_id"] for s in controls.selects() if ":pick:" in s["custom_id"]]
        await player.select(controls, DICEMAN_PAIRS[index % len(DICEMAN_PAIRS)], select=picks[0])
        confirm = next(c for c in controls.custom_ids() if ":ok:" in c)
        return await player.begin_click(controls, confirm)


WEIGHTED_PLAYERS = 12
WEIGHTED_BETTORS = WEIGHTED_PLAYERS - 3  # everyone but the house and its two rollers


class WeightedBetScenario:
    """Weighted Dice tables of 12 players, each with a round set up and its betting open
    before the clock starts (the bot runs with a long betting window); each measured
    interaction is a quick bet of 5 points by one of a table's 9 bettors (its transaction
    and its answer; the table's edits are coalesced, as they are for players)."""

    name = "weighted dice bet (12 seats)"

    def __init__(self, count: int) -> None:
        self.count = count
        self.fake: FakeDiscord | None = None
        self.bets: list[tuple[Player, FakeMessage, str]] = []

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        self.fake = fake
        if "weighted new" not in fake.commands.names(guild.id):
            raise ScenarioUnavailable("the bot registers no /weighted new")
        tables = -(-self.count // WEIGHTED_BETTORS)
        seated = [
            [await guild.add_member(f"t{table}s{seat}") for seat in range(WEIGHTED_PLAYERS)]
            for table in range(tables)
        ]
        gate = asyncio.Semaphore(8)

        async def open_one(table: list[Player]) -> list[tuple[Player, FakeMessage, str]]:
            async with gate:
                return await self._open_table(table)

        opened = await asyncio.gather(*(open_one(table) for table in seated))
        # Interleave the tables, so workers bet at several tables at once.
        for round_robin in zip(*opened, strict=True):
            self.bets.extend(round_robin)

    async def _open_table(self, players: list[Player]) -> list[tuple[Player, FakeMessage, str]]:
        assert self.fake is not None
        host = players[0]
        lobby = await host.slash("weighted new")
        table = lobby.message
        if table is None or lobby.ephemeral:
            raise ScenarioUnavailable(f"the table was not posted: {lobby!r}")
        for player in players[1:]:
            await player.click(table, "Join")
        await self.fake.wait_for(
            lambda: any(
                b.get("label") == "Start" and not b.get("disabled") for b in table.buttons()
            ),
            timeout=10,
            what="the Start button",
        )
        await host.click(table, "Start")
        await self.fake.wait_for(
            lambda: any(c.endswith(":setup") for c in table.custom_ids()),
            timeout=10,
            what="the house's Set up round button",
        )
        setup = next(c for c in table.custom_ids() if c.endswith(":setup"))
        house = panel = None
        for seat, player in enumerate(players):
            outcome = await player.click(table, setup)
            if outcome.message is not None and outcome.message.selects():
                house, panel = seat, outcome.message
                break
        if house is None or panel is None:
            raise ScenarioUnavailable("nobody could set up the first round")
        rollers: list[int] = []
        for index in (0, 1):
            roller_select = f"Roller {index + 1}"
            options = next(
                s["options"] for s in panel.selects() if s.get("placeholder") == roller_select
            )
            seat = next(int(o["value"]) for o in options if int(o["value"]) not in rollers)
            rollers.append(seat)
            await players[house].select(panel, [str(seat)], select=roller_select)
            await players[house].select(panel, ["6"], select=f"Die for roller {index + 1}")
        await players[house].click(panel, "Confirm")
        prefix = setup.removesuffix(":setup")
        await self.fake.wait_for(
            lambda: f"{prefix}:quick:0:5" in table.custom_ids(),
            timeout=10,
            what="betting to open",
        )
        bettors = [p for seat, p in enumerate(players) if seat != house and seat not in rollers]
        return [
            (player, table, f"{prefix}:quick:{number % 2}:5")
            for number, player in enumerate(bettors)
        ]

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        player, table, custom_id = self.bets[index]
        return await player.begin_click(table, custom_id)


BUILT_IN_SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "knucklebones": KnucklebonesMoveScenario,
}


@dataclass
class Result:
    name: str
    count: int
    seconds: float
    latencies: list[float]
    concurrency: int = 0
    # CPU time the bot's process (every thread) spent during the run, when known, and
    # this process's (the fake Discord and its players).
    bot_cpu_seconds: float | None = None
    fake_cpu_seconds: float | None = None

    @property
    def rate(self) -> float:
        return self.count / self.seconds

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies)

    @property
    def p99(self) -> float:
        return self.percentile(0.99)

    @property
    def cpu_ms(self) -> float | None:
        """The bot's CPU milliseconds per measured interaction."""
        if self.bot_cpu_seconds is None:
            return None
        return self.bot_cpu_seconds * 1000 / self.count

    @property
    def fake_cpu_ms(self) -> float | None:
        if self.fake_cpu_seconds is None:
            return None
        return self.fake_cpu_seconds * 1000 / self.count

    def line(self, label: str) -> str:
        cpu = "" if self.cpu_ms is None else f"   bot CPU {self.cpu_ms:5.2f} ms each"
        if self.fake_cpu_ms is not None:
            cpu += f" (fake {self.fake_cpu_ms:4.2f})"
        return (
            f"{label} {self.name:<28} C={self.concurrency:<3}{self.count:>6} in "
            f"{self.seconds:6.2f} s: {self.rate:7.0f}/s   p50 {self.p50 * 1000:7.2f} ms   "
            f"p99 {self.p99 * 1000:7.2f} ms{cpu}"
        )


def process_cpu_seconds(*pids: int) -> float | None:
    """User + system CPU time of processes (Linux ``/proc``), or None elsewhere."""
    if not pids:
        return None
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def fake_gc_paused() -> Iterator[None]:
    """No cyclic garbage collection in this process during a measured run. The fake
    Discord and the users it plays live here and keep every interaction and message they
    saw: their full collections grew with that history to 150-335 ms over a run of 6,000
    moves, and every answer in flight meanwhile counted the pause as the bot's latency
    (the moves' p99 at 16 in flight was those pauses). Collected between runs instead."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


async def run(
    scenario: Scenario, count: int, concurrency: int, *, bot_pids: Sequence[int] = ()
) -> Result:
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

    with fake_gc_paused():
        cpu_before = process_cpu_seconds(*bot_pids)
        fake_before = process_cpu_seconds(os.getpid())
        started = time.perf_counter()
        await asyncio.gather(*(worker(n) for n in range(concurrency)))
        seconds = time.perf_counter() - started
    cpu_after = process_cpu_seconds(*bot_pids)
    fake_after = process_cpu_seconds(os.getpid())
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    fake = None if fake_before is None or fake_after is None else fake_after - fake_before
    return Result(scenario.name, count, seconds, latencies, concurrency, cpu, fake)


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
        # The Weighted Dice tables are set up before the clock starts: keep betting open.
        betting_window_seconds=600,
        _env_file=None,  # type: ignore[call-arg]
    )
    bot = create_bot(settings, seed=1234, guild_ready_timeout=0.05)
    ai_delay = os.environ.get("BENCH_AI_MOVE_DELAY")
    if ai_delay is not None:

        async def on_ready() -> None:
            # discord.py loads each cog as a fresh module object: patch the loaded one.
            bot.extensions["cogs.knucklebones.cog"].AI_MOVE_DELAY = float(ai_delay)

        bot.add_listener(on_ready)
    if os.environ.get("BENCH_ANSWER_FLOOR"):
        install_answer_floor(bot)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    runner = asyncio.create_task(bot.start(token))
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
    await bot.close()
    stopper.cancel()
    await asyncio.gather(runner, stopper, return_exceptions=True)


def install_answer_floor(bot: Any) -> None:
    """Make a Knucklebones column press answer with its game's message as drawn at the
    first press (status line, board picture, buttons), sent again each time: a move's
    answer with nothing behind it. For the answer floor only, in its own bot process."""
    import discord

    from bot.model.contract import ShowContext

    drawn: dict[int, tuple[dict[str, Any], list[tuple[bytes, str, str | None]]]] = {}

    async def answer_only(self: Any, interaction: discord.Interaction) -> None:
        if self.session_id not in drawn:
            client: Any = interaction.client
            session = await client.sessions.get(self.session_id)
            fields = await client.sessions.handlers[session.game].render(session, ShowContext())
            pictures = [
                (file.fp.read(), file.filename, file.description)
                for file in fields.pop("attachments", [])
            ]
            drawn[self.session_id] = (fields, pictures)
        fields, pictures = drawn[self.session_id]
        await interaction.response.edit_message(
            **fields,
            attachments=[
                discord.File(io.BytesIO(png), filename=name, description=alt)
                for png, name, alt in pictures
            ],
        )

    async def on_ready() -> None:
        # The button is one shared class, in the module the loaded extension imported it
        # from: patched there.
        sys.modules["cogs.knucklebones.controls"].ColumnButton.handle = answer_only

    bot.add_listener(on_ready)


# -- the driver -----------------------------------------------------------------------------


async def start_bot_process(
    fake: FakeDiscord, guild: FakeGuild, database: str, env: dict[str, str] | None = None
) -> Any:
    syncs_before = fake.commands.sync_count
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SCRIPT),
        "--child",
        str(fake.port),
        fake.token,
        str(guild.id),
        database,
        env={**os.environ, "PYTHONPATH": str(ROOT), "BENCH_AI_MOVE_DELAY": "0", **(env or {})},
    )
    try:
        await fake.wait_for(
            lambda: fake.gateway.connected and fake.commands.sync_count > syncs_before,
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


def rest_line(requests: Sequence[Any], count: int) -> str:
    """REST requests per measured interaction, by method and route, most frequent first."""
    routes: dict[str, int] = {}
    for request in requests:
        key = f"{request.method} {request.route}"
        routes[key] = routes.get(key, 0) + 1
    parts = [
        f"{n / count:.2f} {route}" for route, n in sorted(routes.items(), key=lambda kv: -kv[1])
    ]
    return f"    REST requests per interaction: {len(requests) / count:.2f} ({', '.join(parts)})"


def ratio_line(reference: Result, result: Result) -> str:
    return (
        f"{result.name:<30} C={result.concurrency:<3} vs /ping: throughput "
        f"{result.rate / reference.rate:5.2f}x   p50 {result.p50 / reference.p50:6.2f}x"
        f"   p99 {result.p99 / reference.p99:6.2f}x"
    )


@dataclass(frozen=True)
class Target:
    """One of issue 14's targets, judged from results measured in this run."""

    what: str
    holds: Callable[[], bool]
    figure: Callable[[], str]

    def line(self) -> str:
        verdict = "PASS" if self.holds() else "FAIL"
        return f"{verdict}  {self.what}: {self.figure()}"


def targets_for(pairs: Sequence[tuple[Result, Result]]) -> list[Target]:
    """For each (ping, move) measured one after the other: throughput at least 0.25x
    /ping's and p99 under 50 ms with several in flight; p99 under 15 ms with one."""
    targets: list[Target] = []
    for ping, move in pairs:
        if move.concurrency > 1:
            targets.append(
                Target(
                    f"{move.name} throughput >= 0.25x /ping at C={move.concurrency}",
                    lambda m=move, p=ping: m.rate / p.rate >= 0.25,
                    lambda m=move, p=ping: (
                        f"{m.rate / p.rate:.2f}x ({m.rate:.0f}/s against {p.rate:.0f}/s)"
                    ),
                )
            )
            targets.append(
                Target(
                    f"{move.name} p99 < 50 ms at C={move.concurrency}",
                    lambda m=move: m.p99 < 0.050,
                    lambda m=move: f"{m.p99 * 1000:.1f} ms",
                )
            )
        else:
            targets.append(
                Target(
                    f"{move.name} p99 < 15 ms at C=1",
                    lambda m=move: m.p99 < 0.015,
                    lambda m=move, p=ping: f"{m.p99 * 1000:.1f} ms (/ping {p.p99 * 1000:.1f} ms)",
                )
            )
    return targets


async def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING)
    fake = FakeDiscord()
    # The bench measures the bot's own work: hundreds of moves a second in one channel, where
    # Discord takes 5 edits per 5 s in a channel and 50 requests a second from a bot
    # (tests/fakediscord/ratelimits.py), which would measure its pacing instead (that the
    # bot keeps to Discord's numbers is tests/e2e/test_busy_channel.py's).
    fake.rate_limits.for_benchmark("the bot's throughput, not Discord's pacing")
    await fake.start()
    guild = await fake.create_guild("Bench Hall")
    concurrency = args.concurrency
    member_count = 0

    async def fresh_players() -> list[Player]:
        # Each scenario its own players: one open game per player per channel.
        nonlocal member_count
        players = [
            await guild.add_member(f"player{member_count + n}")
            for n in range(max(2, concurrency * 2))
        ]
        member_count += len(players)
        return players

    extras: dict[str, Callable[[], Scenario]] = {
        "knucklebones-ai": KnucklebonesAiScenario,
        "diceman": DicemanLockInScenario,
        "weighted": lambda: WeightedBetScenario(args.move_count),
    }
    wanted = [name for name in args.scenarios.split(",") if name]
    unknown = [name for name in wanted if name not in extras]
    if unknown:
        print(f"unknown scenario(s) {unknown}: choose from {sorted(extras)}", file=sys.stderr)
        return 2
    try:
        with tempfile.TemporaryDirectory() as directory:
            process = await start_bot_process(fake, guild, str(Path(directory) / "bench.db"))
            pid = process.pid
            try:
                print(
                    f"bot in its own process (pid {pid}); fake Discord on 127.0.0.1:{fake.port}; "
                    f"/ping K={args.count}, moves K={args.move_count}, C={concurrency} in flight "
                    f"(then 1); latency = INTERACTION_CREATE sent -> first callback received; "
                    f"bot CPU = the bot process's CPU time (all threads) per interaction"
                )
                ping = PingScenario()
                await ping.prepare(fake, guild, await fresh_players())
                await run(ping, WARM_UP_PINGS, concurrency)  # warm-up, not reported
                # Each move is measured right after a /ping run of its own, so that a change
                # in the machine's load (it is shared) skews the pair less than the run.
                pairs: list[tuple[Result, Result]] = []

                async def measure(label: str, scenario: Scenario, count: int, flight: int) -> None:
                    # The bot first finishes what the scenario's set-up (or the run before)
                    # left it to publish: a /ping run beside that backlog would be slowed
                    # by it, and flatter the move measured against it.
                    await wait_quiet(fake, quiet=0.3, limit=10.0)
                    reference = await run(ping, args.count, flight, bot_pids=[pid])
                    print(reference.line("(a)"))
                    sent_before = len(fake.requests)
                    result = await run(scenario, count, flight, bot_pids=[pid])
                    print(result.line(label))
                    pairs.append((reference, result))
                    # What the moves asked of Discord, the work that follows their answers
                    # (edits, DMs) included.
                    await wait_quiet(fake, quiet=0.3, limit=10.0)
                    print(rest_line(fake.requests[sent_before:], count))

                move: Scenario | None = None
                try:
                    move = load_scenario(args.move_scenario)
                    await move.prepare(fake, guild, await fresh_players())
                    await measure("(b)", move, args.move_count, concurrency)
                except ScenarioUnavailable as reason:
                    move = None
                    print(f"(b) game move: UNAVAILABLE — {reason} (scenario {args.move_scenario})")
                for label, name in zip("cdefg", wanted, strict=False):
                    try:
                        extra = extras[name]()
                        await extra.prepare(fake, guild, await fresh_players())
                        await measure(f"({label})", extra, args.move_count, concurrency)
                    except ScenarioUnavailable as reason:
                        print(f"({label}) {name}: UNAVAILABLE — {reason}")
                if concurrency != 1 and move is not None:
                    await measure("(b)", move, min(args.move_count, 500), 1)
                print()
                for reference, result in pairs:
                    print(ratio_line(reference, result))
                print()
                targets = targets_for(pairs)
                for target in targets:
                    print(target.line())
                # Let the bot finish the work that follows its first answers (edits, DMs)
                # before stopping it, so shutdown does not cut it off.
                await wait_quiet(fake, quiet=0.3, limit=10.0)
            finally:
                process.send_signal(signal.SIGTERM)
                await process.wait()
        if args.floor and move is not None and move.name == KnucklebonesMoveScenario.name:
            moved = next(r for _, r in pairs if r.name == move.name)
            await measure_floor(fake, guild, args, await fresh_players(), moved)
        problems = fake.final_problems()
        if problems:
            print(f"fake Discord problems ({len(problems)}):")
            for problem in problems[:10]:
                print(f"  {problem}")
            return 1
        return 0
    finally:
        await fake.stop()


async def measure_floor(
    fake: FakeDiscord,
    guild: FakeGuild,
    args: argparse.Namespace,
    players: list[Player],
    moved: Result,
) -> None:
    """The answer floor (see the module's docstring), in a bot process of its own, each
    against a /ping run right before it; and how much of a move is the bot's own work."""
    with tempfile.TemporaryDirectory() as directory:
        env = {"BENCH_ANSWER_FLOOR": "1"}
        if os.environ.get("BENCH_PROFILE_BOT"):
            # Its own profile beside the main bot's, to compare the two.
            env["BENCH_PROFILE_BOT"] = os.environ["BENCH_PROFILE_BOT"] + ".floor"
        process = await start_bot_process(fake, guild, str(Path(directory) / "floor.db"), env=env)
        pid = process.pid
        try:
            print()
            print(f"answer floor: a second bot process (pid {pid}), its column presses answered")
            print("with the game's message as first drawn: no transaction, rules or drawing")
            ping = PingScenario()
            await ping.prepare(fake, guild, players[:2])
            await run(ping, WARM_UP_PINGS, args.concurrency)
            floor = KnucklebonesMoveScenario()
            floor.name = "answer floor"
            await floor.prepare(fake, guild, players)
            # Not measured: each game's first press draws its message (and the fresh
            # process's picture thread loads its fonts).
            await run(floor, args.concurrency * 8, args.concurrency)
            await wait_quiet(fake, quiet=0.3, limit=10.0)
            reference = await run(ping, args.count, args.concurrency, bot_pids=[pid])
            print(reference.line("(a)"))
            result = await run(floor, args.move_count, args.concurrency, bot_pids=[pid])
            print(result.line("(f)"))
            print(ratio_line(reference, result))
            if moved.cpu_ms is not None and result.cpu_ms is not None:
                own = moved.cpu_ms - result.cpu_ms
                print(
                    f"{moved.name}: bot CPU {moved.cpu_ms:.2f} ms = answer floor "
                    f"{result.cpu_ms:.2f} ms + the bot's own work {own:.2f} ms "
                    f"({own / moved.cpu_ms:.0%})"
                )
            await wait_quiet(fake, quiet=0.3, limit=10.0)
        finally:
            process.send_signal(signal.SIGTERM)
            await process.wait()


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="/ping interactions (K)")
    parser.add_argument(
        "--move-count", type=int, default=1000, help="interactions per move scenario"
    )
    parser.add_argument("--concurrency", type=int, default=16, help="interactions in flight (C)")
    parser.add_argument(
        "--move-scenario",
        default=DEFAULT_MOVE_SCENARIO,
        help="(b): knucklebones, file.py:factory or package.module:factory",
    )
    parser.add_argument(
        "--scenarios",
        default="knucklebones-ai,diceman,weighted",
        help="more move scenarios, comma-separated (empty for none): "
        "knucklebones-ai, diceman, weighted",
    )
    parser.add_argument(
        "--no-floor",
        dest="floor",
        action="store_false",
        help="skip the answer floor (a second bot process answering presses, no game)",
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        port, token, guild_id, database = sys.argv[2:6]
        profile_to = os.environ.get("BENCH_PROFILE_BOT")
        if profile_to:
            import cProfile

            # CPU time of the event loop's thread: wall time would charge the loop for
            # being descheduled while the fake and the database thread share two cores.
            profiler = cProfile.Profile(time.thread_time)
            profiler.runcall(asyncio.run, child_main(int(port), token, int(guild_id), database))
            profiler.dump_stats(profile_to)
        else:
            asyncio.run(child_main(int(port), token, int(guild_id), database))
    else:
        sys.exit(asyncio.run(main(parse(sys.argv[1:]))))
