"""The bot as a game's shared buttons see it (challenges, play on): what the publisher needs
from it (``bot.ui.delivery``) and the publisher itself. ``bot.app.DiceBot`` satisfies it."""

from __future__ import annotations

from typing import Protocol, cast, runtime_checkable

import discord

from bot.ui.delivery import Delivery
from bot.ui.publishing import Publisher


@runtime_checkable
class GameHost(Delivery, Protocol):
    """What a game's shared buttons use: the sessions, Discord, and the publisher that
    shows what their presses did."""

    publisher: Publisher


# The client classes already found to be game hosts: a runtime-checkable protocol's
# isinstance looks up every member each time (about 20 us, on every press).
_host_types: set[type] = set()


def host_of(interaction: discord.Interaction) -> GameHost:
    """The bot an interaction came to, as the game host it is."""
    client = interaction.client
    if type(client) in _host_types:
        return cast(GameHost, client)
    if not isinstance(client, GameHost):
        raise TypeError(f"{type(client).__name__} is not a game host")
    _host_types.add(type(client))
    return client
