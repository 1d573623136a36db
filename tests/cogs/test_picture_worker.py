"""Where pictures are drawn (bot/pictures/worker.py): in a helper process by default, in
the caller's language, on the thread when the helper cannot take a call, and a helper
that never outlives its bot, however the bot ends."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import i18n
from bot.pictures import worker

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def in_process_mode() -> Iterator[None]:
    worker.configure("process")
    yield
    worker.configure("thread")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"  # a zombie has ended; only its parent has not looked yet


def wait_gone(pid: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)


async def test_a_picture_is_drawn_in_the_helper_in_the_callers_language(
    in_process_mode: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    helper = await worker.draw(os.getpid)
    assert helper != os.getpid()
    with i18n.use("es"):
        assert await worker.draw(i18n.current) == "es"
    assert await worker.draw(i18n.current) == "en"
    monkeypatch.setenv(i18n.PSEUDO_ENV, "1")
    assert await worker.draw(i18n.pseudo_enabled) is True
    monkeypatch.setenv(i18n.PSEUDO_ENV, "0")
    assert await worker.draw(i18n.pseudo_enabled) is False
    assert await worker.draw(os.getpid) == helper  # one helper, kept warm


async def test_a_call_the_helper_cannot_take_is_drawn_on_the_thread(
    in_process_mode: None,
) -> None:
    local = 41
    with i18n.use("fr"):
        assert await worker.draw(lambda: (local + 1, i18n.current(), os.getpid())) == (
            42,
            "fr",
            os.getpid(),
        )


async def test_a_call_the_helper_cannot_import_is_drawn_on_the_thread(
    in_process_mode: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Picklable here (by name, from a module only this process has), not in the helper.
    module = types.ModuleType("made_up_pictures")
    exec("import os\ndef whose():\n    return os.getpid()", module.__dict__)
    monkeypatch.setitem(sys.modules, "made_up_pictures", module)
    assert await worker.draw(module.whose) == os.getpid()
    assert await worker.draw(module.whose) == os.getpid()


async def test_an_error_while_drawing_reaches_the_caller(in_process_mode: None) -> None:
    with pytest.raises(ValueError, match="invalid literal"):
        await worker.draw(int, "not a number")


async def test_a_helper_that_died_is_replaced(in_process_mode: None) -> None:
    helper = await worker.draw(os.getpid)
    os.kill(helper, signal.SIGKILL)
    await asyncio.to_thread(wait_gone, helper, 5.0)
    # The call that finds it dead is drawn on the thread; the next one in a new helper.
    assert await worker.draw(sum, [1, 2]) == 3
    replacement = await worker.draw(os.getpid)
    assert replacement not in (helper, os.getpid())


async def test_a_burst_of_large_calls_and_answers_all_come_back(in_process_mode: None) -> None:
    # Megabytes each way, far more than a socket holds: the bot's loop must keep reading
    # answers while its calls still wait to go out, or both sides wait on each other.
    sizes = await asyncio.gather(*(worker.draw(len, b"x" * 200_000) for _ in range(60)))
    assert sizes == [200_000] * 60
    pictures = await asyncio.gather(*(worker.draw(bytes, 300_000 + n) for n in range(40)))
    assert [len(picture) for picture in pictures] == [300_000 + n for n in range(40)]
    assert await worker.draw(sum, [1, 2, 3]) == 6  # and the helper answers in order still


async def test_drawing_on_the_thread_when_configured() -> None:
    worker.configure("thread")
    assert await worker.draw(os.getpid) == os.getpid()


def test_auto_draws_in_a_helper_only_with_two_cpus_or_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(worker, "usable_cpus", lambda: 1)
    worker.configure("auto")
    assert worker.mode() == "thread"
    monkeypatch.setattr(worker, "usable_cpus", lambda: 2)
    worker.configure("auto")
    assert worker.mode() == "process"
    worker.configure("thread")


def cgroup(tmp_path: Path, membership: str, files: dict[str, str]) -> tuple[Path, Path]:
    """A cgroup tree under ``tmp_path`` as /sys/fs/cgroup and /proc/self/cgroup show it."""
    root = tmp_path / "cgroup"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (tmp_path / "self").write_text(membership)
    return root, tmp_path / "self"


def test_a_containers_cpu_quota_caps_the_cpus_counted(tmp_path: Path) -> None:
    # cgroup v2 in a container (its own cgroup is "/"): `docker run --cpus 1.5`.
    root, membership = cgroup(tmp_path, "0::/\n", {"cpu.max": "150000 100000\n"})
    assert worker.cgroup_cpu_quota(root, membership) == 1.5


def test_the_tightest_quota_on_the_way_up_counts(tmp_path: Path) -> None:
    # A systemd service under a slice: the slice's quota is tighter than the service's.
    root, membership = cgroup(
        tmp_path,
        "0::/bots.slice/dicebot.service\n",
        {
            "cpu.max": "max 100000\n",
            "bots.slice/cpu.max": "100000 100000\n",
            "bots.slice/dicebot.service/cpu.max": "400000 100000\n",
        },
    )
    assert worker.cgroup_cpu_quota(root, membership) == 1.0


def test_cgroup_v1_quota_and_no_quota(tmp_path: Path) -> None:
    v1 = "12:memory:/\n4:cpu,cpuacct:/\n0::/\n"
    root, membership = cgroup(
        tmp_path,
        v1,
        {"cpu,cpuacct/cpu.cfs_quota_us": "50000\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"},
    )
    assert worker.cgroup_cpu_quota(root, membership) == 0.5
    unlimited = tmp_path / "unlimited"
    unlimited.mkdir()
    root, membership = cgroup(
        unlimited,
        v1,
        {"cpu,cpuacct/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"},
    )
    assert worker.cgroup_cpu_quota(root, membership) is None
    # Not Linux, or no cgroup file system: no quota known.
    assert worker.cgroup_cpu_quota(tmp_path / "nowhere", tmp_path / "nothing") is None


def test_auto_draws_on_the_thread_in_a_one_cpu_container(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(worker, "cgroup_cpu_quota", lambda: 1.0)
    assert worker.usable_cpus() == 1
    worker.configure("auto")
    assert worker.mode() == "thread"
    monkeypatch.setattr(worker, "cgroup_cpu_quota", lambda: 1.5)
    assert worker.usable_cpus() == 2
    monkeypatch.setattr(worker, "cgroup_cpu_quota", lambda: None)
    assert worker.usable_cpus() == 4


BOT_STAND_IN = """
import asyncio, os, time
from bot.pictures import worker

