"""The precomputed Weighted Dice game lengths: complete, reproducible, and the short game
they pick."""

from __future__ import annotations

import json

import pytest

from game_core.analysis import weighted_lengths as wl
from game_core.analysis.weighted_dice import DESIGN_ROUNDS


def test_the_committed_table_has_every_cell_at_the_modules_settings() -> None:
    data = json.loads(wl.LENGTHS_FILE.read_text(encoding="utf-8"))
    assert data["seed"] == wl.SEED and data["games_per_mix"] == wl.GAMES_PER_MIX
    assert [tuple(mix) for mix in data["mixes"]] == [(m.house, m.bettors) for m in wl.MIXES]
    stored = {(cell["players"], cell["target"]) for cell in data["cells"]}
    assert stored == set(wl.all_cells())


@pytest.mark.parametrize(("players", "target"), [(12, 30), (9, 50), (5, 40)])
def test_stored_cells_match_a_fresh_simulation_at_the_same_seed(players: int, target: int) -> None:
    fresh = wl.simulate_length(players, target, games_per_mix=wl.GAMES_PER_MIX, seed=wl.SEED)
    assert wl.lengths().length(players, target) == fresh


def test_a_longer_target_or_a_smaller_table_means_more_rounds() -> None:
    table = wl.lengths()
    for players in wl.TABLE_SIZES:
        means = [table.length(players, target).mean for target in wl.TARGETS]
        assert means == sorted(means), players
    for target in wl.TARGETS:
        means = [table.length(players, target).mean for players in wl.TABLE_SIZES]
        assert means == sorted(means, reverse=True), target


def test_the_card_is_far_too_long_for_five_players_as_the_lab_measured() -> None:
    five = wl.lengths().length(5, 150)
    assert 21 <= five.mean <= 47
    assert five.p10 <= five.mean <= five.p90


def test_the_short_game_is_the_target_nearest_ten_to_twelve_rounds() -> None:
    table = wl.lengths()
    low, high = DESIGN_ROUNDS
    for players in wl.TABLE_SIZES:
        short = table.short_target(players)
        assert short in wl.SHORT_CANDIDATES and short <= 150

        def outside(target: int, players: int = players) -> float:
            mean = table.length(players, target).mean
            return max(0.0, low - mean, mean - high)

        # No other candidate is nearer the window.
        assert all(outside(other) >= outside(short) for other in wl.SHORT_CANDIDATES), players
    assert table.short_target(5) < 150
    # Past ten players the card's own target already ends within about ten rounds.
    assert table.short_target(12) == 150
    assert table.length(12, 150).mean < low


def test_table_sizes_outside_five_to_twelve_read_the_nearest_size() -> None:
    table = wl.lengths()
    assert table.length(1, 150) == table.length(5, 150)
    assert table.length(20, 150) == table.length(12, 150)
    with pytest.raises(KeyError):
        table.length(5, 155)
