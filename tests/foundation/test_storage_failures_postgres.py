"""When PostgreSQL cannot be used (a row locked by another process past the lock timeout,
a server that is down or unknown, connections the server cut), callers get
StorageUnavailable ("try again"), nothing is half-written, and the next move works."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import asyncpg.transaction
import pytest
from backends import isolated_schema, with_query
from foundation_support import ALICE, BOB, CounterGame, make_service, new_counter, snapshot

from bot.model.clock import ManualClock
from bot.storage import StorageUnavailable
from bot.storage.postgres import PostgresDatabase, describe_url

pytestmark = pytest.mark.postgres_only


async def opened(url: str, **options: int) -> PostgresDatabase:
    db = PostgresDatabase(url, **options)
    await db.open()
    return db


async def test_a_move_on_a_row_another_process_holds_past_the_lock_timeout_is_refused(
    clock: ManualClock,
) -> None:
    async with isolated_schema() as url:
        db = await opened(url, busy_timeout_ms=200)
        holder = await asyncpg.connect(url)
        try:
            await db.migrate()
            game = CounterGame()
            service = make_service(db, clock, game)
            session = await new_counter(service, ALICE, BOB)
            before = await snapshot(db, session.id)
            holding = holder.transaction()
            await holding.start()
            await holder.execute("SELECT * FROM sessions WHERE id = $1 FOR UPDATE", session.id)
            with pytest.raises(StorageUnavailable, match="lock"):
                await service.act(session.id, ALICE, {"type": "inc", "by": 1})
            # Reads are not held up by the lock.
            assert (await service.require(session.id)).version == 0
            await holding.rollback()
            # The move was worked out (a step is pure: a move tries it unlocked first, see
            # PostgresDatabase.run_transaction) but nothing of it was stored.
            assert await snapshot(db, session.id) == before
            # Once the other process lets go, the same service works again.
            outcome = await service.act(session.id, ALICE, {"type": "inc", "by": 1})
            assert outcome.session.version == 1
        finally:
            await holder.close()
            await db.close()


async def test_a_server_that_is_down_is_reported_without_the_password() -> None:
    url = "postgresql://dicebot:s3cret-pw@127.0.0.1:1/dicebot"
    db = PostgresDatabase(url, connect_timeout=2)
    with pytest.raises(StorageUnavailable) as refused:
        await db.open()
    assert "127.0.0.1:1" in str(refused.value)
    assert "s3cret-pw" not in str(refused.value)
    assert "s3cret-pw" not in describe_url(url)
    with pytest.raises(StorageUnavailable):
        await db.fetch_all("SELECT 1")


async def test_an_unknown_database_is_reported() -> None:
    async with isolated_schema() as url:
        missing = url.replace("/test?", "/no_such_database_here?")
        with pytest.raises(StorageUnavailable, match="no_such_database_here"):
            await PostgresDatabase(missing, connect_timeout=2).open()


async def test_connections_the_server_cuts_give_try_again_and_then_work(
    clock: ManualClock,
) -> None:
    async with isolated_schema() as base:
        name = base.rsplit("=", 1)[-1]
        url = with_query(base, application_name=name)
        db = await opened(url)
        admin = await asyncpg.connect(base)
        try:
            await db.migrate()
            game = CounterGame()
            service = make_service(db, clock, game)
            session = await new_counter(service, ALICE, BOB)
            await service.require(session.id)
            # The server ends every connection of this bot (a restart, an admin, a proxy).
            cut = await admin.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE application_name = $1",
                name,
            )
            assert cut >= 2
            applied = 0
            for _ in range(4):
                try:
                    await service.act(session.id, ALICE, {"type": "inc", "by": 1})
                    applied += 1
                except StorageUnavailable:
                    pass  # "try again": the pool replaces the connection
            assert applied >= 3
            stored = await service.require(session.id)
            assert (stored.version, stored.state) == (applied, {"n": applied})
        finally:
            await admin.close()
            await db.close()


@pytest.mark.parametrize("where", ["transaction", "read"])
async def test_a_task_cancelled_inside_begin_leaves_no_open_transaction_behind(
    monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A shutdown cancels a sweep while its BEGIN is in flight: the connection is closed
    rather than handed back with the transaction open (which asyncpg's pool reports as
    an ERROR when it resets it), and the next transaction works."""

    class CancelledInBegin(asyncpg.transaction.Transaction):  # type: ignore[misc]
        async def start(self) -> None:
            await super().start()
            raise asyncio.CancelledError  # struck before the BEGIN's answer was seen

    def cancelled_transaction(
        self: asyncpg.Connection,
        *,
        isolation: str | None = None,
        readonly: bool = False,
        deferrable: bool = False,
    ) -> Any:
        return CancelledInBegin(self, isolation, readonly, deferrable)

    async with isolated_schema() as url:
        db = await opened(url)
        try:
            await db.migrate()
            with monkeypatch.context() as patched:
                patched.setattr(asyncpg.Connection, "transaction", cancelled_transaction)

                async def use() -> None:
                    block = db.transaction() if where == "transaction" else db.read()
                    async with block as conn:
                        await conn.fetch_all("SELECT 1")

                with pytest.raises(asyncio.CancelledError):
                    await asyncio.create_task(use())
            async with db.transaction() as conn:
                assert await conn.fetch_value("SELECT COUNT(*) FROM sessions") == 0
        finally:
            await db.close()


async def test_a_one_statement_write_on_a_row_held_past_the_lock_timeout_is_refused() -> None:
    """The publisher's one-statement writes (``Database.write``) run without BEGIN and
    COMMIT on PostgreSQL: still refused with try-again on a held row, still whole, and
    they hold nothing afterwards."""
    async with isolated_schema() as url:
        db = await opened(url, busy_timeout_ms=200)
        holder = await asyncpg.connect(url)
        try:
            await db.migrate()
            await db.write(
                "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, ?, ?)",
                (1, "{}", 0.0),
            )
            holding = holder.transaction()
            await holding.start()
            await holder.execute("SELECT * FROM guild_settings WHERE guild_id = 1 FOR UPDATE")
            with pytest.raises(StorageUnavailable, match="lock"):
                await db.write("UPDATE guild_settings SET updated_at = 5 WHERE guild_id = 1")
            await holding.rollback()
            # Rows of a batch all land, or none: the second row breaks the primary key.
            with pytest.raises(asyncpg.UniqueViolationError):
                await db.write_many(
                    "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, ?, ?)",
                    [(2, "{}", 0.0), (1, "{}", 0.0)],
                )

            def no_transaction(*args: Any, **kwargs: Any) -> Any:
                raise AssertionError("a one-statement write opened a transaction")

            with pytest.MonkeyPatch.context() as patched:
                # One round trip: no BEGIN before the statement, no COMMIT after it.
                patched.setattr(asyncpg.Connection, "transaction", no_transaction)
                rows = await db.write_returning(
                    "UPDATE guild_settings SET updated_at = 7 WHERE guild_id = 1 RETURNING guild_id"
                )
            assert [row["guild_id"] for row in rows] == [1]
            # Nothing left locked or open: another connection updates the row at once.
            await holder.execute("SET lock_timeout = '200ms'")
            await holder.execute("UPDATE guild_settings SET updated_at = 8 WHERE guild_id = 1")
            assert await holder.fetchval("SELECT count(*) FROM guild_settings") == 1
            async with db.transaction():
                with pytest.raises(RuntimeError, match="inside another one"):
                    await db.write("DELETE FROM guild_settings")
        finally:
            await holder.close()
            await db.close()
