"""Answering interactions: ephemeral replies and the one place errors become messages."""

from __future__ import annotations

import logging
import re
import secrets
from typing import Any

import discord
from discord import app_commands

from bot.answers import answer_for
from bot.errors import DatabaseUnavailable, StaleControl, UserError
from bot.i18n import _
from bot.languages import enter_interaction
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
    await answer_for(interaction).send(content, ephemeral=True, **kwargs)


class InvalidOption(app_commands.CheckFailure):
    """A command option outside what the command accepts (possible from a modified client)."""


def known_error_message(error: BaseException) -> str | None:
    """The player-facing text of an expected error, or None for a real bug."""
    if isinstance(error, app_commands.TransformerError) and isinstance(error.value, discord.User):
        # A user option that must be a member, given someone who is not (a pasted id, a
        # member who left).
        return (
            f"{discord.utils.escape_markdown(error.value.display_name)} isn't in this server, "
            "so they can't play here."
        )
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError):
        error = error.__cause__ or error
    if isinstance(error, IllegalMove):
        # The rule engines write English templates; the catalog has each one.
        params = error.params
        return _(error.template).format(**params) if params else _(error.template)
    if isinstance(error, UserError | InvalidOption):
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
    await reply_ephemeral(interaction, message)


# Every number in our custom_ids is a database id, a snowflake or a small count: all fit in
# a signed 64-bit integer. A longer one can only be forged.
MAX_ID = 2**63 - 1
UNUSABLE_CONTROL = "That control is not one of mine, so nothing was done."


def ids_in_range(interaction: discord.Interaction) -> bool:
    data: dict[str, Any] = dict(interaction.data or {})  # type: ignore[arg-type]
    custom_id = str(data.get("custom_id", ""))
    return all(int(run) <= MAX_ID for run in re.findall(r"[0-9]+", custom_id))


class Guarded:
    """Mixin for DynamicItems: the subclass's ``handle(interaction)`` does the work, and
    every error it raises gets a clear answer instead of a silent failure. A press on
    controls that are over (``StaleControl``) also has the game's message brought up to
    date: the player pressed it because it looked current."""

    async def callback(self, interaction: discord.Interaction) -> None:
        enter_interaction(interaction)
        if not ids_in_range(interaction):
            await reply_ephemeral(interaction, UNUSABLE_CONTROL)
            return
        try:
            await self.handle(interaction)  # type: ignore[attr-defined]
        except StaleControl as error:
            session_id = getattr(self, "session_id", None)
            publisher = getattr(interaction.client, "publisher", None)
            if isinstance(session_id, int) and publisher is not None:
                publisher.request(session_id, force=True)
            await report_error(interaction, error)
        except Exception as error:
            await report_error(interaction, error)
