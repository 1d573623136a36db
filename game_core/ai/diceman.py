"""Diceman computer player and the exact numbers behind it.

Every table here is exact: each pair of two-die combinations is resolved for every roll
outcome (at most 80 x 80 = 6,400 per pair, 80,656 in all) with ``phase_damage``, the
event-free twin of ``resolve_round`` (the tests check they agree on all of them).

* :func:`matchup_table` - for each pair of combos: P(row deals more / less / the same damage
  as the column), expected damage dealt, received and the balance (exact fractions).
* :func:`equilibrium` - the optimal mix of the one-round game whose payoff is the expected
  damage balance, and its value (0: the game is symmetric).
* :func:`kill_aware_table` - the same pairs at given life totals: P(row kills and survives),
  P(row dies), P(both die), P(nobody dies).
* :func:`round_strategy` - what the AI plays: the equilibrium of the one-round game whose
  payoff is the expected *win value* after the round: +1 for a win, -1 for a loss, 0 for a
  draw, and, when nobody dies, the solved value of the new life totals. Those values come
  from solving the whole duel (a stochastic game over life totals) backwards from low life,
  so near a kill the AI plays for the kill or for survival rather than for raw damage. On the
  last round before the round cap the continuation is the cap's verdict (higher life wins).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any

import numpy as np

from game_core.ai.zero_sum import exploitability, sample, solve_matrix_game
from game_core.diceman import COMBOS, SIDES, START_LIFE, DicemanState, faces_of, phase_damage
from game_core.errors import IllegalMove

Combo = tuple[str, str]
# (damage to row, damage to column) in the first acting phase, then in the second.
PhaseKey = tuple[int, int, int, int]


def combo_index(combo: Sequence[str]) -> int:
    """Index of a two-die combo in ``COMBOS`` whatever order its names come in."""
    wanted = set(combo)
    for index, candidate in enumerate(COMBOS):
        if set(candidate) == wanted and len(combo) == 2:
            return index
    raise IllegalMove(f"{tuple(combo)!r} is not a pair of two different Diceman dice.")


@lru_cache(maxsize=1)
def pair_outcomes() -> tuple[tuple[tuple[tuple[PhaseKey, int], ...], ...], ...]:
    """For each (row combo, column combo): the distinct phase-damage outcomes and how many of
    the equally likely roll outcomes give each. Row is player 0."""
    faces_by_combo = [
        [faces_of(combo, faces) for faces in product(*(range(1, SIDES[d] + 1) for d in combo))]
        for combo in COMBOS
    ]
    table = []
    for row_faces in faces_by_combo:
        line = []
        for column_faces in faces_by_combo:
            counts: Counter[PhaseKey] = Counter()
            for a in row_faces:
                for b in column_faces:
                    (x0, x1), (y0, y1) = phase_damage(a, b)
                    counts[(x0, x1, y0, y1)] += 1
            line.append(tuple(sorted(counts.items())))
        table.append(tuple(line))
    return tuple(table)


def outcome_count(row: int, column: int) -> int:
    return sum(count for _, count in pair_outcomes()[row][column])


@dataclass(frozen=True)
class Matchup:
    """One cell of the exact table, from the row combo's point of view."""

    row: Combo
    column: Combo
    p_more: Fraction  # row deals more damage than it receives
    p_less: Fraction
    p_equal: Fraction
    dealt: Fraction  # expected damage the row deals
    received: Fraction

    @property
    def balance(self) -> Fraction:
        return self.dealt - self.received

    def to_dict(self) -> dict[str, Any]:
        return {
            "row": list(self.row),
            "column": list(self.column),
            "p_more": float(self.p_more),
            "p_less": float(self.p_less),
            "p_equal": float(self.p_equal),
            "dealt": float(self.dealt),
            "received": float(self.received),
            "balance": float(self.balance),
        }


@dataclass(frozen=True)
class MatchupTable:
    combos: tuple[Combo, ...]
    entries: tuple[tuple[Matchup, ...], ...]  # entries[row][column]

    def get(self, row: Sequence[str], column: Sequence[str]) -> Matchup:
        return self.entries[combo_index(row)][combo_index(column)]

    def balance_matrix(self) -> list[list[Fraction]]:
        return [[cell.balance for cell in line] for line in self.entries]


