"""The shared flow of the two-player duels with secret moves (Diceman, Dimension Duel).

A game plugs in a :class:`SecretDuelGame` (its engine calls, texts and controls); this
module does everything else once: the session handler (challenge, start, lock-ins, AI
moves, warnings, timeouts, forfeits, results), the DMs with each player's private controls,
the public message, and the interaction flows behind the components.

Session state is an envelope ``{"game": <engine state>, "ui": <UiState>}`` (or the
challenge envelope while pending, or ``{"setup": options}`` for a game against the AI that
is about to begin). The engine state holds the locked-in choices; ``ui`` holds only bot
facts: which DM carries which player's controls, whose DMs are closed, the round's
deadline, the last reveal (public once revealed) and the picks for /stats.

Secrecy: public messages are rendered from the engine's ``public_view`` and the revealed
events only; a player's own choice is shown only in their DM or their ephemeral message;
error texts never name a choice; nothing here logs a choice (actions are never logged).

Choices being made (a select's current value) live in the components' custom_ids of the
player's own DM/ephemeral message (the "draft"), so they survive a restart without being
stored anywhere else. Confirming sends the engine's ``Choose`` (or ``Roll``).
"""

from __future__ import annotations

import contextlib
import logging
import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import discord
from pydantic import BaseModel, Field

from bot import i18n
from bot.i18n import N_, _, list_of, number, pgettext
from bot.model.contract import (
    Deadline,
    MessageFields,
    NewSession,
    Outcome,
    PrivateControls,
    Seat,
    Session,
    ShowContext,
    Step,
    StepContext,
    cancel_reason,
    stopped_text,
)
from bot.model.errors import NotYourGame, StaleControl, UserError
from bot.model.series import (
    Series,
    challenge_line,
    is_rematch,
    keep_series,
    load_series,
    match_over_after,
    new_match,
    next_in_match,
    rematch_after,
    running_line,
    series_of,
    with_series,
)
from bot.model.text import clip, escape
from bot.pictures import palette
from bot.pictures import worker as picture_worker
from bot.pictures.picture import Picture
from bot.ui.answers import answer_for
from bot.ui.challenges import (
    act_on_challenge,
    challenge_deadlines,
    challenge_message_text,
    challenge_state,
    challenge_step,
    challenge_view,
    is_challenge,
    ping_challenger,
    refuse_answered_challenge,
    refuse_next_game,
    refuse_unfinished,
    rematch_challenge,
)
from bot.ui.rematch import finished_two_player
from cogs.secret_duel.render import describe_seconds, life_bar
from game_core.base import Event, GameResult
from game_core.errors import IllegalMove

if TYPE_CHECKING:
    from bot.app import DiceBot

log = logging.getLogger(__name__)

SETUP_KEY = "setup"
# Endings that come with a reveal of the final round (not a forfeit or a timeout).
REVEALED_ENDS = ("normal", "round_cap")
CLOSED_CHALLENGE_EVENTS = {
    "challenge_declined": "declined",
    "challenge_withdrawn": "withdrawn",
    "challenge_expired": "expired",
}
# How long the AI game's "begin" safety timer waits; the command normally begins at once.
BEGIN_DELAY_SECONDS = 5.0
# How long an outcome waits for its game's public message to be posted (normally ms).
POSTING_WAIT_SECONDS = 5.0
COLOUR_RUNNING = discord.Colour(palette.EMBED_RUNNING)
COLOUR_FINISHED = discord.Colour(palette.EMBED_FINISHED)
COLOUR_CANCELLED = discord.Colour(palette.EMBED_CANCELLED)


@dataclass(frozen=True)
class RoundTexts:
    """The sentences that name a game's round: "round" in Diceman, "turn" in Dimension
    Duel (``SecretDuelGame.round_word`` picks the set). Whole sentences for each word, as
    languages change the words around it (Spanish *esta ronda* but *este turno*)."""

    heading: str
    locked_title: str
    over_title: str
    next_controls: str
    not_begun: str
    stale: str
    already_locked: str
    time_left: str
    warning: str


ROUND_TEXTS: dict[str, RoundTexts] = {
    "round": RoundTexts(
        # Translators: the title of a duel's public message: "Diceman — Round 3".
        heading=N_("{game} — Round {round}"),
        locked_title=N_("Locked in — {game} round {round}"),
        over_title=N_("{game} — round {round} is over"),
        next_controls=N_("Your controls for the next round follow in a new message."),
        not_begun=N_("That control is for round {requested}, which has not begun."),
        stale=N_(
            "That control belongs to round {requested}, which is over: this is round "
            "{current}. Use your latest DM or the **Make your move** button on the game "
            "message."
        ),
        already_locked=N_(
            "You're already locked in for this round: a choice is final. Wait for your "
            "opponent; the reveal comes as soon as they lock in."
        ),
        # Translators: {deadline} shows as "in 3 minutes", {duration} as "3 min".
        time_left=N_("{deadline} ({duration} per round; a player who misses it forfeits)"),
        warning=N_(
            "⏰ Time is running out in your **{game}** game in {channel}: lock in your round "
            "{deadline} or you forfeit. {link}"
        ),
    ),
    "turn": RoundTexts(
        # Translators: the title of a duel's public message: "Dimension Duel — Turn 3".
        heading=N_("{game} — Turn {round}"),
        locked_title=N_("Locked in — {game} turn {round}"),
        over_title=N_("{game} — turn {round} is over"),
        next_controls=N_("Your controls for the next turn follow in a new message."),
        not_begun=N_("That control is for turn {requested}, which has not begun."),
        stale=N_(
            "That control belongs to turn {requested}, which is over: this is turn "
            "{current}. Use your latest DM or the **Make your move** button on the game "
            "message."
        ),
        already_locked=N_(
            "You're already locked in for this turn: a choice is final. Wait for your "
            "opponent; the reveal comes as soon as they lock in."
        ),
        # Translators: {deadline} shows as "in 3 minutes", {duration} as "3 min".
        time_left=N_("{deadline} ({duration} per turn; a player who misses it forfeits)"),
        warning=N_(
            "⏰ Time is running out in your **{game}** game in {channel}: lock in your turn "
            "{deadline} or you forfeit. {link}"
        ),
    ),
}
# The score of a finished duel in its game's measure (``SecretDuelGame.vitals_word``),
# the named player's first.
SCORE_TEXTS: dict[str, str] = {
    # Translators: a Diceman score: "Life 12–0".
    "Life": N_("Life {first}–{second}"),
    # Translators: a Dimension Duel score in hit points: "HP 7–0".
    "HP": N_("HP {first}–{second}"),
}


