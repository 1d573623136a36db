"""Tournaments for the duels: seeding, single elimination, Swiss pairing and standings.

Pure and deterministic like the engines beside it: no I/O, no clock, no Discord. The
runtime stores a ``Tournament`` as JSON (``model_dump_json`` / ``Tournament.model_validate_json``
or ``to_json`` / ``from_json``), feeds it match results and withdrawals, and asks it what to
play next. Every call returns a new value; nothing is changed in place.

Interface (what the runtime uses):

- ``Entrant(player_id, rating)``: ``rating`` is the current season's shown rating, ``None``
  for an unrated player.
- ``seed_order(entrants, rng_seed) -> list[int]``: rating descending, unrated after rated,
  ties broken at random by ``random.Random(rng_seed)`` (the same seed, the same order).
- ``start_tournament(format, seeded_player_ids, *, best_of, swiss_rounds, rng_seed)``:
  round 1 is paired at once. ``swiss_rounds=None`` means ceil(log2 n).
- ``tournament.round_number``; ``tournament.pairings_of_current_round()``: every
  ``Pairing(round, table, first, second, winner, outcome, score)`` of the round. ``second is
  None`` is a bye: it is decided at once (``outcome == "bye"``), there is nothing to play.
  ``tournament.pending_pairings()``: the pairings of the round still to play.
- ``record_result(tournament, table, winner, *, outcome="played", score=None)``: the match
  at ``table`` of the current round is over. ``outcome`` is "played", "timeout" or
  "forfeit" (the picture and the standings say how it ended); ``score`` is the games won by
  (first, second) in a best-of match, shown in the picture.
- ``withdraw(tournament, player_id)``: the host removes a player. Their undecided match of
  this round is lost (``outcome == "withdrawal"``, the opponent advances); they are never
  paired again (single elimination: their next opponent advances without playing; Swiss:
  they are left out of later pairings but stay in the standings, marked withdrawn).
- ``tournament.round_complete``; ``advance_round(tournament)``: pairs the next round.
  A round can be decided without any play (byes and walkovers after withdrawals), so after
  ``advance_round`` check ``round_complete`` again before waiting for matches.
- ``tournament.finished``, ``tournament.winner`` (``None`` while running, or when nobody is
  left), ``tournament.standings()`` -> ``Standing`` rows, ``tie_breaks(format)``: the
  ordered criteria behind the standings, for the runtime to state.

Single elimination: the bracket has the next power of two slots; seeds sit in the classic
positions (1 v 16, 8 v 9, ...), so seeds 1 and 2 can only meet in the final, and the missing
seeds are byes, which fall to the top seeds (6 players: seeds 1 and 2 have byes). A match's
winner moves on at once: ``next_round_preview()`` gives the next round's pairings whose two
players are already known. **Decision:** the runtime starts the next round only when the
current round is complete (the issue: "the next round starts when the last match of the
round ends"); the preview is for the picture. A pairing whose two players both withdrew is
"void": nobody advances from it, and the player it would have fed gets a bye.

Swiss: ceil(log2 n) rounds unless the host sets a number. Each round pairs the players still
in with equal or nearest scores (maximum-weight matching, networkx), never the same pair
twice; with an odd number of players, the lowest-ranked player who has not had a bye gets
one (a win: 1 point), and nobody gets two. Within a score group the upper half meets the
lower half (1 v 3, 2 v 4 among four equal players), as in Swiss events over the board. If
no pairing without a repeat exists (only possible when the host asks for nearly as many
rounds as players), the event ends after the rounds played (``stopped_early``).

Swiss standings, in order (``tie_breaks``): a player who withdrew ranks after everyone who
stayed to the end (so the winner is always someone who did); then score (a win 1 point, a
bye 1 point, a loss 0); then Buchholz, the sum of the current scores of the opponents a
player was paired against (a bye adds nothing: there is no opponent); then head-to-head,
the wins against the other players still tied after Buchholz; then the seed.
Single-elimination standings: the winner first, then by the round a player went out in
(later is better, the two semifinal losers share third place), then matches won, then the
seed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "Entrant",
    "Format",
    "Outcome",
    "Pairing",
    "Standing",
    "TieBreak",
    "Tournament",
    "TournamentError",
    "advance_round",
    "bracket_size",
    "default_swiss_rounds",
    "max_swiss_rounds",
    "record_result",
    "seed_order",
    "seeding_positions",
    "start_tournament",
    "tie_breaks",
    "withdraw",
]


class TournamentError(ValueError):
    """A call the tournament's state does not allow (a table that does not exist, a result
    for a decided match, a player not in the event). The runtime checks these cases first
    with its own messages to players, so one reaching the log is a bug."""


class Format(StrEnum):
    SINGLE_ELIMINATION = "single_elimination"
    SWISS = "swiss"


class TieBreak(StrEnum):
    """One criterion of the standings, in the order ``tie_breaks`` lists them."""

    SCORE = "score"
    BUCHHOLZ = "buchholz"
    HEAD_TO_HEAD = "head_to_head"
    ROUND_REACHED = "round_reached"
    MATCHES_WON = "matches_won"
    SEED = "seed"


def tie_breaks(format: Format) -> list[TieBreak]:
    """The standings' criteria, first to last, for the runtime to state to players."""
    if format is Format.SWISS:
        return [TieBreak.SCORE, TieBreak.BUCHHOLZ, TieBreak.HEAD_TO_HEAD, TieBreak.SEED]
    return [TieBreak.ROUND_REACHED, TieBreak.MATCHES_WON, TieBreak.SEED]


