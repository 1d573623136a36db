"""``python -m bot backup [DEST]``: a consistent copy of the SQLite database, safe to take
while the bot runs.

SQLite's online backup API copies the database in one step inside one read transaction:
in WAL mode the bot keeps writing meanwhile, and the copy is the database exactly as it
was at one commit. The copy is checked (``PRAGMA integrity_check``), made a single
self-contained file (rollback journal instead of WAL), and only then moved to DEST, so a
failed backup never leaves a half-written file under the name.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from bot.config import StorageSettings
from bot.storage.sqlite import schema_version_of


class BackupError(Exception):
    """A backup that could not be made; the message says why, in one line."""


@dataclass(frozen=True)
class BackupReport:
    path: Path
    size_bytes: int
    schema_version: int | None
    seconds: float

    def line(self) -> str:
        schema = "none" if self.schema_version is None else str(self.schema_version)
        return (
            f"backup written to {self.path} ({self.size_bytes / 1_000_000:.1f} MB, schema "
            f"version {schema}, integrity ok) in {self.seconds:.2f} s"
        )


def default_destination(database: Path, now: float | None = None) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(time.time() if now is None else now))
    return database.parent / "backups" / f"{database.stem}-{stamp}.db"


def pg_dump_advice() -> str:
    return (
        "DATABASE_URL points at PostgreSQL: back it up with pg_dump, e.g. "
        'pg_dump --format=custom --file=dicebot-$(date +%F).dump "$DATABASE_URL" '
        "(restore with pg_restore)"
    )


def backup(settings: StorageSettings, destination: Path | None = None) -> BackupReport:
    if settings.uses_postgresql():
        raise BackupError(pg_dump_advice())
    source_path = settings.database_path
    if not source_path.is_file():
        raise BackupError(f"no database at {source_path}: nothing to back up (check DATABASE_PATH)")
    target = destination if destination is not None else default_destination(source_path)
    if target.exists():
        raise BackupError(f"{target} already exists: give another name (nothing was written)")
    if target.resolve() == source_path.resolve():
        raise BackupError("the backup cannot overwrite the database itself")
    started = time.perf_counter()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BackupError(f"cannot create {target.parent}: {error.strerror or error}") from None
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        schema_version = _copy(source_path, partial)
        os.replace(partial, target)
    except sqlite3.Error as error:
        raise BackupError(f"the backup of {source_path} failed: {error}") from None
    except OSError as error:
        raise BackupError(f"cannot write {target}: {error.strerror or error}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return BackupReport(
        target, target.stat().st_size, schema_version, time.perf_counter() - started
    )


def _copy(source_path: Path, partial: Path) -> int | None:
    # mode=rw: never create an empty database where the real one was expected. The bot's
    # own busy timeout: if it holds a checkpoint lock, wait rather than fail.
    source = sqlite3.connect(source_path.absolute().as_uri() + "?mode=rw", uri=True, timeout=10)
    try:
        target = sqlite3.connect(partial)
        try:
            source.backup(target)  # pages=-1: the whole file in one step, one snapshot
            target.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal beside it
            problems = [row[0] for row in target.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError("integrity check failed: " + "; ".join(problems))
            schema_version = schema_version_of(target)
            target.commit()
        finally:
            target.close()
    finally:
        source.close()
    with open(partial, "rb") as handle:
        os.fsync(handle.fileno())
    return schema_version
