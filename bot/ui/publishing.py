"""Publishing: every message players see is a projection of the stored session, and it
converges on it.

After every commit the publisher shows the session (the session service tells it, so no
move can be forgotten): each seat's private controls first (DMs), then the public message,
rendered by the game's handler from the stored session alone. The version the public
message shows is recorded (``sessions.shown_version``, written in batches); a failed show
is retried with back-off and jitter, and a reconciler repairs every session whose shown
version is behind: at start-up before anything else, after each failure, and in a slow
sweep. Whatever fails — a lost interaction answer, a 5xx, a run of 429s, a missing
permission, a deleted message (posted again, its new id stored), a crash between the
commit and the edit — the message ends up showing the stored game.

An older render never overwrites a newer one, whichever process draws it: one worker per
session renders the newest stored version and reads the version again after every edit;
and before any edit, post or answer shows a version, the process claims the message in the
database (``PublicationStore.claim_show``): granted only if no newer version has been shown
or is being shown (the session's ``show_fence``) and no other process is editing that
message now. So edits of one message never race on Discord's side, even between processes;
the claim ends with the next recording of what is shown (never under an edit in flight),
or after ``SHOW_LEASE_SECONDS`` for a process that died. A per-message claim rather than a
plain compare-and-set on the shown version: a compare-and-set decides who may edit, but not
in which order two edits already sent land. The reconciler claims the stale sessions it
repairs for a lease (``REPAIR_LEASE_SECONDS``), so two processes never both repair (or
post again) one message; it ends them when the repair is recorded, or when the process
stops. A game with no message stored looks for the one a dying process may have posted
before it could store its id, rather than post a second one.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import random
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import discord

from bot import i18n
from bot.model.clock import Clock
from bot.model.contract import (
    CHANNEL_DELETED,
    MESSAGE_REFUSED,
    GameHandler,
    Outcome,
    Seat,
    Session,
    ShowContext,
)
from bot.model.errors import UserError
from bot.storage import StorageUnavailable
from bot.storage.publication import PrivateMessage, PublicationStore, ShowClaim, Snapshot
from bot.ui import views
from bot.ui.answers import NETWORK_ERRORS, Answer, answer_for
from bot.ui.delivery import Delivery

log = logging.getLogger(__name__)

UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
DM_CLOSED = 50007

# Retries after a transient failure: 1 s doubling to 60 s, each drawn between half and
# all of that (jitter, so a burst of failures does not retry in lock step).
FIRST_RETRY_SECONDS = 1.0
MAX_RETRY_SECONDS = 60.0
# A render that raises (a bug) is retried this much later.
BUG_RETRY_SECONDS = 300.0
# A session without a message whose first answer may still be under way elsewhere (another
# process posting it) is posted by the publisher only this long after it was created.
ORPHAN_GRACE_SECONDS = 30.0
# A game with no message stored looks for one the bot posted for it (a process that died
# before storing its id) among this many recent messages of its channel, posted since the
# game began (less a margin for clocks that differ between processes).
FIND_POSTED_LIMIT = 50
FIND_POSTED_MARGIN_SECONDS = 5.0
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
# Recorded shown versions are written this often (real time), many in one transaction.
FLUSH_INTERVAL_SECONDS = 0.5
CLOSE_GRACE_SECONDS = 5.0
FORCE_COOLDOWN_SECONDS = 5.0
# A claim to edit a public message (``PublicationStore.claim_show``) lasts this long on the
# game clock: far longer than an edit takes; a process that dies holding one delays that
# message's next edit by at most this. An edit that took longer than SHOW_LATE_SECONDS may
# have landed after another process's newer one: the newest is shown again at once.
SHOW_LEASE_SECONDS = 5.0
SHOW_LATE_SECONDS = 0.8 * SHOW_LEASE_SECONDS
# Another process is editing the message: a worker tries again this soon; a press's
# answer waits for it this long at most (then the worker shows the move).
CLAIM_RETRY_SECONDS = 0.25
ANSWER_CLAIM_WAIT_SECONDS = 1.0
ANSWER_CLAIM_POLL_SECONDS = 0.05


ShowInAnswer = Callable[[Answer, Session, list[Any]], Awaitable[None]]


class _AnswerUnderWay(Exception):
    """A press is showing the session in its own answer right now."""


@dataclass
class _Later(Exception):
    """The show failed; try again later (``guild_id``: also when permissions change;
    ``until_requested``: also as soon as the session is asked to be shown again;
    ``real_time``: the delay is in real seconds, for what another process ends in real
    time, not on the game clock)."""

    reason: str
    delay: float | None = None
    guild_id: int | None = None
    until_requested: bool = False
    real_time: bool = False


@dataclass
class _PrivateSync:
    """What bringing a session's private messages up to date did."""

    # The rows of the new DMs that went out (or found DMs closed), by seat.
    sent: dict[int, PrivateMessage] = field(default_factory=dict)
    failure: _Later | None = None  # the first seat Discord failed: try it again later


