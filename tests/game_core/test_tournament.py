"""Tournaments: seeding, single elimination, Swiss pairing, withdrawals, standings, JSON."""

from __future__ import annotations

import itertools
import math

import pytest

from game_core.tournament import (
    Entrant,
    Format,
    Pairing,
    TieBreak,
    Tournament,
    TournamentError,
    advance_round,
    bracket_size,
    record_result,
    seed_order,
    seeding_positions,
    start_tournament,
    tie_breaks,
    withdraw,
)

SE = Format.SINGLE_ELIMINATION
SWISS = Format.SWISS


def single(players: int, best_of: int = 1) -> Tournament:
    return start_tournament(
        SE, list(range(1, players + 1)), best_of=best_of, swiss_rounds=None, rng_seed=7
    )


def swiss(players: int, rounds: int | None = None) -> Tournament:
    return start_tournament(
        SWISS, list(range(1, players + 1)), best_of=1, swiss_rounds=rounds, rng_seed=7
    )


def better_seed_wins(tournament: Tournament) -> Tournament:
    """Plays the current round out: the lower id (the better seed here) wins every match."""
    for pairing in tournament.pending_pairings():
        tournament = record_result(tournament, pairing.table, min(pairing.players))
    return tournament


def play_out(tournament: Tournament) -> Tournament:
    while True:
        tournament = better_seed_wins(tournament)
        if tournament.finished:
            return tournament
        tournament = advance_round(tournament)


def table(tournament: Tournament) -> list[tuple[int | None, int | None, str | None]]:
    return [(p.first, p.second, p.outcome) for p in tournament.pairings_of_current_round()]


# -- seeding ----------------------------------------------------------------------------


def test_seeding_by_rating_with_unrated_last() -> None:
    entrants = [Entrant(10, None), Entrant(11, 25.0), Entrant(12, 31.5), Entrant(13, 2.0)]
    assert seed_order(entrants, rng_seed=1) == [12, 11, 13, 10]


def test_seeding_ties_are_random_but_deterministic() -> None:
    entrants = [Entrant(player, 20.0) for player in range(1, 9)] + [
        Entrant(player, None) for player in range(9, 17)
    ]
    orders = {tuple(seed_order(entrants, rng_seed=seed)) for seed in range(20)}
    # Different seeds draw different orders...
    assert len(orders) > 10
    # ... the same seed always the same, whatever order the entrants come in.
    first = seed_order(entrants, rng_seed=3)
    assert seed_order(list(reversed(entrants)), rng_seed=3) == first
    # Ties only move inside their own group: the rated eight stay ahead of the unrated.
    for order in orders:
        assert set(order[:8]) == set(range(1, 9))
        assert set(order[8:]) == set(range(9, 17))


def test_seeding_refuses_a_player_entered_twice() -> None:
    with pytest.raises(TournamentError, match="twice"):
        seed_order([Entrant(1, None), Entrant(1, 3.0)], rng_seed=0)


# -- single elimination -----------------------------------------------------------------


def test_classic_seeding_positions() -> None:
    assert seeding_positions(2) == [1, 2]
    assert seeding_positions(4) == [1, 4, 2, 3]
    assert seeding_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    sixteen = seeding_positions(16)
    assert [tuple(sixteen[i : i + 2]) for i in range(0, 16, 2)] == [
        (1, 16), (8, 9), (4, 13), (5, 12), (2, 15), (7, 10), (3, 14), (6, 11),
    ]  # fmt: skip
    # Every round-1 pair adds up to size + 1, and seeds 1 and 2 are in different halves.
    assert sixteen.index(2) >= 8 > sixteen.index(1)
    assert [bracket_size(n) for n in (2, 3, 4, 5, 6, 8, 9, 32)] == [2, 4, 4, 8, 8, 8, 16, 32]


def test_six_players_two_byes_to_the_top_seeds_played_to_a_winner() -> None:
    tournament = single(6)
    assert tournament.total_rounds == 3
    assert table(tournament) == [
        (1, None, "bye"),
        (4, 5, None),
        (2, None, "bye"),
        (3, 6, None),
    ]
    assert not tournament.round_complete
    # Seed 6 beats seed 3: the winner's next slot is known at once.
    tournament = record_result(tournament, 4, 6)
    assert [(p.first, p.second) for p in tournament.next_round_preview()] == [(2, 6)]
    tournament = record_result(tournament, 2, 4)
    assert tournament.round_complete and not tournament.finished
    tournament = advance_round(tournament)
    assert tournament.round_number == 2
    assert table(tournament) == [(1, 4, None), (2, 6, None)]
    tournament = better_seed_wins(tournament)
    tournament = advance_round(tournament)
    assert table(tournament) == [(1, 2, None)]
    tournament = record_result(tournament, 1, 2)
    assert tournament.finished and tournament.winner == 2
    places = [(s.player_id, s.place, s.eliminated_in) for s in tournament.standings()]
    assert places == [(2, 1, None), (1, 2, 3), (4, 3, 2), (6, 3, 2), (3, 5, 1), (5, 5, 1)]
    champion = tournament.standings()[0]
    assert (champion.wins, champion.byes, champion.score) == (2, 1, 3)


