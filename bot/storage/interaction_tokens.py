"""The ``interaction_tokens`` table: for each game reached only through interactions
(``sessions.reach = 'interaction'``), the newest live interaction token whose message is the
game's public message, and when it stops being usable. A token is a credential: it is kept
only while it lives (``sweep_expired``), read only by the process about to use it, and never
written anywhere else.
"""

from __future__ import annotations

from bot.storage.base import Database


async def keep_token(
    db: Database,
    session_id: int,
    token: str,
    expires_at: float,
    *,
    message_id: int | None = None,
) -> bool:
    """Keep ``token`` for the session if it lives longer than the one kept (a token of an
    older interaction that arrives late never replaces a newer one). With ``message_id``
    (the message the token's interaction answered on), only if that is the session's public
    message and the session is reached through interactions. True if it was kept."""
    guard = "s.reach = 'interaction'"
    params: tuple[object, ...] = (token, expires_at, session_id)
    if message_id is not None:
        guard += " AND s.message_id = ?"
        params += (message_id,)
    kept = await db.write_returning(
        "INSERT INTO interaction_tokens (session_id, token, expires_at)"
        f" SELECT s.id, ?, ? FROM sessions s WHERE s.id = ? AND {guard}"
        " ON CONFLICT (session_id) DO UPDATE SET token = excluded.token,"
        " expires_at = excluded.expires_at"
        " WHERE excluded.expires_at > interaction_tokens.expires_at"
        " RETURNING session_id",
        params,
    )
    return bool(kept)


async def live_token(db: Database, session_id: int, now: float) -> str | None:
    """The session's kept token, if it is still usable at ``now``."""
    row = await db.fetch_one(
        "SELECT token FROM interaction_tokens WHERE session_id = ? AND expires_at > ?",
        (session_id, now),
    )
    return None if row is None else str(row["token"])


async def forget_token(db: Database, session_id: int, token: str | None = None) -> None:
    """Delete the session's kept token (only ``token``, when given: Discord refused it, and a
    newer one kept meanwhile stays)."""
    if token is None:
        await db.write("DELETE FROM interaction_tokens WHERE session_id = ?", (session_id,))
    else:
        await db.write(
            "DELETE FROM interaction_tokens WHERE session_id = ? AND token = ?",
            (session_id, token),
        )


async def sweep_expired(db: Database, now: float) -> int:
    """Delete every token no longer usable at ``now``; how many were deleted."""
    return await db.write("DELETE FROM interaction_tokens WHERE expires_at <= ?", (now,))
