"""Tournaments at runtime: sign-up, start, the rounds' games, results, removals, the end.

An event is a versioned row (``bot.storage.tournaments``) holding the pure bracket
(``game_core.tournament``) as JSON; every change is one transaction that reads it locked,
asks the pure module, and saves the next version. Nothing is held in memory, so a restart
or another process carries on from the rows.

- **Games** of a pairing are ordinary sessions of the event's game, created by
  ``drive`` as a challenge from the pairing's first player to the second (in the event's
  thread, or its channel): the challenged player starts the match by accepting; a
  challenge that expires is a match lost on time by the player who did not start it, a
  declined (or withdrawn) one a match forfeited. A best-of match goes on with the game's
  own "next game" (``SessionService.follow_up_in``), at once, in the move that ended the
  previous game; a match drawn after its games is decided by a rematch, and after
  ``DECIDING_GAMES`` more games still level, by the better seed.
- **Results**: the move that ends a game (its own transaction: ``SessionEndHook``) adds
  the game to its pairing's score and, when that decides the match, records it in the
  bracket; a round whose last match ends pairs the next (byes and walkovers are decided at
  once) or ends the event with its standings. A game that times out (a player did not
  finish in time) loses the whole match on time. The games' own results and ratings are
  recorded as for any game: tournament games count for the ladder.
- **Timers**: the game timers are the games' own durable deadlines; an event's start time
  is its row's ``starts_at``, which ``TournamentRunner`` watches (and, with several
  processes, only one start happens: the start is a versioned transition).
- **Listeners** (``on_change``) hear of every committed change of an event, to show it:
  the event's id. Games created for a round are found with ``round_games``.
- **Its message converges** as a game's does: the row records the version its message
  shows (``record_shown``), an edit claims the message first (``claim_show``: one process
  edits it at a time, and never with an older version than one shown or being shown), and
  ``TournamentRunner``'s sweep hands every event whose message is behind (an edit Discord
  failed, a process that stopped between a change and its edit, a change made by another
  process) to its ``show`` callback, every ``SWEEP_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot import i18n
from bot.i18n import _, ngettext, number
from bot.ladder.results import shown_rating
from bot.ladder.seasons import current_season
from bot.model.catalog import game_title
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
from bot.model.text import escape
from bot.play.guild_settings import load_guild_settings
from bot.play.sessions import SessionService, Started
from bot.storage import Connection, Database, StorageUnavailable
from bot.storage.move_writes import MoveWrite
from bot.storage.publication import ShowClaim
from bot.storage.sessions import insert_session, saved_session
from bot.storage.tournaments import (
    GameLink,
    MatchRow,
    NewTournament,
    TournamentPlayer,
    TournamentRow,
    TournamentStatus,
    add_player,
    anyone_busy,
    claim_event_show,
    drop_player,
    due_to_start,
    game_link,
    guild_tournaments,
    hold_event,
    insert_match,
    insert_tournament,
    link_game,
    load_match,
    load_tournament,
    mark_removed,
    matches_of,
    next_start,
    open_games,
    open_ids,
    players_of,
    read_matches,
    read_players,
    read_tournament,
    record_event_shown,
    running_ids,
    save_match,
    save_tournament,
    season_ordinals,
    store_message,
    store_message_shown,
    store_places,
    store_seeds,
    store_thread,
    tournament_record,
    unshown_events,
)
from game_core import tournament as core
from game_core.errors import IllegalMove

log = logging.getLogger(__name__)

TOURNAMENT_GAMES = ("knucklebones", "diceman", "dimension_duel")
MIN_PLAYERS = 4
# The picture of the event stays readable on a phone up to this many players.
MAX_PLAYERS = 32
DEFAULT_MAX_PLAYERS = 16
NAME_LIMIT = 60
# Games played beyond a drawn best-of match before the better seed goes through.
DECIDING_GAMES = 3
# How far ahead a start time may be set.
LONGEST_WAIT_SECONDS = 30 * 86_400

# Why an event was cancelled (stored; shown by the cog in the event's language).
TOO_FEW_PLAYERS = "too_few_players"
CANCELLED_BY_HOST = "cancelled"
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

# The sweep (game-clock seconds): how often each process looks for events whose message is
# behind, how long it leaves alone one that just changed (the process that changed it is
# showing it), and how long after its end an event is still looked at (its last edit says
# the winner, or the cancel).
SWEEP_SECONDS = 5.0
SWEEP_SETTLE_SECONDS = 2.0
SWEEP_FINISHED_SECONDS = 86_400.0
SWEEP_LIMIT = 100
# A claim on editing an event's message (game clock): long enough for its pictures and the
# edit; a process that dies holding it loses it then.
SHOW_LEASE_SECONDS = 30.0


class TournamentNotFound(UserError):
    def __init__(self) -> None:
        super().__init__(_("That tournament no longer exists."))


class NotTheHost(UserError):
    def __init__(self) -> None:
        super().__init__(
            _(
                "Only the tournament's host or a member with the **Manage Server** permission "
                "can do that."
            )
        )


@dataclass(frozen=True)
class Standing:
    """A final (or current) place of a player, with their name as they signed up."""

    place: int | None
    user_id: int
    display_name: str
    score: int
    withdrawn: bool


@dataclass(frozen=True)
class EventView:
    """What the event's message shows: the row, its players, its bracket and pairings."""

    tournament: TournamentRow
    players: list[TournamentPlayer]
    bracket: core.Tournament | None
    matches: list[MatchRow]

    @property
    def names(self) -> dict[int, str]:
        return {player.user_id: player.display_name for player in self.players}


