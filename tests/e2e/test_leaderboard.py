"""/leaderboard end to end on the fake Discord: the empty board, ranking and provisional
players, the three sorts, isolation between servers, and page buttons that survive a
restart. Finished games are recorded through ``record_result`` (the production path)."""

from __future__ import annotations

import re

import discord
import pytest
from fakediscord import BotHarness, CallbackType, FakeDiscord, FakeGuild, FakeMessage, Player
from leaderboard_support import finish_game, rating_row, win
from openskill.models import PlackettLuce

from bot.app import DiceBot
from bot.ladder.results import ordinal
from bot.ladder.standings import leaderboard_page
from bot.play.guild_settings import save_guild_overrides

KB = "knucklebones"


def board_lines(message: FakeMessage) -> list[str]:
    """The ranked rows of a leaderboard embed (after the header line)."""
    assert message.embed is not None
    description = str(message.embed.get("description", ""))
    return [line for line in description.splitlines() if line.startswith("`")][1:]


def ranked_ids(message: FakeMessage) -> list[int]:
    """The ranked players' ids, from the names rows show (``finish_game`` names each
    player ``player<id>``): a row names a player, never mentions them."""
    ids = []
    for line in board_lines(message):
        assert "<@" not in line, line
        ids.append(int(re.search(r"player([0-9]+)", line)[1]))  # type: ignore[index]
    return ids


async def set_provisional(bot: DiceBot, guild_id: int, games: int) -> None:
    async with bot.db.transaction() as conn:
        await save_guild_overrides(conn, guild_id, {"provisional_games": games}, bot.clock.now())


async def test_an_empty_board_says_how_to_start_a_game(running_bot: DiceBot, alice: Player) -> None:
    answer = await alice.slash("leaderboard", game=KB)
    assert answer.type is CallbackType.MESSAGE and not answer.ephemeral
    text = answer.text()
    assert "Knucklebones leaderboard" in text
    assert "No finished Knucklebones games" in text
    # The commands as mentions, clickable, with the ids the sync gave them.
    knucklebones = running_bot.command_ids.id_of("knucklebones")
    assert f"</knucklebones challenge:{knucklebones}>" in text
    assert f"</knucklebones ai:{knucklebones}>" in text
    assert answer.message is not None and answer.message.buttons() == []

    for game, command in (
        ("weighted_dice", "/weighted new"),
        ("diceman", "/diceman challenge"),
        ("dimension_duel", "/duel challenge"),
    ):
        other = await alice.slash("leaderboard", game=game)
        assert other.message is not None
        assert command in alice.reads(other.message), game


async def test_ranked_and_provisional_players_are_listed_apart(
    running_bot: DiceBot, guild: FakeGuild, alice: Player, bob: Player, carol: Player
) -> None:
    channel = guild.default_channel.id
    for _ in range(3):
        await win(running_bot, KB, guild.id, channel, alice.id, bob.id)
    await win(running_bot, KB, guild.id, channel, carol.id, bob.id)

    answer = await alice.slash("leaderboard", game=KB)
    message = answer.message
    assert message is not None
    # alice (3 games) and bob (4) are ranked, carol (1 game of 3) is provisional.
    assert ranked_ids(message) == [alice.id, bob.id]
    first, second = board_lines(message)
    assert first.startswith("` 1` ") and second.startswith("` 2` ")
    # Ratings as players read them: whole numbers from 1,000 up or down, never negative.
    # bob lost all four games: his stored estimate (mu - 3 sigma) is -5.2, shown as 843.
    assert "**1,252** · 3/0/0 · 3 · 🔥 W3" in first
    assert "**843** · 0/4/0 · 4 · L4" in second
    bob_rating = await rating_row(running_bot, guild.id, KB, bob.id)
    assert ordinal(bob_rating["mu"], bob_rating["sigma"]) == pytest.approx(-5.217, abs=1e-3)

    assert message.embed is not None
    fields = message.embed.get("fields") or []
    assert [f["name"] for f in fields] == ["Provisional (fewer than 3 games)"]
    assert fields[0]["value"].startswith(f"player{carol.id} · 1,087 · ")
    assert "1 of 3" in fields[0]["value"]
    # One line says what the number means.
    assert "rating: a cautious estimate of skill, starting at 1,000" in message.text()
    assert "Sorted by rating · page 1/1 · 2 ranked" in message.text()
    assert message.buttons() == []  # one page: no page buttons


