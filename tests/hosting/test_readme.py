"""The README's hosting and lab sections say what the code does: the permissions and their
integer, every setting, the lines a host sees, runnable lab commands, and lab output that a
fresh run reproduces line for line."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from bot.config import Settings
from bot.service.network import TOKEN_REJECTED
from bot.ui.permissions import CHANNEL_PERMISSIONS, invite_permissions
from game_core.analysis.__main__ import build_parser, main

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def section(title: str) -> str:
    start = README.index(title)
    following = re.search(r"\n##+ ", README[start + len(title) :])
    return README[start : start + len(title) + (following.start() if following else len(README))]


def test_the_invite_permissions_are_the_ones_the_bot_asks_for() -> None:
    step = " ".join(section("### 1. Create the Discord application").split())
    assert f"permissions integer `{invite_permissions().value}`" in step
    for _, label in CHANNEL_PERMISSIONS:
        assert f"**{label}**" in step, label
    # Tournaments open a thread on their message and play in it.
    assert "**Create Public Threads**" in step and "**Send Messages in Threads**" in step
    assert "scopes `bot` and `applications.commands`" in step
    assert f"permissions={invite_permissions().value}" in README  # the sample ready line


def test_every_setting_is_in_the_table() -> None:
    table = section("### Settings")
    listed = set(re.findall(r"^\| `([A-Z_]+)` \|", table, re.MULTILINE))
    assert listed == {name.upper() for name in Settings.model_fields}


def test_the_lines_a_host_sees_are_the_real_ones() -> None:
    logs = " ".join(section("### Logs").split())
    assert TOKEN_REJECTED in logs
    assert "dicebot: setting DISCORD_TOKEN is missing: set it in the environment or in .env" in logs


def lab_commands() -> list[list[str]]:
    text = section("### The analysis lab")
    commands = []
    for line in text.splitlines():
        found = re.search(r"python -m game_core\.analysis (.*?)(?:\s+#.*)?$", line)
        if found:
            commands.append(shlex.split(found.group(1)))
    return commands


def test_the_lab_commands_in_the_readme_are_valid() -> None:
    commands = lab_commands()
    assert len(commands) >= 8
    for argv in commands:
        assert build_parser(argv[0]).parse_args(argv).game == argv[0]


def quoted_runs() -> list[tuple[list[str], list[str]]]:
    """``$ python -m game_core.analysis ARGS`` followed by lines its output must contain."""
    runs: list[tuple[list[str], list[str]]] = []
    for line in section("### The analysis lab").splitlines():
        if line.startswith("$ python -m game_core.analysis "):
            runs.append((shlex.split(line.split("analysis ", 1)[1]), []))
        elif runs and line and not line.startswith("```"):
            runs[-1][1].append(line)
        elif line.startswith("```") and runs and runs[-1][1]:
            break
    return runs


def test_the_lab_output_quoted_in_the_readme_matches_a_fresh_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    runs = quoted_runs()
    assert len(runs) == 2
    for argv, expected in runs:
        assert expected, argv
        assert main(argv) == 0
        produced = capsys.readouterr().out.splitlines()
        for line in expected:
            assert line in produced, f"{' '.join(argv)} no longer prints:\n{line}"
