"""Several processes on one database (each "process" here is its own adapter with its own
connections, as another bot process would be): a due deadline, a press, a seat and a
message repair taken by two at the same moment are taken by exactly one; a process that
dies holding a claim loses it when its lease ends. On both backends."""

from __future__ import annotations

import asyncio
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
from bot.model.contract import Deadline
from bot.model.errors import AlreadyPlaying, SessionChanged
from bot.play.deadlines import LEASE_SECONDS, DeadlineRunner
from bot.play.sessions import DeadlineGone, SessionService
from bot.storage import Database
from bot.storage.publication import PublicationStore
from bot.ui.identify import IdentifyGate

ROUNDS = 12


async def two_processes(
    open_another: OpenAnother, db: Database, clock: ManualClock
) -> tuple[tuple[SessionService, CounterGame], tuple[SessionService, CounterGame]]:
    other = await open_another()
    first_game, second_game = CounterGame(), CounterGame()
    return (
        (make_service(db, clock, first_game), first_game),
        (make_service(other, clock, second_game), second_game),
    )


def timer(due_at: float, tag: str) -> Deadline:
    return Deadline(kind="t", due_at=due_at, action={"type": "inc", "by": 1, "tag": tag})


async def events_of(db: Database, session_id: int) -> list[int]:
    rows = await db.fetch_all(
        "SELECT version FROM events WHERE session_id = ? ORDER BY version", (session_id,)
    )
    return [row["version"] for row in rows]


async def test_two_processes_claim_the_same_due_deadlines_each_goes_to_one(
    open_another: OpenAnother, db: Database, clock: ManualClock
) -> None:
    (first, _), (second, _) = await two_processes(open_another, db, clock)
    sessions = [
        await new_counter(first, ALICE, BOB, channel_id=CHANNEL + n, deadlines=[timer(0, "x")])
        for n in range(ROUNDS)
    ]
    claims = await asyncio.gather(
        first.claim_due_deadlines(lease_seconds=LEASE_SECONDS, limit=ROUNDS),
        second.claim_due_deadlines(lease_seconds=LEASE_SECONDS, limit=ROUNDS),
    )
    claimed = [item[1] for batch in claims for item in batch]
    assert sorted(claimed) == sorted(session.id for session in sessions)
    # A claim holds until its lease ends: asking again finds nothing to take.
    assert await second.claim_due_deadlines(lease_seconds=LEASE_SECONDS, limit=ROUNDS) in (
        [],
        claims[1],  # ...except for this process's own claims, taken again
    )


async def test_two_processes_fire_the_same_due_deadline_at_once_it_applies_once(
    open_another: OpenAnother, db: Database, clock: ManualClock
) -> None:
    """As if a lease had run out under a slow process: both fire the very same deadline
    at the same moment; the one whose transaction deletes it applies it."""
    (first, _), (second, _) = await two_processes(open_another, db, clock)
    for _ in range(ROUNDS):
        session = await new_counter(first, ALICE, BOB, deadlines=[timer(0, "x")])
        ((deadline_id, session_id, _, action),) = await first.claim_due_deadlines(
            lease_seconds=LEASE_SECONDS, limit=1
        )
        results = await asyncio.gather(
            first.act(session_id, None, dict(action), deadline_id=deadline_id),
            second.act(session_id, None, dict(action), deadline_id=deadline_id),
            return_exceptions=True,
        )
        applied = [r for r in results if not isinstance(r, BaseException)]
        refused = [r for r in results if isinstance(r, BaseException)]
        assert len(applied) == 1 and len(refused) == 1, results
        assert isinstance(refused[0], DeadlineGone)
        assert await events_of(db, session.id) == [0, 1]
        assert (await first.require(session.id)).state == {"n": 1}
        # Free the channel for the next round.
        await first.act(session.id, ALICE, {"type": "stop"})


async def test_two_runners_fire_every_deadline_exactly_once(
    open_another: OpenAnother, db: Database, clock: ManualClock
) -> None:
    (first, first_game), (second, second_game) = await two_processes(open_another, db, clock)
    now = clock.now()
    sessions = [
        await new_counter(
            first, ALICE, BOB, channel_id=CHANNEL + n, deadlines=[timer(now + 1 + n % 3, "x")]
        )
        for n in range(ROUNDS)
    ]
    fired = asyncio.Event()

    def count(outcome: Any) -> None:
        if len(first_game.published) + len(second_game.published) >= ROUNDS:
            fired.set()

    first.on_commit(count)
    second.on_commit(count)
    runners = [DeadlineRunner(first, clock), DeadlineRunner(second, clock)]
    for runner in runners:
        runner.start()
    try:
        clock.advance(5)
        async with asyncio.timeout(10):
            await fired.wait()
    finally:
        for runner in runners:
            await runner.stop()
    assert sum(runner.fired for runner in runners) == ROUNDS
    assert len(first_game.published) + len(second_game.published) == ROUNDS
    for session in sessions:
        assert await events_of(db, session.id) == [0, 1]
    assert await db.fetch_all("SELECT id FROM deadlines") == []


