"""Weighted Dice: the pure scorer, the exact odds, and the engine's state machine."""

from __future__ import annotations

import copy
import itertools
import json
import random
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from game_core.errors import IllegalMove
from game_core.weighted_dice import (
    ACTION_ADAPTER,
    Bet,
    CloseBetting,
    Forfeit,
    HouseTimeout,
    Leave,
    Setup,
    Timeout,
    WeightedDiceState,
    apply,
    bet_totals,
    eligible_bettors,
    is_finished,
    legal_actions,
    new_game,
    private_view,
    public_view,
    result,
    score_round,
    to_act,
    win_probabilities,
)


class ScriptedRandom(random.Random):
    """A Random whose die rolls are scripted; anything else it draws stays seeded."""

    def __init__(self, rolls: list[int]) -> None:
        super().__init__(0)
        self.rolls = list(rolls)

    def randint(self, a: int, b: int) -> int:
        value = self.rolls.pop(0)
        assert a <= value <= b, f"scripted roll {value} does not fit a {a}..{b} die"
        return value


# Seats for the worked examples: house, the two rollers, three bettors.
H, R1, R2, X, Y, Z = range(6)
NAMES = {"H": H, "R1": R1, "R2": R2, "X": X, "Y": Y, "Z": Z}
EVERYONE_AT_20 = {name: 20 for name in NAMES}


def table(scores: list[int] | None = None, house: int = H, **fields: Any) -> WeightedDiceState:
    """A game in setup, as if round 1 had just started."""
    scores = scores if scores is not None else [20] * 6
    return WeightedDiceState(
        n_players=len(scores),
        scores=scores,
        active=[True] * len(scores),
        house=house,
        **fields,
    )


def play_round(
    state: WeightedDiceState,
    dice: tuple[int, int],
    bets: list[tuple[int, int, int]],
    rolls: tuple[int, int],
    *,
    close: bool,
    rollers: tuple[int, int] = (R1, R2),
) -> tuple[WeightedDiceState, list[dict[str, Any]]]:
    """Set up, bet (seat, roller, amount) in order, and close betting if ``close``."""
    rng = ScriptedRandom(list(rolls))
    state, events = apply(
        state, Setup(player=state.house, rollers=list(rollers), dice=list(dice)), rng
    )
    for seat, side, amount in bets:
        state, more = apply(state, Bet(player=seat, roller=side, amount=amount), rng)
        events += more
    if close:
        state, more = apply(state, CloseBetting(), rng)
        events += more
    assert rng.rolls == [], "every scripted roll should have been used"
    return state, events


def by_name(scores: list[int]) -> dict[str, int]:
    return {name: scores[seat] for name, seat in NAMES.items()}


# ---------------------------------------------------------------------------------------
# The five worked examples of RULES.md section 3: through score_round and through apply.
# ---------------------------------------------------------------------------------------


def test_example_1_score_round() -> None:
    bets = {"X": (0, 6), "Y": (0, 4), "Z": (1, 5)}
    after = score_round(EVERYONE_AT_20, "H", ("R1", "R2"), (13, 3), bets)
    assert after == {"X": 31, "Y": 29, "Z": 15, "R1": 38, "R2": 20, "H": 20}


def test_example_1_apply() -> None:
    state, events = play_round(
        table(), (20, 4), [(X, 0, 6), (Y, 0, 4), (Z, 1, 5)], (13, 3), close=False
    )
    assert by_name(state.scores) == {"X": 31, "Y": 29, "Z": 15, "R1": 38, "R2": 20, "H": 20}
    closed = next(event for event in events if event["type"] == "betting_closed")
    assert closed["reason"] == "all_bet"
    assert state.last_round is not None and state.last_round.closed_by == "all_bet"
    scored = next(event for event in events if event["type"] == "round_scored")
    reasons = {line["player"]: line["reason"] for line in scored["changes"]}
    assert reasons == {
        H: "house",
        R1: "roller_won",
        R2: "roller_lost",
        X: "won_bet",
        Y: "won_bet",
        Z: "lost_bet",
    }
    roller_line = next(line for line in scored["changes"] if line["player"] == R1)
    assert (roller_line["roll"], roller_line["pot"]) == (13, 5)


