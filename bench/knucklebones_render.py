"""Knucklebones board pictures: today's board against the new one, side by side.

Run: ``.venv/bin/python bench/knucklebones_render.py [--positions N] [--rounds R]``.

Both renderers draw the same positions (random games through the engine, names in four
scripts with emoji) in alternating rounds in one process, after a warm-up (both cache
their sprites, so the first picture of a process costs more; the bot keeps one renderer
thread, so warm caches are what players get). Printed: p50 and p90 per picture, PNG
size, and the new/old ratio of the p50s. Target: the new board costs at most half of
today's (PASS/FAIL).

- **before**: ``bench/knucklebones_board_before.py``, main's board before the rework
  (RGB canvas, Pillow's default font, quantized to a fixed palette every render).
- **after**: ``cogs.knucklebones.picture.render_board`` (indexed canvas, bundled fonts,
  alt text included).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import knucklebones_board_before as before

from cogs.knucklebones import picture as after
from game_core import knucklebones as kb

TARGET_RATIO = 0.5
NAMES = [("José 🎲", "Дмитрий"), ("田中太郎", "Zoë"), ("أحمد", "김민준 ✨"), ("alice", "bob")]


def positions(count: int, seed: int) -> list[dict[str, Any]]:
    """Public views of positions from random games, every stage of a game represented."""
    rng = random.Random(seed)
    views: list[dict[str, Any]] = []
    while len(views) < count:
        state, _ = kb.new_game(rng)
        while not kb.is_finished(state) and len(views) < count:
            column = rng.choice(kb.legal_columns(state.boards[state.current_player]))
            state, _ = kb.apply(
                state, {"type": "place", "player": state.current_player, "column": column}, rng
            )
            views.append(kb.public_view(state))
    return views


def timed(
    render: Callable[[dict[str, Any], int], bytes], views: list[dict[str, Any]]
) -> tuple[list[float], int]:
    samples, size = [], 0
    for index, view in enumerate(views):
        started = time.perf_counter()
        png = render(view, index)
        samples.append(time.perf_counter() - started)
        size += len(png)
    return samples, size // len(views)


def render_before(view: dict[str, Any], index: int) -> bytes:
    first, second = NAMES[index % len(NAMES)]
    players = [before.Player(0, 1, first), before.Player(1, 2, second)]
    return before.render_board_png(view, players)


def render_after(view: dict[str, Any], index: int) -> bytes:
    return after.render_board(view, NAMES[index % len(NAMES)]).png


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    views = positions(args.positions, args.seed)
    timed(render_before, views[:50])  # warm both: sprites, fonts, palettes
    timed(render_after, views[:50])
    results: dict[str, list[float]] = {"before": [], "after": []}
    sizes: dict[str, int] = {}
    for _ in range(args.rounds):
        for name, render in (("before", render_before), ("after", render_after)):
            samples, sizes[name] = timed(render, views)
            results[name].extend(samples)
    p50 = {name: statistics.median(samples) for name, samples in results.items()}
    for name, samples in results.items():
        p90 = statistics.quantiles(samples, n=10)[-1]
        print(
            f"{name:>6}: p50 {p50[name] * 1000:.3f} ms  p90 {p90 * 1000:.3f} ms  "
            f"PNG {sizes[name] / 1000:.1f} kB  ({len(samples)} pictures)"
        )
    ratio = p50["after"] / p50["before"]
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    print(f"after/before p50: {ratio:.2f} (target <= {TARGET_RATIO}) {verdict}")


if __name__ == "__main__":
    main()
