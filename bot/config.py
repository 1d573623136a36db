"""Settings from the environment and ``.env`` (pydantic-settings).

A missing or malformed setting stops the bot with one line naming it and exit code 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal, NoReturn

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
LogFormat = Literal["text", "json"]
PictureWorker = Literal["auto", "process", "thread"]
ShardIds = tuple[int, ...]
MAX_SHARDS = 10_000


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def parse_shard_ids(value: str | int) -> ShardIds:
    """``"0-3"``, ``"4,5"``, ``"0-1,6"`` as sorted shard ids; ValueError if malformed."""
    ids: set[int] = set()
    for part in str(value).replace(" ", "").split(","):
        low, dash, high = part.partition("-")
        if not _digits(low) or (dash and not _digits(high)):
            raise ValueError(f"{part!r} is not a shard id or a range like 0-3")
        first, last = int(low), int(high) if dash else int(low)
        if last < first:
            raise ValueError(f"the range {part!r} goes backwards")
        if last >= MAX_SHARDS:
            raise ValueError(f"shard ids go up to {MAX_SHARDS - 1}")
        ids.update(range(first, last + 1))
    return tuple(sorted(ids))


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
    # postgresql://user:password@host:port/database selects PostgreSQL instead of the
    # SQLite file. SecretStr: the URL may carry a password.
    database_url: SecretStr | None = None
    # PostgreSQL connections per process for moves (and as many again for reads).
    database_pool_size: int = Field(default=10, ge=1, le=100)

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        scheme = value.get_secret_value().split(":", 1)[0].lower()
        if scheme not in ("postgres", "postgresql"):
            # Never echo the URL: it may hold a password.
            raise ValueError("must be a postgresql:// URL (leave it unset for SQLite)")
        return value

    def uses_postgresql(self) -> bool:
        return self.database_url is not None

    @property
    def health_file(self) -> Path:
        """The heartbeat the running bot writes and ``python -m bot healthcheck`` reads:
        beside the database, so one folder (the Docker volume) holds all the bot writes."""
        return self.database_path.with_name(self.database_path.name + ".health")


class Settings(StorageSettings):
    # The bot token: SecretStr so it never shows in a repr, a log line or an error.
    discord_token: SecretStr = Field(min_length=1)
    # Several processes, each owning some gateway shards: SHARD_COUNT in all, and this
    # process's SHARD_IDS ("0-3", "4,5"). Unset: one process runs every shard.
    shard_count: int | None = Field(default=None, ge=1, le=MAX_SHARDS)
    shard_ids: ShardIds | None = None
    # When set, commands sync to this one guild at once (development); else globally.
    dev_guild_id: int | None = Field(default=None, gt=0)
    log_level: LogLevel = "INFO"
    # "json": one JSON object a line, for hosts who ship their logs somewhere.
    log_format: LogFormat = "text"
    # Where pictures are drawn: a helper process (the bot's own process keeps its GIL for
    # the games), or a thread in the bot's process (one process less, for a small host);
    # auto: the helper process when the bot may run on two CPUs or more.
    picture_worker: PictureWorker = "auto"

    # Game defaults; each server can change them with /dicebot settings.
    turn_timeout_seconds: int = Field(default=300, ge=30, le=86_400)
    round_timeout_seconds: int = Field(default=180, ge=30, le=86_400)
    challenge_expiry_seconds: int = Field(default=300, ge=30, le=86_400)
    betting_window_seconds: int = Field(default=20, ge=5, le=600)
    house_setup_seconds: int = Field(default=60, ge=10, le=3_600)
    lobby_expiry_seconds: int = Field(default=1_800, ge=60, le=86_400)
    provisional_games: int = Field(default=3, ge=0, le=100)

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _parse_shard_ids(cls, value: object) -> object:
        return parse_shard_ids(value) if isinstance(value, str | int) else value

    @model_validator(mode="after")
    def _shards_fit(self) -> Settings:
        if self.shard_ids is not None:
            if self.shard_count is None:
                raise ValueError("SHARD_IDS needs SHARD_COUNT (the total over all processes)")
            outside = [shard for shard in self.shard_ids if shard >= self.shard_count]
            if outside:
                raise ValueError(
                    f"SHARD_IDS {outside[0]} is not below SHARD_COUNT {self.shard_count}"
                )
        return self

    def shard_plan(self) -> tuple[int | None, list[int] | None]:
        """(shard_count, this process's shard ids): (None, None) lets discord.py ask
        Discord and run every shard here."""
        if self.shard_count is None:
            return None, None
        ids = list(self.shard_ids) if self.shard_ids is not None else None
        return self.shard_count, ids

    def syncs_commands(self) -> bool:
        """One process syncs the slash commands: the one that runs shard 0."""
        return self.shard_ids is None or 0 in self.shard_ids

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
    if not first["loc"]:
        # A check across settings (SHARD_IDS against SHARD_COUNT): its text names them.
        return "settings are invalid: " + first["msg"].removeprefix("Value error, ")
    name = ".".join(str(part) for part in first["loc"])
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
