"""Tournaments end to end on the fake Discord, on both databases: a 6-player single
elimination (two byes) and a 7-player Swiss played to their winners in the event's thread
with the duels' own challenges, each with a match lost on time, a removed player and a
restart in the middle; a match lost on time in the channel, an event cancelled for too few
players; the event's message converges to the
stored event after an edit Discord failed, or one a stopped process never made."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import discord
import pytest
from fakediscord import (
    BotHarness,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    Player,
    routes,
)
from fakediscord.models import DEFAULT_BOT_PERMISSIONS

from bot.app import DiceBot
from bot.model.clock import ManualClock
from bot.model.errors import StorageUnavailable
from bot.play.guild_settings import GuildSettings
from bot.play.tournaments import SWEEP_SECONDS, TournamentService
from cogs.tournament.cog import TournamentCog

MANAGER = discord.Permissions(manage_guild=True)
# A round's games appear after a transaction, a drive and a post each; on a busy machine
# (the event's picture is drawn beside them) that takes more than the fake's 5 s default.
GAMES_WAIT = 15.0
# The bot's role, allowed to open the event's thread and to play in it.
WITH_THREADS = discord.Permissions(
    DEFAULT_BOT_PERMISSIONS.value
    | discord.Permissions(create_public_threads=True, send_messages_in_threads=True).value
)


def cog_of(bot: DiceBot) -> TournamentCog:
    # discord.py loads a fresh copy of the cog's module per bot: not this test's class.
    cog = bot.get_cog("TournamentCog")
    assert type(cog).__name__ == TournamentCog.__name__
    return cog  # type: ignore[return-value]


async def open_event(
    host: Player, players: list[Player], fake: FakeDiscord, **options: object
) -> FakeMessage:
    made = await host.slash("tournament new", game="knucklebones", name="Cup", **options)
    event = made.message
    assert event is not None
    assert "sign-ups are open" in event.content
    for player in players:
        joined = await player.click(event, "Join")
        assert joined.ephemeral and "You are in" in joined.text()
    return event


def games_waiting(thread_messages: Callable[[], list[FakeMessage]]) -> list[FakeMessage]:
    """The thread's game messages still waiting for their challenged player."""
    return [m for m in thread_messages() if "Accept" in m.labels()]


async def play_round(
    bot: DiceBot,
    fake: FakeDiscord,
    guild: FakeGuild,
    players: dict[int, Player],
    where: FakeChannel,
    *,
    games: int,
    loser: Callable[[int, int], int] = max,
) -> None:
    """Every game of the round: the challenged player accepts, then ``loser`` of the two
    gives the game up with the game's own forfeit command, in the thread."""
    await fake.wait_for(
        lambda: len(games_waiting(where.messages)) == games,
        what=f"{games} games to play",
        timeout=GAMES_WAIT,
    )
    await play_games(bot, players, where, games_waiting(where.messages), loser=loser)


async def play_games(
    bot: DiceBot,
    players: dict[int, Player],
    where: FakeChannel,
    messages: list[FakeMessage],
    *,
    loser: Callable[[int, int], int] = max,
) -> None:
    """These games, each played out: accepted, then given up by ``loser`` of the two."""
    for message in messages:
        first, second = await seats_of(bot, message)
        await players[second].click(message, "Accept")
        out = loser(first, second)
        answer = await players[out].slash("knucklebones forfeit", channel=where)
        assert not answer.ephemeral
    await cog_of(bot).settle()


async def seats_of(bot: DiceBot, message: FakeMessage) -> tuple[int, int]:
    """A game's (challenger, challenged player)."""
    # The game's message is posted before its id is stored with the game: wait for it.
    for _ in range(100):
        if await bot.db.fetch_one("SELECT id FROM sessions WHERE message_id = ?", (message.id,)):
            break
        await asyncio.sleep(0.05)
    session = await session_of(bot, cog_of(bot).service, message.id)
    first, second = (seat.user_id for seat in session.seats)
    return first, second


def shown_name(player: Player) -> str:
    # The fake gives each user a global name: their name in title case.
    return player.name.title()


def alt_text(event: FakeMessage) -> str:
    """The event's picture(s) in words, as a screen reader says them."""
    return " ".join(attachment.description or "" for attachment in event.attachments)


