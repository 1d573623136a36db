"""The analysis lab read by a person: each game's --help says what it does, states every
default, explains every strategy and gives examples that run; every table lines up and
every column is explained right below it."""

from __future__ import annotations

import re

import pytest

from game_core.analysis import knucklebones, weighted_dice
from game_core.analysis.__main__ import GAME_MODULES, build_parser, main

GAMES = sorted(GAME_MODULES)
# Small, fast runs that still print every table a game has.
FULL_RUNS = {
    "knucklebones": ["--games", "300", "--scenarios"],
    "diceman": ["--games", "10"],
    "weighted-dice": ["--games", "3", "--players", "5", "6"],
    "dimension-duel": ["--games", "50", "--tactical-games", "3"],
}
TABLES = {"knucklebones": 3, "diceman": 3, "weighted-dice": 4, "dimension-duel": 2}
LEGEND = re.compile(r"^  - (?P<terms>[^:]+): \S")


def help_text(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def option_help(text: str) -> dict[str, str]:
    """Option (its first flag) -> its help text, from an argparse --help page."""
    section = text.split("\noptions:\n", 1)[1].split("\n\n", 1)[0]
    entries: dict[str, str] = {}
    current = None
    for line in section.splitlines():
        match = re.match(r"^  (-\S+)", line)
        if match:
            current = match.group(1).rstrip(",")
            entries[current] = line[len(match.group(0)) :]
        elif current is not None:
            entries[current] += " " + line.strip()
    return {flag: " ".join(words.split()) for flag, words in entries.items()}


@pytest.mark.parametrize("game", GAMES)
def test_help_describes_the_game_states_defaults_and_gives_examples(
    capsys: pytest.CaptureFixture[str], game: str
) -> None:
    text = help_text(capsys, [game])
    description = text.split("\noptions:\n", 1)[0].split("\n\n", 1)[1]  # below the usage
    assert len(description.split()) >= 15, description  # says what the game's run answers
    options = option_help(text)
    assert set(options) >= {"-h", "--seed", "--json", "--no-progress", "--games"}
    for flag, words in options.items():
        if flag in ("-h", "--json", "--no-progress", "--scenarios", "--scalar"):
            continue  # on/off switches: off unless given
        assert "default" in words, f"{game} {flag} states no default: {words!r}"
    examples = text.split("\nexamples:\n", 1)[1].splitlines()
    commands = [line.strip() for line in examples if line.strip().startswith("python -m")]
    comments = [line.strip() for line in examples if line.strip().startswith("# ")]
    assert len(commands) >= 2 and len(comments) == len(commands)
    for command in commands:
        argv = command.split()[3:]  # after "python -m game_core.analysis"
        assert build_parser(argv[0]).parse_args(argv).game == game


def test_knucklebones_help_explains_every_strategy_stall_included(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = help_text(capsys, ["knucklebones"])
    for strategy in knucklebones.PLAYER_CHOICES:
        assert re.search(rf"^  {strategy} +\S.{{15,}}$", text, re.MULTILINE), strategy
    assert "P1 moves\nfirst in games 1, 3, 5" in text
    assert "from random, easy, medium, hard, stall" in " ".join(text.split())


def test_weighted_dice_help_explains_the_strategies_and_every_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = help_text(capsys, ["weighted-dice"])
    for strategy in (*weighted_dice.HOUSE_STRATEGIES, *weighted_dice.BETTOR_STRATEGIES):
        assert re.search(rf"^  {strategy} +\S.{{20,}}$", text, re.MULTILINE), strategy
    options = option_help(text)
    for flag in ("--house", "--bettors", "--target", "--players", "--bet-fraction"):
        assert len(options[flag].split()) >= 5, f"{flag}: {options[flag]!r}"


def tables_in(text: str) -> list[tuple[list[str], list[str], set[str]]]:
    """Every table: (header line, row lines, the terms its legend explains). A table is
    found from its legend up: the nearest line above whose cells are all explained terms
    is the header, so a column nobody explains leaves its table without a header."""
    lines = text.splitlines()
    found = []
    index = 0
    while index < len(lines):
        if not LEGEND.match(lines[index]):
            index += 1
            continue
        start = index
        terms: set[str] = set()
        while index < len(lines) and (
            LEGEND.match(lines[index]) or lines[index].startswith("      ")
        ):
            match = LEGEND.match(lines[index])
            if match:
                terms.update(match.group("terms").split(", "))
            index += 1
        above = start - 1
        while above >= 0 and not set(cells(lines[above])) <= terms:
            assert lines[above].startswith("  "), (
                "a table whose header has a column the legend does not explain:\n"
                + "\n".join(lines[max(0, start - 8) : index])
            )
            above -= 1
        found.append((lines[above], lines[above + 1 : start], terms))
    return found


def cells(line: str) -> list[str]:
    return [cell for cell in re.split(r"\s{2,}", line.strip()) if cell]


def spans(line: str) -> list[tuple[int, int]]:
    return [match.span() for match in re.finditer(r"\S+(?: \S+)*", line)]


@pytest.mark.parametrize("game", GAMES)
def test_every_table_lines_up_and_explains_every_column(
    capsys: pytest.CaptureFixture[str], game: str
) -> None:
    assert main([game, *FULL_RUNS[game], "--seed", "5"]) == 0
    text = capsys.readouterr().out
    tables = tables_in(text)
    assert len(tables) == TABLES[game], text
    for header, rows, _ in tables:
        assert rows, header
        columns = spans(header)
        for row in rows:
            row_spans = spans(row)
            assert len(row_spans) == len(columns), f"{header!r}\n{row!r}"
            for (start, end), (row_start, row_end) in zip(columns, row_spans, strict=True):
                # Each cell shares its column's left edge (names) or right edge (numbers).
                assert row_start == start or row_end == end, f"{header!r}\n{row!r}"
        for index in range(len(columns)):
            aligned = [spans(row)[index] for row in rows]
            assert all(s[0] == columns[index][0] for s in aligned) or all(
                s[1] == columns[index][1] for s in aligned
            ), f"column {index} of {header!r} is ragged"


def test_knucklebones_by_seat_and_by_player_are_told_apart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["knucklebones", "--games", "400", "--seed", "2"]) == 0
    text = capsys.readouterr().out
    assert "Who wins, by turn order" in text
    assert "Who wins, by named player (each moved first in half the games)" in text
    assert "P1 and P2 take turns moving first (P1 in games 1, 3, 5, ...)." in text


def test_diceman_shows_percentages_as_the_bot_does(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diceman", "--games", "10", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    mp_row = next(line for line in text.splitlines() if line.startswith("  M+P  "))
    assert cells(mp_row)[1] == "37.5% +0.00"  # 0.375 in the old table; 38% in /odds diceman
    assert "exploitability: what the best reply would gain over the value" in text
    assert "score: (wins + half the draws) / games" in text


def estimate_for(argv: list[str]) -> float:
    args = build_parser("knucklebones").parse_args(["knucklebones", *argv])
    return knucklebones.estimated_seconds(args)


def test_a_long_knucklebones_run_is_announced_and_a_short_one_is_not() -> None:
    # The README's example: the engine path with a searching player, about a minute.
    long_run = ["--players", "hard", "medium", "--games", "2000", "--workers", "2"]
    assert estimate_for(long_run) >= knucklebones.ESTIMATE_FROM_SECONDS
    assert estimate_for(["--games", "1000000"]) < knucklebones.ESTIMATE_FROM_SECONDS
    assert estimate_for(["--scenarios"]) < knucklebones.ESTIMATE_FROM_SECONDS


def test_the_estimate_line_is_printed_before_the_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A short run made to look long: the line comes out, on stderr, before any result.
    monkeypatch.setattr(knucklebones, "ESTIMATE_FROM_SECONDS", 0.0)
    assert main(["knucklebones", "--games", "10", "--players", "medium", "random"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "knucklebones: this run takes about 0 s\n"
    assert main(["knucklebones", "--games", "10", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
