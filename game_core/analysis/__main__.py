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

from game_core.analysis.cli import LabHelp, LabParser

# One line each for the top-level --help, without importing every game's module.
SUMMARIES = {
    "knucklebones": "first-player advantage, AI levels, game length, stalling",
    "diceman": "the exact one-round table, the equilibrium mix, full games",
    "weighted-dice": "exact odds of every dice pair, game length, the house's share",
    "dimension-duel": "Tau's first-attack advantage and game length, classic and tactical",
}
GAME_MODULES = {
    "knucklebones": "game_core.analysis.knucklebones",
    "diceman": "game_core.analysis.diceman",
    "weighted-dice": "game_core.analysis.weighted_dice",
    "dimension-duel": "game_core.analysis.dimension_duel",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that game's module is imported (faster start-up)."""
    parser = LabParser(
        prog="python -m game_core.analysis",
        description="Simulations and exact tables for the four dice games.\nEach game's "
        "--help lists its options, their defaults and examples.",
        formatter_class=LabHelp,
    )
    games = parser.add_subparsers(dest="game", required=True, metavar="GAME")
    for name, module_name in GAME_MODULES.items():
        if only is not None and name != only:
            games.add_parser(name, help=SUMMARIES[name])
            continue
        module = importlib.import_module(module_name)
        sub = games.add_parser(
            name,
            help=SUMMARIES[name],
            description=module.HELP,
            epilog=_examples(name, module.EXAMPLES),
            formatter_class=LabHelp,
        )
        sub.add_argument(
            "--seed",
            type=int,
            default=None,
            help="seed for a repeatable run (default: a random one, printed in the report)",
        )
        sub.add_argument("--json", action="store_true", help="print JSON instead of tables")
        sub.add_argument(
            "--no-progress",
            action="store_true",
            help="no progress bar or time estimate on stderr (the bar shows only on a "
            "terminal, for runs over about a second)",
        )
        module.add_arguments(sub)
        sub.set_defaults(module=module, game_parser=sub)
    return parser


def _examples(game: str, examples: list[tuple[str, str]]) -> str:
    lines = ["examples:"]
    for arguments, what in examples:
        lines += [f"  # {what}", f"  python -m game_core.analysis {game} {arguments}".rstrip()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    chosen = arguments[0] if arguments and arguments[0] in GAME_MODULES else None
    args, unknown = build_parser(chosen).parse_known_args(arguments)
    if unknown:
        # Said by the game's own parser, so the line points to that game's --help.
        args.game_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
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
