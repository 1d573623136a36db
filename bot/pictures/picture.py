"""``Picture``: a rendered PNG with the text screen readers read in its place.

``remembered`` draws a picture once for what it shows (its arguments and the language)."""

from __future__ import annotations

import functools
import io
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, ParamSpec

import discord

from bot import i18n

P = ParamSpec("P")

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


# Pictures kept per function by ``remembered``: a game's picture is 5-40 kB.
REMEMBERED = 32


def remembered(
    size: int = REMEMBERED,
) -> Callable[[Callable[P, Picture]], Callable[P, Picture]]:
    """A picture function (its arguments all it draws from, and the language) that draws
    a picture once for the same arguments in the same language and hands the same
    ``Picture`` back while it is among the last ``size`` drawn. A game's message is often
    edited with its picture unchanged (a player locked in a secret choice, a note about a
    timer): the edit then costs no drawing.

    Keyed by the pickled arguments with the language and pseudo-localization (equal
    arguments pickle alike); arguments that cannot be pickled are drawn every time, and
    so is every call while ``bot.pictures.text.record()`` watches what is drawn."""

    def decorate(function: Callable[P, Picture]) -> Callable[P, Picture]:
        # Here, not at the top: every game imports ``Picture``, and the text module loads
        # Pillow and fontTools, which the bot's process needs only when it draws itself. A
        # picture function is decorated in its picture module, which has loaded it already.
        from bot.pictures import text as pictures_text

        kept: OrderedDict[bytes, Picture] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(function)
        def draw(*args: P.args, **kwargs: P.kwargs) -> Picture:
            if pictures_text.recording() is not None:
                return function(*args, **kwargs)
            try:
                key = pickle.dumps(
                    (i18n.current(), i18n.pseudo_enabled(), args, sorted(kwargs.items())),
                    protocol=pickle.HIGHEST_PROTOCOL,
                )
            except Exception:  # an argument that cannot be pickled: nothing to key on
                return function(*args, **kwargs)
            with lock:
                picture = kept.get(key)
                if picture is not None:
                    kept.move_to_end(key)
                    return picture
            picture = function(*args, **kwargs)
            with lock:
                kept[key] = picture
                while len(kept) > size:
                    kept.popitem(last=False)
            return picture

        return draw

    return decorate
