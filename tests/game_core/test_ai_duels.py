"""The tactical Dimension Duel AI and the duel analysis lab."""

from __future__ import annotations

import argparse
import json
import random

import pytest

from game_core import dimension_duel as duel
from game_core.ai import dimension_duel as ai
from game_core.analysis import dimension_duel as lab
from game_core.analysis.progress import Progress
from game_core.dimension_duel import FUNCTIONS, Roll, apply, is_finished, new_game, to_act
from game_core.errors import IllegalMove


def engine_duel(seed: int, mode: str, agents: tuple[object, object]) -> duel.DuelState:
    rng = random.Random(seed)
    state, _ = new_game(rng, mode=mode)
    while not is_finished(state):
        for player in to_act(state):
            if mode == "classic":
                action: duel.Choose | Roll = Roll(player=player)
            else:
                action = agents[player](state, player, rng)  # type: ignore[operator]
                assert action in duel.legal_actions(state, player)
            state, _ = apply(state, action, rng)
    return state


def test_ai_only_picks_functions_it_still_has() -> None:
    for seed in range(6):
        state = engine_duel(seed, "tactical", (ai.choose, ai.choose))
        assert state.result is not None
    spent, _ = new_game()
    spent = spent.model_copy(update={"charges": [dict.fromkeys(duel.CHARGES, 0)] * 2})
    picks = {ai.choose(spent, 0, random.Random(seed)).function for seed in range(50)}
    assert picks == {"bluff"}


def test_ai_beats_the_random_player() -> None:
    record = lab.head_to_head(
        200, random.Random(99), Progress(1, "test", enabled=False), lab.ai_agent, lab.random_agent
    )
    assert record["score"] > 0.62  # ~76% on large samples
    assert record["score_ci95"][0] > 0.5


@pytest.mark.parametrize(
    ("mode", "agents"),
    [
        ("classic", (None, None)),
        ("tactical", (ai.choose, ai.choose)),
        ("tactical", (ai.choose, ai.random_choice)),
        ("tactical", (ai.random_choice, ai.choose)),
    ],
)
def test_fast_simulation_replays_the_engine(mode: str, agents: tuple[object, object]) -> None:
    fast = {ai.choose: lab.ai_agent, ai.random_choice: lab.random_agent, None: None}
    for seed in range(4):
        state = engine_duel(seed, mode, agents)
        sim_agents = (fast[agents[0]], fast[agents[1]])  # type: ignore[index]
        winner, turns = lab.play_duel(
            random.Random(seed), mode=mode, agents=None if mode == "classic" else sim_agents
        )
        assert state.result is not None
        assert winner == (None if state.result.draw else state.result.winners[0])
        assert turns == state.turn


def test_mix_is_a_probability_vector_over_usable_functions() -> None:
    without_deflector = tuple(f for f in FUNCTIONS if f != "deflector")
    for hp, other, attacking in [(75, 75, True), (9, 30, False), (4, 4, True), (30, 3, True)]:
        mix = ai.function_mix(hp, other, attacking, without_deflector, FUNCTIONS)
        assert len(mix) == len(without_deflector)
        assert abs(sum(mix) - 1) < 1e-9 and min(mix) >= 0


def test_ai_defends_with_a_charge_when_the_next_blow_can_kill() -> None:
    # On 6 hp, defending against a full-charged attacker: a bluff risks death.
    mix = dict(zip(FUNCTIONS, ai.function_mix(6, 10, False, FUNCTIONS, FUNCTIONS), strict=True))
    assert mix["bluff"] < 0.5
    assert mix["deflector"] + mix["disruptor"] > 0.5
    # At full health with the whole duel ahead, it keeps its charges.
    opening = ai.function_mix(75, 75, True, FUNCTIONS, FUNCTIONS)
    assert opening[FUNCTIONS.index("bluff")] > 0.9


def test_ai_choice_is_seeded_and_leaves_state_alone() -> None:
    state, _ = new_game()
    before = state.model_dump(mode="json")
    first = [ai.choose(state, 1, random.Random(seed)) for seed in range(30)]
    assert first == [ai.choose(state, 1, random.Random(seed)) for seed in range(30)]
    assert state.model_dump(mode="json") == before
    # Devices and regions are mixed, never fixed.
    assert {choice.device for choice in first} == {"tau", "kaon"}
    assert {choice.region for choice in first} == {"head", "torso", "extremities"}


def test_ai_refuses_classic_and_locked_states() -> None:
    classic, _ = new_game(mode="classic")
    with pytest.raises(IllegalMove):
        ai.choose(classic, 0, random.Random(0))
    assert ai.choose_action(classic, 0, random.Random(0)) == Roll(player=0)
    state, _ = new_game()
    locked, _ = apply(state, ai.choose(state, 0, random.Random(0)), random.Random(0))
    with pytest.raises(IllegalMove):
        ai.choose(locked, 0, random.Random(0))


def test_analysis_is_repeatable_json_and_renders() -> None:
    args = argparse.Namespace(seed=3, games=40, tactical_games=10, json=True, no_progress=True)
    report = lab.run(args)
    assert report == lab.run(args)
    assert json.loads(json.dumps(report)) == report
    classic = report["classic"]
    assert classic["tau_wins"] + classic["kaon_wins"] + classic["draws"] == 40
    low, high = classic["tau_win_ci95"]
    assert low <= classic["tau_win_rate"] <= high
    assert sum(classic["length"]["buckets"].values()) == pytest.approx(1.0)
    text = lab.render(report)
    assert "Tau (attacks first)" in text and "AI vs uniformly random" in text


def test_wilson_interval() -> None:
    low, high = lab.wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
