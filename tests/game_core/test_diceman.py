"""Diceman rules: every worked example, input validation, and the engine's state machine."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from game_core import diceman
from game_core.diceman import (
    ACTION_ADAPTER,
    COMBOS,
    Choose,
    DicemanState,
    Forfeit,
    Timeout,
    apply,
    new_game,
    private_view,
    public_view,
    resolve_round,
)
from game_core.errors import IllegalMove


class ScriptedRandom(random.Random):
    """A Random whose randint returns the scripted faces in order (checking the range)."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        assert self.faces, "the engine rolled more dice than the script holds"
        face = self.faces.pop(0)
        assert a <= face <= b, f"scripted face {face} outside {a}..{b}"
        return face


def play_round(
    state: DicemanState, dice: tuple[list[str], list[str]], faces: list[int]
) -> tuple[DicemanState, list[dict[str, Any]]]:
    """Both players lock in; ``faces`` are player 0's dice in die order, then player 1's."""
    rng = ScriptedRandom(faces)
    state, first = apply(state, Choose(player=0, dice=dice[0]), rng)
    state, second = apply(state, Choose(player=1, dice=dice[1]), rng)
    assert rng.faces == []
    return state, first + second


# --------------------------------------------------------------------------------------
# Worked examples, through the pure function and through the engine
# --------------------------------------------------------------------------------------


def test_example_1_priority_sword_strike() -> None:
    outcome = resolve_round((20, 20), ({"priority": 4, "sword": 6}, {"sword": 5, "shield": 8}))
    assert outcome.life == (15, 16)
    assert outcome.winner is None and not outcome.draw
    phase_4, phase_0 = outcome.events
    assert phase_4["phase"] == 4 and phase_4["damage"] == [0, 4]
    strike = phase_4["strikes"][0]
    assert strike["kind"] == "priority_sword" and strike["amount"] == 4
    assert strike["sword_left"] == 2
    assert phase_4["strikes"][1]["kind"] == "sword" and phase_4["strikes"][1]["amount"] == 0
    assert phase_0["phase"] == 0 and phase_0["damage"] == [5, 0]


def test_example_1_through_apply() -> None:
    state, _ = new_game(random.Random(0))
    state, events = play_round(state, (["priority", "sword"], ["sword", "shield"]), [4, 6, 5, 8])
    assert state.life == [15, 16]
    reveal = next(e for e in events if e["type"] == "reveal")
    assert reveal["choices"] == [["priority", "sword"], ["sword", "shield"]]
    assert reveal["rolls"] == [{"priority": 4, "sword": 6}, {"sword": 5, "shield": 8}]
    assert [e["type"] for e in events] == [
        "locked_in",
        "locked_in",
        "reveal",
        "phase",
        "phase",
        "round_started",
    ]
    assert [e["phase"] for e in events if e["type"] == "phase"] == [4, 0]
    assert state.last_round is not None and len(state.last_round["phases"]) == 2
    assert state.round == 2 and state.phase == "choose"


def test_example_2_priority_shield_strike_then_magic() -> None:
    outcome = resolve_round((20, 20), ({"priority": 5, "shield": 7}, {"sword": 6, "magic": 3}))
    assert outcome.life == (17, 15)
    phase_5, phase_0 = outcome.events
    assert phase_5["strikes"] == [
        {
            "kind": "priority_shield",
            "player": 0,
            "target": 1,
            "gap": 5,
            "blocks": 6,
            "amount": 5,
        }
    ]
    assert phase_0["strikes"][0]["amount"] == 0 and phase_0["strikes"][0]["blocked"] == 6
    assert phase_0["magic"] == [{"player": 1, "target": 0, "amount": 3}]


def test_example_2_through_apply() -> None:
    state, _ = new_game()
    # Player 1 rolls magic before sword: dice roll in the fixed die order.
    state, _ = play_round(state, (["shield", "priority"], ["sword", "magic"]), [5, 7, 3, 6])
    assert state.life == [17, 15]


def test_example_3_magic_clash() -> None:
    outcome = resolve_round((20, 20), ({"magic": 4, "shield": 5}, {"magic": 1, "shield": 9}))
    assert outcome.life == (20, 17)
    (phase_0,) = outcome.events
    assert phase_0["clash"] == {"magic": [4, 1], "winner": 0, "amount": 3}
    assert phase_0["magic"] == []


def test_example_3_through_apply() -> None:
    state, _ = new_game()
    state, _ = play_round(state, (["magic", "shield"], ["magic", "shield"]), [4, 5, 1, 9])
    assert state.life == [20, 17]


