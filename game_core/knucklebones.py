"""Knucklebones: two 3x3 grids, one d6 per turn, matching dice in the opposite column vanish.

Rules (RULES.md section 1, restated so the project never reads the shared folder):

- Each player has three columns of up to three dice. Players alternate turns.
- On a turn the player rolls one d6 and places it at the end of one of their own columns
  that is not full.
- Every die of the same face in the opponent's same column is removed; the others keep
  their order (order never affects scoring).
- A column scores ``f * c * c`` for each face ``f`` present ``c`` times; a player's score is
  the sum of their three columns.
- The game ends immediately when the placing player's grid holds nine dice. Higher score
  wins; equal scores draw.
- The first player is a coin flip from the injected rng unless the caller names one, and
  the state records who went first.

Three parts live here:

- The fixed pure functions ``column_score``, ``board_score`` and ``place`` (validated,
  plain lists of faces).
- A compact form for hot paths: a column is an integer id into precomputed tables (every
  ordered column of 0..3 faces has one), a game position is six column ids
  ``[p0c0, p0c1, p0c2, p1c0, p1c1, p1c2]``. ``step`` is the per-move transition the
  analysis' simulations use; ``apply`` makes the same one inline.
- The engine contract the bot uses: ``KnucklebonesState``, an immutable value that keeps
  its boards in the compact form, validated by the ``StateData`` model wherever data comes
  in (``load_state``, ``model_validate``, a pydantic model holding a state) and built
  without validation by ``new_game`` and ``apply``, which check the action instead; the
  actions; ``dump_state``; the views. A move costs what the rule card's own simulator
  spends on one (``bench/knucklebones_engine.py``).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    StrictInt,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic_core import core_schema

from game_core.base import EndReason, Event, GameResult
from game_core.dice import is_int, roll
from game_core.errors import IllegalMove, InvalidState

__all__ = [
    "ACTION_ADAPTER",
    "ADD",
    "COLUMNS",
    "COLUMN_ID",
    "COLUMN_SCORE",
    "COLUMN_SIZE",
    "FACES",
    "GRID_SIZE",
    "SLOTS",
    "STRIP",
    "STRIP_COUNT",
    "Action",
    "Forfeit",
    "InvalidState",
    "KnucklebonesState",
    "LastMove",
    "Place",
    "StateData",
    "Timeout",
    "apply",
    "board_score",
    "check_board",
    "column_score",
    "compact_position",
    "dump_state",
    "expand_position",
    "is_finished",
    "is_int",
    "legal_actions",
    "legal_columns",
    "load_state",
    "new_game",
    "open_columns",
    "place",
    "place_action",
    "private_view",
    "public_view",
    "result",
    "step",
    "to_act",
]

FACES = 6
SLOTS = 3  # dice per column
GRID_SIZE = 9  # dice per grid: the game ends when the placer's grid holds this many

# ---------------------------------------------------------------------------------------
# Compact tables. Ids are assigned by length, then lexicographically, so id 0 is the empty
# column. Indexing ``id * 7 + face`` keeps each lookup a single list access.
# ---------------------------------------------------------------------------------------

COLUMNS: tuple[tuple[int, ...], ...] = tuple(
    column
    for length in range(SLOTS + 1)
    for column in itertools.product(range(1, FACES + 1), repeat=length)
)
COLUMN_ID: dict[tuple[int, ...], int] = {column: index for index, column in enumerate(COLUMNS)}


def _score_faces(column: Sequence[int]) -> int:
    return sum(face * column.count(face) ** 2 for face in set(column))


COLUMN_SIZE: tuple[int, ...] = tuple(len(column) for column in COLUMNS)
COLUMN_SCORE: tuple[int, ...] = tuple(_score_faces(column) for column in COLUMNS)
_FULL = -1
# ADD[id * 7 + face]: the column with ``face`` appended, or -1 when the column is full.
ADD: tuple[int, ...] = tuple(
    COLUMN_ID[(*column, face)] if len(column) < SLOTS and face else _FULL
    for column in COLUMNS
    for face in range(FACES + 1)
)
# STRIP[id * 7 + face]: the column without any die showing ``face``; STRIP_COUNT: how many.
STRIP: tuple[int, ...] = tuple(
    COLUMN_ID[tuple(die for die in column if die != face)]
    for column in COLUMNS
    for face in range(FACES + 1)
)
STRIP_COUNT: tuple[int, ...] = tuple(
    column.count(face) if face else 0 for column in COLUMNS for face in range(FACES + 1)
)
# Columns (as a tuple) that are still open for each 3-bit mask of full columns.
OPEN_COLUMNS: tuple[tuple[int, ...], ...] = tuple(
    tuple(column for column in range(3) if not mask >> column & 1) for mask in range(8)
)


def step(position: list[int], player: int, column: int, face: int) -> int:
    """Place ``face`` in ``player``'s ``column`` of a compact position, IN PLACE.

    The hot path: no validation (callers check legality first), no allocation. Returns how
    many opposing dice were removed. ``apply`` makes the same transition inline.
    """
    own = 3 * player + column
    position[own] = ADD[position[own] * 7 + face]
    opposite = 3 - 3 * player + column
    key = position[opposite] * 7 + face
    removed = STRIP_COUNT[key]
    if removed:
        position[opposite] = STRIP[key]
    return removed


def compact_position(boards: Sequence[Sequence[Sequence[int]]]) -> list[int]:
    """Two validated boards (lists of faces) as six column ids."""
    return [COLUMN_ID[tuple(column)] for board in boards for column in board]


def expand_position(position: Sequence[int]) -> list[list[list[int]]]:
    """Six column ids back to two boards of new face lists."""
    a, b, c, d, e, f = position  # unrolled: every state read and dump comes through here
    return [
        [[*COLUMNS[a]], [*COLUMNS[b]], [*COLUMNS[c]]],
        [[*COLUMNS[d]], [*COLUMNS[e]], [*COLUMNS[f]]],
    ]


# ---------------------------------------------------------------------------------------
# The fixed pure rules interface.
# ---------------------------------------------------------------------------------------


def N_(message: str) -> str:
    """Marks an English message template for the catalogs (the bot translates it; the
    rule engine never imports the bot)."""
    return message


# The board checks' messages, one set per board the check is about ("owner", as the
# callers name it), so no message is glued from English words.
_BOARD_MESSAGES: dict[str, dict[str, str]] = {
    "The": {
        "board": N_("The board must be a list of three columns."),
        "width": N_("The board has {count} columns; a board has exactly 3."),
        "column": N_("Column {column} must be a list of dice faces."),
        "height": N_("Column {column} holds {count} dice; a column holds at most 3."),
        "face": N_("Column {column} holds {value}; every die shows a whole number 1 to 6."),
    },
    "Your": {
        "board": N_("Your board must be a list of three columns."),
        "width": N_("Your board has {count} columns; a board has exactly 3."),
        "column": N_("Your column {column} must be a list of dice faces."),
        "height": N_("Your column {column} holds {count} dice; a column holds at most 3."),
        "face": N_("Your column {column} holds {value}; every die shows a whole number 1 to 6."),
    },
    "The opponent's": {
        "board": N_("The opponent's board must be a list of three columns."),
        "width": N_("The opponent's board has {count} columns; a board has exactly 3."),
        "column": N_("The opponent's column {column} must be a list of dice faces."),
        "height": N_(
            "The opponent's column {column} holds {count} dice; a column holds at most 3."
        ),
        "face": N_(
            "The opponent's column {column} holds {value}; every die shows a whole number 1 to 6."
        ),
    },
}
# A lone column (``column_score``), numbered nowhere.
_LONE_COLUMN_MESSAGES = {
    "column": N_("The column must be a list of dice faces."),
    "height": N_("The column holds {count} dice; a column holds at most 3."),
    "face": N_("The column holds {value}; every die shows a whole number 1 to 6."),
}


def _checked_column(
    column: object, messages: Mapping[str, str], number: int | None = None
) -> tuple[int, ...]:
    where: dict[str, object] = {} if number is None else {"column": number}
    if isinstance(column, str | bytes) or not isinstance(column, Sequence):
        template = messages["column"]
        raise IllegalMove(template, where)
    if len(column) > SLOTS:
        template = messages["height"]
        raise IllegalMove(template, {**where, "count": len(column)})
    for face in column:
        if not is_int(face) or not 1 <= face <= FACES:
            template = messages["face"]
            raise IllegalMove(template, {**where, "value": repr(face)})
    return tuple(column)


def check_board(board: object, owner: str = "The") -> tuple[tuple[int, ...], ...]:
    """A board validated as RULES.md fixes it, as a tuple of face tuples (or IllegalMove).

    ``owner`` says whose board the error message names: "The", "Your" or
    "The opponent's".
    """
    messages = _BOARD_MESSAGES.get(owner, _BOARD_MESSAGES["The"])
    if isinstance(board, str | bytes) or not isinstance(board, Sequence):
        template = messages["board"]
        raise IllegalMove(template)
    if len(board) != 3:
        template = messages["width"]
        raise IllegalMove(template, {"count": len(board)})
    return tuple(_checked_column(column, messages, index + 1) for index, column in enumerate(board))


def column_score(column: Sequence[int]) -> int:
    """Sum of ``face * count * count`` over the faces in one column of 0..3 dice."""
    return COLUMN_SCORE[COLUMN_ID[_checked_column(column, _LONE_COLUMN_MESSAGES)]]


def board_score(board: Sequence[Sequence[int]]) -> int:
    """Sum of the three column scores of one board (3 columns of 0..3 faces each)."""
    return sum(COLUMN_SCORE[COLUMN_ID[column]] for column in check_board(board, "The"))


def place(
    own: Sequence[Sequence[int]],
    opponent: Sequence[Sequence[int]],
    column: int,
    face: int,
) -> tuple[list[list[int]], list[list[int]]]:
    """Place ``face`` at the end of ``own[column]`` and knock out matching opposing dice.

    Returns fresh ``(own, opponent)`` boards; the arguments are never modified. Does not
    check whether the game has already ended.
    """
    own_board = check_board(own, "Your")
    opponent_board = check_board(opponent, "The opponent's")
    if not is_int(column) or not 0 <= column <= 2:
        raise IllegalMove(
            "There is no column {value}; columns are numbered 0, 1 and 2.", {"value": repr(column)}
        )
    if not is_int(face) or not 1 <= face <= FACES:
        raise IllegalMove(
            "A die cannot show {value}; faces run from 1 to 6.", {"value": repr(face)}
        )
    if len(own_board[column]) >= SLOTS:
        raise IllegalMove(
            "Column {column} (numbered from 0) is full; choose another column.", {"column": column}
        )
    new_own = [list(faces) for faces in own_board]
    new_own[column].append(face)
    new_opponent = [list(faces) for faces in opponent_board]
    new_opponent[column] = [die for die in new_opponent[column] if die != face]
    return new_own, new_opponent


# ---------------------------------------------------------------------------------------
# Actions.
# ---------------------------------------------------------------------------------------

Seat = Annotated[StrictInt, Field(ge=0, le=1)]
Face = Annotated[StrictInt, Field(ge=1, le=FACES)]


# Actions are frozen dataclasses rather than pydantic models: a move builds one, and
# validating it would cost a sixth of the move. ``apply`` checks every field itself, and
# ``ACTION_ADAPTER`` validates an action that arrives as data (strict ints, no bools).
@dataclass(frozen=True, slots=True, kw_only=True)
class Place:
    """Put the die just rolled into one of your columns (0, 1 or 2)."""

    type: Literal["place"] = "place"
    player: StrictInt
    column: StrictInt


@dataclass(frozen=True, slots=True, kw_only=True)
class Forfeit:
    """Give up: the opponent wins with reason "forfeit". Either player, any time."""

    type: Literal["forfeit"] = "forfeit"
    player: StrictInt


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeout:
    """The player to move ran out of time: they lose with reason "timeout"."""

    type: Literal["timeout"] = "timeout"
    player: StrictInt


Action = Annotated[Place | Forfeit | Timeout, Field(discriminator="type")]
ACTION_ADAPTER: TypeAdapter[Place | Forfeit | Timeout] = TypeAdapter(Action)

# One shared, immutable Place per seat and column: what ``place_action`` and
# ``legal_actions`` hand out, so a move need not build one.
_PLACES: tuple[Place, ...] = tuple(
    Place(player=player, column=column) for player in (0, 1) for column in range(3)
)


def place_action(player: int, column: int) -> Place:
    """``Place(player=player, column=column)``, shared when both are in range."""
    if (
        player.__class__ is int
        and column.__class__ is int
        and 0 <= player <= 1
        and 0 <= column <= 2
    ):
        return _PLACES[3 * player + column]
    return Place(player=player, column=column)


# ---------------------------------------------------------------------------------------
# The state: an immutable value, validated where data enters.
# ---------------------------------------------------------------------------------------


class LastMove(BaseModel):
    """The most recent placement: who, where, what, and which opposing dice it removed.

    Immutable, so states share them: ``apply`` takes one from a table of all 144.
    """

    model_config = ConfigDict(frozen=True)

    player: Seat
    column: Annotated[StrictInt, Field(ge=0, le=2)]
    face: Face
    removed: tuple[Face, ...] = ()


class StateData(BaseModel):
    """The stored (JSON) shape of a ``KnucklebonesState`` and the rules it must obey.

    ``KnucklebonesState`` validates through this model wherever data enters the engine
    (``model_validate``, a pydantic model holding a state, ``load_state``'s general path).
    """

    game: Literal["knucklebones"] = "knucklebones"
    phase: Literal["place", "finished"] = "place"
    turn: Annotated[StrictInt, Field(ge=1)] = 1
    first_player: Seat
    current_player: Seat
    die: Face | None
    boards: list[list[list[Face]]]
    last_move: LastMove | None = None
    winners: list[Seat] = Field(default_factory=list)
    draw: bool = False
    end_reason: EndReason | None = None
    # The seat that forfeited or timed out, when that ended the game.
    ended_by: Seat | None = None

    @model_validator(mode="after")
    def _consistent(self) -> StateData:
        if len(self.boards) != 2 or any(len(board) != 3 for board in self.boards):
            raise ValueError("boards must be two boards of three columns")
        if any(len(column) > SLOTS for board in self.boards for column in board):
            raise ValueError("a column holds at most three dice")
        if (self.phase == "place") != (self.die is not None):
            raise ValueError("a die is rolled exactly while the game is running")
        if (self.phase == "finished") != (self.end_reason is not None):
            raise ValueError("a finished game has an end reason, a running one has none")
        return self


_new_object = object.__new__


class KnucklebonesState:
    """A whole game as an immutable value; round-trips through ``model_dump(mode="json")``.

    ``boards[player][column]`` lists faces in placement order (a fresh copy on every read:
    the state itself keeps the six column ids of the compact form, ``position``). ``die``
    is the face already rolled for ``current_player`` (shown before they pick a column); it
    is ``None`` once the game is over. ``turn`` counts placements: it is 1 on the first
    turn, goes up by one for each placement, and stays at the number of the last turn
    played when the game ends.

    Validated wherever data comes in: ``KnucklebonesState(**fields)``, ``model_validate``,
    ``model_validate_json``, ``load_state`` and any pydantic model with a field of this
    type check it against ``StateData`` (raising ``pydantic.ValidationError``, or
    ``InvalidState`` from ``load_state``). ``new_game`` and ``apply`` build their states
    from values they have just checked or computed, without validation: that is what keeps
    a move cheap. Not a pydantic model, but it answers the calls the bot makes on one.
    """

    __slots__ = (
        "_current_player",
        "_die",
        "_draw",
        "_end_reason",
        "_ended_by",
        "_first_player",
        "_last_move",
        "_phase",
        "_position",
        "_turn",
        "_winners",
    )

    game: Literal["knucklebones"] = "knucklebones"
    _phase: Literal["place", "finished"]
    _turn: int
    _first_player: int
    _current_player: int
    _die: int | None
    _position: tuple[int, ...]
    _last_move: LastMove | None
    _winners: tuple[int, ...]
    _draw: bool
    _end_reason: EndReason | None
    _ended_by: int | None

    def __init__(self, **fields: Any) -> None:
        """Validated construction from the fields ``StateData`` lists."""
        _fill_from_data(self, StateData(**fields))

    # -- read-only fields ----------------------------------------------------------------

    @property
    def phase(self) -> Literal["place", "finished"]:
        return self._phase

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def first_player(self) -> int:
        return self._first_player

    @property
    def current_player(self) -> int:
        return self._current_player

    @property
    def die(self) -> int | None:
        return self._die

    @property
    def boards(self) -> list[list[list[int]]]:
        """Both boards as fresh lists of faces (editing them never changes the state)."""
        return expand_position(self._position)

    @property
    def position(self) -> tuple[int, ...]:
        """The compact form: six column ids ``(p0c0, p0c1, p0c2, p1c0, p1c1, p1c2)``."""
        return self._position

    @property
    def last_move(self) -> LastMove | None:
        return self._last_move

    @property
    def winners(self) -> list[int]:
        return list(self._winners)

    @property
    def draw(self) -> bool:
        return self._draw

    @property
    def end_reason(self) -> EndReason | None:
        return self._end_reason

    @property
    def ended_by(self) -> int | None:
        return self._ended_by

    # -- value semantics -------------------------------------------------------------------

    def _key(self) -> tuple[Any, ...]:
        return (
            self._phase,
            self._turn,
            self._first_player,
            self._current_player,
            self._die,
            self._position,
            self._last_move,
            self._winners,
            self._draw,
            self._end_reason,
            self._ended_by,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KnucklebonesState):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in dump_state(self).items())
        return f"KnucklebonesState({fields})"

    def __copy__(self) -> KnucklebonesState:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> KnucklebonesState:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (load_state, (dump_state(self),))

    # -- the pydantic-style calls ----------------------------------------------------------

    @classmethod
    def model_validate(cls, data: object) -> KnucklebonesState:
        """A state from data (or a state); ``pydantic.ValidationError`` if it is not one."""
        return _STATE_ADAPTER.validate_python(data)

    @classmethod
    def model_validate_json(cls, text: str | bytes) -> KnucklebonesState:
        return _STATE_ADAPTER.validate_json(text)

    def model_dump(self, *, mode: Literal["python", "json"] = "python") -> dict[str, Any]:
        """The state as data; plain JSON types in either mode (see ``dump_state``)."""
        return dump_state(self)

    def model_dump_json(self) -> str:
        return _STATE_ADAPTER.dump_json(self).decode()

    def model_copy(
        self, *, update: dict[str, Any] | None = None, deep: bool = False
    ) -> KnucklebonesState:
        """This state with some fields replaced. Unlike pydantic's, the result is validated
        (and ``deep`` changes nothing: a state shares nothing mutable)."""
        data: dict[str, Any] = dump_state(self)
        if update:
            data.update(update)
        return _from_data(StateData.model_validate(data))

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        # Python data goes through ``load_state`` (its fast path for what the bot stored),
        # JSON through ``StateData``; either way out comes ``dump_state``'s data.
        from_json = core_schema.no_info_after_validator_function(
            _from_data, handler.generate_schema(StateData)
        )
        return core_schema.json_or_python_schema(
            json_schema=from_json,
            python_schema=core_schema.no_info_plain_validator_function(load_state),
            serialization=core_schema.plain_serializer_function_ser_schema(dump_state),
        )


def _fill_from_data(state: KnucklebonesState, data: StateData) -> KnucklebonesState:
    state._phase = data.phase
    state._turn = data.turn
    state._first_player = data.first_player
    state._current_player = data.current_player
    state._die = data.die
    state._position = tuple(compact_position(data.boards))
    state._last_move = data.last_move
    state._winners = tuple(data.winners)
    state._draw = data.draw
    state._end_reason = data.end_reason
    state._ended_by = data.ended_by
    return state


def _from_data(data: StateData) -> KnucklebonesState:
    return _fill_from_data(_new_object(KnucklebonesState), data)


def _state(
    phase: Literal["place", "finished"],
    turn: int,
    first_player: int,
    current_player: int,
    die: int | None,
    position: tuple[int, ...],
    last_move: LastMove | None,
    winners: tuple[int, ...],
    draw: bool,
    end_reason: EndReason | None,
    ended_by: int | None,
) -> KnucklebonesState:
    """A state from values the engine computed or checked itself: no validation."""
    state = _new_object(KnucklebonesState)
    state._phase = phase
    state._turn = turn
    state._first_player = first_player
    state._current_player = current_player
    state._die = die
    state._position = position
    state._last_move = last_move
    state._winners = winners
    state._draw = draw
    state._end_reason = end_reason
    state._ended_by = ended_by
    return state


_EMPTY_POSITION: tuple[int, ...] = (0, 0, 0, 0, 0, 0)
_NO_WINNERS: tuple[int, ...] = ()


def _last_move_index(player: int, column: int, face: int, removed: int) -> int:
    return ((player * 3 + column) * 7 + face) * (SLOTS + 1) + removed


_LAST_MOVES: tuple[LastMove | None, ...] = tuple(
    LastMove(player=player, column=column, face=face, removed=(face,) * removed) if face else None
    for player in (0, 1)
    for column in range(3)
    for face in range(FACES + 1)
    for removed in range(SLOTS + 1)
)


# ---------------------------------------------------------------------------------------
# The engine contract: new_game, apply, and what the bot asks of a state.
# ---------------------------------------------------------------------------------------


def _board_scores(position: Sequence[int]) -> list[int]:
    return [
        COLUMN_SCORE[position[0]] + COLUMN_SCORE[position[1]] + COLUMN_SCORE[position[2]],
        COLUMN_SCORE[position[3]] + COLUMN_SCORE[position[4]] + COLUMN_SCORE[position[5]],
    ]


def legal_columns(board: Sequence[Sequence[int]]) -> list[int]:
    """The columns of one board that still have room."""
    return [index for index, column in enumerate(board) if len(column) < SLOTS]


def open_columns(state: KnucklebonesState, player: int) -> list[int]:
    """The columns of ``player``'s board that still have room (cheaper than via boards)."""
    position = state._position
    return [column for column in range(3) if COLUMN_SIZE[position[3 * player + column]] < SLOTS]


def new_game(rng: random.Random, first: int | None = None) -> tuple[KnucklebonesState, list[Event]]:
    """Start a game. ``first=None`` flips a coin with ``rng``; then the first die is rolled."""
    if first is None:
        first_player = rng.randrange(2)
        chosen_by = "coin_flip"
    elif is_int(first) and first in (0, 1):
        first_player = first
        chosen_by = "command"
    else:
        raise IllegalMove("The first player must be seat 0 or seat 1.")
    die = roll(rng, FACES)
    state = _state(
        "place", 1, first_player, first_player, die, _EMPTY_POSITION, None, (), False, None, None
    )
    events: list[Event] = [
        {"type": "game_started", "first_player": first_player, "chosen_by": chosen_by},
        {"type": "rolled", "player": first_player, "face": die, "turn": 1},
    ]
    return state, events


def _check_seat(player: object) -> int:
    if not isinstance(player, int) or isinstance(player, bool) or player not in (0, 1):
        raise IllegalMove("There is no such player in this game.")
    return player


def apply(
    state: KnucklebonesState,
    action: Place | Forfeit | Timeout | dict[str, Any],
    rng: random.Random,
) -> tuple[KnucklebonesState, list[Event]]:
    """One step of the game. Pure: returns a new state; raises ``IllegalMove`` if illegal.

    The state is trusted (only validated data or the engine itself make one); the action
    is checked in full.
    """
    if type(action) is not Place:
        return _apply_other(state, action, rng)
    if state._phase != "place":
        raise IllegalMove("This game is already over.")
    player = action.player
    if player.__class__ is not int or not 0 <= player <= 1:
        raise IllegalMove("There is no such player in this game.")
    if player != state._current_player:
        raise IllegalMove("It is not your turn.")
    column = action.column
    if column.__class__ is not int or not 0 <= column <= 2:
        raise IllegalMove("Choose one of your three columns (1, 2 or 3).")
    face: int = state._die  # type: ignore[assignment]  # never None while placing
    position = list(state._position)
    # ``step``, inlined (the call is a tenth of a move); the property tests hold them equal.
    own = 3 * player + column
    added = ADD[position[own] * 7 + face]
    if added == _FULL:
        raise IllegalMove(
            "Your column {column} is full; choose another column.", {"column": column + 1}
        )
    position[own] = added
    facing = 3 - 3 * player + column
    key = position[facing] * 7 + face
    removed = STRIP_COUNT[key]
    if removed:
        position[facing] = STRIP[key]

    scores = [
        COLUMN_SCORE[position[0]] + COLUMN_SCORE[position[1]] + COLUMN_SCORE[position[2]],
        COLUMN_SCORE[position[3]] + COLUMN_SCORE[position[4]] + COLUMN_SCORE[position[5]],
    ]
    turn = state._turn
    placed: Event = {
        "type": "placed",
        "player": player,
        "column": column,
        "face": face,
        "removed": removed,
        "removed_faces": [face] * removed if removed else [],
        "column_scores": [COLUMN_SCORE[position[column]], COLUMN_SCORE[position[3 + column]]],
        "scores": scores,
        "turn": turn,
    }
    last_move = _LAST_MOVES[(own * 7 + face) * (SLOTS + 1) + removed]  # _last_move_index
    board = own - column
    opponent = 1 - player
    if (
        COLUMN_SIZE[position[board]]
        + COLUMN_SIZE[position[board + 1]]
        + COLUMN_SIZE[position[board + 2]]
        == GRID_SIZE
    ):
        mine, theirs = scores[player], scores[opponent]
        winners = () if mine == theirs else (player if mine > theirs else opponent,)
        finished = _state(
            "finished",
            turn,
            state._first_player,
            player,
            None,
            tuple(position),
            last_move,
            winners,
            not winners,
            "normal",
            None,
        )
        game_over: Event = {
            "type": "game_over",
            "reason": "normal",
            "winners": list(winners),
            "draw": not winners,
            "scores": scores[:],
            "turn": turn,
        }
        return finished, [placed, game_over]
    if rng.__class__ is random.Random:
        # game_core.dice.roll, inlined: the same draw as rng.randint(1, 6).
        die = rng.getrandbits(3)
        while die >= FACES:
            die = rng.getrandbits(3)
        die += 1
    else:
        die = roll(rng, FACES)
    turn += 1
    # _state, inlined: the call alone would be a tenth of a move.
    updated = _new_object(KnucklebonesState)
    updated._phase = "place"
    updated._turn = turn
    updated._first_player = state._first_player
    updated._current_player = opponent
    updated._die = die
    updated._position = tuple(position)
    updated._last_move = last_move
    updated._winners = _NO_WINNERS
    updated._draw = False
    updated._end_reason = None
    updated._ended_by = None
    return updated, [placed, {"type": "rolled", "player": opponent, "face": die, "turn": turn}]


def _apply_other(
    state: KnucklebonesState, action: object, rng: random.Random
) -> tuple[KnucklebonesState, list[Event]]:
    """``apply`` for anything but a ``Place``: data, forfeits, timeouts, and junk."""
    if isinstance(action, dict):
        try:
            action = ACTION_ADAPTER.validate_python(action)
        except ValidationError as error:
            raise IllegalMove("That is not a Knucklebones move.") from error
    if not isinstance(action, Place | Forfeit | Timeout):
        raise IllegalMove("That is not a Knucklebones move.")
    if isinstance(action, Place):
        # From data, or a subclass: the plain Place path checks it.
        return apply(state, Place(player=action.player, column=action.column), rng)
    if state._phase == "finished":
        raise IllegalMove("This game is already over.")
    player = _check_seat(action.player)
    if isinstance(action, Timeout):
        if player != state._current_player:
            raise IllegalMove("Only the player whose turn it is can run out of time.")
        reason: EndReason = "timeout"
    else:
        reason = "forfeit"
    winners = (1 - player,)
    finished = _state(
        "finished",
        state._turn,
        state._first_player,
        state._current_player,
        None,
        state._position,
        state._last_move,
        winners,
        False,
        reason,
        player,
    )
    event: Event = {
        "type": "game_over",
        "reason": reason,
        "winners": list(winners),
        "draw": False,
        "scores": _board_scores(state._position),
        "turn": state._turn,
        "player": player,
    }
    return finished, [event]


def to_act(state: KnucklebonesState) -> list[int]:
    return [] if state._phase == "finished" else [state._current_player]


def legal_actions(state: KnucklebonesState, player: int) -> list[Place | Forfeit | Timeout]:
    """The placements ``player`` may make now (a Forfeit is always possible and not listed)."""
    if state._phase == "finished" or player != state._current_player:
        return []
    return [_PLACES[3 * player + column] for column in open_columns(state, player)]


def is_finished(state: KnucklebonesState) -> bool:
    return state._phase == "finished"


def result(state: KnucklebonesState) -> GameResult | None:
    """The outcome, with ``scores`` the final board scores; ``None`` while running."""
    if state._phase != "finished" or state._end_reason is None:
        return None
    winners = list(state._winners)
    ranks = [1, 1] if not winners else [1 if seat in winners else 2 for seat in (0, 1)]
    return GameResult(
        ranks=ranks,
        winners=winners,
        draw=not winners,
        reason=state._end_reason,
        scores=_board_scores(state._position),
    )


def public_view(state: KnucklebonesState) -> dict[str, Any]:
    """Everything in Knucklebones is public: boards, per-column scores, totals, the die."""
    position = state._position
    column_scores = [[COLUMN_SCORE[column_id] for column_id in position[:3]]]
    column_scores.append([COLUMN_SCORE[column_id] for column_id in position[3:]])
    sizes = [COLUMN_SIZE[column_id] for column_id in position]
    running = state._phase == "place"
    last = state._last_move
    return {
        "game": "knucklebones",
        "phase": state._phase,
        "turn": state._turn,
        "first_player": state._first_player,
        "current_player": state._current_player if running else None,
        "die": state._die,
        "boards": expand_position(position),
        "column_scores": column_scores,
        "scores": [sum(column_scores[0]), sum(column_scores[1])],
        "dice_count": [sizes[0] + sizes[1] + sizes[2], sizes[3] + sizes[4] + sizes[5]],
        "open_columns": [
            [column for column in range(3) if sizes[3 * seat + column] < SLOTS] for seat in (0, 1)
        ],
        "last_move": None if last is None else _last_move_data(last),
        "finished": not running,
        "winners": list(state._winners),
        "draw": state._draw,
        "end_reason": state._end_reason,
        "ended_by": state._ended_by,
    }


def private_view(state: KnucklebonesState, player: int) -> dict[str, Any]:
    """Nothing is hidden in Knucklebones: the public view, plus whose view it is."""
    seat = _check_seat(player)
    view = public_view(state)
    view["viewer"] = seat
    view["your_turn"] = state._phase == "place" and state._current_player == seat
    return view


# ---------------------------------------------------------------------------------------
# Stored state: the bot saves every state as JSON data and loads it back on the next move.
# ---------------------------------------------------------------------------------------


def _last_move_data(last: LastMove) -> dict[str, Any]:
    return {
        "player": last.player,
        "column": last.column,
        "face": last.face,
        "removed": list(last.removed),
    }


def dump_state(state: KnucklebonesState) -> dict[str, Any]:
    """The state as JSON-ready data (what ``StateData`` validates); shares nothing with it."""
    last = state._last_move
    return {
        "game": "knucklebones",
        "phase": state._phase,
        "turn": state._turn,
        "first_player": state._first_player,
        "current_player": state._current_player,
        "die": state._die,
        "boards": expand_position(state._position),
        "last_move": None if last is None else _last_move_data(last),
        "winners": list(state._winners),
        "draw": state._draw,
        "end_reason": state._end_reason,
        "ended_by": state._ended_by,
    }


def load_state(data: object) -> KnucklebonesState:
    """A state from stored data: accepts and rejects what ``StateData`` does.

    Data exactly as ``dump_state`` writes it (JSON types only) takes a fast path that
    checks every field by hand; anything else, an older or odd but valid shape included, is
    validated by ``StateData``. A ``KnucklebonesState`` is returned as it is. Raises
    ``InvalidState`` (a ``ValueError``) naming the first problem.
    """
    if isinstance(data, KnucklebonesState):
        return data
    state = _load_canonical(data)
    if state is not None:
        return state
    try:
        return _from_data(StateData.model_validate(data))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the state"
        raise InvalidState(f"Stored Knucklebones state: {where}: {first['msg']}") from error


_END_REASONS: frozenset[str] = frozenset(get_args(EndReason))


def _is_seat(value: Any) -> bool:
    return type(value) is int and 0 <= value <= 1


def _canonical_position(boards: Any) -> tuple[int, ...] | None:
    """Six column ids for two boards of three lists of 0..3 int faces 1..6, or None."""
    if type(boards) is not list or len(boards) != 2:
        return None
    ids = []
    for board in boards:
        if type(board) is not list or len(board) != 3:
            return None
        for column in board:
            if type(column) is not list or len(column) > SLOTS:
                return None
            for face in column:
                if type(face) is not int or not 1 <= face <= FACES:
                    return None
            ids.append(COLUMN_ID[tuple(column)])
    return tuple(ids)


class _NotCanonical(Exception):
    """Data that ``dump_state`` would not have written: ``StateData`` must judge it."""


def _canonical_last_move(last: Any) -> LastMove | None:
    """The shared ``LastMove`` for stored last-move data (or None for null)."""
    if last is None:
        return None
    if type(last) is not dict:
        raise _NotCanonical
    # A missing key raises KeyError: not canonical either (``removed`` has a default).
    player = last["player"]
    column = last["column"]
    face = last["face"]
    removed = last["removed"]
    if not (
        _is_seat(player)
        and type(column) is int
        and 0 <= column <= 2
        and type(face) is int
        and 1 <= face <= FACES
        and type(removed) is list
        and len(removed) <= SLOTS
        and all(type(die) is int and die == face for die in removed)
    ):
        raise _NotCanonical
    return _LAST_MOVES[_last_move_index(player, column, face, len(removed))]


def _load_canonical(data: object) -> KnucklebonesState | None:
    """The state from data exactly as ``dump_state`` writes it, or None for anything else."""
    if type(data) is not dict:
        return None
    try:
        phase = data["phase"]
        turn = data["turn"]
        first_player = data["first_player"]
        current_player = data["current_player"]
        die = data["die"]
        winners = data["winners"]
        draw = data["draw"]
        end_reason = data["end_reason"]
        ended_by = data["ended_by"]
        last_move = _canonical_last_move(data["last_move"])
        position = _canonical_position(data["boards"])
        game = data["game"]
    except (KeyError, _NotCanonical):
        return None
    if not (
        game == "knucklebones"
        and type(turn) is int
        and turn >= 1
        and _is_seat(first_player)
        and _is_seat(current_player)
        and type(winners) is list
        and all(_is_seat(seat) for seat in winners)
        and type(draw) is bool
        and (ended_by is None or _is_seat(ended_by))
        and position is not None
    ):
        return None
    if phase == "place":
        if type(die) is not int or not 1 <= die <= FACES or end_reason is not None:
            return None
    elif (
        phase != "finished"
        or die is not None
        or type(end_reason) is not str
        or end_reason not in _END_REASONS
    ):
        return None
    return _state(
        "place" if phase == "place" else "finished",
        turn,
        first_player,
        current_player,
        die,
        position,
        last_move,
        tuple(winners),
        draw,
        end_reason,
        ended_by,
    )


# Built last: the schema refers to load_state, dump_state and _from_data.
_STATE_ADAPTER: TypeAdapter[KnucklebonesState] = TypeAdapter(
    KnucklebonesState, config=ConfigDict(title="KnucklebonesState")
)
