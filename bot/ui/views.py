"""Letting go of a view once its message is sent.

A discord.py view and its items point at each other (``view.children`` and ``item.view``),
so a dropped view is freed only by the cyclic garbage collector. Every press drops two: the
one discord.py rebuilds from the pressed message to dispatch a DynamicItem, and the one the
bot sends in its answer. Two thirds of the bot's cyclic garbage under load were these views
and their buttons, and a full collection of them paused the bot for 30-70 ms every 2-3 s, a
move's p99 (bench/interactions.py). ``release`` breaks the cycle, so they are freed at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import discord


def release_rebuilt(view: discord.ui.View | None) -> None:
    """Empty the view discord.py rebuilt from a pressed message to dispatch a DynamicItem
    (``item.view`` in its callback), once the callback is done: nothing else holds it, and
    a DynamicItem is only ever dispatched through such a view (discord.py keeps no view of
    them in memory)."""
    if view is not None:
        view.clear_items()


def release(view: Any) -> None:
    """Empty ``view`` if nothing will dispatch through it again: it never times out and
    every item that takes presses is a DynamicItem (found by its custom_id pattern, not
    through a view kept in memory). A view with any other interactive item, or a timeout,
    is left as it is: discord.py keeps it to dispatch that item's presses or time it out."""
    if not isinstance(view, discord.ui.View) or view.timeout is not None:
        return
    if all(
        isinstance(item, discord.ui.DynamicItem) or not item.is_dispatchable()
        for item in view.walk_children()
    ):
        view.clear_items()


@contextmanager
def released(fields: dict[str, Any]) -> Iterator[None]:
    """Around sending message ``fields``: ``release`` their view afterwards, sent or not."""
    try:
        yield
    finally:
        release(fields.get("view"))