@pytest.mark.parametrize("players", [5, 8, 16])
def test_brackets_play_to_the_top_seed_with_the_right_shape(players: int) -> None:
    tournament = single(players)
    size = bracket_size(players)
    first_round = tournament.pairings_of_current_round()
    assert len(first_round) == size // 2
    byes = [p for p in first_round if p.is_bye]
    # The byes fall to the best seeds.
    assert sorted(p.first for p in byes if p.first) == list(range(1, size - players + 1))
    rounds_seen = []
    while True:
        rounds_seen.append(len(tournament.pairings_of_current_round()))
        tournament = better_seed_wins(tournament)
        if tournament.finished:
            break
        tournament = advance_round(tournament)
    assert rounds_seen == [size >> r for r in range(1, int(math.log2(size)) + 1)]
    assert tournament.winner == 1
    # Seeds 1 and 2 meet only in the final.
    assert table(tournament) == [(1, 2, "played")]
    assert [s.player_id for s in tournament.standings()][:2] == [1, 2]
    with pytest.raises(TournamentError, match="over"):
        advance_round(tournament)


def test_a_result_needs_a_pending_match_of_the_round_and_one_of_its_players() -> None:
    tournament = single(6)
    with pytest.raises(TournamentError, match="no table 9"):
        record_result(tournament, 9, 1)
    with pytest.raises(TournamentError, match="already decided"):
        record_result(tournament, 1, 1)
    with pytest.raises(TournamentError, match="does not play"):
        record_result(tournament, 2, 3)
    with pytest.raises(TournamentError, match="still has matches"):
        advance_round(tournament)
    with pytest.raises(TournamentError, match="one of"):
        record_result(tournament, 2, 4, outcome="bye")
    assert tournament == single(6)


def test_best_of_scores_are_checked_and_kept() -> None:
    tournament = single(4, best_of=3)
    decided = record_result(tournament, 1, 4, score=(1, 2))
    assert decided.pairings_of_current_round()[0].score == (1, 2)
    for wrong in [(1, 1), (2, 1), (0, 3), (-1, 2)]:
        with pytest.raises(TournamentError, match="best-of-3"):
            record_result(tournament, 1, 4, score=wrong)
    # Lost on time while ahead on games: the match ends before anyone has two.
    timed = record_result(tournament, 1, 4, outcome="timeout", score=(1, 0))
    assert timed.pairings_of_current_round()[0].outcome == "timeout"


def test_start_refuses_what_no_event_can_be() -> None:
    with pytest.raises(TournamentError, match="at least two"):
        start_tournament(SE, [1], best_of=1, swiss_rounds=None, rng_seed=0)
    with pytest.raises(TournamentError, match="odd"):
        start_tournament(SE, [1, 2], best_of=2, swiss_rounds=None, rng_seed=0)
    with pytest.raises(TournamentError, match="Only a Swiss"):
        start_tournament(SE, [1, 2, 3, 4], best_of=1, swiss_rounds=2, rng_seed=0)
    with pytest.raises(TournamentError, match="that many rounds"):
        start_tournament(SWISS, [1, 2, 3, 4], best_of=1, swiss_rounds=4, rng_seed=0)
    with pytest.raises(TournamentError, match="twice"):
        start_tournament(SWISS, [1, 2, 2, 4], best_of=1, swiss_rounds=None, rng_seed=0)


def test_single_elimination_withdrawal_mid_round_gives_the_opponent_the_match() -> None:
    tournament = single(8)
    # Seed 5 withdraws with their match against seed 4 still to play.
    tournament = withdraw(tournament, 5)
    pairing = tournament.pairing_of(4)
    assert pairing is not None
    assert (pairing.winner, pairing.outcome) == (4, "withdrawal")
    # Seed 1 won its match, then withdraws before the next round: seed 4 advances unplayed.
    tournament = record_result(tournament, 1, 1)
    tournament = withdraw(tournament, 1)
    tournament = better_seed_wins(tournament)
    tournament = advance_round(tournament)
    assert table(tournament) == [(1, 4, "withdrawal"), (2, 3, None)]
    assert tournament.pairings_of_current_round()[0].winner == 4
    tournament = play_out(tournament)
    assert tournament.winner == 2
    standing = {s.player_id: s for s in tournament.standings()}
    assert standing[1].withdrawn and standing[1].eliminated_in == 2
    assert standing[5].withdrawn and standing[5].eliminated_in == 1
    with pytest.raises(TournamentError, match="already withdrawn"):
        withdraw(tournament, 1)
    with pytest.raises(TournamentError, match="not in this tournament"):
        withdraw(tournament, 99)
    # Once over, the standings stay as they ended.
    with pytest.raises(TournamentError, match="over"):
        withdraw(tournament, 2)


