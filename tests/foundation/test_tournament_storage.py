"""Tournament rows (migration 11) on both backends: an event's versioned row, its sign-ups,
its pairings and which sessions are their games, the start times due, a server's list and
a player's record."""

from __future__ import annotations

from dataclasses import replace

from foundation_support import OpenAnother

from bot.storage import Database
from bot.storage.tournaments import (
    NewTournament,
    add_player,
    drop_player,
    due_to_start,
    game_link,
    guild_tournaments,
    insert_match,
    insert_tournament,
    link_game,
    load_match,
    load_tournament,
    mark_removed,
    matches_of,
    next_start,
    open_ids,
    players_of,
    read_tournament,
    running_ids,
    save_match,
    save_tournament,
    store_message,
    store_places,
    store_seeds,
    store_thread,
    tournament_record,
)

GUILD = 7_000
CHANNEL = 70
NOW = 1_700_000_000.0
BIG = 1_234_567_890_123_456_789  # a Discord id: more than 32 bits


def new_event(**changes: object) -> NewTournament:
    values: dict[str, object] = {
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "host_id": BIG,
        "game": "knucklebones",
        "name": "Friday cup",
        "format": "single_elimination",
        "best_of": 3,
        "max_players": 16,
        "swiss_rounds": None,
        "starts_at": NOW + 600,
        "seed": 2**61,
        "language": "fr",
    }
    values.update(changes)
    return NewTournament(**values)  # type: ignore[arg-type]


async def session_row(db: Database, user: int) -> int:
    async with db.transaction() as conn:
        session_id = await conn.fetch_value(
            "INSERT INTO sessions (game, guild_id, channel_id, status, state, version, seed,"
            " created_by, created_at, updated_at) VALUES ('knucklebones', ?, ?, 'pending',"
            " '{}', 0, 0, ?, ?, ?) RETURNING id",
            (GUILD, CHANNEL, user, NOW, NOW),
        )
    assert isinstance(session_id, int)
    return session_id


async def test_an_event_is_stored_and_saved_version_by_version(db: Database) -> None:
    async with db.transaction() as conn:
        tournament_id = await insert_tournament(conn, new_event(), now=NOW)
    stored = await read_tournament(db, tournament_id)
    assert stored is not None
    assert (stored.host_id, stored.seed, stored.language, stored.status, stored.version) == (
        BIG,
        2**61,
        "fr",
        "signup",
        0,
    )
    assert stored.state is None and stored.games_channel_id == CHANNEL and stored.is_open
    async with db.transaction() as conn:
        await store_thread(conn, tournament_id, BIG + 1)
        assert await save_tournament(conn, stored, now=NOW + 1, status="running", state='{"r":1}')
        # A second save from the same (now stale) read changes nothing.
        assert not await save_tournament(conn, stored, now=NOW + 2, status="cancelled")
    await store_message(db, tournament_id, BIG + 2)
    running = await read_tournament(db, tournament_id)
    assert running is not None
    assert (running.status, running.state, running.version, running.finished_at) == (
        "running",
        '{"r":1}',
        1,
        None,
    )
    assert (running.games_channel_id, running.message_id) == (BIG + 1, BIG + 2)
    async with db.transaction() as conn:
        locked = await load_tournament(conn, tournament_id, lock=True)
        assert locked is not None
        assert await save_tournament(conn, locked, now=NOW + 3, status="finished", winner_id=BIG)
    done = await read_tournament(db, tournament_id)
    assert done is not None
    assert (done.status, done.winner_id, done.finished_at, done.state, done.is_open) == (
        "finished",
        BIG,
        NOW + 3,
        '{"r":1}',
        False,
    )
    assert await read_tournament(db, tournament_id + 1) is None


async def test_sign_ups_seeds_removals_and_places(db: Database) -> None:
    async with db.transaction() as conn:
        tournament_id = await insert_tournament(conn, new_event(), now=NOW)
        assert await add_player(conn, tournament_id, BIG, "Ana", now=NOW + 2)
        assert await add_player(conn, tournament_id, 5, "Бо", now=NOW + 1)
        assert not await add_player(conn, tournament_id, 5, "Бо again", now=NOW + 3)
        assert await add_player(conn, tournament_id, 6, "陈", now=NOW + 3)
        assert await drop_player(conn, tournament_id, 6)
        assert not await drop_player(conn, tournament_id, 6)
    async with db.transaction() as conn:
        players = await players_of(conn, tournament_id)
        assert [(p.user_id, p.display_name) for p in players] == [(5, "Бо"), (BIG, "Ana")]
        await store_seeds(conn, tournament_id, [(BIG, 1, 1712.5), (5, 2, None)])
        await mark_removed(conn, tournament_id, 5)
        await store_places(conn, tournament_id, [(BIG, 1), (5, 2)])
        players = await players_of(conn, tournament_id)
    assert [(p.user_id, p.seed, p.rating, p.removed, p.place) for p in players] == [
        (5, 2, None, True, 2),
        (BIG, 1, 1712.5, False, 1),
    ]


