"""FakeDiscord: the server object a test holds. It owns the state (users, guilds, channels,
messages, commands, interactions), the aiohttp app (REST + gateway) and the waiting helpers."""

from __future__ import annotations

import asyncio
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import web

from . import answer_shapes, routes
from .chaos import Chaos, ChaosSettings
from .commands import CommandRegistry
from .errors import FakeUsageError
from .faults import CallbackFault, FaultInjector, FaultRule, HeldRequests, InjectedFault
from .gateway import GUILD_MEMBERS_INTENT, GUILDS_INTENT, GatewayServer
from .interactions import FakeInteraction, InteractionType
from .messages import apply_payload
from .models import (
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    MANAGE_MESSAGES,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeThread,
    FakeUser,
    as_permission_value,
)
from .players import Player
from .ratelimits import BucketState, RateLimitHit, RateLimits
from .rest import RestApi
from .snowflakes import SnowflakeFactory
from .threads import SEND_MESSAGES_IN_THREADS, may_unarchive

# 10 MiB: what Discord allows a bot to upload in a server without boosts.
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024


@dataclass
class RequestRecord:
    """One REST request the bot made, as the fake answered it."""

    method: str
    path: str
    # The route template, e.g. "/channels/{channel_id}/messages" (the path for unknown ones).
    route: str
    query: dict[str, str]
    body: Any
    files: list[str]
    # The HTTP status the fake answered; 0 while a request is held, and for a request
    # dropped before it was applied (the bot got no answer at all).
    status: int = 0
    response: Any = None
    # perf_counter() when the request arrived.
    at: float = 0.0
    # The route's parameters: channel_id, message_id, interaction_id, token, ...
    params: dict[str, str] = field(default_factory=dict)
    # The kind of injected fault that hit it ("server-error", "rate-limit", "dropped",
    # "held+dropped", ...; see faults.FaultKind), None for a request handled normally.
    fault: str | None = None
    # False when the bot never received the answer (an injected dropped connection).
    delivered: bool = True
    # Its bucket as the answer's X-RateLimit-* headers gave it (ratelimits.py); None for a
    # request the fake did not handle itself (refused before, or an injected fault).
    rate_limit: BucketState | None = None
    fake: FakeDiscord | None = field(default=None, repr=False, compare=False)

    @property
    def error_code(self) -> int | None:
        if isinstance(self.response, dict) and self.status >= 400:
            code = self.response.get("code")
            return int(code) if code is not None else None
        return None

    def _id(self, name: str) -> int | None:
        value = self.params.get(name)
        return int(value) if value is not None and value.isdigit() else None

    @property
    def channel_id(self) -> int | None:
        channel = self.channel
        return None if channel is None else channel.id

    @property
    def message_id(self) -> int | None:
        message = self.message
        return None if message is None else message.id

    @property
    def interaction(self) -> FakeInteraction | None:
        """The interaction of a callback or of an interaction-token webhook request."""
        if self.fake is None:
            return None
        interaction_id = self._id("interaction_id")
        if interaction_id is not None:
            return self.fake.interactions.get(interaction_id)
        token = self.params.get("token")
        return None if token is None else self.fake.interactions_by_token.get(token)

    @property
    def channel(self) -> FakeChannel | None:
        """The channel the request acts in (for interaction routes, the interaction's)."""
        if self.fake is None:
            return None
        channel_id = self._id("channel_id")
        if channel_id is not None:
            return self.fake.channels.get(channel_id)
        interaction = self.interaction
        return None if interaction is None else interaction.channel

    @property
    def message(self) -> FakeMessage | None:
        """The message a request edits or deletes (channel or webhook message routes)."""
        raw = self.params.get("message_id")
        if raw is None:
            return None
        if raw == "@original":
            interaction = self.interaction
            return None if interaction is None else interaction.response_message
        channel = self.channel
        message_id = self._id("message_id")
        if channel is None or message_id is None:
            return None
        return channel.all_messages.get(message_id)

    @property
    def is_dm(self) -> bool:
        channel = self.channel
        return channel is not None and channel.is_dm

    def __str__(self) -> str:
        code = f" code={self.error_code}" if self.error_code is not None else ""
        fault = f" [injected: {self.fault}]" if self.fault is not None else ""
        lost = "" if self.delivered else " (no answer reached the bot)"
        return f"{self.method} {self.path} -> {self.status}{code}{fault}{lost}"


