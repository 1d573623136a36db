"""Answering interactions: ephemeral replies and the one place errors become messages."""

from __future__ import annotations

import logging
import secrets
from typing import Any

import discord
from discord import app_commands

from bot.errors import DatabaseUnavailable, UserError
from bot.storage import StorageUnavailable
from game_core.errors import IllegalMove

log = logging.getLogger(__name__)

DM_CLOSED = 50007
MISSING_PERMISSIONS = 50013
MISSING_ACCESS = 50001

PERMISSION_HELP = (
    "I'm missing a permission in this channel. I need **View Channel**, **Send Messages** "
    "(**Send Messages in Threads** in a thread), **Embed Links**, **Attach Files** and "
    "**Read Message History** here: ask a server admin to grant them, or play in another "
    "channel. `/dicebot check` tells which one is missing."
)
DMS_CLOSED_HELP = (
    "I couldn't send you a direct message: your DMs are closed for this server. Use the "
    "**Make your move** button on the game message instead, or allow direct messages from "
    "server members in Privacy Settings."
)


async def reply_ephemeral(interaction: discord.Interaction, content: str, **kwargs: Any) -> None:
    """Send an ephemeral answer, whether or not the interaction was answered already."""
    if interaction.response.is_done():
        await interaction.followup.send(content, ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(content, ephemeral=True, **kwargs)


def known_error_message(error: BaseException) -> str | None:
    """The player-facing text of an expected error, or None for a real bug."""
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError):
        error = error.__cause__ or error
    if isinstance(error, UserError | IllegalMove):
        return str(error)
    if isinstance(error, StorageUnavailable):
        return DatabaseUnavailable().message
    if isinstance(error, discord.Forbidden):
        if error.code == DM_CLOSED:
            return DMS_CLOSED_HELP
        if error.code in (MISSING_PERMISSIONS, MISSING_ACCESS):
            return PERMISSION_HELP
        return None
    if isinstance(error, app_commands.MissingPermissions):
        names = ", ".join(p.replace("_", " ").title() for p in error.missing_permissions)
        return f"You need the **{names}** permission to use this command."
    if isinstance(error, app_commands.BotMissingPermissions):
        names = ", ".join(p.replace("_", " ").title() for p in error.missing_permissions)
        return f"I'm missing the **{names}** permission in this channel."
    if isinstance(error, app_commands.NoPrivateMessage):
        return "This command works in a server channel, not in direct messages."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down a little: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.CheckFailure):
        return "You can't use this command here."
    return None


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Tell the player what went wrong; log real bugs with a reference id they also see."""
    message = known_error_message(error)
    if message is None:
        reference = secrets.token_hex(3)
        original = getattr(error, "original", None) or error.__cause__ or error
        # The reference goes in the text and, for LOG_FORMAT=json, in its own field, so a
        # host finds the line a player quotes either way.
        log.error(
            "unexpected error (ref %s) handling interaction %s",
            reference,
            interaction.id,
            exc_info=(type(original), original, original.__traceback__),
            extra={"reference": reference, "interaction_id": interaction.id},
        )
        message = f"Something went wrong on my side (ref `{reference}`). Nothing was changed."
    else:
        log.debug("interaction %s refused: %s", interaction.id, type(error).__name__)
    try:
        await reply_ephemeral(interaction, message)
    except discord.HTTPException as http_error:
        log.warning("could not deliver an error message: %s", http_error.status)


class Guarded:
    """Mixin for DynamicItems: the subclass's ``handle(interaction)`` does the work, and
    every error it raises gets a clear answer instead of a silent failure."""

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await self.handle(interaction)  # type: ignore[attr-defined]
        except Exception as error:
            await report_error(interaction, error)
