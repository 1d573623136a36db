"""Diceman: two duelists secretly pick two of four dice, roll, and fight in priority phases.

Rules (our own summary of the contract): each player owns a d4 Magic, d6 Priority, d8 Sword
and d10 Shield and starts with 20 life. Each round both secretly choose exactly two dice and
roll them; an unchosen die counts as 0. The round is fought in priority phases 6..0; a player
acts in the phase equal to their priority. For every acting player X against Y:

1. priority sword strike: if ``P_X > P_Y`` (gap ``d``), X deals ``min(d, S_X)`` unblockable
   and ``S_X`` drops to ``max(0, S_X - d)``;
2. priority shield strike: if ``P_X > P_Y`` and ``H_X > 0``, X deals
   ``min(d, min(H_X, S_Y))`` unblockable (what the shield would block of Y's sword);
3. sword: X deals ``max(0, S_X - H_Y)``.

Steps 1-3 run for every acting player first. Then, looking at the phase's non-magic damage:
a magic clash if both act, both have magic and neither took non-magic damage (the higher
magic deals the difference), otherwise every acting player with magic who took no damage
deals their magic. A phase's damage lands at once, then deaths are checked: a player killed
before their own phase never acts, both dead is a draw. Life carries over between rounds.
House rule: after ``max_rounds`` (30) rounds the higher life wins, equal life is a draw.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from game_core.base import Event, GameResult
from game_core.dice import is_int
from game_core.errors import IllegalMove

DICE: tuple[str, ...] = ("magic", "priority", "sword", "shield")
SIDES: dict[str, int] = {"magic": 4, "priority": 6, "sword": 8, "shield": 10}
# The six ways to pick two dice, in a fixed order used by every table and the AI.
COMBOS: tuple[tuple[str, str], ...] = tuple(
    (DICE[i], DICE[j]) for i in range(len(DICE)) for j in range(i + 1, len(DICE))
)
START_LIFE = 20
DEFAULT_MAX_ROUNDS = 30
MAX_ROUNDS_LIMIT = 1000
PLAYERS = (0, 1)


# --------------------------------------------------------------------------------------
# The pure rules
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DicemanRound:
    """The outcome of one resolved round.

    ``life`` may go below 0. ``damage[i]`` is the total damage player ``i`` suffered this
    round. ``events`` holds one JSON-friendly dict per phase in which somebody acted, in
    order, each with ``"type": "phase"``.
    """

    life: tuple[int, int]
    winner: int | None
    draw: bool
    damage: tuple[int, int]
    events: list[Event] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.draw or self.winner is not None


def _check_life(life: object) -> tuple[int, int]:
    if isinstance(life, str | bytes) or not isinstance(life, Sequence) or len(life) != 2:
        raise IllegalMove("Life must be a pair of whole numbers, one per player.")
    values = tuple(life)
    for value in values:
        if not is_int(value):
            raise IllegalMove("Life totals must be whole numbers.")
        if value <= 0:
            raise IllegalMove("A player needs more than 0 life to fight a round.")
    return values[0], values[1]


def _check_roll(roll: object, player: int) -> tuple[int, int, int, int]:
    """Validate one player's two chosen dice and faces; return (magic, priority, sword,
    shield) with 0 for the unchosen dice."""
    if not isinstance(roll, Mapping):
        raise IllegalMove(
            "Player {player}'s roll must map die names to faces.", {"player": player + 1}
        )
    if len(roll) != 2:
        raise IllegalMove("Player {player} must roll exactly two dice.", {"player": player + 1})
    faces = dict.fromkeys(DICE, 0)
    for name, face in roll.items():
        if not isinstance(name, str) or name not in SIDES:
            raise IllegalMove(
                "Player {player} named an unknown die; choose from magic, priority, sword "
                "and shield.",
                {"player": player + 1},
            )
        if not is_int(face) or not 1 <= face <= SIDES[name]:
            raise IllegalMove(
                "Player {player}'s d{sides} shows a face outside 1 to {sides}.",
                {"player": player + 1, "sides": SIDES[name]},
            )
        faces[name] = face
    return faces["magic"], faces["priority"], faces["sword"], faces["shield"]


def _check_rolls(rolls: object) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]]:
    if isinstance(rolls, str | bytes) or not isinstance(rolls, Sequence) or len(rolls) != 2:
        raise IllegalMove("Rolls must be a pair: one mapping of die faces per player.")
    return _check_roll(rolls[0], 0), _check_roll(rolls[1], 1)


def _outcome(life: Sequence[int]) -> tuple[int | None, bool]:
    dead = [life[0] <= 0, life[1] <= 0]
    if dead[0] and dead[1]:
        return None, True
    if dead[0]:
        return 1, False
    if dead[1]:
        return 0, False
    return None, False


def resolve_round(
    life: tuple[int, int], rolls: tuple[Mapping[str, int], Mapping[str, int]]
) -> DicemanRound:
    """Resolve one Diceman round from explicit faces (never rolls, never mutates).

    ``rolls[i]`` maps player ``i``'s two chosen dice ("magic", "priority", "sword",
    "shield") to their faces. Anything but exactly two valid dice with in-range faces, or a
    life total that is not a positive int, raises ``IllegalMove``.
    """
    current = list(_check_life(life))
    values = _check_rolls(rolls)
    magic = [values[0][0], values[1][0]]
    priority = [values[0][1], values[1][1]]
    sword = [values[0][2], values[1][2]]
    shield = [values[0][3], values[1][3]]

    events: list[Event] = []
    total = [0, 0]
    for phase in range(6, -1, -1):
        actors = [x for x in PLAYERS if priority[x] == phase]
        if not actors:
            continue
        hurt = [0, 0]  # non-magic damage received this phase
        strikes: list[dict[str, Any]] = []
        for x in actors:
            y = 1 - x
            if priority[x] > priority[y]:
                gap = priority[x] - priority[y]
                if sword[x] > 0:
                    amount = min(gap, sword[x])
                    sword[x] = max(0, sword[x] - gap)
                    hurt[y] += amount
                    strikes.append(
                        {
                            "kind": "priority_sword",
                            "player": x,
                            "target": y,
                            "gap": gap,
                            "amount": amount,
                            "sword_left": sword[x],
                        }
                    )
                if shield[x] > 0:
                    blocks = min(shield[x], sword[y])
                    amount = min(gap, blocks)
                    hurt[y] += amount
                    strikes.append(
                        {
                            "kind": "priority_shield",
                            "player": x,
                            "target": y,
                            "gap": gap,
                            "blocks": blocks,
                            "amount": amount,
                        }
                    )
            if values[x][2] > 0:  # only a player who chose the sword swings it
                amount = max(0, sword[x] - shield[y])
                hurt[y] += amount
                strikes.append(
                    {
                        "kind": "sword",
                        "player": x,
                        "target": y,
                        "sword": sword[x],
                        "shield": shield[y],
                        "blocked": min(sword[x], shield[y]),
                        "amount": amount,
                    }
                )

        spells: list[dict[str, Any]] = []
        silenced: list[int] = []
        clash: dict[str, Any] | None = None
        spell_damage = [0, 0]
        if len(actors) == 2 and magic[0] > 0 and magic[1] > 0 and hurt == [0, 0]:
            difference = abs(magic[0] - magic[1])
            caster = None if difference == 0 else (0 if magic[0] > magic[1] else 1)
            if caster is not None:
                spell_damage[1 - caster] += difference
            clash = {"magic": [magic[0], magic[1]], "winner": caster, "amount": difference}
        else:
            for x in actors:
                if magic[x] <= 0:
                    continue
                if hurt[x] > 0:
                    silenced.append(x)
                    continue
                spell_damage[1 - x] += magic[x]
                spells.append({"player": x, "target": 1 - x, "amount": magic[x]})

        damage = [hurt[0] + spell_damage[0], hurt[1] + spell_damage[1]]
        for x in PLAYERS:
            current[x] -= damage[x]
            total[x] += damage[x]
        dead = [x for x in PLAYERS if current[x] <= 0]
        events.append(
            {
                "type": "phase",
                "phase": phase,
                "actors": actors,
                "strikes": strikes,
                "magic": spells,
                "magic_silenced": silenced,
                "clash": clash,
                "damage": damage,
                "life": list(current),
                "dead": dead,
            }
        )
        if dead:
            break

    winner, draw = _outcome(current)
    return DicemanRound(
        life=(current[0], current[1]),
        winner=winner,
        draw=draw,
        damage=(total[0], total[1]),
        events=events,
    )


def phase_damage(
    a: tuple[int, int, int, int], b: tuple[int, int, int, int]
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Hot-path twin of ``resolve_round`` for tables and simulations: no checks, no events.

    ``a`` and ``b`` are (magic, priority, sword, shield) with 0 for an unchosen die. Returns
    the damage (to player 0, to player 1) of the first and of the second phase in which
    anybody acts (the second is (0, 0) when both act in the same phase). Deaths are left to
    the caller, who knows the life totals.
    """
    ma, pa, sa, ha = a
    mb, pb, sb, hb = b
    if pa == pb:
        hurt_a = sb - ha if sb > ha else 0
        hurt_b = sa - hb if sa > hb else 0
        if ma and mb and not hurt_a and not hurt_b:
            return ((mb - ma, 0) if mb > ma else (0, ma - mb)), (0, 0)
        to_a = hurt_a + (mb if mb and not hurt_b else 0)
        to_b = hurt_b + (ma if ma and not hurt_a else 0)
        return (to_a, to_b), (0, 0)
    # One player acts strictly first: call them X (faster) and Y.
    if pa > pb:
        mx, px, sx, hx, my, py, sy, hy = ma, pa, sa, ha, mb, pb, sb, hb
    else:
        mx, px, sx, hx, my, py, sy, hy = mb, pb, sb, hb, ma, pa, sa, ha
    gap = px - py
    first = gap if gap < sx else sx
    sx_left = sx - gap if sx > gap else 0
    if hx:
        blocks = hx if hx < sy else sy
        first += gap if gap < blocks else blocks
    if sx_left > hy:
        first += sx_left - hy
    # Y deals nothing in X's phase, so a lone X with magic always casts.
    first += mx
    second = sy - hx if sy > hx else 0
    second += my  # X does not act in Y's phase: Y is never hurt there
    if pa > pb:
        return (0, first), (second, 0)
    return (first, 0), (0, second)


