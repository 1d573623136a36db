"""What every engine shares: the result of a finished game and the event type."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

# Events are plain JSON-friendly dicts with at least a "type" key; renderers narrate them.
Event = dict[str, Any]

EndReason = Literal["normal", "forfeit", "timeout", "round_cap", "abandoned"]


class GameResult(BaseModel):
    """The outcome of a finished game, indexed by seat (player index)."""

    model_config = ConfigDict(frozen=True)

    # ranks[i] is seat i's place: 1 is best, equal numbers share the place.
    ranks: list[int]
    winners: list[int]
    draw: bool = False
    reason: EndReason = "normal"
    # Final score per seat where the game has one (points, life, hit points).
    scores: list[int] | None = None

    def outcome(self, seat: int) -> Literal["win", "loss", "draw"]:
        if self.draw:
            return "draw"
        return "win" if seat in self.winners else "loss"
