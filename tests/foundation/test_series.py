"""The series arithmetic and texts (bot/model/series.py): when a match is decided, how a draw
counts, how a rematch chain carries its score, and names shown as written."""

from __future__ import annotations

import pytest

from bot.model.series import (
    Series,
    chain_after,
    challenge_line,
    finished_line,
    keep_series,
    match_decided,
    match_over_after,
    new_match,
    next_in_match,
    rematch_after,
    running_line,
)

ANN, BO = 1, 2
NAMES = {ANN: "Ann", BO: "Bo"}


@pytest.mark.parametrize(
    ("best_of", "wins", "played", "decided"),
    [
        (3, (1, 0), 1, False),
        (3, (2, 0), 2, True),
        (3, (1, 1), 2, False),
        (3, (1, 0), 2, False),  # a draw in game 2: game 3 decides
        (3, (1, 1), 3, True),  # then a drawn game 3: a drawn match
        (3, (0, 0), 3, True),
        (5, (2, 0), 2, False),
        (5, (3, 0), 3, True),
        (5, (3, 1), 4, True),
        (5, (2, 2), 4, False),
        (5, (2, 0), 4, True),  # two draws: 2 ahead with 1 left
    ],
)
def test_a_match_is_decided_once_the_trailing_player_cannot_catch_up(
    best_of: int, wins: tuple[int, int], played: int, decided: bool
) -> None:
    assert match_decided(best_of, wins, played) is decided


def test_a_best_of_three_from_first_game_to_the_series_result() -> None:
    game1 = new_match(ANN, BO, 3)
    assert game1 is not None and game1.is_match
    assert running_line(game1, NAMES) == "🏅 Best of 3, game 1."
    assert finished_line(game1, ANN, NAMES) == "🏅 Best of 3, after game 1: Ann leads 1–0."
    game2 = next_in_match(game1, ANN, previous=10)
    assert (game2.game, game2.match_wins, game2.previous) == (2, (1, 0), 10)
    assert running_line(game2, NAMES) == "🏅 Best of 3, game 2: Ann leads 1–0."
    assert finished_line(game2, BO, NAMES) == "🏅 Best of 3, after game 2: level at 1–1."
    game3 = next_in_match(game2, BO, previous=11)
    assert not match_over_after(game2, BO) and match_over_after(game3, BO)
    assert finished_line(game3, BO, NAMES) == "🏅 **Bo wins the series**, 2–1 (best of 3)."
    assert finished_line(game3, None, NAMES) == "🤝 The series is drawn, 1–1 (best of 3)."


def test_a_single_game_has_no_series_and_its_rematches_count_games() -> None:
    assert new_match(ANN, BO, 1) is None
    assert finished_line(None, ANN, NAMES) == "" and running_line(None, NAMES) is None
    first = Series(players=(ANN, BO))
    second = rematch_after(first, ANN, previous=5)
    assert (second.rematches, second.chain_wins, second.previous) == (1, (1, 0), 5)
    assert running_line(second, NAMES) == "🔁 Head-to-head: Ann leads 1–0."
    assert challenge_line(second, NAMES) == "Head-to-head: Ann leads 1–0."
    assert finished_line(second, BO, NAMES) == "🔁 Head-to-head: level at 1–1."
    third = rematch_after(second, BO, previous=6)
    fourth = rematch_after(third, None, previous=7)  # a drawn game
    assert fourth.chain_wins == (1, 1) and fourth.chain_draws == 1
    assert finished_line(fourth, ANN, NAMES) == "🔁 Head-to-head: Ann leads 2–1, with 1 draw."
    assert finished_line(fourth, None, NAMES) == "🔁 Head-to-head: level at 1–1, with 2 draws."
    fifth = rematch_after(fourth, None, previous=8)
    assert finished_line(fifth, BO, NAMES) == "🔁 Head-to-head: Bo leads 2–1, with 2 draws."


def test_a_rematch_of_a_series_counts_series_not_games() -> None:
    match = new_match(ANN, BO, 3)
    assert match is not None
    game3 = next_in_match(next_in_match(match, ANN, 1), BO, 2)
    assert chain_after(game3, ANN) == ((1, 0), 0)
    again = rematch_after(game3, ANN, previous=3)
    assert (again.game, again.match_wins, again.best_of) == (1, (0, 0), 3)
    assert challenge_line(again, NAMES) == (
        "🏅 Best of 3: the first to 2 wins takes the series (a drawn game counts for nobody). "
        "Head-to-head in series: Ann leads 1–0."
    )
    assert running_line(again, NAMES) == (
        "🏅 Best of 3, game 1. Head-to-head in series: Ann leads 1–0."
    )
    # A game inside the match changes the chain only when it ends the match.
    assert chain_after(again, BO) == ((1, 0), 0)


def test_names_in_series_lines_are_shown_as_written() -> None:
    hostile = {ANN: "**Ann**__ @everyone", BO: "Bo"}
    second = rematch_after(Series(players=(ANN, BO)), ANN, previous=1)
    line = running_line(second, hostile)
    assert line is not None
    assert "\\*\\*Ann\\*\\*\\_\\_ @\u200beveryone leads 1–0" in line


def test_a_step_keeps_the_series_its_game_state_model_does_not_know() -> None:
    series = {"players": [ANN, BO]}
    kept = keep_series({"engine": {}, "series": series}, {"engine": {"turn": 2}})
    assert kept["series"] == series
    assert keep_series({"engine": {}}, {"engine": {}}) == {"engine": {}}
