"""What this process knows is on the games' public messages, ahead of the database: the
version each shows (recorded in batches in ``sessions.shown_version``), the messages it has
claimed to edit and the edits still in flight under those claims, whose DMs each message says
are closed, and one lock per session (a worker's look and a press's answer never overlap).

Before any edit, post or answer shows a version, the process claims the message in the
database (``PublicationStore.claim_show``): granted only if no newer version has been shown
or is being shown and no other process is editing that message now. The claim ends with the
next recording of what is shown (never under an edit in flight), or after
``SHOW_LEASE_SECONDS`` for a process that died.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections.abc import AsyncIterator, Container

from bot.model.clock import Clock
from bot.model.contract import Session
from bot.storage import StorageUnavailable
from bot.storage.publication import PublicationStore, ShowClaim
from bot.ui.delivery import Delivery
from bot.ui.publish_contract import PUBLISHER_LOG, Requests

log = logging.getLogger(PUBLISHER_LOG)

# Recorded shown versions are written this often (real time), many in one transaction.
FLUSH_INTERVAL_SECONDS = 0.5
# A claim to edit a public message (``PublicationStore.claim_show``) lasts this long on the
# game clock: far longer than an edit takes; a process that dies holding one delays that
# message's next edit by at most this. An edit that took longer than SHOW_LATE_SECONDS may
# have landed after another process's newer one: if a newer version was claimed meanwhile,
# the newest is shown again at once.
SHOW_LEASE_SECONDS = 5.0
SHOW_LATE_SECONDS = 0.8 * SHOW_LEASE_SECONDS


class Ledger:
    def __init__(
        self, bot: Delivery, store: PublicationStore, clock: Clock, requests: Requests
    ) -> None:
        self.bot = bot
        self.store = store
        self.clock = clock
        self._requests = requests
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        # What this process knows is on screen (ahead of the database, written in batches).
        self._shown: dict[int, int] = {}
        self._unsaved: dict[int, int] = {}
        self._flush_wanted = asyncio.Event()
        self._closed_dms: dict[int, frozenset[int]] = {}
        # Sessions whose repair (``Convergence.reconcile``) is done: their repair claims end
        # with the next recording of what is shown.
        self._repaired: set[int] = set()
        # Public messages this process has claimed to edit (``claim``), and how many of
        # their edits or answers are in flight: a claim ends at the next recording of
        # what is shown, but never under an edit still on its way.
        self._claims: set[int] = set()
        self._in_flight: dict[int, int] = {}

    def lock(self, session_id: int) -> asyncio.Lock:
        lock = self._locks.get(session_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[session_id] = lock
        return lock

    # -- what is shown ----------------------------------------------------------------------

    def shown(self, session_id: int) -> int:
        """The newest version this process knows the public message shows (-1: none)."""
        return self._shown.get(session_id, -1)

    def known_shown(self, session: Session) -> int:
        return max(self._shown.get(session.id, -1), session.shown_version)

    def mark_shown(self, session_id: int, version: int) -> None:
        if self._shown.get(session_id, -1) >= version:
            return
        self._shown[session_id] = version
        self._unsaved[session_id] = version
        self._flush_wanted.set()

    def shown_here(self, session_id: int, version: int) -> bool:
        """Whether this process has shown ``version`` already (only the database is behind):
        if so, it is recorded again with the next batch."""
        if self._shown.get(session_id, -1) < version:
            return False
        self._unsaved[session_id] = max(version, self._unsaved.get(session_id, -1))
        self._flush_wanted.set()
        return True

    def closed_dms(self, session_id: int) -> frozenset[int]:
        """The seats whose DMs the public message says are closed."""
        return self._closed_dms.get(session_id, frozenset())

    def note_closed_dms(self, session_id: int, closed: frozenset[int]) -> bool:
        """Remember whose DMs are closed now; True if that changed what the message says."""
        changed = closed != self._closed_dms.get(session_id, frozenset())
        self._closed_dms[session_id] = closed
        return changed

    def repaired(self, session_id: int) -> None:
        """The session's repair is done: its claim ends with the next recording (so that no
        other process finds the session behind in between)."""
        self._repaired.add(session_id)
        self._flush_wanted.set()

    def forget(self, busy: Container[int]) -> None:
        """Forget what is settled in the database (sessions with no worker in ``busy`` and
        nothing left to record), so the memory stays small."""
        for session_id in [s for s in self._shown if s not in busy]:
            if session_id not in self._unsaved:
                del self._shown[session_id]
                self._closed_dms.pop(session_id, None)

    # -- claims and edits ---------------------------------------------------------------------

    async def claim(self, session_id: int, version: int) -> ShowClaim:
        """Claim the public message to show ``version`` (``PublicationStore.claim_show``)."""
        claim = await self.store.claim_show(
            session_id,
            version,
            owner=self.bot.sessions.instance,
            now=self.clock.now(),
            lease_seconds=SHOW_LEASE_SECONDS,
        )
        if claim is ShowClaim.GRANTED:
            self._claims.add(session_id)
        return claim

    @contextlib.asynccontextmanager
    async def editing(self, session_id: int, version: int) -> AsyncIterator[None]:
        """Around an edit (or answer) showing ``version`` under this process's claim: the
        claim is not ended while it is in flight, and one that took so long that the claim
        may have run out is followed by the newest version at once if a newer one was
        claimed meanwhile (it may have landed first)."""
        self._in_flight[session_id] = self._in_flight.get(session_id, 0) + 1
        started = time.monotonic()
        try:
            yield
        finally:
            left = self._in_flight.pop(session_id) - 1
            if left:
                self._in_flight[session_id] = left
            self._flush_wanted.set()
            if time.monotonic() - started > SHOW_LATE_SECONDS:
                await self._after_late_edit(session_id, version)

    async def _after_late_edit(self, session_id: int, version: int) -> None:
        """Show the newest version again if another process claimed a newer one while this
        edit was late. Not otherwise: an edit is late whenever Discord's limits queue it
        (thousands of timers due at a restart), and showing each again, late in turn, kept
        every message of such a restart edited again and again (bench/restart.py)."""
        try:
            fence = await self.store.show_fence(session_id)
            newer = fence is not None and fence > version
        except StorageUnavailable:
            newer = True  # cannot tell: show the newest again, to be safe
        if newer:
            log.info(
                "session %s: an edit took over %.0f s and a newer version was claimed "
                "meanwhile; showing the newest again",
                session_id,
                SHOW_LATE_SECONDS,
            )
            self._requests.request(session_id, force=True)

    # -- recording ------------------------------------------------------------------------------

    async def flush(self) -> None:
        """Record what is shown, end the claims with nothing in flight and the repairs done."""
        batch, self._unsaved = self._unsaved, {}
        repaired, self._repaired = self._repaired, set()
        # Claims with nothing in flight end now; a message under an edit keeps its claim.
        freed = {session_id for session_id in self._claims if session_id not in self._in_flight}
        try:
            await self.store.record_shown(batch, owner=self.bot.sessions.instance, release=freed)
        except BaseException:
            for session_id, version in batch.items():
                self._unsaved[session_id] = max(version, self._unsaved.get(session_id, -1))
            self._repaired |= repaired
            raise
        self._claims -= freed
        if repaired:
            # Best effort: a claim left behind ends with its lease.
            with contextlib.suppress(StorageUnavailable):
                await self.store.release_repairs(self.bot.sessions.instance, repaired)

    async def keep_recording(self) -> None:
        """Record what is shown, in batches, whenever there is something to record."""
        while True:
            await self._flush_wanted.wait()
            await asyncio.sleep(FLUSH_INTERVAL_SECONDS)
            self._flush_wanted.clear()
            try:
                await self.flush()
            except StorageUnavailable:
                log.warning("could not record which game messages are up to date; retrying")
                self._flush_wanted.set()
