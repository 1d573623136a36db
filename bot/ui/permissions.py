"""What the bot needs from a server: its channel permissions and the invite link asking for
exactly them (logged when the bot is ready, checked by ``/dicebot check``), and the link that
installs it to a person's own account."""

from __future__ import annotations

from urllib.parse import urlencode

import discord

from bot.i18n import N_, _

# Permission attribute -> the name server admins see in Discord's settings (English here,
# shown translated: ``permission_label``).
CHANNEL_PERMISSIONS: tuple[tuple[str, str], ...] = (
    # Translators: Discord's own name of the permission, as its settings show it.
    ("view_channel", N_("View Channels")),
    # Translators: Discord's own name of the permission, as its settings show it.
    ("send_messages", N_("Send Messages")),
    # Games started in a thread post there: Discord checks this one instead of Send Messages.
    # Translators: Discord's own name of the permission, as its settings show it.
    ("send_messages_in_threads", N_("Send Messages in Threads")),
    # Translators: Discord's own name of the permission, as its settings show it.
    ("embed_links", N_("Embed Links")),
    # Translators: Discord's own name of the permission, as its settings show it.
    ("attach_files", N_("Attach Files")),
    # Reminder pings are replies to the game message, which needs the channel's history.
    # Translators: Discord's own name of the permission, as its settings show it.
    ("read_message_history", N_("Read Message History")),
)
# Other permissions a command may ask of a member (``app_commands.default_permissions``).
OTHER_PERMISSIONS: dict[str, str] = {
    # Translators: Discord's own name of the permission, as its settings show it.
    "manage_guild": N_("Manage Server"),
    # Translators: Discord's own name of the permission, as its settings show it.
    "manage_messages": N_("Manage Messages"),
    # Translators: Discord's own name of the permission, as its settings show it.
    "manage_channels": N_("Manage Channels"),
    # Translators: Discord's own name of the permission, as its settings show it.
    "administrator": N_("Administrator"),
}
_LABELS = {**dict(CHANNEL_PERMISSIONS), **OTHER_PERMISSIONS}


def permission_label(name: str) -> str:
    """A permission attribute (``attach_files``) as Discord's settings name it, in the
    current language (title-cased English for one the bot never asks for)."""
    label = _LABELS.get(name)
    return _(label) if label is not None else name.replace("_", " ").title()


INVITE_SCOPES: tuple[str, ...] = ("bot", "applications.commands")
# Asked for by the invite, though no game needs it: a tournament plays its matches in a
# thread of its message (with Send Messages in Threads, above), or in the channel where the
# bot may not open one (``/dicebot check`` says which), so it is never reported missing.
INVITE_ONLY_PERMISSIONS: tuple[str, ...] = ("create_public_threads",)


def invite_permissions() -> discord.Permissions:
    wanted = [name for name, _ in CHANNEL_PERMISSIONS] + list(INVITE_ONLY_PERMISSIONS)
    return discord.Permissions(**dict.fromkeys(wanted, True))


# Discord's OAuth2 ``integration_type`` of an install to a person's account (discord.py
# 2.7's ``oauth_url`` has no parameter for it; the server link's ``bot`` scope implies the
# server install).
USER_INSTALL = 1


def invite_url(application_id: int) -> str:
    """The link that adds the bot to a server with its commands and exactly the permissions
    it needs."""
    return discord.utils.oauth_url(
        application_id, permissions=invite_permissions(), scopes=INVITE_SCOPES
    )


def user_install_url(application_id: int) -> str:
    """The link that installs the app to a person's own account, so they can play its
    duels in any DM, group DM or server (the developer portal must allow User Install).
    A user install carries commands only: no bot, no permissions."""
    query = {
        "client_id": application_id,
        "integration_type": USER_INSTALL,
        "scope": "applications.commands",
    }
    return f"https://discord.com/oauth2/authorize?{urlencode(query)}"


def missing_permissions(permissions: discord.Permissions, *, in_thread: bool) -> list[str]:
    """The names of the permissions the bot lacks where it was asked to play, in the
    current language.

    In a thread, Discord requires Send Messages in Threads rather than Send Messages; in a
    channel, the thread permission is not needed.
    """
    not_needed = "send_messages" if in_thread else "send_messages_in_threads"
    return [
        _(label)
        for name, label in CHANNEL_PERMISSIONS
        if name != not_needed and not getattr(permissions, name)
    ]
