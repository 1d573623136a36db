"""Regenerate ``game_core/analysis/weighted_lengths.json``: how many rounds a Weighted Dice
game lasts for every table size (5-12) and every target the bot uses.

Run: ``.venv/bin/python tools/weighted_lengths.py [--workers N]``. Deterministic: every
cell has its own string-seeded rng (``simulate_length``), so the file is the same whatever
the number of workers. ``tests/game_core/test_weighted_lengths.py`` re-simulates some
cells at the file's seed and fails when they no longer match (a rules change: run this
again and commit the file).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from game_core.analysis import weighted_lengths as wl  # noqa: E402


def measure(cell: tuple[int, int]) -> wl.GameLength:
    players, target = cell
    return wl.simulate_length(players, target, games_per_mix=wl.GAMES_PER_MIX, seed=wl.SEED)


def dumps(data: dict[str, Any]) -> str:
    """The document with one cell a line, so a regenerated file diffs cell by cell."""
    head = [f" {json.dumps(key)}: {json.dumps(value)}," for key, value in data.items()]
    cells = ",\n".join(f"  {json.dumps(cell)}" for cell in data["cells"])
    head = [line for line in head if not line.startswith(' "cells"')]
    return "{\n" + "\n".join(head) + '\n "cells": [\n' + cells + "\n ]\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    cells = wl.all_cells()
    # The longest cells first, so the workers finish together.
    cells.sort(key=lambda cell: cell[1] / cell[0], reverse=True)
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        measured = list(pool.map(measure, cells))
    data = wl.document(measured, games_per_mix=wl.GAMES_PER_MIX, seed=wl.SEED)
    wl.LENGTHS_FILE.write_text(dumps(data), encoding="utf-8")
    table = wl.LengthTable(data)
    print(
        f"wrote {wl.LENGTHS_FILE.relative_to(ROOT)}: {len(cells)} cells in "
        f"{time.perf_counter() - started:.0f} s"
    )
    for players in wl.TABLE_SIZES:
        short = table.short_target(players)
        print(
            f"  {players:>2} players: 150 points ~{table.length(players, 150).mean:5.1f} rounds;"
            f" short game {short} points ~{table.length(players, short).mean:5.1f} rounds"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
