"""Knucklebones properties over random legal play and random boards (hypothesis)."""

from __future__ import annotations

import copy
import json
import random

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game_core import knucklebones as kb
from game_core.base import Event
from game_core.knucklebones import (
    KnucklebonesState,
    Place,
    apply,
    board_score,
    column_score,
    legal_actions,
    new_game,
    place,
    public_view,
    result,
)

faces = st.integers(min_value=1, max_value=6)
columns = st.lists(faces, max_size=3)
boards = st.lists(columns, min_size=3, max_size=3)
picks = st.lists(st.integers(min_value=0, max_value=2), min_size=80, max_size=80)
firsts = st.none() | st.sampled_from([0, 1])


def play(
    seed: int, first: int | None, choices: list[int]
) -> list[tuple[KnucklebonesState, list[Event]]]:
    """A whole game with columns picked by ``choices``; every (state, events) on the way."""
    rng = random.Random(seed)
    state, events = new_game(rng, first)
    history = [(state, events)]
    step = 0
    while state.phase == "place":
        options = legal_actions(state, state.current_player)
        choice = choices[step] if step < len(choices) else 0
        state, events = apply(state, options[choice % len(options)], rng)
        history.append((state, events))
        step += 1
    return history


def dice_in(board: list[list[int]]) -> int:
    return sum(len(column) for column in board)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), first=firsts, choices=picks)
def test_random_legal_play_keeps_every_invariant(
    seed: int, first: int | None, choices: list[int]
) -> None:
    history = play(seed, first, choices)
    for index, (state, events) in enumerate(history):
        # Grids never exceed three dice per column, every face is a real die face.
        for board in state.boards:
            assert len(board) == 3
            assert all(len(column) <= 3 for column in board)
            assert all(1 <= face <= 6 for column in board for face in column)
        # The state survives JSON exactly.
        text = json.dumps(state.model_dump(mode="json"))
        assert KnucklebonesState.model_validate(json.loads(text)) == state
        # The public view is the data, with the scores the pure functions give.
        view = public_view(state)
        assert view["boards"] == state.boards
        assert view["scores"] == [board_score(board) for board in state.boards]
        assert view["column_scores"] == [
            [column_score(column) for column in board] for board in state.boards
        ]
        assert view["die"] == state.die and view["turn"] == state.turn
        assert json.loads(json.dumps(view)) == view
        if index == 0:
            continue
        previous = history[index - 1][0]
        placed = events[0]
        mover = placed["player"]
        assert placed["type"] == "placed" and mover == previous.current_player
        assert placed["face"] == previous.die
        # The engine agrees with the pure function.
        own, opponent = place(
            previous.boards[mover], previous.boards[1 - mover], placed["column"], placed["face"]
        )
        assert state.boards[mover] == own and state.boards[1 - mover] == opponent
        assert placed["removed"] == dice_in(previous.boards[1 - mover]) - dice_in(opponent)
        # The game ends exactly when the placer's grid is full.
        ended = state.phase == "finished"
        assert ended == (dice_in(state.boards[mover]) == 9)
        assert dice_in(state.boards[1 - mover]) < 9
        if ended:
            assert index == len(history) - 1
            assert events[-1]["type"] == "game_over" and state.turn == previous.turn
        else:
            assert state.current_player == 1 - mover and state.turn == previous.turn + 1
            assert events[-1] == {
                "type": "rolled",
                "player": 1 - mover,
                "face": state.die,
                "turn": state.turn,
            }
    final = history[-1][0]
    outcome = result(final)
    assert outcome is not None and outcome.reason == "normal"
    assert outcome.scores == [board_score(board) for board in final.boards]
    if outcome.scores[0] == outcome.scores[1]:
        assert outcome.draw and outcome.winners == []
    else:
        assert outcome.winners == [0 if outcome.scores[0] > outcome.scores[1] else 1]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), first=firsts, choices=picks)
def test_the_same_seed_replays_the_same_game(
    seed: int, first: int | None, choices: list[int]
) -> None:
    assert play(seed, first, choices) == play(seed, first, choices)


@settings(max_examples=300, deadline=None)
@given(own=boards, opponent=boards, column=st.integers(min_value=0, max_value=2), face=faces)
def test_place_on_random_boards(
    own: list[list[int]], opponent: list[list[int]], column: int, face: int
) -> None:
    own_before, opponent_before = copy.deepcopy(own), copy.deepcopy(opponent)
    if len(own[column]) == 3:
        with pytest.raises(kb.IllegalMove):
            place(own, opponent, column, face)
        assert own == own_before and opponent == opponent_before
        return
    new_own, new_opponent = place(own, opponent, column, face)
    assert own == own_before and opponent == opponent_before
    assert new_own[column] == [*own[column], face]
    assert new_opponent[column] == [die for die in opponent[column] if die != face]
    for other in range(3):
        if other != column:
            assert new_own[other] == own[other] and new_opponent[other] == opponent[other]
    # The compact transition the simulations use agrees with the pure function.
    position = kb.compact_position([own, opponent])
    removed = kb.step(position, 0, column, face)
    assert kb.expand_position(position) == [new_own, new_opponent]
    assert removed == len(opponent[column]) - len(new_opponent[column])


