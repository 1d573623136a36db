"""``python -m game_core.analysis <game> ...``: the analysis lab's command line.

Each game's module exposes ``add_arguments(parser)``, ``run(args) -> dict`` (a JSON-ready
report) and ``render(report) -> str`` (a readable table).
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
from collections.abc import Sequence

GAME_MODULES = {
    "knucklebones": "game_core.analysis.knucklebones",
    "diceman": "game_core.analysis.diceman",
    "weighted-dice": "game_core.analysis.weighted_dice",
    "dimension-duel": "game_core.analysis.dimension_duel",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that game's module is imported (faster start-up)."""
    parser = argparse.ArgumentParser(
        prog="python -m game_core.analysis",
        description="Simulations and exact tables for the four dice games.",
    )
    games = parser.add_subparsers(dest="game", required=True, metavar="GAME")
    for name, module_name in GAME_MODULES.items():
        if only is not None and name != only:
            games.add_parser(name)
            continue
        module = importlib.import_module(module_name)
        sub = games.add_parser(name, help=(module.__doc__ or "").strip().splitlines()[0])
        sub.add_argument("--seed", type=int, default=None, help="seed for a repeatable run")
        sub.add_argument("--json", action="store_true", help="print JSON instead of a table")
        sub.add_argument(
            "--no-progress", action="store_true", help="never draw a progress bar on stderr"
        )
        module.add_arguments(sub)
        sub.set_defaults(module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    chosen = arguments[0] if arguments and arguments[0] in GAME_MODULES else None
    args = build_parser(chosen).parse_args(arguments)
    if args.seed is None:
        # Drawn here and reported in the output, so any run can be replayed with --seed.
        args.seed = random.SystemRandom().randrange(2**32)
    report = args.module.run(args)
    if args.json:
        json.dump(report, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(args.module.render(report).rstrip("\n") + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
