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

Two layers live here:

- The fixed pure functions ``column_score``, ``board_score`` and ``place`` (validated,
  plain lists of faces), and the engine contract (``KnucklebonesState``, actions,
  ``new_game``, ``apply``, views) that the bot uses.
- A compact form for hot paths: a column is an integer id into precomputed tables (every
  ordered column of 0..3 faces has one), a game position is a list of six column ids
  ``[p0c0, p0c1, p0c2, p1c0, p1c1, p1c2]``. ``step`` is the one per-move transition;
  ``apply`` and the analysis' scalar simulations both go through it.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from game_core.base import EndReason, Event, GameResult
from game_core.dice import is_int, roll
from game_core.errors import IllegalMove

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
    "KnucklebonesState",
    "LastMove",
    "Place",
    "Timeout",
    "apply",
    "board_score",
    "check_board",
    "column_score",
    "compact_position",
    "expand_position",
    "is_finished",
    "is_int",
    "legal_actions",
    "legal_columns",
    "new_game",
    "place",
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
    many opposing dice were removed. ``apply`` copies the position before calling it.
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
    """Six column ids back to two boards of face lists."""
    return [
        [list(COLUMNS[position[3 * player + column]]) for column in range(3)] for player in (0, 1)
    ]


# ---------------------------------------------------------------------------------------
# The fixed pure rules interface.
# ---------------------------------------------------------------------------------------


def _checked_column(column: object, where: str) -> tuple[int, ...]:
    if isinstance(column, str | bytes) or not isinstance(column, Sequence):
        raise IllegalMove(f"{where} must be a list of dice faces.")
    if len(column) > SLOTS:
        raise IllegalMove(f"{where} holds {len(column)} dice; a column holds at most {SLOTS}.")
    for face in column:
        if not is_int(face) or not 1 <= face <= FACES:
            raise IllegalMove(f"{where} holds {face!r}; every die shows a whole number 1 to 6.")
    return tuple(column)


def check_board(board: object, owner: str = "The") -> tuple[tuple[int, ...], ...]:
    """A board validated as RULES.md fixes it, as a tuple of face tuples (or IllegalMove).

    ``owner`` starts the error message ("Your", "The opponent's", ...).
    """
    if isinstance(board, str | bytes) or not isinstance(board, Sequence):
        raise IllegalMove(f"{owner} board must be a list of three columns.")
    if len(board) != 3:
        raise IllegalMove(f"{owner} board has {len(board)} columns; a board has exactly 3.")
    return tuple(
        _checked_column(column, f"{owner} column {index + 1}") for index, column in enumerate(board)
    )


def column_score(column: Sequence[int]) -> int:
    """Sum of ``face * count * count`` over the faces in one column of 0..3 dice."""
    return COLUMN_SCORE[COLUMN_ID[_checked_column(column, "The column")]]


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
        raise IllegalMove(f"There is no column {column!r}; columns are numbered 0, 1 and 2.")
    if not is_int(face) or not 1 <= face <= FACES:
        raise IllegalMove(f"A die cannot show {face!r}; faces run from 1 to 6.")
    if len(own_board[column]) >= SLOTS:
        raise IllegalMove(f"Column {column} (numbered from 0) is full; choose another column.")
    new_own = [list(faces) for faces in own_board]
    new_own[column].append(face)
    new_opponent = [list(faces) for faces in opponent_board]
    new_opponent[column] = [die for die in new_opponent[column] if die != face]
    return new_own, new_opponent


# ---------------------------------------------------------------------------------------
# State and actions (the engine contract).
# ---------------------------------------------------------------------------------------

Seat = Annotated[StrictInt, Field(ge=0, le=1)]


class Place(BaseModel):
    """Put the die just rolled into one of your columns (0, 1 or 2)."""

    model_config = ConfigDict(frozen=True)

    type: Literal["place"] = "place"
    player: StrictInt
    column: StrictInt


class Forfeit(BaseModel):
    """Give up: the opponent wins with reason "forfeit". Either player, any time."""

    model_config = ConfigDict(frozen=True)

    type: Literal["forfeit"] = "forfeit"
    player: StrictInt


class Timeout(BaseModel):
    """The player to move ran out of time: they lose with reason "timeout"."""

    model_config = ConfigDict(frozen=True)

    type: Literal["timeout"] = "timeout"
    player: StrictInt


Action = Annotated[Place | Forfeit | Timeout, Field(discriminator="type")]
ACTION_ADAPTER: TypeAdapter[Place | Forfeit | Timeout] = TypeAdapter(Action)


