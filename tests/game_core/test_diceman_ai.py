"""The exact Diceman tables, the equilibrium, the AI and the analysis lab."""

from __future__ import annotations

import argparse
import itertools
import json
import random
from fractions import Fraction

import numpy as np
import pytest

from game_core.ai import diceman as ai
from game_core.ai.zero_sum import column_payoffs, exploitability, row_payoffs, solve_matrix_game
from game_core.analysis import diceman as lab
from game_core.diceman import (
    COMBOS,
    SIDES,
    Choose,
    DicemanState,
    apply,
    faces_of,
    is_finished,
    new_game,
    phase_damage,
    resolve_round,
    to_act,
)
from game_core.errors import IllegalMove


def all_faces(combo: tuple[str, str]) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(1, SIDES[name] + 1) for name in combo)))


def test_fast_resolver_matches_resolve_round_on_every_outcome() -> None:
    checked = 0
    for first, second in itertools.product(COMBOS, repeat=2):
        for a_faces in all_faces(first):
            for b_faces in all_faces(second):
                full = resolve_round(
                    (100, 100),
                    (
                        dict(zip(first, a_faces, strict=True)),
                        dict(zip(second, b_faces, strict=True)),
                    ),
                )
                (x0, x1), (y0, y1) = phase_damage(
                    faces_of(first, a_faces), faces_of(second, b_faces)
                )
                assert [e["damage"] for e in full.events] == (
                    [[x0, x1], [y0, y1]] if len(full.events) == 2 else [[x0, x1]]
                )
                assert len(full.events) == 2 or (y0, y1) == (0, 0)
                checked += 1
    assert checked == 284 * 284  # (24 + 32 + 40 + 48 + 60 + 80) faces per side


def test_hand_computed_entries() -> None:
    table = ai.matchup_table()
    # M+H against M+H: both act in phase 0 with no sword, so the magics clash.
    clash = table.get(("magic", "shield"), ("shield", "magic"))
    assert clash.p_more == Fraction(6, 16)  # 2>1, 3>1, 3>2, 4>1, 4>2, 4>3
    assert clash.p_equal == Fraction(4, 16)
    assert clash.dealt == Fraction(1 * 3 + 2 * 2 + 3 * 1, 16)
    assert clash.balance == 0
    # M+P against P+H: P+H can never hurt a swordless player, and the magic always lands.
    one_sided = table.get(("magic", "priority"), ("priority", "shield"))
    assert one_sided.p_more == 1 and one_sided.received == 0
    assert one_sided.dealt == Fraction(5, 2)


def test_table_is_antisymmetric_and_probabilities_add_up() -> None:
    table = ai.matchup_table()
    for i, j in itertools.product(range(6), repeat=2):
        cell, mirror = table.entries[i][j], table.entries[j][i]
        assert cell.p_more + cell.p_less + cell.p_equal == 1
        assert cell.p_more == mirror.p_less and cell.dealt == mirror.received
        assert cell.row == COMBOS[i] and cell.column == COMBOS[j]


def test_table_agrees_with_monte_carlo_of_resolve_round() -> None:
    rng = random.Random(2024)
    samples = 1500
    table = ai.matchup_table()
    for i, j in itertools.product(range(6), repeat=2):
        more = balance = 0
        for _ in range(samples):
            rolls = [{name: rng.randint(1, SIDES[name]) for name in COMBOS[k]} for k in (i, j)]
            outcome = resolve_round((100, 100), (rolls[0], rolls[1]))
            dealt, received = outcome.damage[1], outcome.damage[0]
            more += dealt > received
            balance += dealt - received
        cell = table.entries[i][j]
        assert abs(more / samples - float(cell.p_more)) < 0.05, (i, j)
        assert abs(balance / samples - float(cell.balance)) < 0.6, (i, j)


def test_equilibrium_is_exact_and_unimprovable() -> None:
    solution = ai.equilibrium()
    matrix = ai.matchup_table().balance_matrix()
    mix = [solution.mix[combo] for combo in COMBOS]
    assert sum(mix) == 1 and all(p >= 0 for p in mix)
    assert solution.value == 0  # a symmetric game
    assert solution.exploitability == 0
    # No pure combination does better than the value against the mix.
    assert max(row_payoffs(matrix, mix)) <= solution.value
    assert min(column_payoffs(matrix, mix)) >= solution.value
    assert solution.mix[("magic", "shield")] == Fraction(69, 119)


