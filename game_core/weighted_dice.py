"""Weighted Dice: a rotating house sets up a two-dice duel and everyone else bets on it.

Rules (RULES.md section 3, restated so the project never reads the shared folder):

- 5 to 12 players, each starting with 20 points. Seats are fixed in join order; clockwise
  is the next seat, wrapping around.
- First house: everyone rolls a d20 and the highest roll is the house. Players tied for the
  highest roll re-roll among themselves until one is highest.
- A round: the house picks two other players as rollers and gives each a d4, d6, d8, d10,
  d12 or d20 (the same die twice is allowed). Every other player may bet once on one
  roller, a whole number from 1 to their current points; a bet is final. Betting closes
  when every eligible player has bet or the 20-second window ends. Both rollers roll and
  the higher roll wins.
- Scoring when a roller wins (every change is computed from the scores before the round):
  a bettor on the winner gains ``(bets on the loser) + own bet`` when anyone bet on the
  loser, else ``floor(own bet / 2)``; a bettor on the loser ends at ``max(5, points - bet)``;
  the winning roller gains ``roll + (bets on the loser)``; the losing roller and the house
  are unchanged.
- Scoring on a tie: every bet loses (same floor of 5) and the house gains the face value of
  all bets; if nobody bet, the house is set to 5 points ("rigging the odds").
- The house then passes to the next seat clockwise. After a round's scoring, if anyone has
  150 or more the game ends: the highest score wins, and all tied for it win.

Engine decisions the card leaves open (the bot and its messages rely on them):

- **Roll order.** When a round resolves, roller 0 rolls first, then roller 1, both from the
  injected rng. The roll-off rolls seats in seat order, re-rolls in seat order.
- **Round counter.** ``round`` counts the rounds *started*: it goes up whenever a fresh
  setup begins (after a scored round, after a void round, or when the house leaves during
  setup), so the bot can restart the house's setup deadline whenever it changes.
  ``rounds_played`` counts the rounds actually scored.
- **The house times out** (``HouseTimeout``): the engine picks two random active non-house
  rollers and two random dice from the rng, says so in a ``house_timeout`` event, and
  opens betting as if the house had chosen them.
- **The betting deadline** (``CloseBetting``): the round resolves with the bets placed so
  far (possibly none: a tie then rigs the house to 5, exactly as the card says).
- **Leaving** (``Leave``). A player who leaves keeps their points for the standings but no
  longer bets, rolls or hosts; the house rotation skips them.
  - If fewer than 5 players remain seated, the game ends at once (reason "abandoned"); the
    round in progress is not scored.
  - The house leaves during setup: the house passes to the next seated player clockwise,
    who sets up a fresh round.
  - The house or a roller leaves during betting: the round is void (nothing is rolled or
    scored, the bets are dropped). If a roller left, the same house sets up again; if the
    house left, the house passes clockwise as above.
  - A bettor who leaves keeps a bet already placed (bets are final): it is scored with the
    round. A seated player who had not bet yet simply stops being eligible; if everyone
    still eligible has bet, the round resolves at once.
- **Forfeit / Timeout.** This is a multiplayer game, so ``Forfeit(player)`` and
  ``Timeout(player)`` both mean that player leaves, exactly as ``Leave``. The only
  difference: when their departure ends the game, the result's reason is "forfeit" or
  "timeout" instead of "abandoned". (The house's setup and the betting window have their
  own system actions, ``HouseTimeout`` and ``CloseBetting``.)
- **Standings.** The winners are the seated players with the highest score; a player who
  left can never win (otherwise leaving while ahead could end a game in one's favour). In
  ``GameResult.ranks`` the winners are 1 and everybody else, leavers included, follows by
  points (equal points share a rank, competition style: 1, 2, 2, 4). ``draw`` is always
  False: ties for first show up as several winners. ``scores`` are the final points.

Two layers live here: the fixed pure functions ``score_round`` (validated) and
``win_probabilities``, and the engine contract (``WeightedDiceState``, actions, ``new_game``,
``apply``, views). ``settle_round`` is the one scoring routine: ``score_round``, ``apply``
and the analysis' simulator all go through it.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from functools import cache
from typing import Annotated, Any, Literal, NamedTuple, TypeVar

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
from game_core.dice import STANDARD_DICE, is_int, roll
from game_core.errors import IllegalMove

__all__ = [
    "ACTION_ADAPTER",
    "DICE",
    "FLOOR_POINTS",
    "MAX_PLAYERS",
    "MAX_ROLL",
    "MIN_PLAYERS",
    "STARTING_POINTS",
    "TARGET_POINTS",
    "Action",
    "Bet",
    "Change",
    "CloseBetting",
    "Forfeit",
    "HouseTimeout",
    "Leave",
    "PlacedBet",
    "RoundSummary",
    "ScoreChange",
    "Setup",
    "Timeout",
    "WeightedDiceState",
    "apply",
    "bet_totals",
    "eligible_bettors",
    "is_finished",
    "legal_actions",
    "new_game",
    "private_view",
    "public_view",
    "result",
    "roll_off",
    "score_round",
    "settle_round",
    "to_act",
    "validate_round",
    "win_probabilities",
]

MIN_PLAYERS = 5
MAX_PLAYERS = 12
STARTING_POINTS = 20
TARGET_POINTS = 150
# A losing bettor never drops below this; a house that rigs a tie nobody bet on is set to it.
FLOOR_POINTS = 5
# Rolls come from dice of at most 20 faces, so the pure scorer rejects anything beyond.
MAX_ROLL = 20
ROLL_OFF_DIE = 20
DICE: tuple[int, ...] = STANDARD_DICE

Phase = Literal["setup", "betting", "finished"]
ChangeReason = Literal[
    "won_bet",  # backed the winner and somebody backed the loser: + pot + own bet
    "won_bet_half",  # backed the winner, nobody backed the loser: + floor(bet / 2)
    "lost_bet",  # backed the loser: max(5, points - bet)
    "lost_bet_tie",  # any bet on a tie: max(5, points - bet)
    "roller_won",  # the winning roller: + roll + pot
    "roller_lost",  # the losing roller: unchanged
    "house_tie",  # the house on a tie with bets: + every bet's face value
    "house_rigged",  # the house on a tie nobody bet on: set to 5
    "house",  # the house when a roller won: unchanged
    "no_bet",  # anyone else: unchanged
]

K = TypeVar("K", bound=Hashable)


# ---------------------------------------------------------------------------------------
# The pure rules: scoring and exact odds.
# ---------------------------------------------------------------------------------------


class Change(NamedTuple):
    """How one player's points moved in a round, and why (enough for a renderer)."""

    before: int
    after: int
    reason: ChangeReason
    # For bettors: the roller backed (0 or 1) and the amount bet.
    side: int | None = None
    amount: int | None = None
    # roller_won / won_bet: the bets on the losing roller; house_tie: all bets.
    pot: int | None = None
    # roller_won: the winning roll.
    roll: int | None = None
    # lost_bet / lost_bet_tie: the floor of 5 stopped the fall.
    floored: bool = False


