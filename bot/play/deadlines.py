"""The one loop (per process) that fires durable deadlines.

It sleeps until the earliest deadline (or until a move changes the deadlines), claims the
due ones for a short lease, then applies each as an ordinary system action: the deadline
row is deleted inside the same transaction as the move, so a crash can neither lose it nor
fire it twice, and of several processes that claim one (a lease that ran out) only the one
that deletes it applies it. Deadlines that passed while the bot was down fire as soon as
the loop starts; those a dead process had claimed, when its lease ends. What a fired
deadline did is shown by the publisher, which the session service tells of every commit.

With several processes a loop does not hear of the timers other processes add, so it
looks at the database at least every ``poll_seconds`` (``SHARED_POLL_SECONDS`` when the
database is shared).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math

from bot.model.clock import Clock
from bot.model.errors import UserError
from bot.play.sessions import DeadlineGone, SessionService
from bot.storage import StorageUnavailable
from game_core.errors import IllegalMove

log = logging.getLogger(__name__)

# Upper bound on one sleep, so a clock jump or a missed wake-up is never fatal.
MAX_SLEEP_SECONDS = 30.0
# ... and with a database shared by several processes, which add timers this loop never
# hears of (and may die holding claims).
SHARED_POLL_SECONDS = 2.0
RETRY_AFTER_STORAGE_ERROR = 1.0
# A claim lasts this long: far longer than firing takes, short enough that the timers of
# a process that died holding claims are late by seconds, not minutes.
LEASE_SECONDS = 10.0
CLAIM_BATCH = 20
BUSY_RETRY_SECONDS = 0.05


class DeadlineRunner:
    def __init__(
        self, service: SessionService, clock: Clock, *, poll_seconds: float = MAX_SLEEP_SECONDS
    ) -> None:
        self.service = service
        self.clock = clock
        self.poll_seconds = poll_seconds
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
                async with asyncio.timeout(min(delay or self.poll_seconds, self.poll_seconds)):
                    await self._wake.wait()

    async def fire_due(self) -> float | None:
        """Fire every deadline that is due; return seconds until the next one this process
        could claim (or None)."""
        while True:
            claimed = await self.service.claim_due_deadlines(
                lease_seconds=LEASE_SECONDS, limit=CLAIM_BATCH
            )
            for deadline_id, session_id, _due_at, action in claimed:
                await self._fire(deadline_id, session_id, action)
            if len(claimed) == CLAIM_BATCH:
                continue
            upcoming = await self.service.next_deadline()
            if upcoming is None:
                return None
            wait = upcoming[2] - self.clock.now()
            if wait > 0:
                return wait
            if not claimed:
                # Due but not claimable: a move is replacing it this very moment (its row
                # is locked). Look again shortly rather than at once.
                return BUSY_RETRY_SECONDS

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
