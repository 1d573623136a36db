"""A finished Weighted Dice table, step by step, rebuilt from its event log.

The table's own moves run again over the stored actions, each with the dice it rolled in
play (the cog's ``dice_source``: the session's seed and the version it moved from), and
the events each produces are checked against the stored ones. The start (the host's
Start on the lobby) is run again the same way, with the table's stored options and its
seats as they were then (a seat is kept when its player leaves, marked as left). A log the
rules do not reproduce is refused (``ReplayUnavailable``) rather than shown wrong. The
lobby before the start is not replayed: the game begins with the roll-off for the house.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from bot.model.contract import LoggedMove, ReplayFrame, Session, SessionStatus, StepContext
from bot.model.errors import ReplayUnavailable, UserError
from bot.play.guild_settings import GuildSettings
from bot.play.sessions import session_rng
from cogs.weighted_dice import moves
from cogs.weighted_dice.moves import DiceSource
from cogs.weighted_dice.state import LobbyState, TableState, load_state
from game_core.base import Event
from game_core.errors import IllegalMove


def frames(
    session: Session, log: list[LoggedMove], settings: GuildSettings, dice: DiceSource
) -> list[ReplayFrame]:
    """One frame per move from the start on: the stored table as it stood then."""
    final = load_state(session.state)
    if not isinstance(final, TableState):
        raise ReplayUnavailable()
    try:
        return _frames(session, log, settings, dice, final)
    except (IllegalMove, UserError, KeyError, TypeError, ValueError) as error:
        raise ReplayUnavailable() from error


def _frames(
    session: Session,
    log: list[LoggedMove],
    settings: GuildSettings,
    dice: DiceSource,
    final: TableState,
) -> list[ReplayFrame]:
    start = next(
        (index for index, move in enumerate(log) if move.action.get("type") == "start"), None
    )
    if start is None:
        raise ReplayUnavailable()
    # Everyone seated at the start is still in the stored seats (leaving only marks them).
    seats = tuple(replace(seat, has_left=False) for seat in session.seats)
    lobby = LobbyState(host=final.host, expires_at=0.0, options=final.options)
    state: dict[str, Any] = lobby.model_dump(mode="json")
    status: SessionStatus = "pending"
    shown: list[ReplayFrame] = []
    for move in log[start:]:
        if status not in ("pending", "active"):
            break  # what follows a finished table is its next table's link, not play
        before = replace(session, state=state, status=status, version=move.version - 1, seats=seats)
        ctx = StepContext(
            session=before,
            actor_id=move.actor_id,
            now=move.created_at,
            rng=session_rng(before),
            guild_settings=settings,
        )
        step = moves.step(ctx, dict(move.action), dice)
        if _plain(step.events) != _plain(move.events):
            raise ReplayUnavailable()
        state, status = step.state, step.status
        if step.seats is not None:
            seats = tuple(step.seats)
        # No clock in a replay: the phase's time belonged to the table in play.
        shown.append(
            ReplayFrame(
                state={**state, "deadline_at": None},
                status=step.status,
                events=list(move.events),
                seats=seats,
            )
        )
    if status != session.status or state.get("engine") != session.state.get("engine"):
        raise ReplayUnavailable()
    return shown


def _plain(events: list[Event]) -> Any:
    """Events as stored (through JSON: tuples become lists), to compare with the log."""
    return json.loads(json.dumps(events))
