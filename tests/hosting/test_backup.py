"""``python -m bot backup``: a backup taken during a write burst restores to a consistent
database equal to the source as of one commit; refusals say why in one line."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from fakediscord.process import PROJECT
from hosting_support import migrated_database

from bot.storage import Database, SQLiteDatabase
from bot.storage.migrations import MIGRATIONS

LATEST_SCHEMA = max(version for version, _ in MIGRATIONS)
PADDING = "x" * 2_000  # a few MB in all, so the copy takes a while under the burst


def backup_env(**settings: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD", "LOG_"))
    }
    env.update(settings)
    return env


async def run_backup(*args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "backup",
        *args,
        cwd=PROJECT,
        env=backup_env(**settings),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return subprocess.CompletedProcess(
        [], process.returncode, out.decode(errors="replace"), err.decode(errors="replace")
    )


async def write_game(db: Database, number: int) -> None:
    """One transaction: a session and its three events; version = number of events."""
    async with db.transaction() as conn:
        session_id = await conn.fetch_value(
            "INSERT INTO sessions (game, guild_id, channel_id, status, state, version, seed,"
            " created_by, created_at, updated_at)"
            " VALUES ('knucklebones', 1, 2, 'active', ?, 0, ?, 3, ?, ?) RETURNING id",
            (json.dumps({"n": number, "pad": PADDING}), number, number, number),
        )
        for version in (1, 2, 3):
            await conn.execute(
                "INSERT INTO events (session_id, version, actor_id, action, events, created_at)"
                " VALUES (?, ?, 3, '{}', '[]', ?)",
                (session_id, version, number),
            )
        await conn.execute("UPDATE sessions SET version = 3 WHERE id = ?", (session_id,))


def snapshot(path: Path, up_to: int | None = None) -> tuple[list[tuple], list[tuple]]:
    connection = sqlite3.connect(path)
    try:
        limit = up_to if up_to is not None else 2**62
        sessions = connection.execute(
            "SELECT id, version, state FROM sessions WHERE id <= ? ORDER BY id", (limit,)
        ).fetchall()
        events = connection.execute(
            "SELECT session_id, version FROM events WHERE session_id <= ? ORDER BY id", (limit,)
        ).fetchall()
    finally:
        connection.close()
    return sessions, events


async def test_a_backup_during_a_write_burst_restores_consistently(tmp_path: Path) -> None:
    source = tmp_path / "live.db"
    db = await migrated_database(source)
    for number in range(1, 1_501):
        await write_game(db, number)
    written = 1_500

    stop = asyncio.Event()

    async def burst() -> None:
        nonlocal written
        while not stop.is_set():
            written += 1
            await write_game(db, written)

    writer = asyncio.create_task(burst())
    try:
        await asyncio.sleep(0.2)  # writes are under way before the backup starts
        before = written
        result = await run_backup(str(tmp_path / "copy.db"), DATABASE_PATH=str(source))
        during = written - before
    finally:
        stop.set()
        await writer
        await db.close()

    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith(f"backup written to {tmp_path / 'copy.db'} (")
    assert f"schema version {LATEST_SCHEMA}, integrity ok" in result.stdout
    assert during > 10, "the burst must run while the backup is taken"

    # Restore: the copy is a complete database on its own (no -wal beside it).
    restored = tmp_path / "restored.db"
    shutil.copy(tmp_path / "copy.db", restored)
    assert not (tmp_path / "copy.db-wal").exists()
    reopened = SQLiteDatabase(restored)
    await reopened.open()
    try:
        assert await reopened.migrate() == []  # already at the current schema
        check = await reopened.fetch_one("PRAGMA integrity_check")
        assert check is not None and check[0] == "ok"
    finally:
        await reopened.close()

    sessions, events = snapshot(restored)
    copied = len(sessions)
    assert 1_500 <= copied < written, "taken during the burst: some writes, not all"
    # One commit's view: sessions 1..copied, each complete with its three events...
    assert [row[0] for row in sessions] == list(range(1, copied + 1))
    assert all(version == 3 for _, version, _ in sessions)
    assert len(events) == 3 * copied
    # ...and exactly what the source holds for those rows.
    assert (sessions, events) == snapshot(source, up_to=copied)


async def test_refusals_are_one_line_and_write_nothing(tmp_path: Path) -> None:
    missing = await run_backup(DATABASE_PATH=str(tmp_path / "none.db"))
    assert missing.returncode == 2
    assert missing.stderr == (
        f"dicebot: no database at {tmp_path / 'none.db'}: nothing to back up "
        "(check DATABASE_PATH)\n"
    )
    assert not (tmp_path / "none.db").exists()

    source = tmp_path / "live.db"
    await (await migrated_database(source)).close()
    taken = tmp_path / "taken.db"
    taken.write_text("keep me")
    refused = await run_backup(str(taken), DATABASE_PATH=str(source))
    assert refused.returncode == 2
    assert refused.stderr == (
        f"dicebot: {taken} already exists: give another name (nothing was written)\n"
    )
    assert taken.read_text() == "keep me"


async def test_the_default_destination_is_a_dated_file_beside_the_database(
    tmp_path: Path,
) -> None:
    source = tmp_path / "live.db"
    await (await migrated_database(source)).close()
    result = await run_backup(DATABASE_PATH=str(source))
    assert result.returncode == 0, result.stderr
    (name,) = os.listdir(tmp_path / "backups")  # the backup alone: no partial file left
    assert name.startswith("live-") and name.endswith(".db")
    assert str(tmp_path / "backups" / name) in result.stdout


async def test_postgresql_points_to_pg_dump_without_showing_the_password(
    tmp_path: Path,
) -> None:
    result = await run_backup(
        DATABASE_URL="postgresql://dicebot:s3cret-pw@db.example:5432/dicebot",
        DATABASE_PATH=str(tmp_path / "none.db"),
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(
        "dicebot: DATABASE_URL points at PostgreSQL: back it up with pg_dump, e.g. pg_dump "
    )
    assert '"$DATABASE_URL"' in result.stderr
    assert "s3cret-pw" not in result.stdout + result.stderr
