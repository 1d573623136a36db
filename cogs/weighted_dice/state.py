"""Weighted Dice table as stored in a session row, and the pure pieces the cog builds on.

A session's ``state`` is one of two envelopes:

- ``LobbyState`` (session status "pending"): who opened the table, the table's options,
  when the lobby expires, and who is invited (Play again). The players themselves are the
  session's seats, in join order.
- ``TableState`` (status "active", then "finished"): the engine's ``WeightedDiceState``
  plus what only the Discord table needs: who may stop the game, the opening roll-off to
  show in round one, when the current timer fires, and the last few notable happenings
  (a player leaving, a void round) so a re-render after a restart still tells them.

Nothing here talks to Discord or the database: it is plain data and parsing, unit-tested
on its own.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    model_validator,
)

from bot.i18n import _, number, pgettext
from bot.play.guild_settings import GuildSettings, setting_bounds
from game_core.analysis.weighted_lengths import OFFERED_TARGETS, GameLength, lengths
from game_core.base import Event
from game_core.errors import IllegalMove
from game_core.weighted_dice import DICE, TARGET_POINTS, WeightedDiceState

GAME = "weighted_dice"

# Notable engine events worth keeping on the table until a few more have happened.
NOTICE_TYPES = frozenset({"player_left", "round_void", "house_passed", "house_timeout"})
MAX_NOTICES = 4

# A bet amount as typed in the modal: an optional sign and digits (the engine judges the
# range, so "0" and "-3" get the engine's own explanation).
_AMOUNT = re.compile(r"[+-]?[0-9]{1,12}")
# Every language's words, whatever the player's language: the modal suggests its own.
ALL_IN_WORDS = frozenset(
    {"all", "all in", "all-in", "allin", "max"}  # English
    | {"todo", "todo dentro", "máximo", "maximo", "máx"}  # Spanish
    | {"tout", "tapis", "tout miser", "maximum"}  # French
    | {"tudo", "apostar tudo"}  # Brazilian Portuguese (the bet form suggests "tudo")
    | {"alles", "alles setzen"}  # German (the bet form suggests "alles")
)


# The ``points`` option's value for the short game (a real target is never 0).
SHORT_GAME = 0
BETTING_WINDOW_BOUNDS = setting_bounds("betting_window_seconds")
HOUSE_SETUP_BOUNDS = setting_bounds("house_setup_seconds")


class TableOptions(BaseModel):
    """What the host chose at ``/weighted new``, kept with the table for its whole life.

    ``target`` is the points to win, or None for the short game: the target the lab finds
    closest to 10-12 rounds for the players seated, fixed when the host presses Start.
    The two times are within the bounds the server's own settings accept.
    """

    model_config = ConfigDict(frozen=True)

    target: StrictInt | None = TARGET_POINTS
    betting_window_seconds: StrictInt
    house_setup_seconds: StrictInt

    @model_validator(mode="after")
    def _within_limits(self) -> TableOptions:
        # Built in the current language: ``chosen`` shows them to the host at once. The
        # bounds as Discord shows the option's range (digits only).
        problems = []
        if self.target is not None and self.target not in OFFERED_TARGETS:
            offered = ", ".join(number(target) for target in OFFERED_TARGETS)
            problems.append(
                _("**{option}** must be the short game or one of {offered}").format(
                    option=pgettext("option name", "points"), offered=offered
                )
            )
        for value, (low, high), name in (
            (self.betting_window_seconds, BETTING_WINDOW_BOUNDS, "betting_window"),
            (self.house_setup_seconds, HOUSE_SETUP_BOUNDS, "house_setup"),
        ):
            if not low <= value <= high:
                problems.append(
                    _("**{option}** must be from {low} to {high} seconds").format(
                        option=pgettext("option name", name), low=low, high=high
                    )
                )
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @classmethod
    def chosen(
        cls,
        settings: GuildSettings,
        *,
        points: int | None,
        betting_window: int | None,
        house_setup: int | None,
    ) -> TableOptions:
        """The options of a new table: what the host gave, the server's settings for the
        rest. Raises ``IllegalMove`` naming every value out of bounds (nothing is created)."""
        try:
            return cls(
                target=None if points == SHORT_GAME else (points or TARGET_POINTS),
                betting_window_seconds=settings.betting_window_seconds
                if betting_window is None
                else betting_window,
                house_setup_seconds=settings.house_setup_seconds
                if house_setup is None
                else house_setup,
            )
        except ValidationError as error:
            messages = [problem["msg"].removeprefix("Value error, ") for problem in error.errors()]
            raise IllegalMove(
                "No table was opened: {problems}.", {"problems": "; ".join(messages)}
            ) from None

    @property
    def short(self) -> bool:
        return self.target is None

    def target_for(self, players: int) -> int:
        """The points to win at a table of ``players``."""
        return lengths().short_target(players) if self.target is None else self.target

    def length(self, players: int) -> GameLength:
        """The lab's estimate of how long the game lasts with ``players``."""
        return lengths().length(players, self.target_for(players))


