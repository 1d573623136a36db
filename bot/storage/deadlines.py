"""The ``deadlines`` table for the session service's timers: claiming the due ones for a
lease, the next one a process could claim, and deleting only a row the process claimed
(so that a move's new timer is never fired or dropped in place of the one it replaced)."""

from __future__ import annotations

from typing import Any

from bot.storage.base import Database
from bot.storage.connection import Connection
from bot.storage.move_writes import loads

# (id, session id, due at or claimable at, action)
DueDeadline = tuple[int, int, float, dict[str, Any]]


async def claim_due(
    db: Database, *, owner: str, now: float, lease_seconds: float, limit: int
) -> list[DueDeadline]:
    """Claim up to ``limit`` due deadlines for ``owner``, earliest first. Its own earlier
    claims are claimed again at once; another process's, when its lease is over. On
    PostgreSQL the rows another process is claiming right now are skipped."""
    skip_locked = " FOR UPDATE SKIP LOCKED" if db.dialect == "postgresql" else ""
    rows = await db.write_returning(
        "UPDATE deadlines SET claimed_by = ?, claimed_until = ?"
        " WHERE id IN (SELECT id FROM deadlines WHERE due_at <= ?"
        " AND (claimed_until IS NULL OR claimed_until <= ? OR claimed_by = ?)"
        f" ORDER BY due_at, id LIMIT ?{skip_locked})"
        " RETURNING id, session_id, due_at, action",
        (owner, now + lease_seconds, now, now, owner, limit),
    )
    claimed = [(row["id"], row["session_id"], row["due_at"], loads(row["action"])) for row in rows]
    return sorted(claimed, key=lambda item: (item[2], item[0]))


# When ``owner`` could claim a deadline: its due time, or the end of another process's claim.
_CLAIMABLE_AT = (
    "CASE WHEN claimed_by IS NOT NULL AND claimed_by <> ? AND claimed_until > due_at"
    " THEN claimed_until ELSE due_at END"
)


async def next_claimable(db: Database, *, owner: str) -> DueDeadline | None:
    """The deadline ``owner`` could claim first; its time is the due time, or the end of
    another process's claim on it."""
    # Read through the due-time index, not the whole table sorted by claimable time (2.7 ms
    # at 10,000 timers on SQLite, each time the deadline loop looks; 18 us now): a row is
    # claimable at its due time unless another process holds a claim past it, so no row
    # due after the first row claimable at its due time (the inner select, found in index
    # order) can come first.
    row = await db.fetch_one(
        f"SELECT id, session_id, action, {_CLAIMABLE_AT} AS claimable_at FROM deadlines"
        " WHERE due_at <= COALESCE((SELECT due_at FROM deadlines"
        f" WHERE {_CLAIMABLE_AT} = due_at ORDER BY due_at, id LIMIT 1), 1e308)"
        " ORDER BY claimable_at, id LIMIT 1",
        (owner, owner),
    )
    if row is None:
        return None
    return row["id"], row["session_id"], row["claimable_at"], loads(row["action"])


async def take_claimed(conn: Connection, deadline_id: int, session_id: int, *, owner: str) -> bool:
    """Delete the deadline ``owner`` claimed, in the move that applies it: whoever deletes
    it fires it. False if it is gone, or another process claimed it since."""
    deleted = await conn.execute(
        "DELETE FROM deadlines WHERE id = ? AND session_id = ? AND claimed_by = ?",
        (deadline_id, session_id, owner),
    )
    return deleted == 1


async def drop_claimed(db: Database, deadline_id: int, *, owner: str) -> None:
    """Delete a deadline ``owner`` claimed and the game refused (only that row)."""
    await db.write("DELETE FROM deadlines WHERE id = ? AND claimed_by = ?", (deadline_id, owner))