def test_example_2_score_round() -> None:
    after = score_round(EVERYONE_AT_20, "H", ("R1", "R2"), (2, 5), {"X": (1, 7), "Y": (1, 3)})
    assert after == {"X": 23, "Y": 21, "Z": 20, "R2": 25, "R1": 20, "H": 20}


def test_example_2_apply() -> None:
    state, events = play_round(table(), (8, 8), [(X, 1, 7), (Y, 1, 3)], (2, 5), close=True)
    assert by_name(state.scores) == {"X": 23, "Y": 21, "Z": 20, "R2": 25, "R1": 20, "H": 20}
    scored = next(event for event in events if event["type"] == "round_scored")
    reasons = {line["player"]: line["reason"] for line in scored["changes"]}
    assert reasons[X] == reasons[Y] == "won_bet_half"
    assert reasons[Z] == "no_bet"
    assert state.last_round is not None and state.last_round.closed_by == "deadline"


def test_example_3_score_round() -> None:
    scores = {**EVERYONE_AT_20, "Z": 8}
    after = score_round(scores, "H", ("R1", "R2"), (2, 5), {"Z": (0, 6)})
    assert after["Z"] == 5


def test_example_3_apply() -> None:
    scores = [20, 20, 20, 20, 20, 8]
    state, events = play_round(table(scores), (6, 6), [(Z, 0, 6)], (2, 5), close=True)
    assert state.scores[Z] == 5
    scored = next(event for event in events if event["type"] == "round_scored")
    z_line = next(line for line in scored["changes"] if line["player"] == Z)
    assert z_line["reason"] == "lost_bet" and z_line["floored"] is True


def test_example_4_score_round() -> None:
    after = score_round(EVERYONE_AT_20, "H", ("R1", "R2"), (4, 4), {"X": (0, 6), "Y": (1, 4)})
    assert after == {"X": 14, "Y": 16, "H": 30, "R1": 20, "R2": 20, "Z": 20}


def test_example_4_apply() -> None:
    state, events = play_round(table(), (4, 4), [(X, 0, 6), (Y, 1, 4)], (4, 4), close=True)
    assert by_name(state.scores) == {"X": 14, "Y": 16, "H": 30, "R1": 20, "R2": 20, "Z": 20}
    scored = next(event for event in events if event["type"] == "round_scored")
    assert scored["tie"] is True and scored["winner"] is None
    house_line = next(line for line in scored["changes"] if line["player"] == H)
    assert (house_line["reason"], house_line["pot"]) == ("house_tie", 10)


def test_example_5_score_round() -> None:
    scores = {**EVERYONE_AT_20, "H": 40}
    assert score_round(scores, "H", ("R1", "R2"), (4, 4), {})["H"] == 5


def test_example_5_apply() -> None:
    state, events = play_round(table([40, 20, 20, 20, 20, 20]), (12, 10), [], (7, 7), close=True)
    assert state.scores == [5, 20, 20, 20, 20, 20]
    scored = next(event for event in events if event["type"] == "round_scored")
    house_line = next(line for line in scored["changes"] if line["player"] == H)
    assert house_line["reason"] == "house_rigged"


# ---------------------------------------------------------------------------------------
# score_round: more rules and every invalid input.
# ---------------------------------------------------------------------------------------


def test_score_round_returns_every_player_and_keeps_inputs() -> None:
    scores = {"H": 20, "A": 20, "B": 20, "C": 30, "D": 40}
    bets = {"C": (1, 30), "D": (0, 1)}
    snapshot = copy.deepcopy((scores, bets))
    after = score_round(scores, "H", ("A", "B"), (1, 20), bets)
    assert (scores, bets) == snapshot
    # B wins with 20: the roller gets 20 + the 1 bet on A; C wins 1 + 30; D loses 1.
    assert after == {"H": 20, "A": 20, "B": 41, "C": 61, "D": 39}
    assert set(after) == set(scores)


def test_a_lone_winner_with_an_odd_bet_rounds_half_down() -> None:
    after = score_round(EVERYONE_AT_20, "H", ("R1", "R2"), (3, 1), {"X": (0, 7)})
    assert after["X"] == 23 and after["R1"] == 23