def settle_round(
    scores: Mapping[K, int],
    house: K,
    rollers: tuple[K, K],
    rolls: tuple[int, int],
    bets: Mapping[K, tuple[int, int]],
) -> dict[K, Change]:
    """Score one round from already-valid inputs; every player gets a ``Change``.

    No validation here (``score_round`` validates): the engine's state and the analysis'
    simulator only ever hold legal rounds, and this is their hot path.
    """
    changes = {player: Change(points, points, "no_bet") for player, points in scores.items()}
    changes[house] = Change(scores[house], scores[house], "house")

    def lose(bettor: K, side: int, amount: int, reason: ChangeReason) -> None:
        before = scores[bettor]
        after = max(FLOOR_POINTS, before - amount)
        changes[bettor] = Change(
            before, after, reason, side, amount, floored=before - amount < FLOOR_POINTS
        )

    if rolls[0] == rolls[1]:
        for bettor, (side, amount) in bets.items():
            lose(bettor, side, amount, "lost_bet_tie")
        before = scores[house]
        if bets:
            total = sum(amount for _, amount in bets.values())
            changes[house] = Change(before, before + total, "house_tie", pot=total)
        else:
            changes[house] = Change(before, FLOOR_POINTS, "house_rigged")
        for roller in rollers:
            changes[roller] = Change(scores[roller], scores[roller], "roller_lost")
        return changes

    winner = 0 if rolls[0] > rolls[1] else 1
    pot = sum(amount for side, amount in bets.values() if side != winner)
    for bettor, (side, amount) in bets.items():
        if side != winner:
            lose(bettor, side, amount, "lost_bet")
            continue
        before = scores[bettor]
        if pot:
            changes[bettor] = Change(before, before + pot + amount, "won_bet", side, amount, pot)
        else:
            changes[bettor] = Change(before, before + amount // 2, "won_bet_half", side, amount)
    winning, losing = rollers[winner], rollers[1 - winner]
    before = scores[winning]
    gain = rolls[winner] + pot
    changes[winning] = Change(before, before + gain, "roller_won", pot=pot, roll=rolls[winner])
    changes[losing] = Change(scores[losing], scores[losing], "roller_lost")
    return changes


def _known(scores: Mapping[Any, int], player: object) -> bool:
    try:
        return player in scores
    except TypeError:  # an unhashable "name" is simply not a player
        return False


def _pair(value: object, what: str) -> tuple[Any, Any]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or len(value) != 2:
        raise IllegalMove(
            "{what} must be a pair of exactly two values, got {value!r}.",
            {"what": what, "value": value},
        )
    return value[0], value[1]


def validate_round(
    scores: Mapping[K, int],
    house: K,
    rollers: tuple[K, K],
    rolls: tuple[int, int],
    bets: Mapping[K, tuple[int, int]],
) -> tuple[tuple[K, K], tuple[int, int], dict[K, tuple[int, int]]]:
    """Check a round against RULES.md; returns the rollers, rolls and bets as plain tuples."""
    if not isinstance(scores, Mapping):
        raise IllegalMove("scores must map each player to their points.")
    for player, points in scores.items():
        if not is_int(points) or points < 0:
            raise IllegalMove(
                "{player!r} has {points!r} points: points are a whole number >= 0.",
                {"player": player, "points": points},
            )
    if not _known(scores, house):
        raise IllegalMove("The house {house!r} is not a known player.", {"house": house})
    first, second = _pair(rollers, "rollers")
    for roller in (first, second):
        if not _known(scores, roller):
            raise IllegalMove("The roller {roller!r} is not a known player.", {"roller": roller})
        if roller == house:
            raise IllegalMove("The house cannot be one of the rollers.")
    if first == second:
        raise IllegalMove("The two rollers must be different players.")
    roll_pair = _pair(rolls, "rolls")
    for value in roll_pair:
        if not is_int(value) or not 1 <= value <= MAX_ROLL:
            raise IllegalMove(
                "A roll must be a whole number from 1 to {max}, got {value!r}.",
                {"max": MAX_ROLL, "value": value},
            )
    if not isinstance(bets, Mapping):
        raise IllegalMove("bets must map each bettor to (roller index, amount).")
    checked: dict[K, tuple[int, int]] = {}
    for bettor, bet in bets.items():
        if not _known(scores, bettor):
            raise IllegalMove("The bettor {bettor!r} is not a known player.", {"bettor": bettor})
        if bettor == house:
            raise IllegalMove("The house cannot bet.")
        if bettor in (first, second):
            raise IllegalMove("A roller cannot bet.")
        side, amount = _pair(bet, f"The bet of {bettor!r}")  # a caller's mistake: English
        if not is_int(side) or side not in (0, 1):
            raise IllegalMove("A bet backs roller 0 or roller 1, got {side!r}.", {"side": side})
        points = scores[bettor]
        if not is_int(amount) or not 1 <= amount <= points:
            raise IllegalMove(
                "{bettor!r} has {points} points: a bet is a whole number from 1 to {points}, "
                "got {amount!r}.",
                {"bettor": bettor, "points": points, "amount": amount},
            )
        checked[bettor] = (side, amount)
    return (first, second), (roll_pair[0], roll_pair[1]), checked


def score_round(
    scores: Mapping[str, int],
    house: str,
    rollers: tuple[str, str],
    rolls: tuple[int, int],
    bets: Mapping[str, tuple[int, int]],
) -> dict[str, int]:
    """Every player's points after one round (RULES.md section 3); inputs are not mutated.

    ``rolls[i]`` is the roll of ``rollers[i]``; a bet ``(i, amount)`` backs ``rollers[i]``.
    Raises ``IllegalMove`` for: a house or roller who is not a known player, two equal
    rollers, the house as a roller, a roll outside 1..20, a non-int (or bool) anywhere, a
    bet by the house, a roller or an unknown player, a bet backing anything but 0 or 1, or
    an amount outside 1..the bettor's points.
    """
    pair, roll_pair, checked = validate_round(scores, house, rollers, rolls, bets)
    changes = settle_round(scores, house, pair, roll_pair, checked)
    return {player: change.after for player, change in changes.items()}


@cache
def _probabilities(die_a: int, die_b: int) -> tuple[Fraction, Fraction, Fraction]:
    # Of the die_a * die_b equally likely outcomes, min(a, b) are ties and the rest split by
    # who is higher; counting a's wins face by face keeps it exact and obviously right.
    a_wins = sum(min(face - 1, die_b) for face in range(1, die_a + 1))
    ties = min(die_a, die_b)
    total = die_a * die_b
    return Fraction(a_wins, total), Fraction(total - a_wins - ties, total), Fraction(ties, total)


def win_probabilities(die_a: int, die_b: int) -> tuple[Fraction, Fraction, Fraction]:
    """Exact (P(a rolls higher), P(b rolls higher), P(tie)) for two fair dice.

    Dice are given by their number of faces, from {4, 6, 8, 10, 12, 20}; anything else
    raises ``IllegalMove``. This is what the ``/odds weighted die_a die_b`` command shows.
    """
    for die in (die_a, die_b):
        if not is_int(die) or die not in DICE:
            raise IllegalMove(
                "Weighted Dice uses a d4, d6, d8, d10, d12 or d20, not {die!r}.", {"die": die}
            )
    return _probabilities(die_a, die_b)


def roll_off(rng: random.Random, seats: Sequence[int]) -> tuple[int, list[list[tuple[int, int]]]]:
    """The d20 roll-off for the first house: returns (house, every round of rolls).

    Each round is a list of (seat, roll) in seat order; the players tied for the highest
    roll of a round re-roll in the next, until one is highest.
    """
    contenders = list(seats)
    rounds: list[list[tuple[int, int]]] = []
    while True:
        rolls = [(seat, roll(rng, ROLL_OFF_DIE)) for seat in contenders]
        rounds.append(rolls)
        top = max(value for _, value in rolls)
        contenders = [seat for seat, value in rolls if value == top]
        if len(contenders) == 1:
            return contenders[0], rounds


# ---------------------------------------------------------------------------------------
# State and actions (the engine contract).
# ---------------------------------------------------------------------------------------


class Setup(BaseModel):
    """The house picks two rollers (seats) and their dice; ``dice[i]`` goes to ``rollers[i]``."""

    model_config = ConfigDict(frozen=True)

    type: Literal["setup"] = "setup"
    player: StrictInt
    rollers: list[StrictInt]
    dice: list[StrictInt]


class Bet(BaseModel):
    """Back roller 0 or 1 of this round with ``amount`` points (final once placed)."""

    model_config = ConfigDict(frozen=True)

    type: Literal["bet"] = "bet"
    player: StrictInt
    roller: StrictInt
    amount: StrictInt


class CloseBetting(BaseModel):
    """System action: the 20-second betting window is over; roll with the bets placed."""

    model_config = ConfigDict(frozen=True)

    type: Literal["close_betting"] = "close_betting"


class HouseTimeout(BaseModel):
    """System action: the house did not set up in time; the engine sets up at random."""

    model_config = ConfigDict(frozen=True)

    type: Literal["house_timeout"] = "house_timeout"


class Leave(BaseModel):
    """The player leaves the table; they keep their points for the standings."""

    model_config = ConfigDict(frozen=True)

    type: Literal["leave"] = "leave"
    player: StrictInt


class Forfeit(BaseModel):
    """The player gives up: same as ``Leave``; a game it ends has reason "forfeit"."""

    model_config = ConfigDict(frozen=True)

    type: Literal["forfeit"] = "forfeit"
    player: StrictInt


class Timeout(BaseModel):
    """The player is dropped for inactivity: same as ``Leave``; ends with reason "timeout"."""

    model_config = ConfigDict(frozen=True)

    type: Literal["timeout"] = "timeout"
    player: StrictInt


AnyAction = Setup | Bet | CloseBetting | HouseTimeout | Leave | Forfeit | Timeout
Action = Annotated[AnyAction, Field(discriminator="type")]
ACTION_ADAPTER: TypeAdapter[AnyAction] = TypeAdapter(Action)


# Which of the two rollers: 0 or 1 (a strict int, so ``True`` is not a roller).
Side = Annotated[StrictInt, Field(ge=0, le=1)]


class PlacedBet(BaseModel):
    """A public, final bet: ``player`` backs ``rollers[roller]`` with ``amount`` points."""

    player: StrictInt
    roller: Side
    amount: Annotated[StrictInt, Field(ge=1)]


class ScoreChange(BaseModel):
    """One player's line in a round's scoring; see ``Change`` for the fields' meaning."""

    player: StrictInt
    before: StrictInt
    after: StrictInt
    reason: ChangeReason
    side: Side | None = None
    amount: StrictInt | None = None
    pot: StrictInt | None = None
    roll: StrictInt | None = None
    floored: bool = False


class RoundSummary(BaseModel):
    """What happened in the last scored round: the dice, rolls, bets and every change."""

    round: StrictInt
    house: StrictInt
    rollers: list[StrictInt]
    dice: list[StrictInt]
    rolls: list[StrictInt]
    # Index (0 or 1) of the winning roller; None for a tie (the house wins).
    winner: Side | None
    bets: list[PlacedBet]
    changes: list[ScoreChange]
    # "all_bet": every eligible player had bet; "deadline": CloseBetting.
    closed_by: Literal["all_bet", "deadline"]


class WeightedDiceState(BaseModel):
    """A whole game as data; round-trips through ``model_dump(mode="json")`` and JSON.

    Seats are 0..n_players-1 in join order. ``rollers``/``dice`` are empty during setup.
    ``bets`` are this round's bets in the order placed (all public). ``active[seat]`` is
    False once that player has left. ``round`` counts rounds started, ``rounds_played``
    rounds scored (see the module docstring).
    """

    game: Literal["weighted_dice"] = "weighted_dice"
    n_players: Annotated[StrictInt, Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)]
    scores: list[StrictInt]
    active: list[bool]
    house: StrictInt
    phase: Phase = "setup"
    round: Annotated[StrictInt, Field(ge=1)] = 1
    rounds_played: Annotated[StrictInt, Field(ge=0)] = 0
    rollers: list[StrictInt] = Field(default_factory=list)
    dice: list[StrictInt] = Field(default_factory=list)
    # True when the engine set this round up because the house timed out.
    auto_setup: bool = False
    bets: list[PlacedBet] = Field(default_factory=list)
    target: Annotated[StrictInt, Field(ge=1)] = TARGET_POINTS
    last_round: RoundSummary | None = None
    end_reason: EndReason | None = None

    @model_validator(mode="after")
    def _consistent(self) -> WeightedDiceState:
        # Guards a stored row that was edited or corrupted; apply() keeps these by itself.
        if len(self.scores) != self.n_players or len(self.active) != self.n_players:
            raise ValueError("scores and active need one entry per seat")
        if not 0 <= self.house < self.n_players:
            raise ValueError("the house must be a seat")
        if self.phase == "setup" and (self.rollers or self.dice or self.bets):
            raise ValueError("no rollers, dice or bets before the house sets up")
        if self.phase == "betting" and (len(self.rollers) != 2 or len(self.dice) != 2):
            raise ValueError("betting needs two rollers with a die each")
        if (self.phase == "finished") != (self.end_reason is not None):
            raise ValueError("a finished game has an end reason, a running one has none")
        return self


