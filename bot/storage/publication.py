"""What the publisher reads and records: which version each public message shows, and
where each seat's private controls went. Kept apart from the moves' own tables' code so
that recording what was shown never takes a move's transaction."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from bot.model.contract import Session
from bot.storage import Database
from bot.storage.migrations import Dialect
from bot.storage.move_writes import loads
from bot.storage.sessions import session_columns, session_from


class ShowClaim(Enum):
    """What ``claim_show`` found."""

    GRANTED = "granted"
    NEWER = "newer"  # a newer version is shown, or being shown: nothing to edit
    BUSY = "busy"  # another process is editing the message: try again shortly


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


# The private messages as a JSON array of [seat, key, channel_id, message_id, closed, shown].
_PRIVATE_JSON = {
    "sqlite": "(SELECT json_group_array(json_array(m.seat, m.key, m.channel_id, m.message_id,"
    " m.closed, m.shown)) FROM private_messages m WHERE m.session_id = s.id)",
    "postgresql": "(SELECT json_agg(json_build_array(m.seat, m.key, m.channel_id, m.message_id,"
    " m.closed, m.shown)) FROM private_messages m WHERE m.session_id = s.id)",
}


def snapshot_query(dialect: Dialect) -> str:
    """The session, the events of its latest move and its private messages as ONE
    statement: one snapshot, one trip to the database."""
    return (
        f"SELECT {session_columns(dialect)},"
        " (SELECT e.events FROM events e WHERE e.session_id = s.id AND e.version = s.version)"
        f" AS last_events, {_PRIVATE_JSON[dialect]} AS private_list"
        " FROM sessions s WHERE s.id = ?"
    )


class PublicationStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def snapshot(self, session_id: int) -> Snapshot | None:
        row = await self.db.fetch_one(snapshot_query(self.db.dialect), (session_id,))
        if row is None:
            return None
        private = {}
        for seat, key, channel_id, message_id, closed, shown in loads(row["private_list"] or "[]"):
            private[seat] = PrivateMessage(
                seat=seat,
                key=key,
                channel_id=channel_id,
                message_id=message_id,
                closed=bool(closed),
                shown=shown,
            )
        events = row["last_events"]
        return Snapshot(
            session=session_from(row),
            events=loads(events) if events is not None else [],
            private=private,
        )

    async def claim_stale(
        self, *, owner: str, now: float, lease_seconds: float, limit: int, settled_before: float
    ) -> list[tuple[int, int]]:
        """Claim, for ``lease_seconds``, up to ``limit`` sessions whose public message shows
        an older version and that no other process is repairing: (id, version) of each.
        Only sessions last changed before ``settled_before`` (the process that moved a
        game shows it itself, within moments). Another process's claim counts until its
        lease ends; this process's own are claimed again. A game reached only through
        interactions counts only while it has a live token (without one nothing can show
        it: its next press keeps a token and asks for it)."""
        skip_locked = " FOR UPDATE SKIP LOCKED" if self.db.dialect == "postgresql" else ""
        rows = await self.db.write_returning(
            "UPDATE sessions SET repair_owner = ?, repair_until = ?"
            " WHERE id IN (SELECT id FROM sessions WHERE shown_version < version"
            " AND updated_at <= ?"
            " AND (repair_until IS NULL OR repair_until <= ? OR repair_owner = ?)"
            " AND (reach = 'member' OR EXISTS (SELECT 1 FROM interaction_tokens t"
            " WHERE t.session_id = sessions.id AND t.expires_at > ?))"
            f" ORDER BY id LIMIT ?{skip_locked})"
            " RETURNING id, version",
            (owner, now + lease_seconds, settled_before, now, owner, now, limit),
        )
        return sorted((row["id"], row["version"]) for row in rows)

    async def release_repairs(self, owner: str, session_ids: Iterable[int] | None = None) -> None:
        """End ``owner``'s repair claims (on ``session_ids``, or all of them): a repair that
        is done, or a process that stops cleanly, leaves nothing for another process to
        wait out (a claim's lease is for a process that dies)."""
        if session_ids is None:
            # Only a stale session's claim counts (``claim_stale``): the partial index
            # finds them without reading every game ever played.
            await self.db.write(
                "UPDATE sessions SET repair_owner = NULL, repair_until = NULL"
                " WHERE shown_version < version AND repair_owner = ?",
                (owner,),
            )
            return
        await self.db.write_many(
            "UPDATE sessions SET repair_owner = NULL, repair_until = NULL"
            " WHERE id = ? AND repair_owner = ?",
            [(session_id, owner) for session_id in sorted(session_ids)],
        )

    async def claim_show(
        self, session_id: int, version: int, *, owner: str, now: float, lease_seconds: float
    ) -> ShowClaim:
        """Claim the session's public message to show ``version`` on it: granted (one
        statement) unless a newer version has been shown or is being shown (``NEWER``), or
        another process is editing the message right now (``BUSY``: try again shortly).
        The claim holds until ``record_shown`` ends it, or its lease runs out."""
        claimed = await self.db.write(
            "UPDATE sessions SET show_fence = ?, show_owner = ?, show_until = ?"
            " WHERE id = ? AND show_fence <= ?"
            " AND (show_owner IS NULL OR show_owner = ? OR show_until <= ?)",
            (version, owner, now + lease_seconds, session_id, version, owner, now),
        )
        if claimed:
            return ShowClaim.GRANTED
        row = await self.db.fetch_one("SELECT show_fence FROM sessions WHERE id = ?", (session_id,))
        if row is None or row["show_fence"] > version:
            return ShowClaim.NEWER
        return ShowClaim.BUSY

    async def show_fence(self, session_id: int) -> int | None:
        """The newest version any process has claimed to show on the session's public
        message (``claim_show``); None if there is no such session."""
        row = await self.db.fetch_one("SELECT show_fence FROM sessions WHERE id = ?", (session_id,))
        return None if row is None else int(row["show_fence"])

    async def record_shown(
        self, shown: Mapping[int, int], *, owner: str | None = None, release: Iterable[int] = ()
    ) -> None:
        """Record the versions now on screen, in one transaction (never lowering one), and
        end ``owner``'s claims (``claim_show``) on the messages in ``release``."""
        freed = set(release)
        rows = {session_id: shown.get(session_id, -1) for session_id in freed}
        rows.update(shown)
        if not rows:
            return
        await self.db.write_many(
            "UPDATE sessions"
            " SET shown_version = CASE WHEN shown_version < ? THEN ? ELSE shown_version END,"
            " show_until = CASE WHEN show_owner = ? THEN NULL ELSE show_until END,"
            " show_owner = CASE WHEN show_owner = ? THEN NULL ELSE show_owner END"
            " WHERE id = ?",
            # In id order: two processes recording at once lock rows in one order. A row
            # not to release compares its owner with NULL, which is never true.
            [
                (version, version, *(2 * [owner if session_id in freed else None]), session_id)
                for session_id, version in sorted(rows.items())
            ],
        )

    async def record_private_shown(
        self, session_id: int, seat: int, *, key: str, message_id: int, shown: str
    ) -> None:
        """The seat's private message ``message_id``, sent for ``key``, now shows ``shown``
        (one statement: a row that is for another key or message is left alone)."""
        await self.db.write(
            "UPDATE private_messages SET shown = ?"
            " WHERE session_id = ? AND seat = ? AND key = ? AND message_id = ?",
            (shown, session_id, seat, key, message_id),
        )

    async def save_private(self, session_id: int, message: PrivateMessage) -> None:
        await self.db.write(
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