# How a pairing was decided: played out, lost on time, forfeited, a bye, a walkover after a
# withdrawal, or void (both players withdrew, nobody advances).
Outcome = Literal["played", "timeout", "forfeit", "bye", "withdrawal", "void"]
RESULT_OUTCOMES: tuple[Outcome, ...] = ("played", "timeout", "forfeit")


@dataclass(frozen=True)
class Entrant:
    player_id: int
    # The current season's shown rating; None for a player without one.
    rating: float | None


def seed_order(entrants: Iterable[Entrant], rng_seed: int) -> list[int]:
    """Player ids from the first seed down: rating descending, unrated after rated, ties
    (equal ratings, and the unrated among themselves) in an order drawn from ``rng_seed``."""
    people = list(entrants)
    ids = [entrant.player_id for entrant in people]
    if len(set(ids)) != len(ids):
        raise TournamentError("A player is entered twice.")
    # A random key per player, drawn in a fixed order (sorted ids) so the input order does
    # not change the draw: the same players and seed give the same seeding.
    rng = random.Random(rng_seed)
    draw = {player: rng.random() for player in sorted(ids)}

    def key(entrant: Entrant) -> tuple[int, float, float]:
        if entrant.rating is None:
            return (1, 0.0, draw[entrant.player_id])
        return (0, -entrant.rating, draw[entrant.player_id])

    return [entrant.player_id for entrant in sorted(people, key=key)]


def bracket_size(players: int) -> int:
    """The next power of two at or above ``players`` (at least 2)."""
    return max(2, 1 << (players - 1).bit_length())


