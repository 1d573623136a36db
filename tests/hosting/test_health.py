"""The health check Docker's HEALTHCHECK runs (``python -m bot healthcheck``), read from
the heartbeat file the bot keeps fresh, outside Docker."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hosting_support import run_healthcheck

from bot.service.health import STALE_AFTER_SECONDS, Beat, check, write_beat
from bot.service.lifecycle import retry_delay


def beat(**changes: object) -> Beat:
    fields: dict[str, object] = {
        "pid": 4242,
        "at": 1_000.0,
        "state": "ready",
        "connected": True,
        "servers": 3,
        "detail": "",
    }
    fields.update(changes)
    return Beat(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("written", "now", "healthy", "line"),
    [
        (beat(), 1_004.0, True, "healthy: connected to Discord, 3 servers, heartbeat 4 s ago"),
        (
            beat(servers=1),
            1_000.0,
            True,
            "healthy: connected to Discord, 1 server, heartbeat 0 s ago",
        ),
        (
            beat(),
            1_000.0 + STALE_AFTER_SECONDS + 1,
            False,
            "unhealthy: last heartbeat 31 s ago (pid 4242): the bot is not running or is stuck",
        ),
        (
            beat(state="connecting", connected=False, detail="cannot reach Discord (attempt 4)"),
            1_001.0,
            False,
            "unhealthy: connecting, not connected to Discord: cannot reach Discord (attempt 4)",
        ),
        (
            beat(state="reconnecting", connected=False),
            1_001.0,
            False,
            "unhealthy: reconnecting, not connected to Discord",
        ),
    ],
)
def test_the_check_reads_the_heartbeat(
    tmp_path: Path, written: Beat, now: float, healthy: bool, line: str
) -> None:
    path = tmp_path / "bot.db.health"
    write_beat(path, written)
    assert check(path, now=now) == (healthy, line)


def test_a_missing_or_garbled_file_is_unhealthy(tmp_path: Path) -> None:
    path = tmp_path / "bot.db.health"
    assert check(path) == (
        False,
        f"unhealthy: no heartbeat file at {path} (is the bot running?)",
    )
    path.write_text("{half a beat")
    healthy, line = check(path)
    assert not healthy and line.startswith(f"unhealthy: unreadable heartbeat file {path}:")


def test_the_healthcheck_command_exit_codes(tmp_path: Path) -> None:
    database = tmp_path / "data" / "dicebot.db"
    missing = run_healthcheck(database)
    assert (missing.returncode, missing.stderr) == (1, "")
    assert (
        missing.stdout
        == f"unhealthy: no heartbeat file at {database}.health (is the bot running?)\n"
    )

    write_beat(Path(f"{database}.health"), beat(at=time.time()))
    healthy = run_healthcheck(database)
    assert (healthy.returncode, healthy.stderr) == (0, "")
    assert healthy.stdout.startswith("healthy: connected to Discord, 3 servers")


def test_retries_back_off_to_a_minute() -> None:
    assert [retry_delay(n) for n in range(1, 10)] == [1, 2, 4, 8, 16, 32, 60, 60, 60]
