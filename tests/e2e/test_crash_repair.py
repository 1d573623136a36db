"""A bot process killed with SIGKILL loses nothing that was committed, and what players see
catches up when a new process starts: the real bot, as its own process, on a clock the test
moves (``fakediscord.clocked``)."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fakediscord import FakeDiscord, FakeGuild, Player
from fakediscord.process import BotProcess
from knucklebones_support import ai_board_idle, board_turn, enabled_columns

from bot.clock import ManualClock

SEED = "4321"


class ClockedBot:
    """One bot process at a time on the test's clock; SIGKILL and start again."""

    def __init__(self, fake: FakeDiscord, guild: FakeGuild, clock: ManualClock, db: Path) -> None:
        self.fake = fake
        self.clock = clock
        self.process = BotProcess.for_fake(
            fake,
            guild_id=guild.id,
            database=db,
            launcher="fakediscord.clocked",
            launcher_args=(repr(clock.now()), SEED),
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


@pytest.fixture
async def clocked_bot(
    fake_discord: FakeDiscord, guild: FakeGuild, clock: ManualClock, tmp_path: Path
) -> AsyncIterator[ClockedBot]:
    bot = ClockedBot(fake_discord, guild, clock, tmp_path / "bot.db")
    try:
        yield bot
    finally:
        await bot.process.ensure_dead()


async def test_a_game_against_the_ai_goes_on_after_a_sigkill(
    clocked_bot: ClockedBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    await clocked_bot.start()
    board = (await alice.slash("knucklebones ai", difficulty="easy", first="me")).message
    assert board is not None
    await alice.click(board, "Column 1")
    # The AI's move is a timer 0.7 s ahead: the process dies before it fires.
    await clocked_bot.kill()
    await clocked_bot.advance(30)
    await clocked_bot.start()
    # The timer that passed while the bot was down fires at start, and the board shows it.
    await fake_discord.wait_for(
        lambda: board_turn(board) == 3 and ai_board_idle(board), timeout=10, what="the AI's move"
    )
    await alice.click(board, f"Column {enabled_columns(board)[0] + 1}")
    await clocked_bot.advance(1)
    await fake_discord.wait_for(lambda: board_turn(board) == 5, timeout=10, what="turn 5")
    assert clocked_bot.errors() == []
