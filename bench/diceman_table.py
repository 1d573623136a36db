"""Diceman's exact 6x6 table: the event-free resolver against ``resolve_round``, side by side.

Run: ``.venv/bin/python bench/diceman_table.py``. Prints the time to enumerate all 80,656
roll outcomes with each resolver, their ratio, and the cold cost of the cached public
helpers the ``/odds diceman`` command calls.
"""

from __future__ import annotations

import itertools
import time

from game_core.ai import diceman as ai
from game_core.diceman import COMBOS, SIDES, faces_of, phase_damage, resolve_round


def every_outcome() -> list[
    tuple[tuple[str, str], tuple[int, ...], tuple[str, str], tuple[int, ...]]
]:
    faces = {
        combo: list(itertools.product(*(range(1, SIDES[d] + 1) for d in combo))) for combo in COMBOS
    }
    return [
        (a, fa, b, fb)
        for a, b in itertools.product(COMBOS, repeat=2)
        for fa in faces[a]
        for fb in faces[b]
    ]


def main() -> None:
    outcomes = every_outcome()
    start = time.perf_counter()
    for a, fa, b, fb in outcomes:
        resolve_round((100, 100), (dict(zip(a, fa, strict=True)), dict(zip(b, fb, strict=True))))
    full = time.perf_counter() - start
    start = time.perf_counter()
    for a, fa, b, fb in outcomes:
        phase_damage(faces_of(a, fa), faces_of(b, fb))
    fast = time.perf_counter() - start
    start = time.perf_counter()
    ai.matchup_table()
    ai.equilibrium()
    cold = time.perf_counter() - start
    start = time.perf_counter()
    ai.position_values(20)
    solved = time.perf_counter() - start
    print(f"outcomes enumerated:          {len(outcomes):,}")
    print(f"resolve_round (with events):  {full * 1000:8.1f} ms")
    print(f"phase_damage (hot path):      {fast * 1000:8.1f} ms   ratio {full / fast:5.1f}x")
    print(f"matchup_table + equilibrium:  {cold * 1000:8.1f} ms   (cold, then cached)")
    print(f"whole-game solve, lives <=20: {solved * 1000:8.1f} ms   (cold, then cached)")


if __name__ == "__main__":
    main()
