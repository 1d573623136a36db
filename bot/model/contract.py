"""The small per-game interface the session service and the publisher drive.

A game's cog provides a ``GameHandler``: ``step`` turns one action into the next state
inside the session's transaction (pure apart from the injected rng and time); ``render``
turns a stored session into its public message and ``private_controls`` /
``private_after`` say what each seat's private message (a DM) shows. The cog never sends,
retries or tracks messages: ``bot.ui.publishing.Publisher`` does, for every game. ``notify``
sends the one-shot pings an outcome calls for (a turn warning, "you are the house").
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from bot.i18n import _
from game_core.base import Event, GameResult

SessionStatus = Literal["pending", "active", "finished", "cancelled"]
OPEN_STATUSES: tuple[SessionStatus, ...] = ("pending", "active")

# How the bot reaches a session's channel, decided once by the command that creates it:
# "member" (the bot is in the server: channel routes) or "interaction" (a user-installed
# command in a DM, a group DM or a server without the bot: only the interactions' tokens).
Reach = Literal["member", "interaction"]
# The guild id an interaction-reach session stores: snowflake 0 is never a real server, so
# no server's leaderboard, season or tournament ever counts its results ("with friends").
FRIENDS_LADDER = 0


@dataclass(frozen=True)
class Seat:
    seat: int
    user_id: int
    display_name: str
    is_ai: bool = False
    # Left a game that goes on without them (Weighted Dice): the seat stays for the
    # standings, but the player is free to start or join another game in the channel.
    has_left: bool = False


@dataclass(frozen=True)
class Deadline:
    """A durable timer: when ``due_at`` passes, ``action`` is applied by the system.

    ``kind`` is unique per session (a new deadline of the same kind replaces the old).
    """

    kind: str
    due_at: float
    action: dict[str, Any]


@dataclass(frozen=True)
class Session:
    id: int
    game: str
    guild_id: int
    channel_id: int
    message_id: int | None
    status: SessionStatus
    state: dict[str, Any]
    version: int
    seed: int
    created_by: int
    created_at: float
    updated_at: float
    seats: tuple[Seat, ...]
    # The version the public message is known to show (-1: none yet).
    shown_version: int = -1
    # The language its public message speaks (bot/i18n.py), fixed when the game starts.
    language: str = "en"
    # How the bot reaches its channel (``Reach``): an "interaction" session is shown only
    # through its players' interaction tokens, never a channel route.
    reach: Reach = "member"

    def seat_of(self, user_id: int) -> int | None:
        for seat in self.seats:
            if seat.user_id == user_id and not seat.is_ai:
                return seat.seat
        return None

    def user_of(self, seat: int) -> Seat:
        for entry in self.seats:
            if entry.seat == seat:
                return entry
        raise KeyError(seat)

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    @property
    def vs_ai(self) -> bool:
        return any(seat.is_ai for seat in self.seats)


@dataclass(frozen=True)
class StepContext:
    session: Session
    # The Discord user acting, or None when the system acts (a deadline fired).
    actor_id: int | None
    now: float
    rng: random.Random
    guild_settings: Any

    @property
    def seat(self) -> int | None:
        if self.actor_id is None:
            return None
        return self.session.seat_of(self.actor_id)


@dataclass
class Step:
    """What one action did. ``deadlines=None`` keeps the session's timers as they are;
    a list replaces them all (an empty list clears them)."""

    state: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    status: SessionStatus = "active"
    deadlines: list[Deadline] | None = None
    result: GameResult | None = None
    seats: list[Seat] | None = None
    # Extra facts for the results table (score line, favourite picks); JSON-friendly.
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    session: Session
    previous: Session
    events: list[Event]
    action: dict[str, Any]
    actor_id: int | None
    result_id: int | None = None


@dataclass
class NewSession:
    """A session to create: what ``SessionService.create`` takes, and what a handler's
    ``follow_up`` returns for the session a finished one leads to."""

    seats: list[Seat]
    state: dict[str, Any]
    status: SessionStatus = "pending"
    deadlines: list[Deadline] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    # One open game per human seat per channel (a lobby's host only, as seated).
    exclusive: bool = True
    # A system action to apply right after the commit (a duel's "begin"); its durable
    # twin is one of ``deadlines``, in case the process stops in between.
    begin: dict[str, Any] | None = None
    # Users the new session's first message pings (the challenged player, the invited).
    ping: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class FollowUp:
    """A follow-up created: the new session, what it was made from, and the finished
    session's own new version (its message loses the button)."""

    session: Session
    new: NewSession
    previous: Outcome


# Why a game was stopped without a result: stored in English with its "cancelled" event
# (``SessionService.cancel``'s reason), never shown as it is. Each place that tells it has
# a whole sentence for each cause (a fragment slotted into another sentence cannot agree
# with it in every language), chosen by ``stop_cause``.
STOPPED_BY_ADMIN = "stopped by an admin"
CHANNEL_DELETED = "ended because its channel was deleted"
MESSAGE_REFUSED = "ended because its message could not be posted here"
STOP_CAUSES = (STOPPED_BY_ADMIN, CHANNEL_DELETED, MESSAGE_REFUSED)


