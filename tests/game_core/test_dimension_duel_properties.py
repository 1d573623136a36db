"""Property tests over random legal Dimension Duel play, classic and tactical."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from game_core.dimension_duel import (
    CHARGES,
    DEVICES,
    FUNCTIONS,
    REGIONS,
    DuelState,
    apply,
    is_finished,
    legal_actions,
    new_game,
    public_view,
    resolve_turn,
    to_act,
)

SETTINGS = settings(max_examples=30, deadline=None)


def roundtrip(state: DuelState) -> DuelState:
    return DuelState.model_validate(json.loads(json.dumps(state.model_dump(mode="json"))))


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    mode=st.sampled_from(["classic", "tactical"]),
    start_hp=st.integers(10, 40),
    data=st.data(),
)
def test_random_legal_play_keeps_the_invariants(
    seed: int, mode: str, start_hp: int, data: st.DataObject
) -> None:
    rng = random.Random(seed)
    state, _ = new_game(rng, mode=mode, start_hp=start_hp)
    while not is_finished(state):
        assert roundtrip(state) == state
        hp_before, turn_before, attacker_before = list(state.hp), state.turn, state.attacker
        for player in data.draw(st.permutations(to_act(state))):
            action = data.draw(st.sampled_from(legal_actions(state, player)))
            state, events = apply(state, action, rng)
            assert json.loads(json.dumps(events)) == events
        assert all(after <= before for after, before in zip(state.hp, hp_before, strict=True))
        assert all(count >= 0 for charges in state.charges for count in charges.values())
        if min(state.hp) <= 0:
            assert is_finished(state)
        else:
            assert not is_finished(state)
            assert state.turn == turn_before + 1 and state.attacker == 1 - attacker_before
    assert roundtrip(state) == state
    assert state.result is not None and state.result.reason == "normal"
    assert state.result.draw == (max(state.hp) <= 0)
    if mode == "classic":
        assert all(charges == dict.fromkeys(CHARGES, 1) for charges in state.charges)


def play_seeded(seed: int, mode: str) -> list[object]:
    rng = random.Random(seed)
    chooser = random.Random(~seed)
    state, events = new_game(rng, mode=mode, start_hp=20)
    history: list[object] = [events]
    while not is_finished(state):
        for player in to_act(state):
            action = chooser.choice(legal_actions(state, player))
            state, events = apply(state, action, rng)
            history.append((state.model_dump(mode="json"), events))
    return history


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), mode=st.sampled_from(["classic", "tactical"]))
def test_same_seed_replays_the_same_duel(seed: int, mode: str) -> None:
    assert play_seeded(seed, mode) == play_seeded(seed, mode)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(0, 3), chooser=st.sampled_from([0, 1]))
def test_public_view_is_blind_to_the_hidden_choice(seed: int, turns: int, chooser: int) -> None:
    rng = random.Random(seed)
    state, _ = new_game(rng)
    for _ in range(turns):
        for player in (0, 1):
            state, _ = apply(state, rng.choice(legal_actions(state, player)), rng)
        if is_finished(state):
            return
    views, lock_events = set(), set()
    for action in legal_actions(state, chooser):
        locked, events = apply(state, action, random.Random(0))
        views.add(json.dumps(public_view(locked), sort_keys=True))
        lock_events.add(json.dumps(events, sort_keys=True))
    assert len(views) == 1 and len(lock_events) == 1
    if state.last_turn is None:
        text = views.pop()
        assert not any(f'"{region}"' in text for region in REGIONS)
        assert "bluff" not in text


@settings(max_examples=200, deadline=None)
@given(
    hp=st.tuples(st.integers(1, 150), st.integers(1, 150)),
    attacker=st.sampled_from([0, 1]),
    ray=st.sampled_from(DEVICES),
    shield=st.sampled_from(DEVICES),
    focus=st.sampled_from(REGIONS),
    guard=st.sampled_from(REGIONS),
    functions=st.tuples(st.sampled_from(FUNCTIONS), st.sampled_from(FUNCTIONS)),
    rolls=st.tuples(
        st.lists(st.integers(1, 6), min_size=4, max_size=4),
        st.lists(st.integers(1, 6), min_size=4, max_size=4),
    ),
)
def test_resolve_turn_invariants(
    hp: tuple[int, int],
    attacker: int,
    ray: str,
    shield: str,
    focus: str,
    guard: str,
    functions: tuple[str, str],
    rolls: tuple[list[int], list[int]],
) -> None:
    result = resolve_turn(
        hp,
        attacker,
        ray=ray,
        shield=shield,
        focus=focus,
        guard=guard,
        functions=functions,
        rolls=rolls,
    )
    defender = 1 - attacker
    assert result.dice[defender] == int(functions[defender] == "delayed_attack")
    assert result.dice[attacker] <= 3
    assert sum(result.damage) == 0 or "disruptor" not in functions
    total = sum(result.damage)
    if "disruptor" not in functions:
        dice_total = sum(rolls[0][: result.dice[0]]) + sum(rolls[1][: result.dice[1]])
        assert total == dice_total * result.multiplier
    assert result.hp == (hp[0] - result.damage[0], hp[1] - result.damage[1])
    # Swapping which function each player used and who attacks is a mirror image.
    mirrored = resolve_turn(
        (hp[1], hp[0]),
        defender,
        ray=ray,
        shield=shield,
        focus=focus,
        guard=guard,
        functions=(functions[1], functions[0]),
        rolls=(rolls[1], rolls[0]),
    )
    assert mirrored.hp == (result.hp[1], result.hp[0])
