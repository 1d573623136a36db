"""Weighted Dice: exact duel odds, and how long games last and what the house earns.

Two parts:

- **Exact odds.** For every pair of dice from {d4, d6, d8, d10, d12, d20}, the probability
  that each roller wins and of a tie (``odds_table``; ``pair_odds`` is the JSON-friendly
  answer for one pair, which the Discord ``/odds weighted die_a die_b`` command can show;
  ``game_core.weighted_dice.win_probabilities`` gives the same numbers as ``Fraction``s).
- **Simulated games.** Simple strategies play whole games; we count the rounds a game lasts
  (the designer aimed at 10-12) and which share of the points created goes to the house.
  House strategies: ``greedy`` makes the two leaders roll, with the die pair that maximises
  the house's expected change given how the bettors behave; ``random`` picks rollers and
  dice uniformly. Bettor strategies: ``favourite`` backs the likelier winner (a coin flip on
  even dice); ``proportional`` backs each roller with its chance of winning. Either way a
  bettor stakes ``max(1, floor(fraction * points))``, and each bettor sits a round out with
  probability ``skip_share``.

The simulator keeps a game as plain lists and scores with the engine's own
``settle_round``; it draws from two rngs, one for the dice (in exactly the order the engine
rolls: the roll-off, then roller 0 and roller 1 each round) and one for the strategies, so
the tests can replay the same game through ``apply`` and compare.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from game_core.analysis.cli import Column, table
from game_core.analysis.progress import Progress
from game_core.dice import roll
from game_core.weighted_dice import (
    DICE,
    FLOOR_POINTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    STARTING_POINTS,
    TARGET_POINTS,
    roll_off,
    settle_round,
    win_probabilities,
)

__all__ = [
    "BETTOR_STRATEGIES",
    "HOUSE_STRATEGIES",
    "GameStats",
    "Strategy",
    "add_arguments",
    "choose_bet",
    "choose_setup",
    "house_expectation",
    "odds_table",
    "pair_odds",
    "percentile",
    "render",
    "run",
    "simulate_game",
    "summarise",
]

HOUSE_STRATEGIES = ("greedy", "random")
BETTOR_STRATEGIES = ("favourite", "proportional")
# A guard, not a rule: a game that has not ended after this many rounds is stopped and
# counted apart, so a pathological strategy cannot hang the lab.
ROUND_CAP = 2000
DEFAULT_GAMES = 2000
# Draw the progress bar only for runs long enough to notice (games x strategy mixes).
PROGRESS_THRESHOLD = 2000
DESIGN_ROUNDS = (10, 12)


# ---------------------------------------------------------------------------------------
# Exact odds.
# ---------------------------------------------------------------------------------------


def pair_odds(die_a: int, die_b: int) -> dict[str, Any]:
    """The exact chances for one pair of dice, JSON-friendly (fractions as "a/b" strings).

    Raises ``IllegalMove`` for a die outside {4, 6, 8, 10, 12, 20}.
    """
    a_wins, b_wins, tie = win_probabilities(die_a, die_b)
    return {
        "die_a": die_a,
        "die_b": die_b,
        "a_wins": str(a_wins),
        "b_wins": str(b_wins),
        "tie": str(tie),
        "a_wins_pct": round(100 * float(a_wins), 2),
        "b_wins_pct": round(100 * float(b_wins), 2),
        "tie_pct": round(100 * float(tie), 2),
    }


def odds_table() -> list[dict[str, Any]]:
    """``pair_odds`` for all 36 ordered pairs, row die first (d4 vs d4, d4 vs d6, ...)."""
    return [pair_odds(die_a, die_b) for die_a in DICE for die_b in DICE]


# ---------------------------------------------------------------------------------------
# Strategies. Compact inputs (lists of ints) so the simulator stays fast.
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Strategy:
    house: str = "greedy"
    bettors: str = "favourite"
    bet_fraction: float = 0.25
    skip_share: float = 0.2

    def stake(self, points: int) -> int:
        return max(1, int(points * self.bet_fraction))


def _stake_value(strategy: Strategy, house_points: int, bettor_points: Sequence[int]) -> Fraction:
    # What a tie is worth to the house on average: every stake, or a drop to 5 if nobody bet.
    bet_chance = Fraction(1) - Fraction(strategy.skip_share)
    expected_stakes = bet_chance * sum(strategy.stake(points) for points in bettor_points)
    nobody = Fraction(strategy.skip_share) ** len(bettor_points)
    return expected_stakes + nobody * (FLOOR_POINTS - house_points)


def house_expectation(
    strategy: Strategy, house_points: int, bettor_points: Sequence[int], dice: tuple[int, int]
) -> Fraction:
    """The house's exact expected change for a setup, if the bettors follow ``strategy``.

    The house moves only on a tie, so this is P(tie) times what a tie is worth.
    """
    tie = win_probabilities(dice[0], dice[1])[2]
    return tie * _stake_value(strategy, house_points, bettor_points)


_PAIRS = [(die_a, die_b) for die_a in DICE for die_b in DICE]
_TIE = {pair: win_probabilities(*pair)[2] for pair in _PAIRS}
# The greedy house's choice only depends on the sign of what a tie is worth: the most tie-
# prone pair when it is positive, the least when negative. Among equally good pairs the
# smaller dice win, so the leaders gain less: d4/d4, d4/d20, and d4/d4 when it is zero.
_GREEDY_PAIR = {
    1: max(_PAIRS, key=lambda pair: (_TIE[pair], -sum(pair))),
    -1: max(_PAIRS, key=lambda pair: (-_TIE[pair], -sum(pair))),
    0: max(_PAIRS, key=lambda pair: -sum(pair)),
}
# P(roller 0 wins | somebody wins), and the favourite (None when the dice are equal).
_FIRST_SHARE = {pair: float(win_probabilities(*pair)[0] / (1 - _TIE[pair])) for pair in _PAIRS}
_FAVOURITE = {pair: None if pair[0] == pair[1] else int(pair[1] > pair[0]) for pair in _PAIRS}


def choose_setup(
    strategy: Strategy, scores: Sequence[int], house: int, rng: random.Random
) -> tuple[list[int], list[int]]:
    """The house's rollers and dice (everyone is seated in a simulation).

    ``greedy``: the two leaders roll (lower seat first on equal points) with the die pair
    that maximises ``house_expectation``. ``random``: uniform rollers and dice.
    """
    candidates = [seat for seat in range(len(scores)) if seat != house]
    if strategy.house == "random":
        rollers = rng.sample(candidates, 2)
        return rollers, [rng.choice(DICE), rng.choice(DICE)]
    leaders = sorted(candidates, key=lambda seat: (-scores[seat], seat))[:2]
    bettor_points = [scores[seat] for seat in candidates if seat not in leaders]
    value = _stake_value(strategy, scores[house], bettor_points)
    sign = (value > 0) - (value < 0)
    return leaders, list(_GREEDY_PAIR[sign])


def choose_bet(
    strategy: Strategy, points: int, dice: Sequence[int], rng: random.Random
) -> tuple[int, int] | None:
    """(roller backed, amount) or None to sit the round out."""
    if rng.random() < strategy.skip_share:
        return None
    pair = (dice[0], dice[1])
    if strategy.bettors == "proportional":
        side = 0 if rng.random() < _FIRST_SHARE[pair] else 1
    else:
        favourite = _FAVOURITE[pair]
        side = rng.randrange(2) if favourite is None else favourite
    return side, strategy.stake(points)


# ---------------------------------------------------------------------------------------
# The simulator.
# ---------------------------------------------------------------------------------------


@dataclass
class GameStats:
    rounds: int = 0
    capped: bool = False
    ties: int = 0
    rigged: int = 0
    # Points gained, by whom; and points lost (after the floor) by bettors and rigged houses.
    bettor_gain: int = 0
    roller_gain: int = 0
    house_gain: int = 0
    bettor_loss: int = 0
    rigging_loss: int = 0
    final_scores: list[int] = field(default_factory=list)

    @property
    def created(self) -> int:
        return self.bettor_gain + self.roller_gain + self.house_gain


def simulate_game(
    players: int,
    strategy: Strategy,
    dice_rng: random.Random,
    choice_rng: random.Random,
    *,
    starting_points: int = STARTING_POINTS,
    target: int = TARGET_POINTS,
    round_cap: int = ROUND_CAP,
) -> GameStats:
    """One whole game with nobody leaving; every bettor decides in seat order."""
    scores = [starting_points] * players
    house, _ = roll_off(dice_rng, range(players))
    stats = GameStats()
    while stats.rounds < round_cap:
        rollers, dice = choose_setup(strategy, scores, house, choice_rng)
        bets: dict[int, tuple[int, int]] = {}
        for seat in range(players):
            if seat == house or seat in rollers:
                continue
            bet = choose_bet(strategy, scores[seat], dice, choice_rng)
            if bet is not None:
                bets[seat] = bet
        rolls = (roll(dice_rng, dice[0]), roll(dice_rng, dice[1]))
        changes = settle_round(
            dict(enumerate(scores)), house, (rollers[0], rollers[1]), rolls, bets
        )
        stats.rounds += 1
        for change in changes.values():
            delta = change.after - change.before
            if change.reason in ("won_bet", "won_bet_half"):
                stats.bettor_gain += delta
            elif change.reason == "roller_won":
                stats.roller_gain += delta
            elif change.reason == "house_tie":
                stats.house_gain += delta
            elif change.reason in ("lost_bet", "lost_bet_tie"):
                stats.bettor_loss -= delta
            elif change.reason == "house_rigged":
                stats.rigging_loss -= delta
        if rolls[0] == rolls[1]:
            stats.ties += 1
            stats.rigged += not bets
        scores = [changes[seat].after for seat in range(players)]
        if max(scores) >= target:
            break
        house = (house + 1) % players
    else:
        stats.capped = True
    stats.final_scores = scores
    return stats


def percentile(ordered: Sequence[int], share: float) -> float:
    # Linear interpolation between closest ranks (numpy's default), on sorted data.
    position = share * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarise(games: Sequence[GameStats]) -> dict[str, Any]:
    """Rounds per game and where the points came from, over finished (uncapped) games."""
    finished = [game for game in games if not game.capped]
    rounds = sorted(game.rounds for game in finished)
    created = sum(game.created for game in finished)
    house = sum(game.house_gain for game in finished)
    low, high = DESIGN_ROUNDS
    summary: dict[str, Any] = {
        "games": len(games),
        "capped": len(games) - len(finished),
    }
    if not rounds:
        return summary
    summary["rounds"] = {
        "mean": round(statistics.fmean(rounds), 2),
        "median": percentile(rounds, 0.5),
        "p10": percentile(rounds, 0.1),
        "p25": percentile(rounds, 0.25),
        "p75": percentile(rounds, 0.75),
        "p90": percentile(rounds, 0.9),
        "min": rounds[0],
        "max": rounds[-1],
        "share_in_design_range": round(sum(low <= r <= high for r in rounds) / len(rounds), 4),
    }
    total_rounds = sum(rounds)
    summary["points"] = {
        "created_per_game": round(created / len(finished), 2),
        "house_share": round(house / created, 4) if created else 0.0,
        "bettor_share": round(sum(g.bettor_gain for g in finished) / created, 4)
        if created
        else 0.0,
        "roller_share": round(sum(g.roller_gain for g in finished) / created, 4)
        if created
        else 0.0,
        "lost_per_game": round(
            sum(g.bettor_loss + g.rigging_loss for g in finished) / len(finished), 2
        ),
        "tie_rate": round(sum(g.ties for g in finished) / total_rounds, 4),
        "rigged_rate": round(sum(g.rigged for g in finished) / total_rounds, 4),
    }
    return summary


# ---------------------------------------------------------------------------------------
# The command line: add_arguments / run / render.
# ---------------------------------------------------------------------------------------


def _player_count(text: str) -> int:
    value = int(text)
    if not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}")
    return value


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError("must be at least 0 and below 1")
    return value


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError("must be above 0 and at most 1")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


HOUSE_HELP = {
    "greedy": "makes the two leaders roll, with the pair of dice that earns the house the "
    "most given how the bettors bet",
    "random": "picks the two rollers and their dice at random",
}
BETTOR_HELP = {
    "favourite": "backs the roller more likely to win (a coin flip when the dice are equal)",
    "proportional": "backs each roller as often as it wins (a d12 against a d4: 79% of the time)",
}
HELP = (
    """Weighted Dice, exactly and by simulation.