def test_tie_counts_face_value_of_floored_bets_for_the_house() -> None:
    scores = {**EVERYONE_AT_20, "X": 8}
    after = score_round(scores, "H", ("R1", "R2"), (2, 2), {"X": (0, 8)})
    # X only loses 3 (floor 5) but the house gains the bet's face value, 8.
    assert after["X"] == 5 and after["H"] == 28


def test_score_round_accepts_lists_for_pairs() -> None:
    after = score_round(EVERYONE_AT_20, "H", ["R1", "R2"], [13, 3], {"X": [0, 6]})  # type: ignore[arg-type]
    assert after["X"] == 23


ROUND = {
    "scores": EVERYONE_AT_20,
    "house": "H",
    "rollers": ("R1", "R2"),
    "rolls": (13, 3),
    "bets": {"X": (0, 6)},
}

INVALID_ROUNDS = {
    "house unknown": {"house": "Q"},
    "roller unknown": {"rollers": ("R1", "Q")},
    "same roller twice": {"rollers": ("R1", "R1")},
    "house as roller": {"rollers": ("H", "R2")},
    "three rollers": {"rollers": ("R1", "R2", "X")},
    "one roller": {"rollers": ("R1",)},
    "rollers as a string": {"rollers": "R1"},
    "unhashable roller": {"rollers": (["R1"], "R2")},
    "roll 0": {"rolls": (0, 3)},
    "roll 21": {"rolls": (13, 21)},
    "negative roll": {"rolls": (-1, 3)},
    "bool roll": {"rolls": (True, 3)},
    "float roll": {"rolls": (13.0, 3)},
    "three rolls": {"rolls": (1, 2, 3)},
    "bool score": {"scores": {**EVERYONE_AT_20, "Z": True}},
    "float score": {"scores": {**EVERYONE_AT_20, "Z": 20.0}},
    "negative score": {"scores": {**EVERYONE_AT_20, "Z": -1}},
    "scores not a mapping": {"scores": [("H", 20)]},
    "bet by the house": {"bets": {"H": (0, 5)}},
    "bet by a roller": {"bets": {"R2": (0, 5)}},
    "bet by an unknown player": {"bets": {"Q": (0, 5)}},
    "bet of 0": {"bets": {"X": (0, 0)}},
    "negative bet": {"bets": {"X": (0, -3)}},
    "bet over the points": {"bets": {"X": (0, 21)}},
    "bool bet": {"bets": {"X": (0, True)}},
    "float bet": {"bets": {"X": (0, 5.0)}},
    "backs roller 2": {"bets": {"X": (2, 5)}},
    "backs roller -1": {"bets": {"X": (-1, 5)}},
    "backs True": {"bets": {"X": (True, 5)}},
    "bet not a pair": {"bets": {"X": (0, 5, 1)}},
    "bets not a mapping": {"bets": [("X", (0, 5))]},
}


@pytest.mark.parametrize("changes", INVALID_ROUNDS.values(), ids=INVALID_ROUNDS.keys())
def test_score_round_rejects_invalid_input_without_mutating(changes: dict[str, Any]) -> None:
    arguments = copy.deepcopy({**ROUND, **changes})
    snapshot = copy.deepcopy(arguments)
    with pytest.raises(IllegalMove):
        score_round(**arguments)
    assert arguments == snapshot


def test_bet_of_all_points_is_allowed() -> None:
    after = score_round(EVERYONE_AT_20, "H", ("R1", "R2"), (13, 3), {"X": (1, 20)})
    assert after["X"] == 5 and after["R1"] == 20 + 13 + 20


# ---------------------------------------------------------------------------------------
# Exact odds.
# ---------------------------------------------------------------------------------------

DICE = (4, 6, 8, 10, 12, 20)


def test_hand_computed_probabilities() -> None:
    assert win_probabilities(4, 4) == (Fraction(3, 8), Fraction(3, 8), Fraction(1, 4))
    # d20 vs d4: ties 4/80; the d4 is higher in 3+2+1 = 6 of 80 outcomes.
    assert win_probabilities(20, 4) == (Fraction(7, 8), Fraction(3, 40), Fraction(1, 20))
    assert win_probabilities(4, 20) == (Fraction(3, 40), Fraction(7, 8), Fraction(1, 20))
    assert win_probabilities(6, 6)[2] == Fraction(1, 6)


