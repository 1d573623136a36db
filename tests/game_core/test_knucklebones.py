"""Knucklebones rules: the pure functions, the worked example, and the state machine."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from typing import Any

import pydantic
import pytest

from game_core import knucklebones as kb
from game_core.errors import IllegalMove
from game_core.knucklebones import (
    Forfeit,
    KnucklebonesState,
    Place,
    Timeout,
    apply,
    board_score,
    column_score,
    legal_actions,
    new_game,
    place,
    private_view,
    public_view,
    result,
    to_act,
)

EMPTY: list[list[int]] = [[], [], []]


def running(
    boards: list[list[list[int]]],
    *,
    current: int = 0,
    die: int = 1,
    first: int = 0,
    turn: int = 5,
) -> KnucklebonesState:
    return KnucklebonesState(
        first_player=first, current_player=current, die=die, boards=boards, turn=turn
    )


def finished_by_forfeit() -> KnucklebonesState:
    state = running([EMPTY, EMPTY])
    return apply(state, Forfeit(player=0), random.Random(0))[0]


# --- column and board scores -----------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "expected"),
    [([4, 4, 2], 18), ([5, 5, 5], 45), ([6, 1, 3], 10), ([], 0)],
    ids=["pair plus single", "triple", "all different", "empty"],
)
def test_column_score_examples_from_the_rules(column: list[int], expected: int) -> None:
    assert column_score(column) == expected


def test_column_score_ignores_order_and_squares_the_count() -> None:
    assert column_score([2, 4, 4]) == column_score([4, 2, 4]) == 4 * 2 * 2 + 2
    assert column_score((6, 6)) == 24
    assert column_score([1]) == 1


def test_board_score_is_the_sum_of_the_three_columns() -> None:
    assert board_score([[4, 4, 2], [5, 5, 5], [6, 1, 3]]) == 18 + 45 + 10
    assert board_score([[], [], []]) == 0


# --- place -----------------------------------------------------------------------------


def test_worked_example_through_place() -> None:
    # A's column 2 is [3,5], B's column 2 is [3,3,5]; A places a 3 in column 2 (index 2).
    own, opponent = place([[], [], [3, 5]], [[], [], [3, 3, 5]], 2, 3)
    assert own[2] == [3, 5, 3] and column_score(own[2]) == 17
    assert opponent[2] == [5] and column_score(opponent[2]) == 5


def test_placed_die_goes_to_the_end_of_its_column() -> None:
    own, _ = place([[2, 6], [], []], [[], [], []], 0, 1)
    assert own == [[2, 6, 1], [], []]


def test_only_matching_dice_in_the_same_opposing_column_are_removed() -> None:
    own, opponent = place([[], [], []], [[4, 1, 4], [4], [2, 4]], 0, 4)
    assert own == [[4], [], []]
    assert opponent == [[1], [4], [2, 4]]


def test_remaining_opposing_dice_keep_their_order() -> None:
    _, opponent = place(EMPTY, [[1, 3, 2], [], []], 0, 3)
    assert opponent[0] == [1, 2]


def test_own_matching_dice_are_never_removed() -> None:
    own, opponent = place([[3, 3], [], []], [[1], [], []], 0, 3)
    assert own[0] == [3, 3, 3] and opponent[0] == [1]


def test_place_returns_new_lists_and_leaves_its_arguments_alone() -> None:
    own_arg = [[3, 5], [1], []]
    opponent_arg = [[3, 3], [], [6]]
    own_copy, opponent_copy = copy.deepcopy(own_arg), copy.deepcopy(opponent_arg)
    own, opponent = place(own_arg, opponent_arg, 0, 3)
    assert own_arg == own_copy and opponent_arg == opponent_copy
    own[1].append(6)
    opponent[2].append(1)
    assert own_arg == own_copy and opponent_arg == opponent_copy


def test_place_accepts_tuples() -> None:
    own, opponent = place(((1,), (), ()), ((), (), (1, 1)), 2, 1)
    assert own == [[1], [], [1]] and opponent == [[], [], []]


# --- invalid input: every one raises IllegalMove and leaves the arguments unchanged -----

BAD_BOARDS: dict[str, Any] = {
    "bool face": [[True], [], []],
    "zero face": [[0], [], []],
    "seven face": [[7], [], []],
    "negative face": [[-1], [], []],
    "float face": [[2.0], [], []],
    "string face": [["3"], [], []],
    "four dice": [[1, 2, 3, 4], [], []],
    "two columns": [[], []],
    "four columns": [[], [], [], []],
    "zero placeholders": [[0, 0, 0], [0, 0, 0], [0, 0, 0]],
    "not a list": "123",
    "column not a list": [5, [], []],
    "none": None,
}


@pytest.mark.parametrize("board", BAD_BOARDS.values(), ids=BAD_BOARDS.keys())
def test_bad_boards_raise_everywhere(board: Any) -> None:
    snapshot = copy.deepcopy(board)
    with pytest.raises(IllegalMove):
        board_score(board)
    with pytest.raises(IllegalMove):
        place(board, EMPTY, 0, 1)
    with pytest.raises(IllegalMove):
        place(EMPTY, board, 0, 1)
    assert board == snapshot


@pytest.mark.parametrize(
    "column",
    [[True], [0], [7], [1, 2, 3, 4], "12", None, [1.0]],
    ids=["bool", "zero", "seven", "four dice", "string", "none", "float"],
)
def test_bad_columns_raise_in_column_score(column: Any) -> None:
    with pytest.raises(IllegalMove):
        column_score(column)


@pytest.mark.parametrize("column", [-1, 3, True, False, 1.0, "1", None])
def test_place_rejects_a_column_outside_0_to_2(column: Any) -> None:
    own, opponent = [[1], [], []], [[2], [], []]
    with pytest.raises(IllegalMove):
        place(own, opponent, column, 4)
    assert own == [[1], [], []] and opponent == [[2], [], []]


@pytest.mark.parametrize("face", [0, 7, -3, True, 3.0, "3", None])
def test_place_rejects_a_face_outside_1_to_6(face: Any) -> None:
    own, opponent = [[1], [], []], [[2], [], []]
    with pytest.raises(IllegalMove):
        place(own, opponent, 0, face)
    assert own == [[1], [], []] and opponent == [[2], [], []]


def test_place_rejects_a_full_column() -> None:
    own, opponent = [[1, 2, 3], [], []], [[], [], []]
    with pytest.raises(IllegalMove, match="full"):
        place(own, opponent, 0, 4)
    assert own == [[1, 2, 3], [], []]


def test_place_does_not_check_whether_the_game_is_over() -> None:
    full = [[1, 2, 3], [4, 5, 6], [1, 2]]
    own, _ = place(full, [[6, 6, 6], [6, 6, 6], [6, 6, 6]], 2, 5)
    assert sum(len(column) for column in own) == 9


# --- new_game ---------------------------------------------------------------------------


def test_new_game_rolls_the_first_die_for_the_chosen_first_player() -> None:
    state, events = new_game(random.Random(3), first=1)
    assert state.first_player == state.current_player == 1
    assert state.die is not None and 1 <= state.die <= 6
    assert state.turn == 1 and state.phase == "place"
    assert state.boards == [EMPTY, EMPTY]
    assert events == [
        {"type": "game_started", "first_player": 1, "chosen_by": "command"},
        {"type": "rolled", "player": 1, "face": state.die, "turn": 1},
    ]


def test_new_game_without_a_first_player_flips_a_coin_and_records_it() -> None:
    firsts = {new_game(random.Random(seed))[0].first_player for seed in range(40)}
    assert firsts == {0, 1}
    state, events = new_game(random.Random(7))
    assert events[0] == {
        "type": "game_started",
        "first_player": state.first_player,
        "chosen_by": "coin_flip",
    }
    assert state.current_player == state.first_player


def test_new_game_is_deterministic_for_a_seed() -> None:
    assert new_game(random.Random(11)) == new_game(random.Random(11))


@pytest.mark.parametrize("first", [2, -1, True, "0", 0.0])
def test_new_game_rejects_a_bad_first_player(first: Any) -> None:
    with pytest.raises(IllegalMove):
        new_game(random.Random(0), first=first)


# --- apply: placements -------------------------------------------------------------------


def test_worked_example_through_apply() -> None:
    state = running([[[], [], [3, 5]], [[], [], [3, 3, 5]]], current=0, die=3)
    after, events = apply(state, Place(player=0, column=2), random.Random(1))
    assert after.boards == [[[], [], [3, 5, 3]], [[], [], [5]]]
    placed = events[0]
    assert placed["type"] == "placed" and placed["player"] == 0 and placed["face"] == 3
    assert placed["removed"] == 2 and placed["removed_faces"] == [3, 3]
    assert placed["column_scores"] == [17, 5]
    assert after.last_move is not None and after.last_move.removed == (3, 3)
    assert public_view(after)["column_scores"] == [[0, 0, 17], [0, 0, 5]]


def test_a_placement_passes_the_turn_and_rolls_for_the_opponent() -> None:
    state = running([EMPTY, EMPTY], current=0, die=6, turn=4)
    rng = random.Random(5)
    expected_die = random.Random(5).randint(1, 6)
    after, events = apply(state, Place(player=0, column=1), rng)
    assert after.current_player == 1 and after.turn == 5 and after.die == expected_die
    assert after.boards == [[[], [6], []], EMPTY]
    assert events[-1] == {"type": "rolled", "player": 1, "face": expected_die, "turn": 5}
    assert to_act(after) == [1]


def test_the_game_ends_at_once_when_the_placer_fills_their_grid() -> None:
    nearly = [[1, 2, 3], [4, 5, 6], [6, 6]]  # 8 dice
    state = running([nearly, [[5], [], [2]]], current=0, die=6)
    after, events = apply(state, Place(player=0, column=2), random.Random(0))
    assert after.phase == "finished" and after.die is None and to_act(after) == []
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "normal"
    assert events[-1]["winners"] == [0]
    outcome = result(after)
    assert outcome is not None
    assert outcome.scores == [board_score(after.boards[0]), board_score(after.boards[1])]
    assert outcome.winners == [0] and outcome.ranks == [1, 2] and not outcome.draw


def test_filling_your_grid_while_behind_loses() -> None:
    state = running([[[1, 2, 3], [1, 2, 3], [1, 2]], [[6, 6, 6], [], []]], current=0, die=1)
    after, _ = apply(state, Place(player=0, column=2), random.Random(0))
    outcome = result(after)
    assert outcome is not None and outcome.winners == [1] and outcome.ranks == [2, 1]


def test_equal_scores_at_the_end_are_a_draw() -> None:
    # Player 1 fills with 1+2+3 in each column = 18; player 0 also has 18.
    state = running([[[6], [6], [4, 2]], [[1, 2, 3], [1, 2, 3], [1, 2]]], current=1, die=3, first=1)
    after, events = apply(state, Place(player=1, column=2), random.Random(0))
    outcome = result(after)
    assert outcome is not None and outcome.scores == [18, 18]
    assert outcome.draw and outcome.winners == [] and outcome.ranks == [1, 1]
    assert events[-1]["draw"] is True


def test_removing_dice_from_a_nearly_full_grid_does_not_end_the_game() -> None:
    # Only the placer's own grid reaching nine dice ends the game.
    state = running([[[1, 1], [], []], [[1, 2, 3], [4, 5, 6], [2, 3]]], current=0, die=2)
    after, _ = apply(state, Place(player=0, column=0), random.Random(0))
    assert after.phase == "place" and after.current_player == 1


# --- apply: forfeits and timeouts ----------------------------------------------------------


@pytest.mark.parametrize("who", [0, 1])
def test_either_player_may_forfeit_at_any_time(who: int) -> None:
    state = running([EMPTY, EMPTY], current=0)
    after, events = apply(state, Forfeit(player=who), random.Random(0))
    outcome = result(after)
    assert outcome is not None and outcome.reason == "forfeit" and outcome.winners == [1 - who]
    assert events == [
        {
            "type": "game_over",
            "reason": "forfeit",
            "winners": [1 - who],
            "draw": False,
            "scores": [0, 0],
            "turn": 5,
            "player": who,
        }
    ]
    assert after.ended_by == who


def test_the_player_to_move_can_time_out_and_loses() -> None:
    state = running([[[6], [], []], EMPTY], current=1)
    after, _ = apply(state, Timeout(player=1), random.Random(0))
    outcome = result(after)
    assert outcome is not None and outcome.reason == "timeout" and outcome.winners == [0]
    assert outcome.scores == [6, 0]


# --- apply: illegal actions change nothing --------------------------------------------------

NOT_A_MOVE = "That is not a Knucklebones move."
NO_SUCH_PLAYER = "There is no such player in this game."
NO_SUCH_COLUMN = "Choose one of your three columns (1, 2 or 3)."
GAME_OVER = "This game is already over."

# What each illegal action tells the player (shown to them as it is).
ILLEGAL: dict[str, tuple[KnucklebonesState, Any, str]] = {
    "wrong player": (
        running([EMPTY, EMPTY], current=0),
        Place(player=1, column=0),
        "It is not your turn.",
    ),
    "column -1": (running([EMPTY, EMPTY]), Place(player=0, column=-1), NO_SUCH_COLUMN),
    "column 3": (running([EMPTY, EMPTY]), Place(player=0, column=3), NO_SUCH_COLUMN),
    "bool column": (running([EMPTY, EMPTY]), Place(player=0, column=True), NO_SUCH_COLUMN),
    "str column": (running([EMPTY, EMPTY]), Place(player=0, column="1"), NO_SUCH_COLUMN),
    "bool player": (running([EMPTY, EMPTY]), Place(player=False, column=0), NO_SUCH_PLAYER),
    "seat 2": (running([EMPTY, EMPTY]), Place(player=2, column=0), NO_SUCH_PLAYER),
    "full column": (
        running([[[1, 2, 3], [], []], EMPTY]),
        Place(player=0, column=0),
        "Your column 1 is full; choose another column.",
    ),
    "full column, shared action": (
        running([[[], [], [6, 6, 6]], EMPTY]),
        kb.place_action(0, 2),
        "Your column 3 is full; choose another column.",
    ),
    "after game over": (finished_by_forfeit(), Place(player=0, column=0), GAME_OVER),
    "forfeit after game over": (finished_by_forfeit(), Forfeit(player=1), GAME_OVER),
    "forfeit by seat 2": (running([EMPTY, EMPTY]), Forfeit(player=2), NO_SUCH_PLAYER),
    "timeout by the waiting player": (
        running([EMPTY, EMPTY], current=0),
        Timeout(player=1),
        "Only the player whose turn it is can run out of time.",
    ),
    "unknown action dict": (running([EMPTY, EMPTY]), {"type": "roll", "player": 0}, NOT_A_MOVE),
    "bad dict": (
        running([EMPTY, EMPTY]),
        {"type": "place", "player": 0, "column": "x"},
        NOT_A_MOVE,
    ),
    "not an action": (running([EMPTY, EMPTY]), "place 1", NOT_A_MOVE),
    "None": (running([EMPTY, EMPTY]), None, NOT_A_MOVE),
}


@pytest.mark.parametrize(("state", "action", "message"), ILLEGAL.values(), ids=ILLEGAL.keys())
def test_illegal_actions_say_why_and_leave_the_state_unchanged(
    state: KnucklebonesState, action: Any, message: str
) -> None:
    before = state.model_dump(mode="json")
    rng = random.Random(9)
    rng_state = rng.getstate()
    with pytest.raises(IllegalMove) as raised:
        apply(state, action, rng)
    assert raised.value.message == message
    assert state.model_dump(mode="json") == before
    assert rng.getstate() == rng_state


def test_place_action_shares_one_action_per_seat_and_column() -> None:
    assert kb.place_action(1, 2) is kb.place_action(1, 2)
    assert kb.place_action(1, 2) == Place(player=1, column=2)
    # Out of range or not an int: a new action, which apply then refuses.
    assert kb.place_action(0, 3) == Place(player=0, column=3)
    assert kb.place_action(True, 0) == Place(player=True, column=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        kb.place_action(0, 0).column = 1  # type: ignore[misc]


def test_apply_accepts_plain_dict_actions() -> None:
    state = running([EMPTY, EMPTY], die=4)
    from_dict = apply(state, {"type": "place", "player": 0, "column": 2}, random.Random(1))
    from_model = apply(state, Place(player=0, column=2), random.Random(1))
    assert from_dict == from_model


def test_apply_never_mutates_its_input() -> None:
    state, _ = new_game(random.Random(4), first=0)
    rng = random.Random(4)
    while state.phase == "place":
        before = state.model_dump(mode="json")
        column = legal_actions(state, state.current_player)[0]
        after, _ = apply(state, column, rng)
        assert state.model_dump(mode="json") == before
        after.boards[0].append([9])  # boards are a copy: editing it changes no state
        after.boards[0][0].append(9)
        assert state.model_dump(mode="json") == before
        assert sum(len(column) for column in after.boards[0]) <= 9
        state = after


def test_a_state_cannot_be_changed_in_place() -> None:
    state = running([[[1], [], []], EMPTY])
    for field in ("turn", "boards", "die", "game", "winners"):
        with pytest.raises(AttributeError):
            setattr(state, field, 2)
    state.boards[0][0].append(5)
    state.winners.append(1)
    assert state.boards == [[[1], [], []], EMPTY] and state.winners == []
    assert copy.deepcopy(state) is state


def test_action_adapter_parses_every_action_and_rejects_bools() -> None:
    assert kb.ACTION_ADAPTER.validate_python({"type": "place", "player": 1, "column": 2}) == Place(
        player=1, column=2
    )
    assert kb.ACTION_ADAPTER.validate_python({"type": "forfeit", "player": 0}) == Forfeit(player=0)
    assert kb.ACTION_ADAPTER.validate_python({"type": "timeout", "player": 0}) == Timeout(player=0)
    with pytest.raises(pydantic.ValidationError):
        kb.ACTION_ADAPTER.validate_python({"type": "place", "player": True, "column": 0})


# --- queries and views -----------------------------------------------------------------------


def test_legal_actions_are_the_open_columns_of_the_player_to_move() -> None:
    state = running([[[1, 2, 3], [], [4, 4, 4]], EMPTY], current=0)
    assert legal_actions(state, 0) == [Place(player=0, column=1)]
    assert legal_actions(state, 1) == []
    assert legal_actions(finished_by_forfeit(), 0) == []


def test_result_is_none_while_running() -> None:
    assert result(running([EMPTY, EMPTY])) is None
    assert not kb.is_finished(running([EMPTY, EMPTY]))
    assert kb.is_finished(finished_by_forfeit())


def test_public_view_shows_everything() -> None:
    state = running([[[4, 4, 2], [5], []], [[6, 1, 3], [], [2]]], current=1, die=5, first=1)
    view = public_view(state)
    assert view["boards"] == state.boards
    assert view["column_scores"] == [[18, 5, 0], [10, 0, 2]]
    assert view["scores"] == [23, 12]
    assert view["die"] == 5 and view["current_player"] == 1 and view["first_player"] == 1
    assert view["dice_count"] == [4, 4] and view["open_columns"] == [[1, 2], [1, 2]]
    assert view["finished"] is False and view["turn"] == 5
    view["boards"][0][0].append(1)  # a copy: editing it cannot touch the state
    assert state.boards[0][0] == [4, 4, 2]


def test_private_view_is_the_public_view_plus_the_viewer() -> None:
    state = running([[[1], [], []], EMPTY], current=0)
    view = private_view(state, 0)
    assert view.pop("viewer") == 0 and view.pop("your_turn") is True
    assert view == public_view(state)
    assert private_view(state, 1)["your_turn"] is False
    with pytest.raises(IllegalMove):
        private_view(state, 2)


def test_state_round_trips_through_json() -> None:
    state, _ = new_game(random.Random(2))
    state, _ = apply(state, Place(player=state.current_player, column=0), random.Random(2))
    assert KnucklebonesState.model_validate_json(state.model_dump_json()) == state
    assert KnucklebonesState.model_validate(state.model_dump(mode="json")) == state


@pytest.mark.parametrize(
    "change",
    [
        {"boards": [[[1, 2, 3, 4], [], []], EMPTY]},
        {"boards": [[[0], [], []], EMPTY]},
        {"boards": [EMPTY]},
        {"die": None},
        {"phase": "finished"},
        {"current_player": 2},
    ],
    ids=["four dice", "zero face", "one board", "no die", "finished without reason", "seat 2"],
)
def test_inconsistent_saved_states_are_rejected(change: dict[str, Any]) -> None:
    data = running([EMPTY, EMPTY]).model_dump(mode="json") | change
    with pytest.raises(pydantic.ValidationError):
        KnucklebonesState.model_validate(data)
    with pytest.raises(pydantic.ValidationError):
        KnucklebonesState(**data)
    with pytest.raises(kb.InvalidState):
        kb.load_state(data)


# --- stored state: load_state and dump_state -------------------------------------------------


def a_played_state() -> KnucklebonesState:
    state = running([[[4, 4], [2], []], [[6, 1], [], [3]]], current=0, die=4, turn=7)
    return apply(state, Place(player=0, column=2), random.Random(3))[0]


def test_dump_state_is_the_json_data_and_load_state_reads_it_back() -> None:
    state = a_played_state()
    data = kb.dump_state(state)
    assert data == kb.StateData.model_validate(data).model_dump(mode="json")
    assert data == state.model_dump(mode="json")
    assert json.loads(state.model_dump_json()) == data
    assert kb.load_state(data) == state
    assert kb.load_state(json.loads(json.dumps(data))) == state
    finished = apply(state, Forfeit(player=1), random.Random(0))[0]
    assert kb.load_state(kb.dump_state(finished)) == finished


def test_load_state_shares_no_lists_with_the_data() -> None:
    data = kb.dump_state(a_played_state())
    state = kb.load_state(data)
    data["boards"][0][0].append(6)
    data["winners"].append(0)
    data["last_move"]["removed"].append(4)
    assert state == a_played_state()


def test_load_state_reads_older_and_looser_shapes_as_the_model_does() -> None:
    data = kb.dump_state(a_played_state())
    for key in ("game", "phase", "turn", "last_move", "winners", "draw", "end_reason", "ended_by"):
        older = {k: v for k, v in data.items() if k != key}
        assert kb.load_state(older) == KnucklebonesState(**older)
    extra = data | {"note": "ignored", "draw": 0}
    assert kb.load_state(extra) == KnucklebonesState(**extra)
    odd_last_move = data | {"last_move": {"player": 1, "column": 0, "face": 2, "removed": [5]}}
    assert kb.load_state(odd_last_move).last_move == kb.LastMove(
        player=1, column=0, face=2, removed=(5,)
    )


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"boards": [[[1, 2, 3, 4], [], []], EMPTY]}, "the state"),
        ({"boards": [[[7], [], []], EMPTY]}, "boards.0.0.0"),
        ({"boards": [[[True], [], []], EMPTY]}, "boards.0.0.0"),
        ({"boards": [[[1.0], [], []], EMPTY]}, "boards.0.0.0"),
        ({"turn": 0}, "turn"),
        ({"turn": "5"}, "turn"),
        ({"die": 9}, "die"),
        ({"current_player": True}, "current_player"),
        ({"winners": [2]}, "winners.0"),
        ({"phase": "paused"}, "phase"),
        ({"game": "diceman"}, "game"),
        ({"end_reason": "bored"}, "end_reason"),
        ({"last_move": {"player": 0, "column": 3, "face": 1}}, "last_move.column"),
    ],
)
def test_load_state_names_what_is_wrong(change: dict[str, Any], where: str) -> None:
    data = kb.dump_state(a_played_state()) | change
    with pytest.raises(kb.InvalidState) as raised:
        kb.load_state(data)
    assert str(raised.value).startswith(f"Stored Knucklebones state: {where}: ")


@pytest.mark.parametrize("data", [None, "{}", [], 7, {"boards": "none"}])
def test_load_state_rejects_what_is_not_a_state(data: object) -> None:
    with pytest.raises(kb.InvalidState, match=r"^Stored Knucklebones state: "):
        kb.load_state(data)


class Holder(pydantic.BaseModel):
    """What the bot's session state looks like: a model with the engine state inside."""

    engine: KnucklebonesState
    note: str = ""


