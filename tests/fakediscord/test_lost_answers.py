"""Lost interaction answers, as real discord.py experiences them and as the player sees them
("This interaction failed" is an ``interaction-failed`` problem the test takes)."""

from __future__ import annotations

import aiohttp
import discord
import pytest

from fakediscord import CallbackFault, FakeDiscord, FakeGuild, Player, routes
from fakediscord.probe import ProbeBot


async def test_unknown_interaction_kills_the_interaction_at_once(
    probe: ProbeBot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    # timeout=1: the outcome must be known at the 10062, not after answer_timeout (5 s).
    outcome = await alice.slash("answer", retries=1, fault="unknown-interaction", timeout=1)
    assert outcome.lost and "10062" in (outcome.failure or "")
    with pytest.raises(AssertionError, match="was lost"):
        _ = outcome.type
    await probe.log.wait_for(lambda: len(probe.log.attempts) == 3)
    first, retry, followup = probe.log.attempts
    # The bot sees NotFound 10062 on its answer and on a second try; the token's webhook
    # does not exist either, since the interaction was never acknowledged.
    assert isinstance(first.error, discord.NotFound) and (first.status, first.code) == (404, 10062)
    assert isinstance(retry.error, discord.NotFound) and retry.code == 10062
    assert isinstance(followup.error, discord.NotFound) and followup.code == 10015
    assert [r.status for r in fake_discord.requests_to(routes.CALLBACK)] == [404, 404]
    assert fake_discord.requests_to(routes.CALLBACK)[0].fault == "unknown-interaction"
    assert alice.ephemerals() == [] and guild.default_channel.messages() == []
    failed = fake_discord.take_problems("interaction-failed")
    assert len(failed) == 1 and "alice's /answer" in failed[0].detail


async def test_a_fail_rule_on_the_callback_route_is_a_lost_answer_too(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    rule = fake_discord.fail(routes.CALLBACK, status=404, code=10062)
    outcome = await alice.slash("answer", timeout=1)
    assert outcome.lost and rule.hits == 1 and rule.exhausted
    assert len(fake_discord.take_problems("interaction-failed")) == 1
    # The rule is used up: the next interaction is answered normally.
    assert (await alice.slash("answer")).text() == "answered"


async def test_a_503_on_the_callback_is_retried_by_discord_py_after_a_second(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    # discord.py sends interaction answers through its webhook adapter, which retries
    # EVERY 5xx (503 included, unlike the bot-token routes) after 1 s: within the 3 s
    # window, so the player sees the answer and the bot never learns of the fault.
    outcome = await alice.slash("answer", fault=CallbackFault.server_error(503))
    assert not outcome.lost and outcome.text() == "answered"
    assert outcome.latency >= 1.0
    assert [r.status for r in fake_discord.requests_to(routes.CALLBACK)] == [503, 200]
    assert outcome.interaction.faults == ["server-error"]
    await probe.log.wait_for(lambda: probe.log.attempts)
    assert [a.ok for a in probe.log.attempts] == [True]
    assert fake_discord.problems == []


async def test_a_5xx_past_the_window_is_a_lost_answer(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    # A short window keeps the test short: discord.py's retry (1 s later) comes too late.
    fake_discord.callback_deadline = 0.3
    outcome = await alice.slash("answer", fault=CallbackFault.server_error(500), timeout=2)
    assert outcome.lost and "no answer landed" in (outcome.failure or "")
    await probe.log.wait_for(lambda: len(probe.log.attempts) == 2)
    answer, followup = probe.log.attempts
    # What the bot finally sees is the retry's 404 / 10062, not the 500.
    assert isinstance(answer.error, discord.NotFound) and answer.code == 10062
    assert isinstance(followup.error, discord.NotFound) and followup.code == 10015
    assert [r.status for r in fake_discord.requests_to(routes.CALLBACK)] == [500, 404]
    assert len(fake_discord.take_problems("interaction-failed")) == 1


async def test_a_dropped_answer_can_be_given_again_within_the_window(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    outcome = await alice.slash("answer", retries=1, fault="dropped")
    assert not outcome.lost and outcome.text() == "answered"
    await probe.log.wait_for(lambda: len(probe.log.attempts) == 2)
    first, retry = probe.log.attempts
    # No HTTP status at all: aiohttp's error comes straight through discord.py.
    assert isinstance(first.error, aiohttp.ServerDisconnectedError) and retry.ok
    dropped, answered = fake_discord.requests_to(routes.CALLBACK)
    assert (dropped.status, dropped.delivered, dropped.fault) == (0, False, "dropped")
    assert answered.status == 200 and answered.delivered
    assert fake_discord.problems == []


async def test_a_dropped_answer_nobody_repeats_is_lost_when_the_window_closes(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    fake_discord.callback_deadline = 0.3
    outcome = await alice.slash("answer", fault="dropped", timeout=2)
    assert outcome.lost
    await probe.log.wait_for(lambda: len(probe.log.attempts) == 2)
    assert isinstance(probe.log.of("answer")[0].error, aiohttp.ServerDisconnectedError)
    assert len(fake_discord.take_problems("interaction-failed")) == 1


async def test_a_time_out_holds_the_answer_then_drops_it(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    fake_discord.callback_deadline = 0.2
    outcome = await alice.slash("answer", fault=CallbackFault.dropped(delay=0.4), timeout=2)
    # The player's window closed while the bot's request was still in flight.
    assert outcome.lost and probe.log.attempts == []
    await probe.log.wait_for(lambda: len(probe.log.attempts) == 2)
    assert isinstance(probe.log.attempts[0].error, aiohttp.ServerDisconnectedError)
    assert len(fake_discord.take_problems("interaction-failed")) == 1


async def test_an_answer_applied_then_dropped_shows_but_the_bot_never_learns_it(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    outcome = await alice.slash("answer", retries=1, fault="applied-then-dropped")
    assert not outcome.lost and outcome.text() == "answered"
    await probe.log.wait_for(lambda: len(probe.log.attempts) == 3)
    first, retry, followup = probe.log.attempts
    assert isinstance(first.error, aiohttp.ServerDisconnectedError)
    # Asking again tells the bot its first answer landed (40060)...
    assert isinstance(retry.error, discord.HTTPException)
    assert (retry.status, retry.code) == (400, 40060)
    # ...and the token works for follow-ups. A recovering second callback is no problem.
    assert followup.ok and outcome.followups[0].text() == "answered late"
    assert fake_discord.problems == []
    applied = fake_discord.requests_to(routes.CALLBACK)[0]
    assert applied.status == 200 and not applied.delivered


async def test_a_lost_button_press_leaves_the_message_as_it_was(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = (await alice.slash("board")).message
    assert board is not None
    lost = await bob.click(board, "Press", fault="unknown-interaction", timeout=1)
    assert lost.lost and board.content == "presses 0" and len(board.history) == 1
    await probe.log.wait_for(lambda: len(probe.log.of("press")) == 1)
    assert probe.log.of("press")[0].code == 10062
    assert len(fake_discord.take_problems("interaction-failed")) == 1
    # The same button still works for the next press.
    assert (await bob.click(board, "Press")).text() == "presses 1"


async def test_begin_slash_with_a_fault_returns_at_once(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    interaction = await alice.begin_slash("answer", fault="unknown-interaction")
    await fake_discord.wait_for(lambda: interaction.lost)
    assert interaction.faults == ["unknown-interaction"]
    assert [f.kind for f in fake_discord.faults_of(source="player")] == ["unknown-interaction"]
    assert len(fake_discord.take_problems("interaction-failed")) == 1
    with pytest.raises(ValueError, match="unknown callback fault"):
        CallbackFault.of("lost")
