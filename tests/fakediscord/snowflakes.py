"""Snowflake ids that look real (17-20 digits) and follow the test's clock."""

from __future__ import annotations

from collections.abc import Callable

DISCORD_EPOCH_MS = 1_420_070_400_000


class SnowflakeFactory:
    """Strictly increasing snowflakes whose timestamp part is the fake's clock, so that
    ``discord.utils.snowflake_time(id)`` agrees with the time the test has set."""

    def __init__(self, time_source: Callable[[], float]) -> None:
        self._time_source = time_source
        self._last = 0

    def next(self) -> int:
        # Never earlier than 2020, even with an odd clock: real ids have 17+ digits.
        milliseconds = max(int(self._time_source() * 1000), 1_577_836_800_000)
        candidate = (milliseconds - DISCORD_EPOCH_MS) << 22
        self._last = max(candidate, self._last + 1)
        return self._last

    def next_on_shard(self, shard_id: int, shard_count: int) -> int:
        """The next id whose guild lives on ``shard_id`` (Discord: ``(id >> 22) %
        shard_count``): a few milliseconds later when needed, still increasing."""
        candidate = self.next()
        while (candidate >> 22) % shard_count != shard_id:
            candidate = ((candidate >> 22) + 1) << 22
        self._last = candidate
        return candidate
