"""The publisher's convergence loop: one worker per session shows its newest stored version
(each seat's private controls first, then the public message), reads the version again after
every edit, and retries a failed show with back-off and jitter; a reconciler repairs every
session whose shown version is behind, at start-up and in a slow sweep.

The reconciler claims the stale sessions it repairs for a lease (``REPAIR_LEASE_SECONDS``),
so two processes never both repair (or post again) one message; this process ends its claims
when the repair is recorded, or when it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import time
from dataclasses import replace
from typing import Any

import discord

from bot import i18n
from bot.model.clock import Clock
from bot.model.contract import GameHandler, Outcome
from bot.storage import StorageUnavailable
from bot.storage.publication import PublicationStore
from bot.ui.answers import NETWORK_ERRORS
from bot.ui.delivery import Delivery
from bot.ui.publish_answer import AnswerShows
from bot.ui.publish_contract import (
    BUG_RETRY_SECONDS,
    FIRST_RETRY_SECONDS,
    PUBLISHER_LOG,
    AnswerUnderWay,
    Background,
    Later,
    Stamps,
)
from bot.ui.publish_ledger import Ledger
from bot.ui.publish_private import PrivateMessages
from bot.ui.publish_public import PublicMessage

log = logging.getLogger(PUBLISHER_LOG)

# Retries after a transient failure: 1 s doubling to 60 s, each drawn between half and
# all of that (jitter, so a burst of failures does not retry in lock step).
MAX_RETRY_SECONDS = 60.0
# Between two edits of one message (Discord rate-limits edits per channel).
MIN_EDIT_INTERVAL_SECONDS = 0.25
# The slow sweep, in game-clock seconds, and how many sessions one sweep looks at.
SWEEP_INTERVAL_SECONDS = 120.0
SWEEP_LIMIT = 1_000
# The sweep leaves alone sessions that moved this recently: whichever process moved them
# is showing them right now. A repair is claimed for this long (game-clock seconds): the
# claims of a process that died run out and another process's sweep repairs its games.
SWEEP_SETTLE_SECONDS = 10.0
REPAIR_LEASE_SECONDS = 60.0
CLOSE_GRACE_SECONDS = 5.0
FORCE_COOLDOWN_SECONDS = 5.0


class Convergence:
    def __init__(
        self,
        bot: Delivery,
        store: PublicationStore,
        clock: Clock,
        ledger: Ledger,
        answers: AnswerShows,
        public: PublicMessage,
        private: PrivateMessages,
        stamps: Stamps,
        background: Background,
    ) -> None:
        self.bot = bot
        self.store = store
        self.clock = clock
        self._ledger = ledger
        self._answers = answers
        self._public = public
        self._private = private
        self._stamps = stamps
        self._background = background
        self.min_edit_interval = MIN_EDIT_INTERVAL_SECONDS
        self._workers: dict[int, asyncio.Task[None]] = {}
        # Requests that arrived while the session's worker was busy: it looks again.
        self._again: set[int] = set()
        self._forced: set[int] = set()
        self._last_forced: dict[int, float] = {}
        self._gather: dict[int, float] = {}
        # The newest version a commit in this process gave each session of a game with no
        # private messages, and the sessions a request asked to read from the database
        # (the sweep, a repair, a forced edit...): see ``_shows_its_commits``.
        self._committed: dict[int, int] = {}
        self._must_look: set[int] = set()
        # Workers waiting for a guild's permissions to change.
        self._permission_waits: dict[int, asyncio.Event] = {}
        # Workers waiting to retry a private message, woken by a request for their session.
        self._request_waits: dict[int, asyncio.Event] = {}
        self._loops: list[asyncio.Task[None]] = []
        # Sessions this process claimed to repair (``reconcile``): the claim ends when the
        # repair is done, or when the process stops, not a lease later.
        self._repairing: set[int] = set()
        # Workers waiting out a back-off: nothing of theirs is in flight, so a stop need
        # not wait for them.
        self._backing_off: set[int] = set()
        self._closing = False
        # For tests and the log: how many shows failed.
        self.failures = 0

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Repair what a crash or an outage left stale, then keep watching."""
        await self.reconcile()
        self._loops = [
            asyncio.create_task(self._sweep_loop(), name="publisher-sweep"),
            asyncio.create_task(self._ledger.keep_recording(), name="publisher-flush"),
        ]

    async def close(self) -> None:
        """Let edits in flight finish (within a grace period), then record what is shown and
        end this process's repair claims (the next process repairs at once)."""
        self._closing = True
        for task in self._loops:
            task.cancel()
        for session_id in self._backing_off:
            backing_off = self._workers.get(session_id)
            if backing_off is not None:
                backing_off.cancel()
        pending = self.pending()
        if pending:
            _, late = await asyncio.wait(pending, timeout=CLOSE_GRACE_SECONDS)
            for task in late:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        await asyncio.gather(*self._loops, return_exceptions=True)
        with contextlib.suppress(StorageUnavailable):
            await self._ledger.flush()
        if self._loops:  # it started, so it may hold claims (a bot that never set up has none)
            with contextlib.suppress(StorageUnavailable):
                await self.store.release_repairs(self.bot.sessions.instance)

    def pending(self) -> list[asyncio.Task[Any]]:
        """Work under way: workers (some perhaps waiting to retry) and pings."""
        return [*self._workers.values(), *self._background.pending()]

    # -- requests -------------------------------------------------------------------------

    def committed(self, outcome: Outcome) -> None:
        """The session service's commit listener: show the outcome, send its pings."""
        handler = self.bot.sessions.handlers.get(outcome.session.game)
        gather = 0.0 if handler is None else handler.gather_after(outcome)
        quiet = handler is not None and not handler.private_messages
        if quiet:
            session_id, version = outcome.session.id, outcome.session.version
            self._committed[session_id] = max(version, self._committed.get(session_id, -1))
        self.request(outcome.session.id, gather=gather, look=not quiet)
        if handler is not None:
            self._background.spawn(self._notify(handler, outcome), f"notify-{outcome.session.id}")

    def request(
        self, session_id: int, *, gather: float = 0.0, force: bool = False, look: bool = True
    ) -> None:
        """Make the session's messages show its newest stored state, soon (see
        ``Publisher.request``)."""
        if self._closing:
            return
        if look:
            self._must_look.add(session_id)
        if force:
            # A forced edit answers a press on a stale-looking message; a player pressing
            # one again and again gets one repair, not one edit per press.
            now = time.monotonic()
            if now - self._last_forced.get(session_id, -math.inf) >= FORCE_COOLDOWN_SECONDS:
                self._last_forced[session_id] = now
                self._forced.add(session_id)
        if gather > 0:
            self._gather[session_id] = max(gather, self._gather.get(session_id, 0.0))
        if session_id in self._workers:
            self._again.add(session_id)
            waiting = self._request_waits.pop(session_id, None)
            if waiting is not None:
                waiting.set()
            return
        self._workers[session_id] = asyncio.create_task(
            self._run(session_id), name=f"publish-{session_id}"
        )

    def permissions_changed(self, guild_id: int) -> None:
        """The guild's channels or roles changed: retry what a missing permission held up."""
        waiting = self._permission_waits.pop(guild_id, None)
        if waiting is not None:
            waiting.set()

    async def reconcile(self, *, settle_seconds: float = 0.0) -> int:
        """Request every session whose public message is behind and that no other process
        is repairing (claimed for a lease, see ``PublicationStore.claim_stale``); only
        those unchanged for ``settle_seconds``. Returns how many."""
        now = self.clock.now()
        stale = await self.store.claim_stale(
            owner=self.bot.sessions.instance,
            now=now,
            lease_seconds=REPAIR_LEASE_SECONDS,
            limit=SWEEP_LIMIT,
            settled_before=now - settle_seconds,
        )
        count = 0
        for session_id, version in stale:
            if self._ledger.shown_here(session_id, version):
                continue
            if session_id not in self._workers:
                self._repairing.add(session_id)
                self.request(session_id)
                count += 1
        if count:
            log.info("repairing %d game message(s) that show an older state", count)
        return count

    # -- the worker -----------------------------------------------------------------------

    async def _run(self, session_id: int) -> None:
        failures = 0
        try:
            while not self._closing:
                gather = self._gather.pop(session_id, 0.0)
                if gather > 0:
                    await asyncio.sleep(gather)
                await self._answers.wait(session_id)
                self._again.discard(session_id)
                force = session_id in self._forced
                self._forced.discard(session_id)
                look = force or session_id in self._must_look
                self._must_look.discard(session_id)
                try:
                    if look or not self._shows_its_commits(session_id):
                        async with self._ledger.lock(session_id):
                            changed = await self._publish_once(session_id, force)
                    else:
                        changed = False
                except AnswerUnderWay:
                    self._must_look.add(session_id)
                    if force:
                        self._forced.add(session_id)
                    continue  # the loop waits for the answer, then looks again
                except Exception as error:
                    self._must_look.add(session_id)
                    later = error if isinstance(error, Later) else self._unexpected(session_id)
                    failures += 1
                    self.failures += 1
                    if force:
                        self._forced.add(session_id)
                    await self._wait(session_id, later, failures)
                    continue
                failures = 0
                if changed:
                    # Look again: a move may have landed while the edit was under way.
                    await asyncio.sleep(self.min_edit_interval)
                    continue
                if session_id in self._again or session_id in self._forced:
                    continue
                if session_id in self._repairing:
                    self._repairing.discard(session_id)
                    self._ledger.repaired(session_id)
                return
        finally:
            self._workers.pop(session_id, None)

    def _shows_its_commits(self, session_id: int) -> bool:
        """Whether the message already shows the newest commit this process made, in a game
        with no private messages, so there is nothing to read: a press's answer showed it.
        A commit made elsewhere is shown by the process that made it (or, if that process
        died, by the sweep), as it would be anyway."""
        committed = self._committed.get(session_id)
        return committed is not None and self._ledger.shown(session_id) >= committed

    def _unexpected(self, session_id: int) -> Later:
        # A bug (or a Discord answer we did not plan for): say so once, try again much later.
        log.exception("session %s: showing it failed unexpectedly", session_id)
        return Later("unexpected error", delay=BUG_RETRY_SECONDS)

    async def _wait(self, session_id: int, later: Later, failures: int) -> None:
        if later.until_requested and session_id in self._again:
            # Only a private message failed, and a look was asked for meanwhile: it comes
            # now (see below).
            log.info("session %s: showing it failed (%s); retrying now", session_id, later.reason)
            return
        delay = later.delay
        if delay is None:
            ceiling = min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** (failures - 1))
            delay = random.uniform(ceiling / 2, ceiling)
        log.info(
            "session %s: showing it failed (%s); retrying in %.1f s",
            session_id,
            later.reason,
            delay,
        )
        wakers: list[asyncio.Event] = []
        if later.guild_id is not None:
            # A missing permission: also retried as soon as the guild's channels or roles
            # change (a permission granted through the bot's own member shows no such
            # event, hence the timer too).
            wakers.append(self._permission_waits.setdefault(later.guild_id, asyncio.Event()))
        if later.until_requested:
            # Only a private message failed: a later move's due messages (another player's
            # controls, say) do not wait for its retry. They bring it forward instead.
            wakers.append(self._request_waits.setdefault(session_id, asyncio.Event()))
        self._backing_off.add(session_id)
        try:
            if later.real_time:
                await asyncio.sleep(delay)
            else:
                await self._sleep_or_wake(delay, wakers)
        finally:
            self._backing_off.discard(session_id)
            if later.until_requested:
                self._request_waits.pop(session_id, None)

    async def _sleep_or_wake(self, delay: float, wakers: list[asyncio.Event]) -> None:
        if not wakers:
            await self.clock.sleep(delay)
            return
        sleeper = asyncio.ensure_future(self.clock.sleep(delay))
        waiters = [asyncio.ensure_future(event.wait()) for event in wakers]
        try:
            await asyncio.wait({sleeper, *waiters}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            for waiter in waiters:
                waiter.cancel()

    async def _publish_once(self, session_id: int, force: bool) -> bool:
        """Bring the session's messages up to date; True if the public message was edited."""
        stamp = self._stamps.last
        try:
            snapshot = await self.store.snapshot(session_id)
        except StorageUnavailable as error:
            raise Later(f"database unavailable: {error}") from error
        if snapshot is None:
            return False
        session = snapshot.session
        handler = self.bot.sessions.handlers.get(session.game)
        if handler is None:
            return False
        if self._public.in_gone_channel(session):
            self._ledger.mark_shown(session.id, session.version)
            return False
        try:
            private = await self._private.sync(handler, snapshot, stamp)
        except StorageUnavailable as error:
            raise Later(f"database unavailable: {error}") from error
        if private.sent:
            # The public message says whose DMs are closed: the new rows say it, with no
            # second read.
            snapshot = replace(snapshot, private={**snapshot.private, **private.sent})
        # A private message Discord failed does not hold back the public one: it is shown
        # now, and the failure brings the retry (which finds the public message shown).
        changed = await self._public.show(handler, snapshot, force, stamp)
        if private.failure is not None:
            private.failure.until_requested = True
            raise private.failure
        return changed

    # -- in the background ------------------------------------------------------------------

    async def _sweep_loop(self) -> None:
        while True:
            await self.clock.sleep(SWEEP_INTERVAL_SECONDS)
            try:
                await self.reconcile(settle_seconds=SWEEP_SETTLE_SECONDS)
                # Interaction tokens are credentials: none is kept once it has expired.
                await self.bot.tokens.sweep()
            except StorageUnavailable:
                log.warning("message sweep: database unavailable, trying again later")
            now = time.monotonic()
            self._last_forced = {
                key: when
                for key, when in self._last_forced.items()
                if now - when < FORCE_COOLDOWN_SECONDS
            }
            # Forget what is settled in the database, so the memory stays small.
            self._ledger.forget(self._workers)
            self._committed = {
                session_id: version
                for session_id, version in self._committed.items()
                if session_id in self._workers
            }
            self._private.forget(self._workers)
            self._public.forget(self._workers)

    async def _notify(self, handler: GameHandler, outcome: Outcome) -> None:
        try:
            # Pings go under the game's public message: the game's language.
            with i18n.use(outcome.session.language):
                await handler.notify(outcome)
        except (discord.HTTPException, *NETWORK_ERRORS) as error:
            log.info("session %s: a ping could not be sent (%s)", outcome.session.id, error)
        except Exception:
            log.exception("session %s: sending its pings failed", outcome.session.id)
