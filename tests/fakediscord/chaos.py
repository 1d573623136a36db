"""Seeded chaos: the faults of ``faults.py`` injected at random into the bot's gameplay
requests (answers, follow-ups, sends, edits, deletes, DMs), repeatably for a seed.

Each decision is drawn from its own ``random.Random`` keyed by the seed, the route and the
request's stream (the interaction's description, or the channel's name) and how many
requests that stream has made, so one stream's faults do not shift when another stream's
requests interleave differently. Everything injected is recorded in
``fake.injected_faults`` (source "chaos") and ``chaos.faults``."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import discord

from . import routes
from .faults import CallbackFault, CallbackFaultKind, InjectedFault, RequestPredicate, error_for
from .models import FakeThread, Overwrite

if TYPE_CHECKING:
    from .faults import Verdict
    from .models import FakeChannel
    from .server import FakeDiscord, RequestRecord


@dataclass(frozen=True)
class ChaosSettings:
    """The knobs of ``fake.chaos(seed=..., ...)``. Probabilities are per request."""

    seed: int
    # An interaction callback is lost, in one of ``lost_answer_kinds`` (see CallbackFault;
    # a "server-error" fails the attempt and discord.py's own retry 1 s later, so the answer
    # is really lost, which costs about 4 s of real time).
    lost_answers: float = 0.0
    lost_answer_kinds: tuple[CallbackFaultKind, ...] = (
        "unknown-interaction",
        "dropped",
        "applied-then-dropped",
    )
    # Any other gameplay request gets a 5xx Discord did not act on. 503 by default:
    # discord.py raises it at once, while it retries 500/502/504/524 itself after 1, 3,
    # 5, 7 s of real sleep (so those mostly test discord.py, slowly).
    server_errors: float = 0.0
    server_error_statuses: tuple[int, ...] = (503,)
    # A request starts a run of 429s on its exact path, of a length drawn in
    # ``burst_lengths`` (inclusive); 5 or more outlast discord.py's five tries, and the
    # call raises HTTPException 429.
    rate_limit_bursts: float = 0.0
    burst_lengths: tuple[int, int] = (1, 6)
    retry_after: float = 0.01
    # Any other gameplay request loses its connection without an answer (aiohttp's
    # ServerDisconnectedError in the bot); half of them after Discord applied the request.
    connection_drops: float = 0.0
    # A request in a guild channel starts a permission outage there: the bot gets a channel
    # overwrite denying ``outage_denies`` (CHANNEL_UPDATE), lifted (CHANNEL_UPDATE again)
    # after a number of further bot requests drawn in ``outage_requests``, at
    # ``chaos.end_outages()`` or at ``chaos.stop()``. Denying send_messages refuses new
    # messages with 403 / 50013; view_channel refuses everything there with 403 / 50001.
    permission_outage: float = 0.0
    outage_requests: tuple[int, int] = (2, 6)
    outage_denies: tuple[str, ...] = ("send_messages",)
    # Which (method, route) pairs chaos may touch, and an optional filter on the request.
    routes: frozenset[tuple[str, str]] = routes.GAMEPLAY
    when: RequestPredicate | None = None

    def __post_init__(self) -> None:
        names = (
            "lost_answers",
            "server_errors",
            "rate_limit_bursts",
            "connection_drops",
            "permission_outage",
        )
        for name in names:
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} is a probability, not {value}")
        if self.lost_answers + self.rate_limit_bursts > 1.0:
            raise ValueError("lost_answers + rate_limit_bursts must not exceed 1")
        others = (
            self.server_errors
            + self.rate_limit_bursts
            + self.connection_drops
            + self.permission_outage
        )
        if others > 1.0:
            raise ValueError(
                "server_errors + rate_limit_bursts + connection_drops + permission_outage "
                "must not exceed 1"
            )
        if not self.lost_answer_kinds and self.lost_answers:
            raise ValueError("lost_answers needs at least one kind")
        for denied in self.outage_denies:
            if denied not in discord.Permissions.VALID_FLAGS:
                raise ValueError(f"{denied!r} is not a permission name")


@dataclass(eq=False)
class Outage:
    """A permission outage chaos started in one channel."""

    channel: FakeChannel
    denied: str
    # Bot requests still to come before it ends.
    remaining: int
    previous: Overwrite | None
    ended: bool = False


@dataclass(eq=False)
class Chaos:
    fake: FakeDiscord
    settings: ChaosSettings
    active: bool = True
    outages: list[Outage] = field(default_factory=list)
    _streams: dict[str, int] = field(default_factory=dict)
    _bursts: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def faults(self) -> list[InjectedFault]:
        """Everything this chaos injected, in order."""
        return [f for f in self.fake.injected_faults if f.source == "chaos"]

    def count(self, kind: str | None = None) -> int:
        return sum(1 for f in self.faults if kind is None or f.kind == kind)

    async def stop(self) -> None:
        """No more faults; open outages end (CHANNEL_UPDATE)."""
        self.active = False
        self._bursts.clear()
        await self.end_outages()

    async def end_outages(self) -> None:
        for outage in self.outages:
            await self._end(outage)

    # -- deciding -----------------------------------------------------------------------

    async def decide(self, record: RequestRecord) -> Verdict | None:
        if not self.active:
            return None
        await self._count_down_outages()
        settings = self.settings
        if (record.method, record.route) not in settings.routes:
            return None
        if settings.when is not None and not settings.when(record):
            return None
        injector = self.fake.faults
        burst_key = (record.method, record.path)
        if self._bursts.get(burst_key):
            self._bursts[burst_key] -= 1
            return injector.limit(record, settings.retry_after, False, "chaos")
        rng = self._rng_for(record)
        draw = rng.random()
        if record.route == routes.CALLBACK:
            if draw < settings.lost_answers:
                fault = self._lost_answer(rng.choice(settings.lost_answer_kinds))
                return await injector.callback_fault(record, fault, "chaos")
            if draw < settings.lost_answers + settings.rate_limit_bursts:
                return self._start_burst(record, rng)
            return None
        if draw < settings.server_errors:
            status = rng.choice(settings.server_error_statuses)
            return injector.fail_with(record, error_for(status, None, None), "chaos")
        draw -= settings.server_errors
        if draw < settings.rate_limit_bursts:
            return self._start_burst(record, rng)
        draw -= settings.rate_limit_bursts
        if draw < settings.connection_drops:
            return injector.drop_it(record, applied=rng.random() < 0.5, source="chaos")
        draw -= settings.connection_drops
        channel = record.channel
        if isinstance(channel, FakeThread):
            # A thread has no overwrites: the outage is its parent's.
            channel = channel.parent
        if (
            draw < settings.permission_outage
            and channel is not None
            and channel.guild is not None
            and channel.bot_is_member
            and not any(o.channel is channel and not o.ended for o in self.outages)
        ):
            await self._start_outage(record, channel, rng)
        return None

    def _rng_for(self, record: RequestRecord) -> random.Random:
        key = f"{record.method} {record.route} {self._stream_of(record)}"
        number = self._streams.get(key, 0)
        self._streams[key] = number + 1
        # A string seed is hashed with SHA-512: stable across processes and runs.
        return random.Random(f"{self.settings.seed}|{key}|{number}")

    def _stream_of(self, record: RequestRecord) -> str:
        interaction = record.interaction
        if interaction is not None:
            return interaction.description
        channel = record.channel
        if channel is not None:
            where = channel.guild.name if channel.guild is not None else "dm"
            return f"{where}#{channel.name}"
        if isinstance(record.body, dict) and "recipient_id" in record.body:
            user = self.fake.users.get(int(record.body["recipient_id"]))
            return f"dm-with-{user.name if user is not None else record.body['recipient_id']}"
        return record.path

    @staticmethod
    def _lost_answer(kind: CallbackFaultKind) -> CallbackFault:
        if kind == "server-error":
            return CallbackFault.server_error(times=2)
        return CallbackFault.of(kind)

    def _start_burst(self, record: RequestRecord, rng: random.Random) -> Verdict:
        low, high = self.settings.burst_lengths
        self._bursts[(record.method, record.path)] = rng.randint(low, high) - 1
        return self.fake.faults.limit(record, self.settings.retry_after, False, "chaos")

    # -- permission outages ---------------------------------------------------------------

    async def _start_outage(
        self, record: RequestRecord, channel: FakeChannel, rng: random.Random
    ) -> None:
        bot_id = self.fake.bot_user.id
        denied = rng.choice(self.settings.outage_denies)
        previous = channel.overwrites.get(bot_id)
        deny_value = discord.Permissions(**{denied: True}).value
        if denied == "send_messages" and isinstance(record.channel, FakeThread):
            # Posting in the thread is what the outage is to refuse.
            deny_value |= discord.Permissions(send_messages_in_threads=True).value
        allow = 0 if previous is None else previous.allow & ~deny_value
        deny = deny_value | (0 if previous is None else previous.deny)
        low, high = self.settings.outage_requests
        outage = Outage(channel, denied, rng.randint(low, high), previous)
        self.outages.append(outage)
        self.fake.injected_faults.append(
            InjectedFault(
                "permission-outage",
                record,
                "chaos",
                f"the bot loses {denied} in #{channel.name} for {outage.remaining} requests",
            )
        )
        channel.overwrites[bot_id] = Overwrite(bot_id, 1, allow, deny)
        await channel.overwrites_changed()

    async def _count_down_outages(self) -> None:
        for outage in self.outages:
            if outage.ended:
                continue
            outage.remaining -= 1
            if outage.remaining < 0:
                await self._end(outage)

    async def _end(self, outage: Outage) -> None:
        if outage.ended:
            return
        outage.ended = True
        bot_id = self.fake.bot_user.id
        if outage.previous is None:
            outage.channel.overwrites.pop(bot_id, None)
        else:
            outage.channel.overwrites[bot_id] = outage.previous
        await outage.channel.overwrites_changed()