async def main():
    worker.configure("process")
    print(await worker.draw(os.getpid), flush=True)
    time.sleep(60)

asyncio.run(main())
"""


async def test_start_up_can_wait_for_the_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot waits for its picture worker's warm-up before going online, so a player's
    first press does not wait for a cold helper (and have its answer deferred)."""
    monkeypatch.setattr(worker, "_warm_ups", [])
    monkeypatch.setattr(worker, "_warming", [])
    monkeypatch.setattr(worker, "_warmed", {})
    worker.configure("thread")
    ran = threading.Event()

    def slow_warm_up() -> None:
        time.sleep(0.3)
        ran.set()

    worker.warm_up(slow_warm_up)
    assert await worker.warmed(at_most=5.0) is True
    assert ran.is_set()

    def too_slow_warm_up() -> None:
        time.sleep(1.0)

    worker.warm_up(too_slow_warm_up)
    assert await worker.warmed(at_most=0.1) is False  # the bot starts anyway
    assert await worker.warmed(at_most=5.0) is True


HELPER_LOGGING = """
import asyncio, logging
from bot.pictures import worker

async def main():
    worker.configure("process", log_format="json", log_level="WARNING")
    log = logging.getLogger("bot.pictures.in_the_helper")
    await worker.draw(log.info, "not at this level")
    await worker.draw(log.warning, "said in the helper")

asyncio.run(main())
"""


def test_the_helpers_log_lines_follow_log_format_and_level() -> None:
    """A host shipping JSON lines gets JSON from the helper too, at the bot's level."""
    bot = subprocess.run(
        [sys.executable, "-c", HELPER_LOGGING],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bot.returncode == 0, bot.stderr
    lines = [json.loads(line) for line in bot.stderr.splitlines() if line.startswith("{")]
    said = [line for line in lines if line.get("logger") == "bot.pictures.in_the_helper"]
    assert [(line["level"], line["message"]) for line in said] == [
        ("WARNING", "said in the helper")
    ]
    assert "not at this level" not in bot.stderr


def test_the_helper_ends_with_a_killed_bot() -> None:
    """A SIGKILL leaves the bot no time to stop its helper: the helper sees it go."""
    bot = subprocess.Popen(
        [sys.executable, "-c", BOT_STAND_IN],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert bot.stdout is not None
        helper = int(bot.stdout.readline())
        assert alive(helper)
    finally:
        bot.kill()
        bot.wait()
    wait_gone(helper, 3.0)
    assert not alive(helper), "the pictures' helper outlived its killed bot"
