"""Commits the running bot never hears of: what a crash between a commit and its message
edit leaves behind, made without killing anything (the subprocess tests kill for real)."""

from __future__ import annotations

from typing import Any

from bot.app import DiceBot
from bot.model.contract import Outcome
from bot.play.sessions import SeedSource, SessionService
from bot.storage import database_for


async def commit_unseen(
    bot: DiceBot, session_id: int, actor_id: int | None, action: dict[str, Any]
) -> Outcome:
    """Apply ``action`` exactly as the bot would (same handlers, same database file), but
    through a second session service that tells no publisher: the move is stored and no
    message shows it, as when the bot dies right after the commit."""
    db = database_for(bot.settings)
    await db.open()
    try:
        service = SessionService(
            db, bot.clock, bot.sessions.defaults, SeedSource(5), guides=bot.guides
        )
        for handler in bot.sessions.handlers.values():
            service.register(handler)
        return await service.act(session_id, actor_id, action)
    finally:
        await db.close()
