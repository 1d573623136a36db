"""The Knucklebones analysis lab: report shape, determinism, and the two simulators agreeing."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from game_core.analysis import knucklebones as lab
from game_core.analysis.__main__ import main


def cli_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main(["knucklebones", *argv, "--json", "--no-progress"]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def test_cli_json_has_every_promised_field(capsys: pytest.CaptureFixture[str]) -> None:
    report = cli_json(capsys, ["--games", "300", "--seed", "3"])
    assert report["games"] == 300 and report["seed"] == 3
    assert report["engine"] == "vectorised"
    assert report["players"] == {"p1": "random", "p2": "random"}
    wins = report["first_player_wins"] + report["second_player_wins"] + report["draws"]
    assert wins == 300
    advantage = report["first_player_advantage"]
    decided = report["first_player_wins"] + report["second_player_wins"]
    assert advantage["decided_games"] == decided
    assert advantage["win_rate_decided"] == pytest.approx(report["first_player_wins"] / decided)
    assert advantage["win_rate_all"] == pytest.approx(report["first_player_wins"] / 300)
    for key in ("ci95_decided", "ci95_all"):
        low, high = advantage[key]
        assert 0 <= low < high <= 1
    assert advantage["ci95_decided"][0] <= advantage["win_rate_decided"]
    assert advantage["win_rate_decided"] <= advantage["ci95_decided"][1]
    turns = report["turns"]
    histogram = {int(length): count for length, count in turns["histogram"].items()}
    assert sum(histogram.values()) == 300 and min(histogram) >= 17
    mean = sum(length * count for length, count in histogram.items()) / 300
    assert report["mean_turns"] == pytest.approx(mean) == pytest.approx(turns["mean"])
    by_rank = sorted(turns["percentiles"].items(), key=lambda item: int(item[0][1:]))
    assert [name for name, _ in by_rank] == [
        "p1",
        "p5",
        "p10",
        "p25",
        "p50",
        "p75",
        "p90",
        "p95",
        "p99",
    ]
    values = [value for _, value in by_rank]
    assert values == sorted(values)
    assert turns["min"] == min(histogram) and turns["max"] == max(histogram)
    columns = report["first_move_column"]
    assert sum(row["games"] for row in columns.values()) == 300
    assert sum(row["wins"] for row in columns.values()) == report["first_player_wins"]
    per_player = report["per_player"]
    assert per_player["p1"]["games_first"] == per_player["p2"]["games_first"] == 150
    assert per_player["p1"]["wins"] == per_player["p2"]["losses"]
    assert per_player["p1"]["wins"] + per_player["p2"]["wins"] == decided


def test_cli_scalar_players_report_the_named_players(capsys: pytest.CaptureFixture[str]) -> None:
    report = cli_json(capsys, ["--games", "30", "--seed", "1", "--players", "hard", "stall"])
    assert report["engine"] == "scalar"
    assert report["per_player"]["p1"]["strategy"] == "hard"
    assert report["per_player"]["p2"]["strategy"] == "stall"
    p1 = report["per_player"]["p1"]
    assert p1["wins_when_first"] + p1["wins_when_second"] == p1["wins"]


def test_the_same_seed_gives_the_same_report(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--games", "500"], ["--games", "20", "--players", "medium", "easy"]):
        first = cli_json(capsys, [*argv, "--seed", "12"])
        again = cli_json(capsys, [*argv, "--seed", "12"])
        other = cli_json(capsys, [*argv, "--seed", "13"])
        assert first == again
        assert other != first


def test_the_vectorised_and_scalar_simulations_agree() -> None:
    games = 20_000
    vector = lab.simulate_random_games(games, seed=5)
    scalar = lab.simulate_games("random", "random", games, seed=5)
    assert vector["engine"] == "vectorised" and scalar["engine"] == "scalar"
    # Independent samples of the same distribution: compare within 4 standard errors.
    for key in ("first_player_wins", "second_player_wins", "draws"):
        p = (vector[key] + scalar[key]) / (2 * games)
        spread = math.sqrt(2 * p * (1 - p) / games)
        assert abs(vector[key] - scalar[key]) / games < 4 * spread, key
    sd = vector["turns"]["stdev"]
    assert abs(vector["mean_turns"] - scalar["mean_turns"]) < 4 * sd * math.sqrt(2 / games)
    for length in ("17", "18", "19", "20", "21"):
        share_v = vector["turns"]["histogram"][length] / games
        share_s = scalar["turns"]["histogram"][length] / games
        assert abs(share_v - share_s) < 4 * math.sqrt(2 * share_v * (1 - share_v) / games)


def test_random_play_matches_the_rule_card_facts() -> None:
    report = lab.simulate_random_games(50_000, seed=1)
    # Without removals a game lasts 17 turns; removals only make it longer.
    assert report["turns"]["min"] == 17
    assert 20 < report["mean_turns"] < 22
    # Moving first is a real advantage in random play (about 55% of decided games).
    advantage = report["first_player_advantage"]
    assert advantage["significant"] and advantage["ci95_decided"][0] > 0.53
    # The columns are symmetric, so no first-move column stands out.
    rates = [row["win_rate"] for row in report["first_move_column"].values()]
    assert max(rates) - min(rates) < 0.03


def test_scalar_results_do_not_depend_on_the_number_of_workers() -> None:
    one = lab.simulate_games("random", "medium", 2_100, seed=8, workers=1)
    two = lab.simulate_games("random", "medium", 2_100, seed=8, workers=2)
    assert one == two


def test_stalling_makes_games_longer() -> None:
    scenarios = lab.stall_scenarios(400, seed=2)
    assert set(scenarios) == set(lab.SCENARIOS)
    plain = scenarios["random_vs_random"]["mean_turns"]
    assert scenarios["stall_first"]["mean_turns"] > plain
    assert scenarios["stall_second"]["mean_turns"] > plain
    assert scenarios["both_stall"]["mean_turns"] > scenarios["stall_first"]["mean_turns"]
    assert scenarios["both_stall"]["players"] == {"p1": "stall", "p2": "stall"}


def test_play_game_reports_a_consistent_result() -> None:
    rng = random.Random(4)
    for index in range(200):
        winner, turns, column, score0, score1 = lab.play_game(index % 2, rng)
        assert turns >= 17 and column in (0, 1, 2)
        assert winner == (0 if score0 > score1 else 1 if score1 > score0 else -1)


@pytest.mark.parametrize(
    ("successes", "trials", "expected"),
    [(50, 100, (0.4038, 0.5962)), (0, 10, (0.0, 0.2775)), (10, 10, (0.7225, 1.0))],
)
def test_wilson_interval_known_values(
    successes: int, trials: int, expected: tuple[float, float]
) -> None:
    low, high = lab.wilson_interval(successes, trials)
    assert low == pytest.approx(expected[0], abs=1e-4)
    assert high == pytest.approx(expected[1], abs=1e-4)


def test_first_player_advantage_without_games() -> None:
    empty = lab.first_player_advantage(0, 0, 0)
    assert empty["win_rate_decided"] is None and empty["ci95_decided"] == [0.0, 1.0]
    assert empty["significant"] is False
    even = lab.first_player_advantage(500, 500, 10)
    assert even["win_rate_decided"] == 0.5 and even["significant"] is False


def test_the_cached_summary_is_a_fresh_copy_of_the_simulation() -> None:
    summary = lab.cached_random_summary(2_000, 9)
    assert summary == lab.simulate_random_games(2_000, 9)
    summary["games"] = -1
    assert lab.cached_random_summary(2_000, 9)["games"] == 2_000


def test_unknown_players_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError):
        lab.simulate_games("random", "genius", 10, seed=0)
    with pytest.raises(SystemExit) as stop:
        main(["knucklebones", "--players", "random", "genius"])
    assert stop.value.code == 2
    capsys.readouterr()