def test_a_pydantic_model_holds_a_state_through_load_state_and_dump_state() -> None:
    state = a_played_state()
    holder = Holder.model_validate({"engine": kb.dump_state(state), "note": "x"})
    assert holder.engine == state
    assert holder.model_dump(mode="json") == {"engine": kb.dump_state(state), "note": "x"}
    assert Holder.model_validate_json(holder.model_dump_json()) == holder
    assert Holder(engine=state).engine is state
    broken = kb.dump_state(state) | {"die": 0}
    with pytest.raises(pydantic.ValidationError, match="Stored Knucklebones state: die: "):
        Holder.model_validate({"engine": broken})


def test_model_copy_validates_the_result() -> None:
    state = running([EMPTY, EMPTY])
    full = state.model_copy(update={"boards": [[[1, 2, 3], [], []], EMPTY]})
    assert full.boards == [[[1, 2, 3], [], []], EMPTY] and full.turn == state.turn
    with pytest.raises(pydantic.ValidationError):
        state.model_copy(update={"boards": [[[1, 2, 3, 4], [], []], EMPTY]})


def test_apply_rolls_through_a_scripted_rng() -> None:
    class AlwaysSix(random.Random):
        def randint(self, a: int, b: int) -> int:
            return b

    after, events = apply(running([EMPTY, EMPTY]), kb.place_action(0, 0), AlwaysSix(1))
    assert after.die == 6 and events[-1]["face"] == 6
