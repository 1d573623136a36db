"""End-to-end foundation: the real bot, through the real discord.py, against the fake
Discord — start-up, command registration, stale controls, closed DMs, missing permissions,
clean shutdown, the zlib-stream gateway, and Discord's interaction rules."""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections.abc import Callable
from typing import Any

import discord
import pytest
from fakediscord import (
    BotDidNotAnswer,
    BotHarness,
    CallbackType,
    FakeDiscord,
    FakeGuild,
    InteractionOutcome,
    Player,
)

from bot.app import DiceBot
from bot.model.clock import ManualClock

STALE_BUTTON = {
    "type": 1,
    "components": [
        {"type": 2, "style": 1, "label": "Old move", "custom_id": "retired-game:42:move:1"}
    ],
}


def replay_interaction(bot: DiceBot, outcome: InteractionOutcome) -> discord.Interaction:
    """The same interaction once more, as discord.py would build it from the gateway: lets a
    test answer it a second time, or late, through the bot's own HTTP session."""
    return discord.Interaction(data=outcome.interaction.payload, state=bot._connection)  # type: ignore[arg-type]


async def test_bot_starts_becomes_ready_and_registers_its_commands(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    assert running_bot.is_ready()
    assert running_bot.get_guild(guild.id) is not None
    assert fake_discord.gateway.identify_count == 1
    assert fake_discord.requests_to(
        "/applications/{application_id}/guilds/{guild_id}/commands", "PUT"
    )
    names = fake_discord.commands.names(guild.id)
    assert {"ping", "dicebot check"} <= set(names)


async def test_ping_answers_at_once_and_only_to_the_caller(
    running_bot: DiceBot, alice: Player, bob: Player, guild: FakeGuild
) -> None:
    outcome = await alice.slash("ping")
    assert outcome.type is CallbackType.MESSAGE and outcome.ephemeral
    assert "Pong" in outcome.text()
    assert outcome.message in alice.ephemerals()
    assert bob.ephemerals() == [] and guild.default_channel.messages() == []


async def test_unknown_control_gets_a_clear_ephemeral_answer(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    old = await fake_discord.seed_bot_message(
        guild.default_channel, content="A game from long ago", components=[STALE_BUTTON]
    )
    outcome = await alice.click(old, "Old move")
    assert outcome.type is CallbackType.MESSAGE and outcome.ephemeral
    assert "no longer active" in outcome.text()
    assert old.content == "A game from long ago" and old.edit_count == 0


async def test_check_reports_working_dms_and_permissions(
    running_bot: DiceBot, alice: Player
) -> None:
    outcome = await alice.slash("dicebot check")
    answer = (await outcome.final_message()).text()
    assert outcome.ephemeral
    assert "every permission" in answer and "I can DM you" in answer
    assert len(alice.dms()) == 1


async def test_check_explains_closed_dms(
    running_bot: DiceBot, make_member: Callable[..., Any]
) -> None:
    dave: Player = await make_member("dave", dms_open=False)
    outcome = await dave.slash("dicebot check")
    answer = (await outcome.final_message()).text()
    assert "DMs are closed" in answer
    assert dave.dms() == []


async def test_check_names_the_missing_permission(
    running_bot: DiceBot, guild: FakeGuild, alice: Player
) -> None:
    locked = await guild.add_channel(
        "locked", bot_deny=discord.Permissions(send_messages=True, attach_files=True)
    )
    outcome = await alice.slash("dicebot check", channel=locked)
    assert outcome.interaction.payload["app_permissions"] == str(locked.bot_permissions().value)
    answer = (await outcome.final_message()).text()
    assert "missing" in answer and "Send Messages" in answer and "Attach Files" in answer
    assert "Embed Links" not in answer
    assert locked.messages() == []


@pytest.mark.own_texts
async def test_a_second_callback_is_refused_with_40060(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    outcome = await alice.slash("ping")
    again = replay_interaction(running_bot, outcome)
    with pytest.raises(discord.HTTPException) as refused:
        await again.response.send_message("twice", ephemeral=True)
    assert refused.value.status == 400 and refused.value.code == 40060
    assert len(fake_discord.take_problems("already-acknowledged")) == 1
    assert outcome.interaction.callback_attempts == [(4, 200), (4, 400)]


@pytest.mark.own_texts
async def test_interaction_tokens_expire_after_15_minutes(
    running_bot: DiceBot, fake_discord: FakeDiscord, clock: ManualClock, alice: Player
) -> None:
    outcome = await alice.slash("ping")
    replay = replay_interaction(running_bot, outcome)
    clock.advance(14 * 60)
    await replay.edit_original_response(content="Still here")
    assert outcome.text() == "Still here"
    clock.advance(2 * 60)
    with pytest.raises(discord.HTTPException) as expired:
        await replay.edit_original_response(content="Too late")
    assert expired.value.status == 401 and expired.value.code == 50027
    assert outcome.text() == "Still here"
    assert len(fake_discord.take_problems("expired-token")) == 1


async def test_an_answer_after_the_deadline_fails_the_test(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    # A deadline of 0 s makes any answer late without making the test wait 3 s.
    fake_discord.callback_deadline = 0.0
    with pytest.raises(BotDidNotAnswer, match="Unknown interaction"):
        await alice.slash("ping")
    assert len(fake_discord.take_problems("late-answer")) == 1


async def test_a_rate_limited_callback_is_retried(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    route = "/interactions/{interaction_id}/{token}/callback"
    fake_discord.rate_limit(route, retry_after=0.05)
    outcome = await alice.slash("ping")
    assert "Pong" in outcome.text()
    assert [r.status for r in fake_discord.requests_to(route)] == [429, 200]


async def test_zlib_stream_gateway(
    bot_factory: BotHarness, fake_discord: FakeDiscord, alice: Player
) -> None:
    fake_discord.gateway.compression = "zlib-stream"
    await bot_factory.start()
    assert fake_discord.gateway.compressed_connections == 1
    assert "Pong" in (await alice.slash("ping")).text()


async def test_restart_keeps_serving_the_controls_already_posted(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    first = await bot_factory.start()
    old = await fake_discord.seed_bot_message(
        guild.default_channel, content="posted before the restart", components=[STALE_BUTTON]
    )
    second = await bot_factory.restart()
    assert second is not first and second.is_ready()
    assert fake_discord.gateway.identify_count == 2
    assert "no longer active" in (await alice.click(old, "Old move")).text()
    assert "Pong" in (await alice.slash("ping")).text()


async def test_shutdown_is_clean(bot_factory: BotHarness, alice: Player) -> None:
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    previous_handler = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            bot = await bot_factory.start()
            await alice.slash("ping")
            leftovers = await bot_factory.stop()
            del bot
            gc.collect()
    finally:
        loop.set_exception_handler(previous_handler)
    assert leftovers == []
    unclosed = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert unclosed == []
    assert [c.get("message") for c in reported] == []
