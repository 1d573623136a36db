"""The private messages: each seat's controls in its DMs, sent when the game's handler asks
for them and turned into what they became when no longer needed, each in its player's own
language. One player's failed DM holds back neither another's nor the public message.

A press that answers by editing the player's own private message does it inside
``Publisher.answering_privately`` and records what it showed (``record_private_shown``):
meanwhile that player's private messages are left alone, and afterwards found up to date
rather than edited a second time to the same thing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from collections.abc import AsyncIterator, Container
from dataclasses import dataclass, field
from typing import Any

import discord

from bot import i18n
from bot.model.contract import GameHandler, Seat, Session
from bot.storage.publication import PrivateMessage, PublicationStore, Snapshot
from bot.ui.answers import NETWORK_ERRORS
from bot.ui.delivery import Delivery
from bot.ui.publish_contract import PUBLISHER_LOG, Later, Requests, Stamps

log = logging.getLogger(PUBLISHER_LOG)


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


@dataclass
class PrivateSync:
    """What bringing a session's private messages up to date did."""

    # The rows of the new DMs that went out (or found DMs closed), by seat.
    sent: dict[int, PrivateMessage] = field(default_factory=dict)
    failure: Later | None = None  # the first seat Discord failed: try it again later


class PrivateMessages:
    def __init__(
        self, bot: Delivery, store: PublicationStore, stamps: Stamps, requests: Requests
    ) -> None:
        self.bot = bot
        self.store = store
        self._stamps = stamps
        self._requests = requests
        # Presses answering with a player's own private message right now (see
        # ``answering_privately``), and the stamp of when each last ended.
        self._answering_privately: dict[tuple[int, int], int] = {}
        self._private_answer_ended: dict[tuple[int, int], int] = {}

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
            self._private_answer_ended[key] = self._stamps.next()
            self._requests.request(session_id)

    async def record_private_shown(
        self, session: Session, seat: int, key: str, fields: dict[str, Any], message_id: int
    ) -> None:
        """A press edited the seat's private message (``message_id``) to ``fields`` itself:
        remember it, so the publisher does not edit it again to the same thing."""
        await self.store.record_private_shown(
            session.id, seat, key=key, message_id=message_id, shown=signature(fields)
        )

    def forget(self, busy: Container[int]) -> None:
        """A session's next look reads a newer stamp than any answer that has ended: only a
        worker under way (its session in ``busy``) can still need one."""
        self._private_answer_ended = {
            key: ended for key, ended in self._private_answer_ended.items() if key[0] in busy
        }

    # -- bringing them up to date ---------------------------------------------------------------

    async def sync(self, handler: GameHandler, snapshot: Snapshot, stamp: int) -> PrivateSync:
        """Send each seat the private controls it needs now, and turn controls no longer
        needed into what the handler says they become. Returns the rows of the new DMs that
        went out (the public message says whose DMs are closed) and the first failure to try
        again later: one player's failed DM does not hold back another's. A seat whose own
        answer is under way, or ended after ``stamp`` (when the snapshot was read), is left
        for the next look."""
        session = snapshot.session
        result = PrivateSync()
        # Each player's private messages speak their own language.
        await self.bot.languages.load(seat.user_id for seat in session.seats if not seat.is_ai)
        for seat in session.seats:
            if seat.is_ai or self._answer_shows_private(session.id, seat.user_id, stamp):
                continue
            try:
                sent = await self._sync_seat(handler, snapshot, seat)
            except Later as error:
                if result.failure is None:
                    result.failure = error
                continue
            if sent is not None:
                result.sent[seat.seat] = sent
        return result

    async def _sync_seat(
        self, handler: GameHandler, snapshot: Snapshot, seat: Seat
    ) -> PrivateMessage | None:
        """One seat's part of ``sync``: the new DM's row, if one went out."""
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
            settled = None if row is None else await self._settle(handler, session, row)
            try:
                with i18n.use(language):
                    fields = wanted.render()
                # A game reached through interactions never DMs: its players need not
                # share a server with the bot, and choose with **Make your move** instead.
                reached = session.reach == "member"
                message = await self._send(seat.user_id, fields) if reached else None
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
            settled = await self._settle(handler, session, row)
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

    async def _settle(
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
                raise Later(f"HTTP {error.status} on a private message") from error
            raise
        except NETWORK_ERRORS as error:
            raise Later(type(error).__name__) from error
        return PrivateMessage(
            seat=row.seat,
            key=row.key,
            channel_id=row.channel_id,
            message_id=row.message_id,
            closed=row.closed,
            shown=shown,
        )

    async def _send(self, user_id: int, fields: dict[str, Any]) -> discord.Message | None:
        try:
            return await self.bot.send_dm(user_id, **fields)
        except discord.HTTPException as error:
            if error.status >= 500 or error.status == 429:
                raise Later(f"HTTP {error.status} on a DM") from error
            if isinstance(error, discord.Forbidden | discord.NotFound):
                return None  # DMs closed, or the user is gone: play goes on in public
            raise
        except NETWORK_ERRORS as error:
            raise Later(type(error).__name__) from error
