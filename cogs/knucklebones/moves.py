"""What runs inside a Knucklebones move's transaction (rules in ``game_core.knucklebones``):
the handler's ``step`` and ``follow_up``, the turn's timers and the stored state. Nothing
here talks to Discord; ``cog`` hands these to the session service.

The session state is a ``Table``: the engine's state plus what the bot adds (the AI level,
the current turn's deadline, whether its warning went out, per-seat column picks for the
stats). Seat 0 is the challenger (or the human facing the AI), seat 1 the opponent.

Actions ``step`` accepts:

- ``{"type": "place", "column": 0-2, "turn": n}`` from a player's button press; ``turn`` is
  the board the press was made on, so an outdated board or a double press moves nothing.
- ``{"type": "forfeit"}`` from either player (the ``/knucklebones forfeit`` command).
- System actions, fired by durable deadlines: ``{"type": "ai_move", "turn": n}`` (the AI
  plays ``ai_delay`` seconds after its turn begins, ~0.7 s), ``{"type": "warn", "turn": n}``
  and ``{"type": "timeout", "turn": n}``.
- While the session is a pending challenge, the shared challenge actions.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any, Literal

from pydantic import BaseModel, Field

from bot.i18n import N_, _, number
from bot.model.command_mentions import command_mention
from bot.model.contract import Deadline, NewSession, Session, Step, StepContext
from bot.model.errors import NotYourGame, StaleControl, UserError
from bot.model.series import (
    Series,
    keep_series,
    load_series,
    match_over_after,
    next_in_match,
    rematch_after,
    series_of,
    with_series,
)
from bot.model.text import escape
from bot.play.guild_settings import GuildSettings
from bot.ui.challenges import (
    challenge_step,
    is_challenge,
    refuse_answered_challenge,
    refuse_next_game,
    refuse_unfinished,
    rematch_challenge,
)
from cogs.knucklebones import render
from game_core import knucklebones as kb
from game_core.ai import knucklebones as kb_ai
from game_core.base import Event
from game_core.errors import IllegalMove

# The AI's move is a durable deadline this far ahead: quick enough to feel like an
# answer, slow enough that the player sees their own move land first. Every function that
# schedules a turn takes ``ai_delay`` (this by default): the cog passes its bot's own
# ``AI_MOVE_DELAY``, which a bench may set on that bot's copy of the extension.
AI_MOVE_DELAY = 0.7
# The turn warning goes out this long before the timeout (capped to a fifth of the turn,
# so a short turn still leaves the warned player most of their time).
WARNING_LEAD_SECONDS = 60.0
WARNING_LEAD_FRACTION = 0.2

FirstChoice = Literal["random", "me", "them"]
AiLevel = Literal["easy", "medium", "hard"]

BOARD_MOVED_ON = N_(
    "That board has moved on (it is turn {turn} now), so your press was not applied. "
    "Use the buttons on the updated board."
)


class Table(BaseModel):
    """A running or finished game as stored in the session row."""

    engine: kb.KnucklebonesState
    first_choice: FirstChoice = "random"
    ai_level: AiLevel | None = None
    ai_seat: int | None = None
    # When the current (human) turn times out; None on the AI's turn and at the end.
    turn_due_at: float | None = None
    warned_turn: int | None = None
    # For /stats: how often each seat used each column, and how many dice it knocked out.
    column_picks: list[list[int]] = Field(default_factory=lambda: [[0, 0, 0], [0, 0, 0]])
    knocked_out: list[int] = Field(default_factory=lambda: [0, 0])

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def first_seat_for(choice: str) -> int | None:
    """``first`` as the command says it (from seat 0's point of view) -> the engine's seat."""
    if choice == "me":
        return 0
    if choice == "them":
        return 1
    if choice == "random":
        return None
    raise IllegalMove("Who moves first must be random, me or them.")


def warning_lead(timeout_seconds: float) -> float:
    return min(WARNING_LEAD_SECONDS, timeout_seconds * WARNING_LEAD_FRACTION)


def schedule_turn(
    table: Table, now: float, settings: GuildSettings, *, ai_delay: float = AI_MOVE_DELAY
) -> list[Deadline]:
    """Set the turn's timing on ``table`` (in place) and return the timers it needs."""
    engine = table.engine
    table.warned_turn = None
    if engine.phase == "finished":
        table.turn_due_at = None
        return []
    turn = engine.turn
    if engine.current_player == table.ai_seat:
        table.turn_due_at = None
        return [
            Deadline("ai_move", now + ai_delay, {"type": "ai_move", "turn": turn}),
        ]
    timeout = float(settings.turn_timeout_seconds)
    due = now + timeout
    table.turn_due_at = due
    return [
        Deadline("turn_warning", due - warning_lead(timeout), {"type": "warn", "turn": turn}),
        Deadline("turn_timeout", due, {"type": "timeout", "turn": turn}),
    ]


def open_table(
    rng: random.Random,
    now: float,
    settings: GuildSettings,
    *,
    first_choice: str,
    ai_level: AiLevel | None = None,
    ai_seat: int | None = None,
    ai_delay: float = AI_MOVE_DELAY,
) -> tuple[Table, list[Event], list[Deadline]]:
    engine, events = kb.new_game(rng, first_seat_for(first_choice))
    table = Table(
        engine=engine,
        first_choice=first_choice,  # type: ignore[arg-type]
        ai_level=ai_level,
        ai_seat=ai_seat,
    )
    deadlines = schedule_turn(table, now, settings, ai_delay=ai_delay)
    return table, events, deadlines


def summary_of(table: Table) -> dict[str, Any]:
    """What /stats and /history show for a finished game (keys documented in the report)."""
    view = kb.public_view(table.engine)
    return {
        "score_line": render.score_line(view["scores"]),
        "first_seat": table.engine.first_player,
        "scores": list(view["scores"]),
        "turns": table.engine.turn,
        "column_picks": [list(picks) for picks in table.column_picks],
        "knocked_out": list(table.knocked_out),
        "ai_level": table.ai_level,
    }


def two_names(session: Session) -> dict[str, str]:
    """The two players' names (escaped), seat 0 first, for a sentence naming both."""
    first, second = (escape(session.user_of(seat).display_name) for seat in (0, 1))
    return {"player": first, "opponent": second}


def start_commands() -> dict[str, str]:
    """The two commands that start a game of one's own, as mentions, for a refusal."""
    return {
        "challenge": command_mention("knucklebones", "challenge"),
        "ai": command_mention("knucklebones", "ai"),
    }


# ---------------------------------------------------------------------------------------
# The session handler's step (pure: state, action, injected rng and time)
# ---------------------------------------------------------------------------------------


def step(ctx: StepContext, action: dict[str, Any], *, ai_delay: float = AI_MOVE_DELAY) -> Step:
    """The handler's ``step``: one action on a Knucklebones session (see the module doc).
    A game of a match or a rematch chain keeps its series for its whole life."""
    done = _step(ctx, action, ai_delay)
    keep_series(ctx.session.state, done.state)
    return done


def _step(ctx: StepContext, action: dict[str, Any], ai_delay: float) -> Step:
    if is_challenge(ctx.session.state):
        return challenge_step(ctx, action, partial(_start_from_challenge, ai_delay=ai_delay))
    refuse_answered_challenge(ctx, action)
    table = Table.model_validate(ctx.session.state)
    kind = action.get("type")
    if kind == "place":
        return _place(ctx, table, action, ai_delay)
    if kind == "forfeit":
        return _forfeit(ctx, table)
    if ctx.actor_id is not None:
        raise IllegalMove("That is not something a player can do in Knucklebones.")
    if action.get("turn") != table.engine.turn:
        raise IllegalMove("That timer belongs to an earlier turn.")
    if kind == "ai_move":
        return _ai_move(ctx, table, ai_delay)
    if kind == "warn":
        return _warn(ctx, table)
    if kind == "timeout":
        engine, events = kb.apply(
            table.engine, kb.Timeout(player=table.engine.current_player), ctx.rng
        )
        return _finish(table, engine, events)
    raise IllegalMove("That is not a Knucklebones move.")


def _start_from_challenge(ctx: StepContext, options: dict[str, Any], *, ai_delay: float) -> Step:
    table, events, deadlines = open_table(
        ctx.rng,
        ctx.now,
        ctx.guild_settings,
        first_choice=str(options.get("first", "random")),
        ai_delay=ai_delay,
    )
    return Step(state=table.dump(), events=events, status="active", deadlines=deadlines)


def _place(ctx: StepContext, table: Table, action: dict[str, Any], ai_delay: float) -> Step:
    seat = ctx.seat
    if seat is None:
        raise NotYourGame(
            _(
                "This is not your game: it is between {player} and {opponent}. Start your "
                "own with {challenge} or {ai}."
            ).format(**two_names(ctx.session), **start_commands())
        )
    engine = table.engine
    if action.get("turn") != engine.turn or engine.phase == "finished":
        raise StaleControl(_(BOARD_MOVED_ON).format(turn=number(engine.turn)))
    if seat != engine.current_player:
        mover = escape(ctx.session.user_of(engine.current_player).display_name)
        raise NotYourGame(
            _("It is not your turn: {player} is placing a die right now.").format(player=mover)
        )
    column = action.get("column")
    if not kb.is_int(column) or column not in (0, 1, 2):
        raise IllegalMove("Choose one of your three columns (1, 2 or 3).")
    return _apply_place(ctx, table, seat, column, ai_delay)


def _ai_move(ctx: StepContext, table: Table, ai_delay: float) -> Step:
    engine = table.engine
    seat = engine.current_player
    if seat != table.ai_seat or table.ai_level is None or engine.die is None:
        raise IllegalMove("It is not the AI's turn.")
    column = kb_ai.choose_for_state(engine, seat, table.ai_level, ctx.rng)
    return _apply_place(ctx, table, seat, column, ai_delay)


def _apply_place(ctx: StepContext, table: Table, seat: int, column: int, ai_delay: float) -> Step:
    engine, events = kb.apply(table.engine, kb.place_action(seat, column), ctx.rng)
    table.column_picks[seat][column] += 1
    for event in events:
        if event.get("type") == "placed":
            table.knocked_out[seat] += int(event.get("removed", 0))
    if engine.phase == "finished":
        return _finish(table, engine, events)
    table.engine = engine
    deadlines = schedule_turn(table, ctx.now, ctx.guild_settings, ai_delay=ai_delay)
    return Step(state=table.dump(), events=events, status="active", deadlines=deadlines)


def _forfeit(ctx: StepContext, table: Table) -> Step:
    seat = ctx.seat
    if seat is None:
        raise NotYourGame()
    engine, events = kb.apply(table.engine, kb.Forfeit(player=seat), ctx.rng)
    return _finish(table, engine, events)


def _warn(ctx: StepContext, table: Table) -> Step:
    due = table.turn_due_at
    if table.warned_turn == table.engine.turn or due is None:
        raise IllegalMove("This turn's warning already went out.")
    if ctx.now >= due:
        # Both timers passed (the bot was down): the timeout speaks for itself.
        raise IllegalMove("Too late to warn: the turn has already timed out.")
    table.warned_turn = table.engine.turn
    event: Event = {
        "type": "turn_warning",
        "player": table.engine.current_player,
        "turn": table.engine.turn,
        "due_at": due,
    }
    return Step(state=table.dump(), events=[event], status="active", deadlines=None)


def _finish(table: Table, engine: kb.KnucklebonesState, events: list[Event]) -> Step:
    table.engine = engine
    table.turn_due_at = None
    result = kb.result(engine)
    assert result is not None
    return Step(
        state=table.dump(),
        events=events,
        status="finished",
        deadlines=[],
        result=result,
        summary=summary_of(table),
    )


# ---------------------------------------------------------------------------------------
# Playing on: a rematch, or a match's next game (SessionService.follow_up)
# ---------------------------------------------------------------------------------------


def winner_of(session: Session, table: Table) -> int | None:
    """The user who won a finished game (None: a draw)."""
    result = kb.result(table.engine)
    if result is None or result.draw or not result.winners:
        return None
    return session.user_of(result.winners[0]).user_id


def follow_up(
    ctx: StepContext, action: dict[str, Any], *, ai_delay: float = AI_MOVE_DELAY
) -> NewSession:
    """The game a finished one leads to: the match's next game (at once), or a rematch (at
    once against the AI; a challenge the other player accepts otherwise). The player who
    moved second moves first; the AI's level and the match's length carry over."""
    previous = ctx.session
    if ctx.seat is None:
        raise NotYourGame(
            _(
                "Only {player} and {opponent} can play on from this game. Start your own "
                "with {challenge} or {ai}."
            ).format(**two_names(previous), **start_commands())
        )
    refuse_unfinished(previous)
    table = Table.model_validate(previous.state)
    winner = winner_of(previous, table)
    series = series_of(
        (previous.user_of(0).user_id, previous.user_of(1).user_id), load_series(previous.state)
    )
    first_seat = 1 - table.engine.first_player
    kind = action.get("type")
    if kind == "next":
        refuse_next_game(series, winner)
        return _new_table(
            ctx, table, next_in_match(series, winner, previous.id), first_seat, ai_delay
        )
    if kind != "rematch":
        raise IllegalMove("That is not something to do with a finished Knucklebones game.")
    if series.is_match and not match_over_after(series, winner):
        # Translators: **Start game {number}** is the label of the button that starts the
        # series' next game.
        raise UserError(
            _("The series goes on: press **Start game {number}**.").format(
                number=number(series.game + 1)
            )
        )
    again = rematch_after(series, winner, previous.id)
    if previous.vs_ai:
        return _new_table(ctx, table, again, first_seat, ai_delay)
    first_user = previous.user_of(first_seat).user_id
    options = {"first": "me" if first_user == ctx.actor_id else "them"}
    return rematch_challenge(ctx, action, options, again)


def _new_table(
    ctx: StepContext, table: Table, series: Series, first_seat: int, ai_delay: float
) -> NewSession:
    """A game that starts at once, with the previous game's seats."""
    new, events, deadlines = open_table(
        ctx.rng,
        ctx.now,
        ctx.guild_settings,
        first_choice="me" if first_seat == 0 else "them",
        ai_level=table.ai_level,
        ai_seat=table.ai_seat,
        ai_delay=ai_delay,
    )
    players = [seat for seat in ctx.session.seats if not seat.is_ai]
    return NewSession(
        seats=list(ctx.session.seats),
        state=with_series(new.dump(), series),
        status="active",
        deadlines=deadlines,
        events=events,
        ping=[seat.user_id for seat in players if seat.user_id != ctx.actor_id],
    )
