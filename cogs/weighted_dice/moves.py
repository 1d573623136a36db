"""Weighted Dice moves: what runs inside a move's transaction, without Discord.

``step(ctx, action, dice)`` turns a stored session and one action into a ``Step``: in the
lobby, joining, leaving, starting (the engine's d20 roll-off) and the lobby's expiry; at the
table, the house's setup, a bet, leaving, and the house-setup and betting timers, each a
durable ``Deadline`` armed from the table's own options when the phase or round changes.
``follow_up`` opens the Play again lobby and ``rejoin_action`` joins an invited player to it.

``dice`` is the ``random.Random`` the engine rolls with, asked per transaction: the
session's seeded ``ctx.rng`` (``session_dice``) unless the cog was given another source
(see ``cogs.weighted_dice.cog``).

The checks a control makes before it shows the house's panel or the bet form
(``house_engine``, ``bettor_seat``) read the stored session too; the move checks again
inside its transaction, so they only spare a player a panel or a form that would fail.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bot.i18n import _, number
from bot.model.command_mentions import command_mention
from bot.model.contract import Deadline, NewSession, Seat, Session, Step, StepContext
from bot.model.errors import NotYourGame, UserError
from cogs.weighted_dice.render import raw_name, seat_names
from cogs.weighted_dice.state import (
    Draft,
    LobbyState,
    TableOptions,
    TableState,
    legacy_options,
    load_state,
    parse_amount,
    with_notices,
)
from game_core import weighted_dice as wd
from game_core.errors import IllegalMove

DiceSource = Callable[[StepContext], random.Random]


def new_command() -> str:
    """``/weighted new`` as a mention each reader's client names in their language."""
    return command_mention("weighted", "new")


def _round_number(value: object) -> int | str:
    """A round number from an action (a stored value; shown as given if not a number)."""
    return value if isinstance(value, int) else str(value)


def session_dice(ctx: StepContext) -> random.Random:
    return ctx.rng


def refuse_second_bet(session: Session, engine: wd.WeightedDiceState, seat: int) -> None:
    """Bets are final: a second one is refused, naming the roller the first one backs."""
    placed = next((bet for bet in engine.bets if bet.player == seat), None)
    if placed is None:
        return
    roller = seat_names(session.seats)[engine.rollers[placed.roller]]
    raise IllegalMove(
        "You already bet {amount} on {roller}: bets are final.",
        {"amount": placed.amount, "roller": roller},
    )


# -- the step ---------------------------------------------------------------------------------


def step(ctx: StepContext, action: dict[str, Any], dice: DiceSource = session_dice) -> Step:
    state = load_state(ctx.session.state)
    if isinstance(state, LobbyState):
        return _lobby_step(ctx, state, action, dice)
    return _table_step(ctx, state, action, dice)


def _lobby_step(
    ctx: StepContext, lobby: LobbyState, action: dict[str, Any], dice: DiceSource
) -> Step:
    kind = action.get("type")
    seats = list(ctx.session.seats)
    if kind == "lobby_expire":
        if ctx.actor_id is not None:
            raise IllegalMove("Only the timer can close a lobby.")
        closed = lobby.model_copy(update={"closed": "expired"})
        return Step(
            state=closed.model_dump(mode="json"),
            events=[{"type": "lobby_expired", "players": len(seats)}],
            status="cancelled",
            deadlines=[],
        )
    if ctx.actor_id is None:
        raise IllegalMove("That timer no longer applies.")
    if kind == "join":
        if ctx.seat is not None:
            raise UserError(_("You are already at this table."))
        if len(seats) >= wd.MAX_PLAYERS:
            raise UserError(
                _("This table is full ({players} players).").format(players=number(wd.MAX_PLAYERS))
            )
        # Stored, so never translated: a seat's name is what the player is called.
        name = str(action.get("name") or "").strip()[:100] or f"Player {len(seats) + 1}"
        seats.append(Seat(seat=len(seats), user_id=ctx.actor_id, display_name=name))
        return Step(
            state=lobby.model_dump(mode="json"),
            events=[{"type": "joined", "user": ctx.actor_id, "seat": len(seats) - 1}],
            status="pending",
            seats=seats,
        )
    if kind == "leave":
        if ctx.seat is None:
            raise NotYourGame(_("You are not in this lobby."))
        if ctx.actor_id == lobby.host:
            closed = lobby.model_copy(update={"closed": "host_left"})
            return Step(
                state=closed.model_dump(mode="json"),
                events=[{"type": "lobby_closed", "reason": "host_left"}],
                status="cancelled",
                deadlines=[],
            )
        # Seats stay in join order: everyone after the leaver moves up one.
        remaining = [seat for seat in seats if seat.user_id != ctx.actor_id]
        renumbered = [
            Seat(seat=index, user_id=seat.user_id, display_name=seat.display_name)
            for index, seat in enumerate(remaining)
        ]
        return Step(
            state=lobby.model_dump(mode="json"),
            events=[{"type": "left_lobby", "user": ctx.actor_id}],
            status="pending",
            seats=renumbered,
        )
    if kind == "start":
        if ctx.actor_id != lobby.host:
            raise NotYourGame(
                _("Only the host ({host}) can start the game.").format(host=f"<@{lobby.host}>")
            )
        if len(seats) < wd.MIN_PLAYERS:
            if len(seats) == 1:
                raise IllegalMove(
                    "Weighted Dice needs at least {needed} players: 1 has joined.",
                    {"needed": wd.MIN_PLAYERS},
                )
            raise IllegalMove(
                "Weighted Dice needs at least {needed} players: {joined} have joined.",
                {"needed": wd.MIN_PLAYERS, "joined": len(seats)},
            )
        options = lobby.options or legacy_options(ctx.guild_settings)
        engine, events = wd.new_game(len(seats), dice(ctx), target=options.target_for(len(seats)))
        deadlines, due = timers(ctx, options, engine)
        table = TableState(
            host=lobby.host,
            engine=engine,
            roll_off=[event for event in events if event["type"] == "roll_off"],
            first_house=engine.house,
            deadline_at=due,
            options=options,
        )
        return Step(
            state=table.model_dump(mode="json"),
            events=events,
            status="active",
            deadlines=deadlines,
        )
    raise IllegalMove("The game has not started yet: wait for the host to press Start.")


