"""Text for the secret duels (Diceman, Dimension Duel): bars, labels and reveal narration.

Everything here is plain text built from data that is already public (an engine's
``public_view`` or the events of a finished reveal), so it can be unit-tested without
Discord and can never leak a choice that has not been revealed. This module has no
``setup`` function: it is a helper, not an extension.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# -- shared ----------------------------------------------------------------------------------

BAR_WIDTH = 12


def life_bar(value: int, maximum: int, width: int = BAR_WIDTH) -> str:
    """A fixed-width bar such as ```████████░░░░` 14/20`` (below 0 shows as an empty bar)."""
    shown = max(0, value)
    filled = 0 if maximum <= 0 else round(width * min(shown, maximum) / maximum)
    if shown > 0 and filled == 0:
        filled = 1  # a living player never looks dead
    return f"`{'█' * filled}{'░' * (width - filled)}` **{shown}**/{maximum}"


def describe_seconds(seconds: float) -> str:
    """``180`` -> ``3 min``; ``90`` -> ``1 min 30 s``; ``45`` -> ``45 s``."""
    whole = max(0, round(seconds))
    minutes, rest = divmod(whole, 60)
    if minutes and rest:
        return f"{minutes} min {rest} s"
    if minutes:
        return f"{minutes} min"
    return f"{rest} s"


def score_pair(label: str, values: Sequence[int]) -> str:
    """The results table's score line, e.g. ``Life 12–0`` (nobody shows below 0)."""
    return f"{label} {max(0, values[0])}–{max(0, values[1])}"


# -- Diceman ---------------------------------------------------------------------------------

DICEMAN_DICE: tuple[str, ...] = ("magic", "priority", "sword", "shield")
DICEMAN_SIDES: dict[str, int] = {"magic": 4, "priority": 6, "sword": 8, "shield": 10}
DICEMAN_EMOJI: dict[str, str] = {"magic": "🔮", "priority": "⚡", "sword": "⚔️", "shield": "🛡️"}
DICEMAN_HELP: dict[str, str] = {
    "magic": "unblockable, if nobody hurts you in your phase",
    "priority": "act first; the lead strikes with your sword and shield",
    "sword": "damage beyond the opponent's shield",
    "shield": "blocks swords",
}


def die_label(name: str) -> str:
    """``"sword"`` -> ``Sword d8``."""
    return f"{name.capitalize()} d{DICEMAN_SIDES[name]}"


def dice_pair(dice: Sequence[str]) -> str:
    """``["priority", "sword"]`` -> ``⚡ Priority + ⚔️ Sword``."""
    return " + ".join(f"{DICEMAN_EMOJI[d]} {d.capitalize()}" for d in dice)


def _rolled(rolls: Mapping[str, int]) -> str:
    ordered = [name for name in DICEMAN_DICE if name in rolls]
    return " + ".join(f"{DICEMAN_EMOJI[n]} {n.capitalize()} **{rolls[n]}**" for n in ordered)


def _strike_line(strike: Mapping[str, Any], names: Sequence[str]) -> str | None:
    """One strike in words; None for a sword strike without a sword (a die not picked, or
    spent by a priority strike), which is no strike at all."""
    who, target = names[strike["player"]], names[strike["target"]]
    amount = strike["amount"]
    kind = strike["kind"]
    if kind == "priority_sword":
        return (
            f"{who}'s priority sword strike (lead {strike['gap']}): **{amount}** unblockable "
            f"to {target}; the sword drops to {strike['sword_left']}"
        )
    if kind == "priority_shield":
        return (
            f"{who}'s priority shield strike (lead {strike['gap']}, the shield would block "
            f"{strike['blocks']}): **{amount}** unblockable to {target}"
        )
    if strike["sword"] <= 0:
        return None
    if strike["shield"] <= 0:
        return f"{who}'s sword {strike['sword']}: **{amount}** damage to {target}"
    if amount == 0:
        return (
            f"{who}'s sword {strike['sword']} against {target}'s shield {strike['shield']}: blocked"
        )
    return (
        f"{who}'s sword {strike['sword']} against {target}'s shield {strike['shield']}: "
        f"**{amount}** damage"
    )


def phase_heading(phase: int, actors: Sequence[int], names: Sequence[str]) -> str:
    """A phase named by what puts a player in it: their Priority roll, or no priority
    (phase 0, where everyone without the Priority die acts)."""
    who = " and ".join(names[p] for p in actors)
    label = f"Priority {phase}" if phase > 0 else "No priority"
    return f"__{label}__ · {who} {'act' if len(actors) > 1 else 'acts'}"


