"""The gateway websocket: HELLO, IDENTIFY/READY, GUILD_CREATE, heartbeats, RESUME,
RECONNECT, and the dispatches the fake pushes (interactions, messages, channel updates)."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
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

GUILD_MEMBERS_INTENT = 1 << 1
GUILD_MESSAGES_INTENT = 1 << 9
DIRECT_MESSAGES_INTENT = 1 << 12

HEARTBEAT_INTERVAL_MS = 41_250
# Events kept per session so that a RESUME can replay what the bot missed.
REPLAY_BUFFER = 2_000


def _dumps(payload: dict[str, Any]) -> str:
    return json.dumps(payload, separators=(",", ":"))


class GatewayConnection:
    """One websocket. Sends are serialised: in zlib-stream mode the shared compressor must
    see the frames in the order they go out."""

    def __init__(self, ws: web.WebSocketResponse, *, zlib_stream: bool) -> None:
        self.ws = ws
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

    def wants(self, intent: int) -> bool:
        return bool(self.intents & intent)

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        payload = {"op": DISPATCH, "t": event, "s": self.seq, "d": data}
        self.replay.append(payload)
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

    @property
    def connected(self) -> bool:
        """True when every shard has a live, identified session."""
        return all(
            (s := self.active.get(shard)) is not None and s.connection is not None
            for shard in range(self.shard_count)
        )

    async def dispatch_guild_event(self, guild_id: int, event: str, data: dict[str, Any]) -> None:
        session = self.session_for(guild_id)
        if session is not None:
            await session.dispatch(event, data)

    async def dispatch_message_event(
        self, event: str, data: dict[str, Any], *, guild_id: int | None
    ) -> None:
        session = self.session_for(guild_id)
        intent = DIRECT_MESSAGES_INTENT if guild_id is None else GUILD_MESSAGES_INTENT
        if session is not None and session.wants(intent):
            await session.dispatch(event, data)

    async def send_interaction(self, payload: dict[str, Any], guild_id: int | None) -> None:
        session = self.session_for(guild_id)
        if session is None or session.connection is None:
            raise FakeUsageError(
                "no bot is connected to the fake gateway: start one (running_bot / "
                "bot_factory.start()) before interacting"
            )
        await session.dispatch("INTERACTION_CREATE", payload)

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
        connection = GatewayConnection(ws, zlib_stream=wants_zlib and self.compression is not None)
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
        if shard_count != self.shard_count:
            await connection.ws.close(code=4010, message=b"Invalid shard.")
            return
        self.identify_count += 1
        session = GatewaySession(
            id=secrets.token_hex(16),
            shard_id=shard_id,
            shard_count=shard_count,
            intents=int(data.get("intents", 0)),
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
            await session.dispatch("GUILD_CREATE", guild.payload(with_all_members=with_members))
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
