"""Helpers shared by the hosting tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fakediscord.process import PROJECT

from bot.storage import Database, SQLiteDatabase


def run_healthcheck(database: Path) -> subprocess.CompletedProcess[str]:
    """``python -m bot healthcheck`` as Docker runs it, with no token in the environment."""
    return subprocess.run(
        [sys.executable, "-m", "bot", "healthcheck"],
        cwd=PROJECT,
        env={"DATABASE_PATH": str(database), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
    )


async def migrated_database(path: Path) -> Database:
    """An open database at the current schema; the caller closes it."""
    database = SQLiteDatabase(path)
    await database.open()
    await database.migrate()
    return database
