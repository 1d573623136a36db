"""Fixtures for the foundation tests: real databases, no mocks. ``db`` runs each test on
a fresh SQLite file and on a fresh PostgreSQL schema (see tests/backends.py); tests about
SQLite itself (files, pragmas) use ``db_path`` directly."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

# The helpers module is shared with the crash test's child process, which imports it by
# path; tests import it the same way.
sys.path.insert(0, str(Path(__file__).parent))

from backends import backend_url, database_at
from foundation_support import CounterGame, OpenAnother, make_service

from bot.model.clock import ManualClock
from bot.play.sessions import SessionService
from bot.storage import Database


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "dicebot.db"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def db_url(backend: str, db_path: Path) -> AsyncIterator[str | None]:
    """None on SQLite (the file at ``db_path``), else the test's own PostgreSQL schema."""
    async with backend_url(backend, db_path.parent) as url:
        yield url


@pytest.fixture
async def open_another(db_url: str | None, db_path: Path) -> AsyncIterator[OpenAnother]:
    """Opens another adapter on the same database, as a second process would."""
    opened: list[Database] = []

    async def open_one() -> Database:
        database = database_at(db_url, db_path)
        await database.open()
        opened.append(database)
        return database

    yield open_one
    for database in opened:
        await database.close()


@pytest.fixture
async def db(open_another: OpenAnother) -> Database:
    database = await open_another()
    await database.migrate()
    return database


@pytest.fixture
def game() -> CounterGame:
    return CounterGame()


@pytest.fixture
def service(db: Database, clock: ManualClock, game: CounterGame) -> SessionService:
    return make_service(db, clock, game)
