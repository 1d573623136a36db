"""``python -m bot``: run the bot; ``python -m bot backup``; ``python -m bot healthcheck``;
``python -m bot copy-to-postgres``.

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
    copy = commands.add_parser(
        "copy-to-postgres",
        help="copy the SQLite database into an empty PostgreSQL database (stop the bot first)",
        description="Copy every table of the SQLite database into an empty PostgreSQL "
        "database in one transaction, then compare every table's row count. A target that "
        "already holds rows is refused. Stop the bot first: what it writes meanwhile is "
        "not copied.",
    )
    copy.add_argument(
        "--sqlite", type=Path, help="the SQLite file (default: DATABASE_PATH, data/dicebot.db)"
    )
    copy.add_argument(
        "--to", metavar="URL", help="the postgresql:// URL of the target (default: DATABASE_URL)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    if args.command == "backup":
        return backup_command(args.destination)
    if args.command == "healthcheck":
        return healthcheck_command()
    if args.command == "copy-to-postgres":
        return copy_command(args.sqlite, args.to)
    return run_command()


def run_command() -> int:
    # Each command imports only what it runs: the healthcheck (every 30 s) stays light.
    import asyncio

    from bot.config import load_settings
    from bot.service.lifecycle import serve
    from bot.service.logs import configure_logging

    settings = load_settings()
    configure_logging(settings)
    return asyncio.run(serve(settings))


def backup_command(destination: Path | None) -> int:
    # Only what the backup runs (see run_command).
    from bot.config import load_storage_settings
    from bot.service.backup import BackupError, backup

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
    from bot.service.health import check

    healthy, line = check(load_storage_settings().health_file)
    print(line)
    return 0 if healthy else 1


def copy_command(sqlite: Path | None, to: str | None) -> int:
    # Only what the copy runs (see run_command).
    from bot.config import load_storage_settings
    from bot.service.copy_to_postgres import copy_and_report

    settings = load_storage_settings()
    configured = settings.database_url.get_secret_value() if settings.database_url else None
    return copy_and_report(sqlite or settings.database_path, to or configured)


if __name__ == "__main__":
    raise SystemExit(main())