def slash(*names: str) -> str:
    """A slash command as players type it in their language: ``/diceman challenge``."""
    return "/" + " ".join(pgettext("command name", name) for name in names)


def warning_after(timeout: int) -> float:
    """When the "time is running out" DM goes out: a minute before the end for long
    rounds, a third of the round before it for short ones."""
    return timeout - min(60, timeout / 3)


class UiState(BaseModel):
    """Bot-level facts about the running game (never a secret before its reveal)."""

    round: int = 1
    started_at: float = 0.0
    deadline_at: float = 0.0
    timeout_seconds: int = 180
    warned: bool = False
    # The engine's events of the last reveal: public from the moment they exist.
    reveal: list[dict[str, Any]] = Field(default_factory=list)
    # Per seat, what each revealed round showed (Diceman dice pairs, duel functions).
    picks: list[list[Any]] = Field(default_factory=lambda: [[], []])
    ended: str | None = None  # "abandoned" when both players ran out of time


StateT = TypeVar("StateT", bound=BaseModel)


class SecretDuelGame(ABC, Generic[StateT]):
    """What the shared flow needs from one game: engine calls, words and controls."""

    game: ClassVar[str]  # the session's game key
    title: ClassVar[str]  # N_("Diceman"): a proper name, shown through _()
    command: ClassVar[str]  # the slash command group, e.g. "diceman"
    round_word: ClassVar[str]  # "round" / "turn": picks the ROUND_TEXTS (never shown)
    vitals_word: ClassVar[str]  # "Life" / "HP": picks the SCORE_TEXTS (never shown)
    picks_key: ClassVar[str]  # summary key of the favourite picks
    emoji: ClassVar[str]
    # Dimension Duel: a coin flip decides who is Tau (seat 0) and attacks first.
    random_first_seat: ClassVar[bool] = False

    # -- the engine -----------------------------------------------------------------------

    @abstractmethod
    def new_game(
        self, options: dict[str, Any], rng: random.Random
    ) -> tuple[StateT, list[Event]]: ...

    @abstractmethod
    def load(self, data: dict[str, Any]) -> StateT: ...

    @abstractmethod
    def apply(
        self, state: StateT, action: dict[str, Any], rng: random.Random
    ) -> tuple[StateT, list[Event]]: ...

    @abstractmethod
    def public_view(self, state: StateT) -> dict[str, Any]: ...

    @abstractmethod
    def private_view(self, state: StateT, seat: int) -> dict[str, Any]: ...

    @abstractmethod
    def round_of(self, state: StateT) -> int: ...

    @abstractmethod
    def is_finished(self, state: StateT) -> bool: ...

    @abstractmethod
    def result(self, state: StateT) -> GameResult | None: ...

    @abstractmethod
    def waiting_for(self, state: StateT) -> list[int]:
        """Seats that still have to lock in this round."""

    @abstractmethod
    def is_secret(self, state: StateT) -> bool:
        """True when players choose in private (DM controls); False for classic Roll."""

    @abstractmethod
    def lock_action(
        self, state: StateT, seat: int, choice: dict[str, Any] | None
    ) -> dict[str, Any]:
        """The engine action that locks ``seat`` in with ``choice`` (None: a plain Roll)."""

    @abstractmethod
    def ai_action(self, state: StateT, seat: int, rng: random.Random) -> dict[str, Any]: ...

    @abstractmethod
    def reveal_events(self, events: Sequence[Event]) -> list[Event]:
        """The part of a step's events that narrates a reveal ([] when nothing revealed)."""

    @abstractmethod
    def picks_of(self, reveal: Sequence[Event]) -> list[Any]:
        """Per seat, the pick a reveal showed (for the /stats favourite picks)."""

    @abstractmethod
    def vitals(self, view: dict[str, Any]) -> tuple[list[int], int]:
        """(current life / hit points per seat, the maximum) from the public view."""

    def summary_extra(self, state: StateT) -> dict[str, Any]:
        return {}

    @property
    def round_texts(self) -> RoundTexts:
        return ROUND_TEXTS.get(self.round_word, ROUND_TEXTS["round"])

    def shown_title(self) -> str:
        """The game's name in the current language (a proper name: mostly unchanged)."""
        return _(self.title)

    def score_text(self, first: int, second: int) -> str:
        """A score in the game's measure, ``first`` (the named player's) first."""
        template = SCORE_TEXTS.get(self.vitals_word)
        if template is None:
            return f"{self.vitals_word} {number(first)}–{number(second)}"
        return _(template).format(first=number(first), second=number(second))

    def replay_options(self, state: StateT) -> dict[str, Any]:
        """The options a game was started with, for its rematch or next game."""
        return {}

    # -- texts ----------------------------------------------------------------------------

    @abstractmethod
    def narrate(self, reveal: Sequence[Event], names: Sequence[str]) -> list[str]: ...

    @abstractmethod
    def seat_label(self, view: dict[str, Any], seat: int) -> str:
        """A suffix naming the seat's role this round, e.g. " · Tau, attacking"."""

    @abstractmethod
    def challenge_details(self, options: dict[str, Any]) -> str: ...

    def subtitle(self, view: dict[str, Any]) -> str:
        return ""

    def seat_details(self, view: dict[str, Any], seat: int) -> list[str]:
        """Extra public lines under a player's bar (e.g. functions left)."""
        return []

    def picture(
        self, view: dict[str, Any], names: Sequence[str], stopped: str | None = None
    ) -> Picture | None:
        """The game as a picture (drawn on the picture thread, from the public view and the
        raw display names), or None for a game shown in words only. A game with a picture
        leaves the bars and seat details to it and its alt text. ``stopped`` is the
        sentence for a game stopped without a result: it is drawn as it stood, with no
        turn to come, and the alt text says so instead of whose turn it is."""
        return None

    @property
    def has_picture(self) -> bool:
        return type(self).picture is not SecretDuelGame.picture

    @abstractmethod
    def choice_text(self, choice: dict[str, Any] | Any) -> str:
        """A player's own locked choice in words (only ever shown to that player)."""

    # -- controls -------------------------------------------------------------------------

    @abstractmethod
    def controls(
        self, session: Session, seat: int, state: StateT, draft: str, ui: UiState
    ) -> tuple[discord.Embed, discord.ui.View]:
        """The private controls (embed + components) for ``seat`` with ``draft`` selected."""

    @abstractmethod
    def public_buttons(self, session_id: int, round_no: int, secret: bool) -> discord.ui.View: ...

    @abstractmethod
    def choice_from_draft(self, draft: str) -> dict[str, Any]:
        """The complete choice a draft encodes; UserError when something is missing (the
        move's step then checks it against the game)."""


