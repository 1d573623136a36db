"""Season requests (``season_requests``): an admin's ``/dicebot season new`` waiting for
its confirmation (``bot.ladder.season_requests`` answers it, ``cogs/admin.py`` shows it).

A pending request's ``numbers`` is what it would close, ``{"knucklebones": 3}`` (JSON, keys
sorted). **Keep it** deletes a pending request; **Close the season** makes its numbers
``{"closed": {"knucklebones": 3}}`` in the transaction that closes those seasons. Either
change applies only while the row still holds the numbers the press read (still pending),
so of two presses racing, only the first changes the row and the other finds what it did.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from bot.storage.base import Database
from bot.storage.connection import Connection, Row

# The key a closed request's numbers are kept under (no game is called that).
CLOSED_KEY = "closed"


@dataclass(frozen=True)
class SeasonRequest:
    id: int
    guild_id: int
    game: str | None  # the one game whose season it closes; None: every game's
    name: str  # the new season's name
    admin_id: int
    issued_at: float
    numbers: dict[str, int]  # game -> the number of the season it closes
    closed: bool  # Close the season has closed them
    # ``numbers`` as stored when read: what a conditional change expects to find.
    stored: str = field(repr=False)

    @classmethod
    def from_row(cls, row: Row) -> SeasonRequest:
        numbers, closed = parse_numbers(row["numbers"])
        return cls(
            id=row["id"],
            guild_id=row["guild_id"],
            game=row["game"],
            name=row["name"],
            admin_id=row["admin_id"],
            issued_at=row["issued_at"],
            numbers=numbers,
            closed=closed,
            stored=row["numbers"],
        )


def parse_numbers(stored: str) -> tuple[dict[str, int], bool]:
    """A request's seasons (game -> the number it closes) and whether Close the season
    already closed them."""
    data = json.loads(stored)
    closed = data.get(CLOSED_KEY)
    if isinstance(closed, dict):
        return {game: int(number) for game, number in closed.items()}, True
    return {game: int(number) for game, number in data.items()}, False


def closed_numbers(numbers: dict[str, int]) -> str:
    """What a request's ``numbers`` become when Close the season closes its seasons."""
    return json.dumps({CLOSED_KEY: numbers}, sort_keys=True)


async def add_request(
    db: Database,
    *,
    guild_id: int,
    game: str | None,
    name: str,
    admin_id: int,
    numbers: dict[str, int],
    now: float,
    expired_before: float,
) -> int:
    """Store a pending request; returns its id. The same transaction deletes every request
    issued before ``expired_before`` (confirmations nobody answered in time)."""
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM season_requests WHERE issued_at < ?", (expired_before,))
        request_id = await conn.fetch_value(
            "INSERT INTO season_requests (guild_id, game, name, admin_id, issued_at, numbers)"
            " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (guild_id, game, name, admin_id, now, json.dumps(numbers, sort_keys=True)),
        )
    assert isinstance(request_id, int)
    return request_id


async def find_request(db: Database, request_id: int, guild_id: int) -> SeasonRequest | None:
    """The request, pending or closed, if this server has it (not kept, not expired)."""
    row = await db.fetch_one(
        "SELECT id, guild_id, game, name, admin_id, issued_at, numbers FROM season_requests"
        " WHERE id = ? AND guild_id = ?",
        (request_id, guild_id),
    )
    return None if row is None else SeasonRequest.from_row(row)


async def keep_request(db: Database, request: SeasonRequest) -> bool:
    """Keep it: delete a pending request while it is still as read. False when it was
    not: a Close the season took it first, or it is gone."""
    if request.closed:
        return False
    deleted = await db.write(
        "DELETE FROM season_requests WHERE id = ? AND numbers = ?", (request.id, request.stored)
    )
    return deleted > 0


async def mark_closed(conn: Connection, request: SeasonRequest) -> bool:
    """Close the season takes the request, in the caller's transaction (the one that closes
    its seasons): marks a pending request closed while it is still as read. False when it
    was not: a Keep it or another Close the season took it first, or it is gone."""
    if request.closed:
        return False
    taken = await conn.execute(
        "UPDATE season_requests SET numbers = ? WHERE id = ? AND numbers = ?",
        (closed_numbers(request.numbers), request.id, request.stored),
    )
    return taken == 1


async def delete_request(db: Database, request_id: int) -> None:
    """Forget a request, whatever its state (an expired confirmation)."""
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM season_requests WHERE id = ?", (request_id,))
