"""``python -m bot`` as a host runs it, in its own process (``fakediscord.process``): each
way a start can fail shows one clear line and no traceback, network failures are retried
with backoff, and SIGTERM/SIGINT stop the process within 5 seconds in any state.

The process is pointed at 127.0.0.1 by the test launcher alone (discord.py's two
redirects), never by a setting of the product.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest
from fakediscord import FakeDiscord, FakeGuild
from fakediscord.process import BotProcess
from hosting_support import run_healthcheck

from bot.service.lifecycle import REACH_TIMEOUT_SECONDS
from bot.ui.permissions import invite_permissions

STOP_LIMIT = 5.0  # what the issue asks of SIGTERM/SIGINT, in any state


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def silent_server() -> AsyncIterator[str]:
    """A TCP server that accepts connections and never answers: Discord hanging."""
    held: list[asyncio.StreamWriter] = []

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield f"127.0.0.1:{port}"
    for writer in held:
        writer.close()
    server.close()
    await server.wait_closed()


def process_at(host: str, tmp_path: Path, **env: str) -> BotProcess:
    settings = {
        "DISCORD_TOKEN": "MTIz.not-a-real-token.abc",
        "DATABASE_PATH": str(tmp_path / "bot.db"),
        "LOG_LEVEL": "INFO",
    }
    settings.update(env)
    return BotProcess(api_base=f"http://{host}/api/v10", gateway_url=f"ws://{host}/", env=settings)


async def stop_timed(bot: BotProcess, number: int = signal.SIGTERM) -> tuple[int, float]:
    started = time.monotonic()
    bot.signal(number)
    code = await bot.wait(STOP_LIMIT + 5)
    return code, time.monotonic() - started


def bot_lines(bot: BotProcess) -> list[str]:
    return [line for line in bot.output if line.strip()]


def assert_no_traceback(bot: BotProcess) -> None:
    text = bot.text()
    assert "Traceback" not in text, text
    assert " ERROR " not in text and " CRITICAL " not in text, text


# -- failures only the host can fix: one line, exit 2 ----------------------------------------


async def test_no_token_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bot = process_at(f"127.0.0.1:{closed_port()}", tmp_path)
    bot.env.pop("DISCORD_TOKEN")
    started = time.monotonic()
    await bot.start()
    try:
        assert await bot.wait(10) == 2
    finally:
        await bot.ensure_dead()
    assert time.monotonic() - started < 5
    assert bot_lines(bot) == [
        "dicebot: setting DISCORD_TOKEN is missing: set it in the environment or in .env"
    ]


async def test_a_token_discord_rejects_is_one_line_and_exit_2(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    bot = BotProcess.for_fake(
        fake_discord, guild_id=None, database=tmp_path / "bot.db", DISCORD_TOKEN="revoked.token"
    )
    started = time.monotonic()
    await bot.start()
    try:
        assert await bot.wait(10) == 2
    finally:
        await bot.ensure_dead()
    assert time.monotonic() - started < 5
    lines = bot_lines(bot)
    assert len(lines) == 2, lines  # the "starting" line, then the problem
    assert "INFO     bot: starting dicebot" in lines[0]
    assert lines[1].endswith(
        "ERROR    bot: Discord rejected the bot token (HTTP 401): reset it in the developer "
        "portal (Applications → your bot → Bot → Reset Token) and put the new one in "
        "DISCORD_TOKEN"
    )
    assert "Traceback" not in bot.text() and "revoked.token" not in bot.text()
    # Nothing was retried: a rejected token does not get better by asking again.
    assert len(fake_discord.requests_to("/users/@me", "GET")) == 1


async def test_the_rejected_token_line_as_json(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    bot = BotProcess.for_fake(
        fake_discord,
        guild_id=None,
        database=tmp_path / "bot.db",
        DISCORD_TOKEN="revoked.token",
        LOG_FORMAT="json",
    )
    await bot.start()
    try:
        assert await bot.wait(10) == 2
    finally:
        await bot.ensure_dead()
    records = [json.loads(line) for line in bot_lines(bot)]
    assert [(r["level"], r["logger"]) for r in records] == [("INFO", "bot"), ("ERROR", "bot")]
    assert records[1]["message"].startswith("Discord rejected the bot token (HTTP 401)")
    assert all(set(r) == {"time", "level", "logger", "message"} for r in records)


@pytest.mark.parametrize("dev_guild", [False, True], ids=["global", "dev guild"])
async def test_a_command_discord_would_refuse_is_one_line_and_exit_2(
    fake_discord: FakeDiscord, guild: FakeGuild, tmp_path: Path, dev_guild: bool
) -> None:
    # tests/hosting/refused_commands.py: the bot's entry point, with /refused end added,
    # its table option bounded at 2**63 - 1 as /weighted end's once was.
    bot = BotProcess.for_fake(
        fake_discord,
        guild_id=guild.id if dev_guild else None,
        database=tmp_path / "bot.db",
        launcher="hosting.refused_commands",
    )
    await bot.start()
    try:
        assert await bot.wait(60) == 2, bot.text()
    finally:
        await bot.ensure_dead()
    lines = bot_lines(bot)
    assert lines[-1].endswith(
        "ERROR    bot: Discord would refuse the bot's slash commands (nothing was synced): "
        "/refused end, option table: max_value 9223372036854775807 is outside Discord's "
        "integer range ±9007199254740991"
    ), bot.text()
    text = bot.text()
    assert "Traceback" not in text and text.count(" ERROR ") == 1 and " CRITICAL " not in text
    # Checked before the sync: nothing was sent for Discord to refuse.
    assert fake_discord.commands.sync_count == 0
    assert not [record for record in fake_discord.requests if "/commands" in record.path]


# -- network failures: a line per attempt, backoff, and a prompt stop -----------------------


async def test_no_route_is_retried_with_backoff_and_sigterm_stops_it(tmp_path: Path) -> None:
    port = closed_port()
    bot = process_at(f"127.0.0.1:{port}", tmp_path)
    await bot.start()
    try:
        first = await bot.wait_for_line("(attempt 1)")
        second = await bot.wait_for_line("(attempt 2)")
        code, took = await stop_timed(bot)
    finally:
        await bot.ensure_dead()
    assert first.endswith(
        f"WARNING  bot: cannot reach Discord: 127.0.0.1:{port} refused the connection; "
        "retrying in 1 s (attempt 1)"
    )
    assert second.endswith("retrying in 2 s (attempt 2)")
    assert code == 0 and took < STOP_LIMIT
    assert bot_lines(bot)[-1].endswith("bot: SIGTERM received while waiting to retry: stopped")
    assert_no_traceback(bot)


async def test_an_api_that_never_answers_times_out_and_retries(
    silent_server: str, tmp_path: Path
) -> None:
    bot = process_at(silent_server, tmp_path)
    await bot.start()
    try:
        await bot.wait_for_line("bot: starting dicebot")
        started = time.monotonic()  # the login request goes out now
        line = await bot.wait_for_line("(attempt 1)", limit=REACH_TIMEOUT_SECONDS + 5)
        waited = time.monotonic() - started
        code, took = await stop_timed(bot, signal.SIGINT)
    finally:
        await bot.ensure_dead()
    assert line.endswith(
        f"WARNING  bot: Discord ({silent_server}) did not answer within 5 s; retrying in 1 s "
        "(attempt 1)"
    )
    assert REACH_TIMEOUT_SECONDS - 0.5 <= waited < REACH_TIMEOUT_SECONDS + 2
    assert code == 0 and took < STOP_LIMIT
    assert_no_traceback(bot)


async def test_sigterm_while_connecting_stops_within_5_seconds(
    silent_server: str, tmp_path: Path
) -> None:
    bot = process_at(silent_server, tmp_path)
    await bot.start()
    try:
        await bot.wait_for_line("bot: starting dicebot")
        await asyncio.sleep(0.3)  # the login request is out, and Discord is silent
        code, took = await stop_timed(bot)
    finally:
        await bot.ensure_dead()
    assert code == 0 and took < STOP_LIMIT, bot.text()
    lines = bot_lines(bot)
    assert lines[-2].endswith("bot: SIGTERM received while connecting to Discord: stopping")
    assert lines[-1].endswith("bot: stopped")
    assert_no_traceback(bot)


# -- running: the ready line, the health check, and SIGTERM -----------------------------------


async def test_ready_line_health_and_sigterm_while_running(
    fake_discord: FakeDiscord, guild: FakeGuild, tmp_path: Path
) -> None:
    database = tmp_path / "bot.db"
    bot = BotProcess.for_fake(fake_discord, guild_id=guild.id, database=database)
    await bot.start()
    try:
        ready = await bot.wait_for_line("bot: ready as")
        health = await asyncio.to_thread(run_healthcheck, database)
        code, took = await stop_timed(bot)
    finally:
        await bot.ensure_dead()

    permissions = invite_permissions().value
    application_id = fake_discord.application_id
    assert ready.endswith(
        f"bot: ready as {fake_discord.bot_user.name} (id {fake_discord.bot_user.id}): 1 server, "
        f"database SQLite {database.resolve()}, shard 0 of 1; invite link: "
        f"https://discord.com/oauth2/authorize?client_id={application_id}"
        f"&scope=bot+applications.commands&permissions={permissions}; user install link: "
        f"https://discord.com/oauth2/authorize?client_id={application_id}"
        "&integration_type=1&scope=applications.commands"
    ), ready
    assert (
        permissions
        == discord.Permissions(
            view_channel=True,
            send_messages=True,
            send_messages_in_threads=True,
            embed_links=True,
            attach_files=True,
            read_message_history=True,
            # Tournaments open a thread on their message to play their matches in.
            create_public_threads=True,
        ).value
    )

    assert health.returncode == 0, health.stdout + health.stderr
    assert health.stdout.startswith("healthy: connected to Discord, 1 server, heartbeat ")

    assert code == 0 and took < STOP_LIMIT
    lines = bot_lines(bot)
    assert lines[-2].endswith("bot: SIGTERM received: stopping")
    assert lines[-1].endswith("bot: stopped")
    assert_no_traceback(bot)

    after = await asyncio.to_thread(run_healthcheck, database)
    assert after.returncode == 1
    assert after.stdout.strip() == (
        f"unhealthy: no heartbeat file at {database}.health (is the bot running?)"
    )
