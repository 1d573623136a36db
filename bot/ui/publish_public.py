"""The game's public message: posted first as the answer to the command that created the
game, then edited to show the stored session, under a claim (``Ledger.claim``) so that an
older render never lands over a newer one.

A deleted message is posted again and its new id stored; a game whose first answer Discord
lost gets its message from the publisher (after ``ORPHAN_GRACE_SECONDS``, in case another
process is still posting it), but first looks for one a dying process may have posted before
it could store its id, rather than post a second one. A deleted channel, or one where the
first message is not allowed, ends the game without a result.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Container
from dataclasses import replace
from typing import Any

import discord

from bot import i18n
from bot.model.clock import Clock
from bot.model.contract import (
    CHANNEL_DELETED,
    MESSAGE_REFUSED,
    GameHandler,
    Session,
    ShowContext,
)
from bot.model.errors import UserError
from bot.model.series import follow_up_of
from bot.storage import StorageUnavailable
from bot.storage.publication import ShowClaim, Snapshot
from bot.ui import views
from bot.ui.answers import NETWORK_ERRORS, answer_for
from bot.ui.delivery import Delivery, NoLiveToken
from bot.ui.publish_answer import AnswerShows
from bot.ui.publish_contract import (
    BUG_RETRY_SECONDS,
    FIRST_RETRY_SECONDS,
    PUBLISHER_LOG,
    AnswerUnderWay,
    Background,
    Later,
    Requests,
    Stamps,
)
from bot.ui.publish_ledger import Ledger

log = logging.getLogger(PUBLISHER_LOG)

UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008

# A session without a message whose first answer may still be under way elsewhere (another
# process posting it) is posted by the publisher only this long after it was created.
ORPHAN_GRACE_SECONDS = 30.0
# A game with no message stored looks for one the bot posted for it (a process that died
# before storing its id) among this many recent messages of its channel, posted since the
# game began (less a margin for clocks that differ between processes).
FIND_POSTED_LIMIT = 50
FIND_POSTED_MARGIN_SECONDS = 5.0
# Another process is editing the message: a worker tries again this soon.
CLAIM_RETRY_SECONDS = 0.25


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


def _shown_for_good(session: Session) -> bool:
    """Whether the session's message shows what it will always show: a game stopped, or
    finished and followed up (a finished game's next version names its follow-up)."""
    if session.status == "cancelled":
        return True
    return session.status == "finished" and follow_up_of(session.state) is not None


def as_new_message(fields: dict[str, Any]) -> dict[str, Any]:
    """Edit fields (``attachments``, ``None`` meaning "remove") as arguments for sending a
    new message, where files are ``files`` and an absent part is simply left out."""
    sent = {k: v for k, v in fields.items() if v is not None and k != "attachments"}
    files = [item for item in fields.get("attachments", []) if isinstance(item, discord.File)]
    if files:
        sent["files"] = files
    return sent


class PublicMessage:
    def __init__(
        self,
        bot: Delivery,
        clock: Clock,
        ledger: Ledger,
        answers: AnswerShows,
        stamps: Stamps,
        background: Background,
        requests: Requests,
    ) -> None:
        self.bot = bot
        self.clock = clock
        self._ledger = ledger
        self._answers = answers
        self._stamps = stamps
        self._background = background
        self._requests = requests
        # Sessions whose first message an interaction is posting right now (until the
        # posting's end has read the game and asked for a look), and those whose first
        # message was lost and is the publisher's to post.
        self._posting: set[int] = set()
        self._orphans: set[int] = set()
        # The stamp of when each posting ended: a snapshot read before may not hold the id
        # of the message it sent.
        self._posting_ended: dict[int, int] = {}
        # Set when a posting ends: ``Publisher.settled`` waits for them too, so a test's
        # next step does not race the look a game's first post asks for when it ends.
        self._posting_over = asyncio.Event()
        self._gone_channels: set[int] = set()
        # For tests and the log: counts of what was done.
        self.edits = 0
        self.reposts = 0

    # -- the first message ----------------------------------------------------------------------

    async def answer_first(
        self, interaction: discord.Interaction, session: Session, fields: dict[str, Any]
    ) -> None:
        """Answer the command that created ``session`` with its public message and store
        the message's id (``Publisher.post_first``, inside ``posting``)."""
        answer = answer_for(interaction)
        answer.public = True
        if session.reach == "interaction":
            # The command's token reaches the message it answers with: the game's first way
            # to be shown, until a press brings a newer one. Kept before the answer goes
            # out: a press on the message can come at once, and what it shows (the ping
            # that the game is on) would find no token yet.
            with contextlib.suppress(StorageUnavailable):
                await self.bot.tokens.keep(
                    session.id, interaction.token, interaction.created_at.timestamp()
                )
        with views.released(fields):
            message_id = await answer.send(ephemeral=False, **as_new_message(fields))
        if message_id is None:
            return
        self._ledger.mark_shown(session.id, session.version)
        try:
            await self.bot.sessions.set_message(session.id, message_id, session.version)
        except StorageUnavailable:
            # The message is up; only its id is not stored yet. Keep trying in the
            # background rather than tell the player their game failed.
            self._background.spawn(self._store_message_later(session, message_id), "store-message")

    @contextlib.asynccontextmanager
    async def posting(self, session_id: int) -> AsyncIterator[None]:
        """Around posting a new game's first message: the publisher does not post it too.
        If the block ends without the message stored, the publisher posts it."""
        self._posting.add(session_id)
        try:
            yield
        finally:
            self._posting_ended[session_id] = self._stamps.next()
            try:
                session = await self.bot.sessions.get(session_id)
            except StorageUnavailable:
                session = None  # the sweep looks again later
            finally:
                self._posting.discard(session_id)
                self._posting_over.set()
            if session is not None and session.message_id is None:
                self._orphans.add(session_id)
            self._requests.request(session_id)

    def posting_under_way(self) -> bool:
        return bool(self._posting)

    async def posting_ends(self) -> None:
        """Until the next posting under way ends."""
        self._posting_over.clear()
        await self._posting_over.wait()

    def forget(self, busy: Container[int]) -> None:
        """Only a worker under way (its session in ``busy``) can still need a posting's end."""
        self._posting_ended = {
            session_id: ended
            for session_id, ended in self._posting_ended.items()
            if session_id in busy
        }

    # -- showing the session --------------------------------------------------------------------

    def in_gone_channel(self, session: Session) -> bool:
        return session.channel_id in self._gone_channels

    async def show(self, handler: GameHandler, snapshot: Snapshot, force: bool, stamp: int) -> bool:
        """Bring the public message up to date; True if it was edited (or posted)."""
        session = snapshot.session
        session_id = session.id
        closed = frozenset(seat for seat, row in snapshot.private.items() if row.closed)
        if self._ledger.note_closed_dms(session.id, closed):
            # The public message says whose DMs are closed: show the change.
            force = True
        if self._ledger.known_shown(session) >= session.version and not force:
            return False
        if self._answers.under_way(session_id):
            # A press is about to show this version in its own answer (it committed after
            # registering): let it, rather than edit the same message twice.
            raise AnswerUnderWay()
        if session.message_id is None and (
            not self._may_post(session) or self._posting_ended.get(session.id, 0) > stamp
        ):
            # The command that created the game is still posting its message (here or in
            # another process), or finished after this snapshot was read, so the message
            # may be there: it asks for a publish when done; the sweep catches a message
            # that never came.
            return False
        context = ShowContext(events=snapshot.events, dm_closed=closed)
        if session.message_id is None and session.reach == "interaction":
            # Only the command's own answer could post it there, and Discord lost it.
            await self._first_message_refused(session)
            return False
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
                    async with self._ledger.editing(session_id, session.version):
                        with views.released(fields):
                            await self.bot.edit_public_message(session, **fields)
                    self.edits += 1
                except discord.NotFound as error:
                    if error.code != UNKNOWN_MESSAGE:
                        raise
                    await self._post_new(handler, session, context)
        except NoLiveToken:
            # Reached only through interactions, and no token lives: nothing can show it
            # now. The game's next press does (in its own answer; and the token it keeps
            # asks for a look), so no worker waits for it meanwhile.
            log.debug("session %s: no live token to show version %s", session.id, session.version)
            return False
        except discord.NotFound as error:
            if error.code == UNKNOWN_CHANNEL:
                await self._channel_gone(session)
                return False
            raise Later(f"HTTP 404, code {error.code}") from error
        except discord.Forbidden as error:
            if session.message_id is None:
                # The game's first message can't be posted here: end it rather than leave
                # its players busy in this channel with a game nobody can see.
                await self._first_message_refused(session)
                return False
            raise Later(
                f"missing permission, code {error.code}", guild_id=session.guild_id
            ) from error
        except discord.HTTPException as error:
            if error.status >= 500 or error.status == 429:
                raise Later(f"HTTP {error.status}") from error
            # Discord refused what we sent: a bug in a render, not a passing fault.
            log.error(
                "session %s: Discord refused its message (HTTP %s, code %s): %s",
                session.id,
                error.status,
                error.code,
                error.text,
            )
            raise Later("refused message", delay=BUG_RETRY_SECONDS) from error
        except NETWORK_ERRORS as error:
            raise Later(type(error).__name__) from error
        except StorageUnavailable as error:
            raise Later(f"database unavailable: {error}") from error
        self._ledger.mark_shown(session.id, session.version)
        log.debug("session %s: message shows version %s", session.id, session.version)
        if session.reach == "interaction" and _shown_for_good(session):
            # Nothing more will be shown on it: its token is no longer needed.
            with contextlib.suppress(StorageUnavailable):
                await self.bot.tokens.forget(session.id)
        return True

    async def _claim_for_edit(self, session: Session) -> bool:
        """Claim the message for the worker's edit: False when a newer version is shown or
        being shown (nothing to do); another process editing it now is tried again soon."""
        claim = await self._ledger.claim(session.id, session.version)
        if claim is ShowClaim.BUSY:
            raise Later("another process is editing it", delay=CLAIM_RETRY_SECONDS, real_time=True)
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
            raise Later("render failed", delay=BUG_RETRY_SECONDS) from error

    async def _post_new(self, handler: GameHandler, session: Session, context: ShowContext) -> None:
        """Post the game's message afresh (it was deleted, or never arrived) and store it.
        A game with no message stored may have one all the same (a process died between
        posting it and storing its id): that one is found and brought up to date instead,
        so a game never has two live messages (a challenge, two Accept buttons). A game
        reached through interactions is posted again through its kept token."""
        if session.reach == "interaction":
            fields = await self._render(handler, session, context)
            fields["allowed_mentions"] = discord.AllowedMentions.none()
            async with self._ledger.editing(session.id, session.version):
                with views.released(fields):
                    message = await self.bot.post_through_token(session, **as_new_message(fields))
            self.reposts += 1
            await self.bot.sessions.set_message(session.id, message.id, session.version)
            log.info(
                "session %s: posted its game message again (message %s)", session.id, message.id
            )
            return
        if session.message_id is None:
            found = await self._find_posted(session)
            if found is not None:
                await self.bot.sessions.set_message(session.id, found)
                self._orphans.discard(session.id)
                log.info("session %s: found its game message %s, never stored", session.id, found)
                fields = await self._render(handler, session, context)
                async with self._ledger.editing(session.id, session.version):
                    with views.released(fields):
                        await self.bot.edit_public_message(
                            replace(session, message_id=found), **fields
                        )
                self.edits += 1
                return
        fields = await self._render(handler, session, context)
        fields["allowed_mentions"] = discord.AllowedMentions.none()
        channel = self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        async with self._ledger.editing(session.id, session.version):
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
            self._requests.request(session.id)
            return
        log.warning("session %s: could not store its message id %s", session.id, message_id)

    async def _channel_gone(self, session: Session) -> None:
        """The channel was deleted: nobody can play there; the game ends without a result."""
        self._gone_channels.add(session.channel_id)
        self._ledger.mark_shown(session.id, session.version)
        log.info("session %s: its channel %s is gone", session.id, session.channel_id)
        if session.is_open:
            with contextlib.suppress(Exception):
                await self.bot.sessions.cancel(session.id, None, CHANNEL_DELETED)

    async def _first_message_refused(self, session: Session) -> None:
        self._ledger.mark_shown(session.id, session.version)
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
