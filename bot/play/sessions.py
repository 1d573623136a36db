"""The session service: every move of every game is ONE transaction.

``act`` loads the session, lets the game's handler authorise and apply the action, saves
the new state with ``UPDATE ... WHERE version = ?``, appends the event log, replaces the
deadlines and records the result, then commits. Nothing is shown in Discord until after
the commit, so a failure anywhere leaves the session exactly as it was.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import random
import secrets
import socket
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from bot import i18n
from bot.ladder.results import record_result
from bot.model.clock import Clock
from bot.model.contract import (
    FRIENDS_LADDER,
    OPEN_STATUSES,
    Deadline,
    FollowUp,
    GameHandler,
    LoggedMove,
    MessageFields,
    NewSession,
    Outcome,
    Reach,
    Seat,
    Session,
    SessionStatus,
    ShowContext,
    Step,
    StepContext,
)
from bot.model.errors import FollowedUp, GameOver, SessionChanged, SessionNotFound, WrongMessage
from bot.model.guide import GuideBook
from bot.model.series import FOLLOW_UP_KEY
from bot.play.guild_settings import GuildSettings, load_guild_settings, stored_guild_settings
from bot.storage import Connection, Database
from bot.storage.deadlines import (
    claim_due,
    drop_claimed,
    next_claimable,
    take_claimed,
)
from bot.storage.move_writes import (
    MAX_NAME_LENGTH,
    MoveWrite,
)
from bot.storage.sessions import (
    event_log,
    insert_session,
    load_for_move,
    load_session,
    open_ids,
    open_session_for_player,
    open_session_ids,
    read_session,
    saved_session,
    store_message,
)

log = logging.getLogger(__name__)

__all__ = ["MAX_NAME_LENGTH", "SeedSource", "SessionService", "load_session", "message_link"]


class DeadlineGone(Exception):
    """The deadline being applied was replaced or already handled: nothing to do."""


# A session a move's end hook started in the move's transaction: its id, and what it is.
Started = tuple[int, NewSession]


class SessionEndHook(Protocol):
    """Told of every move that ends a session (finished or cancelled), inside the move's
    transaction: what depends on a game's end (a tournament's match) changes with it, or
    not at all. ``before_end`` runs before the move is written and may read, or write to
    take its locks (a write there also moves a PostgreSQL move tried outside a transaction
    into the locked one); ``after_end`` runs once the move and its result are written and
    returns the sessions it started (``SessionService.follow_up_in``). Both run in the
    database's thread on SQLite: they await nothing but ``conn``."""

    async def before_end(self, conn: Connection, write: MoveWrite) -> None: ...

    async def after_end(self, conn: Connection, write: MoveWrite) -> list[Started]: ...


class SeedSource:
    """Per-session seeds: secure by default, a repeatable sequence when seeded (tests)."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed) if seed is not None else None

    def next(self) -> int:
        if self._rng is None:
            return secrets.randbits(62)
        return self._rng.getrandbits(62)


def instance_name() -> str:
    """A name for this process, unique among the processes sharing a database."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def session_rng(session: Session) -> random.Random:
    # Seeded by the session and its version: replayable from the log, and a retried
    # transaction rolls exactly the same dice.
    return random.Random(f"{session.seed}:{session.version}")


