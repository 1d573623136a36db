"""Weighted Dice property tests: random legal play through the engine, and the pure scorer."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from game_core.errors import IllegalMove
from game_core.weighted_dice import (
    Bet,
    CloseBetting,
    Forfeit,
    HouseTimeout,
    Leave,
    RoundSummary,
    Setup,
    Timeout,
    WeightedDiceState,
    apply,
    is_finished,
    new_game,
    private_view,
    public_view,
    result,
    score_round,
    to_act,
)

DICE = (4, 6, 8, 10, 12, 20)
TARGET = 150
FLOOR = 5
STEP_CAP = 20_000


def expected_points_created(summary: RoundSummary) -> int:
    """The net points a round adds, worked out from the rules independently of the engine."""
    before = {line.player: line.before for line in summary.changes}

    def loss(player: int, amount: int) -> int:
        return before[player] - max(FLOOR, before[player] - amount)

    if summary.rolls[0] == summary.rolls[1]:
        lost = sum(loss(bet.player, bet.amount) for bet in summary.bets)
        if summary.bets:
            return sum(bet.amount for bet in summary.bets) - lost
        return FLOOR - before[summary.house] - lost
    winner = 0 if summary.rolls[0] > summary.rolls[1] else 1
    pot = sum(bet.amount for bet in summary.bets if bet.roller != winner)
    created = summary.rolls[winner] + pot
    for bet in summary.bets:
        if bet.roller == winner:
            created += pot + bet.amount if pot else bet.amount // 2
        else:
            created -= loss(bet.player, bet.amount)
    return created


def random_action(state: WeightedDiceState, chooser: random.Random, leave_rate: float) -> Any:
    seated = [seat for seat in range(state.n_players) if state.active[seat]]
    if chooser.random() < leave_rate:
        kind = chooser.choice([Leave, Forfeit, Timeout])
        return kind(player=chooser.choice(seated))
    if state.phase == "setup":
        if chooser.random() < 0.15:
            return HouseTimeout()
        candidates = [seat for seat in seated if seat != state.house]
        return Setup(
            player=state.house,
            rollers=chooser.sample(candidates, 2),
            dice=[chooser.choice(DICE), chooser.choice(DICE)],
        )
    if chooser.random() < 0.1:
        return CloseBetting()
    seat = chooser.choice(to_act(state))
    points = state.scores[seat]
    amount = chooser.choice([1, max(1, points // 4), chooser.randint(1, points)])
    return Bet(player=seat, roller=chooser.randrange(2), amount=amount)


def illegal_action(state: WeightedDiceState, chooser: random.Random) -> Any:
    if state.phase == "setup":
        return chooser.choice(
            [
                Bet(player=state.house, roller=0, amount=1),
                Setup(player=state.house, rollers=[state.house, 0], dice=[4, 4]),
                CloseBetting(),
            ]
        )
    first_roller = state.rollers[0]
    options: list[Any] = [
        Bet(player=state.house, roller=0, amount=1),
        Bet(player=first_roller, roller=1, amount=1),
        HouseTimeout(),
    ]
    waiting = to_act(state)
    if waiting:
        seat = waiting[0]
        options.append(Bet(player=seat, roller=0, amount=state.scores[seat] + 1))
        options.append(Bet(player=seat, roller=1, amount=0))
    if state.bets:
        options.append(Bet(player=state.bets[0].player, roller=0, amount=1))
    return chooser.choice(options)


def check_step(
    before: WeightedDiceState, after: WeightedDiceState, events: list[dict[str, Any]]
) -> None:
    assert after.model_validate_json(after.model_dump_json()) == after
    dumped = json.loads(json.dumps(after.model_dump(mode="json")))
    assert WeightedDiceState.model_validate(dumped) == after
    assert json.loads(json.dumps(events)) == events
    json.dumps(public_view(after))
    json.dumps(private_view(after, 0))
    assert min(after.scores) >= FLOOR
    assert after.round >= before.round
    scored = [event for event in events if event["type"] == "round_scored"]
    assert after.rounds_played == before.rounds_played + len(scored)
    if scored:
        summary = after.last_round
        assert summary is not None
        assert sum(after.scores) - sum(before.scores) == expected_points_created(summary)
        for line in summary.changes:
            if line.reason in ("lost_bet", "lost_bet_tie"):
                assert line.amount is not None
                assert line.after == max(FLOOR, line.before - line.amount)
            if line.reason in ("no_bet", "roller_lost", "house"):
                assert line.after == line.before
        # The game ends exactly when someone reaches the target after scoring.
        assert is_finished(after) == (max(after.scores) >= TARGET)
        if is_finished(after):
            outcome = result(after)
            assert outcome is not None and outcome.reason == "normal"
            best = max(after.scores[seat] for seat in range(after.n_players) if after.active[seat])
            assert all(after.scores[seat] == best for seat in outcome.winners)
    elif is_finished(after):
        outcome = result(after)
        assert outcome is not None
        assert outcome.reason in ("abandoned", "forfeit", "timeout")
        assert sum(after.active) == 4
    if not is_finished(after):
        assert max(after.scores) < TARGET
        assert sum(after.active) >= 5


def play(
    players: int, seed: int, leave_rate: float, illegal_rate: float = 0.0
) -> tuple[WeightedDiceState, list[dict[str, Any]]]:
    rng = random.Random(seed)
    chooser = random.Random(seed ^ 0x5EED)
    state, events = new_game(players, rng)
    history = list(events)
    for _ in range(STEP_CAP):
        if is_finished(state):
            return state, history
        if chooser.random() < illegal_rate:
            snapshot = state.model_dump()
            action = illegal_action(state, chooser)
            try:
                apply(state, action, random.Random(0))
            except IllegalMove:
                assert state.model_dump() == snapshot
            else:
                raise AssertionError(f"{action!r} should be illegal")
        action = random_action(state, chooser, leave_rate)
        snapshot = state.model_dump()
        frozen = copy.deepcopy(state)
        after, events = apply(state, action, rng)
        assert state.model_dump() == snapshot and state == frozen
        check_step(state, after, events)
        history += events
        state = after
    raise AssertionError("the game did not finish")


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(5, 12),
    seed=st.integers(0, 2**32 - 1),
    leave_rate=st.sampled_from([0.0, 0.0, 0.01, 0.04]),
)
def test_random_legal_play_keeps_every_invariant(
    players: int, seed: int, leave_rate: float
) -> None:
    state, _ = play(players, seed, leave_rate, illegal_rate=0.05)
    assert is_finished(state) and result(state) is not None


@settings(max_examples=10, deadline=None)
@given(players=st.integers(5, 12), seed=st.integers(0, 2**32 - 1))
def test_the_same_seed_replays_the_same_game(players: int, seed: int) -> None:
    first = play(players, seed, leave_rate=0.01)
    second = play(players, seed, leave_rate=0.01)
    assert first == second


@st.composite
def rounds(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(st.text(min_size=1, max_size=4), min_size=3, max_size=12, unique=True))
    scores = {name: draw(st.integers(5, 300)) for name in names}
    house, first, second = names[:3]
    bets = {}
    for name in names[3:]:
        if draw(st.booleans()):
            bets[name] = (draw(st.integers(0, 1)), draw(st.integers(1, scores[name])))
    return {
        "scores": scores,
        "house": house,
        "rollers": (first, second),
        "rolls": (draw(st.integers(1, 20)), draw(st.integers(1, 20))),
        "bets": bets,
    }


@settings(max_examples=300, deadline=None)
@given(arguments=rounds())
def test_score_round_properties(arguments: dict[str, Any]) -> None:
    snapshot = copy.deepcopy(arguments)
    after = score_round(**arguments)
    assert arguments == snapshot
    scores, bets, rolls = arguments["scores"], arguments["bets"], arguments["rolls"]
    house, (first, second) = arguments["house"], arguments["rollers"]
    assert set(after) == set(scores)
    for name, points in scores.items():
        if name not in bets and name not in (house, first, second):
            assert after[name] == points
    tie = rolls[0] == rolls[1]
    winner = None if tie else (0 if rolls[0] > rolls[1] else 1)
    for name, (side, amount) in bets.items():
        if side != winner:
            assert after[name] == max(FLOOR, scores[name] - amount) >= FLOOR
        else:
            assert after[name] > scores[name] or amount == 1
    if tie:
        assert after[first] == scores[first] and after[second] == scores[second]
        expected_house = scores[house] + sum(a for _, a in bets.values()) if bets else FLOOR
        assert after[house] == expected_house
    else:
        assert winner is not None
        losing = arguments["rollers"][1 - winner]
        winning = arguments["rollers"][winner]
        pot = sum(amount for side, amount in bets.values() if side != winner)
        assert after[house] == scores[house] and after[losing] == scores[losing]
        assert after[winning] == scores[winning] + rolls[winner] + pot