def new_game(
    n_players: int,
    rng: random.Random,
    *,
    starting_points: int = STARTING_POINTS,
    target: int = TARGET_POINTS,
) -> tuple[WeightedDiceState, list[Event]]:
    """Seat ``n_players`` (5..12), hold the d20 roll-off for the house, start round 1.

    ``starting_points`` exists for the analysis lab's what-ifs (the game always starts
    players on 20); ``target`` is the card's 150 unless the table chose another.
    """
    if not is_int(n_players) or not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise IllegalMove(
            "Weighted Dice needs {low} to {high} players.",
            {"low": MIN_PLAYERS, "high": MAX_PLAYERS},
        )
    if not is_int(starting_points) or starting_points < 1:
        raise IllegalMove("Players start with at least 1 point.")
    if not is_int(target) or target <= starting_points:
        raise IllegalMove("The target must be above the starting points.")
    house, rounds = roll_off(rng, range(n_players))
    events: list[Event] = []
    for attempt, rolls in enumerate(rounds, start=1):
        top = max(value for _, value in rolls)
        events.append(
            {
                "type": "roll_off",
                "attempt": attempt,
                "rolls": [{"player": seat, "roll": value} for seat, value in rolls],
                "highest": top,
                "tied": [seat for seat, value in rolls if value == top]
                if attempt < len(rounds)
                else [],
            }
        )
    events.append({"type": "house_chosen", "player": house, "reason": "roll_off"})
    state = WeightedDiceState(
        n_players=n_players,
        scores=[starting_points] * n_players,
        active=[True] * n_players,
        house=house,
        target=target,
    )
    events.append(_round_started(state))
    return state, events


