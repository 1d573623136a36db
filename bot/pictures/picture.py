"""``Picture``: a rendered PNG with the text screen readers read in its place."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Literal

import discord

# Discord keeps at most 1,024 characters of an attachment's description.
ALT_TEXT_LIMIT = 1024

# How big Discord shows a picture in the chat on a desktop: scaled down (never up) to fit
# a box. A lone image attachment fits 550 x 350 (a wide picture is shown at most 550 px
# wide, a tall one at most 350 px high); an embed's image fits 400 x 300. Every picture is
# drawn at most that size, so it is shown pixel for pixel and a size in the drawing is the
# size a player reads (a phone shows it smaller still: about 300 px of width).
Shown = Literal["attachment", "embed"]
DESKTOP_BOX: dict[Shown, tuple[int, int]] = {"attachment": (550, 350), "embed": (400, 300)}
# No text smaller than this at the size Discord shows it on a desktop (the em size, as CSS
# counts a font's size; Discord's own message text is 16 px).
MIN_TEXT_PX = 14


def shown_scale(width: int, height: int, shown: Shown = "attachment") -> float:
    """How much Discord's desktop client shrinks a picture of this size (1.0: not at all)."""
    box_width, box_height = DESKTOP_BOX[shown]
    return min(1.0, box_width / width, box_height / height)


def clip_alt_text(text: str) -> str:
    text = text.strip()
    return text if len(text) <= ALT_TEXT_LIMIT else text[: ALT_TEXT_LIMIT - 1] + "…"


@dataclass(frozen=True)
class Picture:
    """PNG bytes, their file name, size, and alt text (the attachment's description);
    ``shown``: sent as a message's attachment or as an embed's image (how big Discord
    shows it)."""

    png: bytes
    alt_text: str
    filename: str
    width: int
    height: int
    shown: Shown = "attachment"

    @property
    def scale(self) -> float:
        """How much smaller than drawn Discord shows it on a desktop (1.0: pixel for pixel)."""
        return shown_scale(self.width, self.height, self.shown)

    def __post_init__(self) -> None:
        if not self.alt_text or len(self.alt_text) > ALT_TEXT_LIMIT:
            raise ValueError("a picture needs alt text of 1 to 1,024 characters")

    def file(self) -> discord.File:
        """A fresh ``discord.File`` (one per send: discord.py consumes the buffer)."""
        return discord.File(io.BytesIO(self.png), filename=self.filename, description=self.alt_text)
