"""The seasons' ladders (``season_ratings``), read outside a move: ``bot.ladder.results`` writes
them in the move's transaction, ``bot.ladder.standings`` ranks them."""

from __future__ import annotations

from bot.storage.base import Database
from bot.storage.connection import Connection


async def count_players(db: Database | Connection, guild_id: int, game: str, season: int) -> int:
    """Players with a game against other players in season ``season`` of one game here."""
    row = await db.fetch_one(
        "SELECT COUNT(*) AS players FROM season_ratings"
        " WHERE guild_id = ? AND game = ? AND season = ?",
        (guild_id, game, season),
    )
    return 0 if row is None else int(row["players"])
