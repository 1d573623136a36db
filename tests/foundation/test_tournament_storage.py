"""Tournament rows (migrations 11 and 12) on both backends: an event's versioned row, its
sign-ups, its pairings and which sessions are their games, the start times due, a server's
list, a player's record, and which version its message shows (claims on editing it, and the
events whose message is behind)."""

from __future__ import annotations

from dataclasses import replace

from foundation_support import OpenAnother

from bot.storage import Database
from bot.storage.publication import ShowClaim
from bot.storage.tournaments import (
    NewTournament,
    add_player,
    claim_event_show,
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
    record_event_shown,
    running_ids,
    save_match,
    save_tournament,
    store_message,
    store_message_shown,
    store_places,
    store_seeds,
    store_thread,
    tournament_record,
    unshown_events,
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


async def shown(db: Database, tournament_id: int) -> tuple[int, int, str | None]:
    row = await db.fetch_one(
        "SELECT shown_version, show_fence, show_owner FROM tournaments WHERE id = ?",
        (tournament_id,),
    )
    assert row is not None
    return row["shown_version"], row["show_fence"], row["show_owner"]


async def save(db: Database, tournament_id: int, *, now: float, **changes: object) -> None:
    async with db.transaction() as conn:
        row = await load_tournament(conn, tournament_id, lock=True)
        assert row is not None
        assert await save_tournament(conn, row, now=now, **changes)  # type: ignore[arg-type]


async def test_an_events_message_shows_versions_only_upwards_one_process_at_a_time(
    db: Database, open_another: OpenAnother
) -> None:
    """Two processes: one claims the message to show a version, the other waits (BUSY)
    until it is recorded; an older version is never claimed after a newer one; the shown
    version never goes down; a dead process's claim runs out with its lease."""
    other = await open_another()
    async with db.transaction() as conn:
        tournament_id = await insert_tournament(conn, new_event(), now=NOW)
    await store_message_shown(db, tournament_id, BIG, 0)
    assert await shown(db, tournament_id) == (0, 0, None)
    await save(db, tournament_id, now=NOW + 1)
    await save(db, tournament_id, now=NOW + 2)  # version 2

    async def claim(on: Database, owner: str, version: int, now: float = NOW + 3) -> ShowClaim:
        return await claim_event_show(
            on, tournament_id, version, owner=owner, now=now, lease_seconds=30
        )

    assert await claim(db, "a", 1) is ShowClaim.GRANTED
    assert await claim(other, "b", 2) is ShowClaim.BUSY
    await record_event_shown(db, tournament_id, 1, owner="a")
    assert await shown(db, tournament_id) == (1, 1, None)
    assert await claim(other, "b", 2) is ShowClaim.GRANTED
    assert await claim(db, "a", 1) is ShowClaim.NEWER  # never an older render over it
    await record_event_shown(other, tournament_id, 2, owner="b")
    # A late record of an older version does not lower it; a failed edit only ends a claim.
    await record_event_shown(db, tournament_id, 1, owner="a")
    assert await shown(db, tournament_id) == (2, 2, None)
    await save(db, tournament_id, now=NOW + 4)  # version 3
    assert await claim(db, "a", 3) is ShowClaim.GRANTED
    await record_event_shown(db, tournament_id, None, owner="a")
    assert await shown(db, tournament_id) == (2, 3, None)
    # "a" claims again and dies: "b" edits once the lease is over, not before.
    assert await claim(db, "a", 3, now=NOW + 5) is ShowClaim.GRANTED
    assert await claim(other, "b", 3, now=NOW + 34) is ShowClaim.BUSY
    assert await claim(other, "b", 3, now=NOW + 35) is ShowClaim.GRANTED
    await store_message_shown(db, tournament_id, BIG, 1)  # a late post does not lower it
    assert (await shown(db, tournament_id))[0] == 2


async def test_the_events_whose_message_is_behind(db: Database) -> None:
    """Open events with a message that shows an older version, settled; and ended ones
    only for a while after their end."""
    async with db.transaction() as conn:
        no_message = await insert_tournament(conn, new_event(), now=NOW)
        behind = await insert_tournament(conn, new_event(), now=NOW)
        up_to_date = await insert_tournament(conn, new_event(), now=NOW)
        ended = await insert_tournament(conn, new_event(), now=NOW)
    for tournament_id in (behind, up_to_date, ended):
        await store_message_shown(db, tournament_id, BIG, 0)
    for tournament_id in (no_message, behind, up_to_date):
        await save(db, tournament_id, now=NOW + 1)
    await record_event_shown(db, up_to_date, 1, owner="a")
    await save(db, ended, now=NOW + 1, status="cancelled")

    async def found(*, settled_before: float, finished_since: float) -> list[int]:
        return await unshown_events(
            db, settled_before=settled_before, finished_since=finished_since, limit=10
        )

    assert await found(settled_before=NOW + 1, finished_since=NOW) == [behind, ended]
    # Just changed: the process that changed them shows them.
    assert await found(settled_before=NOW, finished_since=NOW) == []
    # Ended long ago: left as it is.
    assert await found(settled_before=NOW + 1, finished_since=NOW + 2) == [behind]
