"""The session service: every move of every game is ONE transaction.

``act`` loads the session, lets the game's handler authorise and apply the action, saves
the new state with ``UPDATE ... WHERE version = ?``, appends the event log, replaces the
deadlines and records the result, then commits. Nothing is shown in Discord until after
the commit, so a failure anywhere leaves the session exactly as it was.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

import aiosqlite

from bot.clock import Clock
from bot.errors import (
    AlreadyPlaying,
    GameOver,
    SessionChanged,
    SessionNotFound,
    WrongMessage,
)
from bot.games import (
    OPEN_STATUSES,
    Deadline,
    GameHandler,
    Outcome,
    Seat,
    Session,
    SessionStatus,
    Step,
    StepContext,
)
from bot.guild_settings import GuildSettings, load_guild_settings
from bot.results import record_result
from bot.storage import Database
from bot.text import escape

log = logging.getLogger(__name__)

MAX_NAME_LENGTH = 100


class DeadlineGone(Exception):
    """The deadline being applied was replaced or already handled: nothing to do."""


class SeedSource:
    """Per-session seeds: secure by default, a repeatable sequence when seeded (tests)."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed) if seed is not None else None

    def next(self) -> int:
        if self._rng is None:
            return secrets.randbits(62)
        return self._rng.getrandbits(62)


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
    ) -> None:
        self.db = db
        self.clock = clock
        self.defaults = defaults
        self.seeds = seeds or SeedSource()
        self.handlers: dict[str, GameHandler] = {}
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._deadline_listeners: list[Callable[[float], None]] = []
        self._commit_listeners: list[Callable[[Outcome], None]] = []

    # -- wiring ---------------------------------------------------------------------------

    def register(self, handler: GameHandler) -> None:
        self.handlers[handler.game] = handler

    def on_deadline_added(self, listener: Callable[[float], None]) -> None:
        """``listener(due_at)`` is told the earliest due time of timers a commit added.
        (Removed timers need no news: the loop finds out when it next looks.)"""
        self._deadline_listeners.append(listener)

    def on_commit(self, listener: Callable[[Outcome], None]) -> None:
        """``listener(outcome)`` is told of every committed move or cancel, right after the
        commit: the publisher shows it, whoever made it (a press, a timer, a command)."""
        self._commit_listeners.append(listener)

    def _notify_commit(self, outcome: Outcome) -> None:
        for listener in self._commit_listeners:
            try:
                listener(outcome)
            except Exception:
                # The move is committed; a listener's bug must not turn it into an error.
                log.exception("a commit listener failed for session %s", outcome.session.id)

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
        async with self.db.read() as conn:
            return await load_session(conn, session_id)

    async def require(self, session_id: int) -> Session:
        session = await self.get(session_id)
        if session is None:
            raise SessionNotFound()
        return session

    async def open_session_for(
        self, user_id: int, channel_id: int, game: str | None = None, *, include_left: bool = False
    ) -> Session | None:
        """The user's pending or active game in this channel, if any. A game they have left
        (their seat kept for the standings) counts only with ``include_left``."""
        async with self.db.read() as conn:
            return await _open_session_for(conn, user_id, channel_id, game, include_left)

    async def open_sessions(self, game: str | None = None) -> list[Session]:
        sql = "SELECT id FROM sessions WHERE status IN ('pending', 'active')"
        params: tuple[object, ...] = ()
        if game is not None:
            sql += " AND game = ?"
            params = (game,)
        rows = await self.db.fetch_all(sql + " ORDER BY id", params)
        sessions = [await self.get(row["id"]) for row in rows]
        return [session for session in sessions if session is not None]

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
    ) -> Session:
        """Create a session. With ``exclusive``, a human seat who already has an open game
        in this channel makes it fail with AlreadyPlaying (one game per player per channel)."""
        now = self.clock.now()
        deadline_list = list(deadlines)
        async with self.db.transaction() as conn:
            cursor = await conn.execute(
                "INSERT INTO sessions (game, guild_id, channel_id, status, state, version,"
                " seed, created_by, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)",
                (
                    game,
                    guild_id,
                    channel_id,
                    status,
                    _dumps(state),
                    self.seeds.next(),
                    created_by,
                    now,
                    now,
                ),
            )
            session_id = cursor.lastrowid
            assert session_id is not None
            await _write_seats(conn, session_id, seats)
            if exclusive:
                await _claim_channel(conn, session_id, channel_id, seats, created_by)
            await conn.execute(
                "INSERT INTO events (session_id, version, actor_id, action, events, created_at)"
                " VALUES (?, 0, ?, ?, ?, ?)",
                (session_id, created_by, _dumps({"type": "create"}), _dumps(list(events)), now),
            )
            await _replace_deadlines(conn, session_id, deadline_list)
            session = await load_session(conn, session_id)
        assert session is not None
        self._notify_deadlines(deadline_list)
        return session

    async def set_message(
        self, session_id: int, message_id: int, shown_version: int | None = None
    ) -> None:
        """Remember the session's public message and, when given, the version it shows."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE sessions SET message_id = ?,"
                " shown_version = CASE WHEN ? > shown_version THEN ? ELSE shown_version END"
                " WHERE id = ?",
                (
                    message_id,
                    shown_version if shown_version is not None else -1,
                    shown_version if shown_version is not None else -1,
                    session_id,
                ),
            )

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
        async with self._lock(session_id), self.db.transaction() as conn:
            previous = await load_session(conn, session_id)
            if previous is None:
                raise SessionNotFound()
            if deadline_id is not None:
                cursor = await conn.execute(
                    "DELETE FROM deadlines WHERE id = ? AND session_id = ?",
                    (deadline_id, session_id),
                )
                if cursor.rowcount == 0:
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
            settings = await load_guild_settings(conn, previous.guild_id, self.defaults)
            now = self.clock.now()
            ctx = StepContext(
                session=previous,
                actor_id=actor_id,
                now=now,
                rng=session_rng(previous),
                guild_settings=settings,
            )
            step = handler.step(ctx, action)
            result_id = await self._save(conn, previous, step, actor_id, action, now)
        session = _saved(previous, step, now)
        if step.deadlines and session.status in OPEN_STATUSES:
            self._notify_deadlines(step.deadlines)
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

    async def _save(
        self,
        conn: aiosqlite.Connection,
        previous: Session,
        step: Step,
        actor_id: int | None,
        action: dict[str, Any],
        now: float,
    ) -> int | None:
        new_version = previous.version + 1
        cursor = await conn.execute(
            "UPDATE sessions SET state = ?, status = ?, version = ?, updated_at = ?"
            " WHERE id = ? AND version = ?",
            (_dumps(step.state), step.status, new_version, now, previous.id, previous.version),
        )
        if cursor.rowcount != 1:
            raise SessionChanged()
        if step.seats is not None:
            await conn.execute("DELETE FROM session_players WHERE session_id = ?", (previous.id,))
            await _write_seats(conn, previous.id, step.seats)
            if step.status in OPEN_STATUSES:
                await _reclaim_channel(conn, previous, step.seats, actor_id)
        if step.status not in OPEN_STATUSES:
            await conn.execute("DELETE FROM busy_players WHERE session_id = ?", (previous.id,))
        await conn.execute(
            "INSERT INTO events (session_id, version, actor_id, action, events, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (previous.id, new_version, actor_id, _dumps(action), _dumps(step.events), now),
        )
        if step.status not in OPEN_STATUSES:
            await _replace_deadlines(conn, previous.id, [])
        elif step.deadlines is not None:
            await _replace_deadlines(conn, previous.id, step.deadlines)
        if step.result is None:
            return None
        seats = step.seats if step.seats is not None else list(previous.seats)
        return await record_result(
            conn,
            session=previous,
            seats=seats,
            result=step.result,
            summary=step.summary,
            now=now,
        )

    async def cancel(self, session_id: int, actor_id: int | None, reason: str) -> Outcome:
        """End an open session without a result (declined, expired, stopped by an admin)."""
        async with self._lock(session_id), self.db.transaction() as conn:
            previous = await load_session(conn, session_id)
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
            await self._save(conn, previous, step, actor_id, action, now)
        session = _saved(previous, step, now)
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

    async def next_deadline(self) -> tuple[int, int, float, dict[str, Any]] | None:
        row = await self.db.fetch_one(
            "SELECT id, session_id, due_at, action FROM deadlines ORDER BY due_at, id LIMIT 1"
        )
        if row is None:
            return None
        return row["id"], row["session_id"], row["due_at"], json.loads(row["action"])

    async def drop_deadline(self, deadline_id: int) -> None:
        async with self.db.transaction() as conn:
            await conn.execute("DELETE FROM deadlines WHERE id = ?", (deadline_id,))


def message_link(session: Session) -> str | None:
    """A link to the session's public message, if it has one."""
    if session.message_id is None:
        return None
    return (
        f"https://discord.com/channels/{session.guild_id}/{session.channel_id}/{session.message_id}"
    )


