"""The Knucklebones board as a picture; the same board in words, its alt text, is
``cogs.knucklebones.alt_text``.

Layout (400 × 330): on the left both grids, seat 0 on top growing down towards the middle
and seat 1 below growing up, so the two columns that fight face each other across a band
that holds each column's score; on the right one card per player beside their grid (name,
total, and for the player to move the die they rolled), and the turn and the legend in the
band between the cards.

No cue is colour alone: pairs and triples carry "×2"/"×3", the last die placed has a
ring, dice just knocked out stay as crossed-out ghosts in a red-framed column, the player
to move has an arrow and the words "to place", the winner the word "wins".

Drawing is on an indexed canvas (``bot.pictures.canvas``): the static board, dice and
text are mapped to one palette once, so a render copies bytes and encodes a small PNG.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from PIL import Image, ImageDraw

from bot.i18n import N_, _, ngettext, number
from bot.pictures import palette as colours
from bot.pictures import text as pictures_text
from bot.pictures.canvas import IndexedCanvas, IndexedPalette
from bot.pictures.draw import snap
from bot.pictures.picture import MIN_TEXT_PX, Picture
from cogs.knucklebones.alt_text import alt_text

FILENAME = "board.png"
COLUMNS = 3
SLOTS = 3

# Geometry (pixels). Sent as a message's attachment, which Discord's desktop client shows
# at up to 550 × 350 (``bot.pictures.picture.DESKTOP_BOX``): at 400 × 330 it is shown pixel
# for pixel, so every text is drawn at 14 px or more (``MIN_TEXT``), and a phone, which
# shows it about 300 px wide, still gets 10 px or more.
WIDTH, HEIGHT = 400, 330
MARGIN = 10
DIE = 34
SLOT_GAP = 3
TRAY_PAD = 3
TRAY_GAP = 6
PANEL_PAD = 6
TRAY_WIDTH = DIE + 2 * TRAY_PAD
TRAY_HEIGHT = SLOTS * DIE + (SLOTS - 1) * SLOT_GAP + 2 * TRAY_PAD
GRID_WIDTH = COLUMNS * TRAY_WIDTH + (COLUMNS - 1) * TRAY_GAP
PANEL = (MARGIN, MARGIN, MARGIN + GRID_WIDTH + 2 * PANEL_PAD, HEIGHT - MARGIN)
TOP_TRAYS = PANEL[1] + PANEL_PAD
BOTTOM_TRAYS = PANEL[3] - PANEL_PAD - TRAY_HEIGHT
BAND_TOP = TOP_TRAYS + TRAY_HEIGHT
BAND = BOTTOM_TRAYS - BAND_TOP  # between the grids: the column scores
CARD_LEFT = PANEL[2] + MARGIN
CARD_RIGHT = WIDTH - MARGIN
CARDS = {
    0: (CARD_LEFT, MARGIN, CARD_RIGHT, BAND_TOP),
    1: (CARD_LEFT, BOTTOM_TRAYS, CARD_RIGHT, HEIGHT - MARGIN),
}
ROLLED_DIE = 42
SUPERSAMPLE = 4

# Text sizes (pixels); a name too wide for its card is drawn smaller, down to MIN_TEXT.
MIN_TEXT = MIN_TEXT_PX
NAME_SIZE = 21
TOTAL_SIZE = 40
LABEL_SIZE = 16
SCORE_SIZE = 15
CHIP_SIZE = 14
CHIP_HEIGHT = 18
LEGEND_SIZE = 14

# Meaning -> colour. Each pair below is checked by the tests (text 4.5:1, cues 3:1).
CARD = colours.SURFACE
TRAY = colours.RAISED
SLOT_OUTLINE = colours.OUTLINE
TEXT_PAIRS: tuple[tuple[colours.RGB, colours.RGB], ...] = (
    (colours.TEXT, colours.SURFACE),
    (colours.MUTED, colours.SURFACE),
    (colours.GOLD, colours.SURFACE),
    (colours.ACCENT, colours.SURFACE),
    (colours.DANGER, colours.SURFACE),
    (colours.TEXT, colours.BACKGROUND),
    (colours.MUTED, colours.BACKGROUND),
    (colours.INK_ON_LIGHT, colours.PAIR),
    (colours.INK_ON_LIGHT, colours.TRIPLE),
)
CHIP_INK = colours.INK_ON_LIGHT
LAST_RING = colours.ACCENT
CUES: dict[str, tuple[colours.RGB, colours.RGB]] = {
    "empty slot outline on its tray": (SLOT_OUTLINE, TRAY),
    "die face on its tray": (colours.DIE_FACE, TRAY),
    "pair face on its tray": (colours.PAIR, TRAY),
    "triple face on its tray": (colours.TRIPLE, TRAY),
    "pips on a plain die": (colours.PIP, colours.DIE_FACE),
    "pips on a pair": (colours.PIP, colours.PAIR),
    "pips on a triple": (colours.PIP, colours.TRIPLE),
    "×2 chip on the panel": (colours.PAIR, CARD),
    "×3 chip on the panel": (colours.TRIPLE, CARD),
    "last-die ring on its tray": (LAST_RING, TRAY),
    "knocked-out cross on its tray": (colours.DANGER, TRAY),
    "knocked column frame on the panel": (colours.DANGER, CARD),
    "to-move frame on the background": (colours.ACCENT, colours.BACKGROUND),
    "winner frame on the background": (colours.GOLD, colours.BACKGROUND),
}

PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}
FILLS = {1: colours.DIE_FACE, 2: colours.PAIR, 3: colours.TRIPLE}


# ---------------------------------------------------------------------------------------
# Geometry
# ---------------------------------------------------------------------------------------


def tray_box(seat: int, column: int) -> tuple[int, int, int, int]:
    left = PANEL[0] + PANEL_PAD + column * (TRAY_WIDTH + TRAY_GAP)
    top = TOP_TRAYS if seat == 0 else BOTTOM_TRAYS
    return left, top, left + TRAY_WIDTH, top + TRAY_HEIGHT


def die_box(seat: int, column: int, slot: int) -> tuple[int, int, int, int]:
    """A die's box; slot 0 is the first die of the column, nearest the middle band."""
    left, top, _right, bottom = tray_box(seat, column)
    x = left + TRAY_PAD
    offset = slot * (DIE + SLOT_GAP)
    y = bottom - TRAY_PAD - DIE - offset if seat == 0 else top + TRAY_PAD + offset
    return x, y, x + DIE, y + DIE


