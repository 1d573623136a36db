"""Threads in the fake, as a real discord.py client (the probe bot) meets them: starting one
from a message or without, the gateway events that make discord.py cache it, sends, edits,
slash commands and button presses in it, the permissions Discord checks there (and its
refusals: 50013, 160004, 50083, 50024), archiving, rate limits, and a deleted parent."""

from __future__ import annotations

from typing import Any

import aiohttp
import discord
import pytest

from bot.model.clock import ManualClock
from fakediscord import BotHarness, CallbackType, FakeDiscord, FakeGuild, FakeThread, Player, routes
from fakediscord.errors import FakeUsageError
from fakediscord.models import DEFAULT_BOT_PERMISSIONS
from fakediscord.probe import ProbeBot

THREADS = discord.Permissions(create_public_threads=True)


def with_(*extra: discord.Permissions) -> discord.Permissions:
    value = DEFAULT_BOT_PERMISSIONS.value
    for permissions in extra:
        value |= permissions.value
    return discord.Permissions(value)


async def call(
    fake: FakeDiscord, method: str, path: str, body: Any = None
) -> tuple[int, dict[str, Any]]:
    """One request straight over HTTP (past discord.py's own checks)."""
    headers = {"Authorization": f"Bot {fake.token}"}
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, f"{fake.api_base}{path}", json=body, headers=headers) as answer,
    ):
        text = await answer.text()
        return answer.status, {} if not text else await answer.json()


async def started(
    probe: ProbeBot, channel: discord.TextChannel, guild: FakeGuild, name: str = "Round 1"
) -> tuple[discord.Thread, FakeThread]:
    """The bot posts a message and starts a thread from it; the thread as both see it."""
    await guild.set_bot_role_permissions(with_(THREADS))
    message = await channel.send("Tournament: round 1")
    thread = await message.create_thread(name=name, auto_archive_duration=60)
    await probe.log.wait_for(lambda: ("thread_create", thread.id) in probe.log.events)
    return thread, guild.threads[thread.id]


# -- starting one ----------------------------------------------------------------------------


async def test_a_thread_started_from_a_message_is_a_public_thread_with_its_id(
    fake_discord: FakeDiscord, guild: FakeGuild, probe: ProbeBot, bot_channel: discord.TextChannel
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)

    assert thread.id == fake_thread.id
    assert thread.type is discord.ChannelType.public_thread
    assert thread.parent_id == bot_channel.id and thread.owner_id == probe.user.id  # type: ignore[union-attr]
    assert thread.auto_archive_duration == 60 and not thread.archived
    starter = guild.default_channel.messages()[-1]
    assert starter.id == thread.id and starter.thread is fake_thread
    assert fake_thread.starter_message is starter and fake_thread.parent is guild.default_channel
    assert starter.payload()["thread"]["id"] == str(thread.id)
    # THREAD_CREATE (newly created) made discord.py cache it where a bot looks for it.
    assert probe.get_channel(thread.id) is not None
    cached = probe.get_guild(guild.id).get_thread(thread.id)  # type: ignore[union-attr]
    assert isinstance(cached, discord.Thread) and cached.name == "Round 1"
    assert fake_thread.members() == [probe.user.id]  # type: ignore[union-attr]
    assert guild.default_channel.thread("Round 1") is fake_thread
    assert guild.thread("Round 1") is fake_thread
    [record] = fake_discord.requests_to(routes.THREAD_FROM_MESSAGE, "POST")
    assert record.status == 201 and record.body == {
        "name": "Round 1",
        "auto_archive_duration": 60,
        "rate_limit_per_user": None,
    }


async def test_starting_a_thread_needs_create_public_threads(
    fake_discord: FakeDiscord, guild: FakeGuild, bot_channel: discord.TextChannel
) -> None:
    message = await bot_channel.send("Tournament")
    with pytest.raises(discord.Forbidden) as refused:
        await message.create_thread(name="Round 1")
    assert refused.value.code == 50013
    assert guild.threads == {} and guild.default_channel.messages()[-1].thread is None


