"""Discord's rate limits, as the fake enforces them on every REST request it handles.

Discord limits a bot per route ("bucket") and globally. A bucket is a route (method and
path template) together with its *major parameter*: the channel, the guild, or the
webhook (id and token) in the path. So the sends in #general and the sends in #dice are
two buckets, and every interaction token has its own follow-up bucket. Each bucket here
is a fixed window: the first request opens it for ``per`` seconds, ``limit`` requests fit,
the next one gets a 429 until the window ends. The windows run on real time
(``time.monotonic()``), not the test's clock: discord.py sleeps real seconds.

Every answer the fake handles carries the bucket's state as Discord sends it::

    X-RateLimit-Limit: 5
    X-RateLimit-Remaining: 4
    X-RateLimit-Reset: 1470173023.123       (unix epoch seconds)
    X-RateLimit-Reset-After: 4.998          (seconds, rounded up to the millisecond)
    X-RateLimit-Bucket: 80c17d2f203122d936070c88c8d10f33

and a request over its bucket gets a 429 with ``X-RateLimit-Scope: user`` (``global``
and ``X-RateLimit-Global: true`` for the global limit), ``Retry-After``, ``Via`` (without
it discord.py takes the 429 for a Cloudflare ban) and the JSON body
``{"message": "You are being rate limited.", "retry_after": 4.998, "global": false}``.
Such a 429 is recorded in ``fake.rate_limited`` and as a ``rate-limited`` problem, which
fails the test: the bot is expected to pace itself under the headers, as discord.py does.
429s a test injects (``fake.rate_limit``, chaos) are faults, not this: the fake answers
them before a bucket is consulted, so they cost nothing here.

Discord does not publish most of its per-route numbers ("rate limits should not be hard
coded into your app"); ``TABLE`` takes each from where it is documented or commonly
observed and says which. The global limit is documented: 50 requests a second per bot
token, and interaction endpoints (the callback, the interaction's follow-ups and its
messages) are not bound to it. Not modelled: shared (per-resource) limits, sub-limits such
as deleting old messages, and the invalid-request limit (10,000 401/403/429 per 10 min).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from aiohttp import web

from . import routes
from .wire import json_response

if TYPE_CHECKING:
    from .server import FakeDiscord, RequestRecord

Scope = Literal["user", "global"]

# The path parameters that make a route's major parameter, in Discord's order.
MAJOR_PARAMETERS = ("channel_id", "guild_id")
# Routes reached with an interaction token rather than the bot token: Discord's
# "interaction endpoints", which are not bound to the bot's global limit.
INTERACTION_ROUTES = frozenset({routes.CALLBACK, routes.FOLLOWUP, routes.WEBHOOK_MESSAGE})
# Buckets kept before those whose window is over are forgotten (a bench makes thousands).
PRUNE_AT = 4096


@dataclass(frozen=True)
class BucketSpec:
    """How many requests (``limit``) fit in one window of ``per`` seconds, and where that
    number comes from."""

    limit: int
    per: float
    source: str

    def time_for(self, requests: int) -> float:
        """Seconds until the last of ``requests`` requests in one bucket can be sent, at
        most, by a client that paces itself under the headers: if the bucket is used up,
        the rest of its window, then ``limit`` requests at the start of each window."""
        return math.ceil(requests / self.limit) * self.per


WEBHOOK_SOURCE = (
    "observed: 5 per 2 s per webhook (id and token), the figure webhook users report "
    "(birdie0's webhook guide, discord/discord-api-docs#6753); an interaction's token is "
    "such a webhook"
)

# Every bucket size the fake uses, keyed by (method, route template). Edit a fake's copy
# (``fake.rate_limits.table``, or ``fake.rate_limits.widen(...)``) in a test that means
# to go past Discord's numbers; these defaults are Discord's.
TABLE: dict[tuple[str, str], BucketSpec] = {
    ("POST", routes.CHANNEL_MESSAGES): BucketSpec(
        5,
        5.0,
        "observed: sends per channel answer X-RateLimit-Limit 5, Reset-After 5 (what "
        "discord.py, discord.js and JDA users report; DMs are channels too)",
    ),
    ("PATCH", routes.MESSAGE): BucketSpec(
        5,
        5.0,
        "observed: edits per channel, 5 per 5 s like sends (commonly reported)",
    ),
    ("DELETE", routes.MESSAGE): BucketSpec(
        5,
        1.0,
        "observed: a bot deleting its own messages, 5 per 1 s per channel (older messages "
        "have a lower sub-limit, not modelled)",
    ),
    ("PUT", routes.REACTION): BucketSpec(
        1,
        0.25,
        "observed: 1 reaction per 0.25 s per channel (discord/discord-api-docs#182)",
    ),
    ("DELETE", routes.REACTION): BucketSpec(
        1,
        0.25,
        "observed: as adding a reaction, 1 per 0.25 s per channel",
    ),
    ("POST", routes.DM_CHANNELS): BucketSpec(
        5,
        5.0,
        "estimate: Discord publishes no number and warns that a bot opening DMs fast is "
        "limited (40003 'opening direct messages too fast'); one bucket for the whole bot "
        "(the route has no major parameter) at a channel's 5 per 5 s",
    ),
    ("POST", routes.CALLBACK): BucketSpec(
        5,
        2.0,
        "estimate: no published number (an interaction takes one answer: 40060); per "
        "interaction, sized like the interaction's webhook so that retries fit",
    ),
    ("POST", routes.FOLLOWUP): BucketSpec(5, 2.0, WEBHOOK_SOURCE),
    ("GET", routes.WEBHOOK_MESSAGE): BucketSpec(5, 2.0, WEBHOOK_SOURCE),
    ("PATCH", routes.WEBHOOK_MESSAGE): BucketSpec(5, 2.0, WEBHOOK_SOURCE),
    ("DELETE", routes.WEBHOOK_MESSAGE): BucketSpec(5, 2.0, WEBHOOK_SOURCE),
}

# Any other route (log-in, command sync, reads): the fake claims no number it has none
# for, so no bucket is tighter than the global limit.
DEFAULT = BucketSpec(
    50, 1.0, "default: no observed number; as generous as the global limit (50 per 1 s)"
)

GLOBAL = BucketSpec(
    50,
    1.0,
    "documented (Discord's Rate Limits page): 50 requests per second per bot token; "
    "interaction endpoints are not bound to it",
)


def bucket_hash(method: str, route: str) -> str:
    """The opaque ``X-RateLimit-Bucket`` of a route: stable, 32 hex digits as Discord's."""
    return hashlib.md5(f"{method} {route}".encode(), usedforsecurity=False).hexdigest()


