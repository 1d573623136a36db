"""Weighted Dice analysis: the odds table, the strategies, the simulator against the engine."""

from __future__ import annotations

import argparse
import itertools
import json
import random
from fractions import Fraction

import numpy as np
import pytest

from game_core.analysis import weighted_dice as lab
from game_core.errors import IllegalMove
from game_core.weighted_dice import (
    Bet,
    CloseBetting,
    Setup,
    WeightedDiceState,
    apply,
    is_finished,
    new_game,
    to_act,
    win_probabilities,
)

DICE = (4, 6, 8, 10, 12, 20)


def parser() -> argparse.ArgumentParser:
    """The same options the analysis dispatcher gives every game, plus ours."""
    built = argparse.ArgumentParser()
    built.add_argument("--seed", type=int, default=None)
    built.add_argument("--json", action="store_true")
    built.add_argument("--no-progress", action="store_true")
    lab.add_arguments(built)
    return built


def test_odds_table_covers_all_36_pairs_exactly() -> None:
    table = lab.odds_table()
    assert [(row["die_a"], row["die_b"]) for row in table] == list(itertools.product(DICE, DICE))
    for row in table:
        exact = win_probabilities(row["die_a"], row["die_b"])
        assert (Fraction(row["a_wins"]), Fraction(row["b_wins"]), Fraction(row["tie"])) == exact
        assert row["tie_pct"] == round(100 * float(exact[2]), 2)
    json.dumps(table)


def test_pair_odds_for_the_odds_command() -> None:
    assert lab.pair_odds(4, 4) == {
        "die_a": 4,
        "die_b": 4,
        "a_wins": "3/8",
        "b_wins": "3/8",
        "tie": "1/4",
        "a_wins_pct": 37.5,
        "b_wins_pct": 37.5,
        "tie_pct": 25.0,
    }
    with pytest.raises(IllegalMove):
        lab.pair_odds(4, 5)


@pytest.mark.parametrize("seed", range(25))
def test_greedy_house_picks_the_leaders_and_the_best_pair(seed: int) -> None:
    chooser = random.Random(seed)
    players = chooser.randint(5, 12)
    scores = [chooser.choice([5, 6, 20, 40, 90, 140]) for _ in range(players)]
    house = chooser.randrange(players)
    strategy = lab.Strategy("greedy", "favourite", chooser.choice([0.1, 0.5]), chooser.random())
    rollers, dice = lab.choose_setup(strategy, scores, house, random.Random(0))
    others = sorted((seat for seat in range(players) if seat != house), key=lambda s: -scores[s])
    assert sorted(scores[seat] for seat in rollers) == sorted(scores[s] for s in others[:2])
    bettors = [scores[seat] for seat in others if seat not in rollers]
    best = max(
        lab.house_expectation(strategy, scores[house], bettors, pair)
        for pair in itertools.product(DICE, DICE)
    )
    assert lab.house_expectation(strategy, scores[house], bettors, (dice[0], dice[1])) == best


def test_house_expectation_by_hand() -> None:
    strategy = lab.Strategy("greedy", "favourite", bet_fraction=0.5, skip_share=0.5)
    # Two bettors at 20 stake 10 each half the time: 10 expected; nobody bets 1/4 of the
    # time, which costs a house at 45 its 40 points above the floor. A d4 pair ties 1/4.
    assert lab.house_expectation(strategy, 45, [20, 20], (4, 4)) == Fraction(1, 4) * (10 - 10)
    assert lab.house_expectation(strategy, 25, [20, 20], (4, 20)) == Fraction(1, 20) * 5


def test_favourite_bettor_backs_the_bigger_die() -> None:
    strategy = lab.Strategy("random", "favourite", bet_fraction=0.25, skip_share=0.0)
    assert lab.choose_bet(strategy, 20, [4, 20], random.Random(1)) == (1, 5)
    assert lab.choose_bet(strategy, 20, [12, 6], random.Random(1)) == (0, 5)
    # The stake never falls below 1 point.
    assert lab.choose_bet(strategy, 3, [12, 6], random.Random(1)) == (0, 1)
    sitting_out = lab.Strategy("random", "favourite", skip_share=0.999999)
    assert lab.choose_bet(sitting_out, 20, [4, 20], random.Random(1)) is None