@settings(max_examples=200, deadline=None)
@given(column=columns)
def test_column_score_matches_the_definition(column: list[int]) -> None:
    expected = sum(face * column.count(face) ** 2 for face in set(column))
    assert column_score(column) == expected
    assert column_score(list(reversed(column))) == expected


def test_place_actions_are_the_only_legal_actions_listed() -> None:
    state, _ = new_game(random.Random(0), first=0)
    assert legal_actions(state, 0) == [Place(player=0, column=c) for c in range(3)]


# --- the fast path against the validated path ----------------------------------------------


def reference_apply(
    state: KnucklebonesState, action: kb.Place | kb.Forfeit | kb.Timeout, rng: random.Random
) -> tuple[KnucklebonesState, list[Event]]:
    """The rules written plainly from the validated pieces: ``place``, ``board_score``,
    ``rng.randint`` and a new state built through ``StateData`` validation. ``apply``
    builds its states without validation and must agree with this on every move."""
    data = state.model_dump(mode="json")
    player = action.player
    if isinstance(action, kb.Forfeit | kb.Timeout):
        reason = "forfeit" if isinstance(action, kb.Forfeit) else "timeout"
        scores = [board_score(board) for board in data["boards"]]
        data |= {
            "phase": "finished",
            "die": None,
            "winners": [1 - player],
            "draw": False,
            "end_reason": reason,
            "ended_by": player,
        }
        over = {
            "type": "game_over",
            "reason": reason,
            "winners": [1 - player],
            "draw": False,
            "scores": scores,
            "turn": state.turn,
            "player": player,
        }
        return KnucklebonesState(**data), [over]
    column, face, turn = action.column, data["die"], data["turn"]
    boards = data["boards"]
    before = len(boards[1 - player][column])
    boards[player], boards[1 - player] = place(boards[player], boards[1 - player], column, face)
    removed = before - len(boards[1 - player][column])
    scores = [board_score(board) for board in boards]
    placed = {
        "type": "placed",
        "player": player,
        "column": column,
        "face": face,
        "removed": removed,
        "removed_faces": [face] * removed,
        "column_scores": [column_score(board[column]) for board in boards],
        "scores": scores,
        "turn": turn,
    }
    removed_faces = [face] * removed
    data["last_move"] = {"player": player, "column": column, "face": face, "removed": removed_faces}
    if sum(len(faces) for faces in boards[player]) == 9:
        mine, theirs = scores[player], scores[1 - player]
        winners = [] if mine == theirs else [player if mine > theirs else 1 - player]
        data |= {
            "phase": "finished",
            "die": None,
            "winners": winners,
            "draw": not winners,
            "end_reason": "normal",
        }
        over = {
            "type": "game_over",
            "reason": "normal",
            "winners": winners,
            "draw": not winners,
            "scores": scores,
            "turn": turn,
        }
        return KnucklebonesState(**data), [placed, over]
    die = rng.randint(1, 6)
    data |= {"current_player": 1 - player, "die": die, "turn": turn + 1}
    rolled = {"type": "rolled", "player": 1 - player, "face": die, "turn": turn + 1}
    return KnucklebonesState(**data), [placed, rolled]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    first=firsts,
    choices=picks,
    give_up_at=st.none() | st.integers(min_value=0, max_value=30),
    give_up_by=st.sampled_from(["forfeit 0", "forfeit 1", "timeout"]),
)
def test_apply_agrees_with_the_validated_reference_on_random_play(
    seed: int, first: int | None, choices: list[int], give_up_at: int | None, give_up_by: str
) -> None:
    fast_rng, reference_rng = random.Random(seed), random.Random(seed)
    state, _ = new_game(fast_rng, first)
    reference, _ = new_game(reference_rng, first)
    move = 0
    while state.phase == "place":
        action: kb.Place | kb.Forfeit | kb.Timeout
        if move == give_up_at:
            kind, _, seat = give_up_by.partition(" ")
            if kind == "forfeit":
                action = kb.Forfeit(player=int(seat))
            else:
                action = kb.Timeout(player=state.current_player)
        else:
            options = legal_actions(state, state.current_player)
            action = options[choices[move % len(choices)] % len(options)]
        state, events = apply(state, action, fast_rng)
        reference, reference_events = reference_apply(reference, action, reference_rng)
        assert state == reference and events == reference_events
        # What the bot stores and loads back: the fast and the validated readers agree.
        data = kb.dump_state(state)
        assert data == kb.StateData.model_validate(data).model_dump(mode="json")
        assert kb.load_state(data) == state
        assert KnucklebonesState.model_validate_json(state.model_dump_json()) == state
        assert kb.result(state) == kb.result(reference)
        move += 1


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-2, max_value=8)
    | st.floats(allow_nan=False)
    | st.sampled_from(["place", "finished", "normal", "forfeit", "knucklebones", "", "1"])
)
# Near misses first (a bool for an int, an int just out of range, a float, a string), then
# any plain value, then lists and objects of them.
NEAR_MISSES: list[object] = [
    *(None, True, False, -1, 0, 1, 2, 3, 6, 7, 1.0, "", "1", "place", "finished", "normal"),
    *([], [1], [7], [True], [1, 1, 1, 1], {}, {"player": 0, "column": 0, "face": 1}),
]
near_misses = st.sampled_from(NEAR_MISSES)
json_values = (
    near_misses
    | scalars
    | st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.sampled_from(["player", "column", "face", "removed"]), children)
        ),
        max_leaves=8,
    )
)
FIELDS = [
    "game",
    "phase",
    "turn",
    "first_player",
    "current_player",
    "die",
    "boards",
    "last_move",
    "winners",
    "draw",
    "end_reason",
    "ended_by",
]


