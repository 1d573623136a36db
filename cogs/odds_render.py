"""What ``/odds`` shows: the Diceman table picture and the texts of all three answers.

Everything here is pure: it takes numbers already computed by the analysis lab (plain
floats and strings, not the engines' objects) and returns a ``Picture`` and strings. The
cog gathers the numbers and caches what this module makes.

The Diceman picture is 400 × 300, what Discord shows an embed image at on the desktop,
so it is shown pixel for pixel: only the table (each cell: how often the row's pick
deals more damage, and how often the round is even); the advice, the best mix and the
key are embed text, which Discord sets at full size on any screen.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from PIL import Image, ImageDraw

from bot.pictures import contrast
from bot.pictures import palette as colours
from bot.pictures import text as pictures_text
from bot.pictures.picture import Picture, clip_alt_text
from game_core.analysis.weighted_dice import DESIGN_ROUNDS
from game_core.analysis.weighted_lengths import TABLE_SIZES, LengthTable
from game_core.weighted_dice import MIN_PLAYERS, TARGET_POINTS

HEATMAP_NAME = "diceman_odds.png"

# Geometry (pixels).
WIDTH, HEIGHT = 400, 300
MARGIN = 8
TITLE_BAR = 26
HEADER = 20
ROW_LABEL = 44
CELL_WIDTH = 52
CELL_HEIGHT = 38
CELL_GAP = 2
TITLE_SIZE = 13
LABEL_SIZE = 13
CELL_SIZE = 16
TIE_SIZE = 12

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

DIE_NAMES = {"M": "Magic", "P": "Priority", "S": "Sword", "H": "Shield"}
DIE_KEY = "M = Magic d4 · P = Priority d6 · S = Sword d8 · H = Shield d10"


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

    def p_even(self, row: int, column: int) -> float:
        """P(both deal the same damage): neither pick deals more."""
        return max(0.0, 1.0 - self.p_more[row][column] - self.p_more[column][row])


# ---------------------------------------------------------------------------------------
# The picture
# ---------------------------------------------------------------------------------------


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


def cell_percent(share: float) -> str:
    """A whole percentage that never rounds a possible outcome to 0% or a sure one to 100%."""
    if 0 < share < 0.005:
        return "<1%"
    if 0.995 <= share < 1:
        return ">99%"
    return f"{share:.0%}"


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
    pictures_text.draw_text(
        image, (MARGIN, MARGIN + TITLE_BAR / 2 - 2),
        "Your pick (row) vs theirs: % you deal more · = % even",
        TITLE_SIZE, colours.TEXT, BACKGROUND, weight="bold", max_width=WIDTH - 2 * MARGIN,
    )  # fmt: skip
    header_y = MARGIN + TITLE_BAR + HEADER / 2
    for index, label in enumerate(figures.labels):
        left, top, right, bottom = cell_box(index, index)
        pictures_text.draw_text(image, ((left + right) / 2, header_y), label, LABEL_SIZE,
                                colours.MUTED, BACKGROUND, weight="bold", anchor="mm")  # fmt: skip
        pictures_text.draw_text(image, (MARGIN + ROW_LABEL - 6, (top + bottom) / 2), label,
                                LABEL_SIZE, colours.MUTED, BACKGROUND, weight="bold",
                                anchor="rm")  # fmt: skip
    for row in range(len(figures.labels)):
        for column in range(len(figures.labels)):
            left, top, right, bottom = cell_box(row, column)
            share = figures.p_more[row][column]
            fill = ramp_colour(share)
            draw.rectangle((left, top, right - 1, bottom - 1), fill=fill)
            ink = text_colour_on(fill)
            centre = (left + right) / 2
            pictures_text.draw_text(image, (centre, top + 13), cell_percent(share), CELL_SIZE,
                                    ink, fill, weight="bold", anchor="mm")  # fmt: skip
            even = "=" + cell_percent(figures.p_even(row, column))
            pictures_text.draw_text(image, (centre, bottom - 9), even, TIE_SIZE, ink, fill,
                                    anchor="mm")  # fmt: skip
    indexed = image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    indexed.save(buffer, format="PNG", compress_level=9)
    return Picture(
        png=buffer.getvalue(),
        alt_text=diceman_alt_text(figures),
        filename=HEATMAP_NAME,
        width=WIDTH,
        height=HEIGHT,
    )


def diceman_alt_text(figures: DicemanFigures) -> str:
    """The table in words, one row per pick."""
    rows = []
    for row, label in enumerate(figures.labels):
        cells = ", ".join(
            f"{cell_percent(figures.p_more[row][c])} ({cell_percent(figures.p_even(row, c))})"
            for c in range(len(figures.labels))
        )
        rows.append(f"{label}: {cells}.")
    return clip_alt_text(
        "Diceman, one round: how often the row's two dice deal more damage than the "
        f"column's, with the share of even rounds in brackets. Columns: "
        f"{', '.join(figures.labels)}. " + " ".join(rows) + f" {DIE_KEY}."
    )


def full_name(label: str) -> str:
    """``"S+H"`` -> ``"Sword + Shield"``."""
    return " + ".join(DIE_NAMES[part] for part in label.split("+"))


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
    """How often to pick each pair for play nobody can exploit, most picked first."""
    used = sorted((e for e in figures.mix if e.probability > 0), key=lambda e: -e.probability)
    lines = [f"**{full_name(e.label)}** in {e.probability:.0%} of rounds" for e in used]
    unused = [full_name(e.label) for e in figures.mix if e.probability <= 0]
    if unused:
        lines.append("never: " + ", ".join(unused))
    return lines


def diceman_advice(figures: DicemanFigures) -> str:
    """What to do, in one sentence: the backbone pick and what never to take."""
    best = max(figures.mix, key=lambda e: e.probability)
    unused = [e.label for e in figures.mix if e.probability <= 0]
    sentence = f"**{full_name(best.label)}** is the best all-round pick"
    if unused:
        shared = set(unused[0].split("+")).intersection(*(u.split("+") for u in unused))
        if shared:
            sentence += f"; never take **{DIE_NAMES[sorted(shared)[0]]}**"
        else:
            sentence += "; never pick " + ", ".join(full_name(u) for u in unused)
    return sentence + "."


def diceman_reading(figures: DicemanFigures) -> str:
    """Why mixing matters, in plain words."""
    return (
        "Mix your picks in about these shares and no opponent can get ahead of you on "
        "average; picking the same pair every round lets them counter it. Near a kill, "
        "dealing the last points matters more than the average."
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


def game_length_lines(table: LengthTable) -> list[str]:
    """A monospace table: per table size, the rounds a game to the card's 150 lasts, and
    the short game's target with its rounds (the lab's simulation)."""
    lines = [
        f"       to {TARGET_POINTS}    short game",
        "seats  rounds    points rounds",
        "-" * 30,
    ]
    for players in TABLE_SIZES:
        card = table.length(players, TARGET_POINTS)
        short = table.short_target(players)
        short_rounds = table.length(players, short).rounds
        lines.append(f"{players:>5}  {card.rounds:>6}    {short:>6} {short_rounds:>6}")
    return lines


def game_length_reading(table: LengthTable) -> str:
    """What the length table means for a host choosing the points to win."""
    low, high = DESIGN_ROUNDS
    five = table.length(MIN_PLAYERS, TARGET_POINTS)
    near = [p for p in TABLE_SIZES if low <= table.length(p, TARGET_POINTS).rounds <= high]
    at = f"{near[0]}" if len(near) == 1 else f"{near[0]} to {near[-1]}" if near else "no"
    return (
        f"The card's designer aimed at {low}-{high} rounds. At {TARGET_POINTS} points that "
        f"holds with {at} players; with {MIN_PLAYERS} a game lasts about {five.rounds} "
        f"rounds (most between {round(five.p10)} and {round(five.p90)}). "
        f"`/weighted new points:short game` sets the target closest to {low}-{high} rounds "
        f"for the players seated when the host presses Start (never above {TARGET_POINTS})."
    )


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
        f"**{percent_1(figures.first_wins)}** (most likely between {percent_1(low)} and "
        f"{percent_1(high)}), the second {percent_1(figures.second_wins)}, draws "
        f"{percent_1(figures.draws)}."
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
        f"{percent_1(figures.decided_share)} of the games somebody wins."
    )


def percent_1(value: float) -> str:
    return f"{100 * value:.1f}%"
