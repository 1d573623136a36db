"""What a press leaves behind for the garbage collector. Under load the bot's full
collections used to pause it for 30-60 ms every 2-3 s, a move's p99 at 16 in flight
(bench/interactions.py): each press left two discord.py views in reference cycles, and
each interaction's watchdog timer kept it (its message, member and answer) alive for
1.5 s, long enough to reach the collector's oldest generation."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import discord
from fakediscord import FakeDiscord, Player
from knucklebones_support import (
    board_turn,
    enabled_columns,
    press_column,
    start_duel,
    wait_for_turn,
)

from bot.app import DiceBot


@contextmanager
def cyclic_garbage() -> Iterator[list[object]]:
    """The objects only the cycle collector would free, made inside the block."""
    gc.collect()
    gc.disable()
    found: list[object] = []
    try:
        yield found
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found.extend(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


async def test_moves_leave_no_views_for_the_cycle_collector(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob)
    players = [alice, bob]
    with cyclic_garbage() as garbage:
        for turn in range(1, 7):
            await press_column(players[(turn - 1) % 2], board, enabled_columns(board)[0])
            await wait_for_turn(fake_discord, board, after=turn)
    assert board_turn(board) == 7
    views = [thing for thing in garbage if isinstance(thing, discord.ui.View)]
    buttons = [thing for thing in garbage if isinstance(thing, discord.ui.Item)]
    assert views == [] and buttons == []


async def test_an_answered_interaction_keeps_no_watchdog_timer(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob)
    await press_column(alice, board, 0)
    await alice.slash("ping")
    # Every interaction so far was answered: none still has a timer waiting to defer it.
    assert running_bot._watchdogs._timers == {}