# ---------------------------------------------------------------------------------------
# Queries the UI and the bot use.
# ---------------------------------------------------------------------------------------


def eligible_bettors(state: WeightedDiceState) -> list[int]:
    """Seats allowed to bet this round (seated, not the house, not a roller), whether or not
    they have bet yet. Empty outside the betting phase."""
    if state.phase != "betting":
        return []
    return [
        seat
        for seat in range(state.n_players)
        if state.active[seat] and seat != state.house and seat not in state.rollers
    ]


def bet_totals(state: WeightedDiceState) -> tuple[int, int]:
    """The live total bet on roller 0 and on roller 1 this round."""
    totals = [0, 0]
    for bet in state.bets:
        totals[bet.roller] += bet.amount
    return totals[0], totals[1]


def to_act(state: WeightedDiceState) -> list[int]:
    """The house during setup; the eligible players who have not bet during betting."""
    if state.phase == "setup":
        return [state.house]
    if state.phase == "betting":
        placed = {bet.player for bet in state.bets}
        return [seat for seat in eligible_bettors(state) if seat not in placed]
    return []


def is_finished(state: WeightedDiceState) -> bool:
    return state.phase == "finished"


def _standings(scores: Sequence[int], winners: Sequence[int]) -> list[int]:
    winner_set = set(winners)
    ranks = []
    for seat, points in enumerate(scores):
        if seat in winner_set:
            ranks.append(1)
            continue
        ahead = sum(
            1 for other, theirs in enumerate(scores) if other not in winner_set and theirs > points
        )
        ranks.append(1 + len(winner_set) + ahead)
    return ranks


