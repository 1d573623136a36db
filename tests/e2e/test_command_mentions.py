"""Every command a text tells a player to use is a clickable command mention, which each
reader's client writes in their own language (issue 29 item 3): a Spanish-client player on
a French server is told ``/knucklebones desafiar``, the command their picker offers, in a
message that speaks French. The ids come from the sync; they are the same after a restart,
and a process that did not sync knows them too (it reads them from Discord).

The fake Discord shows a mention as the reader's client does (``Player.reads``) and records
a problem for any mention a client would show as raw text (an unknown id, a command path
that is not a subcommand's, a place such as a footer where Discord renders none)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from fakediscord import BotHarness, CallbackType, FakeDiscord, FakeGuild, Player
from fakediscord.process import BotProcess
from pydantic import SecretStr

from bot.app import DiceBot, create_bot
from bot.config import Settings
from bot.model.clock import ManualClock

KB = "knucklebones"


async def test_a_spanish_player_on_a_french_server_reads_the_commands_of_their_own_picker(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    guild.locale = "fr"  # the server's language: public messages speak French
    sofia = await guild.add_member("sofía")
    sofia.user.locale = "es-ES"  # her Discord client speaks Spanish
    chloe = await guild.add_member("chloé")
    chloe.user.locale = "fr"
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    knucklebones = fake_discord.commands.id_of(KB, guild.id)
    assert bot.command_ids.id_of(KB) == knucklebones

    # An empty leaderboard, posted in the channel for everyone: French words, and the
    # commands as mentions (no French command name in it).
    answer = await sofia.slash("leaderboard", game=KB)
    assert answer.type is CallbackType.MESSAGE and not answer.ephemeral
    board = answer.message
    assert board is not None
    text = board.text()
    assert "Aucune partie de Knucklebones entre joueurs n'est encore terminée" in text
    assert f"</knucklebones challenge:{knucklebones}>" in text
    assert f"</knucklebones ai:{knucklebones}>" in text
    assert "défier" not in text and "desafiar" not in text
    # Each reader's client names them as their own command picker lists them.
    assert "/knucklebones desafiar" in sofia.reads(board)
    assert "/knucklebones ia" in sofia.reads(board)
    assert "/knucklebones défier" in chloe.reads(board)
    assert "/knucklebones desafiar" not in chloe.reads(board)

    # Her own refusal speaks Spanish, and its command is one she can click.
    refused = await sofia.slash("knucklebones challenge", opponent=sofia)
    assert refused.ephemeral and refused.message is not None
    assert refused.text() == (
        f"No puedes desafiarte a ti mismo. Juega contra mí con </knucklebones ai:{knucklebones}>."
    )
    assert sofia.reads(refused.message).endswith("Juega contra mí con /knucklebones ia.")


async def test_the_ids_are_the_same_after_a_restart(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    first = await bot_factory.start()
    assert isinstance(first, DiceBot)
    before = await alice.slash("stats")
    assert before.message is not None
    ids = {name: first.command_ids.id_of(name) for name in ("help", "leaderboard", KB)}
    assert all(ids.values()), ids
    assert f"</help:{ids['help']}>" in before.text()

    syncs = fake_discord.commands.sync_count
    second = await bot_factory.restart()
    assert isinstance(second, DiceBot)
    assert fake_discord.commands.sync_count == syncs + 1  # the new process synced again
    # Discord keeps a command's id when a sync overwrites it by name: same ids.
    assert {name: second.command_ids.id_of(name) for name in ids} == ids
    after = await alice.slash("stats")
    assert after.message is not None
    assert f"</help:{ids['help']}>" in after.text()
    assert f"</leaderboard:{ids['leaderboard']}>" in after.text()
    # The message from before the restart still shows clickable commands.
    assert "See /help for the games, or look at /leaderboard." in alice.reads(before.message)


async def test_the_bot_run_as_a_service_mentions_commands(
    fake_discord: FakeDiscord, guild: FakeGuild, tmp_path: Path
) -> None:
    """The entry point a host runs logs in and connects in tasks of its own (not the one a
    test's ``bot.start`` uses): its answers mention commands all the same."""
    process = BotProcess.for_fake(fake_discord, guild_id=guild.id, database=tmp_path / "bot.db")
    await process.start()
    try:
        await process.wait_ready(fake_discord)
        alice = await guild.add_member("alice")
        answer = await alice.slash("stats")
        help_id = fake_discord.commands.id_of("help", guild.id)
        assert f"See </help:{help_id}> for the games" in answer.text()
        assert await process.stop() == 0
    finally:
        await process.ensure_dead()
    assert " ERROR " not in process.text()


# -- several processes -----------------------------------------------------------------------


@pytest.fixture
async def two_shard_fake(clock: ManualClock) -> AsyncIterator[FakeDiscord]:
    """A fake Discord with two gateway shards (one process each), discord.py pointed at
    it; a test fails on any problem it saw, as with ``fake_discord``."""
    fake = FakeDiscord(time_source=clock.now, shard_count=2, max_concurrency=2, check_answers=True)
    await fake.start()
    with fake.redirect_discord_py():
        yield fake
    await fake.stop()
    problems = fake.final_problems()
    if problems:
        pytest.fail("the fake Discord saw problems:\n" + "\n".join(f"  {p}" for p in problems))


def shard_process(
    fake: FakeDiscord,
    clock: ManualClock,
    guild: FakeGuild,
    shard: int,
    database_path: Path,
    database_url: str | None,
) -> Callable[..., DiceBot]:
    """A bot running gateway shard ``shard`` of two, on the test's database: the process
    of shard 0 syncs the commands, the other one does not."""

    def make(**options: Any) -> DiceBot:
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            discord_token=SecretStr(fake.token),
            database_path=database_path,
            database_url=database_url,
            dev_guild_id=guild.id,
            shard_count=2,
            shard_ids=str(shard),
        )
        return create_bot(settings, clock=clock, seed=shard, guild_ready_timeout=0.05)

    return make


