"""What ``/odds`` shows: the texts of all three answers, and the Diceman table's words.

Everything here is pure: it takes numbers already computed by the analysis lab (plain
floats and strings, not the engines' objects) and returns strings. The cog gathers the
numbers and caches what this module makes.

The Diceman table's numbers (``DicemanFigures``), its file name, its key and its alt text
are here, beside the texts; its drawing is ``cogs.odds.picture``, which reads them from
here and which only ``cogs.odds.figures`` imports, when it first draws (it loads Pillow).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from bot import i18n
from bot.i18n import N_, _, ngettext, number, pgettext
from bot.pictures.picture import clip_alt_text
from cogs.texts import command_text, option_word
from game_core.analysis.weighted_dice import DESIGN_ROUNDS
from game_core.analysis.weighted_lengths import TABLE_SIZES, LengthTable
from game_core.weighted_dice import MIN_PLAYERS, TARGET_POINTS

# The table's letters stay as the engine labels them (M, P, S, H) in every language; the
# key below the table says which die each stands for.
DIE_NAMES = {"M": N_("Magic"), "P": N_("Priority"), "S": N_("Sword"), "H": N_("Shield")}


# The Diceman table's file name, key, numbers and alt text (``cogs.odds.picture`` draws it
# from these).
HEATMAP_NAME = "diceman_odds.png"


def die_key() -> str:
    """What the table's letters stand for."""
    # Translators: the key under the Diceman table: each die's initial as the table shows
    # it (the translations of "M", "P", "S" and "H" in the context "Diceman die initial"),
    # then its name as the game calls it.
    return _("M = Magic d4 · P = Priority d6 · S = Sword d8 · H = Shield d10")


def initials() -> dict[str, str]:
    """Each die's initial in the current language, by the engine's letter (M, P, S, H)."""
    # Translators: the initial of a Diceman die in the /odds table (the die's name in your
    # language: Magic, Priority, Sword, Shield), one or two letters; the four must differ
    # (the table's picks read "M+S"), and the key under the table spells them out.
    return {
        "M": pgettext("Diceman die initial: Magic", "M"),
        "P": pgettext("Diceman die initial: Priority", "P"),
        "S": pgettext("Diceman die initial: Sword", "S"),
        "H": pgettext("Diceman die initial: Shield", "H"),
    }


def pick_label(label: str) -> str:
    """An engine label such as ``"S+H"`` in the current language's initials."""
    letters = initials()
    return "+".join(letters[part] for part in label.split("+"))


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


def cell_percent(share: float) -> str:
    """A whole percentage that never rounds a possible outcome to 0% or a sure one to 100%."""
    if 0 < share < 0.005:
        return "<" + i18n.percent(0.01)
    if 0.995 <= share < 1:
        return ">" + i18n.percent(0.99)
    return i18n.percent(share)


def diceman_alt_text(figures: DicemanFigures) -> str:
    """The table in words, one row per pick."""
    rows = []
    labels = [pick_label(label) for label in figures.labels]
    for row, label in enumerate(labels):
        cells = ", ".join(
            f"{cell_percent(figures.p_more[row][c])} ({cell_percent(figures.p_even(row, c))})"
            for c in range(len(figures.labels))
        )
        rows.append(f"{label}: {cells}.")
    introduction = _(
        "Diceman, one round: how often the row's two dice deal more damage than the "
        "column's, with the share of even rounds in brackets. Columns: {columns}."
    ).format(columns=", ".join(labels))
    return clip_alt_text(f"{introduction} {' '.join(rows)} {die_key()}.")


def full_name(label: str) -> str:
    """``"S+H"`` -> ``"Sword + Shield"``."""
    return " + ".join(_(DIE_NAMES[part]) for part in label.split("+"))


def percent(value: float) -> str:
    """A percentage with as many decimals as it needs, at most two ("25%", "7.5%")."""
    decimals = f"{100 * value:.2f}".rstrip("0").rstrip(".").partition(".")[2]
    return i18n.percent(value, len(decimals))


