"""What the publisher reads and records: which version each public message shows, and
where each seat's private controls went. Kept apart from the moves' own tables' code so
that recording what was shown never takes a move's transaction."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.games import Session
from bot.sessions import load_session
from bot.storage import Database


@dataclass(frozen=True)
class PrivateMessage:
    """One seat's private message: the controls sent for ``key`` (None ids: DMs closed)."""

    seat: int
    key: str
    channel_id: int | None = None
    message_id: int | None = None
    closed: bool = False
    # A signature of what the message shows now ("" right after sending the controls).
    shown: str = ""


@dataclass(frozen=True)
class Snapshot:
    """A session as one consistent read: the row, the events of its latest move, and its
    private messages."""

    session: Session
    events: list[dict[str, Any]]
    private: Mapping[int, PrivateMessage]


class PublicationStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def snapshot(self, session_id: int) -> Snapshot | None:
        async with self.db.read() as conn:
            session = await load_session(conn, session_id)
            if session is None:
                return None
            events_text = await conn.fetch_value(
                "SELECT events FROM events WHERE session_id = ? AND version = ?",
                (session_id, session.version),
            )
            private_rows = await conn.fetch_all(
                "SELECT seat, key, channel_id, message_id, closed, shown FROM private_messages"
                " WHERE session_id = ?",
                (session_id,),
            )
        events = json.loads(events_text) if events_text is not None else []
        private = {
            row["seat"]: PrivateMessage(
                seat=row["seat"],
                key=row["key"],
                channel_id=row["channel_id"],
                message_id=row["message_id"],
                closed=bool(row["closed"]),
                shown=row["shown"],
            )
            for row in private_rows
        }
        return Snapshot(session=session, events=events, private=private)

    async def claim_stale(
        self, *, owner: str, now: float, lease_seconds: float, limit: int, settled_before: float
    ) -> list[tuple[int, int]]:
        """Claim, for ``lease_seconds``, up to ``limit`` sessions whose public message shows
        an older version and that no other process is repairing: (id, version) of each.
        Only sessions last changed before ``settled_before`` (the process that moved a
        game shows it itself, within moments). Another process's claim counts until its
        lease ends; this process's own are claimed again."""
        async with self.db.transaction() as conn:
            skip_locked = " FOR UPDATE SKIP LOCKED" if conn.dialect == "postgresql" else ""
            rows = await conn.fetch_all(
                "UPDATE sessions SET repair_owner = ?, repair_until = ?"
                " WHERE id IN (SELECT id FROM sessions WHERE shown_version < version"
                " AND updated_at <= ?"
                " AND (repair_until IS NULL OR repair_until <= ? OR repair_owner = ?)"
                f" ORDER BY id LIMIT ?{skip_locked})"
                " RETURNING id, version",
                (owner, now + lease_seconds, settled_before, now, owner, limit),
            )
        return sorted((row["id"], row["version"]) for row in rows)

    async def record_shown(self, shown: Mapping[int, int]) -> None:
        """Record the versions now on screen, in one transaction (never lowering one)."""
        if not shown:
            return
        async with self.db.transaction() as conn:
            await conn.execute_many(
                "UPDATE sessions SET shown_version = ? WHERE id = ? AND shown_version < ?",
                # In id order: two processes recording at once lock rows in one order.
                [(version, session_id, version) for session_id, version in sorted(shown.items())],
            )

    async def save_private(self, session_id: int, message: PrivateMessage) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO private_messages"
                " (session_id, seat, key, channel_id, message_id, closed, shown)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (session_id, seat) DO UPDATE SET key = excluded.key,"
                " channel_id = excluded.channel_id, message_id = excluded.message_id,"
                " closed = excluded.closed, shown = excluded.shown",
                (
                    session_id,
                    message.seat,
                    message.key,
                    message.channel_id,
                    message.message_id,
                    int(message.closed),
                    message.shown,
                ),
            )
