"""The ``sessions`` table for ``bot.play.sessions.SessionService``: a new session's rows, a
session read back with its seats (one statement), the session as a move stored it, and
the lookups the service asks for."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot import i18n
from bot.model.contract import LoggedMove, NewSession, Reach, Seat, Session
from bot.storage.base import Database
from bot.storage.connection import Connection
from bot.storage.migrations import Dialect
from bot.storage.move_writes import (
    MoveWrite,
    claim_channel,
    dumps,
    loads,
    replace_deadlines,
    stored_seats,
    write_seats,
)


async def open_session_ids(
    db: Database | Connection,
    *,
    channel_id: int,
    guild_id: int | None = None,
    game: str | None = None,
) -> list[int]:
    """The ids of the open (pending or active) sessions in a channel, oldest first; only
    this server's with ``guild_id``, only one game's with ``game``."""
    sql = "SELECT id FROM sessions WHERE channel_id = ?"
    params: tuple[object, ...] = (channel_id,)
    if guild_id is not None:
        sql += " AND guild_id = ?"
        params += (guild_id,)
    if game is not None:
        sql += " AND game = ?"
        params += (game,)
    rows = await db.fetch_all(sql + " AND status IN ('pending', 'active') ORDER BY id", params)
    return [int(row["id"]) for row in rows]


async def insert_session(
    conn: Connection,
    new: NewSession,
    *,
    game: str,
    guild_id: int,
    channel_id: int,
    created_by: int,
    seed: int,
    now: float,
    language: str = i18n.ENGLISH,
    reach: Reach = "member",
) -> int:
    """Store a new session (row, seats, busy players, first event, timers) in the open
    transaction; returns its id. Raises AlreadyPlaying (``new.exclusive``) when a human
    seat already has an open game in the channel."""
    session_id = await conn.fetch_value(
        "INSERT INTO sessions (game, guild_id, channel_id, status, state, version,"
        " seed, created_by, created_at, updated_at, language, reach)"
        " VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            game,
            guild_id,
            channel_id,
            new.status,
            dumps(new.state),
            seed,
            created_by,
            now,
            now,
            language,
            reach,
        ),
    )
    assert isinstance(session_id, int)
    await write_seats(conn, session_id, new.seats)
    if new.exclusive:
        await claim_channel(conn, session_id, channel_id, new.seats, created_by)
    await conn.execute(
        "INSERT INTO events (session_id, version, actor_id, action, events, created_at)"
        " VALUES (?, 0, ?, ?, ?, ?)",
        (session_id, created_by, dumps({"type": "create"}), dumps(list(new.events)), now),
    )
    await replace_deadlines(conn, session_id, new.deadlines)
    return session_id


def saved_session(write: MoveWrite) -> Session:
    """The session exactly as ``write_move`` stored it, without reading it back."""
    previous, step = write.previous, write.step
    return replace(
        previous,
        # Through JSON, so the caller sees what a later load would (lists, not tuples).
        state=loads(write.state_text),
        status=step.status,
        version=previous.version + 1,
        updated_at=write.now,
        seats=previous.seats if step.seats is None else tuple(stored_seats(step.seats)),
    )


# A session's row with its seats, as one statement: the seats as a JSON array of [seat,
# user_id, display_name, is_ai, has_left] (``session_from``).
_SEATS_JSON = {
    "sqlite": "(SELECT json_group_array(json_array(p.seat, p.user_id, p.display_name, p.is_ai,"
    " p.has_left)) FROM session_players p WHERE p.session_id = s.id)",
    "postgresql": "(SELECT json_agg(json_build_array(p.seat, p.user_id, p.display_name,"
    " p.is_ai, p.has_left)) FROM session_players p WHERE p.session_id = s.id)",
}
_SETTINGS = "(SELECT g.settings FROM guild_settings g WHERE g.guild_id = s.guild_id)"


def session_columns(dialect: Dialect) -> str:
    """What ``session_from`` reads, for ``SELECT ... FROM sessions s``."""
    return f"s.*, {_SEATS_JSON[dialect]} AS seat_list"


async def load_session(conn: Connection, session_id: int, *, lock: bool = False) -> Session | None:
    """The stored session; ``lock`` (in a move's transaction) holds its row until the
    commit, so that moves on one session take turns in every process."""
    row = await conn.fetch_one(
        f"SELECT {session_columns(conn.dialect)} FROM sessions s WHERE s.id = ?"
        + (conn.for_update if lock else ""),
        (session_id,),
    )
    return None if row is None else session_from(row)


async def load_for_move(conn: Connection, session_id: int) -> tuple[Session | None, str | None]:
    """The session, its row locked (``load_session(lock=True)``), and its server's stored
    settings (``guild_settings.settings``), in one statement."""
    row = await conn.fetch_one(
        f"SELECT {session_columns(conn.dialect)}, {_SETTINGS} AS guild_overrides"
        " FROM sessions s WHERE s.id = ?" + conn.for_update,
        (session_id,),
    )
    if row is None:
        return None, None
    return session_from(row), row["guild_overrides"]


def session_from(row: Any) -> Session:
    """A Session from a row of ``session_columns``."""
    seats = sorted(loads(row["seat_list"] or "[]"))
    return Session(
        id=row["id"],
        game=row["game"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        message_id=row["message_id"],
        status=row["status"],
        state=loads(row["state"]),
        version=row["version"],
        seed=row["seed"],
        created_by=row["created_by"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        shown_version=row["shown_version"],
        language=row["language"],
        reach="interaction" if row["reach"] == "interaction" else "member",
        seats=tuple(
            Seat(
                seat=seat,
                user_id=user_id,
                display_name=display_name,
                is_ai=bool(is_ai),
                has_left=bool(has_left),
            )
            for seat, user_id, display_name, is_ai, has_left in seats
        ),
    )


async def open_session_for_player(
    conn: Connection,
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
    found = await conn.fetch_value(sql + " ORDER BY s.id DESC LIMIT 1", params)
    return await load_session(conn, found) if found is not None else None


async def read_session(db: Database, session_id: int) -> Session | None:
    """The stored session, as one statement: one snapshot, one trip, no read block."""
    row = await db.fetch_one(
        f"SELECT {session_columns(db.dialect)} FROM sessions s WHERE s.id = ?", (session_id,)
    )
    return None if row is None else session_from(row)


async def open_ids(db: Database, game: str | None = None) -> list[int]:
    """The ids of every open (pending or active) session, of one game with ``game``."""
    sql = "SELECT id FROM sessions WHERE status IN ('pending', 'active')"
    params: tuple[object, ...] = ()
    if game is not None:
        sql += " AND game = ?"
        params = (game,)
    rows = await db.fetch_all(sql + " ORDER BY id", params)
    return [int(row["id"]) for row in rows]


async def store_message(
    db: Database, session_id: int, message_id: int, shown_version: int | None
) -> None:
    """The session's public message and, when given, the version it shows (never lower),
    and its result's message if the game ended before the id was stored: one transaction."""
    shown = shown_version if shown_version is not None else -1
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE sessions SET message_id = ?,"
            " shown_version = CASE WHEN ? > shown_version THEN ? ELSE shown_version END"
            " WHERE id = ?",
            (message_id, shown, shown, session_id),
        )
        await conn.execute(
            "UPDATE results SET message_id = ? WHERE session_id = ? AND message_id IS NULL",
            (message_id, session_id),
        )


async def event_log(db: Database, session_id: int) -> list[LoggedMove]:
    """A session's event log, oldest first, as one statement (a replay folds it)."""
    rows = await db.fetch_all(
        "SELECT version, actor_id, action, events, created_at FROM events"
        " WHERE session_id = ? ORDER BY version",
        (session_id,),
    )
    return [
        LoggedMove(
            version=int(row["version"]),
            actor_id=None if row["actor_id"] is None else int(row["actor_id"]),
            action=loads(row["action"]),
            events=list(loads(row["events"])),
            created_at=float(row["created_at"]),
        )
        for row in rows
    ]
