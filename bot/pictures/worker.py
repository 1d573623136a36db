"""Drawing pictures off the event loop: in a helper process, or on one worker thread.

A picture costs 1-15 ms of CPU. Drawn on the event loop it would hold up every other
interaction and the gateway. Drawn on a thread it still holds the GIL for much of that
time and fights the event loop for it at each of Pillow's calls: it costs twice what it
costs alone, and everything else waits. ``PICTURE_WORKER=process`` (the default where the
bot may use two CPUs or more) draws in one helper process instead. bench/interactions.py
on the 2-core machine, thread -> process: Knucklebones moves 276-290 -> 314-347/s and the
bot process's CPU per move 3.5 -> 2.5 ms; Weighted Dice bets 275-292 -> 390-461/s.
``thread`` keeps drawing in the bot's process: about 100 MB less (the helper, its
forkserver and multiprocessing's resource tracker), for a small host.

Either way there is one worker, warm: the fonts and sprite caches are loaded once (FreeType
faces are per thread: ``bot.pictures.text``). It outlives any one ``DiceBot``, so a bot
restarted in the same process (tests do it all the time) finds it warm. A call the helper
cannot take (a function or argument that cannot be pickled, or a module it cannot import)
and a call that finds the helper dead are drawn on the thread instead.

The helper is spoken to over a socket the event loop reads itself (``_Helper``): a call is
one frame out and one frame back, in order. A ``ProcessPoolExecutor`` took two threads of
the bot's (its manager and its queue's feeder) and a hop through each for every picture:
110-180 us of the bot's CPU per call against 35-50 us (a round trip of 20 kB, measured side
by side), about a tenth of the GIL's busy time under load.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextvars
import functools
import logging
import math
import multiprocessing
import os
import pickle
import select
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, ParamSpec, TypeVar

from bot import i18n
from bot.config import LogFormat, LogLevel, PictureWorker
from bot.log_lines import configure_helper_logging

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")


_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pictures")
_process: _Helper | None = None
_mode: Literal["process", "thread"] = "thread"
# Warm-ups already submitted, per worker (a new helper process is warmed up again).
_warmed: dict[object, set[Callable[[], object]]] = {}
_warm_ups: list[Callable[[], object]] = []
# Warm-ups submitted and perhaps not run yet (see ``warmed``).
_warming: list[Future[object]] = []
# Functions the helper process cannot take (not picklable): drawn on the thread, said once.
_thread_only: set[Callable[..., object]] = set()
# How a helper started from now on logs: LOG_FORMAT and LOG_LEVEL.
_helper_logging: tuple[LogFormat, LogLevel] = ("text", "INFO")


def configure(
    mode: PictureWorker,
    *,
    log_format: LogFormat | None = None,
    log_level: LogLevel | None = None,
) -> None:
    """Draw in a helper process (``process``) or on the worker thread (``thread``);
    ``auto``: the helper process when this process may run on two CPUs or more (on one,
    the helper would only add its memory and the hand-over). A helper started from now on
    logs in ``log_format`` from ``log_level`` up, as the bot does (each kept as it was
    when not given)."""
    global _mode, _helper_logging
    _mode = mode if mode != "auto" else ("process" if usable_cpus() >= 2 else "thread")
    _helper_logging = (log_format or _helper_logging[0], log_level or _helper_logging[1])
    if _mode == "process":
        # Started now, not at the first warm-up: its second or so of start-up runs on
        # another CPU while the bot loads its cogs and catalogs and reaches the gateway.
        _helper()
        for function in list(_warm_ups):
            _submit_warm_up(function)


async def draw(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args, **kwargs)`` on the picture worker, awaited from the event loop, in
    the caller's language: a picture's labels speak the language of the message it belongs
    to (bot/i18n.py keeps that in a context variable, which another process does not see)."""
    loop = asyncio.get_running_loop()
    if _mode == "process" and function not in _thread_only:
        payload = _pickled(function, args, kwargs)
        helper = _helper() if payload is not None else None
        if helper is not None and payload is not None:
            request = (i18n.current(), i18n.pseudo_enabled(), payload)
            try:
                result: T = await helper.call(loop, request)
                return result
            except HelperGone:
                _helper_died(helper)
            except CannotTake as error:
                _draw_on_thread(function, error.reason)
    context = contextvars.copy_context()
    call_here = functools.partial(context.run, function, *args, **kwargs)
    return await loop.run_in_executor(_thread, call_here)


