"""What the runtime below the app needs from the bot: its game services and the ways it
reaches Discord (edit a game's public message, post it again, DM a player, ping under a
game). ``bot.app.DiceBot`` satisfies it (and ``bot.ui.host.GameHost``); nothing below the app
imports the app, so the publisher depends on a contract, not on ``DiceBot``.

A game reached only through interactions (``Session.reach``, issue 32: a user-installed
command in a DM, a group DM or a server without the bot) is reached through its kept
interaction token (``bot.play.tokens``), never a channel route: with no live token, the bot
raises ``NoLiveToken`` and the game waits for its next press.
"""

from __future__ import annotations

from typing import Any, Protocol

import discord
from discord import app_commands

from bot.i18n import _
from bot.model.contract import Reach, Session
from bot.model.errors import UserError
from bot.play.sessions import SessionService
from bot.play.tokens import InteractionTokens
from bot.ui.answers import bot_is_member
from bot.ui.languages import LanguageBook


class NoLiveToken(Exception):
    """A game reached through interactions has no live token now: nothing can be sent until
    a player presses one of its buttons."""


def reach_of(interaction: discord.Interaction) -> Reach:
    """How a game created by ``interaction`` is reached: as a member where the bot is in the
    interaction's server, through interactions only anywhere else (a DM, a group DM, a
    server that never added the bot, where its user-installed commands still work)."""
    return "member" if bot_is_member(interaction) else "interaction"


def check_public_answers(interaction: discord.Interaction) -> None:
    """Refuse to start a game in a server without the bot where the player may not send
    messages or use external apps: Discord makes every answer of their installed app there
    private to them, so nobody else could see the game, let alone play it."""
    if interaction.guild_id is None or reach_of(interaction) == "member":
        return
    allowed = interaction.permissions
    in_thread = isinstance(interaction.channel, discord.Thread)
    sends = allowed.send_messages_in_threads if in_thread else allowed.send_messages
    if not sends or not allowed.use_external_apps:
        raise UserError(
            _(
                "I can't start a game here: this server doesn't let you use apps in public. "
                "Play in a DM or a group DM, or ask its admins to allow external apps."
            )
        )


class OpponentTransformer(app_commands.Transformer):
    """A user option naming whom a game is played against: in a server with the bot, a
    member of it (as ``discord.Member`` requires: someone else is refused with the
    TransformerError players are told about); anywhere else, any user, as Discord resolves
    them there (a DM has no members)."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.user

    async def transform(
        self, interaction: discord.Interaction, value: Any
    ) -> discord.User | discord.Member:
        if reach_of(interaction) == "member" and not isinstance(value, discord.Member):
            raise app_commands.TransformerError(value, self.type, self)
        assert isinstance(value, discord.User | discord.Member)
        return value


# The annotation of a game's opponent option (``OpponentTransformer``).
Opponent = app_commands.Transform[discord.User | discord.Member, OpponentTransformer]


class Delivery(Protocol):
    """What the publisher uses: the sessions, the players' languages, and Discord."""

    sessions: SessionService
    languages: LanguageBook
    tokens: InteractionTokens

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

    async def post_through_token(self, session: Session, **fields: Any) -> discord.Message: ...

    async def send_dm(self, user_id: int, **fields: Any) -> discord.Message | None: ...

    async def ping_under_game(
        self, session: Session, user_id: int, text: str
    ) -> discord.Message | None: ...
