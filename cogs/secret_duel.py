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

import asyncio
import contextlib
import logging
import random
import weakref
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import discord
from pydantic import BaseModel, Field

from bot.challenges import (
    challenge_deadlines,
    challenge_message_text,
    challenge_state,
    challenge_step,
    challenge_view,
    is_challenge,
)
from bot.errors import NotYourGame, UserError
from bot.games import Deadline, Outcome, Seat, Session, Step, StepContext, cancel_reason
from bot.replies import reply_ephemeral
from cogs.duel_render import describe_seconds, life_bar
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


def warning_after(timeout: int) -> float:
    """When the "time is running out" DM goes out: a minute before the end for long
    rounds, a third of the round before it for short ones."""
    return timeout - min(60, timeout / 3)


class DmRecord(BaseModel):
    channel_id: int
    message_id: int


class UiState(BaseModel):
    """Bot-level facts about the running game (never a secret before its reveal)."""

    round: int = 1
    started_at: float = 0.0
    deadline_at: float = 0.0
    timeout_seconds: int = 180
    warned: bool = False
    # The round whose controls were DMed (None: not yet), and where (seat -> message).
    dm_round: int | None = None
    dms: dict[str, DmRecord] = Field(default_factory=dict)
    dm_closed: list[int] = Field(default_factory=list)
    # The engine's events of the last reveal: public from the moment they exist.
    reveal: list[dict[str, Any]] = Field(default_factory=list)
    # Per seat, what each revealed round showed (Diceman dice pairs, duel functions).
    picks: list[list[Any]] = Field(default_factory=lambda: [[], []])
    ended: str | None = None  # "abandoned" when both players ran out of time


StateT = TypeVar("StateT", bound=BaseModel)


class SecretDuelGame(ABC, Generic[StateT]):
    """What the shared flow needs from one game: engine calls, words and controls."""

    game: ClassVar[str]  # the session's game key
    title: ClassVar[str]  # "Diceman"
    command: ClassVar[str]  # the slash command group, e.g. "diceman"
    round_word: ClassVar[str]  # "round" / "turn"
    vitals_word: ClassVar[str]  # "Life" / "HP"
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
    def choice_from_draft(self, state: StateT, seat: int, draft: str) -> dict[str, Any]:
        """The complete choice a draft encodes; UserError when something is missing."""


# ---------------------------------------------------------------------------------------------
# The handler
# ---------------------------------------------------------------------------------------------


def envelope(state: BaseModel, ui: UiState) -> dict[str, Any]:
    return {"game": state.model_dump(mode="json"), "ui": ui.model_dump(mode="json")}