def test_solver_on_known_and_random_games() -> None:
    rock_paper_scissors = [
        [Fraction(v) for v in row] for row in [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    ]
    solution = solve_matrix_game(rock_paper_scissors)
    assert solution.row == [Fraction(1, 3)] * 3 and solution.value == 0
    rng = random.Random(7)
    for _ in range(200):
        rows, columns = rng.randint(1, 7), rng.randint(1, 7)
        matrix = [[rng.uniform(-3, 3) for _ in range(columns)] for _ in range(rows)]
        solution = solve_matrix_game(matrix)
        assert exploitability(matrix, solution.row, solution.column) < 1e-9
        assert abs(sum(solution.row) - 1) < 1e-12 and abs(sum(solution.column) - 1) < 1e-12


def test_solved_positions_are_consistent() -> None:
    solved = ai.position_values(20)
    values = solved.value[1:, 1:]
    assert np.allclose(values, -values.T, atol=1e-9)
    assert np.all(np.diff(values, axis=0) >= -1e-9)  # more own life never hurts
    assert np.all(np.abs(values) <= 1 + 1e-12)


@pytest.mark.parametrize("life", [(20, 20), (3, 20), (5, 2), (1, 1), (12, 9)])
def test_kill_aware_mix_is_an_equilibrium_of_its_payoffs(life: tuple[int, int]) -> None:
    solved = ai.position_values(20)
    base, *_ = ai._round_payoffs(life[0], life[1], solved.value)
    matrix = (base + ai._flat().stall * solved.value[life]).tolist()
    mix = list(ai.round_strategy(life).values())
    best_reply = solve_matrix_game(matrix)
    assert min(column_payoffs(matrix, mix)) >= best_reply.value - 1e-9
    assert abs(best_reply.value - solved.value[life]) < 1e-9


def test_kill_aware_table_probabilities() -> None:
    cells = ai.kill_aware_table((3, 20))
    for line in cells:
        for cell in line:
            total = cell.p_win + cell.p_loss + cell.p_draw + cell.p_continue
            assert abs(total - 1) < 1e-12
    # Worked example 5 setting: P+S kills a 3-life S+H whenever min(P, S) >= 3 (half the time).
    assert (
        cells[COMBOS.index(("sword", "shield"))][COMBOS.index(("priority", "sword"))].p_loss >= 0.5
    )


def test_choose_dice_is_legal_seeded_and_pure() -> None:
    state, _ = new_game()
    before = state.model_dump(mode="json")
    picks = [tuple(ai.choose_dice(state, 0, random.Random(seed))) for seed in range(200)]
    assert state.model_dump(mode="json") == before
    assert set(picks) <= set(COMBOS)
    assert picks == [tuple(ai.choose_dice(state, 0, random.Random(seed))) for seed in range(200)]
    # The sampled frequencies follow the mix (M+H is chosen ~58% of the time).
    share = picks.count(("magic", "shield")) / len(picks)
    assert 0.45 < share < 0.7
    locked, _ = apply(state, Choose(player=0, dice=["magic", "sword"]), random.Random(0))
    with pytest.raises(IllegalMove):
        ai.choose_dice(locked, 0, random.Random(0))


def test_last_round_mix_plays_for_the_cap() -> None:
    # Ahead 12 to 10 with one round left, the AI only needs to survive with the lead.
    mix = ai.round_strategy((12, 10), rounds_left=1)
    assert abs(sum(mix.values()) - 1) < 1e-9
    state = DicemanState(life=[12, 10], round=30)
    assert tuple(ai.choose_dice(state, 0, random.Random(1))) in COMBOS


def test_fast_game_replays_the_engine_game() -> None:
    for seed in range(12):
        rng = random.Random(seed)
        state, _ = new_game(rng)
        while not is_finished(state):
            for player in to_act(state):
                dice = ai.choose_dice(state, player, rng)
                state, _ = apply(state, Choose(player=player, dice=dice), rng)
        winner, rounds, reason = lab.play_game((lab.ai_policy, lab.ai_policy), random.Random(seed))
        assert state.result is not None
        assert winner == (None if state.result.draw else state.result.winners[0])
        assert rounds == state.round and reason == state.result.reason


def test_equilibrium_player_beats_a_weak_pure_combination() -> None:
    record = lab._record(
        (lab.pure_policy(COMBOS.index(("magic", "priority"))), lab.ai_policy),
        200,
        random.Random(3),
        lab.Progress(1, "test", enabled=False),
    )
    assert record["score"] < 0.3


def test_analysis_report_is_repeatable_json_and_renders() -> None:
    args = argparse.Namespace(seed=5, games=30, json=True, no_progress=True)
    report = lab.run(args)
    assert report == lab.run(args)
    assert json.loads(json.dumps(report)) == report
    assert report["exact"]["outcomes_enumerated"] == 80656
    assert set(report["simulation"]["pure_vs_ai"]) == {lab.label(c) for c in COMBOS}
    text = lab.render(report)
    assert "S+H" in text and "The mix no combination beats" in text and "AI vs AI" in text