@lru_cache(maxsize=1)
def matchup_table() -> MatchupTable:
    """The exact 6x6 table over the two-die combos (ignoring deaths: whole rounds)."""
    entries = []
    for i, row_combo in enumerate(COMBOS):
        line = []
        for j, column_combo in enumerate(COMBOS):
            total = more = less = dealt = received = 0
            for (x0, x1, y0, y1), count in pair_outcomes()[i][j]:
                to_row, to_column = x0 + y0, x1 + y1
                total += count
                dealt += to_column * count
                received += to_row * count
                if to_column > to_row:
                    more += count
                elif to_column < to_row:
                    less += count
            line.append(
                Matchup(
                    row=row_combo,
                    column=column_combo,
                    p_more=Fraction(more, total),
                    p_less=Fraction(less, total),
                    p_equal=Fraction(total - more - less, total),
                    dealt=Fraction(dealt, total),
                    received=Fraction(received, total),
                )
            )
        entries.append(tuple(line))
    return MatchupTable(combos=COMBOS, entries=tuple(entries))


@dataclass(frozen=True)
class Equilibrium:
    """An optimal mix over ``COMBOS`` with the game's value and the (checked) gap."""

    mix: dict[Combo, Fraction]
    value: Fraction
    exploitability: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {
            "mix": [{"combo": list(c), "probability": float(p)} for c, p in self.mix.items()],
            "value": float(self.value),
            "exploitability": float(self.exploitability),
        }


@lru_cache(maxsize=1)
def equilibrium() -> Equilibrium:
    """The exact equilibrium of the one-round game with payoff = expected damage balance."""
    matrix = matchup_table().balance_matrix()
    solution = solve_matrix_game(matrix)
    gap = exploitability(matrix, solution.row, solution.column)
    return Equilibrium(
        mix=dict(zip(COMBOS, solution.row, strict=True)), value=solution.value, exploitability=gap
    )


# --------------------------------------------------------------------------------------
# Kill-aware play
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _FlatOutcomes:
    """Every pair's outcomes in flat NumPy arrays (the all-zero outcome kept apart)."""

    pair: np.ndarray  # row * 6 + column
    first_to_row: np.ndarray
    first_to_column: np.ndarray
    total_to_row: np.ndarray
    total_to_column: np.ndarray
    weight: np.ndarray  # probability within its pair
    stall: np.ndarray  # 6x6: probability that nobody takes any damage


@lru_cache(maxsize=1)
def _flat() -> _FlatOutcomes:
    pair, first_row, first_column, total_row, total_column, weight = [], [], [], [], [], []
    stall = np.zeros((6, 6))
    for i in range(6):
        for j in range(6):
            outcomes = pair_outcomes()[i][j]
            total = outcome_count(i, j)
            for (x0, x1, y0, y1), count in outcomes:
                if x0 + y0 == 0 and x1 + y1 == 0:
                    stall[i, j] += count / total
                    continue
                pair.append(i * 6 + j)
                first_row.append(x0)
                first_column.append(x1)
                total_row.append(x0 + y0)
                total_column.append(x1 + y1)
                weight.append(count / total)
    return _FlatOutcomes(
        pair=np.array(pair),
        first_to_row=np.array(first_row),
        first_to_column=np.array(first_column),
        total_to_row=np.array(total_row),
        total_to_column=np.array(total_column),
        weight=np.array(weight),
        stall=stall,
    )


