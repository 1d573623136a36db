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

The ``Publisher`` is the one object the rest of the bot holds (``bot.publisher``); it builds
its parts and hands each call to the one whose job it is: the convergence loop (workers,
retries, the reconciler and its sweep: ``publish_loop``), the public message
(``publish_public``), the private messages (``publish_private``), a move shown in the
interaction's own answer (``publish_answer``), and what this process knows is on screen
(versions shown, claims, edits in flight: ``publish_ledger``). The parts ask for a look
through the publisher (``publish_contract.Requests``), so none imports another in a circle.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

import discord

from bot.model.clock import Clock
from bot.model.contract import Outcome, Session
from bot.storage.publication import PublicationStore
from bot.ui.delivery import Delivery
from bot.ui.publish_answer import AnswerShows, ShowInAnswer
from bot.ui.publish_contract import Background, Stamps
from bot.ui.publish_ledger import Ledger
from bot.ui.publish_loop import Convergence
from bot.ui.publish_private import PrivateMessages
from bot.ui.publish_public import PublicMessage

__all__ = ["Publisher", "ShowInAnswer"]


class Publisher:
    def __init__(self, bot: Delivery, store: PublicationStore, clock: Clock) -> None:
        self.bot = bot
        self.store = store
        self.clock = clock
        stamps = Stamps()
        background = Background()
        # Each part asks for a look through ``self.request`` (the loop, built last, serves it).
        ledger = Ledger(bot, store, clock, requests=self)
        self._answers = AnswerShows(bot, ledger, requests=self)
        self._private = PrivateMessages(bot, store, stamps, requests=self)
        self._public = PublicMessage(
            bot, clock, ledger, self._answers, stamps, background, requests=self
        )
        self._loop = Convergence(
            bot,
            store,
            clock,
            ledger,
            self._answers,
            self._public,
            self._private,
            stamps,
            background,
        )

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Repair what a crash or an outage left stale, then keep watching."""
        await self._loop.start()

    async def close(self) -> None:
        """Let edits in flight finish (within a grace period), then record what is shown and
        end this process's repair claims (the next process repairs at once)."""
        await self._loop.close()

    def pending(self) -> Iterable[asyncio.Task[Any]]:
        """Work under way: workers (some perhaps waiting to retry) and pings."""
        return self._loop.pending()

    async def settled(self) -> None:
        """Wait until nothing is left to show (tests, and a clean shutdown)."""
        while True:
            if pending := list(self.pending()):
                await asyncio.gather(*pending, return_exceptions=True)
            elif self._public.posting_under_way():
                await self._public.posting_ends()
            else:
                return

    # -- requests -------------------------------------------------------------------------

    def committed(self, outcome: Outcome) -> None:
        """The session service's commit listener: show the outcome, send its pings."""
        self._loop.committed(outcome)

    def request(
        self, session_id: int, *, gather: float = 0.0, force: bool = False, look: bool = True
    ) -> None:
        """Make the session's messages show its newest stored state, soon. ``gather`` waits
        that long first (a burst of bets lands in one edit); ``force`` edits even when the
        message is believed to be up to date (a press showed it is not). ``look=False``:
        only to show commits made in this process (a press's answer may have shown them)."""
        self._loop.request(session_id, gather=gather, force=force, look=look)

    def permissions_changed(self, guild_id: int) -> None:
        """The guild's channels or roles changed: retry what a missing permission held up."""
        self._loop.permissions_changed(guild_id)

    async def reconcile(self, *, settle_seconds: float = 0.0) -> int:
        """Request every session whose public message is behind and that no other process
        is repairing; only those unchanged for ``settle_seconds``. Returns how many."""
        return await self._loop.reconcile(settle_seconds=settle_seconds)

    # -- presses and commands that show a game themselves ---------------------------------

    def answering(self, session_id: int) -> contextlib.AbstractAsyncContextManager[ShowInAnswer]:
        """Around a press that moves a game and answers by editing the game's message
        (``show(answer, session, events)`` inside the block): while it runs, the session's
        worker waits, so the move shows in the answer itself rather than in a second edit.
        If Discord loses that answer, the worker edits the message after the block."""
        return self._answers.answering(session_id)

    async def post_first(
        self, interaction: discord.Interaction, session: Session, fields: dict[str, Any]
    ) -> None:
        """Answer the command that created ``session`` with its public message and store
        the message's id. If Discord loses that answer, the publisher posts the message in
        the channel itself (or, if it may not post there, ends the game)."""
        async with self.posting(session.id):
            await self._public.answer_first(interaction, session, fields)

    def posting(self, session_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        """Around posting a new game's first message: the publisher does not post it too.
        If the block ends without the message stored, the publisher posts it."""
        return self._public.posting(session_id)

    def answering_privately(
        self, session_id: int, user_id: int
    ) -> contextlib.AbstractAsyncContextManager[None]:
        """Around a press that moves a game and answers by editing the player's own private
        message (``record_private_shown`` inside the block): meanwhile the publisher leaves
        that player's private messages alone, so it does not edit the message a second time
        to what the answer shows; the public message and the other seats go on at once.
        After the block it looks again (and edits the message if Discord lost the answer).
        Keyed by the player, not their seat: the press need not read the game to enter."""
        return self._private.answering_privately(session_id, user_id)

    async def record_private_shown(
        self, session: Session, seat: int, key: str, fields: dict[str, Any], message_id: int
    ) -> None:
        """A press edited the seat's private message (``message_id``) to ``fields`` itself:
        remember it, so the publisher does not edit it again to the same thing."""
        await self._private.record_private_shown(session, seat, key, fields, message_id)

    # -- for tests and the log: counts of what was done -----------------------------------

    @property
    def edits(self) -> int:
        return self._public.edits

    @property
    def reposts(self) -> int:
        return self._public.reposts

    @property
    def failures(self) -> int:
        return self._loop.failures

    @property
    def min_edit_interval(self) -> float:
        """Between two edits of one message (tests of whole games at speed lower it)."""
        return self._loop.min_edit_interval

    @min_edit_interval.setter
    def min_edit_interval(self, seconds: float) -> None:
        self._loop.min_edit_interval = seconds
