"""The Knucklebones board picture as main drew it before the picture rework (commit
66cf009, ``cogs/knucklebones_render.py``), kept verbatim so ``bench/knucklebones_render.py``
can measure today's board beside the new one in one run. Not used by the bot.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

ATTACHMENT_NAME = "board.png"
COLUMN_COUNT = 3
SLOT_COUNT = 3

# Geometry (pixels).
DIE = 60
SLOT_GAP = 8
COLUMN_GAP = 18
MARGIN = 20
NAME_BAR = 40
SCORE_ROW = 26
MIDDLE = 14
PANEL_WIDTH = 190
GRID_WIDTH = COLUMN_COUNT * DIE + (COLUMN_COUNT - 1) * COLUMN_GAP
GRID_HEIGHT = SLOT_COUNT * DIE + (SLOT_COUNT - 1) * SLOT_GAP
WIDTH = MARGIN + GRID_WIDTH + MARGIN + PANEL_WIDTH + MARGIN
HEIGHT = 2 * (MARGIN + NAME_BAR + 8 + GRID_HEIGHT + SCORE_ROW) + MIDDLE

# Colours.
BACKGROUND = (43, 45, 49)
TRAY = (56, 58, 64)
TRAY_EDGE = (78, 80, 88)
TEXT = (235, 236, 240)
MUTED = (160, 163, 172)
DIE_FACE = (244, 241, 234)
DOUBLE_FACE = (242, 193, 78)  # two of a kind in a column
TRIPLE_FACE = (108, 180, 238)  # three of a kind
PIP = (32, 33, 36)
LAST_PLACED = (67, 181, 129)
REMOVED = (237, 66, 69)
TO_MOVE = (88, 101, 242)
WINNER = (242, 193, 78)

# Pip positions on a 3x3 lattice (col, row), per face.
PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}
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
        return self.name if self.is_ai else f"<@{self.user_id}>"


# ---------------------------------------------------------------------------------------
# The picture
# ---------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _fit(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fit_width(text: str, size: int, max_width: float) -> str:
    """``text`` shortened with an ellipsis until it is at most ``max_width`` pixels wide."""
    font = _font(size)
    text = _fit(text, 40)
    if font.getlength(text) <= max_width:
        return text
    while text and font.getlength(text + "…") > max_width:
        text = text[:-1]
    return text.rstrip() + "…"


def _die_colour(face: int, column: Sequence[int]) -> tuple[int, int, int]:
    count = column.count(face)
    if count >= 3:
        return TRIPLE_FACE
    if count == 2:
        return DOUBLE_FACE
    return DIE_FACE


def draw_die(
    draw: ImageDraw.ImageDraw,
    left: int,
    top: int,
    size: int,
    face: int,
    fill: tuple[int, int, int] = DIE_FACE,
    outline: tuple[int, int, int] | None = None,
) -> None:
    """A die with pips (no font needed), optionally outlined."""
    radius = size // 6
    box = (left, top, left + size - 1, top + size - 1)
    draw.rounded_rectangle(box, radius=radius, fill=fill)
    if outline is not None:
        draw.rounded_rectangle(box, radius=radius, outline=outline, width=max(3, size // 16))
    step = size / 4
    pip = max(2, size // 11)
    for col, row in PIPS[face]:
        cx = left + step * (col + 1)
        cy = top + step * (row + 1)
        draw.ellipse((cx - pip, cy - pip, cx + pip, cy + pip), fill=PIP)


@dataclass(frozen=True)
class SeatLayout:
    """Where one seat's parts sit in the picture. Seat 0 is on top with its grid growing
    upwards towards the middle line; seat 1 is mirrored below it."""

    bar_top: int
    grid_top: int
    score_top: int
    downward: bool


_HALF = MARGIN + NAME_BAR + 8 + GRID_HEIGHT + SCORE_ROW
LAYOUTS: dict[int, SeatLayout] = {
    0: SeatLayout(
        bar_top=MARGIN,
        grid_top=MARGIN + NAME_BAR + 8,
        score_top=MARGIN + NAME_BAR + 8 + GRID_HEIGHT + 4,
        downward=False,
    ),
    1: SeatLayout(
        bar_top=HEIGHT - MARGIN - NAME_BAR,
        grid_top=_HALF + MIDDLE + SCORE_ROW,
        score_top=_HALF + MIDDLE,
        downward=True,
    ),
}


def die_box(seat: int, column: int, slot: int) -> tuple[int, int, int, int]:
    """The pixel box (left, top, right, bottom) of a seat's die slot; slot 0 is the one
    nearest the middle line (the first die placed in the column)."""
    layout = LAYOUTS[seat]
    left = MARGIN + column * (DIE + COLUMN_GAP)
    offset = slot * (DIE + SLOT_GAP)
    if layout.downward:
        top = layout.grid_top + offset
    else:
        top = layout.grid_top + GRID_HEIGHT - DIE - offset
    return left, top, left + DIE - 1, top + DIE - 1


# Text is anti-aliased onto these backgrounds: the palette holds the blends between them.
TEXT_COLOURS = (TEXT, MUTED, WINNER, REMOVED)
TEXT_BACKGROUNDS = (TRAY, BACKGROUND)
BLEND_STEPS = 15


@lru_cache(maxsize=1)
def _palette() -> Image.Image:
    """Every colour the picture uses, plus the anti-aliasing ramps of its text."""
    colours = [
        BACKGROUND, TRAY, TRAY_EDGE, TEXT, MUTED, DIE_FACE, DOUBLE_FACE, TRIPLE_FACE,
        PIP, LAST_PLACED, REMOVED, TO_MOVE, WINNER,
    ]  # fmt: skip
    for foreground in TEXT_COLOURS:
        for background in TEXT_BACKGROUNDS:
            for step in range(1, BLEND_STEPS):
                share = step / BLEND_STEPS
                colours.append(
                    tuple(  # type: ignore[arg-type]
                        round(f * share + b * (1 - share))
                        for f, b in zip(foreground, background, strict=True)
                    )
                )
    flat = [channel for colour in colours for channel in colour]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + flat[-3:] * (256 - len(colours)))
    return palette


@lru_cache(maxsize=1)
def _base_picture() -> Image.Image:
    """Everything that never changes: background, name bars, column trays with their empty
    slots, the middle line and the side panel. Each render starts from a copy."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for seat, layout in LAYOUTS.items():
        draw.rounded_rectangle(_bar_box(layout), radius=8, fill=TRAY)
        for column in range(COLUMN_COUNT):
            draw.rounded_rectangle(
                _tray_box(seat, column), radius=10, fill=TRAY, outline=TRAY_EDGE, width=1
            )
            for slot in range(SLOT_COUNT):
                x, y, _, _ = die_box(seat, column, slot)
                draw.rounded_rectangle(
                    (x + 6, y + 6, x + DIE - 7, y + DIE - 7), radius=8, outline=TRAY_EDGE
                )
    middle_y = _HALF + MIDDLE // 2
    draw.line((MARGIN, middle_y, MARGIN + GRID_WIDTH, middle_y), fill=TRAY_EDGE, width=2)
    draw.rounded_rectangle(_panel_box(), radius=12, fill=TRAY)
    return image


