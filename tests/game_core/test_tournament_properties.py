"""Tournament invariants over random events: any size, any results, withdrawals at any
time (hypothesis)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from game_core.tournament import (
    Format,
    Tournament,
    advance_round,
    bracket_size,
    default_swiss_rounds,
    max_swiss_rounds,
    record_result,
    start_tournament,
    withdraw,
)


def run(tournament: Tournament, seed: int, leave_chance: float) -> list[Tournament]:
    """Plays to the end with random winners and random withdrawals; every state after a
    round's pairing (the pairings to check) and the final one."""
    rng = random.Random(seed)
    paired = [tournament]
    while True:
        for pairing in tournament.pending_pairings():
            if rng.random() < leave_chance:
                tournament = withdraw(tournament, rng.choice(pairing.players))
            else:
                tournament = record_result(tournament, pairing.table, rng.choice(pairing.players))
        if tournament.finished:
            paired.append(tournament)
            return paired
        tournament = advance_round(tournament)
        paired.append(tournament)


events = st.tuples(
    st.integers(min_value=2, max_value=24),
    st.integers(min_value=0, max_value=2**32),
    st.sampled_from([0.0, 0.0, 0.1, 0.3]),
)


@settings(max_examples=60, deadline=None)
@given(events, st.data())
def test_swiss_invariants(event: tuple[int, int, float], data: st.DataObject) -> None:
    players, seed, leave_chance = event
    rounds = data.draw(
        st.none() | st.integers(min_value=1, max_value=max_swiss_rounds(players)), "rounds"
    )
    start = start_tournament(
        Format.SWISS, list(range(1, players + 1)), best_of=1, swiss_rounds=rounds, rng_seed=seed
    )
    states = run(start, seed, leave_chance)
    final = states[-1]
    assert final.finished
    planned = default_swiss_rounds(players) if rounds is None else rounds
    # Fewer than two players left (the others withdrew) also ends it: nobody to pair.
    assert final.round_number == planned or final.stopped_early or len(final.active_players()) < 2
    pairs = [frozenset(p.players) for p in final.pairings if len(p.players) == 2]
    # Never the same pair twice.
    assert len(pairs) == len(set(pairs))
    byes = [p.first for p in final.pairings if p.is_bye]
    # At most one bye a player.
    assert len(byes) == len(set(byes))
    for state in states:
        current = state.pairings_of_current_round()
        if state is final and final.stopped_early:
            continue
        seated = [player for pairing in current for player in pairing.players]
        # Everyone still in (when the round was paired) plays exactly once a round; nobody
        # who had withdrawn by then is paired.
        withdrawn_before = (
            set(states[states.index(state) - 1].withdrawn) if state is not start else set()
        )
        assert len(seated) == len(set(seated))
        assert not set(seated) & withdrawn_before
        round_byes = [p for p in current if p.is_bye]
        assert len(round_byes) == len(seated) % 2
    # The standings hold everyone once, places 1..n, and the winner stayed to the end.
    standings = final.standings()
    assert sorted(s.player_id for s in standings) == list(range(1, players + 1))
    assert [s.place for s in standings] == list(range(1, players + 1))
    assert sum(s.score for s in standings) == sum(1 for p in final.pairings if p.winner)
    if final.winner is not None:
        assert final.winner not in final.withdrawn
    assert Tournament.from_json(final.to_json()) == final


def perfect_pairings(players: list[int]) -> Iterator[list[tuple[int, int]]]:
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for index, partner in enumerate(rest):
        for others in perfect_pairings(rest[:index] + rest[index + 1 :]):
            yield [(first, partner), *others]


def cost(pairs: list[tuple[int, int]], scores: dict[int, int]) -> int:
    return sum((scores[a] - scores[b]) ** 2 for a, b in pairs)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=3, max_value=10), st.integers(min_value=0, max_value=2**32))
def test_swiss_pairs_the_nearest_scores_possible(players: int, seed: int) -> None:
    """Every round's pairing has the least total of squared score differences of all the
    pairings of the same players without a repeat, and its bye went to the lowest-ranked
    player who could have it (checked by trying them all)."""
    start = start_tournament(
        Format.SWISS, list(range(1, players + 1)), best_of=1, swiss_rounds=None, rng_seed=seed
    )
    for state in run(start, seed, 0.1)[1:]:
        current = state.pairings_of_current_round()
        if state.stopped_early or not current or current[0].round == 1:
            continue
        earlier = [p for p in state.pairings if p.round < state.round_number]
        scores = {player: 0 for player in state.players}
        for pairing in earlier:
            if pairing.winner is not None:
                scores[pairing.winner] += 1
        met = {frozenset(p.players) for p in earlier if len(p.players) == 2}
        playing = [p.players for p in current if len(p.players) == 2]
        seated = sorted(player for pair in playing for player in pair)
        best = min(
            cost(option, scores)
            for option in perfect_pairings(seated)
            if not any(frozenset(pair) in met for pair in option)
        )
        assert cost([(a, b) for a, b in playing], scores) == best
        byes = [p.first for p in current if p.is_bye]
        if not byes or any(p.decided and not p.is_bye for p in current):
            continue
        # The bye went to the lowest-ranked player without one (ranked as the round was
        # paired), unless the others could then not all be paired without a repeat.
        before = state.model_copy(
            update={"pairings": tuple(earlier), "round_number": state.round_number - 1}
        )
        ranking = [s.player_id for s in before.standings() if s.player_id in seated + byes]
        had_bye = {p.first for p in earlier if p.is_bye}
        lower = ranking[ranking.index(byes[0]) + 1 :]
        for skipped in (player for player in lower if player not in had_bye):
            rest = [player for player in ranking if player != skipped]
            assert not any(
                not any(frozenset(pair) in met for pair in option)
                for option in perfect_pairings(rest)
            ), (skipped, byes[0])


@settings(max_examples=60, deadline=None)
@given(events)
def test_single_elimination_invariants(event: tuple[int, int, float]) -> None:
    players, seed, leave_chance = event
    start = start_tournament(
        Format.SINGLE_ELIMINATION,
        list(range(1, players + 1)),
        best_of=1,
        swiss_rounds=None,
        rng_seed=seed,
    )
    size = bracket_size(players)
    assert sum(p.is_bye for p in start.pairings) == size - players
    final = run(start, seed, leave_chance)[-1]
    assert final.finished and final.round_number == size.bit_length() - 1
    winner = final.winner
    if winner is not None:
        # The winner won (or was given) a match in every round and never withdrew.
        assert winner not in final.withdrawn
        assert all(
            any(p.winner == winner for p in final.pairings_of_round(r))
            for r in range(1, final.total_rounds + 1)
        )
    # Each player loses at most once, and everyone but the winner goes out once.
    losers = [p.loser() for p in final.pairings if p.loser() is not None]
    assert len(losers) == len(set(losers))
    standings = final.standings()
    assert all(s.place is not None for s in standings)
    assert sorted(s.player_id for s in standings) == list(range(1, players + 1))