async def test_a_message_has_at_most_one_thread(
    fake_discord: FakeDiscord, guild: FakeGuild, probe: ProbeBot, bot_channel: discord.TextChannel
) -> None:
    thread, _ = await started(probe, bot_channel, guild)
    starter = await bot_channel.fetch_message(thread.id)
    with pytest.raises(discord.HTTPException) as refused:
        await starter.create_thread(name="Again")
    assert (refused.value.status, refused.value.code) == (400, 160004)
    assert len(guild.threads) == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"name": "ok", "auto_archive_duration": 30}, "auto_archive_duration"),
        ({"name": "ok", "rate_limit_per_user": 21601}, "rate_limit_per_user"),
        ({}, "name"),
    ],
)
async def test_a_thread_body_discord_refuses(
    fake_discord: FakeDiscord, guild: FakeGuild, body: dict[str, Any], field: str
) -> None:
    await guild.set_bot_role_permissions(with_(THREADS))
    message = await fake_discord.seed_bot_message(guild.default_channel, content="Tournament")
    path = f"/channels/{guild.default_channel.id}/messages/{message.id}/threads"
    status, answer = await call(fake_discord, "POST", path, body)
    assert (status, answer["code"]) == (400, 50035)
    assert field in answer["errors"]
    assert fake_discord.take_problems("invalid-body")
    assert guild.threads == {} and message.thread is None


async def test_no_thread_in_a_dm_or_in_a_thread(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    probe: ProbeBot,
    bot_channel: discord.TextChannel,
    alice: Player,
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)
    inside = await thread.send("in the thread")
    with pytest.raises(discord.HTTPException) as refused:
        await inside.create_thread(name="Nested")
    assert (refused.value.status, refused.value.code) == (400, 50024)
    dm = fake_discord.dm_channel_for(alice.user)
    seeded = await fake_discord.seed_bot_message(dm, content="hello")
    status, answer = await call(
        fake_discord, "POST", f"/channels/{dm.id}/messages/{seeded.id}/threads", {"name": "x"}
    )
    assert (status, answer["code"]) == (400, 50024)
    assert list(guild.threads) == [fake_thread.id]


async def test_a_public_thread_without_a_message_posts_discords_system_message(
    fake_discord: FakeDiscord, guild: FakeGuild, probe: ProbeBot, bot_channel: discord.TextChannel
) -> None:
    await guild.set_bot_role_permissions(with_(THREADS))
    thread = await bot_channel.create_thread(
        name="Lobby", type=discord.ChannelType.public_thread, auto_archive_duration=1440
    )
    assert thread.type is discord.ChannelType.public_thread
    fake_thread = guild.threads[thread.id]
    assert fake_thread.starter_message is None
    notice = guild.default_channel.last_message()
    assert notice is not None and notice.type == 18 and notice.content == "Lobby"
    assert notice.payload()["message_reference"]["channel_id"] == str(thread.id)
    await probe.log.wait_for(lambda: ("thread_create", thread.id) in probe.log.events)


async def test_a_private_thread_needs_its_permission_and_is_seen_by_its_members_only(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    probe: ProbeBot,
    bot_channel: discord.TextChannel,
    alice: Player,
) -> None:
    await guild.set_bot_role_permissions(with_(THREADS))
    with pytest.raises(discord.Forbidden) as refused:
        # discord.py's default type is a private thread.
        await bot_channel.create_thread(name="Secret")
    assert refused.value.code == 50013
    await guild.set_bot_role_permissions(with_(discord.Permissions(create_private_threads=True)))
    thread = await bot_channel.create_thread(name="Secret")
    assert thread.type is discord.ChannelType.private_thread
    fake_thread = guild.threads[thread.id]
    assert guild.default_channel.messages() == []  # no system message for a private one
    with pytest.raises(FakeUsageError, match="cannot see"):
        await alice.slash("answer", channel=fake_thread)
    await thread.add_user(discord.Object(alice.id))
    assert alice.id in fake_thread.members()
    outcome = await alice.slash("answer", channel=fake_thread)
    assert outcome.message is not None and outcome.message.channel is fake_thread


