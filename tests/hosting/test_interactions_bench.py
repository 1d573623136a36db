"""bench/interactions.py runs end to end at tiny counts, so it cannot rot: the real bot and
a floor bot, each in a process of its own against the fake, every move scenario measured
with its floor, and issue 30's two verdicts printed for each. Tiny counts say nothing about
which way a verdict goes: only the lines' form is checked."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCENARIOS = (
    "knucklebones move",
    "knucklebones move vs AI",
    "diceman lock-in",
    "dimension duel lock-in",
    "weighted dice bet (12 seats)",
)
# The scenarios whose lock-in takes picks first, each pick and each Confirm completing a
# round with a line of its own.
SECRET_DUELS = ("diceman lock-in", "dimension duel lock-in")
MS = r"-?\d+\.\d\d ms"
VERDICT = r"(PASS|FAIL)"


@pytest.mark.timeout(120)
def test_every_move_is_measured_against_its_floor_and_ping() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "interactions.py"),
            *("--count", "20", "--move-count", "8", "--concurrency", "2", "--warm-up", "20"),
            # So few requests never reach the bot's global pacing, which sends in bursts.
            *("--quiet", "0.3"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    lines = out.splitlines()
    for name in SCENARIOS:
        escaped = re.escape(name)
        # The move and its floor, each measured with its CPU time and its REST requests.
        for measured in (escaped, rf"{escaped} floor"):
            at = next(
                (
                    n
                    for n, line in enumerate(lines)
                    if re.match(rf"\([b-h]\) {measured} +C=2 ", line)
                ),
                None,
            )
            assert at is not None, f"no line for {measured}:\n{out}"
            assert re.search(r"bot CPU +\d+\.\d\d ms each", lines[at]), lines[at]
            rest = next(line for line in lines[at + 1 :] if "REST requests" in line)
            assert "POST /interactions/{interaction_id}/{token}/callback" in rest, rest
        # Target 1: the move's CPU time as its floor's plus its own work, judged.
        assert re.search(
            rf"^{escaped}: bot CPU {MS} = floor {MS} \+ own work {MS} "
            rf"\(W/F = (-?\d+\.\d\d|inf)\): {VERDICT} \(<= 0\.6x\)$",
            out,
            re.MULTILINE,
        ), out
        # Target 2: its first answers' p99 against /ping's, judged.
        parts = [""]
        if name in SECRET_DUELS:
            parts += [", pick", ", Confirm completing a round"]
        for part in parts:
            assert re.search(
                rf"^{escaped}{re.escape(part)}: first-answer p99 \d+\.\d ms = \d+\.\d\dx "
                rf"/ping's \d+\.\d ms at C=2: {VERDICT} \(<= 3x\)$",
                out,
                re.MULTILINE,
            ), f"{name}{part}:\n{out}"
    # Issue 14's verdicts are gone; the fake saw nothing Discord would refuse.
    assert "throughput >=" not in out and "p99 < 50 ms" not in out
    assert "problem" not in out
