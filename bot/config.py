"""Settings from the environment and ``.env`` (pydantic-settings).

A missing or malformed setting stops the bot with one line naming it and exit code 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal, NoReturn

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
LogFormat = Literal["text", "json"]


class StorageSettings(BaseSettings):
    """Where the data lives: all that ``python -m bot backup`` and ``healthcheck`` need, so
    they run without the bot token."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        case_sensitive=False,
        # A .env copied from a template leaves optional settings empty ("DEV_GUILD_ID="):
        # that means "not set", and an empty DISCORD_TOKEN is reported as missing.
        env_ignore_empty=True,
    )

    database_path: Path = Path("data/dicebot.db")
    # PostgreSQL is not supported yet: only `python -m bot backup` reads this, to point a
    # host who set it to pg_dump. SecretStr: a URL carries the password.
    database_url: SecretStr | None = None

    def uses_postgresql(self) -> bool:
        if self.database_url is None:
            return False
        scheme = self.database_url.get_secret_value().split(":", 1)[0].lower()
        return scheme in ("postgres", "postgresql") or scheme.startswith("postgresql+")

    @property
    def health_file(self) -> Path:
        """The heartbeat the running bot writes and ``python -m bot healthcheck`` reads:
        beside the database, so one folder (the Docker volume) holds all the bot writes."""
        return self.database_path.with_name(self.database_path.name + ".health")


class Settings(StorageSettings):
    # The bot token: SecretStr so it never shows in a repr, a log line or an error.
    discord_token: SecretStr = Field(min_length=1)
    # When set, commands sync to this one guild at once (development); else globally.
    dev_guild_id: int | None = Field(default=None, gt=0)
    log_level: LogLevel = "INFO"
    # "json": one JSON object a line, for hosts who ship their logs somewhere.
    log_format: LogFormat = "text"

    # Game defaults; each server can change them with /dicebot settings.
    turn_timeout_seconds: int = Field(default=300, ge=30, le=86_400)
    round_timeout_seconds: int = Field(default=180, ge=30, le=86_400)
    challenge_expiry_seconds: int = Field(default=300, ge=30, le=86_400)
    betting_window_seconds: int = Field(default=20, ge=5, le=600)
    house_setup_seconds: int = Field(default=60, ge=10, le=3_600)
    lobby_expiry_seconds: int = Field(default=1_800, ge=60, le=86_400)
    provisional_games: int = Field(default=3, ge=0, le=100)

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_log_level(cls, value: object) -> object:
        # LOG_LEVEL=debug is what people type.
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower_log_format(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    name = ".".join(str(part) for part in first["loc"]) or "settings"
    env_name = name.upper()
    if first["type"] == "missing":
        return f"setting {env_name} is missing: set it in the environment or in .env"
    return f"setting {env_name} is invalid: {first['msg']}"


def load_settings(**overrides: object) -> Settings:
    """Load settings, or exit with code 2 and one clear line on stderr."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as error:
        _exit_with(_describe(error))


def load_storage_settings() -> StorageSettings:
    """The storage settings alone (no token needed), or exit 2 with one clear line."""
    try:
        return StorageSettings()
    except ValidationError as error:
        _exit_with(_describe(error))


def _exit_with(message: str) -> NoReturn:
    print(f"dicebot: {message}", file=sys.stderr)
    raise SystemExit(2)
