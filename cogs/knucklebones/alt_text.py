"""The Knucklebones board in words: the alt text that goes with the board picture
(``cogs.knucklebones.picture``), for a player who cannot see it.

It says what the picture shows, in reading order: the turn, each player's grid (top, then
bottom) with its total and each column's dice (first die first) and score, the last move
and what it knocked out, then whose turn it is and the die to place, the result, or the
sentence of a game stopped without a result; names are shortened to 40 characters and the
whole is clipped to Discord's alt text limit. It is words only (no drawing), so it lives
apart from the picture that carries it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.i18n import _, ngettext, number
from bot.pictures.picture import clip_alt_text


def _column_text(column: int, faces: Sequence[int], score: int) -> str:
    """One column in the alt text, e.g. "column 1: 4, 4, 2 (18, a pair)"."""
    fields = {
        "column": number(column),
        "faces": ", ".join(number(face) for face in faces),
        "score": number(score),
    }
    if not faces:
        return _("column {column}: empty").format(**fields)
    count = max(faces.count(face) for face in faces)
    if count == 2:
        return _("column {column}: {faces} ({score}, a pair)").format(**fields)
    if count == 3:
        return _("column {column}: {faces} ({score}, a triple)").format(**fields)
    return _("column {column}: {faces} ({score})").format(**fields)


def _grid_text(seat: int, name: str, points: int, columns: str) -> str:
    """One player's grid in the alt text: name, place, total and the three columns."""
    fields = {"name": name, "count": number(points), "columns": columns}
    if seat == 0:
        return ngettext(
            "{name} (top grid), {count} point. {columns}.",
            "{name} (top grid), {count} points. {columns}.",
            points,
        ).format(**fields)
    return ngettext(
        "{name} (bottom grid), {count} point. {columns}.",
        "{name} (bottom grid), {count} points. {columns}.",
        points,
    ).format(**fields)


def _last_move_text(last: Mapping[str, Any], short: Sequence[str]) -> str:
    fields = {
        "player": short[last["player"]],
        "opponent": short[1 - last["player"]],
        "face": number(last["face"]),
        "column": number(last["column"] + 1),
    }
    removed = len(last["removed"])
    if removed == 0:
        return _("Last move: {player} put a {face} in column {column}.").format(**fields)
    if removed == 1:
        return _(
            "Last move: {player} put a {face} in column {column}, knocking out one {face} "
            "from {opponent}."
        ).format(**fields)
    if removed == 2:
        return _(
            "Last move: {player} put a {face} in column {column}, knocking out two {face}s "
            "from {opponent}."
        ).format(**fields)
    return _(
        "Last move: {player} put a {face} in column {column}, knocking out three {face}s "
        "from {opponent}."
    ).format(**fields)


def alt_text(view: Mapping[str, Any], names: Sequence[str], stopped: str | None = None) -> str:
    """The board in words: each player's columns (first die first) with their scores,
    whose turn and the die (or, for a game stopped without a result, the ``stopped``
    sentence), the last move."""
    short = [name if len(name) <= 40 else name[:39] + "…" for name in names]
    parts = [_("Knucklebones board, turn {turn}.").format(turn=number(view["turn"]))]
    for seat in (0, 1):
        # Translators: separates the three column descriptions in the board's alt text.
        columns = _("; ").join(
            _column_text(column + 1, faces, score)
            for column, (faces, score) in enumerate(
                zip(view["boards"][seat], view["column_scores"][seat], strict=True)
            )
        )
        parts.append(_grid_text(seat, short[seat], view["scores"][seat], columns))
    last = view.get("last_move")
    if last is not None:
        parts.append(_last_move_text(last, short))
    if view.get("finished"):
        winners = view.get("winners") or []
        if view.get("draw") or not winners:
            parts.append(_("The game is a draw."))
        else:
            parts.append(_("{player} wins.").format(player=short[winners[0]]))
    elif stopped is not None:
        parts.append(stopped)
    else:
        parts.append(
            _("{player} to place a {face}.").format(
                player=short[view["current_player"]], face=number(view["die"])
            )
        )
    return clip_alt_text(" ".join(parts))
