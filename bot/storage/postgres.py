"""The PostgreSQL adapter, for several bot processes sharing one database.

Driver: asyncpg, because it is asyncio-native with its own connection pool, and is the
fastest Python driver (binary protocol, prepared statements cached per connection).

Two pools of ``pool_size`` connections each. Write transactions take one from the write
pool (READ COMMITTED; ``lock_timeout`` plays the part of SQLite's busy timeout). Reads
take one from the read pool, whose connections are read-only and REPEATABLE READ, so a
read block is one snapshot and can never write; a single query outside a block runs
without BEGIN/COMMIT (one statement is one snapshot). PostgreSQL's MVCC means reads and
writes never wait for each other. Rows locked with ``FOR UPDATE`` make concurrent moves
on one session, from any process, take turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlsplit

import asyncpg

from bot.model.contract import OPEN_STATUSES
from bot.model.errors import SessionChanged
from bot.storage.base import Database
from bot.storage.connection import BUSY_TIMEOUT_MS, Connection, Params, StorageUnavailable
from bot.storage.move_writes import MoveWrite, dumps

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_POOL_SIZE = 10
CONNECT_TIMEOUT_SECONDS = 5.0
# Waiting longer than this for a free pooled connection counts as "unavailable".
ACQUIRE_TIMEOUT_SECONDS = 5.0
CLOSE_TIMEOUT_SECONDS = 5.0

# SQLSTATE classes and codes that mean "the database cannot be used right now" rather
# than a mistake in a statement: connection exceptions (08), insufficient resources such
# as a full disk or too many connections (53), operator intervention such as a shutdown or
# a cancelled query (57), system errors (58), a lock not had within lock_timeout (55P03),
# and a deadlock or serialization failure (40P01, 40001), which a retry resolves.
_UNAVAILABLE_CLASSES = frozenset({"08", "53", "57", "58"})
_UNAVAILABLE_CODES = frozenset({"55P03", "40P01", "40001", "55006"})

_TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\?(\d*)")


def is_unavailable(error: BaseException) -> bool:
    """True for a failure caused by the database's condition or reachability."""
    if isinstance(error, asyncpg.PostgresError):
        code = getattr(error, "sqlstate", None) or ""
        return code[:2] in _UNAVAILABLE_CLASSES or code in _UNAVAILABLE_CODES
    if isinstance(error, asyncpg.InterfaceError):
        # "connection is closed", "pool is closing": not a statement's fault.
        text = str(error)
        return "closed" in text or "closing" in text
    return isinstance(error, OSError | TimeoutError | asyncpg.exceptions.InternalClientError)


@functools.lru_cache(maxsize=2048)
def to_postgres(sql: str) -> str:
    """The portable SQL's ``?`` and ``?N`` placeholders as PostgreSQL's ``$N`` (text in
    quotes is left alone)."""
    counter = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal counter
        text = match.group(0)
        if not text.startswith("?"):
            return text
        if match.group(1):
            return "$" + match.group(1)
        counter += 1
        return f"${counter}"

    return _TOKEN.sub(replace, sql)


# A move's writes as ONE statement (``PostgresDatabase.write_move``): the versioned save,
# and only if it saved, freeing the players of a game that ended, the event row, and the
# session's deadlines replaced. The new deadlines' insert reads the old ones' delete, so
# PostgreSQL runs the delete first (sub-statements of one WITH are otherwise unordered)
# and a kind that comes back does not meet its old row in the unique index. They get
# their ids in list order, as the plain path's one insert each does.
MOVE_STATEMENT = """
WITH moved AS (
    UPDATE sessions SET state = $1, status = $2, version = $3, updated_at = $4
    WHERE id = $5 AND version = $6
    RETURNING id
), freed AS (
    DELETE FROM busy_players
    WHERE session_id = $5 AND $7::boolean AND EXISTS (SELECT 1 FROM moved)
), logged AS (
    INSERT INTO events (session_id, version, actor_id, action, events, created_at)
    SELECT id, $3, $8, $9, $10, $4 FROM moved
), cleared AS (
    DELETE FROM deadlines
    WHERE session_id = $5 AND $11::boolean AND EXISTS (SELECT 1 FROM moved)
    RETURNING id
), scheduled AS (
    INSERT INTO deadlines (session_id, kind, due_at, action)
    SELECT $5, timer.kind, timer.due_at, timer.action
    FROM unnest($12::text[], $13::double precision[], $14::text[])
        WITH ORDINALITY AS timer (kind, due_at, action, position)
    WHERE EXISTS (SELECT 1 FROM moved) AND (SELECT count(*) FROM cleared) >= 0
    ORDER BY timer.position
)
SELECT count(*) FROM moved
"""