def major_parameter(record: RequestRecord) -> str:
    """The part of the path that splits a route into buckets: the channel, the guild, or
    the webhook's id and token (an interaction callback: the interaction and its token)."""
    params = record.params
    for name in MAJOR_PARAMETERS:
        if name in params:
            return params[name]
    if "token" in params:
        owner = params.get("interaction_id") or params.get("application_id") or ""
        return f"{owner}+{params['token']}"
    return ""


def _ceil_ms(seconds: float) -> float:
    # Rounded up (past float noise): a client that waits what it is told never comes back
    # early.
    return math.ceil(round(max(seconds, 0.0) * 1000, 6)) / 1000


@dataclass
class Window:
    """One bucket's (or the global limit's) current window."""

    spec: BucketSpec
    count: int = 0
    ends_at: float = 0.0  # time.monotonic()

    def admit(self, now: float) -> bool:
        if now >= self.ends_at:
            self.count = 0
            self.ends_at = now + self.spec.per
        if self.count >= self.spec.limit:
            return False
        self.count += 1
        return True

    def reset_after(self, now: float) -> float:
        return _ceil_ms(self.ends_at - now)


@dataclass
class BucketState:
    """What one answer said about its bucket (``record.rate_limit``)."""

    name: str  # "PATCH /channels/{channel_id}/messages/{message_id}"
    key: str  # the major parameter
    bucket: str  # X-RateLimit-Bucket
    limit: int
    remaining: int
    reset_after: float
    reset: float  # unix epoch seconds

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": f"{self.reset:.3f}",
            "X-RateLimit-Reset-After": f"{self.reset_after:.3f}",
            "X-RateLimit-Bucket": self.bucket,
        }


@dataclass
class RateLimitHit:
    """A 429 the fake's own limits gave (not an injected one)."""

    record: RequestRecord
    scope: Scope
    retry_after: float
    state: BucketState | None  # None for the global limit

    def __str__(self) -> str:
        record = self.record
        if self.state is None:
            what = "the bot's global limit"
        else:
            what = f"its bucket ({self.state.limit} per window, key {self.state.key[:24]})"
        return (
            f"{record.method} {record.path[:80]} -> 429 over {what}, "
            f"retry_after {self.retry_after:.3f} s"
        )


def rate_limited_answer(
    retry_after: float, *, scope: Scope, state: BucketState | None = None
) -> web.Response:
    """A 429 as Discord answers it when a limit is really exceeded."""
    body: dict[str, Any] = {
        "message": "You are being rate limited.",
        "retry_after": retry_after,
        "global": scope == "global",
    }
    headers = {
        "Via": "1.1 google",
        "Retry-After": str(max(1, math.ceil(retry_after))),
        "X-RateLimit-Scope": scope,
    }
    if scope == "global":
        headers["X-RateLimit-Global"] = "true"
    if state is not None:
        headers.update(state.headers())
    return json_response(body, 429, headers)


