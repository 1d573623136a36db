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


async def test_a_read_does_not_wait_for_an_open_write(db: Database) -> None:
    async with db.transaction() as conn:
        await conn.execute("INSERT INTO guild_settings VALUES (1, '{}', 0)")
        # Another task reads while this transaction is open: at once, and without the
        # uncommitted row.
        async with asyncio.timeout(2):
            assert await asyncio.create_task(count_settings(db)) == 0
    assert await count_settings(db) == 1


async def test_a_read_block_is_one_snapshot(db: Database) -> None:
    async with db.read() as conn:
        async with conn.execute("SELECT count(*) FROM guild_settings") as cursor:
            before = await cursor.fetchone()

        # Another task's write commits in the middle of the read block...
        async def write() -> None:
            async with db.transaction() as writer:
                await writer.execute("INSERT INTO guild_settings VALUES (1, '{}', 0)")

        async with asyncio.timeout(2):
            await asyncio.create_task(write())
        async with conn.execute("SELECT count(*) FROM guild_settings") as cursor:
            during = await cursor.fetchone()
    # ...and the block still sees the state it started from; the next read sees the write.
    assert before is not None and during is not None and before[0] == during[0] == 0
    assert await count_settings(db) == 1


async def test_reads_never_write(db: Database) -> None:
    with pytest.raises(Exception, match=r"readonly|read-only|query_only"):
        async with db.read() as conn:
            await conn.execute("INSERT INTO guild_settings VALUES (9, '{}', 0)")
    assert await count_settings(db) == 0


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
