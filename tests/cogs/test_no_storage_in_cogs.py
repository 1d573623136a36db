"""The cogs render and turn interactions into actions; the data is the runtime's: no cog
holds SQL or imports ``bot.storage`` (the storage's types included)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
COGS = sorted((ROOT / "cogs").rglob("*.py"))
SQL = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE)\b")


def storage_imports(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("bot.storage")]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == "bot.storage" or node.module.startswith("bot.storage."):
                found.append(node.module)
            elif node.module == "bot":
                found += [f"bot.{a.name}" for a in node.names if a.name == "storage"]
    return found


@pytest.mark.parametrize("path", COGS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_a_cog_has_no_sql_and_no_storage(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert storage_imports(ast.parse(source)) == []
    assert [line for line in source.splitlines() if SQL.search(line)] == []


def test_the_cogs_are_found() -> None:
    assert any(path.name == "admin.py" for path in COGS)
