"""Knucklebones properties over random legal play and random boards (hypothesis)."""

from __future__ import annotations

import copy
import json
import random

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
