"""Knowing that Discord applied a request sooner than discord.py returns from it.

discord.py paces its requests by Discord's rate-limit headers. A request that uses up its
bucket (``X-RateLimit-Remaining: 0``; a channel takes 5 message edits per 5 s) does not
return when Discord answers it but when the bucket resets, up to a window later: discord.py
waits there (``Ratelimit.__aexit__``) so that the requests queued behind it go in the next
window. Code that holds a lock around such a call keeps it through that wait: the
publisher, which orders a game message's edits against the presses answering with it,
would make a press wait seconds for an edit Discord applied long before, and miss the
press's 3-second window.

``Landings`` listens to the bot's HTTP session (discord.py's public ``http_trace`` option,
an ``aiohttp.TraceConfig``): ``await landings.applied(call, "PATCH", path)`` returns as
soon as Discord answered ``call``'s request to ``path`` with a success, and the rest of the
call (that wait, which wakes the requests queued behind it) goes on in the background. An
error answer, or a call that ends first, comes back as it would without it: discord.py
retries a 429 or a 5xx inside the call, and only its final success counts.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

import aiohttp

log = logging.getLogger(__name__)


class Landings:
    def __init__(self) -> None:
        self.trace = aiohttp.TraceConfig()
        self.trace.on_request_end.append(self._request_ended)
        # (method, path) -> futures set when a request to a URL ending in that path got a
        # 2xx answer. One call at a time per path (the publisher edits a message at a time).
        self._waiting: dict[tuple[str, str], list[asyncio.Future[None]]] = {}
        # Calls Discord answered that are still waiting out their bucket.
        self._finishing: set[asyncio.Task[Any]] = set()

    async def applied(self, call: Awaitable[Any], method: str, path: str) -> None:
        """Run ``call`` (one discord.py request, ``method`` to the API path ``path``, e.g.
        ``/channels/1/messages/2``) until Discord has applied it: its success answer came,
        or the call ended (returning or raising as usual)."""
        key = (method, path)
        landed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, []).append(landed)
        task = asyncio.ensure_future(call)
        try:
            await asyncio.wait({task, landed}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            raise
        finally:
            waiting = self._waiting.get(key, [])
            if landed in waiting:
                waiting.remove(landed)
            if not waiting:
                self._waiting.pop(key, None)
            landed.cancel()
        if task.done():
            task.result()
            return
        self._finishing.add(task)
        task.add_done_callback(self._finished)

    async def close(self) -> None:
        """At shutdown: stop waiting out buckets (the requests were all applied)."""
        for task in list(self._finishing):
            task.cancel()
        await asyncio.gather(*self._finishing, return_exceptions=True)
        self._finishing.clear()

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._finishing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.info("a request Discord applied ended with %r", task.exception())

    async def _request_ended(
        self,
        session: aiohttp.ClientSession,
        context: Any,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        if not self._waiting or not 200 <= params.response.status < 300:
            return
        path = params.url.path
        for (method, suffix), waiting in list(self._waiting.items()):
            if method == params.method and path.endswith(suffix):
                for landed in waiting:
                    if not landed.done():
                        landed.set_result(None)