def standing_of(event: FakeMessage, player: Player) -> str:
    """The player's row in the Swiss standings' alt text, after their name: "1 point,
    Buchholz 2 (playing)"."""
    rows = alt_text(event).split("Standings: ", 1)[-1].split("; ")
    name = f" {shown_name(player)}, "
    (row,) = [row for row in rows if name in row]
    return row.split(name, 1)[1].split(". Ranking:", 1)[0]


async def stats_of(player: Player) -> str:
    """What /stats shows the player (its embeds), with its tournaments' line."""
    stats = await player.slash("stats")
    assert stats.message is not None
    shown = str(stats.message.embeds)
    assert "🏆 Tournaments" in shown
    return shown


async def session_of(bot: DiceBot, service: TournamentService, message_id: int):  # type: ignore[no-untyped-def]
    row = await bot.db.fetch_one("SELECT id FROM sessions WHERE message_id = ?", (message_id,))
    assert row is not None
    return await bot.sessions.require(row["id"])


@pytest.mark.machine_speed("a whole event, its presses milliseconds apart")
async def test_six_players_single_elimination_with_two_byes_a_time_loss_a_removal_and_a_restart(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild, clock: ManualClock
) -> None:
    await guild.set_bot_role_permissions(WITH_THREADS)
    bot = await bot_factory.start()
    host = await guild.add_member("host", permissions=MANAGER)
    players = [await guild.add_member(f"player{index}") for index in range(1, 7)]
    by_id = {player.id: player for player in players}
    check = await host.slash("dicebot check")
    assert "play their matches in a thread" in (await check.final_message()).text()
    event = await open_event(host, players, fake_discord)
    await cog_of(bot).settle()
    await fake_discord.wait_for(
        lambda: "Player6" in event.embeds[0]["fields"][0]["value"], what="the sign-ups shown"
    )
    started = await host.click(event, "Start")
    assert "started" in started.text()
    await cog_of(bot).settle()
    (thread,) = guild.default_channel.threads()
    # Round 1: two games (seeds 1 and 2 have byes), both waiting for their challenged
    # player, as the bracket says.
    await fake_discord.wait_for(
        lambda: len(games_waiting(thread.messages)) == 2, what="round 1", timeout=GAMES_WAIT
    )
    await fake_discord.wait_for(lambda: bool(event.attachments), what="the bracket")
    assert "is under way" in event.content and event.labels() == []
    shown = alt_text(event)
    assert "Single elimination · one game a match, Round 1 of 3." in shown
    assert shown.count("has a bye") == 2 and shown.count(", to play") == 2
    removal, late = games_waiting(thread.messages)
    # The host takes a player of the first game out: their opponent goes through.
    stays, gone = await seats_of(bot, removal)
    removed = await host.slash("tournament remove", channel=thread, player=by_id[gone])
    assert f"{shown_name(by_id[gone])} is out of the tournament" in removed.text()
    await cog_of(bot).settle()
    await fake_discord.wait_for(
        lambda: removal.labels() != ["Accept", "Decline"], what="the removed player's game ended"
    )
    went_through = f"{shown_name(by_id[stays])} goes through: {shown_name(by_id[gone])} withdrew"
    await fake_discord.wait_for(lambda: went_through in alt_text(event), what="the withdrawal")
    assert "5 players (at most" in str(event.embeds[0]["fields"][0]["name"])
    assert shown_name(by_id[gone]) not in event.embeds[0]["fields"][0]["value"]
    # Nobody accepts the other game: its challenged player loses on time, and the
    # semifinals start.
    challenger, absent = await seats_of(bot, late)
    clock.advance(GuildSettings().challenge_expiry_seconds + 1)
    on_time = f"{shown_name(by_id[challenger])} beat {shown_name(by_id[absent])} on time"
    await fake_discord.wait_for(lambda: on_time in alt_text(event), what="the loss on time")
    await fake_discord.wait_for(
        lambda: len(games_waiting(thread.messages)) == 2, what="semifinals", timeout=GAMES_WAIT
    )
    await fake_discord.wait_for(lambda: "Round 2 of 3" in alt_text(event), what="round 2")
    semifinals = games_waiting(thread.messages)
    pairs = [await seats_of(bot, game) for game in semifinals]
    semifinalists = {player for pair in pairs for player in pair}
    assert stays in semifinalists and challenger in semifinalists
    assert gone not in semifinalists and absent not in semifinalists
    # A restart with the semifinals waiting: the restarted bot shows the event again (a
    # stop may have cut an edit short) and plays the same games on. The running bot first
    # finishes its shows: one stopped holding its claim on the message would leave the
    # restarted bot to wait out the lease on the test's clock, which stands still here.
    await cog_of(bot).settle()
    edits = len(event.history)
    bot = await bot_factory.restart()
    await fake_discord.wait_for(lambda: len(event.history) > edits, what="the event shown again")
    assert "is under way" in event.content and on_time in alt_text(event)
    assert games_waiting(thread.messages) == semifinals
    await play_games(bot, by_id, thread, semifinals)
    await play_round(bot, fake_discord, guild, by_id, thread, games=1)
    # The smaller id gives up no game: the smallest semifinalist wins the event.
    winner = by_id[min(semifinalists)]
    await fake_discord.wait_for(lambda: "wins the tournament" in event.content, what="the winner")
    assert f"**{shown_name(winner)}** wins the tournament" in event.content
    await fake_discord.wait_for(lambda: "Finished" in alt_text(event), what="the final bracket")
    shown = alt_text(event)
    assert f"{shown_name(winner)} won the event." in shown
    assert f"Final: {shown_name(winner)} beat" in shown
    rows = await bot.db.fetch_all("SELECT status, winner_id FROM tournaments")
    assert [tuple(row) for row in rows] == [("finished", winner.id)]
    places = await bot.db.fetch_all(
        "SELECT user_id, place, removed FROM tournament_players ORDER BY place, user_id"
    )
    # The final standings: by the round each player went out in (ties share a place).
    finalists = {min(pair) for pair in pairs}
    (runner_up,) = finalists - {winner.id}
    expected = {winner.id: 1, runner_up: 2, gone: 5, absent: 5}
    expected |= {player: 3 for player in semifinalists - finalists}
    assert {row["user_id"]: row["place"] for row in places} == expected
    assert [row["user_id"] for row in places if row["removed"]] == [gone]
    # /stats: one event played by the winner and by the removed player, won by the winner.
    assert "Played: 1 · Won: 1" in await stats_of(winner)
    assert "Played: 1 · Won: 0" in await stats_of(by_id[gone])
    # The ladder counted the event's games: its four semifinalists are on the leaderboard.
    board = await winner.slash("leaderboard", game="knucklebones")
    assert board.message is not None
    listed = board.message.text() + str(board.message.embeds)
    assert all(shown_name(by_id[player]) in listed for player in semifinalists), listed
    # A game stopped by a removal, or a challenge never accepted, is no game played.
    assert shown_name(by_id[gone]) not in listed and shown_name(by_id[absent]) not in listed


