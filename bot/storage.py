"""SQLite through aiosqlite: one write connection, WAL, foreign keys, migrations.

SQLite has one writer at a time, so every write transaction here goes through one
connection under one asyncio lock; ``BEGIN IMMEDIATE`` takes the database's write lock up
front, which also keeps a second process (or a second connection in tests) correct.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite

from bot.migrations import MIGRATIONS

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5_000


class StorageUnavailable(Exception):
    """The database is locked for too long, gone, or unwritable."""


# SQLite's primary result codes that mean "the database cannot be used right now" (busy,
# read-only, I/O error, disk full, damaged file) rather than a mistake in a statement, which
# is also an OperationalError but must surface as the bug it is.
_UNAVAILABLE_CODES = frozenset(
    {
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_CORRUPT,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PROTOCOL,
        sqlite3.SQLITE_NOTADB,
    }
)


def is_unavailable(error: BaseException) -> bool:
    """True for a database error caused by the database's condition, not by our SQL."""
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and (code & 0xFF) in _UNAVAILABLE_CODES


class Database:
    def __init__(self, path: Path | str, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.path = Path(path)
        # How long a write waits for another connection's write lock before giving up.
        self.busy_timeout_ms = busy_timeout_ms
        self._conn: aiosqlite.Connection | None = None
        # (device, inode) of the file we opened: to notice it being deleted or replaced.
        self._file_identity: tuple[int, int] | None = None
        self._write_lock = asyncio.Lock()
        # The task inside transaction() or read(), so its own nested reads do not wait
        # for the lock it holds.
        self._owner: asyncio.Task[object] | None = None

    @property
    def conn(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise StorageUnavailable("the database is not open")
        return self._conn

    async def open(self) -> None:
        """Open the file (creating it and its folder), or raise StorageUnavailable saying
        which path is unusable."""
        if self._conn is not None:
            return
        try:
            if str(self.path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StorageUnavailable(f"cannot open the database {self.path}: {error}") from error
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, so a transaction means
        # exactly what the code says.
        connecting = aiosqlite.connect(self.path, isolation_level=None)
        try:
            conn = await connecting
        except sqlite3.Error as error:
            await _wait_for_worker(connecting)
            raise StorageUnavailable(f"cannot open the database {self.path}: {error}") from error
        try:
            conn.row_factory = aiosqlite.Row
            await conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            await conn.execute("PRAGMA foreign_keys = ON")
        except BaseException as error:
            # The connection owns a non-daemon thread: left open, it keeps the process
            # from ever exiting.
            await conn.close()
            if isinstance(error, sqlite3.Error):
                raise StorageUnavailable(f"cannot use the database {self.path}: {error}") from error
            raise
        self._conn = conn
        self._file_identity = self._current_file_identity()

    def _current_file_identity(self) -> tuple[int, int] | None:
        if str(self.path) == ":memory:":
            return None
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return info.st_dev, info.st_ino

    def _check_file(self) -> None:
        """Refuse to write when the file we opened is no longer at our path: SQLite would
        happily keep writing to the deleted (or moved) file, and every move would be lost
        at the next start."""
        if self._file_identity is None:
            return
        if self._current_file_identity() != self._file_identity:
            raise StorageUnavailable(
                f"the database file {self.path} was deleted or replaced while the bot was "
                "running; nothing more is written to it until the bot restarts"
            )

    async def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            self._file_identity = None
            await conn.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction: commit on success, roll back on any exception."""
        if self._owner is not None and self._owner is asyncio.current_task():
            raise RuntimeError("a transaction cannot start inside another one or a read")
        async with self._write_lock:
            conn = self.conn
            self._check_file()
            try:
                await conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise StorageUnavailable(str(error)) from error
            self._owner = asyncio.current_task()
            try:
                yield conn
            except BaseException as error:
                await _rollback(conn)
                if is_unavailable(error):
                    raise StorageUnavailable(str(error)) from error
                raise
            else:
                try:
                    await conn.execute("COMMIT")
                except aiosqlite.OperationalError as error:
                    await _rollback(conn)
                    raise StorageUnavailable(str(error)) from error
            finally:
                self._owner = None

    @asynccontextmanager
    async def read(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection, for reads that must see committed data only.

        All work shares one connection, so a read running while another task's transaction
        is open would see its uncommitted (maybe about to be rolled back) rows: wait for it
        to finish. Inside the task's own transaction or read, the read goes straight on.
        Keep the body to database work: while it runs, writes wait (never await Discord,
        or tasks that themselves read, inside it).
        """
        if self._owner is not None and self._owner is asyncio.current_task():
            yield self.conn
            return
        async with self._write_lock:
            conn = self.conn
            self._owner = asyncio.current_task()
            try:
                yield conn
            except sqlite3.Error as error:
                if is_unavailable(error):
                    raise StorageUnavailable(str(error)) from error
                raise
            finally:
                self._owner = None

    async def fetch_all(self, sql: str, params: tuple[object, ...] = ()) -> list[aiosqlite.Row]:
        async with self.read() as conn, conn.execute(sql, params) as cursor:
            return list(await cursor.fetchall())

    async def fetch_one(self, sql: str, params: tuple[object, ...] = ()) -> aiosqlite.Row | None:
        async with self.read() as conn, conn.execute(sql, params) as cursor:
            return await cursor.fetchone()

    async def migrate(self, upto: int | None = None) -> list[int]:
        """Apply the migrations not yet applied, all in one transaction; returns them.
        ``upto`` stops after that version (a file as an older release left it)."""
        async with self.transaction() as conn:
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
            )
            async with conn.execute("SELECT version FROM schema_migrations") as cursor:
                done = {row[0] for row in await cursor.fetchall()}
            applied: list[int] = []
            for version, script in MIGRATIONS:
                if version in done or (upto is not None and version > upto):
                    continue
                # executescript would COMMIT on its own; run statement by statement
                # so the whole migration stays inside this transaction.
                for statement in _statements(script):
                    await conn.execute(statement)
                await conn.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    (version, time.time()),
                )
                applied.append(version)
            return applied

    async def schema(self) -> list[tuple[str, str]]:
        rows = await self.fetch_all(
            "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"
        )
        return [(row["name"], row["sql"]) for row in rows]


async def _wait_for_worker(connection: aiosqlite.Connection) -> None:
    # When connecting fails, aiosqlite queues its worker thread's stop without waiting for
    # it; if the loop then closes (the bot exits on this very error) the thread dies with
    # an 'Event loop is closed' traceback on stderr. Let it finish while the loop runs.
    worker = getattr(connection, "_thread", None)
    if isinstance(worker, threading.Thread) and worker.is_alive():
        await asyncio.to_thread(worker.join, 5.0)


async def _rollback(conn: aiosqlite.Connection) -> None:
    # After some errors (disk full, I/O) SQLite has already rolled the transaction back;
    # a second ROLLBACK would fail and hide the error that matters.
    if not conn.in_transaction:
        return
    try:
        await conn.execute("ROLLBACK")
    except sqlite3.Error:
        log.exception("rolling back a failed transaction failed too")


def _statements(script: str) -> list[str]:
    return [part.strip() for part in script.split(";") if part.strip()]
