"""game_core.dice: rolls come from the injected rng, as ``randint`` would draw them."""

from __future__ import annotations

import random

import pytest

from game_core.dice import STANDARD_DICE, roll, roll_many


@pytest.mark.parametrize("sides", [2, 3, *STANDARD_DICE, 100])
def test_a_roll_is_the_draw_randint_makes(sides: int) -> None:
    for seed in range(200):
        ours, theirs = random.Random(seed), random.Random(seed)
        assert [roll(ours, sides) for _ in range(30)] == [
            theirs.randint(1, sides) for _ in range(30)
        ]
        assert ours.getstate() == theirs.getstate()


def test_every_face_comes_up_and_nothing_else() -> None:
    rng = random.Random(7)
    faces = roll_many(rng, 6, 6000)
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert all(800 < faces.count(face) < 1200 for face in range(1, 7))


def test_a_scripted_rng_is_asked_through_its_own_randint() -> None:
    class Scripted(random.Random):
        def randint(self, a: int, b: int) -> int:
            return b

    assert roll(Scripted(1), 6) == 6
    assert roll_many(Scripted(1), 20, 3) == [20, 20, 20]