def _winners(state: WeightedDiceState) -> list[int]:
    seated = [seat for seat in range(state.n_players) if state.active[seat]]
    best = max(state.scores[seat] for seat in seated)
    return [seat for seat in seated if state.scores[seat] == best]


def result(state: WeightedDiceState) -> GameResult | None:
    """The standings once the game is over (see the module docstring), else None."""
    if state.phase != "finished" or state.end_reason is None:
        return None
    winners = _winners(state)
    return GameResult(
        ranks=_standings(state.scores, winners),
        winners=winners,
        draw=False,
        reason=state.end_reason,
        scores=list(state.scores),
    )


def legal_actions(state: WeightedDiceState, player: int) -> list[AnyAction]:
    """The game moves open to ``player`` now: every setup for the house (each roller pair
    once, lower seat first; the reverse order is legal too), every bet for an eligible
    player who has not bet. ``Leave``/``Forfeit`` are always open to a seated player and are
    not listed."""
    if not is_int(player) or player not in to_act(state):
        return []
    if state.phase == "setup":
        candidates = _roller_candidates(state)
        return [
            Setup(player=player, rollers=[a, b], dice=[da, db])
            for a, b in itertools.combinations(candidates, 2)
            for da in DICE
            for db in DICE
        ]
    points = state.scores[player]
    return [
        Bet(player=player, roller=side, amount=amount)
        for side in (0, 1)
        for amount in range(1, points + 1)
    ]


