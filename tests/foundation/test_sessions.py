"""The session service on a real SQLite file: one transaction per move, nothing half-done."""

from __future__ import annotations

import asyncio
import json
import math
import random
import threading
from typing import Any

import pytest
from foundation_support import (
    AI_USER,
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GAME,
    GUILD,
    CounterGame,
    OpenAnother,
    make_service,
    new_counter,
    seats,
    snapshot,
)

from bot.model.clock import ManualClock
from bot.model.contract import Deadline, StepContext
from bot.model.errors import AlreadyPlaying, GameOver, SessionChanged, SessionNotFound, UserError
from bot.play.sessions import SessionService
from bot.storage import Database
from game_core.errors import IllegalMove

CHANGED_MEANWHILE = "The game changed meanwhile"


async def event_versions(db: Database, session_id: int) -> list[int]:
    rows = await db.fetch_all(
        "SELECT version FROM events WHERE session_id = ? ORDER BY version", (session_id,)
    )
    return [row["version"] for row in rows]


async def test_create_stores_the_session_seats_and_first_event(
    service: SessionService, db: Database
) -> None:
    session = await new_counter(service, ALICE, BOB)
    assert session.version == 0
    assert session.status == "active"
    assert session.state == {"n": 0}
    assert [seat.user_id for seat in session.seats] == [ALICE, BOB]
    assert await event_versions(db, session.id) == [0]
    assert await service.require(session.id) == session


async def test_a_move_is_applied_once(
    service: SessionService, db: Database, game: CounterGame
) -> None:
    session = await new_counter(service, ALICE, BOB)
    outcome = await service.act(session.id, ALICE, {"type": "inc", "by": 3})
    assert game.steps_seen == 1
    assert outcome.previous.version == 0
    assert outcome.session.version == 1
    assert outcome.session.state == {"n": 3}
    assert outcome.events == [{"type": "inc", "by": 3, "tag": None}]
    assert outcome.result_id is None
    stored = await service.require(session.id)
    assert (stored.state, stored.version) == ({"n": 3}, 1)
    rows = await db.fetch_all(
        "SELECT version, actor_id, action FROM events WHERE session_id = ? ORDER BY version",
        (session.id,),
    )
    assert [(r["version"], r["actor_id"]) for r in rows] == [(0, ALICE), (1, ALICE)]
    assert json.loads(rows[1]["action"]) == {"type": "inc", "by": 3}


async def test_stored_json_keeps_any_script_and_reads_rows_older_versions_wrote(
    service: SessionService, db: Database
) -> None:
    session = await new_counter(service, ALICE, BOB)
    tag = 'Zoë 🎲 ألعاب 𝔘 "quoted" \\ back'
    outcome = await service.act(session.id, ALICE, {"type": "inc", "by": 1, "tag": tag})
    assert outcome.events == [{"type": "inc", "by": 1, "tag": tag}]
    row = await db.fetch_one(
        "SELECT action, events FROM events WHERE session_id = ? AND version = 1", (session.id,)
    )
    assert row is not None
    assert json.loads(row["events"]) == outcome.events
    assert json.loads(row["action"])["tag"] == tag
    # Rows json.dumps wrote may hold what orjson alone does not read: NaN, Infinity.
    older = json.dumps({"n": 5, "ratio": float("nan"), "cap": float("inf")})
    await db.write("UPDATE sessions SET state = ? WHERE id = ?", (older, session.id))
    stored = await service.require(session.id)
    assert (stored.state["n"], stored.state["cap"]) == (5, float("inf"))
    assert math.isnan(stored.state["ratio"])
    outcome = await service.act(session.id, ALICE, {"type": "inc", "by": 1})
    assert outcome.session.state == {"n": 6}
    assert (await service.require(session.id)).state == {"n": 6}


