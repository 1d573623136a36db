"""What a player is told when a command or a press fails: the one place errors become
messages (``known_error_message``, ``report_error``: an expected refusal in words, a real
bug logged with a reference the player sees too), and the guard every control's press goes
through (``Guarded``: forged ids refused, every error answered, the game message of a stale
control brought up to date).

Only what is said lives here; it goes out as an ephemeral reply through ``bot.ui.answers``,
the transport that answers each interaction once and in time.
"""

from __future__ import annotations

import logging
import re
import secrets
from typing import Any

import discord
from discord import app_commands

from bot.i18n import N_, _, list_of, ngettext, number
from bot.model.command_mentions import command_mention
from bot.model.errors import DatabaseUnavailable, StaleControl, UserError, WrongMessage
from bot.storage import StorageUnavailable
from bot.ui import views
from bot.ui.answers import answer_for
from bot.ui.languages import enter_interaction
from bot.ui.permissions import permission_label
from game_core.errors import IllegalMove

log = logging.getLogger(__name__)

DM_CLOSED = 50007
MISSING_PERMISSIONS = 50013
MISSING_ACCESS = 50001

# Module-level texts: marked here, translated where they are sent.
PERMISSION_HELP = N_(
    "I'm missing a permission in this channel. I need **View Channel**, **Send Messages** "
    "(**Send Messages in Threads** in a thread), **Embed Links**, **Attach Files** and "
    "**Read Message History** here: ask a server admin to grant them, or play in another "
    "channel. {check} tells which one is missing."
)
DMS_CLOSED_HELP = N_(
    "I couldn't send you a direct message: your DMs are closed for this server. Use the "
    "**Make your move** button on the game message instead, or allow direct messages from "
    "server members in Privacy Settings."
)


def permission_names(permissions: list[str]) -> str:
    """Discord permission attributes (``attach_files``) as the names server admins see in
    their settings, in bold, as a list in the current language."""
    return list_of([f"**{permission_label(name)}**" for name in permissions])


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
        return _("{name} isn't in this server, so they can't play here.").format(
            name=discord.utils.escape_markdown(error.value.display_name)
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
            return _(DMS_CLOSED_HELP)
        if error.code in (MISSING_PERMISSIONS, MISSING_ACCESS):
            return _(PERMISSION_HELP).format(check=command_mention("dicebot", "check"))
        return None
    if isinstance(error, app_commands.MissingPermissions):
        names = permission_names(error.missing_permissions)
        return ngettext(
            "You need the {permissions} permission to use this command.",
            "You need the {permissions} permissions to use this command.",
            len(error.missing_permissions),
        ).format(permissions=names)
    if isinstance(error, app_commands.BotMissingPermissions):
        names = permission_names(error.missing_permissions)
        return ngettext(
            "I'm missing the {permissions} permission in this channel.",
            "I'm missing the {permissions} permissions in this channel.",
            len(error.missing_permissions),
        ).format(permissions=names)
    if isinstance(error, app_commands.NoPrivateMessage):
        return _("This command works in a server channel, not in direct messages.")
    if isinstance(error, app_commands.CommandOnCooldown):
        return _("Slow down a little: try again in {seconds} s.").format(
            seconds=number(round(error.retry_after))
        )
    if isinstance(error, app_commands.CheckFailure):
        return _("You can't use this command here.")
    return None


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Tell the player what went wrong; log real bugs with a reference id they also see."""
    if interaction.client.is_closed():
        # The bot stopped while this was handled (past the shutdown's grace): its HTTP
        # session is gone, so the failure is the stop's, not a bug, and nothing can be
        # answered now. What it committed shows when the bot is back (the publisher).
        log.warning(
            "interaction %s was not answered: the bot stopped while handling it (%s)",
            interaction.id,
            type(error).__name__,
        )
        return
    if isinstance(error, WrongMessage):
        # The link to the game's message only for a press from the game's own server.
        message: str | None = error.text_for(interaction.guild_id)
    else:
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
        message = _(
            "Something went wrong on my side (ref `{reference}`). Nothing was changed."
        ).format(reference=reference)
    else:
        log.debug("interaction %s refused: %s", interaction.id, type(error).__name__)
    await reply_ephemeral(interaction, message)


# Every number in our custom_ids is a database id, a snowflake or a small count: all fit in
# a signed 64-bit integer. A longer one can only be forged.
MAX_ID = 2**63 - 1
UNUSABLE_CONTROL = N_("That button or menu is not one of mine, so nothing was done.")


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
            await reply_ephemeral(interaction, _(UNUSABLE_CONTROL))
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
        finally:
            # The view discord.py rebuilt from the pressed message to dispatch this item.
            views.release_rebuilt(self.view)  # type: ignore[attr-defined]