def usable_cpus() -> int:
    """The CPUs this process may use: its CPU affinity, capped by its cgroup's CPU quota
    (a container started with ``--cpus 1`` on a 16-core host may use one), rounded up."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cpus = os.cpu_count() or 1
    quota = cgroup_cpu_quota()
    if quota is not None:
        cpus = min(cpus, max(1, math.ceil(quota)))
    return cpus


# Read by hand: the libraries that know cgroup quotas (loky's cpu_count, for one) come with
# a whole process pool, for the two files read here.
CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_SELF_CGROUP = Path("/proc/self/cgroup")


def cgroup_cpu_quota(root: Path = CGROUP_ROOT, membership: Path = PROC_SELF_CGROUP) -> float | None:
    """The tightest CPU quota, in CPUs, on this process's cgroup and its ancestors: cgroup
    v2 (``cpu.max``, e.g. ``150000 100000``) or v1 (``cpu.cfs_quota_us`` over
    ``cpu.cfs_period_us``). None when there is none, or it cannot be read (not Linux)."""
    try:
        lines = membership.read_text().splitlines()
    except OSError:
        return None
    limits: list[float] = []
    for line in lines:
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        _, controllers, path = fields
        if controllers == "":  # v2: one unified hierarchy
            limits += _v2_limits(root, path)
        elif "cpu" in controllers.split(","):  # v1: the cpu controller's own hierarchy
            for mount in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):
                limits += _v1_limits(root / mount, path)
    return min(limits, default=None)


def _ancestors(base: Path, path: str) -> list[Path]:
    """``base/path`` and each parent up to ``base`` itself (a container sees its own
    cgroup as ``/``; a systemd service sees ``/system.slice/its.service``)."""
    parts = [part for part in path.strip().split("/") if part]
    return [base.joinpath(*parts[:depth]) for depth in range(len(parts), -1, -1)]


def _v2_limits(root: Path, path: str) -> list[float]:
    limits = []
    for directory in _ancestors(root, path):
        try:
            quota, period = (directory / "cpu.max").read_text().split()[:2]
        except (OSError, ValueError):
            continue
        if quota != "max" and float(period) > 0:
            limits.append(float(quota) / float(period))
    return limits


def _v1_limits(mount: Path, path: str) -> list[float]:
    limits = []
    for directory in _ancestors(mount, path):
        try:
            quota = float((directory / "cpu.cfs_quota_us").read_text())
            period = float((directory / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            continue
        if quota > 0 and period > 0:  # -1: no quota
            limits.append(quota / period)
    return limits


def mode() -> Literal["process", "thread"]:
    """Where pictures are drawn now."""
    return _mode


def warm_up(function: Callable[[], object]) -> None:
    """Run ``function`` (a cache warm-up) on the picture worker once, without waiting: a
    picture asked for meanwhile simply queues behind it."""
    if function not in _warm_ups:
        _warm_ups.append(function)
    _submit_warm_up(function)


# -- the helper process -------------------------------------------------------------------


class HelperGone(Exception):
    """The helper process ended (or its socket broke) before it answered."""


class CannotTake(Exception):
    """Raised in the helper process: it could not unpickle a call (the thread draws it)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_FRAME = struct.Struct("!I")


def _framed(body: bytes) -> bytes:
    return _FRAME.pack(len(body)) + body


def _whole_frames(received: bytearray) -> Iterator[bytes]:
    """Take each whole frame's body off the front of ``received``; a partial one stays."""
    while len(received) >= _FRAME.size:
        (size,) = _FRAME.unpack_from(received)
        if len(received) < _FRAME.size + size:
            return
        body = bytes(received[_FRAME.size : _FRAME.size + size])
        del received[: _FRAME.size + size]
        yield body


