"""Dimension Duel computer player for tactical mode.

Device and region are pure guessing games (matching pennies with two and three options): a
uniform choice is optimal for both sides, and it makes the attacker's step 1-2 dice follow a
known law whatever the opponent does (a mismatch in step 1 with probability 1/2, in step 2
with 2/3). That is also why a Particle Changer gains nothing against a uniform guesser.

The function is the real decision. The AI solves a small zero-sum game over its usable
functions against the opponent's usable ones (charges are public: every use is revealed),
scoring each pair by the exact distribution of the turn's damage, valued by an estimate of
the win probability of the resulting hit points (a logistic curve in the hit-point lead over
the square root of the hit points left), so near a kill it plays for the kill or for
survival. Spending a once-per-game charge costs its *reserve value*: what it is expected to
be worth later, which shrinks as the duel nears its end. It then samples the equilibrium
mix, so it never leans on a fixed, exploitable pattern.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np

from game_core.ai.zero_sum import sample, solve_matrix_game
from game_core.dimension_duel import (
    CHARGE_OF,
    DEVICES,
    FUNCTIONS,
    REGIONS,
    Choose,
    DuelState,
    Roll,
    available_functions,
)
from game_core.errors import IllegalMove

# Expected attacker damage of a plain turn: (1/2 + 2/3) dice of 3.5.
PLAIN_ATTACK = (0.5 + 2 / 3) * 3.5
# Spread of the hit-point race: a turn's damage has variance ~9.2 and a duel lasts about
# (total hp / PLAIN_ATTACK) turns, hence ~1.5 * sqrt(total hp).
RACE_SPREAD = 1.5
LOGISTIC_SCALE = 1.702  # logistic(1.702 z) is within 0.01 of the normal CDF
# What each unused charge is expected to be worth later, in hit points of lead. The ratios
# follow what a charge's best use gains (a Deflector on defence swings two plain attacks, a
# Disruptor saves one, an extra or doubled die adds about one); the overall level was tuned
# by self-play: holding charges for the end, where a kill or a save decides the duel, beat
# spending them early (this level beat a version with half of it in 64% of 1,500 duels).
RESERVE_HP: dict[str, float] = {
    "disruptor": 12.0,
    "delayed_attack": 9.0,
    "deflector": 18.0,
    "intensifier": 9.0,
    "particle_changer": 0.0,
}
# Roughly how many turns a charge needs to find a good moment.
RESERVE_TURNS = 8.0


def _sum_distribution(dice: int) -> dict[int, float]:
    counts: dict[int, int] = {}
    for faces in product(range(1, 7), repeat=dice):
        counts[sum(faces)] = counts.get(sum(faces), 0) + 1
    return {total: count / 6**dice for total, count in counts.items()}


@dataclass(frozen=True)
class _Outcomes:
    """All function pairs' damage laws in flat arrays, from the AI's point of view."""

    pair: np.ndarray  # own function index * 7 + opponent's
    to_me: np.ndarray
    to_them: np.ndarray
    weight: np.ndarray


@lru_cache(maxsize=2)
def _outcomes(attacking: bool) -> _Outcomes:
    pair, to_me, to_them, weight = [], [], [], []
    sums = [_sum_distribution(k) for k in range(5)]
    for i, mine in enumerate(FUNCTIONS):
        for j, theirs in enumerate(FUNCTIONS):
            used = (mine, theirs)
            if "disruptor" in used:
                pair.append(i * 7 + j)
                to_me.append(0)
                to_them.append(0)
                weight.append(1.0)
                continue
            multiplier = 2 ** used.count("intensifier")
            deflected = used.count("deflector") % 2 == 1
            law: dict[tuple[int, int], float] = {}
            for base, p_base in ((0, 1 / 6), (1, 1 / 2), (2, 1 / 3)):
                my_dice = int(mine == "delayed_attack") + (base if attacking else 0)
                their_dice = int(theirs == "delayed_attack") + (0 if attacking else base)
                for mine_total, p_mine in sums[my_dice].items():
                    for their_total, p_theirs in sums[their_dice].items():
                        if deflected:
                            key = (mine_total * multiplier, their_total * multiplier)
                        else:
                            key = (their_total * multiplier, mine_total * multiplier)
                        law[key] = law.get(key, 0.0) + p_base * p_mine * p_theirs
            for (hurt_me, hurt_them), p in law.items():
                pair.append(i * 7 + j)
                to_me.append(hurt_me)
                to_them.append(hurt_them)
                weight.append(p)
    return _Outcomes(
        pair=np.array(pair),
        to_me=np.array(to_me),
        to_them=np.array(to_them),
        weight=np.array(weight),
    )


def win_estimate(
    mine: np.ndarray | float, theirs: np.ndarray | float, i_attack_next: bool
) -> np.ndarray:
    """Estimated P(win) with ``mine`` against ``theirs`` hit points (both alive)."""
    tempo = PLAIN_ATTACK / 2 if i_attack_next else -PLAIN_ATTACK / 2
    mine_hp = np.asarray(mine, dtype=float)
    theirs_hp = np.asarray(theirs, dtype=float)
    lead = (mine_hp - theirs_hp + tempo) / (RACE_SPREAD * np.sqrt(mine_hp + theirs_hp))
    return 1.0 / (1.0 + np.exp(-LOGISTIC_SCALE * lead))


@lru_cache(maxsize=65536)
def function_mix(
    mine: int,
    theirs: int,
    attacking: bool,
    my_functions: tuple[str, ...],
    their_functions: tuple[str, ...],
    reserve_scale: float = 1.0,
) -> tuple[float, ...]:
    """Equilibrium probabilities over ``my_functions`` (cached: positions repeat a lot)."""
    outcomes = _outcomes(attacking)
    left_me = mine - outcomes.to_me
    left_them = theirs - outcomes.to_them
    dead_me = left_me <= 0
    dead_them = left_them <= 0
    alive = ~(dead_me | dead_them)
    # The next turn swaps roles: the defender now attacks next.
    later = win_estimate(np.maximum(left_me, 1), np.maximum(left_them, 1), not attacking)
    value = np.where(alive, later, np.where(dead_me & dead_them, 0.5, dead_them.astype(float)))
    # One name per shape: numpy 2.5's stubs type an array's dimensions, so a 1-D result
    # cannot be rebound to its 7x7 reshaping.
    cells = np.bincount(outcomes.pair, weights=outcomes.weight * value, minlength=49)
    table = cells.reshape(7, 7)

    # Reserve values, in win probability: hit points of lead times the curve's slope,
    # scaled down when few turns are likely to remain.
    now = float(win_estimate(mine, theirs, attacking))
    slope = LOGISTIC_SCALE * now * (1 - now) / (RACE_SPREAD * math.sqrt(mine + theirs))
    turns_left = 2 * min(mine, theirs) / PLAIN_ATTACK
    horizon = 1.0 - math.exp(-turns_left / RESERVE_TURNS)

    scale = slope * horizon
    reserve = [
        0.0 if (charge := CHARGE_OF[f]) is None else RESERVE_HP[charge] * scale * reserve_scale
        for f in FUNCTIONS
    ]
    rows = [FUNCTIONS.index(f) for f in my_functions]
    columns = [FUNCTIONS.index(f) for f in their_functions]
    matrix = [[float(table[i, j]) - reserve[i] + reserve[j] for j in columns] for i in rows]
    return tuple(solve_matrix_game(matrix).row)


def pick(
    hp: int,
    opponent_hp: int,
    attacking: bool,
    functions: Sequence[str],
    opponent_functions: Sequence[str],
    rng: random.Random,
) -> tuple[str, str, str]:
    """(device, region, function) from plain numbers: the hot path under :func:`choose`.

    Draws ``rng.random()`` for the function, then the device and the region uniformly.
    """
    mix = function_mix(hp, opponent_hp, attacking, tuple(functions), tuple(opponent_functions))
    function = functions[sample(mix, rng.random())]
    device = DEVICES[rng.randrange(len(DEVICES))]
    region = REGIONS[rng.randrange(len(REGIONS))]
    return device, region, function


def random_pick(functions: Sequence[str], rng: random.Random) -> tuple[str, str, str]:
    """The baseline: a uniformly random legal (device, region, function)."""
    count = len(DEVICES) * len(REGIONS) * len(functions)
    index = rng.randrange(count)
    device, rest = divmod(index, len(REGIONS) * len(functions))
    region, function = divmod(rest, len(functions))
    return DEVICES[device], REGIONS[region], functions[function]


def choose(state: DuelState, player: int, rng: random.Random) -> Choose:
    """The AI's tactical lock-in for ``player``: uniform device and region, function from
    the equilibrium of the function game."""
    if state.mode != "tactical":
        raise IllegalMove("The tactical AI only plays tactical duels; classic duels just roll.")
    if state.phase == "finished" or state.locked[player]:
        raise IllegalMove("The AI has nothing to choose now.")
    device, region, function = pick(
        state.hp[player],
        state.hp[1 - player],
        state.attacker == player,
        available_functions(state, player),
        available_functions(state, 1 - player),
        rng,
    )
    return Choose(player=player, device=device, region=region, function=function)


def choose_action(state: DuelState, player: int, rng: random.Random) -> Choose | Roll:
    """Any mode: the tactical choice, or simply Roll in classic mode."""
    if state.mode == "classic":
        return Roll(player=player)
    return choose(state, player, rng)


def random_choice(state: DuelState, player: int, rng: random.Random) -> Choose:
    """The baseline opponent: a uniformly random legal tactical lock-in."""
    device, region, function = random_pick(available_functions(state, player), rng)
    return Choose(player=player, device=device, region=region, function=function)
