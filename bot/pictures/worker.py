"""Drawing pictures off the event loop: one worker thread for the whole process.

A picture costs 1-15 ms of CPU (most of it in Pillow's C code, which releases the GIL);
drawn on the event loop it would hold up every other interaction and the gateway. One
thread is enough for that load and keeps one warm copy of the fonts and sprite caches
(FreeType faces are per thread: ``bot.pictures.text``). It outlives any one ``DiceBot``,
so a bot restarted in the same process (tests do it all the time) finds it warm.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pictures")
_warmed: set[Callable[[], object]] = set()


async def draw(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args, **kwargs)`` on the picture thread, awaited from the event loop.
    It runs in a copy of the caller's context: a picture's labels speak the language of
    the message it belongs to (bot/i18n.py keeps that in a context variable)."""
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    call = functools.partial(context.run, function, *args, **kwargs)
    return await loop.run_in_executor(_executor, call)


def warm_up(function: Callable[[], object]) -> None:
    """Run ``function`` (a cache warm-up) on the picture thread once per process, without
    waiting: a picture asked for meanwhile simply queues behind it."""
    if function in _warmed:
        return
    _warmed.add(function)
    future = _executor.submit(function)
    future.add_done_callback(_report_failure)


def _report_failure(future: Future[object]) -> None:
    error = future.exception()
    if error is not None:
        # Only the warm-up is lost: the first picture draws what it needs itself.
        log.warning("warming up the picture thread failed: %r", error)