def _rowcount(status: str) -> int:
    # asyncpg returns the command tag: "UPDATE 3", "DELETE 0", "INSERT 0 1", "SELECT 2".
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PostgresConnection(Connection):
    dialect = "postgresql"

    def __init__(self, raw: asyncpg.Connection) -> None:
        self.raw = raw

    async def execute(self, sql: str, params: Params = ()) -> int:
        if params:
            status = await self.raw.execute(to_postgres(sql), *params)
        else:
            # Without parameters asyncpg sends the simple protocol: no statement to prepare.
            status = await self.raw.execute(sql)
        return _rowcount(status)

    async def execute_many(self, sql: str, rows: Iterable[Params]) -> None:
        batch = [tuple(row) for row in rows]
        if batch:
            # asyncpg pipelines the rows: one round trip for the whole batch.
            await self.raw.executemany(to_postgres(sql), batch)

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Any]:
        return list(await self.raw.fetch(to_postgres(sql), *params))


class _TakeTheTransaction(Exception):
    """A move tried outside a transaction needs one after all (see ``_Optimistic``)."""


class _Optimistic(PostgresConnection):
    """A connection for a move tried outside a transaction (``run_transaction``): its
    reads run as they come, unlocked, and its one write is ``MOVE_STATEMENT``, whose
    version check makes the move whole by itself. Any other write, a move that changes
    the seats or records a result, or a version that moved since the read, raises
    ``_TakeTheTransaction``: the move then runs again in the locked transaction."""

    @property
    def for_update(self) -> str:
        return ""  # the version check in MOVE_STATEMENT stands in for the row lock

    async def execute(self, sql: str, params: Params = ()) -> int:
        raise _TakeTheTransaction()

    async def execute_many(self, sql: str, rows: Iterable[Params]) -> None:
        raise _TakeTheTransaction()

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Any]:
        if not sql.lstrip().upper().startswith("SELECT"):
            raise _TakeTheTransaction()  # INSERT ... RETURNING and the like
        return await super().fetch_all(sql, params)

    async def save_move(self, params: Params) -> None:
        rows = await super().fetch_all(MOVE_STATEMENT, params)
        if rows[0][0] != 1:
            raise _TakeTheTransaction()  # another process moved first: take turns


