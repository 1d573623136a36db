"""Text both secret duels (Diceman, Dimension Duel) show: bars, durations, slash commands
and the players' names.

Everything here is plain text built from data that is already public (an engine's
``public_view``, a session's seats), so it can be unit-tested without Discord and can never
leak a choice that has not been revealed. Each game's own texts (its names and its reveal)
are in its package's ``render``.

Every text is built in the current language (``bot.i18n``) when a function is called.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import _, number
from bot.model.contract import Session
from bot.model.text import escape

BAR_WIDTH = 12


def life_bar(value: int, maximum: int, width: int = BAR_WIDTH) -> str:
    """A fixed-width bar such as ```████████░░░░` 14/20`` (below 0 shows as an empty bar)."""
    shown = max(0, value)
    filled = 0 if maximum <= 0 else round(width * min(shown, maximum) / maximum)
    if shown > 0 and filled == 0:
        filled = 1  # a living player never looks dead
    return f"`{'█' * filled}{'░' * (width - filled)}` **{number(shown)}**/{number(maximum)}"


def describe_seconds(seconds: float) -> str:
    """``180`` -> ``3 min``; ``90`` -> ``1 min 30 s``; ``45`` -> ``45 s``."""
    whole = max(0, round(seconds))
    minutes, rest = divmod(whole, 60)
    if minutes and rest:
        # Translators: a duration, such as "1 min 30 s".
        return _("{minutes} min {seconds} s").format(minutes=number(minutes), seconds=number(rest))
    if minutes:
        # Translators: a duration in whole minutes, such as "3 min".
        return _("{minutes} min").format(minutes=number(minutes))
    # Translators: a duration in seconds, such as "45 s".
    return _("{seconds} s").format(seconds=number(rest))


def score_pair(label: str, values: Sequence[int]) -> str:
    """The results table's score line, e.g. ``Life 12–0`` (nobody shows below 0); ``label``
    is already in the current language."""
    return f"{label} {number(max(0, values[0]))}–{number(max(0, values[1]))}"


def display_names(session: Session) -> list[str]:
    """The players' display names as they are (for pictures, which draw them)."""
    return [session.user_of(seat).display_name for seat in (0, 1)]


def raw_names(session: Session) -> dict[int, str]:
    """User id -> display name as written (bot.model.series escapes what it shows)."""
    return {seat.user_id: seat.display_name for seat in session.seats}


def shown_names(session: Session) -> list[str]:
    """The players' display names escaped, for message text (markdown means nothing
    in a name: ``**bold**__`` stays those characters, ``@everyone`` pings nobody)."""
    return [escape(name) for name in display_names(session)]