def _odds(state: WeightedDiceState) -> list[str] | None:
    if len(state.dice) != 2:
        return None
    return [str(p) for p in win_probabilities(state.dice[0], state.dice[1])]


def _role(state: WeightedDiceState, seat: int) -> str:
    if not state.active[seat]:
        return "left"
    if seat == state.house:
        return "house"
    if seat in state.rollers:
        return "roller"
    return "player"


def public_view(state: WeightedDiceState) -> dict[str, Any]:
    """Everything is public in this game: points, roles, dice, every bet and the odds."""
    current = result(state)
    return {
        "game": "weighted_dice",
        "phase": state.phase,
        "round": state.round,
        "rounds_played": state.rounds_played,
        "target": state.target,
        "n_players": state.n_players,
        "house": state.house,
        "players": [
            {
                "seat": seat,
                "points": state.scores[seat],
                "active": state.active[seat],
                "role": _role(state, seat),
            }
            for seat in range(state.n_players)
        ],
        "rollers": list(state.rollers),
        "dice": list(state.dice),
        "auto_setup": state.auto_setup,
        # P(roller 0 wins), P(roller 1 wins), P(tie) as exact fractions "a/b".
        "odds": _odds(state),
        "bets": [bet.model_dump(mode="json") for bet in state.bets],
        "bet_totals": list(bet_totals(state)),
        "eligible": eligible_bettors(state),
        "to_act": to_act(state),
        "last_round": state.last_round.model_dump(mode="json") if state.last_round else None,
        "result": current.model_dump(mode="json") if current else None,
    }


def private_view(state: WeightedDiceState, player: int) -> dict[str, Any]:
    """The public view plus what matters to ``player``: their bet and how much they may bet."""
    view = public_view(state)
    seat = _checked_seat(state, player)
    own = next((bet for bet in state.bets if bet.player == seat), None)
    view["you"] = {
        "seat": seat,
        "points": state.scores[seat],
        "role": _role(state, seat),
        "bet": own.model_dump(mode="json") if own else None,
        "can_bet": seat in to_act(state) and state.phase == "betting",
        "max_bet": state.scores[seat],
    }
    return view


# ---------------------------------------------------------------------------------------
# apply: one step of the game.
# ---------------------------------------------------------------------------------------


def apply(
    state: WeightedDiceState, action: AnyAction | dict[str, Any], rng: random.Random
) -> tuple[WeightedDiceState, list[Event]]:
    """One step of the game. Pure: returns a new state; raises ``IllegalMove`` if illegal."""
    if isinstance(action, dict):
        try:
            action = ACTION_ADAPTER.validate_python(action)
        except ValidationError as error:
            raise IllegalMove("That is not a Weighted Dice move.") from error
    if state.phase == "finished":
        raise IllegalMove("This game is already over.")
    new = state.model_copy(deep=True)
    events: list[Event] = []
    if isinstance(action, Setup):
        _setup(new, action, events)
    elif isinstance(action, Bet):
        _bet(new, action, rng, events)
    elif isinstance(action, CloseBetting):
        if new.phase != "betting":
            raise IllegalMove("Betting is not open, so there is nothing to close.")
        _resolve(new, rng, "deadline", events)
    elif isinstance(action, HouseTimeout):
        _house_timeout(new, rng, events)
    elif isinstance(action, Leave | Forfeit | Timeout):
        _leave(new, action, rng, events)
    else:
        raise IllegalMove("That is not a Weighted Dice move.")
    return new, events


