"""What ``/odds`` shows: the Diceman heatmap picture and the texts of all three answers.

Everything here is pure: it takes numbers already computed by the analysis lab (plain
floats and strings, not the engines' objects) and returns PNG bytes and strings. The cog
gathers the numbers and caches what this module makes.

The picture uses only Pillow's bundled font (``ImageFont.load_default(size=...)``), so it
renders the same on a server without any font installed.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

HEATMAP_NAME = "diceman_odds.png"

# Geometry (pixels).
MARGIN = 20
TITLE_BAR = 56
HEADER = 30
ROW_LABEL = 64
CELL = 86
CELL_GAP = 4
LEGEND_BAR = 12
LEGEND_BLOCK = 46
MIX_TITLE = 34
MIX_ROW = 26
MIX_LABEL = 56
MIX_BAR = 300
MIX_WORDS = 150
KEY_BLOCK = 34

# Colours.
BACKGROUND = (43, 45, 49)
TEXT = (235, 236, 240)
MUTED = (160, 163, 172)
BAR_TRACK = (62, 64, 70)
BAR_FILL = (242, 193, 78)
UNUSED = (110, 112, 120)
DARK_TEXT = (24, 24, 28)
# A perceptually even dark-to-bright ramp (viridis anchors): a sequential scale, because a
# diverging one would suggest 50% is "even", which it is not when rounds can end level.
RAMP = (
    (68, 1, 84),
    (59, 82, 139),
    (33, 145, 140),
    (94, 201, 98),
    (253, 231, 37),
)

DIE_KEY = "M = Magic d4   P = Priority d6   S = Sword d8   H = Shield d10"


@dataclass(frozen=True)
class MixEntry:
    label: str  # "S+H"
    probability: float
    exact: str  # "11/34"


@dataclass(frozen=True)
class DicemanFigures:
    """The numbers behind ``/odds diceman``, row against column, in the engine's combo
    order: P(the row deals more damage in a round), the expected damage balance (dealt
    minus received), and the equilibrium mix of the damage-balance game."""

    labels: tuple[str, ...]
    p_more: tuple[tuple[float, ...], ...]
    balance: tuple[tuple[float, ...], ...]
    mix: tuple[MixEntry, ...]
    value: float

    def __post_init__(self) -> None:
        size = len(self.labels)
        for grid in (self.p_more, self.balance):
            if len(grid) != size or any(len(row) != size for row in grid):
                raise ValueError("the tables must be square with one row per label")
        if [entry.label for entry in self.mix] != list(self.labels):
            raise ValueError("the mix must list the labels in table order")


# ---------------------------------------------------------------------------------------
# The picture
# ---------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def ramp_colour(share: float) -> tuple[int, int, int]:
    """The heatmap colour of a probability (clamped to 0..1), linear between anchors."""
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


def cell_percent(share: float) -> str:
    """A whole percentage that never rounds a possible outcome to 0% or a sure one to 100%."""
    if 0 < share < 0.005:
        return "<1%"
    if 0.995 <= share < 1:
        return ">99%"
    return f"{share:.0%}"


def text_colour_on(fill: tuple[int, int, int]) -> tuple[int, int, int]:
    """Dark text on bright cells, light text on dark ones (relative luminance)."""
    luminance = 0.2126 * fill[0] + 0.7152 * fill[1] + 0.0722 * fill[2]
    return DARK_TEXT if luminance > 140 else TEXT


def heatmap_size(combos: int) -> tuple[int, int]:
    grid = combos * CELL + (combos - 1) * CELL_GAP
    # Wide enough for the grid, for the mix bars with their words, and for the title.
    width = max(MARGIN + ROW_LABEL + grid + MARGIN, MARGIN + MIX_LABEL + MIX_BAR + MIX_WORDS, 560)
    height = (
        MARGIN
        + TITLE_BAR
        + HEADER
        + grid
        + LEGEND_BLOCK
        + MIX_TITLE
        + combos * MIX_ROW
        + KEY_BLOCK
        + MARGIN
    )
    return width, height


def _centred(
    draw: ImageDraw.ImageDraw,
    centre: tuple[float, float],
    text: str,
    size: int,
    fill: tuple[int, int, int],
) -> None:
    draw.text(centre, text, font=_font(size), fill=fill, anchor="mm")


def render_diceman_heatmap(figures: DicemanFigures) -> bytes:
    """The 6x6 heatmap of P(row deals more damage) with the equilibrium mix below it."""
    combos = len(figures.labels)
    width, height = heatmap_size(combos)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)

    draw.text(
        (MARGIN, MARGIN),
        "Diceman: P(row deals more damage than column) in one round",
        font=_font(17),
        fill=TEXT,
    )
    draw.text(
        (MARGIN, MARGIN + 24),
        "exact, every roll counted; small number: expected damage dealt minus received",
        font=_font(13),
        fill=MUTED,
    )

    grid_left = MARGIN + ROW_LABEL
    grid_top = MARGIN + TITLE_BAR + HEADER
    step = CELL + CELL_GAP
    draw.text(
        (MARGIN, grid_top - HEADER / 2), "row \\ col", font=_font(11), fill=MUTED, anchor="lm"
    )
    for index, name in enumerate(figures.labels):
        _centred(draw, (grid_left + index * step + CELL / 2, grid_top - HEADER / 2), name, 15, TEXT)
        _centred(
            draw, (MARGIN + ROW_LABEL / 2 - 4, grid_top + index * step + CELL / 2), name, 15, TEXT
        )

    for row in range(combos):
        for column in range(combos):
            left = grid_left + column * step
            top = grid_top + row * step
            share = figures.p_more[row][column]
            fill = ramp_colour(share)
            draw.rectangle((left, top, left + CELL - 1, top + CELL - 1), fill=fill)
            ink = text_colour_on(fill)
            _centred(draw, (left + CELL / 2, top + CELL / 2 - 9), cell_percent(share), 20, ink)
            balance = figures.balance[row][column]
            _centred(draw, (left + CELL / 2, top + CELL / 2 + 16), f"{balance:+.2f}", 13, ink)

    grid_size = combos * CELL + (combos - 1) * CELL_GAP
    legend_top = grid_top + grid_size + 14
    for x in range(grid_size):
        colour = ramp_colour(x / (grid_size - 1))
        draw.line((grid_left + x, legend_top, grid_left + x, legend_top + LEGEND_BAR), fill=colour)
    for share, anchor in ((0.0, "lt"), (0.5, "mt"), (1.0, "rt")):
        draw.text(
            (grid_left + share * (grid_size - 1), legend_top + LEGEND_BAR + 3),
            f"{share:.0%}",
            font=_font(12),
            fill=MUTED,
            anchor=anchor,
        )

    mix_top = grid_top + grid_size + LEGEND_BLOCK
    draw.text(
        (MARGIN, mix_top + 8),
        "Equilibrium mix (maximises the expected damage balance; no combo beats it)",
        font=_font(15),
        fill=TEXT,
    )
    bar_left = MARGIN + MIX_LABEL
    for index, entry in enumerate(figures.mix):
        top = mix_top + MIX_TITLE + index * MIX_ROW
        used = entry.probability > 0
        draw.text((MARGIN, top + 3), entry.label, font=_font(15), fill=TEXT if used else UNUSED)
        draw.rectangle((bar_left, top + 4, bar_left + MIX_BAR, top + MIX_ROW - 6), fill=BAR_TRACK)
        filled = round(MIX_BAR * min(1.0, max(0.0, entry.probability)))
        if filled:
            draw.rectangle((bar_left, top + 4, bar_left + filled, top + MIX_ROW - 6), fill=BAR_FILL)
        words = f"{entry.probability:.1%}  ({entry.exact})" if used else "never"
        draw.text(
            (bar_left + MIX_BAR + 10, top + 3),
            words,
            font=_font(14),
            fill=TEXT if used else UNUSED,
        )

    key_top = mix_top + MIX_TITLE + combos * MIX_ROW + 10
    draw.text((MARGIN, key_top), DIE_KEY, font=_font(13), fill=MUTED)

    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False, compress_level=6)
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------
# Texts
# ---------------------------------------------------------------------------------------


def percent(value: float) -> str:
    """A percentage with as many decimals as it needs, at most two ("25%", "7.5%")."""
    text = f"{100 * value:.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


def one_in(chance: Fraction) -> str:
    """ "1 in 4" when the chance is exactly one over a whole number, else "about 1 in 7"."""
    if chance <= 0:
        return "never"
    if chance.numerator == 1:
        return f"1 in {chance.denominator}"
    return f"about 1 in {round(1 / chance)}"


def diceman_mix_lines(figures: DicemanFigures) -> list[str]:
    """The equilibrium mix as text lines, most played first, unused combos last."""
    used = sorted((e for e in figures.mix if e.probability > 0), key=lambda e: -e.probability)
    lines = [f"**{e.label}** {e.probability:.1%} ({e.exact})" for e in used]
    unused = [e.label for e in figures.mix if e.probability <= 0]
    if unused:
        lines.append("never: " + ", ".join(unused))
    return lines


def diceman_reading(figures: DicemanFigures) -> str:
    """One sentence on what the table means for a player."""
    best = max(figures.mix, key=lambda e: e.probability)
    value = "0" if figures.value == 0 else f"{figures.value:+.2f}"
    return (
        f"Against this mix no combination gains damage on average (game value {value}); "
        f"{best.label} is its backbone. Over a whole game life totals matter too, so the AI "
        "shifts towards kills and survival when a kill is near."
    )


@dataclass(frozen=True)
class PairOdds:
    """Exact chances for two Weighted Dice rollers (``a`` is the first roller)."""

    die_a: int
    die_b: int
    a_wins: Fraction
    b_wins: Fraction
    tie: Fraction


def pair_lines(odds: PairOdds) -> list[str]:
    """The three outcomes, each as an exact fraction and a percentage."""
    a, b = f"d{odds.die_a}", f"d{odds.die_b}"
    first = f"First roller ({a}) wins" if odds.die_a == odds.die_b else f"The {a} wins"
    second = f"Second roller ({b}) wins" if odds.die_a == odds.die_b else f"The {b} wins"
    return [
        f"{first}: **{odds.a_wins}** = {percent(float(odds.a_wins))}",
        f"{second}: **{odds.b_wins}** = {percent(float(odds.b_wins))}",
        f"Tie, the house takes every bet: **{odds.tie}** = {percent(float(odds.tie))}",
    ]


def pair_reading(odds: PairOdds) -> str:
    """One line a bettor can act on."""
    tie = f"a tie ({one_in(odds.tie)} rolls) hands every bet to the house"
    if odds.a_wins == odds.b_wins:
        return f"Even dice: neither roller is the favourite, and {tie}."
    if odds.a_wins > odds.b_wins:
        favourite, chance, other, other_chance = odds.die_a, odds.a_wins, odds.die_b, odds.b_wins
    else:
        favourite, chance, other, other_chance = odds.die_b, odds.b_wins, odds.die_a, odds.a_wins
    ratio = float(chance / other_chance)
    return (
        f"The d{favourite} is the favourite: it wins {percent(float(chance))} of rolls, "
        f"{ratio:.1f}x as often as the d{other}, and {tie}."
    )


def die_against_all_lines(die: int, rows: Sequence[PairOdds]) -> list[str]:
    """A monospace table: ``die`` as the first roller against every die."""
    lines = [f"{'d' + str(die) + ' vs':>9}  {'wins':>7} {'loses':>7} {'tie':>6}", "-" * 32]
    for odds in rows:
        lines.append(
            f"{'d' + str(odds.die_b):>9}  {percent(float(odds.a_wins)):>7} "
            f"{percent(float(odds.b_wins)):>7} {percent(float(odds.tie)):>6}"
        )
    return lines


def odds_grid_lines(dice: Sequence[int], cells: dict[tuple[int, int], float]) -> list[str]:
    """A monospace grid of percentages, row die against column die."""
    lines = ["     " + "".join(f"{'d' + str(d):>6}" for d in dice)]
    for row in dice:
        values = "".join(f"{100 * cells[row, column]:>5.1f}%" for column in dice)
        lines.append(f"{'d' + str(row):<5}{values}")
    return lines


@dataclass(frozen=True)
class SeatFigures:
    """How the player moving first fares when both seats play at one level."""

    level: str  # "Random", "Medium", ...
    games: int
    first_wins: float  # share of all games
    first_ci95: tuple[float, float]
    second_wins: float
    draws: float
    decided_share: float | None  # the first player's share of the games somebody won
    decided_ci95: tuple[float, float]
    mean_turns: float | None
    median_turns: int | None
    turns_p10: int | None = None
    turns_p90: int | None = None


def seat_line(figures: SeatFigures) -> str:
    low, high = figures.first_ci95
    return (
        f"**{figures.level} play** ({figures.games:,} games): the first player wins "
        f"**{percent_1(figures.first_wins)}** (95% CI {percent_1(low)}–{percent_1(high)}), "
        f"the second {percent_1(figures.second_wins)}, draws {percent_1(figures.draws)}."
    )


def length_line(figures: SeatFigures) -> str:
    if figures.mean_turns is None or figures.median_turns is None:
        return f"**{figures.level} play**: no games."
    line = (
        f"**{figures.level} play**: {figures.mean_turns:.1f} turns on average, "
        f"median {figures.median_turns}"
    )
    if figures.turns_p10 is not None and figures.turns_p90 is not None:
        line += f", 80% of games last {figures.turns_p10}–{figures.turns_p90}"
    return line + " (a turn is one die placed; 17 at the very least)."


def advantage_reading(figures: SeatFigures) -> str:
    """One sentence: is moving first worth anything?"""
    if figures.decided_share is None:
        return f"Every {figures.level.lower()} game was drawn."
    low, high = figures.decided_ci95
    # Within two points of even, a significant difference is still a small one.
    size = "a small but real" if abs(figures.decided_share - 0.5) < 0.02 else "a real"
    if low > 0.5:
        verdict = f"moving first is {size} advantage"
    elif high < 0.5:
        verdict = f"moving first is {size} disadvantage"
    else:
        verdict = "moving first makes no measurable difference"
    return (
        f"At {figures.level.lower()} play {verdict}: the first player takes "
        f"{percent_1(figures.decided_share)} of the games somebody wins "
        f"(95% CI {percent_1(low)}–{percent_1(high)})."
    )


def percent_1(value: float) -> str:
    return f"{100 * value:.1f}%"
