"""Requests held in flight: released, dropped or failed when the test says so."""

from __future__ import annotations

import asyncio

import aiohttp
import discord
import pytest

from fakediscord import FakeDiscord, Player, routes
from fakediscord.probe import ProbeBot


async def test_a_held_edit_lands_only_when_released(
    probe: ProbeBot, fake_discord: FakeDiscord, bot_channel: discord.TextChannel
) -> None:
    sent = await bot_channel.send("turn 1")
    message = fake_discord.message(sent.id)
    hold = fake_discord.hold(routes.MESSAGE, method="PATCH")
    edit = asyncio.create_task(sent.edit(content="turn 2"))
    record = await hold.arrived()
    assert record.status == 0 and record.body["content"] == "turn 2"
    assert hold.held == 1 and message.content == "turn 1" and not edit.done()
    # Other requests go on meanwhile.
    await bot_channel.send("meanwhile")
    hold.release()
    await edit
    assert message.content == "turn 2" and record.status == 200 and record.fault == "held"
    # The hold was for one request: the next edit is not held.
    await sent.edit(content="turn 3")


async def test_a_held_edit_dropped_or_failed(
    probe: ProbeBot, fake_discord: FakeDiscord, bot_channel: discord.TextChannel
) -> None:
    sent = await bot_channel.send("turn 1")
    message = fake_discord.message(sent.id)
    hold = fake_discord.hold(routes.MESSAGE, method="PATCH", times=2)
    first = asyncio.create_task(sent.edit(content="turn 2"))
    await hold.arrived()
    hold.drop()
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await first
    # The decision stands for the rest of the hold: the second request is dropped too.
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await sent.edit(content="turn 2")
    assert message.content == "turn 1"
    assert [r.fault for r in hold.caught] == ["held+dropped"] * 2

    failing = fake_discord.hold(routes.MESSAGE, method="PATCH")
    failing.fail(503)  # decided before the request even arrives
    with pytest.raises(discord.DiscordServerError):
        await sent.edit(content="turn 2")
    assert failing.caught[0].status == 503


async def test_a_held_answer_released_too_late_is_lost(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    fake_discord.callback_deadline = 0.2
    hold = fake_discord.hold(routes.CALLBACK)
    interaction = await alice.begin_slash("answer")
    await hold.arrived()
    await fake_discord.wait_for(lambda: interaction.lost, timeout=2)
    hold.release()
    await probe.log.wait_for(lambda: len(probe.log.attempts) == 2)
    assert probe.log.attempts[0].code == 10062
    assert len(fake_discord.take_problems("interaction-failed")) == 1
