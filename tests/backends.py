"""The two storage backends for tests: a fresh SQLite file, or a fresh, isolated place on
the PostgreSQL server named by ``TEST_DATABASE_URL``.

Tests from several worktrees run at once against one server, so each test gets its own
schema (``isolated_schema``: a few milliseconds) or, for bot processes, its own database
(``isolated_database``), dropped afterwards. Without ``TEST_DATABASE_URL`` the PostgreSQL
cases are skipped, and the run's summary says so; with ``CI=true`` an unreachable server
fails them instead.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

from bot.storage import Database, SQLiteDatabase, open_url

BACKENDS = ("sqlite", "postgresql")
ENVIRONMENT = "TEST_DATABASE_URL"
SKIP_REASON = "PostgreSQL tests skipped: TEST_DATABASE_URL is not set"

_reachable: dict[str, str | None] = {}


def server_url() -> str | None:
    return os.environ.get(ENVIRONMENT) or None


def with_query(url: str, **values: str) -> str:
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query.update(values)
    return urlunsplit(parts._replace(query=urlencode(query)))


def with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


async def _check(url: str) -> str | None:
    """None if the server answers, else why not."""
    import asyncpg

    try:
        conn = await asyncpg.connect(url, timeout=5)
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    await conn.close()
    return None


def postgres_unavailable() -> str | None:
    """Why the PostgreSQL tests cannot run here (None: they can). On CI they always run
    (and fail when the server is missing)."""
    if os.environ.get("CI") == "true":
        return None
    url = server_url()
    if url is None:
        return f"{ENVIRONMENT} is not set"
    if url not in _reachable:
        _reachable[url] = asyncio.run(_check(url))
    problem = _reachable[url]
    return None if problem is None else f"the server at {ENVIRONMENT} cannot be reached: {problem}"


async def require_server() -> str:
    """The server's URL; skips (or, on CI, fails) the test when there is none."""
    url = server_url()
    if url is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{ENVIRONMENT} is not set: CI runs the PostgreSQL tests")
        pytest.skip(SKIP_REASON)
    if url not in _reachable:
        _reachable[url] = await _check(url)
    problem = _reachable[url]
    if problem is not None:
        message = f"PostgreSQL at {ENVIRONMENT} cannot be reached ({problem})"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return url


async def _admin(url: str, statement: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url, timeout=5)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def _name(prefix: str) -> str:
    return f"{prefix}_{os.getpid()}_{secrets.token_hex(4)}"


@asynccontextmanager
async def isolated_schema() -> AsyncIterator[str]:
    """A URL whose connections work in a new, empty schema of the test database."""
    url = await require_server()
    schema = _name("dicebot_test")
    await _admin(url, f'CREATE SCHEMA "{schema}"')
    try:
        yield with_query(url, search_path=schema)
    finally:
        await _admin(url, f'DROP SCHEMA "{schema}" CASCADE')


@asynccontextmanager
async def isolated_database() -> AsyncIterator[str]:
    """A URL of a new, empty database on the test server (for bot processes)."""
    url = await require_server()
    name = _name("dicebot_test")
    await _admin(url, f'CREATE DATABASE "{name}"')
    try:
        yield with_database(url, name)
    finally:
        await _admin(url, f'DROP DATABASE "{name}" WITH (FORCE)')


@asynccontextmanager
async def backend_url(backend: str, tmp_path: Path) -> AsyncIterator[str | None]:
    """None for SQLite (use a file in ``tmp_path``), else an isolated PostgreSQL URL."""
    if backend == "sqlite":
        yield None
        return
    async with isolated_schema() as url:
        yield url


def database_at(url: str | None, path: Path) -> Database:
    return SQLiteDatabase(path) if url is None else open_url(url, pool_size=4)