def _table_step(
    ctx: StepContext, table: TableState, action: dict[str, Any], dice: DiceSource
) -> Step:
    engine = table.engine
    move = _engine_action(ctx, engine, action)
    new, events = wd.apply(engine, move, dice(ctx))
    deadlines: list[Deadline] | None = None
    due = table.deadline_at
    if new.phase != engine.phase or new.round != engine.round:
        options = table.options or legacy_options(ctx.guild_settings)
        deadlines, due = timers(ctx, options, new)
    updated = table.model_copy(
        update={
            "engine": new,
            "deadline_at": due,
            "notices": with_notices(table.notices, events),
        }
    )
    step = Step(
        state=updated.model_dump(mode="json"),
        events=events,
        status="active",
        deadlines=deadlines,
    )
    if new.active != engine.active:
        step.seats = [
            replace(seat, has_left=not new.active[seat.seat]) for seat in ctx.session.seats
        ]
    outcome = wd.result(new)
    if outcome is not None:
        step.status = "finished"
        step.result = outcome
        step.summary = _summary(ctx.session, new, table.first_house)
    return step


def _engine_action(
    ctx: StepContext, engine: wd.WeightedDiceState, action: dict[str, Any]
) -> wd.AnyAction:
    kind = action.get("type")
    if kind in ("house_timeout", "close_betting"):
        if ctx.actor_id is not None:
            raise IllegalMove("Only the timer can do that.")
        if action.get("round") != engine.round:
            raise IllegalMove("That timer belongs to a round that is over.")
        return wd.HouseTimeout() if kind == "house_timeout" else wd.CloseBetting()
    if kind in ("join", "start", "lobby_expire"):
        raise IllegalMove("This game has already started.")
    seat = ctx.seat
    if seat is None:
        raise NotYourGame(_("You are not playing at this table."))
    if kind == "leave":
        return wd.Leave(player=seat)
    if kind == "setup":
        if action.get("round") != engine.round:
            raise IllegalMove(
                "That setup was for round {old}, which is over: the table is on round {round}.",
                {"old": _round_number(action.get("round")), "round": engine.round},
            )
        return wd.Setup(
            player=seat,
            rollers=[int(r) for r in action["rollers"]],
            dice=[int(d) for d in action["dice"]],
        )
    if kind == "bet":
        if action.get("round") != engine.round:
            raise IllegalMove(
                "Betting for round {old} is closed: the table is on round {round} now.",
                {"old": _round_number(action.get("round")), "round": engine.round},
            )
        refuse_second_bet(ctx.session, engine, seat)
        amount = parse_amount(str(action.get("amount", "")), engine.scores[seat])
        return wd.Bet(player=seat, roller=int(action["side"]), amount=amount)
    raise IllegalMove("That is not a Weighted Dice move.")


def timers(
    ctx: StepContext, options: TableOptions, state: wd.WeightedDiceState
) -> tuple[list[Deadline], float | None]:
    """The timer of the phase the table is in, from the table's own options."""
    if state.phase == "setup":
        due = ctx.now + options.house_setup_seconds
        action = {"type": "house_timeout", "round": state.round}
        return [Deadline(kind="house_setup", due_at=due, action=action)], due
    if state.phase == "betting":
        due = ctx.now + options.betting_window_seconds
        action = {"type": "close_betting", "round": state.round}
        return [Deadline(kind="betting_window", due_at=due, action=action)], due
    return [], None


