"""The heartbeat file the running bot keeps fresh, and the check Docker's HEALTHCHECK runs.

The bot rewrites a small JSON file every ``BEAT_SECONDS``: its state (connecting, ready,
stopping...), whether every shard is connected, the servers it is in. ``python -m bot
healthcheck`` reads it: healthy means a fresh beat (the event loop is running) from a bot
connected to Discord. A file, not a port: nothing to expose or secure.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

BEAT_SECONDS = 10.0
# Three missed beats: the process is gone or its event loop is stuck.
STALE_AFTER_SECONDS = 3 * BEAT_SECONDS


@dataclass(frozen=True)
class Beat:
    pid: int
    at: float  # wall-clock time of the beat (time.time())
    state: str  # "starting", "connecting", "ready", "stopping"
    connected: bool  # every shard this process runs has its gateway connection open
    servers: int
    detail: str = ""  # e.g. the last connection error while retrying


def write_beat(path: Path, beat: Beat) -> None:
    """Replace the file atomically, so a reader never sees half a beat."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{beat.pid}.tmp")
    temporary.write_text(json.dumps(asdict(beat)), encoding="utf-8")
    os.replace(temporary, path)


def remove_beat(path: Path) -> None:
    """On a clean stop: a stopped bot must not look healthy until the beat goes stale."""
    path.unlink(missing_ok=True)


def check(path: Path, now: float | None = None) -> tuple[bool, str]:
    """``(healthy, one line saying why)`` from the heartbeat file at ``path``."""
    now = time.time() if now is None else now
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        beat = Beat(**data)
    except FileNotFoundError:
        return False, f"unhealthy: no heartbeat file at {path} (is the bot running?)"
    except (OSError, ValueError, TypeError) as error:
        return False, f"unhealthy: unreadable heartbeat file {path}: {error}"
    age = now - beat.at
    if age > STALE_AFTER_SECONDS:
        return False, (
            f"unhealthy: last heartbeat {age:.0f} s ago (pid {beat.pid}): the bot is not "
            "running or is stuck"
        )
    if beat.state != "ready" or not beat.connected:
        detail = f": {beat.detail}" if beat.detail else ""
        return False, f"unhealthy: {beat.state}, not connected to Discord{detail}"
    plural = "s" if beat.servers != 1 else ""
    return True, (
        f"healthy: connected to Discord, {beat.servers} server{plural}, "
        f"heartbeat {max(age, 0):.0f} s ago"
    )
