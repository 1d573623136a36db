"""Helpers for the Knucklebones end-to-end tests: reading the board as a player sees it,
pressing its buttons, and looking at what the bot stored."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from fakediscord import CallbackType, FakeDiscord, FakeMessage, InteractionOutcome, Player

from bot.app import DiceBot
from bot.model.contract import Session

TURN_IN_CUSTOM_ID = re.compile(r"kb:\d+:(\d+):col:[0-2]")
MOVER_MENTION = re.compile(r"🎲 <@(\d+)> rolled")


def board_turn(board: FakeMessage) -> int | None:
    """The turn the board's column buttons belong to, when a player may press one (None
    while the AI thinks, when its buttons are shown disabled, and at the end)."""
    for button in board.buttons():
        match = TURN_IN_CUSTOM_ID.fullmatch(str(button.get("custom_id", "")))
        if match is not None and not button.get("disabled"):
            return int(match[1])
    return None


def ai_thinking(board: FakeMessage) -> bool:
    """The AI is to move: the Column buttons stay on the board, all disabled."""
    columns = [b for b in board.buttons() if str(b.get("label", "")).startswith("Column ")]
    return (
        "is thinking" in board.content
        and len(columns) == 3
        and all(b.get("disabled") for b in columns)
    )


def mover_id(board: FakeMessage) -> int | None:
    """Whose turn the board says it is (a human with buttons), from the message text."""
    match = MOVER_MENTION.search(board.content)
    return None if match is None else int(match[1])


def enabled_columns(board: FakeMessage) -> list[int]:
    return [
        int(button["label"].removeprefix("Column ")) - 1
        for button in board.buttons()
        if str(button.get("label", "")).startswith("Column ") and not button.get("disabled")
    ]


def column_buttons(board: FakeMessage) -> list[dict[str, Any]]:
    return [b for b in board.buttons() if str(b.get("label", "")).startswith("Column ")]


def is_finished(board: FakeMessage) -> bool:
    """The game is over on the board: no Column buttons, the result on top (a finished
    game offers only a Rematch or the match's next game)."""
    return column_buttons(board) == [] and (" wins" in board.content or "Draw" in board.content)


async def play_to_the_end(players: dict[int, Player], board: FakeMessage) -> int:
    """Both players press columns until the game ends; returns the number of presses."""
    presses = 0
    while not is_finished(board):
        turn = board_turn(board)
        assert turn is not None, board.content
        mover = players[mover_id(board) or 0]
        columns = enabled_columns(board)
        await press_column(mover, board, columns[turn % len(columns)])
        presses += 1
    return presses


async def wait_for_turn(fake: FakeDiscord, board: FakeMessage, after: int) -> None:
    """Wait until the board shows buttons for a turn later than ``after``, or the end."""
    await fake.wait_for(
        lambda: is_finished(board) or (board_turn(board) or 0) > after,
        timeout=5,
        what=f"the board to move past turn {after}",
    )


async def press_column(player: Player, board: FakeMessage, column: int) -> InteractionOutcome:
    """Press Column ``column + 1`` and check the move was answered by editing the board."""
    outcome = await player.click(board, f"Column {column + 1}")
    assert outcome.type is CallbackType.UPDATE_MESSAGE, (
        outcome.type,
        outcome.latency,
        outcome.text(),
    )
    assert outcome.message is board
    return outcome


async def session_for(bot: DiceBot, board: FakeMessage) -> Session:
    # The bot stores the message's id right after its answer posted it: a press that came
    # in meanwhile may be shown first (up to 2 s on a loaded machine).
    for _ in range(200):
        row = await bot.db.fetch_one("SELECT id FROM sessions WHERE message_id = ?", (board.id,))
        if row is not None:
            return await bot.sessions.require(int(row["id"]))
        await asyncio.sleep(0.01)
    raise AssertionError("no session is attached to that message")


async def stored_result(bot: DiceBot, session_id: int) -> tuple[dict[str, Any], list[Any]]:
    """The results row (summary decoded) and its player rows, seat order."""
    row = await bot.db.fetch_one("SELECT * FROM results WHERE session_id = ?", (session_id,))
    assert row is not None, "no result was recorded"
    result = dict(row)
    result["summary"] = json.loads(result["summary"])
    players = await bot.db.fetch_all(
        "SELECT * FROM result_players WHERE result_id = ? ORDER BY seat", (row["id"],)
    )
    return result, [dict(player) for player in players]


async def result_count(bot: DiceBot) -> int:
    row = await bot.db.fetch_one("SELECT COUNT(*) AS n FROM results")
    assert row is not None
    return int(row["n"])


def ai_board_idle(board: FakeMessage) -> bool:
    """The AI game waits for the human (buttons shown) or is over."""
    return is_finished(board) or board_turn(board) is not None


async def start_duel(
    fake: FakeDiscord, alice: Player, bob: Player, first: str = "me"
) -> FakeMessage:
    """Alice challenges bob, bob accepts; returns the live board."""
    challenge = await alice.slash("knucklebones challenge", opponent=bob, first=first)
    board = challenge.message
    assert board is not None
    accepted = await bob.click(board, "Accept")
    assert accepted.type is CallbackType.UPDATE_MESSAGE
    await fake.wait_for(lambda: board_turn(board) == 1, what="the game board after Accept")
    return board