def diceman_mix_lines(figures: DicemanFigures) -> list[str]:
    """How often to pick each pair for play nobody can exploit, most picked first."""
    used = sorted((e for e in figures.mix if e.probability > 0), key=lambda e: -e.probability)
    lines = [
        _("**{pair}** in {share} of rounds").format(
            pair=full_name(e.label), share=i18n.percent(e.probability)
        )
        for e in used
    ]
    unused = [full_name(e.label) for e in figures.mix if e.probability <= 0]
    if unused:
        # Translators: the pairs of dice never to pick, after "never:".
        lines.append(_("never: {pairs}").format(pairs=", ".join(unused)))
    return lines


def diceman_advice(figures: DicemanFigures) -> str:
    """What to do, in one sentence: the backbone pick and what never to take."""
    best = full_name(max(figures.mix, key=lambda e: e.probability).label)
    unused = [e.label for e in figures.mix if e.probability <= 0]
    if unused:
        shared = set(unused[0].split("+")).intersection(*(u.split("+") for u in unused))
        if shared:
            return _("**{pair}** is the best all-round pick; never take **{die}**.").format(
                pair=best, die=_(DIE_NAMES[sorted(shared)[0]])
            )
        return _("**{pair}** is the best all-round pick; never pick {pairs}.").format(
            pair=best, pairs=", ".join(full_name(u) for u in unused)
        )
    return _("**{pair}** is the best all-round pick.").format(pair=best)


