"""Knucklebones random-vs-random games per second: the rule card's code against the engine.

Run: ``.venv/bin/python bench/knucklebones_engine.py [--games N] [--rounds R]``.

Side by side in one process, in alternating rounds; a ratio is the median over rounds of
side/card within the round. Every side plays the same random player (a uniformly random
column, another draw if it is full), and card and apply() draw the same numbers from the
same seed, so they play the very same games (equal win shares and lengths below):

- **card**: ``bench/seed_card_knucklebones.py``, the card's nested lists and ``Counter``;
  its player learns that a column is full from the card's ``ValueError``.
- **apply()**: the path the bot takes for every move: ``new_game``, then per move
  ``apply(state, place_action(seat, column), rng)`` with the immutable state, the full
  check of the action and the events. Its player learns that a column is full the same
  way as the card's, from ``apply``'s ``IllegalMove``. Target: apply()/card >= 1.0.
- **apply() + Place(...)**: the same with a new ``Place`` dataclass per move (what the cog
  builds until it calls ``place_action``), for context.
- **analysis scalar**: ``game_core.analysis.knucklebones.play_game``, the lab's one-game
  path on the engine's compact column ids (``step``). Target: analysis/card >= 4.
- **analysis NumPy**: the lab's vectorised lock-step simulation, for context.

Each line also prints the first player's win share and the mean game length, so the
implementations can be seen to play the same game.

Then the cost per move of what the bot does around ``apply`` with the stored state, in
microseconds, on states from random games: loading it (pydantic validation of the dict,
what ``KnucklebonesState.model_validate`` cost before; ``load_state``, the fast path for
what the bot stored; ``model_validate_json`` straight from the text), dumping it
(pydantic's ``model_dump``, the path before; ``dump_state``; ``model_dump_json``) and
``public_view``, next to the session layer's own ``json.loads`` and ``json.dumps``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from seed_card_knucklebones import play_random_game

from game_core import knucklebones as kb
from game_core.analysis import knucklebones as lab

Run = Callable[[int, int], tuple[int, int]]


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


def _apply_games(make_place: Callable[[int, int], kb.Place]) -> Run:
    def run(games: int, seed: int) -> tuple[int, int]:
        rng = random.Random(seed)
        randrange = rng.randrange
        apply = kb.apply
        illegal = kb.IllegalMove
        first_wins = 0
        turns = 0
        for index in range(games):
            state, _ = kb.new_game(rng, index % 2)
            while state.phase == "place":
                player = state.current_player
                while True:
                    try:
                        state, _ = apply(state, make_place(player, randrange(3)), rng)
                        break
                    except illegal:
                        pass  # a full column: draw another, as the card's player does
            if state.winners == [state.first_player]:
                first_wins += 1
            turns += state.turn
        return first_wins, turns

    return run


apply_games = _apply_games(kb.place_action)
apply_games_new_place = _apply_games(lambda player, column: kb.Place(player=player, column=column))


def lab_games(games: int, seed: int) -> tuple[int, int]:
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


def timed(run: Run, games: int, seed: int) -> tuple[float, int, int]:
    start = time.perf_counter()
    first_wins, turns = run(games, seed)
    return games / (time.perf_counter() - start), first_wins, turns


def sample_states(count: int, seed: int) -> list[kb.KnucklebonesState]:
    """``count`` states met in random games, from the first turn to finished games."""
    rng = random.Random(seed)
    states: list[kb.KnucklebonesState] = []
    while len(states) < count:
        state, _ = kb.new_game(rng)
        states.append(state)
        while state.phase == "place":
            action = rng.choice(kb.legal_actions(state, state.current_player))
            state, _ = kb.apply(state, action, rng)
            states.append(state)
    return states[:count]


def pass_time(function: Callable[[Any], object], inputs: list[Any]) -> float:
    start = time.perf_counter()
    for item in inputs:
        function(item)
    return time.perf_counter() - start


def storage_costs(count: int, seed: int, rounds: int) -> list[tuple[str, float]]:
    """Microseconds per call; every function runs once per round, in turn, and keeps its
    best round, so a load spike from another process cannot favour one of them."""
    states = sample_states(count, seed)
    data = [kb.dump_state(state) for state in states]
    texts = [json.dumps(item, separators=(",", ":"), sort_keys=True) for item in data]
    validated = [kb.StateData.model_validate(item) for item in data]
    candidates: list[tuple[str, Callable[[Any], object], list[Any]]] = [
        ("load: json.loads (the session row, for context)", json.loads, texts),
        ("load before: pydantic validation of the dict", kb.StateData.model_validate, data),
        ("load now: load_state(dict)", kb.load_state, data),
        (
            "load now: KnucklebonesState.model_validate_json(text)",
            kb.KnucklebonesState.model_validate_json,
            texts,
        ),
        (
            "dump before: pydantic model_dump(mode='json')",
            lambda model: model.model_dump(mode="json"),
            validated,
        ),
        ("dump now: dump_state(state)", kb.dump_state, states),
        ("dump now: state.model_dump_json()", kb.KnucklebonesState.model_dump_json, states),
        (
            "dump: json.dumps sorted (the session row, for context)",
            lambda item: json.dumps(item, separators=(",", ":"), sort_keys=True),
            data,
        ),
        ("public_view(state)", kb.public_view, states),
    ]
    best = [float("inf")] * len(candidates)
    for _ in range(rounds):
        for index, (_, function, inputs) in enumerate(candidates):
            best[index] = min(best[index], pass_time(function, inputs))
    return [(label, best[i] / count * 1e6) for i, (label, _, _) in enumerate(candidates)]


def verdict(ratio: float, target: float) -> str:
    return "PASS" if ratio >= target else "FAIL"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="games per round and side")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds per side")
    parser.add_argument("--vector-games", type=int, default=1_000_000)
    parser.add_argument("--states", type=int, default=20_000, help="states for load/dump")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    sides: dict[str, Run] = {
        "card": card_games,
        "apply": apply_games,
        "apply_new_place": apply_games_new_place,
        "lab": lab_games,
    }
    rates: dict[str, list[float]] = {name: [] for name in sides}
    totals = {name: [0, 0, 0] for name in sides}  # games, first-player wins, turns
    for round_index in range(args.rounds):
        order = list(sides.items())
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
            f"{label:<44} {rate:>10,.0f} games/s   first player wins {share:5.2f}%"
            f"   mean {turns / games:5.2f} turns"
        )

    median = {name: statistics.median(values) for name, values in rates.items()}

    def ratio(name: str) -> float:
        """The median over rounds of ``name``/card in the same round: a load spike from
        another process skews one round, not the result."""
        return statistics.median(
            side / card for side, card in zip(rates[name], rates["card"], strict=True)
        )

    print(
        f"Knucklebones, random vs random, {args.games:,} games x {args.rounds} rounds per side "
        "(median round)"
    )
    labels = {
        "card": "card: nested lists + Counter",
        "apply": "apply(): the bot's path, place_action",
        "apply_new_place": "apply() + a new Place(...) per move",
        "lab": "analysis scalar: engine step, one game",
    }
    for name, label in labels.items():
        print(line(label, median[name], *totals[name]))
    start = time.perf_counter()
    report = lab.simulate_random_games(args.vector_games, args.seed)
    elapsed = time.perf_counter() - start
    print(
        line(
            "analysis NumPy: vectorised lock-step",
            args.vector_games / elapsed,
            report["games"],
            report["first_player_wins"],
            round(report["mean_turns"] * report["games"]),
        )
    )
    print()
    apply_ratio = ratio("apply")
    lab_ratio = ratio("lab")
    print("Ratios: the median over rounds of side/card measured in the same round")
    print(f"apply()/card:          {apply_ratio:5.2f}x  (target >= 1.0)  {verdict(apply_ratio, 1)}")
    print(f"apply()+Place()/card:  {ratio('apply_new_place'):5.2f}x  (context)")
    print(f"analysis scalar/card:  {lab_ratio:5.2f}x  (target >= 4.0)  {verdict(lab_ratio, 4)}")
    print(f"analysis NumPy/card:   {args.vector_games / elapsed / median['card']:5.2f}x  (context)")
    print()
    moves_per_game = totals["apply"][2] / totals["apply"][0]
    per_move = 1e6 / (median["apply"] * moves_per_game)
    print(f"Per move, microseconds ({args.states:,} states from random games):")
    print(f"  {'apply() (new_game amortised), from the games above':<56} {per_move:6.2f}")
    for label, cost in storage_costs(args.states, args.seed, rounds=5):
        print(f"  {label:<56} {cost:6.2f}")


if __name__ == "__main__":
    main()
