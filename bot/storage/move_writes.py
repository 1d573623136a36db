"""What one move writes, as data, and the portable statements that write it.

``SessionService.act`` loads the session, runs the game's step, and hands everything the
move must store to the adapter as ONE ``MoveWrite`` (``Database.write_move``): the new
state saved with the version check, the seats and who is busy in the channel, the event
row and the deadlines. Every adapter runs the statements below inside the move's
transaction; an adapter may store the same thing its own way (fewer round trips) as long
as the result is the same. The result and ratings of a game that ended are the session
service's to record, in the same transaction (``bot.ladder.results``): storage knows no ladder.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from bot.i18n import _
from bot.model.catalog import game_title
from bot.model.contract import OPEN_STATUSES, Deadline, Seat, Session, Step
from bot.model.errors import AlreadyPlaying, SessionChanged
from bot.model.text import escape
from bot.storage.connection import Connection

MAX_NAME_LENGTH = 100


@dataclass(frozen=True)
class MoveWrite:
    """One move: ``step`` applied to ``previous`` by ``actor_id`` (None: the system)."""

    previous: Session
    step: Step
    actor_id: int | None
    action: dict[str, Any]
    now: float

    @functools.cached_property
    def state_text(self) -> str:
        """The new state as stored (sorted JSON), encoded once for the row and the caller."""
        return dumps(self.step.state)


# orjson: a move encodes its state once and decodes it twice (the locked read, the session
# handed back); 16 -> 2 us and 11 -> 3 us for a Knucklebones state. Keys stay sorted, so a
# state's text stays the same from one write to the next.
_DUMP_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    """Stored JSON: compact, keys sorted, text as UTF-8 (not escaped)."""
    return orjson.dumps(value, option=_DUMP_OPTIONS).decode()


def loads(text: str | bytes) -> Any:
    """Stored JSON, as ``json.loads`` reads it."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        # What orjson refuses and ``json`` reads: NaN or Infinity, in a row ``json.dumps``
        # wrote before. (No stored game holds an integer past 64 bits, which orjson would
        # read as a float: ``dumps`` refuses them.)
        return json.loads(text)


async def write_move(conn: Connection, write: MoveWrite) -> None:
    """Store the move in the open transaction. Raises SessionChanged if the session moved
    on since ``previous`` was loaded, or AlreadyPlaying if a seat that arrived already has
    a game in the channel."""
    previous, step, now = write.previous, write.step, write.now
    new_version = previous.version + 1
    changed = await conn.execute(
        "UPDATE sessions SET state = ?, status = ?, version = ?, updated_at = ?"
        " WHERE id = ? AND version = ?",
        (write.state_text, step.status, new_version, now, previous.id, previous.version),
    )
    if changed != 1:
        raise SessionChanged()
    if step.seats is not None:
        await conn.execute("DELETE FROM session_players WHERE session_id = ?", (previous.id,))
        await write_seats(conn, previous.id, step.seats)
        if step.status in OPEN_STATUSES:
            await reclaim_channel(conn, previous, step.seats, write.actor_id)
    if step.status not in OPEN_STATUSES:
        await conn.execute("DELETE FROM busy_players WHERE session_id = ?", (previous.id,))
    await conn.execute(
        "INSERT INTO events (session_id, version, actor_id, action, events, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (previous.id, new_version, write.actor_id, dumps(write.action), dumps(step.events), now),
    )
    if step.status not in OPEN_STATUSES:
        await replace_deadlines(conn, previous.id, [])
    elif step.deadlines is not None:
        await replace_deadlines(conn, previous.id, step.deadlines)


def stored_seats(seats: Iterable[Seat]) -> list[Seat]:
    """The seats as stored: in seat order, names cut to MAX_NAME_LENGTH."""
    return sorted(
        (
            Seat(
                seat=seat.seat,
                user_id=seat.user_id,
                display_name=seat.display_name[:MAX_NAME_LENGTH],
                is_ai=seat.is_ai,
                has_left=seat.has_left,
            )
            for seat in seats
        ),
        key=lambda seat: seat.seat,
    )


