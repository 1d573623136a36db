"""Write the generated parts of ``docs/architecture.md`` from the code itself.

Three blocks, each between ``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->``:

- ``layers``: a Mermaid diagram of the runtime's layers (the ``layers`` contract in
  ``pyproject.toml``, top to bottom) with an arrow for every layer that imports another,
  labelled with how many modules import how many, read from the real import graph (grimp,
  the graph import-linter checks);
- ``cogs``: which runtime layers each package (or shared module) of ``cogs/`` imports;
- ``modules``: every module of ``bot/``, ``cogs/`` and ``game_core/`` with the first sentence
  of its opening docstring, folder by folder.

Run ``.venv/bin/python -m tools.architecture`` after moving or adding a module and commit
the page; ``--check`` exits 1 when the page is not what the code gives, and
``tests/foundation/test_architecture_doc.py`` runs that check.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"
PACKAGES = ("bot", "cogs", "game_core")
# Every layer imports these; an arrow to them from each box would hide the rest.
FOUNDATION = ("bot.config", "bot.i18n", "bot.log_lines")


def layer_contract() -> list[list[str]]:
    """The layers contract's layers, top first; each a list of independent siblings."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] == "layers":
            return [[part.strip() for part in layer.split("|")] for layer in contract["layers"]]
    raise SystemExit("pyproject.toml has no layers contract")


def group_of(module: str, runtime_groups: list[str]) -> str | None:
    if module.startswith("game_core"):
        return "game_core"
    if module.startswith("cogs"):
        parts = module.split(".")
        return ".".join(parts[:2]) if len(parts) > 1 else None
    if module in FOUNDATION:
        return "foundation"
    for group in runtime_groups:
        if module == group or module.startswith(group + "."):
            return group
    return None


def edges(graph: grimp.ImportGraph, groups: list[str]) -> dict[tuple[str, str], set[str]]:
    """(importer group, imported group) -> the importing modules."""
    found: dict[tuple[str, str], set[str]] = defaultdict(set)
    for module in graph.modules:
        source = group_of(module, groups)
        if source is None:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            target = group_of(imported, groups)
            if target is not None and target != source:
                found[(source, target)].add(module)
    return found


def node_id(group: str) -> str:
    return re.sub(r"\W", "_", group)


def layers_block(graph: grimp.ImportGraph) -> str:
    layers = layer_contract()
    runtime = [group for layer in layers for group in layer if group not in FOUNDATION]
    links = edges(graph, runtime)
    lines = ["```mermaid", "flowchart TD"]
    for depth, layer in enumerate(layers):
        shown = [group for group in layer if group not in FOUNDATION]
        if not shown:
            continue
        lines.append(f"    subgraph L{depth} [ ]")
        lines.append("        direction LR")
        lines += [f'        {node_id(group)}["{group}"]' for group in shown]
        lines.append("    end")
    lines.append('    game_core["game_core (the rules)"]')
    for (source, target), importers in sorted(links.items()):
        if source.startswith("cogs") or target == "foundation":
            continue
        lines.append(f"    {node_id(source)} -->|{len(importers)}| {node_id(target)}")
    lines.append("```")
    lines.append("")
    lines.append(
        "Arrows point from the importer to what it imports, labelled with the number of "
        "importing modules. Not drawn: `bot.config`, `bot.i18n` and `bot.log_lines` (the "
        "settings, the words and the log lines, which every layer may use) and `cogs/` "
        "(below)."
    )
    return "\n".join(lines)


def cogs_block(graph: grimp.ImportGraph) -> str:
    layers = layer_contract()
    runtime = [group for layer in layers for group in layer if group not in FOUNDATION]
    columns = [*runtime, "game_core"]
    links = edges(graph, runtime)
    cogs = sorted({source for source, _ in links if source.startswith("cogs.")})
    used = [c for c in columns if any((cog, c) in links for cog in cogs)]
    lines = [
        "| `cogs/` | " + " | ".join(f"`{c}`" for c in used) + " | other `cogs` |",
        "|---|" + "---|" * (len(used) + 1),
    ]
    for cog in cogs:
        marks = ["✓" if (cog, column) in links else "" for column in used]
        others = sorted(t for s, t in links if s == cog and t.startswith("cogs."))
        lines.append(
            f"| `{cog}` | "
            + " | ".join(marks)
            + " | "
            + ", ".join(f"`{o.removeprefix('cogs.')}`" for o in others)
            + " |"
        )
    return "\n".join(lines)


def first_sentence(path: Path) -> str:
    """The docstring's first sentence (to the first full stop), in Markdown."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    text = " ".join(docstring.split()).replace("``", "`")
    match = re.match(r"(.+?\.)(\s|$)", text)
    sentence = match.group(1) if match else text
    if len(sentence) > 220:
        sentence = sentence[:219].rsplit(" ", 1)[0] + " …"
    return sentence.replace("|", "\\|")


def modules_block() -> str:
    by_folder: dict[str, list[Path]] = defaultdict(list)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            by_folder[path.parent.relative_to(ROOT).as_posix()].append(path)
    lines = []
    for folder in sorted(by_folder):
        lines += ["", f"**`{folder}/`**", "", "| module | what it is |", "|---|---|"]
        for path in by_folder[folder]:
            lines.append(f"| `{path.name}` | {first_sentence(path)} |")
    return "\n".join(lines).strip()


def blocks() -> dict[str, str]:
    graph = grimp.build_graph(*PACKAGES)
    return {
        "layers": layers_block(graph),
        "cogs": cogs_block(graph),
        "modules": modules_block(),
    }


def render(page: str, generated: dict[str, str]) -> str:
    for name, body in generated.items():
        start, end = f"<!-- generated:{name} -->\n", f"<!-- /generated:{name} -->"
        if start not in page or end not in page:
            raise SystemExit(f"{PAGE.relative_to(ROOT)} has no generated:{name} block")
        before, rest = page.split(start, 1)
        _, after = rest.split(end, 1)
        page = before + start + body + "\n" + end + after
    return page


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args(argv)
    current = PAGE.read_text(encoding="utf-8")
    wanted = render(current, blocks())
    if args.check:
        if wanted != current:
            print(
                "docs/architecture.md is not what the code gives: run "
                ".venv/bin/python -m tools.architecture and commit it",
                file=sys.stderr,
            )
            return 1
        return 0
    PAGE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
