"""Wall-clock time behind an interface, so tests can move time instead of sleeping."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class Clock:
    """Real time, in seconds since the epoch."""

    def now(self) -> float:
        return time.time()

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Real time moves on its own; nobody needs telling."""

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of this clock's time (retry back-offs, periodic sweeps)."""
        await asyncio.sleep(max(0.0, seconds))


class ManualClock(Clock):
    """A clock that only moves when told to; listeners (the deadline loop) are woken, and
    sleepers whose time has come return."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._listeners: list[Callable[[], None]] = []
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self._now

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (self._now + seconds, waiter)
        self._sleepers.append(entry)
        try:
            await waiter
        finally:
            if entry in self._sleepers:
                self._sleepers.remove(entry)

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time only moves forward")
        self._now += seconds
        for due, waiter in list(self._sleepers):
            if due <= self._now and not waiter.done():
                waiter.set_result(None)
        for listener in list(self._listeners):
            listener()