# -- row helpers ----------------------------------------------------------------------------


def _saved(previous: Session, step: Step, now: float) -> Session:
    """The session exactly as ``_save`` stored it, without reading it back."""
    return replace(
        previous,
        # Through JSON, so the caller sees what a later load would (lists, not tuples).
        state=json.loads(_dumps(step.state)),
        status=step.status,
        version=previous.version + 1,
        updated_at=now,
        seats=previous.seats if step.seats is None else tuple(_stored_seats(step.seats)),
    )


def _stored_seats(seats: Iterable[Seat]) -> list[Seat]:
    return sorted(
        (replace(seat, display_name=seat.display_name[:MAX_NAME_LENGTH]) for seat in seats),
        key=lambda seat: seat.seat,
    )


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


async def _write_seats(conn: aiosqlite.Connection, session_id: int, seats: Iterable[Seat]) -> None:
    await conn.executemany(
        "INSERT INTO session_players"
        " (session_id, seat, user_id, display_name, is_ai, has_left)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [
            (
                session_id,
                seat.seat,
                seat.user_id,
                seat.display_name,
                int(seat.is_ai),
                int(seat.has_left),
            )
            for seat in _stored_seats(seats)
        ],
    )


def _playing(seats: Iterable[Seat]) -> dict[int, Seat]:
    """The human seats that count as busy in the channel (not the AI, not those who left)."""
    return {seat.user_id: seat for seat in seats if not seat.is_ai and not seat.has_left}