async def test_a_process_that_did_not_sync_mentions_commands_with_the_synced_ids(
    two_shard_fake: FakeDiscord, clock: ManualClock, tmp_path: Path, database_url: str | None
) -> None:
    fake = two_shard_fake
    guild = await fake.create_guild("Salle des dés", shard=1, locale="fr")
    sofia = await guild.add_member("sofía")
    sofia.user.locale = "es-ES"
    database = tmp_path / "bot.db"
    syncing = BotHarness(fake, shard_process(fake, clock, guild, 0, database, database_url))
    other = BotHarness(
        fake,
        shard_process(fake, clock, guild, 1, database, database_url),
        wait_for_sync=False,
    )
    try:
        # The process that does not sync starts first: nothing is registered yet.
        reader = await other.start()
        assert isinstance(reader, DiceBot)
        assert reader.command_ids.id_of(KB) is None
        await syncing.start()
        assert fake.commands.sync_count == 1
        # It reads the ids from Discord again while some are missing (after a pause).
        synced_at = len(fake.requests)
        await fake.wait_for(
            lambda: any(
                record.method == "GET" and record.route.endswith("/commands")
                for record in fake.requests[synced_at:]
            ),
            timeout=10,
            what="the process that did not sync to read the commands again",
        )
        for _ in range(100):  # the read's answer is on its way to the bot
            if reader.command_ids.id_of(KB) is not None:
                break
            await asyncio.sleep(0.01)
        knucklebones = fake.commands.id_of(KB, guild.id)
        assert reader.command_ids.id_of(KB) == knucklebones

        # The server is on shard 1: its players are answered by that process alone.
        answer = await sofia.slash("leaderboard", game=KB)
        assert answer.interaction.shard_id == 1
        assert answer.message is not None
        assert f"</knucklebones challenge:{knucklebones}>" in answer.text()
        assert "/knucklebones desafiar" in sofia.reads(answer.message)
    finally:
        # Last started, first stopped: a harness counts tasks started after its own start.
        problems = [*await syncing.stop(), *await other.stop()]
    assert problems == []