class SecretDuelHandler(Generic[StateT]):
    """The GameHandler of one secret duel (registered with ``bot.sessions``)."""

    def __init__(self, bot: DiceBot, rules: SecretDuelGame[StateT]) -> None:
        self.bot = bot
        self.rules = rules
        self.game = rules.game
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        # Sessions whose public message is being posted right now (id not stored yet).
        self._posting: dict[int, asyncio.Event] = {}

    @contextlib.asynccontextmanager
    async def posting(self, session_id: int) -> AsyncIterator[None]:
        """Wrap posting a game's public message and storing its id: an outcome published
        meanwhile (a challenge answered or expired at once) waits for the id first."""
        done = asyncio.Event()
        self._posting[session_id] = done
        try:
            yield
        finally:
            done.set()
            self._posting.pop(session_id, None)

    async def until_posted(self, session_id: int) -> None:
        done = self._posting.get(session_id)
        if done is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), timeout=POSTING_WAIT_SECONDS)

    # -- reading the envelope -------------------------------------------------------------

    def parse(self, session: Session) -> tuple[StateT, UiState] | None:
        """The engine state and ui of a started game; None while pending or setting up."""
        raw = session.state
        if "game" not in raw:
            return None
        return self.rules.load(raw["game"]), UiState.model_validate(raw.get("ui", {}))

    # -- step: inside the session's transaction --------------------------------------------

    def step(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        raw = ctx.session.state
        if is_challenge(raw):
            return challenge_step(ctx, action, self._start)
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
            raise IllegalMove("That is not a move in this game.")
        if kind == "warn":
            return self._warn(ctx, state, ui, action)
        if kind == "timeout":
            return self._timeout(ctx, state, ui, action)
        if kind == "dm_sent":
            return self._dm_sent(state, ui, action)
        raise IllegalMove("That is not a move in this game.")

    def _start(self, ctx: StepContext, options: dict[str, Any]) -> Step:
        state, events = self.rules.new_game(options, ctx.rng)
        seats = list(ctx.session.seats)
        swapped = False
        if self.rules.random_first_seat and ctx.rng.random() < 0.5:
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
            word = self.rules.round_word
            raise IllegalMove(
                f"That control belongs to {word} {requested}, which is over: this is {word} "
                f"{current}. Use your latest DM or the **Make your move** button on the game "
                "message."
            )
        return current

    def already_locked_text(self) -> str:
        return (
            f"You're already locked in for this {self.rules.round_word}: a choice is final. "
            "Wait for your opponent; the reveal comes as soon as they lock in."
        )

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
        values, _ = self.rules.vitals(view)
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

    def _dm_sent(self, state: StateT, ui: UiState, action: dict[str, Any]) -> Step:
        round_no = self.check_round(state, action.get("round"))
        ui.dm_round = round_no
        ui.dms = {
            str(seat): DmRecord.model_validate(record)
            for seat, record in dict(action.get("dms") or {}).items()
        }
        ui.dm_closed = sorted(int(seat) for seat in action.get("closed") or [])
        return Step(
            state=envelope(state, ui),
            events=[{"type": "dms_sent", "round": round_no, "closed": ui.dm_closed}],
            status="active",
        )

    # -- publish: after the commit ----------------------------------------------------------

    def lock_for(self, session_id: int) -> asyncio.Lock:
        lock = self._locks.get(session_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[session_id] = lock
        return lock

    async def publish(self, outcome: Outcome, *, answered_message_id: int | None = None) -> None:
        """Show an outcome: challenge answers, DMs for a new round, lock-in marks, warnings,
        the reveal and the end. ``answered_message_id`` is the message that the triggering
        interaction already updated (so it is not edited twice)."""
        await self.until_posted(outcome.session.id)
        async with self.lock_for(outcome.session.id):
            try:
                await self._publish(outcome, answered_message_id)
            except Exception:
                # The move is committed whatever happens here; the next update repairs the view.
                log.exception("%s session %s: publishing failed", self.game, outcome.session.id)

    async def refresh(self, session_id: int) -> None:
        """Bring a game's DMs and public message up to date with its latest state."""
        await self.until_posted(session_id)
        async with self.lock_for(session_id):
            session = await self.bot.sessions.get(session_id)
            if session is None or self.parse(session) is None:
                return
            session = await self.ensure_round_dms(session)
            await self._edit_public(session, **self.render_public(session))

    async def _publish(self, outcome: Outcome, answered_message_id: int | None) -> None:
        types = [event.get("type") for event in outcome.events]
        closed = next(
            (CLOSED_CHALLENGE_EVENTS[t] for t in types if t in CLOSED_CHALLENGE_EVENTS), None
        )
        session = await self.bot.sessions.get(outcome.session.id) or outcome.session
        if closed is not None:
            await self._edit_public(session, **self.render_closed_challenge(outcome, closed))
            return
        parsed = self.parse(session)
        if parsed is None:
            return
        state, ui = parsed
        ended_now = outcome.previous.is_open and not outcome.session.is_open
        if ended_now:
            await self._retire_dms(session, state, ui, final=True)
        else:
            if "round_warning" in types:
                await self._send_warnings(session, outcome)
            await self._mark_locked(session, state, ui, outcome, answered_message_id)
            session = await self.ensure_round_dms(session)
        await self._edit_public(
            session, **self.render_public(session, cancelled_because=cancel_reason(outcome.events))
        )

    async def _edit_public(self, session: Session, **fields: Any) -> None:
        try:
            await self.bot.edit_public_message(session, **fields)
        except discord.HTTPException as error:
            log.warning(
                "%s session %s: could not edit the public message (HTTP %s)",
                self.game,
                session.id,
                error.status,
            )

    async def _edit_dm(self, record: DmRecord, **fields: Any) -> None:
        channel = self.bot.get_partial_messageable(
            record.channel_id, type=discord.ChannelType.private
        )
        try:
            await channel.get_partial_message(record.message_id).edit(**fields)
        except discord.HTTPException as error:
            log.info("could not edit a duel DM (HTTP %s)", error.status)

    async def ensure_round_dms(self, session: Session) -> Session:
        """Send this round's private controls by DM if that has not been done yet (after a
        round starts, and after a restart that interrupted it); record where they went."""
        parsed = self.parse(session)
        if parsed is None or not session.is_open:
            return session
        state, ui = parsed
        if self.rules.is_finished(state) or not self.rules.is_secret(state):
            return session
        round_no = self.rules.round_of(state)
        if ui.dm_round == round_no:
            return session
        await self._retire_dms(session, state, ui, final=False)
        waiting = self.rules.waiting_for(state)
        dms: dict[str, dict[str, int]] = {}
        closed: list[int] = []
        for seat in session.seats:
            if seat.is_ai or seat.seat not in waiting:
                continue
            embed, view = self.rules.controls(session, seat.seat, state, "", ui)
            try:
                message = await self.bot.send_dm(seat.user_id, embed=embed, view=view)
            except discord.HTTPException as error:
                log.info("could not DM a duel player (HTTP %s)", error.status)
                message = None
            if message is None:
                closed.append(seat.seat)
            else:
                dms[str(seat.seat)] = {"channel_id": message.channel.id, "message_id": message.id}
        try:
            outcome = await self.bot.sessions.act(
                session.id,
                None,
                {"type": "dm_sent", "round": round_no, "dms": dms, "closed": closed},
            )
        except (IllegalMove, UserError) as error:
            log.debug("session %s moved on while sending DMs: %s", session.id, error)
            return await self.bot.sessions.get(session.id) or session
        return outcome.session

    async def _retire_dms(
        self, session: Session, state: StateT, ui: UiState, *, final: bool
    ) -> None:
        """Turn the last DMed controls into a "round over" / "game over" note."""
        if ui.dm_round is None:
            return
        for seat_key, record in ui.dms.items():
            embed = self.render_dm_retired(session, state, ui, int(seat_key), final=final)
            await self._edit_dm(record, embed=embed, view=None)

    async def _mark_locked(
        self,
        session: Session,
        state: StateT,
        ui: UiState,
        outcome: Outcome,
        answered_message_id: int | None,
    ) -> None:
        """A player locked in through another message (the ephemeral fallback): their DM
        controls become a "locked in" note so they cannot be used again."""
        if self.rules.reveal_events(outcome.events):
            return  # the round is over: retiring the DMs covers it
        for event in outcome.events:
            if event.get("type") != "locked_in":
                continue
            record = ui.dms.get(str(event.get("player")))
            if record is None or ui.dm_round != self.rules.round_of(state):
                continue
            if record.message_id == answered_message_id:
                continue
            seat = int(event["player"])
            await self._edit_dm(record, embed=self.render_locked(session, state, seat), view=None)

    async def _send_warnings(self, session: Session, outcome: Outcome) -> None:
        seats: list[int] = next(
            (e.get("seats", []) for e in outcome.events if e.get("type") == "round_warning"), []
        )
        parsed = self.parse(session)
        if parsed is None:
            return
        state, ui = parsed
        todo = (
            f"lock in your {self.rules.round_word}"
            if self.rules.is_secret(state)
            else "press **Roll** on the game message"
        )
        for seat in session.seats:
            if seat.is_ai or seat.seat not in seats:
                continue
            text = (
                f"⏰ Time is running out in your **{self.rules.title}** game in "
                f"<#{session.channel_id}>: {todo} <t:{int(ui.deadline_at)}:R> or you forfeit. "
                f"{self.message_link(session)}"
            )
            try:
                await self.bot.send_dm(seat.user_id, content=text)
            except discord.HTTPException as error:
                log.info("could not send a duel warning DM (HTTP %s)", error.status)

    # -- rendering ---------------------------------------------------------------------------

    def message_link(self, session: Session) -> str:
        if session.message_id is None:
            return ""
        return (
            f"https://discord.com/channels/{session.guild_id}/{session.channel_id}/"
            f"{session.message_id}"
        )

    def names(self, session: Session) -> list[str]:
        return [session.user_of(seat).display_name for seat in (0, 1)]

    def render_closed_challenge(self, outcome: Outcome, how: str) -> dict[str, Any]:
        challenge = outcome.previous.state.get("challenge", {})
        challenger, opponent = challenge.get("challenger"), challenge.get("opponent")
        title = self.rules.title
        text = {
            "declined": f"<@{opponent}> declined the {title} challenge from <@{challenger}>.",
            "withdrawn": f"<@{challenger}> withdrew the {title} challenge to <@{opponent}>.",
            "expired": (
                f"The {self.rules.title} challenge from <@{challenger}> to <@{opponent}> expired "
                "without an answer."
            ),
        }[how]
        return {"content": text, "embed": None, "view": None}

    def render_public(
        self, session: Session, *, cancelled_because: str | None = None
    ) -> dict[str, Any]:
        """The public message: players, bars, round, who has locked in (never what), time
        left, the last reveal, and the buttons. Built from the public view only.
        ``cancelled_because`` is the reason a cancel that just happened gave."""
        parsed = self.parse(session)
        assert parsed is not None
        state, ui = parsed
        view = self.rules.public_view(state)
        names = self.names(session)
        values, maximum = self.rules.vitals(view)
        finished = not session.is_open
        round_no = self.rules.round_of(state)
        secret = self.rules.is_secret(state)
        title = f"{self.rules.emoji} {self.rules.title}"
        subtitle = self.rules.subtitle(view)
        if finished:
            title += " — game over"
        else:
            title += f" — {self.rules.round_word.capitalize()} {round_no}"
        embed = discord.Embed(
            title=title, colour=discord.Colour.dark_gold() if finished else discord.Colour.blurple()
        )
        lines: list[str] = []
        if subtitle:
            lines.append(subtitle)
        if ui.reveal:
            lines.extend(self.rules.narrate(ui.reveal, names))
        lines.append("")
        lines.append(self._status_line(session, state, ui, names, cancelled_because))
        embed.description = "\n".join(lines)[:4096]
        locked = view.get("locked_in", [False, False])
        for seat in (0, 1):
            entry = session.user_of(seat)
            field_lines = [life_bar(values[seat], maximum), *self.rules.seat_details(view, seat)]
            if not finished:
                if locked[seat]:
                    field_lines.append("🔒 Locked in" if secret else "🎲 Rolled")
                elif secret:
                    field_lines.append("⏳ Choosing…")
                else:
                    field_lines.append("⏳ Press **Roll**")
                if seat in ui.dm_closed and not locked[seat]:
                    field_lines.append("📭 DMs closed: use **Make your move**")
            label = self.rules.seat_label(view, seat)
            bot_tag = " 🤖" if entry.is_ai else ""
            embed.add_field(
                name=f"{entry.display_name}{bot_tag}{label}", value="\n".join(field_lines)
            )
        if not finished:
            embed.add_field(
                name="⏰ Time is running out" if ui.warned else "⏱️ Time left",
                value=(
                    f"<t:{int(ui.deadline_at)}:R> ({describe_seconds(ui.timeout_seconds)} per "
                    f"{self.rules.round_word}; a player who misses it forfeits)"
                ),
                inline=False,
            )
            if secret:
                embed.set_footer(
                    text=(
                        "Choices are secret until both lock in. Controls arrive by DM, or "
                        f"press Make your move. /{self.rules.command} forfeit to give up."
                    )
                )
            else:
                embed.set_footer(
                    text=f"The dice choose for you. /{self.rules.command} forfeit to give up."
                )
        buttons = None if finished else self.rules.public_buttons(session.id, round_no, secret)
        return {"content": self.headline(session), "embed": embed, "view": buttons}

    def headline(self, session: Session) -> str:
        a, b = session.user_of(0), session.user_of(1)
        who = [f"<@{s.user_id}>" if not s.is_ai else s.display_name for s in (a, b)]
        return f"**{self.rules.title}**: {who[0]} vs {who[1]}"

    def _status_line(
        self,
        session: Session,
        state: StateT,
        ui: UiState,
        names: Sequence[str],
        cancelled_because: str | None = None,
    ) -> str:
        if ui.ended == "abandoned":
            return "⌛ Neither player locked in before the time ran out: the game is abandoned."
        result = self.rules.result(state)
        if result is None:
            if session.status == "cancelled":
                return f"🛑 This game was {cancelled_because or 'stopped'}; no result counts."
            waiting = self.rules.waiting_for(state)
            if not waiting:
                return "Revealing…"
            who = " and ".join(names[s] for s in waiting)
            verb = "lock in" if self.rules.is_secret(state) else "press **Roll**"
            return f"Waiting for {who} to {verb}."
        if result.draw:
            return "🤝 **Draw**: both fell in the same moment."
        winner = names[result.winners[0]]
        loser = names[1 - result.winners[0]]
        if result.reason == "forfeit":
            return f"🏳️ {loser} forfeited. **{winner} wins!**"
        if result.reason == "timeout":
            return f"⌛ {loser} ran out of time. **{winner} wins!**"
        if result.reason == "round_cap":
            return f"⏹️ The round limit was reached: **{winner} wins** on life."
        return f"🏆 **{winner} wins!**"

    def render_locked(self, session: Session, state: StateT, seat: int) -> discord.Embed:
        """A player's own "locked in" note (their DM or ephemeral): it names their choice."""
        own = self.rules.private_view(state, seat).get("your_choice")
        word = self.rules.round_word
        embed = discord.Embed(
            title=f"🔒 Locked in — {self.rules.title} {word} {self.rules.round_of(state)}",
            colour=discord.Colour.green(),
        )
        lines = []
        if own is not None:
            lines.append(f"Your choice: {self.rules.choice_text(own)}")
        lines.append("A choice is final. The reveal comes as soon as your opponent locks in.")
        link = self.message_link(session)
        if link:
            lines.append(f"Game message: {link}")
        embed.description = "\n".join(lines)
        return embed

    def render_dm_retired(
        self, session: Session, state: StateT, ui: UiState, seat: int, *, final: bool
    ) -> discord.Embed:
        """What a player's DM controls turn into once their round (or the game) is over:
        the reveal of that round (public by now) and a link to the game message."""
        word = self.rules.round_word
        link = self.message_link(session)
        result = self.rules.result(state) if final else None
        # The last reveal belongs to the DMed round unless the game ended without one.
        reveal_round = ui.reveal and (
            not final or (result is not None and result.reason in REVEALED_ENDS)
        )
        lines = self.rules.narrate(ui.reveal, self.names(session)) if reveal_round else []
        if final:
            if result is None:
                headline = "The game has ended."
            elif result.draw:
                headline = "🤝 The game ended in a draw."
            elif seat in result.winners:
                headline = "🏆 You won!"
            else:
                headline = "You lost this one."
            title = f"{self.rules.title} — game over"
            lines.append("")
            lines.append(headline)
        else:
            title = f"{self.rules.title} — {word} {ui.dm_round} is over"
            lines.append("")
            lines.append("Your controls for the next round follow in a new message.")
        embed = discord.Embed(title=title, description="\n".join(lines).strip()[:4096])
        if link:
            embed.add_field(name="Game message", value=link, inline=False)
        return embed


def controls_intro(
    session: Session, rules: SecretDuelGame[Any], state: Any, seat: int, ui: UiState
) -> list[str]:
    """The lines every private control message starts with: both bars and the deadline."""
    view = rules.public_view(state)
    values, maximum = rules.vitals(view)
    opponent = session.user_of(1 - seat).display_name
    return [
        f"You: {life_bar(values[seat], maximum)}",
        f"{opponent}: {life_bar(values[1 - seat], maximum)}",
        f"Lock in <t:{int(ui.deadline_at)}:R> or you forfeit. Your opponent only sees that "
        "you've locked in, never what.",
    ]


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
    round_no: int,
) -> tuple[Session, Any, UiState, int]:
    """Load the game for a player's private control: their seat, the current round, not
    yet locked in. Raises the clear UserError / IllegalMove otherwise (changing nothing)."""
    session = await handler.bot.sessions.require(session_id)
    if not session.is_open:
        raise UserError("That game is already over.")
    seat = session.seat_of(interaction.user.id)
    if seat is None:
        raise NotYourGame()
    parsed = handler.parse(session)
    if parsed is None:
        raise IllegalMove("That game has not started yet.")
    state, ui = parsed
    handler.check_round(state, round_no)
    if seat not in handler.rules.waiting_for(state):
        raise IllegalMove(handler.already_locked_text())
    return session, state, ui, seat


async def open_controls(
    interaction: discord.Interaction, game: str, session_id: int, round_no: int
) -> None:
    """**Make your move**: the same controls as the DM, as an ephemeral message. Pressing
    it again reopens them (a lost or dismissed ephemeral is never a dead end)."""
    handler = handler_for(interaction, game)
    session, state, ui, seat = await _playing_state(handler, interaction, session_id, round_no)
    embed, view = handler.rules.controls(session, seat, state, "", ui)
    await interaction.response.send_message(embed=embed, view=view, ephemeral=True)
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
    await interaction.response.edit_message(embed=embed, view=view)


async def confirm_choice(
    interaction: discord.Interaction, game: str, session_id: int, round_no: int, draft: str
) -> None:
    """Confirm: lock the drafted choice in (final), then show the outcome."""
    handler = handler_for(interaction, game)
    session, state, _ui, seat = await _playing_state(handler, interaction, session_id, round_no)
    choice = handler.rules.choice_from_draft(state, seat, draft)
    outcome = await handler.bot.sessions.act(
        session_id, interaction.user.id, {"type": "lock", "round": round_no, "choice": choice}
    )
    locked_state = (
        handler.rules.load(outcome.session.state["game"])
        if "game" in outcome.session.state
        else state
    )
    if handler.rules.reveal_events(outcome.events):
        embed = discord.Embed(
            title=f"🔒 Locked in — {handler.rules.title} {handler.rules.round_word} {round_no}",
            description=(
                f"Your choice: {handler.rules.choice_text(choice)}\nBoth players are locked "
                f"in: the reveal is on the game message. {handler.message_link(session)}"
            ),
            colour=discord.Colour.green(),
        )
    else:
        embed = handler.render_locked(outcome.session, locked_state, seat)
    message = interaction.message
    await interaction.response.edit_message(embed=embed, view=None)
    await handler.publish(outcome, answered_message_id=None if message is None else message.id)


async def press_roll(
    interaction: discord.Interaction, game: str, session_id: int, round_no: int
) -> None:
    """Classic mode's public **Roll** button: lock in; the engine rolls every choice."""
    handler = handler_for(interaction, game)
    outcome = await handler.bot.sessions.act(
        session_id, interaction.user.id, {"type": "lock", "round": round_no, "choice": None}
    )
    await interaction.response.defer()
    await handler.publish(outcome)


# ---------------------------------------------------------------------------------------------
# Slash command flows (called by each game's cog)
# ---------------------------------------------------------------------------------------------


async def start_challenge(
    bot: DiceBot,
    handler: SecretDuelHandler[Any],
    interaction: discord.Interaction,
    opponent: discord.User | discord.Member,
    options: dict[str, Any],
) -> None:
    rules = handler.rules
    if interaction.guild_id is None or interaction.channel_id is None:
        raise UserError("Duels are played in a server channel.")
    if opponent.id == interaction.user.id:
        raise UserError(
            "You can't challenge yourself. Pick another player, or play me with "
            f"`/{rules.command} ai`."
        )
    if opponent.bot:
        if bot.user is not None and opponent.id == bot.user.id:
            raise UserError(f"To play against me, use `/{rules.command} ai`.")
        raise UserError("Bots can't play: challenge a person.")
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
        state=challenge_state(challenger, challenged, options, expires_at),
        status="pending",
        deadlines=challenge_deadlines(expires_at),
    )
    text = challenge_message_text(
        rules.title, interaction.user.id, opponent.id, expires_at, rules.challenge_details(options)
    )
    async with handler.posting(session.id):
        await interaction.response.send_message(text, view=challenge_view(session.id))
        message = await interaction.original_response()
        await bot.sessions.set_message(session.id, message.id)