async def test_pairings_and_their_games(db: Database) -> None:
    async with db.transaction() as conn:
        tournament_id = await insert_tournament(conn, new_event(), now=NOW)
        await insert_match(conn, tournament_id, 1, 1, BIG, 5)
        await insert_match(conn, tournament_id, 1, 2, 6, 7)
        # Starting a round twice (two processes) makes its pairings once.
        await insert_match(conn, tournament_id, 1, 1, 8, 9)
        await insert_match(conn, tournament_id, 2, 1, BIG, 6)
    session_id = await session_row(db, BIG)
    async with db.transaction() as conn:
        match = await load_match(conn, tournament_id, 1, 1, lock=True)
        assert match is not None and not match.decided
        assert (match.first_id, match.second_id, match.games, match.open_session) == (
            BIG,
            5,
            0,
            None,
        )
        await link_game(conn, session_id, match)
        await save_match(conn, replace(match, games=1, first_wins=1, open_session=session_id))
        link = await game_link(conn, session_id)
        assert link is not None
        assert (link.tournament_id, link.round, link.table_no) == (tournament_id, 1, 1)
        assert await game_link(conn, session_id + 1) is None
        first_round = await matches_of(conn, tournament_id, 1)
        everything = await matches_of(conn, tournament_id)
    assert [(m.table_no, m.first_id, m.first_wins, m.open_session) for m in first_round] == [
        (1, BIG, 1, session_id),
        (2, 6, 0, None),
    ]
    assert [(m.round, m.table_no) for m in everything] == [(1, 1), (1, 2), (2, 1)]


async def test_start_times_running_events_a_servers_list_and_a_record(db: Database) -> None:
    async with db.transaction() as conn:
        later = await insert_tournament(conn, new_event(starts_at=NOW + 900), now=NOW)
        sooner = await insert_tournament(conn, new_event(starts_at=NOW + 300), now=NOW)
        by_hand = await insert_tournament(conn, new_event(starts_at=None), now=NOW)
        elsewhere = await insert_tournament(conn, new_event(guild_id=GUILD + 1), now=NOW)
        for tournament_id in (later, sooner, by_hand, elsewhere):
            await add_player(conn, tournament_id, 5, "Bo", now=NOW)
    assert await next_start(db) == NOW + 300
    assert await due_to_start(db, NOW + 299) == []
    assert await due_to_start(db, NOW + 900) == [sooner, elsewhere, later]
    async with db.transaction() as conn:
        row = await load_tournament(conn, sooner)
        assert row is not None
        assert await save_tournament(conn, row, now=NOW + 300, status="running")
        row = await load_tournament(conn, later)
        assert row is not None
        assert await save_tournament(conn, row, now=NOW + 300, status="finished", winner_id=5)
    assert await running_ids(db) == [sooner]
    assert await open_ids(db) == [sooner, by_hand, elsewhere]
    assert await due_to_start(db, NOW + 10_000) == [elsewhere]
    listed = await guild_tournaments(db, GUILD, limit=10)
    # The open ones first (newest first), then the past ones.
    assert [row.id for row in listed] == [by_hand, sooner, later]
    assert [row.id for row in await guild_tournaments(db, GUILD, limit=1)] == [by_hand]
    # Played: events that started (running or finished); won: finished as the winner.
    assert await tournament_record(db, GUILD, 5) == (2, 1)
    assert await tournament_record(db, GUILD, 6) == (0, 0)
    assert await tournament_record(db, GUILD + 1, 5) == (0, 0)


async def test_another_process_sees_the_same_event(db: Database, open_another: OpenAnother) -> None:
    async with db.transaction() as conn:
        tournament_id = await insert_tournament(conn, new_event(), now=NOW)
    other = await open_another()
    seen = await read_tournament(other, tournament_id)
    assert seen is not None and seen.name == "Friday cup"
