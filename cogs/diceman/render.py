"""Diceman's texts: the four dice by name, what each does, and the reveal of a round.

Built from data that is already public (the engine's reveal events, the dice a player picked
shown only to them), in the current language (``bot.i18n``) when a function is called; the
tables of names below are marked with ``N_`` and translated where they are shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.i18n import N_, _, number

DICEMAN_DICE: tuple[str, ...] = ("magic", "priority", "sword", "shield")
DICEMAN_SIDES: dict[str, int] = {"magic": 4, "priority": 6, "sword": 8, "shield": 10}
DICEMAN_EMOJI: dict[str, str] = {"magic": "🔮", "priority": "⚡", "sword": "⚔️", "shield": "🛡️"}
DICEMAN_NAMES: dict[str, str] = {
    # Translators: Diceman's d4, the die of unblockable magic damage.
    "magic": N_("Magic"),
    # Translators: Diceman's d6, which decides who acts first.
    "priority": N_("Priority"),
    # Translators: Diceman's d8, the attack die.
    "sword": N_("Sword"),
    # Translators: Diceman's d10, the die that blocks swords.
    "shield": N_("Shield"),
}
DICEMAN_HELP: dict[str, str] = {
    "magic": N_("unblockable, if nobody hurts you in your phase"),
    # Translators: Diceman's Priority die, said in a few words (a menu option's description:
    # at most 100 characters): the higher roll acts first, and its lead over the other roll
    # lets the sword, then the shield, strike before the swords clash.
    "priority": N_("act first; beat their roll for early sword and shield strikes"),
    "sword": N_("damage beyond the opponent's shield"),
    "shield": N_("blocks swords"),
}


def die_name(name: str) -> str:
    """``"sword"`` -> ``Sword``, in the current language."""
    return _(DICEMAN_NAMES[name])


def die_label(name: str) -> str:
    """``"sword"`` -> ``Sword d8``."""
    return f"{die_name(name)} d{DICEMAN_SIDES[name]}"


def dice_pair(dice: Sequence[str]) -> str:
    """``["priority", "sword"]`` -> ``⚡ Priority + ⚔️ Sword``."""
    return " + ".join(f"{DICEMAN_EMOJI[d]} {die_name(d)}" for d in dice)


def _rolled(rolls: Mapping[str, int]) -> str:
    ordered = [name for name in DICEMAN_DICE if name in rolls]
    return " + ".join(f"{DICEMAN_EMOJI[n]} {die_name(n)} **{rolls[n]}**" for n in ordered)


def _strike_line(strike: Mapping[str, Any]) -> str | None:
    """One strike in words, said of its striker's section of the reveal (the target is the
    other player); None for a sword strike without a sword (a die not picked, or spent by a
    priority strike), which is no strike at all."""
    amount = strike["amount"]
    kind = strike["kind"]
    if kind == "priority_sword":
        # Translators: Diceman. The lead is how much higher the player's Priority die rolled.
        return _(
            "priority sword strike (lead {lead}): **{amount}** unblockable; the sword drops "
            "to {left}"
        ).format(lead=strike["gap"], amount=amount, left=strike["sword_left"])
    if kind == "priority_shield":
        return _(
            "priority shield strike (lead {lead}, the shield would block {blocks}): "
            "**{amount}** unblockable"
        ).format(lead=strike["gap"], blocks=strike["blocks"], amount=amount)
    if strike["sword"] <= 0:
        return None
    if strike["shield"] <= 0:
        return _("sword {sword}: **{amount}** damage").format(sword=strike["sword"], amount=amount)
    if amount == 0:
        # Translators: Diceman. The player's sword against the opponent's shield.
        return _("sword {sword} against shield {shield}: blocked").format(
            sword=strike["sword"], shield=strike["shield"]
        )
    return _("sword {sword} against shield {shield}: **{amount}** damage").format(
        sword=strike["sword"], shield=strike["shield"], amount=amount
    )


def _clash_line(clash: Mapping[str, Any], player: int) -> str:
    """A magic clash, said of one of its two players' sections."""
    own, other = clash["magic"][player], clash["magic"][1 - player]
    if clash["winner"] is None:
        return _("magic {own} against magic {other}: it cancels out").format(own=own, other=other)
    if clash["winner"] == player:
        return _("magic {own} beats magic {other}: **{amount}** unblockable").format(
            own=own, other=other, amount=clash["amount"]
        )
    return _("magic {own} loses to magic {other}").format(own=own, other=other)


def _actions(phase: Mapping[str, Any], player: int) -> list[str]:
    """What ``player`` did in the phase they acted in, without naming anyone."""
    details = [
        line
        for line in (
            _strike_line(strike) for strike in phase["strikes"] if strike["player"] == player
        )
        if line is not None
    ]
    clash = phase.get("clash")
    if clash is not None:
        details.append(_clash_line(clash, player))
    for spell in phase["magic"]:
        if spell["player"] == player:
            details.append(_("magic: **{amount}** unblockable").format(amount=spell["amount"]))
    if player in phase["magic_silenced"]:
        details.append(_("magic fizzles: hit in this phase"))
    if not details:
        details.append(_("nothing to strike with"))
    return details


def narrate_diceman(reveal: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The reveal of one Diceman round: each player once, in the order they act, with the
    dice they rolled and what they did (strikes, blocks, magic), then the damage and life
    totals. A name is said twice at most (long names wrap on a phone): the lines under a
    player's name are theirs, and in a duel whatever they strike is the other player.

    ``reveal`` is the engine's ``reveal`` event (also kept as ``last_round`` in the public
    view): choices, rolls, the phase events and the life totals.
    """
    rolls: Sequence[Mapping[str, int]] = reveal["rolls"]
    phases: Sequence[Mapping[str, Any]] = reveal["phases"]
    acted_in = {player: phase for phase in phases for player in phase["actors"]}
    # The order of the phases: the higher Priority roll acts first (no Priority: phase 0).
    order = sorted((0, 1), key=lambda player: -rolls[player].get("priority", 0))
    lines = [_("**Round {round} reveal**").format(round=number(reveal["round"]))]
    for player in order:
        lines.append(f"**{names[player]}** · {_rolled(rolls[player])}")
        phase = acted_in.get(player)
        if phase is None:
            # The round ended in an earlier phase, which only the other player acted in:
            # this player was struck down there.
            lines.append("• 💀 " + _("falls before acting"))
            continue
        details = _actions(phase, player)
        if len(phase["actors"]) == 2 and player == order[1]:
            details.insert(0, _("acts in the same phase: the damage lands together"))
        lines.extend(f"• {detail}" for detail in details)
    damage = [sum(phase["damage"][player] for phase in phases) for player in (0, 1)]
    life = phases[-1]["life"] if phases else reveal.get("life", [0, 0])
    dead = {player for phase in phases for player in phase["dead"]}
    hurt = [
        f"{names[p]} −{damage[p]} → {max(0, life[p])}" + (" 💀" if p in dead else "")
        for p in (0, 1)
        if damage[p]
    ]
    if hurt:
        lines.append("↳ " + " · ".join(hurt))
    return lines
