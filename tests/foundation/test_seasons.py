"""Seasons in the database, on both backends: closing one game's season keeps its final
standings frozen while the next ranks from zero, lifetime records stay, the AI is never
ranked, a result and a close racing each other never change a closed season, and
migration 7 turns the ladders so far into season 1."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

import pytest
from foundation_support import OpenAnother

from bot.ladder.results import RATING_MODEL, record_result
from bot.ladder.seasons import (
    SeasonChanged,
    clean_name,
    close_season,
    closed_seasons,
    current_season,
    find_season,
)
from bot.ladder.standings import LeaderboardPage, leaderboard_page, player_stats
from bot.model.contract import Seat, Session
from bot.model.errors import UserError
from bot.storage import Connection, Database
from bot.storage.copying import TABLES
from game_core.base import GameResult

GUILD = 5_000
OTHER_GUILD = 6_000
ADMIN = 77
AI = 999
START = 1_700_000_000.0


async def finish(
    conn: Connection,
    game: str,
    users: Sequence[int],
    ranks: Sequence[int],
    *,
    now: float,
    guild_id: int = GUILD,
    ai: Sequence[int] = (),
) -> int:
    """Record one finished game (the session service's own call) in ``conn``."""
    session_id = await conn.fetch_value(
        "INSERT INTO sessions (game, guild_id, channel_id, status, state, version, seed,"
        " created_by, created_at, updated_at) VALUES (?, ?, 1, 'finished', '{}', 1, 0, ?, ?, ?)"
        " RETURNING id",
        (game, guild_id, users[0], now, now),
    )
    seats = tuple(
        Seat(seat=i, user_id=user, display_name=f"p{user}", is_ai=user in ai)
        for i, user in enumerate(users)
    )
    session = Session(
        id=session_id,
        game=game,
        guild_id=guild_id,
        channel_id=1,
        message_id=None,
        status="finished",
        state={},
        version=1,
        seed=0,
        created_by=users[0],
        created_at=now,
        updated_at=now,
        seats=seats,
    )
    result = GameResult(
        ranks=list(ranks),
        winners=[i for i, rank in enumerate(ranks) if rank == 1],
        draw=False,
        reason="normal",
    )
    return await record_result(
        conn, session=session, seats=seats, result=result, summary={}, now=now
    )


async def play(db: Database, game: str, winner: int, loser: int, **options: object) -> int:
    async with db.transaction() as conn:
        return await finish(conn, game, [winner, loser], [1, 2], now=START, **options)  # type: ignore[arg-type]


async def close(db: Database, game: str, expected: int, *, name: str = "", at: float = START):
    async with db.transaction() as conn:
        return await close_season(
            conn,
            guild_id=GUILD,
            game=game,
            expected=expected,
            name=name,
            closed_by=ADMIN,
            provisional_games=1,
            now=at,
        )


def standings(board: LeaderboardPage) -> list[tuple[int, int, float, int, int]]:
    return [
        (r.rank, r.standing.user_id, r.standing.ordinal, r.standing.wins, r.standing.games)
        for r in board.rows
    ]


async def test_closing_keeps_final_standings_frozen_and_the_next_season_ranks_from_zero(
    db: Database,
) -> None:
    for _ in range(3):
        await play(db, "knucklebones", 1, 2)
    await play(db, "knucklebones", 2, 3)
    await play(db, "diceman", 1, 2)
    await play(db, "knucklebones", 1, 2, guild_id=OTHER_GUILD)
    before = await leaderboard_page(db, GUILD, "knucklebones", provisional_games=1)
    assert before.season.number == 1 and before.ranked_total == 3

    done = await close(db, "knucklebones", 1, name="Spring 🌸", at=START + 100)
    assert (done.closed.number, done.started.number, done.players) == (1, 2, 3)
    assert done.started.name == "Spring 🌸" and done.closed.closed

    # The new season ranks from zero; the old one reads back exactly as it was.
    fresh = await leaderboard_page(db, GUILD, "knucklebones", provisional_games=1)
    assert fresh.season.number == 2 and fresh.season.label == "Season 2 · Spring 🌸"
    assert fresh.empty and fresh.rows == []
    season_one = await find_season(db, GUILD, "knucklebones", 1)
    assert season_one is not None and season_one.ended_at == START + 100
    final = await leaderboard_page(db, GUILD, "knucklebones", season=season_one)
    assert standings(final) == standings(before)

    # A game after the close: the new season moves, from a fresh rating; the old does not.
    await play(db, "knucklebones", 2, 1)
    assert standings(await leaderboard_page(db, GUILD, "knucklebones", season=season_one)) == (
        standings(before)
    )
    now = await leaderboard_page(db, GUILD, "knucklebones", provisional_games=1)
    [[winner], _] = RATING_MODEL.rate([[RATING_MODEL.rating()], [RATING_MODEL.rating()]])
    assert [(r.standing.user_id, r.standing.games) for r in now.rows] == [(2, 1), (1, 1)]
    assert now.rows[0].standing.mu == pytest.approx(winner.mu)

    # Lifetime records, other games and other servers are untouched.
    stats = await player_stats(db, GUILD, 1, provisional_games=1)
    knucklebones = next(g for g in stats.games if g.game == "knucklebones")
    assert (knucklebones.standing.wins, knucklebones.standing.losses) == (3, 1)
    assert knucklebones.season.number == 2 and knucklebones.this_season is not None
    assert (knucklebones.this_season.wins, knucklebones.this_season.losses) == (0, 1)
    assert knucklebones.rank == 2 and knucklebones.ranked_total == 2
    diceman = next(g for g in stats.games if g.game == "diceman")
    assert diceman.season.number == 1 and diceman.rank == 1
    assert (await current_season(db, OTHER_GUILD, "knucklebones")).number == 1
    # Each ranked result remembers the season it counted in.
    rows = await db.fetch_all(
        "SELECT season FROM results WHERE guild_id = ? AND game = ? ORDER BY id",
        (GUILD, "knucklebones"),
    )
    assert [row["season"] for row in rows] == [1, 1, 1, 1, 2]


async def test_a_closed_season_keeps_the_threshold_it_closed_under(db: Database) -> None:
    await play(db, "knucklebones", 1, 2)
    async with db.transaction() as conn:
        await close_season(
            conn,
            guild_id=GUILD,
            game="knucklebones",
            expected=1,
            name="",
            closed_by=ADMIN,
            provisional_games=3,
            now=START,
        )
    season_one = await find_season(db, GUILD, "knucklebones", 1)
    assert season_one is not None and season_one.provisional_games == 3
    # The server lowers its threshold later: season 1 still ranks nobody with one game.
    final = await leaderboard_page(
        db, GUILD, "knucklebones", season=season_one, provisional_games=0
    )
    assert final.ranked_total == 0 and final.provisional_total == 2


async def test_games_against_the_ai_are_never_ranked(db: Database) -> None:
    async with db.transaction() as conn:
        await finish(conn, "knucklebones", [1, AI], [1, 2], now=START, ai=[AI])
    board = await leaderboard_page(db, GUILD, "knucklebones", provisional_games=0)
    assert board.empty
    assert await db.fetch_all("SELECT * FROM season_ratings") == []
    row = await db.fetch_one("SELECT vs_ai, season FROM results")
    assert row is not None and (row["vs_ai"], row["season"]) == (1, None)
    # Nor did it take the season's lock row: no season was started by it.
    assert await db.fetch_all("SELECT * FROM season_current") == []


async def test_closing_a_season_someone_else_closed_changes_nothing(db: Database) -> None:
    await play(db, "diceman", 1, 2)
    await close(db, "diceman", 1)
    with pytest.raises(SeasonChanged, match="season 1 was closed meanwhile"):
        await close(db, "diceman", 1, name="late")
    assert [s.number for s in await closed_seasons(db, GUILD, "diceman")] == [1]
    current = await current_season(db, GUILD, "diceman")
    assert (current.number, current.name) == (2, "")


async def test_a_result_racing_a_close_lands_before_or_after_it_never_in_a_closed_season(
    db: Database, open_another: OpenAnother
) -> None:
    """The game's transaction holds the season's row until it commits; the close, from
    another process, waits for it and then counts it in the season it closes."""
    other = await open_another()
    await play(db, "knucklebones", 1, 2)
    recorded = asyncio.Event()
    release = asyncio.Event()

    async def game_ends() -> None:
        async with db.transaction() as conn:
            await finish(conn, "knucklebones", [3, 4], [1, 2], now=START)
            recorded.set()
            await release.wait()

    game = asyncio.create_task(game_ends())
    await recorded.wait()
    closing = asyncio.create_task(close(other, "knucklebones", 1))
    await asyncio.sleep(0.3)
    assert not closing.done(), "the close must wait for the game's transaction"
    release.set()
    await game
    done = await closing
    assert done.players == 4
    # Season 1 holds both games, season 2 none; a game now goes to season 2 only.
    await play(db, "knucklebones", 5, 6)
    season_one = await find_season(db, GUILD, "knucklebones", 1)
    assert season_one is not None
    final = await leaderboard_page(db, GUILD, "knucklebones", season=season_one)
    assert sorted(r.standing.user_id for r in final.rows) == [1, 2, 3, 4]
    now = await leaderboard_page(db, GUILD, "knucklebones", provisional_games=1)
    assert sorted(r.standing.user_id for r in now.rows) == [5, 6]


def test_season_names_are_one_clean_line() -> None:
    assert clean_name(None) == ""
    assert clean_name("  Spring\n\tCup  🌸 ") == "Spring Cup 🌸"
    assert clean_name("الربيع") == "الربيع"
    with pytest.raises(UserError, match="visible"):
        clean_name(" \u200e\n ")
    with pytest.raises(UserError, match="at most 40"):
        clean_name("x" * 41)


async def test_migration_7_makes_the_ladders_so_far_season_one(open_another: OpenAnother) -> None:
    old = await open_another()
    assert await old.migrate(upto=6) == [1, 2, 3, 4, 5, 6]
    async with old.transaction() as conn:
        for session_id, game, vs_ai, at in ((1, "diceman", 0, 50.0), (2, "diceman", 1, 40.0)):
            await conn.execute(
                "INSERT INTO sessions (id, game, guild_id, channel_id, status, state, version,"
                " seed, created_by, created_at, updated_at)"
                " VALUES (?, ?, 1, 1, 'finished', '{}', 1, 0, 42, 0, 0)",
                (session_id, game),
            )
            await conn.execute(
                "INSERT INTO results (session_id, game, guild_id, channel_id, reason, draw,"
                " vs_ai, summary, finished_at) VALUES (?, ?, 1, 1, 'normal', 0, ?, '{}', ?)",
                (session_id, game, vs_ai, at),
            )
        await conn.execute(
            "INSERT INTO ratings (guild_id, game, user_id, mu, sigma, ordinal, wins, games,"
            " streak, best_streak, ai_wins, updated_at)"
            " VALUES (1, 'diceman', 42, 30.0, 5.0, 15.0, 4, 6, 2, 3, 1, 60.0),"
            " (1, 'diceman', 43, 25.0, 8.0, 1.0, 0, 0, 0, 0, 2, 60.0)"
        )
    await old.close()
    new = await open_another()
    assert (await new.migrate())[0] == 7
    current = await current_season(new, 1, "diceman")
    assert (current.number, current.started_at) == (1, 50.0)
    board = await leaderboard_page(new, 1, "diceman", provisional_games=1)
    # Only the player with games against players is on the ladder, as before.
    assert [
        (r.standing.user_id, r.standing.ordinal, r.standing.wins, r.standing.best_streak)
        for r in board.rows
    ] == [(42, 15.0, 4, 3)]
    assert replace(current, name="x").label == "Season 1 · x"


async def test_copy_to_postgres_copies_every_table_the_migrations_make(db: Database) -> None:
    """A table missing from ``bot.storage.copying.TABLES`` would be left behind silently."""
    if db.dialect == "sqlite":
        rows = await db.fetch_all("SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        rows = await db.fetch_all(
            "SELECT table_name AS name FROM information_schema.tables"
            " WHERE table_schema = current_schema()"
        )
    tables = {row["name"] for row in rows} - {"schema_migrations", "sqlite_sequence"}
    assert tables == set(TABLES)
