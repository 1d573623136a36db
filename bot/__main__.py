"""``python -m bot``: run the bot; ``python -m bot backup``; ``python -m bot healthcheck``.

Exit codes: 0 a clean stop (SIGTERM/SIGINT) or a done command; 1 an unexpected error (or
a stop that had to be forced); 2 something only the host can fix (a setting, the token, the
database path), said in one line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Dicebot, a Discord bot for four dice games. Settings come from the "
        "environment or .env (see .env.example).",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("run", help="run the bot (what `python -m bot` does by default)")
    backup = commands.add_parser(
        "backup",
        help="copy the database consistently, even while the bot runs",
        description="Copy the SQLite database with SQLite's online backup API: consistent "
        "while the bot keeps running, checked, and written under its final name only when "
        "complete. For PostgreSQL (DATABASE_URL) use pg_dump.",
    )
    backup.add_argument(
        "destination",
        nargs="?",
        type=Path,
        help="the file to write (default: backups/dicebot-<UTC date-time>.db beside the "
        "database); never overwritten",
    )
    commands.add_parser(
        "healthcheck",
        help="exit 0 if the running bot is connected to Discord, else 1 (Docker HEALTHCHECK)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    if args.command == "backup":
        return backup_command(args.destination)
    if args.command == "healthcheck":
        return healthcheck_command()
    return run_command()


def run_command() -> int:
    import asyncio

    from bot.config import load_settings
    from bot.lifecycle import serve
    from bot.logs import configure_logging

    settings = load_settings()
    configure_logging(settings)
    return asyncio.run(serve(settings))


def backup_command(destination: Path | None) -> int:
    from bot.backup import BackupError, backup
    from bot.config import load_storage_settings

    settings = load_storage_settings()
    try:
        report = backup(settings, destination)
    except BackupError as error:
        print(f"dicebot: {error}", file=sys.stderr)
        return 2
    print(report.line())
    return 0


def healthcheck_command() -> int:
    # Imports kept light: Docker runs this every 30 seconds.
    from bot.config import load_storage_settings
    from bot.health import check

    healthy, line = check(load_storage_settings().health_file)
    print(line)
    return 0 if healthy else 1


if __name__ == "__main__":
    raise SystemExit(main())
