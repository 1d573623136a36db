"""Text helpers for what players read: names shown as written, never as markup."""

from __future__ import annotations

import discord


def escape(name: str) -> str:
    """A display name as plain text inside a message: ``**bold**__`` stays those
    characters, and ``@everyone`` in a nickname pings nobody."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(name))
