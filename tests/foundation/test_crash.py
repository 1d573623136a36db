"""A process killed with SIGKILL in the middle of a write burst loses no committed move, on
SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from backends import database_at, isolated_schema

HERE = Path(__file__).parent
PROJECT = HERE.parent.parent

# The child prints each version only AFTER act() returned, i.e. after the COMMIT: every
# version it reported is a promise the database must keep.
CHILD = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {support!r})
    from foundation_support import ALICE, BOB, CounterGame, make_service, new_counter
    from bot.model.clock import ManualClock
    from bot.storage import SQLiteDatabase

    async def main() -> None:
        db = SQLiteDatabase({path!r})
        await db.open()
        await db.migrate()
        service = make_service(db, ManualClock(), CounterGame())
        session = await new_counter(service, ALICE, BOB)
        print("session", session.id, flush=True)
        while True:
            action = {{"type": "inc", "by": 1, "pad": {pad}}}
            outcome = await service.act(session.id, ALICE, action)
            print("committed", outcome.session.version, flush=True)

    asyncio.run(main())
    """
)


# Small moves; and big ones, so that the burst also crosses WAL checkpoints (every ~1000
# pages), the other moment at which a kill could hurt.
@pytest.mark.parametrize(("kill_after", "pad"), [(40, 0), (400, 6_000)])
def test_sigkill_mid_burst_keeps_every_committed_move(
    tmp_path: Path, kill_after: int, pad: int
) -> None:
    path = tmp_path / "crash.db"
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(support=str(HERE), path=str(path), pad=pad))
    child = subprocess.Popen(
        [sys.executable, str(script)],
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    session_id: int | None = None
    reported = 0
    try:
        assert child.stdout is not None
        for line in child.stdout:
            word, number = line.split()
            if word == "session":
                session_id = int(number)
            else:
                reported = int(number)
            if reported >= kill_after:
                os.kill(child.pid, signal.SIGKILL)
                break
        # Lines the child flushed before it died also count as promises.
        rest, errors = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=10)
    assert child.returncode == -signal.SIGKILL, errors
    for line in rest.splitlines():
        word, number = line.split()
        if word == "committed":
            reported = max(reported, int(number))
    assert session_id is not None and reported >= kill_after

    with contextlib.closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        version, state = conn.execute(
            "SELECT version, state FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        assert version >= reported
        assert json.loads(state)["n"] == version
        versions = [
            row[0]
            for row in conn.execute(
                "SELECT version FROM events WHERE session_id = ? ORDER BY version", (session_id,)
            )
        ]
        assert versions == list(range(version + 1))


POSTGRES_CHILD = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {support!r})
    from foundation_support import ALICE, BOB, CounterGame, make_service, new_counter
    from bot.model.clock import ManualClock
    from bot.storage import open_url

    async def main() -> None:
        db = open_url({url!r}, pool_size=2)
        await db.open()
        await db.migrate()
        service = make_service(db, ManualClock(), CounterGame())
        session = await new_counter(service, ALICE, BOB)
        print("session", session.id, flush=True)
        while True:
            outcome = await service.act(session.id, ALICE, {{"type": "inc", "by": 1}})
            print("committed", outcome.session.version, flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.postgres_only
async def test_sigkill_mid_burst_on_postgres_keeps_every_committed_move(tmp_path: Path) -> None:
    async with isolated_schema() as url:
        script = tmp_path / "child.py"
        script.write_text(POSTGRES_CHILD.format(support=str(HERE), url=url))
        child = await asyncio.create_subprocess_exec(
            sys.executable, str(script), cwd=PROJECT, stdout=asyncio.subprocess.PIPE
        )
        assert child.stdout is not None
        session_id, reported = 0, 0
        try:
            async with asyncio.timeout(60):
                async for line in child.stdout:
                    word, number = line.decode().split()
                    if word == "session":
                        session_id = int(number)
                    else:
                        reported = int(number)
                    if reported >= 60:
                        child.kill()
                        break
                # Lines the child printed before it died are promises too.
                for line in (await child.stdout.read()).decode().splitlines():
                    word, number = line.split()
                    if word == "committed":
                        reported = max(reported, int(number))
        finally:
            if child.returncode is None:
                child.kill()
            await child.wait()
        # Killed, never a clean exit. (asyncio reports 255 instead of -9 when the child was
        # reaped by another watcher of this test process first, e.g. after the multi-process
        # tests, so only "not a clean exit" is asserted.)
        assert child.returncode in (-signal.SIGKILL, 255)
        db = database_at(url, tmp_path / "unused.db")
        await db.open()
        try:
            row = await db.fetch_one(
                "SELECT version, state FROM sessions WHERE id = ?", (session_id,)
            )
            assert row is not None and row["version"] >= reported
            assert json.loads(row["state"])["n"] == row["version"]
            versions = await db.fetch_all(
                "SELECT version FROM events WHERE session_id = ? ORDER BY version", (session_id,)
            )
            assert [r["version"] for r in versions] == list(range(row["version"] + 1))
        finally:
            await db.close()
