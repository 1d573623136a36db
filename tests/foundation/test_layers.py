"""SQL lives in bot/storage/ only, behind named operations the layers above call (the
import contract in pyproject.toml, checked by `lint-imports` in CI, holds the rest of the
layers)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# How the project writes SQL: keywords in capitals (a player's "Delete" or "with" is text).
STATEMENT = re.compile(
    r"^\s*(SELECT\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|WITH\s+\w+\s+AS\s"
    r"|CREATE\s+(TABLE|INDEX|UNIQUE)\s|ALTER\s+TABLE\s|DROP\s+(TABLE|INDEX)\s)"
)


def statements(path: Path) -> list[int]:
    """Lines where a string literal (or the first part of an f-string) starts a SQL
    statement."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr) and node.values:
            first = node.values[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                text = first.value
        if text is not None and STATEMENT.match(text):
            found.append(node.lineno)
    return found


def outside_storage() -> list[Path]:
    paths = [*(ROOT / "bot").rglob("*.py"), *(ROOT / "cogs").rglob("*.py")]
    storage = ROOT / "bot" / "storage"
    return sorted(path for path in paths if storage not in path.parents)


def test_no_sql_outside_storage() -> None:
    found = {
        str(path.relative_to(ROOT)): lines
        for path in outside_storage()
        if (lines := statements(path))
    }
    assert found == {}, f"SQL outside bot/storage/ (file: lines): {found}"


def test_the_check_sees_the_sql_storage_holds() -> None:
    assert statements(ROOT / "bot" / "storage" / "sessions.py")
    assert statements(ROOT / "bot" / "storage" / "copying.py")