async def test_a_claim_of_a_process_that_died_runs_out_and_another_fires_it(
    open_another: OpenAnother, db: Database, clock: ManualClock
) -> None:
    (first, first_game), (second, second_game) = await two_processes(open_another, db, clock)
    session = await new_counter(first, ALICE, BOB, deadlines=[timer(clock.now(), "x")])
    claimed = await first.claim_due_deadlines(lease_seconds=LEASE_SECONDS, limit=5)
    assert [item[1] for item in claimed] == [session.id]
    await first.db.close()  # the first process dies holding the claim

    runner = DeadlineRunner(second, clock)
    runner.start()
    try:
        # Its lease still runs: the other process leaves the deadline alone...
        assert await runner.fire_due() == pytest.approx(LEASE_SECONDS)
        clock.advance(LEASE_SECONDS / 2)
        await asyncio.sleep(0.05)
        assert runner.fired == 0 and await events_of(db_of(second), session.id) == [0]
        # ...and takes it over once the lease is over.
        clock.advance(LEASE_SECONDS / 2)
        published = await second_game.wait_published(1)
    finally:
        await runner.stop()
    assert [outcome.session.id for outcome in published] == [session.id]
    assert await events_of(db_of(second), session.id) == [0, 1]
    assert first_game.published == []


def db_of(service: SessionService) -> Database:
    return service.db


async def test_two_processes_press_at_the_same_moment_exactly_one_applies(
    open_another: OpenAnother, db: Database, clock: ManualClock
) -> None:
    (first, _), (second, _) = await two_processes(open_another, db, clock)
    session = await new_counter(first, ALICE, BOB)
    for version in range(ROUNDS):
        results = await asyncio.gather(
            first.act(session.id, ALICE, {"type": "inc", "by": 1}, expected_version=version),
            second.act(session.id, BOB, {"type": "inc", "by": 1}, expected_version=version),
            return_exceptions=True,
        )
        refused = [r for r in results if isinstance(r, BaseException)]
        assert len(refused) == 1 and isinstance(refused[0], SessionChanged), results
    assert await events_of(db, session.id) == list(range(ROUNDS + 1))
    assert (await first.require(session.id)).state == {"n": ROUNDS}


async def test_two_processes_moving_one_game_without_a_version_both_apply_in_turn(
    open_another: OpenAnother, db: Database, clock: ManualClock
) -> None:
    """Two players' moves on one game at once from two processes (a DM press on shard 0's
    process, a channel press on another): the session row makes them take turns, so
    both apply, neither is told the game changed."""
    (first, _), (second, _) = await two_processes(open_another, db, clock)
    session = await new_counter(first, ALICE, BOB)
    for _ in range(ROUNDS):
        await asyncio.gather(
            first.act(session.id, ALICE, {"type": "inc", "by": 1}),
            second.act(session.id, BOB, {"type": "inc", "by": 10}),
        )
    assert (await first.require(session.id)).state == {"n": 11 * ROUNDS}
    assert await events_of(db, session.id) == list(range(2 * ROUNDS + 1))