def seeding_positions(size: int) -> list[int]:
    """The seeds in bracket order for a bracket of ``size`` slots (a power of two): 8 gives
    [1, 8, 4, 5, 2, 7, 3, 6], so round 1 is 1 v 8, 4 v 5, 2 v 7, 3 v 6 and seeds 1 and 2 meet
    only in the final. Each doubling puts the new seed s's opponent at size + 1 - s."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for kept in order for seed in (kept, total - kept)]
    return order


def default_swiss_rounds(players: int) -> int:
    return max(1, math.ceil(math.log2(players)))


def max_swiss_rounds(players: int) -> int:
    """A Swiss event never pairs the same two players twice, so it cannot have more rounds
    than a round robin: n - 1 for an even n, n for an odd n (one bye a round)."""
    return players if players % 2 else players - 1


class Pairing(BaseModel):
    """One match of a round: ``second is None`` is a bye (decided at once)."""

    model_config = ConfigDict(frozen=True)

    round: int
    table: int
    # Single elimination: None for an empty slot (a bye, or a void pairing's place).
    first: int | None
    second: int | None
    winner: int | None = None
    outcome: Outcome | None = None
    # Games won by (first, second) in a best-of match, where the runtime reports them.
    score: tuple[int, int] | None = None

    @property
    def decided(self) -> bool:
        return self.outcome is not None

    @property
    def is_bye(self) -> bool:
        return self.outcome == "bye"

    @property
    def players(self) -> tuple[int, ...]:
        return tuple(player for player in (self.first, self.second) if player is not None)

    def loser(self) -> int | None:
        if self.winner is None:
            return None
        others = [player for player in self.players if player != self.winner]
        return others[0] if others else None


class Standing(BaseModel):
    model_config = ConfigDict(frozen=True)

    # Single elimination: players still in the running have no place yet (None); the two
    # semifinal losers share 3, the quarterfinal losers 5, and so on. Swiss: 1..n.
    place: int | None
    player_id: int
    seed: int
    # Swiss: points (win 1, bye 1). Single elimination: matches won (byes included).
    score: int
    wins: int
    losses: int
    byes: int
    withdrawn: bool
    # Swiss tie-breaks (None in single elimination).
    buchholz: int | None = None
    head_to_head: int | None = None
    # Single elimination: the round the player went out in (None: still in, or the winner).
    eliminated_in: int | None = None


class Tournament(BaseModel):
    """The whole event as one immutable, JSON-serialisable value."""

    model_config = ConfigDict(frozen=True)

    format: Format
    best_of: int
    rng_seed: int
    # Player ids in seed order (seed 1 first).
    players: tuple[int, ...]
    # Single elimination: the number of rounds of the bracket; Swiss: the rounds planned.
    total_rounds: int
    round_number: int
    # Every pairing made so far, round by round, table by table.
    pairings: tuple[Pairing, ...]
    withdrawn: tuple[int, ...] = ()
    # Swiss: no pairing without a repeat was possible, so the event ended early.
    stopped_early: bool = False
    schema_version: Literal[1] = 1

    # -- reading -------------------------------------------------------------------------

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | bytes) -> Tournament:
        return cls.model_validate_json(text)

    def seed_of(self, player_id: int) -> int:
        return self.players.index(player_id) + 1

    def pairings_of_round(self, round_number: int) -> list[Pairing]:
        return [pairing for pairing in self.pairings if pairing.round == round_number]

    def pairings_of_current_round(self) -> list[Pairing]:
        return self.pairings_of_round(self.round_number)

    def pending_pairings(self) -> list[Pairing]:
        """The current round's matches still to play (both players known, no result)."""
        return [pairing for pairing in self.pairings_of_current_round() if not pairing.decided]

    def pairing_of(self, player_id: int) -> Pairing | None:
        """The player's pairing in the current round, if they have one."""
        for pairing in self.pairings_of_current_round():
            if player_id in pairing.players:
                return pairing
        return None

    @property
    def round_complete(self) -> bool:
        return all(pairing.decided for pairing in self.pairings_of_current_round())

    @property
    def finished(self) -> bool:
        if not self.round_complete:
            return False
        if self.stopped_early or self.round_number >= self.total_rounds:
            return True
        if self.format is Format.SWISS:
            # Fewer than two players left to pair: there is no next round to play.
            return len(self.active_players()) < 2
        return False

    @property
    def winner(self) -> int | None:
        if not self.finished:
            return None
        if self.format is Format.SINGLE_ELIMINATION:
            final = self.pairings_of_round(self.total_rounds)
            return final[0].winner if final else None
        standings = self.standings()
        return standings[0].player_id if standings else None

    def active_players(self) -> list[int]:
        """Players not withdrawn (single elimination: and not knocked out), in seed order."""
        out = set(self.withdrawn)
        if self.format is Format.SINGLE_ELIMINATION:
            for pairing in self.pairings:
                loser = pairing.loser()
                if loser is not None:
                    out.add(loser)
                if pairing.outcome == "void":
                    out.update(pairing.players)
        return [player for player in self.players if player not in out]

    def next_round_preview(self) -> list[Pairing]:
        """Single elimination: the next round's pairings already known because both feeding
        matches are decided (a winner moves on at once). The runtime waits for the round to
        end before starting them; the picture shows them. Empty for Swiss and after the
        final."""
        if self.format is not Format.SINGLE_ELIMINATION or self.round_number >= self.total_rounds:
            return []
        current = self.pairings_of_current_round()
        preview = []
        for index in range(0, len(current), 2):
            left, right = current[index], current[index + 1]
            if left.decided and right.decided:
                preview.append(
                    _elimination_pairing(
                        self.round_number + 1, index // 2 + 1, left.winner, right.winner, self
                    )
                )
        return preview

    def standings(self) -> list[Standing]:
        if self.format is Format.SWISS:
            return _swiss_standings(self)
        return _elimination_standings(self)

    # -- per player tallies --------------------------------------------------------------

    def _tally(self, player: int) -> tuple[int, int, int]:
        wins = losses = byes = 0
        for pairing in self.pairings:
            if player not in pairing.players or not pairing.decided:
                continue
            if pairing.is_bye:
                byes += 1
            elif pairing.winner == player:
                wins += 1
            else:
                losses += 1
        return wins, losses, byes


