"""Every game's guide without a bot (``cogs/<game>/guide.py``, what each game's cog registers
when it loads), for tests that render /help, /rules or /stats, or record finished games'
picks, with no bot running."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

import cogs
from bot.model.guide import GameGuide, GuideBook


def every_guide() -> GuideBook:
    """A book of every game package's guide, as a bot with all its games loaded has."""
    guides: list[GameGuide] = []
    for module in pkgutil.iter_modules(cogs.__path__):
        if module.ispkg and importlib.util.find_spec(f"cogs.{module.name}.guide") is not None:
            guides.append(importlib.import_module(f"cogs.{module.name}.guide").GUIDE)
    return GuideBook(guides)


def guide_of(game: str) -> GameGuide:
    """One game's guide."""
    guide = every_guide().get(game)
    assert guide is not None, f"no cogs/<package>/guide.py has a guide for {game!r}"
    return guide
