"""The benches of a restart with open games and of many servers (bench/restart.py,
bench/servers.py) run end to end at tiny counts, so they cannot rot: each starts the real
bot (and a bare discord.py client) in processes of its own against the fake, and prints
what a run at full size prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from backends import server_url

ROOT = Path(__file__).resolve().parents[2]


def run_bench(script: str, *options: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.timeout(120)
async def test_a_restart_with_open_games_keeps_its_targets(backend: str) -> None:
    database = "postgres" if backend == "postgresql" else "sqlite"
    options = ["--games", "12", "--databases", database, "--guilds", "2", "--channels", "2"]
    if backend == "postgresql":
        url = server_url()
        assert url is not None
        options += ["--postgres", url]
    out = run_bench(
        "restart.py", *options, "--presses", "2", "--batches", "2", "--concurrency", "4"
    )
    label = "SQLite" if backend == "sqlite" else "PostgreSQL"
    assert f"{label}, 12 games: 12 open games (4 with timers due, 0 with a message" in out
    # The games are up to date, so none but the due and the pressed ones cost a request;
    # the due timers all went, oldest first, within Discord's limits; presses are served.
    assert re.search(r"PASS  READY -> first press served <= 5 s: \d+\.\d\d s", out), out
    assert "PASS  REST requests for games whose message showed their stored version: 0" in out
    assert re.search(
        r"PASS  due timers applied and shown with no 429: \d+ applied of \d+ claimed", out
    ), out
    assert "messages behind after: 0; 429s: 0" in out
    assert "PASS  due timers oldest first: 0 applied after a later-due one" in out
    assert re.search(r"memory \(RSS\): at READY \d+ MiB, timers applied and quiet \d+ MiB", out)
    assert "problem" not in out


@pytest.mark.timeout(120)
def test_the_bot_and_a_bare_client_receive_the_same_servers() -> None:
    out = run_bench("servers.py", "--servers", "0,3", "--channels", "3", "--roles", "2")
    assert "3 text channels and 2 roles each" in out
    for kind in ("bare", "bot"):
        assert re.search(
            rf"  {kind} +RSS at READY +\d+ MiB, settled +\d+ MiB.*; 3 servers cached", out
        ), out
    # The bot's memory is read once it has synced its commands (it syncs once ready).
    assert re.search(r"  bot .*; commands synced \d+\.\d\d s after READY", out), out
    # The four comparisons, each judged (tiny counts say little about which way).
    for what in (
        r"the bot's memory, settled, <= 1\.2x a bare discord\.py client's: \d+\.\d\dx",
        r"the bot's start-up to READY <= 1\.2x the bare client's: \d+\.\d\dx",
        r"the memory the servers add to the bot <= 1\.2x what they add to the bare client",
        r"the time they add from IDENTIFY to READY <= 1\.2x the bare client's",
    ):
        assert re.search(rf"(PASS|FAIL)  3 servers: {what}", out), out
    assert "(!)" not in out
