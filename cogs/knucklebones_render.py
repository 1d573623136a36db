"""How a Knucklebones game looks in Discord: the board picture, its alt text and the
message text around it.

Everything here is pure: it takes the engine's ``public_view`` plus who sits where, and
returns a ``Picture``, strings and ``discord.Embed`` data. No I/O, no database, no clock.

The message the issue on pictures asks for is ``status_line`` (one line: whose turn, the
die, what the last move did, the timer; the result at the end), then ``render_board``'s
picture (``Picture.file()`` carries the boards as text in its description for screen
readers), then the buttons. ``render_game``/``build_embed`` are the older embed layout,
kept until the cog switches over.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.pictures import palette
from bot.pictures.picture import Picture
from cogs import knucklebones_picture

ATTACHMENT_NAME = knucklebones_picture.FILENAME
SLOT_COUNT = 3

DIE_EMOJI = {1: "⚀", 2: "⚁", 3: "⚂", 4: "⚃", 5: "⚄", 6: "⚅"}
COUNT_WORDS = {1: "a", 2: "two", 3: "three"}

EMBED_COLOUR_RUNNING = discord.Colour(palette.EMBED_RUNNING)
EMBED_COLOUR_FINISHED = discord.Colour(palette.EMBED_FINISHED)
EMBED_COLOUR_CANCELLED = discord.Colour(palette.EMBED_CANCELLED)


@dataclass(frozen=True)
class Player:
    """Who sits in one seat, as the message shows them."""

    seat: int
    user_id: int
    name: str
    is_ai: bool = False

    @property
    def mention(self) -> str:
        return self.name if self.is_ai else f"<@{self.user_id}>"


@dataclass(frozen=True)
class Clock:
    """Turn timing to show: when the current turn times out, and whether the warning went."""

    turn_due_at: float | None = None
    warned: bool = False


@dataclass(frozen=True)
class Rendered:
    content: str
    embed: discord.Embed
    png: bytes
    alt_text: str = ""

    def file(self) -> discord.File:
        return discord.File(
            io.BytesIO(self.png), filename=ATTACHMENT_NAME, description=self.alt_text or None
        )


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


def render_board_png(view: Mapping[str, Any], players: Sequence[Player]) -> bytes:
    return render_board(view, players).png


# ---------------------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------------------


def _fit(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def escaped(name: str) -> str:
    """A display name safe inside Discord markdown (``**bold**__`` stays literal)."""
    return discord.utils.escape_markdown(discord.utils.escape_mentions(_fit(name, 40)))


def _shown(player: Player) -> str:
    return f"**{escaped(player.name)}**" if player.is_ai else player.mention


def status_line(view: Mapping[str, Any], players: Sequence[Player], clock: Clock) -> str:
    """The one line above the picture: whose turn and the die (or the result), what the
    last move did, and when the turn runs out."""
    last = view.get("last_move")
    did = ""
    if last is not None:
        mover = escaped(players[last["player"]].name)
        removed = len(last["removed"])
        did = f"{mover} put a {last['face']} in column {last['column'] + 1}"
        if removed:
            dice = f"{COUNT_WORDS.get(removed, removed)} {last['face']}" + (
                "s" if removed > 1 else ""
            )
            did += f", knocking out {dice}"
    if view.get("finished"):
        line = describe_end_plain(view, players)
        return f"{line} Last move: {did}." if did and view.get("end_reason") == "normal" else line
    player = players[view["current_player"]]
    die = view["die"]
    if player.is_ai:
        line = f"🤖 {_shown(player)} rolled {DIE_EMOJI[die]} **{die}** and is thinking…"
    else:
        line = f"🎲 {_shown(player)} rolled {DIE_EMOJI[die]} **{die}**: pick a column."
    if did:
        line += f" Last: {did}."
    if clock.turn_due_at is not None and not player.is_ai:
        line += f" ⏳ <t:{int(clock.turn_due_at)}:R>"
        if clock.warned:
            line += " ⚠️"
    return line


def describe_end_plain(view: Mapping[str, Any], players: Sequence[Player]) -> str:
    """The result naming the winner (names escaped), e.g. "🏆 **Ann** wins 68–25."."""
    scores = view["scores"]
    line = score_line(scores)
    winners = view.get("winners") or []
    reason = view.get("end_reason")
    if view.get("draw") or not winners:
        return f"🤝 Draw, {line}."
    winner = escaped(players[winners[0]].name)
    loser = escaped(players[1 - winners[0]].name)
    if reason == "forfeit":
        return f"🏳️ {loser} forfeited: **{winner}** wins, {line}."
    if reason == "timeout":
        return f"⌛ {loser} ran out of time: **{winner}** wins, {line}."
    return f"🏆 **{winner}** wins, {line}."


def text_grid(board: Sequence[Sequence[int]], column_scores: Sequence[int]) -> str:
    """One grid as monospace rows (first die placed on top), column scores underneath."""
    rows = [" C1  C2  C3"]
    for slot in range(SLOT_COUNT):
        cells = [f"[{column[slot]}]" if slot < len(column) else "[ ]" for column in board]
        rows.append(" ".join(cells))
    rows.append(" ".join(f"{score:>3}" for score in column_scores))
    return "\n".join(rows)


def score_line(scores: Sequence[int]) -> str:
    return f"{scores[0]}–{scores[1]}"


def describe_last_move(view: Mapping[str, Any], players: Sequence[Player]) -> str | None:
    last = view.get("last_move")
    if last is None:
        return None
    mover = players[last["player"]].name
    other = players[1 - last["player"]].name
    column = last["column"] + 1
    text = f"{mover} put a **{last['face']}** in column {column}"
    removed = len(last["removed"])
    if removed:
        face = last["face"]
        dice = f"{COUNT_WORDS.get(removed, removed)} {face}" + ("s" if removed > 1 else "")
        text += f" and knocked out {dice} from {other}'s column {column}"
    else:
        text += ", knocking nothing out"
    return text + "."


def describe_end(view: Mapping[str, Any], players: Sequence[Player]) -> str:
    scores = view["scores"]
    line = score_line(scores)
    winners = view.get("winners") or []
    reason = view.get("end_reason")
    if view.get("draw") or not winners:
        return f"🤝 **Draw**, {line}."
    winner = players[winners[0]]
    loser = players[1 - winners[0]]
    if reason == "forfeit":
        return f"🏳️ {loser.name} forfeited: **{winner.name} wins** ({line})."
    if reason == "timeout":
        return f"⌛ {loser.name} ran out of time: **{winner.name} wins** ({line})."
    return f"🏆 **{winner.name} wins**, {line}."


def game_title(players: Sequence[Player]) -> str:
    return f"Knucklebones: {players[0].name} vs {players[1].name}"


def build_embed(
    view: Mapping[str, Any],
    players: Sequence[Player],
    clock: Clock,
    *,
    footer: str = "",
) -> discord.Embed:
    finished = bool(view.get("finished"))
    lines: list[str] = []
    if finished:
        lines.append(describe_end(view, players))
    else:
        mover = players[view["current_player"]]
        die = view["die"]
        lines.append(f"**Turn {view['turn']}**: {mover.name} rolled {DIE_EMOJI[die]} **{die}**.")
    last = describe_last_move(view, players)
    if last is not None:
        lines.append(f"Last move: {last}")
    if not finished and clock.turn_due_at is not None:
        lines.append(f"⏳ Turn ends <t:{int(clock.turn_due_at)}:R>.")
        if clock.warned:
            lines.append(f"⚠️ {players[view['current_player']].name} is running out of time!")
    embed = discord.Embed(
        title=game_title(players),
        description="\n".join(lines),
        colour=EMBED_COLOUR_FINISHED if finished else EMBED_COLOUR_RUNNING,
    )
    for seat in (0, 1):
        player = players[seat]
        breakdown = " + ".join(str(score) for score in view["column_scores"][seat])
        marker = ""
        if finished and seat in (view.get("winners") or []):
            marker = " 🏆"
        elif not finished and view["current_player"] == seat:
            marker = " ◀"
        embed.add_field(
            name=f"{_fit(player.name, 60)}: {view['scores'][seat]}{marker}",
            value=f"{breakdown} = {view['scores'][seat]}\n```\n"
            + text_grid(view["boards"][seat], view["column_scores"][seat])
            + "\n```",
            inline=True,
        )
    embed.set_image(url=f"attachment://{ATTACHMENT_NAME}")
    first = players[view["first_player"]].name
    embed.set_footer(text=f"{first} went first" + (f" · {footer}" if footer else ""))
    return embed


def build_content(view: Mapping[str, Any], players: Sequence[Player]) -> str:
    if view.get("finished"):
        winners = view.get("winners") or []
        if view.get("draw") or not winners:
            return f"🎲 Knucklebones: {players[0].mention} and {players[1].mention} draw."
        return f"🎲 Knucklebones: {players[winners[0]].mention} wins!"
    mover = players[view["current_player"]]
    if mover.is_ai:
        return f"🤖 {mover.name} is thinking…"
    die = view["die"]
    return f"🎲 {mover.mention}, your turn: you rolled a **{die}**. Pick a column."


def render_game(
    view: Mapping[str, Any],
    players: Sequence[Player],
    clock: Clock,
    *,
    footer: str = "",
) -> Rendered:
    """The whole public message for a running or finished game."""
    picture = render_board(view, players)
    return Rendered(
        content=build_content(view, players),
        embed=build_embed(view, players, clock, footer=footer),
        png=picture.png,
        alt_text=picture.alt_text,
    )


def warning_text(player: Player, turn_due_at: float) -> str:
    return (
        f"⏰ {player.mention}, your Knucklebones turn runs out <t:{int(turn_due_at)}:R>: "
        "pick a column or you forfeit."
    )