def faces_of(combo: Sequence[str], faces: Sequence[int]) -> tuple[int, int, int, int]:
    """(magic, priority, sword, shield) for a combo's faces in the combo's order."""
    values = dict.fromkeys(DICE, 0)
    for name, face in zip(combo, faces, strict=True):
        values[name] = face
    return values["magic"], values["priority"], values["sword"], values["shield"]


# --------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------

Phase = Literal["choose", "finished"]


class DicemanState(BaseModel):
    """A whole Diceman game. ``choices`` are secret until both players have chosen."""

    game: Literal["diceman"] = "diceman"
    phase: Phase = "choose"
    round: int = 1
    max_rounds: int = DEFAULT_MAX_ROUNDS
    life: list[int] = Field(default_factory=lambda: [START_LIFE, START_LIFE])
    choices: list[list[str] | None] = Field(default_factory=lambda: [None, None])  # type: ignore[arg-type]
    last_round: dict[str, Any] | None = None
    result: GameResult | None = None


class Choose(BaseModel):
    type: Literal["choose"] = "choose"
    player: int
    dice: list[str]


class Forfeit(BaseModel):
    type: Literal["forfeit"] = "forfeit"
    player: int


class Timeout(BaseModel):
    type: Literal["timeout"] = "timeout"
    player: int