async def test_the_step_sees_the_stored_session_time_settings_and_a_replayable_rng(
    service: SessionService, game: CounterGame, clock: ManualClock
) -> None:
    session = await new_counter(service, ALICE, BOB)
    seen: list[tuple[int | None, int | None, float, int, float]] = []

    def record(ctx: StepContext, action: dict[str, Any]) -> None:
        seen.append(
            (
                ctx.actor_id,
                ctx.seat,
                ctx.now,
                ctx.guild_settings.turn_timeout_seconds,
                ctx.rng.random(),
            )
        )

    game.during_step = record
    await service.act(session.id, BOB, {"type": "inc", "by": 1})
    actor, seat, now, timeout, roll = seen[0]
    assert (actor, seat, now, timeout) == (BOB, 1, clock.now(), 300)
    # The dice depend only on the session's seed and version: a replay rolls the same.
    stored = await service.require(session.id)
    assert roll == random.Random(f"{stored.seed}:0").random()


async def test_two_concurrent_moves_on_one_service_are_both_applied_in_turn(
    service: SessionService, db: Database
) -> None:
    session = await new_counter(service, ALICE, BOB)
    outcomes = await asyncio.gather(
        service.act(session.id, ALICE, {"type": "inc", "by": 1}),
        service.act(session.id, BOB, {"type": "inc", "by": 10}),
    )
    assert sorted(o.session.version for o in outcomes) == [1, 2]
    assert (await service.require(session.id)).state == {"n": 11}
    assert await event_versions(db, session.id) == [0, 1, 2]


async def test_concurrent_presses_on_one_service_one_wins_one_is_told_it_changed(
    service: SessionService, db: Database
) -> None:
    session = await new_counter(service, ALICE, BOB)
    results = await asyncio.gather(
        service.act(session.id, ALICE, {"type": "inc", "by": 1}, expected_version=0),
        service.act(session.id, BOB, {"type": "inc", "by": 10}, expected_version=0),
        return_exceptions=True,
    )
    winners = [r for r in results if not isinstance(r, BaseException)]
    losers = [r for r in results if isinstance(r, BaseException)]
    assert len(winners) == 1 and len(losers) == 1
    assert isinstance(losers[0], SessionChanged)
    assert CHANGED_MEANWHILE in str(losers[0])
    stored = await service.require(session.id)
    assert stored.version == 1
    assert stored.state == winners[0].session.state
    assert await event_versions(db, session.id) == [0, 1]


async def test_concurrent_presses_through_two_connections_on_one_database(
    open_another: OpenAnother, service: SessionService, clock: ManualClock
) -> None:
    """Two processes, as far as the database can tell: the version check decides."""
    session = await new_counter(service, ALICE, BOB)
    other_db = await open_another()
    other = make_service(other_db, clock, CounterGame())
    for expected in range(3):
        results = await asyncio.gather(
            service.act(session.id, ALICE, {"type": "inc", "by": 1}, expected_version=expected),
            other.act(session.id, BOB, {"type": "inc", "by": 10}, expected_version=expected),
            return_exceptions=True,
        )
        errors = [r for r in results if isinstance(r, BaseException)]
        assert len(errors) == 1, results
        assert isinstance(errors[0], SessionChanged)
        assert CHANGED_MEANWHILE in errors[0].message
    stored = await other.require(session.id)
    assert stored.version == 3
    rows = await other_db.fetch_all(
        "SELECT version, action FROM events WHERE session_id = ? ORDER BY version",
        (session.id,),
    )
    assert [row["version"] for row in rows] == [0, 1, 2, 3]
    applied = sum(json.loads(row["action"]).get("by", 0) for row in rows)
    assert stored.state == {"n": applied}


async def test_a_stale_expected_version_is_refused(service: SessionService) -> None:
    session = await new_counter(service, ALICE, BOB)
    await service.act(session.id, ALICE, {"type": "inc", "by": 1})
    with pytest.raises(SessionChanged):
        await service.act(session.id, BOB, {"type": "inc", "by": 1}, expected_version=0)
    assert (await service.require(session.id)).version == 1


