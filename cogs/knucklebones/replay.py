"""A finished Knucklebones game, step by step, rebuilt from its event log.

A replay is a fold of the stored events through the engine's own rules: the game starts
from its ``game_started`` event (who moves first) and every ``placed`` event is applied
with ``kb.apply``, handed the die the log says was rolled next. Nothing new is stored
for it, so a game finished before replays existed replays the same way. Each step the
engine takes is checked against the event the game stored: a log the rules do not
reproduce is refused rather than shown wrong (``ReplayUnavailable``).
"""

from __future__ import annotations

import random
from typing import Any

from bot.model.contract import LoggedMove, ReplayFrame, Session
from bot.model.errors import ReplayUnavailable
from bot.model.series import FOLLOW_UP_KEY
from cogs.knucklebones.moves import Table
from game_core import knucklebones as kb
from game_core.base import Event
from game_core.errors import IllegalMove


class LoggedDice(random.Random):
    """The faces the log says were rolled, in order: what the engine rolls in a replay
    (``game_core.dice.roll`` asks a subclass through its ``randint``)."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self._faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        if not self._faces:
            raise ReplayUnavailable()
        face = self._faces.pop(0)
        if not a <= face <= b:
            raise ReplayUnavailable()
        return face


def _rolled_after(events: list[Event], index: int) -> list[int]:
    """The die rolled right after event ``index`` of one move (none when the game ended)."""
    return [
        int(event["face"])
        for event in events[index + 1 : index + 2]
        if event.get("type") == "rolled"
    ]


def _same_placement(produced: list[Event], stored: Event) -> bool:
    made = next((event for event in produced if event.get("type") == "placed"), None)
    keys = ("player", "column", "face", "removed", "scores")
    return made is not None and all(made.get(key) == stored.get(key) for key in keys)


def _fold(engine: kb.KnucklebonesState | None, events: list[Event]) -> kb.KnucklebonesState | None:
    """The engine after one move's events (None before the game began)."""
    for index, event in enumerate(events):
        kind = event.get("type")
        if kind == "game_started":
            faces = _rolled_after(events, index)
            engine, _ = kb.new_game(LoggedDice(faces), int(event["first_player"]))
        elif kind == "placed":
            if engine is None:
                raise ReplayUnavailable()
            action = kb.place_action(int(event["player"]), int(event["column"]))
            engine, produced = kb.apply(engine, action, LoggedDice(_rolled_after(events, index)))
            if not _same_placement(produced, event):
                raise ReplayUnavailable()
        elif kind == "game_over" and event.get("reason") in ("timeout", "forfeit"):
            if engine is None:
                raise ReplayUnavailable()
            player = int(event["player"])
            ending = kb.Timeout(player=player) if event["reason"] == "timeout" else None
            engine, _ = kb.apply(engine, ending or kb.Forfeit(player=player), LoggedDice([]))
    return engine


def frames(session: Session, log: list[LoggedMove]) -> list[ReplayFrame]:
    """One frame per move that changed the board (the start, each die placed, a forfeit
    or timeout): the stored state as it stood then, as ``render`` reads it."""
    final: dict[str, Any] = session.state
    table = Table.model_validate(final)
    engine: kb.KnucklebonesState | None = None
    shown: list[ReplayFrame] = []
    try:
        for move in log:
            before = engine
            engine = _fold(engine, move.events)
            if engine is None or engine is before:
                continue
            # No timer in a replay: the turn's clock belonged to the game in play.
            step = table.model_copy(update={"engine": engine, "turn_due_at": None})
            step.warned_turn = None
            finished = engine.phase == "finished"
            shown.append(
                ReplayFrame(
                    # The rest of the stored state (a match's series) stays as stored,
                    # but not the rematch asked for after the game: not part of its play.
                    state={
                        **{k: v for k, v in final.items() if k != FOLLOW_UP_KEY},
                        **step.dump(),
                    },
                    status=session.status if finished else "active",
                    events=list(move.events),
                )
            )
    except (KeyError, TypeError, ValueError, IllegalMove) as error:
        raise ReplayUnavailable() from error
    if not shown or shown[-1].state["engine"] != final["engine"]:
        raise ReplayUnavailable()
    return shown
