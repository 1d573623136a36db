"""Dimension Duel's texts: the sides, devices, regions and functions by name, the functions
a player has left, and the reveal of a turn step by step.

Built from data that is already public (the engine's ``public_view`` or the events of a
finished reveal), in the current language (``bot.i18n``) when a function is called; the
tables of names below are marked with ``N_`` and translated where they are shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.i18n import N_, _, ngettext, number


def capitalized(text: str) -> str:
    """``text`` with its first letter upper-case (a name that starts a label)."""
    for index, char in enumerate(text):
        if char.isalpha():
            return text[:index] + char.upper() + text[index + 1 :]
    return text


# Translators: Dimension Duel's two sides, named after particles (Tau attacks on turn 1).
DUEL_ROLES = (N_("Tau"), N_("Kaon"))
DEVICE_NAMES = {"tau": N_("Tau"), "kaon": N_("Kaon")}
RAY_NAMES = {"tau": N_("Tau ray"), "kaon": N_("Kaon ray")}
# Translators: a defender's shield, which blocks the ray of the named particle.
SHIELD_NAMES = {"tau": N_("anti-Tau shield"), "kaon": N_("anti-Kaon shield")}
REGION_NAMES = {
    # Translators: Dimension Duel, a region of the body a ray is focused on.
    "head": N_("Head"),
    "torso": N_("Torso"),
    "extremities": N_("Extremities"),
}
FUNCTION_NAMES = {
    # Translators: Dimension Duel's functions (step 3), shown as names with capitals.
    "bluff": N_("Bluff"),
    "disruptor": N_("Disruptor"),
    "delayed_attack": N_("Delayed Attack"),
    "deflector": N_("Deflector"),
    "intensifier": N_("Intensifier"),
    "changer_self": N_("Particle Changer (Self)"),
    "changer_opponent": N_("Particle Changer (Opponent)"),
}
FUNCTION_HELP = {
    "bluff": N_("does nothing (never runs out)"),
    "disruptor": N_("no dice are rolled this turn: no damage at all"),
    "delayed_attack": N_("+1 die for you"),
    "deflector": N_("each player takes the damage of their own dice"),
    "intensifier": N_("all damage this turn doubled, both ways"),
    "changer_self": N_("flips your own ray/shield type"),
    "changer_opponent": N_("flips your opponent's ray/shield type"),
}
CHARGE_NAMES = {
    "disruptor": N_("Disruptor"),
    "delayed_attack": N_("Delayed Attack"),
    "deflector": N_("Deflector"),
    "intensifier": N_("Intensifier"),
    "particle_changer": N_("Particle Changer"),
}


def role_name(seat: int) -> str:
    """``Tau`` or ``Kaon``, in the current language."""
    return _(DUEL_ROLES[seat])


def device_name(device: str) -> str:
    return _(DEVICE_NAMES[device])


def region_name(region: str) -> str:
    return _(REGION_NAMES[region])


def function_name(function: str) -> str:
    return _(FUNCTION_NAMES[function])


def function_help(function: str) -> str:
    return _(FUNCTION_HELP[function])


def ray_name(device: str) -> str:
    return _(RAY_NAMES[device])


def shield_name(device: str) -> str:
    return _(SHIELD_NAMES[device])


def dice_word(count: int) -> str:
    """``no dice``, ``1 die``, ``2 dice``."""
    if count == 0:
        return _("no dice")
    return ngettext("{count} die", "{count} dice", count).format(count=number(count))


def rolled_text(faces: Sequence[int], total: int) -> str:
    """A player's dice in a turn: ``no dice``, ``1 die (5)``, ``2 dice (3, 4 = 7)``."""
    if not faces:
        return _("no dice")
    if len(faces) == 1:
        # Translators: one die rolled and its face, such as "1 die (5)".
        return _("1 die ({face})").format(face=faces[0])
    # Translators: the dice a player rolled, their faces and their total: "2 dice (3, 4 = 7)".
    return ngettext(
        "{count} die ({faces} = {total})", "{count} dice ({faces} = {total})", len(faces)
    ).format(count=number(len(faces)), faces=", ".join(map(str, faces)), total=number(total))


def charges_left(charges: Mapping[str, int]) -> str:
    """``Disruptor, Deflector``: a player's remaining special functions by name, "" when
    only Bluff is left (each caller has its own sentence for that)."""
    return ", ".join(_(label) for name, label in CHARGE_NAMES.items() if charges.get(name, 0) > 0)