@pytest.mark.parametrize(
    ("action", "error"),
    [
        ({"type": "illegal"}, IllegalMove),
        ({"type": "boom"}, RuntimeError),
    ],
)
async def test_an_error_inside_step_changes_nothing(
    service: SessionService,
    db: Database,
    clock: ManualClock,
    action: dict[str, Any],
    error: type[Exception],
) -> None:
    timer = Deadline(kind="turn", due_at=clock.now() + 60, action={"type": "inc", "by": 1})
    session = await new_counter(service, ALICE, BOB, deadlines=[timer])
    await service.act(session.id, ALICE, {"type": "inc", "by": 2})
    before = await snapshot(db, session.id)
    clock.advance(5)
    with pytest.raises(error):
        await service.act(session.id, ALICE, action)
    assert await snapshot(db, session.id) == before
    # And the session is still perfectly usable afterwards.
    after = await service.act(session.id, BOB, {"type": "inc", "by": 1})
    assert (after.session.version, after.session.state) == (2, {"n": 3})


async def test_an_outsider_is_refused_by_the_game(service: SessionService, db: Database) -> None:
    session = await new_counter(service, ALICE, BOB)
    before = await snapshot(db, session.id)
    with pytest.raises(IllegalMove):
        await service.act(session.id, CAROL, {"type": "inc", "by": 1})
    assert await snapshot(db, session.id) == before


async def test_a_finished_session_refuses_further_actions(
    service: SessionService, db: Database
) -> None:
    session = await new_counter(service, ALICE, BOB)
    await service.act(session.id, ALICE, {"type": "stop"})
    before = await snapshot(db, session.id)
    with pytest.raises(GameOver) as refused:
        await service.act(session.id, BOB, {"type": "inc", "by": 1})
    assert "already over" in refused.value.message
    with pytest.raises(GameOver):
        await service.cancel(session.id, BOB, "too late")
    assert await snapshot(db, session.id) == before


async def test_unknown_session_is_not_found(service: SessionService) -> None:
    with pytest.raises(SessionNotFound):
        await service.act(12345, ALICE, {"type": "inc", "by": 1})
    with pytest.raises(SessionNotFound):
        await service.require(12345)
    assert await service.get(12345) is None


async def test_one_open_game_per_player_per_channel(service: SessionService) -> None:
    first = await new_counter(service, ALICE, BOB)
    with pytest.raises(AlreadyPlaying) as mine:
        await new_counter(service, ALICE, CAROL)
    assert "You already have" in mine.value.message
    with pytest.raises(AlreadyPlaying) as theirs:
        await new_counter(service, CAROL, BOB)
    assert f"player{BOB} already has" in theirs.value.message
    # Another channel is fine, and so is the same channel once the game is over.
    elsewhere = await new_counter(service, ALICE, CAROL, channel_id=CHANNEL + 1)
    assert elsewhere.channel_id == CHANNEL + 1
    assert (await service.open_session_for(ALICE, CHANNEL)) == first
    await service.cancel(first.id, ALICE, "stopped")
    assert await service.open_session_for(ALICE, CHANNEL) is None
    again = await new_counter(service, ALICE, BOB)
    assert again.id != first.id


async def test_a_player_who_left_a_running_game_is_free_in_that_channel(
    service: SessionService,
) -> None:
    first = await new_counter(service, ALICE, BOB)
    outcome = await service.act(first.id, BOB, {"type": "leave"})
    assert [seat.has_left for seat in outcome.session.seats] == [False, True]
    stored = await service.require(first.id)
    assert stored.seats == outcome.session.seats  # the flag is stored, the seat is kept
    assert stored.seat_of(BOB) == 1
    assert await service.open_session_for(BOB, CHANNEL) is None
    assert await service.open_session_for(BOB, CHANNEL, include_left=True) == stored
    # Bob may start another game here; Alice, still seated, may not.
    second = await new_counter(service, BOB, CAROL)
    assert await service.open_session_for(BOB, CHANNEL) == second
    with pytest.raises(AlreadyPlaying):
        await new_counter(service, ALICE, CAROL, channel_id=CHANNEL)