@pytest.mark.parametrize(("die_a", "die_b"), list(itertools.product(DICE, DICE)))
def test_probabilities_match_brute_force_enumeration(die_a: int, die_b: int) -> None:
    outcomes = list(itertools.product(range(1, die_a + 1), range(1, die_b + 1)))
    a_wins = Fraction(sum(a > b for a, b in outcomes), len(outcomes))
    b_wins = Fraction(sum(b > a for a, b in outcomes), len(outcomes))
    ties = Fraction(sum(a == b for a, b in outcomes), len(outcomes))
    assert win_probabilities(die_a, die_b) == (a_wins, b_wins, ties)
    assert sum(win_probabilities(die_a, die_b)) == 1
    swapped = win_probabilities(die_b, die_a)
    assert swapped == (b_wins, a_wins, ties)


def test_probabilities_agree_with_monte_carlo() -> None:
    generator = np.random.default_rng(7)
    samples = 200_000
    for die_a, die_b in [(4, 4), (20, 4), (6, 10), (12, 8)]:
        a = generator.integers(1, die_a + 1, samples)
        b = generator.integers(1, die_b + 1, samples)
        observed = ((a > b).mean(), (b > a).mean(), (a == b).mean())
        for seen, exact in zip(observed, win_probabilities(die_a, die_b), strict=True):
            spread = (float(exact) * (1 - float(exact)) / samples) ** 0.5
            assert abs(seen - float(exact)) < 5 * spread


@pytest.mark.parametrize(("die_a", "die_b"), [(3, 4), (4, 7), (100, 6), (True, 4), (4.0, 6)])
def test_probabilities_reject_other_dice(die_a: Any, die_b: Any) -> None:
    with pytest.raises(IllegalMove):
        win_probabilities(die_a, die_b)


# ---------------------------------------------------------------------------------------
# new_game and the roll-off.
# ---------------------------------------------------------------------------------------


def test_roll_off_rerolls_ties_among_the_tied_only() -> None:
    # Seats 1 and 3 tie on 20, tie again on 7, then seat 3 wins 9 to 2.
    rng = ScriptedRandom([10, 20, 5, 20, 3, 7, 7, 2, 9])
    state, events = new_game(5, rng)
    assert rng.rolls == []
    assert state.house == 3
    roll_offs = [event for event in events if event["type"] == "roll_off"]
    assert [event["attempt"] for event in roll_offs] == [1, 2, 3]
    assert [[(r["player"], r["roll"]) for r in event["rolls"]] for event in roll_offs] == [
        [(0, 10), (1, 20), (2, 5), (3, 20), (4, 3)],
        [(1, 7), (3, 7)],
        [(1, 2), (3, 9)],
    ]
    assert roll_offs[0]["tied"] == [1, 3]
    assert {"type": "house_chosen", "player": 3, "reason": "roll_off"} in events
    assert events[-1] == {"type": "round_started", "round": 1, "house": 3}


def test_new_game_starts_everyone_at_20_in_setup() -> None:
    state, _ = new_game(12, random.Random(3))
    assert state.scores == [20] * 12 and all(state.active)
    assert (state.phase, state.round, state.rounds_played, state.target) == ("setup", 1, 0, 150)
    assert to_act(state) == [state.house]


@pytest.mark.parametrize("players", [4, 13, 0, True, 5.0])
def test_new_game_needs_5_to_12_players(players: Any) -> None:
    with pytest.raises(IllegalMove):
        new_game(players, random.Random(1))


# ---------------------------------------------------------------------------------------
# Engine: setup, bets, closing, house timeout, rotation.
# ---------------------------------------------------------------------------------------


def betting_table(scores: list[int] | None = None) -> WeightedDiceState:
    state, _ = apply(
        table(scores), Setup(player=H, rollers=[R1, R2], dice=[20, 4]), random.Random(0)
    )
    return state


