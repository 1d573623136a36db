"""Diceman's texts: the four dice by name, what each does, and the reveal of a round.

Built from data that is already public (the engine's reveal events, the dice a player picked
shown only to them), in the current language (``bot.i18n``) when a function is called; the
tables of names below are marked with ``N_`` and translated where they are shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.i18n import N_, _, list_of, ngettext, number

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
    "priority": N_("act first; the lead strikes with your sword and shield"),
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


def _strike_line(strike: Mapping[str, Any], names: Sequence[str]) -> str | None:
    """One strike in words; None for a sword strike without a sword (a die not picked, or
    spent by a priority strike), which is no strike at all."""
    who, target = names[strike["player"]], names[strike["target"]]
    amount = strike["amount"]
    kind = strike["kind"]
    if kind == "priority_sword":
        # Translators: Diceman. The lead is how much higher the player's Priority die rolled.
        return _(
            "{player}'s priority sword strike (lead {lead}): **{amount}** unblockable to "
            "{target}; the sword drops to {left}"
        ).format(player=who, lead=strike["gap"], amount=amount, target=target,
                 left=strike["sword_left"])  # fmt: skip
    if kind == "priority_shield":
        return _(
            "{player}'s priority shield strike (lead {lead}, the shield would block {blocks}): "
            "**{amount}** unblockable to {target}"
        ).format(player=who, lead=strike["gap"], blocks=strike["blocks"], amount=amount,
                 target=target)  # fmt: skip
    if strike["sword"] <= 0:
        return None
    if strike["shield"] <= 0:
        return _("{player}'s sword {sword}: **{amount}** damage to {target}").format(
            player=who, sword=strike["sword"], amount=amount, target=target
        )
    if amount == 0:
        return _("{player}'s sword {sword} against {target}'s shield {shield}: blocked").format(
            player=who, sword=strike["sword"], target=target, shield=strike["shield"]
        )
    return _(
        "{player}'s sword {sword} against {target}'s shield {shield}: **{amount}** damage"
    ).format(player=who, sword=strike["sword"], target=target, shield=strike["shield"],
             amount=amount)  # fmt: skip


def phase_heading(phase: int, actors: Sequence[int], names: Sequence[str]) -> str:
    """A phase named by what puts a player in it: their Priority roll, or no priority
    (phase 0, where everyone without the Priority die acts)."""
    who = list_of([names[p] for p in actors])
    # Translators: Diceman, the heading of a phase named by its Priority roll.
    label = _("Priority {roll}").format(roll=phase) if phase > 0 else _("No priority")
    return ngettext(
        "__{phase}__ · {players} acts", "__{phase}__ · {players} act", len(actors)
    ).format(phase=label, players=who)


def narrate_diceman(reveal: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The reveal of one Diceman round, phase by phase: strikes, blocks, magic, deaths.

    ``reveal`` is the engine's ``reveal`` event (also kept as ``last_round`` in the public
    view): choices, rolls, the phase events and the life totals.
    """
    rolls: Sequence[Mapping[str, int]] = reveal["rolls"]
    priority = [roll.get("priority", 0) for roll in rolls]
    lines = [
        _("**Round {round} reveal**").format(round=number(reveal["round"])),
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
                details.append(
                    _("magic clash {first} against {second}: it cancels out").format(
                        first=magic[0], second=magic[1]
                    )
                )
            else:
                details.append(
                    _("magic clash {first} against {second}: {player} deals **{amount}**").format(
                        first=magic[0],
                        second=magic[1],
                        player=names[clash["winner"]],
                        amount=clash["amount"],
                    )
                )
        for spell in phase["magic"]:
            details.append(
                _("{player}'s magic: **{amount}** unblockable to {target}").format(
                    player=names[spell["player"]],
                    amount=spell["amount"],
                    target=names[spell["target"]],
                )
            )
        for player in phase["magic_silenced"]:
            details.append(
                _("{player}'s magic fizzles: they were hit in this phase").format(
                    player=names[player]
                )
            )
        if not details:
            details.append(_("nothing to strike with"))
        lines.extend(f"• {detail}" for detail in details)
        damage, life = phase["damage"], phase["life"]
        hurt = [f"{names[p]} −{damage[p]} → {max(0, life[p])}" for p in (0, 1) if damage[p]]
        if hurt:
            lines.append("↳ " + " · ".join(hurt))
        for player in phase["dead"]:
            if priority[player] < phase["phase"]:
                lines.append(_("💀 {player} falls before acting.").format(player=names[player]))
            else:
                lines.append(_("💀 {player} falls.").format(player=names[player]))
    return lines