async def tournament_record_of(db: Database, guild_id: int, user_id: int) -> tuple[int, int]:
    """(events played, events won) by a player on a server, for ``/stats``: played = took
    part in an event that started and was not cancelled, won = finished as its winner."""
    return await tournament_record(db, guild_id, user_id)


# A start time as the host may type it: minutes from now ("30"), a time of day in UTC
# ("18:30", today or else tomorrow), or a Discord timestamp ("<t:1800000000:R>", or its number).
_MINUTES = re.compile(r"[0-9]{1,5}")
_CLOCK = re.compile(r"(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{2})")
_STAMP = re.compile(r"(?:<t:)?(?P<stamp>[0-9]{9,11})(?::[tTdDfFR])?>?")


def parse_start(text: str, now: float) -> float:
    """When an event starts by itself, from what its host typed (see the patterns above);
    refuses (UserError) what it cannot read. The range is checked by ``create``."""
    given = text.strip()
    if _MINUTES.fullmatch(given):
        return now + 60 * int(given)
    clock = _CLOCK.fullmatch(given)
    if clock is not None and int(clock["hour"]) < 24 and int(clock["minute"]) < 60:
        day = now - now % 86_400
        at = day + 3_600 * int(clock["hour"]) + 60 * int(clock["minute"])
        return at if at > now else at + 86_400
    stamp = _STAMP.fullmatch(given)
    if stamp is not None:
        return float(stamp["stamp"])
    raise UserError(
        _(
            "I can't read that start time: give minutes from now (30), a time in UTC "
            "(18:30) or a Discord timestamp (<t:1800000000>)."
        )
    )


def parse_bracket(row: TournamentRow) -> core.Tournament | None:
    return None if row.state is None else core.Tournament.from_json(row.state)


