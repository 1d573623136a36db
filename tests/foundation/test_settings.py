"""Settings, start-up failures and the token's secrecy."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import Settings, load_settings
from bot.log_lines import RedactingHandler
from bot.play.guild_settings import GuildSettings, load_guild_settings, save_guild_overrides
from bot.service.logs import configure_logging
from bot.storage import Database

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.not-a-real-token-but-secret"


def clean_env(**extra: str) -> dict[str, str]:
    """A child environment without any of the bot's settings, DISCORD_TOKEN included."""
    names = {name.upper() for name in Settings.model_fields}
    env = {k: v for k, v in os.environ.items() if k.upper() not in names}
    env.update(extra)
    return env


def run_bot(cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=cwd,
        env=clean_env(**extra),
        capture_output=True,
        text=True,
        timeout=60,
    )


def lines(process: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in (process.stdout + process.stderr).splitlines() if line.strip()]


@pytest.fixture
def no_settings_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """In-process: no setting in the environment and a working folder without .env."""
    names = {name.upper() for name in Settings.model_fields}
    for key in list(os.environ):
        if key.upper() in names:
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_missing_token_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    process = run_bot(tmp_path)
    assert process.returncode == 2
    output = lines(process)
    assert len(output) == 1, output
    assert "DISCORD_TOKEN" in output[0]
    assert "Traceback" not in process.stderr


@pytest.mark.parametrize(
    ("name", "value"),
    [("TURN_TIMEOUT_SECONDS", "abc"), ("DEV_GUILD_ID", "-5"), ("LOG_LEVEL", "chatty")],
)
def test_a_malformed_setting_is_named_on_one_line(tmp_path: Path, name: str, value: str) -> None:
    process = run_bot(tmp_path, DISCORD_TOKEN=TOKEN, **{name: value})
    assert process.returncode == 2
    output = lines(process)
    assert len(output) == 1, output
    assert name in output[0]
    assert TOKEN not in process.stdout + process.stderr
    assert "Traceback" not in process.stderr