# -- sending, editing, pressing in one ---------------------------------------------------------


async def test_sends_and_edits_in_a_thread_land_there_and_count(
    fake_discord: FakeDiscord, guild: FakeGuild, probe: ProbeBot, bot_channel: discord.TextChannel
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)
    sent = await thread.send("Alice vs Bob")
    await sent.edit(content="Alice vs Bob: Alice wins")
    [message] = fake_thread.messages()
    assert message.text() == "Alice vs Bob: Alice wins" and message.edit_count == 1
    assert message.payload()["channel_id"] == str(thread.id)
    assert fake_thread.message_count == 1 == fake_thread.total_message_sent
    assert fake_thread.payload()["last_message_id"] == str(message.id)
    # The parent holds the starter message only.
    assert [m.id for m in guild.default_channel.messages()] == [thread.id]
    fetched = await fake_discord_get(fake_discord, f"/channels/{thread.id}")
    assert fetched["type"] == 11 and fetched["parent_id"] == str(bot_channel.id)
    await sent.delete()
    assert fake_thread.messages() == []


async def fake_discord_get(fake: FakeDiscord, path: str) -> dict[str, Any]:
    status, answer = await call(fake, "GET", path)
    assert status == 200, answer
    return answer


async def test_sending_in_a_thread_needs_send_messages_in_threads_not_send_messages(
    fake_discord: FakeDiscord, guild: FakeGuild, probe: ProbeBot, bot_channel: discord.TextChannel
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)
    parent = guild.default_channel
    await parent.set_bot_permissions(deny=discord.Permissions(send_messages=True))
    await thread.send("still fine in the thread")
    with pytest.raises(discord.Forbidden) as in_channel:
        await bot_channel.send("not in the channel")
    assert in_channel.value.code == 50013
    # The parent's overwrites decide in its threads.
    await parent.set_bot_permissions(deny=discord.Permissions(send_messages_in_threads=True))
    with pytest.raises(discord.Forbidden) as in_thread:
        await thread.send("not in the thread")
    assert in_thread.value.code == 50013
    await bot_channel.send("fine in the channel")
    assert [m.text() for m in fake_thread.messages()] == ["still fine in the thread"]


async def test_slash_commands_and_presses_in_a_thread(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    probe: ProbeBot,
    bot_channel: discord.TextChannel,
    alice: Player,
    bob: Player,
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)
    answered = await alice.slash("answer", channel=fake_thread)
    assert answered.type is CallbackType.MESSAGE and answered.message is not None
    assert answered.message.channel is fake_thread and answered.text() == "answered"
    interaction = probe.log.interactions[-1]
    assert isinstance(interaction.channel, discord.Thread)
    assert interaction.channel_id == thread.id and interaction.channel.id == thread.id
    assert interaction.channel.parent_id == bot_channel.id
    payload = answered.interaction.payload
    assert payload["channel_id"] == str(thread.id) and payload["channel"]["type"] == 11

    board = await bob.slash("board", channel=fake_thread)
    assert board.message is not None and board.message.channel is fake_thread
    pressed = await alice.click(board.message, "Press")
    assert pressed.type is CallbackType.UPDATE_MESSAGE
    assert board.message.text() == "presses 1"
    assert pressed.interaction.payload["channel_id"] == str(thread.id)
    # Answers are messages in the thread; presses are not.
    assert fake_thread.message_count == 2


async def test_a_player_saying_something_in_a_thread_joins_it(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    probe: ProbeBot,
    bot_channel: discord.TextChannel,
    alice: Player,
) -> None:
    _, fake_thread = await started(probe, bot_channel, guild)
    said = await alice.say(fake_thread, "gg")
    assert said.channel is fake_thread and alice.id in fake_thread.members()
    assert fake_thread.payload()["member_count"] == 2


# -- archived threads ----------------------------------------------------------------------------


