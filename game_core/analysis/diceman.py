"""Diceman: the exact 6x6 combo table, the equilibrium mix, and full-game simulations.

The exact part (every roll of every pair of combos) takes well under a second. The Monte
Carlo part plays whole 20-life games (with the 30-round cap) between the equilibrium AI and
itself, and between every pure combination and the AI, seats alternating.
"""

from __future__ import annotations

import argparse
import math
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from game_core.ai.diceman import (
    equilibrium,
    matchup_table,
    outcome_count,
    position_values,
    round_strategy,
)
from game_core.ai.zero_sum import sample
from game_core.analysis.cli import Column, non_negative_int, table
from game_core.analysis.progress import Progress
from game_core.diceman import (
    COMBOS,
    DEFAULT_MAX_ROUNDS,
    SIDES,
    START_LIFE,
    faces_of,
    phase_damage,
)

# A policy picks a combo index from (own life, opponent's life, rounds left incl. this one).
Policy = Callable[[int, int, int, random.Random], int]

DEFAULT_GAMES = 5000


def label(combo: tuple[str, str]) -> str:
    """Short label such as "S+H" for ("sword", "shield")."""
    letters = {"magic": "M", "priority": "P", "sword": "S", "shield": "H"}
    return "+".join(letters[name] for name in combo)


def ai_policy(life: int, opponent: int, rounds_left: int, rng: random.Random) -> int:
    """The equilibrium AI, drawing exactly as ``choose_dice`` does (one ``rng.random()``)."""
    mix = round_strategy((life, opponent), rounds_left)
    return sample(list(mix.values()), rng.random())


def pure_policy(index: int) -> Policy:
    def policy(life: int, opponent: int, rounds_left: int, rng: random.Random) -> int:
        rng.random()  # keep the draw sequence in step with the AI's
        return index

    return policy