def test_two_withdrawn_players_meeting_leave_a_void_and_a_bye_behind_it() -> None:
    tournament = single(8)
    tournament = better_seed_wins(tournament)
    # Seeds 1 and 4 would meet in round 2: both leave, nobody advances from that match.
    tournament = withdraw(withdraw(tournament, 1), 4)
    tournament = advance_round(tournament)
    assert table(tournament) == [(1, 4, "void"), (2, 3, None)]
    tournament = advance_round(better_seed_wins(tournament))
    assert table(tournament) == [(2, None, "bye")]
    assert tournament.finished and tournament.winner == 2


# -- Swiss -------------------------------------------------------------------------------


def all_pairs(tournament: Tournament) -> list[frozenset[int]]:
    return [frozenset(p.players) for p in tournament.pairings if len(p.players) == 2]


def byes(tournament: Tournament) -> list[int]:
    return [p.first for p in tournament.pairings if p.is_bye and p.first is not None]


def test_swiss_seven_players_three_rounds_one_bye_each_round() -> None:
    tournament = swiss(7)
    assert tournament.total_rounds == 3
    # Round 1: the upper half meets the lower half; the bottom seed has the bye.
    assert table(tournament) == [(1, 4, None), (2, 5, None), (3, 6, None), (7, None, "bye")]
    tournament = advance_round(better_seed_wins(tournament))
    # Score groups: 1 point {1, 2, 3, 7}, 0 points {4, 5, 6}: the bye goes to the lowest
    # ranked of the zeros (6; the ranking inside the group is Buchholz, then seed).
    assert table(tournament) == [(1, 3, None), (2, 7, None), (4, 5, None), (6, None, "bye")]
    tournament = play_out(advance_round(better_seed_wins(tournament)))
    assert tournament.round_number == 3 and tournament.finished
    assert len(byes(tournament)) == 3 and len(set(byes(tournament))) == 3
    pairs = all_pairs(tournament)
    assert len(pairs) == len(set(pairs)) == 9
    standings = tournament.standings()
    assert [s.player_id for s in standings][:1] == [1] == [tournament.winner]
    assert [s.place for s in standings] == list(range(1, 8))
    assert standings[0].score == 3 and standings[0].buchholz == 6


def test_swiss_worked_example_buchholz_and_head_to_head() -> None:
    """Four players, two rounds (the worked example of docs/tournaments.md)."""
    tournament = swiss(4)
    assert tournament.total_rounds == 2
    assert table(tournament) == [(1, 3, None), (2, 4, None)]
    tournament = record_result(tournament, 1, 3)  # 3 beats 1
    tournament = record_result(tournament, 2, 2)  # 2 beats 4
    tournament = advance_round(tournament)
    # Winners meet winners (3 v 2: 2 is ranked first on seed), losers meet losers.
    assert table(tournament) == [(2, 3, None), (1, 4, None)]
    tournament = record_result(tournament, 1, 3)  # 3 beats 2
    tournament = record_result(tournament, 2, 1)  # 1 beats 4
    rows = [(s.place, s.player_id, s.score, s.buchholz) for s in tournament.standings()]
    # 2 and 1 both have 1 point; 2's opponents (4 and 3) have 0 + 2, 1's (3 and 4) the same:
    # equal Buchholz, they never met, so the seed decides.
    assert rows == [(1, 3, 2, 2), (2, 1, 1, 2), (3, 2, 1, 2), (4, 4, 0, 2)]
    assert tournament.winner == 3
    assert tie_breaks(SWISS) == [
        TieBreak.SCORE,
        TieBreak.BUCHHOLZ,
        TieBreak.HEAD_TO_HEAD,
        TieBreak.SEED,
    ]
    assert tie_breaks(SE) == [TieBreak.ROUND_REACHED, TieBreak.MATCHES_WON, TieBreak.SEED]


