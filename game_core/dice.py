"""Dice, always rolled from an injected ``random.Random`` so every game can be replayed."""

from __future__ import annotations

import random

STANDARD_DICE: tuple[int, ...] = (4, 6, 8, 10, 12, 20)


def roll(rng: random.Random, sides: int) -> int:
    """One fair roll of a ``sides``-sided die numbered 1..sides."""
    return rng.randint(1, sides)


def roll_many(rng: random.Random, sides: int, count: int) -> list[int]:
    return [rng.randint(1, sides) for _ in range(count)]


def is_int(value: object) -> bool:
    """A real integer: ``bool`` is an ``int`` subclass but never a valid number here."""
    return isinstance(value, int) and not isinstance(value, bool)
