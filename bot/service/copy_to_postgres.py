"""``python -m bot copy-to-postgres``: move a server's data from SQLite to PostgreSQL.

Copies every table of the SQLite database (``DATABASE_PATH``, or ``--sqlite``) into an
EMPTY PostgreSQL database (``DATABASE_URL``, or ``--to``): sessions and their players,
events, deadlines, results, ratings, picks, seasons, settings, private messages, who is
busy where. The target is migrated first and must hold no rows; the copy is one transaction
(all or nothing), then every table's row count is compared with the source. Stop the
bot first: what it writes during the copy would not be copied.

Exit codes: 0 copied and verified; 1 the counts differ; 2 nothing copied (an unusable
source or target, or a target that is not empty), said in one line.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from bot.storage import is_postgres_url
from bot.storage.copying import CopyRefused, copy_database
from bot.storage.postgres import describe_url


def copy_and_report(sqlite_path: Path, url: str | None) -> int:
    """Run the copy and print its report; returns the exit code."""
    if not url or not is_postgres_url(url):
        print("dicebot: give the target as --to postgresql://... or DATABASE_URL", file=sys.stderr)
        return 2
    try:
        report = asyncio.run(copy_database(sqlite_path, url))
    except CopyRefused as error:
        print(f"dicebot: {error}", file=sys.stderr)
        return 2
    print(f"copied {sqlite_path} into {describe_url(url)}:")
    for line in report.lines():
        print(line)
    if not report.matches:
        print("dicebot: the row counts differ (see above)", file=sys.stderr)
        return 1
    print("every table's row count matches: start the bot with DATABASE_URL set")
    return 0
