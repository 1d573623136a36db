"""What runs inside a secret duel's move, in the session's transaction: the step (the
challenge, the start, lock-ins, the AI's secret pick, warnings, timeouts, forfeits, the
result), the follow-up (a rematch or a match's next game), the round's timers, and reading
the stored envelope (``cogs.secret_duel.state``). No Discord here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Generic

from bot.i18n import _, list_of, number
from bot.model.command_mentions import command_mention
from bot.model.contract import Deadline, NewSession, Seat, Session, Step, StepContext
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
from bot.ui.challenges import (
    challenge_step,
    is_challenge,
    refuse_answered_challenge,
    refuse_next_game,
    refuse_unfinished,
    rematch_challenge,
)
from cogs.secret_duel.game import SecretDuelGame, StateT
from cogs.secret_duel.render import shown_names
from cogs.secret_duel.state import SETUP_KEY, UiState, envelope
from game_core.base import Event
from game_core.errors import IllegalMove

# How long the AI game's "begin" safety timer waits; the command normally begins at once.
BEGIN_DELAY_SECONDS = 5.0


def warning_after(timeout: int) -> float:
    """When the "time is running out" DM goes out: a minute before the end for long
    rounds, a third of the round before it for short ones."""
    return timeout - min(60, timeout / 3)


class SecretDuelMoves(Generic[StateT]):
    """The moves of one secret duel, around its game's engine (``SecretDuelGame``)."""

    def __init__(self, rules: SecretDuelGame[StateT]) -> None:
        self.rules = rules

    # -- reading the envelope -------------------------------------------------------------

    def parse(self, session: Session) -> tuple[StateT, UiState] | None:
        """The engine state and ui of a started game; None while pending or setting up."""
        raw = session.state
        if "game" not in raw:
            return None
        return self.rules.load(raw["game"]), UiState.model_validate(raw.get("ui", {}))

    # -- step: inside the session's transaction --------------------------------------------

    def step(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        # A game of a match or a rematch chain keeps its series for its whole life.
        step = self._step(ctx, action)
        keep_series(ctx.session.state, step.state)
        return step

    def _step(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        raw = ctx.session.state
        if is_challenge(raw):
            return challenge_step(ctx, action, self._start)
        refuse_answered_challenge(ctx, action)
        if SETUP_KEY in raw:
            if action.get("type") != "begin" or ctx.actor_id is not None:
                raise IllegalMove("This game is still being set up: try again in a moment.")
            return self._start(ctx, dict(raw[SETUP_KEY]))
        parsed = self.parse(ctx.session)
        if parsed is None:
            raise IllegalMove("That game cannot be played any more.")
        state, ui = parsed
        kind = action.get("type")
        if kind == "lock":
            return self._lock(ctx, state, ui, action)
        if kind == "forfeit":
            return self._forfeit(ctx, state, ui)
        if ctx.actor_id is not None:
            raise IllegalMove("That is not something a player can do in this game.")
        if kind == "warn":
            return self._warn(ctx, state, ui, action)
        if kind == "timeout":
            return self._timeout(ctx, state, ui, action)
        raise IllegalMove("That is not a move in this game.")

    def check_options(self, options: dict[str, Any]) -> None:
        """Refuse options the game cannot start with, before any session exists."""
        self.rules.new_game(options, random.Random(0))

    def _start(self, ctx: StepContext, options: dict[str, Any]) -> Step:
        return self.start(ctx, options)

    def start(self, ctx: StepContext, options: dict[str, Any]) -> Step:
        """The game begins with ``options`` (from an accepted challenge or a set-up game):
        seats, the first round, the AI's secret pick. A replay runs it again."""
        state, events = self.rules.new_game(options, ctx.rng)
        seats = sorted(ctx.session.seats, key=lambda s: s.seat)
        swapped = False
        # "tau": who attacks first in a rematch or a match's next game (it alternates);
        # otherwise a coin flip where the game has one.
        tau = options.get("tau")
        if isinstance(tau, int) and any(seat.user_id == tau for seat in seats):
            swap = seats[0].user_id != tau
        else:
            swap = self.rules.random_first_seat and ctx.rng.random() < 0.5
        if swap:
            seats = sorted(
                (
                    Seat(
                        seat=1 - s.seat,
                        user_id=s.user_id,
                        display_name=s.display_name,
                        is_ai=s.is_ai,
                    )
                    for s in seats
                ),
                key=lambda s: s.seat,
            )
            swapped = True
        events.insert(0, {"type": "seats", "swapped": swapped})
        step = self._next_round(ctx, state, UiState(), events, seats)
        if swapped:
            step.seats = seats
        return step

    # -- playing on: a rematch, or a match's next game (SessionService.follow_up) -----------

    def winner_of(self, session: Session, state: StateT) -> int | None:
        """The user who won a finished game (None: a draw)."""
        result = self.rules.result(state)
        if result is None or result.draw or not result.winners:
            return None
        return session.user_of(result.winners[0]).user_id

    def follow_up(self, ctx: StepContext, action: dict[str, Any]) -> NewSession:
        """The game a finished one leads to: the match's next game (at once), or a rematch
        (at once against the AI; a challenge the other player accepts otherwise). The
        options carry over; in Dimension Duel the last game's Kaon is Tau (attacks first)."""
        previous = ctx.session
        command = self.rules.command
        if ctx.seat is None:
            raise NotYourGame(
                _(
                    "Only {players} can play on from this game. Start your own with "
                    "{challenge} or {ai}."
                ).format(
                    players=list_of(shown_names(previous)),
                    challenge=command_mention(command, "challenge"),
                    ai=command_mention(command, "ai"),
                )
            )
        refuse_unfinished(previous)
        parsed = self.parse(previous)
        if parsed is None or self.rules.result(parsed[0]) is None:
            raise UserError(_("This game ended without a result: start a new one with a command."))
        state = parsed[0]
        winner = self.winner_of(previous, state)
        series = series_of(
            (previous.user_of(0).user_id, previous.user_of(1).user_id),
            load_series(previous.state),
        )
        options = self.rules.replay_options(state)
        if self.rules.random_first_seat:
            options["tau"] = previous.user_of(1).user_id
        kind = action.get("type")
        if kind == "next":
            refuse_next_game(series, winner)
            return self._set_up(ctx, options, next_in_match(series, winner, previous.id))
        if kind != "rematch":
            raise UserError(
                _("That is not something to do with a finished {game}.").format(
                    game=self.rules.shown_title()
                )
            )
        if series.is_match and not match_over_after(series, winner):
            raise UserError(
                _("The series goes on: press **Start game {number}**.").format(
                    number=number(series.game + 1)
                )
            )
        again = rematch_after(series, winner, previous.id)
        if previous.vs_ai:
            return self._set_up(ctx, options, again)
        return rematch_challenge(ctx, action, options, again)

    def _set_up(self, ctx: StepContext, options: dict[str, Any], series: Series) -> NewSession:
        """A game that begins at once with the previous game's players (``begin`` right
        after the commit, or by its durable timer)."""
        seats = list(ctx.session.seats)
        return NewSession(
            seats=seats,
            state=with_series({SETUP_KEY: options}, series),
            status="active",
            deadlines=[
                Deadline(
                    kind="begin", due_at=ctx.now + BEGIN_DELAY_SECONDS, action={"type": "begin"}
                )
            ],
            begin={"type": "begin"},
            ping=[s.user_id for s in seats if not s.is_ai and s.user_id != ctx.actor_id],
        )

    def _next_round(
        self,
        ctx: StepContext,
        state: StateT,
        ui: UiState,
        events: list[Event],
        seats: Sequence[Seat] | None = None,
    ) -> Step:
        """A new round begins: the AI locks in at once (in secret), the timers restart."""
        for seat in seats if seats is not None else ctx.session.seats:
            if seat.is_ai and seat.seat in self.rules.waiting_for(state):
                ai_action = self.rules.ai_action(state, seat.seat, ctx.rng)
                state, more = self.rules.apply(state, ai_action, ctx.rng)
                events.extend(more)
        round_no = self.rules.round_of(state)
        timeout = int(ctx.guild_settings.round_timeout_seconds)
        ui.round = round_no
        ui.started_at = ctx.now
        ui.deadline_at = ctx.now + timeout
        ui.timeout_seconds = timeout
        ui.warned = False
        deadlines = [
            Deadline(
                kind="round_warning",
                due_at=ctx.now + warning_after(timeout),
                action={"type": "warn", "round": round_no},
            ),
            Deadline(
                kind="round_timeout",
                due_at=ui.deadline_at,
                action={"type": "timeout", "round": round_no},
            ),
        ]
        return Step(state=envelope(state, ui), events=events, status="active", deadlines=deadlines)

    def _seat(self, ctx: StepContext) -> int:
        seat = ctx.seat
        if seat is None:
            raise NotYourGame()
        return seat

    def check_round(self, state: StateT, requested: object, *, by_dm: bool = True) -> int:
        """The current round, if ``requested`` is it; StaleControl / IllegalMove if not
        (``by_dm``: whether the players' controls come by DM, as the refusal says)."""
        current = self.rules.round_of(state)
        if requested != current:
            texts = self.rules.round_texts
            if isinstance(requested, int) and requested > current:
                raise IllegalMove(texts.not_begun, {"requested": requested})
            shown = number(requested) if isinstance(requested, int) else str(requested)
            stale = texts.stale if by_dm else texts.stale_without_dm
            raise StaleControl(_(stale).format(requested=shown, current=number(current)))
        return current

    def already_locked_text(self) -> str:
        """The English template of "already locked in" (an IllegalMove's message id)."""
        return self.rules.round_texts.already_locked

    def _lock(self, ctx: StepContext, state: StateT, ui: UiState, action: dict[str, Any]) -> Step:
        seat = self._seat(ctx)
        self.check_round(state, action.get("round"), by_dm=ctx.session.reach == "member")
        if seat not in self.rules.waiting_for(state):
            raise IllegalMove(self.already_locked_text())
        choice = action.get("choice")
        engine_action = self.rules.lock_action(
            state, seat, choice if isinstance(choice, dict) else None
        )
        new_state, events = self.rules.apply(state, engine_action, ctx.rng)
        return self._after_engine(ctx, state, new_state, ui, events)

    def _after_engine(
        self, ctx: StepContext, old: StateT, new: StateT, ui: UiState, events: list[Event]
    ) -> Step:
        reveal = self.rules.reveal_events(events)
        if reveal:
            ui.reveal = [dict(event) for event in reveal]
            for seat, pick in enumerate(self.rules.picks_of(reveal)):
                ui.picks[seat].append(pick)
        if self.rules.is_finished(new):
            return self._finish(new, ui, events)
        if self.rules.round_of(new) != self.rules.round_of(old):
            return self._next_round(ctx, new, ui, events)
        return Step(state=envelope(new, ui), events=events, status="active")

    def _finish(self, state: StateT, ui: UiState, events: list[Event]) -> Step:
        result = self.rules.result(state)
        view = self.rules.public_view(state)
        values, _maximum = self.rules.vitals(view)
        summary: dict[str, Any] = {
            "score_line": f"{self.rules.vitals_word} {max(0, values[0])}–{max(0, values[1])}",
            "rounds": self.rules.round_of(state),
            self.rules.picks_key: [list(p) for p in ui.picks],
        }
        summary.update(self.rules.summary_extra(state))
        return Step(
            state=envelope(state, ui),
            events=events,
            status="finished",
            deadlines=[],
            result=result,
            summary=summary,
        )

    def _forfeit(self, ctx: StepContext, state: StateT, ui: UiState) -> Step:
        seat = self._seat(ctx)
        new_state, events = self.rules.apply(state, {"type": "forfeit", "player": seat}, ctx.rng)
        return self._finish(new_state, ui, events)

    def _warn(self, ctx: StepContext, state: StateT, ui: UiState, action: dict[str, Any]) -> Step:
        round_no = self.check_round(state, action.get("round"))
        waiting = self.rules.waiting_for(state)
        if ui.warned or not waiting:
            raise IllegalMove("Nobody needs a warning now.")
        ui.warned = True
        return Step(
            state=envelope(state, ui),
            events=[{"type": "round_warning", "round": round_no, "seats": waiting}],
            status="active",
        )

    def _timeout(
        self, ctx: StepContext, state: StateT, ui: UiState, action: dict[str, Any]
    ) -> Step:
        round_no = self.check_round(state, action.get("round"))
        waiting = self.rules.waiting_for(state)
        if not waiting:
            raise IllegalMove("Everybody has locked in.")
        if len(waiting) == 1:
            new_state, events = self.rules.apply(
                state, {"type": "timeout", "player": waiting[0]}, ctx.rng
            )
            return self._finish(new_state, ui, events)
        # Neither player moved: nobody won or lost anything, the game just lapsed.
        ui.ended = "abandoned"
        return Step(
            state=envelope(state, ui),
            events=[{"type": "abandoned", "round": round_no}],
            status="cancelled",
            deadlines=[],
        )
