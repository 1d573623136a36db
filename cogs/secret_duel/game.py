"""The plug-in each secret duel fills (``SecretDuelGame``): its engine calls, its words and
its private controls; the shared flow (moves, messages, presses) does everything else.

Also the sentences that name a game's round and score (``ROUND_TEXTS``, ``SCORE_TEXTS``),
picked by the game's ``round_word`` and ``vitals_word``.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel

from bot.i18n import N_, _, number
from bot.model.contract import Session
from cogs.secret_duel.state import UiState
from game_core.base import Event, GameResult

if TYPE_CHECKING:
    # Only in the controls' and the picture's signatures: the rest of the plug-in (what a
    # move's step uses) stays free of Discord.
    import discord

    from bot.pictures.picture import Picture


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
    # Where the bot is no member, secret controls never come by DM.
    stale_without_dm: str
    already_locked: str
    time_left: str
    warning: str


ROUND_TEXTS: dict[str, RoundTexts] = {
    "round": RoundTexts(
        # Translators: the title of a duel's public message: "Diceman — Round 3".
        heading=N_("{game} — Round {round}"),
        locked_title=N_("Locked in — {game} round {round}"),
        over_title=N_("{game} — round {round} is over"),
        next_controls=N_("Your menu for the next round comes in a new message."),
        not_begun=N_("That press is for round {requested}, which has not begun."),
        stale=N_(
            "That press is for round {requested}, which is over: this is round "
            "{current}. Use your latest DM or the **Make your move** button on the game "
            "message."
        ),
        stale_without_dm=N_(
            "That press is for round {requested}, which is over: this is round "
            "{current}. Use the **Make your move** button on the game message."
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
        next_controls=N_("Your menus for the next turn come in a new message."),
        not_begun=N_("That press is for turn {requested}, which has not begun."),
        stale=N_(
            "That press is for turn {requested}, which is over: this is turn "
            "{current}. Use your latest DM or the **Make your move** button on the game "
            "message."
        ),
        stale_without_dm=N_(
            "That press is for turn {requested}, which is over: this is turn "
            "{current}. Use the **Make your move** button on the game message."
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
    def choice_text(self, choice: dict[str, Any] | Any) -> str | None:
        """A player's own locked choice by the names of what they picked (only ever shown
        to that player), None when there is nothing to name (the dice chose)."""

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
