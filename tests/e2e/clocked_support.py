"""A bot process on a clock the test moves (``fakediscord.clocked``), for tests that
SIGKILL it (the ``clocked_bot`` fixture in conftest.py makes one)."""

from __future__ import annotations

import signal
from pathlib import Path

from fakediscord import FakeDiscord, FakeGuild
from fakediscord.process import BotProcess

from bot.model.clock import ManualClock

SEED = "4321"


class ClockedBot:
    """One bot process at a time on the test's clock; SIGKILL and start again."""

    def __init__(
        self, fake: FakeDiscord, guild: FakeGuild, clock: ManualClock, db: Path, **env: str
    ) -> None:
        self.fake = fake
        self.clock = clock
        self.process = BotProcess.for_fake(
            fake,
            guild_id=guild.id,
            database=db,
            launcher="fakediscord.clocked",
            launcher_args=(repr(clock.now()), SEED),
            **env,
        )

    async def start(self) -> None:
        # The clock a new process starts on is the test's clock now.
        self.process.launcher_args = (repr(self.clock.now()), SEED)
        syncs = self.fake.commands.sync_count
        await self.process.start()
        await self.process.wait_ready(self.fake, syncs_before=syncs)

    async def advance(self, seconds: float) -> None:
        """Move the test's clock and, if the bot is running, the bot's (a bot started later
        starts on the test's clock)."""
        self.clock.advance(seconds)
        if self.process.process is not None and self.process.process.returncode is None:
            await self.process.send_line(f"advance {seconds}")

    async def kill(self) -> None:
        assert await self.process.kill() == -signal.SIGKILL
        await self.fake.wait_for(
            lambda: not self.fake.gateway.connected, what="the killed bot's gateway to close"
        )

    def errors(self) -> list[str]:
        return [line for line in self.process.output if line.startswith(("ERROR", "CRITICAL"))]
