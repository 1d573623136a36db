"""When the SQLite database is locked, gone or unwritable, callers get StorageUnavailable
with a clear message, and nothing is half-written. (PostgreSQL's own failures:
test_storage_failures_postgres.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from foundation_support import ALICE, BOB, CounterGame, make_service, new_counter, snapshot

from bot.model.clock import ManualClock
from bot.storage import BUSY_TIMEOUT_MS, Database, SQLiteDatabase, StorageUnavailable


@contextlib.contextmanager
def write_lock_held(path: Path) -> Iterator[None]:
    """Another connection (think: a second bot process) holds a write transaction."""
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("UPDATE sessions SET updated_at = updated_at")
        yield
        holder.execute("ROLLBACK")
    finally:
        holder.close()


async def test_the_default_busy_timeout_is_unchanged(db_path: Path) -> None:
    db = SQLiteDatabase(db_path)
    await db.open()
    try:
        row = await db.fetch_one("PRAGMA busy_timeout")
        assert row is not None and row[0] == BUSY_TIMEOUT_MS == 5_000
    finally:
        await db.close()


@pytest.mark.sqlite_only
async def test_a_move_while_another_connection_holds_the_lock_is_refused_cleanly(
    db: Database, db_path: Path, clock: ManualClock
) -> None:
    session = await new_counter(make_service(db, clock, CounterGame()), ALICE, BOB)
    impatient = SQLiteDatabase(db_path, busy_timeout_ms=150)
    await impatient.open()
    try:
        game = CounterGame()
        service = make_service(impatient, clock, game)
        before = await snapshot(impatient, session.id)
        with write_lock_held(db_path):
            started = time.monotonic()
            with pytest.raises(StorageUnavailable) as refused:
                await service.act(session.id, ALICE, {"type": "inc", "by": 1})
            waited = time.monotonic() - started
            # Readers are not blocked by a writer in WAL mode.
            assert (await service.require(session.id)).version == 0
        assert "locked" in str(refused.value)
        assert 0.1 <= waited < 3.0
        assert game.steps_seen == 0
        assert await snapshot(impatient, session.id) == before
        # Once the other writer is done, the same service works again.
        outcome = await service.act(session.id, ALICE, {"type": "inc", "by": 1})
        assert outcome.session.version == 1
    finally:
        await impatient.close()


@pytest.mark.sqlite_only
async def test_creating_a_session_while_locked_is_refused_cleanly(
    db: Database, db_path: Path, clock: ManualClock
) -> None:
    impatient = SQLiteDatabase(db_path, busy_timeout_ms=100)
    await impatient.open()
    try:
        service = make_service(impatient, clock, CounterGame())
        with write_lock_held(db_path), pytest.raises(StorageUnavailable):
            await new_counter(service, ALICE, BOB)
        assert await service.open_sessions() == []
    finally:
        await impatient.close()


@pytest.mark.sqlite_only
async def test_a_deleted_database_file_is_reported_not_silently_written(
    db: Database, db_path: Path, clock: ManualClock
) -> None:
    service = make_service(db, clock, CounterGame())
    session = await new_counter(service, ALICE, BOB)
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{db_path}{suffix}")
    # Writing now would go to a file nobody can ever open again: every move lost.
    with pytest.raises(StorageUnavailable) as refused:
        await service.act(session.id, ALICE, {"type": "inc", "by": 1})
    assert str(db_path) in str(refused.value)
    # ...and no new, empty database appeared in its place either.
    assert not await asyncio.to_thread(db_path.exists)


@pytest.mark.sqlite_only
async def test_a_replaced_database_file_is_reported(
    db: Database, db_path: Path, clock: ManualClock
) -> None:
    service = make_service(db, clock, CounterGame())
    session = await new_counter(service, ALICE, BOB)
    os.replace(db_path, db_path.with_suffix(".moved"))
    with contextlib.closing(sqlite3.connect(db_path)):
        pass
    with pytest.raises(StorageUnavailable):
        await service.act(session.id, ALICE, {"type": "inc", "by": 1})


async def test_a_database_path_under_a_file_gives_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    db = SQLiteDatabase(blocker / "dicebot.db")
    with pytest.raises(StorageUnavailable) as refused:
        await db.open()
    assert str(blocker / "dicebot.db") in str(refused.value)
    # Nothing was left open: a later open of a good path still works.
    with pytest.raises(StorageUnavailable):
        _ = db.conn


async def test_a_folder_as_the_database_path_gives_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    db = SQLiteDatabase(folder)
    with pytest.raises(StorageUnavailable) as refused:
        await db.open()
    assert str(folder) in str(refused.value)


async def test_a_file_that_is_not_a_database_gives_a_clear_error(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not an SQLite database, just some text" * 100)
    db = SQLiteDatabase(garbage)
    with pytest.raises(StorageUnavailable):
        await db.open()
        await db.migrate()
    await db.close()


async def test_using_a_closed_database_is_storage_unavailable(db_path: Path) -> None:
    db = SQLiteDatabase(db_path)
    with pytest.raises(StorageUnavailable):
        async with db.transaction():
            pass
    await db.open()
    await db.close()
    with pytest.raises(StorageUnavailable):
        await db.fetch_all("SELECT 1")


@pytest.mark.sqlite_only
async def test_a_full_disk_in_the_middle_of_a_move_rolls_it_back(
    db: Database, clock: ManualClock
) -> None:
    game = CounterGame()
    service = make_service(db, clock, game)
    session = await new_counter(service, ALICE, BOB)
    before = await snapshot(db, session.id)
    pages = await db.fetch_one("PRAGMA page_count")
    assert pages is not None
    # The file may not grow any more: the next big write fails with SQLITE_FULL.
    await db.conn.execute(f"PRAGMA max_page_count = {pages[0]}")
    with pytest.raises(StorageUnavailable) as refused:
        await service.act(session.id, ALICE, {"type": "grow", "bytes": 200_000})
    assert "full" in str(refused.value)
    assert game.steps_seen == 1
    assert await snapshot(db, session.id) == before
    # Small moves still fit, and the connection is not stuck inside a transaction.
    outcome = await service.act(session.id, ALICE, {"type": "inc", "by": 1})
    assert outcome.session.version == 1
