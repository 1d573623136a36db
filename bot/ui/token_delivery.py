"""Reaching a game where the bot is no member (issue 32: a DM, a group DM, a server that never
added it): through its players' interaction tokens, never a channel route.

A press answered on the game's message (an update or a deferred update, so that message is
among the token's) leaves its token kept for the game (``bot.play.tokens``); edits, posts
and pings then go through that token's webhook while it lives. A token Discord no longer
takes is forgotten; without a live one ``NoLiveToken`` is raised and the game waits for its
next press. ``bot.app.DiceBot`` routes a game reached through interactions here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.model.contract import Session
from bot.play.tokens import InteractionTokens
from bot.storage import StorageUnavailable
from bot.ui.answers import answer_for
from bot.ui.delivery import NoLiveToken

log = logging.getLogger("bot.app")

# What Discord answers a webhook request whose interaction token is dead or unknown.
INVALID_WEBHOOK_TOKEN = 50027
UNKNOWN_WEBHOOK = 10015
# A token of an app a user's install alone authorizes takes five follow-ups, no more: it
# still edits, but posts nothing new until a press brings another.
MAX_FOLLOWUP_MESSAGES = 40094


class TokenDelivery:
    """Keeps the presses' tokens of games reached through interactions and speaks through
    them. ``shown``: asks for a game to be shown (the publisher's request), once a token
    that can show it is kept."""

    def __init__(
        self,
        client: discord.Client,
        tokens: InteractionTokens,
        shown: Callable[[int], None],
    ) -> None:
        self._client = client
        self._tokens = tokens
        self._shown = shown
        self._keeping: set[asyncio.Task[None]] = set()

    # -- keeping the presses' tokens ------------------------------------------------------

    def keep_when_answered(self, interaction: discord.Interaction, custom_id: str) -> None:
        """A press where the bot is not a member: once it is answered on the message it was
        on (an update or a deferred update, so the token's messages include it), keep its
        token for the session its custom id names, if that message is the session's public
        message. The game is then shown through it until a newer press brings another."""
        parts = custom_id.split(":")
        message = interaction.message
        if len(parts) < 2 or not parts[1].isdigit() or message is None:
            return
        session_id, message_id = int(parts[1]), message.id
        answer = answer_for(interaction)

        def answered() -> None:
            if not answer.on_message:
                return
            task = asyncio.create_task(
                self._keep(interaction, session_id, message_id), name="dicebot-keep-token"
            )
            self._keeping.add(task)
            task.add_done_callback(self._keeping.discard)

        answer.when_answered(answered)

    async def _keep(
        self, interaction: discord.Interaction, session_id: int, message_id: int
    ) -> None:
        try:
            kept = await self._tokens.keep(
                session_id,
                interaction.token,
                interaction.created_at.timestamp(),
                message_id=message_id,
            )
        except StorageUnavailable as error:
            log.info("session %s: a press's token was not kept (%s)", session_id, error)
            return
        if kept:
            # Whatever waited for a token (a timer's move, the AI's) is shown now.
            self._shown(session_id)

    async def settle(self, grace_seconds: float) -> None:
        """Until the tokens being kept are stored (at shutdown), at most ``grace_seconds``."""
        if self._keeping:
            await asyncio.wait(self._keeping, timeout=grace_seconds)

    # -- speaking through them ------------------------------------------------------------

    async def edit(self, session: Session, **fields: Any) -> None:
        """Edit the game's public message through its kept token."""
        message_id = session.message_id
        if message_id is None:
            return
        await self._through_token(session, lambda hook: hook.edit_message(message_id, **fields))

    async def post(self, session: Session, **fields: Any) -> discord.Message:
        """Post the game's message afresh (its message was deleted), as a follow-up of the
        kept token's interaction."""
        return await self._through_token(session, lambda hook: hook.send(wait=True, **fields))

    async def ping(
        self, session: Session, text: str, mentions: discord.AllowedMentions
    ) -> discord.Message | None:
        """``text`` as a follow-up of the kept token; None without a live one."""
        try:
            sent: discord.Message = await self._through_token(
                session, lambda hook: hook.send(text, wait=True, allowed_mentions=mentions)
            )
        except NoLiveToken:
            log.debug("session %s: no live token for a ping", session.id)
            return None
        return sent

    async def _through_token(
        self, session: Session, call: Callable[[discord.Webhook], Awaitable[Any]]
    ) -> Any:
        """``call`` with the webhook of the session's kept interaction token. A token Discord
        no longer takes (401 Invalid Webhook Token, 404 Unknown Webhook) is forgotten, and
        NoLiveToken raised, as when there is none."""
        token = await self._tokens.live(session.id)
        application_id = self._client.application_id
        if token is None or application_id is None:
            raise NoLiveToken()
        hook = discord.Webhook.partial(application_id, token, client=self._client)
        try:
            return await call(hook)
        except discord.HTTPException as error:
            if error.code == MAX_FOLLOWUP_MESSAGES:
                log.info("session %s: its kept token posted all it may", session.id)
                raise NoLiveToken() from None
            if error.code not in (INVALID_WEBHOOK_TOKEN, UNKNOWN_WEBHOOK):
                raise
            log.info(
                "session %s: Discord refused its kept token (HTTP %s, code %s)",
                session.id,
                error.status,
                error.code,
            )
            await self._tokens.forget(session.id, token)
            raise NoLiveToken() from None
