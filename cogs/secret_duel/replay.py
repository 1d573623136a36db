"""A finished secret duel (Diceman, Dimension Duel), step by step, rebuilt from its log.

The game's own moves run again over the stored actions: each move gets the random
generator it had in play (``session_rng``: the session's seed and the version it moved
from), its actor and its time, so the engine rolls the same dice and the AI makes the
same secret pick, and the events each step produces are checked against the events the
game stored. The start is the one move not stored as an action of the game: it runs
``SecretDuelMoves.start`` with the options the finished game keeps
(``replay_options``), Tau either given (a rematch, a match's next game) or flipped for,
whichever gives the stored game. A log the rules do not reproduce is refused
(``ReplayUnavailable``) rather than shown wrong.

Each frame is the stored state as it stood after a move, drawn by the public message:
what players saw, so a choice shows only from the step that revealed it. A frame has
no clock: its round's deadline belonged to the game in play.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Generic

from bot.model.contract import LoggedMove, ReplayFrame, Seat, Session, Step, StepContext
from bot.model.errors import ReplayUnavailable, UserError
from bot.model.series import keep_series
from bot.play.guild_settings import GuildSettings
from bot.play.sessions import session_rng
from cogs.secret_duel.game import StateT
from cogs.secret_duel.moves import SecretDuelMoves
from game_core.base import Event
from game_core.errors import IllegalMove

# Moves that change nothing a replay shows (the round's warning is about its clock).
UNSHOWN = frozenset({"round_warning"})


class SecretDuelReplay(Generic[StateT]):
    """Rebuilds a finished duel of one game from its event log."""

    def __init__(self, moves: SecretDuelMoves[StateT]) -> None:
        self.moves = moves

    def frames(
        self, session: Session, log: list[LoggedMove], settings: GuildSettings
    ) -> list[ReplayFrame]:
        parsed = self.moves.parse(session)
        if parsed is None:
            raise ReplayUnavailable()
        try:
            return self._frames(session, log, settings, parsed[0])
        except (IllegalMove, UserError, KeyError, TypeError, ValueError) as error:
            raise ReplayUnavailable() from error

    def _frames(
        self, session: Session, log: list[LoggedMove], settings: GuildSettings, final: StateT
    ) -> list[ReplayFrame]:
        start = next(
            (index for index, move in enumerate(log) if _has(move.events, "game_started")),
            None,
        )
        if start is None:
            raise ReplayUnavailable()
        # The start's events may not tell the variants apart (the AI's first pick is
        # secret): the one whose whole game replays as stored is the one played.
        for step in self._starts(session, log[start], settings, final):
            shown = self._fold(session, step, log[start], log[start + 1 :], settings)
            if shown is not None:
                return shown
        raise ReplayUnavailable()

    def _fold(
        self,
        session: Session,
        step: Step,
        begun: LoggedMove,
        rest: list[LoggedMove],
        settings: GuildSettings,
    ) -> list[ReplayFrame] | None:
        """The frames from the start ``step`` on, or None where a move does not give what
        it stored."""
        state, status = step.state, step.status
        shown = [_frame(state, status, begun.events)]
        for move in rest:
            if status != "active":
                break  # what follows a finished game is its rematch's link, not play
            ctx = self._context(session, session.seats, state, move, settings)
            try:
                step = self.moves.step(ctx, dict(move.action))
            except (IllegalMove, UserError):
                return None  # refused now, so not the game that was played
            if _plain(step.events) != _plain(move.events):
                return None
            state, status = step.state, step.status
            if {event.get("type") for event in move.events} <= UNSHOWN:
                continue
            shown.append(_frame(state, status, move.events))
        if status != session.status or state.get("game") != session.state.get("game"):
            return None
        return shown

    def _starts(
        self, session: Session, move: LoggedMove, settings: GuildSettings, final: StateT
    ) -> list[Step]:
        """The move that began the game, run again: each variant that gives what it stored."""
        stored = [event for event in move.events if event.get("type") != "challenge_accepted"]
        swapped = any(
            event.get("type") == "seats" and event.get("swapped") for event in move.events
        )
        seats = _flipped(session.seats) if swapped else session.seats
        options = self.moves.rules.replay_options(final)
        variants: list[dict[str, Any]] = [options]
        if self.moves.rules.random_first_seat:
            # Tau (seat 0 at the end) was named by a rematch or a match's next game, or
            # the coin chose them.
            variants.append({**options, "tau": session.user_of(0).user_id})
        starts = []
        for variant in variants:
            ctx = self._context(session, seats, {}, move, settings)
            step = self.moves.start(ctx, dict(variant))
            if _plain(step.events) == _plain(stored):
                keep_series(session.state, step.state)
                starts.append(step)
        return starts

    @staticmethod
    def _context(
        session: Session,
        seats: tuple[Seat, ...],
        state: dict[str, Any],
        move: LoggedMove,
        settings: GuildSettings,
    ) -> StepContext:
        """The move's context as it was in play: the session as it stood before the move
        (its version gives the move's random generator), the actor, the time."""
        before = replace(
            session, state=state, status="active", version=move.version - 1, seats=seats
        )
        return StepContext(
            session=before,
            actor_id=move.actor_id,
            now=move.created_at,
            rng=session_rng(before),
            guild_settings=settings,
        )


def _plain(events: list[Event]) -> Any:
    """Events as stored (through JSON: tuples become lists), to compare with the log."""
    return json.loads(json.dumps(events))


def _has(events: list[Event], kind: str) -> bool:
    return any(event.get("type") == kind for event in events)


def _flipped(seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
    """The seats before the start swapped them (Tau is seat 0 once the game begins)."""
    return tuple(
        sorted((replace(seat, seat=1 - seat.seat) for seat in seats), key=lambda s: s.seat)
    )


def _frame(state: dict[str, Any], status: Any, events: list[Event]) -> ReplayFrame:
    ui = dict(state.get("ui") or {})
    ui["deadline_at"] = 0.0
    ui["warned"] = False
    return ReplayFrame(state={**state, "ui": ui}, status=status, events=list(events))