async def test_sending_unarchives_an_archived_thread_and_tells_the_bot(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    probe: ProbeBot,
    bot_channel: discord.TextChannel,
    alice: Player,
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)
    await fake_thread.archive()
    await probe.log.wait_for(lambda: ("thread_update", thread.id, True) in _updates(probe))
    # discord.py keeps no archived thread in its cache.
    assert probe.get_guild(guild.id).get_thread(thread.id) is None  # type: ignore[union-attr]
    sent = await thread.send("next game")
    assert not fake_thread.archived and fake_thread.messages()[-1].id == sent.id
    # THREAD_UPDATE of a thread discord.py had dropped: it caches it again ("thread_join").
    await probe.log.wait_for(lambda: ("thread_join", thread.id) in probe.log.events)
    assert probe.get_guild(guild.id).get_thread(thread.id) is not None  # type: ignore[union-attr]

    await fake_thread.archive()
    await alice.say(fake_thread, "still here")  # a member may unarchive it too
    assert not fake_thread.archived


def _updates(probe: ProbeBot) -> list[tuple[str, int, bool]]:
    return [
        ("thread_update", detail[0], detail[1])
        for event, detail in probe.log.events
        if event == "thread_update"
    ]


async def test_a_locked_archived_thread_refuses_sends_and_edits_with_50083(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    probe: ProbeBot,
    bot_channel: discord.TextChannel,
    alice: Player,
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)
    sent = await thread.send("Alice vs Bob")
    await fake_thread.archive(locked=True)
    with pytest.raises(discord.HTTPException) as refused:
        await thread.send("next game")
    assert (refused.value.status, refused.value.code) == (400, 50083)
    with pytest.raises(discord.HTTPException) as edit:
        await sent.edit(content="changed")
    assert (edit.value.status, edit.value.code) == (400, 50083)
    with pytest.raises(FakeUsageError, match="locked"):
        await alice.say(fake_thread, "hello?")
    assert fake_thread.archived and [m.text() for m in fake_thread.messages()] == ["Alice vs Bob"]
    # With Manage Threads the bot may bring it back by sending.
    await guild.set_bot_role_permissions(with_(THREADS, discord.Permissions(manage_threads=True)))
    await thread.send("reopened")
    assert not fake_thread.archived


async def test_idle_threads_archive_after_their_duration_on_the_fakes_clock(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    probe: ProbeBot,
    bot_channel: discord.TextChannel,
    clock: ManualClock,
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)  # 60 minutes
    clock.advance(59 * 60)
    assert await fake_discord.archive_idle_threads() == []
    await thread.send("activity")
    clock.advance(59 * 60)
    assert await fake_discord.archive_idle_threads() == []
    clock.advance(60)
    assert await fake_discord.archive_idle_threads() == [fake_thread]
    assert fake_thread.archived


async def test_the_bot_archives_renames_and_locks_as_discord_allows(
    fake_discord: FakeDiscord, guild: FakeGuild, probe: ProbeBot, bot_channel: discord.TextChannel
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)
    # Its owner may rename and archive it without Manage Threads...
    thread = await thread.edit(name="Round 1 (done)", archived=True)
    assert fake_thread.archived and fake_thread.name == "Round 1 (done)"
    # ...but an archived thread takes no change other than being unarchived.
    with pytest.raises(discord.HTTPException) as archived:
        await thread.edit(name="Round 1 again")
    assert archived.value.code == 50083
    await thread.edit(archived=False)
    # Locking needs Manage Threads.
    with pytest.raises(discord.Forbidden):
        await thread.edit(locked=True)
    assert not fake_thread.locked
    await guild.set_bot_role_permissions(with_(THREADS, discord.Permissions(manage_threads=True)))
    await thread.edit(locked=True, archived=True)
    assert fake_thread.locked and fake_thread.archived


# -- deleting ----------------------------------------------------------------------------------