def _checked_seat(state: WeightedDiceState, player: object) -> int:
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < state.n_players:
        raise IllegalMove("There is no such seat at this table.")
    return player


def _seated(state: WeightedDiceState, player: object) -> int:
    seat = _checked_seat(state, player)
    if not state.active[seat]:
        raise IllegalMove("You have left this game.")
    return seat


def _roller_candidates(state: WeightedDiceState) -> list[int]:
    return [seat for seat in range(state.n_players) if state.active[seat] and seat != state.house]


def _next_seated(state: WeightedDiceState, seat: int) -> int:
    for step in range(1, state.n_players + 1):
        candidate = (seat + step) % state.n_players
        if state.active[candidate]:
            return candidate
    raise AssertionError("a running game always has seated players")


def _round_started(state: WeightedDiceState) -> Event:
    return {"type": "round_started", "round": state.round, "house": state.house}


def _start_round(state: WeightedDiceState, events: list[Event]) -> None:
    state.round += 1
    state.phase = "setup"
    state.rollers = []
    state.dice = []
    state.bets = []
    state.auto_setup = False
    events.append(_round_started(state))


def _pass_house(state: WeightedDiceState, reason: str, events: list[Event]) -> None:
    previous = state.house
    state.house = _next_seated(state, previous)
    events.append({"type": "house_passed", "from": previous, "to": state.house, "reason": reason})


def _open_betting(
    state: WeightedDiceState, rollers: list[int], dice: list[int], auto: bool, events: list[Event]
) -> None:
    state.rollers = rollers
    state.dice = dice
    state.auto_setup = auto
    state.phase = "betting"
    events.append(
        {
            "type": "setup",
            "round": state.round,
            "house": state.house,
            "rollers": list(rollers),
            "dice": list(dice),
            "auto": auto,
            "odds": _odds(state),
            "eligible": eligible_bettors(state),
        }
    )


def _setup(state: WeightedDiceState, action: Setup, events: list[Event]) -> None:
    if state.phase != "setup":
        raise IllegalMove("The rollers and dice are already set for this round.")
    seat = _seated(state, action.player)
    if seat != state.house:
        raise IllegalMove("Only the house can set up this round.")
    if len(action.rollers) != 2:
        raise IllegalMove("Pick exactly two rollers.")
    for roller in action.rollers:
        if not is_int(roller) or not 0 <= roller < state.n_players:
            raise IllegalMove("Each roller must be a player at this table.")
        if roller == state.house:
            raise IllegalMove("The house cannot be a roller: pick two other players.")
        if not state.active[roller]:
            raise IllegalMove("A player who has left the game cannot roll.")
    if action.rollers[0] == action.rollers[1]:
        raise IllegalMove("Pick two different players as rollers.")
    if len(action.dice) != 2:
        raise IllegalMove("Give exactly one die to each roller.")
    for die in action.dice:
        if not is_int(die) or die not in DICE:
            raise IllegalMove("Each roller gets a d4, d6, d8, d10, d12 or d20.")
    _open_betting(state, list(action.rollers), list(action.dice), False, events)


def _house_timeout(state: WeightedDiceState, rng: random.Random, events: list[Event]) -> None:
    if state.phase != "setup":
        raise IllegalMove("The house has already set up this round.")
    rollers = rng.sample(_roller_candidates(state), 2)
    dice = [rng.choice(DICE), rng.choice(DICE)]
    events.append(
        {
            "type": "house_timeout",
            "round": state.round,
            "house": state.house,
            "rollers": list(rollers),
            "dice": list(dice),
        }
    )
    _open_betting(state, rollers, dice, True, events)


def _bet(state: WeightedDiceState, action: Bet, rng: random.Random, events: list[Event]) -> None:
    if state.phase != "betting":
        raise IllegalMove("Betting is not open yet: the house is still setting up the round.")
    seat = _seated(state, action.player)
    if seat == state.house:
        raise IllegalMove("You are the house this round: the house does not bet.")
    if seat in state.rollers:
        raise IllegalMove("You are rolling this round: rollers cannot bet.")
    placed = next((bet for bet in state.bets if bet.player == seat), None)
    if placed is not None:
        raise IllegalMove(
            "You already bet {amount} on roller {roller}: bets are final.",
            {"amount": placed.amount, "roller": placed.roller + 1},
        )
    if not is_int(action.roller) or action.roller not in (0, 1):
        raise IllegalMove("Bet on one of the two rollers.")
    points = state.scores[seat]
    if not is_int(action.amount) or action.amount < 1:
        raise IllegalMove("A bet must be at least 1 point.")
    if action.amount > points:
        raise IllegalMove(
            "You have only {points} points: bet from 1 to {points}.", {"points": points}
        )
    state.bets.append(PlacedBet(player=seat, roller=action.roller, amount=action.amount))
    events.append(
        {
            "type": "bet",
            "round": state.round,
            "player": seat,
            "roller": action.roller,
            "roller_seat": state.rollers[action.roller],
            "amount": action.amount,
            "totals": list(bet_totals(state)),
        }
    )
    if not to_act(state):
        _resolve(state, rng, "all_bet", events)