def stored_state(seed: int, moves: int) -> dict[str, object]:
    rng = random.Random(seed)
    state, _ = new_game(rng)
    for _ in range(moves):
        if state.phase != "place":
            break
        state, _ = apply(state, rng.choice(legal_actions(state, state.current_player)), rng)
    return kb.dump_state(state)


@settings(max_examples=500, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**16),
    moves=st.integers(min_value=0, max_value=25),
    changes=st.lists(
        st.tuples(
            st.sampled_from([*FIELDS, "boards cell", "boards column", "last_move field"]),
            st.integers(min_value=0, max_value=5),
            json_values,
            st.booleans(),
        ),
        max_size=3,
    ),
)
def test_load_state_accepts_and_rejects_exactly_what_validation_does(
    seed: int, moves: int, changes: list[tuple[str, int, object, bool]]
) -> None:
    data = stored_state(seed, moves)
    for where, index, value, delete in changes:
        change(data, where, index, value, delete)
    assert_loaders_agree(data)


def change(data: dict[str, object], where: str, index: int, value: object, delete: bool) -> None:
    """Corrupt one place of stored state data, in place."""
    boards = data.get("boards")
    board = boards[index % 2] if isinstance(boards, list) and len(boards) == 2 else None
    if where == "boards cell":
        column = board[index % 3] if isinstance(board, list) and len(board) == 3 else None
        if isinstance(column, list) and column:
            column[index % len(column)] = value
    elif where == "boards column":
        if isinstance(board, list) and len(board) == 3:
            board[index % 3] = value
    elif where == "last_move field":
        if isinstance(data.get("last_move"), dict):
            key = ["player", "column", "face", "removed"][index % 4]
            data["last_move"][key] = value  # type: ignore[index]
    elif delete:
        data.pop(where, None)
    else:
        data[where] = value


def assert_loaders_agree(data: dict[str, object]) -> None:
    """``load_state`` (fast path or not) and validation accept and reject the same data."""
    try:
        expected: KnucklebonesState | None = KnucklebonesState(**data)
    except pydantic.ValidationError:
        expected = None
    try:
        loaded: KnucklebonesState | None = kb.load_state(data)
    except kb.InvalidState as error:
        assert str(error).startswith("Stored Knucklebones state: ")
        loaded = None
    assert loaded == expected, data


def test_every_near_miss_in_every_field_loads_as_validation_says() -> None:
    """Deterministic companion of the test above: each field and nested place of a few
    stored states, corrupted with each near miss in turn (or deleted)."""
    rng = random.Random(12)
    states = [stored_state(seed, moves) for seed, moves in ((1, 0), (2, 7), (3, 16), (4, 40))]
    forfeited = apply(kb.load_state(states[1]), kb.Forfeit(player=1), rng)[0]
    states.append(kb.dump_state(forfeited))
    places = [*FIELDS, "boards cell", "boards column", "last_move field"]
    for stored in states:
        for where in places:
            for index in range(6):
                for value in [*NEAR_MISSES, "deleted"]:
                    data = copy.deepcopy(stored)
                    change(data, where, index, value, delete=value == "deleted")
                    assert_loaders_agree(data)