def test_example_4_damaged_magic_user_casts_nothing() -> None:
    outcome = resolve_round((20, 20), ({"magic": 4, "sword": 3}, {"sword": 7, "shield": 2}))
    assert outcome.life == (13, 19)
    assert outcome.events[0]["magic_silenced"] == [0]


def test_example_4_through_apply() -> None:
    state, _ = new_game()
    state, _ = play_round(state, (["magic", "sword"], ["sword", "shield"]), [4, 3, 7, 2])
    assert state.life == [13, 19]


def test_example_5_killed_before_own_phase() -> None:
    outcome = resolve_round((3, 20), ({"sword": 8, "shield": 10}, {"priority": 6, "sword": 5}))
    assert outcome.winner == 1 and not outcome.draw
    assert outcome.life == (-2, 20)
    assert [event["phase"] for event in outcome.events] == [6]  # phase 0 never happens
    assert outcome.events[0]["dead"] == [0]


def test_example_5_through_apply() -> None:
    state = DicemanState(life=[3, 20])
    state, events = play_round(state, (["sword", "shield"], ["priority", "sword"]), [8, 10, 6, 5])
    assert state.phase == "finished"
    assert state.result is not None and state.result.winners == [1]
    assert state.result.reason == "normal"
    assert events[-1]["type"] == "game_over"


def test_example_6_equal_priority_swords_land_together() -> None:
    outcome = resolve_round((20, 20), ({"priority": 3, "sword": 7}, {"priority": 3, "sword": 2}))
    assert outcome.life == (18, 13)
    (phase_3,) = outcome.events
    assert phase_3["phase"] == 3 and phase_3["actors"] == [0, 1]
    assert all(strike["kind"] == "sword" for strike in phase_3["strikes"])


def test_example_6_through_apply() -> None:
    state, _ = new_game()
    state, _ = play_round(state, (["priority", "sword"], ["priority", "sword"]), [3, 7, 3, 2])
    assert state.life == [18, 13]


def test_example_7_both_dead_is_a_draw() -> None:
    outcome = resolve_round((2, 2), ({"sword": 3, "magic": 1}, {"sword": 2, "magic": 4}))
    assert outcome.draw and outcome.winner is None
    assert outcome.life == (0, -1)
    assert outcome.events[0]["magic"] == [] and outcome.events[0]["magic_silenced"] == [0, 1]


def test_example_7_through_apply() -> None:
    state = DicemanState(life=[2, 2])
    state, _ = play_round(state, (["sword", "magic"], ["sword", "magic"]), [1, 3, 4, 2])
    assert state.result is not None
    assert state.result.draw and state.result.winners == [] and state.result.ranks == [1, 1]


# --------------------------------------------------------------------------------------
# Rule details beyond the examples
# --------------------------------------------------------------------------------------


def test_fully_blocked_sword_does_not_stop_magic() -> None:
    # Both act in phase 0; B's sword 3 is fully blocked by A's shield 5: A still casts 4.
    outcome = resolve_round((20, 20), ({"magic": 4, "shield": 5}, {"sword": 3, "shield": 2}))
    assert outcome.life == (20, 16)


def test_clash_is_skipped_when_one_caster_is_hurt() -> None:
    # Both have magic, but A's sword hurts B: no clash; B (hurt) casts nothing, A casts 2.
    outcome = resolve_round((20, 20), ({"magic": 2, "sword": 5}, {"magic": 4, "shield": 1}))
    assert outcome.events[0]["clash"] is None
    assert outcome.life == (20, 20 - 4 - 2)


def test_lone_actor_always_casts_even_after_being_hit_earlier() -> None:
    # A strikes in phase 2 with the shield; B acts alone in phase 0 and casts in full.
    outcome = resolve_round((20, 20), ({"priority": 2, "shield": 9}, {"magic": 3, "sword": 4}))
    assert [e["phase"] for e in outcome.events] == [2, 0]
    assert outcome.events[1]["magic"] == [{"player": 1, "target": 0, "amount": 3}]
    assert outcome.life == (17, 18)


def test_equal_magic_clash_deals_nothing() -> None:
    outcome = resolve_round((20, 20), ({"magic": 2, "priority": 1}, {"magic": 2, "priority": 1}))
    assert outcome.life == (20, 20)
    assert outcome.events[0]["clash"] == {"magic": [2, 2], "winner": None, "amount": 0}


def test_higher_priority_against_priority() -> None:
    # Gap 4 > sword 3: the strike is capped by the sword, which drops to 0.
    outcome = resolve_round((20, 20), ({"priority": 6, "sword": 3}, {"priority": 2, "sword": 8}))
    assert outcome.events[0]["strikes"][0]["amount"] == 3
    assert outcome.events[0]["strikes"][0]["sword_left"] == 0
    assert outcome.life == (12, 17)