def _by_type(events: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {event["type"]: event for event in events}


def _table_rolls(table: Mapping[str, int], choice: Mapping[str, str], attacking: bool) -> str:
    """The card's d6 rolls of one player and what each decided (classic mode): numbers and
    names only, "1 → Tau ray, 4 → Torso, 6, 2 → Particle Changer (Opponent)"."""
    device = ray_name(choice["device"]) if attacking else shield_name(choice["device"])
    function = f"{table['function']}"
    if "changer" in table:
        # The Particle Changer's two d6 rolls: which function, then whose choice it flips.
        function = f"{table['function']}, {table['changer']}"
    return (
        f"{table['device']} → {device}, {table['region']} → {region_name(choice['region'])}, "
        f"{function} → {function_name(choice['function'])}"
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
        _(
            "**Turn {turn} reveal** — {attacker} ({attacker_side}) attacks, "
            "{defender} ({defender_side}) defends"
        ).format(
            turn=number(reveal["turn"]),
            attacker=names[attacker],
            attacker_side=role_name(attacker),
            defender=names[defender],
            defender_side=role_name(defender),
        )
    ]
    table = reveal.get("table_dice")
    if table:
        for p in (attacker, defender):
            # Translators: classic mode, the d6 rolls of the card that chose a player's
            # moves, each roll → what it decided: "1 → Tau ray, 4 → Torso, 2 → Disruptor".
            lines.append(
                _("🎲 {player}'s card rolls: {rolls}").format(
                    player=names[p], rolls=_table_rolls(table[p], choices[p], p == attacker)
                )
            )
    calibration = found["calibration"]
    ray, shield = ray_name(calibration["ray"]), shield_name(calibration["shield"])
    if calibration["match"]:
        # Translators: step 1 of a Dimension Duel turn, the attacker's ray against the
        # defender's shield; they match, so the attacker gains no die.
        line = _("1️⃣ Ray and shield: {ray} against {shield}, the shield matches: no die.")
        lines.append(line.format(ray=ray, shield=shield))
    else:
        line = _("1️⃣ Ray and shield: {ray} against {shield}, no match: +1 die to {player}.")
        lines.append(line.format(ray=ray, shield=shield, player=names[attacker]))
    focus = found["focus"]
    aimed, guarded = region_name(focus["focus"]), region_name(focus["guard"])
    if focus["match"]:
        # Translators: step 2, the region the attacker focused on against the region the
        # defender reinforced; the same region, so the attacker gains no die.
        line = _("2️⃣ Focus: {focus} against {guard} reinforced, the right place: no die.")
        lines.append(line.format(focus=aimed, guard=guarded))
    else:
        line = _("2️⃣ Focus: {focus} against {guard} reinforced: +1 die to {player}.")
        lines.append(line.format(focus=aimed, guard=guarded, player=names[attacker]))
    functions = found["functions"]
    used = functions["functions"]
    played = " · ".join(f"{names[p]} {function_name(used[p])}" for p in (attacker, defender))
    lines.append(_("3️⃣ Functions: {functions}").format(functions=played))
    effects = []
    if functions["ray"] != calibration["ray"] or functions["shield"] != calibration["shield"]:
        ray, shield = ray_name(functions["ray"]), shield_name(functions["shield"])
        if functions["calibration_dice"] == 0:
            line = _("particles changed: now {ray} against {shield}, no die")
            effects.append(line.format(ray=ray, shield=shield))
        else:
            line = _("particles changed: now {ray} against {shield}, +1 die to {player}")
            effects.append(line.format(ray=ray, shield=shield, player=names[attacker]))
    elif any(u.startswith("changer") for u in used):
        effects.append(_("the particle changes cancel out"))
    for player in (attacker, defender):
        if functions["delayed_attack"][player]:
            effects.append(_("delayed attack: +1 die to {player}").format(player=names[player]))
    if functions["disrupted"]:
        effects.append(_("disruptor: all damage negated, nobody rolls"))
    else:
        if functions["deflected"]:
            effects.append(_("deflector: each player suffers their own dice"))
        elif used.count("deflector") == 2:
            effects.append(_("two deflectors cancel out"))
        if functions["multiplier"] > 1:
            effects.append(
                _("intensified: damage ×{multiplier}").format(
                    multiplier=number(functions["multiplier"])
                )
            )
    lines.extend(f"• {effect}" for effect in effects)
    awarded = found["dice_awarded"]["dice"]
    rolled = found["faces_rolled"]
    if rolled["disrupted"]:
        dice = " · ".join(f"{names[p]} {dice_word(awarded[p])}" for p in (attacker, defender))
        lines.append(_("4️⃣ Dice: {dice} — disrupted, nothing rolled").format(dice=dice))
    else:
        dice = " · ".join(
            f"{names[p]} {rolled_text(rolled['faces'][p], rolled['totals'][p])}"
            for p in (attacker, defender)
        )
        lines.append(_("4️⃣ Dice: {dice}").format(dice=dice))
    damage = found["damage"]["damage"]
    hp = found["hp"]
    losses = [
        f"{names[p]} −{number(damage[p])} "
        f"({number(hp['before'][p])} → {number(max(0, hp['hp'][p]))})"
        for p in (attacker, defender)
        if damage[p] > 0
    ]
    if losses:
        lines.append(_("💥 Damage: {losses}").format(losses=" · ".join(losses)))
    else:
        lines.append(_("💥 No damage"))
    for p in (attacker, defender):
        if hp["hp"][p] <= 0:
            lines.append(
                _("💀 {player} is pulverized into sub-atomic dust.").format(player=names[p])
            )
    return lines
