"""The seasons' tables for ``bot.ladder.seasons``: ``season_current`` (the season running, per
server and game; its row is the season lock) and ``seasons`` (every closed season).
Which season is current, and what closing one means, is ``bot.ladder.seasons``'s."""

from __future__ import annotations

from typing import NamedTuple

from bot.storage.base import Database
from bot.storage.connection import Connection, Row


class CurrentRow(NamedTuple):
    """A ``season_current`` row: the season running now."""

    number: int
    name: str
    started_at: float


class ClosedRow(NamedTuple):
    """A ``seasons`` row: a closed season."""

    guild_id: int
    game: str
    number: int
    name: str
    started_at: float
    ended_at: float
    closed_by: int
    provisional_games: int


_CLOSED_COLUMNS = "guild_id, game, number, name, started_at, ended_at, closed_by, provisional_games"


async def lock_current(conn: Connection, guild_id: int, game: str, now: float) -> int:
    """The number of the season running now, its ``season_current`` row locked until the
    caller's transaction ends (an upsert, so created as season 1 the first time)."""
    number = await conn.fetch_value(
        "INSERT INTO season_current (guild_id, game, number, name, started_at)"
        " VALUES (?, ?, 1, '', ?) ON CONFLICT (guild_id, game)"
        " DO UPDATE SET number = season_current.number RETURNING number",
        (guild_id, game, now),
    )
    assert isinstance(number, int)
    return number


async def read_current(db: Database | Connection, guild_id: int, game: str) -> CurrentRow | None:
    """The ``season_current`` row of one game here; None if it has none yet."""
    row = await db.fetch_one(
        "SELECT number, name, started_at FROM season_current WHERE guild_id = ? AND game = ?",
        (guild_id, game),
    )
    return None if row is None else CurrentRow(row["number"], row["name"], row["started_at"])


def _closed(row: Row) -> ClosedRow:
    return ClosedRow(*(row[name] for name in ClosedRow._fields))


async def read_closed(db: Database, guild_id: int, game: str, number: int) -> ClosedRow | None:
    """Closed season ``number`` of one game here; None if there is none."""
    row = await db.fetch_one(
        f"SELECT {_CLOSED_COLUMNS} FROM seasons WHERE guild_id = ? AND game = ? AND number = ?",
        (guild_id, game, number),
    )
    return None if row is None else _closed(row)


async def list_closed(db: Database, guild_id: int, game: str, limit: int) -> list[ClosedRow]:
    """One game's closed seasons here, newest first, at most ``limit``."""
    rows = await db.fetch_all(
        f"SELECT {_CLOSED_COLUMNS} FROM seasons WHERE guild_id = ? AND game = ?"
        " ORDER BY number DESC LIMIT ?",
        (guild_id, game, limit),
    )
    return [_closed(row) for row in rows]


async def add_closed(conn: Connection, season: ClosedRow) -> None:
    """Keep a closed season (in the transaction that closes it)."""
    await conn.execute(
        f"INSERT INTO seasons ({_CLOSED_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        tuple(season),
    )


async def start_next(
    conn: Connection, guild_id: int, game: str, *, number: int, name: str, now: float
) -> None:
    """Move ``season_current`` on to season ``number``, named ``name``, starting ``now``."""
    await conn.execute(
        "UPDATE season_current SET number = ?, name = ?, started_at = ?"
        " WHERE guild_id = ? AND game = ?",
        (number, name, now, guild_id, game),
    )