@pytest.mark.parametrize("kind", ["under a file", "a folder"])
def test_an_unusable_database_path_stops_with_one_clear_line(tmp_path: Path, kind: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    database = blocker / "bot.db" if kind == "under a file" else tmp_path
    process = run_bot(tmp_path, DISCORD_TOKEN=TOKEN, DATABASE_PATH=str(database))
    assert process.returncode == 2
    output = lines(process)
    assert len(output) == 1, output
    assert "DATABASE_PATH" in output[0] and str(database) in output[0]
    assert "Traceback" not in process.stderr
    assert TOKEN not in process.stdout + process.stderr


def test_settings_come_from_a_dotenv_file(no_settings_env: Path) -> None:
    (no_settings_env / ".env").write_text(
        f"DISCORD_TOKEN={TOKEN}\nTURN_TIMEOUT_SECONDS=120\nDEV_GUILD_ID=42\n"
    )
    settings = load_settings()
    assert settings.discord_token.get_secret_value() == TOKEN
    assert settings.turn_timeout_seconds == 120
    assert settings.dev_guild_id == 42
    assert settings.database_path == Path("data/dicebot.db")


def test_empty_optional_values_mean_the_default(no_settings_env: Path) -> None:
    # A .env copied from a template often leaves optional settings empty.
    (no_settings_env / ".env").write_text(
        f"DISCORD_TOKEN={TOKEN}\nDEV_GUILD_ID=\nDATABASE_PATH=\nLOG_LEVEL=\n"
    )
    settings = load_settings()
    assert settings.dev_guild_id is None
    assert settings.database_path == Path("data/dicebot.db")
    assert settings.log_level == "INFO"


def test_an_empty_token_is_reported_as_missing(
    no_settings_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "")
    with pytest.raises(SystemExit) as stopped:
        load_settings()
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "DISCORD_TOKEN" in err and "missing" in err


def test_the_log_level_is_not_case_sensitive(
    no_settings_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("LOG_LEVEL", "debug")
    assert load_settings().log_level == "DEBUG"


@pytest.mark.parametrize(
    ("name", "value"),
    [("TURN_TIMEOUT_SECONDS", "5"), ("BETTING_WINDOW_SECONDS", "x"), ("PROVISIONAL_GAMES", "-1")],
)
def test_out_of_range_values_name_the_setting(
    no_settings_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    value: str,
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as stopped:
        load_settings()
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dicebot: setting {name} is invalid")
    assert TOKEN not in err


def test_the_token_never_shows_in_repr_str_or_json(no_settings_env: Path) -> None:
    settings = Settings(discord_token=TOKEN)  # type: ignore[arg-type]
    for text in (repr(settings), str(settings), settings.model_dump_json(), f"{settings!r}"):
        assert TOKEN not in text
    assert settings.discord_token.get_secret_value() == TOKEN


@pytest.fixture
def restore_root_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    discord_level = logging.getLogger("discord").level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    logging.getLogger("discord").setLevel(discord_level)


def capture_with_redaction(token: str) -> tuple[logging.Logger, io.StringIO, logging.Handler]:
    stream = io.StringIO()
    handler = RedactingHandler(token, stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("tests.foundation.redaction")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    return logger, stream, handler


def test_redaction_hides_it_in_messages_arguments_and_tracebacks() -> None:
    logger, stream, _ = capture_with_redaction(TOKEN)
    logger.info("plain %s", "text")
    logger.warning("token in the message " + TOKEN)
    logger.debug("token in an argument: %s / %r", TOKEN, {"auth": TOKEN})
    try:
        raise RuntimeError(f"401 Unauthorized for Bot {TOKEN}")
    except RuntimeError:
        logger.exception("a library failed")
    try:
        raise ValueError("no secret here")
    except ValueError:
        logger.error("with a stack", exc_info=True, stack_info=True)
    output = stream.getvalue()
    assert TOKEN not in output
    assert output.count("[token]") >= 4
    assert "plain text" in output
    assert "401 Unauthorized for Bot [token]" in output
    assert "ValueError: no secret here" in output


def test_configure_logging_redacts_every_logger(
    restore_root_logging: None, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(discord_token=TOKEN, log_level="DEBUG")  # type: ignore[arg-type]
    configure_logging(settings)
    logging.getLogger("discord.http").warning("sending Authorization: Bot %s", TOKEN)
    logging.getLogger("bot").info("hello")
    err = capsys.readouterr().err
    assert TOKEN not in err
    assert "Authorization: Bot [token]" in err
    assert "hello" in err


async def test_guild_overrides_apply_over_the_defaults(db: Database) -> None:
    defaults = GuildSettings(turn_timeout_seconds=120)
    async with db.read() as conn:
        assert await load_guild_settings(conn, 5, defaults) == defaults
    async with db.transaction() as conn:
        await save_guild_overrides(conn, 5, {"round_timeout_seconds": 90}, 1.0)
    async with db.transaction() as conn:
        await save_guild_overrides(conn, 5, {"round_timeout_seconds": 95}, 2.0)
    async with db.read() as conn:
        loaded = await load_guild_settings(conn, 5, defaults)
        assert (loaded.turn_timeout_seconds, loaded.round_timeout_seconds) == (120, 95)
        assert await load_guild_settings(conn, 6, defaults) == defaults


async def test_invalid_stored_overrides_fall_back_to_the_defaults(db: Database) -> None:
    """A row written by an older version (other bounds, a renamed or mistyped value) must
    not put out-of-range timeouts into every game of that server."""
    defaults = GuildSettings()
    async with db.transaction() as conn:
        await save_guild_overrides(
            conn,
            5,
            {
                "turn_timeout_seconds": 1,
                "round_timeout_seconds": "soon",
                "betting_window_seconds": 30,
                "renamed_setting": 3,
            },
            1.0,
        )
    async with db.read() as conn:
        loaded = await load_guild_settings(conn, 5, defaults)
    assert isinstance(loaded.turn_timeout_seconds, int)
    assert loaded.turn_timeout_seconds == defaults.turn_timeout_seconds
    assert loaded.round_timeout_seconds == defaults.round_timeout_seconds
    assert loaded.betting_window_seconds == 30


def test_guild_defaults_follow_the_bot_settings(no_settings_env: Path) -> None:
    settings = Settings(discord_token=TOKEN, turn_timeout_seconds=600)  # type: ignore[arg-type]
    defaults = GuildSettings.from_settings(settings)
    assert defaults.turn_timeout_seconds == 600
    assert defaults.lobby_expiry_seconds == settings.lobby_expiry_seconds
