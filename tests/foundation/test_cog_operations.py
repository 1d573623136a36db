"""What the cogs ask of the runtime rather than of the database, on both backends: the open
games in a channel (``/dicebot cancel``, ``/weighted end``) and a change of a server's
settings (``/dicebot settings``), which validates the whole result and otherwise changes
nothing."""

from __future__ import annotations

import json

import pytest
from foundation_support import ALICE, BOB, CAROL, CHANNEL, GAME, GUILD, new_counter, seats
from pydantic import ValidationError

from bot.play.guild_settings import (
    GuildSettings,
    change_guild_settings,
    load_guild_settings,
    save_guild_overrides,
)
from bot.play.sessions import SessionService
from bot.storage import Database

OTHER_CHANNEL = CHANNEL + 1
DAVE = 44


async def stored(db: Database, guild_id: int) -> dict[str, object] | None:
    row = await db.fetch_one("SELECT settings FROM guild_settings WHERE guild_id = ?", (guild_id,))
    return None if row is None else json.loads(row["settings"])


async def test_open_games_in_a_channel_oldest_first(db: Database, service: SessionService) -> None:
    first = await new_counter(service, ALICE)
    elsewhere = await new_counter(service, BOB, channel_id=OTHER_CHANNEL)
    ended = await new_counter(service, BOB)
    await service.cancel(ended.id, BOB, "stopped")
    second = await new_counter(service, CAROL)
    # Another server's game under the same channel id (a forged id must not reach it).
    foreign = await service.create(
        game=GAME,
        guild_id=GUILD + 1,
        channel_id=CHANNEL,
        created_by=DAVE,
        seats=seats(DAVE),
        state={"n": 0},
        status="active",
    )

    assert await service.open_in_channel(CHANNEL) == [first.id, second.id, foreign.id]
    assert await service.open_in_channel(CHANNEL, guild_id=GUILD) == [first.id, second.id]
    assert await service.open_in_channel(CHANNEL, game=GAME) == [first.id, second.id, foreign.id]
    assert await service.open_in_channel(CHANNEL, guild_id=GUILD, game="other") == []
    assert await service.open_in_channel(OTHER_CHANNEL, guild_id=GUILD) == [elsewhere.id]
    assert await service.open_in_channel(CHANNEL + 2) == []


async def test_a_settings_change_keeps_the_other_overrides(db: Database) -> None:
    defaults = GuildSettings()
    async with db.transaction() as conn:
        await save_guild_overrides(conn, GUILD, {"turn_timeout_seconds": 90, "language": "fr"}, 1.0)
    current = await change_guild_settings(
        db, GUILD, {"round_timeout_seconds": 120}, defaults=defaults, now=2.0
    )
    assert (current.turn_timeout_seconds, current.round_timeout_seconds) == (90, 120)
    assert current.language == "fr"
    assert await stored(db, GUILD) == {
        "language": "fr",
        "round_timeout_seconds": 120,
        "turn_timeout_seconds": 90,
    }
    # A language of None follows the server's own again: the override goes.
    current = await change_guild_settings(db, GUILD, {"language": None}, defaults=defaults, now=3.0)
    assert current.language is None
    assert await stored(db, GUILD) == {"round_timeout_seconds": 120, "turn_timeout_seconds": 90}
    async with db.read() as conn:
        assert await load_guild_settings(conn, GUILD, defaults) == current
    # A server with nothing stored starts from the defaults.
    fresh = await change_guild_settings(
        db, GUILD + 1, {"provisional_games": 0}, defaults=defaults, now=4.0
    )
    assert fresh == defaults.model_copy(update={"provisional_games": 0})


async def test_a_settings_change_out_of_bounds_changes_nothing(db: Database) -> None:
    defaults = GuildSettings()
    async with db.transaction() as conn:
        await save_guild_overrides(conn, GUILD, {"turn_timeout_seconds": 90}, 1.0)
    with pytest.raises(ValidationError):
        await change_guild_settings(
            db,
            GUILD,
            {"round_timeout_seconds": 120, "betting_window_seconds": 1},
            defaults=defaults,
            now=2.0,
        )
    assert await stored(db, GUILD) == {"turn_timeout_seconds": 90}
    with pytest.raises(ValidationError):
        await change_guild_settings(db, GUILD + 1, {"language": "xx"}, defaults=defaults, now=2.0)
    assert await stored(db, GUILD + 1) is None
