"""Moving a growing server from SQLite to PostgreSQL: games played on SQLite, the bot
stopped, the data copied with ``python -m bot copy-to-postgres``, the bot started on
PostgreSQL, and the games go on from the very same buttons; finished games, ratings and
settings came along; a second copy into the same database is refused."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from backends import isolated_schema
from duel_support import Duel, diceman_lock
from fakediscord import BotHarness, CallbackType, FakeDiscord, FakeGuild, Player
from knucklebones_support import board_turn, press_column, session_for, start_duel

from bot.model.clock import ManualClock
from bot.play.guild_settings import save_guild_overrides
from bot.storage.copying import TABLES, copy_database

pytestmark = pytest.mark.postgres_only
PROJECT = Path(__file__).resolve().parents[2]


async def copy_command(sqlite: Path, url: str) -> tuple[int, str]:
    """The command as a host runs it: its exit code and everything it printed."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "copy-to-postgres",
        "--sqlite",
        str(sqlite),
        "--to",
        url,
        cwd=PROJECT,
        env={k: v for k, v in os.environ.items() if not k.startswith("DATABASE_")},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await process.communicate()
    assert process.returncode is not None
    return process.returncode, output.decode()


@pytest.mark.parametrize("backend", ["sqlite"])  # it starts on SQLite, then moves
async def test_games_go_on_from_the_old_buttons_after_moving_to_postgres(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
    clock: ManualClock,
    tmp_path: Path,
) -> None:
    bot = await bot_factory.start()
    async with bot.db.transaction() as conn:
        await save_guild_overrides(conn, guild.id, {"turn_timeout_seconds": 90}, 1.0)
    # A finished game (with its result and ratings), a Knucklebones game under way, and a
    # Diceman round with one player locked in by DM.
    finished = await start_duel(fake_discord, alice, carol)
    await carol.slash("knucklebones forfeit")
    board = await start_duel(fake_discord, alice, bob, first="me")
    await press_column(alice, board, 0)
    await press_column(bob, board, 1)
    dice_room = await guild.add_channel("dice-room")
    challenge = await alice.slash("diceman challenge", opponent=carol, channel=dice_room)
    assert challenge.message is not None
    duel = Duel(fake_discord, challenge.message, "dm")
    await carol.click(duel.board, "Accept")
    await duel.wait_round(1)
    carol_dm = await duel.dm_controls(carol, 1)
    await diceman_lock(carol, carol_dm, ["magic", "shield"])
    await bot.publisher.settled()
    turn = board_turn(board)
    await bot_factory.stop()

    async with isolated_schema() as url:
        report = await copy_database(tmp_path / "bot.db", url)
        assert report.matches
        counts = {table: copied for table, (copied, _) in report.counts.items()}
        assert set(counts) == set(TABLES)
        assert counts["sessions"] == 3 and counts["results"] == 1 and counts["ratings"] == 2
        assert counts["deadlines"] >= 2 and counts["private_messages"] == 2
        assert counts["guild_settings"] == 1

        # The same command again, into the now filled database: refused, nothing changes.
        code, printed = await copy_command(tmp_path / "bot.db", url)
        assert code == 2, printed
        assert "not empty" in printed and "nothing was copied" in printed

        bot_factory.options["settings"] = {"database_url": url}
        bot = await bot_factory.start()
        assert bot.db.dialect == "postgresql"
        # Knucklebones goes on from the very same message and buttons.
        assert board_turn(board) == turn
        await press_column(alice, board, 2)
        assert board_turn(board) == (turn or 0) + 1
        # Diceman: Carol's lock-in came along; Alice locks in from her old DM.
        alice_dm = await duel.dm_controls(alice, 1)
        await diceman_lock(alice, alice_dm, ["priority", "sword"])
        await duel.wait_text("Round 1 reveal")
        # The finished game, its ratings and the server's setting are there.
        ladder = await bot.db.fetch_all(
            "SELECT user_id, wins, losses FROM ratings WHERE game = 'knucklebones'"
            " ORDER BY wins DESC"
        )
        assert [tuple(row) for row in ladder] == [(alice.id, 1, 0), (carol.id, 0, 1)]
        history = await alice.slash("history")
        assert "Knucklebones" in history.text()
        session = await session_for(bot, board)
        assert (await bot.sessions.guild_settings(session.guild_id)).turn_timeout_seconds == 90
        # The turn timer came along too: it fires on PostgreSQL.
        clock.advance(91)
        await fake_discord.wait_for(
            lambda: "ran out of time" in board.text().lower(), what="the copied turn timer"
        )
        # New games get new ids after the copied ones.
        again = await carol.slash("knucklebones challenge", opponent=bob)
        assert again.type is CallbackType.MESSAGE and again.message is not None
        newest = await bot.db.fetch_one("SELECT MAX(id) AS id FROM sessions")
        assert newest is not None and newest["id"] == 4
        assert finished.deleted is False
        await bot_factory.stop()