Exact: for every pair of dice (d4 to d20), the chance each roller wins and the chance of a
tie (the house takes the bets), as /odds weighted shows.

Simulated: whole games with simple strategies, for every mix of table size (--players),
house strategy (--house) and bettor strategy (--bettors): how many rounds a game lasts (the
designer aimed at 10-12) and who gets the points created.
House strategies:
"""
    + "\n".join(f"  {name:<13}{what}" for name, what in HOUSE_HELP.items())
    + "\nBettor strategies (each bettor stakes --bet-fraction of their points, at least 1):\n"
    + "\n".join(f"  {name:<13}{what}" for name, what in BETTOR_HELP.items())
)
EXAMPLES = [
    ("", "the odds, and 2,000 games per mix at 5 and 12 players (a few seconds)"),
    ("--players 5 6 7 8 --house greedy", "a greedy house at four table sizes"),
    ("--bettors proportional --bet-fraction 0.5 --target 100", "bolder bettors, a shorter game"),
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games",
        type=_positive,
        default=DEFAULT_GAMES,
        help=f"games per mix of table size and strategies (default {DEFAULT_GAMES:,})",
    )
    parser.add_argument(
        "--players",
        type=_player_count,
        nargs="+",
        default=[MIN_PLAYERS, MAX_PLAYERS],
        metavar="N",
        help=f"table sizes to simulate, {MIN_PLAYERS} to {MAX_PLAYERS} (default "
        f"{MIN_PLAYERS} {MAX_PLAYERS})",
    )
    parser.add_argument(
        "--house",
        choices=HOUSE_STRATEGIES,
        nargs="+",
        default=list(HOUSE_STRATEGIES),
        help=f"house strategies to simulate, from {', '.join(HOUSE_STRATEGIES)} (default "
        "both; see above)",
    )
    parser.add_argument(
        "--bettors",
        choices=BETTOR_STRATEGIES,
        nargs="+",
        default=list(BETTOR_STRATEGIES),
        help=f"bettor strategies to simulate, from {', '.join(BETTOR_STRATEGIES)} (default "
        "both; see above)",
    )
    parser.add_argument(
        "--bet-fraction",
        type=_fraction,
        default=0.25,
        help="share of their points bettors stake, above 0 and at most 1 (default 0.25)",
    )
    parser.add_argument(
        "--skip-share",
        type=_share,
        default=0.2,
        help="chance a bettor sits a round out, 0 to below 1 (default 0.2)",
    )
    parser.add_argument(
        "--target",
        type=_positive,
        default=TARGET_POINTS,
        help=f"points that win the game (default {TARGET_POINTS}, as in the bot)",
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    seed: int = args.seed  # main() draws one when --seed is not given
    mixes = [
        (players, Strategy(house, bettors, args.bet_fraction, args.skip_share))
        for players in args.players
        for house in args.house
        for bettors in args.bettors
    ]
    total = args.games * len(mixes)
    simulations = []
    with Progress(
        total,
        "weighted-dice",
        enabled=not getattr(args, "no_progress", False) and total >= PROGRESS_THRESHOLD,
    ) as progress:
        for players, strategy in mixes:
            # String seeds hash deterministically, so each mix is repeatable on its own.
            mix_rng = random.Random(f"{seed}:{players}:{strategy.house}:{strategy.bettors}")
            games = []
            for _ in range(args.games):
                dice_rng = random.Random(mix_rng.getrandbits(64))
                choice_rng = random.Random(mix_rng.getrandbits(64))
                games.append(
                    simulate_game(players, strategy, dice_rng, choice_rng, target=args.target)
                )
                progress.advance()
            simulations.append(
                {
                    "players": players,
                    "house": strategy.house,
                    "bettors": strategy.bettors,
                    **summarise(games),
                }
            )
    return {
        "game": "weighted-dice",
        "seed": seed,
        "settings": {
            "games": args.games,
            "players": list(args.players),
            "bet_fraction": args.bet_fraction,
            "skip_share": args.skip_share,
            "target": args.target,
            "starting_points": STARTING_POINTS,
            "round_cap": ROUND_CAP,
        },
        "odds": odds_table(),
        "simulations": simulations,
    }


def _grid(title: str, cells: dict[tuple[int, int], str], meaning: str) -> list[str]:
    names = [f"d{die}" for die in DICE]
    return [
        title,
        *table(
            [Column("row", "<"), *(Column(name) for name in names)],
            [[f"d{a}", *(cells[a, b] for b in DICE)] for a in DICE],
            [
                ("row", "the die of one roller"),
                (", ".join(names), "the die of the other roller"),
                ("each cell", meaning),
            ],
        ),
    ]


def render(report: dict[str, Any]) -> str:
    odds = {(row["die_a"], row["die_b"]): row for row in report["odds"]}
    lines = [
        "Weighted Dice: exact odds of one round",
        "",
        *_grid(
            "The row's roller wins",
            {pair: f"{row['a_wins_pct']:.1f}%" for pair, row in odds.items()},
            "the chance the row's roller rolls higher",
        ),
        "",
        *_grid(
            "A tie (the house takes every bet)",
            {pair: f"{row['tie_pct']:.1f}%" for pair, row in odds.items()},
            "the chance both roll the same number",
        ),
        "",
    ]
    settings = report["settings"]
    low, high = DESIGN_ROUNDS
    lines.append(
        f"Whole games: {settings['games']:,} per mix, seed {report['seed']}; bettors stake "
        f"{settings['bet_fraction']:.0%} of their points and {settings['skip_share']:.0%} "
        f"sit each round out; first to {settings['target']} points"
    )
    mix = [Column("players"), Column("house", "<"), Column("bettors", "<")]
    mix_legend = [
        ("players", "seats at the table (--players)"),
        ("house, bettors", "the strategies (see --help)"),
    ]
    rounds_rows, points_rows, notes = [], [], []
    for sim in report["simulations"]:
        start = [str(sim["players"]), sim["house"], sim["bettors"]]
        if "rounds" not in sim:
            rounds_rows.append([*start, "-", "-", "-", "-", "-"])
            points_rows.append([*start, "-", "-", "-", "-", "-"])
            notes.append(
                f"every game of {' '.join(start)} hit the {settings['round_cap']}-round cap"
            )
            continue
        r, p = sim["rounds"], sim["points"]
        rounds_rows.append(
            [
                *start,
                f"{r['mean']:.1f}",
                f"{r['median']:.1f}",
                f"{r['p10']:.0f}",
                f"{r['p90']:.0f}",
                f"{r['share_in_design_range']:.1%}",
            ]
        )
        points_rows.append(
            [
                *start,
                f"{p['house_share']:.1%}",
                f"{p['bettor_share']:.1%}",
                f"{p['roller_share']:.1%}",
                f"{p['tie_rate']:.1%}",
                f"{p['rigged_rate']:.2%}",
            ]
        )
        if sim["capped"]:
            notes.append(
                f"{' '.join(start)}: {sim['capped']} games stopped at the round cap, left out"
            )
    lines += ["", "Rounds per game"]
    lines += table(
        [
            *mix,
            Column("mean"),
            Column("median"),
            Column("p10"),
            Column("p90"),
            Column(f"{low}-{high}"),
        ],
        rounds_rows,
        [
            *mix_legend,
            ("mean, median, p10, p90", "rounds per game: 10% of games end by p10, 90% by p90"),
            (f"{low}-{high}", f"share of games lasting {low} to {high} rounds, the designer's aim"),
        ],
    )
    lines += ["", "Where the points went"]
    lines += table(
        [
            *mix,
            Column("to house"),
            Column("to bettors"),
            Column("to rollers"),
            Column("ties"),
            Column("rigged"),
        ],
        points_rows,
        [
            *mix_legend,
            (
                "to house, to bettors, to rollers",
                "shares of the points created: the house's on ties, bettors' who backed the "
                "winner, winning rollers'",
            ),
            ("ties", "share of rounds that were ties"),
            (
                "rigged",
                "share of rounds that were ties with nobody betting: the house is set to 5 points",
            ),
        ],
    )
    lines += [f"  ({note})" for note in notes]
    return "\n".join(lines)