def diceman_reading(figures: DicemanFigures) -> str:
    """Why mixing matters, in plain words."""
    return _(
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


def die_name(die: int) -> str:
    """``d20``: a die as the games write it."""
    return f"d{die}"


def pair_lines(odds: PairOdds) -> list[str]:
    """The three outcomes, each as an exact fraction and a percentage."""
    a, b = die_name(odds.die_a), die_name(odds.die_b)
    if odds.die_a == odds.die_b:
        first = _("First roller ({die}) wins: **{fraction}** = {percent}")
        second = _("Second roller ({die}) wins: **{fraction}** = {percent}")
    else:
        first = second = _("The {die} wins: **{fraction}** = {percent}")
    return [
        first.format(die=a, fraction=odds.a_wins, percent=percent(float(odds.a_wins))),
        second.format(die=b, fraction=odds.b_wins, percent=percent(float(odds.b_wins))),
        _("Tie, the house takes every bet: **{fraction}** = {percent}").format(
            fraction=odds.tie, percent=percent(float(odds.tie))
        ),
    ]


def pair_reading(odds: PairOdds) -> str:
    """One line a bettor can act on. A tie is "1 in 4 rolls" when its chance is exactly one
    over a whole number, else "about 1 in 7 rolls": one sentence for each."""
    exact = odds.tie.numerator == 1
    count = number(odds.tie.denominator if exact else round(1 / odds.tie))
    if odds.a_wins == odds.b_wins:
        if exact:
            even = _(
                "Even dice: neither roller is the favourite, and a tie (1 in {count} rolls) "
                "hands every bet to the house."
            )
        else:
            even = _(
                "Even dice: neither roller is the favourite, and a tie (about 1 in {count} "
                "rolls) hands every bet to the house."
            )
        return even.format(count=count)
    if odds.a_wins > odds.b_wins:
        favourite, chance, other, other_chance = odds.die_a, odds.a_wins, odds.die_b, odds.b_wins
    else:
        favourite, chance, other, other_chance = odds.die_b, odds.b_wins, odds.die_a, odds.a_wins
    ratio = float(chance / other_chance)
    if exact:
        text = _(
            "The {favourite} is the favourite: it wins {percent} of rolls, {ratio}x as often "
            "as the {other}, and a tie (1 in {count} rolls) hands every bet to the house."
        )
    else:
        text = _(
            "The {favourite} is the favourite: it wins {percent} of rolls, {ratio}x as often "
            "as the {other}, and a tie (about 1 in {count} rolls) hands every bet to the house."
        )
    return text.format(
        favourite=die_name(favourite),
        percent=percent(float(chance)),
        ratio=number(ratio, 1),
        other=die_name(other),
        count=count,
    )


# A phone shows about 32 characters of a code block's line before it wraps it (and a
# wrapped table no longer reads as one): every table here is at most this wide, in every
# language (tests/cogs/test_odds_render.py checks each).
PHONE_COLUMNS = 32


def _table(rows: Sequence[Sequence[str]], left_aligned: int = 0, least: int = 1) -> list[str]:
    """Rows of cells as monospace lines, each column as wide as its widest cell and at
    least ``least`` (the first ``left_aligned`` columns to the left, the others to the
    right), one space between."""
    widths = [max(least, *(len(row[index]) for row in rows)) for index in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.ljust(width) if index < left_aligned else cell.rjust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append(" ".join(cells).rstrip())
    return lines


def die_against_all_lines(die: int, rows: Sequence[PairOdds]) -> list[str]:
    """A monospace table: ``die`` as the first roller against every die."""
    # Translators: the heads of a narrow table's columns ("d6 vs", "wins", "loses", "tie");
    # keep each within 7 characters (a phone shows 32 of the table's line).
    against = _("{die} vs").format(die=die_name(die))
    wins = pgettext("odds table", "wins")
    loses = pgettext("odds table", "loses")
    tie = pgettext("odds table", "tie")
    cells = [[against, wins, loses, tie]]
    for odds in rows:
        cells.append(
            [
                die_name(odds.die_b),
                percent(float(odds.a_wins)),
                percent(float(odds.b_wins)),
                percent(float(odds.tie)),
            ]
        )
    lines = _table(cells, left_aligned=1)
    return [lines[0], "-" * max(len(line) for line in lines), *lines[1:]]


def whole_percent(value: float) -> str:
    """A share as a whole percentage without the sign ("88" for 0.875: halves round up)."""
    return number(int(Decimal(str(value * 100)).quantize(Decimal(1), ROUND_HALF_UP)))


def odds_grid_lines(dice: Sequence[int], cells: dict[tuple[int, int], float]) -> list[str]:
    """A monospace grid, row die against column die, in whole percentages (the corner says
    "%"): six columns of dice fit a phone's width only without decimals; one pair's exact
    fractions are a command away."""
    rows = [["%", *(die_name(die) for die in dice)]]
    for row in dice:
        rows.append([die_name(row), *(whole_percent(cells[row, column]) for column in dice)])
    # Every column as wide as "d20", so the numbers stand apart.
    return _table(rows, left_aligned=1, least=3)


def game_length_lines(table: LengthTable) -> list[str]:
    """A monospace table: per table size, the rounds a game to the card's 150 lasts, and
    the short game's target with its rounds (the lab's simulation)."""
    # Translators: the heads of a narrow table (32 characters at most on a phone): "to 150"
    # and "short game" above two column pairs, then "seats", "rounds", "points", "rounds";
    # keep "to 150" within 8 characters, "short game" within 13, the others within 6.
    to_points = _("to {points}").format(points=TARGET_POINTS)
    short_game, seats, rounds, points = _("short game"), _("seats"), _("rounds"), _("points")
    rows = [[seats, rounds, points, rounds]]
    for players in TABLE_SIZES:
        card = table.length(players, TARGET_POINTS)
        short = table.short_target(players)
        short_rounds = table.length(players, short).rounds
        rows.append([str(players), str(card.rounds), str(short), str(short_rounds)])
    widths = [max(len(row[index]) for row in rows) for index in range(4)]
    # The two groups' heads span their columns: a column widens when its head is wider.
    widths[1] = max(widths[1], len(to_points))
    widths[3] = max(widths[3], len(short_game) - widths[2] - 1)
    lines = [
        " " * widths[0] + "  " + to_points.ljust(widths[1]) + "  " + short_game,
    ]
    for row in rows:
        seats_cell, card_cell, points_cell, short_cell = (
            cell.rjust(width) for cell, width in zip(row, widths, strict=True)
        )
        lines.append(f"{seats_cell}  {card_cell}  {points_cell} {short_cell}")
    lines = [line.rstrip() for line in lines]
    return [*lines[:2], "-" * max(len(line) for line in lines), *lines[2:]]


def short_game_command() -> str:
    """``/weighted new`` as a mention (each reader's client names it in their language),
    then the option to pick, ``points:short game``, as the picker lists it (a mention
    carries no option)."""
    # The choice's name, as the command translator shows it in the picker.
    choice = _("short game")
    return f"{command_text('weighted', 'new')} `{option_word('points')}:{choice}`"


def game_length_reading(table: LengthTable) -> str:
    """What the length table means for a host choosing the points to win."""
    low, high = DESIGN_ROUNDS
    five = table.length(MIN_PLAYERS, TARGET_POINTS)
    near = [p for p in TABLE_SIZES if low <= table.length(p, TARGET_POINTS).rounds <= high]
    values = {
        "low": number(low),
        "high": number(high),
        "points": number(TARGET_POINTS),
        "fewest": number(MIN_PLAYERS),
        "rounds": number(five.rounds),
        "p10": number(round(five.p10)),
        "p90": number(round(five.p90)),
        "command": short_game_command(),
    }
    # Translators: {low}-{high} is a range of rounds (8-12); {command} is a slash command.
    if not near:
        sentence = _(
            "The game's designer aimed at {low}-{high} rounds. At {points} points that holds "
            "with no table size; with {fewest} a game lasts about {rounds} rounds (most "
            "between {p10} and {p90})."
        )
    elif len(near) == 1:
        sentence = _(
            "The game's designer aimed at {low}-{high} rounds. At {points} points that holds "
            "with {first} players; with {fewest} a game lasts about {rounds} rounds (most "
            "between {p10} and {p90})."
        )
    else:
        sentence = _(
            "The game's designer aimed at {low}-{high} rounds. At {points} points that holds "
            "with {first} to {last} players; with {fewest} a game lasts about {rounds} rounds "
            "(most between {p10} and {p90})."
        )
    values.update(first=number(near[0]) if near else "", last=number(near[-1]) if near else "")
    short = _(
        "{command} sets the target closest to {low}-{high} rounds for the players seated "
        "when the host presses Start (never above {points})."
    )
    return f"{sentence.format(**values)} {short.format(**values)}"


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


# The simulated levels by name: each line about a level starts with its bold heading, and
# each reading is one sentence per level (a level's name slotted into a sentence would
# need an article, a case or an agreement of its own in other languages).
LEVEL_HEADINGS = {"Random": N_("Random play"), "Medium": N_("Medium play")}
LEVEL_ALL_DRAWN = {
    "Random": N_("Every random game was drawn."),
    "Medium": N_("Every medium game was drawn."),
}
# Is moving first worth anything, at each level: a real (or small but real) advantage or
# disadvantage, or no measurable difference.
LEVEL_READINGS = {
    "Random": {
        "small_advantage": N_(
            "At random play moving first is a small but real advantage: the first player "
            "takes {share} of the games somebody wins."
        ),
        "advantage": N_(
            "At random play moving first is a real advantage: the first player takes {share} "
            "of the games somebody wins."
        ),
        "small_disadvantage": N_(
            "At random play moving first is a small but real disadvantage: the first player "
            "takes {share} of the games somebody wins."
        ),
        "disadvantage": N_(
            "At random play moving first is a real disadvantage: the first player takes "
            "{share} of the games somebody wins."
        ),
        "even": N_(
            "At random play moving first makes no measurable difference: the first player "
            "takes {share} of the games somebody wins."
        ),
    },
    "Medium": {
        "small_advantage": N_(
            "At medium play moving first is a small but real advantage: the first player "
            "takes {share} of the games somebody wins."
        ),
        "advantage": N_(
            "At medium play moving first is a real advantage: the first player takes {share} "
            "of the games somebody wins."
        ),
        "small_disadvantage": N_(
            "At medium play moving first is a small but real disadvantage: the first player "
            "takes {share} of the games somebody wins."
        ),
        "disadvantage": N_(
            "At medium play moving first is a real disadvantage: the first player takes "
            "{share} of the games somebody wins."
        ),
        "even": N_(
            "At medium play moving first makes no measurable difference: the first player "
            "takes {share} of the games somebody wins."
        ),
    },
}
# A level the tables above do not know (none today) reads as the medium one's sentences.
DEFAULT_LEVEL = "Medium"


def level_heading(level: str) -> str:
    """``**Medium play**``: the bold heading a level's line starts with."""
    name = LEVEL_HEADINGS.get(level)
    return "**" + (_(name) if name is not None else f"{level} play") + "**"


def seat_line(figures: SeatFigures) -> str:
    """``**Medium play** · 10,000 games: the first player wins …``: a heading, then one
    sentence."""
    low, high = figures.first_ci95
    sentence = ngettext(
        "{games} game: the first player wins **{first}** (most likely between {low} and "
        "{high}), the second {second}, draws {draws}.",
        "{games} games: the first player wins **{first}** (most likely between {low} and "
        "{high}), the second {second}, draws {draws}.",
        figures.games,
    ).format(
        games=number(figures.games),
        first=percent_1(figures.first_wins),
        low=percent_1(low),
        high=percent_1(high),
        second=percent_1(figures.second_wins),
        draws=percent_1(figures.draws),
    )
    return f"{level_heading(figures.level)} · {sentence}"


def length_line(figures: SeatFigures) -> str:
    """``**Medium play** · 30.8 turns on average, …``: a heading, then one sentence."""
    heading = level_heading(figures.level)
    if figures.mean_turns is None or figures.median_turns is None:
        return f"{heading} · " + _("No games.")
    values = {
        "mean": number(figures.mean_turns, 1),
        "median": number(figures.median_turns),
        "share": i18n.percent(0.8),
        "fewest": number(17),
    }
    if figures.turns_p10 is not None and figures.turns_p90 is not None:
        sentence = _(
            "{mean} turns on average, median {median}, {share} of games last {p10}–{p90} (a "
            "turn is one die placed; {fewest} at the very least)."
        ).format(p10=number(figures.turns_p10), p90=number(figures.turns_p90), **values)
    else:
        sentence = _(
            "{mean} turns on average, median {median} (a turn is one die placed; {fewest} at "
            "the very least)."
        ).format(**values)
    return f"{heading} · {sentence}"


def advantage_reading(figures: SeatFigures) -> str:
    """One sentence: is moving first worth anything?"""
    if figures.decided_share is None:
        sentence = LEVEL_ALL_DRAWN.get(figures.level)
        if sentence is None:
            return _("Every game was drawn.")
        return _(sentence)
    low, high = figures.decided_ci95
    # Within two points of even, a significant difference is still a small one.
    small = abs(figures.decided_share - 0.5) < 0.02
    if low > 0.5:
        verdict = "small_advantage" if small else "advantage"
    elif high < 0.5:
        verdict = "small_disadvantage" if small else "disadvantage"
    else:
        verdict = "even"
    readings = LEVEL_READINGS.get(figures.level, LEVEL_READINGS[DEFAULT_LEVEL])
    return _(readings[verdict]).format(share=percent_1(figures.decided_share))


def percent_1(value: float) -> str:
    return i18n.percent(value, 1)
