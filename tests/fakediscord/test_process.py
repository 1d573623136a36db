"""The bot as its own process (``fakediscord.process``) talks to the fake like the
in-process bot does, and stops cleanly on SIGTERM."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from fakediscord import FakeDiscord, FakeGuild, routes
from fakediscord.process import BotProcess


@pytest.fixture
async def bot(
    fake_discord: FakeDiscord, guild: FakeGuild, tmp_path: Path
) -> AsyncIterator[BotProcess]:
    """The real bot in its own process, connected and synced; never left running."""
    process = BotProcess.for_fake(fake_discord, guild_id=guild.id, database=tmp_path / "bot.db")
    await process.start()
    try:
        await process.wait_ready(fake_discord)
        yield process
    finally:
        await process.ensure_dead()
    assert " ERROR " not in process.text()


async def test_a_bot_process_answers_and_stops_on_sigterm(
    bot: BotProcess, guild: FakeGuild, tmp_path: Path
) -> None:
    alice = await guild.add_member("alice")
    answer = await alice.slash("ping")
    assert answer.ephemeral and "Pong" in answer.text()
    assert await bot.stop() == 0
    assert (tmp_path / "bot.db").exists()


async def test_a_process_killed_with_its_edit_in_flight_leaves_the_fake_healthy(
    bot: BotProcess, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    alice = await guild.add_member("alice")
    bob = await guild.add_member("bob")
    board = (await alice.slash("knucklebones challenge", opponent=bob)).message
    assert board is not None
    # Bob's Accept is committed, then answered by editing the board (callback type 7):
    # hold that edit in flight and kill the process. A wide window keeps the outcome
    # certain on a loaded machine: the held answer is released well within it.
    fake_discord.callback_deadline = 30.0
    held = fake_discord.hold(routes.CALLBACK)
    accept = await bob.begin_click(board, "Accept")
    record = await held.arrived(timeout=10)
    assert len(board.history) == 1
    assert record.interaction == accept
    assert await bot.kill() == -signal.SIGKILL
    await fake_discord.wait_for(
        lambda: not fake_discord.gateway.connections, what="the dead process's gateway"
    )
    # Discord had the whole request: releasing it applies the edit nobody hears about.
    held.release()
    await fake_discord.wait_for(lambda: len(board.history) == 2)
    assert record.status == 200
    assert accept.callback_type is not None
    fake_discord.callback_deadline = 3.0

    syncs = fake_discord.commands.sync_count
    await bot.start()
    await bot.wait_ready(fake_discord, syncs_before=syncs)
    assert "Pong" in (await alice.slash("ping")).text()
    assert await bot.stop() == 0
    assert fake_discord.gateway.identify_count == 2
    assert fake_discord.problems == []