def _resolve(
    state: WeightedDiceState,
    rng: random.Random,
    closed_by: Literal["all_bet", "deadline"],
    events: list[Event],
) -> None:
    """Close betting, roll both dice, score, then pass the house or end the game."""
    events.append(
        {
            "type": "betting_closed",
            "round": state.round,
            "reason": closed_by,
            "bets": len(state.bets),
            "totals": list(bet_totals(state)),
        }
    )
    rolls = (roll(rng, state.dice[0]), roll(rng, state.dice[1]))
    first, second = state.rollers
    bets = {bet.player: (bet.roller, bet.amount) for bet in state.bets}
    scores = dict(enumerate(state.scores))
    pair, roll_pair, checked = validate_round(scores, state.house, (first, second), rolls, bets)
    changes = settle_round(scores, state.house, pair, roll_pair, checked)
    winner: int | None = None
    if rolls[0] != rolls[1]:
        winner = 0 if rolls[0] > rolls[1] else 1
    lines = [
        ScoreChange(player=seat, **change._asdict()) for seat, change in sorted(changes.items())
    ]
    summary = RoundSummary(
        round=state.round,
        house=state.house,
        rollers=list(state.rollers),
        dice=list(state.dice),
        rolls=list(rolls),
        winner=winner,
        bets=[bet.model_copy() for bet in state.bets],
        changes=lines,
        closed_by=closed_by,
    )
    state.scores = [changes[seat].after for seat in range(state.n_players)]
    state.last_round = summary
    state.rounds_played += 1
    events.append(
        {
            "type": "rolls",
            "round": state.round,
            "rollers": list(state.rollers),
            "dice": list(state.dice),
            "rolls": list(rolls),
            "winner": winner,
        }
    )
    events.append(
        {
            "type": "round_scored",
            "round": state.round,
            "winner": winner,
            "winning_seat": None if winner is None else state.rollers[winner],
            "tie": winner is None,
            "changes": [line.model_dump(mode="json") for line in lines],
            "scores": list(state.scores),
        }
    )
    if max(state.scores) >= state.target:
        _finish(state, "normal", events)
        return
    _pass_house(state, "rotation", events)
    _start_round(state, events)


def _void_round(state: WeightedDiceState, reason: str, player: int, events: list[Event]) -> None:
    events.append(
        {
            "type": "round_void",
            "round": state.round,
            "reason": reason,
            "player": player,
            "bets_dropped": [bet.model_dump(mode="json") for bet in state.bets],
        }
    )


def _leave(
    state: WeightedDiceState,
    action: Leave | Forfeit | Timeout,
    rng: random.Random,
    events: list[Event],
) -> None:
    seat = _checked_seat(state, action.player)
    if not state.active[seat]:
        raise IllegalMove("You have already left this game.")
    state.active[seat] = False
    events.append(
        {
            "type": "player_left",
            "player": seat,
            "how": action.type,
            "points": state.scores[seat],
        }
    )
    if sum(state.active) < MIN_PLAYERS:
        reasons: dict[str, EndReason] = {
            "leave": "abandoned",
            "forfeit": "forfeit",
            "timeout": "timeout",
        }
        _finish(state, reasons[action.type], events)
        return
    if seat == state.house:
        if state.phase == "betting":
            _void_round(state, "house_left", seat, events)
        _pass_house(state, "house_left", events)
        _start_round(state, events)
    elif state.phase == "betting" and seat in state.rollers:
        _void_round(state, "roller_left", seat, events)
        _start_round(state, events)
    elif state.phase == "betting" and not to_act(state):
        _resolve(state, rng, "all_bet", events)


def _finish(state: WeightedDiceState, reason: EndReason, events: list[Event]) -> None:
    state.phase = "finished"
    state.end_reason = reason
    outcome = result(state)
    assert outcome is not None
    events.append(
        {
            "type": "game_over",
            "reason": reason,
            "winners": list(outcome.winners),
            "ranks": list(outcome.ranks),
            "scores": list(state.scores),
        }
    )
