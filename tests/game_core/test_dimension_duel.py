"""Dimension Duel rules: the worked examples, input validation and the engine."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from game_core import dimension_duel as duel
from game_core.dimension_duel import (
    ACTION_ADAPTER,
    Choose,
    DuelState,
    Forfeit,
    Roll,
    Timeout,
    apply,
    new_game,
    private_view,
    public_view,
    resolve_turn,
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


def tactical_turn(
    state: DuelState,
    tau: tuple[str, str, str],
    kaon: tuple[str, str, str],
    faces: list[int],
) -> tuple[DuelState, list[dict[str, Any]]]:
    """Both lock in (device, region, function); ``faces``: Tau's damage dice, then Kaon's."""
    rng = ScriptedRandom(faces)
    events: list[dict[str, Any]] = []
    for player, (device, region, function) in ((1, kaon), (0, tau)):
        state, new = apply(
            state,
            Choose(player=player, device=device, region=region, function=function),
            rng,
        )
        events += new
    assert rng.faces == []
    return state, events


def turn(**overrides: Any) -> duel.DuelTurn:
    arguments: dict[str, Any] = {
        "hp": (75, 75),
        "attacker": 0,
        "ray": "tau",
        "shield": "tau",
        "focus": "head",
        "guard": "head",
        "functions": ("bluff", "bluff"),
        "rolls": ((), ()),
    }
    arguments.update(overrides)
    hp = arguments.pop("hp")
    attacker = arguments.pop("attacker")
    return resolve_turn(hp, attacker, **arguments)


# --------------------------------------------------------------------------------------
# The card's (corrected) example and the four worked examples
# --------------------------------------------------------------------------------------


def test_card_example_with_intensifier_doubles_both_ways() -> None:
    result = turn(
        ray="tau",
        shield="kaon",
        functions=("intensifier", "delayed_attack"),
        rolls=((4,), (6,)),
    )
    assert result.dice == (1, 1)
    assert result.damage == (12, 8)  # Tau loses 12, Kaon loses 8
    assert result.hp == (63, 67)
    assert result.multiplier == 2 and not result.deflected


def test_card_example_through_apply() -> None:
    state, _ = new_game()
    state, events = tactical_turn(
        state, ("tau", "head", "intensifier"), ("kaon", "head", "delayed_attack"), [4, 6]
    )
    assert state.hp == [63, 67]
    assert [e["type"] for e in events[2:]] == [
        "reveal",
        "calibration",
        "focus",
        "functions",
        "dice_awarded",
        "faces_rolled",
        "damage",
        "hp",
        "turn_started",
    ]
    assert state.turn == 2 and state.attacker == 1
    assert state.charges[0]["intensifier"] == 0 and state.charges[1]["delayed_attack"] == 0


def test_card_example_in_classic_mode_from_the_tables() -> None:
    state, _ = new_game(mode="classic")
    # Devices (Tau 1 = Tau ray, Kaon 4 = anti-Kaon), regions (2 = Head, 1 = Head),
    # functions (Tau 5 = Intensifier, Kaon 3 = Delayed Attack), then damage 4 and 6.
    rng = ScriptedRandom([1, 4, 2, 1, 5, 3, 4, 6])
    state, _ = apply(state, Roll(player=0), rng)
    state, events = apply(state, Roll(player=1), rng)
    assert rng.faces == []
    assert state.hp == [63, 67]
    reveal = next(e for e in events if e["type"] == "reveal")
    assert reveal["choices"][0] == {"device": "tau", "region": "head", "function": "intensifier"}
    assert reveal["table_dice"][1] == {"device": 4, "region": 1, "function": 3}


def test_example_1_deflector_turns_the_attack_back() -> None:
    result = turn(
        ray="kaon",
        shield="tau",
        focus="torso",
        guard="head",
        functions=("bluff", "deflector"),
        rolls=((3, 5), ()),
    )
    assert result.dice == (2, 0) and result.deflected
    assert result.hp == (67, 75)


def test_example_1_through_apply() -> None:
    state, _ = new_game()
    state, _ = tactical_turn(
        state, ("kaon", "torso", "bluff"), ("tau", "head", "deflector"), [3, 5]
    )
    assert state.hp == [67, 75]


def test_example_2_particle_changer_self() -> None:
    result = turn(functions=("changer_self", "bluff"), rolls=((6,), ()))
    assert result.ray == "kaon" and result.dice == (1, 0)
    assert result.hp == (75, 69)


def test_example_2_through_apply() -> None:
    state, _ = new_game()
    state, _ = tactical_turn(state, ("tau", "head", "changer_self"), ("tau", "head", "bluff"), [6])
    assert state.hp == [75, 69]
    assert state.charges[0]["particle_changer"] == 0


def test_example_3_two_changers_cancel() -> None:
    result = turn(functions=("changer_self", "changer_opponent"), rolls=((), ()))
    assert result.ray == "tau" and result.dice == (0, 0)
    assert result.hp == (75, 75)


def test_example_3_through_apply() -> None:
    state, _ = new_game()
    state, events = tactical_turn(
        state, ("tau", "head", "changer_self"), ("tau", "head", "changer_opponent"), []
    )
    assert state.hp == [75, 75]
    rolled = next(e for e in events if e["type"] == "faces_rolled")
    assert rolled["faces"] == [[], []]


@pytest.mark.parametrize(
    "functions",
    [("disruptor", "bluff"), ("bluff", "disruptor"), ("disruptor", "intensifier")],
)
def test_example_4_disruptor_stops_everything(functions: tuple[str, str]) -> None:
    result = turn(ray="tau", shield="kaon", focus="head", guard="torso", functions=functions)
    assert result.damage == (0, 0) and result.hp == (75, 75)
    assert result.dice[0] == 2 and result.disrupted
    # Nobody rolls: an empty rolls argument is fine, and no face is checked.
    assert turn(functions=functions, ray="kaon", rolls=()).damage == (0, 0)
    assert turn(functions=functions, ray="kaon", rolls=((99,), ("x",))).damage == (0, 0)


def test_example_4_through_apply_rolls_no_dice() -> None:
    state, _ = new_game()
    state, events = tactical_turn(
        state, ("kaon", "torso", "intensifier"), ("tau", "head", "disruptor"), []
    )
    assert state.hp == [75, 75]
    awarded = next(e for e in events if e["type"] == "dice_awarded")
    assert awarded["dice"] == [2, 0]


# --------------------------------------------------------------------------------------
# Further rule details
# --------------------------------------------------------------------------------------


def test_functions_and_rolls_are_indexed_by_player_when_kaon_attacks() -> None:
    # Kaon attacks: Kaon's ray misses the shield (+1 die); Tau's Delayed Attack gives Tau 1.
    result = resolve_turn(
        (75, 75),
        1,
        ray="kaon",
        shield="tau",
        focus="head",
        guard="head",
        functions=("delayed_attack", "bluff"),
        rolls=((2,), (5,)),
    )
    assert result.dice == (1, 1)
    assert result.damage == (5, 2)


def test_two_deflectors_cancel_and_two_intensifiers_quadruple() -> None:
    both_deflect = turn(shield="kaon", functions=("deflector", "deflector"), rolls=((4,), ()))
    assert both_deflect.damage == (0, 4) and not both_deflect.deflected
    both_intensify = turn(shield="kaon", functions=("intensifier", "intensifier"), rolls=((4,), ()))
    assert both_intensify.damage == (0, 16) and both_intensify.multiplier == 4


def test_deflected_intensifier_backfires() -> None:
    result = turn(
        shield="kaon", guard="torso", functions=("intensifier", "deflector"), rolls=((6, 5), ())
    )
    assert result.damage == (22, 0)


def test_changer_opponent_on_the_shield() -> None:
    # The attacker flips the defender's matching shield: the ray now gets through.
    result = turn(functions=("changer_opponent", "bluff"), rolls=((3,), ()))
    assert result.shield == "kaon" and result.dice == (1, 0)


def test_defender_changer_self_flips_its_own_shield() -> None:
    result = turn(shield="kaon", functions=("bluff", "changer_self"), rolls=((), ()))
    assert result.shield == "tau" and result.dice == (0, 0)


def test_both_dead_is_a_draw_and_hp_is_not_clamped() -> None:
    result = resolve_turn(
        (3, 2),
        0,
        ray="tau",
        shield="kaon",
        focus="head",
        guard="head",
        functions=("bluff", "delayed_attack"),
        rolls=((5,), (6,)),
    )
    assert result.draw and result.winner is None
    assert result.hp == (-3, -3)


def test_a_kill_names_the_winner() -> None:
    result = turn(hp=(5, 4), shield="kaon", rolls=((4,), ()))
    assert result.winner == 0 and result.hp == (5, 0)


def test_extra_faces_are_ignored_even_if_out_of_range() -> None:
    result = turn(shield="kaon", rolls=((3, 99, 0), (7,)))
    assert result.damage == (0, 3)


def test_resolve_turn_never_mutates_its_arguments() -> None:
    rolls = ([4, 5], [6])
    functions = ["intensifier", "delayed_attack"]
    kept = copy.deepcopy((rolls, functions))
    turn(shield="kaon", functions=functions, rolls=rolls)
    assert (rolls, functions) == kept


# --------------------------------------------------------------------------------------
# Invalid input to the pure function
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({"hp": (0, 75)}, id="zero-hp"),
        pytest.param({"hp": (75, -1)}, id="negative-hp"),
        pytest.param({"hp": (True, 75)}, id="bool-hp"),
        pytest.param({"hp": (75.0, 75)}, id="float-hp"),
        pytest.param({"hp": (75,)}, id="one-hp"),
        pytest.param({"attacker": 2}, id="attacker-2"),
        pytest.param({"attacker": -1}, id="attacker-negative"),
        pytest.param({"attacker": True}, id="attacker-bool"),
        pytest.param({"attacker": "0"}, id="attacker-string"),
        pytest.param({"ray": "Tau"}, id="ray-capitalised"),
        pytest.param({"ray": "muon"}, id="ray-unknown"),
        pytest.param({"shield": "KAON"}, id="shield-upper"),
        pytest.param({"shield": 1}, id="shield-int"),
        pytest.param({"focus": "legs"}, id="focus-unknown"),
        pytest.param({"guard": "Head"}, id="guard-capitalised"),
        pytest.param({"functions": ("Bluff", "bluff")}, id="function-capitalised"),
        pytest.param({"functions": ("bluff", "particle_changer")}, id="function-unknown"),
        pytest.param({"functions": ("bluff",)}, id="one-function"),
        pytest.param({"functions": "bluff"}, id="functions-string"),
        pytest.param({"shield": "kaon", "rolls": ((), ())}, id="too-few-faces"),
        pytest.param({"shield": "kaon", "rolls": ()}, id="no-rolls-but-a-die-awarded"),
        pytest.param({"shield": "kaon", "rolls": ((0,), ())}, id="face-zero"),
        pytest.param({"shield": "kaon", "rolls": ((7,), ())}, id="face-seven"),
        pytest.param({"shield": "kaon", "rolls": ((True,), ())}, id="face-bool"),
        pytest.param({"shield": "kaon", "rolls": ((3.0,), ())}, id="face-float"),
        pytest.param(
            {"functions": ("bluff", "delayed_attack"), "rolls": ((), (9,))},
            id="defender-face-out-of-range",
        ),
    ],
)
def test_invalid_input_raises(overrides: dict[str, Any]) -> None:
    kept = copy.deepcopy(overrides)
    with pytest.raises(IllegalMove):
        turn(**overrides)
    assert overrides == kept


# --------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------


def test_new_game_defaults_and_options() -> None:
    state, events = new_game(random.Random(0))
    assert state.mode == "tactical" and state.hp == [75, 75] and state.attacker == 0
    assert state.turn == 1 and duel.to_act(state) == [0, 1]
    assert events[-1] == {"type": "turn_started", "turn": 1, "attacker": 0, "defender": 1}
    classic, _ = new_game(mode="classic", start_hp=10)
    assert classic.phase == "roll" and classic.hp == [10, 10]


@pytest.mark.parametrize(
    "options", [{"mode": "blitz"}, {"start_hp": 9}, {"start_hp": 151}, {"start_hp": True}]
)
def test_new_game_rejects_bad_options(options: dict[str, Any]) -> None:
    with pytest.raises(IllegalMove):
        new_game(**options)


def test_roles_swap_every_turn() -> None:
    state, _ = new_game()
    for expected_attacker in (0, 1, 0, 1):
        assert state.attacker == expected_attacker
        state, _ = tactical_turn(state, ("tau", "head", "bluff"), ("tau", "head", "bluff"), [])
    assert state.turn == 5


def test_spent_charge_raises_and_keeps_state() -> None:
    state, _ = new_game()
    state, _ = tactical_turn(state, ("tau", "head", "changer_self"), ("tau", "head", "bluff"), [6])
    before = state.model_dump(mode="json")
    for function in ("changer_self", "changer_opponent"):  # one shared charge
        with pytest.raises(IllegalMove):
            apply(
                state,
                Choose(player=0, device="tau", region="head", function=function),
                random.Random(0),
            )
    assert state.model_dump(mode="json") == before
    assert "changer_self" not in duel.available_functions(state, 0)
    assert "bluff" in duel.available_functions(state, 0)


@pytest.mark.parametrize(
    "choice",
    [
        {"device": "Tau", "region": "head", "function": "bluff"},
        {"device": "tau", "region": "neck", "function": "bluff"},
        {"device": "tau", "region": "head", "function": "teleport"},
    ],
)
def test_bad_tactical_choice_raises(choice: dict[str, str]) -> None:
    state, _ = new_game()
    before = state.model_dump(mode="json")
    with pytest.raises(IllegalMove):
        apply(state, Choose(player=0, **choice), random.Random(0))
    assert state.model_dump(mode="json") == before


def test_mode_mismatch_and_double_lock_raise() -> None:
    tactical, _ = new_game()
    with pytest.raises(IllegalMove):
        apply(tactical, Roll(player=0), random.Random(0))
    classic, _ = new_game(mode="classic")
    with pytest.raises(IllegalMove):
        apply(
            classic,
            Choose(player=0, device="tau", region="head", function="bluff"),
            random.Random(0),
        )
    classic, _ = apply(classic, Roll(player=0), random.Random(0))
    with pytest.raises(IllegalMove) as error:
        apply(classic, Roll(player=0), random.Random(0))
    assert "already locked in" in str(error.value)


def test_forfeit_timeout_and_finished() -> None:
    state, _ = new_game()
    locked, _ = apply(
        state, Choose(player=0, device="kaon", region="torso", function="bluff"), random.Random(0)
    )
    with pytest.raises(IllegalMove):
        apply(locked, Timeout(player=0), random.Random(0))
    timed_out, events = apply(locked, Timeout(player=1), random.Random(0))
    assert timed_out.result is not None
    assert timed_out.result.winners == [0] and timed_out.result.reason == "timeout"
    assert events[-1]["type"] == "game_over"
    forfeited, _ = apply(state, Forfeit(player=0), random.Random(0))
    assert forfeited.result is not None and forfeited.result.winners == [1]
    with pytest.raises(IllegalMove):
        apply(forfeited, Forfeit(player=1), random.Random(0))
    assert duel.to_act(forfeited) == [] and duel.legal_actions(forfeited, 0) == []


def test_views_hide_the_choice_and_show_own() -> None:
    state, _ = new_game()
    views = []
    for device, region, function in (
        ("kaon", "extremities", "deflector"),
        ("tau", "head", "bluff"),
    ):
        locked, _ = apply(
            state,
            Choose(player=1, device=device, region=region, function=function),
            random.Random(0),
        )
        views.append(json.dumps(public_view(locked), sort_keys=True))
        assert public_view(locked)["locked_in"] == [False, True]
        assert private_view(locked, 1)["your_choice"] == {
            "device": device,
            "region": region,
            "function": function,
        }
        assert private_view(locked, 0)["your_choice"] is None
    assert views[0] == views[1]
    assert "extremities" not in views[0] and "head" not in views[0]


def test_killing_turn_ends_the_game() -> None:
    state = DuelState(hp=[10, 4])
    state, events = tactical_turn(
        state, ("tau", "head", "bluff"), ("kaon", "torso", "bluff"), [3, 2]
    )
    assert state.phase == "finished" and state.hp == [10, -1]
    assert state.result is not None and state.result.winners == [0]
    assert state.result.scores == [10, -1] and events[-1]["type"] == "game_over"


def test_legal_actions_follow_charges() -> None:
    state, _ = new_game()
    assert len(duel.legal_actions(state, 0)) == 2 * 3 * 7
    state, _ = tactical_turn(state, ("tau", "head", "deflector"), ("tau", "head", "bluff"), [])
    assert len(duel.legal_actions(state, 0)) == 2 * 3 * 6
    classic, _ = new_game(mode="classic")
    assert duel.legal_actions(classic, 1) == [Roll(player=1)]


def test_actions_parse_from_dicts() -> None:
    parsed = ACTION_ADAPTER.validate_python({"type": "roll", "player": 1})
    assert parsed == Roll(player=1)
    state, _ = new_game()
    with pytest.raises(IllegalMove):
        apply(state, {"type": "choose", "player": 0}, random.Random(0))
