"""Gateway identifies shared out between processes.

Discord lets a bot start ``max_concurrency`` gateway sessions per 5 seconds: shard ``i``
is in bucket ``i % max_concurrency`` and each bucket may IDENTIFY once per 5 s, counted
over every process of the bot. Processes that split the shards share the database, so a
shard reserves its bucket's next free slot there (one atomic upsert: the row lock makes
concurrent reservations from any process take turns, without holding a lock while it
waits), then sleeps until that slot. A process that dies after reserving only wastes the
slot.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from bot.storage import Database
from bot.storage.identify_slots import reserve_slot

log = logging.getLogger(__name__)

IDENTIFY_WINDOW_SECONDS = 5.0


class IdentifyGate:
    def __init__(
        self,
        db: Database,
        *,
        max_concurrency: int = 1,
        window: float = IDENTIFY_WINDOW_SECONDS,
        now: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.db = db
        self.max_concurrency = max(1, max_concurrency)
        self.window = window
        self._now = now
        self._sleep = sleep

    async def reserve(self, shard_id: int) -> float:
        """Reserve the next identify slot of the shard's bucket; returns its time."""
        bucket = shard_id % self.max_concurrency
        now = self._now()
        return await reserve_slot(self.db, bucket, now=now, window=self.window)

    async def wait_turn(self, shard_id: int) -> None:
        """Return when shard ``shard_id`` may IDENTIFY."""
        slot = await self.reserve(shard_id)
        wait = slot - self._now()
        if wait > 0:
            log.info("shard %s identifies in %.1f s (Discord's identify limit)", shard_id, wait)
            await self._sleep(wait)
