"""SQL lives in bot/storage/ only, behind named operations the layers above call; an import
inside a function says why beside it (never to dodge a circle). The import contract in
pyproject.toml, checked by `lint-imports` in CI, holds the rest of the layers."""

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


def late_imports_without_a_reason(path: Path) -> list[int]:
    """Lines of imports inside a function with no comment on them or just above them (in
    the block of imports and comments they belong to), in a function whose docstring does
    not say why it imports late either."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        docstring = ast.get_docstring(function) or ""
        for node in ast.walk(function):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if "import" in docstring.lower() or "#" in lines[node.lineno - 1]:
                continue
            above = node.lineno - 2
            reason = False
            while above >= 0 and not reason:
                line = lines[above].strip()
                if line.startswith("#"):
                    reason = True
                elif line == "" or line.startswith(("import ", "from ")):
                    above -= 1
                else:
                    break
            if not reason:
                found.append(node.lineno)
    return found


def test_an_import_inside_a_function_says_why() -> None:
    paths = [*(ROOT / "bot").rglob("*.py"), *(ROOT / "cogs").rglob("*.py")]
    paths += (ROOT / "game_core").rglob("*.py")
    found = {
        str(path.relative_to(ROOT)): lines
        for path in sorted(paths)
        if (lines := late_imports_without_a_reason(path))
    }
    assert found == {}, f"imports inside a function with no reason beside them: {found}"


def test_the_late_import_check_sees_a_silent_one(tmp_path: Path) -> None:
    silent = tmp_path / "silent.py"
    silent.write_text("def f():\n    x = 1\n    import json\n    return json, x\n")
    said = tmp_path / "said.py"
    said.write_text("def f():\n    # Loaded on first use.\n    import json\n    return json\n")
    assert late_imports_without_a_reason(silent) == [3]
    assert late_imports_without_a_reason(said) == []