class SessionService:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        defaults: GuildSettings,
        seeds: SeedSource | None = None,
        instance: str | None = None,
        guides: GuideBook | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.defaults = defaults
        self.seeds = seeds or SeedSource()
        # Who this process is, in the leases it takes on deadlines and message repairs.
        self.instance = instance or instance_name()
        self.handlers: dict[str, GameHandler] = {}
        # The games' guides, as the games register them (the bot's book): a finished game's
        # picks are counted where its guide says its summary keeps them.
        self.guides = guides if guides is not None else GuideBook()
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._deadline_listeners: list[Callable[[float], None]] = []
        self._commit_listeners: list[Callable[[Outcome], None]] = []
        self._end_hooks: list[SessionEndHook] = []

    # -- wiring ---------------------------------------------------------------------------

    def register(self, handler: GameHandler) -> None:
        self.handlers[handler.game] = handler
        speak_the_games_language(handler)

    def on_deadline_added(self, listener: Callable[[float], None]) -> None:
        """``listener(due_at)`` is told the earliest due time of timers a commit added.
        (Removed timers need no news: the loop finds out when it next looks.)"""
        self._deadline_listeners.append(listener)

    def on_commit(self, listener: Callable[[Outcome], None]) -> None:
        """``listener(outcome)`` is told of every committed move or cancel, right after the
        commit: the publisher shows it, whoever made it (a press, a timer, a command)."""
        self._commit_listeners.append(listener)

    def add_end_hook(self, hook: SessionEndHook) -> None:
        """``hook`` is told of every move that ends a session, in its transaction."""
        self._end_hooks.append(hook)

    def _notify_commit(self, outcome: Outcome) -> None:
        for listener in self._commit_listeners:
            try:
                listener(outcome)
            except Exception:
                # The move is committed; a listener's bug must not turn it into an error.
                log.exception("a commit listener failed for session %s", outcome.session.id)

    def deadlines_added(self, deadlines: Iterable[Deadline]) -> None:
        """Tell the deadline loop of timers stored outside ``create`` and ``act`` (a session
        another service inserted in its own transaction)."""
        self._notify_deadlines(deadlines)

    def _notify_deadlines(self, deadlines: Iterable[Deadline]) -> None:
        earliest = min((deadline.due_at for deadline in deadlines), default=None)
        if earliest is None:
            return
        for listener in self._deadline_listeners:
            listener(earliest)

    def _lock(self, session_id: int) -> asyncio.Lock:
        lock = self._locks.get(session_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[session_id] = lock
        return lock

    # -- reading --------------------------------------------------------------------------

    async def get(self, session_id: int) -> Session | None:
        return await read_session(self.db, session_id)

    async def require(self, session_id: int) -> Session:
        session = await self.get(session_id)
        if session is None:
            raise SessionNotFound()
        return session

    async def event_log(self, session_id: int) -> list[LoggedMove]:
        """The session's stored moves and their events, oldest first (for a replay)."""
        return await event_log(self.db, session_id)

    async def open_session_for(
        self, user_id: int, channel_id: int, game: str | None = None, *, include_left: bool = False
    ) -> Session | None:
        """The user's pending or active game in this channel, if any. A game they have left
        (their seat kept for the standings) counts only with ``include_left``."""
        async with self.db.read() as conn:
            return await open_session_for_player(conn, user_id, channel_id, game, include_left)

    async def open_sessions(self, game: str | None = None) -> list[Session]:
        sessions = [await self.get(session_id) for session_id in await open_ids(self.db, game)]
        return [session for session in sessions if session is not None]

    async def open_in_channel(
        self, channel_id: int, *, guild_id: int | None = None, game: str | None = None
    ) -> list[int]:
        """The ids of the open (pending or active) sessions in a channel, oldest first;
        only this server's with ``guild_id``, only one game's with ``game``."""
        return await open_session_ids(self.db, channel_id=channel_id, guild_id=guild_id, game=game)

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        async with self.db.read() as conn:
            return await load_guild_settings(conn, guild_id, self.defaults)

    # -- writing --------------------------------------------------------------------------

    async def create(
        self,
        *,
        game: str,
        guild_id: int,
        channel_id: int,
        created_by: int,
        seats: Sequence[Seat],
        state: dict[str, Any],
        status: SessionStatus = "pending",
        deadlines: Iterable[Deadline] = (),
        events: Sequence[dict[str, Any]] = (),
        exclusive: bool = True,
        reach: Reach = "member",
    ) -> Session:
        """Create a session. With ``exclusive``, a human seat who already has an open game
        in this channel makes it fail with AlreadyPlaying (one game per player per channel).
        A session reached through interactions only (``reach``) belongs to no server: it is
        stored under ``FRIENDS_LADDER`` with the default settings, and speaks the language
        of the player who created it (the interaction's, as the task speaks it)."""
        now = self.clock.now()
        if reach == "interaction":
            guild_id = FRIENDS_LADDER
        new = NewSession(
            seats=list(seats),
            state=state,
            status=status,
            deadlines=list(deadlines),
            events=list(events),
            exclusive=exclusive,
        )
        async with self.db.transaction() as conn:
            settings = await load_guild_settings(conn, guild_id, self.defaults)
            session_id = await insert_session(
                conn,
                new,
                game=game,
                guild_id=guild_id,
                channel_id=channel_id,
                created_by=created_by,
                seed=self.seeds.next(),
                now=now,
                # The server's chosen language, else the one its Discord settings name.
                language=(
                    i18n.current()
                    if reach == "interaction"
                    else settings.language or i18n.server_language()
                ),
                reach=reach,
            )
            session = await load_session(conn, session_id)
        assert session is not None
        self._notify_deadlines(new.deadlines)
        return session

    async def follow_up(
        self,
        previous_id: int,
        actor_id: int,
        action: dict[str, Any],
        *,
        on_message: int | None = None,
    ) -> FollowUp:
        """Start the session that follows a finished one (a rematch, a match's next game, a
        new table for the same players) as ONE transaction: the game's handler says what
        the new session is (``follow_up(ctx, action)``, refusing with a UserError), it is
        created (one open game per player per channel, as ever), and the finished session
        stores its id (``state["follow_up"]``, a new version, so its message is shown again
        without the button). A finished session has one follow-up: a second press, from
        anyone, any process, gets FollowedUp naming it, and nothing changes."""
        async with self._lock(previous_id), self.db.transaction() as conn:
            previous = await load_session(conn, previous_id, lock=True)
            if previous is None:
                raise SessionNotFound()
            if (
                on_message is not None
                and previous.message_id is not None
                and on_message != previous.message_id
            ):
                raise WrongMessage(message_link(previous))
            session_id, new, write = await self.follow_up_in(conn, previous, actor_id, action)
            session = await load_session(conn, session_id)
        assert session is not None
        self._notify_deadlines(new.deadlines)
        outcome = Outcome(
            session=saved_session(write),
            previous=previous,
            events=write.step.events,
            action=action,
            actor_id=actor_id,
        )
        self._notify_commit(outcome)
        return FollowUp(session=session, new=new, previous=outcome)

    async def follow_up_in(
        self, conn: Connection, previous: Session, actor_id: int, action: dict[str, Any]
    ) -> tuple[int, NewSession, MoveWrite]:
        """``follow_up``'s work in an open transaction, ``previous`` locked (or just written
        by it): the new session's id, what it is, and the finished session's new version
        that names it."""
        handler = self.handlers.get(previous.game)
        follow = getattr(handler, "follow_up", None)
        if handler is None or follow is None:
            raise SessionNotFound()
        existing = previous.state.get(FOLLOW_UP_KEY)
        if isinstance(existing, int) and previous.seat_of(actor_id) is not None:
            raise FollowedUp(existing)
        settings = await load_guild_settings(conn, previous.guild_id, self.defaults)
        now = self.clock.now()
        ctx = StepContext(
            session=previous,
            actor_id=actor_id,
            now=now,
            rng=session_rng(previous),
            guild_settings=settings,
        )
        new: NewSession = follow(ctx, action)
        if isinstance(existing, int):
            raise FollowedUp(existing)
        session_id = await insert_session(
            conn,
            new,
            game=previous.game,
            guild_id=previous.guild_id,
            channel_id=previous.channel_id,
            created_by=actor_id,
            seed=self.seeds.next(),
            now=now,
            language=previous.language,
            reach=previous.reach,
        )
        step = Step(
            state={**previous.state, FOLLOW_UP_KEY: session_id},
            events=[{"type": "followed_up", "session": session_id, "by": actor_id}],
            status=previous.status,
        )
        write = MoveWrite(previous, step, actor_id, action, now)
        await self.db.write_move(conn, write)
        return session_id, new, write

    async def set_message(
        self, session_id: int, message_id: int, shown_version: int | None = None
    ) -> None:
        """Remember the session's public message and, when given, the version it shows
        (and the message of its result, if the game ended before its id was stored)."""
        await store_message(self.db, session_id, message_id, shown_version)

    async def act(
        self,
        session_id: int,
        actor_id: int | None,
        action: dict[str, Any],
        *,
        expected_version: int | None = None,
        deadline_id: int | None = None,
        on_message: int | None = None,
    ) -> Outcome:
        """Apply one action as one transaction.

        Raises the handler's IllegalMove / UserError (nothing changed), SessionNotFound,
        GameOver, SessionChanged (``expected_version`` was stale, or the row moved under us),
        DeadlineGone (``deadline_id`` no longer exists) or WrongMessage (``on_message``, the
        message a public control was pressed on, is not the session's message).
        """
        async with self._lock(session_id):
            write, result_id, started = await self.db.run_transaction(
                functools.partial(
                    self._move,
                    session_id=session_id,
                    actor_id=actor_id,
                    action=action,
                    expected_version=expected_version,
                    deadline_id=deadline_id,
                    on_message=on_message,
                )
            )
        previous, step = write.previous, write.step
        session = saved_session(write)
        if step.deadlines and session.status in OPEN_STATUSES:
            self._notify_deadlines(step.deadlines)
        for _started_id, new in started:
            self._notify_deadlines(new.deadlines)
        outcome = Outcome(
            session=session,
            previous=previous,
            events=step.events,
            action=action,
            actor_id=actor_id,
            result_id=result_id,
        )
        self._notify_commit(outcome)
        return outcome

    async def _move(
        self,
        conn: Connection,
        *,
        session_id: int,
        actor_id: int | None,
        action: dict[str, Any],
        expected_version: int | None,
        deadline_id: int | None,
        on_message: int | None,
    ) -> tuple[MoveWrite, int | None, list[Started]]:
        """The move's transaction (``act``): database work and the game's pure step only,
        so that an adapter may run it in one trip (``Database.run_transaction``)."""
        # The session row first (locked on PostgreSQL), then its deadline: every move
        # takes its locks in that order, so two never wait for each other in a circle.
        previous, overrides = await load_for_move(conn, session_id)
        if previous is None:
            raise SessionNotFound()
        # Whoever deletes the deadline fires it: another process firing it at the same
        # moment waits for the session row, then finds the deadline gone. Only the row this
        # process claimed: one another process claimed since (this process's lease ran out)
        # is that process's to fire.
        if deadline_id is not None and not await take_claimed(
            conn, deadline_id, session_id, owner=self.instance
        ):
            raise DeadlineGone()
        if (
            on_message is not None
            and previous.message_id is not None
            and on_message != previous.message_id
        ):
            raise WrongMessage(message_link(previous))
        if previous.status not in OPEN_STATUSES:
            raise GameOver()
        if expected_version is not None and expected_version != previous.version:
            raise SessionChanged()
        handler = self.handlers.get(previous.game)
        if handler is None:
            raise SessionNotFound()
        settings = stored_guild_settings(overrides, previous.guild_id, self.defaults)
        now = self.clock.now()
        ctx = StepContext(
            session=previous,
            actor_id=actor_id,
            now=now,
            rng=session_rng(previous),
            guild_settings=settings,
        )
        write = MoveWrite(previous, handler.step(ctx, action), actor_id, action, now)
        ending = write.step.status not in OPEN_STATUSES
        if ending:
            for hook in self._end_hooks:
                await hook.before_end(conn, write)
        await self.db.write_move(conn, write)
        result_id = await _record_result(conn, write, self.guides.picks_key(previous.game))
        started: list[Started] = []
        if ending:
            for hook in self._end_hooks:
                started.extend(await hook.after_end(conn, write))
        return write, result_id, started

    async def cancel(self, session_id: int, actor_id: int | None, reason: str) -> Outcome:
        """End an open session without a result (declined, expired, stopped by an admin)."""
        async with self._lock(session_id), self.db.transaction() as conn:
            previous = await load_session(conn, session_id, lock=True)
            if previous is None:
                raise SessionNotFound()
            if previous.status not in OPEN_STATUSES:
                raise GameOver()
            now = self.clock.now()
            step = Step(
                state=previous.state,
                events=[{"type": "cancelled", "reason": reason}],
                status="cancelled",
            )
            action = {"type": "cancel", "reason": reason}
            write = MoveWrite(previous, step, actor_id, action, now)
            for hook in self._end_hooks:
                await hook.before_end(conn, write)
            await self.db.write_move(conn, write)
            started = [
                made for hook in self._end_hooks for made in await hook.after_end(conn, write)
            ]
        for _started_id, new in started:
            self._notify_deadlines(new.deadlines)
        session = saved_session(write)
        outcome = Outcome(
            session=session,
            previous=previous,
            events=step.events,
            action=action,
            actor_id=actor_id,
        )
        self._notify_commit(outcome)
        return outcome

    # -- deadlines ------------------------------------------------------------------------
    #
    # Any process may fire any deadline. A runner first CLAIMS the due ones for a short
    # lease (skipping rows another process is claiming right now, on PostgreSQL), then
    # fires each as a move whose transaction deletes the deadline row: whoever deletes it
    # applies it, so a deadline fires once even if a lease ran out under a slow process.
    # A process that dies holding claims loses them when the lease ends.

    async def claim_due_deadlines(
        self, *, lease_seconds: float, limit: int
    ) -> list[tuple[int, int, float, dict[str, Any]]]:
        """Claim up to ``limit`` due deadlines for this process: (id, session id, due at,
        action), earliest first. Deadlines this process claimed before (a firing that
        failed) are claimed again at once; another process's, when its lease is over."""
        return await claim_due(
            self.db,
            owner=self.instance,
            now=self.clock.now(),
            lease_seconds=lease_seconds,
            limit=limit,
        )

    async def next_deadline(self) -> tuple[int, int, float, dict[str, Any]] | None:
        """The deadline this process could claim first: (id, session id, when, action),
        where ``when`` is its due time, or the end of another process's claim on it."""
        return await next_claimable(self.db, owner=self.instance)

    async def drop_deadline(self, deadline_id: int) -> None:
        """Drop a claimed deadline the game refused: only the row this process claimed
        (never a timer a move put in its place)."""
        await drop_claimed(self.db, deadline_id, owner=self.instance)


async def _record_result(conn: Connection, write: MoveWrite, picks_key: str | None) -> int | None:
    """The result and ratings of a game the move ended, in the move's transaction, and the
    picks its summary keeps under ``picks_key``; the result's id (None for a move that ended
    nothing)."""
    step = write.step
    if step.result is None:
        return None
    seats = step.seats if step.seats is not None else list(write.previous.seats)
    return await record_result(
        conn,
        session=write.previous,
        seats=seats,
        result=step.result,
        summary=step.summary,
        now=write.now,
        picks_key=picks_key,
    )


def message_link(session: Session) -> str | None:
    """A link to the session's public message, if it has one (and a server: a game reached
    only through interactions stores none, so its link could not be made)."""
    if session.message_id is None or session.reach == "interaction":
        return None
    return (
        f"https://discord.com/channels/{session.guild_id}/{session.channel_id}/{session.message_id}"
    )


def speak_the_games_language(handler: GameHandler) -> None:
    """Make every render of the handler's public message, whoever asks for it (the
    publisher, a command posting a new game, a press answering with the board), speak the
    game's language rather than the language of the player whose interaction it runs in.
    An instance attribute shadows the method, so the handler's own ``self.render`` calls
    are covered too."""
    original = getattr(handler, "render", None)
    if original is None or getattr(original, "speaks_the_games_language", False):
        return  # a handler without a message (the storage tests' counter game)

    @functools.wraps(original)
    async def render(session: Session, context: ShowContext) -> MessageFields:
        with i18n.use(session.language):
            return await original(session, context)

    render.speaks_the_games_language = True  # type: ignore[attr-defined]
    handler.render = render  # type: ignore[method-assign]