class _Helper:
    """The helper process and this process's end of the socket to it. Calls go out as
    length-prefixed pickles and their answers come back in the same order. The socket is
    non-blocking and served by the event loop of the latest caller (``call``), with no
    thread of its own: a burst of calls waits in ``_outgoing`` rather than block the loop
    (while the helper, blocked on its own answers, waits for the loop to read them).
    Warm-ups (``submit``) may be sent before any loop runs; what they leave unsent and
    their answers go through the next caller's loop. Used from one thread: the loop's."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.gone = False
        self._waiting: collections.deque[asyncio.Future[Any] | Future[Any]] = collections.deque()
        self._outgoing = bytearray()
        self._received = bytearray()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writing = False

    async def call(self, loop: asyncio.AbstractEventLoop, request: tuple[Any, ...]) -> Any:
        answer: asyncio.Future[Any] = loop.create_future()
        self._serve_on(loop)
        self._send(request, answer)
        return await answer

    def submit(self, function: Callable[[], object]) -> Future[Any]:
        answer: Future[Any] = Future()
        payload = pickle.dumps((function, (), {}), protocol=pickle.HIGHEST_PROTOCOL)
        self._send((i18n.ENGLISH, False, payload), answer)
        return answer

    def serve_on_running_loop(self) -> None:
        self._serve_on(asyncio.get_running_loop())

    def _send(self, request: tuple[Any, ...], answer: asyncio.Future[Any] | Future[Any]) -> None:
        if self.gone:
            raise HelperGone()
        body = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
        # Queued before the bytes go out: its answer can only come after them.
        self._waiting.append(answer)
        self._outgoing += _framed(body)
        self._flush()

    def _flush(self) -> None:
        try:
            while self._outgoing:
                del self._outgoing[: self.connection.send(self._outgoing)]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError as error:  # the helper is gone
            self.close(HelperGone(f"{type(error).__name__}: {error}"))
            return
        self._want_writable(bool(self._outgoing))

    def _want_writable(self, wanted: bool) -> None:
        loop = self._loop
        if loop is None or loop.is_closed() or wanted == self._writing:
            return
        if wanted:
            loop.add_writer(self.connection.fileno(), self._flush)
        else:
            loop.remove_writer(self.connection.fileno())
        self._writing = wanted

    def _serve_on(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is loop or self.gone:
            return
        self._stop_serving()
        self._loop = loop
        loop.add_reader(self.connection.fileno(), self._readable)
        self._want_writable(bool(self._outgoing))

    def _stop_serving(self) -> None:
        loop, self._loop = self._loop, None
        writing, self._writing = self._writing, False
        if loop is None or loop.is_closed():
            return
        loop.remove_reader(self.connection.fileno())
        if writing:
            loop.remove_writer(self.connection.fileno())

    def _readable(self) -> None:
        try:
            data = self.connection.recv(1 << 18)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            self.close(HelperGone(f"{type(error).__name__}: {error}"))
            return
        if not data:
            self.close(HelperGone("the helper process ended"))
            return
        self._received += data
        for body in _whole_frames(self._received):
            self._answer(body)

    def _answer(self, body: bytes) -> None:
        answer = self._waiting.popleft()
        try:
            kind, value = pickle.loads(body)
        except Exception as error:  # a result this process cannot unpickle
            kind, value = "error", RuntimeError(f"the helper's answer is unreadable: {error!r}")
        _settle(answer, value if kind == "ok" else None, None if kind == "ok" else value)

    def close(self, error: BaseException | None = None) -> None:
        """Stop using the helper: it sees its socket close and ends. Calls still waiting
        get ``error`` (HelperGone by default)."""
        if self.gone:
            return
        self.gone = True
        self._stop_serving()
        self.connection.close()
        self._outgoing.clear()
        while self._waiting:
            _settle(self._waiting.popleft(), None, error or HelperGone())


def _settle(
    answer: asyncio.Future[Any] | Future[Any], value: Any, error: BaseException | None
) -> None:
    if answer.done():
        return
    if isinstance(answer, asyncio.Future) and answer.get_loop().is_closed():
        return  # its caller's loop is gone (a test's), and the caller with it
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(value)


def _serve(
    connection: socket.socket, bot_pid: int, log_format: LogFormat, log_level: LogLevel
) -> None:
    """The helper process: answer calls, in order, until the bot closes its end."""
    _start_helper(bot_pid, log_format, log_level)
    received = bytearray()
    while True:
        try:
            data = connection.recv(1 << 18)
        except OSError:
            return  # the bot's end broke: it is gone
        if not data:
            return
        received += data
        for body in _whole_frames(received):
            try:
                connection.sendall(_framed(_pickled_answer(body)))
            except OSError:
                return


def _pickled_answer(body: bytes) -> bytes:
    try:
        language, pseudo, payload = pickle.loads(body)
        result = ("ok", _draw_pickled(language, pseudo, payload))
    except BaseException as error:  # every error goes back to the caller, as a pool does
        result = ("error", error)
    try:
        return pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # a result or an error that cannot be pickled
        return pickle.dumps(("error", RuntimeError(f"{result[1]!r} ({error})")))


def _draw_pickled(language: str, pseudo: bool, payload: bytes) -> Any:
    """In the helper process: the call in ``payload``, in the caller's language."""
    # The helper's environment is its own: pseudo-localization follows the caller's.
    os.environ[i18n.PSEUDO_ENV] = "1" if pseudo else ""
    try:
        function, args, kwargs = pickle.loads(payload)
    except Exception as error:  # e.g. a module the helper cannot import
        raise CannotTake(f"{type(error).__name__}: {error}") from None
    with i18n.use(language):
        return function(*args, **kwargs)


