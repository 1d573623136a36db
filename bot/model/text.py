"""Text helpers for what players read: names shown as written, never as markup."""

from __future__ import annotations

import discord

# Discord display names are at most 32 characters; stored names may be older or longer
# (a Weighted Dice join keeps 100). Longer ones are shortened where a line must stay short.
NAME_LIMIT = 40


def clip(text: str, limit: int) -> str:
    """``text`` on one line, shortened with an ellipsis to at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def escape(name: str, limit: int | None = NAME_LIMIT) -> str:
    """A display name as plain text inside a message: ``**bold**__`` stays those
    characters, and ``@everyone`` in a nickname pings nobody. Shortened to ``limit``
    characters first (None: as long as it is), so an escape is never cut in half."""
    shown = name if limit is None else clip(name, limit)
    return discord.utils.escape_mentions(discord.utils.escape_markdown(shown))
