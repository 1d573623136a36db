"""Knucklebones computer players: legal, pure, and sensible in constructed positions."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from game_core import knucklebones as kb
from game_core.ai import knucklebones as ai
from game_core.analysis import knucklebones as lab
from game_core.errors import IllegalMove

Position = tuple[list[list[int]], list[list[int]], int]


def positions_from_games(games: int, seed: int) -> list[Position]:
    """Every decision point of some random games, including nearly full grids."""
    found: list[Position] = []
    rng = random.Random(seed)
    for index in range(games):
        state, _ = kb.new_game(rng, index % 2)
        while state.phase == "place":
            player = state.current_player
            assert state.die is not None
            found.append((state.boards[player], state.boards[1 - player], state.die))
            column = rng.choice(kb.legal_columns(state.boards[player]))
            state, _ = kb.apply(state, kb.Place(player=player, column=column), rng)
    return found


POSITIONS = positions_from_games(6, seed=21)


@pytest.mark.parametrize("level", ai.LEVELS)
def test_every_level_returns_an_open_column_and_leaves_the_boards_alone(level: str) -> None:
    rng = random.Random(level)
    for own, opponent, die in POSITIONS:
        own_before, opponent_before = copy.deepcopy(own), copy.deepcopy(opponent)
        column = ai.choose_column(own, opponent, die, level, rng)
        assert column in kb.legal_columns(own)
        assert own == own_before and opponent == opponent_before


@pytest.mark.parametrize("level", ai.LEVELS)
def test_with_one_open_column_every_level_takes_it(level: str) -> None:
    own = [[1, 2, 3], [4, 5], [6, 6, 1]]
    assert ai.choose_column(own, [[], [], []], 4, level, random.Random(0)) == 1


@pytest.mark.parametrize("level", ai.LEVELS)
def test_the_same_rng_seed_gives_the_same_choice(level: str) -> None:
    for own, opponent, die in POSITIONS[:40]:
        first = ai.choose_column(own, opponent, die, level, random.Random(8))
        again = ai.choose_column(own, opponent, die, level, random.Random(8))
        assert first == again


def test_easy_spreads_over_every_open_column() -> None:
    picks = {
        ai.choose_column([[1], [], [2, 3, 4]], [[], [], []], 5, "easy", random.Random(seed))
        for seed in range(60)
    }
    assert picks == {0, 1}


def test_medium_takes_the_best_immediate_difference() -> None:
    # Die 6: column 0 makes a triple (+30), column 2 scores 6 and knocks out 54 (+60).
    own = [[6, 6], [1], []]
    opponent = [[], [2], [6, 6, 6]]
    assert ai.choose_column(own, opponent, 6, "medium", random.Random(0)) == 2


def test_medium_counts_the_opponents_loss_as_well_as_its_own_gain() -> None:
    # Die 4: column 0 pairs two 4s (+12); column 1 adds 4 and removes a pair of 4s (+20).
    own = [[4], [], [1]]
    opponent = [[], [4, 4], []]
    assert ai.choose_column(own, opponent, 4, "medium", random.Random(3)) == 1


def test_medium_breaks_exact_ties_with_the_rng() -> None:
    # Die 3 and no 3 anywhere: every open column is worth +3.
    own = [[6, 6], [], [2]]
    opponent = [[1], [], [4]]
    picks = {ai.choose_column(own, opponent, 3, "medium", random.Random(s)) for s in range(40)}
    assert picks == {0, 1, 2}


def test_hard_does_not_block_its_own_pair() -> None:
    # Same position: a 3 on the 6-6 column would kill the chance of a 6-6-6 (54 points).
    own = [[6, 6], [], [2]]
    opponent = [[1], [], [4]]
    picks = {ai.choose_column(own, opponent, 3, "hard", random.Random(s)) for s in range(10)}
    assert 0 not in picks


def test_hard_takes_a_decisive_removal() -> None:
    # 16 against 53: a 5 in column 1 wipes out the opponent's 5-5-5 (45 points).
    own = [[1, 2], [3], [4, 6]]
    opponent = [[3, 4], [5, 5, 5], [1]]
    assert ai.choose_column(own, opponent, 5, "hard", random.Random(0)) == 1


def test_stall_prefers_removing_opposing_dice() -> None:
    own = [[1], [], []]
    opponent = [[], [3], [4, 4]]
    assert ai.choose_column(own, opponent, 4, "stall", random.Random(0)) == 2


def test_stall_stacks_matching_dice_where_the_opponent_can_strike() -> None:
    # Nothing to remove: the 2 goes beside the other 2, opposite a column with room.
    own = [[2], [5], []]
    opponent = [[6], [1, 3, 4], []]
    assert ai.choose_column(own, opponent, 2, "stall", random.Random(0)) == 0


BAD: dict[str, tuple[Any, Any, Any, Any]] = {
    "unknown level": ([[], [], []], [[], [], []], 3, "expert"),
    "die 0": ([[], [], []], [[], [], []], 0, "easy"),
    "die 7": ([[], [], []], [[], [], []], 7, "hard"),
    "bool die": ([[], [], []], [[], [], []], True, "medium"),
    "two columns": ([[], []], [[], [], []], 3, "medium"),
    "four dice": ([[1, 2, 3, 4], [], []], [[], [], []], 3, "easy"),
    "bad opposing face": ([[], [], []], [[9], [], []], 3, "hard"),
    "every column full": ([[1, 2, 3], [4, 5, 6], [1, 1, 1]], [[], [], []], 3, "stall"),
}


@pytest.mark.parametrize(("own", "opponent", "die", "level"), BAD.values(), ids=BAD.keys())
def test_bad_input_raises_illegal_move(own: Any, opponent: Any, die: Any, level: Any) -> None:
    with pytest.raises(IllegalMove):
        ai.choose_column(own, opponent, die, level, random.Random(0))


def test_state_helpers_agree_with_choose_column() -> None:
    rng = random.Random(6)
    state, _ = kb.new_game(rng, first=1)
    for _ in range(8):
        player = state.current_player
        assert state.die is not None
        expected = ai.choose_column(
            state.boards[player], state.boards[1 - player], state.die, "hard", random.Random(1)
        )
        assert ai.choose_for_state(state, player, "hard", random.Random(1)) == expected
        position = kb.compact_position(state.boards)
        assert ai.choose_for_position(position, player, state.die, "hard", random.Random(1)) == (
            expected
        )
        action = ai.choose_action(state, player, "hard", random.Random(1))
        assert action == kb.Place(player=player, column=expected)
        state, _ = kb.apply(state, action, rng)
    with pytest.raises(IllegalMove):
        ai.choose_for_state(state, 1 - state.current_player, "easy", rng)


def test_the_levels_are_ordered_in_a_quick_match() -> None:
    # A small sanity check; the real win rates (2,000+ games) are in bench/knucklebones_ai.py.
    medium = lab.simulate_games("medium", "easy", 300, seed=4)["per_player"]["p1"]
    assert medium["win_rate_decided"] > 0.65
    hard = lab.simulate_games("hard", "medium", 80, seed=4)["per_player"]["p1"]
    assert hard["win_rate_decided"] > 0.5
