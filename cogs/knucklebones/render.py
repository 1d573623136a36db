"""How a Knucklebones game looks in Discord: one status line, the board picture, the
buttons; and the challenge message's texts.

Everything here is pure: it takes the engine's ``public_view`` plus who sits where (or a
challenge's stored session and its events), and returns a ``Picture`` and strings. No I/O,
no database, no clock.

The message is ``status_line`` (one line: whose turn, the die, what the last move did, the
timer; the result at the end), then ``render_board``'s picture (its ``Picture.file()``
carries both boards as text in the attachment's description, for screen readers), then
the Column buttons. The boards are never repeated as text in the message itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot import i18n
from bot.i18n import N_, _, ngettext, number
from bot.model.catalog import game_title
from bot.model.contract import Session, stop_cause, stopped_challenge_text
from bot.model.series import is_rematch
from bot.model.text import escape
from bot.pictures.picture import Picture
from game_core.base import Event

DIE_EMOJI = {1: "⚀", 2: "⚁", 3: "⚂", 4: "⚃", 5: "⚄", 6: "⚅"}


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


def render_board(
    view: Mapping[str, Any],
    players: Sequence[Player],
    language: str | None = None,
    stopped: str | None = None,
) -> Picture:
    """The board picture with its alt text (the text form of both grids), its words in
    ``language`` (the current one when None). The picture thread does not inherit the
    caller's language, so a caller handing this to it passes the language along.
    ``stopped``: the sentence for a game stopped without a result (nobody is to move)."""
    # Drawn in the picture helper: the bot's process does not load Pillow unless it draws
    # itself (PICTURE_WORKER=thread).
    from cogs.knucklebones import picture as knucklebones_picture

    names = [player.name for player in players]
    if language is None:
        return knucklebones_picture.render_board(view, names, stopped)
    with i18n.use(language):
        return knucklebones_picture.render_board(view, names, stopped)


def warm_up() -> None:
    """Draw the sprites, palette and fonts the board needs (about half a second, once per
    process): call it on the render thread at start-up so no player's first move waits."""
    # Run on the picture worker, like ``render_board``: Pillow loads there.
    from cogs.knucklebones import picture as knucklebones_picture

    knucklebones_picture.sprites()
    for size in (knucklebones_picture.NAME_SIZE, knucklebones_picture.LABEL_SIZE):
        knucklebones_picture.pictures_text.line("Warm-up", size, "bold")


# ---------------------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------------------


def last_move_text(view: Mapping[str, Any], players: Sequence[Player]) -> str:
    """What the last move did, one sentence: "Last move: Ann put a 3 in column 2, knocking
    out two 3s." ("" before the first move)."""
    last = view.get("last_move")
    if last is None:
        return ""
    fields = {
        "player": escape(players[last["player"]].name),
        "face": number(last["face"]),
        "column": number(last["column"] + 1),
    }
    removed = len(last["removed"])
    if removed == 0:
        # Translators: part of the status line, e.g. "Last move: Ann put a 3 in column 2."
        return _("Last move: {player} put a {face} in column {column}.").format(**fields)
    if removed == 1:
        return _(
            "Last move: {player} put a {face} in column {column}, knocking out a {face}."
        ).format(**fields)
    if removed == 2:
        # Translators: "two 3s": two dice showing the placed face.
        return _(
            "Last move: {player} put a {face} in column {column}, knocking out two {face}s."
        ).format(**fields)
    return _(
        "Last move: {player} put a {face} in column {column}, knocking out three {face}s."
    ).format(**fields)


# The AI's turn in the status line, by its level (easy, medium or hard).
AI_THINKING = {
    "easy": N_("🤖 {player} (easy) rolled {emoji} **{die}** and is thinking…"),
    "medium": N_("🤖 {player} (medium) rolled {emoji} **{die}** and is thinking…"),
    "hard": N_("🤖 {player} (hard) rolled {emoji} **{die}** and is thinking…"),
}


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
        if did and view.get("end_reason") == "normal":
            return line + " " + did
        return line
    player = players[view["current_player"]]
    die = view["die"]
    fields = {"player": player.mention, "emoji": DIE_EMOJI[die], "die": number(die)}
    if player.is_ai and ai_level in AI_THINKING:
        line = _(AI_THINKING[ai_level]).format(**fields)
    elif player.is_ai:
        line = _("🤖 {player} rolled {emoji} **{die}** and is thinking…").format(**fields)
    else:
        line = _("🎲 {player} rolled {emoji} **{die}**: pick a column.").format(**fields)
    if did:
        line += " " + did
    if clock.turn_due_at is not None and not player.is_ai:
        due = f"<t:{int(clock.turn_due_at)}:R>"
        if clock.warned:
            # Translators: {when} is a Discord timestamp shown as "in 2 minutes".
            line += " " + _("⚠️ Running out of time: {when}").format(when=due)
        else:
            line += f" ⏳ {due}"
    return line


