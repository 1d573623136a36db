"""A small progress bar on stderr for simulations that run over a second.

It counts work units rather than reading a clock, so the lab stays free of time: the bar is
drawn only when the caller says the job is large and stderr is a terminal (or forced).
"""

from __future__ import annotations

import sys
from typing import TextIO


class Progress:
    def __init__(
        self,
        total: int,
        label: str,
        *,
        enabled: bool = True,
        stream: TextIO | None = None,
        width: int = 30,
    ) -> None:
        self.total = max(1, total)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and (stream is not None or self.stream.isatty())
        self.width = width
        self.done = 0
        self._last_drawn = -1

    def advance(self, amount: int = 1) -> None:
        self.done = min(self.total, self.done + amount)
        if not self.enabled:
            return
        filled = self.done * self.width // self.total
        if filled != self._last_drawn:
            self._last_drawn = filled
            bar = "#" * filled + "-" * (self.width - filled)
            percent = 100 * self.done // self.total
            self.stream.write(f"\r{self.label} [{bar}] {percent:3d}%")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled and self._last_drawn >= 0:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
