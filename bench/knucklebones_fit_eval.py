"""Refit the hard Knucklebones AI's horizon evaluation from self-play (not run by tests).

Run: ``.venv/bin/python bench/knucklebones_fit_eval.py [--games 300000] > table.txt``
(about two minutes on two cores), then paste the printed rows over ``_HORIZON`` in
``game_core/ai/knucklebones.py`` and check the result with ``bench/knucklebones_ai.py``.

1. Self-play: each seat is either ``medium`` or a one-ply ``hard`` (its current horizon
   after one placement), and each game plays 0%, 5% or 15% random moves, for variety.
   Every decision point records the fill state, the three column pairs as seen by the
   player about to roll, and whether that player went on to win (draw = 1/2).
2. Per fill state (dice missing from the roller's grid, from the other grid) a ridge-
   regularised logistic regression (Newton steps) on the features the horizon computes.
   Fill states seen fewer than 5,000 times (their fits are noise) borrow the nearest
   fitted state's weights.

The shipped table came from three rounds of this loop, each round's self-play using the
previous round's horizon (the first used medium players only).
"""

from __future__ import annotations

import argparse
import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from game_core import knucklebones as kb
from game_core.ai import knucklebones as ai

_C = 84  # multiset columns


def _one_ply_hard(own: tuple[int, ...], opp: tuple[int, ...], die: int, rng: random.Random) -> int:
    n_own = sum(ai._SIZE[c] for c in own)
    n_opp = sum(ai._SIZE[c] for c in opp)
    _, best = ai._Search().decide(own, opp, n_own, n_opp, die, 1)
    candidates = [
        column
        for column in range(3)
        if ai._SIZE[own[column]] < kb.SLOTS
        and any(own[column] == own[b] and opp[column] == opp[b] for b in best)
    ]
    return rng.choice(candidates)


def _game(seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    boards = [[0, 0, 0], [0, 0, 0]]
    counts = [0, 0]
    player = seed % 2
    noise = rng.choice((0.0, 0.05, 0.15))
    policies = [rng.choice(("medium", "hard", "hard")) for _ in range(2)]
    rows: list[tuple[int, ...]] = []
    while True:
        own, opp = tuple(boards[player]), tuple(boards[1 - player])
        pairs = sorted(own[i] * _C + opp[i] for i in range(3))
        rows.append((player, 9 - counts[player], 9 - counts[1 - player], *pairs))
        die = rng.randint(1, 6)
        if rng.random() < noise:
            column = rng.choice([c for c in range(3) if ai._SIZE[own[c]] < kb.SLOTS])
        elif policies[player] == "medium":
            column = ai._medium_choice(own, opp, die, rng)
        else:
            column = _one_ply_hard(own, opp, die, rng)
        before = boards[1 - player][column]
        boards[player][column] = ai._ADD[own[column] * 7 + die]
        boards[1 - player][column] = ai._STRIP[before * 7 + die]
        counts[player] += 1
        counts[1 - player] -= ai._SIZE[before] - ai._SIZE[boards[1 - player][column]]
        if counts[player] == kb.GRID_SIZE:
            scores = [sum(ai._SCORE[c] for c in board) for board in boards]
            winner = 0 if scores[0] > scores[1] else 1 if scores[1] > scores[0] else -1
            # Outcome in halves: 2 = the roller won, 1 = draw, 0 = lost.
            return [(*row[1:], 1 if winner < 0 else 2 if winner == row[0] else 0) for row in rows]
        player = 1 - player


def _features(data: np.ndarray) -> np.ndarray:
    pairs = data[:, 2:5]
    own_of = np.arange(_C * _C) // _C
    opp_of = np.arange(_C * _C) % _C
    swapped = opp_of * _C + own_of
    score = np.array(ai._SCORE, dtype=np.float64)
    gain = np.array(ai._GAIN, dtype=np.float64).reshape(_C * _C, 7)[:, 1:]
    potential = np.array(ai._POTENTIAL, dtype=np.float64)
    exposed = np.array(ai._EXPOSED, dtype=np.float64)
    margin = (score[own_of] - score[opp_of])[pairs].sum(axis=1)
    roll = gain[pairs].max(axis=1).mean(axis=1)
    reply = gain[swapped[pairs]].max(axis=1).mean(axis=1)
    pot = (potential[own_of[pairs]] - potential[opp_of[pairs]]).sum(axis=1)
    exposure = (exposed[pairs] - exposed[swapped[pairs]]).sum(axis=1)
    return np.column_stack([np.ones(len(data)), margin, roll, reply, pot, exposure])


def _logistic(x: np.ndarray, y: np.ndarray, ridge: float = 1.0) -> np.ndarray:
    weights = np.zeros(x.shape[1])
    for _ in range(25):
        p = 1 / (1 + np.exp(-(x @ weights)))
        hessian = (x * (p * (1 - p) + 1e-9)[:, None]).T @ x + ridge * np.eye(len(weights))
        weights -= np.linalg.solve(hessian, x.T @ (p - y) + ridge * weights)
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=3_000_000)
    args = parser.parse_args()
    with ProcessPoolExecutor(args.workers) as pool:
        seeds = range(args.seed, args.seed + args.games)
        rows = [row for game in pool.map(_game, seeds, chunksize=500) for row in game]
    data = np.array(rows, dtype=np.int64)
    x = _features(data)
    y = data[:, 5] / 2
    table = np.zeros((10, 10, x.shape[1]))
    fitted = set()
    for missing_own in range(1, 10):
        for missing_other in range(1, 10):
            mask = (data[:, 0] == missing_own) & (data[:, 1] == missing_other)
            if mask.sum() >= 5_000:
                table[missing_own, missing_other] = _logistic(x[mask], y[mask])
                fitted.add((missing_own, missing_other))
    for missing_own in range(1, 10):
        for missing_other in range(1, 10):
            cell = (missing_own, missing_other)
            if cell not in fitted:
                nearest = min(fitted, key=lambda f: abs(f[0] - cell[0]) + abs(f[1] - cell[1]))
                table[cell] = table[nearest]
            values = ", ".join(f"{w:.5f}" for w in table[cell])
            print(f"    ({values}),  # {missing_own} {missing_other}")


if __name__ == "__main__":
    main()
