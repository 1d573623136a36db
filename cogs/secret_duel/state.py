"""What a secret duel stores in its session: the envelope around the engine's state.

A started game's state is ``{"game": <engine state>, "ui": <UiState>}``; a pending challenge
stores the challenge envelope (``bot.ui.challenges``) and a game against the AI that is
about to begin stores ``{"setup": options}``. The engine state holds the locked-in choices;
``ui`` holds only bot facts: the round's deadline, the last reveal (public once revealed),
the picks for /stats. Each player's private message is stored by the publisher under its
round's key (``round_key``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

SETUP_KEY = "setup"


class UiState(BaseModel):
    """Bot-level facts about the running game (never a secret before its reveal)."""

    round: int = 1
    started_at: float = 0.0
    deadline_at: float = 0.0
    timeout_seconds: int = 180
    warned: bool = False
    # The engine's events of the last reveal: public from the moment they exist.
    reveal: list[dict[str, Any]] = Field(default_factory=list)
    # Per seat, what each revealed round showed (Diceman dice pairs, duel functions).
    picks: list[list[Any]] = Field(default_factory=lambda: [[], []])
    ended: str | None = None  # "abandoned" when both players ran out of time


def envelope(state: BaseModel, ui: UiState) -> dict[str, Any]:
    """The stored state of a started game."""
    return {"game": state.model_dump(mode="json"), "ui": ui.model_dump(mode="json")}


def round_key(round_no: int) -> str:
    """The private-message key of a round's controls."""
    return f"round:{round_no}"


def round_of_key(key: str) -> int:
    return int(key.partition(":")[2] or 0)
