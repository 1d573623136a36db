"""The bot keeps under Discord's global rate limit (50 requests a second per bot token) when
a restart finds many timers due: each timer's edit waits its turn rather than getting a
429 (bench/restart.py found hundreds in a restart of 600 games)."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest
from duel_support import Duel
from fakediscord import BotHarness, FakeDiscord, FakeGuild, Player, routes
from fakediscord.ratelimits import RateLimits
from multidict import CIMultiDict
from yarl import URL

from bot.app import (
    GLOBAL_REQUESTS,
    GLOBAL_WINDOW_SECONDS,
    INTERACTION_PATHS,
    DiceBot,
    GlobalPace,
)
from bot.model.clock import ManualClock

CHALLENGES = 75
DUELS = 6


async def test_timers_due_at_a_restart_are_shown_within_discord_s_limits(
    running_bot: DiceBot,
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    # One challenge in each of 75 channels: their edits are in 75 buckets of their own, so
    # only the global limit can hold them back.
    channels = [await guild.add_channel(f"table-{n}") for n in range(CHALLENGES)]
    challenges = []
    for channel in channels:
        posted = await alice.slash("knucklebones challenge", channel=channel, opponent=bob)
        assert posted.message is not None
        challenges.append(posted.message)
    # And Diceman duels, whose round warning DMs their players: a restarted bot knows none
    # of their DM channels, and Discord opens 5 a bot per 5 s. (Set up at machine speed.)
    fake_discord.rate_limits.at_machine_speed("setting up the duels")
    players = [await guild.add_member(f"player{n}") for n in range(2 * DUELS)]
    duels = []
    for challenger, opponent in zip(players[::2], players[1::2], strict=True):
        challenge = await challenger.slash("diceman challenge", opponent=opponent)
        assert challenge.message is not None
        await opponent.click(challenge.message, "Accept")
        duels.append(Duel(fake_discord, challenge.message, "dm"))
    for duel in duels:
        await duel.wait_round(1)
    await bot_factory.stop()
    # Discord's limits again, their windows empty: a bot takes seconds to start again, and
    # the windows its requests before stopping used up (a second for the global limit, 5 s
    # for opening DMs) are over by then. (Fresh windows: no need to wait them out.)
    fake_discord.rate_limits = RateLimits(fake_discord)
    clock.advance(121)  # the round warnings are due (60 s before the round's 180 s)
    clock.advance(300 - 121 + 1)  # ... and every challenge has expired

    # The restarted bot paces at a third of its rate: a busy machine (PostgreSQL,
    # pseudo-localized, other tests running beside it) may restart below 36 requests a
    # second, and a pace that never has to hold a request back would prove nothing.
    make = bot_factory.factory

    def slower_pace(**options: Any) -> DiceBot:
        bot = make(**options)
        assert isinstance(bot, DiceBot)
        bot.pace.limit = GLOBAL_REQUESTS // 3
        return bot

    bot_factory.factory = slower_pace
    restarted_at = len(fake_discord.requests)
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    await fake_discord.wait_for(
        lambda: (
            all("expired" in message.text() for message in challenges)
            and all(duel.over() for duel in duels)
        ),
        timeout=60,
        what="every challenge to show it expired, every duel to end",
    )
    await bot.publisher.settled()

    made = fake_discord.requests[restarted_at:]
    assert fake_discord.rate_limited == []
    # The restart sent more than the limits allow at once, and the bot held some back.
    assert len([r for r in made if r.route == routes.MESSAGE and r.method == "PATCH"]) > 50
    assert len([r for r in made if r.route == "/users/@me/channels"]) > 5
    assert bot.pace.held > 0
    # No window of the bot's own pace holds more than it allows, whatever Discord counts.
    counted = [r.at for r in made if not any(part in r.path for part in INTERACTION_PATHS)]
    for index, first in enumerate(counted):
        within = [at for at in counted[index:] if at - first < GLOBAL_WINDOW_SECONDS * 0.8]
        assert len(within) <= bot.pace.limit


@pytest.mark.parametrize(
    ("path", "held"),
    [
        ("/api/v10/channels/1/messages/2", True),
        ("/api/v10/users/@me/channels", True),
        ("/api/v10/interactions/1/token/callback", False),
        ("/api/v10/webhooks/1/token/messages/@original", False),
    ],
)
async def test_a_full_window_holds_every_request_but_interaction_answers(
    path: str, held: bool
) -> None:
    pace = GlobalPace(limit=2, window=60.0)
    trace = aiohttp.TraceConfig()
    pace.install(trace)
    starts = trace.on_request_start[-1]
    for _ in range(2):
        await pace.wait_turn()  # the window is full for a minute
    params = aiohttp.TraceRequestStartParams("PATCH", URL(f"http://discord{path}"), CIMultiDict())
    request = asyncio.ensure_future(starts(None, None, params))  # type: ignore[arg-type]
    done, _ = await asyncio.wait({request}, timeout=0.2)
    assert (request not in done) is held
    request.cancel()
    await asyncio.gather(request, return_exceptions=True)
