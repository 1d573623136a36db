"""Knucklebones random-vs-random games per second: the rule card's code against ours.

Run: ``.venv/bin/python bench/knucklebones_engine.py [--games N] [--rounds R]``.

Side by side in one process, in alternating rounds (the median round is reported):

- **card**: ``bench/seed_card_knucklebones.py``, the card's nested lists and ``Counter``.
- **ours**: ``game_core.analysis.knucklebones.play_game``, the analysis' scalar path. Every
  placement goes through ``game_core.knucklebones.step``, the same transition ``apply``
  uses, on the engine's compact column ids; one game at a time, no NumPy. The target is
  ours/card >= 4.

Two more lines for context, not part of the ratio: the full ``apply`` path with the
pydantic state the bot stores (validation, events and views included, so much slower
than either), and the NumPy lock-step simulation the analysis uses for random players.
Each line also prints the first player's win share and the mean game length, so the
three implementations can be seen to play the same game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from seed_card_knucklebones import play_random_game

from game_core import knucklebones as kb
from game_core.analysis import knucklebones as lab


def card_games(games: int, seed: int) -> tuple[int, int]:
    random.seed(seed)
    first_wins = 0
    turns = 0
    for index in range(games):
        first = index % 2
        winner, length = play_random_game(first)
        if winner[first] and not winner[1 - first]:
            first_wins += 1
        turns += length
    return first_wins, turns


def our_games(games: int, seed: int) -> tuple[int, int]:
    rng = random.Random(seed)
    first_wins = 0
    turns = 0
    play = lab.play_game
    for index in range(games):
        first = index % 2
        winner, length, _, _, _ = play(first, rng)
        if winner == first:
            first_wins += 1
        turns += length
    return first_wins, turns


def apply_games(games: int, seed: int) -> tuple[int, int]:
    rng = random.Random(seed)
    first_wins = 0
    turns = 0
    for index in range(games):
        state, _ = kb.new_game(rng, index % 2)
        while state.phase == "place":
            player = state.current_player
            column = rng.choice(kb.legal_columns(state.boards[player]))
            state, _ = kb.apply(state, kb.Place(player=player, column=column), rng)
        if state.winners == [state.first_player]:
            first_wins += 1
        turns += state.turn
    return first_wins, turns


def timed(
    run: Callable[[int, int], tuple[int, int]], games: int, seed: int
) -> tuple[float, int, int]:
    start = time.perf_counter()
    first_wins, turns = run(games, seed)
    return games / (time.perf_counter() - start), first_wins, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="games per round and side")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per side")
    parser.add_argument("--apply-games", type=int, default=5_000, help="games via apply()")
    parser.add_argument("--vector-games", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rates: dict[str, list[float]] = {"card": [], "ours": []}
    totals = {"card": [0, 0, 0], "ours": [0, 0, 0]}  # games, first-player wins, turns
    for round_index in range(args.rounds):
        order = [("card", card_games), ("ours", our_games)]
        if round_index % 2:
            order.reverse()
        for name, run in order:
            rate, first_wins, turns = timed(run, args.games, args.seed + round_index)
            rates[name].append(rate)
            totals[name][0] += args.games
            totals[name][1] += first_wins
            totals[name][2] += turns

    def line(label: str, rate: float, games: int, first_wins: int, turns: int) -> str:
        share = 100 * first_wins / games
        return (
            f"{label:<44} {rate:>12,.0f} games/s   first player wins {share:5.2f}%"
            f"   mean {turns / games:5.2f} turns"
        )

    card_rate = statistics.median(rates["card"])
    our_rate = statistics.median(rates["ours"])
    print(
        f"Knucklebones, random vs random, {args.games:,} games x {args.rounds} rounds per side "
        "(median round)"
    )
    print(line("card: nested lists + Counter", card_rate, *totals["card"]))
    print(line("ours: engine step, scalar analysis path", our_rate, *totals["ours"]))
    print(f"ratio ours/card: {our_rate / card_rate:.2f}x  (target >= 4x)")
    print()
    rate, first_wins, turns = timed(apply_games, args.apply_games, args.seed)
    print(
        line("context: full apply() with pydantic state", rate, args.apply_games, first_wins, turns)
    )
    start = time.perf_counter()
    report = lab.simulate_random_games(args.vector_games, args.seed)
    elapsed = time.perf_counter() - start
    print(
        line(
            "context: NumPy lock-step (vectorised)",
            args.vector_games / elapsed,
            report["games"],
            report["first_player_wins"],
            round(report["mean_turns"] * report["games"]),
        )
    )
    print(f"vectorised: {args.vector_games:,} games in {elapsed:.2f} s")


if __name__ == "__main__":
    main()