async def test_ai_games_are_recorded_but_not_ranked(
    running_bot: DiceBot, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    bot_id = running_bot.user.id if running_bot.user else 1
    for _ in range(4):
        await finish_game(
            running_bot,
            game=KB,
            guild_id=guild.id,
            channel_id=guild.default_channel.id,
            players=[alice.id, bot_id],
            ranks=[1, 2],
            ai=[bot_id],
        )
    board = await alice.slash("leaderboard", game=KB)
    assert "No finished Knucklebones games" in board.text()
    stored = await rating_row(running_bot, guild.id, KB, alice.id)
    assert (stored["games"], stored["ai_wins"]) == (0, 4)


async def test_sorting_by_wins_and_by_win_rate(
    running_bot: DiceBot,
    guild: FakeGuild,
    make_member,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    dave = await make_member("dave")
    channel = guild.default_channel.id
    await set_provisional(running_bot, guild.id, 1)
    # alice beats carol 4 times and dave once, loses twice to bob and once to dave:
    # 5 wins of 8 (62.5%). bob 2 of 2 (100%), dave 1 of 2 (50%), carol 0 of 4.
    for _ in range(2):
        await win(running_bot, KB, guild.id, channel, bob.id, alice.id)
    for _ in range(4):
        await win(running_bot, KB, guild.id, channel, alice.id, carol.id)
    await win(running_bot, KB, guild.id, channel, dave.id, alice.id)
    await win(running_bot, KB, guild.id, channel, alice.id, dave.id)
    by_wins = await alice.slash("leaderboard", game=KB, sort="wins")
    assert by_wins.message is not None
    assert ranked_ids(by_wins.message) == [alice.id, bob.id, dave.id, carol.id]
    assert "Sorted by wins" in by_wins.text()

    by_rate = await alice.slash("leaderboard", game=KB, sort="win rate")
    assert by_rate.message is not None
    assert ranked_ids(by_rate.message) == [bob.id, alice.id, dave.id, carol.id]
    assert "Sorted by win rate" in by_rate.text()


async def test_leaderboards_are_isolated_per_server(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    other = await fake_discord.create_guild("Other Hall")
    await set_provisional(running_bot, guild.id, 1)
    await set_provisional(running_bot, other.id, 1)
    # bob dominates the other server; here only alice and bob's one game counts.
    for _ in range(5):
        await win(running_bot, KB, other.id, other.default_channel.id, bob.id, alice.id)
    await win(running_bot, KB, guild.id, guild.default_channel.id, alice.id, bob.id)

    here = await alice.slash("leaderboard", game=KB)
    assert here.message is not None
    assert ranked_ids(here.message) == [alice.id, bob.id]
    assert "1/0/0 · 1" in board_lines(here.message)[0]
    assert "0/1/0 · 1" in board_lines(here.message)[1]

    there = await leaderboard_page(running_bot.db, other.id, KB, provisional_games=1)
    assert [(r.rank, r.standing.user_id, r.standing.wins) for r in there.rows] == [
        (1, bob.id, 5),
        (2, alice.id, 0),
    ]
    # Separate ratings per server: the same two players, different numbers.
    assert (await rating_row(running_bot, other.id, KB, bob.id))["games"] == 5
    assert (await rating_row(running_bot, guild.id, KB, bob.id))["games"] == 1


async def seed_players(bot: DiceBot, guild: FakeGuild, count: int) -> list[int]:
    """``count`` players with one game each (pairs), ids as in the fake."""
    users = [900_000 + i for i in range(count)]
    for winner, loser in zip(users[::2], users[1::2], strict=True):
        await win(bot, KB, guild.id, guild.default_channel.id, winner, loser)
    return users


async def test_page_buttons_move_through_the_board_and_survive_a_restart(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    await set_provisional(bot, guild.id, 1)
    await seed_players(bot, guild, 24)
    expected = [
        r.standing.user_id
        for page in (1, 2, 3)
        for r in (await leaderboard_page(bot.db, guild.id, KB, page=page, provisional_games=1)).rows
    ]
    assert len(expected) == 24 and len(set(expected)) == 24

    answer = await alice.slash("leaderboard", game=KB)
    board = answer.message
    assert board is not None
    assert ranked_ids(board) == expected[:10]
    assert board.labels() == ["◀ Previous", "Next ▶"]
    assert board.buttons()[0].get("disabled") is True
    assert "page 1/3 · 24 ranked" in board.text()

    turned = await alice.click(board, "Next ▶")
    assert turned.type is CallbackType.UPDATE_MESSAGE and turned.message is board
    assert ranked_ids(board) == expected[10:20]
    assert board_lines(board)[0].startswith("`11` ")

    # A restart in the middle: the buttons carry everything they need.
    await bot_factory.restart()
    await alice.click(board, "Next ▶")
    assert ranked_ids(board) == expected[20:]
    assert "page 3/3" in board.text()
    assert board.buttons()[1].get("disabled") is True
    await alice.click(board, "◀ Previous")
    assert ranked_ids(board) == expected[10:20]

    # Asking for a page past the end shows the last one.
    late = await alice.slash("leaderboard", game=KB, page=9)
    assert late.message is not None and ranked_ids(late.message) == expected[20:]


async def test_a_played_knucklebones_forfeit_lands_on_the_board(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    make_member,
    alice: Player,
    bob: Player,
) -> None:
    admin = await make_member("admin", permissions=discord.Permissions(manage_guild=True))
    saved = await admin.slash("dicebot settings", provisional_games=1)
    assert saved.ephemeral and "Saved" in saved.text()

    challenge = await alice.slash("knucklebones challenge", opponent=bob, first="me")
    assert challenge.message is not None
    await bob.click(challenge.message, "Accept")
    forfeit = await bob.slash("knucklebones forfeit")
    assert forfeit.type is CallbackType.MESSAGE

    board = await alice.slash("leaderboard", game=KB)
    assert board.message is not None
    # Rows name the players as they played (their display names), with no mention; one
    # win is not a streak worth a flame yet.
    first, second = board_lines(board.message)
    assert first.startswith("` 1` Alice · ") and first.endswith("1/0/0 · 1 · W1")
    assert second.startswith("` 2` Bob · ") and second.endswith("0/1/0 · 1 · L1")
    footer = str((board.message.embed or {}).get("footer", {}).get("text", ""))
    assert "μ" not in footer and "σ" not in footer and "cautious estimate of skill" in footer

    # The ratings are openskill's for one win from the default rating.
    model = PlackettLuce()
    [[winner], [loser]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    for player, expected in ((alice, winner), (bob, loser)):
        row = await rating_row(running_bot, guild.id, KB, player.id)
        assert row["mu"] == pytest.approx(expected.mu)
        assert row["sigma"] == pytest.approx(expected.sigma)
    result = await running_bot.db.fetch_one("SELECT reason FROM results")
    assert result is not None and result["reason"] == "forfeit"