async def _claim_channel(
    conn: aiosqlite.Connection,
    session_id: int,
    channel_id: int,
    seats: Iterable[Seat],
    actor_id: int | None,
) -> None:
    """Mark the seats' players busy in the channel, or raise AlreadyPlaying. The primary key
    of busy_players makes this hold however many lobbies are joined at the same moment."""
    for user_id, seat in _playing(seats).items():
        cursor = await conn.execute(
            "INSERT INTO busy_players (channel_id, user_id, session_id) VALUES (?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            (channel_id, user_id, session_id),
        )
        if cursor.rowcount == 1:
            continue
        rows = list(
            await conn.execute_fetchall(
                "SELECT s.game FROM busy_players b JOIN sessions s ON s.id = b.session_id"
                " WHERE b.channel_id = ? AND b.user_id = ?",
                (channel_id, user_id),
            )
        )
        game = rows[0][0] if rows else "another game"
        who = (
            "You already have"
            if user_id == actor_id
            else f"{escape(seat.display_name)} already has"
        )
        raise AlreadyPlaying(
            f"{who} a game open in this channel ({game}). Finish or forfeit it first, or play "
            "in another channel."
        )


async def _reclaim_channel(
    conn: aiosqlite.Connection, previous: Session, seats: Iterable[Seat], actor_id: int | None
) -> None:
    """The seats changed (a join, a leave): free those who left, claim those who came."""
    before = _playing(previous.seats)
    after = _playing(seats)
    for user_id in before.keys() - after.keys():
        await conn.execute(
            "DELETE FROM busy_players WHERE channel_id = ? AND user_id = ? AND session_id = ?",
            (previous.channel_id, user_id, previous.id),
        )
    arrived = [seat for user_id, seat in after.items() if user_id not in before]
    if arrived:
        await _claim_channel(conn, previous.id, previous.channel_id, arrived, actor_id)


async def _replace_deadlines(
    conn: aiosqlite.Connection, session_id: int, deadlines: Sequence[Deadline]
) -> None:
    await conn.execute("DELETE FROM deadlines WHERE session_id = ?", (session_id,))
    await conn.executemany(
        "INSERT INTO deadlines (session_id, kind, due_at, action) VALUES (?, ?, ?, ?)",
        [(session_id, d.kind, d.due_at, _dumps(d.action)) for d in deadlines],
    )


async def load_session(conn: aiosqlite.Connection, session_id: int) -> Session | None:
    # execute_fetchall: one trip to the database thread per query instead of three
    # (execute, fetch, close); this runs inside every move's transaction.
    rows = list(await conn.execute_fetchall("SELECT * FROM sessions WHERE id = ?", (session_id,)))
    if not rows:
        return None
    row = rows[0]
    seat_rows = await conn.execute_fetchall(
        "SELECT seat, user_id, display_name, is_ai, has_left FROM session_players"
        " WHERE session_id = ? ORDER BY seat",
        (session_id,),
    )
    return Session(
        id=row["id"],
        game=row["game"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        message_id=row["message_id"],
        status=row["status"],
        state=json.loads(row["state"]),
        version=row["version"],
        seed=row["seed"],
        created_by=row["created_by"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        shown_version=row["shown_version"],
        seats=tuple(
            Seat(
                seat=r["seat"],
                user_id=r["user_id"],
                display_name=r["display_name"],
                is_ai=bool(r["is_ai"]),
                has_left=bool(r["has_left"]),
            )
            for r in seat_rows
        ),
    )


async def _open_session_for(
    conn: aiosqlite.Connection,
    user_id: int,
    channel_id: int,
    game: str | None,
    include_left: bool = False,
) -> Session | None:
    sql = (
        "SELECT s.id FROM sessions s JOIN session_players p ON p.session_id = s.id"
        " WHERE p.user_id = ? AND p.is_ai = 0 AND s.channel_id = ?"
        " AND s.status IN ('pending', 'active')"
    )
    if not include_left:
        sql += " AND p.has_left = 0"
    params: tuple[object, ...] = (user_id, channel_id)
    if game is not None:
        sql += " AND s.game = ?"
        params += (game,)
    rows = list(await conn.execute_fetchall(sql + " ORDER BY s.id DESC LIMIT 1", params))
    return await load_session(conn, rows[0][0]) if rows else None