async def write_seats(conn: Connection, session_id: int, seats: Iterable[Seat]) -> None:
    await conn.execute_many(
        "INSERT INTO session_players"
        " (session_id, seat, user_id, display_name, is_ai, has_left)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [
            (
                session_id,
                seat.seat,
                seat.user_id,
                seat.display_name,
                int(seat.is_ai),
                int(seat.has_left),
            )
            for seat in stored_seats(seats)
        ],
    )


def playing(seats: Iterable[Seat]) -> dict[int, Seat]:
    """The human seats that count as busy in the channel (not the AI, not those who left)."""
    return {seat.user_id: seat for seat in seats if not seat.is_ai and not seat.has_left}


async def claim_channel(
    conn: Connection,
    session_id: int,
    channel_id: int,
    seats: Iterable[Seat],
    actor_id: int | None,
) -> None:
    """Mark the seats' players busy in the channel, or raise AlreadyPlaying. The primary key
    of busy_players makes this hold however many lobbies are joined at the same moment, in
    one process or several (PostgreSQL makes a second insert of a key wait for the first's
    transaction, then skip it). Players are claimed in id order, so two transactions
    claiming the same players never wait for each other in a circle."""
    for user_id, seat in sorted(playing(seats).items()):
        inserted = await conn.execute(
            "INSERT INTO busy_players (channel_id, user_id, session_id) VALUES (?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            (channel_id, user_id, session_id),
        )
        if inserted == 1:
            continue
        game = await conn.fetch_value(
            "SELECT s.game FROM busy_players b JOIN sessions s ON s.id = b.session_id"
            " WHERE b.channel_id = ? AND b.user_id = ?",
            (channel_id, user_id),
        )
        raise AlreadyPlaying(already_playing(seat.display_name, user_id == actor_id, game))


def already_playing(display_name: str, is_actor: bool, game: object) -> str:
    """Why a player cannot take a seat here: their game open in this channel."""
    title = game_title(str(game)) if game else None
    if is_actor:
        if title is None:
            return _(
                "You already have another game open in this channel. Finish or forfeit it "
                "first, or play in another channel."
            )
        return _(
            "You already have a game open in this channel ({game}). Finish or forfeit it "
            "first, or play in another channel."
        ).format(game=title)
    name = escape(display_name)
    if title is None:
        return _(
            "{name} already has another game open in this channel. Finish or forfeit it "
            "first, or play in another channel."
        ).format(name=name)
    return _(
        "{name} already has a game open in this channel ({game}). Finish or forfeit it "
        "first, or play in another channel."
    ).format(name=name, game=title)


async def reclaim_channel(
    conn: Connection, previous: Session, seats: Iterable[Seat], actor_id: int | None
) -> None:
    """The seats changed (a join, a leave): free those who left, claim those who came."""
    before = playing(previous.seats)
    after = playing(seats)
    for user_id in sorted(before.keys() - after.keys()):
        await conn.execute(
            "DELETE FROM busy_players WHERE channel_id = ? AND user_id = ? AND session_id = ?",
            (previous.channel_id, user_id, previous.id),
        )
    arrived = [seat for user_id, seat in after.items() if user_id not in before]
    if arrived:
        await claim_channel(conn, previous.id, previous.channel_id, arrived, actor_id)


async def replace_deadlines(
    conn: Connection, session_id: int, deadlines: Sequence[Deadline]
) -> None:
    await conn.execute("DELETE FROM deadlines WHERE session_id = ?", (session_id,))
    await conn.execute_many(
        "INSERT INTO deadlines (session_id, kind, due_at, action) VALUES (?, ?, ?, ?)",
        [(session_id, d.kind, float(d.due_at), dumps(d.action)) for d in deadlines],
    )
