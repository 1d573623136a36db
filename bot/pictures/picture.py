"""``Picture``: a rendered PNG with the text screen readers read in its place."""

from __future__ import annotations

import io
from dataclasses import dataclass

import discord

# Discord keeps at most 1,024 characters of an attachment's description.
ALT_TEXT_LIMIT = 1024


def clip_alt_text(text: str) -> str:
    text = text.strip()
    return text if len(text) <= ALT_TEXT_LIMIT else text[: ALT_TEXT_LIMIT - 1] + "…"


@dataclass(frozen=True)
class Picture:
    """PNG bytes, their file name, size, and alt text (the attachment's description)."""

    png: bytes
    alt_text: str
    filename: str
    width: int
    height: int

    def __post_init__(self) -> None:
        if not self.alt_text or len(self.alt_text) > ALT_TEXT_LIMIT:
            raise ValueError("a picture needs alt text of 1 to 1,024 characters")

    def file(self) -> discord.File:
        """A fresh ``discord.File`` (one per send: discord.py consumes the buffer)."""
        return discord.File(io.BytesIO(self.png), filename=self.filename, description=self.alt_text)