def test_setup_opens_betting_with_the_odds() -> None:
    state, events = apply(
        table(), Setup(player=H, rollers=[R2, R1], dice=[4, 20]), random.Random(0)
    )
    assert state.phase == "betting" and state.rollers == [R2, R1] and state.dice == [4, 20]
    assert eligible_bettors(state) == [X, Y, Z] == to_act(state)
    setup = events[0]
    assert setup["type"] == "setup" and setup["auto"] is False
    assert setup["odds"] == ["3/40", "7/8", "1/20"]


def test_bets_are_public_with_live_totals() -> None:
    state = betting_table()
    state, events = apply(state, Bet(player=X, roller=0, amount=6), random.Random(0))
    state, events = apply(state, Bet(player=Z, roller=1, amount=5), random.Random(0))
    assert bet_totals(state) == (6, 5)
    assert events == [
        {
            "type": "bet",
            "round": 1,
            "player": Z,
            "roller": 1,
            "roller_seat": R2,
            "amount": 5,
            "totals": [6, 5],
        }
    ]
    assert to_act(state) == [Y]
    view = public_view(state)
    assert view["bets"] == [
        {"player": X, "roller": 0, "amount": 6},
        {"player": Z, "roller": 1, "amount": 5},
    ]
    assert view["bet_totals"] == [6, 5]
    assert private_view(state, X)["you"]["bet"] == {"player": X, "roller": 0, "amount": 6}
    assert private_view(state, Y)["you"]["can_bet"] is True
    assert private_view(state, X)["you"]["can_bet"] is False
    json.dumps(view)


ILLEGAL_BETS = {
    "over your points": (Bet(player=X, roller=0, amount=21), "only 20 points"),
    "zero": (Bet(player=X, roller=0, amount=0), "at least 1"),
    "negative": (Bet(player=X, roller=1, amount=-4), "at least 1"),
    "house": (Bet(player=H, roller=0, amount=5), "house"),
    "roller": (Bet(player=R1, roller=1, amount=5), "rolling"),
    "unknown roller": (Bet(player=X, roller=2, amount=5), "one of the two rollers"),
    "unknown seat": (Bet(player=6, roller=0, amount=5), "no such seat"),
    "negative seat": (Bet(player=-1, roller=0, amount=5), "no such seat"),
}


@pytest.mark.parametrize(("action", "message"), ILLEGAL_BETS.values(), ids=ILLEGAL_BETS.keys())
def test_illegal_bets_raise_and_change_nothing(action: Bet, message: str) -> None:
    state = betting_table()
    snapshot = state.model_dump()
    with pytest.raises(IllegalMove, match=message):
        apply(state, action, random.Random(0))
    assert state.model_dump() == snapshot


def test_betting_twice_is_refused() -> None:
    state, _ = apply(betting_table(), Bet(player=Y, roller=1, amount=3), random.Random(0))
    snapshot = state.model_dump()
    with pytest.raises(IllegalMove, match="already bet 3 on roller 2: bets are final"):
        apply(state, Bet(player=Y, roller=0, amount=3), random.Random(0))
    assert state.model_dump() == snapshot


def test_betting_before_setup_is_the_wrong_phase() -> None:
    with pytest.raises(IllegalMove, match="not open yet"):
        apply(table(), Bet(player=X, roller=0, amount=5), random.Random(0))


def test_bool_amount_from_a_dict_is_refused() -> None:
    state = betting_table()
    with pytest.raises(IllegalMove):
        apply(state, {"type": "bet", "player": X, "roller": 0, "amount": True}, random.Random(0))


def test_dict_actions_are_parsed() -> None:
    action = ACTION_ADAPTER.validate_python({"type": "bet", "player": X, "roller": 0, "amount": 2})
    assert action == Bet(player=X, roller=0, amount=2)
    state, _ = apply(
        betting_table(), {"type": "bet", "player": X, "roller": 0, "amount": 2}, random.Random(0)
    )
    assert bet_totals(state) == (2, 0)
    with pytest.raises(IllegalMove, match="not a Weighted Dice move"):
        apply(state, {"type": "fold", "player": X}, random.Random(0))


