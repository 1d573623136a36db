"""Dimension Duel's components: the public **Make your move** (tactical) and **Roll**
(classic) buttons, and each player's private controls (three selects and Confirm) with the
message they sit in.

Components (prefix ``dd:``): ``dd:<session>:<turn>:move`` (public **Make your move**,
tactical), ``dd:<session>:<turn>:roll`` (public **Roll**, classic), and the private
controls ``dd:<session>:<turn>:<dev|reg|fn|ok>:<draft>``. A draft is three characters, one
per field, ``_`` while unset: device ``t``/``k``, region ``h``/``t``/``x`` (head, torso,
extremities), function ``b`` bluff, ``d`` disruptor, ``a`` delayed attack, ``f`` deflector,
``i`` intensifier, ``s`` changer self, ``o`` changer opponent.

A press is one call to a press function: the shared ones (``cogs.secret_duel.controls``)
with the game's key, which reach the runtime through the game host.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import discord

from bot.i18n import _, number
from bot.model.contract import Session
from bot.model.text import clip
from bot.pictures import palette
from bot.ui.replies import Guarded
from cogs.dimension_duel.render import (
    capitalized,
    function_help,
    function_name,
    ray_name,
    region_name,
    role_name,
    shield_name,
)
from cogs.secret_duel.controls import (
    controls_intro,
    press_confirm,
    press_draft,
    press_move,
    press_roll,
)
from cogs.secret_duel.game import SecretDuelGame
from cogs.secret_duel.state import UiState
from game_core import dimension_duel as dd
from game_core.dimension_duel import DuelState
from game_core.errors import IllegalMove

GAME = "dimension_duel"
UNSET = "_"
FIELDS = ("dev", "reg", "fn")
DEVICE_CODES = {"tau": "t", "kaon": "k"}
REGION_CODES = {"head": "h", "torso": "t", "extremities": "x"}
FUNCTION_CODES = {
    "bluff": "b",
    "disruptor": "d",
    "delayed_attack": "a",
    "deflector": "f",
    "intensifier": "i",
    "changer_self": "s",
    "changer_opponent": "o",
}
CODE_TABLES: tuple[dict[str, str], ...] = (DEVICE_CODES, REGION_CODES, FUNCTION_CODES)
EMPTY_DRAFT = UNSET * 3
_SESSION = r"(?P<session_id>[0-9]{1,19})"
_TURN = r"(?P<turn>[0-9]{1,4})"
_DRAFT = r"(?P<draft>[tk_][htx_][bdafiso_])"


def decode_draft(draft: str) -> tuple[str | None, str | None, str | None]:
    """(device, region, function) of a draft, None where unset or unknown."""
    if len(draft) != 3:
        return None, None, None
    decoded: list[str | None] = []
    for code, table in zip(draft, CODE_TABLES, strict=True):
        decoded.append(next((name for name, c in table.items() if c == code), None))
    return decoded[0], decoded[1], decoded[2]


def with_field(draft: str, field: str, value: str) -> str:
    """The draft with one field set; IllegalMove for a value that field cannot take."""
    index = FIELDS.index(field)
    code = CODE_TABLES[index].get(value)
    if code is None:
        raise IllegalMove("That option is not available: pick one from the menu.")
    padded = draft if len(draft) == 3 else EMPTY_DRAFT
    return padded[:index] + code + padded[index + 1 :]


def controls_message(
    rules: SecretDuelGame[DuelState],
    session: Session,
    seat: int,
    state: DuelState,
    draft: str,
    ui: UiState,
) -> tuple[discord.Embed, discord.ui.View]:
    """A player's private controls for this turn: both bars, the deadline, the three steps
    for their side (attacking or defending), the three selects with ``draft`` selected,
    and Confirm."""
    device, region, function = decode_draft(draft)
    usable = dd.available_functions(state, seat)
    if function is not None and function not in usable:
        function = None
    code = (
        (DEVICE_CODES[device] if device else UNSET)
        + (REGION_CODES[region] if region else UNSET)
        + (FUNCTION_CODES[function] if function else UNSET)
    )
    attacking = state.attacker == seat
    turn, side = number(state.turn), role_name(seat)
    title = (
        _("⚛️ Dimension Duel — turn {turn}: you attack ({side}) — your secret choice")
        if attacking
        else _("⚛️ Dimension Duel — turn {turn}: you defend ({side}) — your secret choice")
    )
    embed = discord.Embed(
        title=title.format(turn=turn, side=side), colour=discord.Colour(palette.EMBED_RUNNING)
    )
    lines = controls_intro(session, rules, state, seat, ui)
    lines.append("")
    if attacking:
        lines.append(
            _("1️⃣ Fire a **Tau** or **Kaon ray**: a shield of the other type gives you a die.")
        )
        lines.append(_("2️⃣ **Focus** your beam: a different reinforced region gives you a die."))
    else:
        lines.append(
            _("1️⃣ Raise an **anti-Tau** or **anti-Kaon shield**: match the ray to block its die.")
        )
        lines.append(_("2️⃣ **Reinforce** a region: match the focus to block its die."))
    lines.append(_("3️⃣ Pick a **function** (each special one works once per game; Bluff always)."))
    lines.append(_("Then press **Confirm**: a choice is final."))
    embed.description = "\n".join(lines)
    view = discord.ui.View(timeout=None)
    view.add_item(
        DuelField(session.id, state.turn, "dev", code, attacking=attacking, usable=usable)
    )
    view.add_item(
        DuelField(session.id, state.turn, "reg", code, attacking=attacking, usable=usable)
    )
    view.add_item(DuelField(session.id, state.turn, "fn", code, attacking=attacking, usable=usable))
    view.add_item(DuelConfirm(session.id, state.turn, code))
    return embed, view


def public_buttons(session_id: int, round_no: int, secret: bool) -> discord.ui.View:
    """The public message's button: **Make your move** (tactical) or **Roll** (classic)."""
    view = discord.ui.View(timeout=None)
    if secret:
        view.add_item(DuelMoveButton(session_id, round_no))
    else:
        view.add_item(DuelRollButton(session_id, round_no))
    return view


class DuelMoveButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"dd:{_SESSION}:{_TURN}:move",
):
    """On the public message (tactical): opens the private controls as an ephemeral."""

    def __init__(self, session_id: int, turn: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=_("Make your move"),
                emoji="⚛️",
                style=discord.ButtonStyle.primary,
                custom_id=f"dd:{session_id}:{turn}:move",
            )
        )
        self.session_id = session_id
        self.turn = turn

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DuelMoveButton:
        return cls(int(match["session_id"]), int(match["turn"]))

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_move(interaction, GAME, self.session_id, self.turn)


class DuelRollButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"dd:{_SESSION}:{_TURN}:roll",
):
    """On the public message (classic): lock in; the dice choose everything."""

    def __init__(self, session_id: int, turn: int) -> None:
        super().__init__(
            discord.ui.Button(
                # Translators: the button that rolls a classic-mode Dimension Duel turn.
                label=_("Roll"),
                emoji="🎲",
                style=discord.ButtonStyle.primary,
                custom_id=f"dd:{session_id}:{turn}:roll",
            )
        )
        self.session_id = session_id
        self.turn = turn

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DuelRollButton:
        return cls(int(match["session_id"]), int(match["turn"]))

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_roll(interaction, self.session_id, self.turn)


def _field_options(
    field: str, draft: str, *, attacking: bool, usable: Sequence[str]
) -> tuple[str, list[discord.SelectOption]]:
    device, region, function = decode_draft(draft)
    if field == "dev":
        placeholder = _("1️⃣ Your ray") if attacking else _("1️⃣ Your shield")
        options = [
            discord.SelectOption(
                label=clip(ray_name(d) if attacking else capitalized(shield_name(d)), 100),
                value=d,
                default=d == device,
            )
            for d in dd.DEVICES
        ]
    elif field == "reg":
        placeholder = _("2️⃣ Focus your beam on…") if attacking else _("2️⃣ Reinforce your shield at…")
        # Translators: a region in the attacker's / the defender's menu: "Focus: Head".
        label = _("Focus: {region}") if attacking else _("Reinforce: {region}")
        options = [
            discord.SelectOption(
                label=clip(label.format(region=region_name(r)), 100),
                value=r,
                default=r == region,
            )
            for r in dd.REGIONS
        ]
    else:
        placeholder = _("3️⃣ Your function")
        options = [
            discord.SelectOption(
                label=clip(function_name(f), 100),
                value=f,
                description=clip(function_help(f), 100),
                default=f == function,
            )
            for f in usable
        ]
    return clip(placeholder, 150), options


class DuelField(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"dd:{_SESSION}:{_TURN}:(?P<field>dev|reg|fn):{_DRAFT}",
):
    """One of the three tactical selects. Changing it redraws the controls with the new
    draft (carried in every component's custom_id); nothing is committed."""

    def __init__(
        self,
        session_id: int,
        turn: int,
        field: str,
        draft: str,
        *,
        attacking: bool = True,
        usable: Sequence[str] = dd.FUNCTIONS,
    ) -> None:
        placeholder, options = _field_options(field, draft, attacking=attacking, usable=usable)
        super().__init__(
            discord.ui.Select(
                custom_id=f"dd:{session_id}:{turn}:{field}:{draft}",
                placeholder=placeholder,
                min_values=1,
                max_values=1,
                options=options,
            )
        )
        self.session_id = session_id
        self.turn = turn
        self.field = field
        self.draft = draft

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DuelField:
        # The options shown do not matter here: only the chosen value and the draft do.
        return cls(int(match["session_id"]), int(match["turn"]), match["field"], match["draft"])

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_field(
            interaction, self.session_id, self.turn, self.field, self.draft, self.item.values
        )


class DuelConfirm(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"dd:{_SESSION}:{_TURN}:ok:{_DRAFT}",
):
    def __init__(self, session_id: int, turn: int, draft: str) -> None:
        complete = UNSET not in draft
        super().__init__(
            discord.ui.Button(
                label=_("Confirm") if complete else _("Confirm (choose all three first)"),
                emoji="🔒",
                style=discord.ButtonStyle.success,
                disabled=not complete,
                custom_id=f"dd:{session_id}:{turn}:ok:{draft}",
            )
        )
        self.session_id = session_id
        self.turn = turn
        self.draft = draft

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DuelConfirm:
        return cls(int(match["session_id"]), int(match["turn"]), match["draft"])

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_confirm(interaction, GAME, self.session_id, self.turn, self.draft)


COMPONENTS = (DuelMoveButton, DuelRollButton, DuelField, DuelConfirm)


async def press_field(
    interaction: discord.Interaction,
    session_id: int,
    turn: int,
    field: str,
    draft: str,
    values: Sequence[str],
) -> None:
    """One of the three selects changed: redraw the player's controls with that field of
    the draft set to the chosen value."""
    if len(values) != 1:
        raise IllegalMove("Pick one option from the menu.")
    new_draft = with_field(draft, field, str(values[0]))
    await press_draft(interaction, GAME, session_id, turn, new_draft)