def signature(fields: dict[str, Any]) -> str:
    """What a message would show, as a short comparable string."""
    view = fields.get("view")
    embed = fields.get("embed")
    embeds = fields.get("embeds") or ([] if embed is None else [embed])
    data = {
        "content": fields.get("content"),
        "embeds": [item.to_dict() for item in embeds],
        "components": view.to_components() if view is not None else [],
    }
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _controls_session(message: discord.Message, session_id: int) -> bool:
    """Whether one of the message's controls belongs to the session: every game's custom
    ids carry the session's id second (``kb:<session>:...``, ``challenge:<session>:...``)."""
    wanted = str(session_id)
    pending: list[Any] = list(message.components)
    while pending:
        item = pending.pop()
        pending.extend(getattr(item, "children", None) or [])
        custom_id = getattr(item, "custom_id", None)
        if isinstance(custom_id, str) and custom_id.split(":")[1:2] == [wanted]:
            return True
    return False


def as_new_message(fields: dict[str, Any]) -> dict[str, Any]:
    """Edit fields (``attachments``, ``None`` meaning "remove") as arguments for sending a
    new message, where files are ``files`` and an absent part is simply left out."""
    sent = {k: v for k, v in fields.items() if v is not None and k != "attachments"}
    files = [item for item in fields.get("attachments", []) if isinstance(item, discord.File)]
    if files:
        sent["files"] = files
    return sent


