"""The storage interface itself, on both backends: transactions, isolation of reads, the
clock, and SQL that must mean the same on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.model.clock import Clock, ManualClock
from bot.storage import Database, StorageUnavailable


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
    with pytest.raises(Exception, match=r"no such table|does not exist") as raised:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO no_such_table VALUES (1)")
    assert not isinstance(raised.value, StorageUnavailable)
    expected = {"sqlite": "OperationalError", "postgresql": "UndefinedTableError"}
    assert type(raised.value).__name__ == expected[db.dialect]
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
        before = await conn.fetch_value("SELECT count(*) FROM guild_settings")

        # Another task's write commits in the middle of the read block...
        async def write() -> None:
            async with db.transaction() as writer:
                await writer.execute("INSERT INTO guild_settings VALUES (1, '{}', 0)")

        async with asyncio.timeout(2):
            await asyncio.create_task(write())
        during = await conn.fetch_value("SELECT count(*) FROM guild_settings")
    # ...and the block still sees the state it started from; the next read sees the write.
    assert before == during == 0
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


async def test_ids_times_and_big_snowflakes_round_trip(db: Database) -> None:
    """Discord ids use all 63 bits; times keep their fractions (PostgreSQL's REAL would
    not); new ids come back from RETURNING on both databases."""
    snowflake = 2**63 - 1
    async with db.transaction() as conn:
        first = await conn.fetch_value(
            "INSERT INTO sessions (game, guild_id, channel_id, message_id, status, state,"
            " version, seed, created_by, created_at, updated_at)"
            " VALUES ('counter', ?, ?, ?, 'active', '{}', 0, ?, ?, ?, ?) RETURNING id",
            (snowflake, snowflake - 1, snowflake - 2, 2**62 - 1, snowflake, 1.25e9 + 0.001, 2.5),
        )
        second = await conn.fetch_value(
            "INSERT INTO sessions (game, guild_id, channel_id, status, state, seed,"
            " created_by, created_at, updated_at)"
            " VALUES ('counter', 1, 2, 'active', '{}', 0, 3, 0, 0) RETURNING id"
        )
    assert isinstance(first, int) and second == first + 1
    row = await db.fetch_one("SELECT * FROM sessions WHERE id = ?", (first,))
    assert row is not None
    assert (row["guild_id"], row["channel_id"], row["message_id"]) == (
        snowflake,
        snowflake - 1,
        snowflake - 2,
    )
    assert (row["seed"], row["created_by"]) == (2**62 - 1, snowflake)
    assert row["created_at"] == 1.25e9 + 0.001
    assert row[0] == first and list(row.keys()).index("id") == 0


async def test_numbered_placeholders_and_question_marks_in_text(db: Database) -> None:
    async with db.transaction() as conn:
        changed = await conn.execute(
            "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, '?', ?)",
            (5, 1.0),
        )
        assert changed == 1
    row = await db.fetch_one(
        "SELECT guild_id FROM guild_settings WHERE settings = ?1 AND guild_id = ?2"
        " AND guild_id >= ?2 AND settings <> 'a?b'",
        ("?", 5),
    )
    assert row is not None and row["guild_id"] == 5


async def test_execute_counts_changed_rows(db: Database) -> None:
    async with db.transaction() as conn:
        await conn.execute_many(
            "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, '{}', 0)",
            [(n,) for n in range(1, 6)],
        )
        assert (
            await conn.execute("UPDATE guild_settings SET updated_at = 1 WHERE guild_id > 2") == 3
        )
        assert await conn.execute("DELETE FROM guild_settings WHERE guild_id = 99") == 0
        assert await conn.fetch_value("SELECT count(*) FROM guild_settings") == 5
        assert await conn.fetch_one("SELECT * FROM guild_settings WHERE guild_id = 99") is None