# ---------------------------------------------------------------------------------------
# Sprites (drawn once, supersampled, mapped onto the palette)
# ---------------------------------------------------------------------------------------


def _die_rgb(
    face: int, size: int, fill: colours.RGB, background: colours.RGB, *, ring: bool
) -> Image.Image:
    scale = SUPERSAMPLE
    big = size * scale
    image = Image.new("RGB", (big, big), background)
    draw = ImageDraw.Draw(image)
    inset = 0
    if ring:
        # The last die placed: a ring with a gap, the die a little smaller inside.
        draw.rounded_rectangle((0, 0, big - 1, big - 1), radius=big // 5, fill=LAST_RING)
        thickness = 3 * scale
        draw.rounded_rectangle(
            (thickness, thickness, big - 1 - thickness, big - 1 - thickness),
            radius=big // 5 - thickness,
            fill=background,
        )
        inset = 5 * scale
    box = (inset, inset, big - 1 - inset, big - 1 - inset)
    draw.rounded_rectangle(box, radius=(big - 2 * inset) // 6, fill=fill)
    inner = big - 2 * inset
    step = inner / 4
    pip = inner * 0.09
    for column, row in PIPS[face]:
        cx = inset + step * (column + 1)
        cy = inset + step * (row + 1)
        draw.ellipse((cx - pip, cy - pip, cx + pip, cy + pip), fill=colours.PIP)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def chip_label(count: int) -> str:
    return f"×{count}"


def _chip_rgb(count: int) -> Image.Image:
    """The pill of the pair's or triple's colour beside a column's score; its "×2" or "×3"
    is drawn on it with the other texts (``_draw_band``)."""
    fill = FILLS[count]
    chip_width = pictures_text.width(chip_label(count), CHIP_SIZE, "bold") + 8
    scale = SUPERSAMPLE
    big = Image.new("RGB", (chip_width * scale, CHIP_HEIGHT * scale), CARD)
    ImageDraw.Draw(big).rounded_rectangle(
        (0, 0, big.width - 1, big.height - 1), radius=big.height // 2, fill=fill
    )
    return snap(big.resize((chip_width, CHIP_HEIGHT), Image.Resampling.LANCZOS), (fill, CARD))


def _ghost_rgb(size: int, background: colours.RGB) -> Image.Image:
    """A die just knocked out: a red outline, crossed out."""
    scale = SUPERSAMPLE
    big = size * scale
    image = Image.new("RGB", (big, big), background)
    draw = ImageDraw.Draw(image)
    inset = 3 * scale
    draw.rounded_rectangle(
        (inset, inset, big - 1 - inset, big - 1 - inset),
        radius=big // 6,
        outline=colours.DANGER,
        width=2 * scale,
    )
    cross = 10 * scale
    draw.line((cross, cross, big - cross, big - cross), fill=colours.DANGER, width=4 * scale)
    draw.line((cross, big - cross, big - cross, cross), fill=colours.DANGER, width=4 * scale)
    return image.resize((size, size), Image.Resampling.LANCZOS)


@cache
def _dice_rgb() -> dict[tuple[Any, ...] | str, Image.Image]:
    sprites: dict[tuple[Any, ...] | str, Image.Image] = {}
    for face in PIPS:
        for count, fill in FILLS.items():
            for ring in (False, True):
                sprites["die", face, count, ring] = _die_rgb(face, DIE, fill, TRAY, ring=ring)
        sprites["rolled", face] = _die_rgb(face, ROLLED_DIE, colours.DIE_FACE, CARD, ring=False)
    sprites["ghost"] = _ghost_rgb(DIE, TRAY)
    sprites["chip", 2] = _chip_rgb(2)
    sprites["chip", 3] = _chip_rgb(3)
    return sprites


def _rounded(
    draw: ImageDraw.ImageDraw,
    box: tuple[float, float, float, float],
    radius: int,
    *,
    fill: colours.RGB | None = None,
    outline: colours.RGB | None = None,
    width: int = 1,
) -> None:
    draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)


def _supersampled(draw_at: Callable[[ImageDraw.ImageDraw, int], None]) -> Image.Image:
    """An RGB picture of the whole board drawn by ``draw_at(draw, scale)`` at 4x."""
    scale = SUPERSAMPLE
    big = Image.new("RGB", (WIDTH * scale, HEIGHT * scale), colours.BACKGROUND)
    draw_at(ImageDraw.Draw(big), scale)
    return big


@cache
def _base_rgb() -> Image.Image:
    return _base_big().resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)


