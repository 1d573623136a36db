"""Knucklebones: first-player advantage, game length, first-move columns and stalling.

Answers the rule card's questions by simulation:

1. Is there a first-player advantage? (win rate of whoever moved first, Wilson 95% CI)
2. How do the AI levels compare? (``--players`` from random|easy|medium|hard|stall)
3. How many turns is a game, and how many when one or both players drag it out?
   (``--scenarios``: random vs random, stall first, stall second, both stall)

A "turn" is one placement; a game without removals lasts 17 turns. Random-vs-random runs
use a NumPy simulation that plays many games in lock-step (``simulate_random_games``); any
AI uses the scalar path, which plays each game through the engine's ``step``.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from game_core import knucklebones as kb
from game_core.ai import knucklebones as ai
from game_core.analysis.cli import Column, percent, positive_int, table
from game_core.analysis.progress import Progress

__all__ = [
    "PLAYER_CHOICES",
    "SCENARIOS",
    "Chooser",
    "add_arguments",
    "cached_random_summary",
    "first_player_advantage",
    "make_chooser",
    "play_game",
    "render",
    "run",
    "simulate_games",
    "simulate_random_games",
    "stall_scenarios",
    "summarise",
    "wilson_interval",
]

PLAYER_CHOICES: tuple[str, ...] = ("random", "easy", "medium", "hard", "stall")
# Scenario name -> (strategy of the player who moves first, of the one who moves second).
SCENARIOS: dict[str, tuple[str, str]] = {
    "random_vs_random": ("random", "random"),
    "stall_first": ("stall", "random"),
    "stall_second": ("random", "stall"),
    "both_stall": ("stall", "stall"),
}
_CHUNK = 1_000  # games per scalar work unit: one rng each, so results ignore --workers
_VECTOR_BATCH = 1 << 17  # games per NumPy batch (keeps the arrays cache-sized)
_PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
# Rough seconds one seat's strategy costs per game: measured with simulate_games on this
# project's 2-core machine (random 9 us, medium 52 us, stall 30 us, hard 22 ms), doubled for
# a machine shared with other work. They only decide whether a run deserves a progress bar
# and an up-front estimate.
_SEAT_SECONDS = {"random": 2e-5, "easy": 2e-5, "medium": 1e-4, "stall": 6e-5, "hard": 4e-2}
_VECTORISED_GAME_SECONDS = 1.2e-6

# (position, player, die, rng) -> column; ``None`` in a seat means "random column".
Chooser = Callable[[list[int], int, int, random.Random], int]


# ---------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (0..1); (0, 1) with no trials."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def first_player_advantage(first_wins: int, second_wins: int, draws: int) -> dict[str, Any]:
    """Win rate of the player who moved first, among decided games and among all games."""
    decided = first_wins + second_wins
    games = decided + draws
    low, high = wilson_interval(first_wins, decided)
    all_low, all_high = wilson_interval(first_wins, games)
    return {
        "decided_games": decided,
        "win_rate_decided": first_wins / decided if decided else None,
        "ci95_decided": [low, high],
        "win_rate_all": first_wins / games if games else None,
        "ci95_all": [all_low, all_high],
        "second_win_rate_all": second_wins / games if games else None,
        "draw_rate": draws / games if games else None,
        # A CI that excludes one half is evidence of an advantage at the 5% level.
        "significant": bool(decided) and (low > 0.5 or high < 0.5),
    }


def _length_stats(histogram: np.ndarray) -> dict[str, Any]:
    """Histogram (index = turns) -> mean, spread and percentiles."""
    total = int(histogram.sum())
    if total == 0:
        return {"histogram": {}, "percentiles": {}, "mean": None, "stdev": None}
    turns = np.arange(len(histogram))
    mean = float((turns * histogram).sum() / total)
    variance = float(((turns - mean) ** 2 * histogram).sum() / total)
    cumulative = np.cumsum(histogram)
    percentiles = {
        f"p{q}": int(np.searchsorted(cumulative, math.ceil(q / 100 * total))) for q in _PERCENTILES
    }
    present = np.nonzero(histogram)[0]
    return {
        "histogram": {str(int(t)): int(histogram[t]) for t in present},
        "percentiles": percentiles,
        "mean": mean,
        "stdev": math.sqrt(variance),
        "min": int(present[0]),
        "max": int(present[-1]),
    }


# ---------------------------------------------------------------------------------------
# Aggregation shared by both simulation paths
# ---------------------------------------------------------------------------------------


class _Tally:
    """Counters for a batch of games; every game is told in the first player's terms.

    ``outcome`` per game: 0 first player won, 1 second player won, 2 draw. ``p1_first``
    says whether the named player P1 moved first in that game.
    """

    def __init__(self) -> None:
        self.outcomes = np.zeros(3, dtype=np.int64)
        self.histogram = np.zeros(0, dtype=np.int64)
        self.column_outcomes = np.zeros((3, 3), dtype=np.int64)  # [first column, outcome]
        # [P1 moved first?][outcome] counts, to credit wins to the named players.
        self.by_seating = np.zeros((2, 3), dtype=np.int64)

    def add(
        self,
        outcome: np.ndarray,
        turns: np.ndarray,
        first_column: np.ndarray,
        p1_first: np.ndarray,
    ) -> None:
        self.outcomes += np.bincount(outcome, minlength=3)
        counts = np.bincount(turns)
        if len(counts) > len(self.histogram):
            counts[: len(self.histogram)] += self.histogram
            self.histogram = counts
        else:
            self.histogram[: len(counts)] += counts
        self.column_outcomes += np.bincount(first_column * 3 + outcome, minlength=9).reshape(3, 3)
        self.by_seating += np.bincount(
            p1_first.astype(np.int64) * 3 + outcome, minlength=6
        ).reshape(2, 3)


def summarise(tally: _Tally, *, players: Sequence[str], seed: int, engine: str) -> dict[str, Any]:
    """The JSON report for a finished batch of games."""
    first_wins, second_wins, draws = (int(x) for x in tally.outcomes)
    games = first_wins + second_wins + draws
    lengths = _length_stats(tally.histogram)
    columns = {}
    for column in range(3):
        won, lost, drawn = (int(x) for x in tally.column_outcomes[column])
        played = won + lost + drawn
        columns[str(column)] = {
            "games": played,
            "wins": won,
            "losses": lost,
            "draws": drawn,
            "win_rate": won / played if played else None,
            "win_rate_decided": won / (won + lost) if won + lost else None,
        }
    # by_seating[1] are games P1 started (P1 = first), by_seating[0] games P2 started.
    p1_first_games = tally.by_seating[1]
    p2_first_games = tally.by_seating[0]
    per_player = {}
    for name, strategy, as_first, as_second in (
        ("p1", players[0], p1_first_games, p2_first_games),
        ("p2", players[1], p2_first_games, p1_first_games),
    ):
        wins_first, wins_second = int(as_first[0]), int(as_second[1])
        losses = int(as_first[1]) + int(as_second[0])
        drawn = int(as_first[2]) + int(as_second[2])
        wins = wins_first + wins_second
        per_player[name] = {
            "strategy": strategy,
            "games_first": int(as_first.sum()),
            "wins": wins,
            "losses": losses,
            "draws": drawn,
            "wins_when_first": wins_first,
            "wins_when_second": wins_second,
            "win_rate": wins / games if games else None,
            "win_rate_decided": wins / (wins + losses) if wins + losses else None,
        }
    return {
        "game": "knucklebones",
        "engine": engine,
        "seed": seed,
        "games": games,
        "players": {"p1": players[0], "p2": players[1]},
        "first_player_wins": first_wins,
        "second_player_wins": second_wins,
        "draws": draws,
        "mean_turns": lengths["mean"],
        "first_player_advantage": first_player_advantage(first_wins, second_wins, draws),
        "turns": lengths,
        "first_move_column": columns,
        "per_player": per_player,
    }


# ---------------------------------------------------------------------------------------
# Scalar path: one game at a time through the engine's step
# ---------------------------------------------------------------------------------------


def play_game(
    first: int,
    rng: random.Random,
    choosers: Sequence[Chooser | None] = (None, None),
) -> tuple[int, int, int, int, int]:
    """Play one game from an empty board; ``choosers[seat]`` picks that seat's columns.

    Returns ``(winner seat or -1 for a draw, turns, first move's column, score 0, score 1)``.
    One ``rng.random()`` per turn gives the die (its integer part times six) and, for a
    random player, a uniform open column (the leftover fraction).
    """
    position = [0, 0, 0, 0, 0, 0]
    filled = [0, 0]
    full_mask = [0, 0]  # bit c set when that seat's column c is full
    rnd = rng.random
    step = kb.step
    size = kb.COLUMN_SIZE
    open_columns = kb.OPEN_COLUMNS
    player = first
    turns = 0
    first_column = -1
    while True:
        roll = rnd() * 6.0
        whole = int(roll)
        face = whole + 1
        chooser = choosers[player]
        if chooser is None:
            mask = full_mask[player]
            if mask:
                columns = open_columns[mask]
                column = columns[int((roll - whole) * len(columns))]
            else:
                column = int((roll - whole) * 3)
        else:
            column = chooser(position, player, face, rng)
        removed = step(position, player, column, face)
        turns += 1
        if turns == 1:
            first_column = column
        count = filled[player] + 1
        if count == kb.GRID_SIZE:
            score = kb.COLUMN_SCORE
            s0 = score[position[0]] + score[position[1]] + score[position[2]]
            s1 = score[position[3]] + score[position[4]] + score[position[5]]
            winner = 0 if s0 > s1 else 1 if s1 > s0 else -1
            return winner, turns, first_column, s0, s1
        filled[player] = count
        if size[position[3 * player + column]] == kb.SLOTS:
            full_mask[player] |= 1 << column
        if removed:
            other = 1 - player
            filled[other] -= removed
            full_mask[other] &= ~(1 << column)
        player = 1 - player


def make_chooser(strategy: str) -> Chooser | None:
    """The chooser for a named strategy; ``None`` (the fast inline path) for random/easy."""
    if strategy in ("random", "easy"):
        return None
    if strategy not in PLAYER_CHOICES:
        raise ValueError(f"unknown player {strategy!r}; choose from {', '.join(PLAYER_CHOICES)}")
    return functools.partial(_choose, level=strategy)


def _choose(position: list[int], player: int, die: int, rng: random.Random, *, level: str) -> int:
    return ai.choose_for_position(position, player, die, level, rng)


def _chunk_seed(seed: int, chunk: int) -> int:
    return seed * 1_000_003 + chunk


def _play_chunk(
    players: tuple[str, str],
    seed: int,
    chunk: int,
    start: int,
    count: int,
    alternate: bool,
    on_game: Callable[[], None] | None = None,
) -> tuple[list[int], list[int], list[int], list[int]]:
    """Games ``start .. start+count-1``: P1 moves first in even games when alternating.

    ``on_game`` is called after every game (the in-process progress bar: a block of 1,000
    games between two hard players takes over a minute).
    """
    rng = random.Random(_chunk_seed(seed, chunk))
    seat_choosers = (make_chooser(players[0]), make_chooser(players[1]))
    outcomes, lengths, columns, p1_first = [], [], [], []
    for index in range(start, start + count):
        first = index % 2 if alternate else 0
        winner, turns, column, _, _ = play_game(first, rng, seat_choosers)
        outcomes.append(2 if winner < 0 else 0 if winner == first else 1)
        lengths.append(turns)
        columns.append(column)
        p1_first.append(1 if first == 0 else 0)
        if on_game is not None:
            on_game()
    return outcomes, lengths, columns, p1_first


def simulate_games(
    p1: str,
    p2: str,
    games: int,
    seed: int,
    *,
    alternate: bool = True,
    workers: int = 1,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Scalar simulation of ``games`` games between two strategies (any of PLAYER_CHOICES).

    Deterministic in ``seed`` whatever ``workers`` is: each block of games has its own rng.
    """
    for strategy in (p1, p2):
        make_chooser(strategy)  # validates the name early
    chunks = [
        (chunk, start, min(_CHUNK, games - start))
        for chunk, start in enumerate(range(0, games, _CHUNK))
    ]
    tally = _Tally()

    def absorb(
        parts: Iterable[tuple[list[int], list[int], list[int], list[int]]], *, counted: bool
    ) -> None:
        for outcome, turns, column, p1_first in parts:
            tally.add(
                np.asarray(outcome, dtype=np.int64),
                np.asarray(turns, dtype=np.int64),
                np.asarray(column, dtype=np.int64),
                np.asarray(p1_first, dtype=np.int64),
            )
            if progress is not None and not counted:
                progress.advance(len(outcome))

    jobs = [((p1, p2), seed, chunk, start, count, alternate) for chunk, start, count in chunks]
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            absorb(pool.map(_play_chunk_star, jobs), counted=False)
    else:
        on_game = progress.advance if progress is not None else None
        absorb((_play_chunk(*job, on_game) for job in jobs), counted=True)
    return summarise(tally, players=(p1, p2), seed=seed, engine="scalar")


def _play_chunk_star(
    job: tuple[tuple[str, str], int, int, int, int, bool],
) -> tuple[list[int], list[int], list[int], list[int]]:
    return _play_chunk(*job)


# ---------------------------------------------------------------------------------------
# Vectorised path: random vs random, many games in lock-step
# ---------------------------------------------------------------------------------------

# Multiset column tables (order inside a column does not matter for any statistic here).
_MS_FACES = [
    column
    for length in range(kb.SLOTS + 1)
    for column in sorted({tuple(sorted(c)) for c in kb.COLUMNS if len(c) == length})
]
_MS_ID = {column: index for index, column in enumerate(_MS_FACES)}
_V_SIZE = np.array([len(c) for c in _MS_FACES], dtype=np.int8)
_V_SCORE = np.array([kb.COLUMN_SCORE[kb.COLUMN_ID[c]] for c in _MS_FACES], dtype=np.int16)
_V_ADD = np.array(
    [
        _MS_ID[tuple(sorted((*c, face)))] if len(c) < kb.SLOTS and face else 0
        for c in _MS_FACES
        for face in range(kb.FACES + 1)
    ],
    dtype=np.int16,
)
_V_STRIP = np.array(
    [_MS_ID[tuple(d for d in c if d != face)] for c in _MS_FACES for face in range(kb.FACES + 1)],
    dtype=np.int16,
)


def _simulate_batch(
    count: int, generator: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` random games, seat 0 moving first. Returns (outcome, turns, first column)."""
    cols = [np.zeros(count, dtype=np.int16) for _ in range(6)]
    filled = [np.zeros(count, dtype=np.int8), np.zeros(count, dtype=np.int8)]
    ids = np.arange(count)
    outcome = np.empty(count, dtype=np.int64)
    turns = np.empty(count, dtype=np.int64)
    first_column = np.empty(count, dtype=np.int64)
    mover = 0
    turn = 0
    while len(ids):
        turn += 1
        other = 1 - mover
        roll = generator.random(len(ids)) * 6.0
        whole = roll.astype(np.int16)
        fraction = roll - whole
        face = whole + 1
        own = cols[3 * mover : 3 * mover + 3]
        opp = cols[3 * other : 3 * other + 3]
        open0 = _V_SIZE[own[0]] < kb.SLOTS
        open1 = _V_SIZE[own[1]] < kb.SLOTS
        open2 = _V_SIZE[own[2]] < kb.SLOTS
        n_open = open0.astype(np.int8) + open1 + open2
        pick = (fraction * n_open).astype(np.int8)
        # The pick-th open column (0-based) among the open ones.
        column = np.where(open0 & (pick == 0), 0, np.where(open1 & (pick == open0), 1, 2))
        if turn == 1:
            first_column[ids] = column
        is0, is1, is2 = column == 0, column == 1, column == 2
        chosen = np.where(is0, own[0], np.where(is1, own[1], own[2]))
        grown = _V_ADD[chosen.astype(np.int32) * 7 + face]
        base = 3 * mover
        cols[base] = np.where(is0, grown, own[0])
        cols[base + 1] = np.where(is1, grown, own[1])
        cols[base + 2] = np.where(is2, grown, own[2])
        facing = np.where(is0, opp[0], np.where(is1, opp[1], opp[2]))
        stripped = _V_STRIP[facing.astype(np.int32) * 7 + face]
        removed = _V_SIZE[facing] - _V_SIZE[stripped]
        base = 3 * other
        cols[base] = np.where(is0, stripped, opp[0])
        cols[base + 1] = np.where(is1, stripped, opp[1])
        cols[base + 2] = np.where(is2, stripped, opp[2])
        filled[mover] = filled[mover] + np.int8(1)
        filled[other] = filled[other] - removed
        done = filled[mover] == kb.GRID_SIZE
        if done.any():
            score0 = _V_SCORE[cols[0][done]] + _V_SCORE[cols[1][done]] + _V_SCORE[cols[2][done]]
            score1 = _V_SCORE[cols[3][done]] + _V_SCORE[cols[4][done]] + _V_SCORE[cols[5][done]]
            finished = ids[done]
            # Seat 0 moved first in every game of the batch.
            outcome[finished] = np.where(score0 > score1, 0, np.where(score1 > score0, 1, 2))
            turns[finished] = turn
            keep = ~done
            ids = ids[keep]
            cols = [c[keep] for c in cols]
            filled = [f[keep] for f in filled]
        mover = other
    return outcome, turns, first_column


def simulate_random_games(
    games: int, seed: int, progress: Progress | None = None
) -> dict[str, Any]:
    """Random vs random, vectorised with NumPy: the same report as ``simulate_games``.

    Pure of ``(games, seed)``, so callers (the bot's ``/odds knucklebones``) may cache it.
    Both players pick a uniformly random open column, exactly as the scalar "random"
    player does; named player P1 moves first in the even-numbered games.
    """
    if games < 0:
        raise ValueError("games must be zero or more")
    generator = np.random.default_rng(seed)
    tally = _Tally()
    for start in range(0, games, _VECTOR_BATCH):
        count = min(_VECTOR_BATCH, games - start)
        outcome, turns, first_column = _simulate_batch(count, generator)
        p1_first = ((np.arange(start, start + count) % 2) == 0).astype(np.int64)
        tally.add(outcome, turns, first_column, p1_first)
        if progress is not None:
            progress.advance(count)
    return summarise(tally, players=("random", "random"), seed=seed, engine="vectorised")


@functools.lru_cache(maxsize=8)
def _cached_random_json(games: int, seed: int) -> str:
    return json.dumps(simulate_random_games(games, seed))


def cached_random_summary(games: int = 200_000, seed: int = 0) -> dict[str, Any]:
    """``simulate_random_games`` memoised per process (a fresh copy on every call)."""
    report: dict[str, Any] = json.loads(_cached_random_json(games, seed))
    return report


# ---------------------------------------------------------------------------------------
# Stalling scenarios
# ---------------------------------------------------------------------------------------


def stall_scenarios(
    games: int,
    seed: int,
    *,
    opponent: str = "random",
    workers: int = 1,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Game length when nobody, the first, the second or both players drag the game out.

    Seats are fixed here (P1 always moves first) so "stall_first" and "stall_second" differ.
    ``opponent`` is the strategy of a player who is not stalling.
    """
    results: dict[str, Any] = {}
    for index, (name, (first, second)) in enumerate(SCENARIOS.items()):
        p1 = opponent if first == "random" else first
        p2 = opponent if second == "random" else second
        report = simulate_games(
            p1,
            p2,
            games,
            seed + index,
            alternate=False,
            workers=workers,
            progress=progress,
        )
        results[name] = {
            "players": report["players"],
            "mean_turns": report["mean_turns"],
            "turns": report["turns"],
            "first_player_wins": report["first_player_wins"],
            "second_player_wins": report["second_player_wins"],
            "draws": report["draws"],
        }
    return results


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------

STRATEGY_HELP = {
    "random": "a uniformly random open column",
    "easy": "the bot's easy AI, which is the same uniformly random open column",
    "medium": "the bot's medium AI: the best immediate score swing",
    "hard": "the bot's hard AI: a three-placement expectimax search (about 20 ms a game)",
    "stall": "not trying to win: drags the game out, for the game-length question",
}
HELP = (
    """Knucklebones by simulation: is moving first an advantage, how do the AI levels
compare, how long is a game, and how long when a player drags it out?

Two named players, P1 and P2, play --games games and take turns moving first (P1 moves
first in games 1, 3, 5, ...), so a player's own record mixes both seats; the "by turn
order" table counts the seats instead. Strategies for --players:
"""
    + "\n".join(f"  {name:<7} {what}" for name, what in STRATEGY_HELP.items())
    + """

Random and easy players use a NumPy simulation (a million games in about a second);
any other strategy plays each game through the engine, one process per --workers."""
)
EXAMPLES = [
    ("", "10,000 random games"),
    ("--games 1000000 --seed 1", "a million random games, ~1.5 s"),
    ("--players hard medium --games 2000 --workers 2", "hard vs medium, about a minute"),
    ("--scenarios --games 5000", "how long games last when a player stalls"),
]
DEFAULT_GAMES = 10_000
# Say how long a run will take when it is long enough to wonder whether it hangs.
ESTIMATE_FROM_SECONDS = 5.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games",
        type=positive_int,
        default=DEFAULT_GAMES,
        help=f"games to simulate (default {DEFAULT_GAMES:,})",
    )
    parser.add_argument(
        "--players",
        nargs=2,
        metavar=("P1", "P2"),
        default=["random", "random"],
        choices=PLAYER_CHOICES,
        help=f"the two players' strategies, from {', '.join(PLAYER_CHOICES)} (default "
        "random random); they alternate who moves first",
    )
    parser.add_argument(
        "--scenarios",
        action="store_true",
        help="also measure game length when the first, the second or both players stall "
        "(the same number of games for each)",
    )
    parser.add_argument(
        "--scenario-opponent",
        default="random",
        choices=[c for c in PLAYER_CHOICES if c != "stall"],
        help="strategy of the player who is not stalling in --scenarios (default random)",
    )
    parser.add_argument(
        "--scalar",
        action="store_true",
        help="play random vs random through the engine one game at a time instead of NumPy "
        "(a cross-check of the NumPy path; much slower)",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="processes for the engine path (default 1; results do not depend on it)",
    )


def estimated_seconds(args: argparse.Namespace) -> float:
    """Rough wall-clock seconds for a run: only to decide on a bar and an estimate line."""
    p1, p2 = args.players
    per_game = (
        _VECTORISED_GAME_SECONDS
        if _vectorised(p1, p2, args.scalar)
        else _SEAT_SECONDS[p1] + _SEAT_SECONDS[p2]
    )
    seconds = args.games * per_game
    if args.scenarios:
        for first, second in SCENARIOS.values():
            for strategy in (first, second):
                name = args.scenario_opponent if strategy == "random" else strategy
                seconds += args.games * _SEAT_SECONDS[name]
    return seconds / max(1, args.workers)


def _vectorised(p1: str, p2: str, scalar: bool) -> bool:
    return p1 in ("random", "easy") and p2 in ("random", "easy") and not scalar


def run(args: argparse.Namespace) -> dict[str, Any]:
    seed: int = args.seed  # main() draws one when --seed is not given
    p1, p2 = args.players
    vectorised = _vectorised(p1, p2, args.scalar)
    scenario_games = args.games if args.scenarios else 0
    total = args.games + 4 * scenario_games
    seconds = estimated_seconds(args)
    if not args.no_progress and seconds >= ESTIMATE_FROM_SECONDS:
        sys.stderr.write(f"knucklebones: this run takes about {_duration(seconds)}\n")
        sys.stderr.flush()
    show = not args.no_progress and seconds >= 1.0
    with Progress(total, "knucklebones", enabled=show) as progress:
        if vectorised:
            report = simulate_random_games(args.games, seed, progress)
            report["players"] = {"p1": p1, "p2": p2}
            report["per_player"]["p1"]["strategy"] = p1
            report["per_player"]["p2"]["strategy"] = p2
        else:
            report = simulate_games(
                p1, p2, args.games, seed, workers=args.workers, progress=progress
            )
        if args.scenarios:
            report["scenarios"] = stall_scenarios(
                args.games,
                seed,
                opponent=args.scenario_opponent,
                workers=args.workers,
                progress=progress,
            )
    return report


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{5 * round(seconds / 5):.0f} s"
    return f"{round(seconds / 60):.0f} min"


def render(report: dict[str, Any]) -> str:
    advantage = report["first_player_advantage"]
    players = report["players"]
    engine = "NumPy (vectorised)" if report["engine"] == "vectorised" else "engine, game by game"
    games = report["games"]
    lines = [
        f"Knucklebones: {games:,} games, {players['p1']} (P1) vs {players['p2']} (P2), "
        f"seed {report['seed']}, {engine}",
        "P1 and P2 take turns moving first (P1 in games 1, 3, 5, ...).",
        "",
        "Who wins, by turn order",
        *table(
            [Column("result", "<"), Column("games"), Column("share")],
            [
                [
                    "player moving first wins",
                    f"{report['first_player_wins']:,}",
                    percent(advantage["win_rate_all"]),
                ],
                [
                    "player moving second wins",
                    f"{report['second_player_wins']:,}",
                    percent(advantage["second_win_rate_all"]),
                ],
                ["draw", f"{report['draws']:,}", percent(advantage["draw_rate"])],
            ],
            [
                (
                    "result",
                    "counted by seat: the first player placed the first die, be it P1 or P2",
                ),
                ("games, share", f"how many of the {games:,} games, and their share"),
            ],
        ),
        "",
        f"Moving first wins {percent(advantage['win_rate_decided'])} of decided games (95% CI "
        f"{percent(advantage['ci95_decided'][0])} to {percent(advantage['ci95_decided'][1])}): "
        + (
            "a real advantage (the interval leaves out 50%)."
            if advantage["significant"]
            else "no clear advantage (the interval includes 50%)."
        ),
        "",
        "Who wins, by named player (each moved first in half the games)",
    ]
    rows = []
    for name in ("p1", "p2"):
        row = report["per_player"][name]
        rows.append(
            [
                f"{name.upper()} {row['strategy']}",
                f"{row['wins']:,}",
                f"{row['losses']:,}",
                f"{row['draws']:,}",
                percent(row["win_rate_decided"]),
            ]
        )
    lines += table(
        [
            Column("player", "<"),
            Column("wins"),
            Column("losses"),
            Column("draws"),
            Column("win rate"),
        ],
        rows,
        [
            ("player", "P1 or P2 and its strategy (--players)"),
            ("wins, losses, draws", "that player's games, in either seat"),
            ("win rate", "wins / (wins + losses), draws left out: 50% between equals"),
        ],
    )
    lines += ["", "The first die's column and the first player's result"]
    lines += table(
        [Column("column", "<"), Column("games"), Column("first player wins")],
        [
            [str(int(column) + 1), f"{row['games']:,}", percent(row["win_rate"])]
            for column, row in report["first_move_column"].items()
        ],
        [
            ("column", "where the first player put the first die (1 = left)"),
            ("games", "games that opened in that column"),
            ("first player wins", "share of those games the first player won"),
        ],
    )
    lines += [
        "",
        _render_lengths("Game length in turns (one turn = one die placed)", report["turns"]),
    ]
    for name, scenario in report.get("scenarios", {}).items():
        lines += [
            "",
            _render_lengths(
                f"Scenario {name} ({scenario['players']['p1']} first, "
                f"{scenario['players']['p2']} second)",
                scenario["turns"],
            ),
        ]
    return "\n".join(lines)


def _render_lengths(title: str, turns: dict[str, Any]) -> str:
    if turns["mean"] is None:
        return f"{title}: no games"
    percentiles = turns["percentiles"]
    lines = [
        f"{title}: mean {turns['mean']:.2f}, standard deviation {turns['stdev']:.2f}, "
        f"min {turns['min']}, max {turns['max']}",
        "  percentiles: "
        + ", ".join(f"{name} {value}" for name, value in percentiles.items())
        + " (pN: N% of games are over by then)",
    ]
    histogram = {int(t): n for t, n in turns["histogram"].items()}
    total = sum(histogram.values())
    biggest = max(histogram.values())
    for length in range(min(histogram), min(max(histogram), percentiles["p99"]) + 1):
        count = histogram.get(length, 0)
        bar = "#" * round(40 * count / biggest)
        lines.append(f"  {length:>4} {100 * count / total:5.1f}% {bar}")
    if max(histogram) > percentiles["p99"]:
        lines.append(f"  (longer games, up to {max(histogram)} turns: 1% or less)")
    return "\n".join(lines)