async def test_ai_seats_never_count_as_already_playing(service: SessionService) -> None:
    await new_counter(service, ALICE, AI_USER, ai=[AI_USER])
    second = await new_counter(service, BOB, AI_USER, ai=[AI_USER])
    assert second.vs_ai
    assert await service.open_session_for(AI_USER, CHANNEL) is None


async def test_concurrent_creates_cannot_both_seat_a_player(service: SessionService) -> None:
    results = await asyncio.gather(
        new_counter(service, ALICE, BOB),
        new_counter(service, ALICE, CAROL),
        return_exceptions=True,
    )
    assert sum(isinstance(r, AlreadyPlaying) for r in results) == 1
    assert len(await service.open_sessions(GAME)) == 1


async def test_a_pending_session_counts_as_open(service: SessionService) -> None:
    await service.create(
        game=GAME,
        guild_id=GUILD,
        channel_id=CHANNEL,
        created_by=ALICE,
        seats=seats(ALICE, BOB),
        state={"n": 0},
    )
    with pytest.raises(AlreadyPlaying):
        await new_counter(service, BOB, CAROL)


async def test_cancel_ends_the_session_without_a_result_and_clears_timers(
    service: SessionService, db: Database, clock: ManualClock
) -> None:
    timer = Deadline(kind="turn", due_at=clock.now() + 60, action={"type": "inc", "by": 1})
    session = await new_counter(service, ALICE, BOB, deadlines=[timer])
    outcome = await service.cancel(session.id, ALICE, "declined")
    assert outcome.session.status == "cancelled"
    assert outcome.session.version == 1
    assert outcome.events == [{"type": "cancelled", "reason": "declined"}]
    after = await snapshot(db, session.id)
    assert after["deadlines"] == []
    assert after["results"] == []
    assert json.loads(after["events"][-1][2]) == {"type": "cancel", "reason": "declined"}
    assert await service.open_sessions() == []


async def test_set_message_is_stored(service: SessionService) -> None:
    session = await new_counter(service, ALICE, BOB)
    await service.set_message(session.id, 777)
    assert (await service.require(session.id)).message_id == 777


async def test_a_reader_never_sees_a_move_that_is_rolled_back(
    service: SessionService, game: CounterGame
) -> None:
    """Another coroutine reading while a move's transaction is open must see the last
    committed state, not the half-written one that is then rolled back."""
    session = await new_counter(service, ALICE, BOB)
    loop = asyncio.get_running_loop()
    reads: list[asyncio.Future[Any]] = []

    def read_meanwhile(ctx: StepContext, action: dict[str, Any]) -> None:
        if threading.current_thread() is threading.main_thread():
            reads.append(loop.create_task(service.get(session.id)))
            return
        # The step runs in SQLite's database thread (the whole move is one trip there):
        # read from the event loop while the transaction stays open, and wait for it.
        read = asyncio.run_coroutine_threadsafe(service.get(session.id), loop)
        read.result(timeout=10)
        reads.append(asyncio.wrap_future(read, loop=loop))

    game.during_step = read_meanwhile
    with pytest.raises(TypeError):
        await service.act(session.id, ALICE, {"type": "unsaveable"})
    seen = await reads[0]
    assert seen is not None
    assert (seen.version, seen.state) == (0, {"n": 0})


async def test_user_errors_carry_a_player_facing_message() -> None:
    for error in (SessionChanged(), GameOver(), SessionNotFound()):
        assert isinstance(error, UserError)
        assert str(error) == error.message and error.message.endswith(".")
