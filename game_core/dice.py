"""Dice, always rolled from an injected ``random.Random`` so every game can be replayed."""

from __future__ import annotations

import random

STANDARD_DICE: tuple[int, ...] = (4, 6, 8, 10, 12, 20)


def roll(rng: random.Random, sides: int) -> int:
    """One fair roll of a ``sides``-sided die numbered 1..sides: ``rng.randint(1, sides)``.

    For a plain ``random.Random`` the draw is made here the way ``randint`` makes it
    (rejection sampling over ``getrandbits``), so the faces are the same, without its three
    layers of Python calls that cost four times the draw. Any subclass (a scripted test
    rng, say) is asked through its own ``randint``.
    """
    if rng.__class__ is not random.Random:
        return rng.randint(1, sides)
    bits = sides.bit_length()
    face = rng.getrandbits(bits)
    while face >= sides:
        face = rng.getrandbits(bits)
    return face + 1


def roll_many(rng: random.Random, sides: int, count: int) -> list[int]:
    return [roll(rng, sides) for _ in range(count)]


def is_int(value: object) -> bool:
    """A real integer: ``bool`` is an ``int`` subclass but never a valid number here."""
    return isinstance(value, int) and not isinstance(value, bool)
