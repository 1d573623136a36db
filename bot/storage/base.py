"""The storage interface every part of the bot uses, whichever database is behind it.

Two adapters implement it: SQLite (``bot.storage.sqlite``, the embedded default) and
PostgreSQL (``bot.storage.postgres``, for several processes sharing one database). The
SQL the bot writes is portable: ``?`` placeholders (``?1``-style numbered ones too), rows
read by column name or position, ``RETURNING`` for new ids, ``ON CONFLICT`` upserts with
the target table named in ``DO UPDATE``. Where the databases must differ, the code asks
``conn.dialect`` (row locks, schema listing) and the migrations say so per step.

What every adapter guarantees (the README's "Storage guarantees"):
- ``transaction()`` is one atomic write transaction: commit on success, rollback on any
  exception. Reads inside it (``read()`` in the same task) see its own writes.
- ``read()`` runs on a read-only connection as ONE committed snapshot; it never waits for
  a write transaction and never holds one up.
- A database that cannot be used right now (locked past the timeout, unreachable, gone,
  full) raises ``StorageUnavailable``, which players see as "try again"; a mistake in the
  SQL raises as the error it is.
"""

from __future__ import annotations

import functools
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

from bot.storage.connection import (
    Connection,
    Params,
)
from bot.storage.migrations import MIGRATIONS, SCHEMA_MIGRATIONS, Dialect
from bot.storage.move_writes import MoveWrite, write_move

T = TypeVar("T")


class Database(ABC):
    """The storage seam: an adapter opens the database, runs migrations, and hands out
    connections for write transactions and for snapshot reads."""

    dialect: Dialect

    @abstractmethod
    async def open(self) -> None:
        """Connect (creating what is needed), or raise StorageUnavailable saying why."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    def describe(self) -> str:
        """Which database this is, for the log (never a password)."""

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Connection]:
        """One write transaction: commit on success, roll back on any exception."""

    @abstractmethod
    def read(self) -> AbstractAsyncContextManager[Connection]:
        """A read-only block that sees one committed snapshot (or, inside the task's own
        transaction, that transaction). Keep it to database work: never await Discord."""

    async def run_transaction(self, body: Callable[[Connection], Awaitable[T]]) -> T:
        """``await body(conn)`` as one write transaction: committed when it returns, rolled
        back when it raises. The body does database work only: it awaits nothing but
        ``conn`` (no lock, no sleep, no Discord), so an adapter may run it all in one trip
        to the database (SQLite: in its database thread, BEGIN to COMMIT). It may run more
        than once, so it has no effect but through ``conn`` (PostgreSQL tries a move
        without a transaction first, and runs it again in one if it needs to)."""
        async with self.transaction() as conn:
            return await body(conn)

    async def run_read(self, body: Callable[[Connection], Awaitable[T]]) -> T:
        """``await body(conn)`` in one ``read()`` block (one committed snapshot); the same
        rule as ``run_transaction``: the body awaits nothing but ``conn``."""
        async with self.read() as conn:
            return await body(conn)

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Any]:
        async with self.read() as conn:
            return await conn.fetch_all(sql, params)

    async def write(self, sql: str, params: Params = ()) -> int:
        """One statement as its own write transaction (``run_transaction``: one trip where
        the adapter can); returns how many rows it changed."""
        return await self.run_transaction(functools.partial(_execute, sql=sql, params=params))

    async def write_many(self, sql: str, rows: Iterable[Params]) -> None:
        """One statement once per parameter row, all in one write transaction."""
        await self.run_transaction(functools.partial(_execute_many, sql=sql, rows=list(rows)))

    async def write_returning(self, sql: str, params: Params = ()) -> list[Any]:
        """One statement that returns rows (``... RETURNING``) as its own transaction."""
        return await self.run_transaction(functools.partial(_fetch_all, sql=sql, params=params))

    async def fetch_one(self, sql: str, params: Params = ()) -> Any | None:
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None

    async def write_move(self, conn: Connection, write: MoveWrite) -> None:
        """Store one move in the open transaction (its new state with the version check,
        seats, event and deadlines). The seam for storing a move: an adapter may do it its
        own way, e.g. in fewer round trips, with the same effect as
        ``bot.move_writes.write_move``."""
        await write_move(conn, write)

    @abstractmethod
    async def schema(self) -> list[tuple[str, str]]:
        """(name, definition) of every table and index, sorted: to compare schemas."""

    async def _before_migrating(self, conn: Connection) -> None:  # noqa: B027
        """Serialise migrations across processes (SQLite's write lock already does)."""

    async def migrate(self, upto: int | None = None) -> list[int]:
        """Apply the migrations not yet applied, all in one transaction; returns them.
        ``upto`` stops after that version (a database as an older release left it)."""
        async with self.transaction() as conn:
            await self._before_migrating(conn)
            await conn.execute(SCHEMA_MIGRATIONS.for_dialect(self.dialect))
            rows = await conn.fetch_all("SELECT version FROM schema_migrations")
            done = {row[0] for row in rows}
            applied: list[int] = []
            for migration in MIGRATIONS:
                version = migration.version
                if version in done or (upto is not None and version > upto):
                    continue
                for statement in migration.statements(self.dialect):
                    await conn.execute(statement)
                await conn.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    (version, time.time()),
                )
                applied.append(version)
            return applied


# The bodies of ``Database.write`` and its kin (module functions: the SQLite adapter runs
# them in its database thread).


async def _execute(conn: Connection, *, sql: str, params: Params) -> int:
    return await conn.execute(sql, params)


async def _execute_many(conn: Connection, *, sql: str, rows: list[Params]) -> None:
    await conn.execute_many(sql, rows)


async def _fetch_all(conn: Connection, *, sql: str, params: Params) -> list[Any]:
    return await conn.fetch_all(sql, params)