def _bar_box(layout: SeatLayout) -> tuple[int, int, int, int]:
    return (MARGIN, layout.bar_top, MARGIN + GRID_WIDTH, layout.bar_top + NAME_BAR - 1)


def _tray_box(seat: int, column: int) -> tuple[int, int, int, int]:
    left = die_box(seat, column, 0)[0]
    top = LAYOUTS[seat].grid_top
    return (left - 4, top - 4, left + DIE + 3, top + GRID_HEIGHT + 3)


def _panel_box() -> tuple[int, int, int, int]:
    return (MARGIN + GRID_WIDTH + MARGIN, MARGIN, WIDTH - MARGIN, HEIGHT - MARGIN)


@lru_cache(maxsize=128)
def _die_sprite(
    face: int, size: int, fill: tuple[int, int, int], outline: tuple[int, int, int] | None
) -> Image.Image:
    sprite = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw_die(ImageDraw.Draw(sprite), 0, 0, size, face, fill=fill, outline=outline)
    return sprite


def _paste_die(
    image: Image.Image,
    left: int,
    top: int,
    size: int,
    face: int,
    fill: tuple[int, int, int] = DIE_FACE,
    outline: tuple[int, int, int] | None = None,
) -> None:
    sprite = _die_sprite(face, size, fill, outline)
    image.paste(sprite, (left, top), sprite)


@lru_cache(maxsize=1024)
def _text_sprite(
    text: str, size: int, fill: tuple[int, int, int], anchor: str
) -> tuple[Image.Image, int, int]:
    """Anti-aliased text on a transparent sprite, and its offset from the anchor point.
    Names, numbers and labels repeat from one render to the next, so they are cached."""
    font = _font(size)
    left, top, right, bottom = (int(v) for v in font.getbbox(text, anchor=anchor))
    sprite = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)), (*fill, 0))
    ImageDraw.Draw(sprite).text((-left, -top), text, font=font, fill=fill, anchor=anchor)
    return sprite, left, top