async def start_vs_ai(
    bot: DiceBot,
    handler: SecretDuelHandler[Any],
    interaction: discord.Interaction,
    options: dict[str, Any],
) -> None:
    if interaction.guild_id is None or interaction.channel_id is None or bot.user is None:
        raise UserError("Duels are played in a server channel.")
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
    async with handler.posting(session.id):
        await interaction.response.send_message(**handler.render_public(started))
        message = await interaction.original_response()
        await bot.sessions.set_message(session.id, message.id)
    await handler.refresh(session.id)


async def forfeit_game(
    bot: DiceBot, handler: SecretDuelHandler[Any], interaction: discord.Interaction
) -> None:
    if interaction.channel_id is None:
        raise UserError("Duels are played in a server channel.")
    session = await bot.sessions.open_session_for(
        interaction.user.id, interaction.channel_id, handler.game
    )
    if session is None:
        raise UserError(f"You have no {handler.rules.title} game open in this channel.")
    if is_challenge(session.state):
        outcome = await bot.sessions.act(session.id, interaction.user.id, {"type": "decline"})
        await reply_ephemeral(interaction, "Done: the challenge is off.")
    else:
        outcome = await bot.sessions.act(session.id, interaction.user.id, {"type": "forfeit"})
        await reply_ephemeral(interaction, f"You forfeited the {handler.rules.title} game.")
    await handler.publish(outcome)


async def resume_open_games(bot: DiceBot, handler: SecretDuelHandler[Any]) -> None:
    """After a restart: send the DM controls of any round whose DMs never went out."""
    await bot.wait_until_ready()
    for session in await bot.sessions.open_sessions(handler.game):
        parsed = handler.parse(session)
        if parsed is None or parsed[1].dm_round == handler.rules.round_of(parsed[0]):
            continue
        if not handler.rules.is_secret(parsed[0]):
            continue
        try:
            await handler.refresh(session.id)
        except Exception:
            log.exception("could not resume %s session %s", handler.game, session.id)
