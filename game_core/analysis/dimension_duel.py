"""Dimension Duel: Tau's first-attack advantage and game length, classic and tactical.

Classic mode plays the card's all-dice duel; tactical mode plays the AI against itself and
against a uniformly random legal player (seats alternating). Every simulated game draws from
the RNG in the engine's order, so a seed replays the same games the engine would play.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from game_core.ai.dimension_duel import pick, random_pick
from game_core.analysis.cli import Column, non_negative_int, positive_int, table
from game_core.analysis.diceman import wilson
from game_core.analysis.progress import Progress
from game_core.dimension_duel import (
    CHARGE_OF,
    CHARGES,
    DEFAULT_HP,
    DIE,
    FUNCTIONS,
    device_from_die,
    dice_to_roll,
    function_from_dice,
    region_from_die,
    resolve_turn,
)

# A tactical agent: (own hp, opponent's hp, attacking?, own usable functions, opponent's
# usable functions, rng) -> (device, region, function).
Agent = Callable[
    [int, int, bool, Sequence[str], Sequence[str], random.Random], tuple[str, str, str]
]

DEFAULT_CLASSIC_GAMES = 10000
DEFAULT_TACTICAL_GAMES = 1000
TACTICAL_COST = 6  # measured: ~1.5 ms per tactical duel against ~0.25 ms per classic one
LENGTH_BUCKETS = ((1, 10), (11, 20), (21, 30), (31, 40), (41, 50), (51, 60), (61, 80), (81, None))


def ai_agent(
    hp: int,
    opponent_hp: int,
    attacking: bool,
    functions: Sequence[str],
    opponent_functions: Sequence[str],
    rng: random.Random,
) -> tuple[str, str, str]:
    return pick(hp, opponent_hp, attacking, functions, opponent_functions, rng)


def random_agent(
    hp: int,
    opponent_hp: int,
    attacking: bool,
    functions: Sequence[str],
    opponent_functions: Sequence[str],
    rng: random.Random,
) -> tuple[str, str, str]:
    return random_pick(functions, rng)


def _classic_choices(attacker: int, rng: random.Random) -> list[tuple[str, str, str]]:
    """The engine's classic draws: devices, then regions, then functions, attacker first."""
    order = (attacker, 1 - attacker)
    devices, regions, functions = [""] * 2, [""] * 2, [""] * 2
    for player in order:
        devices[player] = device_from_die(rng.randint(1, DIE))
    for player in order:
        regions[player] = region_from_die(rng.randint(1, DIE))
    for player in order:
        face = rng.randint(1, DIE)
        functions[player] = function_from_dice(face, rng.randint(1, DIE) if face == 6 else None)
    return [(devices[p], regions[p], functions[p]) for p in (0, 1)]


def play_duel(
    rng: random.Random,
    *,
    mode: str = "classic",
    agents: tuple[Agent, Agent] | None = None,
    start_hp: int = DEFAULT_HP,
) -> tuple[int | None, int]:
    """One whole duel without the engine's bookkeeping: (winner or None for a draw, turns)."""
    hp = [start_hp, start_hp]
    charges = [dict.fromkeys(CHARGES, 1), dict.fromkeys(CHARGES, 1)]
    attacker = 0
    turn = 1
    while True:
        if mode == "classic":
            choices = _classic_choices(attacker, rng)
        else:
            assert agents is not None
            usable = [
                [f for f in FUNCTIONS if (c := CHARGE_OF[f]) is None or charges[p][c] > 0]
                for p in (0, 1)
            ]
            choices = [
                agents[p](hp[p], hp[1 - p], attacker == p, usable[p], usable[1 - p], rng)
                for p in (0, 1)
            ]
            for p in (0, 1):
                charge = CHARGE_OF[choices[p][2]]
                if charge is not None:
                    charges[p][charge] -= 1
        defender = 1 - attacker
        arguments: dict[str, Any] = {
            "ray": choices[attacker][0],
            "shield": choices[defender][0],
            "focus": choices[attacker][1],
            "guard": choices[defender][1],
            "functions": (choices[0][2], choices[1][2]),
        }
        counts = dice_to_roll(attacker, **arguments)
        faces = (
            [rng.randint(1, DIE) for _ in range(counts[0])],
            [rng.randint(1, DIE) for _ in range(counts[1])],
        )
        outcome = resolve_turn((hp[0], hp[1]), attacker, rolls=faces, **arguments)
        hp = list(outcome.hp)
        if outcome.finished:
            return outcome.winner, turn
        attacker = defender
        turn += 1