class LastMove(BaseModel):
    """The most recent placement: who, where, what, and which opposing dice it removed."""

    player: Seat
    column: Annotated[StrictInt, Field(ge=0, le=2)]
    face: Annotated[StrictInt, Field(ge=1, le=FACES)]
    removed: list[Annotated[StrictInt, Field(ge=1, le=FACES)]] = Field(default_factory=list)


class KnucklebonesState(BaseModel):
    """A whole game as data; round-trips through ``model_dump(mode="json")``.

    ``boards[player][column]`` lists faces in placement order. ``die`` is the face already
    rolled for ``current_player`` (shown before they pick a column); it is ``None`` once the
    game is over. ``turn`` counts placements: it is 1 on the first turn, goes up by one for
    each placement, and stays at the number of the last turn played when the game ends.
    """

    game: Literal["knucklebones"] = "knucklebones"
    phase: Literal["place", "finished"] = "place"
    turn: Annotated[StrictInt, Field(ge=1)] = 1
    first_player: Seat
    current_player: Seat
    die: Annotated[StrictInt, Field(ge=1, le=FACES)] | None
    boards: list[list[list[Annotated[StrictInt, Field(ge=1, le=FACES)]]]]
    last_move: LastMove | None = None
    winners: list[Seat] = Field(default_factory=list)
    draw: bool = False
    end_reason: EndReason | None = None
    # The seat that forfeited or timed out, when that ended the game.
    ended_by: Seat | None = None

    @model_validator(mode="after")
    def _consistent(self) -> KnucklebonesState:
        if len(self.boards) != 2 or any(len(board) != 3 for board in self.boards):
            raise ValueError("boards must be two boards of three columns")
        if any(len(column) > SLOTS for board in self.boards for column in board):
            raise ValueError("a column holds at most three dice")
        if (self.phase == "place") != (self.die is not None):
            raise ValueError("a die is rolled exactly while the game is running")
        if (self.phase == "finished") != (self.end_reason is not None):
            raise ValueError("a finished game has an end reason, a running one has none")
        return self


def _position(state: KnucklebonesState) -> list[int]:
    return compact_position(state.boards)


def _board_scores(position: Sequence[int]) -> list[int]:
    return [
        sum(COLUMN_SCORE[position[3 * player + column]] for column in range(3)) for player in (0, 1)
    ]


def _dice_count(position: Sequence[int], player: int) -> int:
    return sum(COLUMN_SIZE[position[3 * player + column]] for column in range(3))