async def test_too_few_players_cancel_the_event(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    bot = await bot_factory.start()
    host = await guild.add_member("host", permissions=MANAGER)
    players = [await guild.add_member(f"player{index}") for index in range(1, 4)]
    event = await open_event(host, players, fake_discord)
    refused = await players[0].click(event, "Start")
    assert refused.ephemeral and "host" in refused.text()
    answer = await host.click(event, "Start")
    assert "Too few players" in answer.text()
    await cog_of(bot).settle()
    await fake_discord.wait_for(lambda: "is cancelled" in event.content, what="the cancel")
    assert event.labels() == []


async def test_a_match_not_started_in_time_is_lost(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild, clock: ManualClock
) -> None:
    bot = await bot_factory.start()
    host = await guild.add_member("host", permissions=MANAGER)
    players = [await guild.add_member(f"player{index}") for index in range(1, 5)]
    event = await open_event(host, players, fake_discord, format="swiss")
    await host.click(event, "Start")
    await cog_of(bot).settle()
    # The bot may not open threads here: the matches are played in the channel, as
    # /dicebot check says.
    assert guild.default_channel.threads() == []
    check = await host.slash("dicebot check")
    assert "play their matches in this channel" in (await check.final_message()).text()
    channel = guild.default_channel
    await fake_discord.wait_for(
        lambda: len(games_waiting(channel.messages)) == 2, what="games", timeout=GAMES_WAIT
    )
    first_round = {message.id for message in games_waiting(channel.messages)}
    clock.advance(GuildSettings().challenge_expiry_seconds + 1)
    await fake_discord.wait_for(
        lambda: (
            {m.id for m in games_waiting(channel.messages)} - first_round
            and len(games_waiting(channel.messages)) == 2
        ),
        what="round 2's games",
    )
    rows = await bot.db.fetch_all(
        "SELECT reason FROM tournament_matches WHERE round = 1 ORDER BY table_no"
    )
    assert [row["reason"] for row in rows] == ["time", "time"]


@pytest.mark.machine_speed("a whole event, its presses milliseconds apart")
async def test_seven_players_swiss_with_a_time_loss_a_removal_a_restart_then_the_list(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild, clock: ManualClock
) -> None:
    await guild.set_bot_role_permissions(WITH_THREADS)
    bot = await bot_factory.start()
    host = await guild.add_member("host", permissions=MANAGER)
    players = [await guild.add_member(f"player{index}") for index in range(1, 8)]
    by_id = {player.id: player for player in players}
    event = await open_event(host, players, fake_discord, format="swiss")
    await host.click(event, "Start")
    await cog_of(bot).settle()
    (thread,) = guild.default_channel.threads()
    # Round 1: three games and a bye.
    await fake_discord.wait_for(
        lambda: len(games_waiting(thread.messages)) == 3, what="round 1", timeout=GAMES_WAIT
    )
    await fake_discord.wait_for(lambda: bool(event.attachments), what="the standings")
    assert "is under way" in event.content
    shown = alt_text(event)
    assert "Swiss · one game a match, Round 1 of 3." in shown
    assert shown.count("(bye)") == 1 and shown.count("(playing)") == 6
    removal, played, late = games_waiting(thread.messages)
    # Before the first game is played, the host takes one of its players out (in the
    # thread): their opponent goes through without playing.
    stays, gone = await seats_of(bot, removal)
    refused = await players[0].slash("tournament remove", channel=thread, player=by_id[gone])
    assert refused.ephemeral and "host" in refused.text()
    removed = await host.slash("tournament remove", channel=thread, player=by_id[gone])
    assert f"{shown_name(by_id[gone])} is out of the tournament" in removed.text()
    await cog_of(bot).settle()
    await fake_discord.wait_for(
        lambda: removal.labels() != ["Accept", "Decline"], what="the removed player's game ended"
    )
    await fake_discord.wait_for(
        lambda: standing_of(event, by_id[gone]).endswith("(withdrew)"),
        what="the withdrawal in the standings",
    )
    assert standing_of(event, by_id[gone]).startswith("0 points")
    assert standing_of(event, by_id[stays]).startswith("1 point,")
    assert "6 players (at most" in str(event.embeds[0]["fields"][0]["name"])
    assert shown_name(by_id[gone]) not in event.embeds[0]["fields"][0]["value"]
    # The second game is played; nobody accepts the third: its challenged player loses
    # on time, and round 2 starts for the six players left.
    await play_games(bot, by_id, thread, [played])
    challenger, absent = await seats_of(bot, late)
    clock.advance(GuildSettings().challenge_expiry_seconds + 1)
    await fake_discord.wait_for(
        lambda: (
            late not in games_waiting(thread.messages)
            and (len(games_waiting(thread.messages)) == 3)
        ),
        what="round 2's games",
        timeout=GAMES_WAIT,
    )
    await fake_discord.wait_for(lambda: "Round 2 of 3" in alt_text(event), what="round 2")
    lost = await bot.db.fetch_one(
        "SELECT winner_id, reason FROM tournament_matches WHERE round = 1 AND ? IN "
        "(first_id, second_id)",
        (absent,),
    )
    assert lost is not None and tuple(lost) == (challenger, "time")
    assert standing_of(event, by_id[challenger]).startswith("1 point,")
    assert standing_of(event, by_id[absent]).startswith("0 points,")
    # Round 2: one game played, then a restart with the other two waiting; the restarted
    # bot shows the event again and plays them on.
    first_game, *others = games_waiting(thread.messages)
    assert gone not in {player for game in others for player in await seats_of(bot, game)}
    await play_games(bot, by_id, thread, [first_game])
    edits = len(event.history)
    bot = await bot_factory.restart()
    await fake_discord.wait_for(lambda: len(event.history) > edits, what="the event shown again")
    assert "is under way" in event.content and "Round 2 of 3" in alt_text(event)
    assert games_waiting(thread.messages) == others
    await play_games(bot, by_id, thread, others)
    # Round 3: three games again.
    await play_round(bot, fake_discord, guild, by_id, thread, games=3)
    await fake_discord.wait_for(lambda: "wins the tournament" in event.content, what="the winner")
    places = await bot.db.fetch_all(
        "SELECT user_id, place, removed FROM tournament_players ORDER BY place"
    )
    assert [row["place"] for row in places] == list(range(1, 8))
    assert [row["user_id"] for row in places if row["removed"]] == [gone]
    winner = by_id[places[0]["user_id"]]
    assert f"**{shown_name(winner)}** wins the tournament" in event.content
    await fake_discord.wait_for(lambda: "Finished" in alt_text(event), what="the final standings")
    shown = alt_text(event)
    assert f"{shown_name(winner)} won the event." in shown
    # The final standings in words, in the stored order, the removed player marked.
    rows = [shown.index(f"{row['place']}. {shown_name(by_id[row['user_id']])},") for row in places]
    assert rows == sorted(rows)
    assert standing_of(event, by_id[gone]).endswith("(withdrew)")
    listed = await host.slash("tournament list")
    assert "Cup" in listed.text() and "finished" in listed.text()
    # /stats: one event played by the winner and by the removed player, won by the winner.
    assert "Played: 1 · Won: 1" in await stats_of(winner)
    assert "Played: 1 · Won: 0" in await stats_of(by_id[gone])
    # The ladder counted the event's games: everyone who played one is on the leaderboard;
    # the removed player, who played none, is not.
    board = await winner.slash("leaderboard", game="knucklebones")
    assert board.message is not None
    listed_names = board.message.text() + str(board.message.embeds)
    assert all(shown_name(p) in listed_names for p in players if p.id != gone), listed_names
    assert shown_name(by_id[gone]) not in listed_names


async def test_the_host_cancels_a_running_event(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    bot = await bot_factory.start()
    host = await guild.add_member("host", permissions=MANAGER)
    players = [await guild.add_member(f"player{index}") for index in range(1, 5)]
    event = await open_event(host, players, fake_discord)
    await host.click(event, "Start")
    await cog_of(bot).settle()
    channel = guild.default_channel
    await fake_discord.wait_for(
        lambda: len(games_waiting(channel.messages)) == 2, what="games", timeout=GAMES_WAIT
    )
    refused = await players[0].slash("tournament cancel")
    assert refused.ephemeral and "host" in refused.text()
    done = await host.slash("tournament cancel")
    assert "cancelled" in done.text()
    await cog_of(bot).settle()
    await fake_discord.wait_for(lambda: "was cancelled" in event.content, what="the event")
    await fake_discord.wait_for(lambda: games_waiting(channel.messages) == [], what="games end")
    again = await host.slash("tournament cancel")
    assert again.ephemeral and "no tournament running" in again.text()


async def test_any_member_may_host_where_the_settings_allow_it(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    bot = await bot_factory.start()
    admin = await guild.add_member("admin", permissions=MANAGER)
    member = await guild.add_member("member")
    refused = await member.slash("tournament new", game="diceman")
    assert refused.ephemeral and "Only members with the **Manage Server** permission" in (
        refused.text()
    )
    assert await bot.db.fetch_all("SELECT id FROM tournaments") == []
    saved = await admin.slash("dicebot settings", tournament_hosts="everyone")
    assert saved.message is not None
    shown = str(saved.message.embeds)
    assert "Who can open a tournament" in shown and "any member" in shown
    made = await member.slash("tournament new", game="diceman", format="swiss", rounds=2)
    assert made.message is not None and "sign-ups are open" in made.message.content
    # The member hosts it: they may start it (too few players here: it is cancelled).
    answer = await member.click(made.message, "Start")
    assert "Too few players" in answer.text()


async def test_an_event_starts_by_itself_at_its_time(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild, clock: ManualClock
) -> None:
    bot = await bot_factory.start()
    host = await guild.add_member("host", permissions=MANAGER)
    refused = await host.slash("tournament new", game="knucklebones", starts_at="soon")
    assert refused.ephemeral and "can't read that start time" in refused.text()
    assert await bot.db.fetch_all("SELECT id FROM tournaments") == []
    players = [await guild.add_member(f"player{index}") for index in range(1, 5)]
    event = await open_event(host, players, fake_discord, starts_at="30")
    assert f"<t:{int(clock.now()) + 1800}:R>" in event.content
    clock.advance(1_800)
    channel = guild.default_channel
    await fake_discord.wait_for(
        lambda: len(games_waiting(channel.messages)) == 2, what="games", timeout=GAMES_WAIT
    )
    await cog_of(bot).settle()
    await fake_discord.wait_for(lambda: "is under way" in event.content, what="the start")


# -- the event's message converges ----------------------------------------------------------


def signed_up(event: FakeMessage) -> str:
    return str(event.embeds[0]["fields"][0]["value"])


async def shown_versions(bot: DiceBot) -> tuple[int, int]:
    row = await bot.db.fetch_one("SELECT version, shown_version FROM tournaments")
    assert row is not None
    return row["version"], row["shown_version"]


async def test_an_edit_discord_fails_is_made_by_the_sweep_backing_off_with_one_warning(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bot = await bot_factory.start()
    host = await guild.add_member("host", permissions=MANAGER)
    first, late = [await guild.add_member(f"player{index}") for index in range(1, 3)]
    event = await open_event(host, [first], fake_discord)
    await cog_of(bot).settle()
    await fake_discord.wait_for(lambda: "Player1" in signed_up(event), what="the sign-up")
    outage = fake_discord.fail(
        routes.MESSAGE,
        method="PATCH",
        status=503,
        times=None,
        when=lambda record: record.message_id == event.id,
    )
    joined = await late.click(event, "Join")
    assert joined.ephemeral and "You are in" in joined.text()
    await cog_of(bot).settle()
    assert outage.hits == 1 and "Player2" not in signed_up(event)
    version, shown = await shown_versions(bot)
    assert shown < version
    # Each sweep tries again, less and less often: after 5 s, then 10 s more...
    clock.advance(SWEEP_SECONDS)
    await fake_discord.wait_for(lambda: outage.hits == 2, what="the sweep's retry")
    await cog_of(bot).settle()
    clock.advance(2 * SWEEP_SECONDS)
    await fake_discord.wait_for(lambda: outage.hits == 3, what="the next retry")
    await cog_of(bot).settle()
    outage.cancel()
    clock.advance(4 * SWEEP_SECONDS)
    await fake_discord.wait_for(lambda: "Player2" in signed_up(event), what="the sweep's edit")
    await cog_of(bot).settle()
    assert await shown_versions(bot) == (version, version)
    # One warning for the whole outage, not one a retry.
    warned = [
        record
        for record in caplog.records
        if "could not be shown" in record.getMessage() and record.levelno >= logging.WARNING
    ]
    assert len(warned) == 1 and "HTTP 503" in warned[0].getMessage()


async def test_a_change_whose_edit_was_never_made_is_shown_by_the_sweep(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild, clock: ManualClock
) -> None:
    """A change committed by a process that stopped before its edit (or by another
    process): the event's message shows it after the next sweep, with no press."""
    bot = await bot_factory.start()
    host = await guild.add_member("host", permissions=MANAGER)
    first, late = [await guild.add_member(f"player{index}") for index in range(1, 3)]
    event = await open_event(host, [first], fake_discord)
    cog = cog_of(bot)
    await cog.settle()
    await fake_discord.wait_for(lambda: "Player1" in signed_up(event), what="the sign-up")
    edits = len(event.history)
    (row,) = await cog.service.list_for_guild(guild.id)
    # The commit happens, but nothing in this process hears of it to edit the message.
    cog.service._listeners.remove(cog._changed)
    await cog.service.join(row.id, late.id, late.name)
    await cog.settle()
    assert len(event.history) == edits and late.name not in signed_up(event)
    clock.advance(SWEEP_SECONDS)
    await fake_discord.wait_for(lambda: late.name in signed_up(event), what="the sweep")
    await cog.settle()
    version, shown = await shown_versions(bot)
    assert shown == version


async def test_a_database_outage_while_showing_is_retried_by_the_sweep_without_an_error(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The database stops answering between a change and its edit: the message waits,
    nothing is logged as an ERROR, and the sweep shows the change once it answers again."""
    bot = await bot_factory.start()
    host = await guild.add_member("host", permissions=MANAGER)
    first, late = [await guild.add_member(f"player{index}") for index in range(1, 3)]
    event = await open_event(host, [first], fake_discord)
    cog = cog_of(bot)
    await cog.settle()
    await fake_discord.wait_for(lambda: "Player1" in signed_up(event), what="the sign-up")
    read_event = cog.service.view

    async def database_gone(tournament_id: int) -> object:
        raise StorageUnavailable("database is locked")

    cog.service.view = database_gone  # type: ignore[method-assign, assignment]
    joined = await late.click(event, "Join")
    assert joined.ephemeral and "You are in" in joined.text()
    await cog.settle()
    assert "Player2" not in signed_up(event)
    cog.service.view = read_event  # type: ignore[method-assign]
    clock.advance(SWEEP_SECONDS)
    await fake_discord.wait_for(lambda: "Player2" in signed_up(event), what="the sweep's edit")
    await cog.settle()
    version, shown = await shown_versions(bot)
    assert shown == version
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
