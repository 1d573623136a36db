"""Copying a SQLite database into an empty PostgreSQL one, table by table, in one
transaction, and comparing their row counts (``python -m bot copy-to-postgres`` reports
what this does: ``bot.service.copy_to_postgres``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import aiosqlite
import asyncpg

from bot.storage.connection import StorageUnavailable
from bot.storage.postgres import PostgresConnection, PostgresDatabase
from bot.storage.sqlite import SQLiteDatabase

# Parents before children (foreign keys); schema_migrations is the target's own.
TABLES = (
    "sessions",
    "session_players",
    "events",
    "deadlines",
    "results",
    "result_players",
    "ratings",
    "player_picks",
    "season_current",
    "seasons",
    "season_ratings",
    "season_requests",
    "guild_settings",
    "private_messages",
    "busy_players",
    "identify_slots",
    "user_languages",
    "tournaments",
    "tournament_players",
    "tournament_matches",
    "tournament_games",
    "interaction_tokens",
)
# Tables whose ids PostgreSQL hands out: their counters continue after the copied ids.
IDENTITY_TABLES = (
    "sessions",
    "events",
    "deadlines",
    "results",
    "season_requests",
    "tournaments",
)
CHUNK_ROWS = 5_000


class CopyRefused(Exception):
    """Nothing was copied; the message says why, in one line."""


@dataclass(frozen=True)
class CopyReport:
    counts: dict[str, tuple[int, int]]  # table: (source rows, target rows)

    @property
    def matches(self) -> bool:
        return all(source == target for source, target in self.counts.values())

    def lines(self) -> list[str]:
        width = max(len(table) for table in self.counts)
        rows = [
            f"  {table:<{width}}  {source:>9}  {target:>10}  "
            + ("ok" if source == target else "DIFFERS")
            for table, (source, target) in self.counts.items()
        ]
        return [f"  {'table':<{width}}  {'SQLite':>9}  {'PostgreSQL':>10}", *rows]


async def copy_database(sqlite_path: Path, url: str) -> CopyReport:
    """Copy everything from the SQLite file into the empty PostgreSQL database."""
    if not await asyncio.to_thread(sqlite_path.is_file):
        raise CopyRefused(f"no SQLite database at {sqlite_path}")
    source = SQLiteDatabase(sqlite_path)
    target = PostgresDatabase(url, pool_size=2)
    try:
        await source.open()
        # The bot brings a file up to date the same way when it starts.
        await source.migrate()
        await target.open()
        await target.migrate()
        await _refuse_if_not_empty(target)
        async with source.read() as reading, target.transaction() as writing:
            assert isinstance(writing, PostgresConnection)
            for table in TABLES:
                await _copy_table(reading.raw, writing, table)  # type: ignore[attr-defined]
            for table in IDENTITY_TABLES:
                await writing.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                    f" COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
                )
        counts = {}
        for table in TABLES:
            copied = await source.fetch_one(f"SELECT COUNT(*) FROM {table}")
            stored = await target.fetch_one(f"SELECT COUNT(*) FROM {table}")
            assert copied is not None and stored is not None
            counts[table] = (int(copied[0]), int(stored[0]))
        return CopyReport(counts)
    except StorageUnavailable as error:
        raise CopyRefused(str(error)) from error
    except asyncpg.PostgresError as error:
        raise CopyRefused(f"copying failed ({error}); nothing was copied") from error
    finally:
        await source.close()
        await target.close()


async def _refuse_if_not_empty(target: PostgresDatabase) -> None:
    for table in TABLES:
        row = await target.fetch_one(f"SELECT COUNT(*) FROM {table}")
        if row is not None and row[0]:
            raise CopyRefused(
                f"the target {target.describe()} is not empty ({row[0]} rows in {table}): "
                "copy into a new, empty database; nothing was copied"
            )


async def _copy_table(source: object, target: PostgresConnection, table: str) -> None:
    assert isinstance(source, aiosqlite.Connection)
    async with source.execute(f"SELECT * FROM {table}") as cursor:
        columns = [description[0] for description in cursor.description]
        wanted = await _target_columns(target, table)
        missing = [column for column in columns if column not in wanted]
        if missing:
            raise CopyRefused(f"the target's {table} has no column {missing[0]}")
        while rows := await cursor.fetchmany(CHUNK_ROWS):
            records = [
                tuple(_value(value, wanted[name]) for name, value in zip(columns, row, strict=True))
                for row in rows
            ]
            await target.raw.copy_records_to_table(table, records=records, columns=columns)


async def _target_columns(target: PostgresConnection, table: str) -> dict[str, str]:
    rows = await target.fetch_all(
        "SELECT column_name, data_type FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = ?",
        (table,),
    )
    return {row["column_name"]: row["data_type"] for row in rows}


def _value(value: object, data_type: str) -> object:
    # SQLite keeps 3.0 in a REAL column as the integer 3; PostgreSQL wants a float there.
    if data_type == "double precision" and isinstance(value, int):
        return float(value)
    return value