# ---------------------------------------------------------------------------------------------
# The handler
# ---------------------------------------------------------------------------------------------


def envelope(state: BaseModel, ui: UiState) -> dict[str, Any]:
    return {"game": state.model_dump(mode="json"), "ui": ui.model_dump(mode="json")}


class SecretDuelHandler(Generic[StateT]):
    """The GameHandler of one secret duel (registered with ``bot.play.sessions``)."""

    def __init__(self, bot: DiceBot, rules: SecretDuelGame[StateT]) -> None:
        self.bot = bot
        self.rules = rules
        self.game = rules.game
        self.private_messages = True  # each player's choices, in a DM

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
                    "`{challenge}` or `{ai}`."
                ).format(
                    players=list_of(self.shown_names(previous)),
                    challenge=slash(command, "challenge"),
                    ai=slash(command, "ai"),
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
                _("The match goes on: press **Start game {number}**.").format(
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

    def check_round(self, state: StateT, requested: object) -> int:
        current = self.rules.round_of(state)
        if requested != current:
            texts = self.rules.round_texts
            if isinstance(requested, int) and requested > current:
                raise IllegalMove(texts.not_begun, {"requested": requested})
            shown = number(requested) if isinstance(requested, int) else str(requested)
            raise StaleControl(_(texts.stale).format(requested=shown, current=number(current)))
        return current

    def already_locked_text(self) -> str:
        """The English template of "already locked in" (an IllegalMove's message id)."""
        return self.rules.round_texts.already_locked

    def _lock(self, ctx: StepContext, state: StateT, ui: UiState, action: dict[str, Any]) -> Step:
        seat = self._seat(ctx)
        self.check_round(state, action.get("round"))
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

    # -- what players see (shown by the publisher) -----------------------------------------

    async def render(self, session: Session, context: ShowContext) -> MessageFields:
        types = {event.get("type") for event in context.events}
        closed = next(
            (CLOSED_CHALLENGE_EVENTS[t] for t in types if t in CLOSED_CHALLENGE_EVENTS), None
        )
        if is_challenge(session.state):
            if closed is not None:
                return self.render_closed_challenge(session, closed)
            if not session.is_open:
                return self.render_closed_challenge(
                    session, "closed", cancel_reason(context.events)
                )
            challenge = session.state["challenge"]
            series = challenge_line(load_series(session.state), self.raw_names(session))
            details = self.rules.challenge_details(challenge.get("options") or {})
            text = challenge_message_text(
                self.rules.shown_title(),
                challenge["challenger"],
                challenge["opponent"],
                challenge["expires_at"],
                f"{details}\n{series}" if series else details,
                rematch=is_rematch(session.state),
            )
            return {"content": text, "embed": None, "view": challenge_view(session.id)}
        if self.parse(session) is None:
            # A game against the AI being set up: shown for a moment, if at all.
            return {
                "content": f"{self.rules.emoji} " + _("Setting up the game…"),
                "embed": None,
                "view": None,
            }
        picture = None
        if self.rules.has_picture:
            parsed = self.parse(session)
            assert parsed is not None
            view = self.rules.public_view(parsed[0])
            picture = await picture_worker.draw(
                self.rules.picture,
                view,
                self.names(session),
                self.stopped_sentence(session, parsed[1], context.events),
            )
        return self.render_public(
            session,
            cancelled_because=cancel_reason(context.events),
            dm_closed=context.dm_closed,
            picture=picture,
        )

    def private_controls(self, session: Session, seat: int) -> PrivateControls | None:
        """This round's secret controls, for a player who still has to lock in."""
        parsed = self.parse(session)
        if parsed is None or not session.is_open:
            return None
        state, ui = parsed
        if self.rules.is_finished(state) or not self.rules.is_secret(state):
            return None
        if seat not in self.rules.waiting_for(state):
            return None

        def render() -> MessageFields:
            embed, view = self.rules.controls(session, seat, state, "", ui)
            return {"embed": embed, "view": view}

        return PrivateControls(key=round_key(self.rules.round_of(state)), render=render)

    def private_after(self, session: Session, seat: int, key: str) -> MessageFields:
        """What a player's controls for round ``key`` become: their locked-in choice while
        the round goes on, the round's reveal once it is over, the result at the end."""
        parsed = self.parse(session)
        if parsed is None:
            return {
                "embed": discord.Embed(
                    title=_("{game} — game over").format(game=self.rules.shown_title()),
                    colour=COLOUR_FINISHED,
                ),
                "view": None,
            }
        state, ui = parsed
        round_no = round_of_key(key)
        if session.is_open and round_no == self.rules.round_of(state):
            return {"embed": self.render_locked(session, state, seat), "view": None}
        final = not session.is_open
        embed = self.render_dm_retired(session, state, ui, seat, round_no, final=final)
        return {"embed": embed, "view": None}

    def gather_after(self, outcome: Outcome) -> float:
        return 0.0  # every move is shown at once

    async def notify(self, outcome: Outcome) -> None:
        await ping_challenger(self.bot, outcome)
        if any(event.get("type") == "round_warning" for event in outcome.events):
            await self._send_warnings(outcome.session, outcome)

    async def _send_warnings(self, session: Session, outcome: Outcome) -> None:
        seats: list[int] = next(
            (e.get("seats", []) for e in outcome.events if e.get("type") == "round_warning"), []
        )
        parsed = self.parse(session)
        if parsed is None:
            return
        state, ui = parsed
        # Each warning speaks its player's language (the one their client last reported).
        await self.bot.languages.load(seat.user_id for seat in session.seats if not seat.is_ai)
        for seat in session.seats:
            if seat.is_ai or seat.seat not in seats:
                continue
            with i18n.use(self.bot.languages.of(seat.user_id)):
                text = self.warning_text(session, state, ui)
            try:
                await self.bot.send_dm(seat.user_id, content=text)
            except discord.HTTPException as error:
                log.info("could not send a duel warning DM (HTTP %s)", error.status)

    def warning_text(self, session: Session, state: StateT, ui: UiState) -> str:
        """The "time is running out" DM, in the current language."""
        if self.rules.is_secret(state):
            template = _(self.rules.round_texts.warning)
        else:
            template = _(
                "⏰ Time is running out in your **{game}** game in {channel}: press "
                "**Roll** on the game message {deadline} or you forfeit. {link}"
            )
        return template.format(
            game=self.rules.shown_title(),
            channel=f"<#{session.channel_id}>",
            deadline=f"<t:{int(ui.deadline_at)}:R>",
            link=self.message_link(session),
        ).strip()

    # -- rendering ---------------------------------------------------------------------------

    def message_link(self, session: Session) -> str:
        if session.message_id is None:
            return ""
        return (
            f"https://discord.com/channels/{session.guild_id}/{session.channel_id}/"
            f"{session.message_id}"
        )

    def names(self, session: Session) -> list[str]:
        """The players' display names as they are (for pictures, which draw them)."""
        return [session.user_of(seat).display_name for seat in (0, 1)]

    def raw_names(self, session: Session) -> dict[int, str]:
        """User id -> display name as written (bot.model.series escapes what it shows)."""
        return {seat.user_id: seat.display_name for seat in session.seats}

    def shown_names(self, session: Session) -> list[str]:
        """The players' display names escaped, for message text (markdown means nothing
        in a name: ``**bold**__`` stays those characters, ``@everyone`` pings nobody)."""
        return [escape(name) for name in self.names(session)]

    def render_closed_challenge(
        self, session: Session, how: str, reason: str | None = None
    ) -> dict[str, Any]:
        challenge = session.state.get("challenge", {})
        challenger, opponent = challenge.get("challenger"), challenge.get("opponent")
        rematch = is_rematch(session.state)
        if how == "declined":
            template = (
                _("{opponent} declined the {game} rematch from {challenger}.")
                if rematch
                else _("{opponent} declined the {game} challenge from {challenger}.")
            )
        elif how == "withdrawn":
            template = (
                _("{challenger} withdrew the {game} rematch to {opponent}.")
                if rematch
                else _("{challenger} withdrew the {game} challenge to {opponent}.")
            )
        elif how == "expired":
            template = (
                _("The {game} rematch from {challenger} to {opponent} expired without an answer.")
                if rematch
                else _(
                    "The {game} challenge from {challenger} to {opponent} expired without an "
                    "answer."
                )
            )
        elif reason:
            # Translators: {reason} is why the game was stopped, e.g. "stopped by an admin".
            template = (
                _("The {game} rematch from {challenger} to {opponent} was {reason}.")
                if rematch
                else _("The {game} challenge from {challenger} to {opponent} was {reason}.")
            )
        else:
            template = (
                _("The {game} rematch from {challenger} to {opponent} was closed.")
                if rematch
                else _("The {game} challenge from {challenger} to {opponent} was closed.")
            )
        text = template.format(
            game=self.rules.shown_title(),
            challenger=f"<@{challenger}>",
            opponent=f"<@{opponent}>",
            reason=_(reason) if reason else "",
        )
        return {"content": text, "embed": None, "view": None}

    def render_public(
        self,
        session: Session,
        *,
        cancelled_because: str | None = None,
        dm_closed: frozenset[int] = frozenset(),
        picture: Picture | None = None,
    ) -> dict[str, Any]:
        """The public message: one line on top (the players, or the result naming the
        winner), the last reveal and who has locked in (never what) in the embed, the
        picture where the game has one (bars and seat details are then left to it), time
        left, and the buttons. Built from the public view only. ``cancelled_because`` is
        the reason a cancel that just happened gave."""
        parsed = self.parse(session)
        assert parsed is not None
        state, ui = parsed
        view = self.rules.public_view(state)
        names = self.shown_names(session)
        values, maximum = self.rules.vitals(view)
        finished = not session.is_open
        round_no = self.rules.round_of(state)
        secret = self.rules.is_secret(state)
        game = self.rules.shown_title()
        subtitle = self.rules.subtitle(view)
        if finished:
            title = _("{game} — game over").format(game=game)
        else:
            title = _(self.rules.round_texts.heading).format(game=game, round=number(round_no))
        title = clip(f"{self.rules.emoji} {title}", 256)
        ended = self.rules.result(state)
        if session.status == "cancelled" or (finished and ended is None):
            colour = COLOUR_CANCELLED
        else:
            colour = COLOUR_FINISHED if finished else COLOUR_RUNNING
        embed = discord.Embed(title=title, colour=colour)
        lines: list[str] = []
        if subtitle:
            lines.append(subtitle)
        if ui.reveal:
            lines.extend(self.rules.narrate(ui.reveal, names))
        if not finished:
            lines.append("")
            lines.append(self._status_line(session, state, ui, names, cancelled_because))
        embed.description = "\n".join(lines).strip()[:4096] or None
        locked = view.get("locked_in", [False, False])
        for seat in (0, 1):
            entry = session.user_of(seat)
            field_lines = []
            if picture is None:
                field_lines.append(life_bar(values[seat], maximum))
                field_lines.extend(self.rules.seat_details(view, seat))
            if not finished:
                if locked[seat]:
                    field_lines.append("🔒 " + _("Locked in") if secret else "🎲 " + _("Rolled"))
                elif secret:
                    field_lines.append("⏳ " + _("Choosing…"))
                else:
                    field_lines.append("⏳ " + _("Press **Roll**"))
                if seat in dm_closed and not locked[seat]:
                    field_lines.append("📭 " + _("DMs closed: use **Make your move**"))
            if not field_lines:
                continue
            label = self.rules.seat_label(view, seat)
            bot_tag = " 🤖" if entry.is_ai else ""
            embed.add_field(
                name=f"{escape(entry.display_name, 100)}{bot_tag}{label}",
                value="\n".join(field_lines),
            )
        if not finished:
            embed.add_field(
                name="⏰ " + _("Time is running out") if ui.warned else "⏱️ " + _("Time left"),
                value=_(self.rules.round_texts.time_left).format(
                    deadline=f"<t:{int(ui.deadline_at)}:R>",
                    duration=describe_seconds(ui.timeout_seconds),
                ),
                inline=False,
            )
            forfeit = slash(self.rules.command, "forfeit")
            if secret:
                embed.set_footer(
                    text=_(
                        "Choices are secret until both lock in. Controls arrive by DM, or "
                        "press Make your move. {forfeit} to give up."
                    ).format(forfeit=forfeit)
                )
            else:
                embed.set_footer(
                    text=_("The dice choose for you. {forfeit} to give up.").format(forfeit=forfeit)
                )
        series = load_series(session.state)
        buttons: discord.ui.View | None = None
        if not finished:
            buttons = self.rules.public_buttons(session.id, round_no, secret)
            content = self.headline(session)
            line = running_line(series, self.raw_names(session))
            if line:
                content += "\n" + line
        else:
            content = self._status_line(session, state, ui, names, cancelled_because)
            if session.status == "finished" and ended is not None:
                lines, buttons = finished_two_player(
                    session, series, self.winner_of(session, state)
                )
                content = "\n".join([content, *lines])
        return {
            "content": content,
            "embed": embed,
            "attachments": [] if picture is None else [picture.file()],
            "view": buttons,
            "allowed_mentions": discord.AllowedMentions.none(),
        }

    def stopped_sentence(self, session: Session, ui: UiState, events: list[Event]) -> str | None:
        """What the picture of a game stopped without a result says instead of whose turn
        it is (None for a game that is not stopped)."""
        if session.status != "cancelled":
            return None
        if ui.ended == "abandoned":
            return _(
                "Neither player locked in before the time ran out, so the game is abandoned; "
                "no result counts."
            )
        return stopped_text(cancel_reason(events))

    def headline(self, session: Session) -> str:
        a, b = session.user_of(0), session.user_of(1)
        who = [
            f"<@{seat.user_id}>" if not seat.is_ai else f"**{escape(seat.display_name)}**"
            for seat in (a, b)
        ]
        # Translators: the top line of a running duel: "**Diceman**: @ann vs @bob".
        return _("**{game}**: {first} vs {second}").format(
            game=self.rules.shown_title(), first=who[0], second=who[1]
        )

    def _status_line(
        self,
        session: Session,
        state: StateT,
        ui: UiState,
        names: Sequence[str],
        cancelled_because: str | None = None,
    ) -> str:
        """What is happening now in one line; at the end, the result naming the winner
        (the content of the finished message). ``names`` are escaped."""
        title = self.rules.shown_title()
        if ui.ended == "abandoned":
            return "⌛ " + _(
                "{game}: neither player locked in before the time ran out, so the game is "
                "abandoned (no result counts)."
            ).format(game=title)
        result = self.rules.result(state)
        if result is None:
            if session.status == "cancelled":
                if cancelled_because:
                    # Translators: {reason} is why, e.g. "stopped by an admin".
                    return "🛑 " + _("This game was {reason}; no result counts.").format(
                        reason=_(cancelled_because)
                    )
                return "🛑 " + _("This game was stopped; no result counts.")
            waiting = self.rules.waiting_for(state)
            if not waiting:
                return _("Revealing…")
            who = list_of([names[s] for s in waiting])
            if self.rules.is_secret(state):
                return _("Waiting for {players} to lock in.").format(players=who)
            return _("Waiting for {players} to press **Roll**.").format(players=who)
        values, _maximum = self.rules.vitals(self.rules.public_view(state))
        if result.draw:
            score = self.rules.score_text(max(0, values[0]), max(0, values[1]))
            if result.reason == "round_cap":
                return "⏹️ " + _(
                    "The round limit was reached with equal life: **a draw**, {score}."
                ).format(score=score)
            return "🤝 " + _("**Draw**: both fell in the same moment. {game}, {score}.").format(
                game=title, score=score
            )
        winner_seat = result.winners[0]
        winner = names[winner_seat]
        loser = names[1 - winner_seat]
        # The winner's score first, as the sentence names them first.
        score = self.rules.score_text(max(0, values[winner_seat]), max(0, values[1 - winner_seat]))
        if result.reason == "forfeit":
            return "🏳️ " + _("{loser} forfeited. **{winner} wins!** {game}, {score}.").format(
                loser=loser, winner=winner, game=title, score=score
            )
        if result.reason == "timeout":
            return "⌛ " + _("{loser} ran out of time. **{winner} wins!** {game}, {score}.").format(
                loser=loser, winner=winner, game=title, score=score
            )
        if result.reason == "round_cap":
            return "⏹️ " + _(
                "The round limit was reached: **{winner} wins** on life, {score}."
            ).format(winner=winner, score=score)
        return "🏆 " + _("**{winner} wins!** {game} against {loser}, {score}.").format(
            winner=winner, game=title, loser=loser, score=score
        )

    def render_locked(self, session: Session, state: StateT, seat: int) -> discord.Embed:
        """A player's own "locked in" note (their DM or ephemeral): it names their choice."""
        own = self.rules.private_view(state, seat).get("your_choice")
        title = _(self.rules.round_texts.locked_title).format(
            game=self.rules.shown_title(), round=number(self.rules.round_of(state))
        )
        embed = discord.Embed(title=clip(f"🔒 {title}", 256), colour=COLOUR_RUNNING)
        lines = []
        if own is not None:
            lines.append(_("Your choice: {choice}").format(choice=self.rules.choice_text(own)))
        lines.append(_("A choice is final. The reveal comes as soon as your opponent locks in."))
        link = self.message_link(session)
        if link:
            lines.append(_("Game message: {link}").format(link=link))
        embed.description = "\n".join(lines)
        return embed

    def render_dm_retired(
        self, session: Session, state: StateT, ui: UiState, seat: int, round_no: int, *, final: bool
    ) -> discord.Embed:
        """What a player's DM controls turn into once their round (or the game) is over:
        the reveal of that round (public by now) and a link to the game message."""
        link = self.message_link(session)
        result = self.rules.result(state) if final else None
        # The last reveal belongs to the DMed round unless the game ended without one.
        reveal_round = ui.reveal and (
            not final or (result is not None and result.reason in REVEALED_ENDS)
        )
        lines: list[str] = []
        if reveal_round:
            own = revealed_choice(ui.reveal, seat)
            if own is not None:
                lines.append(
                    "🔒 " + _("Locked in: {choice}").format(choice=self.rules.choice_text(own))
                )
            lines.extend(self.rules.narrate(ui.reveal, self.shown_names(session)))
        game = self.rules.shown_title()
        if final:
            if result is None:
                headline = _("The game has ended.")
            elif result.draw:
                headline = "🤝 " + _("The game ended in a draw.")
            elif seat in result.winners:
                headline = "🏆 " + _("You won!")
            else:
                headline = _("You lost this one.")
            title = _("{game} — game over").format(game=game)
            lines.append("")
            lines.append(headline)
        else:
            title = _(self.rules.round_texts.over_title).format(game=game, round=number(round_no))
            lines.append("")
            lines.append(_(self.rules.round_texts.next_controls))
        embed = discord.Embed(
            title=clip(title, 256),
            description="\n".join(lines).strip()[:4096],
            colour=COLOUR_FINISHED if final else COLOUR_RUNNING,
        )
        if link:
            embed.add_field(name=_("Game message"), value=link, inline=False)
        return embed


def controls_intro(
    session: Session, rules: SecretDuelGame[Any], state: Any, seat: int, ui: UiState
) -> list[str]:
    """The lines every private control message starts with: both bars and the deadline."""
    view = rules.public_view(state)
    values, maximum = rules.vitals(view)
    opponent = escape(session.user_of(1 - seat).display_name)
    return [
        _("You: {bar}").format(bar=life_bar(values[seat], maximum)),
        f"{opponent}: {life_bar(values[1 - seat], maximum)}",
        _(
            "Lock in {deadline} or you forfeit. Your opponent only sees that you've locked "
            "in, never what."
        ).format(deadline=f"<t:{int(ui.deadline_at)}:R>"),
    ]


def revealed_choice(reveal: Sequence[Event], seat: int) -> Any | None:
    """What ``seat`` locked in, as the reveal showed it (both games' reveal event lists
    the choices per seat)."""
    summary = next((event for event in reveal if event.get("type") == "reveal"), None)
    choices = None if summary is None else summary.get("choices")
    if not isinstance(choices, list) or not 0 <= seat < len(choices):
        return None
    return choices[seat]


def round_key(round_no: int) -> str:
    """The private-message key of a round's controls."""
    return f"round:{round_no}"


def round_of_key(key: str) -> int:
    return int(key.partition(":")[2] or 0)


# ---------------------------------------------------------------------------------------------
# Interaction flows (called by each game's DynamicItems)
# ---------------------------------------------------------------------------------------------


def handler_for(interaction: discord.Interaction, game: str) -> SecretDuelHandler[Any]:
    from bot.app import DiceBot

    client = interaction.client
    assert isinstance(client, DiceBot)
    handler = client.sessions.handlers.get(game)
    assert isinstance(handler, SecretDuelHandler)
    return handler


async def _playing_state(
    handler: SecretDuelHandler[Any],
    interaction: discord.Interaction,
    session_id: int,
    round_no: int | None,
) -> tuple[Session, Any, UiState, int]:
    """Load the game for a player's private control: their seat, the current round (or
    ``round_no`` exactly, for controls made for one round), not yet locked in. Raises the
    clear UserError / IllegalMove otherwise (changing nothing)."""
    session = await handler.bot.sessions.require(session_id)
    if not session.is_open:
        raise UserError(_("That game is already over."))
    seat = session.seat_of(interaction.user.id)
    if seat is None:
        raise NotYourGame()
    parsed = handler.parse(session)
    if parsed is None:
        raise IllegalMove("That game has not started yet.")
    state, ui = parsed
    if round_no is not None:
        handler.check_round(state, round_no)
    if seat not in handler.rules.waiting_for(state):
        raise IllegalMove(handler.already_locked_text())
    return session, state, ui, seat


async def open_controls(
    interaction: discord.Interaction, game: str, session_id: int, round_no: int
) -> None:
    """**Make your move**: the current round's controls as an ephemeral message, whichever
    round the button was drawn for (a game message that is behind is never a dead end,
    and is brought up to date). Pressing it again reopens them."""
    handler = handler_for(interaction, game)
    session, state, ui, seat = await _playing_state(handler, interaction, session_id, None)
    if round_no != handler.rules.round_of(state):
        handler.bot.publisher.request(session_id, force=True)
    embed, view = handler.rules.controls(session, seat, state, "", ui)
    await answer_for(interaction).send(embed=embed, view=view)
    # discord.py gives an ephemeral view a 15-minute timer; ours is all DynamicItems
    # (dispatched by custom_id, not by this object), so stop tracking it at once.
    view.stop()


async def update_draft(
    interaction: discord.Interaction, game: str, session_id: int, round_no: int, draft: str
) -> None:
    """A select changed: redraw the player's own controls with the new draft (no commit)."""
    handler = handler_for(interaction, game)
    session, state, ui, seat = await _playing_state(handler, interaction, session_id, round_no)
    embed, view = handler.rules.controls(session, seat, state, draft, ui)
    await answer_for(interaction).update(embed=embed, view=view)


async def confirm_choice(
    interaction: discord.Interaction, game: str, session_id: int, round_no: int, draft: str
) -> None:
    """Confirm: lock the drafted choice in (final); the controls turn into what the
    player's private message shows from now on (their choice, or the reveal)."""
    handler = handler_for(interaction, game)
    choice = handler.rules.choice_from_draft(draft)
    user_id = interaction.user.id
    # While the answer is under way the publisher leaves this player's private messages
    # alone: it then finds this one showing what it became, and does not edit it again.
    # The move's step checks what a read first would (the game, the seat, the round, not
    # locked in yet), with the same answers, so the press reads the game only once.
    async with handler.bot.publisher.answering_privately(session_id, user_id):
        outcome = await handler.bot.sessions.act(
            session_id, user_id, {"type": "lock", "round": round_no, "choice": choice}
        )
        seat = outcome.session.seat_of(user_id)
        assert seat is not None  # the step refuses anyone without a seat
        key = round_key(round_no)
        fields = handler.private_after(outcome.session, seat, key)
        if await answer_for(interaction).update(**fields) and interaction.message is not None:
            await handler.bot.publisher.record_private_shown(
                outcome.session, seat, key, fields, interaction.message.id
            )


async def press_roll(
    interaction: discord.Interaction, game: str, session_id: int, round_no: int
) -> None:
    """Classic mode's public **Roll** button: lock in; the engine rolls every choice."""
    handler = handler_for(interaction, game)
    async with handler.bot.publisher.answering(session_id) as show:
        outcome = await handler.bot.sessions.act(
            session_id,
            interaction.user.id,
            {"type": "lock", "round": round_no, "choice": None},
            on_message=None if interaction.message is None else interaction.message.id,
        )
        await show(answer_for(interaction), outcome.session, outcome.events)


# ---------------------------------------------------------------------------------------------
# Slash command flows (called by each game's cog)
# ---------------------------------------------------------------------------------------------


async def start_challenge(
    bot: DiceBot,
    handler: SecretDuelHandler[Any],
    interaction: discord.Interaction,
    opponent: discord.User | discord.Member,
    options: dict[str, Any],
    best_of: int = 1,
) -> None:
    rules = handler.rules
    if interaction.guild_id is None or interaction.channel_id is None:
        raise UserError(_("Duels are played in a server channel."))
    if opponent.id == interaction.user.id:
        raise UserError(
            _("You can't challenge yourself. Pick another player, or play me with `{ai}`.").format(
                ai=slash(rules.command, "ai")
            )
        )
    if opponent.bot:
        if bot.user is not None and opponent.id == bot.user.id:
            raise UserError(
                _("To play against me, use `{ai}`.").format(ai=slash(rules.command, "ai"))
            )
        raise UserError(_("Bots can't play: challenge a person."))
    handler.check_options(options)
    settings = await bot.sessions.guild_settings(interaction.guild_id)
    expires_at = bot.clock.now() + settings.challenge_expiry_seconds
    challenger = Seat(
        seat=0, user_id=interaction.user.id, display_name=interaction.user.display_name
    )
    challenged = Seat(seat=1, user_id=opponent.id, display_name=opponent.display_name)
    session = await bot.sessions.create(
        game=rules.game,
        guild_id=interaction.guild_id,
        channel_id=interaction.channel_id,
        created_by=interaction.user.id,
        seats=[challenger, challenged],
        state=with_series(
            challenge_state(challenger, challenged, options, expires_at),
            new_match(challenger.user_id, challenged.user_id, best_of),
        ),
        status="pending",
        deadlines=challenge_deadlines(expires_at),
    )
    fields = await handler.render(session, ShowContext())
    fields["allowed_mentions"] = discord.AllowedMentions(users=[discord.Object(opponent.id)])
    await bot.publisher.post_first(interaction, session, fields)


async def start_vs_ai(
    bot: DiceBot,
    handler: SecretDuelHandler[Any],
    interaction: discord.Interaction,
    options: dict[str, Any],
) -> None:
    if interaction.guild_id is None or interaction.channel_id is None or bot.user is None:
        raise UserError(_("Duels are played in a server channel."))
    handler.check_options(options)
    human = Seat(seat=0, user_id=interaction.user.id, display_name=interaction.user.display_name)
    machine = Seat(seat=1, user_id=bot.user.id, display_name=bot.user.display_name, is_ai=True)
    now = bot.clock.now()
    session = await bot.sessions.create(
        game=handler.game,
        guild_id=interaction.guild_id,
        channel_id=interaction.channel_id,
        created_by=interaction.user.id,
        seats=[human, machine],
        state={SETUP_KEY: options},
        status="active",
        # A durable safety net: if we stop right here, the game still begins on restart.
        deadlines=[
            Deadline(kind="begin", due_at=now + BEGIN_DELAY_SECONDS, action={"type": "begin"})
        ],
    )
    with contextlib.suppress(IllegalMove):  # the safety timer may have begun it first
        await bot.sessions.act(session.id, None, {"type": "begin"})
    started = await bot.sessions.require(session.id)
    fields = await handler.render(started, ShowContext())
    await bot.publisher.post_first(interaction, started, fields)


async def forfeit_game(
    bot: DiceBot, handler: SecretDuelHandler[Any], interaction: discord.Interaction
) -> None:
    if interaction.channel_id is None:
        raise UserError(_("Duels are played in a server channel."))
    session = await bot.sessions.open_session_for(
        interaction.user.id, interaction.channel_id, handler.game
    )
    game = handler.rules.shown_title()
    if session is None:
        raise UserError(_("You have no {game} game open in this channel.").format(game=game))
    if is_challenge(session.state):
        await act_on_challenge(bot, session, interaction.user.id, "decline", handler.rules.command)
        await answer_for(interaction).send(_("Done: the challenge is off."))
    else:
        await bot.sessions.act(session.id, interaction.user.id, {"type": "forfeit"})
        await answer_for(interaction).send(_("You forfeited the {game} game.").format(game=game))