class TournamentService:
    def __init__(self, sessions: SessionService) -> None:
        self.sessions = sessions
        self.db = sessions.db
        self.clock = sessions.clock
        self._listeners: list[Callable[[int], None]] = []
        sessions.add_end_hook(self)
        sessions.on_commit(self._session_committed)
        self._tasks: set[asyncio.Task[None]] = set()

    # -- listeners ------------------------------------------------------------------------

    def on_change(self, listener: Callable[[int], None]) -> None:
        """``listener(tournament_id)`` after every committed change of an event."""
        self._listeners.append(listener)

    def _changed(self, tournament_id: int) -> None:
        for listener in self._listeners:
            try:
                listener(tournament_id)
            except Exception:
                log.exception("a tournament listener failed for event %s", tournament_id)

    async def close(self) -> None:
        """Stop the drives that ended games started (at shutdown; the runner picks any
        unfinished one up again)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- reading --------------------------------------------------------------------------

    async def get(self, tournament_id: int) -> TournamentRow:
        row = await read_tournament(self.db, tournament_id)
        if row is None:
            raise TournamentNotFound()
        return row

    async def view(self, tournament_id: int) -> EventView:
        row = await self.get(tournament_id)
        return EventView(
            tournament=row,
            players=await read_players(self.db, tournament_id),
            bracket=parse_bracket(row),
            matches=await read_matches(self.db, tournament_id),
        )

    async def list_for_guild(self, guild_id: int, *, limit: int = 10) -> list[TournamentRow]:
        return await guild_tournaments(self.db, guild_id, limit=limit)

    async def record_of(self, guild_id: int, user_id: int) -> tuple[int, int]:
        """(events played, events won) on this server."""
        return await tournament_record(self.db, guild_id, user_id)

    async def standings(self, tournament_id: int) -> list[Standing]:
        view = await self.view(tournament_id)
        if view.bracket is None:
            return []
        names = view.names
        return [
            Standing(
                place=row.place,
                user_id=row.player_id,
                display_name=names.get(row.player_id, "?"),
                score=row.score,
                withdrawn=row.withdrawn,
            )
            for row in view.bracket.standings()
        ]

    async def open_events(self) -> list[int]:
        """The ids of every event in sign-up or running."""
        return await open_ids(self.db)

    async def round_games(self, tournament_id: int) -> list[int]:
        """The sessions of the event's matches being played now (to post and ping)."""
        async with self.db.read() as conn:
            return await open_games(conn, tournament_id)

    # -- sign-up --------------------------------------------------------------------------

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        game: str,
        name: str,
        format: core.Format,
        best_of: int,
        max_players: int = DEFAULT_MAX_PLAYERS,
        starts_at: float | None = None,
        swiss_rounds: int | None = None,
    ) -> TournamentRow:
        """A new event in sign-up. Refuses (UserError) what it cannot run."""
        if game not in TOURNAMENT_GAMES:
            raise UserError(_("Tournaments are for Knucklebones, Diceman and Dimension Duel."))
        if best_of not in (1, 3, 5):
            raise UserError(
                _(
                    "In a tournament, each pairing plays one game or a series: best of 3 or "
                    "best of 5."
                )
            )
        if not MIN_PLAYERS <= max_players <= MAX_PLAYERS:
            raise UserError(
                _("A tournament takes from {low} to {high} players.").format(
                    low=number(MIN_PLAYERS), high=number(MAX_PLAYERS)
                )
            )
        now = self.clock.now()
        if starts_at is not None and not now < starts_at <= now + LONGEST_WAIT_SECONDS:
            raise UserError(_("Choose a start time in the next 30 days."))
        cleaned = " ".join(name.split())[:NAME_LIMIT]
        if swiss_rounds is not None and format is not core.Format.SWISS:
            swiss_rounds = None
        async with self.db.transaction() as conn:
            settings = await load_guild_settings(conn, guild_id, self.sessions.defaults)
            language = settings.language or i18n.server_language()
            if not cleaned:
                # Unnamed: the game's name, in the event's language.
                with i18n.use(language):
                    cleaned = game_title(game)
            tournament_id = await insert_tournament(
                conn,
                NewTournament(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    host_id=host_id,
                    game=game,
                    name=cleaned,
                    format=format.value,
                    best_of=best_of,
                    max_players=max_players,
                    swiss_rounds=swiss_rounds,
                    starts_at=starts_at,
                    seed=self.sessions.seeds.next(),
                    language=language,
                ),
                now=now,
            )
            row = await load_tournament(conn, tournament_id)
        assert row is not None
        self._changed(tournament_id)
        return row

    async def set_message(
        self, tournament_id: int, message_id: int, shown_version: int | None = None
    ) -> None:
        """The event's message; ``shown_version``: the version it was posted showing."""
        if shown_version is None:
            await store_message(self.db, tournament_id, message_id)
        else:
            await store_message_shown(self.db, tournament_id, message_id, shown_version)

    # -- its message on screen ----------------------------------------------------------

    async def claim_show(self, tournament_id: int, version: int) -> bool:
        """Claim the event's message to show ``version`` (see ``claim_event_show``):
        False if a newer version is shown or being shown, or another process is editing it
        now."""
        claim = await claim_event_show(
            self.db,
            tournament_id,
            version,
            owner=self.sessions.instance,
            now=self.clock.now(),
            lease_seconds=SHOW_LEASE_SECONDS,
        )
        return claim is ShowClaim.GRANTED

    async def record_shown(self, tournament_id: int, version: int | None) -> None:
        """The message shows ``version`` (None: the edit failed); ends this process's claim."""
        await record_event_shown(self.db, tournament_id, version, owner=self.sessions.instance)

    async def unshown(self) -> list[int]:
        """The events whose message shows an older version, settled (see ``unshown_events``)."""
        now = self.clock.now()
        return await unshown_events(
            self.db,
            settled_before=now - SWEEP_SETTLE_SECONDS,
            finished_since=now - SWEEP_FINISHED_SECONDS,
            limit=SWEEP_LIMIT,
        )

    async def set_thread(self, tournament_id: int, thread_id: int | None) -> None:
        """Where the matches are played from now on (None: the event's channel)."""
        async with self.db.transaction() as conn:
            await store_thread(conn, tournament_id, thread_id)

    async def join(self, tournament_id: int, user_id: int, display_name: str) -> TournamentRow:
        async with self.db.transaction() as conn:
            row = await self._locked(conn, tournament_id)
            if row.status != "signup":
                raise UserError(_("This tournament is not taking sign-ups any more."))
            players = await players_of(conn, tournament_id)
            if any(player.user_id == user_id for player in players):
                raise UserError(_("You are already signed up for this tournament."))
            if len(players) >= row.max_players:
                raise UserError(
                    ngettext(
                        "This tournament is full: {count} player.",
                        "This tournament is full: {count} players.",
                        row.max_players,
                    ).format(count=number(row.max_players))
                )
            await add_player(conn, tournament_id, user_id, display_name, now=self.clock.now())
            row = await self._save(conn, row)
        self._changed(tournament_id)
        return row

    async def leave(self, tournament_id: int, user_id: int) -> TournamentRow:
        async with self.db.transaction() as conn:
            row = await self._locked(conn, tournament_id)
            if row.status != "signup":
                raise UserError(
                    _("This tournament has started: ask its host to remove you if you must go.")
                )
            if not await drop_player(conn, tournament_id, user_id):
                raise UserError(_("You are not signed up for this tournament."))
            row = await self._save(conn, row)
        self._changed(tournament_id)
        return row

    # -- the host's controls --------------------------------------------------------------

    async def start(
        self, tournament_id: int, actor_id: int | None, *, may_manage: bool = False
    ) -> TournamentRow:
        """Start the event (``actor_id`` None: its start time came). Fewer than
        ``MIN_PLAYERS`` players cancel it instead."""
        async with self.db.transaction() as conn:
            row = await self._locked(conn, tournament_id)
            self._authorise(row, actor_id, may_manage)
            if row.status != "signup":
                raise UserError(_("This tournament has already started."))
            players = await players_of(conn, tournament_id)
            if len(players) < MIN_PLAYERS:
                row = await self._save(conn, row, status="cancelled", cancel_reason=TOO_FEW_PLAYERS)
            else:
                row = await self._begin(conn, row, players)
        if row.status == "running":
            # The round's games first: the change that shows the started event then posts
            # them before it draws the bracket.
            await self.drive(tournament_id)
        self._changed(tournament_id)
        return row

    async def cancel(
        self, tournament_id: int, actor_id: int, *, may_manage: bool = False
    ) -> TournamentRow:
        async with self.db.transaction() as conn:
            row = await self._locked(conn, tournament_id)
            self._authorise(row, actor_id, may_manage)
            if not row.is_open:
                raise UserError(_("This tournament is already over."))
            games = await open_games(conn, tournament_id)
            row = await self._save(conn, row, status="cancelled", cancel_reason=CANCELLED_BY_HOST)
        self._changed(tournament_id)
        await self._stop_games(games)
        return row

    async def remove(
        self, tournament_id: int, actor_id: int, user_id: int, *, may_manage: bool = False
    ) -> TournamentRow:
        """Take a player out: before the start, their sign-up; after, they withdraw (their
        match of this round is lost, their opponent goes through)."""
        stopped: list[int] = []
        async with self.db.transaction() as conn:
            row = await self._locked(conn, tournament_id)
            self._authorise(row, actor_id, may_manage)
            players = {player.user_id: player for player in await players_of(conn, tournament_id)}
            player = players.get(user_id)
            if player is None:
                raise UserError(_("That player is not in this tournament."))
            name = escape(player.display_name)
            if row.status == "signup":
                await drop_player(conn, tournament_id, user_id)
                row = await self._save(conn, row)
            elif row.status != "running":
                raise UserError(_("This tournament is already over."))
            elif player.removed:
                raise UserError(_("{name} has already left this tournament.").format(name=name))
            else:
                bracket = parse_bracket(row)
                assert bracket is not None
                await mark_removed(conn, tournament_id, user_id)
                for match in await matches_of(conn, tournament_id, bracket.round_number):
                    if match.decided or user_id not in (match.first_id, match.second_id):
                        continue
                    winner = match.second_id if user_id == match.first_id else match.first_id
                    await save_match(
                        conn, replace(match, winner_id=winner, reason=WITHDRAWN, open_session=None)
                    )
                    if match.open_session is not None:
                        stopped.append(match.open_session)
                row = await self._advance(conn, row, core.withdraw(bracket, user_id))
        self._changed(tournament_id)
        await self._stop_games(stopped)
        if row.status == "running":
            await self.drive(tournament_id)
        return row

    async def _stop_games(self, session_ids: list[int]) -> None:
        """End the games of matches already decided (a removal, a cancelled event): their
        players are no longer held in the channel."""
        for session_id in session_ids:
            try:
                await self.sessions.cancel(session_id, None, GAME_STOPPED)
            except UserError:
                continue  # it ended meanwhile

    # -- rounds ---------------------------------------------------------------------------

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
            self._changed(tournament_id)
        return created

    async def _start_game(self, tournament_id: int, pairing: MatchRow) -> int | None:
        """The first game of a pairing: a challenge from its first player to its second,
        one transaction with the pairing's row (so a second drive starts nothing)."""
        new: NewSession | None = None
        async with self.db.transaction() as conn:
            row = await self._locked(conn, tournament_id)
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
                    await self._save(conn, row, status="cancelled", cancel_reason=CHANNEL_UNUSABLE)
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
        await self._advance(conn, row, bracket)
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
            self._changed(link.tournament_id)
            await self.drive(link.tournament_id)
        except StorageUnavailable:
            log.warning(
                "tournament: database unavailable after game %s; the runner retries", session_id
            )

    # -- internals ------------------------------------------------------------------------

    async def _locked(self, conn: Connection, tournament_id: int) -> TournamentRow:
        row = await load_tournament(conn, tournament_id, lock=True)
        if row is None:
            raise TournamentNotFound()
        return row

    def _authorise(self, row: TournamentRow, actor_id: int | None, may_manage: bool) -> None:
        if actor_id is not None and actor_id != row.host_id and not may_manage:
            raise NotTheHost()

    async def _save(
        self,
        conn: Connection,
        row: TournamentRow,
        *,
        status: TournamentStatus | None = None,
        state: str | None = None,
        winner_id: int | None = None,
        cancel_reason: str | None = None,
    ) -> TournamentRow:
        """The event's next version (every change bumps it, so a press on an older message
        is told the event moved on)."""
        saved_ok = await save_tournament(
            conn,
            row,
            now=self.clock.now(),
            status=status,
            state=state,
            winner_id=winner_id,
            cancel_reason=cancel_reason,
        )
        # The row is locked for this transaction: another version cannot come between.
        assert saved_ok
        saved = await load_tournament(conn, row.id)
        assert saved is not None
        return saved

    async def _begin(
        self, conn: Connection, row: TournamentRow, players: list[TournamentPlayer]
    ) -> TournamentRow:
        """Seed the players by the current season's rating and pair round 1."""
        season = await current_season(conn, row.guild_id, row.game)
        ordinals = await season_ordinals(
            conn, row.guild_id, row.game, season.number, [p.user_id for p in players]
        )
        ratings = {
            p.user_id: (float(shown_rating(ordinals[p.user_id])) if p.user_id in ordinals else None)
            for p in players
        }
        order = core.seed_order(
            [core.Entrant(player_id=user, rating=rating) for user, rating in ratings.items()],
            row.seed,
        )
        swiss_rounds = row.swiss_rounds
        if swiss_rounds is not None:
            swiss_rounds = min(swiss_rounds, core.max_swiss_rounds(len(order)))
        bracket = core.start_tournament(
            core.Format(row.format),
            order,
            best_of=row.best_of,
            swiss_rounds=swiss_rounds,
            rng_seed=row.seed,
        )
        await store_seeds(
            conn,
            row.id,
            [(user, index + 1, ratings[user]) for index, user in enumerate(order)],
        )
        running = await self._save(conn, row, status="running", state=bracket.to_json())
        return await self._advance(conn, running, bracket)

    async def _advance(
        self, conn: Connection, row: TournamentRow, bracket: core.Tournament
    ) -> TournamentRow:
        """Store ``bracket``, its pairings to play, and every round decided without play;
        end the event when it is over."""
        while True:
            for pairing in bracket.pending_pairings():
                assert pairing.first is not None and pairing.second is not None
                await insert_match(
                    conn, row.id, pairing.round, pairing.table, pairing.first, pairing.second
                )
            if not bracket.round_complete or bracket.finished:
                break
            bracket = core.advance_round(bracket)
        if not bracket.finished:
            return await self._save(conn, row, status="running", state=bracket.to_json())
        places = [
            (standing.player_id, standing.place)
            for standing in bracket.standings()
            if standing.place is not None
        ]
        await store_places(conn, row.id, places)
        return await self._save(
            conn, row, status="finished", state=bracket.to_json(), winner_id=bracket.winner
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


# -- the start times ------------------------------------------------------------------------


# With several processes a runner does not hear of the events others create, so it looks
# at least this often; it also drives every running event this often (a game created
# elsewhere, a drive a crash cut short).
POLL_SECONDS = 30.0


class TournamentRunner:
    """Starts events whose start time came, drives the running ones now and then, and
    sweeps: hands each event whose message is behind to ``show`` (the cog's edit)."""

    def __init__(
        self,
        service: TournamentService,
        *,
        poll_seconds: float = POLL_SECONDS,
        show: Callable[[int], None] | None = None,
    ) -> None:
        self.service = service
        self.poll_seconds = poll_seconds
        self.show = show
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sweep: asyncio.Task[None] | None = None
        service.on_change(lambda _tournament_id: self._wake.set())
        service.clock.subscribe(self._wake.set)

    @property
    def started(self) -> bool:
        return self._task is not None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="tournament-loop")
        if self._sweep is None and self.show is not None:
            self._sweep = asyncio.create_task(self._sweep_loop(), name="tournament-sweep")

    async def stop(self) -> None:
        tasks = [task for task in (self._task, self._sweep) if task is not None]
        self._task = self._sweep = None
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _sweep_loop(self) -> None:
        assert self.show is not None
        while True:
            await self.service.clock.sleep(SWEEP_SECONDS)
            try:
                behind = await self.service.unshown()
            except StorageUnavailable:
                log.info("tournament sweep: database unavailable, trying again later")
                continue
            for tournament_id in behind:
                self.show(tournament_id)

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                delay = await self.tick()
            except StorageUnavailable:
                log.warning("tournament loop: database unavailable, retrying")
                delay = 1.0
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._wake.wait()

    async def tick(self) -> float:
        """Start what is due, drive what runs; seconds until the next look."""
        now = self.service.clock.now()
        for tournament_id in await due_to_start(self.service.db, now):
            try:
                await self.service.start(tournament_id, None)
            except UserError as error:
                # Started (or cancelled) meanwhile, by a host or another process.
                log.debug("tournament %s: not started by its time: %s", tournament_id, error)
        for tournament_id in await running_ids(self.service.db):
            await self.service.drive(tournament_id)
        upcoming = await next_start(self.service.db)
        if upcoming is None:
            return self.poll_seconds
        return max(0.0, min(self.poll_seconds, upcoming - self.service.clock.now()))