def _round_payoffs(
    life: int, opponent: int, continuation: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per pair: expected win value of the non-stalling outcomes (continuation[a, b] is the
    value of surviving with life a against b), and the probabilities of win, loss, draw."""
    flat = _flat()
    row_first = flat.first_to_row >= life
    column_first = flat.first_to_column >= opponent
    early = row_first | column_first
    row_dead = np.where(early, row_first, flat.total_to_row >= life)
    column_dead = np.where(early, column_first, flat.total_to_column >= opponent)
    decided = row_dead | column_dead
    left_row = np.maximum(life - flat.total_to_row, 0)
    left_column = np.maximum(opponent - flat.total_to_column, 0)
    value = np.where(
        decided,
        column_dead.astype(float) - row_dead.astype(float),
        continuation[left_row, left_column],
    )

    def per_pair(weights: np.ndarray) -> np.ndarray:
        return np.bincount(flat.pair, weights=weights, minlength=36).reshape(6, 6)

    win = per_pair(flat.weight * (column_dead & ~row_dead))
    loss = per_pair(flat.weight * (row_dead & ~column_dead))
    draw = per_pair(flat.weight * (row_dead & column_dead))
    return per_pair(flat.weight * value), win, loss, draw


@dataclass(frozen=True)
class KillAwareMatchup:
    row: Combo
    column: Combo
    p_win: float  # the row kills the column and survives this round
    p_loss: float
    p_draw: float  # both die in the same phase
    p_continue: float


def kill_aware_table(life: tuple[int, int]) -> list[list[KillAwareMatchup]]:
    """Who dies this round, per pair of combos, at life totals (row, column)."""
    mine, theirs = _check_lives(life)
    dummy = np.zeros((mine + 1, theirs + 1))
    _, win, loss, draw = _round_payoffs(mine, theirs, dummy)
    return [
        [
            KillAwareMatchup(
                row=COMBOS[i],
                column=COMBOS[j],
                p_win=float(win[i, j]),
                p_loss=float(loss[i, j]),
                p_draw=float(draw[i, j]),
                p_continue=float(1 - win[i, j] - loss[i, j] - draw[i, j]),
            )
            for j in range(6)
        ]
        for i in range(6)
    ]


def _check_lives(life: Sequence[int]) -> tuple[int, int]:
    if len(life) != 2 or any(not isinstance(v, int) or isinstance(v, bool) for v in life):
        raise IllegalMove("Life totals must be two whole numbers.")
    if min(life) <= 0:
        raise IllegalMove("Both players must be alive.")
    return life[0], life[1]


def _solve_with_stall(base: np.ndarray, stall: np.ndarray) -> tuple[float, list[float]]:
    """Solve v = val(base + stall * v): the value of a position that a round may leave
    unchanged. ``f(v) = val(base + stall v) - v`` falls with slope in [-1, 0], so a
    Newton step on the current equilibrium, guarded by bisection, finds the root."""
    low, high = -1.0, 1.0
    guess = 0.0
    strategy: list[float] = []
    for _ in range(100):
        matrix = (base + stall * guess).tolist()
        solution = solve_matrix_game(matrix)
        strategy = solution.row
        gap = solution.value - guess
        if abs(gap) < 1e-12:
            break
        if gap > 0:
            low = guess
        else:
            high = guess
        held = float(np.asarray(solution.row) @ stall @ np.asarray(solution.column))
        step = guess + gap / (1.0 - held) if held < 1.0 - 1e-9 else (low + high) / 2
        guess = step if low < step < high else (low + high) / 2
    return guess, strategy


@dataclass(frozen=True)
class PositionValues:
    """The solved duel without the round cap: ``value[a, b]`` is P(win) - P(loss) for the
    player on ``a`` life against ``b`` under optimal play; ``strategy[(a, b)]`` their mix."""

    limit: int
    value: np.ndarray
    strategy: dict[tuple[int, int], list[float]]


@lru_cache(maxsize=4)
def position_values(limit: int = START_LIFE) -> PositionValues:
    """Solve every position with both lives in 1..limit, lowest total life first (a round
    never raises life, and only the all-zero outcome keeps a position where it is)."""
    stall = _flat().stall
    value = np.zeros((limit + 1, limit + 1))
    strategy: dict[tuple[int, int], list[float]] = {}
    for total in range(2, 2 * limit + 1):
        for mine in range(max(1, total - limit), min(limit, total - 1) + 1):
            theirs = total - mine
            if theirs < mine:
                continue  # filled in from the mirror position below
            base, *_ = _round_payoffs(mine, theirs, value)
            v, mix = _solve_with_stall(base, stall)
            value[mine, theirs] = v
            strategy[(mine, theirs)] = mix
            if theirs != mine:
                mirrored, *_ = _round_payoffs(theirs, mine, value)
                mirrored_value, mirrored_mix = _solve_with_stall(mirrored, stall)
                value[theirs, mine] = mirrored_value
                strategy[(theirs, mine)] = mirrored_mix
    return PositionValues(limit=limit, value=value, strategy=strategy)


def round_strategy(life: tuple[int, int], rounds_left: int | None = None) -> dict[Combo, float]:
    """The AI's mix at life totals (own, opponent's) with ``rounds_left`` rounds to play
    including this one (``None``: no cap in sight)."""
    mine, theirs = _check_lives(life)
    limit = max(START_LIFE, mine, theirs)
    solved = position_values(limit)
    if rounds_left is not None and rounds_left <= 1:
        # The cap ends the game after this round: surviving with more life wins.
        sizes = np.arange(limit + 1)
        verdict = np.sign(sizes[:, None] - sizes[None, :]).astype(float)
        base, *_ = _round_payoffs(mine, theirs, verdict)
        stall_value = float(np.sign(mine - theirs))
        matrix = (base + _flat().stall * stall_value).tolist()
        mix = solve_matrix_game(matrix).row
    else:
        mix = solved.strategy[(mine, theirs)]
    return dict(zip(COMBOS, mix, strict=True))


def choose_dice(state: DicemanState, player: int, rng: random.Random) -> list[str]:
    """The two dice the AI locks in for ``player``: a draw from the equilibrium mix."""
    if state.phase == "finished" or state.choices[player] is not None:
        raise IllegalMove("The AI has nothing to choose now.")
    life = (state.life[player], state.life[1 - player])
    mix = round_strategy(life, state.max_rounds - state.round + 1)
    combo = COMBOS[sample(list(mix.values()), rng.random())]
    return list(combo)
