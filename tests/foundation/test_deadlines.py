"""Durable deadlines driven by a ManualClock: time moves only when a test says so, and the
tests wait on conditions with timeouts, never on blind sleeps."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from foundation_support import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    CounterGame,
    OpenAnother,
    make_service,
    new_counter,
)

from bot.model.clock import ManualClock
from bot.model.contract import Deadline, Outcome
from bot.play.deadlines import DeadlineRunner
from bot.play.guild_settings import GuildSettings
from bot.play.sessions import DeadlineGone, SeedSource, SessionService
from bot.storage import Database

RunnerFactory = Callable[[SessionService, ManualClock, CounterGame], DeadlineRunner]


@pytest.fixture
async def runners() -> AsyncIterator[RunnerFactory]:
    started: list[DeadlineRunner] = []

    def start(service: SessionService, clock: ManualClock, game: CounterGame) -> DeadlineRunner:
        runner = DeadlineRunner(service, clock)
        runner.start()
        started.append(runner)
        return runner

    yield start
    for runner in started:
        await runner.stop()


def inc(tag: str) -> dict[str, Any]:
    return {"type": "inc", "by": 1, "tag": tag}


def timer(kind: str, due_at: float, action: dict[str, Any]) -> Deadline:
    return Deadline(kind=kind, due_at=due_at, action=action)


def tags(outcomes: list[Outcome]) -> list[str]:
    return [str(outcome.events[0].get("tag")) for outcome in outcomes]


async def remaining(db: Database) -> list[str]:
    rows = await db.fetch_all("SELECT kind FROM deadlines ORDER BY due_at, id")
    return [row["kind"] for row in rows]


async def test_deadlines_fire_in_due_order_as_the_clock_moves(
    service: SessionService, db: Database, clock: ManualClock, game: CounterGame, runners: Any
) -> None:
    now = clock.now()
    session = await new_counter(
        service,
        ALICE,
        BOB,
        deadlines=[
            timer("late", now + 30, inc("third")),
            timer("soon", now + 10, inc("first")),
            timer("mid", now + 20, inc("second")),
        ],
    )
    runners(service, clock, game)

    clock.advance(10)
    assert tags(await game.wait_published(1)) == ["first"]
    assert await remaining(db) == ["mid", "late"]

    clock.advance(25)
    published = await game.wait_published(3)
    assert tags(published) == ["first", "second", "third"]
    assert [o.actor_id for o in published] == [None, None, None]
    assert [o.session.version for o in published] == [1, 2, 3]
    assert await remaining(db) == []
    stored = await service.require(session.id)
    assert stored.state == {"n": 3}
    rows = await db.fetch_all(
        "SELECT actor_id FROM events WHERE session_id = ? AND version > 0", (session.id,)
    )
    assert [row["actor_id"] for row in rows] == [None, None, None]


async def test_a_deadline_already_past_fires_at_once(
    service: SessionService, clock: ManualClock, game: CounterGame, runners: Any
) -> None:
    await new_counter(service, ALICE, BOB, deadlines=[timer("turn", clock.now() - 5, inc("late"))])
    runner = runners(service, clock, game)
    assert tags(await game.wait_published(1)) == ["late"]
    assert runner.fired == 1


async def test_a_new_deadline_wakes_the_runner(
    service: SessionService, clock: ManualClock, game: CounterGame, runners: Any
) -> None:
    runners(service, clock, game)
    session = await new_counter(service, ALICE, BOB)
    await service.act(
        session.id,
        ALICE,
        {"type": "schedule", "timers": [{"kind": "turn", "in": 0, "action": inc("now")}]},
    )
    assert tags(await game.wait_published(1)) == ["now"]


async def test_deadlines_survive_closing_and_reopening_the_database(
    open_another: OpenAnother, clock: ManualClock
) -> None:
    first_db = await open_another()
    await first_db.migrate()
    first = make_service(first_db, clock, CounterGame())
    now = clock.now()
    session = await new_counter(
        first,
        ALICE,
        BOB,
        deadlines=[timer("a", now + 10, inc("a")), timer("b", now + 20, inc("b"))],
    )
    await first_db.close()

    # The bot was down while the first deadline passed.
    clock.advance(15)
    second_db = await open_another()
    assert await second_db.migrate() == []
    game = CounterGame()
    second = make_service(second_db, clock, game)
    runner = DeadlineRunner(second, clock)
    runner.start()
    try:
        assert tags(await game.wait_published(1)) == ["a"]
        clock.advance(5)
        assert tags(await game.wait_published(2)) == ["a", "b"]
        assert (await second.require(session.id)).state == {"n": 2}
    finally:
        await runner.stop()


async def test_replaced_deadlines_do_not_fire(
    service: SessionService, db: Database, clock: ManualClock, game: CounterGame, runners: Any
) -> None:
    session = await new_counter(
        service, ALICE, BOB, deadlines=[timer("turn", clock.now() + 10, inc("old"))]
    )
    # A move replaces the session's timers: the old turn deadline must never fire.
    await service.act(
        session.id,
        ALICE,
        {"type": "schedule", "timers": [{"kind": "turn", "in": 50, "action": inc("new")}]},
    )
    # A sentinel in another channel, due after the old deadline would have been: once it
    # has fired, the runner has certainly passed the old deadline's time.
    await new_counter(
        service, CAROL, channel_id=CHANNEL + 1, deadlines=[timer("x", clock.now() + 15, inc("s"))]
    )
    runners(service, clock, game)
    clock.advance(20)
    assert tags(await game.wait_published(1)) == ["s"]
    assert await remaining(db) == ["turn"]
    clock.advance(40)
    published = await game.wait_published(2)
    assert tags(published) == ["s", "new"]
    assert published[1].session.id == session.id


async def test_finishing_a_game_clears_its_deadlines(
    service: SessionService, db: Database, clock: ManualClock
) -> None:
    session = await new_counter(
        service, ALICE, BOB, deadlines=[timer("turn", clock.now() + 10, inc("never"))]
    )
    await service.act(session.id, ALICE, {"type": "stop"})
    assert await remaining(db) == []
    assert await service.next_deadline() is None


@pytest.mark.logs_errors  # "boom" is a bug inside step, on purpose
@pytest.mark.parametrize("refused", [{"type": "illegal"}, {"type": "boom"}])
async def test_a_deadline_the_game_refuses_is_dropped_not_retried(
    service: SessionService,
    db: Database,
    clock: ManualClock,
    game: CounterGame,
    runners: Any,
    refused: dict[str, Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = clock.now()
    session = await new_counter(
        service,
        ALICE,
        BOB,
        deadlines=[timer("bad", now + 1, refused), timer("good", now + 2, inc("after"))],
    )
    runner = runners(service, clock, game)
    with caplog.at_level(logging.DEBUG, logger="bot.play.deadlines"):
        clock.advance(5)
        assert tags(await game.wait_published(1)) == ["after"]
    assert await remaining(db) == []
    # The refused action ran exactly once and changed nothing; the good one applied.
    assert game.steps_seen == 2
    assert runner.fired == 1
    stored = await service.require(session.id)
    assert (stored.version, stored.state) == (1, {"n": 1})
    rows = await db.fetch_all(
        "SELECT action FROM events WHERE session_id = ? ORDER BY version", (session.id,)
    )
    assert [json.loads(row["action"])["type"] for row in rows] == ["create", "inc"]
    assert any("bad" in r.getMessage() or "deadline" in r.getMessage() for r in caplog.records)


class LateArrivals(SessionService):
    """The real service, plus a hook that runs right after the runner has read the next
    deadline: it models another coroutine committing a new timer at that moment."""

    arrival: Callable[[], Awaitable[object]] | None = None

    async def next_deadline(self) -> tuple[int, int, float, dict[str, Any]] | None:
        upcoming = await super().next_deadline()
        if self.arrival is not None:
            arrival, self.arrival = self.arrival, None
            await arrival()
        return upcoming


async def test_a_deadline_added_while_the_runner_reads_is_not_missed(
    db: Database, clock: ManualClock, game: CounterGame, runners: Any
) -> None:
    service = LateArrivals(db, clock, GuildSettings(), SeedSource(3))
    service.register(game)
    service.on_commit(game.committed)
    runners(service, clock, game)

    async def add_due_timer() -> None:
        await new_counter(service, ALICE, BOB, deadlines=[timer("t", clock.now(), inc("late"))])

    service.arrival = add_due_timer
    # Wake the idle runner: its next read finds nothing, but a due timer lands meanwhile.
    clock.advance(1)
    # A lost wake-up would leave the runner asleep for its maximum sleep (30 s).
    assert tags(await game.wait_published(1, within=3.0)) == ["late"]


@pytest.mark.sqlite_only  # a full disk, made with SQLite's max_page_count
async def test_a_deadline_that_meets_a_full_disk_is_kept_and_fires_later(
    service: SessionService, db: Database, clock: ManualClock, game: CounterGame, runners: Any
) -> None:
    session = await new_counter(
        service,
        ALICE,
        BOB,
        deadlines=[timer("grow", clock.now() + 1, {"type": "grow", "bytes": 200_000})],
    )
    # max_page_count holds per connection: cap the one that writes.
    pages = await db.fetch_one("PRAGMA page_count")
    assert pages is not None
    await db.conn.execute(f"PRAGMA max_page_count = {pages[0]}")
    runners(service, clock, game)
    clock.advance(5)
    async with asyncio.timeout(3):
        await game.stepped.wait()
    # The move failed for want of space: the timer is not lost, the session untouched.
    assert await remaining(db) == ["grow"]
    assert (await service.require(session.id)).version == 0
    assert game.published == []

    await db.conn.execute("PRAGMA max_page_count = 1000000")
    clock.advance(0)
    published = await game.wait_published(1)
    assert published[0].session.state["n"] == 0
    assert len(published[0].session.state["pad"]) == 200_000
    assert await remaining(db) == []


async def test_a_move_racing_its_own_timeout_keeps_the_next_turns_timer(
    service: SessionService, db: Database, clock: ManualClock, game: CounterGame
) -> None:
    """The runner has claimed a turn's timer when the player's move replaces it: the
    runner must neither fire nor drop the next turn's timer (on SQLite its id was the old
    one's, reused, before deadline ids were made never to repeat)."""
    session = await new_counter(
        service, ALICE, BOB, deadlines=[timer("turn", clock.now() + 10, inc("timeout"))]
    )
    clock.advance(10)
    [(claimed_id, _, _, action)] = await service.claim_due_deadlines(lease_seconds=10, limit=5)
    # The move lands first: the next turn's timer replaces the claimed one.
    await service.act(
        session.id,
        ALICE,
        {"type": "schedule", "timers": [{"kind": "turn", "in": 30, "action": inc("next")}]},
    )
    [row] = await db.fetch_all("SELECT id FROM deadlines WHERE session_id = ?", (session.id,))
    assert row["id"] != claimed_id, "a deadline id was reused"
    # The runner goes on with what it claimed: the timer is gone, nothing happens.
    runner = DeadlineRunner(service, clock)
    await runner._fire(claimed_id, session.id, action)
    await service.drop_deadline(claimed_id)  # what it does with a timer the game refuses
    assert runner.fired == 0
    assert await remaining(db) == ["turn"]
    assert (await service.require(session.id)).state == {"n": 0}
    # The next turn's timer still fires, once, when due.
    runner.start()
    try:
        clock.advance(30)
        assert tags(await game.wait_published(1)) == ["next"]
    finally:
        await runner.stop()
    assert await remaining(db) == []


async def test_a_timer_another_process_claimed_since_is_not_fired_or_dropped_here(
    open_another: OpenAnother, db: Database, clock: ManualClock
) -> None:
    """A slow process whose lease ran out: the process that claimed the timer after it
    fires it; the slow one neither applies it nor deletes it."""
    slow = make_service(db, clock, CounterGame())
    other_game = CounterGame()
    other = make_service(await open_another(), clock, other_game)
    session = await new_counter(slow, ALICE, BOB, deadlines=[timer("turn", clock.now(), inc("t"))])
    [(deadline_id, _, _, action)] = await slow.claim_due_deadlines(lease_seconds=10, limit=5)
    clock.advance(11)  # the slow process's lease runs out; the other claims the timer
    assert [c[0] for c in await other.claim_due_deadlines(lease_seconds=10, limit=5)] == [
        deadline_id
    ]
    with pytest.raises(DeadlineGone):
        await slow.act(session.id, None, dict(action), deadline_id=deadline_id)
    await slow.drop_deadline(deadline_id)
    assert await remaining(db) == ["turn"]
    await other.act(session.id, None, dict(action), deadline_id=deadline_id)
    assert await remaining(db) == []
    assert (await other.require(session.id)).state == {"n": 1}
