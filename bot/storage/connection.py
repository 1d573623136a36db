"""The storage's lowest part: a connection, a row, and the one error every adapter raises
when the database cannot be used. Everything in ``bot.storage`` builds on it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

# Raised by both adapters; defined with the model's errors so that every layer (the cogs
# too, which never import storage) can tell a database outage from a bug.
from bot.model.errors import StorageUnavailable as StorageUnavailable
from bot.storage.migrations import Dialect

# How long a write waits for another connection's lock before giving up (both adapters).
BUSY_TIMEOUT_MS = 5_000

Params = Sequence[Any]


class Row(Protocol):
    """A result row: by column name or by position (aiosqlite.Row and asyncpg.Record)."""

    def __getitem__(self, key: str | int) -> Any: ...

    def keys(self) -> Iterable[str]: ...

    def __iter__(self) -> Any: ...

    def __len__(self) -> int: ...


class Connection(ABC):
    """A connection inside a transaction or a read block."""

    dialect: Dialect

    @abstractmethod
    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; returns how many rows it changed."""

    @abstractmethod
    async def execute_many(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement once per parameter row."""

    @abstractmethod
    async def fetch_all(self, sql: str, params: Params = ()) -> list[Any]:
        """Rows of one query (each a ``Row``)."""

    async def fetch_one(self, sql: str, params: Params = ()) -> Any | None:
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None

    async def fetch_value(self, sql: str, params: Params = ()) -> Any:
        """The first column of the first row (None without rows)."""
        row = await self.fetch_one(sql, params)
        return None if row is None else row[0]

    @property
    def for_update(self) -> str:
        """Appended to a SELECT that reads a row the transaction will change: on PostgreSQL
        it locks the row, so concurrent moves on one session (from any process) take turns
        instead of one failing its version check; SQLite's write lock already serialises."""
        return " FOR UPDATE" if self.dialect == "postgresql" else ""