def test_head_to_head_breaks_a_tie_the_seed_would_break_the_other_way() -> None:
    tournament = swiss(4, rounds=3)
    # Round 1: 1 v 3, 2 v 4. 3 and 4 win.
    tournament = record_result(record_result(tournament, 1, 3), 2, 4)
    tournament = advance_round(tournament)
    assert table(tournament) == [(3, 4, None), (1, 2, None)]
    tournament = record_result(record_result(tournament, 1, 4), 2, 2)
    tournament = advance_round(tournament)
    # 3 and 2 have a point each and equal Buchholz (2): the seed puts 2 first.
    assert table(tournament) == [(4, 1, None), (2, 3, None)]
    tournament = record_result(record_result(tournament, 1, 1), 2, 3)
    # 4 and 3 both have 2 points and the same Buchholz (everyone else's points in a round
    # robin: 6 - 2); 4 beat 3, so 4 is ahead though 3 is the better seed.
    rows = [(s.player_id, s.score, s.buchholz, s.head_to_head) for s in tournament.standings()]
    assert rows[:2] == [(4, 2, 4, 1), (3, 2, 4, 0)]


def test_swiss_four_players_three_rounds_is_a_round_robin() -> None:
    tournament = play_out(swiss(4, rounds=3))
    pairs = all_pairs(tournament)
    assert sorted(map(sorted, pairs)) == sorted(map(list, itertools.combinations(range(1, 5), 2)))
    assert tournament.winner == 1
    assert [s.score for s in tournament.standings()] == [3, 2, 1, 0]


def test_swiss_twelve_players_pairs_equal_scores() -> None:
    tournament = swiss(12)
    assert tournament.total_rounds == 4
    for _ in range(3):
        tournament = advance_round(better_seed_wins(tournament))
        scores = {s.player_id: s.score for s in tournament.standings()}
        groups = [list(scores.values()).count(score) for score in set(scores.values())]
        differences = [
            abs(scores[p.players[0]] - scores[p.players[1]])
            for p in tournament.pairings_of_current_round()
        ]
        # Equal scores where possible: only a group of odd size sends one player down, to
        # the next group, one point away.
        assert max(differences) <= 1
        assert differences.count(1) <= sum(size % 2 for size in groups)
    tournament = better_seed_wins(tournament)
    assert tournament.finished
    assert len(set(all_pairs(tournament))) == 24 and not byes(tournament)
    assert [s.score for s in tournament.standings()][:2] == [4, 3]


def test_swiss_withdrawal_mid_round_then_never_paired_again() -> None:
    tournament = swiss(7)
    tournament = withdraw(tournament, 4)  # had a match against 1 this round
    assert tournament.pairing_of(1) == Pairing(
        round=1, table=1, first=1, second=4, winner=1, outcome="withdrawal"
    )
    tournament = advance_round(better_seed_wins(tournament))
    assert all(4 not in p.players for p in tournament.pairings_of_current_round())
    # Six players left: no bye this round.
    assert not [p for p in tournament.pairings_of_current_round() if p.is_bye]
    tournament = play_out(tournament)
    last = tournament.standings()[-1]
    assert (last.player_id, last.withdrawn, last.score) == (4, True, 0)
    assert tournament.winner == 1


def test_swiss_withdrawal_of_a_player_who_already_has_a_result_changes_no_result() -> None:
    tournament = better_seed_wins(swiss(6))
    withdrawn = withdraw(tournament, 1)
    assert withdrawn.pairings == tournament.pairings
    after = advance_round(withdrawn)
    # Five left: one of them has the bye.
    assert len([p for p in after.pairings_of_current_round() if p.is_bye]) == 1
    # The player who withdrew ranks last though they won: the winner stayed to the end.
    assert after.standings()[-1].player_id == 1


def test_swiss_stops_early_when_no_pairing_without_a_repeat_exists() -> None:
    # Six players, five rounds: a round robin can get stuck (two triangles left).
    tournament = swiss(6, rounds=5)
    rounds = 1
    while True:
        tournament = better_seed_wins(tournament)
        if tournament.finished:
            break
        tournament = advance_round(tournament)
        rounds += 1
    pairs = all_pairs(tournament)
    assert len(pairs) == len(set(pairs))
    assert rounds == 5 or tournament.stopped_early


def test_json_round_trip_keeps_everything() -> None:
    for tournament in (
        withdraw(record_result(single(6), 2, 5), 3),
        advance_round(better_seed_wins(swiss(7))),
    ):
        text = tournament.to_json()
        again = Tournament.from_json(text)
        assert again == tournament
        assert again.standings() == tournament.standings()
        assert again.pairings_of_current_round() == tournament.pairings_of_current_round()
        assert Tournament.model_validate_json(tournament.model_dump_json()) == tournament
