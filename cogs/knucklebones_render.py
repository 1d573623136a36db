"""How a Knucklebones game looks in Discord: one status line, the board picture, the
buttons.

Everything here is pure: it takes the engine's ``public_view`` plus who sits where, and
returns a ``Picture`` and strings. No I/O, no database, no clock.

The message is ``status_line`` (one line: whose turn, the die, what the last move did, the
timer; the result at the end), then ``render_board``'s picture (its ``Picture.file()``
carries both boards as text in the attachment's description, for screen readers), then
the Column buttons. The boards are never repeated as text in the message itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.pictures.picture import Picture
from bot.text import escape
from cogs import knucklebones_picture

ATTACHMENT_NAME = knucklebones_picture.FILENAME

DIE_EMOJI = {1: "⚀", 2: "⚁", 3: "⚂", 4: "⚃", 5: "⚄", 6: "⚅"}
COUNT_WORDS = {1: "a", 2: "two", 3: "three"}


@dataclass(frozen=True)
class Player:
    """Who sits in one seat, as the message shows them."""

    seat: int
    user_id: int
    name: str
    is_ai: bool = False

    @property
    def mention(self) -> str:
        """How the status line names the player: a mention for a person (Discord shows
        their current server name, never pinging: the message allows no mentions), the
        escaped name for the AI."""
        return f"**{escape(self.name)}**" if self.is_ai else f"<@{self.user_id}>"


@dataclass(frozen=True)
class Clock:
    """Turn timing to show: when the current turn times out, and whether the warning went."""

    turn_due_at: float | None = None
    warned: bool = False


# ---------------------------------------------------------------------------------------
# The picture
# ---------------------------------------------------------------------------------------


def render_board(view: Mapping[str, Any], players: Sequence[Player]) -> Picture:
    """The board picture with its alt text (the text form of both grids)."""
    return knucklebones_picture.render_board(view, [player.name for player in players])


def warm_up() -> None:
    """Draw the sprites, palette and fonts the board needs (about half a second, once per
    process): call it on the render thread at start-up so no player's first move waits."""
    knucklebones_picture.sprites()
    for size in (knucklebones_picture.NAME_SIZE, knucklebones_picture.LABEL_SIZE):
        knucklebones_picture.pictures_text.line("Warm-up", size, "bold")


# ---------------------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------------------


def last_move_text(view: Mapping[str, Any], players: Sequence[Player]) -> str:
    """What the last move did, e.g. "Ann put a 3 in column 2, knocking out two 3s"."""
    last = view.get("last_move")
    if last is None:
        return ""
    mover = escape(players[last["player"]].name)
    removed = len(last["removed"])
    did = f"{mover} put a {last['face']} in column {last['column'] + 1}"
    if removed:
        dice = f"{COUNT_WORDS.get(removed, removed)} {last['face']}" + ("s" if removed > 1 else "")
        did += f", knocking out {dice}"
    return did


def status_line(
    view: Mapping[str, Any],
    players: Sequence[Player],
    clock: Clock,
    *,
    ai_level: str | None = None,
) -> str:
    """The one line above the picture: whose turn and the die (or the result), what the
    last move did, and when the turn runs out."""
    did = last_move_text(view, players)
    if view.get("finished"):
        line = result_line(view, players)
        return f"{line} Last move: {did}." if did and view.get("end_reason") == "normal" else line
    player = players[view["current_player"]]
    die = view["die"]
    if player.is_ai:
        level = f" ({ai_level})" if ai_level else ""
        line = f"🤖 {player.mention}{level} rolled {DIE_EMOJI[die]} **{die}** and is thinking…"
    else:
        line = f"🎲 {player.mention} rolled {DIE_EMOJI[die]} **{die}**: pick a column."
    if did:
        line += f" Last: {did}."
    if clock.turn_due_at is not None and not player.is_ai:
        due = f"<t:{int(clock.turn_due_at)}:R>"
        line += f" ⚠️ Running out of time: {due}" if clock.warned else f" ⏳ {due}"
    return line


def result_line(view: Mapping[str, Any], players: Sequence[Player]) -> str:
    """The result naming the winner (names escaped), e.g. "🏆 **Ann** wins, 68–25.", the
    winner's score first."""
    scores = view["scores"]
    winners = view.get("winners") or []
    reason = view.get("end_reason")
    if view.get("draw") or not winners:
        return f"🤝 Draw, {score_line(scores)}."
    winner_seat = winners[0]
    line = f"{scores[winner_seat]}–{scores[1 - winner_seat]}"
    winner = escape(players[winner_seat].name)
    loser = escape(players[1 - winner_seat].name)
    if reason == "forfeit":
        return f"🏳️ {loser} forfeited: **{winner}** wins, {line}."
    if reason == "timeout":
        return f"⌛ {loser} ran out of time: **{winner}** wins, {line}."
    return f"🏆 **{winner}** wins, {line}."


def score_line(scores: Sequence[int]) -> str:
    """The scores in seat order, as the results table keeps them ("38–43")."""
    return f"{scores[0]}–{scores[1]}"


def warning_text(player: Player, turn_due_at: float) -> str:
    return (
        f"⏰ {player.mention}, your Knucklebones turn runs out <t:{int(turn_due_at)}:R>: "
        "pick a column or you forfeit."
    )
