"""The gateway websocket: HELLO, IDENTIFY/READY, GUILD_CREATE, heartbeats, RESUME,
RECONNECT, and the dispatches the fake pushes (interactions, messages, channel updates)."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import zlib
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from .errors import FakeUsageError

if TYPE_CHECKING:
    from .server import FakeDiscord

log = logging.getLogger(__name__)

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, VOICE, RESUME, RECONNECT = 0, 1, 2, 3, 4, 6, 7
REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 8, 9, 10, 11

GUILDS_INTENT = 1 << 0
GUILD_MEMBERS_INTENT = 1 << 1
GUILD_MESSAGES_INTENT = 1 << 9
DIRECT_MESSAGES_INTENT = 1 << 12

HEARTBEAT_INTERVAL_MS = 41_250
# Events kept per session so that a RESUME can replay what the bot missed.
REPLAY_BUFFER = 2_000
# Discord: each bucket (shard_id % max_concurrency) may IDENTIFY once per 5 seconds.
IDENTIFY_WINDOW_SECONDS = 5.0
SESSION_START_TOTAL = 1000


@dataclass(frozen=True)
class IdentifyRecord:
    """One IDENTIFY the fake received."""

    shard_id: int
    shard_count: int
    # time.monotonic() when it arrived: the identify limit is real time on Discord too.
    at: float
    # False when the fake refused it with INVALID_SESSION (enforced max_concurrency).
    accepted: bool
    session_id: str | None
    # Which websocket connection sent it (1, 2, ... in the order they connected).
    connection: int


@dataclass(frozen=True)
class DispatchRecord:
    """One event sent to the bot: on which shard, and for which guild (None for DMs)."""

    shard_id: int
    session_id: str
    event: str
    guild_id: int | None
    # The connection that was live for the session when it was sent (None: queued for a
    # resume, the session had no connection).
    connection: int | None


def _dumps(payload: dict[str, Any]) -> str:
    return json.dumps(payload, separators=(",", ":"))


class GatewayConnection:
    """One websocket. Sends are serialised: in zlib-stream mode the shared compressor must
    see the frames in the order they go out."""

    def __init__(self, ws: web.WebSocketResponse, *, zlib_stream: bool, number: int) -> None:
        self.ws = ws
        self.number = number
        self._compressor = zlib.compressobj() if zlib_stream else None
        self._lock = asyncio.Lock()
        self.session: GatewaySession | None = None
        self.frames_sent = 0

    @property
    def compressed(self) -> bool:
        return self._compressor is not None

    async def send(self, payload: dict[str, Any]) -> None:
        text = _dumps(payload)
        async with self._lock:
            if self.ws.closed:
                return
            if self._compressor is not None:
                data = self._compressor.compress(text.encode())
                data += self._compressor.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text)
            self.frames_sent += 1


@dataclass(eq=False)
class GatewaySession:
    id: str
    shard_id: int
    shard_count: int
    intents: int
    seq: int = 0
    connection: GatewayConnection | None = None
    replay: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=REPLAY_BUFFER))
    log: list[DispatchRecord] | None = None

    def wants(self, intent: int) -> bool:
        return bool(self.intents & intent)

    async def dispatch(
        self, event: str, data: dict[str, Any], *, guild_id: int | None = None
    ) -> None:
        self.seq += 1
        payload = {"op": DISPATCH, "t": event, "s": self.seq, "d": data}
        self.replay.append(payload)
        if self.log is not None:
            number = None if self.connection is None else self.connection.number
            self.log.append(DispatchRecord(self.shard_id, self.id, event, guild_id, number))
        if self.connection is not None:
            await self.connection.send(payload)


class GatewayServer:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.shard_count = 1
        # "zlib-stream" compresses frames when the client asks for it; None sends text.
        self.compression: str | None = None
        self.sessions: dict[str, GatewaySession] = {}
        self.active: dict[int, GatewaySession] = {}
        self.connections: set[GatewayConnection] = set()
        # GET /gateway/bot's session_start_limit.max_concurrency.
        self.max_concurrency = 1
        # Refuse an IDENTIFY that breaks max_concurrency with INVALID_SESSION, as Discord
        # does (off by default: the fake records identifies and a test checks them).
        self.enforce_identify_limit = False
        self.identify_window = IDENTIFY_WINDOW_SECONDS
        self.session_start_total = SESSION_START_TOTAL
        self.identifies: list[IdentifyRecord] = []
        # Every event sent, with its shard (GUILD_CREATE, INTERACTION_CREATE, ...).
        self.dispatches: list[DispatchRecord] = []
        self._connection_numbers = 0
        self.identify_count = 0
        self.resume_count = 0
        self.heartbeat_count = 0
        self.compressed_connections = 0

    # -- routing ------------------------------------------------------------------------

    def shard_of(self, guild_id: int | None) -> int:
        if guild_id is None:
            return 0
        return (guild_id >> 22) % self.shard_count

    def session_for(self, guild_id: int | None) -> GatewaySession | None:
        return self.active.get(self.shard_of(guild_id))

    def shard_connected(self, shard_id: int) -> bool:
        session = self.active.get(shard_id)
        return session is not None and session.connection is not None

    @property
    def connected(self) -> bool:
        """True when every shard has a live, identified session."""
        return all(self.shard_connected(shard) for shard in range(self.shard_count))

    @property
    def session_starts_remaining(self) -> int:
        return max(self.session_start_total - self.identify_count, 0)

    def events(self, *, shard: int | None = None, event: str | None = None) -> list[DispatchRecord]:
        """The events sent so far, optionally only one shard's and/or one event type."""
        return [
            d
            for d in self.dispatches
            if (shard is None or d.shard_id == shard) and (event is None or d.event == event)
        ]

    def identify_violations(self) -> list[IdentifyRecord]:
        """Accepted identifies that came less than ``identify_window`` seconds after an
        earlier accepted one in the same bucket (``shard_id % max_concurrency``): what
        Discord's max_concurrency forbids."""
        last_in_bucket: dict[int, float] = {}
        violations: list[IdentifyRecord] = []
        for record in self.identifies:
            if not record.accepted:
                continue
            bucket = record.shard_id % self.max_concurrency
            previous = last_in_bucket.get(bucket)
            if previous is not None and record.at - previous < self.identify_window:
                violations.append(record)
            last_in_bucket[bucket] = record.at
        return violations

    def _breaks_identify_limit(self, shard_id: int, now: float) -> bool:
        bucket = shard_id % self.max_concurrency
        return any(
            r.accepted
            and r.shard_id % self.max_concurrency == bucket
            and now - r.at < self.identify_window
            for r in self.identifies
        )

    async def dispatch_guild_event(
        self, guild_id: int, event: str, data: dict[str, Any], *, intent: int = GUILDS_INTENT
    ) -> None:
        """A guild event on the guild's shard, if the bot asked for its intent (GUILDS for
        channel, role and guild events). Nothing from a server that did not add the bot."""
        if guild_id not in self.fake.guilds:
            return
        session = self.session_for(guild_id)
        if session is not None and session.wants(intent):
            await session.dispatch(event, data, guild_id=guild_id)

    async def dispatch_message_event(
        self, event: str, data: dict[str, Any], *, guild_id: int | None
    ) -> None:
        if guild_id is not None and guild_id not in self.fake.guilds:
            return  # a server that did not add the bot tells it nothing
        session = self.session_for(guild_id)
        intent = DIRECT_MESSAGES_INTENT if guild_id is None else GUILD_MESSAGES_INTENT
        if session is not None and session.wants(intent):
            await session.dispatch(event, data, guild_id=guild_id)

    async def send_interaction(self, payload: dict[str, Any], guild_id: int | None) -> int:
        """INTERACTION_CREATE on the guild's shard (shard 0 for DMs and group DMs); returns
        the shard. A server without the bot counts as any server: its id picks the shard."""
        shard = self.shard_of(guild_id)
        session = self.active.get(shard)
        if session is None or session.connection is None:
            raise FakeUsageError(
                f"no bot is connected to the fake gateway on shard {shard} (of "
                f"{self.shard_count}): start one (running_bot / bot_factory.start()) "
                "before interacting"
            )
        await session.dispatch("INTERACTION_CREATE", payload, guild_id=guild_id)
        return shard

    # -- control from tests ---------------------------------------------------------------

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT on every live connection: the bot must come back with RESUME."""
        for connection in list(self.connections):
            await connection.send({"op": RECONNECT, "d": None})

    async def close_all(self) -> None:
        for connection in list(self.connections):
            await connection.ws.close(code=1001, message=b"fake discord shutting down")

    # -- the websocket ------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(compress=False, max_msg_size=0)
        await ws.prepare(request)
        wants_zlib = request.query.get("compress") == "zlib-stream"
        self._connection_numbers += 1
        connection = GatewayConnection(
            ws,
            zlib_stream=wants_zlib and self.compression is not None,
            number=self._connection_numbers,
        )
        if connection.compressed:
            self.compressed_connections += 1
        self.connections.add(connection)
        self.fake.notify()
        try:
            await connection.send(
                {"op": HELLO, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}, "s": None}
            )
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                await self._on_frame(connection, json.loads(message.data))
        finally:
            self.connections.discard(connection)
            session = connection.session
            if session is not None and session.connection is connection:
                session.connection = None
                # A client closing with 1000/1001 ends its session; anything else may resume.
                if ws.close_code in (1000, 1001):
                    self.sessions.pop(session.id, None)
                    if self.active.get(session.shard_id) is session:
                        del self.active[session.shard_id]
            self.fake.notify()
        return ws

    async def _on_frame(self, connection: GatewayConnection, frame: dict[str, Any]) -> None:
        op = frame.get("op")
        data: dict[str, Any] = frame.get("d") or {}
        if op == HEARTBEAT:
            self.heartbeat_count += 1
            await connection.send({"op": HEARTBEAT_ACK, "d": None})
        elif op == IDENTIFY:
            await self._identify(connection, data)
        elif op == RESUME:
            await self._resume(connection, data)
        elif op == REQUEST_MEMBERS:
            await self._send_member_chunk(connection, data)
        elif op in (PRESENCE, VOICE):
            pass
        else:
            log.warning("fake gateway: unexpected op %r", op)

    async def _identify(self, connection: GatewayConnection, data: dict[str, Any]) -> None:
        if data.get("token") != self.fake.token:
            await connection.ws.close(code=4004, message=b"Authentication failed.")
            return
        shard_id, shard_count = data.get("shard") or [0, 1]
        if shard_count != self.shard_count or not 0 <= shard_id < shard_count:
            await connection.ws.close(code=4010, message=b"Invalid shard.")
            return
        now = time.monotonic()
        if self.enforce_identify_limit and self._breaks_identify_limit(shard_id, now):
            self.identifies.append(
                IdentifyRecord(shard_id, shard_count, now, False, None, connection.number)
            )
            # Discord's answer to an identify over max_concurrency: a new session is needed.
            await connection.send({"op": INVALID_SESSION, "d": False})
            self.fake.notify()
            return
        self.identify_count += 1
        session = GatewaySession(
            id=secrets.token_hex(16),
            shard_id=shard_id,
            shard_count=shard_count,
            intents=int(data.get("intents", 0)),
            log=self.dispatches,
        )
        self.identifies.append(
            IdentifyRecord(shard_id, shard_count, now, True, session.id, connection.number)
        )
        self.sessions[session.id] = session
        previous = self.active.get(shard_id)
        if previous is not None and previous.connection is None:
            self.sessions.pop(previous.id, None)
        self.active[shard_id] = session
        session.connection = connection
        connection.session = session
        guilds = [g for g in self.fake.guilds.values() if self.shard_of(g.id) == shard_id]
        await session.dispatch(
            "READY",
            {
                "v": 10,
                "user": self.fake.bot_user_payload(),
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "session_id": session.id,
                "session_type": "normal",
                "resume_gateway_url": self.fake.gateway_url,
                "shard": [shard_id, shard_count],
                "application": {"id": str(self.fake.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": [],
                "user_settings": {},
                "auth": {},
            },
        )
        with_members = session.wants(GUILD_MEMBERS_INTENT)
        for guild in guilds:
            await session.dispatch(
                "GUILD_CREATE", guild.payload(with_all_members=with_members), guild_id=guild.id
            )
        self.fake.notify()

    async def _resume(self, connection: GatewayConnection, data: dict[str, Any]) -> None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or data.get("token") != self.fake.token:
            await connection.send({"op": INVALID_SESSION, "d": False})
            return
        self.resume_count += 1
        if session.connection is not None and session.connection is not connection:
            await session.connection.ws.close(code=4009, message=b"Session taken over.")
        session.connection = connection
        connection.session = session
        self.active[session.shard_id] = session
        last_seen = int(data.get("seq") or 0)
        for payload in list(session.replay):
            if payload["s"] > last_seen:
                await connection.send(payload)
        await session.dispatch("RESUMED", {})
        self.fake.notify()

    async def _send_member_chunk(self, connection: GatewayConnection, data: dict[str, Any]) -> None:
        session = connection.session
        guild = self.fake.guilds.get(int(data.get("guild_id", 0)))
        if session is None or guild is None:
            return
        await session.dispatch(
            "GUILD_MEMBERS_CHUNK",
            {
                "guild_id": str(guild.id),
                "members": [m.payload() for m in guild.members.values()],
                "chunk_index": 0,
                "chunk_count": 1,
                "nonce": data.get("nonce"),
                "not_found": [],
            },
        )
