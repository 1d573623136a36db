"""Fixtures for the foundation tests: real SQLite files in a temporary folder, no mocks."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

# The helpers module is shared with the crash test's child process, which imports it by
# path; tests import it the same way.
sys.path.insert(0, str(Path(__file__).parent))

from foundation_support import CounterGame, make_service

from bot.clock import ManualClock
from bot.sessions import SessionService
from bot.storage import Database


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "dicebot.db"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def db(db_path: Path) -> AsyncIterator[Database]:
    database = Database(db_path)
    await database.open()
    await database.migrate()
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
def game() -> CounterGame:
    return CounterGame()


@pytest.fixture
def service(db: Database, clock: ManualClock, game: CounterGame) -> SessionService:
    return make_service(db, clock, game)
