"""The analysis lab's command line as a whole: ``python -m game_core.analysis <game>``.

The per-game tests check the numbers (exact tables against brute force and Monte Carlo,
simulators against the engines). Here we check what the dispatcher promises for every
game: a readable table by default, ``--json`` for machines, ``--seed`` for repeatable runs,
no progress bar drawn into a pipe, and clear refusals of bad command lines.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from typing import Any

import pytest

from game_core.analysis.__main__ import GAME_MODULES, main

# Small runs: every game's full report in well under a second each.
SMALL = {
    "knucklebones": ["--games", "400"],
    "diceman": ["--games", "12"],
    "weighted-dice": ["--games", "4", "--players", "5", "--house", "greedy"],
    "dimension-duel": ["--games", "60", "--tactical-games", "4"],
}
DIE_NAMES = ["d4", "d6", "d8", "d10", "d12", "d20"]
COMBO_LABELS = ["M+P", "M+S", "M+H", "P+S", "P+H", "S+H"]
NUMBER = r"[-+]?\d+(?:\.\d+)?"


def run_cli(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[str, str]:
    assert main(argv) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    out, _ = run_cli(capsys, [*argv, "--json"])
    report = json.loads(out)
    assert isinstance(report, dict)
    return report


def cells_of(text: str, heading: str, count: int) -> list[list[str]]:
    """The cells of the ``count`` rows under the column header that follows ``heading``
    (columns are at least two spaces apart; a cell may hold one space)."""
    lines = text.splitlines()
    start = lines.index(heading) + 2
    return [re.split(r"\s{2,}", line.strip()) for line in lines[start : start + count]]


def test_every_game_in_the_issue_is_offered() -> None:
    assert set(GAME_MODULES) == {"knucklebones", "diceman", "weighted-dice", "dimension-duel"}


@pytest.mark.parametrize("game", sorted(SMALL))
def test_default_output_is_a_table_not_json_and_no_bar_goes_into_a_pipe(
    capsys: pytest.CaptureFixture[str], game: str
) -> None:
    out, err = run_cli(capsys, [game, *SMALL[game], "--seed", "3"])
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)
    assert out.endswith("\n") and not out.endswith("\n\n")
    assert len(out.splitlines()) >= 5
    # stderr is not a terminal under pytest: the progress bar stays out of captured output.
    assert err == ""


@pytest.mark.parametrize("game", sorted(SMALL))
def test_the_same_seed_gives_the_same_output_in_both_formats(
    capsys: pytest.CaptureFixture[str], game: str
) -> None:
    argv = [game, *SMALL[game], "--seed", "11"]
    first_table, _ = run_cli(capsys, argv)
    second_table, _ = run_cli(capsys, argv)
    assert first_table == second_table
    assert run_json(capsys, argv) == run_json(capsys, argv)


@pytest.mark.parametrize("game", ["knucklebones", "diceman", "dimension-duel"])
def test_a_different_seed_gives_different_simulations(
    capsys: pytest.CaptureFixture[str], game: str
) -> None:
    first = run_json(capsys, [game, *SMALL[game], "--seed", "1"])
    second = run_json(capsys, [game, *SMALL[game], "--seed", "2"])
    assert first["seed"] == 1 and second["seed"] == 2
    assert first != second


@pytest.mark.parametrize("game", ["knucklebones", "diceman", "weighted-dice", "dimension-duel"])
def test_without_a_seed_the_report_names_the_one_it_drew(
    capsys: pytest.CaptureFixture[str], game: str
) -> None:
    report = run_json(capsys, [game, *SMALL[game]])
    assert isinstance(report["seed"], int)
    replay = run_json(capsys, [game, *SMALL[game], "--seed", str(report["seed"])])
    assert replay == report


def test_knucklebones_table_shape(capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = run_cli(capsys, ["knucklebones", "--games", "500", "--seed", "9"])
    lines = out.splitlines()
    assert lines[0].startswith("Knucklebones: 500 games, random (P1) vs random (P2), seed 9")
    shares = cells_of(out, "Who wins, by turn order", 3)
    assert [row[0] for row in shares] == [
        "player moving first wins",
        "player moving second wins",
        "draw",
    ]
    assert sum(int(row[1].replace(",", "")) for row in shares) == 500
    assert sum(float(row[2].rstrip("%")) for row in shares) == pytest.approx(100, abs=0.2)
    assert re.search(
        rf"Moving first wins {NUMBER}% of decided games \(95% CI {NUMBER}% to {NUMBER}%\)", out
    )
    players = cells_of(out, "Who wins, by named player (each moved first in half the games)", 2)
    assert [row[0] for row in players] == ["P1 random", "P2 random"]
    columns = cells_of(out, "The first die's column and the first player's result", 3)
    assert [row[0] for row in columns] == ["1", "2", "3"]
    assert sum(int(row[1].replace(",", "")) for row in columns) == 500
    assert re.search(
        rf"Game length in turns \(one turn = one die placed\): mean {NUMBER}, standard "
        rf"deviation {NUMBER}",
        out,
    )
    assert "Scenario" not in out


def test_knucklebones_json_shape_with_stall_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, ["knucklebones", "--games", "60", "--scenarios", "--seed", "5"])
    assert report["games"] == 60 and report["engine"] == "vectorised"
    assert report["first_player_wins"] + report["second_player_wins"] + report["draws"] == 60
    advantage = report["first_player_advantage"]
    low, high = advantage["ci95_all"]
    assert low <= advantage["win_rate_all"] <= high
    assert set(report["first_move_column"]) == {"0", "1", "2"}
    assert sum(column["games"] for column in report["first_move_column"].values()) == 60
    assert sum(report["turns"]["histogram"].values()) == 60
    assert min(int(turns) for turns in report["turns"]["histogram"]) >= 17
    assert set(report["scenarios"]) == {
        "random_vs_random",
        "stall_first",
        "stall_second",
        "both_stall",
    }
    for scenario in report["scenarios"].values():
        assert (
            scenario["first_player_wins"] + scenario["second_player_wins"] + scenario["draws"] == 60
        )


def test_knucklebones_ai_players_use_the_engine_path(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["knucklebones", "--games", "40", "--players", "medium", "random", "--seed", "2"]
    report = run_json(capsys, argv)
    assert report["engine"] == "scalar"
    assert report["per_player"]["p1"]["strategy"] == "medium"
    assert report["per_player"]["p1"]["games_first"] == 20  # seats alternate
    out, _ = run_cli(capsys, argv)
    assert "P1 medium" in out and "P2 random" in out


def test_diceman_table_shape(capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = run_cli(capsys, ["diceman", "--games", "0"])
    heading = next(line for line in out.splitlines() if line.startswith("Diceman, one round"))
    rows = cells_of(out, heading, 6)
    for label, cells in zip(COMBO_LABELS, rows, strict=True):
        assert cells[0] == label
        # Six cells, each a percentage (as /odds diceman shows) and a signed balance.
        assert len(cells) == 7
        for cell in cells[1:]:
            chance, balance = cell.split(" ")
            assert 0 <= float(chance.rstrip("%")) <= 100 and chance.endswith("%")
            assert re.fullmatch(r"[-+]\d+\.\d\d", balance)
    assert "The mix no combination beats on damage balance" in out
    # --games 0 skips the simulation part altogether.
    assert "Whole games" not in out


def test_diceman_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, ["diceman", *SMALL["diceman"], "--seed", "4"])
    exact = report["exact"]
    assert exact["labels"] == COMBO_LABELS
    assert len(exact["table"]) == 6 and all(len(row) == 6 for row in exact["table"])
    assert set(exact["table"][0][0]) >= {"p_more", "p_less", "p_equal", "balance"}
    assert set(exact["equilibrium"]["mix"]) == set(COMBO_LABELS)
    assert sum(exact["equilibrium"]["mix"].values()) == pytest.approx(1)
    simulation = report["simulation"]
    assert simulation["games_per_matchup"] == 12
    mirror = simulation["ai_vs_ai"]
    assert mirror["seat0_wins"] + mirror["seat1_wins"] + mirror["draws"] == 12
    assert set(simulation["pure_vs_ai"]) == set(COMBO_LABELS)


def test_weighted_dice_table_shape(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["weighted-dice", "--games", "3", "--players", "5", "7", "--seed", "2"]
    out, _ = run_cli(capsys, argv)
    for heading in ("The row's roller wins", "A tie (the house takes every bet)"):
        lines = out.splitlines()
        assert lines[lines.index(heading) + 1].split() == ["row", *DIE_NAMES]
        for die, cells in zip(DIE_NAMES, cells_of(out, heading, 6), strict=True):
            assert cells[0] == die and len(cells) == 7
            assert all(0 <= float(value.rstrip("%")) <= 100 for value in cells[1:])
    # One line per (players, house, bettors) mix: 2 x 2 x 2, in both tables.
    for heading in ("Rounds per game", "Where the points went"):
        mixes = cells_of(out, heading, 8)
        assert {(row[0], row[1]) for row in mixes} == {
            (players, house) for players in ("5", "7") for house in ("greedy", "random")
        }


def test_weighted_dice_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, ["weighted-dice", *SMALL["weighted-dice"], "--seed", "8"])
    assert len(report["odds"]) == 36
    assert report["settings"]["games"] == 4
    simulations = report["simulations"]
    assert [(s["players"], s["house"]) for s in simulations] == [(5, "greedy"), (5, "greedy")]
    for simulation in simulations:
        assert set(simulation["rounds"]) >= {"mean", "median", "p10", "p90"}
        assert 0 <= simulation["points"]["house_share"] <= 1


def test_dimension_duel_table_shape(capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = run_cli(capsys, ["dimension-duel", *SMALL["dimension-duel"], "--seed", "6"])
    assert "Classic mode" in out and "Tactical mode, AI vs AI" in out
    tau_lines = [line for line in out.splitlines() if "Tau (attacks first) wins" in line]
    assert len(tau_lines) == 2
    for line in tau_lines:
        assert re.search(rf"wins {NUMBER}% \(95% CI {NUMBER}% to {NUMBER}%\)", line)
    assert len([line for line in out.splitlines() if "length in turns" in line]) == 2
    shares = [line.split()[1:] for line in out.splitlines() if line.startswith("  duels ")]
    assert len(shares) == 2
    for row in shares:
        assert sum(float(cell.rstrip("%")) for cell in row) == pytest.approx(100, abs=0.5)


def test_dimension_duel_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, ["dimension-duel", *SMALL["dimension-duel"], "--seed", "6"])
    classic = report["classic"]
    assert classic["games"] == 60
    assert classic["tau_wins"] + classic["kaon_wins"] + classic["draws"] == 60
    assert report["tactical_ai_vs_ai"]["games"] == 4
    assert report["tactical_ai_vs_random"]["games"] == 4
    # Tactical duels can be switched off.
    classic_only = run_json(capsys, ["dimension-duel", "--games", "10", "--tactical-games", "0"])
    assert "tactical_ai_vs_ai" not in classic_only


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        ([], "the following arguments are required: GAME"),
        (["poker"], "argument GAME: invalid choice: 'poker'"),
        (["diceman", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
        (["diceman", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["diceman", "--games", "-1"], "argument --games: must be 0 or more, not -1"),
        (["knucklebones", "--games", "0"], "argument --games: must be at least 1, not 0"),
        (["knucklebones", "--games", "-5"], "argument --games: must be at least 1, not -5"),
        (["knucklebones", "--games", "many"], "argument --games: 'many' is not a whole number"),
        (["knucklebones", "--workers", "0"], "argument --workers: must be at least 1, not 0"),
        (
            ["knucklebones", "--players", "hard", "genius"],
            "argument --players: invalid choice: 'genius'",
        ),
        (["weighted-dice", "--players", "4"], "argument --players: players must be 5..12"),
        (["weighted-dice", "--house", "kind"], "argument --house: invalid choice: 'kind'"),
        (["weighted-dice", "--bet-fraction", "2"], "argument --bet-fraction: must be above 0"),
        (["dimension-duel", "--games", "0"], "argument --games: must be at least 1, not 0"),
        (
            ["dimension-duel", "--tactical-games", "-3"],
            "argument --tactical-games: must be 0 or more, not -3",
        ),
    ],
)
def test_a_bad_command_line_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], problem: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1, captured.err
    prog = "python -m game_core.analysis" + (
        f" {argv[0]}" if argv[:1] != ["poker"] and argv else ""
    )
    assert captured.err.startswith(f"{prog}: error: {problem}"), captured.err
    assert captured.err.endswith(f"(see {prog} --help)\n")


def test_the_module_runs_as_a_program() -> None:
    """The real entry point (``python -m``), importing only the requested game's module."""
    script = (
        "import runpy, sys;"
        "sys.argv = ['x', 'weighted-dice', '--games', '2', '--players', '5', '--json'];"
        "code = 0\n"
        "try:\n"
        "    runpy.run_module('game_core.analysis', run_name='__main__')\n"
        "except SystemExit as stop:\n"
        "    code = stop.code\n"
        "others = sorted(m for m in sys.modules if m.startswith('game_core.analysis.')"
        " and m.split('.')[-1] in ('diceman', 'dimension_duel', 'knucklebones'))\n"
        "print(code, others, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stderr.strip() == "0 []"
    assert len(json.loads(done.stdout)["odds"]) == 36


class Terminal(io.StringIO):
    """A stderr that says it is a terminal, so the lab draws its progress bar."""

    def isatty(self) -> bool:
        return True


# Runs long enough that a player at a terminal should see progress, and tiny ones.
LONG_RUNS = {
    "knucklebones": ["--games", "6000", "--players", "medium", "medium"],
    "diceman": ["--games", "300"],
    "weighted-dice": ["--games", "1000", "--players", "12", "--house", "random"],
    "dimension-duel": ["--games", "10", "--tactical-games", "170"],
}


@pytest.mark.parametrize("game", sorted(LONG_RUNS))
def test_a_long_run_at_a_terminal_draws_a_progress_bar(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], game: str
) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main([game, *LONG_RUNS[game], "--seed", "1"]) == 0
    bar = terminal.getvalue()
    assert re.search(r"\[#+\] 100%\n$", bar), bar[-80:]
    assert "[" not in capsys.readouterr().out.splitlines()[0]  # the bar never goes to stdout

    quiet = Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert main([game, *LONG_RUNS[game], "--seed", "1", "--no-progress"]) == 0
    assert quiet.getvalue() == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["--games", "3000"],  # NumPy: a few milliseconds
        ["--games", "2", "--players", "hard", "random"],  # well under a second
    ],
)
def test_a_short_knucklebones_run_draws_no_bar_even_at_a_terminal(
    monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["knucklebones", *argv, "--seed", "1"]) == 0
    assert terminal.getvalue() == ""


def test_a_long_knucklebones_run_advances_game_by_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 30 games with a hard player are one block of the scalar path; the bar must still move
    # through it rather than jump from nothing to 100% at the end.
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert (
        main(["knucklebones", "--games", "30", "--players", "hard", "random", "--seed", "1"]) == 0
    )
    percents = {int(p) for p in re.findall(r"(\d+)%", terminal.getvalue())}
    assert len(percents) > 5 and max(percents) == 100