def legacy_options(settings: GuildSettings) -> TableOptions:
    """A table opened before tables had options: the card's target, the server's times."""
    return TableOptions(
        betting_window_seconds=settings.betting_window_seconds,
        house_setup_seconds=settings.house_setup_seconds,
    )


class LobbyState(BaseModel):
    kind: Literal["lobby"] = "lobby"
    host: StrictInt
    expires_at: float
    # None only in a lobby opened before tables had options (see ``legacy_options``).
    options: TableOptions | None = None
    # Why the lobby closed without a game ("expired", "host_left"); None while open.
    closed: Literal["expired", "host_left"] | None = None
    # Play again: the players of the finished table, invited (each presses Join).
    invited: list[StrictInt] = Field(default_factory=list)


class TableState(BaseModel):
    kind: Literal["table"] = "table"
    # The user who opened the lobby: they (or a server manager) may stop the game.
    host: StrictInt
    engine: WeightedDiceState
    # The opening d20 roll-off events, shown on the table until the first round is scored.
    roll_off: list[Event] = Field(default_factory=list)
    first_house: StrictInt
    # When the current phase's timer (house setup or betting window) fires.
    deadline_at: float | None = None
    # The host's choices; the target itself is the engine's. None only in a table started
    # before tables had options: it follows the server's settings, as it always did.
    options: TableOptions | None = None
    notices: list[Event] = Field(default_factory=list)


def load_state(state: dict[str, Any]) -> LobbyState | TableState:
    if state.get("kind") == "lobby":
        return LobbyState.model_validate(state)
    return TableState.model_validate(state)


def with_notices(previous: list[Event], events: list[Event]) -> list[Event]:
    """The rolling list of notable events after one step: newest last, at most a few.

    A house that passes in the normal rotation is not news (the table shows the house), so
    only a pass caused by the house leaving is kept.
    """
    notable = [
        event
        for event in events
        if event.get("type") in NOTICE_TYPES
        and not (event.get("type") == "house_passed" and event.get("reason") == "rotation")
    ]
    if not notable:
        # A scored round turns the page: old notices belong to rounds that are over.
        if any(event.get("type") == "round_scored" for event in events):
            return []
        return previous
    return (previous + notable)[-MAX_NOTICES:]


def parse_amount(text: str, points: int) -> int:
    """A bet amount typed by a player, as an int; "all" means every point they have.

    Only the form is checked here: the engine decides whether the number is a legal bet.
    """
    cleaned = text.strip()
    if cleaned.lower() in ALL_IN_WORDS:
        return points
    if not cleaned:
        raise IllegalMove(
            "“nothing” is not a whole number: type an amount from 1 to {points} (your points).",
            {"points": points},
        )
    if not _AMOUNT.fullmatch(cleaned):
        raise IllegalMove(
            "“{shown}” is not a whole number: type an amount from 1 to {points} (your points).",
            {"shown": cleaned[:20], "points": points},
        )
    return int(cleaned)


# -- the house's setup draft, carried in the custom_ids of its ephemeral panel ------------

UNSET = "x"
DRAFT_FIELDS = ("r0", "d0", "r1", "d1")
DRAFT_PATTERN = (
    r"(?P<r0>[0-9]{1,2}|x)\.(?P<d0>[0-9]{1,2}|x)\.(?P<r1>[0-9]{1,2}|x)\.(?P<d1>[0-9]{1,2}|x)"
)


class Draft(BaseModel):
    """The house's choices so far: roller seats and dice sides, None until picked."""

    r0: int | None = None
    d0: int | None = None
    r1: int | None = None
    d1: int | None = None

    def encode(self) -> str:
        return ".".join(UNSET if value is None else str(value) for value in self.values())

    def values(self) -> tuple[int | None, int | None, int | None, int | None]:
        return self.r0, self.d0, self.r1, self.d1

    @classmethod
    def from_groups(cls, groups: dict[str, str | None]) -> Draft:
        parsed: dict[str, int | None] = {}
        for name in DRAFT_FIELDS:
            raw = groups.get(name)
            parsed[name] = None if raw in (None, UNSET) else int(raw)  # type: ignore[arg-type]
        return cls(**parsed)

    def with_choice(self, field: str, value: str) -> Draft:
        """A new draft with one field set from a select's value (validated strictly)."""
        # ASCII digits only: str.isdigit() also accepts "²", which int() then refuses.
        if field not in DRAFT_FIELDS or not re.fullmatch(r"[0-9]{1,2}", value):
            raise IllegalMove("That choice is not on the list: pick again.")
        number = int(value)
        if field.startswith("d") and number not in DICE:
            raise IllegalMove("Pick a d4, d6, d8, d10, d12 or d20.")
        return self.model_copy(update={field: number})

    @property
    def complete(self) -> bool:
        return None not in self.values()

    @property
    def rollers(self) -> list[int]:
        return [seat for seat in (self.r0, self.r1) if seat is not None]