def _pickled(
    function: Callable[..., object], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> bytes | None:
    try:
        return pickle.dumps((function, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # whatever pickle refuses, the thread can draw
        _draw_on_thread(function, type(error).__name__)
        return None


def _draw_on_thread(function: Callable[..., object], reason: str) -> None:
    _thread_only.add(function)
    log.info(
        "pictures by %s are drawn on the thread (the helper process cannot take them: %s)",
        getattr(function, "__qualname__", function),
        reason,
    )


def _helper() -> _Helper | None:
    global _process
    if _process is None:
        try:
            _process = _start_helper_process()
        except (OSError, ValueError, RuntimeError) as error:
            _cannot_start(error)
            return None
        for function in _warm_ups:
            _submit_warm_up(function)
    return _process


def _start_helper_process() -> _Helper:
    ours, theirs = socket.socketpair()
    try:
        # forkserver: a clean process, not a copy of the bot's threads and sockets.
        context = multiprocessing.get_context("forkserver")
        process = context.Process(
            target=_serve,
            args=(theirs, os.getpid(), *_helper_logging),
            name="pictures-helper",
            daemon=True,
        )
        process.start()
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()  # the helper has its own copy; with ours closed it sees the end
    ours.setblocking(False)
    return _Helper(ours)


def _start_helper(bot_pid: int, log_format: LogFormat, log_level: LogLevel) -> None:
    """In the helper process, first thing."""
    configure_helper_logging(log_format, log_level)
    # Ctrl-C in a terminal reaches the whole process group: the bot shuts its helper down
    # itself, without a KeyboardInterrupt traceback from the helper.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_end_with, args=(bot_pid,), name="end-with-bot", daemon=True).start()


def _end_with(bot_pid: int) -> None:
    """In the helper process: end it when the bot's process ends, however that ends. A
    killed bot (SIGKILL, out of memory) cannot stop its helper; its socket closes with it,
    but a helper busy drawing would only see that once done."""
    try:
        handle = os.pidfd_open(bot_pid)  # Linux: readable once the process has ended
    except (AttributeError, OSError):
        handle = None
    if handle is not None:
        select.select([handle], [], [])
    else:
        while True:
            time.sleep(1.0)
            try:
                os.kill(bot_pid, 0)
            except ProcessLookupError:
                break
            except PermissionError:
                continue
    os._exit(0)


def _cannot_start(error: BaseException) -> None:
    log.warning("no helper process for pictures (%s): drawing on a thread", error)
    if _process is not None:
        _drop_helper(_process)
    configure("thread")


def _helper_died(helper: _Helper) -> None:
    log.warning("the pictures' helper process stopped; starting a new one")
    _drop_helper(helper)


def _drop_helper(helper: _Helper) -> None:
    """Forget ``helper`` (the next picture in process mode starts a new helper)."""
    global _process
    if _process is helper:
        _process = None
    _warmed.pop(helper, None)
    helper.close()


def _submit_warm_up(function: Callable[[], object]) -> None:
    helper = _helper() if _mode == "process" else None
    worker: object = helper or _thread
    done = _warmed.setdefault(worker, set())
    if function in done:
        return
    done.add(function)
    try:
        future = helper.submit(function) if helper is not None else _thread.submit(function)
    except (HelperGone, RuntimeError, pickle.PicklingError, AttributeError, TypeError) as error:
        log.info("warming up the picture worker was skipped: %r", error)
        return
    _warming.append(future)
    future.add_done_callback(_report_failure)


async def warmed(*, at_most: float) -> bool:
    """Wait, for at most ``at_most`` seconds, until the warm-ups submitted so far have run:
    the helper process has started and loaded its fonts and sprites, so the next picture
    does not wait for that (long enough, on a busy machine, for a press's answer to be
    deferred). The bot does not wait for it to go online (a press that comes first waits
    behind the warm-up); tests and benches that press at once do. True if they all ran in
    time; a failed one counts as run (``_report_failure`` says so)."""
    pending = [future for future in _warming if not future.done()]
    _warming[:] = pending
    if not pending:
        return True
    if _process is not None:
        _process.serve_on_running_loop()  # the helper's answers are read by this loop
    loop = asyncio.get_running_loop()
    # Waited for on a thread: these are the executors' own futures, not the event loop's.
    _, late = await loop.run_in_executor(None, concurrent.futures.wait, pending, at_most)
    if late:
        log.info("the picture worker is still warming up after %.0f s; starting anyway", at_most)
    return not late


def _report_failure(future: Future[object]) -> None:
    error = future.exception()
    if error is not None:
        # Only the warm-up is lost: the first picture draws what it needs itself.
        log.warning("warming up the picture worker failed: %r", error)
