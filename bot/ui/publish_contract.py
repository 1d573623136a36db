"""What the publisher's convergence loop and its parts say to each other: a show that failed
says when to try again (``Later``), a press showing the move in its own answer says "not now"
(``AnswerUnderWay``), any part asks for a look at a session (``Requests``), and the order of
the ends of answers and postings against the reads of the game (``Stamps``).

The parts (``publish_ledger``, ``publish_answer``, ``publish_public``, ``publish_private``) and
the loop that drives them (``publish_loop``) import this module, never each other in a
circle: ``bot.ui.publishing.Publisher`` builds them and passes each the others it uses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

# The publisher's parts all log under the one name its log lines have always had (hosts
# filter on it; the test harness sets its level).
PUBLISHER_LOG = "bot.ui.publishing"

# Retries after a transient failure start at this many seconds (doubling; see publish_loop).
FIRST_RETRY_SECONDS = 1.0
# A render that raises (a bug) is retried this much later.
BUG_RETRY_SECONDS = 300.0


class AnswerUnderWay(Exception):
    """A press is showing the session in its own answer right now."""


@dataclass
class Later(Exception):
    """The show failed; try again later (``guild_id``: also when permissions change;
    ``until_requested``: also as soon as the session is asked to be shown again;
    ``real_time``: the delay is in real seconds, for what another process ends in real
    time, not on the game clock)."""

    reason: str
    delay: float | None = None
    guild_id: int | None = None
    until_requested: bool = False
    real_time: bool = False


class Requests(Protocol):
    """How a part asks for a session's messages to be shown again (``Publisher.request``)."""

    def request(
        self, session_id: int, *, gather: float = 0.0, force: bool = False, look: bool = True
    ) -> None: ...


class Stamps:
    """Counts the ends of presses' answers and of postings: a snapshot of the game read
    before one ended (``last`` when it was read is lower than the end's stamp) may not hold
    what it stored yet (what an answer showed, the id of the message a posting sent)."""

    def __init__(self) -> None:
        self.last = 0

    def next(self) -> int:
        self.last += 1
        return self.last


class Background:
    """Tasks the publisher started beside its workers (pings, storing a message id late):
    a stop and ``settled`` wait for them too."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coroutine: Coroutine[Any, Any, Any], name: str) -> None:
        task = asyncio.create_task(coroutine, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def pending(self) -> list[asyncio.Task[Any]]:
        return list(self._tasks)
