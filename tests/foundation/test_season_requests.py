"""``/dicebot season new``'s requests in the database, on both backends: a request reads
back typed and only in its server, a new one clears the expired ones, Keep it and Close
the season each take only a pending request (so of two presses only the first does
anything), and Close the season closes all of its seasons or, when one was closed
meanwhile, none of them and leaves the request pending."""

from __future__ import annotations

import asyncio

import pytest
from foundation_support import OpenAnother

from bot.ladder.results import record_result
from bot.ladder.season_requests import (
    CONFIRM_SECONDS,
    SeasonClosedMeanwhile,
    close,
    closed_by_request,
    find_request,
    forget,
    keep,
    request_season,
    season_players,
)
from bot.ladder.seasons import close_season, current_season, find_season
from bot.model.contract import Seat, Session
from bot.storage import Database
from bot.storage.season_requests import SeasonRequest, mark_closed
from game_core.base import GameResult

GUILD = 5_000
OTHER_GUILD = 6_000
ADMIN = 77
START = 1_700_000_000.0
KB = "knucklebones"
DICEMAN = "diceman"


async def play(db: Database, game: str, winner: int, loser: int, *, guild_id: int = GUILD) -> None:
    """One finished game between two players, ranked as the session service ranks it."""
    async with db.transaction() as conn:
        session_id = await conn.fetch_value(
            "INSERT INTO sessions (game, guild_id, channel_id, status, state, version, seed,"
            " created_by, created_at, updated_at)"
            " VALUES (?, ?, 1, 'finished', '{}', 1, 0, ?, ?, ?) RETURNING id",
            (game, guild_id, winner, START, START),
        )
        seats = (
            Seat(seat=0, user_id=winner, display_name=f"p{winner}"),
            Seat(seat=1, user_id=loser, display_name=f"p{loser}"),
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
            created_by=winner,
            created_at=START,
            updated_at=START,
            seats=seats,
        )
        result = GameResult(ranks=[1, 2], winners=[0], draw=False, reason="normal")
        await record_result(
            conn, session=session, seats=seats, result=result, summary={}, now=START
        )


async def ask(
    db: Database, game: str | None = KB, *, name: str = "Spring", now: float = START
) -> SeasonRequest:
    request_id, _plan = await request_season(
        db, guild_id=GUILD, game=game, name=name, admin_id=ADMIN, now=now
    )
    request = await find_request(db, request_id, GUILD)
    assert request is not None
    return request


async def close_it(db: Database, request: SeasonRequest, *, now: float = START + 10):
    return await close(db, request, closed_by=ADMIN, provisional_games=1, now=now)


async def running(db: Database, *games: str) -> list[int]:
    return [(await current_season(db, GUILD, game)).number for game in games]


async def test_a_request_reads_back_typed_and_only_in_its_server(db: Database) -> None:
    await play(db, KB, 1, 2)
    await play(db, KB, 3, 1)
    request_id, plan = await request_season(
        db, guild_id=GUILD, game=None, name="Spring 🌸", admin_id=ADMIN, now=START
    )
    assert [(season.game, season.number, players) for season, players in plan] == [
        (KB, 1, 3),
        (DICEMAN, 1, 0),
        ("weighted_dice", 1, 0),
        ("dimension_duel", 1, 0),
    ]
    request = await find_request(db, request_id, GUILD)
    assert request is not None
    assert request == SeasonRequest(
        id=request_id,
        guild_id=GUILD,
        game=None,
        name="Spring 🌸",
        admin_id=ADMIN,
        issued_at=START,
        numbers={KB: 1, DICEMAN: 1, "weighted_dice": 1, "dimension_duel": 1},
        closed=False,
        stored=request.stored,
    )
    assert await find_request(db, request_id, OTHER_GUILD) is None
    assert await find_request(db, request_id + 1, GUILD) is None


async def test_a_new_request_clears_the_expired_ones(db: Database) -> None:
    old = await ask(db, now=START)
    fresh = await ask(db, now=START + 100)
    # Exactly CONFIRM_SECONDS old may still be answered (the press checks "more than").
    await ask(db, now=START + CONFIRM_SECONDS)
    assert await find_request(db, old.id, GUILD) is not None
    await ask(db, now=START + CONFIRM_SECONDS + 1)
    assert await find_request(db, old.id, GUILD) is None
    assert await find_request(db, fresh.id, GUILD) is not None


async def test_keep_deletes_a_pending_request_once(db: Database) -> None:
    request = await ask(db)
    assert await keep(db, request) is True
    assert await find_request(db, request.id, GUILD) is None
    assert await keep(db, request) is False
    assert await running(db, KB) == [1]