def narrate_diceman(reveal: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The reveal of one Diceman round, phase by phase: strikes, blocks, magic, deaths.

    ``reveal`` is the engine's ``reveal`` event (also kept as ``last_round`` in the public
    view): choices, rolls, the phase events and the life totals.
    """
    rolls: Sequence[Mapping[str, int]] = reveal["rolls"]
    priority = [roll.get("priority", 0) for roll in rolls]
    lines = [
        f"**Round {reveal['round']} reveal**",
        f"{names[0]}: {_rolled(rolls[0])}",
        f"{names[1]}: {_rolled(rolls[1])}",
    ]
    for phase in reveal["phases"]:
        lines.append(phase_heading(phase["phase"], phase["actors"], names))
        details = [
            line
            for line in (_strike_line(strike, names) for strike in phase["strikes"])
            if line is not None
        ]
        clash = phase.get("clash")
        if clash is not None:
            magic = clash["magic"]
            if clash["winner"] is None:
                details.append(f"magic clash {magic[0]} against {magic[1]}: it cancels out")
            else:
                details.append(
                    f"magic clash {magic[0]} against {magic[1]}: {names[clash['winner']]} "
                    f"deals **{clash['amount']}**"
                )
        for spell in phase["magic"]:
            details.append(
                f"{names[spell['player']]}'s magic: **{spell['amount']}** unblockable to "
                f"{names[spell['target']]}"
            )
        for player in phase["magic_silenced"]:
            details.append(f"{names[player]}'s magic fizzles: they were hit in this phase")
        if not details:
            details.append("nothing to strike with")
        lines.extend(f"• {detail}" for detail in details)
        damage, life = phase["damage"], phase["life"]
        hurt = [f"{names[p]} −{damage[p]} → {max(0, life[p])}" for p in (0, 1) if damage[p]]
        if hurt:
            lines.append("↳ " + " · ".join(hurt))
        for player in phase["dead"]:
            early = priority[player] < phase["phase"]
            lines.append(f"💀 {names[player]} falls{' before acting' if early else ''}.")
    return lines


# -- Dimension Duel --------------------------------------------------------------------------

DUEL_ROLES = ("Tau", "Kaon")
DEVICE_NAMES = {"tau": "Tau", "kaon": "Kaon"}
REGION_NAMES = {"head": "Head", "torso": "Torso", "extremities": "Extremities"}
FUNCTION_NAMES = {
    "bluff": "Bluff",
    "disruptor": "Disruptor",
    "delayed_attack": "Delayed Attack",
    "deflector": "Deflector",
    "intensifier": "Intensifier",
    "changer_self": "Particle Changer (Self)",
    "changer_opponent": "Particle Changer (Opponent)",
}
FUNCTION_HELP = {
    "bluff": "does nothing (never runs out)",
    "disruptor": "no dice are rolled this turn: no damage at all",
    "delayed_attack": "+1 die for you",
    "deflector": "each player takes the damage of their own dice",
    "intensifier": "all damage this turn doubled, both ways",
    "changer_self": "flips your own ray/shield type",
    "changer_opponent": "flips your opponent's ray/shield type",
}
CHARGE_NAMES = {
    "disruptor": "Disruptor",
    "delayed_attack": "Delayed Attack",
    "deflector": "Deflector",
    "intensifier": "Intensifier",
    "particle_changer": "Particle Changer",
}


def ray_name(device: str) -> str:
    return f"{DEVICE_NAMES[device]} ray"


def shield_name(device: str) -> str:
    return f"anti-{DEVICE_NAMES[device]} shield"


def dice_word(count: int) -> str:
    """``no dice``, ``1 die``, ``2 dice``."""
    if count == 0:
        return "no dice"
    return f"{count} {'die' if count == 1 else 'dice'}"


def rolled_text(faces: Sequence[int], total: int) -> str:
    """A player's dice in a turn: ``no dice``, ``1 die (5)``, ``2 dice (3, 4 = 7)``."""
    if not faces:
        return "no dice"
    if len(faces) == 1:
        return f"1 die ({faces[0]})"
    return f"{dice_word(len(faces))} ({', '.join(map(str, faces))} = {total})"


def charges_left(charges: Mapping[str, int]) -> str:
    """``Disruptor, Deflector`` or ``only Bluff`` for a player's remaining functions."""
    left = [label for name, label in CHARGE_NAMES.items() if charges.get(name, 0) > 0]
    return ", ".join(left) if left else "only Bluff"