def legal_columns(board: Sequence[Sequence[int]]) -> list[int]:
    """The columns of one board that still have room."""
    return [index for index, column in enumerate(board) if len(column) < SLOTS]


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
    state = KnucklebonesState(
        first_player=first_player,
        current_player=first_player,
        die=die,
        boards=[[[], [], []], [[], [], []]],
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


def _finish(
    state: KnucklebonesState,
    *,
    winners: list[int],
    reason: EndReason,
    ended_by: int | None,
    updates: dict[str, Any],
    position: Sequence[int],
) -> tuple[KnucklebonesState, Event]:
    finished = state.model_copy(
        deep=True,
        update={
            **updates,
            "phase": "finished",
            "die": None,
            "winners": winners,
            "draw": not winners,
            "end_reason": reason,
            "ended_by": ended_by,
        },
    )
    event: Event = {
        "type": "game_over",
        "reason": reason,
        "winners": list(winners),
        "draw": not winners,
        "scores": _board_scores(position),
        "turn": finished.turn,
    }
    if ended_by is not None:
        event["player"] = ended_by
    return finished, event


def apply(
    state: KnucklebonesState,
    action: Place | Forfeit | Timeout | dict[str, Any],
    rng: random.Random,
) -> tuple[KnucklebonesState, list[Event]]:
    """One step of the game. Pure: returns a new state; raises ``IllegalMove`` if illegal."""
    if isinstance(action, dict):
        try:
            action = ACTION_ADAPTER.validate_python(action)
        except ValidationError as error:
            raise IllegalMove("That is not a Knucklebones move.") from error
    if state.phase == "finished":
        raise IllegalMove("This game is already over.")
    player = _check_seat(getattr(action, "player", None))
    if isinstance(action, Forfeit):
        opponent = 1 - player
        position = _position(state)
        finished, event = _finish(
            state,
            winners=[opponent],
            reason="forfeit",
            ended_by=player,
            updates={},
            position=position,
        )
        return finished, [event]
    if isinstance(action, Timeout):
        if player != state.current_player:
            raise IllegalMove("Only the player whose turn it is can run out of time.")
        position = _position(state)
        finished, event = _finish(
            state,
            winners=[1 - player],
            reason="timeout",
            ended_by=player,
            updates={},
            position=position,
        )
        return finished, [event]
    if not isinstance(action, Place):
        raise IllegalMove("That is not a Knucklebones move.")
    if player != state.current_player:
        raise IllegalMove("It is not your turn.")
    column = action.column
    if not is_int(column) or not 0 <= column <= 2:
        raise IllegalMove("Choose one of your three columns (1, 2 or 3).")
    if len(state.boards[player][column]) >= SLOTS:
        raise IllegalMove(f"Your column {column + 1} is full; choose another column.")
    face = state.die
    assert face is not None  # guaranteed by the model while phase == "place"

    position = _position(state)
    removed = step(position, player, column, face)
    opponent = 1 - player
    boards = expand_position(position)
    last_move = LastMove(player=player, column=column, face=face, removed=[face] * removed)
    scores = _board_scores(position)
    events: list[Event] = [
        {
            "type": "placed",
            "player": player,
            "column": column,
            "face": face,
            "removed": removed,
            "removed_faces": [face] * removed,
            "column_scores": [COLUMN_SCORE[position[3 * seat + column]] for seat in (0, 1)],
            "scores": scores,
            "turn": state.turn,
        }
    ]
    updates: dict[str, Any] = {"boards": boards, "last_move": last_move}
    if _dice_count(position, player) == GRID_SIZE:
        if scores[player] == scores[opponent]:
            winners: list[int] = []
        else:
            winners = [player if scores[player] > scores[opponent] else opponent]
        finished, event = _finish(
            state,
            winners=winners,
            reason="normal",
            ended_by=None,
            updates=updates,
            position=position,
        )
        events.append(event)
        return finished, events
    die = roll(rng, FACES)
    turn = state.turn + 1
    updated = state.model_copy(
        deep=True, update={**updates, "current_player": opponent, "die": die, "turn": turn}
    )
    events.append({"type": "rolled", "player": opponent, "face": die, "turn": turn})
    return updated, events


def to_act(state: KnucklebonesState) -> list[int]:
    return [] if state.phase == "finished" else [state.current_player]


def legal_actions(state: KnucklebonesState, player: int) -> list[Place | Forfeit | Timeout]:
    """The placements ``player`` may make now (a Forfeit is always possible and not listed)."""
    if state.phase == "finished" or player != state.current_player:
        return []
    return [Place(player=player, column=column) for column in legal_columns(state.boards[player])]


def is_finished(state: KnucklebonesState) -> bool:
    return state.phase == "finished"


def result(state: KnucklebonesState) -> GameResult | None:
    """The outcome, with ``scores`` the final board scores; ``None`` while running."""
    if state.phase != "finished" or state.end_reason is None:
        return None
    winners = list(state.winners)
    ranks = [1, 1] if not winners else [1 if seat in winners else 2 for seat in (0, 1)]
    return GameResult(
        ranks=ranks,
        winners=winners,
        draw=not winners,
        reason=state.end_reason,
        scores=_board_scores(_position(state)),
    )


def public_view(state: KnucklebonesState) -> dict[str, Any]:
    """Everything in Knucklebones is public: boards, per-column scores, totals, the die."""
    position = _position(state)
    running = state.phase == "place"
    return {
        "game": "knucklebones",
        "phase": state.phase,
        "turn": state.turn,
        "first_player": state.first_player,
        "current_player": state.current_player if running else None,
        "die": state.die,
        "boards": [[list(column) for column in board] for board in state.boards],
        "column_scores": [
            [COLUMN_SCORE[position[3 * seat + column]] for column in range(3)] for seat in (0, 1)
        ],
        "scores": _board_scores(position),
        "dice_count": [_dice_count(position, seat) for seat in (0, 1)],
        "open_columns": [legal_columns(board) for board in state.boards],
        "last_move": state.last_move.model_dump(mode="json") if state.last_move else None,
        "finished": not running,
        "winners": list(state.winners),
        "draw": state.draw,
        "end_reason": state.end_reason,
        "ended_by": state.ended_by,
    }


def private_view(state: KnucklebonesState, player: int) -> dict[str, Any]:
    """Nothing is hidden in Knucklebones: the public view, plus whose view it is."""
    seat = _check_seat(player)
    view = public_view(state)
    view["viewer"] = seat
    view["your_turn"] = state.phase == "place" and state.current_player == seat
    return view
