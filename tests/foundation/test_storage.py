"""The Database wrapper itself: transactions, isolation of reads, and the clock."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.clock import Clock, ManualClock
from bot.storage import Database


async def count_settings(db: Database) -> int:
    row = await db.fetch_one("SELECT count(*) FROM guild_settings")
    assert row is not None
    return int(row[0])


async def test_a_transaction_commits_on_success_and_rolls_back_on_error(db: Database) -> None:
    async with db.transaction() as conn:
        await conn.execute("INSERT INTO guild_settings VALUES (1, '{}', 0)")
    assert await count_settings(db) == 1
    with pytest.raises(ZeroDivisionError):
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO guild_settings VALUES (2, '{}', 0)")
            _ = 1 / 0
    assert await count_settings(db) == 1


async def test_a_mistake_in_sql_surfaces_as_itself(db: Database) -> None:
    with pytest.raises(Exception, match="no such table") as raised:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO no_such_table VALUES (1)")
    assert type(raised.value).__name__ == "OperationalError"
    # The connection is usable afterwards: no transaction was left open.
    async with db.transaction() as conn:
        await conn.execute("INSERT INTO guild_settings VALUES (3, '{}', 0)")
    assert await count_settings(db) == 1


async def test_inside_its_own_transaction_a_task_reads_its_own_writes(db: Database) -> None:
    async with db.transaction() as conn:
        await conn.execute("INSERT INTO guild_settings VALUES (1, '{}', 0)")
        assert await count_settings(db) == 1
        async with db.read() as same:
            assert same is conn


async def test_other_tasks_read_only_what_is_committed(db: Database) -> None:
    inserted = asyncio.Event()
    release = asyncio.Event()

    async def writer() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO guild_settings VALUES (1, '{}', 0)")
            inserted.set()
            await release.wait()
            raise LookupError("changed my mind")

    task = asyncio.create_task(writer())
    async with asyncio.timeout(5):
        await inserted.wait()
    reader = asyncio.create_task(count_settings(db))
    release.set()
    with pytest.raises(LookupError):
        await task
    assert await reader == 0


async def test_a_nested_transaction_is_refused_instead_of_deadlocking(db: Database) -> None:
    async with db.transaction():
        with pytest.raises(RuntimeError, match="inside another"):
            async with db.transaction():
                pass
    async with db.read():
        with pytest.raises(RuntimeError):
            async with db.transaction():
                pass


async def test_the_manual_clock_moves_only_forward_and_wakes_listeners() -> None:
    clock = ManualClock(start=100.0)
    woken: list[float] = []
    clock.subscribe(lambda: woken.append(clock.now()))
    assert clock.now() == 100.0
    clock.advance(2.5)
    clock.advance(0)
    assert woken == [102.5, 102.5]
    with pytest.raises(ValueError):
        clock.advance(-1)
    assert clock.now() == 102.5


async def test_the_real_clock_is_wall_time() -> None:
    before = time.time()
    now = Clock().now()
    assert before <= now <= time.time()
    Clock().subscribe(lambda: None)
