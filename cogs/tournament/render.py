"""The event's pictures as the cog asks for them: ``render_event``, handed to the picture
worker (``bot.pictures.worker.draw``), which draws them with ``cogs.tournament.picture``.

Apart from the picture module so that the cog names the function without importing the
drawing: the worker pickles a function by its module and name, and the helper process
imports that module to call it, so the bot's process never loads Pillow for a tournament
unless it draws itself (``PICTURE_WORKER=thread``).
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.pictures.picture import Picture
from game_core.tournament import Tournament


def render_event(tournament: Tournament, names: Mapping[int, str], title: str) -> list[Picture]:
    """The event's pictures (``cogs.tournament.picture.render_event``): the bracket's pages,
    or the Swiss standings' pages."""
    # Drawn in the picture helper: the bot's process does not load Pillow unless it draws
    # itself (PICTURE_WORKER=thread).
    from cogs.tournament import picture

    return picture.render_event(tournament, names, title)
