"""Reads of the ``sessions`` table for ``bot.sessions.SessionService`` (what it asks the
database beyond loading and moving one session)."""

from __future__ import annotations

from bot.storage.base import Database
from bot.storage.connection import Connection


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
