"""The games of a tournament's rounds: each pairing's games started, their ends counted.

- **Games** of a pairing are ordinary sessions of the event's game, created by ``drive``
  as a challenge from the pairing's first player to the second (in the event's thread, or
  its channel): the challenged player starts the match by accepting; a challenge that
  expires is a match lost on time by the player who did not start it, a declined (or
  withdrawn) one a match forfeited. A best-of match goes on with the game's own "next
  game" (``SessionService.follow_up_in``), at once, in the move that ended the previous
  game; a match drawn after its games is decided by a rematch, and after ``DECIDING_GAMES``
  more games still level, by the better seed.
- **Results**: the move that ends a game (its own transaction: ``SessionEndHook``) adds the
  game to its pairing's score and, when that decides the match, records it in the bracket;
  a round whose last match ends pairs the next (byes and walkovers are decided at once) or
  ends the event with its standings. A game that times out (a player did not finish in
  time) loses the whole match on time. The games' own results and ratings are recorded as
  for any game: tournament games count for the ladder.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.model.contract import (
    CHANNEL_DELETED,
    MESSAGE_REFUSED,
    OPEN_STATUSES,
    Deadline,
    NewSession,
    Outcome,
    Seat,
    Session,
)
from bot.model.errors import AlreadyPlaying, UserError
from bot.model.series import match_decided, new_match, with_series
from bot.play.guild_settings import load_guild_settings
from bot.play.sessions import SessionService, Started
from bot.play.tournament_rows import advance_event, locked_event, parse_bracket, save_event
from bot.storage import Connection, StorageUnavailable
from bot.storage.move_writes import MoveWrite
from bot.storage.sessions import insert_session, saved_session
from bot.storage.tournaments import (
    GameLink,
    MatchRow,
    anyone_busy,
    game_link,
    hold_event,
    link_game,
    load_match,
    load_tournament,
    matches_of,
    players_of,
    save_match,
    store_thread,
)
from game_core import tournament as core
from game_core.errors import IllegalMove

log = logging.getLogger(__name__)

# Games played beyond a drawn best-of match before the better seed goes through.
DECIDING_GAMES = 3

# Why a match ended other than by its games (tournament_matches.reason).
ON_TIME = "time"
FORFEITED = "forfeit"
WITHDRAWN = "withdrawn"
BY_SEED = "seed"

# The session's cancel reason when an event's game is stopped (a removal, a cancelled event).
GAME_STOPPED = "tournament"
# A game cancelled for these reasons cannot be played where it was (see ``unplayable_place``).
UNPLAYABLE = (CHANNEL_DELETED, MESSAGE_REFUSED)
CHANNEL_UNUSABLE = "channel_unusable"


class TournamentGames:
    """Starts the games of every event's current round and counts each game's end in its
    match (``SessionEndHook``). ``changed(tournament_id)`` is told after each committed
    change it makes, outside the game's move."""

    def __init__(self, sessions: SessionService, changed: Callable[[int], None]) -> None:
        self.sessions = sessions
        self.db = sessions.db
        self.clock = sessions.clock
        self.changed = changed
        sessions.add_end_hook(self)
        sessions.on_commit(self._session_committed)
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def pending(self) -> list[asyncio.Task[None]]:
        """The drives that ended games started, still running (tests wait for them)."""
        return list(self._tasks)

    async def close(self) -> None:
        """Stop the drives that ended games started (at shutdown; the runner picks any
        unfinished one up again)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def stop_games(self, session_ids: list[int]) -> None:
        """End the games of matches already decided (a removal, a cancelled event): their
        players are no longer held in the channel."""
        for session_id in session_ids:
            try:
                await self.sessions.cancel(session_id, None, GAME_STOPPED)
            except UserError:
                continue  # it ended meanwhile

    # -- the rounds' games --------------------------------------------------------------

    async def drive(self, tournament_id: int) -> list[int]:
        """Start a game for every pairing of the current round that has none (after a
        start, a new round, a restart, a game stopped without a result); the ids of the
        sessions created. A pairing whose player is busy in the channel with another game
        waits for the next drive (``TournamentRunner`` drives every running event)."""
        async with self.db.read() as conn:
            row = await load_tournament(conn, tournament_id)
            if row is None or row.status != "running":
                return []
            bracket = parse_bracket(row)
            assert bracket is not None
            waiting = [
                match
                for match in await matches_of(conn, tournament_id, bracket.round_number)
                if not match.decided and match.open_session is None
            ]
        created: list[int] = []
        for match in waiting:
            try:
                session_id = await self._start_game(tournament_id, match)
            except AlreadyPlaying:
                log.info(
                    "tournament %s: table %s waits for a player's other game",
                    tournament_id,
                    match.table_no,
                )
                continue
            if session_id is not None:
                created.append(session_id)
        if created:
            self.changed(tournament_id)
        return created

    async def _start_game(self, tournament_id: int, pairing: MatchRow) -> int | None:
        """The first game of a pairing: a challenge from its first player to its second,
        one transaction with the pairing's row (so a second drive starts nothing)."""
        new: NewSession | None = None
        async with self.db.transaction() as conn:
            row = await locked_event(conn, tournament_id)
            match = await load_match(
                conn, tournament_id, pairing.round, pairing.table_no, lock=True
            )
            if row.status != "running" or match is None or match.decided:
                return None
            if match.open_session is not None:
                return None
            settings = await load_guild_settings(conn, row.guild_id, self.sessions.defaults)
            names = {p.user_id: p.display_name for p in await players_of(conn, tournament_id)}
            now = self.clock.now()
            challenger = Seat(seat=0, user_id=match.first_id, display_name=names[match.first_id])
            opponent = Seat(seat=1, user_id=match.second_id, display_name=names[match.second_id])
            expires_at = now + settings.challenge_expiry_seconds
            new = NewSession(
                seats=[challenger, opponent],
                state=with_series(
                    challenge_envelope(challenger, opponent, expires_at),
                    new_match(match.first_id, match.second_id, row.best_of),
                ),
                status="pending",
                deadlines=[
                    Deadline(kind="challenge_expiry", due_at=expires_at, action={"type": "expire"})
                ],
                ping=[match.first_id, match.second_id],
            )
            session_id = await insert_session(
                conn,
                new,
                game=row.game,
                guild_id=row.guild_id,
                channel_id=row.games_channel_id,
                created_by=row.host_id,
                seed=self.sessions.seeds.next(),
                now=now,
                language=row.language,
            )
            await link_game(conn, session_id, match)
            await save_match(conn, replace(match, open_session=session_id))
        self.sessions.deadlines_added(new.deadlines)
        return session_id

    # -- a game ends (SessionEndHook: inside the move's transaction) ----------------------

    async def before_end(self, conn: Connection, write: MoveWrite) -> None:
        link = await game_link(conn, write.previous.id)
        if link is not None:
            await hold_event(conn, link.tournament_id)

    async def after_end(self, conn: Connection, write: MoveWrite) -> list[Started]:
        link = await game_link(conn, write.previous.id)
        if link is None:
            return []
        return await self._game_ended(conn, link, write)

    async def _game_ended(
        self, conn: Connection, link: GameLink, write: MoveWrite
    ) -> list[Started]:
        row = await load_tournament(conn, link.tournament_id, lock=True)
        match = await load_match(conn, link.tournament_id, link.round, link.table_no, lock=True)
        session = write.previous
        if row is None or row.status != "running" or match is None:
            return []
        if match.decided or match.open_session != session.id:
            return []  # a removal decided it first: this game no longer counts for it
        bracket = parse_bracket(row)
        assert bracket is not None
        if bracket.round_number != match.round:
            return []
        end = game_end(write, match)
        if end.void:
            # Stopped without a result (an admin, a deleted channel): the next drive starts
            # the pairing's game again. Where the bot can no longer play (its thread
            # deleted, or closed to it), the event's games move to its channel; if that is
            # the event's own channel, the event ends.
            await save_match(conn, replace(match, open_session=None))
            if unplayable_place(write):
                if row.thread_id is not None and session.channel_id == row.thread_id:
                    await store_thread(conn, row.id, None)
                else:
                    await save_event(
                        conn,
                        row,
                        now=self.clock.now(),
                        status="cancelled",
                        cancel_reason=CHANNEL_UNUSABLE,
                    )
            return []
        scored = replace(
            match,
            first_wins=match.first_wins + (end.winner == match.first_id and end.counted),
            second_wins=match.second_wins + (end.winner == match.second_id and end.counted),
            games=match.games + end.counted,
        )
        winner, reason = match_result(scored, row.best_of, end, bracket)
        if winner is None:
            return await self._next_game(conn, saved_session(write), scored, row.best_of)
        decided = replace(scored, winner_id=winner, reason=reason, open_session=None)
        await save_match(conn, decided)
        outcome: core.Outcome = "played"
        if reason == ON_TIME:
            outcome = "timeout"
        elif reason == FORFEITED:
            outcome = "forfeit"
        score = (decided.first_wins, decided.second_wins)
        fits = fits_best_of(score, winner == match.first_id, row.best_of, outcome)
        bracket = core.record_result(
            bracket, match.table_no, winner, outcome=outcome, score=score if fits else None
        )
        await advance_event(conn, row, bracket, now=self.clock.now())
        return []

    async def _next_game(
        self, conn: Connection, finished: Session, match: MatchRow, best_of: int
    ) -> list[Started]:
        """The match goes on: the series' next game, or a rematch once its games are played
        and it is level, made by the game's own follow-up in the move's transaction (its
        message loses its play-on button). If that cannot be made here (a player holds
        another game in the channel), the next drive starts a game of the pairing."""
        players = (match.first_id, match.second_id)
        if await anyone_busy(conn, finished.channel_id, players):
            await save_match(conn, replace(match, open_session=None))
            return []
        action = {"type": "next" if match.games < best_of else "rematch"}
        try:
            next_id, new, _followed = await self.sessions.follow_up_in(
                conn, finished, match.first_id, action
            )
        except (UserError, IllegalMove) as error:
            # Refused before anything was written (the game's own checks).
            log.warning("tournament game %s: no follow-up (%s)", finished.id, error)
            await save_match(conn, replace(match, open_session=None))
            return []
        await link_game(conn, next_id, match)
        await save_match(conn, replace(match, open_session=next_id))
        return [(next_id, new)]

    def _session_committed(self, outcome: Outcome) -> None:
        """After a game ends, drive its event (outside the move: new games are posted)."""
        if outcome.session.status in OPEN_STATUSES:
            return
        task = asyncio.create_task(self._after_game(outcome.session.id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _after_game(self, session_id: int) -> None:
        try:
            async with self.db.read() as conn:
                link = await game_link(conn, session_id)
            if link is None:
                return
            self.changed(link.tournament_id)
            await self.drive(link.tournament_id)
        except StorageUnavailable:
            log.warning(
                "tournament: database unavailable after game %s; the runner retries", session_id
            )


# -- how a game ended, for its match (pure) -------------------------------------------------


@dataclass(frozen=True)
class GameEnd:
    # The player who won the game (None: a draw, or nothing to count).
    winner: int | None
    # Whether the game counts in the match's score (a game played to its end).
    counted: bool
    # A player lost the whole match: did not start (or finish) in time, or gave it up.
    match_lost_by: int | None = None
    reason: str | None = None
    # Stopped without a result: the pairing plays again.
    void: bool = False


def game_end(write: MoveWrite, match: MatchRow) -> GameEnd:
    """What the move that ended a game of ``match`` means for the match."""
    step, session = write.step, write.previous
    types = {event.get("type") for event in step.events}
    challenge = session.state.get("challenge")
    if step.status == "cancelled" and isinstance(challenge, dict):
        challenger, opponent = challenge.get("challenger"), challenge.get("opponent")
        if "challenge_expired" in types:
            return GameEnd(None, False, match_lost_by=opponent, reason=ON_TIME)
        if "challenge_declined" in types:
            return GameEnd(None, False, match_lost_by=opponent, reason=FORFEITED)
        if "challenge_withdrawn" in types:
            return GameEnd(None, False, match_lost_by=challenger, reason=FORFEITED)
    result = step.result
    if step.status != "finished" or result is None:
        return GameEnd(None, False, void=True)
    seats = step.seats if step.seats is not None else list(session.seats)
    by_seat = {seat.seat: seat.user_id for seat in seats}
    winner = None if result.draw or not result.winners else by_seat.get(result.winners[0])
    if result.reason == "timeout" and winner is not None:
        loser = match.second_id if winner == match.first_id else match.first_id
        return GameEnd(winner, True, match_lost_by=loser, reason=ON_TIME)
    return GameEnd(winner, True)


def unplayable_place(write: MoveWrite) -> bool:
    """Whether a game ended because its channel is gone or closed to the bot."""
    return any(
        event.get("type") == "cancelled" and event.get("reason") in UNPLAYABLE
        for event in write.step.events
    )


def match_result(
    match: MatchRow, best_of: int, end: GameEnd, bracket: core.Tournament
) -> tuple[int | None, str | None]:
    """(the match's winner, why if not by its games) once ``end`` counts in ``match``'s
    score; (None, None) while it goes on."""
    if end.match_lost_by is not None:
        loser = end.match_lost_by
        return (match.second_id if loser == match.first_id else match.first_id), end.reason
    wins = (match.first_wins, match.second_wins)
    if not match_decided(best_of, wins, match.games):
        return None, None
    if wins[0] != wins[1]:
        return (match.first_id if wins[0] > wins[1] else match.second_id), None
    if match.games >= best_of + DECIDING_GAMES:
        better = min((match.first_id, match.second_id), key=bracket.seed_of)
        return better, BY_SEED
    return None, None


def challenge_envelope(challenger: Seat, opponent: Seat, expires_at: float) -> dict[str, object]:
    """A pending challenge's state, as ``bot.ui.challenges.challenge_state`` makes it (no
    options: each game's defaults), so the game's own Accept / Decline and expiry run it."""
    return {
        "challenge": {
            "challenger": challenger.user_id,
            "opponent": opponent.user_id,
            "options": {},
            "expires_at": expires_at,
        }
    }


def fits_best_of(score: tuple[int, int], first_won: bool, best_of: int, outcome: str) -> bool:
    """Whether ``score`` reads as a best-of result for the bracket (a match decided by a
    rematch after a draw, or by seed, may not)."""
    needed = best_of // 2 + 1
    mine, theirs = (score[0], score[1]) if first_won else (score[1], score[0])
    if theirs >= needed:
        return False
    return mine == needed if outcome == "played" else mine <= needed