@pytest.mark.parametrize("backend", ["postgresql"])  # about PostgreSQL itself
async def test_a_move_overtaken_between_its_read_and_its_write_applies_after_the_other(
    open_another: OpenAnother, db: Database, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL tries a move without a transaction: its read, then one write with a
    version check. Another process's move landing in between makes that write miss; the
    move then runs again in the locked transaction, on the game as it now is."""
    from bot.storage import postgres

    (first, first_game), (second, _) = await two_processes(open_another, db, clock)
    session = await new_counter(first, ALICE, BOB)
    save_move = postgres._Optimistic.save_move
    overtaken = False

    async def overtaken_once(conn: postgres._Optimistic, params: Any) -> None:
        nonlocal overtaken
        if not overtaken:
            overtaken = True
            await second.act(session.id, BOB, {"type": "inc", "by": 10})
        await save_move(conn, params)

    monkeypatch.setattr(postgres._Optimistic, "save_move", overtaken_once)
    outcome = await first.act(session.id, ALICE, {"type": "inc", "by": 1})
    assert overtaken and outcome.session.version == 2
    assert outcome.session.state == {"n": 11} == (await first.require(session.id)).state
    assert await events_of(db, session.id) == [0, 1, 2]
    assert first_game.steps_seen == 2  # worked out on version 0, then again on version 1


@pytest.mark.parametrize("backend", ["postgresql"])  # about PostgreSQL itself
async def test_a_plain_move_takes_no_transaction_and_a_timer_s_move_does(
    db: Database, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncpg

    service = make_service(db, clock, CounterGame())
    session = await new_counter(service, ALICE, BOB, deadlines=[timer(0, "due")])
    opened: list[str] = []
    transaction = asyncpg.Connection.transaction

    def counted(self: asyncpg.Connection, *args: Any, **kwargs: Any) -> Any:
        opened.append("transaction")
        return transaction(self, *args, **kwargs)

    monkeypatch.setattr(asyncpg.Connection, "transaction", counted)
    await service.act(session.id, ALICE, {"type": "inc", "by": 1})
    assert opened == []
    # A timer's move deletes its deadline with it: that takes the transaction.
    [(deadline_id, _, _, action)] = await service.claim_due_deadlines(
        lease_seconds=LEASE_SECONDS, limit=1
    )
    await service.act(session.id, None, action, deadline_id=deadline_id)
    assert opened == ["transaction"]
    assert (await service.require(session.id)).state == {"n": 2}


async def test_two_processes_seating_one_player_in_one_channel_seat_them_once(
    open_another: OpenAnother, db: Database, clock: ManualClock
) -> None:
    (first, _), (second, _) = await two_processes(open_another, db, clock)
    for n in range(ROUNDS):
        channel = CHANNEL + 100 + n
        results = await asyncio.gather(
            new_counter(first, ALICE, BOB, channel_id=channel),
            new_counter(second, CAROL, ALICE, channel_id=channel),
            return_exceptions=True,
        )
        refused = [r for r in results if isinstance(r, BaseException)]
        assert len(refused) == 1 and isinstance(refused[0], AlreadyPlaying), results
        busy = await db.fetch_all(
            "SELECT user_id FROM busy_players WHERE channel_id = ? ORDER BY user_id", (channel,)
        )
        created = next(r for r in results if not isinstance(r, BaseException))
        assert [row["user_id"] for row in busy] == sorted(s.user_id for s in created.seats)
        assert len(await first.open_sessions()) == n + 1


async def stale_session(service: SessionService) -> int:
    session = await new_counter(service, ALICE, BOB, channel_id=CHANNEL + 500)
    await service.act(session.id, ALICE, {"type": "inc", "by": 1})
    await service.act(session.id, ALICE, {"type": "stop"})
    return session.id


async def test_two_processes_repairing_messages_take_each_stale_game_once(
    open_another: OpenAnother, db: Database, clock: ManualClock
) -> None:
    (first, _), _ = await two_processes(open_another, db, clock)
    stale = [await stale_session(first) for _ in range(ROUNDS)]
    stores = [PublicationStore(db), PublicationStore(await open_another())]
    now = clock.now()

    async def claim(store: PublicationStore, owner: str, at: float) -> list[Any]:
        return await store.claim_stale(
            owner=owner, now=at, lease_seconds=60, limit=100, settled_before=at
        )

    claims = await asyncio.gather(claim(stores[0], "a", now), claim(stores[1], "b", now))
    assert sorted(item[0] for batch in claims for item in batch) == sorted(stale)
    assert not set(map(tuple, claims[0])) & set(map(tuple, claims[1]))
    # "a" dies. Until its lease ends, "b" takes none of its repairs; then all of them.
    assert await claim(stores[1], "b", now + 30) == claims[1]
    taken_over = await claim(stores[1], "b", now + 61)
    assert sorted(item[0] for item in taken_over) == sorted(stale)


async def test_the_sweep_leaves_a_game_that_just_moved_to_the_process_moving_it(
    db: Database, clock: ManualClock
) -> None:
    service = make_service(db, clock, CounterGame())
    session_id = await stale_session(service)
    store = PublicationStore(db)
    now = clock.now()
    recent = await store.claim_stale(
        owner="a", now=now, lease_seconds=60, limit=10, settled_before=now - 10
    )
    assert recent == []
    clock.advance(11)
    later = clock.now()
    settled = await store.claim_stale(
        owner="a", now=later, lease_seconds=60, limit=10, settled_before=later - 10
    )
    assert [item[0] for item in settled] == [session_id]


async def test_identifies_from_two_processes_share_each_bucket_s_five_seconds(
    open_another: OpenAnother, db: Database
) -> None:
    other = await open_another()
    clock = {"now": 1_000.0}

    def gate(database: Database, concurrency: int) -> IdentifyGate:
        return IdentifyGate(database, max_concurrency=concurrency, now=lambda: clock["now"])

    one = await asyncio.gather(gate(db, 1).reserve(0), gate(other, 1).reserve(1))
    assert sorted(one) == [1_000.0, 1_005.0]
    # The next identify of that bucket queues behind both.
    assert await gate(db, 1).reserve(2) == 1_010.0
    # Long after, a slot is free at once again.
    clock["now"] = 2_000.0
    assert await gate(other, 1).reserve(0) == 2_000.0
    # With max_concurrency 2, shards 4 and 5 are in different buckets: both at once.
    clock["now"] = 3_000.0
    two = await asyncio.gather(gate(db, 2).reserve(4), gate(other, 2).reserve(5))
    assert two == [3_000.0, 3_000.0]