def play_game(
    policies: tuple[Policy, Policy],
    rng: random.Random,
    *,
    life: int = START_LIFE,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> tuple[int | None, int, str]:
    """One whole game without the engine's bookkeeping: (winner or None, rounds, reason).

    It draws from ``rng`` in the engine's order (both choices, then player 0's dice in
    die order, then player 1's), so a seed replays the same game as the engine would.
    """
    lives = [life, life]
    for round_number in range(1, max_rounds + 1):
        left = max_rounds - round_number + 1
        picks = [policies[p](lives[p], lives[1 - p], left, rng) for p in (0, 1)]
        faces = []
        for pick in picks:
            combo = COMBOS[pick]
            faces.append(faces_of(combo, [rng.randint(1, SIDES[name]) for name in combo]))
        (x0, x1), (y0, y1) = phase_damage(faces[0], faces[1])
        lives[0] -= x0
        lives[1] -= x1
        if lives[0] > 0 and lives[1] > 0:
            lives[0] -= y0
            lives[1] -= y1
        dead = (lives[0] <= 0, lives[1] <= 0)
        if dead[0] and dead[1]:
            return None, round_number, "normal"
        if dead[0] or dead[1]:
            return (1 if dead[0] else 0), round_number, "normal"
    if lives[0] == lives[1]:
        return None, max_rounds, "round_cap"
    return (0 if lives[0] > lives[1] else 1), max_rounds, "round_cap"


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = (
        z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    )
    return max(0.0, centre - half), min(1.0, centre + half)


def exact_report() -> dict[str, Any]:
    """The exact table and the balance equilibrium (the `/odds diceman` numbers)."""
    table = matchup_table()
    solution = equilibrium()
    return {
        "combos": [list(c) for c in COMBOS],
        "labels": [label(c) for c in COMBOS],
        "outcomes_enumerated": sum(outcome_count(i, j) for i in range(6) for j in range(6)),
        "table": [[cell.to_dict() for cell in line] for line in table.entries],
        "equilibrium": {
            "mix": {label(c): float(p) for c, p in solution.mix.items()},
            "mix_exact": {label(c): str(p) for c, p in solution.mix.items()},
            "value": float(solution.value),
            "exploitability": float(solution.exploitability),
        },
        "opening_mix_kill_aware": {
            label(c): p for c, p in round_strategy((START_LIFE, START_LIFE)).items()
        },
        "opening_value_solved": float(position_values(START_LIFE).value[START_LIFE, START_LIFE]),
    }


def _record(
    policies: tuple[Policy, Policy], games: int, rng: random.Random, progress: Progress
) -> dict[str, Any]:
    """Seat-alternated record of ``policies[0]`` (the subject) against ``policies[1]``."""
    wins = losses = draws = capped = 0
    rounds: Counter[int] = Counter()
    for game in range(games):
        subject = game % 2
        seated = policies if subject == 0 else (policies[1], policies[0])
        winner, length, reason = play_game(seated, rng)
        rounds[length] += 1
        capped += reason == "round_cap"
        if winner is None:
            draws += 1
        elif winner == subject:
            wins += 1
        else:
            losses += 1
        progress.advance()
    score = (wins + draws / 2) / games
    low, high = wilson(wins + draws / 2, games)
    return {
        "games": games,
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "score": score,
        "score_ci95": [low, high],
        "mean_rounds": sum(k * v for k, v in rounds.items()) / games,
        "round_cap_rate": capped / games,
    }


def simulate(games: int, seed: int | None, *, show_progress: bool = True) -> dict[str, Any]:
    rng = random.Random(seed)
    total = games * (1 + len(COMBOS))
    with Progress(total, "diceman games", enabled=show_progress and total >= 2000) as progress:
        # AI against itself: report seat 0's record (the game is symmetric, expect ~50%).
        mirror = _record_seats((ai_policy, ai_policy), games, rng, progress)
        pure = {
            label(combo): _record((pure_policy(i), ai_policy), games, rng, progress)
            for i, combo in enumerate(COMBOS)
        }
    return {"games_per_matchup": games, "ai_vs_ai": mirror, "pure_vs_ai": pure}


def _record_seats(
    policies: tuple[Policy, Policy], games: int, rng: random.Random, progress: Progress
) -> dict[str, Any]:
    outcomes: Counter[str] = Counter()
    rounds: Counter[int] = Counter()
    capped = 0
    for _ in range(games):
        winner, length, reason = play_game(policies, rng)
        outcomes["draw" if winner is None else f"seat{winner}"] += 1
        rounds[length] += 1
        capped += reason == "round_cap"
        progress.advance()
    low, high = wilson(outcomes["seat0"], games)
    ordered = sorted(rounds.elements())
    return {
        "games": games,
        "seat0_wins": outcomes["seat0"],
        "seat1_wins": outcomes["seat1"],
        "draws": outcomes["draw"],
        "seat0_win_rate": outcomes["seat0"] / games,
        "seat0_win_ci95": [low, high],
        "mean_rounds": sum(ordered) / games,
        "median_rounds": ordered[games // 2],
        "round_cap_rate": capped / games,
    }


HELP = """Diceman, exactly and by simulation.

Exact: every pair of two-die combinations (M = Magic d4, P = Priority d6, S = Sword d8,
H = Shield d10; "M+H" = Magic and Shield) with every roll enumerated: the chance the row's
combo deals more damage than the column's in one round, the expected damage balance, and
the mix that no combination can beat on that balance (what /odds diceman shows).

Simulated (--games per matchup, 20 life each, 30-round cap): the bot's AI against itself,
and each fixed combination played every round against the AI, seats alternating."""
EXAMPLES = [
    ("", "the exact tables and 5,000 games per matchup (a few seconds)"),
    ("--games 0", "the exact tables alone, in well under a second"),
    ("--games 20000 --seed 7", "tighter confidence intervals, repeatable"),
]
COMBO_LEGEND = (
    "M+P, M+S, M+H, P+S, P+H, S+H",
    "the two dice picked: M Magic d4, P Priority d6, S Sword d8, H Shield d10",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games",
        type=non_negative_int,
        default=DEFAULT_GAMES,
        help=f"games per matchup in the simulations (default {DEFAULT_GAMES:,}; 0 skips them)",
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    seed: int = args.seed  # main() draws one when --seed is not given
    report: dict[str, Any] = {"seed": seed, "exact": exact_report()}
    if args.games > 0:
        report["simulation"] = simulate(
            args.games, seed, show_progress=not getattr(args, "no_progress", False)
        )
    return report


def render(report: dict[str, Any]) -> str:
    exact = report["exact"]
    labels = exact["labels"]
    lines = [
        f"Diceman, one round: row combination against column combination (every roll "
        f"enumerated: {exact['outcomes_enumerated']:,} outcomes)",
        *table(
            [Column("row", "<"), *(Column(name) for name in labels)],
            [
                [name, *(f"{cell['p_more']:.1%} {cell['balance']:+.2f}" for cell in line)]
                for name, line in zip(labels, exact["table"], strict=True)
            ],
            [
                ("row", "the combination whose chances are given"),
                COMBO_LEGEND,
                (
                    "each cell",
                    "the chance the row deals more damage than the column in a round, then "
                    "the expected damage balance (damage dealt minus damage taken)",
                ),
            ],
        ),
    ]
    eq = exact["equilibrium"]
    lines += [
        "",
        "The mix no combination beats on damage balance (value "
        f"{eq['value']:+.4f}, exploitability {eq['exploitability']:.4f})",
        *table(
            [Column("combo", "<"), Column("share"), Column("exact"), Column("opening")],
            [
                [
                    name,
                    f"{eq['mix'][name]:.1%}",
                    eq["mix_exact"][name],
                    f"{exact['opening_mix_kill_aware'][name]:.1%}",
                ]
                for name in labels
            ],
            [
                ("combo", "the combination picked"),
                COMBO_LEGEND,
                ("share, exact", "how often the mix picks it, rounded and as a fraction"),
                (
                    "opening",
                    "how often the bot's AI opens with it at 20 life each: it plays the "
                    "whole game to win, so its mix differs a little",
                ),
                ("value", "the mix's expected damage balance against any reply (0: fair)"),
                ("exploitability", "what the best reply would gain over the value (0: exact)"),
            ],
        ),
    ]
    simulation = report.get("simulation")
    if simulation:
        mirror = simulation["ai_vs_ai"]
        low, high = mirror["seat0_win_ci95"]
        lines += [
            "",
            f"Whole games: 20 life each, 30-round cap, {simulation['games_per_matchup']:,} "
            f"games per matchup, seed {report['seed']}",
            f"  AI vs AI: the first seat wins {mirror['seat0_win_rate']:.1%} (95% CI "
            f"{low:.1%} to {high:.1%}), draws {mirror['draws']};",
            f"  {mirror['mean_rounds']:.1f} rounds on average (median "
            f"{mirror['median_rounds']}), {mirror['round_cap_rate']:.1%} reach the cap",
            "",
            "One fixed combination every round against the AI (seats alternating)",
        ]
        rows = []
        for name in labels:
            row = simulation["pure_vs_ai"][name]
            low, high = row["score_ci95"]
            rows.append(
                [
                    name,
                    f"{row['wins']:,}",
                    f"{row['losses']:,}",
                    f"{row['draws']:,}",
                    f"{row['score']:.1%}",
                    f"{low:.1%} to {high:.1%}",
                    f"{row['mean_rounds']:.1f}",
                ]
            )
        lines += table(
            [
                Column("combo", "<"),
                Column("wins"),
                Column("losses"),
                Column("draws"),
                Column("score"),
                Column("95% CI"),
                Column("rounds"),
            ],
            rows,
            [
                ("combo", "the combination played every round"),
                COMBO_LEGEND,
                ("wins, losses, draws", "its games against the AI"),
                ("score", "(wins + half the draws) / games: 50% would match the AI"),
                ("95% CI", "the range the true score lies in, 19 times out of 20"),
                ("rounds", "the mean length of those games"),
            ],
        )
    return "\n".join(lines)
