"""Helpers of the replay tests: what the players saw in play, and stepping a replay."""

from __future__ import annotations

import re
from dataclasses import dataclass

from fakediscord import CallbackType, FakeMessage, Player

# The timer a running game's status line ends with: a replay shows no clock.
TIMER = re.compile(r" ?(⏳|⚠️ Running out of time:) <t:\d+:R>")
HEADER = re.compile(r"^🎞️ Replay: step (\d+) of (\d+)\n")


@dataclass(frozen=True)
class Seen:
    """One version of a game's public message as players saw it."""

    content: str
    alt: str


def seen(message: FakeMessage, filename: str) -> Seen:
    """The message's status text (timer left out) and its picture's alt text."""
    content = TIMER.sub("", message.content)
    return Seen(content=content, alt=message.attachment(filename).description or "")


def step_of(replay: FakeMessage) -> tuple[int, int]:
    """(step, total) from an English replay's header."""
    match = HEADER.match(replay.content)
    assert match is not None, replay.content
    return int(match[1]), int(match[2])


def shown(replay: FakeMessage, filename: str) -> Seen:
    """The step a replay shows, without its header, as ``seen`` reads a game message."""
    return Seen(
        content=HEADER.sub("", replay.content),
        alt=replay.attachment(filename).description or "",
    )


async def open_replay(viewer: Player, board: FakeMessage, label: str = "Replay") -> FakeMessage:
    """Press Replay on a finished game: its private replay message."""
    opened = await viewer.click(board, label)
    assert opened.type is CallbackType.MESSAGE and opened.ephemeral, opened.text()
    assert opened.message is not None
    return opened.message


async def press(viewer: Player, replay: FakeMessage, emoji: str) -> FakeMessage:
    """Press ⏮ ◀ ▶ or ⏭ on a replay: the answer edits the replay itself."""
    moved = await viewer.click(replay, emoji)
    assert moved.type is CallbackType.UPDATE_MESSAGE, (moved.type, moved.text())
    assert moved.message is replay
    return replay


def navigation(replay: FakeMessage) -> list[bool]:
    """Whether ⏮ ◀ ▶ ⏭ are enabled, in that order."""
    return [not button.get("disabled", False) for button in replay.buttons()]
