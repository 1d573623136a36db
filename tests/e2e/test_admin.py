"""/dicebot settings and cancel end to end on the fake Discord: refused without Manage
Server, validated with clear errors, and doing exactly what they say. (Seasons, the other
admin command, are in test_seasons.py.)"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord
import pytest
from fakediscord import CallbackType, FakeDiscord, FakeGuild, Player
from leaderboard_support import ladder_snapshot, win

from bot.app import DiceBot

MakeMember = Callable[..., Awaitable[Player]]


@pytest.fixture
async def admin(make_member: MakeMember) -> Player:
    return await make_member("admin", permissions=discord.Permissions(manage_guild=True))


async def stored_settings(bot: DiceBot, guild_id: int) -> Any:
    return await bot.db.fetch_one(
        "SELECT settings FROM guild_settings WHERE guild_id = ?", (guild_id,)
    )


# -- permissions ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("dicebot settings", {"turn_timeout": 60}),
        ("dicebot settings", {}),
        ("dicebot cancel", {}),
        ("dicebot season new", {"game": "knucklebones"}),
        ("dicebot season new", {"name": "Spring"}),
    ],
)
async def test_members_without_manage_server_are_refused(
    running_bot: DiceBot,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    command: str,
    options: dict[str, Any],
) -> None:
    await win(running_bot, "knucklebones", guild.id, guild.default_channel.id, alice.id, bob.id)
    challenge = await alice.slash("knucklebones challenge", opponent=bob)
    before = await ladder_snapshot(running_bot)
    # Discord shows subcommands of /dicebot to everyone (default permissions only work on
    # a top-level command, and /dicebot check is for all): the bot itself refuses.
    refused = await alice.slash(command, options=options)
    assert refused.ephemeral
    assert "Only members with the **Manage Server** permission can" in refused.text()
    assert await stored_settings(running_bot, guild.id) is None
    assert await ladder_snapshot(running_bot) == before
    assert challenge.message is not None and challenge.message.labels() == ["Accept", "Decline"]


async def test_check_stays_open_to_everyone(running_bot: DiceBot, alice: Player) -> None:
    answer = await alice.slash("dicebot check")
    assert answer.type is CallbackType.DEFERRED_MESSAGE
    final = await answer.final_message()
    assert "every permission I need" in final.text()


# -- settings ------------------------------------------------------------------------------------


async def test_settings_without_options_shows_the_current_values(
    running_bot: DiceBot, admin: Player
) -> None:
    answer = await admin.slash("dicebot settings")
    assert answer.ephemeral
    text = answer.text()
    assert "Nothing changed" in text
    assert "**Turn timeout (Knucklebones)**: 300 s (5 min) (`turn_timeout`, 30–86400)" in text
    assert "**Provisional threshold**: 3 games (`provisional_games`, 0–100)" in text
    assert "*changed*" not in text


async def test_settings_are_saved_and_used_by_new_games(
    running_bot: DiceBot, guild: FakeGuild, admin: Player, alice: Player, bob: Player
) -> None:
    answer = await admin.slash(
        "dicebot settings", challenge_expiry=120, betting_window=45, provisional_games=5
    )
    assert answer.ephemeral
    text = answer.text()
    assert "✅ Saved: Challenge expiry → 120 s (2 min)" in text
    assert "Betting window (Weighted Dice) → 45 s" in text
    assert "Provisional threshold → 5 games" in text
    assert "**Challenge expiry**: 120 s (2 min) · *changed*" in text

    settings = await running_bot.sessions.guild_settings(guild.id)
    assert (settings.challenge_expiry_seconds, settings.betting_window_seconds) == (120, 45)
    assert settings.provisional_games == 5
    assert settings.turn_timeout_seconds == 300  # untouched

    # A second change keeps the first ones.
    await admin.slash("dicebot settings", turn_timeout=90)
    settings = await running_bot.sessions.guild_settings(guild.id)
    assert (settings.turn_timeout_seconds, settings.challenge_expiry_seconds) == (90, 120)

    # New challenges expire on the new schedule.
    now = running_bot.clock.now()
    await alice.slash("knucklebones challenge", opponent=bob)
    deadline = await running_bot.db.fetch_one(
        "SELECT due_at FROM deadlines WHERE kind = 'challenge_expiry'"
    )
    assert deadline is not None and deadline["due_at"] == pytest.approx(now + 120)


@pytest.mark.parametrize(
    ("options", "messages"),
    [
        (
            {"turn_timeout": 5},
            ["**Turn timeout (Knucklebones)** must be between 30 and 86400 seconds (you gave 5)."],
        ),
        (
            {"betting_window": 601, "provisional_games": -1, "house_setup": 60},
            [
                "**Betting window (Weighted Dice)** must be between 5 and 600 seconds "
                "(you gave 601).",
                "**Provisional threshold** must be between 0 and 100 games (you gave -1).",
            ],
        ),
    ],
)
async def test_invalid_settings_are_refused_clearly_and_change_nothing(
    running_bot: DiceBot,
    guild: FakeGuild,
    admin: Player,
    options: dict[str, int],
    messages: list[str],
) -> None:
    await admin.slash("dicebot settings", lobby_expiry=600)
    before = await stored_settings(running_bot, guild.id)
    refused = await admin.slash("dicebot settings", **options)
    assert refused.ephemeral
    assert refused.text().startswith("Nothing was changed.")
    for message in messages:
        assert message in refused.text()
    after = await stored_settings(running_bot, guild.id)
    assert before is not None and after is not None
    assert after["settings"] == before["settings"]  # the valid house_setup was not saved either


# -- cancel --------------------------------------------------------------------------------------


async def test_cancel_stops_the_games_in_a_channel_without_a_result(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    admin: Player,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    other = await guild.add_channel("games")
    board = (await alice.slash("knucklebones challenge", opponent=bob, first="me")).message
    assert board is not None
    await bob.click(board, "Accept")
    await fake_discord.wait_for(lambda: bool(board.attachments), what="the Knucklebones board")
    pending = (await carol.slash("knucklebones ai")).message
    assert pending is not None
    elsewhere = (await alice.slash("knucklebones ai", channel=other)).message
    assert elsewhere is not None

    answer = await admin.slash("dicebot cancel")
    assert answer.type is CallbackType.DEFERRED_MESSAGE and answer.ephemeral
    final = await answer.final_message()
    assert final.text().startswith(f"🛑 Stopped 2 games in <#{guild.default_channel.id}>")
    assert "No results were recorded." in final.text()

    await fake_discord.wait_for(
        lambda: not board.components and not pending.components,
        what="both boards to lose their buttons",
    )
    assert "The game was stopped by an admin; no result counts." in board.text()
    rows = await running_bot.db.fetch_all("SELECT status, channel_id FROM sessions ORDER BY id")
    assert [row["status"] for row in rows] == ["cancelled", "cancelled", "active"]
    assert await running_bot.db.fetch_all("SELECT * FROM results") == []
    assert elsewhere.components  # the other channel's game goes on

    # The other channel, named explicitly.
    answer = await admin.slash("dicebot cancel", channel=other)
    final = await answer.final_message()
    ai_name = running_bot.user.display_name  # the AI goes by the bot's own name
    assert f"Stopped 1 game in <#{other.id}>: Knucklebones (<@{alice.id}> and {ai_name})" in (
        final.text()
    )
    await fake_discord.wait_for(lambda: not elsewhere.components, what="the third board")

    # Nothing left to stop.
    empty = await admin.slash("dicebot cancel")
    assert "There is no open game in" in (await empty.final_message()).text()
    # The players are free to start again.
    again = await alice.slash("knucklebones challenge", opponent=bob)
    assert again.type is CallbackType.MESSAGE and not again.ephemeral


async def test_cancel_naming_another_servers_channel_is_refused(
    bot_factory: Any,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    admin: Player,
    alice: Player,
) -> None:
    other = await fake_discord.create_guild("Other")
    # Commands everywhere (not only in the test server), as in production.
    bot_factory.options["settings"] = {"dev_guild_id": None}
    running_bot = await bot_factory.start()
    olga = await other.add_member("olga")
    # A game in each server: neither may stop.
    here = (await alice.slash("knucklebones ai")).message
    there = (await olga.slash("knucklebones ai")).message
    assert here is not None and there is not None
    await fake_discord.wait_for(
        lambda: bool(here.components and there.components), what="both boards"
    )
    games = "SELECT id, status, version, state FROM sessions ORDER BY id"
    before = [tuple(row) for row in await running_bot.db.fetch_all(games)]

    # A modified client names the other server's channel.
    refused = await admin.slash("dicebot cancel", options={"channel": other.default_channel})
    assert refused.ephemeral
    assert refused.message is not None
    assert admin.reads(refused.message) == (
        "That channel is in another server: /dicebot cancel stops games in this server "
        "only. Nothing was stopped."
    )
    assert [tuple(row) for row in await running_bot.db.fetch_all(games)] == before
    assert here.components and there.components
    assert "stopped" not in here.text() and "stopped" not in there.text()


async def test_cancelled_duels_and_tables_say_an_admin_stopped_them(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    admin: Player,
    alice: Player,
    bob: Player,
) -> None:
    duel = (await alice.slash("diceman ai")).message
    table = (await bob.slash("weighted new")).message
    assert duel is not None and table is not None
    await fake_discord.wait_for(lambda: bool(duel.components), what="the Diceman controls")

    final = await (await admin.slash("dicebot cancel")).final_message()
    assert final.text().startswith("🛑 Stopped 2 games")

    await fake_discord.wait_for(
        lambda: not duel.components and not table.components, what="both messages to close"
    )
    assert "The game was stopped by an admin; no result counts." in duel.text()
    assert "This game was stopped by an admin; no result was recorded." in table.text()
    assert await running_bot.db.fetch_all("SELECT * FROM results") == []
