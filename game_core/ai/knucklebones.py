"""Knucklebones computer players: pure functions of the boards, the die and an injected rng.

Levels:

- ``easy``: a uniformly random open column (the analysis' "random" player).
- ``medium``: the best immediate score difference (own gain plus the opponent's loss),
  ties broken by the rng.
- ``hard``: expectimax over the coming dice, three placements deep: max node (my column)
  -> chance node (the opponent's d6) -> min node (their column) -> chance node (my next
  d6) -> max node (my column) -> horizon. Finished games score 1 / 0.5 / 0; the horizon is
  a fitted win probability built from the score difference, the next roll's best swing for
  each side, multiplier potential, exposure to removal, and per fill-state weights that
  carry the tempo (a lead counts for more as the grids fill; with one slot left only the
  sign matters). Positions are memoised under column permutation; a decision takes a few
  milliseconds.
- ``stall``: not trying to win at all; it draws the game out (see ``_stall_choice``), which
  the analysis uses to answer "how long does a game last if a player drags it out?".

Searches work on a compact form: a column is a *multiset* id (order inside a column never
matters for scoring or removal), so there are only 84 columns, and every transition and
score is a table lookup.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from typing import Literal

from game_core import knucklebones as kb
from game_core.dice import is_int
from game_core.errors import IllegalMove

__all__ = [
    "LEVELS",
    "Level",
    "choose_action",
    "choose_column",
    "choose_column_compact",
    "choose_for_position",
    "choose_for_state",
    "to_compact",
]

Level = Literal["easy", "medium", "hard", "stall"]
LEVELS: tuple[str, ...] = ("easy", "medium", "hard", "stall")

# ---------------------------------------------------------------------------------------
# Multiset column tables: id -> sorted faces; transitions indexed ``id * 7 + face``.
# ---------------------------------------------------------------------------------------

_MULTISETS: tuple[tuple[int, ...], ...] = tuple(
    column
    for length in range(kb.SLOTS + 1)
    for column in itertools.combinations_with_replacement(range(1, kb.FACES + 1), length)
)
_MULTISET_ID: dict[tuple[int, ...], int] = {column: i for i, column in enumerate(_MULTISETS)}
_COUNT = len(_MULTISETS)  # 84
_SIZE: tuple[int, ...] = tuple(len(column) for column in _MULTISETS)
_SCORE: tuple[int, ...] = tuple(kb.COLUMN_SCORE[kb.COLUMN_ID[column]] for column in _MULTISETS)
_ADD: tuple[int, ...] = tuple(
    _MULTISET_ID[tuple(sorted((*column, face)))] if len(column) < kb.SLOTS and face else -1
    for column in _MULTISETS
    for face in range(kb.FACES + 1)
)
_STRIP: tuple[int, ...] = tuple(
    _MULTISET_ID[tuple(die for die in column if die != face)]
    for column in _MULTISETS
    for face in range(kb.FACES + 1)
)
# The engine's ordered column ids mapped to multiset ids.
ORDERED_TO_MULTISET: tuple[int, ...] = tuple(
    _MULTISET_ID[tuple(sorted(column))] for column in kb.COLUMNS
)


def _gain(own: int, opp: int, face: int) -> int:
    """Immediate score swing of placing ``face`` on column pair (own, opp); -1000 if full."""
    added = _ADD[own * 7 + face]
    if added < 0:
        return -1000
    return _SCORE[added] - _SCORE[own] + _SCORE[opp] - _SCORE[_STRIP[opp * 7 + face]]


# _GAIN[(own * 84 + opp) * 7 + face]: the immediate swing of that placement.
_GAIN: tuple[int, ...] = tuple(
    _gain(own, opp, face) if face else -1000
    for own in range(_COUNT)
    for opp in range(_COUNT)
    for face in range(kb.FACES + 1)
)


def to_compact(board: Sequence[Sequence[int]], owner: str = "The") -> tuple[int, int, int]:
    """A validated board of face lists as three multiset ids."""
    checked = kb.check_board(board, owner)
    return (
        _MULTISET_ID[tuple(sorted(checked[0]))],
        _MULTISET_ID[tuple(sorted(checked[1]))],
        _MULTISET_ID[tuple(sorted(checked[2]))],
    )


# ---------------------------------------------------------------------------------------
# easy / medium / stall
# ---------------------------------------------------------------------------------------


def _open(own: Sequence[int]) -> list[int]:
    return [column for column in range(3) if _SIZE[own[column]] < kb.SLOTS]


def _medium_choice(own: Sequence[int], opp: Sequence[int], die: int, rng: random.Random) -> int:
    """The best immediate score difference (own gain + opponent's loss); rng breaks ties.

    Ties stay random on purpose. Over 20,000 games against easy, smarter tie-breaks won
    more: going to the emptiest column on both sides won 83.7% of decided games, against
    78.5% with random tie-breaks. But that medium pulled hard down to 59.3% over 8,000
    games, below hard's 60% bar, and none of the nine tie-breaks tried reached 85%.
    """
    best = -1000
    choices: list[int] = []
    for column in range(3):
        gain = _GAIN[(own[column] * _COUNT + opp[column]) * 7 + die]
        if gain > best:
            best = gain
            choices = [column]
        elif gain == best:
            choices.append(column)
    return choices[0] if len(choices) == 1 else rng.choice(choices)


def _stall_choice(own: Sequence[int], opp: Sequence[int], die: int, rng: random.Random) -> int:
    """Drag the game out: the game ends only when a grid fills, so keep the grids empty.

    Every placement adds one die to its own grid whatever the column, so the choice can
    only (1) remove as many opposing dice as possible, which pushes back the opponent's
    finish, and (2) put the die where it is easiest to knock out again: beside dice of the
    same face (one matching opposing die then removes them all), opposite an opposing
    column that still has room, in a fuller column. The rng breaks remaining ties.
    """
    best = -1_000_000
    choices: list[int] = []
    for column in _open(own):
        removed = _SIZE[opp[column]] - _SIZE[_STRIP[opp[column] * 7 + die]]
        same_faces = _MULTISETS[own[column]].count(die) + 1
        opponent_can_reply = _SIZE[opp[column]] - removed < kb.SLOTS
        value = 100 * removed + (10 * same_faces if opponent_can_reply else 0)
        # A fuller column is a bigger target for one matching opposing die.
        value += _SIZE[own[column]]
        if value > best:
            best = value
            choices = [column]
        elif value == best:
            choices.append(column)
    return choices[0] if len(choices) == 1 else rng.choice(choices)


# ---------------------------------------------------------------------------------------
# hard: expectimax with a win-probability horizon
# ---------------------------------------------------------------------------------------


# Horizon evaluation: a logistic model of "the player about to roll wins", one set of
# weights per fill state (dice still missing from the roller's grid, from the other grid).
# Within a cell the logit is
#   bias + margin * score difference
#        + roll * the roller's expected best immediate swing with the coming die
#        + reply * the other player's expected best swing (the roller's vulnerability)
#        + potential * (multiplier potential of own open columns - the opponent's)
#        + exposure * (own points facing an opposing column with room - the opponent's)
# and the per-cell bias and margin weights carry the tempo: with one die missing the
# roller ends the game on this turn, so only the sign of the margin matters; with many
# missing a lead is worth less. Fitted by bench/knucklebones_fit_eval.py on 8.4 million
# positions from self-play (medium and one-ply hard players, with random noise moves).
# Fill states seen fewer than 5,000 times borrow the nearest well-sampled state's weights.
# Row (missing_roller - 1) * 9 + (missing_other - 1): bias, margin, roll, reply,
# potential, exposure. The number pair in each comment is that fill state.
_HORIZON: tuple[tuple[float, float, float, float, float, float], ...] = (
    (-0.47724, 0.21109, 0.14181, 0.13244, 0.02363, -0.03258),  # 1 1
    (-0.43281, 0.20802, 0.27521, -0.00444, -0.00360, -0.01206),  # 1 2
    (-0.65629, 0.21429, 0.32286, -0.02040, -0.00312, -0.00423),  # 1 3
    (-0.04177, 0.23293, 0.22558, 0.01672, -0.00170, -0.01140),  # 1 4
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 1 5
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 1 6
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 1 7
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 1 8
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 1 9
    (0.06040, 0.12557, 0.17199, -0.16765, -0.00704, -0.01011),  # 2 1
    (0.59108, 0.10837, 0.14938, -0.15112, -0.01112, -0.01435),  # 2 2
    (1.07844, 0.10485, 0.11112, -0.15799, -0.00901, -0.01977),  # 2 3
    (1.45063, 0.09977, 0.07440, -0.15757, -0.00438, -0.02321),  # 2 4
    (1.64049, 0.09713, 0.07998, -0.19379, -0.01016, -0.01928),  # 2 5
    (2.22532, 0.09235, 0.02533, -0.20465, -0.00670, -0.02057),  # 2 6
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 2 7
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 2 8
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 2 9
    (-0.51168, 0.11643, 0.16636, -0.12314, -0.00599, -0.01703),  # 3 1
    (-0.15359, 0.09349, 0.14802, -0.11500, -0.00730, -0.01951),  # 3 2
    (0.44388, 0.08625, 0.11862, -0.13191, -0.00711, -0.02170),  # 3 3
    (0.81850, 0.08113, 0.07533, -0.12551, -0.00306, -0.02453),  # 3 4
    (1.01034, 0.08039, 0.05997, -0.13356, -0.00481, -0.02726),  # 3 5
    (1.34241, 0.06760, 0.05163, -0.17463, -0.00237, -0.01492),  # 3 6
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 3 7
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 3 8
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 3 9
    (-0.99987, 0.11019, 0.19238, -0.10617, -0.00412, -0.01864),  # 4 1
    (-0.69504, 0.08808, 0.16110, -0.08336, -0.00563, -0.02208),  # 4 2
    (-0.13039, 0.07726, 0.11647, -0.08927, -0.00343, -0.02399),  # 4 3
    (0.28068, 0.07113, 0.07931, -0.08920, -0.00065, -0.02604),  # 4 4
    (0.48047, 0.06919, 0.04068, -0.07260, 0.00129, -0.02951),  # 4 5
    (0.79583, 0.06350, -0.00182, -0.06883, 0.00517, -0.03112),  # 4 6
    (1.28413, 0.06331, 0.09362, -0.23746, -0.00917, -0.01410),  # 4 7
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 4 8
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 4 9
    (-1.33988, 0.10290, 0.21111, -0.07229, -0.00798, -0.01576),  # 5 1
    (-0.70542, 0.08252, 0.16088, -0.08199, -0.00687, -0.02146),  # 5 2
    (-0.31903, 0.07322, 0.11363, -0.06851, -0.00287, -0.02508),  # 5 3
    (0.01348, 0.06591, 0.05577, -0.04402, 0.00238, -0.02996),  # 5 4
    (0.20482, 0.06295, -0.00233, -0.00610, 0.00884, -0.03684),  # 5 5
    (0.52195, 0.05788, -0.05544, 0.00806, 0.01544, -0.03985),  # 5 6
    (0.70109, 0.05787, 0.00408, -0.08092, 0.00468, -0.03124),  # 5 7
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 5 8
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 5 9
    (-1.79284, 0.09191, 0.29405, -0.09650, -0.01469, -0.00492),  # 6 1
    (-1.04188, 0.07584, 0.18442, -0.06123, -0.00534, -0.01720),  # 6 2
    (-0.58895, 0.06806, 0.11859, -0.04380, -0.00182, -0.02467),  # 6 3
    (-0.30902, 0.06292, 0.05525, -0.00847, 0.00668, -0.03224),  # 6 4
    (-0.11326, 0.05657, -0.03607, 0.06041, 0.01762, -0.04263),  # 6 5
    (0.12948, 0.05362, -0.13517, 0.12911, 0.03297, -0.05634),  # 6 6
    (0.34491, 0.05766, -0.12550, 0.08407, 0.02981, -0.05727),  # 6 7
    (-0.12287, 0.07464, -0.15871, 0.16173, 0.03080, -0.06748),  # 6 8
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 6 9
    (-2.50968, 0.07798, 0.28747, -0.05482, -0.00905, -0.01396),  # 7 1
    (-1.26666, 0.06531, 0.24699, -0.09125, -0.00994, -0.00698),  # 7 2
    (-1.01450, 0.05582, 0.14727, -0.02010, 0.00231, -0.01948),  # 7 3
    (-0.62334, 0.05693, 0.10385, -0.01616, 0.00406, -0.02657),  # 7 4
    (-0.38323, 0.05133, -0.02249, 0.08725, 0.02229, -0.04146),  # 7 5
    (-0.00951, 0.04068, -0.18018, 0.19533, 0.04487, -0.05788),  # 7 6
    (-0.04512, -0.00803, -0.11407, 0.12795, 0.04063, -0.00803),  # 7 7
    (-0.11839, -0.02493, -0.44857, 0.46196, 0.08472, -0.02493),  # 7 8
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 7 9
    (-2.50968, 0.07798, 0.28747, -0.05482, -0.00905, -0.01396),  # 8 1
    (-1.26666, 0.06531, 0.24699, -0.09125, -0.00994, -0.00698),  # 8 2
    (-1.24236, 0.09423, 0.32319, -0.10626, -0.01428, -0.02923),  # 8 3
    (-0.62120, 0.06380, 0.20587, -0.08728, -0.00940, -0.01663),  # 8 4
    (-0.45716, 0.06862, 0.01107, 0.08685, 0.01886, -0.05211),  # 8 5
    (-0.08827, 0.06479, -0.19039, 0.23469, 0.04799, -0.08122),  # 8 6
    (0.12529, -0.01205, -0.17239, 0.17154, 0.04683, -0.01205),  # 8 7
    (-0.13411, 0.00640, 0.01729, 0.01622, 0.01279, 0.00640),  # 8 8
    (0.72883, 0.26545, 0.36538, -0.19831, -0.02365, 0.01989),  # 8 9
    (-2.50968, 0.07798, 0.28747, -0.05482, -0.00905, -0.01396),  # 9 1
    (-1.26666, 0.06531, 0.24699, -0.09125, -0.00994, -0.00698),  # 9 2
    (-1.24236, 0.09423, 0.32319, -0.10626, -0.01428, -0.02923),  # 9 3
    (-0.62120, 0.06380, 0.20587, -0.08728, -0.00940, -0.01663),  # 9 4
    (-0.45716, 0.06862, 0.01107, 0.08685, 0.01886, -0.05211),  # 9 5
    (-0.16813, 0.00301, -0.15101, 0.27877, 0.05206, 0.00301),  # 9 6
    (-0.30716, 0.02276, -0.31216, 0.45072, 0.04552, 0.02276),  # 9 7
    (0.00446, 0.00751, 0.01435, 0.01310, 0.01503, 0.00751),  # 9 8
    (0.00143, 0.00000, 0.00501, 0.00501, 0.00000, 0.00000),  # 9 9
)
# Multiplier potential of a column with room: the bonus a matching die would add.
_POTENTIAL: tuple[int, ...] = tuple(
    sum(2 * column.count(face) * face for face in set(column)) if len(column) < kb.SLOTS else 0
    for column in _MULTISETS
)
# _EXPOSED[own * 84 + opp]: own column's points if the opposing column has room to strike.
_EXPOSED: tuple[int, ...] = tuple(
    _SCORE[own] if _SIZE[opp] < kb.SLOTS else 0 for own in range(_COUNT) for opp in range(_COUNT)
)
# Search depth in placements: mine, the opponent's reply, mine again, then the horizon.
# Depth 3 measured stronger than 4 against medium (the evaluation is fitted for it) and
# answers in a few milliseconds.
_DEPTH = 3
# A small margin term so the search prefers bigger wins and smaller losses among equals.
_MARGIN_TIE_BREAK = 0.001


def _horizon(own: tuple[int, ...], opp: tuple[int, ...], n_own: int, n_opp: int) -> float:
    """Estimated win probability (plus a tiny margin term) for ``own``, who rolls next."""
    o0, o1, o2 = own
    p0, p1, p2 = opp
    score = _SCORE
    margin = score[o0] + score[o1] + score[o2] - score[p0] - score[p1] - score[p2]
    q0 = o0 * _COUNT + p0
    q1 = o1 * _COUNT + p1
    q2 = o2 * _COUNT + p2
    r0 = p0 * _COUNT + o0
    r1 = p1 * _COUNT + o1
    r2 = p2 * _COUNT + o2
    k0, k1, k2 = q0 * 7, q1 * 7, q2 * 7
    j0, j1, j2 = r0 * 7, r1 * 7, r2 * 7
    gain = _GAIN
    roll = 0
    reply = 0
    for face in range(1, 7):
        roll += max(gain[k0 + face], gain[k1 + face], gain[k2 + face])
        reply += max(gain[j0 + face], gain[j1 + face], gain[j2 + face])
    potential = _POTENTIAL
    exposed = _EXPOSED
    bias, w_margin, w_roll, w_reply, w_potential, w_exposure = _HORIZON[
        (8 - n_own) * 9 + (8 - n_opp)
    ]
    logit = (
        bias
        + w_margin * margin
        + (w_roll * roll + w_reply * reply) / 6
        + w_potential
        * (
            potential[o0]
            + potential[o1]
            + potential[o2]
            - potential[p0]
            - potential[p1]
            - potential[p2]
        )
        + w_exposure
        * (exposed[q0] + exposed[q1] + exposed[q2] - exposed[r0] - exposed[r1] - exposed[r2])
    )
    if logit < -60.0:
        return _MARGIN_TIE_BREAK * margin
    return 1.0 / (1.0 + math.exp(-logit)) + _MARGIN_TIE_BREAK * margin


def _terminal(own: tuple[int, ...], opp: tuple[int, ...]) -> float:
    """Utility for ``own`` of a finished game: 1 win, 0.5 draw, 0 loss (+ margin term)."""
    margin = (
        _SCORE[own[0]]
        + _SCORE[own[1]]
        + _SCORE[own[2]]
        - _SCORE[opp[0]]
        - _SCORE[opp[1]]
        - _SCORE[opp[2]]
    )
    outcome = 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5
    return outcome + _MARGIN_TIE_BREAK * margin


class _Search:
    """One decision's expectimax, with a transposition table over canonical positions."""

    def __init__(self) -> None:
        self.memo: dict[int, float] = {}

    def chance(
        self, own: tuple[int, ...], opp: tuple[int, ...], n_own: int, n_opp: int, depth: int
    ) -> float:
        """Value for ``own``, who is about to roll."""
        # Column pairs can be permuted freely; sort them for the transposition key.
        a = own[0] * _COUNT + opp[0]
        b = own[1] * _COUNT + opp[1]
        c = own[2] * _COUNT + opp[2]
        if a > b:
            a, b = b, a
        if b > c:
            b, c = c, b
            if a > b:
                a, b = b, a
        key = ((a * 7056 + b) * 7056 + c) * 8 + depth
        value = self.memo.get(key)
        if value is not None:
            return value
        total = 0.0
        for face in range(1, 7):
            total += self.decide(own, opp, n_own, n_opp, face, depth)[0]
        value = total / 6
        self.memo[key] = value
        return value

    def decide(
        self,
        own: tuple[int, ...],
        opp: tuple[int, ...],
        n_own: int,
        n_opp: int,
        face: int,
        depth: int,
    ) -> tuple[float, list[int]]:
        """Best value for the mover holding ``face``, and the columns that reach it."""
        best = -1e9
        best_columns: list[int] = []
        seen: list[int] = []
        fills = n_own + 1 == kb.GRID_SIZE
        for column in range(3):
            added = _ADD[own[column] * 7 + face]
            if added < 0:
                continue
            pair = own[column] * _COUNT + opp[column]
            if pair in seen:
                # Same column pair as one already tried: same value; the caller spreads
                # ties over equivalent columns.
                continue
            seen.append(pair)
            stripped = _STRIP[opp[column] * 7 + face]
            if column == 0:
                new_own = (added, own[1], own[2])
                new_opp = (stripped, opp[1], opp[2])
            elif column == 1:
                new_own = (own[0], added, own[2])
                new_opp = (opp[0], stripped, opp[2])
            else:
                new_own = (own[0], own[1], added)
                new_opp = (opp[0], opp[1], stripped)
            if fills:
                value = _terminal(new_own, new_opp)
            else:
                new_n_opp = n_opp - _SIZE[opp[column]] + _SIZE[stripped]
                if depth <= 1:
                    value = 1.0 - _horizon(new_opp, new_own, new_n_opp, n_own + 1)
                else:
                    value = 1.0 - self.chance(new_opp, new_own, new_n_opp, n_own + 1, depth - 1)
            if value > best + 1e-12:
                best = value
                best_columns = [column]
            elif value > best - 1e-12:
                best_columns.append(column)
        return best, best_columns


def _hard_choice(own: tuple[int, ...], opp: tuple[int, ...], die: int, rng: random.Random) -> int:
    n_own = _SIZE[own[0]] + _SIZE[own[1]] + _SIZE[own[2]]
    n_opp = _SIZE[opp[0]] + _SIZE[opp[1]] + _SIZE[opp[2]]
    _, columns = _Search().decide(own, opp, n_own, n_opp, die, _DEPTH)
    # Columns with identical pairs are equivalent; spread ties over all of them.
    candidates = [
        column
        for column in _open(own)
        if any(own[column] == own[best] and opp[column] == opp[best] for best in columns)
    ]
    return candidates[0] if len(candidates) == 1 else rng.choice(candidates)


# ---------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------


def choose_column_compact(
    own: tuple[int, ...], opp: tuple[int, ...], die: int, level: str, rng: random.Random
) -> int:
    """The hot path: boards as three multiset ids each, no validation."""
    if level == "easy":
        return rng.choice(_open(own))
    if level == "medium":
        return _medium_choice(own, opp, die, rng)
    if level == "hard":
        return _hard_choice(own, opp, die, rng)
    if level == "stall":
        return _stall_choice(own, opp, die, rng)
    raise IllegalMove(f"Unknown AI level {level!r}; choose one of {', '.join(LEVELS)}.")


def choose_column(
    own: Sequence[Sequence[int]],
    opponent: Sequence[Sequence[int]],
    die: int,
    level: str,
    rng: random.Random,
) -> int:
    """The column (0..2) the ``level`` player puts ``die`` in. Arguments are not modified."""
    if level not in LEVELS:
        raise IllegalMove(f"Unknown AI level {level!r}; choose one of {', '.join(LEVELS)}.")
    own_ids = to_compact(own, "Your")
    opp_ids = to_compact(opponent, "The opponent's")
    if not is_int(die) or not 1 <= die <= kb.FACES:
        raise IllegalMove(f"A die cannot show {die!r}; faces run from 1 to 6.")
    if not _open(own_ids):
        raise IllegalMove("Every column is full: there is no move to make.")
    return choose_column_compact(own_ids, opp_ids, die, level, rng)


def choose_for_position(
    position: Sequence[int], player: int, die: int, level: str, rng: random.Random
) -> int:
    """Engine compact position (six ordered column ids) -> the column ``player`` picks."""
    base = 3 * player
    other = 3 - base
    own = (
        ORDERED_TO_MULTISET[position[base]],
        ORDERED_TO_MULTISET[position[base + 1]],
        ORDERED_TO_MULTISET[position[base + 2]],
    )
    opp = (
        ORDERED_TO_MULTISET[position[other]],
        ORDERED_TO_MULTISET[position[other + 1]],
        ORDERED_TO_MULTISET[position[other + 2]],
    )
    return choose_column_compact(own, opp, die, level, rng)


def choose_for_state(
    state: kb.KnucklebonesState, player: int, level: str, rng: random.Random
) -> int:
    """The column ``player`` would pick now in a running game (they must be the mover)."""
    if state.phase != "place" or state.die is None:
        raise IllegalMove("This game is already over.")
    if player != state.current_player:
        raise IllegalMove("It is not that player's turn.")
    boards = state.boards  # a fresh copy on every read: read it once
    return choose_column(boards[player], boards[1 - player], state.die, level, rng)


def choose_action(
    state: kb.KnucklebonesState, player: int, level: str, rng: random.Random
) -> kb.Place:
    """``choose_for_state`` wrapped as the action the bot applies."""
    return kb.place_action(player, choose_for_state(state, player, level, rng))
