"""Wall-clock time behind an interface, so tests can move time instead of sleeping."""

from __future__ import annotations

import time
from collections.abc import Callable


class Clock:
    """Real time, in seconds since the epoch."""

    def now(self) -> float:
        return time.time()

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Real time moves on its own; nobody needs telling."""


class ManualClock(Clock):
    """A clock that only moves when told to; listeners (the deadline loop) are woken."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._listeners: list[Callable[[], None]] = []

    def now(self) -> float:
        return self._now

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time only moves forward")
        self._now += seconds
        for listener in list(self._listeners):
            listener()