def _by_type(events: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {event["type"]: event for event in events}


def _table_rolls(table: Mapping[str, int], choice: Mapping[str, str], attacking: bool) -> str:
    """The card's d6 rolls of one player and what each decided (classic mode)."""
    device = ray_name(choice["device"]) if attacking else shield_name(choice["device"])
    function = f"{table['function']}"
    if "changer" in table:
        function += f" then {table['changer']}"
    return (
        f"{table['device']} → {device}, {table['region']} → {REGION_NAMES[choice['region']]}, "
        f"{function} → {FUNCTION_NAMES[choice['function']]}"
    )


def narrate_duel(events: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[str]:
    """The reveal of one Dimension Duel turn, step by step, from the engine's events
    (``reveal``, ``calibration``, ``focus``, ``functions``, ``dice_awarded``,
    ``faces_rolled``, ``damage``, ``hp``)."""
    found = _by_type(events)
    reveal = found["reveal"]
    attacker, defender = reveal["attacker"], reveal["defender"]
    choices = reveal["choices"]
    lines = [
        f"**Turn {reveal['turn']} reveal** — {names[attacker]} ({DUEL_ROLES[attacker]}) "
        f"attacks, {names[defender]} ({DUEL_ROLES[defender]}) defends"
    ]
    table = reveal.get("table_dice")
    if table:
        lines.append(
            "🎲 Card rolls: "
            + " · ".join(
                f"{names[p]} rolled {_table_rolls(table[p], choices[p], p == attacker)}"
                for p in (attacker, defender)
            )
        )
    calibration = found["calibration"]
    outcome = (
        "the shield matches: no die"
        if calibration["match"]
        else f"no match: +1 die to {names[attacker]}"
    )
    lines.append(
        f"1️⃣ Calibrate: {ray_name(calibration['ray'])} against "
        f"{shield_name(calibration['shield'])} → {outcome}"
    )
    focus = found["focus"]
    outcome = (
        "reinforced in the right place: no die"
        if focus["match"]
        else f"+1 die to {names[attacker]}"
    )
    lines.append(
        f"2️⃣ Focus: {REGION_NAMES[focus['focus']]} against "
        f"{REGION_NAMES[focus['guard']]} reinforced → {outcome}"
    )
    functions = found["functions"]
    used = functions["functions"]
    lines.append(
        "3️⃣ Functions: "
        + " · ".join(f"{names[p]} {FUNCTION_NAMES[used[p]]}" for p in (attacker, defender))
    )
    effects = []
    if functions["ray"] != calibration["ray"] or functions["shield"] != calibration["shield"]:
        verdict = "no die" if functions["calibration_dice"] == 0 else f"+1 die to {names[attacker]}"
        effects.append(
            f"particles changed: now {ray_name(functions['ray'])} against "
            f"{shield_name(functions['shield'])} → {verdict}"
        )
    elif any(u.startswith("changer") for u in used):
        effects.append("the particle changes cancel out")
    for player in (attacker, defender):
        if functions["delayed_attack"][player]:
            effects.append(f"delayed attack: +1 die to {names[player]}")
    if functions["disrupted"]:
        effects.append("disruptor: all damage negated, nobody rolls")
    else:
        if functions["deflected"]:
            effects.append("deflector: each player suffers their own dice")
        elif used.count("deflector") == 2:
            effects.append("two deflectors cancel out")
        if functions["multiplier"] > 1:
            effects.append(f"intensified: damage ×{functions['multiplier']}")
    lines.extend(f"• {effect}" for effect in effects)
    awarded = found["dice_awarded"]["dice"]
    rolled = found["faces_rolled"]
    if rolled["disrupted"]:
        lines.append(
            "4️⃣ Dice: "
            + " · ".join(f"{names[p]} {dice_word(awarded[p])}" for p in (attacker, defender))
            + " — disrupted, nothing rolled"
        )
    else:
        parts = []
        for p in (attacker, defender):
            parts.append(f"{names[p]} {rolled_text(rolled['faces'][p], rolled['totals'][p])}")
        lines.append("4️⃣ Dice: " + " · ".join(parts))
    damage = found["damage"]["damage"]
    hp = found["hp"]
    losses = [
        f"{names[p]} −{damage[p]} ({hp['before'][p]} → {max(0, hp['hp'][p])})"
        for p in (attacker, defender)
        if damage[p] > 0
    ]
    lines.append("💥 Damage: " + " · ".join(losses) if losses else "💥 No damage")
    for p in (attacker, defender):
        if hp["hp"][p] <= 0:
            lines.append(f"💀 {names[p]} is pulverized into sub-atomic dust.")
    return lines
