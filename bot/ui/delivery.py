"""What the runtime below the app needs from the bot: its game services and the three ways
it reaches Discord (edit a game's public message, DM a player, ping under a game).
``bot.app.DiceBot`` satisfies it (and ``bot.ui.host.GameHost``); nothing below the app imports
the app, so the publisher depends on a contract, not on ``DiceBot``.
"""

from __future__ import annotations

from typing import Any, Protocol

import discord

from bot.model.contract import Session
from bot.play.sessions import SessionService
from bot.ui.languages import LanguageBook


class Delivery(Protocol):
    """What the publisher uses: the sessions, the players' languages, and Discord."""

    sessions: SessionService
    languages: LanguageBook

    @property
    def user(self) -> discord.ClientUser | None: ...

    def get_partial_messageable(
        self,
        id: int,
        *,
        guild_id: int | None = None,
        type: discord.ChannelType | None = None,
    ) -> discord.PartialMessageable: ...

    async def edit_public_message(self, session: Session, **fields: Any) -> None: ...

    async def send_dm(self, user_id: int, **fields: Any) -> discord.Message | None: ...

    async def ping_under_game(
        self, session: Session, user_id: int, text: str
    ) -> discord.Message: ...
