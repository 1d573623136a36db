"""Dimension Duel: Tau and Kaon trade particle rays, 75 hit points each, all dice d6.

Rules (our own summary of the contract): Tau attacks on turn 1 and the roles swap every turn.
Each turn the attacker gains a die when the defender's shield type does not match the ray
(step 1, calibrate) and another when the defender reinforces a different region than the
attacker's focus (step 2). In step 3 each player uses one function: Bluff (nothing),
Disruptor (no dice rolled, no damage), Delayed Attack (+1 die to its user), Deflector (each
player suffers their own dice; two cancel), Intensifier (damage doubled; two quadruple) or a
Particle Changer that flips the user's own or the opponent's step-1 device before step 1's
die is recomputed (flips add up). In step 4 both roll their dice; the total comes off the
opponent's hit points (their own under a Deflector). At 0 or less a player is dead; both
dead in the same turn is a draw.

Modes: ``classic`` rolls a d6 for every choice (the card's tables); ``tactical`` has both
players choose in secret, with each special function usable once per game per player (the
two Particle Changers share one charge) and Bluff unlimited.

No turn cap: the defender can never stop an attacker who wants to deal damage (the attacker
gains dice whenever the defender guesses wrong, and a uniform guess is wrong 5 times in 6),
so a duel can only stall if both players want it to, and timeouts end abandoned duels.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeGuard

from pydantic import BaseModel, Field, TypeAdapter

from game_core.base import Event, GameResult
from game_core.dice import is_int
from game_core.errors import IllegalMove

TAU, KAON = 0, 1
PLAYERS = (TAU, KAON)
PLAYER_NAMES = ("Tau", "Kaon")
DEVICES: tuple[str, ...] = ("tau", "kaon")
REGIONS: tuple[str, ...] = ("head", "torso", "extremities")
FUNCTIONS: tuple[str, ...] = (
    "bluff",
    "disruptor",
    "delayed_attack",
    "deflector",
    "intensifier",
    "changer_self",
    "changer_opponent",
)
CHARGES: tuple[str, ...] = (
    "disruptor",
    "delayed_attack",
    "deflector",
    "intensifier",
    "particle_changer",
)
# Which once-per-game charge a function spends in tactical mode (Bluff spends none).
CHARGE_OF: dict[str, str | None] = {
    "bluff": None,
    "disruptor": "disruptor",
    "delayed_attack": "delayed_attack",
    "deflector": "deflector",
    "intensifier": "intensifier",
    "changer_self": "particle_changer",
    "changer_opponent": "particle_changer",
}
MODES: tuple[str, ...] = ("classic", "tactical")
DEFAULT_HP = 75
MIN_START_HP, MAX_START_HP = 10, 150
DIE = 6


# --------------------------------------------------------------------------------------
# The pure rules
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DuelTurn:
    """One resolved turn. Everything is indexed by player (0 = Tau), not by role.

    ``dice`` are the dice awarded by steps 1-3 (reported even under a Disruptor),
    ``damage`` what each player suffered, ``faces`` the faces actually used.
    """

    hp: tuple[int, int]
    dice: tuple[int, int]
    damage: tuple[int, int]
    winner: int | None
    draw: bool
    attacker: int
    ray: str  # the ray after every Particle Changer
    shield: str
    calibration_dice: int
    focus_dice: int
    delayed_attack: tuple[bool, bool]
    disrupted: bool
    deflected: bool
    multiplier: int
    faces: tuple[tuple[int, ...], tuple[int, ...]]

    @property
    def finished(self) -> bool:
        return self.draw or self.winner is not None


def _flip(device: str) -> str:
    return "kaon" if device == "tau" else "tau"


def _is_choice(value: object, allowed: tuple[str, ...]) -> TypeGuard[str]:
    return isinstance(value, str) and value in allowed


def _pair(value: object) -> tuple[Any, Any] | None:
    """``value`` as a pair (one entry per player, Tau first), or None when it is not one."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or len(value) != 2:
        return None
    return value[0], value[1]