ILLEGAL_SETUPS = {
    "not the house": (Setup(player=X, rollers=[R1, R2], dice=[4, 4]), "Only the house"),
    "same roller": (Setup(player=H, rollers=[R1, R1], dice=[4, 4]), "two different"),
    "house rolls": (Setup(player=H, rollers=[H, R1], dice=[4, 4]), "house cannot be a roller"),
    "one roller": (Setup(player=H, rollers=[R1], dice=[4, 4]), "exactly two rollers"),
    "three rollers": (Setup(player=H, rollers=[R1, R2, X], dice=[4, 4]), "exactly two"),
    "unknown roller": (Setup(player=H, rollers=[R1, 9], dice=[4, 4]), "player at this table"),
    "d7": (Setup(player=H, rollers=[R1, R2], dice=[4, 7]), "d4, d6, d8, d10, d12 or d20"),
    "d100": (Setup(player=H, rollers=[R1, R2], dice=[100, 4]), "d4, d6"),
    "one die": (Setup(player=H, rollers=[R1, R2], dice=[4]), "one die to each roller"),
}


@pytest.mark.parametrize(("action", "message"), ILLEGAL_SETUPS.values(), ids=ILLEGAL_SETUPS.keys())
def test_illegal_setups_raise_and_change_nothing(action: Setup, message: str) -> None:
    state = table()
    snapshot = state.model_dump()
    with pytest.raises(IllegalMove, match=message):
        apply(state, action, random.Random(0))
    assert state.model_dump() == snapshot


def test_system_actions_only_in_their_phase() -> None:
    with pytest.raises(IllegalMove, match="nothing to close"):
        apply(table(), CloseBetting(), random.Random(0))
    with pytest.raises(IllegalMove, match="already set up"):
        apply(betting_table(), HouseTimeout(), random.Random(0))
    with pytest.raises(IllegalMove, match="already set"):
        apply(betting_table(), Setup(player=H, rollers=[R1, R2], dice=[4, 4]), random.Random(0))


def test_house_timeout_sets_up_randomly_among_seated_players() -> None:
    seen_rollers: set[int] = set()
    seen_dice: set[int] = set()
    for seed in range(60):
        state = table([20] * 8, house=2)
        state, _ = apply(state, Leave(player=5), random.Random(0))
        state, events = apply(state, HouseTimeout(), random.Random(seed))
        assert events[0]["type"] == "house_timeout" and events[1]["auto"] is True
        assert state.phase == "betting" and state.auto_setup
        assert len(set(state.rollers)) == 2
        assert not {2, 5} & set(state.rollers)
        seen_rollers |= set(state.rollers)
        seen_dice |= set(state.dice)
    assert seen_rollers == {0, 1, 3, 4, 6, 7}
    assert seen_dice == set(DICE)


def test_house_timeout_is_deterministic_given_the_rng() -> None:
    first = apply(table(), HouseTimeout(), random.Random(11))
    second = apply(table(), HouseTimeout(), random.Random(11))
    assert first == second


def test_house_passes_clockwise_and_round_counter_moves() -> None:
    state, events = play_round(table(house=5), (6, 6), [], (1, 2), close=True, rollers=(0, 1))
    assert state.house == 0 and state.round == 2 and state.rounds_played == 1
    assert state.phase == "setup" and state.bets == [] and state.rollers == []
    assert {"type": "house_passed", "from": 5, "to": 0, "reason": "rotation"} in events
    assert events[-1] == {"type": "round_started", "round": 2, "house": 0}


def test_house_rotation_skips_players_who_left() -> None:
    state = table([20] * 7, house=5)
    state, _ = apply(state, Leave(player=6), random.Random(0))
    state, _ = apply(state, Leave(player=0), random.Random(0))
    state, _ = play_round(state, (6, 6), [], (3, 2), close=True, rollers=(1, 2))
    assert state.house == 1
    state, _ = play_round(state, (6, 6), [], (3, 2), close=True, rollers=(2, 3))
    assert state.house == 2


def test_legal_actions_and_to_act() -> None:
    state = table([20] * 5)
    setups = legal_actions(state, H)
    # C(4, 2) roller pairs x 36 ordered dice pairs.
    assert len(setups) == 6 * 36
    assert all(isinstance(action, Setup) for action in setups)
    assert legal_actions(state, X) == []
    betting = betting_table()
    bets = legal_actions(betting, X)
    assert len(bets) == 2 * 20
    assert Bet(player=X, roller=1, amount=20) in bets
    assert legal_actions(betting, R1) == []


