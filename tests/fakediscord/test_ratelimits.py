"""Discord's rate limits in the fake (ratelimits.py): the X-RateLimit-* headers on every
answer, a 429 over a bucket (scope "user") or over the global limit (scope "global"),
interaction endpoints outside the global limit, windows that reset, 429s a test injects
costing nothing, and discord.py pacing itself under the headers without a single 429.

The exact-value tests run the windows on a clock moved by hand (``use_clock``); the
pacing tests run on real time, as discord.py sleeps real seconds."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import aiohttp
import discord

from fakediscord import FakeDiscord, FakeGuild, Player, routes
from fakediscord.probe import ProbeBot
from fakediscord.ratelimits import DEFAULT, GLOBAL, TABLE, bucket_hash


class HandClock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def call(
    fake: FakeDiscord, method: str, path: str, body: Any = None, *, bot_token: bool = True
) -> tuple[int, dict[str, str], Any]:
    """One request straight over HTTP: (status, headers, JSON body)."""
    headers = {"Authorization": f"Bot {fake.token}"} if bot_token else {}
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, f"{fake.api_base}{path}", json=body, headers=headers) as answer,
    ):
        data = await answer.json() if answer.content_type == "application/json" else None
        return answer.status, dict(answer.headers), data


def send_path(channel_id: int) -> str:
    return f"/channels/{channel_id}/messages"


async def test_every_answer_carries_its_buckets_state(
    fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    clock = HandClock()
    fake_discord.rate_limits.use_clock(clock)
    general = guild.default_channel
    dice = await guild.add_channel("dice")
    sends = bucket_hash("POST", routes.CHANNEL_MESSAGES)
    assert re.fullmatch(r"[0-9a-f]{32}", sends)

    for remaining in (4, 3, 2):
        status, headers, _ = await call(
            fake_discord, "POST", send_path(general.id), {"content": "hi"}
        )
        assert status == 200
        assert headers["X-RateLimit-Limit"] == "5"
        assert headers["X-RateLimit-Remaining"] == str(remaining)
        assert headers["X-RateLimit-Reset-After"] == "5.000"
        assert headers["X-RateLimit-Bucket"] == sends
        assert abs(float(headers["X-RateLimit-Reset"]) - (time.time() + 5)) < 1
        assert "X-RateLimit-Scope" not in headers  # only on a 429
    clock.now += 1.5
    _, headers, message = await call(fake_discord, "POST", send_path(general.id), {"content": "4"})
    assert (headers["X-RateLimit-Remaining"], headers["X-RateLimit-Reset-After"]) == ("1", "3.500")

    # The channel is the route's major parameter: #dice has a bucket of its own, with the
    # same hash (discord.py keys it by hash and channel).
    _, headers, _ = await call(fake_discord, "POST", send_path(dice.id), {"content": "hi"})
    assert (headers["X-RateLimit-Remaining"], headers["X-RateLimit-Bucket"]) == ("4", sends)

    # Edits are another bucket; an error answer counts and carries the headers too.
    edit = f"{send_path(general.id)}/{message['id']}"
    status, headers, _ = await call(fake_discord, "PATCH", edit, {"content": "edited"})
    assert status == 200 and headers["X-RateLimit-Remaining"] == "4"
    edits = headers["X-RateLimit-Bucket"]
    assert edits == bucket_hash("PATCH", routes.MESSAGE) != sends
    status, headers, _ = await call(
        fake_discord, "PATCH", f"{send_path(general.id)}/1", {"content": "x"}
    )
    assert status == 404 and headers["X-RateLimit-Remaining"] == "3"
    assert headers["X-RateLimit-Bucket"] == edits

    # A route the table has no number for gets the generous default.
    status, headers, _ = await call(fake_discord, "GET", "/users/@me")
    assert status == 200 and headers["X-RateLimit-Limit"] == str(DEFAULT.limit)
    record = fake_discord.requests[-1]
    assert record.rate_limit is not None and record.rate_limit.remaining == DEFAULT.limit - 1
    assert fake_discord.rate_limited == []


async def test_a_burst_over_a_bucket_is_refused_until_its_window_ends(
    fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    clock = HandClock()
    fake_discord.rate_limits.use_clock(clock)
    channel = guild.default_channel
    for n in range(5):
        status, _, _ = await call(fake_discord, "POST", send_path(channel.id), {"content": str(n)})
        assert status == 200
    clock.now += 1.25
    status, headers, body = await call(
        fake_discord, "POST", send_path(channel.id), {"content": "one too many"}
    )
    assert status == 429
    assert body == {"message": "You are being rate limited.", "retry_after": 3.75, "global": False}
    assert headers["X-RateLimit-Scope"] == "user" and headers["Via"]
    assert headers["Retry-After"] == "4" and headers["X-RateLimit-Remaining"] == "0"
    assert headers["X-RateLimit-Bucket"] == bucket_hash("POST", routes.CHANNEL_MESSAGES)
    assert "X-RateLimit-Global" not in headers
    assert [m.content for m in channel.messages()] == ["0", "1", "2", "3", "4"]

    # Recorded, and a problem: a bot that hits a limit fails its test.
    (hit,) = fake_discord.rate_limited
    assert (hit.scope, hit.retry_after, hit.record.status) == ("user", 3.75, 429)
    assert hit.record.fault is None  # not injected
    assert [p.kind for p in fake_discord.final_problems()] == ["rate-limited"]
    assert fake_discord.take_problems("rate-limited")

    # Until the window ends; then the bucket is full again.
    clock.now += 3.7
    status, _, body = await call(fake_discord, "POST", send_path(channel.id), {"content": "x"})
    assert status == 429 and body["retry_after"] == 0.05
    clock.now += 0.05
    status, headers, _ = await call(fake_discord, "POST", send_path(channel.id), {"content": "5"})
    assert status == 200 and headers["X-RateLimit-Remaining"] == "4"
    assert headers["X-RateLimit-Reset-After"] == "5.000"
    assert len(fake_discord.take_problems("rate-limited")) == 1


async def test_the_global_limit_spans_routes_and_answers_scope_global(
    fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    clock = HandClock()
    fake_discord.rate_limits.use_clock(clock)
    assert (GLOBAL.limit, GLOBAL.per) == (50, 1.0)
    reads = ["/users/@me", "/gateway/bot", f"/channels/{guild.default_channel.id}"]
    statuses = [(await call(fake_discord, "GET", reads[n % 3]))[0] for n in range(50)]
    assert statuses == [200] * 50
    clock.now += 0.4
    status, headers, body = await call(
        fake_discord, "POST", send_path(guild.default_channel.id), {"content": "hi"}
    )
    assert status == 429
    assert body == {"message": "You are being rate limited.", "retry_after": 0.6, "global": True}
    assert headers["X-RateLimit-Global"] == "true" and headers["X-RateLimit-Scope"] == "global"
    assert headers["Via"] and headers["Retry-After"] == "1"
    assert "X-RateLimit-Bucket" not in headers  # not a route's limit
    assert [hit.scope for hit in fake_discord.rate_limited] == ["global"]
    assert guild.default_channel.messages() == []
    assert fake_discord.take_problems("rate-limited")
    clock.now += 0.6
    status, _, _ = await call(
        fake_discord, "POST", send_path(guild.default_channel.id), {"content": "hi"}
    )
    assert status == 200


async def test_interaction_endpoints_are_outside_the_global_limit(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    clock = HandClock()
    fake_discord.rate_limits.use_clock(clock)
    for _ in range(GLOBAL.limit):
        assert (await call(fake_discord, "GET", "/users/@me"))[0] == 200
    assert (await call(fake_discord, "GET", "/users/@me"))[0] == 429
    assert fake_discord.take_problems("rate-limited")

    # The global limit is used up, and yet the answer, a follow-up and an edit of the
    # answer go through: their buckets are the interaction's own.
    outcome = await alice.slash("answer")
    assert outcome.text() == "answered"
    interaction = probe.log.interactions[-1]
    await interaction.followup.send("and more")
    await interaction.edit_original_response(content="answered, edited")
    callback, followup, edit = fake_discord.requests[-3:]
    assert (callback.route, callback.status) == (routes.CALLBACK, 200)
    assert (followup.route, followup.status) == (routes.FOLLOWUP, 200)
    assert (edit.route, edit.status) == (routes.WEBHOOK_MESSAGE, 200)
    assert callback.rate_limit is not None and callback.rate_limit.key.startswith(
        f"{interaction.id}+"
    )
    assert followup.rate_limit is not None and edit.rate_limit is not None
    assert (
        followup.rate_limit.key
        == edit.rate_limit.key
        == f"{probe.application_id}+{interaction.token}"
    )
    assert (followup.rate_limit.remaining, edit.rate_limit.remaining) == (4, 4)
    assert [hit.record.path for hit in fake_discord.rate_limited] == ["/users/@me"]


async def test_an_injected_429_costs_the_bucket_nothing(
    probe: ProbeBot, fake_discord: FakeDiscord, bot_channel: discord.TextChannel
) -> None:
    sent = await bot_channel.send("board")
    fake_discord.rate_limit(routes.MESSAGE, method="PATCH", times=3, retry_after=0.01)
    await sent.edit(content="board v2")
    edits = fake_discord.requests_to(routes.MESSAGE, "PATCH")
    assert [(r.status, r.fault) for r in edits] == [(429, "rate-limit")] * 3 + [(200, None)]
    # discord.py's one call (and its one token of the bucket) is one edit in the fake.
    assert [r.rate_limit.remaining if r.rate_limit else None for r in edits] == [None] * 3 + [4]
    assert fake_discord.rate_limited == [] and fake_discord.problems == []


async def test_discord_py_paces_a_burst_of_sends_without_a_429(
    probe: ProbeBot, fake_discord: FakeDiscord, bot_channel: discord.TextChannel
) -> None:
    # Twelve sends at once in one channel: discord.py learns the bucket from the first
    # answer's headers and sends the rest five per window, three windows in all.
    spec = fake_discord.rate_limits.spec("POST", routes.CHANNEL_MESSAGES)
    started = time.perf_counter()
    await asyncio.gather(*(bot_channel.send(f"message {n}") for n in range(12)))
    elapsed = time.perf_counter() - started
    sends = fake_discord.requests_to(routes.CHANNEL_MESSAGES, "POST")
    assert [r.status for r in sends] == [200] * 12
    assert fake_discord.rate_limited == []
    first = sends[0].at
    for n, record in enumerate(sends):
        assert record.at - first >= (n // spec.limit) * spec.per
    assert (12 - 1) // spec.limit * spec.per <= elapsed <= spec.time_for(12) + 2


async def test_discord_py_paces_an_interactions_follow_ups_without_a_429(
    probe: ProbeBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    await alice.slash("answer")
    interaction = probe.log.interactions[-1]
    spec = fake_discord.rate_limits.spec("POST", routes.FOLLOWUP)
    # The webhook adapter sends them one at a time and, told Remaining 0, waits out the
    # window before the next.
    for n in range(spec.limit + 2):
        await interaction.followup.send(f"follow-up {n}")
    followups = fake_discord.requests_to(routes.FOLLOWUP, "POST")
    assert [r.status for r in followups] == [200] * (spec.limit + 2)
    assert followups[spec.limit].at - followups[0].at >= spec.per
    assert fake_discord.rate_limited == []


async def test_a_test_may_widen_a_bucket_saying_why(
    fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    spec = fake_discord.rate_limits.widen(
        routes.CHANNEL_MESSAGES, "POST", limit=100, per=1.0, why="a stress test"
    )
    assert spec.source == "test: a stress test"
    _, headers, _ = await call(
        fake_discord, "POST", send_path(guild.default_channel.id), {"content": "hi"}
    )
    assert headers["X-RateLimit-Limit"] == "100"
    # Only this fake's copy changed: Discord's numbers stay the defaults.
    assert TABLE[("POST", routes.CHANNEL_MESSAGES)].limit == 5


def test_every_bucket_says_where_its_number_comes_from() -> None:
    for (method, route), spec in TABLE.items():
        assert method in ("GET", "POST", "PATCH", "DELETE", "PUT") and route.startswith("/")
        assert spec.limit >= 1 and spec.per > 0
        assert spec.source.split(":")[0] in ("documented", "observed", "estimate"), route
    assert DEFAULT.source.startswith("default") and GLOBAL.source.startswith("documented")
    assert TABLE[("POST", routes.CHANNEL_MESSAGES)].time_for(12) == 15.0


async def test_the_global_window_left_is_what_a_bot_started_now_would_share(
    fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    # The harness waits this long before starting a bot again (a real restart's gap).
    clock = HandClock()
    fake_discord.rate_limits.use_clock(clock)
    assert fake_discord.rate_limits.global_window_left() == 0.0
    assert (await call(fake_discord, "GET", "/users/@me"))[0] == 200
    clock.now += 0.25
    assert fake_discord.rate_limits.global_window_left() == 0.75
    clock.now += 0.75
    assert fake_discord.rate_limits.global_window_left() == 0.0
    # The next request opens a window of its own.
    assert (await call(fake_discord, "GET", "/users/@me"))[0] == 200
    assert fake_discord.rate_limits.global_window_left() == 1.0
