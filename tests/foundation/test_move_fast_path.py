"""The adapters' fast paths for a move (SQLite: the whole transaction in one trip to its
database thread; PostgreSQL: a move's writes in fewer statements) store exactly what the
plain path stores: the same games, played on two fresh databases, one with every fast
path turned off, leave every table the same, row for row."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from backends import backend_url, database_at
from foundation_support import ALICE, BOB, CAROL, CHANNEL, GUILD, CounterGame, seats

from bot.model.clock import ManualClock
from bot.model.contract import Deadline, Session
from bot.model.errors import UserError
from bot.play.guild_settings import GuildSettings
from bot.play.sessions import SeedSource, SessionService
from bot.storage import Connection, Database, SQLiteDatabase
from bot.storage.publication import PublicationStore
from game_core.errors import IllegalMove

TABLES = (
    "sessions",
    "session_players",
    "busy_players",
    "events",
    "deadlines",
    "results",
    "result_players",
    "ratings",
    "player_picks",
    "guild_settings",
    "season_current",
    "season_ratings",
    "seasons",
)


def plain(database: Database) -> Database:
    """The same adapter with its fast paths turned off: the storage interface's own way,
    one statement at a time inside ``transaction()`` and ``read()``."""
    database.run_transaction = functools.partial(Database.run_transaction, database)  # type: ignore[method-assign]
    database.run_read = functools.partial(Database.run_read, database)  # type: ignore[method-assign]
    database.write_move = functools.partial(Database.write_move, database)  # type: ignore[method-assign]
    return database


@pytest.fixture
async def two_databases(backend: str, tmp_path: Path) -> AsyncIterator[tuple[Database, Database]]:
    async with (
        backend_url(backend, tmp_path) as fast_url,
        backend_url(backend, tmp_path) as plain_url,
    ):
        fast = database_at(fast_url, tmp_path / "fast.db")
        slow = plain(database_at(plain_url, tmp_path / "plain.db"))
        for database in (fast, slow):
            await database.open()
            await database.migrate()
        try:
            yield fast, slow
        finally:
            await fast.close()
            await slow.close()


async def dump(database: Database) -> dict[str, list[tuple[Any, ...]]]:
    tables = {}
    for table in TABLES:
        rows = await database.fetch_all(f"SELECT * FROM {table}")
        tables[table] = sorted((tuple(row) for row in rows), key=repr)
    return tables


async def play(database: Database) -> list[Any]:
    """Games exercising every part of a move's writes; returns what each call gave back."""
    clock = ManualClock()
    game = CounterGame()
    service = SessionService(database, clock, GuildSettings(), SeedSource(7), instance="test")
    service.register(game)
    seen: list[Any] = []

    async def attempt(
        session: Session, actor: int | None, action: dict[str, Any], **kw: Any
    ) -> None:
        try:
            outcome = await service.act(session.id, actor, action, **kw)
        except (IllegalMove, UserError) as error:
            seen.append(type(error).__name__)
        else:
            seen.append((outcome.session.version, outcome.session.state, outcome.result_id))
        # Every table after every move, not just at the end.
        seen.append(await dump(database))

    async with database.transaction() as conn:
        await conn.execute(
            "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, ?, 0)",
            (GUILD, '{"turn_timeout_seconds": 120}'),
        )
    duel = await service.create(
        game=game.game,
        guild_id=GUILD,
        channel_id=CHANNEL,
        created_by=ALICE,
        seats=seats(ALICE, BOB),
        state={"n": 0},
        status="active",
        deadlines=[Deadline("nudge", 50.0, {"type": "inc", "by": 5})],
    )
    table = await service.create(
        game=game.game,
        guild_id=GUILD,
        channel_id=CHANNEL + 1,
        created_by=ALICE,
        seats=seats(ALICE, BOB, CAROL),
        state={"n": 0},
        status="active",
    )
    clock.advance(1.5)
    await attempt(duel, ALICE, {"type": "inc", "by": 2, "tag": "ünïcødé ⚄"})
    await attempt(duel, BOB, {"type": "illegal"})
    await attempt(duel, BOB, {"type": "inc", "by": 1}, expected_version=0)
    timers = [
        {"kind": "warn", "in": 10, "action": {"type": "inc", "by": 0}},
        {"kind": "nudge", "in": 30, "action": {"type": "inc", "by": 7}},
    ]
    await attempt(duel, BOB, {"type": "schedule", "timers": timers})
    # A deadline fired by the system, as the deadline loop does.
    clock.advance(40)
    for deadline_id, session_id, _due, action in await service.claim_due_deadlines(
        lease_seconds=10, limit=10
    ):
        await attempt(await service.require(session_id), None, action, deadline_id=deadline_id)
    await attempt(table, CAROL, {"type": "leave"})
    await attempt(table, BOB, {"type": "grow", "bytes": 3000})
    await attempt(table, ALICE, {"type": "stop"})
    await attempt(duel, ALICE, {"type": "end", "ranks": [0, 1], "winners": [0], "scores": [9, 4]})
    await attempt(duel, BOB, {"type": "inc", "by": 1})
    seen.append(await service.get(duel.id))
    seen.append(await PublicationStore(database).snapshot(table.id))
    return seen