Action = Annotated[Choose | Forfeit | Timeout, Field(discriminator="type")]
ACTION_ADAPTER: TypeAdapter[Choose | Forfeit | Timeout] = TypeAdapter(Action)


def new_game(
    rng: random.Random | None = None, *, max_rounds: int = DEFAULT_MAX_ROUNDS
) -> tuple[DicemanState, list[Event]]:
    """Start a game at 20 life each. ``rng`` is accepted for the common interface; the
    start needs no dice."""
    if not is_int(max_rounds) or not 1 <= max_rounds <= MAX_ROUNDS_LIMIT:
        raise IllegalMove(
            "The round cap must be a whole number from 1 to {limit}.", {"limit": MAX_ROUNDS_LIMIT}
        )
    state = DicemanState(max_rounds=max_rounds)
    return state, [
        {"type": "game_started", "life": list(state.life), "max_rounds": max_rounds},
        {"type": "round_started", "round": 1},
    ]


def normalize_dice(dice: object) -> list[str]:
    """Validate a choice of two dice and return it in the canonical die order."""
    if isinstance(dice, str | bytes) or not isinstance(dice, Sequence):
        raise IllegalMove("Choose exactly two dice.")
    names = list(dice)
    if len(names) != 2:
        raise IllegalMove("Choose exactly two dice.")
    for name in names:
        if not isinstance(name, str) or name not in SIDES:
            raise IllegalMove("Unknown die; choose two of magic, priority, sword and shield.")
    if names[0] == names[1]:
        raise IllegalMove("Choose two different dice.")
    return [name for name in DICE if name in names]


def _check_player(player: object) -> int:
    if not is_int(player) or player not in PLAYERS:
        raise IllegalMove("There is no such player in this duel.")
    return int(player)  # type: ignore[call-overload]


def _finish(state: DicemanState, result: GameResult) -> list[Event]:
    state.phase = "finished"
    state.result = result
    state.choices = [None, None]
    return [{"type": "game_over", "result": result.model_dump(mode="json")}]