async def test_deleting_a_thread_needs_manage_threads_and_sends_thread_delete(
    fake_discord: FakeDiscord, guild: FakeGuild, probe: ProbeBot, bot_channel: discord.TextChannel
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)
    with pytest.raises(discord.Forbidden):
        await thread.delete()
    await guild.set_bot_role_permissions(with_(THREADS, discord.Permissions(manage_threads=True)))
    await thread.delete()
    await probe.log.wait_for(lambda: ("thread_delete", thread.id) in probe.log.events)
    assert fake_thread.deleted and thread.id not in guild.threads
    assert probe.get_guild(guild.id).get_thread(thread.id) is None  # type: ignore[union-attr]
    with pytest.raises(discord.NotFound) as gone:
        await thread.send("anyone?")
    assert gone.value.code == 10003
    # The starter message stays, without its thread.
    assert "thread" not in guild.default_channel.message(thread.id).payload()


async def test_a_deleted_channel_takes_its_threads_with_it(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    probe: ProbeBot,
    bot_channel: discord.TextChannel,
    alice: Player,
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)
    board = await alice.slash("board", channel=fake_thread)
    assert board.message is not None
    await guild.delete_channel(guild.default_channel)
    await probe.log.wait_for(lambda: ("channel_delete", bot_channel.id) in probe.log.events)
    assert fake_thread.deleted and guild.threads == {}
    assert probe.get_guild(guild.id).get_thread(thread.id) is None  # type: ignore[union-attr]
    with pytest.raises(discord.NotFound) as gone:
        await thread.send("anyone?")
    assert gone.value.code == 10003
    with pytest.raises(FakeUsageError, match="deleted"):
        await alice.click(board.message, "Press")


# -- gateway, rate limits, chaos ---------------------------------------------------------------


async def test_a_restarted_bot_finds_the_active_threads_in_guild_create(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    probe_harness: BotHarness,
    probe: ProbeBot,
    bot_channel: discord.TextChannel,
) -> None:
    thread, _ = await started(probe, bot_channel, guild)
    other, archived = await started(probe, bot_channel, guild, name="Round 0")
    await archived.archive()
    restarted = await probe_harness.restart()
    found = restarted.get_guild(guild.id)
    assert found is not None
    assert isinstance(found.get_thread(thread.id), discord.Thread)
    assert found.get_thread(other.id) is None  # archived: not in GUILD_CREATE, as on Discord


async def test_sends_in_a_thread_have_the_threads_own_bucket(
    fake_discord: FakeDiscord, guild: FakeGuild, probe: ProbeBot, bot_channel: discord.TextChannel
) -> None:
    thread, _ = await started(probe, bot_channel, guild)
    await thread.send("in the thread")
    await bot_channel.send("in the channel")
    sends = fake_discord.requests_to(routes.CHANNEL_MESSAGES, "POST")
    states = {r.channel_id: r.rate_limit for r in sends}
    in_thread, in_channel = states[thread.id], states[bot_channel.id]
    assert in_thread is not None and in_channel is not None
    assert in_thread.key == str(thread.id) and in_channel.key == str(bot_channel.id)
    assert in_thread.bucket == in_channel.bucket and in_thread.limit == 5
    # Starting threads has a bucket per parent channel, like any route.
    [start] = fake_discord.requests_to(routes.THREAD_FROM_MESSAGE, "POST")
    assert start.rate_limit is not None and start.rate_limit.key == str(bot_channel.id)
    assert fake_discord.rate_limited == []


async def test_a_chaos_permission_outage_in_a_thread_is_its_parents(
    fake_discord: FakeDiscord, guild: FakeGuild, probe: ProbeBot, bot_channel: discord.TextChannel
) -> None:
    thread, fake_thread = await started(probe, bot_channel, guild)
    chaos = fake_discord.chaos(seed=1, permission_outage=1.0, outage_requests=(5, 5))
    with pytest.raises(discord.Forbidden):
        await thread.send("during an outage")
    [outage] = chaos.outages
    assert outage.channel is guild.default_channel
    assert not guild.default_channel.bot_permissions().send_messages_in_threads
    await chaos.stop()
    await thread.send("after it")
    assert [m.text() for m in fake_thread.messages()] == ["after it"]
