"""Faults on any REST route, messages deleted by a moderator, permissions lost and regained,
and message history: each shown through the real discord.py of the probe bot."""

from __future__ import annotations

import asyncio

import aiohttp
import discord
import pytest

from fakediscord import FakeDiscord, FakeGuild, FakeUsageError, Player, routes
from fakediscord.probe import ProbeBot


async def test_a_503_on_an_edit_reaches_the_bot_and_changes_nothing(
    probe: ProbeBot, fake_discord: FakeDiscord, bot_channel: discord.TextChannel
) -> None:
    sent = await bot_channel.send("turn 1")
    message = fake_discord.message(sent.id)
    rule = fake_discord.fail(routes.MESSAGE, method="PATCH", status=503)
    # discord.py does not retry a 503 on the bot-token routes: the bot sees it at once.
    with pytest.raises(discord.DiscordServerError) as refused:
        await sent.edit(content="turn 2")
    assert (refused.value.status, refused.value.code) == (503, 0)
    assert message.content == "turn 1" and len(message.history) == 1
    await sent.edit(content="turn 2")
    assert message.content == "turn 2" and rule.exhausted
    assert [(r.status, r.fault) for r in fake_discord.requests_to(routes.MESSAGE)] == [
        (503, "server-error"),
        (200, None),
    ]
    assert [f.kind for f in fake_discord.injected_faults] == ["server-error"]


async def test_a_run_of_429s_longer_than_discord_py_tries_fails_the_call(
    probe: ProbeBot, fake_discord: FakeDiscord, bot_channel: discord.TextChannel
) -> None:
    sent = await bot_channel.send("board")
    # Four 429s: discord.py waits retry_after each time and the fifth try lands.
    fake_discord.rate_limit(routes.MESSAGE, method="PATCH", times=4, retry_after=0.01)
    await sent.edit(content="board v2")
    # Five: every try is used up and the call raises HTTPException 429.
    fake_discord.rate_limit(routes.MESSAGE, method="PATCH", times=5, retry_after=0.01)
    with pytest.raises(discord.HTTPException) as limited:
        await sent.edit(content="board v3")
    assert limited.value.status == 429 and not isinstance(limited.value, discord.RateLimited)
    assert fake_discord.message(sent.id).content == "board v2"
    statuses = [r.status for r in fake_discord.requests_to(routes.MESSAGE, "PATCH")]
    assert statuses == [429] * 4 + [200] + [429] * 5
    assert len(fake_discord.faults_of("rate-limit", source="rate_limit")) == 9