@cache
def _base_big() -> Image.Image:
    def draw_at(draw: ImageDraw.ImageDraw, s: int) -> None:
        def box(b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
            left, top, right, bottom = b
            return left * s, top * s, right * s, bottom * s

        _rounded(draw, box(PANEL), 10 * s, fill=CARD)
        middle = BAND_TOP + BAND / 2
        draw.line(box((PANEL[0] + 8, middle, PANEL[2] - 8, middle)), fill=TRAY, width=2 * s)
        for seat in (0, 1):
            _rounded(draw, box(CARDS[seat]), 10 * s, fill=CARD)
            for column in range(COLUMNS):
                _rounded(draw, box(tray_box(seat, column)), 8 * s, fill=TRAY)
                for slot in range(SLOTS):
                    left, top, right, bottom = die_box(seat, column, slot)
                    _rounded(
                        draw,
                        box((left + 4, top + 4, right - 4, bottom - 4)),
                        6 * s,
                        outline=SLOT_OUTLINE,
                        width=2 * s,
                    )

    return _supersampled(draw_at)


def _frame_rgb(box: tuple[int, int, int, int], colour: colours.RGB, radius: int) -> Image.Image:
    """A 3 px frame around ``box`` (for the player to move, the winner, a knocked column),
    drawn over the base so it anti-aliases against what is really there."""

    scale = SUPERSAMPLE
    left, top, right, bottom = box
    area = (left - 2, top - 2, right + 3, bottom + 3)
    big = _base_big().crop((area[0] * scale, area[1] * scale, area[2] * scale, area[3] * scale))
    ImageDraw.Draw(big).rounded_rectangle(
        ((left - area[0]) * scale, (top - area[1]) * scale,
         (right - area[0]) * scale, (bottom - area[1]) * scale),
        radius=radius * scale, outline=colour, width=3 * scale,
    )  # fmt: skip
    return big.resize((area[2] - area[0], area[3] - area[1]), Image.Resampling.LANCZOS)


def _frames_rgb() -> dict[tuple[Any, ...], Image.Image]:
    frames: dict[tuple[Any, ...], Image.Image] = {}
    for seat in (0, 1):
        card = _card_frame_box(seat)
        frames["card", seat, "move"] = _frame_rgb(card, colours.ACCENT, 11)
        frames["card", seat, "win"] = _frame_rgb(card, colours.GOLD, 11)
        for column in range(COLUMNS):
            frames["tray", seat, column] = _frame_rgb(
                _tray_frame_box(seat, column), colours.DANGER, 10
            )
    return frames


def _card_frame_box(seat: int) -> tuple[int, int, int, int]:
    left, top, right, bottom = CARDS[seat]
    return left - 2, top - 2, right + 2, bottom + 2


def _tray_frame_box(seat: int, column: int) -> tuple[int, int, int, int]:
    left, top, right, bottom = tray_box(seat, column)
    return left - 2, top - 2, right + 2, bottom + 2


class _Sprites:
    """Everything drawn once: the palette, the base board, dice and frames as indices."""

    def __init__(self) -> None:
        base = _base_rgb()
        dice = _dice_rgb()
        frames = _frames_rgb()
        exact = [
            colours.BACKGROUND, colours.SURFACE, colours.RAISED, colours.OUTLINE,
            colours.TEXT, colours.MUTED, colours.DIE_FACE, colours.PAIR, colours.TRIPLE,
            colours.PIP, colours.ACCENT, colours.GOLD, colours.DANGER,
        ]  # fmt: skip
        self.palette = IndexedPalette(exact, TEXT_PAIRS, [base, *dice.values(), *frames.values()])
        self.base = self.palette.index(base)
        self.dice = {key: self.palette.index(sprite) for key, sprite in dice.items()}
        self.frames = {key: self.palette.index(sprite) for key, sprite in frames.items()}


@cache
def sprites() -> _Sprites:
    return _Sprites()


# ---------------------------------------------------------------------------------------
# The render
# ---------------------------------------------------------------------------------------


def render_board(
    view: Mapping[str, Any], names: Sequence[str], stopped: str | None = None
) -> Picture:
    """The board for the engine's ``public_view`` and the two players' display names.
    ``stopped`` is the sentence for a game stopped without a result (``bot.model.contract.
    stopped_text``): the board is drawn as it stood, with nobody to move."""
    drawn = sprites()
    canvas = IndexedCanvas(drawn.palette, drawn.base)
    boards: list[list[list[int]]] = view["boards"]
    last = view.get("last_move")
    finished = bool(view.get("finished"))
    winners = set(view.get("winners") or [])
    mover = view.get("current_player")

    for seat in (0, 1):
        if finished and seat in winners:
            frame = drawn.frames["card", seat, "win"]
            canvas.paste(frame, _frame_origin(_card_frame_box(seat)))
        elif not finished and stopped is None and mover == seat:
            frame = drawn.frames["card", seat, "move"]
            canvas.paste(frame, _frame_origin(_card_frame_box(seat)))
        for column in range(COLUMNS):
            faces = boards[seat][column]
            knocked = (
                last is not None
                and last["removed"]
                and last["player"] != seat
                and last["column"] == column
            )
            if knocked:
                frame = drawn.frames["tray", seat, column]
                canvas.paste(frame, _frame_origin(_tray_frame_box(seat, column)))
            for slot, face in enumerate(faces):
                is_last = (
                    last is not None
                    and last["player"] == seat
                    and last["column"] == column
                    and slot == len(faces) - 1
                )
                count = min(3, faces.count(face))
                left, top = die_box(seat, column, slot)[:2]
                canvas.paste(drawn.dice["die", face, count, is_last], (left, top))
            if knocked and last is not None:
                for slot in range(len(faces), min(SLOTS, len(faces) + len(last["removed"]))):
                    left, top = die_box(seat, column, slot)[:2]
                    canvas.paste(drawn.dice["ghost"], (left, top))
        _draw_card(canvas, view, names, seat, stopped is not None)
    _draw_band(canvas, view)
    return Picture(
        png=canvas.png(),
        alt_text=alt_text(view, names, stopped),
        filename=FILENAME,
        width=WIDTH,
        height=HEIGHT,
    )


def _frame_origin(box: tuple[int, int, int, int]) -> tuple[int, int]:
    return box[0] - 2, box[1] - 2


def _draw_card(
    canvas: IndexedCanvas,
    view: Mapping[str, Any],
    names: Sequence[str],
    seat: int,
    stopped: bool = False,
) -> None:
    left, top, right, bottom = CARDS[seat]
    finished = bool(view.get("finished"))
    winners = view.get("winners") or []
    inner = left + 12
    canvas.text((inner, top + 21), names[seat], NAME_SIZE, colours.TEXT, CARD, weight="bold",
                slot=(inner, top + 2, right - 10, top + 38), min_size=MIN_TEXT,
                name=True)  # fmt: skip
    score = view["scores"][seat]
    total = number(score)
    ink = colours.GOLD if finished and seat in winners else colours.TEXT
    baseline = bottom - 14
    rolled_left = right - 12 - ROLLED_DIE
    drawn = canvas.text((inner, baseline), total, TOTAL_SIZE, ink, CARD, weight="bold",
                        anchor="ls", slot=(inner, bottom - 50, rolled_left - 4, bottom - 6),
                        min_size=MIN_TEXT)  # fmt: skip
    # Translators: drawn after a player's total in the board picture ("38 points").
    canvas.text((inner + drawn + 6, baseline), ngettext("point", "points", score), LABEL_SIZE,
                colours.MUTED, CARD, anchor="ls", min_size=MIN_TEXT,
                slot=(inner + drawn + 6, bottom - 50, rolled_left - 4, bottom - 6))  # fmt: skip
    status_y = top + 47
    status_slot = (inner, top + 38, right - 10, top + 60)
    if stopped and not finished:
        # Translators: drawn on both players' cards of a game stopped without a result.
        canvas.text((inner, status_y), _("■ stopped"), LABEL_SIZE, colours.MUTED, CARD,
                    weight="bold", slot=status_slot, min_size=MIN_TEXT)  # fmt: skip
        return
    if not finished:
        if view.get("current_player") == seat:
            # Translators: drawn on the card of the player who places the rolled die.
            canvas.text((inner, status_y), _("▶ to place"), LABEL_SIZE, colours.ACCENT, CARD,
                        weight="bold", slot=status_slot, min_size=MIN_TEXT)  # fmt: skip
            canvas.paste(
                sprites().dice["rolled", view["die"]],
                (right - 12 - ROLLED_DIE, bottom - 12 - ROLLED_DIE),
            )
        return
    status, ink, weight = _final_status(view, seat)
    if status:
        canvas.text((inner, status_y), status, LABEL_SIZE, ink, CARD, weight=weight,
                    slot=status_slot, min_size=MIN_TEXT)  # fmt: skip


def _final_status(view: Mapping[str, Any], seat: int) -> tuple[str, colours.RGB, Any]:
    winners = view.get("winners") or []
    reason = view.get("end_reason") or ""
    # Translators: the words on each player's card once the game is over.
    if view.get("draw") or not winners:
        return _("draw"), colours.GOLD, "bold"
    if seat in winners:
        wins = {"forfeit": _("★ wins by forfeit"), "timeout": _("★ wins on time")}
        return wins.get(reason) or _("★ wins"), colours.GOLD, "bold"
    if reason == "forfeit":
        return _("forfeited"), colours.MUTED, "regular"
    if reason == "timeout":
        return _("ran out of time"), colours.MUTED, "regular"
    return "", colours.MUTED, "regular"


def _draw_band(canvas: IndexedCanvas, view: Mapping[str, Any]) -> None:
    """Each column's score for both players, facing across the middle (with "×2"/"×3"
    when the column holds a pair or a triple), then the turn and the legend."""
    chips = sprites().dice
    middle = BAND_TOP + BAND / 2
    for seat, y in ((0, middle - 13), (1, middle + 13)):
        # Each column's score keeps to its own tray's width (and the gaps beside it).
        top, bottom = (BAND_TOP + 1, middle - 2) if seat == 0 else (middle + 2, BOTTOM_TRAYS - 1)
        for column in range(COLUMNS):
            left, _top, right, _bottom = tray_box(seat, column)
            slot = (left - TRAY_GAP / 2, top, right + TRAY_GAP / 2, bottom)
            faces = view["boards"][seat][column]
            count = max((faces.count(face) for face in faces), default=1)
            score = number(view["column_scores"][seat][column])
            if count < 2:
                canvas.text(((left + right) / 2, y), score, SCORE_SIZE, colours.TEXT, CARD,
                            weight="bold", anchor="mm", slot=slot)  # fmt: skip
                continue
            chip = chips["chip", count]
            score_width = pictures_text.width(score, SCORE_SIZE, "bold")
            start = (left + right - score_width - 2 - chip.width) / 2
            canvas.text((start, y), score, SCORE_SIZE, colours.TEXT, CARD, weight="bold",
                        anchor="lm", slot=slot)  # fmt: skip
            chip_left = round(start + score_width + 2)
            chip_top = round(y - chip.height / 2)
            canvas.paste(chip, (chip_left, chip_top))
            canvas.text((chip_left + chip.width / 2, chip_top + chip.height / 2),
                        chip_label(count), CHIP_SIZE, CHIP_INK, FILLS[count], weight="bold",
                        anchor="mm", slot=(chip_left, chip_top, chip_left + chip.width,
                                           chip_top + chip.height))  # fmt: skip
    legend_left = CARD_LEFT + 2
    # Translators: the turn number, drawn in the board picture.
    turn = _("Turn {turn}").format(turn=number(view["turn"]))
    canvas.text((legend_left, BAND_TOP + 14), turn, LEGEND_SIZE, colours.MUTED,
                colours.BACKGROUND, weight="bold",
                slot=(legend_left, BAND_TOP + 4, CARD_RIGHT, BAND_TOP + 24))  # fmt: skip
    canvas.block((legend_left, BAND_TOP + 26, CARD_RIGHT, BOTTOM_TRAYS - 4), _(LEGEND),
                 LEGEND_SIZE, colours.MUTED, colours.BACKGROUND, leading=1.2)  # fmt: skip


# Translators: the legend drawn in the board picture (keep it short: it has two lines of
# about 220 pixels). ◯ marks the last die placed, ✕ the dice just knocked out.
LEGEND = N_("×2 pair · ×3 triple · ◯ last · ✕ knocked")