async def test_close_takes_the_request_once_and_closes_its_seasons(db: Database) -> None:
    await play(db, KB, 1, 2)
    request = await ask(db, None, name="Summer")
    done = await close_it(db, request)
    assert [(d.closed.game, d.closed.number, d.started.number, d.players) for d in done] == [
        (KB, 1, 2, 2),
        (DICEMAN, 1, 2, 0),
        ("weighted_dice", 1, 2, 0),
        ("dimension_duel", 1, 2, 0),
    ]
    assert all(d.started.name == "Summer" for d in done)
    after = await running(db, KB, DICEMAN, "weighted_dice", "dimension_duel")
    assert after == [2, 2, 2, 2]

    # The request stays, closed, with the numbers it closed.
    stored = await find_request(db, request.id, GUILD)
    assert stored is not None and stored.closed and stored.numbers == request.numbers
    assert await closed_by_request(db, stored) == done

    # Presses that read it while it was pending find it taken: nothing more changes.
    assert await close_it(db, request) == []
    assert await keep(db, request) is False
    assert await running(db, KB, DICEMAN, "weighted_dice", "dimension_duel") == after
    assert await find_request(db, request.id, GUILD) == stored
    # A press that read it closed cannot take it either.
    assert await keep(db, stored) is False
    assert await close_it(db, stored) == []


async def test_close_changes_nothing_when_one_of_its_seasons_closed_meanwhile(
    db: Database,
) -> None:
    request = await ask(db, None)
    # Another request closed Diceman's season first (Knucklebones closes before Diceman in
    # this request's transaction: it must be rolled back with the rest).
    async with db.transaction() as conn:
        await close_season(
            conn,
            guild_id=GUILD,
            game=DICEMAN,
            expected=1,
            name="",
            closed_by=ADMIN,
            provisional_games=1,
            now=START + 5,
        )
    with pytest.raises(SeasonClosedMeanwhile) as refused:
        await close_it(db, request)
    assert (refused.value.game, refused.value.expected, refused.value.running) == (DICEMAN, 1, 2)
    assert await running(db, KB, DICEMAN) == [1, 2]
    assert await find_season(db, GUILD, KB, 1) == await current_season(db, GUILD, KB)
    # The request is still pending: Keep it still works.
    assert await find_request(db, request.id, GUILD) == request
    assert await keep(db, request) is True


async def test_marking_closed_rolls_back_with_its_transaction(db: Database) -> None:
    request = await ask(db)
    with pytest.raises(RuntimeError):
        async with db.transaction() as conn:
            assert await mark_closed(conn, request) is True
            raise RuntimeError("the seasons' part failed")
    assert await find_request(db, request.id, GUILD) == request


async def test_keep_and_close_pressed_together_only_one_counts(
    db: Database, open_another: OpenAnother
) -> None:
    """Both presses read the pending request, then race from two processes: either the
    season closed and Keep it changed nothing, or the request went and nothing closed."""
    await play(db, KB, 1, 2)
    other = await open_another()
    for round_ in range(3):
        [before] = await running(db, KB)
        request = await ask(db, now=START + round_)
        kept, closed = await asyncio.gather(
            keep(other, request), close_it(db, request, now=START + round_ + 1)
        )
        left = await find_request(db, request.id, GUILD)
        if kept:
            assert closed == [] and left is None
            assert await running(db, KB) == [before]
        else:
            assert [done.closed.number for done in closed] == [before]
            assert left is not None and left.closed
            assert await running(db, KB) == [before + 1]


async def test_forget_drops_a_request_whatever_its_state(db: Database) -> None:
    pending = await ask(db)
    closed = await ask(db)
    await close_it(db, closed)
    for request in (pending, closed):
        await forget(db, request.id)
        assert await find_request(db, request.id, GUILD) is None


async def test_season_players_counts_this_seasons_ladder(db: Database) -> None:
    await play(db, KB, 1, 2)
    await play(db, KB, 1, 3)
    await play(db, DICEMAN, 4, 5)
    await play(db, KB, 6, 7, guild_id=OTHER_GUILD)
    season = await current_season(db, GUILD, KB)
    assert await season_players(db, season) == 3
    await close_it(db, await ask(db))
    assert await season_players(db, await current_season(db, GUILD, KB)) == 0
    closed = await find_season(db, GUILD, KB, 1)
    assert closed is not None and await season_players(db, closed) == 3