def test_events_are_json_friendly() -> None:
    outcome = resolve_round((20, 20), ({"priority": 4, "sword": 6}, {"sword": 5, "shield": 8}))
    assert json.loads(json.dumps(outcome.events)) == outcome.events


def test_resolve_round_does_not_mutate_its_arguments() -> None:
    life = (20, 20)
    rolls = ({"priority": 4, "sword": 6}, {"sword": 5, "shield": 8})
    kept = copy.deepcopy(rolls)
    resolve_round(life, rolls)
    assert rolls == kept and life == (20, 20)


# --------------------------------------------------------------------------------------
# Invalid input to the pure function
# --------------------------------------------------------------------------------------

GOOD = {"priority": 4, "sword": 6}

BAD_ROLLS = [
    pytest.param({"priority": 4}, id="one-die"),
    pytest.param({"priority": 4, "sword": 6, "shield": 2}, id="three-dice"),
    pytest.param({}, id="no-dice"),
    pytest.param({"priority": 4, "axe": 3}, id="unknown-die"),
    pytest.param({"Priority": 4, "sword": 3}, id="capitalised-die"),
    pytest.param({"magic": 5, "sword": 3}, id="magic-above-4"),
    pytest.param({"priority": 7, "sword": 3}, id="priority-above-6"),
    pytest.param({"priority": 2, "sword": 9}, id="sword-above-8"),
    pytest.param({"priority": 2, "shield": 11}, id="shield-above-10"),
    pytest.param({"priority": 0, "sword": 3}, id="zero-face"),
    pytest.param({"magic": -1, "sword": 3}, id="negative-face"),
    pytest.param({"priority": 2.0, "sword": 3}, id="float-face"),
    pytest.param({"priority": "2", "sword": 3}, id="string-face"),
    pytest.param({"priority": True, "sword": 3}, id="bool-face"),
    pytest.param([("priority", 2), ("sword", 3)], id="not-a-mapping"),
]


@pytest.mark.parametrize("bad", BAD_ROLLS)
@pytest.mark.parametrize("seat", [0, 1])
def test_invalid_rolls_raise_and_change_nothing(bad: Any, seat: int) -> None:
    rolls = [dict(GOOD), dict(GOOD)]
    rolls[seat] = bad
    kept = copy.deepcopy(rolls)
    with pytest.raises(IllegalMove):
        resolve_round((20, 20), (rolls[0], rolls[1]))
    assert rolls == kept


@pytest.mark.parametrize(
    "life",
    [(0, 20), (20, 0), (-3, 5), (True, 20), (20.0, 20), ("20", 20), (20,), (20, 20, 20)],
)
def test_invalid_life_raises(life: Any) -> None:
    with pytest.raises(IllegalMove):
        resolve_round(life, (dict(GOOD), dict(GOOD)))


@pytest.mark.parametrize("rolls", [(), (dict(GOOD),), (GOOD, GOOD, GOOD), "ab"])
def test_rolls_must_be_a_pair(rolls: Any) -> None:
    with pytest.raises(IllegalMove):
        resolve_round((20, 20), rolls)


# --------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------


def test_new_game_starts_round_one_at_twenty_life() -> None:
    state, events = new_game(random.Random(1))
    assert state.life == [20, 20] and state.round == 1 and state.max_rounds == 30
    assert diceman.to_act(state) == [0, 1]
    assert [e["type"] for e in events] == ["game_started", "round_started"]


@pytest.mark.parametrize("cap", [0, -1, True, 2.5, 1001])
def test_new_game_rejects_a_bad_round_cap(cap: Any) -> None:
    with pytest.raises(IllegalMove):
        new_game(max_rounds=cap)


def test_choice_is_final_and_repeat_reveals_nothing() -> None:
    state, _ = new_game()
    state, events = apply(state, Choose(player=0, dice=["magic", "sword"]), random.Random(0))
    assert events == [{"type": "locked_in", "player": 0, "round": 1}]
    before = state.model_dump(mode="json")
    with pytest.raises(IllegalMove) as error:
        apply(state, Choose(player=0, dice=["priority", "shield"]), random.Random(0))
    assert "already locked in" in str(error.value)
    assert "magic" not in str(error.value) and "sword" not in str(error.value)
    assert state.model_dump(mode="json") == before


@pytest.mark.parametrize(
    "dice",
    [
        ["magic"],
        ["magic", "sword", "shield"],
        ["magic", "magic"],
        ["magic", "axe"],
        ["Magic", "sword"],
        [],
        ["magic,sword"],
    ],
)
def test_bad_choices_raise_and_leave_state_unchanged(dice: list[str]) -> None:
    state, _ = new_game()
    before = state.model_dump(mode="json")
    with pytest.raises(IllegalMove):
        apply(state, Choose(player=0, dice=dice), random.Random(0))
    assert state.model_dump(mode="json") == before