@dataclass
class RateLimits:
    """The fake's buckets (``fake.rate_limits``). ``table`` is this fake's copy of
    ``TABLE``; ``global_limit`` and ``default`` likewise."""

    fake: FakeDiscord
    table: dict[tuple[str, str], BucketSpec] = field(default_factory=lambda: dict(TABLE))
    default: BucketSpec = DEFAULT
    global_limit: BucketSpec = GLOBAL
    clock: Callable[[], float] = time.monotonic
    _windows: dict[tuple[str, str, str], Window] = field(default_factory=dict)
    # The fake serves one bot token: one global window.
    _global: Window | None = None

    def spec(self, method: str, route: str) -> BucketSpec:
        return self.table.get((method, route), self.default)

    def widen(self, route: str, method: str, *, limit: int, per: float, why: str) -> BucketSpec:
        """Give one route a bucket other than Discord's from now on, for a test that goes
        past Discord's numbers on purpose (a stress test spamming one channel); ``why``
        says so where the number is kept (``spec.source``)."""
        spec = BucketSpec(limit, per, f"test: {why}")
        self.table[(method, route)] = spec
        return spec

    def at_machine_speed(self, why: str, factor: int = 10) -> None:
        """For a test that plays whole games at machine speed (presses milliseconds apart,
        where players take seconds): every per-route bucket takes ``factor`` times Discord's
        requests per window, so the test times its game rather than Discord's pacing (which
        ``tests/e2e/test_busy_channel.py`` covers). Windows, headers, the global limit and
        429s stay as they are. ``why`` goes into each bucket's ``source``."""
        for key, spec in list(self.table.items()):
            self.table[key] = BucketSpec(
                spec.limit * factor,
                spec.per,
                f"test: {why} (Discord's {spec.limit} per {spec.per:g} s, x{factor})",
            )
        self.default = BucketSpec(self.default.limit * factor, self.default.per, f"test: {why}")
        self.reset()

    def for_benchmark(self, why: str) -> None:
        """For a benchmark of the bot's own work (hundreds of requests a second in one
        channel): every bucket, the global limit too, a thousand times Discord's, so that
        none binds. The headers still go out and the bot still paces by them."""
        self.at_machine_speed(why, factor=1000)
        limit = self.global_limit
        self.global_limit = BucketSpec(limit.limit * 1000, limit.per, f"benchmark: {why}")

    def admit(self, record: RequestRecord) -> web.Response | None:
        """Count ``record`` in its buckets: None if it may go on (its answer gets the
        headers, see ``stamp``), else the 429 Discord would answer, recorded."""
        now = self.clock()
        if record.route not in INTERACTION_ROUTES:
            if self._global is None or self._global.spec is not self.global_limit:
                self._global = Window(self.global_limit)
            if not self._global.admit(now):
                return self._refuse(record, "global", self._global.reset_after(now), None)
        spec = self.spec(record.method, record.route)
        key = major_parameter(record)
        window_key = (record.method, record.route, key)
        window = self._windows.get(window_key)
        if window is None or window.spec is not spec:
            if len(self._windows) >= PRUNE_AT:
                # Every interaction token makes buckets: forget those whose window is over.
                self._windows = {k: w for k, w in self._windows.items() if w.ends_at > now}
            window = self._windows[window_key] = Window(spec)
        admitted = window.admit(now)
        reset_after = window.reset_after(now)
        state = BucketState(
            name=f"{record.method} {record.route}",
            key=key,
            bucket=bucket_hash(record.method, record.route),
            limit=spec.limit,
            remaining=spec.limit - window.count,
            reset_after=reset_after,
            reset=time.time() + reset_after,
        )
        record.rate_limit = state
        if not admitted:
            return self._refuse(record, "user", reset_after, state)
        return None

    def stamp(self, record: RequestRecord, response: web.StreamResponse) -> None:
        """Put the bucket's headers on an answer the fake handled."""
        if record.rate_limit is not None and response.status != 429 and not response.prepared:
            response.headers.update(record.rate_limit.headers())

    def _refuse(
        self, record: RequestRecord, scope: Scope, retry_after: float, state: BucketState | None
    ) -> web.Response:
        response = rate_limited_answer(retry_after, scope=scope, state=state)
        record.status = 429
        record.response = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": scope == "global",
        }
        hit = RateLimitHit(record, scope, retry_after, state)
        self.fake.rate_limited.append(hit)
        self.fake.record_problem("rate-limited", str(hit))
        return response

    def global_window_left(self) -> float:
        """Seconds until the global limit's current window ends (0 when none is open): what
        a bot started now would share with the requests already sent."""
        window = self._global
        return 0.0 if window is None else max(window.ends_at - self.clock(), 0.0)

    def reset(self) -> None:
        """Forget every window (all buckets full again)."""
        self._windows.clear()
        self._global = None

    def use_clock(self, clock: Callable[[], float]) -> None:
        """Run the windows on ``clock`` (seconds, like ``time.monotonic``) from now on, all
        buckets full: for a test of the windows themselves that moves time by hand."""
        self.clock = clock
        self.reset()


__all__ = [
    "DEFAULT",
    "GLOBAL",
    "TABLE",
    "BucketSpec",
    "BucketState",
    "RateLimitHit",
    "RateLimits",
    "bucket_hash",
    "major_parameter",
    "rate_limited_answer",
]
