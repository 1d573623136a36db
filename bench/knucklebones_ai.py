"""Knucklebones AI: decision times per level, and the win rates the levels are tuned for.

Run: ``.venv/bin/python bench/knucklebones_ai.py [--games 2000] [--workers 2]``.

1. Decision time of ``choose_column`` (the validated entry point the bot calls) for every
   level over the same few thousand positions, taken from real medium-vs-medium games:
   p50 / p90 / p99 / max in milliseconds. Budget: p99 under 200 ms.
2. Win rates over ``--games`` games each (alternating who moves first), through the
   analysis' scalar path on ``--workers`` processes: hard vs medium (target >= 60% of
   decided games) and medium vs easy (target >= 85%), with Wilson 95% intervals.
"""

from __future__ import annotations

import argparse
import random
import time

from game_core import knucklebones as kb
from game_core.ai import knucklebones as ai
from game_core.analysis import knucklebones as lab
from game_core.analysis.progress import Progress

Position = tuple[list[list[int]], list[list[int]], int]


def collect_positions(games: int, seed: int) -> list[Position]:
    """(own board, opponent board, die) at every decision of medium-vs-medium games."""
    positions: list[Position] = []

    def recording(position: list[int], player: int, die: int, rng: random.Random) -> int:
        boards = kb.expand_position(position)
        positions.append((boards[player], boards[1 - player], die))
        return ai.choose_for_position(position, player, die, "medium", rng)

    rng = random.Random(seed)
    for index in range(games):
        lab.play_game(index % 2, rng, (recording, recording))
    return positions


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, round(q * (len(sorted_values) - 1)))]


def time_level(level: str, positions: list[Position], seed: int) -> list[float]:
    rng = random.Random(seed)
    times = []
    clock = time.perf_counter
    for own, opponent, die in positions:
        start = clock()
        ai.choose_column(own, opponent, die, level, rng)
        times.append(clock() - start)
    return sorted(times)


def match(p1: str, p2: str, games: int, seed: int, workers: int) -> str:
    start = time.perf_counter()
    with Progress(games, f"{p1} vs {p2}") as progress:
        report = lab.simulate_games(p1, p2, games, seed, workers=workers, progress=progress)
    elapsed = time.perf_counter() - start
    row = report["per_player"]["p1"]
    wins, losses, draws = row["wins"], row["losses"], row["draws"]
    low, high = lab.wilson_interval(wins, wins + losses)
    return (
        f"  {p1} vs {p2}: {wins}-{losses}-{draws} (W-L-D), {p1} wins "
        f"{100 * wins / (wins + losses):.1f}% of decided games "
        f"(95% CI {100 * low:.1f}-{100 * high:.1f}%), {elapsed:.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_000, help="games per matchup")
    parser.add_argument("--workers", type=int, default=2, help="processes for the matches")
    parser.add_argument("--position-games", type=int, default=150)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    positions = collect_positions(args.position_games, args.seed)
    print(f"Decision time over {len(positions):,} positions from real games (ms)")
    print("  level       p50      p90      p99      max")
    for level in ai.LEVELS:
        times = time_level(level, positions, args.seed)
        cells = [1000 * percentile(times, q) for q in (0.5, 0.9, 0.99, 1.0)]
        print(f"  {level:<7}" + "".join(f"{cell:9.3f}" for cell in cells))
    print()
    print(f"Win rates over {args.games:,} games per matchup, first player alternating")
    print(match("hard", "medium", args.games, args.seed, args.workers) + "  [target >= 60%]")
    print(match("medium", "easy", args.games, args.seed + 1, args.workers) + "  [target >= 85%]")


if __name__ == "__main__":
    main()
