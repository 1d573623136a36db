"""Coalesced message edits: a burst of updates to one message becomes a few edits.

Discord rate-limits edits per channel; when ten bets land in a second, only the latest
render matters. Each message has at most one edit in flight and edits are at least
``min_interval`` apart; requests that arrive meanwhile are folded into one follow-up edit
that renders the newest state. The first edit of a quiet message goes out at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

EditFn = Callable[[], Awaitable[None]]
CLOSE_GRACE_SECONDS = 5.0


class CoalescingEditor:
    def __init__(self, min_interval: float = 0.25) -> None:
        self.min_interval = min_interval
        self._pending: dict[int, EditFn] = {}
        self._running: dict[int, asyncio.Task[None]] = {}
        self.edits_sent = 0

    def request(self, message_id: int, edit: EditFn) -> None:
        """Ask for ``message_id`` to be edited by ``edit`` (which renders fresh state)."""
        self._pending[message_id] = edit
        if message_id not in self._running:
            self._running[message_id] = asyncio.create_task(self._drain(message_id))

    async def _drain(self, message_id: int) -> None:
        try:
            while message_id in self._pending:
                edit = self._pending.pop(message_id)
                try:
                    await edit()
                    self.edits_sent += 1
                except Exception:
                    log.exception("coalesced edit of message %s failed", message_id)
                # Stay "in flight" for a moment after every edit: requests that arrive
                # meanwhile fold into one edit instead of one edit each.
                await asyncio.sleep(self.min_interval)
        finally:
            self._running.pop(message_id, None)

    async def flush(self) -> None:
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)

    async def close(self) -> None:
        """Send the edits still waiting (they show the newest state), within a grace period."""
        try:
            await asyncio.wait_for(self.flush(), CLOSE_GRACE_SECONDS)
        except TimeoutError:
            log.warning("gave up on %d message edits at shutdown", len(self._pending))
            self._pending.clear()
            for task in list(self._running.values()):
                task.cancel()
