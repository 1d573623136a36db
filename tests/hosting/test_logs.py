"""Logs as a host reads them: text or ``LOG_FORMAT=json``, the reference id a player was
shown on every unexpected error, the token never written, and discord.py's connection
retries told in one WARNING line."""

from __future__ import annotations

import io
import json
import logging
import re

import aiohttp
import pytest
from fakediscord import Player
from test_settings import restore_root_logging  # noqa: F401  (a fixture)

from bot.app import DiceBot
from bot.config import Settings, load_settings
from bot.service.logs import configure_logging
from cogs.odds import figures as odds_figures

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.not-a-real-token-but-secret"


def capture(log_format: str, level: str = "INFO") -> io.StringIO:
    stream = io.StringIO()
    settings = Settings(discord_token=TOKEN, log_format=log_format, log_level=level)  # type: ignore[arg-type]
    configure_logging(settings, stream)
    return stream


def failing_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> tuple[object, ...]:
        raise MemoryError(f"no room (Authorization: Bot {TOKEN})")

    monkeypatch.setattr(odds_figures, "KNUCKLEBONES_FIGURES", odds_figures.Once(broken, "odds"))


async def shown_reference(alice: Player) -> str:
    failed = await alice.slash("odds knucklebones")
    shown = (await failed.final_message()).text()
    match = re.search(r"\(ref `([0-9a-f]{6})`\)", shown)
    assert match is not None, shown
    return match.group(1)


@pytest.mark.logs_errors  # the odds computation raises on purpose
@pytest.mark.usefixtures("restore_root_logging")
async def test_a_json_error_line_carries_the_reference_the_player_saw(
    running_bot: DiceBot,
    alice: Player,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = capture("json")
    failing_odds(monkeypatch)
    reference = await shown_reference(alice)

    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    errors = [r for r in records if r["level"] == "ERROR"]
    assert len(errors) == 1, records
    (error,) = errors
    assert error["reference"] == reference
    assert error["message"].startswith(f"unexpected error (ref {reference}) handling interaction")
    assert error["interaction_id"] > 0
    assert "MemoryError: no room" in error["traceback"]
    assert error["logger"] == "bot.ui.replies" and error["time"].endswith("+00:00")
    assert TOKEN not in stream.getvalue() and "Bot [token]" in error["traceback"]


@pytest.mark.logs_errors  # the odds computation raises on purpose
@pytest.mark.usefixtures("restore_root_logging")
async def test_a_text_error_line_carries_the_reference_the_player_saw(
    running_bot: DiceBot,
    alice: Player,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = capture("text")
    failing_odds(monkeypatch)
    reference = await shown_reference(alice)

    errors = [line for line in stream.getvalue().splitlines() if " ERROR " in line]
    assert len(errors) == 1
    assert (
        f"ERROR    bot.ui.replies: unexpected error (ref {reference}) handling interaction"
        in (errors[0])
    )
    assert TOKEN not in stream.getvalue()


def connection_refused() -> aiohttp.ClientConnectorError:
    key = aiohttp.client_reqrep.ConnectionKey(
        "gateway.discord.gg", 443, True, True, None, None, None
    )
    return aiohttp.ClientConnectorError(key, ConnectionRefusedError(111, "Connection refused"))


@pytest.mark.usefixtures("restore_root_logging")
@pytest.mark.parametrize("log_format", ["text", "json"])
def test_a_gateway_reconnect_is_one_warning_line(log_format: str) -> None:
    stream = capture(log_format)
    shard_log = logging.getLogger("discord.shard")
    try:
        raise connection_refused()
    except aiohttp.ClientConnectorError as error:
        # Exactly what discord.py's Shard._handle_disconnect logs.
        shard_log.error("Attempting a reconnect for shard ID %s in %.2fs", 0, 3.25, exc_info=error)
    output = stream.getvalue()
    assert "Traceback" not in output and "ERROR" not in output
    expected = (
        "lost the gateway connection for shard 0 (cannot reach Discord: "
        "gateway.discord.gg:443 refused the connection): reconnecting in 3.2 s"
    )
    if log_format == "json":
        (record,) = [json.loads(line) for line in output.splitlines()]
        assert (record["level"], record["logger"], record["message"]) == (
            "WARNING",
            "discord.shard",
            expected,
        )
        assert "traceback" not in record
    else:
        (line,) = output.splitlines()
        assert line.endswith(f"WARNING  discord.shard: {expected}")


@pytest.mark.usefixtures("restore_root_logging")
def test_at_debug_the_reconnect_keeps_its_traceback() -> None:
    stream = capture("text", level="DEBUG")
    try:
        raise connection_refused()
    except aiohttp.ClientConnectorError:
        logging.getLogger("discord.shard").exception(
            "Failed to connect for shard_id: %s. Retrying...", 1
        )
    output = stream.getvalue()
    assert "WARNING  discord.shard: cannot open the gateway connection for shard 1" in output
    assert "Traceback" in output


def test_an_unknown_log_format_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("LOG_FORMAT", "xml")
    with pytest.raises(SystemExit) as stopped:
        load_settings()
    assert stopped.value.code == 2
    assert capsys.readouterr().err.startswith("dicebot: setting LOG_FORMAT is invalid")


def test_log_format_json_is_not_case_sensitive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("LOG_FORMAT", " JSON ")
    assert load_settings().log_format == "json"
