"""Per-server settings (``guild_settings``): each server's overrides of the defaults, one
JSON text per server. ``bot.play.guild_settings`` reads them into ``GuildSettings``."""

from __future__ import annotations

from bot.storage.connection import Connection


async def stored_settings(conn: Connection, guild_id: int, *, lock: bool = False) -> str | None:
    """The server's stored overrides (JSON), None if it has none; ``lock`` (in a write
    transaction) holds its row until the commit, for a change read-modify-written."""
    stored = await conn.fetch_value(
        "SELECT settings FROM guild_settings WHERE guild_id = ?"
        + (conn.for_update if lock else ""),
        (guild_id,),
    )
    return None if stored is None else str(stored)


async def save_settings(conn: Connection, guild_id: int, settings: str, now: float) -> None:
    """Store the server's overrides (JSON), replacing those it had."""
    await conn.execute(
        "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, ?, ?)"
        " ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings,"
        " updated_at = excluded.updated_at",
        (guild_id, settings, now),
    )
