"""Storage: one interface (``Database``, ``Connection``), two adapters.

``database_for(settings)`` picks PostgreSQL when ``DATABASE_URL`` is a ``postgresql://``
URL, and otherwise the SQLite file at ``DATABASE_PATH`` (the default that needs no
set-up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.storage.base import Database
from bot.storage.connection import BUSY_TIMEOUT_MS, Connection, Row, StorageUnavailable
from bot.storage.sqlite import SQLiteDatabase, is_unavailable

if TYPE_CHECKING:
    from bot.config import Settings

POSTGRES_SCHEMES = ("postgres", "postgresql")

__all__ = [
    "BUSY_TIMEOUT_MS",
    "Connection",
    "Database",
    "Row",
    "SQLiteDatabase",
    "StorageUnavailable",
    "database_for",
    "is_postgres_url",
    "is_unavailable",
    "open_url",
]


def is_postgres_url(url: str) -> bool:
    scheme = url.split(":", 1)[0].lower()
    return scheme in POSTGRES_SCHEMES


def open_url(url: str, *, pool_size: int | None = None) -> Database:
    """The PostgreSQL adapter for ``url`` (imported only when used)."""
    from bot.storage.postgres import DEFAULT_POOL_SIZE, PostgresDatabase

    return PostgresDatabase(url, pool_size=pool_size or DEFAULT_POOL_SIZE)


def database_for(settings: Settings) -> Database:
    """The database the settings name (not yet opened)."""
    url = settings.database_url.get_secret_value() if settings.database_url else None
    if url:
        return open_url(url, pool_size=settings.database_pool_size)
    return SQLiteDatabase(settings.database_path)