def _check_hp(hp: object) -> tuple[int, int]:
    pair = _pair(hp)
    if pair is None:
        raise IllegalMove("Hit points must be a pair, one per player (Tau first).")
    for value in pair:
        if not is_int(value):
            raise IllegalMove("Hit points must be whole numbers.")
        if value <= 0:
            raise IllegalMove("Both players need more than 0 hit points to fight a turn.")
    return pair[0], pair[1]


def _faces_used(rolls: object, dice: tuple[int, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if isinstance(rolls, str | bytes) or not isinstance(rolls, Sequence):
        raise IllegalMove("Rolls must be a pair of face lists, one per player (Tau first).")
    if len(rolls) == 0 and dice == (0, 0):
        return (), ()
    pair = _pair(rolls)
    if pair is None:
        raise IllegalMove("Rolls must be a pair of face lists, one per player (Tau first).")
    used: list[tuple[int, ...]] = []
    for faces, count in zip(pair, dice, strict=True):
        if isinstance(faces, str | bytes) or not isinstance(faces, Sequence):
            raise IllegalMove("Each player's faces must be a list of d6 faces.")
        if len(faces) < count:
            raise IllegalMove(
                "A player was awarded {count} dice but only {given} faces were given.",
                {"count": count, "given": len(faces)},
            )
        chosen = tuple(faces[:count])
        for face in chosen:
            if not is_int(face) or not 1 <= face <= DIE:
                raise IllegalMove("A rolled face is outside 1..6.")
        used.append(chosen)
    return used[0], used[1]


def _award(
    attacker: int, ray: str, shield: str, focus: str, guard: str, used: Sequence[str]
) -> tuple[str, str, int, int, tuple[int, int]]:
    """Steps 1-3 on checked values: (ray, shield after the Particle Changers, step 1 die,
    step 2 die, dice awarded per player)."""
    defender = 1 - attacker
    # Particle Changers flip devices; flips of the same device add up.
    if used[attacker] == "changer_self":
        ray = _flip(ray)
    if used[defender] == "changer_opponent":
        ray = _flip(ray)
    if used[defender] == "changer_self":
        shield = _flip(shield)
    if used[attacker] == "changer_opponent":
        shield = _flip(shield)
    calibration_dice = int(ray != shield)
    focus_dice = int(focus != guard)
    awarded = [int(used[0] == "delayed_attack"), int(used[1] == "delayed_attack")]
    awarded[attacker] += calibration_dice + focus_dice
    return ray, shield, calibration_dice, focus_dice, (awarded[0], awarded[1])


def dice_to_roll(
    attacker: int, *, ray: str, shield: str, focus: str, guard: str, functions: Sequence[str]
) -> tuple[int, int]:
    """How many d6 each player actually rolls this turn (none under a Disruptor), for
    callers that roll before resolving. Expects values already checked."""
    if "disruptor" in functions:
        return 0, 0
    return _award(attacker, ray, shield, focus, guard, functions)[4]


def resolve_turn(
    hp: tuple[int, int],
    attacker: int,
    *,
    ray: str,
    shield: str,
    focus: str,
    guard: str,
    functions: tuple[str, str],
    rolls: tuple[Sequence[int], Sequence[int]],
) -> DuelTurn:
    """Resolve one turn from explicit choices and faces (never rolls, never mutates).

    ``functions`` and ``rolls`` are indexed by player (0 = Tau). ``rolls[p]`` is used in
    order for as many dice as ``p`` was awarded; extra faces are ignored, too few raise.
    """
    before = _check_hp(hp)
    if not is_int(attacker) or attacker not in PLAYERS:
        raise IllegalMove("The attacker must be player 0 (Tau) or 1 (Kaon).")
    if not _is_choice(ray, DEVICES) or not _is_choice(shield, DEVICES):
        raise IllegalMove("The ray and the shield must each be Tau or Kaon.")
    if not _is_choice(focus, REGIONS) or not _is_choice(guard, REGIONS):
        raise IllegalMove(
            "The focus and the reinforced region must each be the head, the torso or the "
            "extremities."
        )
    chosen = _pair(functions)
    if chosen is None:
        raise IllegalMove("Functions must be a pair, one per player (Tau first).")
    if not _is_choice(chosen[0], FUNCTIONS) or not _is_choice(chosen[1], FUNCTIONS):
        raise IllegalMove("Unknown function: pick one from the menu.")
    used = (chosen[0], chosen[1])
    ray, shield, calibration_dice, focus_dice, dice = _award(
        attacker, ray, shield, focus, guard, used
    )
    delayed = (used[0] == "delayed_attack", used[1] == "delayed_attack")

    disrupted = "disruptor" in used
    deflected = used.count("deflector") % 2 == 1
    multiplier = 2 ** used.count("intensifier")
    if disrupted:
        # Nobody rolls, so no face is needed or checked.
        faces: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        damage = (0, 0)
    else:
        faces = _faces_used(rolls, dice)
        totals = (sum(faces[0]), sum(faces[1]))
        if deflected:
            damage = (totals[0] * multiplier, totals[1] * multiplier)
        else:
            damage = (totals[1] * multiplier, totals[0] * multiplier)
    after = (before[0] - damage[0], before[1] - damage[1])
    dead = (after[0] <= 0, after[1] <= 0)
    draw = dead[0] and dead[1]
    winner = None if draw or not any(dead) else (1 if dead[0] else 0)
    return DuelTurn(
        hp=after,
        dice=dice,
        damage=damage,
        winner=winner,
        draw=draw,
        attacker=attacker,
        ray=ray,
        shield=shield,
        calibration_dice=calibration_dice,
        focus_dice=focus_dice,
        delayed_attack=delayed,
        disrupted=disrupted,
        deflected=deflected,
        multiplier=multiplier,
        faces=faces,
    )


# --------------------------------------------------------------------------------------
# Classic mode: the card's d6 tables
# --------------------------------------------------------------------------------------


def device_from_die(face: int) -> str:
    """Step 1 table: 1-3 Tau ray / anti-Tau shield, 4-6 Kaon / anti-Kaon."""
    return "tau" if face <= 3 else "kaon"


def region_from_die(face: int) -> str:
    """Step 2 table: 1-2 Head, 3-4 Torso, 5-6 Extremities."""
    return REGIONS[(face - 1) // 2]


def function_from_dice(face: int, changer_face: int | None) -> str:
    """Step 3 table: 1 Bluff ... 6 Particle Changer, whose second d6 is 1-3 Self."""
    if face == 6:
        if changer_face is None:
            raise ValueError("a Particle Changer needs its second die")
        return "changer_self" if changer_face <= 3 else "changer_opponent"
    return FUNCTIONS[face - 1]


# --------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------


class DuelChoice(BaseModel):
    device: str
    region: str
    function: str


def _full_charges() -> list[dict[str, int]]:
    return [dict.fromkeys(CHARGES, 1) for _ in PLAYERS]


class DuelState(BaseModel):
    """A whole duel. ``choices`` (tactical) are secret until both players have locked in;
    ``locked`` says who has (in classic mode, who has pressed Roll)."""

    game: Literal["dimension_duel"] = "dimension_duel"
    mode: Literal["classic", "tactical"] = "tactical"
    phase: Literal["choose", "roll", "finished"] = "choose"
    turn: int = 1
    attacker: int = TAU
    start_hp: int = DEFAULT_HP
    hp: list[int] = Field(default_factory=lambda: [DEFAULT_HP, DEFAULT_HP])
    # Remaining once-per-game charges per player (tactical mode only; classic never spends).
    charges: list[dict[str, int]] = Field(default_factory=_full_charges)
    locked: list[bool] = Field(default_factory=lambda: [False, False])
    choices: list[DuelChoice | None] = Field(default_factory=lambda: [None, None])  # type: ignore[arg-type]
    last_turn: dict[str, Any] | None = None
    result: GameResult | None = None


class Choose(BaseModel):
    """Tactical mode: the device is the ray when attacking, the shield type when defending."""

    type: Literal["choose"] = "choose"
    player: int
    device: str
    region: str
    function: str


class Roll(BaseModel):
    """Classic mode: lock in; the engine rolls every choice once both have pressed Roll."""

    type: Literal["roll"] = "roll"
    player: int


class Forfeit(BaseModel):
    type: Literal["forfeit"] = "forfeit"
    player: int


class Timeout(BaseModel):
    type: Literal["timeout"] = "timeout"
    player: int


Action = Annotated[Choose | Roll | Forfeit | Timeout, Field(discriminator="type")]
ACTION_ADAPTER: TypeAdapter[Choose | Roll | Forfeit | Timeout] = TypeAdapter(Action)


def new_game(
    rng: random.Random | None = None, *, mode: str = "tactical", start_hp: int = DEFAULT_HP
) -> tuple[DuelState, list[Event]]:
    """Start a duel: Tau (player 0) attacks first. ``rng`` is accepted for the common
    interface; the start needs no dice."""
    if mode not in MODES:
        raise IllegalMove("The mode must be classic or tactical.")
    if not is_int(start_hp) or not MIN_START_HP <= start_hp <= MAX_START_HP:
        raise IllegalMove(
            "Starting hit points must be a whole number from {low} to {high}.",
            {"low": MIN_START_HP, "high": MAX_START_HP},
        )
    state = DuelState(
        mode=mode,  # type: ignore[arg-type]
        phase="choose" if mode == "tactical" else "roll",
        start_hp=start_hp,
        hp=[start_hp, start_hp],
    )
    return state, [
        {"type": "game_started", "mode": mode, "hp": [start_hp, start_hp]},
        {"type": "turn_started", "turn": 1, "attacker": TAU, "defender": KAON},
    ]


def available_functions(state: DuelState, player: int) -> list[str]:
    """Functions ``player`` may still use (every one in classic mode)."""
    if state.mode == "classic":
        return list(FUNCTIONS)
    charges = state.charges[player]
    return [f for f in FUNCTIONS if (charge := CHARGE_OF[f]) is None or charges[charge] > 0]


def _check_player(player: object) -> int:
    if not is_int(player) or player not in PLAYERS:
        raise IllegalMove("There is no such player in this duel.")
    return int(player)  # type: ignore[call-overload]


def _result_for(winner: int | None, hp: list[int], reason: str) -> GameResult:
    if winner is None:
        return GameResult(ranks=[1, 1], winners=[], draw=True, reason=reason, scores=hp)  # type: ignore[arg-type]
    ranks = [1, 2] if winner == 0 else [2, 1]
    return GameResult(ranks=ranks, winners=[winner], reason=reason, scores=hp)  # type: ignore[arg-type]


def _finish(state: DuelState, result: GameResult) -> list[Event]:
    state.phase = "finished"
    state.result = result
    state.locked = [False, False]
    state.choices = [None, None]
    return [{"type": "game_over", "result": result.model_dump(mode="json")}]


def _classic_choices(
    state: DuelState, rng: random.Random
) -> tuple[list[DuelChoice], list[dict[str, Any]]]:
    """Roll every choice on the card's tables: step by step, attacker before defender."""
    order = (state.attacker, 1 - state.attacker)
    dice: list[dict[str, Any]] = [{}, {}]
    devices: dict[int, str] = {}
    regions: dict[int, str] = {}
    functions: dict[int, str] = {}
    for player in order:
        face = rng.randint(1, DIE)
        dice[player]["device"] = face
        devices[player] = device_from_die(face)
    for player in order:
        face = rng.randint(1, DIE)
        dice[player]["region"] = face
        regions[player] = region_from_die(face)
    for player in order:
        face = rng.randint(1, DIE)
        dice[player]["function"] = face
        changer = rng.randint(1, DIE) if face == 6 else None
        if changer is not None:
            dice[player]["changer"] = changer
        functions[player] = function_from_dice(face, changer)
    choices = [
        DuelChoice(device=devices[p], region=regions[p], function=functions[p]) for p in PLAYERS
    ]
    return choices, dice


def _resolve(state: DuelState, rng: random.Random) -> list[Event]:
    """Both are locked in: settle the turn on ``state`` (a private copy) and narrate it."""
    attacker, defender = state.attacker, 1 - state.attacker
    table_dice: list[dict[str, Any]] | None = None
    if state.mode == "classic":
        choices, table_dice = _classic_choices(state, rng)
    else:
        choices = [choice for choice in state.choices if choice is not None]
    functions = (choices[0].function, choices[1].function)
    # Roll exactly the dice awarded (none under a Disruptor), Tau's first, then resolve.
    counts = dice_to_roll(
        attacker,
        ray=choices[attacker].device,
        shield=choices[defender].device,
        focus=choices[attacker].region,
        guard=choices[defender].region,
        functions=functions,
    )
    faces = tuple([rng.randint(1, DIE) for _ in range(counts[p])] for p in PLAYERS)
    turn = resolve_turn(
        (state.hp[0], state.hp[1]),
        attacker,
        ray=choices[attacker].device,
        shield=choices[defender].device,
        focus=choices[attacker].region,
        guard=choices[defender].region,
        functions=functions,
        rolls=faces,  # type: ignore[arg-type]
    )
    if state.mode == "tactical":
        for player in PLAYERS:
            charge = CHARGE_OF[functions[player]]
            if charge is not None:
                state.charges[player][charge] -= 1

    base = {"turn": state.turn, "attacker": attacker, "defender": defender}
    reveal: dict[str, Any] = {
        **base,
        "mode": state.mode,
        "choices": [choice.model_dump() for choice in choices],
    }
    if table_dice is not None:
        reveal["table_dice"] = table_dice
    steps: list[Event] = [
        {"type": "reveal", **reveal},
        {
            "type": "calibration",
            **base,
            "ray": choices[attacker].device,
            "shield": choices[defender].device,
            "match": choices[attacker].device == choices[defender].device,
            "dice": int(choices[attacker].device != choices[defender].device),
        },
        {
            "type": "focus",
            **base,
            "focus": choices[attacker].region,
            "guard": choices[defender].region,
            "match": choices[attacker].region == choices[defender].region,
            "dice": turn.focus_dice,
        },
        {
            "type": "functions",
            **base,
            "functions": list(functions),
            "ray": turn.ray,
            "shield": turn.shield,
            "calibration_dice": turn.calibration_dice,
            "delayed_attack": list(turn.delayed_attack),
            "disrupted": turn.disrupted,
            "deflected": turn.deflected,
            "multiplier": turn.multiplier,
        },
        {"type": "dice_awarded", **base, "dice": list(turn.dice)},
        {
            "type": "faces_rolled",
            **base,
            "disrupted": turn.disrupted,
            "faces": [list(turn.faces[0]), list(turn.faces[1])],
            "totals": [sum(turn.faces[0]), sum(turn.faces[1])],
        },
        {
            "type": "damage",
            **base,
            "damage": list(turn.damage),
            "deflected": turn.deflected,
            "multiplier": turn.multiplier,
            "disrupted": turn.disrupted,
        },
        {"type": "hp", **base, "hp": list(turn.hp), "before": list(state.hp)},
    ]
    state.hp = list(turn.hp)
    state.last_turn = {
        "turn": state.turn,
        "attacker": attacker,
        "choices": reveal["choices"],
        "table_dice": table_dice,
        "dice": list(turn.dice),
        "faces": [list(turn.faces[0]), list(turn.faces[1])],
        "ray": turn.ray,
        "shield": turn.shield,
        "disrupted": turn.disrupted,
        "deflected": turn.deflected,
        "multiplier": turn.multiplier,
        "damage": list(turn.damage),
        "hp": list(turn.hp),
    }
    state.locked = [False, False]
    state.choices = [None, None]
    if turn.finished:
        return steps + _finish(state, _result_for(turn.winner, state.hp, "normal"))
    state.turn += 1
    state.attacker = defender
    steps.append(
        {"type": "turn_started", "turn": state.turn, "attacker": defender, "defender": attacker}
    )
    return steps


def apply(
    state: DuelState,
    action: Choose | Roll | Forfeit | Timeout | Mapping[str, Any],
    rng: random.Random,
) -> tuple[DuelState, list[Event]]:
    """Apply one action; never mutates ``state``. Raises ``IllegalMove`` for anything
    illegal, with a message that reveals no secret choice."""
    if isinstance(action, Mapping):
        try:
            action = ACTION_ADAPTER.validate_python(action)
        except ValueError as error:
            raise IllegalMove("That is not a Dimension Duel action.") from error
    if state.phase == "finished":
        raise IllegalMove("This duel is already over.")
    player = _check_player(action.player)
    new = state.model_copy(deep=True)

    if isinstance(action, Forfeit):
        return new, _finish(new, _result_for(1 - player, new.hp, "forfeit"))
    if isinstance(action, Timeout):
        if new.locked[player]:
            raise IllegalMove("That player has already locked in; they did not run out of time.")
        return new, _finish(new, _result_for(1 - player, new.hp, "timeout"))
    if new.locked[player]:
        raise IllegalMove("You are already locked in for this turn.")

    if isinstance(action, Roll):
        if new.mode != "classic":
            raise IllegalMove(
                "In tactical mode you choose your ray or shield, your region and your function."
            )
    elif isinstance(action, Choose):
        if new.mode != "tactical":
            raise IllegalMove("In classic mode the dice choose for you: press Roll.")
        if not _is_choice(action.device, DEVICES):
            raise IllegalMove("Unknown ray or shield type: pick one from the menu.")
        if not _is_choice(action.region, REGIONS):
            raise IllegalMove("Unknown region: pick one from the menu.")
        if not _is_choice(action.function, FUNCTIONS):
            raise IllegalMove("Unknown function: pick one from the menu.")
        choice = DuelChoice(device=action.device, region=action.region, function=action.function)
        if choice.function not in available_functions(new, player):
            raise IllegalMove(
                "You have already used that function this game; pick another function or bluff."
            )
        new.choices[player] = choice
    else:
        raise IllegalMove("That is not a Dimension Duel action.")

    new.locked[player] = True
    events: list[Event] = [{"type": "locked_in", "player": player, "turn": new.turn}]
    if all(new.locked):
        events += _resolve(new, rng)
    return new, events


def to_act(state: DuelState) -> list[int]:
    if state.phase == "finished":
        return []
    return [p for p in PLAYERS if not state.locked[p]]


def legal_actions(state: DuelState, player: int) -> list[Choose | Roll]:
    """The lock-ins ``player`` may make now (Forfeit is always allowed besides)."""
    if player not in to_act(state):
        return []
    if state.mode == "classic":
        return [Roll(player=player)]
    return [
        Choose(player=player, device=device, region=region, function=function)
        for device in DEVICES
        for region in REGIONS
        for function in available_functions(state, player)
    ]


def is_finished(state: DuelState) -> bool:
    return state.phase == "finished"


def result(state: DuelState) -> GameResult | None:
    return state.result


def public_view(state: DuelState) -> dict[str, Any]:
    """What anyone may see: hit points, roles, charges left, who has locked in (never
    what), and the last turn's reveal."""
    return {
        "game": "dimension_duel",
        "mode": state.mode,
        "phase": state.phase,
        "turn": state.turn,
        "attacker": state.attacker,
        "defender": 1 - state.attacker,
        "hp": list(state.hp),
        "start_hp": state.start_hp,
        "charges": [dict(c) for c in state.charges] if state.mode == "tactical" else None,
        "locked_in": list(state.locked),
        "to_act": to_act(state),
        "last_turn": state.last_turn,
        "result": None if state.result is None else state.result.model_dump(mode="json"),
    }


def private_view(state: DuelState, player: int) -> dict[str, Any]:
    """The public view plus ``player``'s own locked choice and usable functions."""
    view = public_view(state)
    view["player"] = player
    own = state.choices[player] if player in PLAYERS else None
    view["your_choice"] = None if own is None else own.model_dump()
    view["your_functions"] = available_functions(state, player) if player in PLAYERS else []
    return view