class Publisher:
    def __init__(self, bot: Delivery, store: PublicationStore, clock: Clock) -> None:
        self.bot = bot
        self.store = store
        self.clock = clock
        self.min_edit_interval = MIN_EDIT_INTERVAL_SECONDS
        self._workers: dict[int, asyncio.Task[None]] = {}
        # Requests that arrived while the session's worker was busy: it looks again.
        self._again: set[int] = set()
        self._forced: set[int] = set()
        self._last_forced: dict[int, float] = {}
        self._gather: dict[int, float] = {}
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        # What this process knows is on screen (ahead of the database, written in batches).
        self._shown: dict[int, int] = {}
        self._unsaved: dict[int, int] = {}
        self._flush_wanted = asyncio.Event()
        self._closed_dms: dict[int, frozenset[int]] = {}
        # The newest version a commit in this process gave each session of a game with no
        # private messages, and the sessions a request asked to read from the database
        # (the sweep, a repair, a forced edit...): see ``_shows_its_commits``.
        self._committed: dict[int, int] = {}
        self._must_look: set[int] = set()
        # Presses answering with the game's message right now (see ``answering``), and
        # with a seat's own private message (see ``answering_privately``).
        self._answering: dict[int, list[asyncio.Event]] = {}
        self._answering_privately: dict[tuple[int, int], int] = {}
        # When each of those last ended, and each posting below (``_stamp`` counts the
        # ends): a snapshot read before one ended may not hold what it stored yet (what an
        # answer showed, the id of the message a posting sent).
        self._private_answer_ended: dict[tuple[int, int], int] = {}
        self._posting_ended: dict[int, int] = {}
        self._stamp = 0
        # Sessions whose first message an interaction is posting right now (until the
        # posting's end has read the game and asked for a look), and those whose first
        # message was lost and is the publisher's to post.
        self._posting: set[int] = set()
        self._orphans: set[int] = set()
        # Set when a posting ends: ``settled`` waits for them too, so a test's next step
        # does not race the look a game's first post asks for when it ends.
        self._posting_over = asyncio.Event()
        self._gone_channels: set[int] = set()
        # Workers waiting for a guild's permissions to change.
        self._permission_waits: dict[int, asyncio.Event] = {}
        # Workers waiting to retry a private message, woken by a request for their session.
        self._request_waits: dict[int, asyncio.Event] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[None]] = []
        # Sessions this process claimed to repair (``reconcile``): the claim ends when the
        # repair is done, or when the process stops, not a lease later.
        self._repairing: set[int] = set()
        self._repaired: set[int] = set()
        # Public messages this process has claimed to edit (``_claim``), and how many of
        # their edits or answers are in flight: a claim ends at the next recording of
        # what is shown, but never under an edit still on its way.
        self._claims: set[int] = set()
        self._in_flight: dict[int, int] = {}
        # Workers waiting out a back-off: nothing of theirs is in flight, so a stop need
        # not wait for them.
        self._backing_off: set[int] = set()
        self._closing = False
        # For tests and the log: counts of what was done.
        self.edits = 0
        self.reposts = 0
        self.failures = 0

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Repair what a crash or an outage left stale, then keep watching."""
        await self.reconcile()
        self._loops = [
            asyncio.create_task(self._sweep_loop(), name="publisher-sweep"),
            asyncio.create_task(self._flush_loop(), name="publisher-flush"),
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
        pending = [*self._workers.values(), *self._tasks]
        if pending:
            _, late = await asyncio.wait(pending, timeout=CLOSE_GRACE_SECONDS)
            for task in late:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        await asyncio.gather(*self._loops, return_exceptions=True)
        with contextlib.suppress(StorageUnavailable):
            await self._flush()
        if self._loops:  # it started, so it may hold claims (a bot that never set up has none)
            with contextlib.suppress(StorageUnavailable):
                await self.store.release_repairs(self.bot.sessions.instance)

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
            self._spawn(self._notify(handler, outcome), f"notify-{outcome.session.id}")

    def request(
        self, session_id: int, *, gather: float = 0.0, force: bool = False, look: bool = True
    ) -> None:
        """Make the session's messages show its newest stored state, soon. ``gather`` waits
        that long first (a burst of bets lands in one edit); ``force`` edits even when the
        message is believed to be up to date (a press showed it is not). ``look=False``:
        only to show commits made in this process, already in ``_committed``."""
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
            if self._shown.get(session_id, -1) >= version:
                self._unsaved[session_id] = max(version, self._unsaved.get(session_id, -1))
                self._flush_wanted.set()
                continue
            if session_id not in self._workers:
                self._repairing.add(session_id)
                self.request(session_id)
                count += 1
        if count:
            log.info("repairing %d game message(s) that show an older state", count)
        return count

    # -- the interaction's own answer -----------------------------------------------------

    @contextlib.asynccontextmanager
    async def answering(self, session_id: int) -> AsyncIterator[ShowInAnswer]:
        """Around a press that moves a game and answers by editing the game's message
        (``show(answer, session, events)`` inside the block): while it runs, the session's
        worker waits, so the move shows in the answer itself rather than in a second edit.
        If Discord loses that answer, the worker edits the message after the block."""
        done = asyncio.Event()
        self._answering.setdefault(session_id, []).append(done)

        async def show(answer: Answer, session: Session, events: list[Any]) -> None:
            await self._show_in_answer(answer, session, events)

        try:
            yield show
        finally:
            waiting = self._answering.get(session_id, [])
            if done in waiting:
                waiting.remove(done)
            if not waiting:
                self._answering.pop(session_id, None)
            done.set()
            # The press's own commit, if any, is in ``_committed`` (and if it is not, the
            # block committed nothing this process must show).
            self.request(session_id, look=False)

    async def _show_in_answer(self, answer: Answer, session: Session, events: list[Any]) -> None:
        handler = self._handler(session)
        async with self._lock(session.id):
            if self._known_shown(session) >= session.version:
                log.debug("session %s: version %s already shown", session.id, session.version)
                await answer.acknowledge()
                return
            claim = await self._claim_for_answer(session)
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
                self._must_look.add(session.id)
                return
            context = ShowContext(
                events=events, dm_closed=self._closed_dms.get(session.id, frozenset())
            )
            with i18n.use(session.language):
                fields = await handler.render(session, context)
            async with self._editing(session.id):
                with views.released(fields):
                    shown = await answer.update(**fields)
            if shown:
                self._mark_shown(session.id, session.version)
                log.debug("session %s: the answer shows version %s", session.id, session.version)

    async def _claim_for_answer(self, session: Session) -> ShowClaim | None:
        """Claim the message for a press's answer, waiting a little for another process's
        edit in flight; None if the database could not say."""
        deadline = time.monotonic() + ANSWER_CLAIM_WAIT_SECONDS
        while True:
            try:
                claim = await self._claim(session.id, session.version)
            except StorageUnavailable:
                return None
            if claim is not ShowClaim.BUSY or time.monotonic() >= deadline:
                return claim
            await asyncio.sleep(ANSWER_CLAIM_POLL_SECONDS)

    async def _claim(self, session_id: int, version: int) -> ShowClaim:
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
    async def _editing(self, session_id: int) -> AsyncIterator[None]:
        """Around an edit (or answer) under this process's claim: the claim is not ended
        while it is in flight, and one that took so long that the claim may have run out
        is followed by the newest version at once."""
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
                log.info(
                    "session %s: an edit took over %.0f s; showing the newest again",
                    session_id,
                    SHOW_LATE_SECONDS,
                )
                self.request(session_id, force=True)

    async def post_first(
        self, interaction: discord.Interaction, session: Session, fields: dict[str, Any]
    ) -> None:
        """Answer the command that created ``session`` with its public message and store
        the message's id. If Discord loses that answer, the publisher posts the message in
        the channel itself (or, if it may not post there, ends the game)."""
        answer = answer_for(interaction)
        answer.public = True
        async with self.posting(session.id):
            with views.released(fields):
                message_id = await answer.send(ephemeral=False, **as_new_message(fields))
            if message_id is None:
                return
            self._mark_shown(session.id, session.version)
            try:
                await self.bot.sessions.set_message(session.id, message_id, session.version)
            except StorageUnavailable:
                # The message is up; only its id is not stored yet. Keep trying in the
                # background rather than tell the player their game failed.
                self._spawn(self._store_message_later(session, message_id), "store-message")

    @contextlib.asynccontextmanager
    async def posting(self, session_id: int) -> AsyncIterator[None]:
        """Around posting a new game's first message: the publisher does not post it too.
        If the block ends without the message stored, the publisher posts it."""
        self._posting.add(session_id)
        try:
            yield
        finally:
            self._posting_ended[session_id] = self._next_stamp()
            try:
                session = await self.bot.sessions.get(session_id)
            except StorageUnavailable:
                session = None  # the sweep looks again later
            finally:
                self._posting.discard(session_id)
                self._posting_over.set()
            if session is not None and session.message_id is None:
                self._orphans.add(session_id)
            self.request(session_id)

    @contextlib.asynccontextmanager
    async def answering_privately(self, session_id: int, user_id: int) -> AsyncIterator[None]:
        """Around a press that moves a game and answers by editing the player's own private
        message (``record_private_shown`` inside the block): meanwhile the publisher leaves
        that player's private messages alone, so it does not edit the message a second time
        to what the answer shows; the public message and the other seats go on at once.
        After the block it looks again (and edits the message if Discord lost the answer).
        Keyed by the player, not their seat: the press need not read the game to enter."""
        key = (session_id, user_id)
        self._answering_privately[key] = self._answering_privately.get(key, 0) + 1
        try:
            yield
        finally:
            left = self._answering_privately.pop(key) - 1
            if left:
                self._answering_privately[key] = left
            self._private_answer_ended[key] = self._next_stamp()
            self.request(session_id)

    async def record_private_shown(
        self, session: Session, seat: int, key: str, fields: dict[str, Any], message_id: int
    ) -> None:
        """A press edited the seat's private message (``message_id``) to ``fields`` itself:
        remember it, so the publisher does not edit it again to the same thing."""
        await self.store.record_private_shown(
            session.id, seat, key=key, message_id=message_id, shown=signature(fields)
        )

    # -- the worker -----------------------------------------------------------------------

    async def _run(self, session_id: int) -> None:
        failures = 0
        try:
            while not self._closing:
                gather = self._gather.pop(session_id, 0.0)
                if gather > 0:
                    await asyncio.sleep(gather)
                for answering in list(self._answering.get(session_id, [])):
                    await answering.wait()
                self._again.discard(session_id)
                force = session_id in self._forced
                self._forced.discard(session_id)
                look = force or session_id in self._must_look
                self._must_look.discard(session_id)
                try:
                    if look or not self._shows_its_commits(session_id):
                        async with self._lock(session_id):
                            changed = await self._publish_once(session_id, force)
                    else:
                        changed = False
                except _AnswerUnderWay:
                    self._must_look.add(session_id)
                    if force:
                        self._forced.add(session_id)
                    continue  # the loop waits for the answer, then looks again
                except Exception as error:
                    self._must_look.add(session_id)
                    later = error if isinstance(error, _Later) else self._unexpected(session_id)
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
                    # The claim ends with the next recording of what is shown (so that no
                    # other process finds the session behind in between).
                    self._repairing.discard(session_id)
                    self._repaired.add(session_id)
                    self._flush_wanted.set()
                return
        finally:
            self._workers.pop(session_id, None)

    def _next_stamp(self) -> int:
        self._stamp += 1
        return self._stamp

    def _shows_its_commits(self, session_id: int) -> bool:
        """Whether the message already shows the newest commit this process made, in a game
        with no private messages, so there is nothing to read: a press's answer showed it.
        A commit made elsewhere is shown by the process that made it (or, if that process
        died, by the sweep), as it would be anyway."""
        committed = self._committed.get(session_id)
        return committed is not None and self._shown.get(session_id, -1) >= committed

    def _unexpected(self, session_id: int) -> _Later:
        # A bug (or a Discord answer we did not plan for): say so once, try again much later.
        log.exception("session %s: showing it failed unexpectedly", session_id)
        return _Later("unexpected error", delay=BUG_RETRY_SECONDS)

    async def _wait(self, session_id: int, later: _Later, failures: int) -> None:
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
        stamp = self._stamp
        try:
            snapshot = await self.store.snapshot(session_id)
        except StorageUnavailable as error:
            raise _Later(f"database unavailable: {error}") from error
        if snapshot is None:
            return False
        session = snapshot.session
        handler = self.bot.sessions.handlers.get(session.game)
        if handler is None:
            return False
        if session.channel_id in self._gone_channels:
            self._mark_shown(session.id, session.version)
            return False
        try:
            private = await self._sync_private(handler, snapshot, stamp)
        except StorageUnavailable as error:
            raise _Later(f"database unavailable: {error}") from error
        if private.sent:
            # The public message says whose DMs are closed: the new rows say it, with no
            # second read.
            snapshot = replace(snapshot, private={**snapshot.private, **private.sent})
        # A private message Discord failed does not hold back the public one: it is shown
        # now, and the failure brings the retry (which finds the public message shown).
        changed = await self._show_public(handler, snapshot, force, stamp)
        if private.failure is not None:
            private.failure.until_requested = True
            raise private.failure
        return changed

    async def _show_public(
        self, handler: GameHandler, snapshot: Snapshot, force: bool, stamp: int
    ) -> bool:
        """Bring the public message up to date; True if it was edited (or posted)."""
        session = snapshot.session
        session_id = session.id
        closed = frozenset(seat for seat, row in snapshot.private.items() if row.closed)
        if closed != self._closed_dms.get(session.id, frozenset()):
            # The public message says whose DMs are closed: show the change.
            force = True
        self._closed_dms[session.id] = closed
        if self._known_shown(session) >= session.version and not force:
            return False
        if self._answering.get(session_id):
            # A press is about to show this version in its own answer (it committed after
            # registering): let it, rather than edit the same message twice.
            raise _AnswerUnderWay()
        if session.message_id is None and (
            not self._may_post(session) or self._posting_ended.get(session.id, 0) > stamp
        ):
            # The command that created the game is still posting its message (here or in
            # another process), or finished after this snapshot was read, so the message
            # may be there: it asks for a publish when done; the sweep catches a message
            # that never came.
            return False
        context = ShowContext(events=snapshot.events, dm_closed=closed)
        try:
            if session.message_id is None:
                if not await self._claim_for_edit(session):
                    return False
                await self._post_new(handler, session, context)
            else:
                try:
                    fields = await self._render(handler, session, context)
                    # Claimed after drawing: a newer version shown meanwhile (by any
                    # process) is never overwritten with this one.
                    if not await self._claim_for_edit(session):
                        return False
                    async with self._editing(session_id):
                        with views.released(fields):
                            await self.bot.edit_public_message(session, **fields)
                    self.edits += 1
                except discord.NotFound as error:
                    if error.code != UNKNOWN_MESSAGE:
                        raise
                    await self._post_new(handler, session, context)
        except discord.NotFound as error:
            if error.code == UNKNOWN_CHANNEL:
                await self._channel_gone(session)
                return False
            raise _Later(f"HTTP 404, code {error.code}") from error
        except discord.Forbidden as error:
            if session.message_id is None:
                # The game's first message can't be posted here: end it rather than leave
                # its players busy in this channel with a game nobody can see.
                await self._first_message_refused(session)
                return False
            raise _Later(
                f"missing permission, code {error.code}", guild_id=session.guild_id
            ) from error
        except discord.HTTPException as error:
            if error.status >= 500 or error.status == 429:
                raise _Later(f"HTTP {error.status}") from error
            # Discord refused what we sent: a bug in a render, not a passing fault.
            log.error(
                "session %s: Discord refused its message (HTTP %s, code %s): %s",
                session.id,
                error.status,
                error.code,
                error.text,
            )
            raise _Later("refused message", delay=BUG_RETRY_SECONDS) from error
        except NETWORK_ERRORS as error:
            raise _Later(type(error).__name__) from error
        except StorageUnavailable as error:
            raise _Later(f"database unavailable: {error}") from error
        self._mark_shown(session.id, session.version)
        log.debug("session %s: message shows version %s", session.id, session.version)
        return True

    async def _claim_for_edit(self, session: Session) -> bool:
        """Claim the message for the worker's edit: False when a newer version is shown or
        being shown (nothing to do); another process editing it now is tried again soon."""
        claim = await self._claim(session.id, session.version)
        if claim is ShowClaim.BUSY:
            raise _Later("another process is editing it", delay=CLAIM_RETRY_SECONDS, real_time=True)
        if claim is ShowClaim.NEWER:
            log.debug("session %s: a newer version than %s is shown", session.id, session.version)
            return False
        return True

    async def _render(
        self, handler: GameHandler, session: Session, context: ShowContext
    ) -> dict[str, Any]:
        try:
            with i18n.use(session.language):
                return await handler.render(session, context)
        except Exception as error:
            log.exception("session %s: rendering its message failed", session.id)
            raise _Later("render failed", delay=BUG_RETRY_SECONDS) from error

    async def _post_new(self, handler: GameHandler, session: Session, context: ShowContext) -> None:
        """Post the game's message afresh (it was deleted, or never arrived) and store it.
        A game with no message stored may have one all the same (a process died between
        posting it and storing its id): that one is found and brought up to date instead,
        so a game never has two live messages (a challenge, two Accept buttons)."""
        if session.message_id is None:
            found = await self._find_posted(session)
            if found is not None:
                await self.bot.sessions.set_message(session.id, found)
                self._orphans.discard(session.id)
                log.info("session %s: found its game message %s, never stored", session.id, found)
                fields = await self._render(handler, session, context)
                async with self._editing(session.id):
                    with views.released(fields):
                        await self.bot.edit_public_message(
                            replace(session, message_id=found), **fields
                        )
                self.edits += 1
                return
        fields = await self._render(handler, session, context)
        fields["allowed_mentions"] = discord.AllowedMentions.none()
        channel = self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        async with self._editing(session.id):
            with views.released(fields):
                message = await channel.send(**as_new_message(fields))
        self.reposts += 1
        self._orphans.discard(session.id)
        await self.bot.sessions.set_message(session.id, message.id, session.version)
        log.info("session %s: posted its game message again (message %s)", session.id, message.id)

    async def _find_posted(self, session: Session) -> int | None:
        """The id of a message the bot posted for ``session`` in its channel (its controls
        carry the session's id), among the channel's recent messages since the game began;
        None if there is none, or the bot may not read the channel's history."""
        channel = self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        since = session.created_at - FIND_POSTED_MARGIN_SECONDS
        me = self.bot.user.id if self.bot.user is not None else None
        try:
            async for message in channel.history(limit=FIND_POSTED_LIMIT):
                if message.created_at.timestamp() < since:
                    break
                if message.author.id == me and _controls_session(message, session.id):
                    return message.id
        except discord.Forbidden:
            return None  # no Read Message History: posting again is all there is
        return None

    async def _store_message_later(self, session: Session, message_id: int) -> None:
        for attempt in range(1, 8):
            await self.clock.sleep(FIRST_RETRY_SECONDS * 2**attempt)
            try:
                await self.bot.sessions.set_message(session.id, message_id, session.version)
            except StorageUnavailable:
                continue
            self.request(session.id)
            return
        log.warning("session %s: could not store its message id %s", session.id, message_id)

    async def _channel_gone(self, session: Session) -> None:
        """The channel was deleted: nobody can play there; the game ends without a result."""
        self._gone_channels.add(session.channel_id)
        self._mark_shown(session.id, session.version)
        log.info("session %s: its channel %s is gone", session.id, session.channel_id)
        if session.is_open:
            with contextlib.suppress(Exception):
                await self.bot.sessions.cancel(session.id, None, CHANNEL_DELETED)

    async def _first_message_refused(self, session: Session) -> None:
        self._mark_shown(session.id, session.version)
        log.info(
            "session %s: its first message is not allowed in channel %s",
            session.id,
            session.channel_id,
        )
        if session.is_open:
            with contextlib.suppress(UserError, StorageUnavailable):
                await self.bot.sessions.cancel(session.id, None, MESSAGE_REFUSED)

    def _may_post(self, session: Session) -> bool:
        if session.id in self._posting:
            return False
        if session.id in self._orphans:
            return True
        return self.clock.now() - session.created_at >= ORPHAN_GRACE_SECONDS

    # -- private controls -----------------------------------------------------------------

    async def _sync_private(
        self, handler: GameHandler, snapshot: Snapshot, stamp: int
    ) -> _PrivateSync:
        """Send each seat the private controls it needs now, and turn controls no longer
        needed into what the handler says they become. Returns the rows of the new DMs that
        went out (the public message says whose DMs are closed) and the first failure to try
        again later: one player's failed DM does not hold back another's. A seat whose own
        answer is under way, or ended after ``stamp`` (when the snapshot was read), is left
        for the next look."""
        session = snapshot.session
        result = _PrivateSync()
        # Each player's private messages speak their own language.
        await self.bot.languages.load(seat.user_id for seat in session.seats if not seat.is_ai)
        for seat in session.seats:
            if seat.is_ai or self._answer_shows_private(session.id, seat.user_id, stamp):
                continue
            try:
                sent = await self._sync_seat(handler, snapshot, seat)
            except _Later as error:
                if result.failure is None:
                    result.failure = error
                continue
            if sent is not None:
                result.sent[seat.seat] = sent
        return result

    async def _sync_seat(
        self, handler: GameHandler, snapshot: Snapshot, seat: Seat
    ) -> PrivateMessage | None:
        """One seat's part of ``_sync_private``: the new DM's row, if one went out."""
        session = snapshot.session
        wanted = None
        language = self.bot.languages.of(seat.user_id)
        if session.is_open and not seat.has_left:
            with i18n.use(language):
                wanted = handler.private_controls(session, seat.seat)
        row = snapshot.private.get(seat.seat)
        if wanted is not None and (row is None or row.key != wanted.key):
            # The seat's row is replaced by the new message's just below: what the old one
            # became is saved only if the new one cannot go out now.
            settled = None if row is None else await self._settle_private(handler, session, row)
            try:
                with i18n.use(language):
                    fields = wanted.render()
                message = await self._send_private(seat.user_id, fields)
            except Exception:
                if settled is not None:
                    await self.store.save_private(session.id, settled)
                raise
            sent = PrivateMessage(
                seat=seat.seat,
                key=wanted.key,
                channel_id=None if message is None else message.channel.id,
                message_id=None if message is None else message.id,
                closed=message is None,
                shown=signature(fields),
            )
            await self.store.save_private(session.id, sent)
            return sent
        if wanted is None and row is not None:
            settled = await self._settle_private(handler, session, row)
            if settled is not None:
                await self.store.save_private(session.id, settled)
        return None

    def _answer_shows_private(self, session_id: int, user_id: int, stamp: int) -> bool:
        key = (session_id, user_id)
        if key in self._answering_privately:
            return True
        ended = self._private_answer_ended.get(key)
        if ended is None:
            return False
        if ended > stamp:
            return True  # the answer's own request brings the next look
        del self._private_answer_ended[key]
        return False

    async def _settle_private(
        self, handler: GameHandler, session: Session, row: PrivateMessage
    ) -> PrivateMessage | None:
        """Make a private message whose controls are no longer needed show what they became.
        Returns the row to save for it (the caller saves it), or None if nothing changed."""
        if row.message_id is None or row.channel_id is None:
            return None
        with i18n.use(self.bot.languages.of(session.user_of(row.seat).user_id)):
            fields = handler.private_after(session, row.seat, row.key)
        shown = signature(fields)
        if shown == row.shown:
            return None
        channel = self.bot.get_partial_messageable(row.channel_id, type=discord.ChannelType.private)
        try:
            await channel.get_partial_message(row.message_id).edit(**fields)
        except discord.NotFound:
            pass  # the player deleted it: nothing left to update
        except discord.Forbidden as error:
            log.info("session %s: cannot edit a private message (code %s)", session.id, error.code)
        except discord.HTTPException as error:
            if error.status >= 500 or error.status == 429:
                raise _Later(f"HTTP {error.status} on a private message") from error
            raise
        except NETWORK_ERRORS as error:
            raise _Later(type(error).__name__) from error
        return PrivateMessage(
            seat=row.seat,
            key=row.key,
            channel_id=row.channel_id,
            message_id=row.message_id,
            closed=row.closed,
            shown=shown,
        )

    async def _send_private(self, user_id: int, fields: dict[str, Any]) -> discord.Message | None:
        try:
            return await self.bot.send_dm(user_id, **fields)
        except discord.HTTPException as error:
            if error.status >= 500 or error.status == 429:
                raise _Later(f"HTTP {error.status} on a DM") from error
            if isinstance(error, discord.Forbidden | discord.NotFound):
                return None  # DMs closed, or the user is gone: play goes on in public
            raise
        except NETWORK_ERRORS as error:
            raise _Later(type(error).__name__) from error

    # -- bookkeeping ----------------------------------------------------------------------

    def _handler(self, session: Session) -> GameHandler:
        return self.bot.sessions.handlers[session.game]

    def _lock(self, session_id: int) -> asyncio.Lock:
        lock = self._locks.get(session_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[session_id] = lock
        return lock

    def _known_shown(self, session: Session) -> int:
        return max(self._shown.get(session.id, -1), session.shown_version)

    def _mark_shown(self, session_id: int, version: int) -> None:
        if self._shown.get(session_id, -1) >= version:
            return
        self._shown[session_id] = version
        self._unsaved[session_id] = version
        self._flush_wanted.set()

    async def _flush(self) -> None:
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

    async def _flush_loop(self) -> None:
        while True:
            await self._flush_wanted.wait()
            await asyncio.sleep(FLUSH_INTERVAL_SECONDS)
            self._flush_wanted.clear()
            try:
                await self._flush()
            except StorageUnavailable:
                log.warning("could not record which game messages are up to date; retrying")
                self._flush_wanted.set()

    async def _sweep_loop(self) -> None:
        while True:
            await self.clock.sleep(SWEEP_INTERVAL_SECONDS)
            try:
                await self.reconcile(settle_seconds=SWEEP_SETTLE_SECONDS)
            except StorageUnavailable:
                log.warning("message sweep: database unavailable, trying again later")
            now = time.monotonic()
            self._last_forced = {
                key: when
                for key, when in self._last_forced.items()
                if now - when < FORCE_COOLDOWN_SECONDS
            }
            # Forget what is settled in the database, so the memory stays small.
            for session_id in [s for s in self._shown if s not in self._workers]:
                if session_id not in self._unsaved:
                    del self._shown[session_id]
                    self._closed_dms.pop(session_id, None)
            self._committed = {
                session_id: version
                for session_id, version in self._committed.items()
                if session_id in self._workers
            }
            # A session's next look reads a newer stamp than any answer that has ended:
            # only a worker under way can still need one.
            self._private_answer_ended = {
                key: ended
                for key, ended in self._private_answer_ended.items()
                if key[0] in self._workers
            }
            self._posting_ended = {
                session_id: ended
                for session_id, ended in self._posting_ended.items()
                if session_id in self._workers
            }

    async def _notify(self, handler: GameHandler, outcome: Outcome) -> None:
        try:
            # Pings go under the game's public message: the game's language.
            with i18n.use(outcome.session.language):
                await handler.notify(outcome)
        except (discord.HTTPException, *NETWORK_ERRORS) as error:
            log.info("session %s: a ping could not be sent (%s)", outcome.session.id, error)
        except Exception:
            log.exception("session %s: sending its pings failed", outcome.session.id)

    def _spawn(self, coroutine: Any, name: str) -> None:
        task = asyncio.create_task(coroutine, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def pending(self) -> Iterable[asyncio.Task[Any]]:
        """Work under way: workers (some perhaps waiting to retry) and pings."""
        return [*self._workers.values(), *self._tasks]

    async def settled(self) -> None:
        """Wait until nothing is left to show (tests, and a clean shutdown)."""
        while True:
            if pending := list(self.pending()):
                await asyncio.gather(*pending, return_exceptions=True)
            elif self._posting:
                self._posting_over.clear()
                await self._posting_over.wait()
            else:
                return
