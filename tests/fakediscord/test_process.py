"""The bot as its own process (``fakediscord.process``) talks to the fake like the
in-process bot does, and stops cleanly on SIGTERM."""

from __future__ import annotations

from pathlib import Path

from fakediscord import FakeDiscord, FakeGuild
from fakediscord.process import BotProcess


async def test_a_bot_process_answers_and_stops_on_sigterm(
    fake_discord: FakeDiscord, guild: FakeGuild, tmp_path: Path
) -> None:
    alice = await guild.add_member("alice")
    bot = BotProcess.for_fake(fake_discord, guild_id=guild.id, database=tmp_path / "bot.db")
    await bot.start()
    try:
        await bot.wait_ready(fake_discord)
        answer = await alice.slash("ping")
        assert answer.ephemeral and "Pong" in answer.text()
        assert await bot.stop() == 0
    finally:
        await bot.ensure_dead()
    assert (tmp_path / "bot.db").exists()
    assert " ERROR " not in bot.text()