@dataclass
class Problem:
    """Something a real Discord would have made visible to players (a late answer, a
    rejected body, an expired token...). The ``fake_discord`` fixture fails a test that
    leaves problems behind; a test that provokes one on purpose removes it after checking."""

    kind: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.detail}"


@dataclass
class _Waiter:
    predicate: Callable[[], bool]
    future: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class FakeDiscord:
    """A small Discord on 127.0.0.1: gateway websocket plus the REST API a bot uses.

    ``time_source`` (e.g. the bot's ``ManualClock.now``) drives token expiry, message
    timestamps and snowflakes, so that a test moves one clock for everyone.
    """

    def __init__(
        self,
        *,
        token: str = "fake-token",
        time_source: Callable[[], float] | None = None,
        shard_count: int = 1,
        max_concurrency: int = 1,
        gateway_compression: str | None = None,
        check_answers: bool = False,
    ) -> None:
        self.token = token
        # Check every 2xx JSON answer and the gateway's message, user and member objects
        # against Discord's description of them (an ``answer-shape`` problem per field).
        self.check_answers = check_answers
        self._time_source = time_source or time.time
        self.snowflakes = SnowflakeFactory(self._time_source)
        self.bot_user = FakeUser(self.snowflakes.next(), "DiceBot", bot=True)
        self.application_id = self.bot_user.id
        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user}
        self.players: dict[int, Player] = {}
        # The servers that added the bot; those that did not are apart (the bot never
        # hears of them: only user-installed commands reach it from there).
        self.guilds: dict[int, FakeGuild] = {}
        self.guilds_without_bot: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.dm_channels: dict[int, FakeChannel] = {}
        # DMs between two users (by the pair of ids, in order) and group DMs.
        self.private_channels: dict[tuple[int, ...], FakeChannel] = {}
        self.commands = CommandRegistry(self)
        self.interactions: dict[int, FakeInteraction] = {}
        self.interactions_by_token: dict[str, FakeInteraction] = {}
        self.interactions_by_user: dict[int, list[FakeInteraction]] = {}
        self.requests: list[RequestRecord] = []
        self.problems: list[Problem] = []
        # Every fault injected into a request (fail, drop, rate_limit, hold, chaos, a
        # player's fault=), in order.
        self.injected_faults: list[InjectedFault] = []
        self.faults = FaultInjector(self)
        # Discord's rate limits on every request the fake handles (ratelimits.py), and the
        # 429s they gave (each also a "rate-limited" problem).
        self.rate_limits = RateLimits(self)
        self.rate_limited: list[RateLimitHit] = []
        # Timers the fake runs (interaction windows after a fault), cancelled at stop.
        self.timers: set[asyncio.TimerHandle] = set()
        # How long a player action waits for the bot's first answer before failing.
        self.answer_timeout = 5.0
        # Discord's window for the first answer to an interaction.
        self.callback_deadline = 3.0
        self.gateway = GatewayServer(self)
        self.gateway.shard_count = shard_count
        self.gateway.max_concurrency = max_concurrency
        self.gateway.compression = gateway_compression
        self.rest = RestApi(self)
        self._waiters: list[_Waiter] = []
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application(middlewares=[self.rest.middleware], client_max_size=64 * 1024**2)
        app.router.add_get("/gateway", self.gateway.handle)
        self.rest.add_routes(app)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        # Bind first, so the port is known without reaching into the site's internals.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def stop(self) -> None:
        if self.faults.chaos is not None:
            await self.faults.chaos.stop()
        self.faults.abandon_holds()
        for timer in list(self.timers):
            timer.cancel()
        self.timers.clear()
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for waiter in self._waiters:
            if not waiter.future.done():
                waiter.future.cancel()

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    @contextmanager
    def redirect_discord_py(self) -> Iterator[None]:
        """Point discord.py (process-wide) at this fake, and restore it afterwards."""
        old_base = discord.http.Route.BASE
        old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield
        finally:
            discord.http.Route.BASE = old_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    def now(self) -> float:
        return self._time_source()

    # -- waiting ------------------------------------------------------------------------

    def notify(self) -> None:
        """Called on every request and state change: re-check what tests wait for."""
        if not self._waiters:
            return
        still: list[_Waiter] = []
        for waiter in self._waiters:
            if waiter.future.done():
                continue
            try:
                satisfied = waiter.predicate()
            except Exception as error:
                waiter.future.set_exception(error)
                continue
            if satisfied:
                waiter.future.set_result(None)
            else:
                still.append(waiter)
        self._waiters = still

    async def wait_for(
        self,
        predicate: Callable[[], Any],
        *,
        timeout: float = 5.0,  # noqa: ASYNC109
        what: str | None = None,
    ) -> None:
        """Wait until ``predicate()`` is true; it is re-checked whenever the fake sees a
        request or changes state, never by polling."""
        if predicate():
            return
        waiter = _Waiter(lambda: bool(predicate()))
        self._waiters.append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter.future), timeout)
        except TimeoutError:
            raise AssertionError(
                f"timed out after {timeout} s waiting for {what or 'a condition'}. "
                f"Recent requests:\n{self.describe_recent_requests()}"
            ) from None
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def next_change(self) -> asyncio.Future[None]:
        """A future resolved by the next request or state change the fake sees."""
        waiter = _Waiter(lambda: True)
        self._waiters.append(waiter)
        return waiter.future

    async def wait_until(
        self,
        check: Callable[[], Awaitable[Any]],
        *,
        timeout: float = 5.0,  # noqa: ASYNC109
        what: str | None = None,
    ) -> None:
        """Like ``wait_for`` for an async check (e.g. a database read): ``check`` runs now
        and again after each request or state change the fake sees, never on a timer."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    # Listen before checking, so a change during the check is not missed.
                    changed = self.next_change()
                    if await check():
                        changed.cancel()
                        return
                    await changed
        except TimeoutError:
            raise AssertionError(
                f"timed out after {timeout} s waiting for {what or 'a condition'}. "
                f"Recent requests:\n{self.describe_recent_requests()}"
            ) from None

    def describe_recent_requests(self, count: int = 12) -> str:
        lines = [f"  {record}" for record in self.requests[-count:]]
        return "\n".join(lines) or "  (none)"

    # -- problems -----------------------------------------------------------------------

    def record_problem(self, kind: str, detail: str) -> None:
        self.problems.append(Problem(kind, detail))

    def check_answer(self, record: RequestRecord) -> None:
        """Record an ``answer-shape`` problem for each field of a REST answer that does not
        have the shape Discord's description gives (``answer_shapes.py``)."""
        for detail in answer_shapes.answer_problems(
            record.method, record.path, record.status, record.response
        ):
            self.record_problem("answer-shape", detail)

    def check_event(self, event: str, data: dict[str, Any]) -> None:
        """The same for the objects in a gateway event the fake sends."""
        for detail in answer_shapes.event_problems(event, data):
            self.record_problem("answer-shape", detail)

    def take_problems(self, kind: str) -> list[Problem]:
        """Remove and return the problems of one kind (for a test that provoked them)."""
        taken = [p for p in self.problems if p.kind == kind]
        self.problems = [p for p in self.problems if p.kind != kind]
        return taken

    def final_problems(self) -> list[Problem]:
        """Every problem, plus interactions that never got an answer."""
        problems = list(self.problems)
        for interaction in self.interactions.values():
            unanswered = interaction.callback_type is None and not interaction.dead
            if interaction.expect_answer and unanswered:
                problems.append(
                    Problem("no-answer", f"the bot never answered {interaction.description}")
                )
        return problems

    def first_answer_latencies(self) -> list[float]:
        return [i.latency for i in self.interactions.values() if i.latency is not None]

    # -- the world ----------------------------------------------------------------------

    def bot_user_payload(self) -> dict[str, Any]:
        """The bot's own user (GET /users/@me, READY): a user object plus the private
        fields Discord shows its owner."""
        data = self.bot_user.payload()
        data.update({"verified": True, "mfa_enabled": False, "locale": "en-US", "email": None})
        return data

    async def create_guild(
        self,
        name: str = "Test Guild",
        *,
        channels: tuple[str, ...] = ("general",),
        bot_permissions: discord.Permissions | int | None = None,
        everyone_permissions: discord.Permissions | int | None = None,
        shard: int | None = None,
        locale: str = "en-US",
        roles: tuple[str, ...] = (),
        with_bot: bool = True,
    ) -> FakeGuild:
        """A guild with the bot in it (and its role), an owner and text channels.
        ``shard`` picks an id whose events go to that shard, ``(id >> 22) % shard_count``
        (with a frozen test clock every new id would otherwise land on one shard).
        ``roles`` names more roles, above the bot's, with no permissions of their own (a
        server's colour and rank roles, for a bench of many realistic servers).
        ``with_bot=False``: a server that never added the bot. The bot hears nothing of it
        (no GUILD_CREATE, no events); its members reach the app only through commands they
        installed themselves (``player.install_app()``), and every channel route there is
        answered 403 / 50001."""
        owner = FakeUser(self.snowflakes.next(), f"{name.lower().replace(' ', '-')}-owner")
        self.users[owner.id] = owner
        if shard is None:
            guild_id = self.snowflakes.next()
        else:
            if not 0 <= shard < self.gateway.shard_count:
                raise FakeUsageError(
                    f"shard {shard} does not exist: the fake has {self.gateway.shard_count}"
                )
            guild_id = self.snowflakes.next_on_shard(shard, self.gateway.shard_count)
        guild = FakeGuild(self, guild_id, name, owner.id, locale=locale, has_bot=with_bot)
        everyone = as_permission_value(everyone_permissions or DEFAULT_EVERYONE_PERMISSIONS)
        guild.roles[guild.id] = FakeRole(guild.id, "@everyone", everyone)
        if not with_bot:
            for position, role_name in enumerate(roles, start=1):
                role = FakeRole(self.snowflakes.next(), role_name, 0, position=position)
                guild.roles[role.id] = role
            guild.members[owner.id] = FakeMember(owner, guild, [], self.now())
            self.guilds_without_bot[guild.id] = guild
            for channel_name in channels:
                channel = FakeChannel(
                    self,
                    self.snowflakes.next(),
                    channel_name,
                    guild=guild,
                    position=len(guild.channels),
                )
                guild.channels[channel.id] = channel
                self.channels[channel.id] = channel
            self.notify()
            return guild
        bot_role = FakeRole(
            self.snowflakes.next(),
            self.bot_user.name,
            as_permission_value(bot_permissions or DEFAULT_BOT_PERMISSIONS),
            position=1,
        )
        guild.roles[bot_role.id] = bot_role
        guild.bot_role_id = bot_role.id
        for position, role_name in enumerate(roles, start=2):
            role = FakeRole(self.snowflakes.next(), role_name, 0, position=position)
            guild.roles[role.id] = role
        guild.members[self.bot_user.id] = FakeMember(
            self.bot_user, guild, [bot_role.id], self.now()
        )
        guild.members[owner.id] = FakeMember(owner, guild, [], self.now())
        self.guilds[guild.id] = guild
        for channel_name in channels:
            channel = FakeChannel(
                self,
                self.snowflakes.next(),
                channel_name,
                guild=guild,
                position=len(guild.channels),
            )
            guild.channels[channel.id] = channel
            self.channels[channel.id] = channel
        session = self.gateway.session_for(guild.id)
        if session is not None and session.wants(GUILDS_INTENT):
            with_members = session.wants(GUILD_MEMBERS_INTENT)
            await session.dispatch(
                "GUILD_CREATE",
                guild.payload(with_all_members=with_members, joining=True),
                guild_id=guild.id,
            )
        self.notify()
        return guild

    def add_user(self, name: str, *, dms_open: bool = True, locale: str = "en-US") -> Player:
        """A user in no guild (they can still DM with the bot); ``locale`` is their client's
        language."""
        user = FakeUser(self.snowflakes.next(), name, dms_open=dms_open, locale=locale)
        self.users[user.id] = user
        player = Player(self, user, None)
        self.players[user.id] = player
        return player

    async def add_member(
        self,
        guild: FakeGuild,
        name: str | Player,
        *,
        dms_open: bool = True,
        permissions: discord.Permissions | int | None = None,
        nick: str | None = None,
        locale: str = "en-US",
    ) -> Player:
        if isinstance(name, Player):
            player = name
            if player.home is None:
                player.home = guild
        else:
            player = self.add_user(name, dms_open=dms_open, locale=locale)
            player.home = guild
        role_ids: list[int] = []
        if permissions is not None:
            role = FakeRole(
                self.snowflakes.next(),
                f"{player.name}-role",
                as_permission_value(permissions),
                position=1,
            )
            guild.roles[role.id] = role
            role_ids.append(role.id)
            await self.gateway.dispatch_guild_event(
                guild.id, "GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.payload()}
            )
        member = FakeMember(player.user, guild, role_ids, self.now(), nick=nick)
        guild.members[player.id] = member
        session = self.gateway.session_for(guild.id) if guild.has_bot else None
        if session is not None and session.wants(GUILD_MEMBERS_INTENT):
            data = member.payload()
            data["guild_id"] = str(guild.id)
            await session.dispatch("GUILD_MEMBER_ADD", data, guild_id=guild.id)
        self.notify()
        return player

    def player(self, user_id: int) -> Player:
        return self.players[user_id]

    def dm_channel_for(self, user: FakeUser) -> FakeChannel:
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(self, self.snowflakes.next(), f"dm-{user.name}", recipient=user)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def dm_between(self, first: Player, second: Player) -> FakeChannel:
        """The DM channel between two users (type 1; one per pair, as on Discord). The bot
        is no member: only a command one of them installed reaches it from there."""
        if first.id == second.id:
            raise FakeUsageError("a DM is between two different users")
        key = tuple(sorted((first.id, second.id)))
        channel = self.private_channels.get(key)
        if channel is None:
            channel = FakeChannel(
                self,
                self.snowflakes.next(),
                f"{first.name}+{second.name}",
                recipients=[first.user, second.user],
            )
            self.private_channels[key] = channel
            self.channels[channel.id] = channel
        return channel

    def group_dm(self, owner: Player, *others: Player, name: str | None = None) -> FakeChannel:
        """A new group DM (type 3) that ``owner`` opened with ``others`` (2 to 10 users in
        all, as Discord allows). The bot is no member, as in a DM between users."""
        users = [owner.user, *(p.user for p in others)]
        if len({u.id for u in users}) != len(users) or not 2 <= len(users) <= 10:
            raise FakeUsageError("a group DM has 2 to 10 different users")
        channel = FakeChannel(
            self,
            self.snowflakes.next(),
            name or ", ".join(u.name for u in users),
            recipients=users,
            group=True,
            owner_id=owner.id,
        )
        self.private_channels[(channel.id,)] = channel
        self.channels[channel.id] = channel
        return channel

    def shares_a_server_with_bot(self, user: FakeUser) -> bool:
        return any(user.id in guild.members for guild in self.guilds.values())

    def message(self, message_id: int) -> FakeMessage:
        for channel in self.channels.values():
            found = channel.all_messages.get(message_id)
            if found is not None:
                return found
        raise KeyError(f"no message {message_id}")

    def new_message(
        self,
        channel: FakeChannel,
        author: FakeUser,
        *,
        message_type: int = 0,
        interaction: FakeInteraction | None = None,
    ) -> FakeMessage:
        """A message object not yet stored (the REST layer stores it once it is valid)."""
        return FakeMessage(
            id=self.snowflakes.next(),
            channel=channel,
            author=author,
            timestamp=self.now(),
            type=message_type,
            interaction=interaction,
        )

    async def store_message(self, message: FakeMessage) -> None:
        message.channel.all_messages[message.id] = message
        message.keep_version(self.now())
        if message.author.id == self.bot_user.id and not message.loading:
            message.notify_mentions()
        channel = message.channel
        if isinstance(channel, FakeThread) and message.visible_to is None:
            channel.counted(message)
            # Sending in a thread joins it (an interaction's answer is the bot's message).
            channel.join(message.author.id)
        if message.visible_to is None:
            await self._dispatch_message("MESSAGE_CREATE", message)

    async def message_edited(self, message: FakeMessage) -> None:
        message.edited_timestamp = self.now()
        message.edit_count += 1
        message.keep_version(self.now())
        if message.visible_to is None:
            await self._dispatch_message("MESSAGE_UPDATE", message)

    async def delete_message(self, message: FakeMessage, *, by: Any = None) -> None:
        """Someone deletes a message (a moderator removing the bot's game message, say).
        ``by`` is a Player or user; by default the guild's owner. They need to be its
        author or have Manage Messages in the channel, as on Discord. The bot gets
        MESSAGE_DELETE (with the messages intent); its later edits get 404 / 10008."""
        current = message.channel.all_messages.get(message.id)
        if current is None or current.deleted:
            raise FakeUsageError(f"message {message.id} is already gone")
        if current.visible_to is not None:
            raise FakeUsageError(
                "an ephemeral message can only be dismissed by its user, in their client: "
                "Discord tells nobody"
            )
        guild = current.channel.guild
        if guild is None:
            raise FakeUsageError("nobody can delete the bot's messages in a DM channel")
        user = self.users[guild.owner_id] if by is None else getattr(by, "user", by)
        allowed = user.id == current.author.id or bool(
            guild.permissions_of(user.id, current.channel) & MANAGE_MESSAGES
        )
        if not allowed:
            raise FakeUsageError(
                f"{user.name} may not delete someone else's message in #{current.channel.name}"
                " (Manage Messages)"
            )
        current.deleted_by = user.id
        await self.message_deleted(current)
        self.notify()

    async def message_deleted(self, message: FakeMessage) -> None:
        message.deleted = True
        if message.visible_to is None and message.channel.bot_is_member:
            guild = message.channel.guild
            data: dict[str, Any] = {"id": str(message.id), "channel_id": str(message.channel.id)}
            if guild is not None:
                data["guild_id"] = str(guild.id)
            await self.gateway.dispatch_message_event(
                "MESSAGE_DELETE", data, guild_id=None if guild is None else guild.id
            )

    async def _dispatch_message(self, event: str, message: FakeMessage) -> None:
        if not message.channel.bot_is_member:
            return  # a channel the bot is not in tells it nothing
        guild = message.channel.guild
        data = message.payload(with_guild=True)
        if guild is not None and message.author.id in guild.members:
            data["member"] = guild.members[message.author.id].payload(with_user=False)
        if self.check_answers:
            self.check_event(event, data)
        await self.gateway.dispatch_message_event(
            event, data, guild_id=None if guild is None else guild.id
        )

    async def seed_bot_message(
        self,
        channel: FakeChannel,
        *,
        content: str = "",
        embeds: list[dict[str, Any]] | None = None,
        components: list[dict[str, Any]] | None = None,
    ) -> FakeMessage:
        """A message the bot posted "earlier" (say, by an older version with other
        custom_ids), put in place without a request: for stale-control tests."""
        message = self.new_message(channel, self.bot_user)
        payload = {"content": content, "embeds": embeds or [], "components": components or []}
        apply_payload(self, message, payload, [], creating=True)
        await self.store_message(message)
        self.notify()
        return message

    async def post_user_message(
        self, user: FakeUser, channel: FakeChannel, content: str
    ) -> FakeMessage:
        if isinstance(channel, FakeThread):
            await self._user_posts_in_thread(user, channel)
        message = self.new_message(channel, user)
        message.content = content
        await self.store_message(message)
        self.notify()
        return message

    async def _user_posts_in_thread(self, user: FakeUser, thread: FakeThread) -> None:
        """What Discord's client lets a member do in a thread: send with Send Messages in
        Threads, into an archived thread only if they may unarchive it (which it does)."""
        assert thread.guild is not None
        if thread.deleted:
            raise FakeUsageError(f"{thread!r} was deleted")
        permissions = thread.guild.permissions_of(user.id, thread)
        if not permissions & SEND_MESSAGES_IN_THREADS:
            raise FakeUsageError(
                f"{user.name} may not send in {thread!r} (Send Messages in Threads)"
            )
        if thread.archived:
            if not may_unarchive(thread, permissions):
                raise FakeUsageError(f"{thread!r} is locked: {user.name} cannot unarchive it")
            await thread.unarchive()

    async def thread_deleted(self, thread: FakeThread) -> None:
        """A thread is deleted (by the bot, or ``guild.delete_channel``): THREAD_DELETE."""
        guild = thread.guild
        assert guild is not None and thread.parent is not None
        guild.threads.pop(thread.id, None)
        self.channels.pop(thread.id, None)
        await self.gateway.dispatch_guild_event(
            guild.id,
            "THREAD_DELETE",
            {
                "id": str(thread.id),
                "guild_id": str(guild.id),
                "parent_id": str(thread.parent.id),
                "type": thread.type,
            },
        )
        self.notify()

    def threads(self) -> list[FakeThread]:
        """Every live thread in every guild, oldest first."""
        return [t for guild in self.guilds.values() for t in guild.threads.values()]

    async def archive_idle_threads(self) -> list[FakeThread]:
        """Archive, as Discord does, every active thread idle for its auto-archive duration
        on the fake's clock (THREAD_UPDATE each); returns them. Discord archives on its own
        schedule, so a test moves the clock and then calls this."""
        archived = [
            t
            for t in self.threads()
            if not t.archived and t.idle_for() >= t.auto_archive_duration * 60
        ]
        for thread in archived:
            await thread.archive()
        return archived

    # -- interactions -------------------------------------------------------------------

    async def send_interaction(
        self,
        kind: InteractionType,
        *,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        description: str,
        source_message: FakeMessage | None = None,
        command_name: str | None = None,
        custom_id: str | None = None,
        fault: CallbackFault | str | None = None,
        trigger: FakeInteraction | None = None,
        owners: dict[str, str] | None = None,
    ) -> FakeInteraction:
        """Build an INTERACTION_CREATE the way Discord does and push it to the bot.
        ``fault`` makes the bot's callback fail that way (see CallbackFault); ``trigger``
        is, for a modal submit, the interaction whose answer opened the modal. ``owners``
        (a command's ``authorizing_integration_owners``, from the command registry): a
        press or a modal submit carries those of the interaction that made its message."""
        guild = channel.guild
        if owners is None:
            owners = self._inherited_owners(channel, source_message, trigger)
        interaction = FakeInteraction(
            fake=self,
            id=self.snowflakes.next(),
            token=f"aW50ZXJhY3Rpb24.{secrets.token_urlsafe(48)}",
            type=kind,
            user=user,
            channel=channel,
            guild=guild,
            application_id=self.application_id,
            created_at=self.now(),
            description=description,
            source_message=source_message,
            command_name=command_name,
            custom_id=custom_id,
            trigger=trigger,
            owners=owners,
        )
        if fault is not None:
            # Planned before the bot can see the interaction: it may answer at once.
            interaction.planned_faults.append((CallbackFault.of(fault), "player"))
        payload: dict[str, Any] = {
            "id": str(interaction.id),
            "application_id": str(self.application_id),
            "type": int(kind),
            "data": data,
            "token": interaction.token,
            "version": 1,
            "locale": user.locale,
            "channel_id": str(channel.id),
            "channel": channel.payload(),
            "app_permissions": str(channel.app_permissions(user).value),
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
            "authorizing_integration_owners": interaction.authorizing_integration_owners,
            "context": channel.context,
        }
        if guild is not None:
            member = guild.members.get(user.id)
            if member is None:
                raise FakeUsageError(f"{user.name} is not a member of {guild.name!r}")
            member_data = member.payload()
            member_data["permissions"] = str(guild.permissions_of(user.id, channel))
            payload["guild_id"] = str(guild.id)
            payload["guild"] = {"id": str(guild.id), "locale": guild.locale, "features": []}
            payload["guild_locale"] = guild.locale
            payload["member"] = member_data
        else:
            payload["user"] = user.payload()
        if source_message is not None:
            payload["message"] = source_message.payload(with_guild=True)
        interaction.payload = payload
        if self.check_answers:
            self.check_event("INTERACTION_CREATE", payload)
        self.interactions[interaction.id] = interaction
        self.interactions_by_token[interaction.token] = interaction
        self.interactions_by_user.setdefault(user.id, []).append(interaction)
        # Stamped before the write: the bot may answer before the send call returns.
        interaction.sent_at = time.perf_counter()
        try:
            interaction.shard_id = await self.gateway.send_interaction(
                payload, None if guild is None else guild.id
            )
        except BaseException:
            interaction.expect_answer = False
            raise
        self.notify()
        return interaction

    def _inherited_owners(
        self,
        channel: FakeChannel,
        source_message: FakeMessage | None,
        trigger: FakeInteraction | None,
    ) -> dict[str, str]:
        """The ``authorizing_integration_owners`` of a press or a modal submit: those of the
        interaction that made the message (or opened the modal); for a message the bot
        sent itself, its server's install (or "0" in its DMs)."""
        origin = trigger
        if origin is None and source_message is not None:
            origin = source_message.interaction
        if origin is not None:
            return dict(origin.authorizing_integration_owners)
        if not channel.bot_is_member:
            raise FakeUsageError(
                f"{channel!r}: the bot is not there, so no message of its own can be pressed"
            )
        return {"0": str(channel.guild.id) if channel.guild is not None else "0"}

    # -- faults -------------------------------------------------------------------------

    def fail(
        self,
        route: str,
        *,
        method: str | None = None,
        status: int = 503,
        code: int | None = None,
        message: str | None = None,
        times: int | None = 1,
        when: Callable[[RequestRecord], Any] | None = None,
        delay: float = 0.0,
    ) -> FaultRule:
        """Answer the next ``times`` requests to ``route`` (a template from
        ``fakediscord.routes``, or ``routes.ANY``) that match ``method`` and ``when(record)``
        with an error Discord did NOT act on: ``status`` with ``{"code": code, "message":
        ...}`` (Discord's text for known codes). ``times=None`` fails every one until
        ``rule.cancel()``. On an interaction callback, 404 / 10062 kills the interaction."""
        if status == 429:
            raise FakeUsageError("a 429 needs retry_after and a Via header: use rate_limit()")
        if not 400 <= status <= 599:
            raise FakeUsageError(f"fail() answers an error status, not {status}")
        rule = FaultRule(
            "fail",
            route,
            method,
            times,
            when,
            status=status,
            code=code,
            message=message,
            delay=delay,
            source="fail",
        )
        return self.faults.add(rule)

    def drop(
        self,
        route: str,
        *,
        method: str | None = None,
        applied: bool = False,
        delay: float = 0.0,
        times: int | None = 1,
        when: Callable[[RequestRecord], Any] | None = None,
    ) -> FaultRule:
        """Close the connection of the next ``times`` matching requests without an answer
        (after holding them ``delay`` real seconds: a time-out). ``applied=True``: Discord
        did the request first (the message is edited) and only the answer is lost."""
        rule = FaultRule(
            "drop", route, method, times, when, applied=applied, delay=delay, source="drop"
        )
        return self.faults.add(rule)

    def rate_limit(
        self,
        route: str,
        *,
        method: str | None = None,
        times: int | None = 1,
        retry_after: float = 0.05,
        is_global: bool = False,
        when: Callable[[RequestRecord], Any] | None = None,
    ) -> FaultRule:
        """Answer the next ``times`` matching requests with 429, ``retry_after`` and a
        ``Via`` header. discord.py sleeps ``retry_after`` (real seconds) and retries, five
        tries in all: ``times=5`` or more makes the call raise HTTPException (status 429)."""
        rule = FaultRule(
            "rate-limit",
            route,
            method,
            times,
            when,
            retry_after=retry_after,
            is_global=is_global,
            source="rate_limit",
        )
        return self.faults.add(rule)

    def hold(
        self,
        route: str,
        *,
        method: str | None = None,
        times: int | None = 1,
        when: Callable[[RequestRecord], Any] | None = None,
    ) -> HeldRequests:
        """Hold the next ``times`` matching requests in flight until the test decides:
        ``await handle.arrived()``, then ``handle.release()``, ``handle.drop(applied=...)``
        or ``handle.fail(status, code)``. Held requests still pending at stop are dropped."""
        rule = FaultRule("fail", route, method, times, when, source="hold")
        handle = HeldRequests(self, rule)
        self.faults.holds.append(handle)
        return handle

    def chaos(self, *, seed: int, **settings: Any) -> Chaos:
        """Inject faults at random into the bot's gameplay requests, repeatably for a seed
        (see ChaosSettings for the knobs). ``await chaos.stop()`` turns it off."""
        if self.faults.chaos is not None and self.faults.chaos.active:
            raise FakeUsageError("chaos is already on: stop it first")
        chaos = Chaos(self, ChaosSettings(seed=seed, **settings))
        self.faults.chaos = chaos
        return chaos

    def faults_of(self, kind: str | None = None, source: str | None = None) -> list[InjectedFault]:
        """The injected faults of one kind and/or source."""
        return [
            f
            for f in self.injected_faults
            if (kind is None or f.kind == kind) and (source is None or f.source == source)
        ]

    # -- reading the log ----------------------------------------------------------------

    def requests_to(self, route: str, method: str | None = None) -> list[RequestRecord]:
        return [
            r
            for r in self.requests
            if (route == routes.ANY or r.route == route) and (method is None or r.method == method)
        ]
