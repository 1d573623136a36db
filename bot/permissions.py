"""What the bot needs from a server: its channel permissions and the invite link asking for
exactly them (logged when the bot is ready, checked by ``/dicebot check``)."""

from __future__ import annotations

import discord

# Permission attribute -> the name server admins see in Discord's settings.
CHANNEL_PERMISSIONS: tuple[tuple[str, str], ...] = (
    ("view_channel", "View Channels"),
    ("send_messages", "Send Messages"),
    # Games started in a thread post there: Discord checks this one instead of Send Messages.
    ("send_messages_in_threads", "Send Messages in Threads"),
    ("embed_links", "Embed Links"),
    ("attach_files", "Attach Files"),
    # Reminder pings are replies to the game message, which needs the channel's history.
    ("read_message_history", "Read Message History"),
)
INVITE_SCOPES: tuple[str, ...] = ("bot", "applications.commands")


def invite_permissions() -> discord.Permissions:
    return discord.Permissions(**{name: True for name, _ in CHANNEL_PERMISSIONS})


def invite_url(application_id: int) -> str:
    """The link that adds the bot with its commands and exactly the permissions it needs."""
    return discord.utils.oauth_url(
        application_id, permissions=invite_permissions(), scopes=INVITE_SCOPES
    )


def missing_permissions(permissions: discord.Permissions, *, in_thread: bool) -> list[str]:
    """The names of the permissions the bot lacks where it was asked to play.

    In a thread, Discord requires Send Messages in Threads rather than Send Messages; in a
    channel, the thread permission is not needed.
    """
    not_needed = "send_messages" if in_thread else "send_messages_in_threads"
    return [
        label
        for name, label in CHANNEL_PERMISSIONS
        if name != not_needed and not getattr(permissions, name)
    ]
