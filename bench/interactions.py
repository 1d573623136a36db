"""Issue 30's targets 1 and 2: each move's own work against its floor, its tails against /ping's.

The real bot against the fake Discord, every figure side by side in one run.

The bot runs in its own process (this script started with ``--child``), pointed at a fake
Discord served by this process, which also plays the users. For each move scenario it fires
K interactions with C in flight (16) right after a /ping run of its own (the machine is
shared: its load drifts within a run), once the bot has gone quiet, and prints
interactions/s, p50/p99 of the time from INTERACTION_CREATE leaving the fake to the bot's
first callback, the bot's CPU time per interaction (its process, all threads, and its
picture helper's, shown apart, until the bot is quiet after the run: steadier than rates
on a shared machine) and the REST requests per interaction by route, the work that follows
the answers (edits, DMs) included, DMs apart. The scenarios:

    knucklebones      a move between two players: a column press, its transaction, the
                      board re-rendered in the answer.
    knucklebones-ai   a move against the AI, the AI's reply (a timer, its transaction, the
                      board's edit) included. Both the move's and the floor's bots make the
                      AI's choice instantly (its first open column): no search is timed.
    diceman           a lock-in: the pick (the select) and the Confirm in the DM (its
                      transaction, the "locked in" note; for the second player the reveal
                      and the next round's DMs). Timed: the Confirm; the picks get a line.
    duel              the same for Dimension Duel: three selects, then Confirm.
    weighted          a quick bet of 5 at a 12-player table (its answer, the table's
                      coalesced edits).

Beside it (unless ``--no-floor``), a second bot process, against a fake Discord of its own,
runs each scenario's **floor**, in blocks that alternate with the move's (``--blocks``, 4):
paired in time, the two see the same machine, whose load drifts within a run. The floor: the
same presses, driven the same way, answered with the same kind of message (same answer type,
embeds, pictures and components, rendered once per game by the real code and sent again
each time) and followed by the same REST requests (the AI's reply edit; a Diceman or Duel
Confirm's public edit and, for the second Confirm of a round, the other player's DM edit and
both players' next DMs; a bet's coalesced table edit), with no transaction, rules or drawing:
what discord.py, aiohttp and the fake cost. Its REST line shows it asks what the move asks.
Where a floor's message differs: a Confirm completing a round is answered with the "locked
in" note, not the reveal (of a similar size); a bet's receipt is a fixed text.

Target 1 (issue 30), per scenario: ``bot CPU X ms = floor F ms + own work W ms (W/F = r):
PASS|FAIL (<= 0.6x)``; drawing is own work, and the line under it gives the picture helper's
part and the bot's process alone. Target 2: each scenario's first-answer p99 at C in flight
at most 3x /ping's p99 measured right before it (the Confirm completing a Diceman or Duel
round and the picks each a line of their own). Games are set up before the clock starts,
enough for the run; a game that still ends in a run is replaced (its set-up counted in the
move's CPU time, and the line says how many).

Usage: ``.venv/bin/python bench/interactions.py [--count 2000] [--move-count 1000]
[--concurrency 16] [--warm-up 1000] [--scenarios knucklebones-ai,diceman,duel,weighted]
[--blocks 4] [--no-floor] [--record] [--profile FILE] [--move-scenario knucklebones |
path/to/file.py:factory | package.module:factory]``

A move scenario for the first line is built in (``knucklebones``) or a module (file path or
dotted name) with a factory taking ``floor: bool`` returning an object with ``name: str``,
``async prepare(fake, guild, players)`` and ``async fire(worker: int, index: int) ->
FakeInteraction``; see ``PingScenario``. Raise ``ScenarioUnavailable`` from the factory or
``prepare`` to report it as unavailable; only the built-in scenarios have floors.
``--record`` appends targets 1 and 2 to ``bench/history/interactions.jsonl`` and redraws
their charts (``bench/history.py``). ``--profile FILE`` (or ``BENCH_PROFILE_BOT=FILE``) runs
the bot under cProfile (CPU time of the event loop's thread) into FILE, the floors' bot into
``FILE.floor``.
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
import math
import os
import re
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

SCRIPT = Path(__file__).resolve()
ROOT = SCRIPT.parents[1]
sys.path.insert(0, str(SCRIPT.parent))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import history  # noqa: E402
from bot_process import LONG_TIMERS, children_of  # noqa: E402
from fakediscord import (  # noqa: E402
    FakeDiscord,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    Player,
    wait_for_answer,
)
from fakediscord.interactions import InteractionOutcome  # noqa: E402

DEFAULT_MOVE_SCENARIO = "knucklebones"
# A freshly started bot answers its first thousand or so interactions markedly slower
# (caches, allocator, the first garbage collections): not measured.
WARM_UP_PINGS = 1000
# Issue 30's targets: a move's own work at most this many times its floor's CPU time, and
# its first answers' p99 at most this many times /ping's.
OWN_WORK_TARGET = 0.6
TAIL_TARGET = 3.0


class ScenarioUnavailable(Exception):
    """The scenario cannot run yet (its game is not there): reported, not a failure."""


class Scenario(Protocol):
    name: str

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        """Set up whatever the measured interactions need (not measured)."""

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        """Send one measured interaction and return it without waiting for the answer."""


class Measured:
    """What a scenario adds to the measured interactions' latencies: those of the presses
    that lead to them (a lock-in's picks), a line of their own for some measured ones (the
    Confirm completing a round), and the games it had to start during a run."""

    def __init__(self) -> None:
        self.parts: dict[str, list[float]] = {}
        self.renewals = 0
        self.total: int | None = None

    def plan(self, total: int) -> None:
        """The next runs fire ``total`` interactions: set up games for all of them."""
        self.total = total

    def classify(self, outcome: InteractionOutcome) -> str | None:
        """The line of its own a measured interaction's latency also goes to, if any."""
        return None


# How long a worker waits for what the bot sends after an answer (the AI's reply, a round's
# DMs): under its global pacing (36 requests a second, interaction answers apart) a lock-in
# run's backlog grows to hundreds of requests (a worker waited more than 10 s).
REPLY_WAIT = 120.0


def per_worker(total: int, workers: int) -> int:
    return math.ceil(total / max(1, workers))


class PingScenario:
    name = "/ping"

    def __init__(self) -> None:
        self.players: list[Player] = []

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        self.players = players

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        return await self.players[index % len(self.players)].begin_slash("ping")


def _board_columns(board: FakeMessage) -> list[dict[str, Any]]:
    return [
        b
        for b in board.buttons()
        if KnucklebonesMoveScenario.custom_id.fullmatch(str(b.get("custom_id")))
        and not b.get("disabled")
    ]


