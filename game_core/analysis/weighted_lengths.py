"""How many rounds a Weighted Dice game lasts, by table size and points to win: the lab's
simulation (``game_core.analysis.weighted_dice.simulate_game``), precomputed.

The bot shows the expected length of a table when it is opened and started, and offers a
"short game": the target the lab finds closest to the card designer's 10-12 rounds for the
players seated. Simulating on demand would block the event loop for seconds, so the
numbers are computed once by ``tools/weighted_lengths.py`` into ``weighted_lengths.json``
(committed, shipped with the package) and only read here. A test re-simulates some cells
at the file's seed and compares them with what is stored.

How a cell is measured: ``GAMES_PER_MIX`` games for each of the lab's four strategy mixes
(a greedy or random house, bettors backing the favourite or betting in proportion),
with its default bet fraction and sit-out share, pooled. Human tables fall somewhere
among those mixes, so the pooled mean is a fair "about N rounds" and the 10th to 90th
percentiles say how much one game can differ.

Which target is the short game for a table size: among ``SHORT_CANDIDATES`` (multiples of
ten up to the card's 150, so a short game is never longer than the standard one), the one
whose mean is closest to the 10-12 window (nearer its middle, then lower, on a tie). With
11 or 12 players the card's 150 already lasts fewer than 10 rounds, so it stays 150.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from game_core.analysis.weighted_dice import (
    BETTOR_STRATEGIES,
    DESIGN_ROUNDS,
    HOUSE_STRATEGIES,
    Strategy,
    percentile,
    simulate_game,
)
from game_core.weighted_dice import MAX_PLAYERS, MIN_PLAYERS, TARGET_POINTS

__all__ = [
    "GAMES_PER_MIX",
    "LENGTHS_FILE",
    "OFFERED_TARGETS",
    "SEED",
    "SHORT_CANDIDATES",
    "TABLE_SIZES",
    "TARGETS",
    "GameLength",
    "LengthTable",
    "build_table",
    "lengths",
    "simulate_length",
]

LENGTHS_FILE = Path(__file__).with_name("weighted_lengths.json")
SEED = 20250617
GAMES_PER_MIX = 500
TABLE_SIZES: tuple[int, ...] = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
SHORT_CANDIDATES: tuple[int, ...] = tuple(range(30, TARGET_POINTS + 1, 10))
# The fixed targets a host can choose at /weighted new, besides the short game.
OFFERED_TARGETS: tuple[int, ...] = (100, TARGET_POINTS, 200, 300)
TARGETS: tuple[int, ...] = tuple(sorted({*SHORT_CANDIDATES, *OFFERED_TARGETS}))
MIXES: tuple[Strategy, ...] = tuple(
    Strategy(house, bettors) for house in HOUSE_STRATEGIES for bettors in BETTOR_STRATEGIES
)


@dataclass(frozen=True)
class GameLength:
    """Rounds scored in simulated games of ``players`` to ``target`` points."""

    players: int
    target: int
    mean: float
    p10: float
    p90: float

    @property
    def rounds(self) -> int:
        """The mean, rounded: "about N rounds"."""
        return max(1, round(self.mean))

    def as_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "target": self.target,
            "mean": self.mean,
            "p10": self.p10,
            "p90": self.p90,
        }


def simulate_length(players: int, target: int, *, games_per_mix: int, seed: int) -> GameLength:
    """One cell: ``games_per_mix`` games for each strategy mix, pooled. Each mix draws from
    its own string-seeded rng (strings hash the same in every process), so a cell is
    repeatable on its own, in any order and in any worker."""
    rounds: list[int] = []
    for strategy in MIXES:
        mix_rng = random.Random(f"{seed}:{players}:{target}:{strategy.house}:{strategy.bettors}")
        for _ in range(games_per_mix):
            dice_rng = random.Random(mix_rng.getrandbits(64))
            choice_rng = random.Random(mix_rng.getrandbits(64))
            game = simulate_game(players, strategy, dice_rng, choice_rng, target=target)
            if game.capped:  # never at these targets; a guard against a rules change
                raise ValueError(f"a game of {players} players to {target} hit the round cap")
            rounds.append(game.rounds)
    rounds.sort()
    return GameLength(
        players=players,
        target=target,
        mean=round(sum(rounds) / len(rounds), 2),
        p10=round(percentile(rounds, 0.1), 2),
        p90=round(percentile(rounds, 0.9), 2),
    )


def build_table(
    cells: Iterable[tuple[int, int]], *, games_per_mix: int, seed: int
) -> dict[str, Any]:
    """The JSON document ``tools/weighted_lengths.py`` writes (single process; the script
    spreads the cells over workers and assembles the same document)."""
    lengths = [
        simulate_length(players, target, games_per_mix=games_per_mix, seed=seed)
        for players, target in cells
    ]
    return document(lengths, games_per_mix=games_per_mix, seed=seed)


def document(lengths: Sequence[GameLength], *, games_per_mix: int, seed: int) -> dict[str, Any]:
    ordered = sorted(lengths, key=lambda cell: (cell.players, cell.target))
    return {
        "about": "Rounds per Weighted Dice game by table size and target, from the analysis "
        "lab's simulation. Regenerate with: python tools/weighted_lengths.py",
        "seed": seed,
        "games_per_mix": games_per_mix,
        "mixes": [[strategy.house, strategy.bettors] for strategy in MIXES],
        "bet_fraction": MIXES[0].bet_fraction,
        "skip_share": MIXES[0].skip_share,
        "cells": [cell.as_dict() for cell in ordered],
    }


def all_cells() -> list[tuple[int, int]]:
    return [(players, target) for players in TABLE_SIZES for target in TARGETS]


class LengthTable:
    """The precomputed lengths, looked up by table size and target."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.seed: int = data["seed"]
        self.games_per_mix: int = data["games_per_mix"]
        self.cells: dict[tuple[int, int], GameLength] = {}
        for cell in data["cells"]:
            length = GameLength(
                players=int(cell["players"]),
                target=int(cell["target"]),
                mean=float(cell["mean"]),
                p10=float(cell["p10"]),
                p90=float(cell["p90"]),
            )
            self.cells[length.players, length.target] = length

    def length(self, players: int, target: int) -> GameLength:
        """The simulated length of a game of ``players`` (clamped to 5..12) to ``target``
        points; KeyError for a target the table does not hold."""
        seats = min(MAX_PLAYERS, max(MIN_PLAYERS, players))
        return self.cells[seats, target]

    def short_target(self, players: int) -> int:
        """The target closest to the designer's 10-12 rounds for this many players."""
        low, high = DESIGN_ROUNDS
        middle = (low + high) / 2

        def distance(target: int) -> tuple[float, float, int]:
            mean = self.length(players, target).mean
            outside = max(0.0, low - mean, mean - high)
            return outside, abs(mean - middle), target

        return min(SHORT_CANDIDATES, key=distance)


@cache
def lengths() -> LengthTable:
    """The committed table (read once per process)."""
    return LengthTable(json.loads(LENGTHS_FILE.read_text(encoding="utf-8")))
