"""Discord's identify limit shared by the processes of one bot (``identify_slots``): the
next free slot of each ``max_concurrency`` bucket."""

from __future__ import annotations

from bot.storage.base import Database


async def reserve_slot(db: Database, bucket: int, *, now: float, window: float) -> float:
    """Take the bucket's next identify slot (one transaction); returns the slot's time:
    now if the bucket is free, else ``window`` after the slot last taken."""
    async with db.transaction() as conn:
        next_free = await conn.fetch_value(
            "INSERT INTO identify_slots (bucket, next_at) VALUES (?, ?)"
            " ON CONFLICT (bucket) DO UPDATE SET next_at = CASE"
            " WHEN identify_slots.next_at > ? THEN identify_slots.next_at + ?"
            " ELSE ? END RETURNING next_at",
            (bucket, now + window, now, window, now + window),
        )
    return float(next_free) - window