def _summary(session: Session, state: wd.WeightedDiceState, first_house: int) -> dict[str, Any]:
    outcome = wd.result(state)
    assert outcome is not None
    order = sorted(range(state.n_players), key=lambda seat: (outcome.ranks[seat], seat))
    top = " · ".join(
        f"{session.user_of(seat).display_name} {state.scores[seat]}" for seat in order[:3]
    )
    return {
        "score_line": top,
        "scores": list(state.scores),
        "rounds": state.rounds_played,
        "first_seat": first_house,
    }


# -- Play again -------------------------------------------------------------------------------


def follow_up(ctx: StepContext, action: dict[str, Any]) -> NewSession:
    """Play again: a new lobby hosted by whoever pressed, the other players of the
    finished table invited (each presses Join; anyone else may join too)."""
    previous = ctx.session
    if ctx.seat is None:
        raise NotYourGame(
            _(
                "Only the players of this table can open the next one: open your own with "
                "{command}."
            ).format(command=new_command())
        )
    if previous.status != "finished" or not isinstance(load_state(previous.state), TableState):
        raise UserError(
            _("This table ended without a result: open a new one with {command}.").format(
                command=new_command()
            )
        )
    if action.get("type") != "lobby":
        raise IllegalMove("That is not something to do with a finished Weighted Dice table.")
    expires_at = ctx.now + ctx.guild_settings.lobby_expiry_seconds
    me = previous.user_of(ctx.seat)
    name = str(action.get("name") or "").strip()[:100] or me.display_name
    invited = [seat.user_id for seat in previous.seats if seat.user_id != me.user_id]
    table = load_state(previous.state)
    assert isinstance(table, TableState)
    # The table's options carry over (a table from before options had none: the
    # server's settings apply, as they did to it).
    lobby = LobbyState(
        host=me.user_id, expires_at=expires_at, options=table.options, invited=invited
    )
    return NewSession(
        seats=[Seat(seat=0, user_id=me.user_id, display_name=name)],
        state=lobby.model_dump(mode="json"),
        status="pending",
        deadlines=[
            Deadline(kind="lobby_expiry", due_at=expires_at, action={"type": "lobby_expire"})
        ],
        events=[{"type": "lobby_opened", "host": me.user_id, "again": previous.id}],
        ping=invited,
    )


def rejoin_action(follow: Session, user_id: int) -> dict[str, Any] | None:
    """Play again pressed on a table whose new lobby is open: join it, if invited."""
    state = load_state(follow.state)
    if follow.status != "pending" or not isinstance(state, LobbyState):
        return None
    if user_id not in state.invited or follow.seat_of(user_id) is not None:
        return None
    return {"type": "join"}


# -- before a move: the checks behind the house's panel and the bet form -----------------------


def house_engine(
    session: Session, user_id: int, round_number: int, draft: Draft
) -> wd.WeightedDiceState:
    """The engine state, if ``user_id`` is the house setting up this round and every
    roller ``draft`` names may roll."""
    state = load_state(session.state)
    if not session.is_open or not isinstance(state, TableState):
        raise UserError(_("This table is no longer running."))
    engine = state.engine
    if engine.round != round_number or engine.phase != "setup":
        raise UserError(
            _(
                "Round {round} is already set up or over: look at the table for the current round."
            ).format(round=number(round_number))
        )
    seat = session.seat_of(user_id)
    if seat != engine.house:
        house = raw_name(session, engine.house)
        raise NotYourGame(_("Only the house ({house}) sets up this round.").format(house=house))
    for roller in draft.rollers:
        if roller >= engine.n_players or not engine.active[roller] or roller == engine.house:
            raise IllegalMove("That player cannot roll this round: pick another.")
    return engine


def bettor_seat(
    session: Session, user_id: int, round_number: int, side: int
) -> tuple[wd.WeightedDiceState, int]:
    """The engine state and ``user_id``'s seat, if they may bet on ``side`` this round."""
    state = load_state(session.state)
    if not session.is_open or not isinstance(state, TableState):
        raise UserError(_("This table is no longer running."))
    engine = state.engine
    if engine.round != round_number or engine.phase != "betting":
        raise IllegalMove("Betting for round {round} is closed.", {"round": round_number})
    seat = session.seat_of(user_id)
    if seat is None:
        raise NotYourGame(_("You are not playing at this table."))
    # Ask the engine (on a throwaway copy) whether this player may bet at all, so the
    # house, a roller or a second bet is refused before a modal is shown.
    refuse_second_bet(session, engine, seat)
    wd.apply(engine, wd.Bet(player=seat, roller=side, amount=1), random.Random(0))
    return engine, seat
