"""Games with friends (played outside servers, stored under ``FRIENDS_LADDER``) in what
players read, end to end on the fake Discord: a server's /leaderboard, /stats and /history
never show them; outside servers (a DM between two users, a group DM, a server without the
bot) /stats shows a player's record in every server and with friends, and with ``user:``
the head-to-head record of the two; /history lists the caller's games there, each game
with friends labelled, and its replay menu opens them in private."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fakediscord import (
    BotHarness,
    CallbackType,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    InteractionOutcome,
    Player,
)
from knucklebones_support import board_turn, play_to_the_end
from leaderboard_support import finish_game

from bot.app import DiceBot
from bot.model.contract import FRIENDS_LADDER


@pytest.fixture
async def running_bot(bot_factory: BotHarness) -> DiceBot:
    """The bot with its commands synced globally, as in production: a user-installed
    command reaches it from DMs and servers without it (a guild command could not)."""
    bot_factory.options["settings"] = {"dev_guild_id": None}
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    return bot


def field(embed: dict[str, Any], name: str) -> str:
    for entry in embed.get("fields") or []:
        if entry["name"] == name:
            return str(entry["value"])
    names = [entry["name"] for entry in embed.get("fields") or []]
    raise AssertionError(f"no field {name!r}: {names}")


def shown(player: Player) -> str:
    """The name Discord shows for the player outside servers (their global name)."""
    return player.name.title()


async def private_answer(outcome: InteractionOutcome) -> FakeMessage:
    """What only the presser sees: the answer itself, or (where the bot is no member, a
    press deferred on its message so its token reaches it) the private follow-up."""
    if outcome.type is CallbackType.DEFERRED_UPDATE:
        message = await outcome.followup()
    else:
        assert outcome.message is not None
        message = outcome.message
    assert message.ephemeral
    return message


def embed_of(message: FakeMessage | None) -> dict[str, Any]:
    assert message is not None and message.embed is not None
    return message.embed


async def with_friends(
    bot: DiceBot, channel: FakeChannel, players: list[Player], ranks: list[int], **kw: Any
) -> int:
    """A game between ``players`` played outside servers, in ``channel``; its session id."""
    result_id = await finish_game(
        bot,
        guild_id=FRIENDS_LADDER,
        channel_id=channel.id,
        players=[player.id for player in players],
        ranks=ranks,
        names={player.id: shown(player) for player in players},
        **kw,
    )
    row = await bot.db.fetch_one("SELECT session_id FROM results WHERE id = ?", (result_id,))
    assert row is not None
    return int(row["session_id"])


async def in_server(
    bot: DiceBot, guild: FakeGuild, players: list[Player], ranks: list[int], **kw: Any
) -> int:
    return await finish_game(
        bot,
        guild_id=guild.id,
        channel_id=guild.default_channel.id,
        players=[player.id for player in players],
        ranks=ranks,
        names={player.id: shown(player) for player in players},
        **kw,
    )


async def test_a_servers_leaderboard_stats_and_history_never_show_a_game_with_friends(
    running_bot: DiceBot,
    guild: FakeGuild,
    dm_between: Callable[[Player, Player], FakeChannel],
    alice: Player,
    bob: Player,
) -> None:
    dm = dm_between(alice, bob)
    await in_server(running_bot, guild, [alice, bob], [1, 2], game="knucklebones")
    for _ in range(3):
        await with_friends(running_bot, dm, [bob, alice], [1, 2], game="knucklebones")

    # One game each in the server: both provisional, as if the games with friends (three
    # wins of bob's) had never been played.
    board = await alice.slash("leaderboard", game="knucklebones")
    embed = embed_of(board.message)
    assert field(embed, "Provisional (fewer than 3 games)") == (
        "Alice · 1,103 · 1/0/0 · 1 of 3\nBob · 945 · 0/1/0 · 1 of 3"
    )
    assert " · 0 ranked · " in embed["footer"]["text"]

    stats = await alice.slash("stats")
    knucklebones = field(embed_of(stats.message), "Knucklebones")
    assert "All time: W/L/D **1/0/0** · win rate **100%** · 1 game" in knucklebones
    assert "friends" not in stats.text()
    assert "stats in this server" in stats.text()

    history = await alice.slash("history")
    assert len(embed_of(history.message)["description"].splitlines()) == 1
    assert "friends" not in history.text()


async def test_stats_outside_servers_count_every_server_and_the_games_with_friends(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    dm_between: Callable[[Player, Player], FakeChannel],
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    dm = dm_between(alice, bob)
    elsewhere = dm_between(alice, carol)
    # In the server: alice beats bob, loses to carol. With friends: bob beats her twice,
    # they draw once (DM), and she beats carol (another DM).
    await in_server(running_bot, guild, [alice, bob], [1, 2], game="knucklebones")
    await in_server(running_bot, guild, [alice, carol], [2, 1], game="knucklebones")
    for ranks in ([2, 1], [2, 1]):
        await with_friends(running_bot, dm, [alice, bob], ranks, game="knucklebones")
    await with_friends(running_bot, dm, [alice, bob], [1, 1], draw=True, game="knucklebones")
    await with_friends(
        running_bot,
        elsewhere,
        [alice, carol],
        [1, 2],
        game="diceman",
        summary={"score_line": "Life 7–0"},
    )

    alice.install_app()
    own = await alice.slash("stats", channel=dm)
    assert own.type is CallbackType.MESSAGE and not own.ephemeral
    embed = embed_of(own.message)
    assert embed["title"] == "📊 Alice — stats in every server and with friends"
    knucklebones = field(embed, "Knucklebones")
    assert "All time: W/L/D **1/3/1** · win rate **20%** · 5 games" in knucklebones
    assert "With friends: W/L/D **0/2/1** · 3 games" in knucklebones
    diceman = field(embed, "Diceman")
    assert "All time: W/L/D **1/0/0**" in diceman and "With friends: W/L/D **1/0/0**" in diceman
    # Her games outside servers, newest first, each labelled; none of the server's.
    recent = field(embed, "Last 4 results outside servers").splitlines()
    assert recent[0].startswith("✅ Win · Diceman · 👥 with friends · vs Carol · Life 7–0")
    assert recent[1].startswith("🤝 Draw · Knucklebones · 👥 with friends · vs Bob")
    assert all("👥 with friends" in line and "discord.com" not in line for line in recent)
    assert "Head to head" not in own.text()
    assert "rating **" not in own.text() and "rank **" not in own.text()
    assert embed["footer"]["text"].startswith("Records count the games in every server")
    # Its one message is the command's answer: no channel route (the bot is no member).
    assert [message.interaction is not None for message in dm.messages()] == [True]

    # Bob asks about alice: her record, and theirs together, in every server and with
    # friends; only the games the two played together are listed (not hers with carol).
    bob.install_app()
    asked = await bob.slash("stats", channel=dm, user=alice)
    embed = embed_of(asked.message)
    assert embed["title"] == "📊 Alice — stats in every server and with friends"
    assert field(embed, "⚔️ Head to head: Bob vs Alice") == ("Knucklebones: W/L/D **2/1/1** for Bob")
    together = field(embed, "Last 3 games together with friends").splitlines()
    assert len(together) == 3
    assert all("vs Bob" in line for line in together)
    assert "Carol" not in field(embed, "Last 3 games together with friends")

    # Someone who never played anyone: nothing but the empty record.
    zed = await guild.add_member("zed")
    zed.install_app()
    nobody = await zed.slash("stats", channel=fake_discord.dm_between(zed, alice), user=zed)
    assert "Zed has not finished a game yet" in nobody.text()
    strangers = await zed.slash("stats", channel=fake_discord.dm_between(zed, alice), user=alice)
    assert field(embed_of(strangers.message), "⚔️ Head to head: Zed vs Alice") == (
        "Zed and Alice have not finished a game together yet."
    )


async def test_stats_in_a_group_dm_and_a_server_without_the_bot_speak_the_callers_language(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    server_without_bot: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    group = fake_discord.group_dm(alice, bob, carol)
    await with_friends(running_bot, group, [carol, bob], [1, 2], game="knucklebones")
    carol.install_app()
    carol.user.locale = "fr"
    answer = await carol.slash("stats", channel=group)
    embed = embed_of(answer.message)
    assert embed["title"] == "📊 Carol — statistiques dans tous les serveurs et entre amis"
    assert "Entre amis" in field(embed, "Knucklebones")

    outsider = await server_without_bot.add_member("dora")
    outsider.install_app()
    there = await outsider.slash("stats", channel=server_without_bot.default_channel)
    assert "Dora has not finished a game yet" in there.text()
    assert "stats in every server and with friends" in there.text()


async def test_history_outside_servers_lists_the_callers_games_and_replays_them(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    dm_between: Callable[[Player, Player], FakeChannel],
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    dm = dm_between(alice, bob)
    other = dm_between(bob, carol)
    await in_server(running_bot, guild, [alice, bob], [1, 2], game="knucklebones")
    await with_friends(
        running_bot, dm, [alice, bob], [1, 2], game="knucklebones", summary={"score_line": "40–20"}
    )
    running_bot.clock.advance(60)  # type: ignore[attr-defined]
    carols = await with_friends(running_bot, other, [bob, carol], [1, 2], game="knucklebones")

    alice.install_app()
    mine = await alice.slash("history", channel=dm)
    assert mine.type is CallbackType.MESSAGE and not mine.ephemeral
    embed = embed_of(mine.message)
    assert embed["title"] == "📜 Recent games of Alice outside servers"
    lines = embed["description"].splitlines()
    assert lines == [lines[0]] and lines[0].startswith(
        "**Knucklebones** · 👥 with friends · Alice beat Bob · 40–20 · <t:"
    )
    assert mine.message is not None
    menu = mine.message.selects()
    assert len(menu) == 1 and menu[0]["custom_id"] == "replaypick"
    assert menu[0]["options"][0]["label"] == "1. Knucklebones · 40–20"

    bob.install_app()
    theirs = await bob.slash("history", channel=other, user=carol)
    embed = embed_of(theirs.message)
    assert embed["title"] == "📜 Recent games between Bob and Carol outside servers"
    assert len(embed["description"].splitlines()) == 1
    assert "Bob beat Carol" in embed["description"]

    none = await alice.slash("history", channel=dm, game="diceman")
    assert "No finished games outside servers match yet." in none.text()

    # A game with friends that is neither hers nor played here is not hers to replay.
    assert mine.message is not None
    menu[0]["options"] = [{"label": "forged", "value": str(carols)}]
    refused = await private_answer(await alice.select(mine.message, [str(carols)]))
    assert refused.text() == "There is no such game to replay here."


async def test_a_knucklebones_game_in_a_dm_counts_with_friends_and_replays_there(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    dm_between: Callable[[Player, Player], FakeChannel],
    alice: Player,
    bob: Player,
) -> None:
    dm = dm_between(alice, bob)
    alice.install_app()
    challenge = await alice.slash("knucklebones challenge", channel=dm, opponent=bob, first="me")
    board = challenge.message
    assert board is not None
    assert (await bob.click(board, "Accept")).type is CallbackType.UPDATE_MESSAGE
    await fake_discord.wait_for(lambda: board_turn(board) == 1, what="the board after Accept")
    await play_to_the_end({alice.id: alice, bob.id: bob}, board)
    assert "Replay" in board.labels()
    result = await running_bot.db.fetch_one(
        "SELECT guild_id, season, summary FROM results WHERE channel_id = ?", (dm.id,)
    )
    assert result is not None and (result["guild_id"], result["season"]) == (FRIENDS_LADDER, None)
    winner = alice if "**Alice** wins" in board.content else bob
    loser = bob if winner is alice else alice

    # The server knows nothing of it.
    in_server = await alice.slash("stats")
    assert "has not finished a game in this server yet" in in_server.text()

    # In the DM: the record with friends, and the game listed, labelled and replayable.
    stats = await alice.slash("stats", channel=dm)
    won = "1/0/0" if winner is alice else "0/1/0"
    assert f"With friends: W/L/D **{won}** · 1 game" in field(
        embed_of(stats.message), "Knucklebones"
    )
    listed = await alice.slash("history", channel=dm)
    [line] = embed_of(listed.message)["description"].splitlines()
    assert line.startswith(
        f"**Knucklebones** · 👥 with friends · {shown(winner)} beat {shown(loser)} · "
    )
    assert listed.message is not None
    [menu] = listed.message.selects()
    value = menu["options"][0]["value"]
    replay = await private_answer(await bob.select(listed.message, [value]))
    assert replay.text().startswith("🎞️ Replay: step 1 of ")
    stepped = await bob.click(replay, "▶️")
    assert stepped.type is CallbackType.UPDATE_MESSAGE and stepped.message is replay
    assert replay.text().startswith("🎞️ Replay: step 2 of ")
    # The game's own Replay button works there too.
    again = await private_answer(await alice.click(board, "Replay"))
    assert again.text().startswith("🎞️ Replay: step 1 of ")
