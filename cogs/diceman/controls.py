"""Diceman's components: the public **Make your move** button, and each player's private
controls (the two-dice select and Confirm) with the message they sit in.

Components (prefix ``dm:``; the draft is the player's current, unconfirmed pick):
``dm:<session>:<round>:move`` (public **Make your move**),
``dm:<session>:<round>:pick:<draft>`` (the two-dice select) and
``dm:<session>:<round>:ok:<draft>`` (Confirm). A draft is ``_`` or two of ``m p s h``
(magic, priority, sword, shield), always in that order.

A press is one call to a press function: the shared ones (``cogs.secret_duel.controls``)
with the game's key, which reach the runtime through the game host.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

import discord

from bot import i18n
from bot.i18n import N_, _, number
from bot.model.contract import Session
from bot.model.text import clip
from bot.pictures import palette
from bot.ui.replies import Guarded
from cogs.diceman.render import DICEMAN_DICE, DICEMAN_EMOJI, DICEMAN_HELP, dice_pair, die_label
from cogs.secret_duel.controls import controls_intro, press_confirm, press_draft, press_move
from cogs.secret_duel.game import SecretDuelGame
from cogs.secret_duel.state import UiState
from game_core import diceman
from game_core.diceman import DicemanState
from game_core.errors import IllegalMove

GAME = "diceman"
CODES: dict[str, str] = {"magic": "m", "priority": "p", "sword": "s", "shield": "h"}
NAMES: dict[str, str] = {code: name for name, code in CODES.items()}
NO_DRAFT = "_"
_SESSION = r"(?P<session_id>[0-9]{1,19})"
_ROUND = r"(?P<round>[0-9]{1,4})"
# Only the six canonical pairs (die order magic, priority, sword, shield) or "_".
_DRAFT = "(?P<draft>_|" + "|".join(CODES[a] + CODES[b] for a, b in diceman.COMBOS) + ")"
# The dice by name, as the Confirm button shows them ("Confirm Priority + Sword").
DIE_NAMES: dict[str, str] = {
    "magic": N_("Magic"),
    "priority": N_("Priority"),
    "sword": N_("Sword"),
    "shield": N_("Shield"),
}


def draft_code(dice: Sequence[str]) -> str:
    """``["sword", "priority"]`` -> ``"ps"`` (canonical order); validates the pair."""
    canonical = diceman.normalize_dice(list(dice))
    return "".join(CODES[name] for name in canonical)


def draft_dice(draft: str) -> list[str] | None:
    """The two dice a draft names, or None for no (or a malformed) pick."""
    if draft == NO_DRAFT or len(draft) != 2 or any(c not in NAMES for c in draft):
        return None
    try:
        return diceman.normalize_dice([NAMES[c] for c in draft])
    except IllegalMove:
        return None


def controls_message(
    rules: SecretDuelGame[DicemanState],
    session: Session,
    seat: int,
    state: DicemanState,
    draft: str,
    ui: UiState,
) -> tuple[discord.Embed, discord.ui.View]:
    """A player's private controls for this round: both bars, the deadline, what each
    die does, the two-dice select with ``draft`` selected, and Confirm."""
    picked = draft_dice(draft)
    embed = discord.Embed(
        # Translators: the title of a player's private Diceman controls.
        title="🎲 "
        + _("Diceman — round {round}: your secret pick").format(round=number(state.round)),
        colour=discord.Colour(palette.EMBED_RUNNING),
    )
    lines = controls_intro(session, rules, state, seat, ui)
    lines.append("")
    lines.extend(_how_to_pick(i18n.current(), i18n.pseudo_enabled()))
    if picked is not None:
        lines.append("")
        lines.append(
            _("Selected: {dice} (not locked in until you confirm)").format(dice=dice_pair(picked))
        )
    embed.description = "\n".join(lines)
    view = discord.ui.View(timeout=None)
    code = NO_DRAFT if picked is None else draft
    view.add_item(DicemanPick(session.id, state.round, code))
    view.add_item(DicemanConfirm(session.id, state.round, code))
    return embed, view


@functools.cache
def _how_to_pick(language: str, pseudo_text: bool) -> tuple[str, ...]:
    """The controls' lines that never change: how to pick, and what each die does (the
    same for every pick in a language; ``pseudo_text`` keeps pseudo-text apart)."""
    return (
        _("Pick **exactly two** dice in the menu, then press **Confirm**."),
        *(
            f"{DICEMAN_EMOJI[name]} **{die_label(name)}**: {_(DICEMAN_HELP[name])}"
            for name in DICEMAN_DICE
        ),
    )


def public_buttons(session_id: int, round_no: int) -> discord.ui.View:
    """The public message's button: **Make your move**."""
    view = discord.ui.View(timeout=None)
    view.add_item(DicemanMoveButton(session_id, round_no))
    return view


class DicemanMoveButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"dm:{_SESSION}:{_ROUND}:move",
):
    """On the public message: opens the private controls as an ephemeral message."""

    def __init__(self, session_id: int, round_no: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=_("Make your move"),
                emoji="🎲",
                style=discord.ButtonStyle.primary,
                custom_id=f"dm:{session_id}:{round_no}:move",
            )
        )
        self.session_id = session_id
        self.round_no = round_no

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DicemanMoveButton:
        return cls(int(match["session_id"]), int(match["round"]))

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_move(interaction, GAME, self.session_id, self.round_no)


# The select's options by language, pseudo-text and pick: the same few lists for every
# press (a pick's answer and every press on the select build the select again). discord.py
# only reads an option (to_dict); each select gets its own list of the shared options.
_options: dict[tuple[str, bool, tuple[str, ...] | None], list[discord.SelectOption]] = {}


def _pick_options(picked: Sequence[str] | None) -> list[discord.SelectOption]:
    key = (i18n.current(), i18n.pseudo_enabled(), None if picked is None else tuple(picked))
    options = _options.get(key)
    if options is None:
        options = _options[key] = [
            discord.SelectOption(
                label=die_label(name),
                value=name,
                emoji=DICEMAN_EMOJI[name],
                description=clip(_(DICEMAN_HELP[name]), 100),
                default=picked is not None and name in picked,
            )
            for name in DICEMAN_DICE
        ]
    return list(options)


class DicemanPick(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"dm:{_SESSION}:{_ROUND}:pick:{_DRAFT}",
):
    """The two-dice select (min 2, max 2). Changing it redraws the controls; nothing is
    committed until Confirm."""

    def __init__(self, session_id: int, round_no: int, draft: str) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"dm:{session_id}:{round_no}:pick:{draft}",
                placeholder=_("Pick two dice"),
                min_values=2,
                max_values=2,
                options=_pick_options(draft_dice(draft)),
            )
        )
        self.session_id = session_id
        self.round_no = round_no

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DicemanPick:
        return cls(int(match["session_id"]), int(match["round"]), match["draft"])

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_pick(interaction, self.session_id, self.round_no, self.item.values)


class DicemanConfirm(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"dm:{_SESSION}:{_ROUND}:ok:{_DRAFT}",
):
    def __init__(self, session_id: int, round_no: int, draft: str) -> None:
        picked = draft_dice(draft)
        if picked is None:
            label = _("Confirm")
        else:
            # Translators: the button that locks a Diceman pick in: "Confirm Priority + Sword".
            label = _("Confirm {first} + {second}").format(
                first=_(DIE_NAMES[picked[0]]), second=_(DIE_NAMES[picked[1]])
            )
        super().__init__(
            discord.ui.Button(
                label=clip(label, 80),
                emoji="🔒",
                style=discord.ButtonStyle.success,
                disabled=picked is None,
                custom_id=f"dm:{session_id}:{round_no}:ok:{draft}",
            )
        )
        self.session_id = session_id
        self.round_no = round_no
        self.draft = draft

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DicemanConfirm:
        return cls(int(match["session_id"]), int(match["round"]), match["draft"])

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_confirm(interaction, GAME, self.session_id, self.round_no, self.draft)


COMPONENTS = (DicemanMoveButton, DicemanPick, DicemanConfirm)


async def press_pick(
    interaction: discord.Interaction, session_id: int, round_no: int, values: Sequence[str]
) -> None:
    """The two-dice select changed: redraw the player's controls with the new pick."""
    await press_draft(interaction, GAME, session_id, round_no, draft_code(values))
