"""The SQLite adapter (aiosqlite): a write connection and a read connection, WAL.

SQLite has one writer at a time, so every write transaction here goes through one
connection under one asyncio lock; ``BEGIN IMMEDIATE`` takes the database's write lock up
front, which also keeps a second process (or a second connection in tests) correct.
Reads outside a transaction go through a second connection: in WAL mode a reader sees the
last commit and never waits for a writer, so a leaderboard query or a board refresh does
not hold up moves, and a move does not hold up them.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import os
import sqlite3
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import aiosqlite

from bot.storage.base import Database
from bot.storage.connection import BUSY_TIMEOUT_MS, Connection, Params, StorageUnavailable

T = TypeVar("T")

log = logging.getLogger(__name__)


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


def schema_version_of(connection: sqlite3.Connection) -> int | None:
    """The newest migration applied to a SQLite file opened with ``sqlite3`` (a backup's
    copy); None for a file the bot never started on."""
    try:
        row = connection.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    except sqlite3.OperationalError:
        return None  # not a dicebot database yet (never started)
    return None if row is None else row[0]


def is_unavailable(error: BaseException) -> bool:
    """True for a database error caused by the database's condition, not by our SQL."""
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and (code & 0xFF) in _UNAVAILABLE_CODES


@contextmanager
def _unavailable_as_storage_error() -> Iterator[None]:
    """A database that cannot be used (locked, gone, full) becomes StorageUnavailable; a
    mistake in the SQL stays the error it is."""
    try:
        yield
    except sqlite3.Error as error:
        if is_unavailable(error):
            raise StorageUnavailable(str(error)) from error
        raise


class SQLiteConnection(Connection):
    """An aiosqlite connection behind the storage interface."""

    dialect = "sqlite"

    def __init__(self, raw: aiosqlite.Connection) -> None:
        self.raw = raw

    async def execute(self, sql: str, params: Params = ()) -> int:
        cursor = await self.raw.execute(sql, tuple(params))
        return cursor.rowcount

    async def execute_many(self, sql: str, rows: Iterable[Params]) -> None:
        await self.raw.executemany(sql, [tuple(row) for row in rows])

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Any]:
        # execute_fetchall: one trip to the database thread per query instead of three
        # (execute, fetch, close).
        return list(await self.raw.execute_fetchall(sql, tuple(params)))


class InlineSQLiteConnection(Connection):
    """The raw sqlite3 connection, used from aiosqlite's database thread itself: every
    method finishes without suspending, so a body written against ``Connection`` runs
    there from start to end as one trip (see ``run_inline``)."""

    dialect = "sqlite"

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw

    async def execute(self, sql: str, params: Params = ()) -> int:
        return self.raw.execute(sql, tuple(params)).rowcount

    async def execute_many(self, sql: str, rows: Iterable[Params]) -> None:
        self.raw.executemany(sql, [tuple(row) for row in rows])

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Any]:
        return self.raw.execute(sql, tuple(params)).fetchall()


def run_inline(awaitable: Awaitable[T]) -> T:
    """Run a coroutine that never suspends (it awaits only an ``InlineSQLiteConnection``)
    to its end, here and now; one that tries to wait for anything else is an error."""
    steps = awaitable.__await__()
    try:
        steps.send(None)
    except StopIteration as done:
        return cast(T, done.value)
    steps.close()
    raise RuntimeError("a database body awaited something other than its connection")


def _transaction_in_thread(
    raw: sqlite3.Connection, body: Callable[[Connection], Awaitable[T]]
) -> T:
    """BEGIN IMMEDIATE, the body, COMMIT (or ROLLBACK): a whole transaction in the database
    thread. It always ends the transaction it began, whatever happens to the caller."""
    if raw.in_transaction:
        log.debug("ending a transaction left open by a cancelled task")
        raw.execute("ROLLBACK")
    try:
        raw.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as error:
        raise StorageUnavailable(str(error)) from error
    try:
        result = run_inline(body(InlineSQLiteConnection(raw)))
    except BaseException as error:
        _rollback_inline(raw)
        if is_unavailable(error):
            raise StorageUnavailable(str(error)) from error
        raise
    try:
        raw.execute("COMMIT")
    except sqlite3.OperationalError as error:
        _rollback_inline(raw)
        raise StorageUnavailable(str(error)) from error
    return result


def _read_in_thread(raw: sqlite3.Connection, body: Callable[[Connection], Awaitable[T]]) -> T:
    """BEGIN, the body's reads (one snapshot), ROLLBACK: a whole read in the database thread."""
    if raw.in_transaction:
        raw.execute("ROLLBACK")
    try:
        raw.execute("BEGIN")
    except sqlite3.Error as error:
        raise StorageUnavailable(str(error)) from error
    try:
        with _unavailable_as_storage_error():
            return run_inline(body(InlineSQLiteConnection(raw)))
    finally:
        _rollback_inline(raw)  # nothing to keep: ends the snapshot


