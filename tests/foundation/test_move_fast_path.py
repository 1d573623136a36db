"""The adapters' fast paths for a move (SQLite: the whole transaction in one trip to its
database thread; PostgreSQL: a move's writes in fewer statements) store exactly what the
plain path stores: the same games, played on two fresh databases, one with every fast
path turned off, leave every table the same, row for row."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from backends import backend_url, database_at
from foundation_support import ALICE, BOB, CAROL, CHANNEL, GUILD, CounterGame, seats

from bot.clock import ManualClock
from bot.errors import UserError
from bot.games import Deadline, Session
from bot.guild_settings import GuildSettings
from bot.publication_store import PublicationStore
from bot.sessions import SeedSource, SessionService
from bot.storage import Connection, Database, SQLiteDatabase
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