def result_line(view: Mapping[str, Any], players: Sequence[Player]) -> str:
    """The result naming the winner (names escaped), e.g. "🏆 **Ann** wins, 68–25.", the
    winner's score first."""
    scores = view["scores"]
    winners = view.get("winners") or []
    reason = view.get("end_reason")
    if view.get("draw") or not winners:
        score = f"{number(scores[0])}–{number(scores[1])}"
        return _("🤝 Draw, {score}.").format(score=score)
    winner_seat = winners[0]
    fields = {
        "score": f"{number(scores[winner_seat])}–{number(scores[1 - winner_seat])}",
        "winner": escape(players[winner_seat].name),
        "loser": escape(players[1 - winner_seat].name),
    }
    if reason == "forfeit":
        return _("🏳️ {loser} forfeited: **{winner}** wins, {score}.").format(**fields)
    if reason == "timeout":
        return _("⌛ {loser} ran out of time: **{winner}** wins, {score}.").format(**fields)
    return _("🏆 **{winner}** wins, {score}.").format(**fields)


def score_line(scores: Sequence[int]) -> str:
    """The scores in seat order, as the results table keeps them ("38–43"): stored, so
    never translated."""
    return f"{scores[0]}–{scores[1]}"


def warning_text(player: Player, turn_due_at: float) -> str:
    # Translators: {when} is a Discord timestamp shown as "in 2 minutes".
    return _(
        "⏰ {player}, your Knucklebones turn runs out {when}: pick a column or you forfeit."
    ).format(player=player.mention, when=f"<t:{int(turn_due_at)}:R>")


# ---------------------------------------------------------------------------------------
# The challenge
# ---------------------------------------------------------------------------------------


def first_details(challenge: dict[str, Any]) -> str:
    """The challenge message's line about who moves first."""
    first = (challenge.get("options") or {}).get("first", "random")
    if first == "me":
        return _("{player} moves first.").format(player=f"<@{challenge['challenger']}>")
    if first == "them":
        return _("{player} moves first.").format(player=f"<@{challenge['opponent']}>")
    return _("A coin flip decides who moves first.")


def closed_challenge_text(session: Session, events: list[Event]) -> str:
    """A challenge (or rematch) message once nobody can accept it any more: declined,
    withdrawn, expired or stopped (``events`` say which)."""
    challenge = session.state.get("challenge", {})
    fields = {
        "challenger": f"<@{challenge.get('challenger')}>",
        "opponent": f"<@{challenge.get('opponent')}>",
    }
    kinds = {event.get("type") for event in events}
    rematch = is_rematch(session.state)
    if "challenge_declined" in kinds:
        if rematch:
            return _("❌ {opponent} declined {challenger}'s Knucklebones rematch.").format(**fields)
        return _("❌ {opponent} declined {challenger}'s Knucklebones challenge.").format(**fields)
    if "challenge_withdrawn" in kinds:
        if rematch:
            return _("↩️ {challenger} withdrew the Knucklebones rematch to {opponent}.").format(
                **fields
            )
        return _("↩️ {challenger} withdrew the Knucklebones challenge to {opponent}.").format(
            **fields
        )
    if "challenge_expired" in kinds:
        minutes = max(1, round((challenge.get("expires_at", 0) - session.created_at) / 60))
        if rematch:
            text = ngettext(
                "⌛ {challenger}'s Knucklebones rematch to {opponent} expired: it was not "
                "accepted within {count} minute.",
                "⌛ {challenger}'s Knucklebones rematch to {opponent} expired: it was not "
                "accepted within {count} minutes.",
                minutes,
            )
        else:
            text = ngettext(
                "⌛ {challenger}'s Knucklebones challenge to {opponent} expired: it was not "
                "accepted within {count} minute.",
                "⌛ {challenger}'s Knucklebones challenge to {opponent} expired: it was not "
                "accepted within {count} minutes.",
                minutes,
            )
        return text.format(count=number(minutes), **fields)
    cause = stop_cause(events)
    if cause:
        text = stopped_challenge_text(cause, rematch=rematch)
        return "🛑 " + text.format(game=game_title("knucklebones"), **fields)
    if rematch:
        return _("This Knucklebones rematch between {challenger} and {opponent} is closed.").format(
            **fields
        )
    return _("This Knucklebones challenge between {challenger} and {opponent} is closed.").format(
        **fields
    )
