"""Tournaments at runtime: sign-up, start, the rounds' games, results, removals, the end.

An event is a versioned row (``bot.storage.tournaments``) holding the pure bracket
(``game_core.tournament``) as JSON; every change is one transaction that reads it locked,
asks the pure module, and saves the next version. Nothing is held in memory, so a restart
or another process carries on from the rows.

- **Games and results** are ``bot.play.tournament_games``'s: each pairing's games, started
  as the game's own challenges, and each game's end counted in its match inside the move
  that ends it. Every change of an event goes through ``bot.play.tournament_rows``.
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
from bot.model.errors import UserError
from bot.model.text import escape
from bot.play.guild_settings import load_guild_settings
from bot.play.sessions import SessionService
from bot.play.tournament_games import WITHDRAWN, TournamentGames
from bot.play.tournament_rows import (
    TournamentNotFound,
    advance_event,
    authorise,
    locked_event,
    parse_bracket,
    save_event,
)
from bot.storage import Connection, Database, StorageUnavailable
from bot.storage.publication import ShowClaim
from bot.storage.tournaments import (
    MatchRow,
    NewTournament,
    TournamentPlayer,
    TournamentRow,
    add_player,
    claim_event_show,
    drop_player,
    due_to_start,
    guild_tournaments,
    insert_tournament,
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
    season_ordinals,
    store_message,
    store_message_shown,
    store_seeds,
    store_thread,
    tournament_record,
    unshown_events,
)
from game_core import tournament as core

log = logging.getLogger(__name__)

TOURNAMENT_GAMES = ("knucklebones", "diceman", "dimension_duel")
MIN_PLAYERS = 4
# The picture of the event stays readable on a phone up to this many players.
MAX_PLAYERS = 32
DEFAULT_MAX_PLAYERS = 16
NAME_LIMIT = 60
# How far ahead a start time may be set.
LONGEST_WAIT_SECONDS = 30 * 86_400

# Why an event was cancelled (stored; shown by the cog in the event's language).
TOO_FEW_PLAYERS = "too_few_players"
CANCELLED_BY_HOST = "cancelled"

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


class TournamentService:
    def __init__(self, sessions: SessionService) -> None:
        self.sessions = sessions
        self.db = sessions.db
        self.clock = sessions.clock
        self._listeners: list[Callable[[int], None]] = []
        self.games = TournamentGames(sessions, self._changed)

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
        await self.games.close()

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
            row = await locked_event(conn, tournament_id)
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
            row = await save_event(conn, row, now=self.clock.now())
        self._changed(tournament_id)
        return row

    async def leave(self, tournament_id: int, user_id: int) -> TournamentRow:
        async with self.db.transaction() as conn:
            row = await locked_event(conn, tournament_id)
            if row.status != "signup":
                raise UserError(
                    _("This tournament has started: ask its host to remove you if you must go.")
                )
            if not await drop_player(conn, tournament_id, user_id):
                raise UserError(_("You are not signed up for this tournament."))
            row = await save_event(conn, row, now=self.clock.now())
        self._changed(tournament_id)
        return row

    # -- the host's controls --------------------------------------------------------------

    async def start(
        self, tournament_id: int, actor_id: int | None, *, may_manage: bool = False
    ) -> TournamentRow:
        """Start the event (``actor_id`` None: its start time came). Fewer than
        ``MIN_PLAYERS`` players cancel it instead."""
        async with self.db.transaction() as conn:
            row = await locked_event(conn, tournament_id)
            authorise(row, actor_id, may_manage)
            if row.status != "signup":
                raise UserError(_("This tournament has already started."))
            players = await players_of(conn, tournament_id)
            if len(players) < MIN_PLAYERS:
                row = await save_event(
                    conn,
                    row,
                    now=self.clock.now(),
                    status="cancelled",
                    cancel_reason=TOO_FEW_PLAYERS,
                )
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
            row = await locked_event(conn, tournament_id)
            authorise(row, actor_id, may_manage)
            if not row.is_open:
                raise UserError(_("This tournament is already over."))
            games = await open_games(conn, tournament_id)
            row = await save_event(
                conn, row, now=self.clock.now(), status="cancelled", cancel_reason=CANCELLED_BY_HOST
            )
        self._changed(tournament_id)
        await self.games.stop_games(games)
        return row

    async def remove(
        self, tournament_id: int, actor_id: int, user_id: int, *, may_manage: bool = False
    ) -> TournamentRow:
        """Take a player out: before the start, their sign-up; after, they withdraw (their
        match of this round is lost, their opponent goes through)."""
        stopped: list[int] = []
        async with self.db.transaction() as conn:
            row = await locked_event(conn, tournament_id)
            authorise(row, actor_id, may_manage)
            players = {player.user_id: player for player in await players_of(conn, tournament_id)}
            player = players.get(user_id)
            if player is None:
                raise UserError(_("That player is not in this tournament."))
            name = escape(player.display_name)
            if row.status == "signup":
                await drop_player(conn, tournament_id, user_id)
                row = await save_event(conn, row, now=self.clock.now())
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
                row = await advance_event(
                    conn, row, core.withdraw(bracket, user_id), now=self.clock.now()
                )
        self._changed(tournament_id)
        await self.games.stop_games(stopped)
        if row.status == "running":
            await self.drive(tournament_id)
        return row

    async def drive(self, tournament_id: int) -> list[int]:
        """Start the games of the event's current round that have none (see
        ``TournamentGames.drive``); the ids of the sessions created."""
        return await self.games.drive(tournament_id)

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
        running = await save_event(
            conn, row, now=self.clock.now(), status="running", state=bracket.to_json()
        )
        return await advance_event(conn, running, bracket, now=self.clock.now())


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