def test_views_of_setup_are_json_friendly() -> None:
    view = public_view(table())
    assert view["odds"] is None and view["to_act"] == [H]
    assert [player["role"] for player in view["players"]] == ["house"] + ["player"] * 5
    json.dumps(private_view(table(), X))
    with pytest.raises(IllegalMove):
        private_view(table(), 6)


# ---------------------------------------------------------------------------------------
# Leaving, forfeits and timeouts.
# ---------------------------------------------------------------------------------------


def seven_seats(house: int = 0) -> WeightedDiceState:
    return table([20] * 7, house=house)


def test_house_leaving_during_setup_passes_the_house() -> None:
    state, events = apply(seven_seats(house=3), Leave(player=3), random.Random(0))
    assert state.house == 4 and state.phase == "setup" and state.round == 2
    assert not state.active[3] and state.scores[3] == 20
    assert {"type": "house_passed", "from": 3, "to": 4, "reason": "house_left"} in events


def test_house_leaving_during_betting_voids_the_round() -> None:
    state, _ = apply(
        seven_seats(house=6), Setup(player=6, rollers=[0, 1], dice=[4, 4]), random.Random(0)
    )
    state, _ = apply(state, Bet(player=2, roller=0, amount=10), random.Random(0))
    state, events = apply(state, Leave(player=6), random.Random(0))
    assert state.scores == [20] * 7 and state.bets == []
    assert state.house == 0 and state.phase == "setup" and state.round == 2
    assert state.rounds_played == 0
    void = next(event for event in events if event["type"] == "round_void")
    assert void["reason"] == "house_left"
    assert void["bets_dropped"] == [{"player": 2, "roller": 0, "amount": 10}]


def test_roller_leaving_during_betting_voids_the_round_and_the_house_stays() -> None:
    state, _ = apply(seven_seats(), Setup(player=0, rollers=[1, 2], dice=[4, 4]), random.Random(0))
    state, _ = apply(state, Bet(player=3, roller=1, amount=10), random.Random(0))
    state, events = apply(state, Leave(player=2), random.Random(0))
    assert state.house == 0 and state.phase == "setup" and state.round == 2
    assert state.scores == [20] * 7 and state.bets == []
    assert [event["type"] for event in events] == ["player_left", "round_void", "round_started"]
    with pytest.raises(IllegalMove, match="left the game cannot roll"):
        apply(state, Setup(player=0, rollers=[1, 2], dice=[4, 4]), random.Random(0))


def test_a_bettor_who_leaves_keeps_the_bet() -> None:
    state, _ = apply(seven_seats(), Setup(player=0, rollers=[1, 2], dice=[6, 6]), random.Random(0))
    state, _ = apply(state, Bet(player=3, roller=0, amount=10), random.Random(0))
    state, _ = apply(state, Bet(player=4, roller=1, amount=4), random.Random(0))
    state, _ = apply(state, Leave(player=3), random.Random(0))
    assert state.phase == "betting" and to_act(state) == [5, 6]
    assert 3 not in eligible_bettors(state)
    state, _ = apply(state, CloseBetting(), ScriptedRandom([6, 1]))
    # Seat 3 had left but the bet stands and wins 4 + 10.
    assert state.scores[3] == 34 and state.scores[4] == 16
    assert not state.active[3]
    with pytest.raises(IllegalMove, match="left this game"):
        apply(state, Setup(player=3, rollers=[1, 2], dice=[4, 4]), random.Random(0))


def test_the_last_eligible_player_leaving_resolves_the_round() -> None:
    state, _ = apply(seven_seats(), Setup(player=0, rollers=[1, 2], dice=[6, 6]), random.Random(0))
    for seat in (3, 4, 5):
        state, _ = apply(state, Bet(player=seat, roller=0, amount=2), random.Random(0))
    state, events = apply(state, Leave(player=6), ScriptedRandom([5, 3]))
    assert state.rounds_played == 1 and state.house == 1
    closed = next(event for event in events if event["type"] == "betting_closed")
    assert closed["reason"] == "all_bet"
    assert state.scores[3:6] == [21, 21, 21]


