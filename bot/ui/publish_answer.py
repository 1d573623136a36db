"""Showing a move in the interaction's own answer: a press that moves a game answers by
editing the game's message (``Publisher.answering``), and meanwhile the session's worker
waits, so the move shows in the answer itself rather than in a second edit. If Discord loses
that answer, or the answer may not show it (a newer version is on screen, another process is
editing the message), the worker shows the move after the press.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from bot import i18n
from bot.model.contract import Session, ShowContext
from bot.storage import StorageUnavailable
from bot.storage.publication import ShowClaim
from bot.ui import views
from bot.ui.answers import Answer
from bot.ui.delivery import Delivery
from bot.ui.publish_contract import PUBLISHER_LOG, Requests
from bot.ui.publish_ledger import Ledger

log = logging.getLogger(PUBLISHER_LOG)

# Another process is editing the message: a press's answer waits for it this long at most
# (then the worker shows the move).
ANSWER_CLAIM_WAIT_SECONDS = 1.0
ANSWER_CLAIM_POLL_SECONDS = 0.05

ShowInAnswer = Callable[[Answer, Session, list[Any]], Awaitable[None]]


class AnswerShows:
    def __init__(self, bot: Delivery, ledger: Ledger, requests: Requests) -> None:
        self.bot = bot
        self._ledger = ledger
        self._requests = requests
        # Presses answering with the game's message right now, by session.
        self._answering: dict[int, list[asyncio.Event]] = {}

    @contextlib.asynccontextmanager
    async def answering(self, session_id: int) -> AsyncIterator[ShowInAnswer]:
        """Around a press that moves a game and answers by editing the game's message
        (``show(answer, session, events)`` inside the block): while it runs, the session's
        worker waits, so the move shows in the answer itself rather than in a second edit.
        If Discord loses that answer, the worker edits the message after the block."""
        done = asyncio.Event()
        self._answering.setdefault(session_id, []).append(done)
        # Whether the answer left the move to the worker, which must then read the game.
        left = False

        async def show(answer: Answer, session: Session, events: list[Any]) -> None:
            nonlocal left
            if not await self._show(answer, session, events):
                left = True

        try:
            yield show
        finally:
            waiting = self._answering.get(session_id, [])
            if done in waiting:
                waiting.remove(done)
            if not waiting:
                self._answering.pop(session_id, None)
            done.set()
            # The press's own commit, if any, is in the loop's commits (and if it is not,
            # the block committed nothing this process must show).
            self._requests.request(session_id, look=left)

    def under_way(self, session_id: int) -> bool:
        """Whether a press is answering with the session's message right now."""
        return bool(self._answering.get(session_id))

    async def wait(self, session_id: int) -> None:
        """Until the presses answering with the session's message now have ended."""
        for answering in list(self._answering.get(session_id, [])):
            await answering.wait()

    async def _show(self, answer: Answer, session: Session, events: list[Any]) -> bool:
        """Show the session in the answer; False if it left that to the worker."""
        handler = self.bot.sessions.handlers[session.game]
        async with self._ledger.lock(session.id):
            if self._ledger.known_shown(session) >= session.version:
                log.debug("session %s: version %s already shown", session.id, session.version)
                await answer.acknowledge()
                return True
            claim = await self._claim(session)
            if claim is not ShowClaim.GRANTED:
                # A newer version is on screen, or another process is still editing the
                # message: the answer cannot wait on it, so it only acknowledges the press
                # and the worker shows the move (if nothing newer is there by then).
                log.debug(
                    "session %s: the answer leaves version %s (%s)",
                    session.id,
                    session.version,
                    "database unavailable" if claim is None else claim.value,
                )
                await answer.acknowledge()
                return False
            context = ShowContext(events=events, dm_closed=self._ledger.closed_dms(session.id))
            with i18n.use(session.language):
                fields = await handler.render(session, context)
            async with self._ledger.editing(session.id, session.version):
                with views.released(fields):
                    shown = await answer.update(**fields)
            if shown:
                self._ledger.mark_shown(session.id, session.version)
                log.debug("session %s: the answer shows version %s", session.id, session.version)
            return True

    async def _claim(self, session: Session) -> ShowClaim | None:
        """Claim the message for a press's answer, waiting a little for another process's
        edit in flight; None if the database could not say."""
        deadline = time.monotonic() + ANSWER_CLAIM_WAIT_SECONDS
        while True:
            try:
                claim = await self._ledger.claim(session.id, session.version)
            except StorageUnavailable:
                return None
            if claim is not ShowClaim.BUSY or time.monotonic() >= deadline:
                return claim
            await asyncio.sleep(ANSWER_CLAIM_POLL_SECONDS)
