"""Per-server game settings: defaults from the bot's Settings, overrides in the database
(``bot.storage.guild_settings``)."""

from __future__ import annotations

import json
import logging
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.config import Settings
from bot.i18n import LANGUAGES
from bot.storage import Connection, Database
from bot.storage.guild_settings import save_settings, stored_settings

log = logging.getLogger(__name__)


class GuildSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    turn_timeout_seconds: int = Field(default=300, ge=30, le=86_400)
    round_timeout_seconds: int = Field(default=180, ge=30, le=86_400)
    challenge_expiry_seconds: int = Field(default=300, ge=30, le=86_400)
    betting_window_seconds: int = Field(default=20, ge=5, le=600)
    house_setup_seconds: int = Field(default=60, ge=10, le=3_600)
    lobby_expiry_seconds: int = Field(default=1_800, ge=60, le=86_400)
    provisional_games: int = Field(default=3, ge=0, le=100)
    # The language public game messages speak (a code of bot.i18n.LANGUAGES); None follows
    # the server's own Discord language.
    language: str | None = None
    # Who may open a tournament (/tournament new): members with Manage Server only, or,
    # when True, any member (who then hosts it: starts it, removes players, cancels it).
    tournaments_by_anyone: bool = False

    @field_validator("language")
    @classmethod
    def _shipped_language(cls, value: str | None) -> str | None:
        if value is not None and value not in LANGUAGES:
            raise ValueError(f"not a language the bot speaks: {value!r}")
        return value

    @classmethod
    def from_settings(cls, settings: Settings) -> GuildSettings:
        return cls.model_validate(
            {name: getattr(settings, name) for name in cls.model_fields if hasattr(settings, name)}
        )


def setting_bounds(field: str) -> tuple[int, int]:
    """The lowest and highest value a setting accepts (its ``ge`` and ``le``)."""
    low = high = None
    for rule in GuildSettings.model_fields[field].metadata:
        low = getattr(rule, "ge", low)
        high = getattr(rule, "le", high)
    assert low is not None and high is not None, field
    return low, high


async def load_guild_settings(
    conn: Connection, guild_id: int, defaults: GuildSettings
) -> GuildSettings:
    stored = await stored_settings(conn, guild_id)
    return stored_guild_settings(stored, guild_id, defaults)


def stored_guild_settings(
    stored: str | None, guild_id: int, defaults: GuildSettings
) -> GuildSettings:
    """The server's settings from its stored overrides (``guild_settings.settings``)."""
    if stored is None:
        return defaults
    overrides: dict[str, Any] = json.loads(stored)
    # model_copy(update=...) does not validate: a row saved by an older version (other
    # bounds, a renamed field) would put out-of-range or mistyped timeouts into every game
    # of the server. Each valid override applies; an invalid one falls back to the default.
    merged = defaults.model_dump()
    for name, value in overrides.items():
        if name not in GuildSettings.model_fields:
            continue
        try:
            GuildSettings.model_validate({**merged, name: value})
        except ValidationError:
            log.warning("guild %s: ignoring invalid stored setting %s=%r", guild_id, name, value)
            continue
        merged[name] = value
    return GuildSettings.model_validate(merged)


async def save_guild_overrides(
    conn: Connection, guild_id: int, overrides: dict[str, Any], now: float
) -> None:
    await save_settings(conn, guild_id, json.dumps(overrides, sort_keys=True), now)


def stored_overrides(stored: str | None) -> dict[str, Any]:
    """The overrides a server stored (``stored_settings``), unchecked: the known settings
    only, none from an unreadable text."""
    if stored is None:
        return {}
    try:
        data = json.loads(stored)
    except ValueError:
        return {}
    return {k: v for k, v in data.items() if k in GuildSettings.model_fields}


async def change_guild_settings(
    db: Database,
    guild_id: int,
    changes: dict[str, Any],
    *,
    defaults: GuildSettings,
    now: float,
) -> GuildSettings:
    """Apply ``changes`` (field -> value; a ``language`` of None: follow the server's own)
    to the server's stored overrides, in one transaction that holds its row; returns the
    server's settings now. Raises pydantic's ValidationError, changing nothing, when the
    result is not valid (the changes, or an override stored by an older version)."""
    async with db.transaction() as conn:
        overrides = {
            **stored_overrides(await stored_settings(conn, guild_id, lock=True)),
            **changes,
        }
        if overrides.get("language", "") is None:
            del overrides["language"]
        current = GuildSettings.model_validate({**defaults.model_dump(), **overrides})
        await save_guild_overrides(conn, guild_id, overrides, now)
    return current