def _result_for(winner: int | None, life: list[int], reason: str) -> GameResult:
    if winner is None:
        return GameResult(ranks=[1, 1], winners=[], draw=True, reason=reason, scores=life)  # type: ignore[arg-type]
    ranks = [1, 2] if winner == 0 else [2, 1]
    return GameResult(ranks=ranks, winners=[winner], reason=reason, scores=life)  # type: ignore[arg-type]


def apply(
    state: DicemanState, action: Choose | Forfeit | Timeout | Mapping[str, Any], rng: random.Random
) -> tuple[DicemanState, list[Event]]:
    """Apply one action; never mutates ``state``. Raises ``IllegalMove`` for anything
    illegal, with a message that reveals no secret choice."""
    if isinstance(action, Mapping):
        try:
            action = ACTION_ADAPTER.validate_python(action)
        except ValueError as error:
            raise IllegalMove("That is not a Diceman action.") from error
    if state.phase == "finished":
        raise IllegalMove("This Diceman game is already over.")
    player = _check_player(action.player)
    new = state.model_copy(deep=True)

    if isinstance(action, Forfeit):
        return new, _finish(new, _result_for(1 - player, new.life, "forfeit"))
    if isinstance(action, Timeout):
        if new.choices[player] is not None:
            raise IllegalMove("That player has already chosen; they did not run out of time.")
        return new, _finish(new, _result_for(1 - player, new.life, "timeout"))
    if not isinstance(action, Choose):
        raise IllegalMove("That is not a Diceman action.")

    if new.choices[player] is not None:
        raise IllegalMove("You are already locked in for this round.")
    new.choices[player] = normalize_dice(action.dice)
    events: list[Event] = [{"type": "locked_in", "player": player, "round": new.round}]
    if any(choice is None for choice in new.choices):
        return new, events

    chosen = [list(choice or []) for choice in new.choices]
    rolls = [{name: rng.randint(1, SIDES[name]) for name in chosen[p]} for p in PLAYERS]
    outcome = resolve_round((new.life[0], new.life[1]), (rolls[0], rolls[1]))
    reveal: dict[str, Any] = {
        "round": new.round,
        "choices": chosen,
        "rolls": rolls,
        "life_before": list(new.life),
        "phases": outcome.events,
        "damage": list(outcome.damage),
        "life": list(outcome.life),
    }
    # The reveal sums the round up; the phase events after it narrate it step by step.
    events.append({"type": "reveal", **{k: v for k, v in reveal.items() if k != "phases"}})
    events += [{**phase, "round": new.round} for phase in outcome.events]
    new.life = list(outcome.life)
    new.last_round = reveal
    new.choices = [None, None]
    if outcome.finished:
        events += _finish(new, _result_for(outcome.winner, new.life, "normal"))
        return new, events
    if new.round >= new.max_rounds:
        leader = None if new.life[0] == new.life[1] else (0 if new.life[0] > new.life[1] else 1)
        events += _finish(new, _result_for(leader, new.life, "round_cap"))
        return new, events
    new.round += 1
    events.append({"type": "round_started", "round": new.round})
    return new, events


def to_act(state: DicemanState) -> list[int]:
    if state.phase == "finished":
        return []
    return [p for p in PLAYERS if state.choices[p] is None]


def legal_actions(state: DicemanState, player: int) -> list[Choose]:
    """The dice choices ``player`` may lock in now (Forfeit is always allowed besides)."""
    if player not in to_act(state):
        return []
    return [Choose(player=player, dice=list(combo)) for combo in COMBOS]


def is_finished(state: DicemanState) -> bool:
    return state.phase == "finished"


def result(state: DicemanState) -> GameResult | None:
    return state.result


def public_view(state: DicemanState) -> dict[str, Any]:
    """Everything anyone may see: life, round, who has locked in (never what), last round."""
    return {
        "game": "diceman",
        "phase": state.phase,
        "round": state.round,
        "max_rounds": state.max_rounds,
        "life": list(state.life),
        "locked_in": [choice is not None for choice in state.choices],
        "to_act": to_act(state),
        "last_round": state.last_round,
        "result": None if state.result is None else state.result.model_dump(mode="json"),
    }


def private_view(state: DicemanState, player: int) -> dict[str, Any]:
    """The public view plus ``player``'s own locked choice."""
    view = public_view(state)
    view["player"] = player
    own = state.choices[player] if player in PLAYERS else None
    view["your_choice"] = None if own is None else list(own)
    return view
