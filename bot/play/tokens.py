"""The interaction tokens of games reached only through interactions (issue 32): a game in a
DM, a group DM or a server without the bot is shown by editing its message through the newest
interaction's token while that token lives, from any process (the token is in the database).

A token is a credential, valid 15 minutes from its interaction's creation. One is kept per
session, the one that lives longest, and only while it lives (less a margin, so an edit
never starts with a token about to die): ``sweep`` deletes the expired ones. It is never
logged nor shown.
"""

from __future__ import annotations

import logging

from bot.model.clock import Clock
from bot.storage import Database
from bot.storage.interaction_tokens import forget_token, keep_token, live_token, sweep_expired

log = logging.getLogger(__name__)

# Discord: an interaction's token is valid for 15 minutes after the interaction.
TOKEN_LIFETIME_SECONDS = 15 * 60.0
# A kept token is used only until this long before it dies: an edit started just before the
# end could otherwise land after it (401) and leave the game unshown.
TOKEN_MARGIN_SECONDS = 60.0


def usable_until(created_at: float) -> float:
    """Until when a token of an interaction created at ``created_at`` is used."""
    return created_at + TOKEN_LIFETIME_SECONDS - TOKEN_MARGIN_SECONDS


class InteractionTokens:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    async def keep(
        self,
        session_id: int,
        token: str,
        created_at: float,
        *,
        message_id: int | None = None,
    ) -> bool:
        """Keep the token of an interaction created at ``created_at`` (snowflake time) for
        the session, if it outlives the one kept and is still usable. With ``message_id``
        (the message a press was on), only when that is the session's public message. True
        if it was kept."""
        until = usable_until(created_at)
        if until <= self.clock.now():
            return False
        kept = await keep_token(self.db, session_id, token, until, message_id=message_id)
        if kept:
            log.debug("session %s: kept a token usable until %.0f", session_id, until)
        return kept

    async def live(self, session_id: int) -> str | None:
        """The session's token, if one is usable now."""
        return await live_token(self.db, session_id, self.clock.now())

    async def forget(self, session_id: int, token: str | None = None) -> None:
        """Drop the session's token (only ``token``, when given: Discord refused it)."""
        await forget_token(self.db, session_id, token)

    async def sweep(self) -> int:
        """Delete every token no longer usable; how many."""
        swept = await sweep_expired(self.db, self.clock.now())
        if swept:
            log.debug("deleted %d expired interaction token(s)", swept)
        return swept