async def _fetch_all(conn: Connection, *, sql: str, params: Params) -> list[Any]:
    return await conn.fetch_all(sql, params)


def _rollback_inline(raw: sqlite3.Connection) -> None:
    # As ``_rollback``: SQLite may have rolled back already (disk full, I/O error).
    if not raw.in_transaction:
        return
    try:
        raw.execute("ROLLBACK")
    except sqlite3.Error:
        log.exception("rolling back a failed transaction failed too")


async def _until_free(lock: asyncio.Lock) -> None:
    """Return once ``lock`` is free, without holding it (one-trip work only waits for a
    multi-trip block to end; it does not take the lock itself)."""
    while lock.locked():
        async with lock:
            pass


async def _one_trip(conn: aiosqlite.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """``work(raw)`` in the connection's database thread: one trip, however many statements.
    aiosqlite runs every call it queues this way; ``_execute`` and ``_conn`` are its own
    (private) names for that, pinned with aiosqlite in the lock files and covered by the
    storage tests on every run.

    The work runs in the caller's context variables (a copy): a game's step raises its
    refusals in the player's language (bot/i18n.py), as it would on the event loop."""
    context = contextvars.copy_context()
    return await conn._execute(lambda: context.run(work, conn._conn))  # type: ignore[no-any-return]


class SQLiteDatabase(Database):
    dialect = "sqlite"

    def __init__(self, path: Path | str, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.path = Path(path)
        # How long a write waits for another connection's write lock before giving up.
        self.busy_timeout_ms = busy_timeout_ms
        self._conn: aiosqlite.Connection | None = None
        # The read connection. A second connection to ":memory:" would be another, empty
        # database: there reads share the write connection and its lock.
        self._path_text = os.fspath(self.path)
        self._in_memory = self._path_text == ":memory:"
        self._reader: aiosqlite.Connection | None = None
        self._read_lock = asyncio.Lock()
        self._read_owner: asyncio.Task[object] | None = None
        # (device, inode) of the file we opened: to notice it being deleted or replaced.
        self._file_identity: tuple[int, int] | None = None
        self._write_lock = asyncio.Lock()
        self._wrappers: dict[int, SQLiteConnection] = {}
        # The task inside transaction() (or a read on the write connection), so its own
        # nested reads see its uncommitted writes and do not wait for the lock it holds.
        self._owner: asyncio.Task[object] | None = None

    def describe(self) -> str:
        return "SQLite :memory:" if self._in_memory else f"SQLite {self.path.resolve()}"

    @property
    def conn(self) -> aiosqlite.Connection:
        """The raw write connection (tests set SQLite pragmas on it)."""
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
        conn = await self._connect(
            "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON"
        )
        if not self._in_memory:
            try:
                # query_only: a read that tried to write would fail loudly, not race the
                # write connection.
                self._reader = await self._connect(
                    "PRAGMA query_only = ON", "PRAGMA foreign_keys = ON"
                )
            except BaseException:
                await conn.close()
                raise
        self._conn = conn
        self._file_identity = self._current_file_identity()

    async def _connect(self, *pragmas: str) -> aiosqlite.Connection:
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
            for pragma in pragmas:
                await conn.execute(pragma)
        except BaseException as error:
            # The connection owns a non-daemon thread: left open, it keeps the process
            # from ever exiting.
            await conn.close()
            if isinstance(error, sqlite3.Error):
                raise StorageUnavailable(f"cannot use the database {self.path}: {error}") from error
            raise
        return conn

    def _current_file_identity(self) -> tuple[int, int] | None:
        if self._in_memory:
            return None
        try:
            # The path as text: os.stat converts a Path on every call (1.7 -> 4.9 us), and
            # this runs before every write transaction.
            info = os.stat(self._path_text)
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
        if self._reader is not None:
            reader, self._reader = self._reader, None
            await reader.close()
        if self._conn is not None:
            conn, self._conn = self._conn, None
            self._file_identity = None
            await conn.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        """One write transaction: commit on success, roll back on any exception."""
        current = asyncio.current_task()
        if current is not None and current in (self._owner, self._read_owner):
            raise RuntimeError("a transaction cannot start inside another one or a read")
        async with self._write_lock:
            conn = self.conn
            self._check_file()
            try:
                await _begin(conn, "BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise StorageUnavailable(str(error)) from error
            self._owner = asyncio.current_task()
            try:
                yield self._wrapped(conn)
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

    async def run_transaction(self, body: Callable[[Connection], Awaitable[T]]) -> T:
        """The whole transaction in one trip to the database thread (see the base class):
        BEGIN IMMEDIATE, the body, COMMIT, where ``transaction()`` takes a trip a statement.
        If the caller is cancelled meanwhile, the trip still ends the transaction: the
        body's writes are then committed or rolled back as a whole."""
        current = asyncio.current_task()
        if current is not None and current in (self._owner, self._read_owner):
            raise RuntimeError("a transaction cannot start inside another one or a read")
        # A one-trip transaction does not hold the write lock while it runs: the database
        # thread runs its queue in order, so many may wait there and run back to back. (Held
        # until the event loop took each result, the lock had capped the moves per second.)
        # It only must not be queued while a multi-trip transaction (``transaction()``, or
        # a read sharing ":memory:") is open on the connection: it would run inside it.
        await _until_free(self._write_lock)
        conn = self.conn
        self._check_file()
        # No await before the work is queued (``_one_trip`` queues it before it first
        # suspends), so no multi-trip transaction can open in between.
        return await _one_trip(conn, functools.partial(_transaction_in_thread, body=body))

    async def run_read(self, body: Callable[[Connection], Awaitable[T]]) -> T:
        """The whole read block in one trip to the read connection's thread."""
        current = asyncio.current_task()
        if self._in_memory or (current is not None and current in (self._owner, self._read_owner)):
            return await super().run_read(body)
        # As ``run_transaction``: one-trip reads queue in the read connection's thread
        # without the lock, and only wait while a multi-trip ``read()`` is open.
        await _until_free(self._read_lock)
        reader = self._open_reader()
        return await _one_trip(reader, functools.partial(_read_in_thread, body=body))

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Any]:
        # One trip (BEGIN, the query, ROLLBACK in the reader's thread), not three.
        return await self.run_read(functools.partial(_fetch_all, sql=sql, params=params))

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Connection]:
        """A connection for reads that see committed data only, as one consistent snapshot
        (every statement in the block sees the same commit).

        Inside the task's own transaction the read uses that transaction (it sees its own
        writes); inside the task's own read it goes straight on. Otherwise it runs on the
        read connection, one block at a time, while writes go on beside it. Keep the body
        to database work (never await Discord in it): other reads wait while it runs.
        """
        current = asyncio.current_task()
        if self._owner is not None and self._owner is current:
            yield self._wrapped(self.conn)
            return
        if self._in_memory:
            async with self._shared_read() as conn:
                yield conn
            return
        if self._read_owner is not None and self._read_owner is current:
            yield self._wrapped(self._open_reader())
            return
        async with self._read_lock:
            reader = self._open_reader()
            try:
                await _begin(reader, "BEGIN")
            except sqlite3.Error as error:
                raise StorageUnavailable(str(error)) from error
            self._read_owner = current
            try:
                with _unavailable_as_storage_error():
                    yield self._wrapped(reader)
            finally:
                self._read_owner = None
                await _rollback(reader)  # nothing to keep: ends the snapshot

    def _wrapped(self, raw: aiosqlite.Connection) -> SQLiteConnection:
        # One wrapper per raw connection: a read inside a transaction gets the very
        # connection object the transaction has.
        wrapper = self._wrappers.get(id(raw))
        if wrapper is None or wrapper.raw is not raw:
            wrapper = SQLiteConnection(raw)
            self._wrappers[id(raw)] = wrapper
        return wrapper

    def _open_reader(self) -> aiosqlite.Connection:
        if self._reader is None:
            raise StorageUnavailable("the database is not open")
        return self._reader

    @asynccontextmanager
    async def _shared_read(self) -> AsyncIterator[Connection]:
        # One connection for everything (":memory:"): a read while another task's
        # transaction is open would see its uncommitted rows, so wait for it to finish.
        async with self._write_lock:
            conn = self.conn
            self._owner = asyncio.current_task()
            try:
                with _unavailable_as_storage_error():
                    yield self._wrapped(conn)
            finally:
                self._owner = None

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


async def _begin(conn: aiosqlite.Connection, statement: str) -> None:
    """Start a transaction. A task cancelled while its BEGIN waited in aiosqlite's queue
    leaves that BEGIN to run anyway, after the task has gone: the connection then sits in
    a transaction nobody ends (on the write connection, holding the write lock). The
    next BEGIN finds it, ends it and starts afresh (nothing was written in it)."""
    try:
        await conn.execute(statement)
    except sqlite3.OperationalError as error:
        if "within a transaction" not in str(error):
            raise
        log.debug("ending a transaction left open by a cancelled task")
        await conn.execute("ROLLBACK")
        await conn.execute(statement)


async def _rollback(conn: aiosqlite.Connection) -> None:
    # After some errors (disk full, I/O) SQLite has already rolled the transaction back;
    # a second ROLLBACK would fail and hide the error that matters.
    if not conn.in_transaction:
        return
    try:
        await conn.execute("ROLLBACK")
    except sqlite3.Error:
        log.exception("rolling back a failed transaction failed too")
