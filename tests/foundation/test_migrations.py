"""Schema migrations on both backends: from empty, re-run, concurrent, tracked; and the
upgrades of data that earlier releases left (SQLite files, and the same on PostgreSQL)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path

import pytest
from backends import backend_url, database_at
from foundation_support import OpenAnother

from bot.storage import SQLiteDatabase
from bot.storage.migrations import MIGRATIONS, PerDialect

ALL_VERSIONS = [version for version, _ in MIGRATIONS]


async def test_versions_are_strictly_increasing_from_one() -> None:
    assert list(range(1, len(MIGRATIONS) + 1)) == ALL_VERSIONS


DIALECT_WORDS = (
    "PRAGMA",
    "WITHOUT ROWID",
    "AUTOINCREMENT",
    "BIGINT",
    "DOUBLE PRECISION",
    "IDENTITY",
    "SERIAL",
    " REAL",
    "JSONB",
)


async def test_steps_are_portable_unless_they_must_differ() -> None:
    for migration in MIGRATIONS:
        for step in migration.steps:
            if isinstance(step, PerDialect):
                # A pair that says the same twice should be one portable step.
                assert step.sqlite != step.postgresql, migration.version
            else:
                # A portable step uses no type or clause only one database knows.
                assert not [word for word in DIALECT_WORDS if word in step.upper()], step


async def test_migrating_an_empty_database_applies_every_migration_once(
    open_another: OpenAnother,
) -> None:
    db = await open_another()
    assert await db.migrate() == ALL_VERSIONS
    rows = await db.fetch_all("SELECT version, applied_at FROM schema_migrations")
    assert [row["version"] for row in rows] == ALL_VERSIONS
    assert all(row["applied_at"] > 0 for row in rows)
    names = {name for name, _ in await db.schema()}
    for table in (
        "sessions",
        "session_players",
        "events",
        "deadlines",
        "results",
        "result_players",
        "ratings",
        "guild_settings",
        "schema_migrations",
        "identify_slots",
    ):
        assert table in names


async def test_rerunning_applies_nothing_and_keeps_the_schema(open_another: OpenAnother) -> None:
    db = await open_another()
    await db.migrate()
    first = await db.schema()
    tracked = await db.fetch_all("SELECT version, applied_at FROM schema_migrations")
    assert await db.migrate() == []
    assert await db.schema() == first

    # A fresh process on the same database: nothing to do, same schema and history.
    reopened = await open_another()
    assert await reopened.migrate() == []
    assert await reopened.schema() == first
    again = await reopened.fetch_all("SELECT version, applied_at FROM schema_migrations")
    assert [tuple(r) for r in again] == [tuple(r) for r in tracked]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_two_databases_migrated_from_empty_have_identical_schemas(
    tmp_path: Path, backend: str
) -> None:
    schemas = []
    for name in ("one", "two"):
        async with backend_url(backend, tmp_path) as url:
            db = database_at(url, tmp_path / f"{name}.db")
            await db.open()
            await db.migrate()
            schemas.append(await db.schema())
            await db.close()
    assert schemas[0] == schemas[1]


async def test_two_connections_migrating_at_once_apply_each_version_once(
    open_another: OpenAnother,
) -> None:
    first, second = await open_another(), await open_another()
    applied = await asyncio.gather(first.migrate(), second.migrate())
    assert sorted(applied, key=len) == [[], ALL_VERSIONS]
    assert await first.schema() == await second.schema()


async def test_database_is_in_wal_mode_with_foreign_keys(db_path: Path) -> None:
    db = SQLiteDatabase(db_path)
    await db.open()
    try:
        await db.migrate()
        mode = await db.fetch_one("PRAGMA journal_mode")
        keys = await db.fetch_one("PRAGMA foreign_keys")
        assert mode is not None and mode[0] == "wal"
        assert keys is not None and keys[0] == 1
    finally:
        await db.close()
    # WAL is a property of the file: a plain connection sees it too.
    with contextlib.closing(sqlite3.connect(db_path)) as plain:
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_migration_3_keeps_the_seats_of_open_games(open_another: OpenAnother) -> None:
    old = await open_another()
    assert await old.migrate(upto=2) == [1, 2]
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO sessions (id, game, guild_id, channel_id, status, state, version, seed,"
            " created_by, created_at, updated_at)"
            " VALUES (7, 'weighted_dice', 1, 2, 'active', '{}', 3, 0, 10, 0, 0)"
        )
        await conn.execute(
            "INSERT INTO session_players (session_id, seat, user_id, display_name, is_ai)"
            " VALUES (7, 0, 10, 'Ann', 0), (7, 1, 11, 'Ben', 0)"
        )
    await old.close()

    new = await open_another()
    assert await new.migrate(upto=3) == [3]
    rows = await new.fetch_all(
        "SELECT user_id, has_left FROM session_players WHERE session_id = 7 ORDER BY seat"
    )
    assert [(row["user_id"], row["has_left"]) for row in rows] == [(10, 0), (11, 0)]


async def test_migration_4_takes_old_messages_as_shown_and_marks_players_busy(
    open_another: OpenAnother,
) -> None:
    """Rows from before migration 4 count as shown (no burst of edits at upgrade), and the
    players of open games become busy in their channel, even when an old bug seated one
    player at two open tables there (the first keeps them; the upgrade does not fail)."""
    old = await open_another()
    assert await old.migrate(upto=3) == [1, 2, 3]
    async with old.transaction() as conn:
        for session_id, status in ((7, "active"), (8, "pending"), (9, "finished")):
            await conn.execute(
                "INSERT INTO sessions (id, game, guild_id, channel_id, status, state, version,"
                " seed, created_by, created_at, updated_at)"
                " VALUES (?, 'weighted_dice', 1, 2, ?, '{}', 5, 0, 10, 0, 0)",
                (session_id, status),
            )
            await conn.execute(
                "INSERT INTO session_players (session_id, seat, user_id, display_name, is_ai,"
                " has_left) VALUES (?, 0, 10, 'Ann', 0, 0), (?, 1, 11, 'Ben', 0, ?)",
                (session_id, session_id, int(session_id == 8)),
            )
    await old.close()

    new = await open_another()
    assert await new.migrate(upto=4) == [4]
    shown = await new.fetch_all("SELECT id, shown_version FROM sessions ORDER BY id")
    assert [(row["id"], row["shown_version"]) for row in shown] == [(7, 5), (8, 5), (9, 5)]
    busy = await new.fetch_all(
        "SELECT channel_id, user_id, session_id FROM busy_players ORDER BY user_id"
    )
    assert [tuple(row) for row in busy] == [(2, 10, 7), (2, 11, 7)]


async def test_migration_6_names_each_rated_player_as_in_their_latest_game(
    open_another: OpenAnother,
) -> None:
    """Leaderboards show stored names: migration 6 fills each rating with the name its
    player had in their latest game of that kind on that server (not another server's, not
    another game's), and '' for a rating with no recorded game."""
    old = await open_another()
    assert await old.migrate(upto=5) == [1, 2, 3, 4, 5]
    games = (
        # session, guild, game, result id, (user 10's name, user 11's name)
        (1, 1, "knucklebones", 1, ("Ann", "Ben")),
        (2, 1, "knucklebones", 2, ("Annie", "Ben")),
        (3, 1, "diceman", 3, ("Ann D", "Benjamin")),
        (4, 2, "knucklebones", 4, ("Ann elsewhere", "B")),
    )
    async with old.transaction() as conn:
        for session_id, guild_id, game, result_id, names in games:
            await conn.execute(
                "INSERT INTO sessions (id, game, guild_id, channel_id, status, state, version,"
                " seed, created_by, created_at, updated_at)"
                " VALUES (?, ?, ?, 5, 'finished', '{}', 3, 0, 10, 0, 0)",
                (session_id, game, guild_id),
            )
            await conn.execute(
                "INSERT INTO results (id, session_id, game, guild_id, channel_id, reason, draw,"
                " vs_ai, summary, finished_at) VALUES (?, ?, ?, ?, 5, 'normal', 0, 0, '{}', ?)",
                (result_id, session_id, game, guild_id, result_id),
            )
            for seat, (user_id, name) in enumerate(zip((10, 11), names, strict=True)):
                await conn.execute(
                    "INSERT INTO session_players (session_id, seat, user_id, display_name)"
                    " VALUES (?, ?, ?, ?)",
                    (session_id, seat, user_id, name),
                )
                await conn.execute(
                    "INSERT INTO result_players (result_id, seat, user_id, outcome, place)"
                    " VALUES (?, ?, ?, 'win', 1)",
                    (result_id, seat, user_id),
                )
        for guild_id, game, user_id in (
            (1, "knucklebones", 10),
            (1, "knucklebones", 11),
            (1, "diceman", 10),
            (2, "knucklebones", 10),
            (1, "weighted_dice", 10),
        ):
            await conn.execute(
                "INSERT INTO ratings (guild_id, game, user_id, mu, sigma, ordinal, updated_at)"
                " VALUES (?, ?, ?, 25, 8, 1, 0)",
                (guild_id, game, user_id),
            )
    await old.close()

    new = await open_another()
    assert await new.migrate(upto=6) == [6]
    rows = await new.fetch_all(
        "SELECT guild_id, game, user_id, display_name FROM ratings ORDER BY guild_id, game, user_id"
    )
    assert [tuple(row) for row in rows] == [
        (1, "diceman", 10, "Ann D"),
        (1, "knucklebones", 10, "Annie"),
        (1, "knucklebones", 11, "Ben"),
        (1, "weighted_dice", 10, ""),
        (2, "knucklebones", 10, "Ann elsewhere"),
    ]


async def test_migration_9_keeps_every_timer_and_never_reuses_a_timer_id(
    open_another: OpenAnother,
) -> None:
    """Timers from before migration 9 keep their ids, claims and times; afterwards an id
    freed by a deleted timer (the highest, which SQLite used to hand out again) is never
    given to a new one."""
    old = await open_another()
    assert await old.migrate(upto=8) == list(range(1, 9))
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO sessions (id, game, guild_id, channel_id, status, state, version,"
            " seed, created_by, created_at, updated_at)"
            " VALUES (7, 'knucklebones', 1, 2, 'active', '{}', 5, 0, 10, 0, 0)"
        )
        await conn.execute(
            "INSERT INTO deadlines (session_id, kind, due_at, action, claimed_by,"
            " claimed_until) VALUES (7, 'warn', 10.5, '{}', NULL, NULL),"
            " (7, 'turn', 20.5, '{}', 'host-1', 30.0)"
        )
        before = await conn.fetch_all("SELECT id FROM deadlines ORDER BY id")
    first, last = (row["id"] for row in before)
    await old.close()

    new = await open_another()
    assert await new.migrate(upto=9) == [9]
    rows = await new.fetch_all(
        "SELECT id, kind, due_at, claimed_by, claimed_until FROM deadlines ORDER BY id"
    )
    assert [tuple(row) for row in rows] == [
        (first, "warn", 10.5, None, None),
        (last, "turn", 20.5, "host-1", 30.0),
    ]
    await new.write("DELETE FROM deadlines WHERE id = ?", (last,))
    [row] = await new.write_returning(
        "INSERT INTO deadlines (session_id, kind, due_at, action)"
        " VALUES (7, 'turn', 50.0, '{}') RETURNING id"
    )
    assert row["id"] > last


async def test_migration_12_takes_the_messages_of_earlier_events_as_shown(
    open_another: OpenAnother,
) -> None:
    """Events from before migration 12 count as shown at their version (no burst of edits
    at upgrade: a process's start shows the open ones anyway); a new event shows none yet."""
    old = await open_another()
    assert await old.migrate(upto=11) == list(range(1, 12))
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO tournaments (id, guild_id, channel_id, message_id, host_id, game,"
            " name, format, best_of, max_players, status, seed, version, created_at,"
            " updated_at) VALUES (3, 1, 2, 9, 10, 'knucklebones', 'Cup',"
            " 'single_elimination', 1, 8, 'running', 0, 4, 0, 0)"
        )
    await old.close()

    new = await open_another()
    assert await new.migrate(upto=12) == [12]
    async with new.transaction() as conn:
        await conn.execute(
            "INSERT INTO tournaments (id, guild_id, channel_id, host_id, game, name, format,"
            " best_of, max_players, status, seed, created_at, updated_at)"
            " VALUES (4, 1, 2, 10, 'diceman', 'Next', 'swiss', 1, 8, 'signup', 0, 0, 0)"
        )
    rows = await new.fetch_all(
        "SELECT id, version, shown_version, show_fence, show_owner, show_until"
        " FROM tournaments ORDER BY id"
    )
    assert [tuple(row) for row in rows] == [(3, 4, 4, 4, None, None), (4, 0, -1, -1, None, None)]
