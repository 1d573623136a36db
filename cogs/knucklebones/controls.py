"""The Knucklebones board's buttons: Column 1/2/3 for the player to move (``ColumnButton``,
a DynamicItem, so a board keeps working after a restart) and the view that holds them.

A press is one call to ``press_column``, which reaches the runtime through the game host
(``bot.ui.host``): the move goes through the session service and its answer edits the board.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.i18n import _, number
from bot.ui.answers import answer_for
from bot.ui.host import host_of
from bot.ui.replies import Guarded

COLUMN_TEMPLATE = r"kb:(?P<session_id>[0-9]{1,19}):(?P<turn>[0-9]{1,6}):col:(?P<column>[0-2])"


def column_custom_id(session_id: int, turn: int, column: int) -> str:
    return f"kb:{session_id}:{turn}:col:{column}"


class ColumnButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=COLUMN_TEMPLATE,
):
    """Column 1/2/3 on the board of the player to move. The custom_id names the board
    (session and turn), so it keeps working after a restart with no view in memory."""

    def __init__(self, session_id: int, turn: int, column: int, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                # Translators: the buttons under the board, one per column.
                label=_("Column {column}").format(column=number(column + 1)),
                style=discord.ButtonStyle.primary,
                custom_id=column_custom_id(session_id, turn, column),
                disabled=disabled,
            )
        )
        self.session_id = session_id
        self.turn = turn
        self.column = column

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ColumnButton:
        return cls(int(match["session_id"]), int(match["turn"]), int(match["column"]))

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_column(interaction, self.session_id, self.turn, self.column)


async def press_column(
    interaction: discord.Interaction, session_id: int, turn: int, column: int
) -> None:
    """A Column button pressed: place the die in ``column`` of the board of ``turn``."""
    host = host_of(interaction)
    async with host.publisher.answering(session_id) as show:
        outcome = await host.sessions.act(
            session_id,
            interaction.user.id,
            {"type": "place", "column": column, "turn": turn},
            on_message=None if interaction.message is None else interaction.message.id,
        )
        # The move is committed: the answer edits the board in place; if Discord loses
        # it, the publisher edits the board instead.
        await show(answer_for(interaction), outcome.session, outcome.events)


def board_view(session_id: int, view: dict[str, Any], mover_is_ai: bool) -> discord.ui.View | None:
    """The Column buttons for the player to move, full columns disabled; while the AI
    thinks, all three stay on the board disabled (the message keeps its layout). None once
    the game is over."""
    if view["finished"]:
        return None
    mover = view["current_player"]
    buttons = discord.ui.View(timeout=None)
    for column in range(3):
        full = column not in view["open_columns"][mover]
        buttons.add_item(
            ColumnButton(session_id, view["turn"], column, disabled=full or mover_is_ai)
        )
    return buttons