@pytest.mark.parametrize("player", [2, -1])
def test_unknown_player_raises(player: int) -> None:
    state, _ = new_game()
    with pytest.raises(IllegalMove):
        apply(state, Choose(player=player, dice=["magic", "sword"]), random.Random(0))


def test_finished_game_rejects_every_action() -> None:
    state, _ = new_game()
    state, _ = apply(state, Forfeit(player=0), random.Random(0))
    for action in (Choose(player=1, dice=["magic", "sword"]), Forfeit(player=1)):
        with pytest.raises(IllegalMove):
            apply(state, action, random.Random(0))


def test_forfeit_and_timeout_results() -> None:
    state, _ = new_game()
    forfeited, _ = apply(state, Forfeit(player=1), random.Random(0))
    assert forfeited.result is not None
    assert forfeited.result.winners == [0] and forfeited.result.reason == "forfeit"
    locked, _ = apply(state, Choose(player=0, dice=["magic", "sword"]), random.Random(0))
    timed_out, _ = apply(locked, Timeout(player=1), random.Random(0))
    assert timed_out.result is not None
    assert timed_out.result.winners == [0] and timed_out.result.reason == "timeout"
    with pytest.raises(IllegalMove):  # player 0 already chose: not out of time
        apply(locked, Timeout(player=0), random.Random(0))


def test_round_cap_higher_life_wins() -> None:
    state, _ = new_game(max_rounds=1)
    state, _ = play_round(state, (["priority", "sword"], ["sword", "shield"]), [4, 6, 5, 8])
    assert state.result is not None
    assert state.result.reason == "round_cap" and state.result.winners == [1]
    assert state.result.scores == [15, 16]


def test_round_cap_equal_life_is_a_draw() -> None:
    state, _ = new_game(max_rounds=2)
    state, _ = play_round(state, (["magic", "shield"], ["magic", "shield"]), [1, 5, 1, 9])
    assert state.round == 2 and state.phase == "choose"
    state, _ = play_round(state, (["magic", "shield"], ["magic", "shield"]), [2, 5, 2, 9])
    assert state.result is not None
    assert state.result.reason == "round_cap" and state.result.draw


def test_views_show_lock_not_choice() -> None:
    state, _ = new_game()
    state, _ = apply(state, Choose(player=1, dice=["sword", "priority"]), random.Random(0))
    view = public_view(state)
    assert view["locked_in"] == [False, True] and view["to_act"] == [0]
    assert "sword" not in json.dumps(view) and "priority" not in json.dumps(view)
    assert private_view(state, 1)["your_choice"] == ["priority", "sword"]
    assert private_view(state, 0)["your_choice"] is None


def test_last_round_is_public_after_the_reveal() -> None:
    state, _ = new_game()
    state, _ = play_round(state, (["priority", "sword"], ["sword", "shield"]), [4, 6, 5, 8])
    view = public_view(state)
    assert view["last_round"]["choices"] == [["priority", "sword"], ["sword", "shield"]]
    assert view["last_round"]["life"] == [15, 16]
    assert view["locked_in"] == [False, False]


def test_actions_parse_from_dicts() -> None:
    action = ACTION_ADAPTER.validate_python(
        {"type": "choose", "player": 0, "dice": ["magic", "sword"]}
    )
    assert isinstance(action, Choose)
    state, _ = new_game()
    state, _ = apply(
        state, {"type": "choose", "player": 0, "dice": ["magic", "sword"]}, random.Random(0)
    )
    assert state.choices[0] == ["magic", "sword"]
    with pytest.raises(IllegalMove):
        apply(state, {"type": "dance", "player": 0}, random.Random(0))


def test_legal_actions_are_the_six_combos_for_a_player_still_to_choose() -> None:
    state, _ = new_game()
    assert [tuple(a.dice) for a in diceman.legal_actions(state, 0)] == list(COMBOS)
    state, _ = apply(state, Choose(player=0, dice=["magic", "sword"]), random.Random(0))
    assert diceman.legal_actions(state, 0) == []


def test_state_round_trips_through_json() -> None:
    state, _ = new_game()
    state, _ = play_round(state, (["priority", "sword"], ["sword", "shield"]), [4, 6, 5, 8])
    state, _ = apply(state, Choose(player=0, dice=["magic", "shield"]), random.Random(0))
    again = DicemanState.model_validate(json.loads(json.dumps(state.model_dump(mode="json"))))
    assert again == state
