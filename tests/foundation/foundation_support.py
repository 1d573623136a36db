"""Shared helpers for the foundation tests, chiefly a tiny game: a shared counter.

Actions (all JSON dicts):
- ``{"type": "inc", "by": n}``: add ``n`` to the counter; only a seated player or the
  system (a deadline, ``actor_id=None``) may do it. With ``"pad": k`` the state also
  carries ``k`` bytes of padding (heavier writes).
- ``{"type": "illegal"}``: refused with IllegalMove.
- ``{"type": "boom"}``: an unexpected bug (RuntimeError) inside ``step``.
- ``{"type": "end", "ranks": [...], "winners": [...], "draw": bool}``: finish with a result.
- ``{"type": "schedule", "timers": [{"kind", "in", "action"}]}``: replace the deadlines,
  each due ``in`` seconds from ``ctx.now``.
- ``{"type": "stop"}``: finish without a result.
- ``{"type": "grow", "bytes": k}``: keep the counter, pad the state with ``k`` bytes.
- ``{"type": "unsaveable"}``: a handler bug that only shows when saving: the events are
  not JSON, so the move fails after the session row was already updated.

Lives in its own module (not in conftest) so the tests and the crash test's child process
can import the very same handler.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

from bot.model.clock import Clock
from bot.model.contract import Deadline, Outcome, Seat, Session, Step, StepContext
from bot.play.guild_settings import GuildSettings
from bot.play.sessions import SeedSource, SessionService
from bot.storage import Database
from game_core.base import GameResult
from game_core.errors import IllegalMove

GAME = "counter"
GUILD = 1_000
CHANNEL = 2_000
ALICE = 11
BOB = 22
CAROL = 33
AI_USER = 99

# ``open_another()``: another adapter on the test's database, as a second process opens it.
OpenAnother = Callable[[], Awaitable[Database]]


class CounterGame:
    game = GAME

    def __init__(self) -> None:
        self.published: list[Outcome] = []
        self.steps_seen = 0
        # Set on every step, so a test can wait for an attempt that is then rolled back.
        self.stepped = asyncio.Event()
        self._published_more = asyncio.Event()
        # Called inside step (the transaction is open): lets a test run something there.
        self.during_step: Callable[[StepContext, dict[str, Any]], None] | None = None

    def step(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        self.steps_seen += 1
        self.stepped.set()
        if self.during_step is not None:
            self.during_step(ctx, action)
        if ctx.actor_id is not None and ctx.seat is None:
            raise IllegalMove("Only the players at this table can touch the counter.")
        count = int(ctx.session.state["n"])
        kind = action.get("type")
        if kind == "inc":
            by = int(action["by"])
            padding = {"pad": "x" * int(action["pad"])} if "pad" in action else {}
            return Step(
                state={"n": count + by, **padding},
                events=[{"type": "inc", "by": by, "tag": action.get("tag")}],
            )
        if kind == "illegal":
            raise IllegalMove("That move is not allowed.")
        if kind == "boom":
            raise RuntimeError("a bug inside step")
        if kind == "end":
            result = GameResult(
                ranks=list(action["ranks"]),
                winners=list(action.get("winners", [])),
                draw=bool(action.get("draw", False)),
                scores=action.get("scores"),
            )
            return Step(
                state={"n": count},
                events=[{"type": "end"}],
                status="finished",
                result=result,
                summary={"first_seat": 0, "line": f"{count}"},
            )
        if kind == "stop":
            return Step(state={"n": count}, events=[{"type": "stop"}], status="finished")
        if kind == "leave":
            seats = [
                replace(seat, has_left=seat.has_left or seat.seat == ctx.seat)
                for seat in ctx.session.seats
            ]
            return Step(state={"n": count}, events=[{"type": "left"}], seats=seats)
        if kind == "grow":
            return Step(state={"n": count, "pad": "x" * int(action["bytes"])})
        if kind == "unsaveable":
            return Step(state={"n": count + 1}, events=[{"type": "oops", "value": object()}])
        if kind == "schedule":
            timers = [
                Deadline(kind=t["kind"], due_at=ctx.now + float(t["in"]), action=t["action"])
                for t in action["timers"]
            ]
            return Step(state={"n": count}, events=[{"type": "schedule"}], deadlines=timers)
        raise IllegalMove(f"Unknown action {kind!r}.")

    def committed(self, outcome: Outcome) -> None:
        """The session service's commit listener: keeps what the system (a deadline) did."""
        if outcome.actor_id is None:
            self.published.append(outcome)
            self._published_more.set()

    async def wait_published(self, count: int, within: float = 5.0) -> list[Outcome]:
        """Wait (on an event, never a blind sleep) until ``count`` system outcomes landed."""
        async with asyncio.timeout(within):
            while len(self.published) < count:
                self._published_more.clear()
                await self._published_more.wait()
            return list(self.published)


def make_service(db: Database, clock: Clock, game: CounterGame) -> SessionService:
    service = SessionService(db, clock, GuildSettings(), SeedSource(7))
    service.register(game)
    service.on_commit(game.committed)
    return service


def seats(*users: int, ai: Sequence[int] = ()) -> list[Seat]:
    return [
        Seat(seat=index, user_id=user, display_name=f"player{user}", is_ai=user in ai)
        for index, user in enumerate(users)
    ]


async def new_counter(
    service: SessionService,
    *players: int,
    channel_id: int = CHANNEL,
    ai: Sequence[int] = (),
    deadlines: Sequence[Deadline] = (),
) -> Session:
    return await service.create(
        game=GAME,
        guild_id=GUILD,
        channel_id=channel_id,
        created_by=players[0],
        seats=seats(*players, ai=ai),
        state={"n": 0},
        status="active",
        deadlines=deadlines,
    )


async def snapshot(db: Database, session_id: int) -> dict[str, Any]:
    """Everything a move may touch, to prove a failed move touched nothing."""
    tables = {
        "session": ("SELECT state, status, version, updated_at FROM sessions WHERE id = ?"),
        "events": "SELECT version, actor_id, action, events FROM events WHERE session_id = ?"
        " ORDER BY version",
        "deadlines": "SELECT id, kind, due_at, action FROM deadlines WHERE session_id = ?"
        " ORDER BY id",
        "results": "SELECT id FROM results WHERE session_id = ?",
        "players": "SELECT seat, user_id, is_ai FROM session_players WHERE session_id = ?"
        " ORDER BY seat",
    }
    return {
        name: [tuple(row) for row in await db.fetch_all(sql, (session_id,))]
        for name, sql in tables.items()
    }
