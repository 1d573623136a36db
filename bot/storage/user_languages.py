"""The language each player's Discord client last reported (``user_languages``), for the
messages a timer or another player's move sends them."""

from __future__ import annotations

from collections.abc import Sequence

from bot.storage.base import Database


async def stored_language(db: Database, user_id: int) -> str | None:
    """The player's stored language, if any (a committed snapshot)."""
    async with db.read() as conn:
        language = await conn.fetch_value(
            "SELECT language FROM user_languages WHERE user_id = ?", (user_id,)
        )
    return None if language is None else str(language)


async def stored_languages(db: Database, user_ids: Sequence[int]) -> dict[int, str]:
    """The stored language of each of these players who has one."""
    if not user_ids:
        return {}
    marks = ", ".join("?" for _ in user_ids)
    async with db.read() as conn:
        rows = await conn.fetch_all(
            f"SELECT user_id, language FROM user_languages WHERE user_id IN ({marks})",
            tuple(user_ids),
        )
    return {int(row["user_id"]): str(row["language"]) for row in rows}


async def store_language(db: Database, user_id: int, language: str, *, now: float) -> None:
    """Remember the player's language (one statement: insert, or replace what was there)."""
    await db.write(
        "INSERT INTO user_languages (user_id, language, updated_at) VALUES (?, ?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET language = excluded.language,"
        " updated_at = excluded.updated_at",
        (user_id, language, now),
    )
