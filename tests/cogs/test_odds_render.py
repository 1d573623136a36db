"""What ``/odds`` shows: the Diceman heatmap picture and the answer texts."""

from __future__ import annotations

import io
import itertools
import time
from fractions import Fraction

import pytest
from PIL import Image

from bot import i18n
from bot.pictures import contrast, text
from cogs.odds import figures as odds_figures
from cogs.odds import picture as odds_picture
from cogs.odds import render
from game_core.ai.diceman import equilibrium, matchup_table
from game_core.analysis.weighted_lengths import lengths
from game_core.diceman import COMBOS
from game_core.weighted_dice import DICE

LABELS = ("M+P", "M+S", "M+H", "P+S", "P+H", "S+H")


def picture(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def cell_corner(row: int, column: int) -> tuple[int, int]:
    """A pixel inside cell (row, column), clear of its text (near the top-left corner)."""
    left, top, _, _ = odds_picture.cell_box(row, column)
    return left + 3, top + 3


def test_figures_come_from_the_exact_table_and_equilibrium() -> None:
    figures = odds_figures.diceman_figures()
    table, solution = matchup_table(), equilibrium()
    assert figures.labels == LABELS
    for i, j in itertools.product(range(6), repeat=2):
        assert figures.p_more[i][j] == float(table.entries[i][j].p_more)
        assert figures.balance[i][j] == float(table.entries[i][j].balance)
    assert [entry.label for entry in figures.mix] == list(LABELS)
    mix_by_combo = dict(zip(COMBOS, figures.mix, strict=True))
    assert mix_by_combo["magic", "shield"].exact == "69/119"
    assert mix_by_combo["magic", "shield"].probability == float(solution.mix["magic", "shield"])
    assert mix_by_combo["magic", "priority"].probability == 0


def test_table_cells_are_coloured_by_their_probability() -> None:
    figures = odds_figures.diceman_figures()
    image = picture(odds_picture.render_diceman_heatmap(figures))
    assert image.size == odds_picture.heatmap_size(6) == (400, 300)
    for row in range(6):
        for column in range(6):
            expected = odds_picture.ramp_colour(figures.p_more[row][column])
            assert image.getpixel(cell_corner(row, column)) == expected, (row, column)
    # M+P never loses to P+H's damage (100%), P+H never beats M+P (0%): the ramp's two ends.
    assert image.getpixel(cell_corner(0, 4)) == odds_picture.RAMP[-1]
    assert image.getpixel(cell_corner(4, 0)) == odds_picture.RAMP[0]


def test_each_cell_shows_the_win_share_and_the_even_share_in_readable_ink() -> None:
    figures = odds_figures.diceman_figures()
    with text.record() as drawn:
        picture_ = odds_picture.render_diceman_picture(figures)
    cells = {(d.box[0] // 10, d.text) for d in drawn}
    assert len(drawn) == 1 + 12 + 72  # title, labels, two numbers a cell
    # A pick against itself: M+P vs M+P is 38% more damage for each side, 25% even.
    texts = [d.text for d in drawn]
    assert texts.count("38%") >= 2 and "=25%" in texts and "=100%" in texts
    for piece in drawn:
        assert contrast.ratio(piece.ink, piece.background) >= contrast.TEXT_MINIMUM, piece
        assert piece.found_under == {piece.background}, piece
    assert cells and picture_.alt_text.startswith("Diceman, one round")
    assert "M+P: 38% (25%), 3% (5%)" in picture_.alt_text


def test_the_table_picture_renders_quickly() -> None:
    figures = odds_figures.diceman_figures()
    odds_picture.render_diceman_heatmap(figures)
    started = time.perf_counter()
    png = odds_picture.render_diceman_heatmap(figures)
    elapsed = time.perf_counter() - started
    assert png.startswith(b"\x89PNG")
    # Rendered once per process and cached, so this is a comfort margin, not a budget.
    assert elapsed < 0.5


def test_the_cached_picture_is_computed_once() -> None:
    calls: list[int] = []

    def compute() -> bytes:
        calls.append(1)
        return b"png"

    once = odds_figures.Once(compute, "test picture")
    assert not once.ready
    assert once.get() == b"png" and once.get() == b"png"
    assert once.ready and len(calls) == 1
    once.forget()
    assert not once.ready and once.get() == b"png" and len(calls) == 2


def test_figures_refuse_ragged_tables() -> None:
    with pytest.raises(ValueError, match="square"):
        render.DicemanFigures(
            labels=("A", "B"),
            p_more=((0.5,), (0.5, 0.5)),
            balance=((0.0, 0.0), (0.0, 0.0)),
            mix=(render.MixEntry("A", 1.0, "1"), render.MixEntry("B", 0.0, "0")),
            value=0.0,
        )


@pytest.mark.parametrize(
    ("share", "text"),
    [(0.0, "0%"), (0.003, "<1%"), (0.031, "3%"), (0.5, "50%"), (0.996, ">99%"), (1.0, "100%")],
)
def test_cell_percent_never_rounds_to_certainty(share: float, text: str) -> None:
    assert render.cell_percent(share) == text


def test_ramp_runs_from_dark_to_bright_and_every_cell_colour_takes_readable_ink() -> None:
    assert odds_picture.ramp_colour(0) == odds_picture.RAMP[0]
    assert odds_picture.ramp_colour(1) == odds_picture.RAMP[-1]
    assert (
        odds_picture.ramp_colour(-3) == odds_picture.RAMP[0]
        and odds_picture.ramp_colour(7) == odds_picture.RAMP[-1]
    )
    assert odds_picture.text_colour_on(odds_picture.RAMP[0]) == odds_picture.LIGHT_INK
    assert odds_picture.text_colour_on(odds_picture.RAMP[-1]) == odds_picture.DARK_INK
    for step in range(101):
        fill = odds_picture.ramp_colour(step / 100)
        assert contrast.ratio(odds_picture.text_colour_on(fill), fill) >= contrast.TEXT_MINIMUM, (
            step
        )


def test_mix_lines_and_advice_are_plain_words() -> None:
    figures = odds_figures.diceman_figures()
    assert render.diceman_mix_lines(figures) == [
        "**Magic + Shield** in 58% of rounds",
        "**Sword + Shield** in 32% of rounds",
        "**Magic + Sword** in 10% of rounds",
        "never: Magic + Priority, Priority + Sword, Priority + Shield",
    ]
    assert render.diceman_advice(figures) == (
        "**Magic + Shield** is the best all-round pick; never take **Priority**."
    )
    words = render.diceman_reading(figures) + render.diceman_advice(figures)
    for jargon in ("equilibrium", "game value", "P(", "CI"):
        assert jargon not in words


def test_pair_texts_d4_against_d20() -> None:
    pair = odds_figures.pair_odds(4, 20)
    assert render.pair_lines(pair) == [
        "The d4 wins: **3/40** = 7.5%",
        "The d20 wins: **7/8** = 87.5%",
        "Tie, the house takes every bet: **1/20** = 5%",
    ]
    reading = render.pair_reading(pair)
    assert reading.startswith("The d20 is the favourite: it wins 87.5% of rolls, 11.7x as often")
    assert "1 in 20 rolls" in reading


def test_pair_texts_for_even_dice() -> None:
    pair = odds_figures.pair_odds(4, 4)
    assert render.pair_lines(pair)[0] == "First roller (d4) wins: **3/8** = 37.5%"
    assert render.pair_lines(pair)[2] == "Tie, the house takes every bet: **1/4** = 25%"
    assert render.pair_reading(pair) == (
        "Even dice: neither roller is the favourite, and a tie (1 in 4 rolls) hands every bet "
        "to the house."
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.25, "25%"), (0.075, "7.5%"), (7 / 12, "58.33%"), (1.0, "100%"), (0.0, "0%")],
)
def test_percent(value: float, text: str) -> None:
    assert render.percent(value) == text


def test_a_tie_that_is_not_exactly_one_in_n_reads_about_one_in_n() -> None:
    exact = render.PairOdds(4, 4, Fraction(3, 8), Fraction(3, 8), Fraction(1, 4))
    assert "a tie (1 in 4 rolls)" in render.pair_reading(exact)
    rounded = render.PairOdds(6, 8, Fraction(5, 12), Fraction(13, 30), Fraction(3, 20))
    assert "a tie (about 1 in 7 rolls)" in render.pair_reading(rounded)


def test_die_against_all_rows() -> None:
    lines = render.die_against_all_lines(6, [odds_figures.pair_odds(6, die) for die in (4, 6, 20)])
    assert lines[2].split() == ["d4", "58.33%", "25%", "16.67%"]
    assert lines[3].split() == ["d6", "41.67%", "41.67%", "16.67%"]
    assert lines[4].split() == ["d20", "12.5%", "82.5%", "5%"]


def test_grid_lines() -> None:
    dice = (4, 20)
    cells = {(a, b): float(odds_figures.pair_odds(a, b).a_wins) for a in dice for b in dice}
    # Whole percentages (the corner says so), halves rounded up: 87.5% is 88.
    assert [line.split() for line in render.odds_grid_lines(dice, cells)] == [
        ["%", "d4", "d20"],
        ["d4", "38", "8"],
        ["d20", "88", "48"],
    ]


@pytest.mark.parametrize("language", sorted(i18n.LANGUAGES))
def test_every_odds_table_fits_a_phone_in_every_language(language: str) -> None:
    """A phone shows about 32 characters of a code block's line: /odds weighted's tables
    (one die against every die, the whole grid twice, the game lengths) fit it, aligned."""
    with i18n.use(language):
        tables = [
            render.die_against_all_lines(die, [odds_figures.pair_odds(die, d) for d in DICE])
            for die in DICE
        ]
        for field in ("a_wins", "tie"):
            cells = {
                (a, b): float(getattr(odds_figures.pair_odds(a, b), field))
                for a in DICE
                for b in DICE
            }
            tables.append(render.odds_grid_lines(DICE, cells))
        tables.append(render.game_length_lines(lengths()))
    for table in tables:
        assert max(len(line) for line in table) <= render.PHONE_COLUMNS, table
        # Every row as long as the heads (the columns line up), dashes aside.
        rows = [line for line in table if not set(line) <= {"-"}]
        assert len({len(line) for line in rows[-len(DICE) :]}) == 1, table


@pytest.mark.parametrize("language", sorted(i18n.LANGUAGES))
def test_the_diceman_tables_initials_come_from_the_catalogs(language: str) -> None:
    """The table's picks are written with the dice's initials in the reader's language,
    four different ones, which the key under the table spells out."""
    figures = odds_figures.diceman_figures()
    with i18n.use(language):
        initials = render.initials()
        key = render.die_key()
        with text.record() as drawn:
            picture_ = odds_picture.render_diceman_picture(figures)
    assert len(set(initials.values())) == 4 and all(initials.values())
    for letter, name in render.DIE_NAMES.items():
        with i18n.use(language):
            assert f"{initials[letter]} = {i18n._(name)}" in key, (letter, key)
    labels = {"+".join(initials[part] for part in label.split("+")) for label in figures.labels}
    assert labels <= {piece.text for piece in drawn}
    assert all(f"{label}:" in picture_.alt_text for label in labels)


def test_the_spanish_and_french_tables_use_their_own_initials() -> None:
    figures = odds_figures.diceman_figures()
    for language, shield in (("es", "M+Ec"), ("fr", "M+B")):
        with i18n.use(language), text.record() as drawn:
            odds_picture.render_diceman_picture(figures)
        shown = {piece.text for piece in drawn}
        assert shield in shown and "M+H" not in shown, language


def seats(share: float, low: float, high: float, **changes: object) -> render.SeatFigures:
    values: dict[str, object] = {
        "level": "Medium",
        "games": 10_000,
        "first_wins": 0.5,
        "first_ci95": (0.49, 0.51),
        "second_wins": 0.48,
        "draws": 0.02,
        "decided_share": share,
        "decided_ci95": (low, high),
        "mean_turns": 30.84,
        "median_turns": 29,
        "turns_p10": 21,
        "turns_p90": 43,
    }
    values.update(changes)
    return render.SeatFigures(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("share", "low", "high", "verdict"),
    [
        (0.548, 0.546, 0.550, "moving first is a real advantage"),
        (0.512, 0.503, 0.522, "moving first is a small but real advantage"),
        (0.45, 0.44, 0.46, "moving first is a real disadvantage"),
        (0.505, 0.49, 0.52, "moving first makes no measurable difference"),
    ],
)
def test_advantage_reading_follows_the_confidence_interval(
    share: float, low: float, high: float, verdict: str
) -> None:
    reading = render.advantage_reading(seats(share, low, high))
    assert reading.startswith(f"At medium play {verdict}: the first player takes")
    assert f"{100 * share:.1f}% of the games somebody wins" in reading


def test_advantage_reading_when_every_game_is_drawn() -> None:
    assert render.advantage_reading(seats(0.5, 0, 1, decided_share=None)) == (
        "Every medium game was drawn."
    )


def test_seat_and_length_lines() -> None:
    figures = seats(0.51, 0.5, 0.52)
    assert render.seat_line(figures) == (
        "**Medium play** · 10,000 games: the first player wins **50.0%** "
        "(most likely between 49.0% and 51.0%), the second 48.0%, draws 2.0%."
    )
    assert render.length_line(figures) == (
        "**Medium play** · 30.8 turns on average, median 29, 80% of games last 21–43 "
        "(a turn is one die placed; 17 at the very least)."
    )
    no_games = seats(0.5, 0, 1, mean_turns=None, median_turns=None)
    assert render.length_line(no_games) == "**Medium play** · No games."
    # Each level's reading is a sentence of its own, not a level slotted into one.
    random_play = seats(0.548, 0.546, 0.550, level="Random")
    assert render.advantage_reading(random_play).startswith(
        "At random play moving first is a real advantage"
    )
    assert render.seat_line(random_play).startswith("**Random play** · 10,000 games")


def test_seat_figures_read_a_lab_report() -> None:
    from game_core.analysis import knucklebones as lab

    report = lab.simulate_random_games(2_000, 3)
    figures = odds_figures.seat_figures("Random", report)
    advantage = report["first_player_advantage"]
    assert figures.games == 2_000
    assert figures.first_wins == advantage["win_rate_all"]
    assert list(figures.first_ci95) == advantage["ci95_all"]
    assert figures.draws == advantage["draw_rate"]
    assert figures.decided_share == advantage["win_rate_decided"]
    assert figures.mean_turns == report["turns"]["mean"]
    assert figures.median_turns == report["turns"]["percentiles"]["p50"]
    assert figures.turns_p10 is not None and figures.turns_p10 >= 17


def test_game_length_table_reads_the_labs_lengths_and_short_game() -> None:
    table = lengths()
    lines = render.game_length_lines(table)
    rows = {int(line.split()[0]): line.split()[1:] for line in lines[3:]}
    assert sorted(rows) == list(range(5, 13))
    for players, (card, short, short_rounds) in rows.items():
        assert int(card) == table.length(players, 150).rounds
        assert int(short) == table.short_target(players)
        assert int(short_rounds) == table.length(players, int(short)).rounds
    assert rows[5] == ["35", "60", "10"]
    assert max(len(line) for line in lines) <= 32  # a phone shows it without wrapping


def test_game_length_reading_says_where_the_card_fits_and_what_short_means() -> None:
    reading = render.game_length_reading(lengths())
    assert "At 150 points that holds with 9 to 10 players" in reading
    assert "with 5 a game lasts about 35 rounds" in reading
    # A mention carries no option: the command, then the option to pick.
    assert "`/weighted new` `points:short game` sets the target closest" in reading
