"""bench/scaling.py (issue 30, target 5) runs end to end at tiny counts, so it cannot rot:
two real bot processes sharing the shards against one PostgreSQL database, their moves'
rates, and where a move's time goes (the bot's round trips, measured in its processes, and
what PostgreSQL's backends were doing, sampled)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from backends import server_url

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(150)
def test_two_processes_on_postgresql_print_where_a_moves_time_goes() -> None:
    url = server_url()
    if url is None:
        pytest.skip("no PostgreSQL server (TEST_DATABASE_URL)")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "scaling.py"),
            *("--only", "postgres-2", "--postgres", url),
            *("--count", "20", "--move-count", "24", "--concurrency", "2"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=140,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert re.search(r"\(b\) knucklebones move +C=2 +24 in .* bot CPU +\d+\.\d\d ms each", out)
    assert re.search(r"PostgreSQL, two processes +\d+ +[\d.]+ +[\d.]+ .* \d+\.\d\d ms", out), out
    assert "PostgreSQL, two processes: where a move's time goes" in out
    # A move reads its game and writes it (one statement, unless it ends the game), in the
    # press's own task.
    press = re.search(r"the press's own task: (\d+\.\d\d) round trips, [\d.]+ ms in them", out)
    assert press is not None, out
    assert float(press.group(1)) >= 2.0, out
    assert re.search(r"    the move's write statement +[01]\.\d\d x +[\d.]+ ms", out), out
    assert re.search(
        r"PostgreSQL's backends \(pg_stat_activity every 10 ms, \d+ samples\), backend-ms per"
        r" move: waiting on row locks \d+\.\d{3}, flushing WAL \(commits\) \d+\.\d{3}",
        out,
    ), out
