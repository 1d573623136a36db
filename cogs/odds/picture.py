"""The ``/odds diceman`` table as a picture: the ramp, the cells and the drawing. The
numbers it is drawn from, its key and the same table as alt text are words, in
``cogs.odds.render``.

Pure, like the texts: it takes numbers already computed by the analysis lab
(``DicemanFigures``: plain floats and strings, not the engines' objects) and returns a
``Picture``; ``cogs.odds.figures`` draws it once per process and keeps it.

The picture is the embed's image, which Discord's desktop client shows at up to 400 × 300
(``bot.pictures.picture.DESKTOP_BOX``): drawn at 400 × 300 it is shown pixel for pixel, so
every text is drawn at 14 px or more. It holds only the table (each cell: how often the
row's pick deals more damage, and how often the round is even); the advice, the best mix
and the key are embed text, which Discord sets at full size on any screen.

The picks are written with the dice's initials from the catalogs (M+H in English, M+Ec in
Spanish), which the key under the table spells out in the same language.
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from bot.i18n import _
from bot.pictures import contrast
from bot.pictures import palette as colours
from bot.pictures import text as pictures_text
from bot.pictures.picture import MIN_TEXT_PX, Picture
from cogs.odds.render import (
    HEATMAP_NAME,
    DicemanFigures,
    cell_percent,
    diceman_alt_text,
    pick_label,
)

# Geometry (pixels).
WIDTH, HEIGHT = 400, 300
MARGIN = 8
TITLE_BAR = 38  # the title, in two lines where a language needs them
HEADER = 20
ROW_LABEL = 56
CELL_WIDTH = 52
CELL_HEIGHT = 36
CELL_GAP = 2
TITLE_SIZE = MIN_TEXT_PX
LABEL_SIZE = MIN_TEXT_PX
CELL_SIZE = 16
TIE_SIZE = MIN_TEXT_PX

BACKGROUND = colours.BACKGROUND
# A perceptually even dark-to-bright ramp (viridis anchors): a sequential scale, because a
# diverging one would suggest 50% is "even", which it is not when rounds can end level.
RAMP = (
    (68, 1, 84),
    (59, 82, 139),
    (33, 145, 140),
    (94, 201, 98),
    (253, 231, 37),
)
LIGHT_INK, DARK_INK = colours.TEXT, colours.INK_ON_LIGHT


def _interpolated(share: float) -> colours.RGB:
    share = min(1.0, max(0.0, share))
    position = share * (len(RAMP) - 1)
    low = min(int(position), len(RAMP) - 2)
    t = position - low
    start, end = RAMP[low], RAMP[low + 1]
    return (
        round(start[0] + (end[0] - start[0]) * t),
        round(start[1] + (end[1] - start[1]) * t),
        round(start[2] + (end[2] - start[2]) * t),
    )


def ramp_colour(share: float) -> colours.RGB:
    """The cell colour of a probability (clamped to 0..1): the ramp, nudged darker or
    lighter where its middle would leave neither ink readable at 4.5:1."""
    colour = _interpolated(share)
    toward = (0, 0, 0) if share < 0.5 else (255, 255, 255)
    for step in range(1, 21):
        best = max(contrast.ratio(LIGHT_INK, colour), contrast.ratio(DARK_INK, colour))
        if best >= contrast.TEXT_MINIMUM + 0.1:
            return colour
        base = _interpolated(share)
        colour = tuple(round(c + (t - c) * step / 20) for c, t in zip(base, toward, strict=True))  # type: ignore[assignment]
    return colour


def text_colour_on(fill: colours.RGB) -> colours.RGB:
    """The ink (light or dark) that contrasts more with ``fill``."""
    return contrast.readable_ink(fill, LIGHT_INK, DARK_INK)


def heatmap_size(combos: int = 6) -> tuple[int, int]:
    return WIDTH, HEIGHT


def cell_box(row: int, column: int) -> tuple[int, int, int, int]:
    left = MARGIN + ROW_LABEL + column * (CELL_WIDTH + CELL_GAP)
    top = MARGIN + TITLE_BAR + HEADER + row * (CELL_HEIGHT + CELL_GAP)
    return left, top, left + CELL_WIDTH, top + CELL_HEIGHT


def render_diceman_heatmap(figures: DicemanFigures) -> bytes:
    return render_diceman_picture(figures).png


def render_diceman_picture(figures: DicemanFigures) -> Picture:
    """The table: row pick against column pick, % of rounds the row deals more damage
    (big) and % of even rounds (small, after "=")."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    pictures_text.draw_block(
        image, (MARGIN, MARGIN - 2, WIDTH - MARGIN, MARGIN + TITLE_BAR),
        # Translators: the title drawn on the Diceman table picture (two lines of about 50
        # characters at most).
        _("Your pick (row) vs theirs: % you deal more · = % even"),
        TITLE_SIZE, colours.TEXT, BACKGROUND, weight="bold", leading=1.2, valign="m",
    )  # fmt: skip
    header_y = MARGIN + TITLE_BAR + HEADER / 2
    labels = [pick_label(label) for label in figures.labels]
    for index, label in enumerate(labels):
        left, top, right, bottom = cell_box(index, index)
        header = (
            left - CELL_GAP,
            MARGIN + TITLE_BAR,
            right + CELL_GAP,
            MARGIN + TITLE_BAR + HEADER,
        )
        pictures_text.draw_text(image, ((left + right) / 2, header_y), label, LABEL_SIZE,
                                colours.MUTED, BACKGROUND, weight="bold", anchor="mm",
                                slot=header)  # fmt: skip
        pictures_text.draw_text(image, (MARGIN + ROW_LABEL - 6, (top + bottom) / 2), label,
                                LABEL_SIZE, colours.MUTED, BACKGROUND, weight="bold",
                                anchor="rm", slot=(MARGIN, top, MARGIN + ROW_LABEL - 2,
                                                   bottom))  # fmt: skip
    for row in range(len(figures.labels)):
        for column in range(len(figures.labels)):
            left, top, right, bottom = cell_box(row, column)
            share = figures.p_more[row][column]
            fill = ramp_colour(share)
            draw.rectangle((left, top, right - 1, bottom - 1), fill=fill)
            ink = text_colour_on(fill)
            centre = (left + right) / 2
            middle = top + 18
            pictures_text.draw_text(image, (centre, top + 11), cell_percent(share), CELL_SIZE,
                                    ink, fill, weight="bold", anchor="mm",
                                    slot=(left, top, right, middle))  # fmt: skip
            even = "=" + cell_percent(figures.p_even(row, column))
            pictures_text.draw_text(image, (centre, bottom - 9), even, TIE_SIZE, ink, fill,
                                    anchor="mm", slot=(left, middle, right, bottom))  # fmt: skip
    indexed = image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    indexed.save(buffer, format="PNG", compress_level=9)
    return Picture(
        png=buffer.getvalue(),
        alt_text=diceman_alt_text(figures),
        filename=HEATMAP_NAME,
        width=WIDTH,
        height=HEIGHT,
        shown="embed",
    )