def describe_url(url: str) -> str:
    """``PostgreSQL user@host:port/database``: what the URL points at, without a password."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "localhost"
        port = parts.port or 5432
    except ValueError:
        return "PostgreSQL (an unreadable DATABASE_URL)"
    user = f"{parts.username}@" if parts.username else ""
    database = parts.path.lstrip("/") or "(default database)"
    return f"PostgreSQL {user}{host}:{port}/{database}"


class PostgresDatabase(Database):
    dialect = "postgresql"

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = DEFAULT_POOL_SIZE,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        connect_timeout: float = CONNECT_TIMEOUT_SECONDS,
    ) -> None:
        self._url = url
        self.pool_size = pool_size
        self.busy_timeout_ms = busy_timeout_ms
        self.connect_timeout = connect_timeout
        self._writes: asyncpg.Pool | None = None
        self._reads: asyncpg.Pool | None = None
        # The connection of each task inside a transaction or a read block, so its own
        # nested reads use it (and see its uncommitted writes).
        self._transactions: dict[asyncio.Task[Any], PostgresConnection] = {}
        self._readers: dict[asyncio.Task[Any], PostgresConnection] = {}

    def describe(self) -> str:
        return describe_url(self._url)

    async def open(self) -> None:
        if self._writes is not None:
            return
        # A host may name its processes in the URL (?application_name=dicebot-shard0).
        named = "application_name" in dict(parse_qsl(urlsplit(self._url).query))
        common = {} if named else {"application_name": "dicebot"}
        try:
            self._writes = await self._pool({**common, "lock_timeout": f"{self.busy_timeout_ms}"})
            self._reads = await self._pool(
                {
                    **common,
                    "default_transaction_read_only": "on",
                    "default_transaction_isolation": "repeatable read",
                }
            )
        except BaseException as error:
            await self._close_pools()
            if isinstance(error, Exception) and (
                is_unavailable(error) or isinstance(error, asyncpg.PostgresError | ValueError)
            ):
                raise StorageUnavailable(
                    f"cannot open the database {self.describe()}: {error}"
                ) from error
            raise

    async def _pool(self, settings: dict[str, str]) -> asyncpg.Pool:
        pool = await asyncpg.create_pool(
            self._url,
            min_size=1,
            max_size=self.pool_size,
            timeout=self.connect_timeout,
            server_settings=settings,
        )
        assert pool is not None
        return pool

    async def close(self) -> None:
        await self._close_pools()

    async def _close_pools(self) -> None:
        pools = [pool for pool in (self._writes, self._reads) if pool is not None]
        self._writes = self._reads = None
        for pool in pools:
            try:
                await asyncio.wait_for(pool.close(), CLOSE_TIMEOUT_SECONDS)
            except (TimeoutError, asyncpg.PostgresError, OSError):
                pool.terminate()

    def _pool_for(self, pool: asyncpg.Pool | None) -> asyncpg.Pool:
        if pool is None:
            raise StorageUnavailable("the database is not open")
        return pool

    async def _acquire(self, pool: asyncpg.Pool | None) -> asyncpg.Connection:
        try:
            return await self._pool_for(pool).acquire(timeout=ACQUIRE_TIMEOUT_SECONDS)
        except Exception as error:
            if is_unavailable(error):
                raise StorageUnavailable(
                    f"{self.describe()}: {error or 'no free database connection'}"
                ) from error
            raise

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        task = asyncio.current_task()
        assert task is not None
        self._not_inside_a_block()
        pool = self._pool_for(self._writes)
        raw = await self._acquire(pool)
        ended = False
        try:
            transaction = raw.transaction()
            try:
                await transaction.start()
            except Exception as error:
                if is_unavailable(error):
                    raise StorageUnavailable(str(error)) from error
                raise
            conn = PostgresConnection(raw)
            self._transactions[task] = conn
            try:
                yield conn
            except BaseException as error:
                ended = await _rollback(transaction)
                if is_unavailable(error):
                    raise StorageUnavailable(str(error)) from error
                raise
            else:
                try:
                    await transaction.commit()
                    ended = True
                except Exception as error:
                    ended = await _rollback(transaction)
                    if is_unavailable(error) or isinstance(error, asyncpg.PostgresError):
                        # A deferred constraint or a lost connection at COMMIT: nothing
                        # was committed.
                        raise StorageUnavailable(str(error)) from error
                    raise
            finally:
                self._transactions.pop(task, None)
        finally:
            await _release(pool, raw, ended=ended)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Connection]:
        task = asyncio.current_task()
        assert task is not None
        own = self._transactions.get(task) or self._readers.get(task)
        if own is not None:
            yield own
            return
        pool = self._pool_for(self._reads)
        raw = await self._acquire(pool)
        ended = False
        try:
            transaction = raw.transaction(isolation="repeatable_read", readonly=True)
            try:
                await transaction.start()
            except Exception as error:
                if is_unavailable(error):
                    raise StorageUnavailable(str(error)) from error
                raise
            conn = PostgresConnection(raw)
            self._readers[task] = conn
            try:
                yield conn
            except Exception as error:
                if is_unavailable(error):
                    raise StorageUnavailable(str(error)) from error
                raise
            finally:
                self._readers.pop(task, None)
                ended = await _rollback(transaction)  # nothing to keep: ends the snapshot
        finally:
            await _release(pool, raw, ended=ended)

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Any]:
        task = asyncio.current_task()
        own = self._transactions.get(task) or self._readers.get(task)  # type: ignore[arg-type]
        if own is not None:
            return await own.fetch_all(sql, params)
        # One statement is one snapshot: no BEGIN/COMMIT around it (one round trip).
        return await self._outside_a_transaction(
            self._reads, lambda conn: conn.fetch_all(sql, params)
        )

    # A statement on its own is its own transaction on PostgreSQL: a one-statement write
    # needs no BEGIN and COMMIT, each a round trip during which the rows it changed stay
    # locked while the event loop is busy elsewhere (moves on those sessions wait).

    async def write(self, sql: str, params: Params = ()) -> int:
        return await self._write_alone(lambda conn: conn.execute(sql, params))

    async def write_many(self, sql: str, rows: Iterable[Params]) -> None:
        # asyncpg runs the rows as one atomic batch (an implicit transaction).
        batch = list(rows)
        await self._write_alone(lambda conn: conn.execute_many(sql, batch))

    async def write_returning(self, sql: str, params: Params = ()) -> list[Any]:
        return await self._write_alone(lambda conn: conn.fetch_all(sql, params))

    async def run_transaction(self, body: Callable[[Connection], Awaitable[T]]) -> T:
        """A move first without a transaction: its reads, then its one versioned write
        statement (two round trips, no row locked while the event loop is busy between
        them, where BEGIN, the locked read, the write and COMMIT took four). A body that
        needs more (see ``_Optimistic``) runs again in the locked transaction."""
        try:
            return await self._write_alone(lambda conn: body(_Optimistic(conn.raw)))
        except _TakeTheTransaction:
            pass
        return await super().run_transaction(body)

    async def _write_alone(self, work: Callable[[PostgresConnection], Awaitable[T]]) -> T:
        """``work`` on a write connection outside any transaction, not from inside one."""
        self._not_inside_a_block()
        return await self._outside_a_transaction(self._writes, work)

    def _not_inside_a_block(self) -> None:
        task = asyncio.current_task()
        if task in self._transactions or task in self._readers:
            raise RuntimeError("a transaction cannot start inside another one or a read")

    async def _outside_a_transaction(
        self,
        pool: asyncpg.Pool | None,
        work: Callable[[PostgresConnection], Awaitable[T]],
    ) -> T:
        """``work`` (one statement, or reads and one statement) on a connection of ``pool``,
        outside any transaction."""
        chosen = self._pool_for(pool)
        raw = await self._acquire(chosen)
        statement = asyncio.ensure_future(work(PostgresConnection(raw)))
        try:
            return await asyncio.shield(statement)
        except asyncio.CancelledError:
            # Let the one statement finish (milliseconds) rather than cancel it in flight:
            # asyncpg would cancel it on the server through a second connection, which a
            # pool closing at shutdown cuts off, and log that as an unretrieved error.
            await asyncio.wait({statement})
            if not statement.cancelled():
                statement.exception()  # retrieved: the caller was cancelled, that is what counts
            raise
        except Exception as error:
            if is_unavailable(error):
                raise StorageUnavailable(str(error)) from error
            raise
        finally:
            await _release(chosen, raw)

    async def fetch_one(self, sql: str, params: Params = ()) -> Any | None:
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None

    async def write_move(self, conn: Connection, write: MoveWrite) -> None:
        """A move's writes in one round trip (``MOVE_STATEMENT``) where the plain path
        (``bot.storage.move_writes.write_move``) takes one a statement; a move that changes the
        seats takes the plain path. Stores exactly what the plain path stores. A move that
        ends a game takes the transaction: its result is recorded after it, in it."""
        previous, step, now = write.previous, write.step, write.now
        if isinstance(conn, _Optimistic) and (step.seats is not None or step.result is not None):
            raise _TakeTheTransaction()  # more than one statement: they go in one transaction
        if step.seats is not None:
            await super().write_move(conn, write)
            return
        ended = step.status not in OPEN_STATUSES
        timers = [] if ended or step.deadlines is None else step.deadlines
        params = (
            write.state_text,
            step.status,
            previous.version + 1,
            now,
            previous.id,
            previous.version,
            ended,
            write.actor_id,
            dumps(write.action),
            dumps(step.events),
            ended or step.deadlines is not None,
            [timer.kind for timer in timers],
            [float(timer.due_at) for timer in timers],
            [dumps(timer.action) for timer in timers],
        )
        if isinstance(conn, _Optimistic):
            await conn.save_move(params)
            return
        saved = await conn.fetch_value(MOVE_STATEMENT, params)
        if saved != 1:
            raise SessionChanged()

    async def _before_migrating(self, conn: Connection) -> None:
        # Two processes starting at once: the second waits, then finds nothing to do.
        await conn.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema()), 0)")

    async def schema(self) -> list[tuple[str, str]]:
        rows = await self.fetch_all(
            "SELECT table_name AS name,"
            " string_agg(column_name || ' ' || data_type || CASE WHEN is_nullable = 'NO'"
            " THEN ' NOT NULL' ELSE '' END, ', ' ORDER BY ordinal_position) AS definition"
            " FROM information_schema.columns WHERE table_schema = current_schema()"
            " GROUP BY table_name"
            " UNION ALL"
            " SELECT indexname, replace(indexdef, current_schema() || '.', '')"
            " FROM pg_indexes WHERE schemaname = current_schema()"
            " ORDER BY 1"
        )
        return [(row["name"], row["definition"]) for row in rows]


async def _rollback(transaction: Any) -> bool:
    """Roll back; False when that failed (the transaction is left open on the client)."""
    try:
        await transaction.rollback()
    except Exception as error:
        # The connection broke (that is why we roll back): the server has already
        # rolled back, and the pool replaces the connection.
        log.debug("rolling back on a broken connection: %s", error)
        return False
    return True


async def _release(pool: asyncpg.Pool, raw: asyncpg.Connection, *, ended: bool = True) -> None:
    if not ended:
        # A task cancelled inside BEGIN or COMMIT (a shutdown stopping a sweep), or a
        # rollback that failed: the transaction is still open on this connection, whose
        # state is unknown. Closed rather than reset (the pool's reset would log the open
        # transaction as an ERROR); the pool opens a fresh one. (A pool closed meanwhile,
        # at shutdown, has taken the connection back already.)
        with contextlib.suppress(asyncpg.InterfaceError):
            raw.terminate()
    try:
        await pool.release(raw)
    except Exception as error:
        log.debug("releasing a broken connection: %s", error)
        raw.terminate()