def engine_game(
    players: int, strategy: lab.Strategy, dice_rng: random.Random, choice_rng: random.Random
) -> WeightedDiceState:
    """The same strategies played through the real engine, one action at a time."""
    state, _ = new_game(players, dice_rng)
    while not is_finished(state):
        rollers, dice = lab.choose_setup(strategy, state.scores, state.house, choice_rng)
        setup = Setup(player=state.house, rollers=rollers, dice=dice)
        state, _ = apply(state, setup, dice_rng)
        this_round = state.round
        for seat in to_act(state):
            bet = lab.choose_bet(strategy, state.scores[seat], state.dice, choice_rng)
            if bet is not None:
                action = Bet(player=seat, roller=bet[0], amount=bet[1])
                state, _ = apply(state, action, dice_rng)
        if state.round == this_round and state.phase == "betting":
            state, _ = apply(state, CloseBetting(), dice_rng)
    return state


@pytest.mark.parametrize(
    ("players", "house", "bettors"),
    [(5, "greedy", "favourite"), (12, "random", "proportional"), (8, "random", "favourite")],
)
def test_simulator_plays_exactly_like_the_engine(players: int, house: str, bettors: str) -> None:
    strategy = lab.Strategy(house, bettors, bet_fraction=0.3, skip_share=0.25)
    for seed in range(4):
        stats = lab.simulate_game(players, strategy, random.Random(seed), random.Random(seed + 100))
        state = engine_game(players, strategy, random.Random(seed), random.Random(seed + 100))
        assert not stats.capped
        assert stats.final_scores == state.scores
        assert stats.rounds == state.rounds_played
        created = sum(state.scores) - 20 * players
        lost = stats.bettor_loss + stats.rigging_loss
        assert stats.created - lost == created


def test_summary_statistics() -> None:
    games = [lab.GameStats(rounds=r, house_gain=r, roller_gain=3 * r) for r in (4, 9, 11, 12, 30)]
    games.append(lab.GameStats(rounds=2000, capped=True))
    summary = lab.summarise(games)
    assert summary["games"] == 6 and summary["capped"] == 1
    rounds = [4, 9, 11, 12, 30]
    assert summary["rounds"]["mean"] == pytest.approx(np.mean(rounds))
    for key, share in [("median", 50), ("p10", 10), ("p25", 25), ("p75", 75), ("p90", 90)]:
        assert summary["rounds"][key] == pytest.approx(np.percentile(rounds, share))
    assert summary["rounds"]["share_in_design_range"] == pytest.approx(2 / 5)
    assert summary["points"]["house_share"] == pytest.approx(0.25)


def test_run_is_repeatable_and_reports_both_table_sizes() -> None:
    args = parser().parse_args(["--games", "30", "--seed", "5", "--no-progress"])
    report = lab.run(args)
    assert lab.run(args) == report
    assert report["seed"] == 5 and len(report["odds"]) == 36
    sims = report["simulations"]
    assert [(s["players"], s["house"], s["bettors"]) for s in sims] == [
        (players, house, bettors)
        for players in (5, 12)
        for house in ("greedy", "random")
        for bettors in ("favourite", "proportional")
    ]
    for sim in sims:
        assert sim["games"] == 30 and sim["capped"] == 0
        assert sim["rounds"]["min"] >= 1
        assert 0 < sim["points"]["house_share"] < 1
    json.dumps(report)
    text = lab.render(report)
    assert "The row's roller wins" in text and "A tie (the house takes every bet)" in text
    assert "greedy" in text and "proportional" in text


def test_run_respects_the_chosen_strategies_and_target() -> None:
    argv = "--games 10 --seed 1 --players 7 --house random --bettors favourite --target 60"
    args = parser().parse_args(argv.split())
    report = lab.run(args)
    assert [(s["players"], s["house"], s["bettors"]) for s in report["simulations"]] == [
        (7, "random", "favourite")
    ]
    assert report["settings"]["target"] == 60


@pytest.mark.parametrize(
    "argv",
    [
        "--players 4",
        "--players 13",
        "--games 0",
        "--skip-share 1",
        "--bet-fraction 0",
        "--house clever",
    ],
)
def test_command_line_rejects_bad_options(argv: str) -> None:
    with pytest.raises(SystemExit):
        parser().parse_args(argv.split())