def stop_cause(events: list[Event]) -> str | None:
    """Why ``SessionService.cancel`` ended a game, if these events say it did: the stored
    reason, one of ``STOP_CAUSES`` (or another a game stores, such as Weighted Dice's
    "ended by <user id>"), None when the events do not tell."""
    for event in events:
        if event.get("type") == "cancelled" and isinstance(event.get("reason"), str):
            return str(event["reason"])
    return None


def stopped_text(cause: str | None) -> str:
    """What a stopped game's picture says in its alt text instead of whose turn it is, and
    the line its message shows: one sentence for ``cause`` (from ``stop_cause``)."""
    if cause == STOPPED_BY_ADMIN:
        return _("The game was stopped by an admin; no result counts.")
    if cause == CHANNEL_DELETED:
        return _("The game ended because its channel was deleted; no result counts.")
    if cause == MESSAGE_REFUSED:
        return _("The game ended because its message could not be posted here; no result counts.")
    return _("The game was stopped; no result counts.")


def stopped_challenge_text(cause: str | None, *, rematch: bool) -> str:
    """A challenge (or a rematch) closed by ``cause`` before its game began, as a template
    of ``{game}`` (its title), ``{challenger}`` and ``{opponent}``."""
    if cause == STOPPED_BY_ADMIN:
        if rematch:
            return _("An admin stopped the {game} rematch from {challenger} to {opponent}.")
        return _("An admin stopped the {game} challenge from {challenger} to {opponent}.")
    if cause == CHANNEL_DELETED:
        if rematch:
            return _(
                "The {game} rematch from {challenger} to {opponent} ended because its channel "
                "was deleted."
            )
        return _(
            "The {game} challenge from {challenger} to {opponent} ended because its channel "
            "was deleted."
        )
    if cause == MESSAGE_REFUSED:
        if rematch:
            return _(
                "The {game} rematch from {challenger} to {opponent} ended because its message "
                "could not be posted here."
            )
        return _(
            "The {game} challenge from {challenger} to {opponent} ended because its message "
            "could not be posted here."
        )
    if rematch:
        return _("The {game} rematch from {challenger} to {opponent} was closed.")
    return _("The {game} challenge from {challenger} to {opponent} was closed.")


@dataclass(frozen=True)
class ShowContext:
    """What a render may use besides the stored session."""

    # The events of the move that made the session's current version (what the last
    # move did, why a game was cancelled); empty when unknown.
    events: list[Event] = field(default_factory=list)
    # Seats whose private controls could not be sent by DM (their DMs are closed).
    dm_closed: frozenset[int] = frozenset()


@dataclass(frozen=True)
class PrivateControls:
    """The private message a seat needs now. ``key`` names what the controls are for (e.g.
    ``"round:3"``): a new key means a new DM; the same key leaves the DM alone (the player
    may be halfway through a choice on it). ``render`` draws the message's fields in the
    current language; it is called only when a new DM goes out, as most publishes find the
    key unchanged."""

    key: str
    render: Callable[[], dict[str, Any]]


MessageFields = dict[str, Any]


@dataclass(frozen=True)
class LoggedMove:
    """One row of a session's event log: the move that made ``version`` (version 0: the
    session's creation), who made it (None: the system) and the events it produced."""

    version: int
    actor_id: int | None
    action: dict[str, Any]
    events: list[Event]
    created_at: float


@dataclass(frozen=True)
class ReplayFrame:
    """One step of a finished game's replay: the session's stored ``state`` as it stood
    after that step (as ``render`` reads it), its ``status`` then, and the ``events`` the
    step produced (what ``ShowContext.events`` held when players saw it)."""

    state: dict[str, Any]
    status: SessionStatus
    events: list[Event] = field(default_factory=list)
    # The seats then, where they changed since (a player who left later); None: as stored.
    seats: tuple[Seat, ...] | None = None


class GameHandler(Protocol):
    game: str
    # Whether the game ever sends a seat a private message (DM controls). A game that does
    # not is all in its public message: once a press's answer showed a move committed in
    # this process, the publisher has nothing left to read for it.
    private_messages: bool

    def step(self, ctx: StepContext, action: dict[str, Any]) -> Step: ...

    async def render(self, session: Session, context: ShowContext) -> MessageFields:
        """The public message for the stored session: ``content``, ``embed``, ``view``,
        ``attachments`` as for an edit (None removes a part)."""
        ...

    def private_controls(self, session: Session, seat: int) -> PrivateControls | None:
        """The controls ``seat`` needs in private now, or None."""
        ...

    def private_after(self, session: Session, seat: int, key: str) -> MessageFields:
        """What a private message sent for ``key`` shows once its controls are no longer
        needed (locked in, round over, game over)."""
        ...

    async def notify(self, outcome: Outcome) -> None:
        """One-shot pings after a commit (best effort: never retried)."""
        ...

    def gather_after(self, outcome: Outcome) -> float:
        """Seconds to wait before showing ``outcome``, so that a burst of moves (bets,
        joins) lands in one edit; 0 to show it at once."""
        ...