def _lengths(turns: Counter[int], games: int) -> dict[str, Any]:
    ordered = sorted(turns.elements())
    buckets = {}
    for low, high in LENGTH_BUCKETS:
        name = f"{low}+" if high is None else f"{low}-{high}"
        buckets[name] = (
            sum(count for t, count in turns.items() if t >= low and (high is None or t <= high))
            / games
        )
    return {
        "mean": sum(ordered) / games,
        "median": ordered[games // 2],
        "p10": ordered[games // 10],
        "p90": ordered[(9 * games) // 10],
        "min": ordered[0],
        "max": ordered[-1],
        "buckets": buckets,
    }


def tau_advantage(
    games: int,
    rng: random.Random,
    progress: Progress,
    *,
    mode: str,
    agents: tuple[Agent, Agent] | None = None,
) -> dict[str, Any]:
    """Tau (who attacks first) against Kaon with the same kind of player on both seats."""
    outcomes: Counter[str] = Counter()
    turns: Counter[int] = Counter()
    for _ in range(games):
        winner, length = play_duel(rng, mode=mode, agents=agents)
        outcomes["draw" if winner is None else ("tau" if winner == 0 else "kaon")] += 1
        turns[length] += 1
        progress.advance()
    low, high = wilson(outcomes["tau"], games)
    decided = outcomes["tau"] + outcomes["kaon"]
    return {
        "games": games,
        "tau_wins": outcomes["tau"],
        "kaon_wins": outcomes["kaon"],
        "draws": outcomes["draw"],
        "tau_win_rate": outcomes["tau"] / games,
        "tau_win_ci95": [low, high],
        "tau_share_of_decided": outcomes["tau"] / decided if decided else 0.0,
        "length": _lengths(turns, games),
    }


def head_to_head(
    games: int, rng: random.Random, progress: Progress, subject: Agent, opponent: Agent
) -> dict[str, Any]:
    """``subject`` against ``opponent`` in tactical mode, seats alternating."""
    wins = losses = draws = 0
    wins_as_tau = games_as_tau = 0
    turns: Counter[int] = Counter()
    for game in range(games):
        seat = game % 2
        agents = (subject, opponent) if seat == 0 else (opponent, subject)
        winner, length = play_duel(rng, mode="tactical", agents=agents)
        turns[length] += 1
        games_as_tau += seat == 0
        if winner is None:
            draws += 1
        elif winner == seat:
            wins += 1
            wins_as_tau += seat == 0
        else:
            losses += 1
        progress.advance()
    low, high = wilson(wins + draws / 2, games)
    return {
        "games": games,
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "score": (wins + draws / 2) / games,
        "score_ci95": [low, high],
        "win_rate_as_tau": wins_as_tau / games_as_tau if games_as_tau else 0.0,
        "win_rate_as_kaon": (wins - wins_as_tau) / (games - games_as_tau)
        if games > games_as_tau
        else 0.0,
        "length": _lengths(turns, games),
    }


HELP = """Dimension Duel by simulation: how much does attacking first (Tau) win, and how
long is a duel, at the bot's default 75 hit points each?

Classic mode: the dice choose everything, as in the rule card. Tactical mode: the bot's AI
plays itself, then a player who picks uniformly among the legal choices (seats
alternating). Tau attacks on turn 1 and Kaon defends; they swap every turn."""
EXAMPLES = [
    ("", "10,000 classic and 1,000 tactical duels per pairing (a few seconds)"),
    ("--tactical-games 0", "classic mode alone"),
    ("--games 100000 --tactical-games 5000 --seed 3", "tighter intervals, repeatable"),
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games",
        type=positive_int,
        default=DEFAULT_CLASSIC_GAMES,
        help=f"classic-mode duels (default {DEFAULT_CLASSIC_GAMES:,})",
    )
    parser.add_argument(
        "--tactical-games",
        type=non_negative_int,
        default=DEFAULT_TACTICAL_GAMES,
        help=f"tactical duels per pairing (default {DEFAULT_TACTICAL_GAMES:,}; 0 skips them)",
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    seed: int = args.seed  # main() draws one when --seed is not given
    rng = random.Random(seed)
    classic_games = args.games
    tactical_games = getattr(args, "tactical_games", DEFAULT_TACTICAL_GAMES)
    total = classic_games + 2 * tactical_games
    report: dict[str, Any] = {"seed": seed, "start_hp": DEFAULT_HP}
    # The bar counts duels, but a tactical duel (the AI searching every turn) costs about
    # six classic ones: weigh them so any run past half a second shows the bar.
    work = classic_games + TACTICAL_COST * 2 * tactical_games
    enabled = not getattr(args, "no_progress", False) and work >= 2000
    with Progress(total, "dimension duels", enabled=enabled) as progress:
        report["classic"] = tau_advantage(classic_games, rng, progress, mode="classic")
        if tactical_games:
            report["tactical_ai_vs_ai"] = tau_advantage(
                tactical_games, rng, progress, mode="tactical", agents=(ai_agent, ai_agent)
            )
            report["tactical_ai_vs_random"] = head_to_head(
                tactical_games, rng, progress, ai_agent, random_agent
            )
    return report


def _advantage_lines(title: str, block: dict[str, Any]) -> list[str]:
    low, high = block["tau_win_ci95"]
    length = block["length"]
    return [
        f"{title} ({block['games']:,} duels):",
        f"  Tau (attacks first) wins {block['tau_win_rate']:.1%} (95% CI {low:.1%} to "
        f"{high:.1%}), Kaon {block['kaon_wins'] / block['games']:.1%}, draws {block['draws']};",
        f"  Tau wins {block['tau_share_of_decided']:.1%} of the duels that have a winner",
        f"  length in turns: mean {length['mean']:.1f}, median {length['median']}, 80% of "
        f"duels last {length['p10']} to {length['p90']}, shortest {length['min']}, longest "
        f"{length['max']}",
        *table(
            [Column("turns", "<"), *(Column(name) for name in length["buckets"])],
            [["duels", *(f"{share:.1%}" for share in length["buckets"].values())]],
            [
                ("turns", "how long a duel lasted, in turns (each turn is one attack)"),
                (", ".join(length["buckets"]), "the share of duels of that length"),
            ],
        ),
    ]


def render(report: dict[str, Any]) -> str:
    lines = [
        f"Dimension Duel: {report['start_hp']} hit points each, Tau attacks on turn 1, "
        f"seed {report['seed']}",
        "(95% CI: the range the true rate lies in, 19 times out of 20)",
        "",
    ]
    lines += _advantage_lines("Classic mode (every choice by the dice)", report["classic"])
    if "tactical_ai_vs_ai" in report:
        lines += [""]
        lines += _advantage_lines("Tactical mode, AI vs AI", report["tactical_ai_vs_ai"])
        versus = report["tactical_ai_vs_random"]
        low, high = versus["score_ci95"]
        lines += [
            "",
            f"Tactical mode, AI vs uniformly random legal player ({versus['games']:,} duels, "
            "seats alternating):",
            f"  AI wins {versus['wins']}, loses {versus['losses']}, draws {versus['draws']}: "
            f"score {versus['score']:.1%} (95% CI {low:.1%} to {high:.1%})",
            "  (score: (wins + half the draws) / duels; 50% would mean no better than random)",
            f"  wins as Tau {versus['win_rate_as_tau']:.1%}, as Kaon "
            f"{versus['win_rate_as_kaon']:.1%}; mean length {versus['length']['mean']:.1f} "
            "turns",
        ]
    return "\n".join(lines)