async def test_faults_on_dm_channel_creation_and_on_dms(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    user = await probe.fetch_user(alice.id)
    fake_discord.fail(routes.DM_CHANNELS, status=503)
    with pytest.raises(discord.DiscordServerError):
        await user.send("your hand")
    assert alice.dm_channel is None
    # A fault on DMs only: ``when`` sees the request (here: is it in a DM channel?).
    fake_discord.fail(routes.CHANNEL_MESSAGES, method="POST", status=503, when=lambda r: r.is_dm)
    with pytest.raises(discord.DiscordServerError):
        await user.send("your hand")
    assert alice.dms() == []
    await user.send("your hand")
    assert [m.content for m in alice.dms()] == ["your hand"]


async def test_discord_py_retries_some_5xx_itself_after_a_second(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player, bot_channel: discord.TextChannel
) -> None:
    outcome = await alice.slash("answer")
    interaction = probe.log.interactions[-1]
    # Bot-token routes: 500, 502, 504 and 524 are retried by discord.py (after 1, 3, 5, 7,
    # 9 s of real sleep), 503 is not. Interaction webhooks (follow-ups, @original) go
    # through its webhook adapter, which retries EVERY 5xx, 503 included. Either way a
    # single fault never reaches the bot; it only delays the call (both run at once here).
    fake_discord.fail(routes.CHANNEL_MESSAGES, method="POST", status=500)
    fake_discord.fail(routes.FOLLOWUP, status=503)
    await asyncio.gather(bot_channel.send("hello"), interaction.followup.send("later"))
    statuses = [r.status for r in fake_discord.requests_to(routes.CHANNEL_MESSAGES, "POST")]
    assert statuses == [500, 200]
    assert [r.status for r in fake_discord.requests_to(routes.FOLLOWUP)] == [503, 200]
    assert [m.text() for m in outcome.followups] == ["later"]
    fake_discord.fail(routes.WEBHOOK_MESSAGE, method="PATCH", status=404, code=10008)
    with pytest.raises(discord.NotFound) as gone:
        await interaction.edit_original_response(content="edited")
    assert gone.value.code == 10008 and outcome.text() == "answered"


async def test_dropped_edits_with_and_without_discord_applying_them(
    probe: ProbeBot, fake_discord: FakeDiscord, bot_channel: discord.TextChannel
) -> None:
    sent = await bot_channel.send("v1")
    message = fake_discord.message(sent.id)
    fake_discord.drop(routes.MESSAGE, method="PATCH")
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await sent.edit(content="v2")
    assert message.content == "v1"
    fake_discord.drop(routes.MESSAGE, method="PATCH", applied=True)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await sent.edit(content="v3")
    assert message.content == "v3"
    not_applied, applied = fake_discord.requests_to(routes.MESSAGE, "PATCH")
    assert (not_applied.status, not_applied.delivered, not_applied.fault) == (0, False, "dropped")
    assert (applied.status, applied.delivered, applied.fault) == (
        200,
        False,
        "applied-then-dropped",
    )


async def test_when_picks_one_message_and_an_open_ended_rule_lasts_until_cancelled(
    probe: ProbeBot, fake_discord: FakeDiscord, bot_channel: discord.TextChannel
) -> None:
    board = await bot_channel.send("board")
    other = await bot_channel.send("other")
    outage = fake_discord.fail(
        routes.MESSAGE, status=503, times=None, when=lambda r: r.message_id == board.id
    )
    for _ in range(3):
        with pytest.raises(discord.DiscordServerError):
            await board.edit(content="board v2")
    await other.edit(content="other v2")
    assert outage.hits == 3 and outage.remaining is None
    outage.cancel()
    await board.edit(content="board v2")
    assert fake_discord.message(board.id).content == "board v2"
    with pytest.raises(FakeUsageError, match="rate_limit"):
        fake_discord.fail(routes.MESSAGE, status=429)


async def test_a_moderator_deletes_the_bots_message(
    probe: ProbeBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    bot_channel: discord.TextChannel,
    alice: Player,
) -> None:
    sent = await bot_channel.send("the game")
    message = fake_discord.message(sent.id)
    with pytest.raises(FakeUsageError, match="Manage Messages"):
        await fake_discord.delete_message(message, by=alice)
    moderator = await guild.add_member("mod", permissions=discord.Permissions(manage_messages=True))
    await fake_discord.delete_message(message, by=moderator)
    assert message.deleted and message.deleted_by == moderator.id
    # The bot hears of it (MESSAGE_DELETE, guild messages intent)...
    await probe.log.wait_for(lambda: ("message_delete", sent.id) in probe.log.events)
    # ...and its next edit is refused as on Discord.
    with pytest.raises(discord.NotFound) as gone:
        await sent.edit(content="the game, turn 2")
    assert (gone.value.status, gone.value.code) == (404, 10008)
    assert guild.default_channel.messages() == []
    with pytest.raises(FakeUsageError, match="already gone"):
        await fake_discord.delete_message(message)


async def test_an_answer_message_deleted_then_edited_through_the_token(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    outcome = await alice.slash("answer")
    assert outcome.message is not None
    await fake_discord.delete_message(outcome.message)  # by the guild's owner
    with pytest.raises(discord.NotFound) as gone:
        await probe.log.interactions[-1].edit_original_response(content="still here?")
    assert gone.value.code == 10008


async def test_permissions_lost_and_regained_in_a_channel(
    probe: ProbeBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    bot_channel: discord.TextChannel,
) -> None:
    channel = guild.default_channel
    board = await bot_channel.send("board")
    await channel.set_bot_permissions(deny=discord.Permissions(send_messages=True))
    await probe.log.wait_for(lambda: probe.log.events)
    event, seen = probe.log.events[-1]
    assert event == "channel_update" and not seen.send_messages
    with pytest.raises(discord.Forbidden) as refused:
        await bot_channel.send("more")
    assert (refused.value.status, refused.value.code) == (403, 50013)
    # Discord lets an author edit its own message without Send Messages.
    await board.edit(content="board v2")

    await channel.set_bot_permissions(deny=discord.Permissions(view_channel=True))
    await probe.log.wait_for(lambda: len(probe.log.events) == 2)
    for attempt in (bot_channel.send("more"), board.edit(content="board v3")):
        with pytest.raises(discord.Forbidden) as hidden:
            await attempt
        assert hidden.value.code == 50001

    await channel.restore_bot_permissions()
    await probe.log.wait_for(lambda: len(probe.log.events) == 3)
    assert probe.log.events[-1][1].send_messages
    await board.edit(content="board v3")
    await bot_channel.send("more")
    assert [m.content for m in channel.messages()] == ["board v3", "more"]


async def test_the_bots_role_loses_and_regains_a_permission(
    probe: ProbeBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    bot_channel: discord.TextChannel,
) -> None:
    everyone = discord.Permissions(view_channel=True, read_message_history=True)
    await guild.set_role_permissions(guild.everyone, everyone)
    await guild.set_bot_role_permissions(everyone)
    await probe.log.wait_for(lambda: len(probe.log.events) == 2)
    assert [e for e, _ in probe.log.events] == ["role_update", "role_update"]
    assert not bot_channel.permissions_for(bot_channel.guild.me).send_messages
    with pytest.raises(discord.Forbidden) as refused:
        await bot_channel.send("hello")
    assert refused.value.code == 50013
    await guild.set_bot_role_permissions(discord.Permissions(view_channel=True, send_messages=True))
    await probe.log.wait_for(lambda: len(probe.log.events) == 3)
    assert bot_channel.permissions_for(bot_channel.guild.me).send_messages
    await bot_channel.send("hello")


async def test_every_version_of_a_message_is_kept_in_order(
    probe: ProbeBot, fake_discord: FakeDiscord, bot_channel: discord.TextChannel, alice: Player
) -> None:
    sent = await bot_channel.send("turn 1")
    await sent.edit(content="turn 2")
    other = await bot_channel.send("elsewhere")
    await sent.edit(content="turn 3", embed=discord.Embed(title="Board"))
    message = fake_discord.message(sent.id)
    assert [v.number for v in message.history] == [0, 1, 2]
    assert [v.content for v in message.history] == ["turn 1", "turn 2", "turn 3"]
    assert message.history[-1].text == "turn 3\nBoard"
    sequences = [v.sequence for v in message.history]
    assert sequences == sorted(sequences)
    # One order across messages: the other message's creation came between the edits.
    between = fake_discord.message(other.id).history[0].sequence
    assert sequences[1] < between < sequences[2]
    board = (await alice.slash("board")).message
    assert board is not None
    await alice.click(board, "Press")
    assert [v.content for v in board.history] == ["presses 0", "presses 1"]
    assert [v.custom_ids() for v in board.history] == [["probe:press"]] * 2