# A Knucklebones game takes at least this many moves: the first player's ninth die fills
# their board at the 17th move at the earliest (a die their opponent takes away makes it
# longer); against the AI the player makes at least nine.
KNUCKLEBONES_MIN_MOVES = 17
KNUCKLEBONES_MIN_PLAYER_MOVES = 9


class KnucklebonesMoveScenario(Measured):
    """Knucklebones games between two players (nothing moves on its own), a row of them
    per worker, each with players of its own (one open game per player per channel), all
    set up before the clock starts; each measured interaction is the mover pressing a
    column: a full session transaction (load, rules, versioned save, commit) and the board
    re-rendered in the UPDATE_MESSAGE answer. A worker goes on to its next game when one
    ends."""

    name = "knucklebones move"
    custom_id = re.compile(r"kb:\d+:\d+:col:[0-2]")

    def __init__(self, floor: bool = False) -> None:
        super().__init__()
        self.floor = floor
        self.fake: FakeDiscord | None = None
        self.guild: FakeGuild | None = None
        self.games: list[list[tuple[tuple[Player, Player], FakeMessage]]] = []
        self.current: list[int] = []

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        self.fake, self.guild = fake, guild
        if "knucklebones challenge" not in fake.commands.names(guild.id):
            raise ScenarioUnavailable("the bot registers no /knucklebones challenge")
        workers = max(1, len(players) // 2)
        # A floor's game never ends: one a worker.
        rows = (
            1
            if self.floor or self.total is None
            else (per_worker(self.total, workers) // KNUCKLEBONES_MIN_MOVES + 1)
        )
        gate = asyncio.Semaphore(8)

        async def one(worker: int, row: int) -> tuple[tuple[Player, Player], FakeMessage]:
            async with gate:
                pair = (
                    await guild.add_member(f"kb{len(self.games)}w{worker}g{row}a"),
                    await guild.add_member(f"kb{len(self.games)}w{worker}g{row}b"),
                )
                return pair, await self._new_game(*pair)

        self.games = [
            list(await asyncio.gather(*(one(worker, row) for row in range(rows))))
            for worker in range(workers)
        ]
        self.current = [0] * workers

    async def _new_game(self, challenger: Player, opponent: Player) -> FakeMessage:
        challenge = await challenger.slash("knucklebones challenge", opponent=opponent)
        board = challenge.message
        if board is None or challenge.ephemeral:
            raise ScenarioUnavailable(f"the challenge was not posted: {challenge!r}")
        assert self.fake is not None
        # On a busy machine the bot defers the command's answer and edits its buttons in
        # after: Accept is pressed once it is there.
        await self.fake.wait_for(
            lambda: any(b.get("label") == "Accept" for b in board.buttons()),
            timeout=10,
            what=f"the challenge to show Accept: {board.text()[:200]!r}",
        )
        await opponent.click(board, "Accept")
        await self.fake.wait_for(
            lambda: _board_columns(board),
            timeout=10,
            what=f"the Knucklebones board to show columns: {board.text()[:200]!r}",
        )
        return board

    def _mover(self, pair: tuple[Player, Player], board: FakeMessage) -> tuple[Player, Any] | None:
        columns = _board_columns(board)
        if not columns:
            return None
        # The board mentions the player to move (and only them while the game runs).
        for player in pair:
            if f"<@{player.id}>" in board.content:
                return player, columns[0]
        raise ScenarioUnavailable(f"cannot tell whose turn it is on: {board.text()[:200]!r}")

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        worker %= len(self.games)
        row = self.games[worker]
        while True:
            pair, board = row[self.current[worker]]
            move = self._mover(pair, board)
            if move is not None:
                break
            if self.current[worker] + 1 < len(row):
                self.current[worker] += 1
                continue
            # Set-up ran short: a new game for the last pair, counted in the run.
            self.renewals += 1
            row[-1] = (pair, await self._new_game(*pair))
        player, button = move
        return await player.begin_click(board, button)


class KnucklebonesAiScenario(Measured):
    """Knucklebones games against the AI, enough per worker for the run; each measured
    interaction is a player pressing a column on a board where the AI's reply has landed,
    so the CPU time includes the AI's moves (timer, transaction, edit), its choice made
    instantly (``BENCH_AI_INSTANT``). The bot runs with the AI's deliberate pause set to 0
    (``BENCH_AI_MOVE_DELAY``) and a worker moves on to its next game while one waits for
    its reply (the publisher spaces two edits of one message by 0.25 s): the bench
    measures work, not pauses."""

    name = "knucklebones move vs AI"
    GAMES_PER_WORKER = 8

    def __init__(self, floor: bool = False) -> None:
        super().__init__()
        self.floor = floor
        self.fake: FakeDiscord | None = None
        self.players: list[list[Player]] = []
        self.boards: list[list[FakeMessage]] = []
        self.turns: list[int] = []

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        self.fake = fake
        if "knucklebones ai" not in fake.commands.names(guild.id):
            raise ScenarioUnavailable("the bot registers no /knucklebones ai")
        workers = max(1, len(players) // 2)
        games = self.GAMES_PER_WORKER
        if self.total is not None:
            # Fewer for a tiny run; more when a long one would otherwise finish them.
            presses = per_worker(self.total, workers)
            games = min(games, presses)
            if not self.floor:
                games = max(games, presses // KNUCKLEBONES_MIN_PLAYER_MOVES + 1)
        # One open game per player per channel: a player for every game.
        self.players = [
            [await guild.add_member(f"ai{worker}g{game}") for game in range(games)]
            for worker in range(workers)
        ]
        gate = asyncio.Semaphore(8)

        async def one(player: Player) -> FakeMessage:
            async with gate:
                return await self._new_game(player)

        self.boards = [list(await asyncio.gather(*map(one, mine))) for mine in self.players]
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
            if _board_columns(boards[game]):
                return game
        for step in range(len(boards)):
            game = (self.turns[worker] + step) % len(boards)
            if self._finished(boards[game]):
                return game
        return None

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        worker %= len(self.players)
        assert self.fake is not None
        await self.fake.wait_for(
            lambda: self._ready(worker) is not None, timeout=REPLY_WAIT, what="the AI's reply"
        )
        game = self._ready(worker)
        assert game is not None
        self.turns[worker] = game + 1
        board = self.boards[worker][game]
        if not _board_columns(board):
            self.renewals += 1
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
    # Whether the board said "game over", as of its edit count: the workers ask on every
    # change the fake sees, and reading a board's text walks all of it.
    over_as_of: int = -1
    over: bool = False


class SecretDuelLockInScenario(Measured):
    """Secret-choice duels (Diceman, Dimension Duel) played by DM, enough per pair of
    workers for the run (one worker plays seat 0 of its games, the other seat 1); each
    measured interaction is a player's **Confirm** (the lock-in: its transaction, the DM
    turned into the "locked in" note and, for the second player, the round's reveal and the
    next round's DMs). Before each lock-in the player makes their choice in the same DM's
    selects (each pick answered before the next; their latencies get a line, and their CPU
    time is the lock-in's). A worker moves on to its next game while one waits for its
    round (the publisher spaces two edits of one message by 0.25 s)."""

    name = ""
    command = ""
    prefix = ""
    GAMES_PER_PAIR = 8
    # Rounds a game lasts at least, for how many to set up (a guess on the short side).
    MIN_ROUNDS = 3
    COMPLETING = "Confirm completing a round"
    PICK = "pick"

    def __init__(self, floor: bool = False) -> None:
        super().__init__()
        self.floor = floor
        self.fake: FakeDiscord | None = None
        self.duels: list[list[_Duel]] = []
        self.turns: list[int] = []
        self.renewing: list[asyncio.Lock] = []
        # A DM's custom ids by its id, as of its edit count (see ``_custom_ids``).
        self._ids_of: dict[int, tuple[int, list[str]]] = {}
        self.controls = re.compile(
            rf"{self.prefix}:(?P<session>[0-9]+):(?P<round>[0-9]+):(?P<field>[a-z]+):.*"
        )

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        self.fake = fake
        if self.command not in fake.commands.names(guild.id):
            raise ScenarioUnavailable(f"the bot registers no /{self.command}")
        groups = max(1, len(players) // 2)
        games = self.GAMES_PER_PAIR
        if self.total is not None:
            # Fewer for a tiny run; more when a long one would otherwise finish them.
            rounds = per_worker(self.total, groups * 2)
            games = min(games, rounds)
            if not self.floor:
                games = max(games, rounds // self.MIN_ROUNDS + 1)
        gate = asyncio.Semaphore(8)
        tag = f"{self.prefix}{len(self.duels)}"

        async def one(group: int, game: int) -> _Duel:
            async with gate:
                pair = (
                    await guild.add_member(f"{tag}p{group}g{game}a"),
                    await guild.add_member(f"{tag}p{group}g{game}b"),
                )
                return await self._new_duel(pair)

        self.duels = [
            list(await asyncio.gather(*(one(group, game) for game in range(games))))
            for group in range(groups)
        ]
        self.turns = [0] * (groups * 2)
        self.renewing = [asyncio.Lock() for _ in range(groups)]
        # Every first round's DMs out before the clock starts (the bot sends them under
        # Discord's global limit, after the challenges' answers).
        await fake.wait_for(
            lambda: all(
                self._controls(duel, seat) is not None
                for duels in self.duels
                for duel in duels
                for seat in (0, 1)
            ),
            timeout=300,
            what="every duel's first DMs",
        )

    async def _new_duel(self, pair: tuple[Player, Player]) -> _Duel:
        challenger, opponent = pair
        challenge = await challenger.slash(self.command, opponent=opponent)
        if challenge.message is None or challenge.ephemeral:
            raise ScenarioUnavailable(f"the challenge was not posted: {challenge!r}")
        await opponent.click(challenge.message, "Accept")
        return _Duel(challenge.message, pair)

    def _custom_ids(self, message: FakeMessage) -> list[str]:
        """``message.custom_ids()``, read once per edit of the message (a worker asks on
        every change the fake sees)."""
        known = self._ids_of.get(message.id)
        if known is None or known[0] != message.edit_count:
            known = self._ids_of[message.id] = (message.edit_count, message.custom_ids())
        return known[1]

    def _controls(self, duel: _Duel, seat: int) -> FakeMessage | None:
        message = duel.players[seat].last_dm()
        if message is None:
            return None
        for custom_id in self._custom_ids(message):
            match = self.controls.fullmatch(custom_id)
            if match is None or match["field"] in ("ok", "move"):
                continue
            # A floor's DMs all show the first round's controls, sent again.
            if self.floor or int(match["round"]) == duel.next_round[seat]:
                return message
        return None

    def _over(self, duel: _Duel) -> bool:
        # A finished duel keeps one button (Rematch): it is over when it says so.
        if duel.over_as_of != duel.board.edit_count:
            duel.over_as_of = duel.board.edit_count
            duel.over = "game over" in duel.board.text().lower()
        return duel.over

    def _ready(self, worker: int) -> int | None:
        duels = self.duels[worker // 2]
        seat = worker % 2
        for step in range(len(duels)):
            game = (self.turns[worker] + step) % len(duels)
            duel = duels[game]
            if self._controls(duel, seat) is not None or self._over(duel):
                return game
        return None

    def classify(self, outcome: InteractionOutcome) -> str | None:
        # The first Confirm of a round is answered with the "🔒 … locked in" note, the one
        # completing it with the round's reveal (whose title has no lock). Read once the
        # answer is in: the first player's note turns into the reveal too, later.
        message = outcome.message
        title = "" if message is None or not message.embeds else message.embeds[0].get("title")
        return None if str(title or "").startswith("🔒") else self.COMPLETING

    async def _pick(self, player: Player, controls: FakeMessage, part: str, value: Any) -> None:
        select = next(s["custom_id"] for s in controls.selects() if f":{part}:" in s["custom_id"])
        values = value if isinstance(value, list) else [value]
        interaction = await player.begin_select(controls, values, select=select)
        await wait_for_answer(interaction, 10.0)
        assert interaction.latency is not None
        self.parts.setdefault(self.PICK, []).append(interaction.latency)

    async def choose(self, player: Player, controls: FakeMessage, index: int) -> None:
        raise NotImplementedError

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        assert self.fake is not None
        worker %= len(self.turns)
        seat = worker % 2
        duels = self.duels[worker // 2]
        while True:
            await self.fake.wait_for(
                lambda: self._ready(worker) is not None,
                timeout=REPLY_WAIT,
                what=f"a {self.name} round",
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
                    self.renewals += 1
                    duels[game] = await self._new_duel(duel.players)
        duel.next_round[seat] += 1
        player = duel.players[seat]
        # A floor's answers are rendered once per draft: the same picks every time.
        await self.choose(player, controls, 0 if self.floor else index)
        confirm = next(c for c in controls.custom_ids() if ":ok:" in c)
        return await player.begin_click(controls, confirm)


class DicemanLockInScenario(SecretDuelLockInScenario):
    __doc__ = SecretDuelLockInScenario.__doc__
    name = "diceman lock-in"
    command = "diceman challenge"
    prefix = "dm"
    # 20 life each: a game often ends in its second round.
    MIN_ROUNDS = 2

    async def choose(self, player: Player, controls: FakeMessage, index: int) -> None:
        await self._pick(player, controls, "pick", DICEMAN_PAIRS[index % len(DICEMAN_PAIRS)])


class DuelLockInScenario(SecretDuelLockInScenario):
    """Dimension Duel (tactical, 75 HP): three selects (ray or shield, region, function),
    then Confirm."""

    name = "dimension duel lock-in"
    command = "duel challenge"
    prefix = "dd"

    async def choose(self, player: Player, controls: FakeMessage, index: int) -> None:
        for part in ("dev", "reg", "fn"):
            select = next(s for s in controls.selects() if f":{part}:" in s["custom_id"])
            # The function menu offers only functions with charges left (and bluff).
            options = [str(option["value"]) for option in select["options"]]
            await self._pick(player, controls, part, options[index % len(options)])


WEIGHTED_PLAYERS = 12
WEIGHTED_BETTORS = WEIGHTED_PLAYERS - 3  # everyone but the house and its two rollers
# The bets a table takes in a run: all but one bettor's, since the last bet of a round
# closes its betting and rolls the dice (another move, with a drawing and the house's DMs).
WEIGHTED_BETS = WEIGHTED_BETTORS - 1


class WeightedBetScenario(Measured):
    """Weighted Dice tables of 12 players, each with a round set up and its betting open
    before the clock starts (the bot runs with a long betting window), enough for the run;
    each measured interaction is a quick bet of 5 points by one of 8 of a table's 9 bettors
    (its transaction and its answer; the table's edits are coalesced, as they are for
    players; the ninth bet would close the betting and roll).
    A floor's bets change nothing: there they go round its first tables again."""

    name = "weighted dice bet (12 seats)"

    def __init__(self, floor: bool = False) -> None:
        super().__init__()
        self.floor = floor
        self.fake: FakeDiscord | None = None
        self.bets: list[tuple[Player, FakeMessage, str]] = []

    async def prepare(self, fake: FakeDiscord, guild: FakeGuild, players: list[Player]) -> None:
        self.fake = fake
        if "weighted new" not in fake.commands.names(guild.id):
            raise ScenarioUnavailable("the bot registers no /weighted new")
        tables = -(-(self.total or WEIGHTED_BETS) // WEIGHTED_BETS)
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
            for number, player in enumerate(bettors[:WEIGHTED_BETS])
        ]

    async def fire(self, worker: int, index: int) -> FakeInteraction:
        player, table, custom_id = self.bets[index % len(self.bets)]
        return await player.begin_click(table, custom_id)


BUILT_IN_SCENARIOS: dict[str, Callable[[bool], Scenario]] = {
    "knucklebones": KnucklebonesMoveScenario,
}
# The scenarios ``--scenarios`` names, after the first line's move.
EXTRA_SCENARIOS: dict[str, Callable[[bool], Scenario]] = {
    "knucklebones-ai": KnucklebonesAiScenario,
    "diceman": DicemanLockInScenario,
    "duel": DuelLockInScenario,
    "weighted": WeightedBetScenario,
}


def p99_of(latencies: Sequence[float]) -> float:
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


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
    # Of the bot's, what its picture helper process spent (when asked for).
    helper_cpu_seconds: float | None = None
    # Latencies of other presses the run made, by line (a lock-in's picks, the Confirms
    # completing a round), and the games the scenario had to start during the run.
    parts: dict[str, list[float]] = field(default_factory=dict)
    renewals: int = 0

    @property
    def rate(self) -> float:
        return self.count / self.seconds

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies)

    @property
    def p99(self) -> float:
        return p99_of(self.latencies)

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
        notes = []
        if self.helper_cpu_seconds is not None:
            notes.append(f"its helper {self.helper_cpu_seconds * 1000 / self.count:4.2f}")
        if self.fake_cpu_ms is not None:
            notes.append(f"fake {self.fake_cpu_ms:4.2f}")
        if notes:
            cpu += f" ({', '.join(notes)})"
        lines = [
            f"{label} {self.name:<30} C={self.concurrency:<3}{self.count:>6} in "
            f"{self.seconds:6.2f} s: {self.rate:7.0f}/s   p50 {self.p50 * 1000:7.2f} ms   "
            f"p99 {self.p99 * 1000:7.2f} ms{cpu}"
        ]
        for part, latencies in self.parts.items():
            lines.append(
                f"    {part}: {len(latencies)}, p50 {statistics.median(latencies) * 1000:.2f} ms"
                f"   p99 {p99_of(latencies) * 1000:.2f} ms"
            )
        if self.renewals:
            lines.append(
                f"    {self.renewals} game(s) started during the run (their set-up in its CPU time)"
            )
        return "\n".join(lines)


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


def descendants_of(pids: Sequence[int]) -> list[int]:
    """The processes ``pids`` started, and theirs: the picture helper, which a fork
    server (itself a child of the bot) starts."""
    found: list[int] = []
    pending = list(pids)
    while pending:
        children = children_of(pending.pop())
        found.extend(children)
        pending.extend(children)
    return found


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
    scenario: Scenario,
    count: int,
    concurrency: int,
    *,
    bot_pids: Sequence[int] = (),
    with_helpers: bool = False,
    settle: Callable[[], Awaitable[None]] | None = None,
) -> Result:
    """``count`` interactions of ``scenario``, ``concurrency`` in flight; the CPU time of
    ``bot_pids`` (and, ``with_helpers``, of the processes they started: the picture
    helper) over the run, and after it until ``settle`` returns (the work the answers
    left, which the bot's global pacing may send long after the last answer)."""
    latencies: list[float] = []
    parts: dict[str, list[float]] = {}
    measured = scenario if isinstance(scenario, Measured) else None
    if measured is not None:
        measured.parts.clear()
        renewals_before = measured.renewals
    next_index = 0

    async def worker(number: int) -> None:
        nonlocal next_index
        while next_index < count:
            index = next_index
            next_index += 1
            interaction = await scenario.fire(number, index)
            outcome = await wait_for_answer(interaction, 10.0)
            assert interaction.latency is not None
            latencies.append(interaction.latency)
            kind = None if measured is None else measured.classify(outcome)
            if kind is not None:
                parts.setdefault(kind, []).append(interaction.latency)

    helpers = descendants_of(bot_pids) if with_helpers else []
    with fake_gc_paused():
        helper_before = process_cpu_seconds(*helpers)
        cpu_before = process_cpu_seconds(*bot_pids)
        fake_before = process_cpu_seconds(os.getpid())
        started = time.perf_counter()
        await asyncio.gather(*(worker(n) for n in range(concurrency)))
        seconds = time.perf_counter() - started
        if settle is not None:
            await settle()
    cpu_after = process_cpu_seconds(*bot_pids)
    helper_after = process_cpu_seconds(*helpers)
    fake_after = process_cpu_seconds(os.getpid())
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    helper = None if helper_before is None or helper_after is None else helper_after - helper_before
    if cpu is not None and helper is not None:
        cpu += helper
    fake = None if fake_before is None or fake_after is None else fake_after - fake_before
    result = Result(scenario.name, count, seconds, latencies, concurrency, cpu, fake, helper)
    if measured is not None:
        result.parts = {**measured.parts, **parts}
        result.renewals = measured.renewals - renewals_before
    return result


def load_scenario(spec: str, floor: bool = False) -> Scenario:
    if spec in BUILT_IN_SCENARIOS:
        return BUILT_IN_SCENARIOS[spec](floor)
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
    factory: Callable[[bool], Scenario] = getattr(module, attribute or "make_scenario")
    return factory(floor)


async def wait_quiet(fake: FakeDiscord, *, quiet: float, limit: float) -> None:
    """Wait until the bot has made no request for ``quiet`` seconds (at most ``limit``)."""
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        try:
            await asyncio.wait_for(fake.next_change(), quiet)
        except TimeoutError:
            return


def rest_line(requests: Sequence[Any], count: int, fake: FakeDiscord | None = None) -> str:
    """REST requests per measured interaction, by method and route, most frequent first;
    with ``fake``, a channel's messages in DMs apart from a server's."""
    routes: dict[str, int] = {}
    for request in requests:
        key = f"{request.method} {request.route}"
        channel_id = request.params.get("channel_id")
        if fake is not None and channel_id is not None:
            channel = fake.channels.get(int(channel_id))
            if channel is not None and channel.guild is None:
                key += " (DM)"
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
    """Issue 14's targets, which ``bench/scaling.py`` still prints (this bench no longer).
    For each (ping, move) measured one after the other: throughput at least 0.25x
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
    if os.environ.get("BENCH_AI_INSTANT"):
        make_ai_choice_instant()
    settings = Settings(
        discord_token=SecretStr(token),
        database_path=Path(database),
        dev_guild_id=guild_id,
        log_level="WARNING",
        # Games are set up minutes before their moves: no timer may fall due meanwhile (a
        # round's warning DM would count as a lock-in's work), and betting stays open.
        **LONG_TIMERS,
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


def make_ai_choice_instant() -> None:
    """The Knucklebones AI takes its first open column, at once: target 1 compares a move
    against the AI with a floor that runs no search, so the move runs none either (the
    search's own cost is ``bench/knucklebones_ai.py``'s)."""
    from game_core import knucklebones as kb
    from game_core.ai import knucklebones as kb_ai

    def first_open_column(state: Any, player: int, level: str, rng: Any) -> int:
        return kb.open_columns(state, player)[0]

    # cogs.knucklebones.moves calls it through the module, so every bot module sees this.
    kb_ai.choose_for_state = first_open_column


# The private answer to a quick bet in the floor: the real receipt's shape and length.
FLOOR_BET_RECEIPT = (
    "✅ You bet **5** on **t0s1**. Bets are final.\nTotals now: t0s1 **25** · t0s2 **20**."
)


def install_answer_floor(bot: Any) -> None:
    """The floors, for their own bot process: each measured press answered as its move
    answers it, with what the real code rendered for its game the first time (kept and
    sent again), then the REST requests the move makes after its answer, with no
    transaction, no rules and no drawing.

    - Knucklebones column: the board as the answer (UPDATE_MESSAGE, picture included);
      against the AI, one more edit of the board (the AI's reply).
    - Diceman pick / Dimension Duel select: the player's controls as the answer.
    - Their Confirm: the "locked in" note as the answer and an edit of the game message;
      the second of a round also edits the other player's DM and sends both players their
      next controls by DM.
    - Weighted Dice quick bet: an ephemeral receipt, and one edit of the table per
      coalescing window (``COALESCE_DELAY_SECONDS``), as the publisher gathers bets.
    """
    import discord

    from bot.model.contract import ShowContext

    Pictures = list[tuple[bytes, str, str | None]] | None
    drawn: dict[int, tuple[Any, dict[str, Any], Pictures]] = {}
    seats_read: dict[tuple[int, int], tuple[Any, ...]] = {}
    notes: dict[tuple[int, int], discord.Embed] = {}
    fresh: dict[tuple[int, int], tuple[discord.Embed, discord.ui.View]] = {}
    drafted: dict[tuple[int, int, str], tuple[discord.Embed, discord.ui.View]] = {}
    # Each player's DM channel and the DM they last pressed on.
    dms: dict[int, tuple[int, int]] = {}
    locked: dict[int, set[int]] = {}
    gathering: set[int] = set()
    background: set[asyncio.Task[None]] = set()

    async def public(client: Any, session_id: int) -> tuple[Any, dict[str, Any], Pictures]:
        if session_id not in drawn:
            session = await client.sessions.get(session_id)
            fields = dict(
                await client.sessions.handlers[session.game].render(session, ShowContext())
            )
            files = fields.pop("attachments", None)
            pictures = (
                None
                if files is None
                else [(file.fp.read(), file.filename, file.description) for file in files]
            )
            drawn[session_id] = (session, fields, pictures)
        return drawn[session_id]

    def attached(pictures: Pictures) -> dict[str, Any]:
        if pictures is None:
            return {}
        return {
            "attachments": [
                discord.File(io.BytesIO(png), filename=name, description=alt)
                for png, name, alt in pictures
            ]
        }

    async def edit_public(client: Any, session_id: int) -> None:
        session, fields, pictures = await public(client, session_id)
        channel = client.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        await channel.get_partial_message(session.message_id).edit(**fields, **attached(pictures))

    async def column_only(self: Any, interaction: discord.Interaction) -> None:
        client: Any = interaction.client
        session, fields, pictures = await public(client, self.session_id)
        await interaction.response.edit_message(**fields, **attached(pictures))
        if any(seat.is_ai for seat in session.seats):
            await edit_public(client, self.session_id)

    def remember_dm(interaction: discord.Interaction) -> None:
        if interaction.channel_id is not None and interaction.message is not None:
            dms[interaction.user.id] = (interaction.channel_id, interaction.message.id)

    async def seat_of(client: Any, game: str, session_id: int, user_id: int) -> tuple[Any, ...]:
        """The game as the floor first read it, for the seat of ``user_id``: its state,
        and the seat's "locked in" note and fresh controls (its next round's DM)."""
        key = (session_id, user_id)
        if key not in seats_read:
            handler = client.sessions.handlers[game]
            session = await client.sessions.get(session_id)
            parsed = handler.parse(session)
            assert parsed is not None, "the floor's duel has not started"
            state, ui = parsed
            seat = session.seat_of(user_id)
            seats_read[key] = (handler, session, state, ui, seat)
            notes[key] = handler.render_locked(session, state, seat)
            fresh[key] = handler.rules.controls(session, seat, state, "", ui)
        return seats_read[key]

    async def draft_only(
        interaction: discord.Interaction, game: str, session_id: int, round_no: int, draft: str
    ) -> None:
        remember_dm(interaction)
        key = (session_id, interaction.user.id, draft)
        if key not in drafted:
            client: Any = interaction.client
            handler, session, state, ui, seat = await seat_of(
                client, game, session_id, interaction.user.id
            )
            drafted[key] = handler.rules.controls(session, seat, state, draft, ui)
        embed, view = drafted[key]
        await interaction.response.edit_message(embed=embed, view=view)

    async def confirm_only(
        interaction: discord.Interaction, game: str, session_id: int, round_no: int, draft: str
    ) -> None:
        remember_dm(interaction)
        client: Any = interaction.client
        user_id = interaction.user.id
        session = (await seat_of(client, game, session_id, user_id))[1]
        await interaction.response.edit_message(embed=notes[(session_id, user_id)], view=None)
        await edit_public(client, session_id)
        seats = locked.setdefault(session_id, set())
        seats.add(user_id)
        if len(seats) < 2:
            return
        seats.clear()
        # The round is over: the first player's note becomes the reveal, and both get the
        # next round's controls.
        other = next(seat.user_id for seat in session.seats if seat.user_id != user_id)
        channel_id, message_id = dms[other]
        private = discord.ChannelType.private
        await (
            client.get_partial_messageable(channel_id, type=private)
            .get_partial_message(message_id)
            .edit(embed=notes[(session_id, other)], view=None)
        )
        for seat in session.seats:
            embed, view = fresh[(session_id, seat.user_id)]
            channel = client.get_partial_messageable(dms[seat.user_id][0], type=private)
            await channel.send(embed=embed, view=view)

    async def bet_only(
        interaction: discord.Interaction, session_id: int, round_number: int, side: int, amount: str
    ) -> None:
        client: Any = interaction.client
        await interaction.response.send_message(FLOOR_BET_RECEIPT, ephemeral=True)
        if session_id in gathering:
            return
        gathering.add(session_id)
        delay = client.extensions["cogs.weighted_dice.cog"].COALESCE_DELAY_SECONDS

        async def show_later() -> None:
            await asyncio.sleep(delay)
            gathering.discard(session_id)
            await edit_public(client, session_id)

        task = asyncio.create_task(show_later())
        background.add(task)
        task.add_done_callback(background.discard)

    async def on_ready() -> None:
        # The controls are classes and module functions of the modules the loaded
        # extensions imported: patched there (a DynamicItem's handle calls them by name).
        sys.modules["cogs.knucklebones.controls"].ColumnButton.handle = column_only
        for name in ("cogs.diceman.controls", "cogs.dimension_duel.controls"):
            module = sys.modules[name]
            module.press_draft = draft_only  # type: ignore[attr-defined]
            module.press_confirm = confirm_only  # type: ignore[attr-defined]
        weighted = sys.modules["cogs.weighted_dice.controls"]
        weighted.press_bet_amount = bet_only  # type: ignore[attr-defined]

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
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "BENCH_AI_MOVE_DELAY": "0",
            "BENCH_AI_INSTANT": "1",
            **(env or {}),
        },
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


@dataclass
class Measurement:
    """One scenario measured: its move right after its /ping, and its floor's likewise."""

    key: str
    factory: Callable[[bool], Scenario]
    has_floor: bool
    ping: Result
    move: Result
    floor: Result | None = None


def own_work(cpu_ms: float, floor_ms: float) -> tuple[float, float]:
    """A move's own work (its CPU time less its floor's) and its ratio to the floor."""
    own = cpu_ms - floor_ms
    # A tiny run may measure no CPU tick at all for its floor.
    return own, own / floor_ms if floor_ms > 0 else math.inf


def own_work_line(item: Measurement) -> str:
    """Target 1: the move's bot CPU time as its floor's plus the bot's own work."""
    move, floor = item.move, item.floor
    if not item.has_floor:
        return f"{move.name}: no floor (not a built-in scenario)"
    if floor is None or move.cpu_ms is None or floor.cpu_ms is None:
        return f"{move.name}: no floor measured (--no-floor, or no CPU times here)"
    own, ratio = own_work(move.cpu_ms, floor.cpu_ms)
    verdict = "PASS" if ratio <= OWN_WORK_TARGET else "FAIL"
    line = (
        f"{move.name}: bot CPU {move.cpu_ms:.2f} ms = floor {floor.cpu_ms:.2f} ms + own work "
        f"{own:.2f} ms (W/F = {ratio:.2f}): {verdict} (<= {OWN_WORK_TARGET}x)"
    )
    helper = (move.helper_cpu_seconds or 0.0) * 1000 / move.count
    floor_helper = (floor.helper_cpu_seconds or 0.0) * 1000 / floor.count
    if helper or floor_helper:
        # Drawing is the bot's own work, done in its picture helper: what the bot's process
        # alone spends, for comparison with figures measured without the helper.
        alone = own - helper + floor_helper
        floor_alone = floor.cpu_ms - floor_helper
        line += (
            f"\n    of which the picture helper {helper - floor_helper:.2f} ms; the bot's process "
            f"alone: own work {alone:.2f} ms"
            + (f" (W/F = {alone / floor_alone:.2f})" if floor_alone > 0 else "")
        )
    return line


def tails(item: Measurement) -> list[tuple[str | None, float]]:
    """The move's first-answer p99 (None), then each of its parts' (the picks, the Confirm
    completing a round), by name."""
    return [
        (None, p99_of(item.move.latencies)),
        *((what, p99_of(latencies)) for what, latencies in item.move.parts.items()),
    ]


# The parts' names in the history (bench/history.py's series).
PART_KEYS = {DicemanLockInScenario.COMPLETING: "completing", DicemanLockInScenario.PICK: "pick"}


def history_figures(measured: Sequence[Measurement]) -> list[history.Figure]:
    """Targets 1 and 2 as ``bench/history.py`` records them: the figures the lines print."""
    figures = []
    for item in measured:
        move, floor = item.move, item.floor
        if floor is not None and move.cpu_ms is not None and floor.cpu_ms is not None:
            _, ratio = own_work(move.cpu_ms, floor.cpu_ms)
            figures.append(
                history.Figure(
                    f"own-work/{item.key}",
                    round(ratio, 3),
                    OWN_WORK_TARGET,
                    "PASS" if ratio <= OWN_WORK_TARGET else "FAIL",
                )
            )
        for what, p99 in tails(item):
            ratio = p99 / item.ping.p99
            part = "" if what is None else "/" + PART_KEYS.get(what, what)
            figures.append(
                history.Figure(
                    f"tail/{item.key}{part}",
                    round(ratio, 3),
                    TAIL_TARGET,
                    "PASS" if p99 <= TAIL_TARGET * item.ping.p99 else "FAIL",
                )
            )
    return figures


def tail_lines(item: Measurement) -> list[str]:
    """Target 2: first-answer p99s against /ping's right before them, one a line."""
    lines = []
    reference = item.ping.p99
    for what, p99 in tails(item):
        name = item.move.name if what is None else f"{item.move.name}, {what}"
        verdict = "PASS" if p99 <= TAIL_TARGET * reference else "FAIL"
        lines.append(
            f"{name}: first-answer p99 {p99 * 1000:.1f} ms = {p99 / reference:.2f}x /ping's "
            f"{reference * 1000:.1f} ms at C={item.move.concurrency}: {verdict} "
            f"(<= {TAIL_TARGET:g}x)"
        )
    return lines


@dataclass
class Side:
    """One bot process and the fake Discord it talks to: the bot's, or its floors'. Each
    has a fake of its own, so the two bots run side by side, neither seeing the other's
    users or traffic."""

    fake: FakeDiscord
    guild: FakeGuild
    process: Any = None
    ping: PingScenario = field(default_factory=PingScenario)
    member_count: int = 0

    @classmethod
    async def start(cls, name: str) -> Side:
        fake = FakeDiscord()
        # The bench measures the bot's own work: hundreds of moves a second in one channel,
        # where Discord takes 5 edits per 5 s in a channel and 50 requests a second from a
        # bot (tests/fakediscord/ratelimits.py), which would measure its pacing instead
        # (that the bot keeps to Discord's numbers is tests/e2e/test_busy_channel.py's).
        fake.rate_limits.for_benchmark("the bot's throughput, not Discord's pacing")
        await fake.start()
        return cls(fake, await fake.create_guild(name))

    async def fresh_players(self, concurrency: int) -> list[Player]:
        # Each scenario its own players: one open game per player per channel.
        players = [
            await self.guild.add_member(f"player{self.member_count + n}")
            for n in range(max(2, concurrency * 2))
        ]
        self.member_count += len(players)
        return players

    async def settled(self, quiet: float) -> None:
        # Quiet for longer than the bot's global pacing window (1.25 s), which sends its
        # requests in bursts: the edits and DMs a run's answers left are all out.
        await wait_quiet(self.fake, quiet=quiet, limit=120.0)

    async def stop_bot(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
            await self.process.wait()
            self.process = None

    async def stop(self) -> None:
        await self.stop_bot()
        await self.fake.stop()


def blocks_of(count: int, blocks: int) -> list[int]:
    """``count`` interactions in ``blocks`` runs as even as can be (none empty)."""
    blocks = max(1, min(blocks, count))
    return [count // blocks + (1 if n < count % blocks else 0) for n in range(blocks)]


def combined(parts: Sequence[Result]) -> Result:
    """Runs of one scenario as one result: their interactions, time and CPU added up."""

    def total(values: Sequence[float | None]) -> float | None:
        return None if any(v is None for v in values) else sum(v or 0.0 for v in values)

    first = parts[0]
    lines: dict[str, list[float]] = {}
    for part in parts:
        for what, latencies in part.parts.items():
            lines.setdefault(what, []).extend(latencies)
    return Result(
        first.name,
        sum(part.count for part in parts),
        sum(part.seconds for part in parts),
        [latency for part in parts for latency in part.latencies],
        first.concurrency,
        total([part.bot_cpu_seconds for part in parts]),
        total([part.fake_cpu_seconds for part in parts]),
        total([part.helper_cpu_seconds for part in parts]),
        lines,
        sum(part.renewals for part in parts),
    )


async def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING)
    if args.profile:
        os.environ["BENCH_PROFILE_BOT"] = args.profile
    wanted = [name for name in args.scenarios.split(",") if name]
    unknown = [name for name in wanted if name not in EXTRA_SCENARIOS]
    if unknown:
        print(
            f"unknown scenario(s) {unknown}: choose from {sorted(EXTRA_SCENARIOS)}",
            file=sys.stderr,
        )
        return 2
    concurrency = args.concurrency

    def first_move(floor: bool) -> Scenario:
        return load_scenario(args.move_scenario, floor)

    scenarios: list[tuple[str, Callable[[bool], Scenario], bool]] = [
        (args.move_scenario, first_move, args.move_scenario in BUILT_IN_SCENARIOS),
        *((name, EXTRA_SCENARIOS[name], True) for name in wanted),
    ]
    with_floors = args.floor and any(has_floor for _, _, has_floor in scenarios)
    sides: list[Side] = []
    measured: list[Measurement] = []
    try:
        with tempfile.TemporaryDirectory() as directory:
            bot = await Side.start("Bench Hall")
            sides.append(bot)
            bot.process = await start_bot_process(
                bot.fake, bot.guild, str(Path(directory) / "bench.db")
            )
            floors: Side | None = None
            if with_floors:
                floors = await Side.start("Floor Hall")
                sides.append(floors)
                env = {"BENCH_ANSWER_FLOOR": "1"}
                if os.environ.get("BENCH_PROFILE_BOT"):
                    # Its own profile beside the main bot's, to compare the two.
                    env["BENCH_PROFILE_BOT"] = os.environ["BENCH_PROFILE_BOT"] + ".floor"
                floors.process = await start_bot_process(
                    floors.fake, floors.guild, str(Path(directory) / "floor.db"), env=env
                )
            print(
                f"bot in its own process (pid {bot.process.pid}); fake Discord on 127.0.0.1:"
                f"{bot.fake.port}; /ping K={args.count}, moves K={args.move_count}, "
                f"C={concurrency} in flight; latency = INTERACTION_CREATE sent -> first "
                f"callback received; bot CPU = the CPU time of the bot's process (all "
                f"threads) and its picture helper per measured interaction; the AI "
                f"chooses instantly"
            )
            if floors is not None:
                print(
                    f"floors: a second bot process (pid {floors.process.pid}, its own fake on "
                    f"127.0.0.1:{floors.fake.port}), each scenario's presses answered with "
                    f"what its game showed first: no transaction, rules or drawing; a "
                    f"scenario and its floor run in {args.blocks} alternating blocks"
                )
            for side in sides:
                await side.ping.prepare(side.fake, side.guild, await side.fresh_players(16))
                await run(side.ping, args.warm_up, concurrency)  # warm-up, not reported
            for label, (key, factory, has_floor) in zip("bcdefgh", scenarios, strict=False):
                try:
                    measured.append(
                        await measure_paired(
                            args, label, key, factory, has_floor, bot, floors if has_floor else None
                        )
                    )
                except ScenarioUnavailable as reason:
                    print(f"({label}) {key}: UNAVAILABLE — {reason}")
            # Let the bots finish the work that follows their last answers (edits, DMs)
            # before stopping them, so shutdown does not cut it off.
            for side in sides:
                await wait_quiet(side.fake, quiet=0.3, limit=10.0)
            for side in sides:
                # Before the temporary directory, which holds their databases, goes.
                await side.stop_bot()
        print()
        print(f"Issue 30, target 1: each move's own work <= {OWN_WORK_TARGET}x its floor's")
        for item in measured:
            print(own_work_line(item))
        print()
        print(
            f"Issue 30, target 2: first-answer p99 at C={concurrency} <= {TAIL_TARGET:g}x "
            f"/ping's right before it"
        )
        for item in measured:
            for line in tail_lines(item):
                print(line)
        problems = [problem for side in sides for problem in side.fake.final_problems()]
        if problems:
            print(f"fake Discord problems ({len(problems)}):")
            for problem in problems[:10]:
                print(f"  {problem}")
            return 1
        if args.record:
            note = f"/ping K={args.count}, moves K={args.move_count}, C={concurrency}" + (
                f", floors paired in {args.blocks} blocks" if args.floor else ", no floors"
            )
            path = history.record("interactions", history_figures(measured), note)
            print(f"\nrecorded in {path} and its charts redrawn")
        return 0
    finally:
        for side in sides:
            await side.stop()


async def measure_paired(
    args: argparse.Namespace,
    label: str,
    key: str,
    factory: Callable[[bool], Scenario],
    has_floor: bool,
    bot: Side,
    floors: Side | None,
) -> Measurement:
    """One scenario: /ping's reference run on the bot, then the move on the bot and its
    floor on the floors' bot in alternating blocks, each block once the bot before it has
    gone quiet. Paired in time, the two see the same machine: measured one pass after the
    other, minutes apart, the floors came out 30-50% cheaper or dearer with the machine's
    load (docs/benchmarks.md, target 1), which decided the verdicts."""
    concurrency = args.concurrency

    async def prepared(side: Side, floor: bool) -> Scenario:
        scenario = factory(floor)
        if isinstance(scenario, Measured):
            scenario.plan(args.move_count)
        await scenario.prepare(side.fake, side.guild, await side.fresh_players(concurrency))
        return scenario

    move = await prepared(bot, False)
    floor: Scenario | None = None
    if floors is not None:
        floor = await prepared(floors, True)
        floor.name = f"{move.name} floor"
        # Not measured: each game's first presses render what the floor sends again (and
        # the fresh process's picture helper loads its fonts). Then quiet: what those
        # presses left to send would share the machine with the /ping run below.
        await run(floor, args.move_count, concurrency)
        await floors.settled(args.quiet)

    def options(side: Side) -> dict[str, Any]:
        async def settled() -> None:
            await side.settled(args.quiet)

        return {"bot_pids": [side.process.pid], "with_helpers": True, "settle": settled}

    # The bot first finishes what the scenario's set-up left it to publish: a /ping run
    # beside that backlog would be slowed by it.
    await bot.settled(args.quiet)
    reference = await run(bot.ping, args.count, concurrency, **options(bot))
    print(reference.line("(a)"))
    moves: list[Result] = []
    floor_runs: list[Result] = []
    bot_sent, floor_sent = len(bot.fake.requests), 0
    if floors is not None:
        await floors.settled(args.quiet)
        floor_sent = len(floors.fake.requests)
    for block in blocks_of(args.move_count, args.blocks):
        await bot.settled(args.quiet)
        moves.append(await run(move, block, concurrency, **options(bot)))
        if floors is not None and floor is not None:
            await floors.settled(args.quiet)
            floor_runs.append(await run(floor, block, concurrency, **options(floors)))
    result = combined(moves)
    print(result.line(f"({label})"))
    # What the moves asked of Discord, the work that follows their answers included.
    print(rest_line(bot.fake.requests[bot_sent:], result.count, bot.fake))
    floor_result = None
    if floors is not None and floor_runs:
        floor_result = combined(floor_runs)
        print(floor_result.line(f"({label})"))
        print(rest_line(floors.fake.requests[floor_sent:], floor_result.count, floors.fake))
    return Measurement(key, factory, has_floor, reference, result, floor=floor_result)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="/ping interactions (K)")
    parser.add_argument(
        "--move-count", type=int, default=1000, help="interactions per move scenario"
    )
    parser.add_argument("--concurrency", type=int, default=16, help="interactions in flight (C)")
    parser.add_argument(
        "--quiet",
        type=float,
        default=1.5,
        help="seconds without a request that tell the bot has sent what a run left (longer "
        "than its global pacing window, 1.25 s, for runs that reach it)",
    )
    parser.add_argument(
        "--warm-up",
        type=int,
        default=WARM_UP_PINGS,
        help="/ping interactions each bot answers before anything is measured",
    )
    parser.add_argument(
        "--move-scenario",
        default=DEFAULT_MOVE_SCENARIO,
        help="(b): knucklebones, file.py:factory or package.module:factory",
    )
    parser.add_argument(
        "--scenarios",
        default=",".join(EXTRA_SCENARIOS),
        help="more move scenarios, comma-separated (empty for none): " + ", ".join(EXTRA_SCENARIOS),
    )
    parser.add_argument(
        "--blocks",
        type=int,
        default=4,
        help="runs each move and its floor are measured in, alternating (paired in time)",
    )
    parser.add_argument(
        "--no-floor",
        dest="floor",
        action="store_false",
        help="skip the floors (a second bot process answering presses, no game)",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="append targets 1 and 2 to bench/history/interactions.jsonl and redraw their "
        "charts (BENCH_HISTORY_DIR, BENCH_CHART_DIR: elsewhere)",
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="cProfile the bot into FILE and the floors' bot into FILE.floor "
        "(as BENCH_PROFILE_BOT=FILE)",
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
