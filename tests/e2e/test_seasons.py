"""Seasons end to end on the fake Discord: ``/dicebot season new`` asks first and then
closes the season; its final standings read back unchanged, through later games and a
restart, while the new season ranks from zero; games in progress count where they end;
games against the AI are never ranked; ``/dicebot season list`` and ``/leaderboard
season:``; the confirmation's refusals change nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import discord
import pytest
from fakediscord import (
    CallbackType,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    Player,
    wait_for_answer,
)
from leaderboard_support import ladder_snapshot, win

from bot.app import DiceBot
from bot.model.clock import ManualClock
from bot.play.guild_settings import save_guild_overrides

MakeMember = Callable[..., Awaitable[Player]]
KB = "knucklebones"
CLOSE = "Close the season"


@pytest.fixture
async def admin(make_member: MakeMember) -> Player:
    return await make_member("admin", permissions=discord.Permissions(manage_guild=True))


async def set_provisional(bot: DiceBot, guild_id: int, games: int) -> None:
    async with bot.db.transaction() as conn:
        await save_guild_overrides(conn, guild_id, {"provisional_games": games}, bot.clock.now())


def ranked_lines(message: FakeMessage) -> list[str]:
    """The ranked rows of a leaderboard embed."""
    assert message.embed is not None
    description = str(message.embed.get("description", ""))
    return [line for line in description.splitlines() if line.startswith("`")][1:]


def standings(message: FakeMessage) -> list[tuple[str, str]]:
    """Each ranked row as (rank, the rest but the name): a player's name on a board is the
    one they last played under, which a later game may change; their standing may not."""
    rows = []
    for line in ranked_lines(message):
        rank, rest = line.split(" ", 2)[1], line.split(" · ", 1)[1]
        rows.append((rank, rest))
    return rows


def title(message: FakeMessage) -> str:
    assert message.embed is not None
    return str(message.embed.get("title", ""))


async def board(player: Player, **options: object) -> FakeMessage:
    answer = await player.slash("leaderboard", game=KB, **options)
    assert answer.message is not None, answer.text()
    return answer.message


async def test_a_closed_season_reads_back_frozen_while_the_new_one_ranks_from_zero(
    running_bot: DiceBot,
    bot_factory,
    guild: FakeGuild,
    admin: Player,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    channel = guild.default_channel.id
    await set_provisional(running_bot, guild.id, 1)
    for _ in range(3):
        await win(running_bot, KB, guild.id, channel, alice.id, bob.id)
    await win(running_bot, KB, guild.id, channel, carol.id, bob.id)
    before = await board(alice)
    assert title(before) == "🏆 Knucklebones leaderboard — Season 1"
    season_one = ranked_lines(before)
    # Players read by the name they last played under (finish_game seats "player<id>").
    assert len(season_one) == 3 and f" player{alice.id} · " in season_one[0]

    asked = await admin.slash("dicebot season new", name="Spring 🌸", game=KB)
    assert asked.ephemeral and asked.message is not None
    text = asked.text()
    assert "**Knucklebones**: Season 1 (3 players) → **Season 2 · Spring 🌸**" in text
    assert "/leaderboard shows them with **Knucklebones** and season **1** picked." in admin.reads(
        asked.message
    )
    assert "Games being played now count in the new season when they finish." in text
    assert asked.message.labels() == [CLOSE, "Keep it"]

    done = await admin.click(asked.message, CLOSE)
    assert done.type is CallbackType.UPDATE_MESSAGE and asked.message.buttons() == []
    assert (
        "Season 1 closed with 3 players (final standings: /leaderboard, season **1**); "
        "**Season 2 · Spring 🌸** has begun." in admin.reads(asked.message)
    )

    # The new season is empty; the old one is there, final, exactly as it was.
    fresh = await board(alice)
    assert title(fresh) == "🏆 Knucklebones leaderboard — Season 2 · Spring 🌸"
    assert "No finished Knucklebones games between players this season yet" in fresh.text()
    final = await board(alice, season=1)
    assert title(final) == "🏆 Knucklebones leaderboard — Season 1"
    assert "**Final standings** of a closed season" in final.text()
    assert ranked_lines(final) == season_one

    # A game now counts in season 2 only, from a fresh rating.
    await win(running_bot, KB, guild.id, channel, bob.id, carol.id)
    now = await board(alice)
    assert [line.split(" · ")[0] for line in ranked_lines(now)] == [
        f"` 1` player{bob.id}",
        f"` 2` player{carol.id}",
    ]
    assert " · 1/0/0 · 1 · " in ranked_lines(now)[0]
    assert ranked_lines(await board(alice, season=1)) == season_one

    # Lifetime records and the history stay whole.
    stats = await alice.slash("stats")
    field = next(f["value"] for f in stats.message.embed["fields"] if f["name"] == "Knucklebones")  # type: ignore[index, union-attr]
    assert "Season 2 · Spring 🌸: no games against other players yet this season." in field
    assert "All time: W/L/D **3/0/0**" in field
    history = await alice.slash("history", game=KB)
    assert history.text().count(f"player{alice.id} beat player{bob.id}") == 3

    # Seasons survive a restart.
    bot = await bot_factory.restart()
    assert ranked_lines(await board(alice, season=1)) == season_one
    assert title(await board(alice)).endswith("Season 2 · Spring 🌸")
    listed = await alice.slash("dicebot season list", game=KB)
    assert listed.ephemeral
    assert "Now: **Season 2 · Spring 🌸**" in listed.text()
    assert "Season 1, <t:" in listed.text()
    assert f"🏆 player{alice.id} · 3 players ranked" in listed.text()
    assert bot is not running_bot


async def test_a_game_in_progress_counts_where_it_ends_and_the_ai_is_never_ranked(
    running_bot: DiceBot,
    guild: FakeGuild,
    admin: Player,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    await set_provisional(running_bot, guild.id, 1)
    await win(running_bot, KB, guild.id, guild.default_channel.id, alice.id, bob.id)
    challenge = await alice.slash("knucklebones challenge", opponent=bob)
    assert challenge.message is not None
    await bob.click(challenge.message, "Accept")
    against_ai = await carol.slash("knucklebones ai")
    assert not against_ai.ephemeral
    season_one = standings(await board(alice))

    asked = await admin.slash("dicebot season new", game=KB)
    assert asked.message is not None
    await admin.click(asked.message, CLOSE)

    # Both games end after the close: the duel counts in season 2; the AI game nowhere.
    forfeit = await alice.slash("knucklebones forfeit")
    assert not forfeit.lost
    await carol.slash("knucklebones forfeit")
    rows = await running_bot.db.fetch_all(
        "SELECT vs_ai, season FROM results WHERE guild_id = ? ORDER BY id", (guild.id,)
    )
    assert [(row["vs_ai"], row["season"]) for row in rows] == [(0, 1), (0, 2), (1, None)]
    assert standings(await board(alice, season=1)) == season_one
    now = ranked_lines(await board(alice))
    assert len(now) == 2 and f" {bob.name.title()} · " in now[0]
    ranked = await running_bot.db.fetch_all(
        "SELECT user_id FROM season_ratings WHERE guild_id = ? AND season = 2", (guild.id,)
    )
    assert sorted(row["user_id"] for row in ranked) == sorted([alice.id, bob.id])
    stats = await carol.slash("stats")
    assert "vs the AI (not ranked): 0/1/0" in stats.text()


async def test_closing_every_game_at_once_leaves_other_servers_alone(
    running_bot: DiceBot,
    bot_factory,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    admin: Player,
    alice: Player,
    bob: Player,
) -> None:
    other = await fake_discord.create_guild("Other Hall")
    await win(running_bot, "diceman", guild.id, guild.default_channel.id, alice.id, bob.id)
    await win(running_bot, KB, other.id, other.default_channel.id, alice.id, bob.id)
    asked = await admin.slash("dicebot season new", name="Summer")
    assert asked.message is not None
    for game in ("Knucklebones", "Diceman", "Weighted Dice", "Dimension Duel"):
        assert f"**{game}**: Season 1" in asked.text()
    # The confirmation outlives a restart.
    bot = await bot_factory.restart()
    await admin.click(asked.message, CLOSE)
    assert "🏁 **New season started.**" in asked.message.text()
    rows = await bot.db.fetch_all(
        "SELECT guild_id, game, number, name FROM season_current ORDER BY guild_id, game"
    )
    assert [tuple(row) for row in rows] == [
        (guild.id, "diceman", 2, "Summer"),
        (guild.id, "dimension_duel", 2, "Summer"),
        (guild.id, "knucklebones", 2, "Summer"),
        (guild.id, "weighted_dice", 2, "Summer"),
        (other.id, KB, 1, ""),
    ]


async def test_old_page_buttons_keep_showing_the_season_they_were_made_for(
    running_bot: DiceBot, guild: FakeGuild, admin: Player, alice: Player, bob: Player
) -> None:
    await set_provisional(running_bot, guild.id, 1)
    for loser in range(10, 22):  # alice and 12 others: two pages
        await win(running_bot, KB, guild.id, guild.default_channel.id, alice.id, loser)
    old = await board(alice)
    assert "page 1/2" in old.text()
    asked = await admin.slash("dicebot season new", game=KB)
    assert asked.message is not None
    await admin.click(asked.message, CLOSE)
    await alice.click(old, "Next ▶")
    assert title(old) == "🏆 Knucklebones leaderboard — Season 1" and "page 2/2" in old.text()
    assert "**Final standings** of a closed season" in old.text()


async def test_refusals_change_nothing(
    running_bot: DiceBot,
    clock: ManualClock,
    guild: FakeGuild,
    admin: Player,
    make_member: MakeMember,
    alice: Player,
    bob: Player,
) -> None:
    await win(running_bot, KB, guild.id, guild.default_channel.id, alice.id, bob.id)
    before = await ladder_snapshot(running_bot)

    # Keep it.
    asked = await admin.slash("dicebot season new", game=KB)
    assert asked.message is not None
    await admin.click(asked.message, "Keep it")
    assert "Nothing was changed" in asked.message.text() and asked.message.buttons() == []
    assert await ladder_snapshot(running_bot) == before

    # An old one expires.
    other_admin = await make_member("dana", permissions=discord.Permissions(manage_guild=True))
    asked = await admin.slash("dicebot season new", game=KB)
    assert asked.message is not None
    clock.advance(301)
    await admin.click(asked.message, CLOSE)
    assert "This confirmation expired, so nothing was changed" in asked.message.text()
    assert await ladder_snapshot(running_bot) == before

    # Two confirmations for the same season: the second finds it closed and changes nothing.
    first = await admin.slash("dicebot season new", game=KB)
    second = await other_admin.slash("dicebot season new", game=KB, name="Twice")
    assert first.message is not None and second.message is not None
    await admin.click(first.message, CLOSE)
    after_first = await ladder_snapshot(running_bot)
    late = await other_admin.click(second.message, CLOSE)
    assert late.ephemeral and "season 1 was closed meanwhile" in late.text()
    assert await ladder_snapshot(running_bot) == after_first

    # Unknown seasons, blank names.
    unknown = await alice.slash("leaderboard", game=KB, season=5)
    assert unknown.ephemeral
    assert "There is no season 5: Knucklebones seasons here run up to 2" in unknown.text()
    blank = await admin.slash("dicebot season new", name="   ")
    assert blank.ephemeral and "at least one visible character" in blank.text()
    assert await ladder_snapshot(running_bot) == after_first

    # A confirmation left unanswered is cleared once it has expired.
    await admin.slash("dicebot season new", game=KB)
    clock.advance(301)
    await admin.slash("dicebot season new", game=KB)
    pending = await running_bot.db.fetch_all("SELECT id FROM season_requests")
    assert len(pending) == 1


async def test_keep_pressed_while_close_closes_the_season_says_it_closed(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    admin: Player,
    alice: Player,
    bob: Player,
) -> None:
    """Close the season and Keep it pressed at once: Keep reads the request before Close
    commits and tries to delete it after. It must not say the seasons go on."""
    await win(running_bot, KB, guild.id, guild.default_channel.id, alice.id, bob.id)
    asked = await admin.slash("dicebot season new", game=KB)
    message = asked.message
    assert message is not None
    request = await running_bot.db.fetch_one("SELECT id FROM season_requests")
    assert request is not None
    async with running_bot.db.transaction() as conn:
        # The request's row held (PostgreSQL; on SQLite the write lock): both presses read
        # it, then wait at their first write, Close first.
        await conn.fetch_one(
            "SELECT id FROM season_requests WHERE id = ?" + conn.for_update, (request["id"],)
        )
        close = await admin.begin_click(message, CLOSE)
        # A press still unanswered after 1.5 s is deferred: Close waits at its write.
        assert (await wait_for_answer(close, 5)).type is CallbackType.DEFERRED_UPDATE
        keep = await admin.begin_click(message, "Keep it")
        assert (await wait_for_answer(keep, 5)).type is CallbackType.DEFERRED_UPDATE
    await fake_discord.wait_for(lambda: len(message.history) == 3, what="both answers")

    rows = await running_bot.db.fetch_all("SELECT game, number FROM season_current")
    assert [tuple(row) for row in rows] == [(KB, 2)]  # the season did close
    answers = [version.text for version in message.history[1:]]
    assert all("🏁 **New season started.**" in text for text in answers), answers
    assert not any("the seasons go on" in text for text in answers), answers
    assert any(
        "Too late to keep it: **Close the season** was pressed first." in text for text in answers
    )
    assert "season **1**); **Season 2** has begun." in message.text()
    assert message.buttons() == []


async def test_keep_pressed_after_close_landed_says_the_season_closed(
    running_bot: DiceBot, guild: FakeGuild, admin: Player, alice: Player, bob: Player
) -> None:
    await win(running_bot, KB, guild.id, guild.default_channel.id, alice.id, bob.id)
    asked = await admin.slash("dicebot season new", game=KB)
    message = asked.message
    assert message is not None
    buttons = message.components
    await admin.click(message, CLOSE)
    closed = message.text()
    assert closed.startswith("🏁 **New season started.**")
    after_close = await ladder_snapshot(running_bot)

    # The admin's client had not caught up yet: the buttons were still on screen.
    message.components = buttons
    late = await admin.click(message, "Keep it")
    assert late.type is CallbackType.UPDATE_MESSAGE
    assert message.text() == (
        closed + "\n⚠️ Too late to keep it: **Close the season** was pressed first."
    )
    assert message.buttons() == []
    assert await ladder_snapshot(running_bot) == after_close

    # Close pressed again: the same, and nothing more changes.
    message.components = buttons
    await admin.click(message, CLOSE)
    assert message.text() == (
        closed + "\nThis confirmation was already answered: nothing more was changed."
    )
    assert await ladder_snapshot(running_bot) == after_close


async def test_a_confirmation_after_losing_manage_server_is_refused(
    running_bot: DiceBot, guild: FakeGuild, admin: Player, alice: Player, bob: Player
) -> None:
    await win(running_bot, KB, guild.id, guild.default_channel.id, alice.id, bob.id)
    before = await ladder_snapshot(running_bot)
    asked = await admin.slash("dicebot season new", game=KB)
    assert asked.message is not None
    # The admin's role loses Manage Server while the confirmation is on screen.
    member = guild.members[admin.id]
    for role_id in member.role_ids:
        guild.roles[role_id].permissions &= ~discord.Permissions(manage_guild=True).value
    refused = await admin.click(asked.message, CLOSE)
    assert refused.ephemeral and "Manage Server" in refused.text()
    assert await ladder_snapshot(running_bot) == before