# -- building ---------------------------------------------------------------------------


def start_tournament(
    format: Format,
    seeded_player_ids: Sequence[int],
    *,
    best_of: int,
    swiss_rounds: int | None,
    rng_seed: int,
) -> Tournament:
    """A new event with round 1 paired. ``seeded_player_ids`` comes from ``seed_order``."""
    players = tuple(seeded_player_ids)
    if len(players) < 2:
        raise TournamentError("A tournament needs at least two players.")
    if len(set(players)) != len(players):
        raise TournamentError("A player is entered twice.")
    if best_of < 1 or best_of % 2 == 0:
        raise TournamentError("A match is best of an odd number of games.")
    if format is Format.SINGLE_ELIMINATION:
        size = bracket_size(len(players))
        total = size.bit_length() - 1
        if swiss_rounds is not None:
            raise TournamentError("Only a Swiss event has a number of rounds to choose.")
    else:
        total = default_swiss_rounds(len(players)) if swiss_rounds is None else swiss_rounds
        if not 1 <= total <= max_swiss_rounds(len(players)):
            raise TournamentError(
                "A Swiss event with this many players cannot have that many rounds."
            )
    tournament = Tournament(
        format=format,
        best_of=best_of,
        rng_seed=rng_seed,
        players=players,
        total_rounds=total,
        round_number=1,
        pairings=(),
    )
    if format is Format.SINGLE_ELIMINATION:
        size = bracket_size(len(players))
        slots = [
            players[seed - 1] if seed <= len(players) else None for seed in seeding_positions(size)
        ]
        first_round = [
            _elimination_pairing(1, index // 2 + 1, slots[index], slots[index + 1], tournament)
            for index in range(0, size, 2)
        ]
        return tournament.model_copy(update={"pairings": tuple(first_round)})
    return _pair_swiss_round(tournament, 1)


def _elimination_pairing(
    round_number: int,
    table: int,
    first: int | None,
    second: int | None,
    tournament: Tournament,
) -> Pairing:
    """A bracket match, decided at once when a side is empty or withdrawn."""
    # A bye keeps the player in ``first`` so "second is None" always means a bye.
    if first is None and second is not None:
        first, second = second, None
    withdrawn = set(tournament.withdrawn)
    present = [player for player in (first, second) if player is not None]
    staying = [player for player in present if player not in withdrawn]
    if len(present) == 2 and len(staying) == 2:
        return Pairing(round=round_number, table=table, first=first, second=second)
    if len(present) == 2 and len(staying) == 1:
        return Pairing(
            round=round_number,
            table=table,
            first=first,
            second=second,
            winner=staying[0],
            outcome="withdrawal",
        )
    if len(staying) == 1:
        return Pairing(
            round=round_number, table=table, first=first, second=None, winner=first, outcome="bye"
        )
    # Nobody to move on: both sides empty or withdrawn.
    return Pairing(round=round_number, table=table, first=first, second=second, outcome="void")


def _replace_pairing(tournament: Tournament, new: Pairing) -> Tournament:
    pairings = tuple(
        new if (pairing.round, pairing.table) == (new.round, new.table) else pairing
        for pairing in tournament.pairings
    )
    return tournament.model_copy(update={"pairings": pairings})


def record_result(
    tournament: Tournament,
    table: int,
    winner: int,
    *,
    outcome: Outcome = "played",
    score: tuple[int, int] | None = None,
) -> Tournament:
    """The match at ``table`` of the current round ended with ``winner`` moving on."""
    if outcome not in RESULT_OUTCOMES:
        raise TournamentError(f"A match result is one of {', '.join(RESULT_OUTCOMES)}.")
    pairing = next(
        (pairing for pairing in tournament.pairings_of_current_round() if pairing.table == table),
        None,
    )
    if pairing is None:
        raise TournamentError(f"Round {tournament.round_number} has no table {table}.")
    if pairing.decided:
        raise TournamentError(f"The match at table {table} is already decided.")
    if winner not in pairing.players:
        raise TournamentError(f"Player {winner} does not play at table {table}.")
    if score is not None:
        needed = tournament.best_of // 2 + 1
        mine = score[0] if winner == pairing.first else score[1]
        theirs = score[1] if winner == pairing.first else score[0]
        # A match played out ends when the winner has won the majority of games; a forfeit
        # or a loss on time can end it earlier, even with the winner behind.
        won = mine == needed if outcome == "played" else mine <= needed
        if min(score) < 0 or theirs >= needed or not won:
            raise TournamentError(f"{score} is not a best-of-{tournament.best_of} result.")
    decided = pairing.model_copy(update={"winner": winner, "outcome": outcome, "score": score})
    return _replace_pairing(tournament, decided)


def withdraw(tournament: Tournament, player_id: int) -> Tournament:
    """The player leaves the event: an undecided match of theirs this round is lost."""
    if player_id not in tournament.players:
        raise TournamentError(f"Player {player_id} is not in this tournament.")
    if player_id in tournament.withdrawn:
        raise TournamentError(f"Player {player_id} has already withdrawn.")
    if tournament.finished:
        # The final standings are kept as they ended.
        raise TournamentError("The tournament is over.")
    updated = tournament.model_copy(update={"withdrawn": (*tournament.withdrawn, player_id)})
    pairing = tournament.pairing_of(player_id)
    if pairing is not None and not pairing.decided:
        opponent = next(player for player in pairing.players if player != player_id)
        lost = pairing.model_copy(update={"winner": opponent, "outcome": "withdrawal"})
        updated = _replace_pairing(updated, lost)
    return updated


def advance_round(tournament: Tournament) -> Tournament:
    """Pairs the next round (Swiss: may end the event early, see ``stopped_early``)."""
    if not tournament.round_complete:
        raise TournamentError(f"Round {tournament.round_number} still has matches to play.")
    if tournament.finished:
        raise TournamentError("The tournament is over.")
    next_round = tournament.round_number + 1
    if tournament.format is Format.SWISS:
        return _pair_swiss_round(tournament, next_round)
    current = tournament.pairings_of_current_round()
    new = [
        _elimination_pairing(
            next_round, index // 2 + 1, current[index].winner, current[index + 1].winner, tournament
        )
        for index in range(0, len(current), 2)
    ]
    return tournament.model_copy(
        update={"round_number": next_round, "pairings": (*tournament.pairings, *new)}
    )


# -- Swiss pairing ----------------------------------------------------------------------


def _swiss_scores(tournament: Tournament) -> dict[int, int]:
    scores = dict.fromkeys(tournament.players, 0)
    for pairing in tournament.pairings:
        if pairing.winner is not None:
            scores[pairing.winner] += 1
    return scores


def _met(tournament: Tournament) -> set[frozenset[int]]:
    return {
        frozenset(pairing.players) for pairing in tournament.pairings if len(pairing.players) == 2
    }


def _had_bye(tournament: Tournament) -> set[int]:
    return {pairing.first for pairing in tournament.pairings if pairing.is_bye and pairing.first}


def _pair_swiss_round(tournament: Tournament, round_number: int) -> Tournament:
    ranking = [standing.player_id for standing in _swiss_standings(tournament)]
    withdrawn = set(tournament.withdrawn)
    active = [player for player in ranking if player not in withdrawn]
    scores = _swiss_scores(tournament)
    met = _met(tournament)
    had_bye = _had_bye(tournament)
    stopped = tournament.model_copy(update={"stopped_early": True})
    if len(active) < 2:
        return stopped
    bye: int | None = None
    pairs: list[tuple[int, int]] | None = None
    if len(active) % 2:
        # The lowest-ranked player without a bye, unless the others could then not all be
        # paired without a repeat: then the next one up.
        for candidate in reversed(active):
            if candidate in had_bye:
                continue
            rest = [player for player in active if player != candidate]
            pairs = _match(rest, scores, met)
            if pairs is not None:
                bye = candidate
                break
    else:
        pairs = _match(active, scores, met)
    if pairs is None:
        return stopped
    position = {player: index for index, player in enumerate(ranking)}
    # Tables in ranking order of the better-placed player: the top match is table 1.
    ordered = sorted(
        (tuple(sorted(pair, key=position.__getitem__)) for pair in pairs),
        key=lambda pair: position[pair[0]],
    )
    new = [
        Pairing(round=round_number, table=index + 1, first=first, second=second)
        for index, (first, second) in enumerate(ordered)
    ]
    if bye is not None:
        new.append(
            Pairing(
                round=round_number,
                table=len(new) + 1,
                first=bye,
                second=None,
                winner=bye,
                outcome="bye",
            )
        )
    return tournament.model_copy(
        update={"round_number": round_number, "pairings": (*tournament.pairings, *new)}
    )


def _match(
    players: list[int], scores: dict[int, int], met: set[frozenset[int]]
) -> list[tuple[int, int]] | None:
    """A perfect pairing of ``players`` (in ranking order) with no pair that met before,
    with the least total squared score difference; among those, each score group's upper
    half meets its lower half. None when no such pairing exists."""
    count = len(players)
    groups: dict[int, list[int]] = {}
    for player in players:
        groups.setdefault(scores[player], []).append(player)
    place_in_group = {
        player: (index, len(group))
        for group in groups.values()
        for index, player in enumerate(group)
    }
    rank = {player: index for index, player in enumerate(players)}

    def cost(a: int, b: int) -> int:
        difference = scores[a] - scores[b]
        if difference == 0:
            # Upper half against lower half: the ideal opponent sits half a group away.
            (index_a, size), (index_b, _) = place_in_group[a], place_in_group[b]
            shape = abs(abs(index_a - index_b) - size // 2)
        else:
            # A player paired out of their group meets the nearest in rank.
            shape = abs(rank[a] - rank[b])
        # The score difference dominates: no saving in shape (at most count per pair, so
        # less than count * count over a pairing) outweighs one point of difference.
        return difference * difference * (count * count + 1) + shape

    # Imported here, not at the top: networkx costs every bot process 12 MiB and 0.08 s
    # at start (bench/servers.py, issue 30's target 4), and only a Swiss round needs it.
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(players)
    edges = [
        (a, b, cost(a, b))
        for index, a in enumerate(players)
        for b in players[index + 1 :]
        if frozenset((a, b)) not in met
    ]
    if not edges:
        return None
    ceiling = max(edge[2] for edge in edges) + 1
    # Maximum cardinality first (everyone paired where possible), then the most weight,
    # which is the least cost as every perfect pairing has the same number of edges.
    graph.add_weighted_edges_from((a, b, ceiling - weight) for a, b, weight in edges)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != count:
        return None
    return [(int(a), int(b)) for a, b in matching]


# -- standings --------------------------------------------------------------------------


def _swiss_standings(tournament: Tournament) -> list[Standing]:
    scores = _swiss_scores(tournament)
    withdrawn = set(tournament.withdrawn)
    opponents: dict[int, list[int]] = {player: [] for player in tournament.players}
    beaten: dict[int, set[int]] = {player: set() for player in tournament.players}
    for pairing in tournament.pairings:
        if len(pairing.players) != 2:
            continue
        first, second = pairing.players
        opponents[first].append(second)
        opponents[second].append(first)
        loser = pairing.loser()
        if pairing.winner is not None and loser is not None:
            beaten[pairing.winner].add(loser)
    buchholz = {
        player: sum(scores[opponent] for opponent in opponents[player])
        for player in tournament.players
    }
    tied: dict[tuple[int, int], set[int]] = {}
    for player in tournament.players:
        tied.setdefault((scores[player], buchholz[player]), set()).add(player)
    head_to_head = {
        player: len(beaten[player] & tied[(scores[player], buchholz[player])])
        for player in tournament.players
    }
    seed = {player: index + 1 for index, player in enumerate(tournament.players)}
    order = sorted(
        tournament.players,
        key=lambda player: (
            player in withdrawn,
            -scores[player],
            -buchholz[player],
            -head_to_head[player],
            seed[player],
        ),
    )
    rows = []
    for place, player in enumerate(order, start=1):
        wins, losses, byes = tournament._tally(player)
        rows.append(
            Standing(
                place=place,
                player_id=player,
                seed=seed[player],
                score=scores[player],
                wins=wins,
                losses=losses,
                byes=byes,
                withdrawn=player in withdrawn,
                buchholz=buchholz[player],
                head_to_head=head_to_head[player],
            )
        )
    return rows


def _elimination_standings(tournament: Tournament) -> list[Standing]:
    withdrawn = set(tournament.withdrawn)
    out_in: dict[int, int] = {}
    for pairing in tournament.pairings:
        loser = pairing.loser()
        if loser is not None:
            out_in[loser] = pairing.round
        if pairing.outcome == "void":
            for player in pairing.players:
                out_in[player] = pairing.round
    champion = tournament.winner
    seed = {player: index + 1 for index, player in enumerate(tournament.players)}
    rows = []
    for player in tournament.players:
        wins, losses, byes = tournament._tally(player)
        eliminated = out_in.get(player)
        if player == champion:
            place: int | None = 1
        elif eliminated is not None:
            # Out in round r of R: beaten by one of the 2^(R-r) players who went further.
            place = 2 ** (tournament.total_rounds - eliminated) + 1
        else:
            place = None
        rows.append(
            Standing(
                place=place,
                player_id=player,
                seed=seed[player],
                score=wins + byes,
                wins=wins,
                losses=losses,
                byes=byes,
                withdrawn=player in withdrawn,
                eliminated_in=eliminated,
            )
        )
    # Still in the running first, then by place; matches won, then seed, inside a place.
    return sorted(
        rows,
        key=lambda row: (
            0 if row.place is None else 1,
            row.place or 0,
            -row.score,
            row.seed,
        ),
    )
