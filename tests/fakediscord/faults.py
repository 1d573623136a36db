"""Faults a test injects into the bot's REST requests, the way real Discord fails: error
answers (5xx, 404 Unknown interaction, ...), runs of 429s, connections dropped without an
answer (before or after Discord applied the request), and requests held in flight.

Every fault that hits a request is recorded (``fake.injected_faults`` and the request's
``RequestRecord.fault``), so a test can account for what it injected."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Literal

from aiohttp import web

from . import routes
from .errors import UNKNOWN_INTERACTION, DiscordError
from .wire import rate_limited

if TYPE_CHECKING:
    from .chaos import Chaos
    from .interactions import FakeInteraction
    from .server import FakeDiscord, RequestRecord

RequestPredicate = Callable[["RequestRecord"], Any]

# What an injected fault is called in ``InjectedFault.kind`` and ``RequestRecord.fault``.
FaultKind = Literal[
    "unknown-interaction",  # 404 / 10062 on an interaction callback: the interaction is dead
    "server-error",  # a 5xx answer; Discord did not process the request
    "http-error",  # any other error answer a test asked for (403 / 50013, 404 / 10008, ...)
    "rate-limit",  # a 429 with retry_after and a Via header
    "dropped",  # the connection closed without an answer; the request was NOT applied
    "applied-then-dropped",  # applied by Discord, but the answer never reached the bot
    "held",  # held in flight by fake.hold (then released, dropped or failed)
    "permission-outage",  # chaos took a permission from the bot in a channel for a while
]

CallbackFaultKind = Literal[
    "unknown-interaction", "server-error", "dropped", "applied-then-dropped"
]

# Discord's own texts for the codes a test is likely to inject.
KNOWN_MESSAGES = {
    10003: "Unknown Channel",
    10008: "Unknown Message",
    10015: "Unknown Webhook",
    10062: "Unknown interaction",
    40060: "Interaction has already been acknowledged.",
    50001: "Missing Access",
    50007: "Cannot send messages to this user",
    50013: "Missing Permissions",
}


def error_for(status: int, code: int | None, message: str | None) -> DiscordError:
    """The error answer Discord gives for ``status`` / ``code`` (code 0 for plain 5xx)."""
    if message is None:
        message = KNOWN_MESSAGES.get(code or 0)
    if message is None:
        try:
            message = f"{status}: {HTTPStatus(status).phrase}"
        except ValueError:
            message = f"{status}: Error"
    return DiscordError(status, code or 0, message)


@dataclass(frozen=True)
class CallbackFault:
    """How the bot's answer to one interaction fails (``player.click(..., fault=...)``).

    - ``unknown_interaction()``: 404 / 10062; the interaction is dead (later callbacks get
      10062 too, the token's webhooks 404 / 10015), the player sees "This interaction
      failed".
    - ``server_error(status=503, times=1)``: the next ``times`` callback attempts get a 5xx
      that Discord did not process; the interaction can still be answered within its 3 s.
    - ``dropped(times=1, delay=0)``: the fake holds the attempt ``delay`` seconds, then
      closes the connection without an answer (not applied; still answerable in the window).
    - ``applied_then_dropped(delay=0)``: Discord applies the answer (the player sees it), but
      the connection closes before the bot learns it.
    """

    kind: CallbackFaultKind
    status: int = 503
    times: int = 1
    delay: float = 0.0

    @classmethod
    def unknown_interaction(cls, *, delay: float = 0.0) -> CallbackFault:
        return cls("unknown-interaction", status=404, delay=delay)

    @classmethod
    def server_error(
        cls, status: int = 503, *, times: int = 1, delay: float = 0.0
    ) -> CallbackFault:
        if not 500 <= status <= 599:
            raise ValueError(f"a server error is a 5xx status, not {status}")
        return cls("server-error", status=status, times=times, delay=delay)

    @classmethod
    def dropped(cls, *, times: int = 1, delay: float = 0.0) -> CallbackFault:
        return cls("dropped", times=times, delay=delay)

    @classmethod
    def applied_then_dropped(cls, *, delay: float = 0.0) -> CallbackFault:
        return cls("applied-then-dropped", delay=delay)

    @classmethod
    def of(cls, value: CallbackFault | str) -> CallbackFault:
        if isinstance(value, CallbackFault):
            return value
        makers: dict[str, Callable[[], CallbackFault]] = {
            "unknown-interaction": cls.unknown_interaction,
            "server-error": cls.server_error,
            "dropped": cls.dropped,
            "applied-then-dropped": cls.applied_then_dropped,
        }
        if value not in makers:
            raise ValueError(f"unknown callback fault {value!r}: one of {sorted(makers)}")
        return makers[value]()


@dataclass
class InjectedFault:
    """One fault that hit one request."""

    kind: FaultKind
    record: RequestRecord
    # Who injected it: "fail", "drop", "rate_limit", "hold", "player" or "chaos".
    source: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.kind} ({self.source}) on {self.record.method} {self.record.path}"


@dataclass(eq=False)
class FaultRule:
    """A rule made by ``fake.fail``, ``fake.drop`` or ``fake.rate_limit``: it hits the next
    ``times`` matching requests (every one while ``times`` is None), until ``cancel()``."""

    kind: Literal["fail", "drop", "rate-limit"]
    route: str
    method: str | None
    times: int | None
    when: RequestPredicate | None = None
    status: int = 0
    code: int | None = None
    message: str | None = None
    # drop: apply the request first (Discord did it, the bot never hears back).
    applied: bool = False
    # Real seconds to hold the request before answering or dropping (a slow Discord).
    delay: float = 0.0
    retry_after: float = 0.05
    is_global: bool = False
    source: str = ""
    hits: int = 0
    cancelled: bool = False

    @property
    def remaining(self) -> int | None:
        return None if self.times is None else max(self.times - self.hits, 0)

    @property
    def exhausted(self) -> bool:
        return self.cancelled or (self.times is not None and self.hits >= self.times)

    def cancel(self) -> None:
        self.cancelled = True

    def matches(self, record: RequestRecord) -> bool:
        if self.exhausted or not route_matches(self.route, self.method, record):
            return False
        return self.when is None or bool(self.when(record))


def route_matches(route: str, method: str | None, record: RequestRecord) -> bool:
    if method is not None and method.upper() != record.method:
        return False
    return route == routes.ANY or route == record.route


@dataclass
class Verdict:
    """What the fake does with a request instead of (or around) its normal handling."""

    # Answer with this at once (the request is not applied).
    response: web.StreamResponse | None = None
    error: DiscordError | None = None
    # Close the connection without an answer; ``applied``: after handling the request.
    drop: bool = False
    applied: bool = False


class HeldRequests:
    """The handle ``fake.hold`` returns. Matching requests wait in the fake (the bot's call
    is in flight) until the test decides: ``release()`` lets them through, ``drop()``
    closes their connections without an answer, ``fail(status, code)`` answers an error.
    A decision also applies to matching requests that arrive later (up to ``times``)."""

    def __init__(self, fake: FakeDiscord, rule: FaultRule) -> None:
        self.fake = fake
        self.rule = rule
        # Every request caught so far, in arrival order.
        self.caught: list[RequestRecord] = []
        self._decision: Verdict | None = None
        self._decided = asyncio.Event()
        self._waiting = 0

    @property
    def held(self) -> int:
        """How many requests are waiting right now."""
        return self._waiting

    async def arrived(self, count: int = 1, *, timeout: float = 5.0) -> RequestRecord:  # noqa: ASYNC109
        """Wait until ``count`` requests were caught; returns the ``count``-th."""
        await self.fake.wait_for(
            lambda: len(self.caught) >= count,
            timeout=timeout,
            what=f"{count} request(s) to {self.rule.method or 'any'} {self.rule.route} to be held",
        )
        return self.caught[count - 1]

    def release(self) -> None:
        self._decide(Verdict())

    def drop(self, *, applied: bool = False) -> None:
        self._decide(Verdict(drop=True, applied=applied))

    def fail(self, status: int = 503, code: int | None = None, message: str | None = None) -> None:
        self._decide(Verdict(error=error_for(status, code, message)))

    def _decide(self, verdict: Verdict) -> None:
        if self._decision is not None:
            raise RuntimeError("this hold was already decided")
        self._decision = verdict
        self._decided.set()
        self.fake.notify()

    async def _wait(self, record: RequestRecord) -> Verdict:
        self.caught.append(record)
        self._waiting += 1
        self.fake.notify()
        try:
            await self._decided.wait()
        finally:
            self._waiting -= 1
        assert self._decision is not None
        return self._decision

    def abandon(self) -> None:
        """Fake shutting down: drop whatever is still held."""
        if self._decision is None:
            self._decide(Verdict(drop=True))


class FaultInjector:
    """Consulted for every REST request before it is handled."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.rules: list[FaultRule] = []
        self.holds: list[HeldRequests] = []
        self.chaos: Chaos | None = None

    @property
    def idle(self) -> bool:
        return not self.rules and not self.holds and self.chaos is None

    def add(self, rule: FaultRule) -> FaultRule:
        self.rules.append(rule)
        return rule

    async def intercept(self, record: RequestRecord) -> Verdict | None:
        """The verdict for ``record`` (None: handle it normally). Holds first, then the
        interaction's own planned fault, then rules in the order they were made, then chaos."""
        if self.idle and record.route != routes.CALLBACK:
            return None
        for hold in self.holds:
            if hold.rule.matches(record):
                hold.rule.hits += 1
                self.record(record, "held", "hold", "held in flight")
                self._hit_interaction(record, "held")
                verdict = await hold._wait(record)
                self._prune()
                return self._after_hold(record, verdict)
        interaction = record.interaction if record.route == routes.CALLBACK else None
        if interaction is not None and interaction.planned_faults:
            planned, source = interaction.planned_faults.pop(0)
            return await self.callback_fault(record, planned, source)
        for rule in self.rules:
            if rule.matches(record):
                rule.hits += 1
                self._prune()
                return await self._apply_rule(record, rule)
        if self.chaos is not None:
            return await self.chaos.decide(record)
        return None

    async def callback_fault(
        self, record: RequestRecord, fault: CallbackFault, source: str
    ) -> Verdict:
        """Fail one callback attempt the way ``fault`` says."""
        interaction = record.interaction
        if fault.times > 1 and interaction is not None:
            # The rest of a multi-attempt fault waits for the next attempts.
            rest = CallbackFault(fault.kind, fault.status, fault.times - 1, fault.delay)
            interaction.planned_faults.insert(0, (rest, source))
        if fault.delay:
            self._delaying(record)
            await asyncio.sleep(fault.delay)
        if fault.kind == "unknown-interaction":
            error = error_for(404, UNKNOWN_INTERACTION, None)
            return self.fail_with(record, error, source)
        if fault.kind == "server-error":
            return self.fail_with(record, error_for(fault.status, None, None), source)
        applied = fault.kind == "applied-then-dropped"
        return self.drop_it(record, applied=applied, source=source)

    async def _apply_rule(self, record: RequestRecord, rule: FaultRule) -> Verdict:
        if rule.delay:
            self._delaying(record)
            await asyncio.sleep(rule.delay)
        if rule.kind == "rate-limit":
            return self.limit(record, rule.retry_after, rule.is_global, rule.source)
        if rule.kind == "drop":
            return self.drop_it(record, applied=rule.applied, source=rule.source)
        return self.fail_with(record, error_for(rule.status, rule.code, rule.message), rule.source)

    def _after_hold(self, record: RequestRecord, verdict: Verdict) -> Verdict | None:
        if verdict.error is not None:
            return self.fail_with(record, verdict.error, "hold")
        if verdict.drop:
            return self.drop_it(record, applied=verdict.applied, source="hold")
        record.fault = "held"
        return None

    # -- verdicts, each recorded --------------------------------------------------------

    def fail_with(self, record: RequestRecord, error: DiscordError, source: str) -> Verdict:
        if record.route == routes.CALLBACK and error.code == UNKNOWN_INTERACTION:
            kind: FaultKind = "unknown-interaction"
        elif error.status >= 500:
            kind = "server-error"
        else:
            kind = "http-error"
        self.record(record, kind, source, f"{error.status} / {error.code} {error.message}")
        self._hit_interaction(record, kind, error)
        return Verdict(error=error)

    def limit(
        self, record: RequestRecord, retry_after: float, is_global: bool, source: str
    ) -> Verdict:
        self.record(record, "rate-limit", source, f"429, retry_after {retry_after}")
        self._hit_interaction(record, "rate-limit")
        record.status = 429
        response = rate_limited(retry_after, is_global=is_global)
        record.response = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": is_global,
        }
        return Verdict(response=response)

    def drop_it(self, record: RequestRecord, *, applied: bool, source: str) -> Verdict:
        kind: FaultKind = "applied-then-dropped" if applied else "dropped"
        self.record(record, kind, source, "connection closed without an answer")
        self._hit_interaction(record, kind)
        return Verdict(drop=True, applied=applied)

    def record(self, record: RequestRecord, kind: FaultKind, source: str, detail: str) -> None:
        # A held request keeps "held" in front of what was finally done with it.
        record.fault = kind if record.fault in (None, kind) else f"{record.fault}+{kind}"
        self.fake.injected_faults.append(InjectedFault(kind, record, source, detail))

    def _hit_interaction(
        self, record: RequestRecord, kind: FaultKind, error: DiscordError | None = None
    ) -> None:
        if record.route != routes.CALLBACK:
            return
        interaction: FakeInteraction | None = record.interaction
        if interaction is not None:
            interaction.fault_hit(kind, error)

    def _delaying(self, record: RequestRecord) -> None:
        # A callback held by an injected delay: the player's window keeps running.
        interaction = record.interaction if record.route == routes.CALLBACK else None
        if interaction is not None:
            interaction.watch_deadline()

    def _prune(self) -> None:
        self.rules = [rule for rule in self.rules if not rule.exhausted]
        self.holds = [hold for hold in self.holds if not hold.rule.exhausted or hold.held]

    def abandon_holds(self) -> None:
        for hold in self.holds:
            hold.abandon()