def _text(
    image: Image.Image,
    x: float,
    y: float,
    text: str,
    size: int,
    fill: tuple[int, int, int],
    anchor: str = "mm",
) -> None:
    if not text:
        return
    sprite, dx, dy = _text_sprite(text, size, fill, anchor)
    image.paste(sprite, (round(x) + dx, round(y) + dy), sprite)


def render_board_png(view: Mapping[str, Any], players: Sequence[Player]) -> bytes:
    """Both grids, scores per column and in total, the die to place and the last move."""
    image = _base_picture().copy()
    draw = ImageDraw.Draw(image)
    boards: list[list[list[int]]] = view["boards"]
    column_scores: list[list[int]] = view["column_scores"]
    scores: list[int] = view["scores"]
    last = view.get("last_move")
    mover = view.get("current_player")
    winners = set(view.get("winners") or [])
    finished = bool(view.get("finished"))

    for seat, layout in LAYOUTS.items():
        player = players[seat]
        accent = None
        if finished and seat in winners:
            accent = WINNER
        elif not finished and mover == seat:
            accent = TO_MOVE
        if accent is not None:
            draw.rounded_rectangle(_bar_box(layout), radius=8, outline=accent, width=3)
        middle = layout.bar_top + NAME_BAR // 2
        score_text = str(scores[seat])
        score_width = _font(22).getlength(score_text)
        name = _fit_width(player.name, 18, GRID_WIDTH - 36 - score_width)
        _text(image, MARGIN + 12, middle, name, 18, TEXT, anchor="lm")
        _text(image, MARGIN + GRID_WIDTH - 12, middle, score_text, 22, TEXT, anchor="rm")
        for column in range(COLUMN_COUNT):
            faces = boards[seat][column]
            removed_here = (
                last is not None
                and last["removed"]
                and last["player"] != seat
                and last["column"] == column
            )
            if removed_here:
                draw.rounded_rectangle(_tray_box(seat, column), radius=10, outline=REMOVED, width=3)
            for slot, face in enumerate(faces):
                x, y, _, _ = die_box(seat, column, slot)
                is_last = (
                    last is not None
                    and last["player"] == seat
                    and last["column"] == column
                    and slot == len(faces) - 1
                )
                _paste_die(
                    image,
                    x,
                    y,
                    DIE,
                    face,
                    fill=_die_colour(face, faces),
                    outline=LAST_PLACED if is_last else None,
                )
            left = die_box(seat, column, 0)[0]
            score_y = layout.score_top + SCORE_ROW / 2
            _text(image, left + DIE / 2, score_y, str(column_scores[seat][column]), 16, MUTED)
    _draw_panel(image, view, players)
    # The picture is a few flat colours plus anti-aliased text: mapped onto a fixed palette
    # it looks the same, the file is half the size, and encoding is several times faster
    # (an adaptive palette would cost more than it saves).
    indexed = image.quantize(palette=_palette(), dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    indexed.save(buffer, format="PNG", compress_level=3)
    return buffer.getvalue()


def _draw_panel(image: Image.Image, view: Mapping[str, Any], players: Sequence[Player]) -> None:
    left, _, right, _ = _panel_box()
    centre = (left + right) / 2
    _text(image, centre, MARGIN + 24, f"TURN {view['turn']}", 18, MUTED)
    mid = HEIGHT / 2
    if not view.get("finished"):
        mover = players[view["current_player"]]
        _paste_die(image, int(centre - 40), int(mid - 70), 80, view["die"])
        _text(image, centre, mid + 30, "to place:", 14, MUTED)
        _text(image, centre, mid + 52, _fit_width(mover.name, 16, PANEL_WIDTH - 16), 16, TEXT)
    else:
        winners = view.get("winners") or []
        if view.get("draw"):
            headline = "DRAW"
            sub = f"{view['scores'][0]}–{view['scores'][1]}"
        else:
            headline = "WINNER"
            sub = _fit_width(players[winners[0]].name, 16, PANEL_WIDTH - 16)
        _text(image, centre, mid - 20, headline, 24, WINNER)
        _text(image, centre, mid + 14, sub, 16, TEXT)
        reason = {"forfeit": "by forfeit", "timeout": "on time"}.get(view.get("end_reason") or "")
        if reason:
            _text(image, centre, mid + 40, reason, 14, MUTED)
    last = view.get("last_move")
    if last is not None:
        who = _fit_width(players[last["player"]].name, 14, PANEL_WIDTH - 50)
        lines = [f"last: {who}", f"{last['face']} in column {last['column'] + 1}"]
        if last["removed"]:
            lines.append(f"knocked out {len(last['removed'])}× {last['face']}")
        for index, line in enumerate(lines):
            colour = REMOVED if index == 2 else MUTED
            _text(image, centre, HEIGHT - MARGIN - 70 + index * 20, line, 14, colour)