async def test_a_move_stores_the_same_on_the_fast_and_the_plain_path(
    two_databases: tuple[Database, Database],
) -> None:
    fast, slow = two_databases
    assert await play(fast) == await play(slow)
    fast_tables, plain_tables = await dump(fast), await dump(slow)
    for table in TABLES:
        assert fast_tables[table] == plain_tables[table], table
    assert fast_tables["results"] and fast_tables["ratings"] and fast_tables["season_ratings"]
    assert fast_tables["deadlines"] == []


async def test_a_body_that_waits_for_anything_but_the_database_is_refused(
    db_path: Path,
) -> None:
    """SQLite runs a body in its database thread from start to end: one that awaits
    something else (a sleep, a lock, Discord) cannot run there, and writes nothing."""
    database = SQLiteDatabase(db_path)
    await database.open()
    await database.migrate()

    async def body(conn: Connection) -> None:
        await conn.execute(
            "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (1, '{}', 0)"
        )
        await asyncio.sleep(0)

    try:
        with pytest.raises(RuntimeError, match="awaited something other than its connection"):
            await database.run_transaction(body)
        assert await database.fetch_all("SELECT * FROM guild_settings") == []
    finally:
        await database.close()


# -- one-trip work side by side --------------------------------------------------------------


@pytest.fixture
async def sqlite_db(db_path: Path) -> AsyncIterator[SQLiteDatabase]:
    database = SQLiteDatabase(db_path)
    await database.open()
    await database.migrate()
    try:
        yield database
    finally:
        await database.close()


def _rows_seen_by_another_connection(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(path)) as other:
        return int(other.execute("SELECT count(*) FROM guild_settings").fetchone()[0])


def _rows_seen_within(path: Path, wanted: int, *, seconds: float) -> int:
    """Poll another connection, blocking the calling thread, until it sees ``wanted``
    rows or ``seconds`` pass; returns what it saw last."""
    deadline = time.monotonic() + seconds
    seen = _rows_seen_by_another_connection(path)
    while seen < wanted and time.monotonic() < deadline:
        time.sleep(0.01)
        seen = _rows_seen_by_another_connection(path)
    return seen


async def _insert_guild(conn: Connection, *, guild_id: int) -> None:
    await conn.execute(
        "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, '{}', 0)",
        (guild_id,),
    )


async def test_one_trip_transactions_run_back_to_back_without_waiting_for_the_event_loop(
    sqlite_db: SQLiteDatabase, db_path: Path
) -> None:
    """Twenty moves queued at once all commit while the event loop is busy elsewhere: the
    database thread does not wait for the loop to take each result before the next (that
    wait had capped the moves a second under load)."""
    writes = [
        asyncio.ensure_future(
            sqlite_db.run_transaction(functools.partial(_insert_guild, guild_id=guild_id))
        )
        for guild_id in range(1, 21)
    ]
    await asyncio.sleep(0)  # each is queued in the database thread
    # Called, not awaited: the event loop is busy and takes no result meanwhile.
    assert _rows_seen_within(db_path, 20, seconds=5) == 20
    await asyncio.gather(*writes)


async def test_a_one_trip_transaction_waits_for_an_open_multi_trip_one_and_never_runs_inside_it(
    sqlite_db: SQLiteDatabase, db_path: Path
) -> None:
    write = None
    with pytest.raises(UserError):
        async with sqlite_db.transaction() as conn:
            await _insert_guild(conn, guild_id=1)
            write = asyncio.ensure_future(
                sqlite_db.run_transaction(functools.partial(_insert_guild, guild_id=2))
            )
            await asyncio.sleep(0.1)
            assert not write.done()
            # Still this transaction's own: the one-trip write neither ended it nor ran.
            await _insert_guild(conn, guild_id=3)
            assert _rows_seen_by_another_connection(db_path) == 0
            raise UserError("changed my mind")  # rolls back 1 and 3
    assert write is not None
    await asyncio.wait_for(write, 5)
    rows = await sqlite_db.fetch_all("SELECT guild_id FROM guild_settings ORDER BY guild_id")
    assert [row["guild_id"] for row in rows] == [2]


async def test_a_one_trip_read_waits_for_an_open_read_block_and_keeps_its_snapshot(
    sqlite_db: SQLiteDatabase, db_path: Path
) -> None:
    count = "SELECT count(*) AS n FROM guild_settings"
    async with sqlite_db.read() as conn:
        before = (await conn.fetch_all(count))[0]["n"]
        # Another task's move commits meanwhile (this task may not write inside its read).
        await asyncio.ensure_future(
            sqlite_db.run_transaction(functools.partial(_insert_guild, guild_id=1))
        )
        read = asyncio.ensure_future(sqlite_db.fetch_all(count))
        await asyncio.sleep(0.1)
        assert not read.done()
        # The block's snapshot is still the one it began with.
        assert (await conn.fetch_all(count))[0]["n"] == before == 0
    assert (await asyncio.wait_for(read, 5))[0]["n"] == 1
