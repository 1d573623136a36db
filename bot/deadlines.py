"""The one loop that fires durable deadlines.

It sleeps until the earliest deadline (or until a move changes the deadlines), then
applies it as an ordinary system action: the deadline row is deleted inside the same
transaction as the move, so a crash can neither lose it nor fire it twice. Deadlines that
passed while the bot was down fire as soon as the loop starts. What a fired deadline did is
shown by the publisher, which the session service tells of every commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math

from bot.clock import Clock
from bot.errors import UserError
from bot.sessions import DeadlineGone, SessionService
from bot.storage import StorageUnavailable
from game_core.errors import IllegalMove

log = logging.getLogger(__name__)

# Upper bound on one sleep, so a clock jump or a missed wake-up is never fatal.
MAX_SLEEP_SECONDS = 30.0
RETRY_AFTER_STORAGE_ERROR = 1.0


class DeadlineRunner:
    def __init__(self, service: SessionService, clock: Clock) -> None:
        self.service = service
        self.clock = clock
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.fired = 0
        # When the loop plans to wake next. While it reads (and while it has nothing to
        # wait for) it is +inf, so any new timer wakes it.
        self._planned_wake = math.inf
        service.on_deadline_added(self._deadline_added)
        clock.subscribe(self._clock_moved)

    def _clock_moved(self) -> None:
        self._wake.set()

    def _deadline_added(self, due_at: float) -> None:
        # A move that only pushes timers later needs no wake-up and no query.
        if due_at < self._planned_wake:
            self._wake.set()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="deadline-loop")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            # Cleared BEFORE looking: a timer added or a clock moved while fire_due reads
            # leaves the event set, so the sleep below ends at once instead of running on
            # a stale delay past that timer.
            self._wake.clear()
            self._planned_wake = math.inf
            try:
                delay = await self.fire_due()
            except StorageUnavailable:
                log.warning("deadline loop: database unavailable, retrying")
                delay = RETRY_AFTER_STORAGE_ERROR
            if delay is not None and delay <= 0:
                continue
            if delay is not None:
                self._planned_wake = self.clock.now() + delay
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows a cancellation
            # that arrives just as the wake-up event is set, and stop() then waits forever.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(delay or MAX_SLEEP_SECONDS, MAX_SLEEP_SECONDS)):
                    await self._wake.wait()

    async def fire_due(self) -> float | None:
        """Fire every deadline that is due; return seconds until the next one (or None)."""
        while True:
            upcoming = await self.service.next_deadline()
            if upcoming is None:
                return None
            deadline_id, session_id, due_at, action = upcoming
            wait = due_at - self.clock.now()
            if wait > 0:
                return wait
            await self._fire(deadline_id, session_id, action)

    async def _fire(self, deadline_id: int, session_id: int, action: dict[str, object]) -> None:
        try:
            await self.service.act(session_id, None, dict(action), deadline_id=deadline_id)
        except DeadlineGone:
            return
        except (IllegalMove, UserError) as error:
            # The game moved on (e.g. it ended) and this timer no longer applies.
            log.debug(
                "deadline %s for session %s no longer applies: %s", deadline_id, session_id, error
            )
            await self.service.drop_deadline(deadline_id)
            return
        except StorageUnavailable:
            raise
        except Exception:
            log.exception("deadline %s for session %s failed; dropping it", deadline_id, session_id)
            await self.service.drop_deadline(deadline_id)
            return
        self.fired += 1