def test_a_left_player_cannot_bet_or_leave_again() -> None:
    state, _ = apply(seven_seats(), Leave(player=4), random.Random(0))
    state, _ = apply(state, Setup(player=0, rollers=[1, 2], dice=[4, 4]), random.Random(0))
    snapshot = state.model_dump()
    with pytest.raises(IllegalMove, match="left this game"):
        apply(state, Bet(player=4, roller=0, amount=1), random.Random(0))
    with pytest.raises(IllegalMove, match="already left"):
        apply(state, Leave(player=4), random.Random(0))
    assert state.model_dump() == snapshot


@pytest.mark.parametrize(
    ("action", "reason"),
    [(Leave, "abandoned"), (Forfeit, "forfeit"), (Timeout, "timeout")],
)
def test_fewer_than_five_seated_ends_the_game(action: type, reason: str) -> None:
    state = table([20, 90, 20, 60, 30, 20], house=0)
    state, _ = apply(state, Leave(player=5), random.Random(0))
    assert not is_finished(state)
    # Seat 1 leads with 90 but leaves: the game ends and a leaver cannot win.
    state, events = apply(state, action(player=1), random.Random(0))
    assert is_finished(state) and to_act(state) == []
    outcome = result(state)
    assert outcome is not None
    assert outcome.reason == reason
    assert outcome.winners == [3]
    assert outcome.ranks == [4, 2, 4, 1, 3, 4]
    assert outcome.scores == [20, 90, 20, 60, 30, 20]
    assert events[-1]["type"] == "game_over" and events[-1]["winners"] == [3]
    with pytest.raises(IllegalMove, match="already over"):
        apply(state, Setup(player=0, rollers=[2, 3], dice=[4, 4]), random.Random(0))


# ---------------------------------------------------------------------------------------
# The end of the game.
# ---------------------------------------------------------------------------------------


def test_reaching_150_ends_the_game_after_scoring() -> None:
    state, events = play_round(
        table([20, 140, 20, 20, 20, 20]), (4, 4), [(X, 1, 20)], (4, 1), close=True
    )
    # R1 gains 4 + 20: 164; X loses everything and drops to the floor.
    assert is_finished(state) and state.scores[R1] == 164 and state.scores[X] == 5
    outcome = result(state)
    assert outcome is not None and outcome.winners == [R1] and outcome.reason == "normal"
    assert outcome.ranks == [2, 1, 2, 6, 2, 2]
    assert events[-1]["type"] == "game_over"
    assert not any(event["type"] == "round_started" for event in events)


def test_149_does_not_end_the_game() -> None:
    state, _ = play_round(table([20, 146, 20, 20, 20, 20]), (4, 4), [], (3, 1), close=True)
    assert state.scores[R1] == 149 and not is_finished(state) and result(state) is None


def test_everyone_tied_for_highest_wins() -> None:
    # X and Y both back R1 (10 each), Z backs R2 with 10; R1 wins: X and Y gain 10 + 10.
    scores = [20, 20, 20, 130, 130, 20]
    state, _ = play_round(
        table(scores), (4, 4), [(X, 0, 10), (Y, 0, 10), (Z, 1, 10)], (2, 1), close=False
    )
    outcome = result(state)
    assert state.scores == [20, 32, 20, 150, 150, 10]
    assert outcome is not None and outcome.winners == [X, Y] and not outcome.draw
    assert outcome.ranks == [4, 3, 4, 1, 1, 6]


@pytest.mark.parametrize(
    "changes",
    [
        {"scores": [20] * 5},
        {"house": 6},
        {"phase": "betting"},
        {"rollers": [1, 2]},
        {"phase": "finished"},
        {"end_reason": "normal"},
        {"n_players": 4, "scores": [20] * 4, "active": [True] * 4},
    ],
)
def test_a_corrupt_stored_state_is_refused(changes: dict[str, Any]) -> None:
    stored = {**table().model_dump(mode="json"), **changes}
    with pytest.raises(ValidationError):
        WeightedDiceState.model_validate(stored)
