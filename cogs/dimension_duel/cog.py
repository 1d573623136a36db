"""``/duel``: Dimension Duel, Tau against Kaon, in tactical (secret choices by DM) or
classic (the dice choose; each player presses Roll) mode.

The shared secret-duel flow (``cogs/secret_duel/handler.py``) does the sessions, DMs, timers and
public message; this module supplies the Dimension Duel engine calls, words and controls.

Components (prefix ``dd:``): ``dd:<session>:<turn>:move`` (public **Make your move**,
tactical), ``dd:<session>:<turn>:roll`` (public **Roll**, classic), and the private
controls ``dd:<session>:<turn>:<dev|reg|fn|ok>:<draft>``. A draft is three characters, one
per field, ``_`` while unset: device ``t``/``k``, region ``h``/``t``/``x`` (head, torso,
extremities), function ``b`` bluff, ``d`` disruptor, ``a`` delayed attack, ``f`` deflector,
``i`` intensifier, ``s`` changer self, ``o`` changer opponent.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import DiceBot
from bot.i18n import N_, _, number
from bot.model.contract import Session
from bot.model.errors import UserError
from bot.model.series import BEST_OF_HELP, BestOf
from bot.model.text import clip
from bot.pictures import palette
from bot.pictures.picture import Picture
from bot.ui.replies import Guarded
from cogs.dimension_duel import picture as duel_picture
from cogs.secret_duel.handler import (
    SecretDuelGame,
    SecretDuelHandler,
    UiState,
    confirm_choice,
    controls_intro,
    forfeit_game,
    open_controls,
    press_roll,
    start_challenge,
    start_vs_ai,
    update_draft,
)
from cogs.secret_duel.render import (
    capitalized,
    charges_left,
    device_name,
    function_help,
    function_name,
    narrate_duel,
    ray_name,
    region_name,
    role_name,
    shield_name,
)
from game_core import dimension_duel as dd
from game_core.ai.dimension_duel import choose_action
from game_core.base import Event, GameResult
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
REVEAL_TYPES = frozenset(
    {"reveal", "calibration", "focus", "functions", "dice_awarded", "faces_rolled", "damage", "hp"}
)
_SESSION = r"(?P<session_id>[0-9]{1,19})"
_TURN = r"(?P<turn>[0-9]{1,4})"
_DRAFT = r"(?P<draft>[tk_][htx_][bdafiso_])"
# The two modes, as the command's choices name them (the same catalog entries).
MODE_NAMES = {"tactical": N_("tactical"), "classic": N_("classic")}


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


class DimensionDuelGame(SecretDuelGame[DuelState]):
    game = GAME
    # Marked for the catalogs; the shared flow translates them where it shows them.
    title = N_("Dimension Duel")
    command = "duel"
    round_word = N_("turn")
    # Translators: hit points, short (the score line of a Dimension Duel, "HP 52–0").
    vitals_word = N_("HP")
    picks_key = "functions"
    emoji = "⚛️"
    random_first_seat = True

    # -- the engine -----------------------------------------------------------------------

    def new_game(
        self, options: dict[str, Any], rng: random.Random
    ) -> tuple[DuelState, list[Event]]:
        return dd.new_game(
            rng,
            mode=str(options.get("mode", "tactical")),
            start_hp=int(options.get("hp", dd.DEFAULT_HP)),
        )

    def load(self, data: dict[str, Any]) -> DuelState:
        return DuelState.model_validate(data)

    def apply(
        self, state: DuelState, action: dict[str, Any], rng: random.Random
    ) -> tuple[DuelState, list[Event]]:
        return dd.apply(state, action, rng)

    def public_view(self, state: DuelState) -> dict[str, Any]:
        return dd.public_view(state)

    def private_view(self, state: DuelState, seat: int) -> dict[str, Any]:
        return dd.private_view(state, seat)

    def round_of(self, state: DuelState) -> int:
        return state.turn

    def is_finished(self, state: DuelState) -> bool:
        return dd.is_finished(state)

    def result(self, state: DuelState) -> GameResult | None:
        return dd.result(state)

    def waiting_for(self, state: DuelState) -> list[int]:
        return dd.to_act(state)

    def is_secret(self, state: DuelState) -> bool:
        return state.mode == "tactical"

    def lock_action(
        self, state: DuelState, seat: int, choice: dict[str, Any] | None
    ) -> dict[str, Any]:
        if state.mode == "classic":
            if choice is not None:
                raise IllegalMove("In classic mode the dice choose for you: press **Roll**.")
            return {"type": "roll", "player": seat}
        if choice is None:
            raise IllegalMove(
                "In tactical mode you choose your device, region and function: press "
                "**Make your move**."
            )
        return {
            "type": "choose",
            "player": seat,
            "device": choice.get("device"),
            "region": choice.get("region"),
            "function": choice.get("function"),
        }

    def ai_action(self, state: DuelState, seat: int, rng: random.Random) -> dict[str, Any]:
        return choose_action(state, seat, rng).model_dump()

    def reveal_events(self, events: Sequence[Event]) -> list[Event]:
        return [dict(event) for event in events if event.get("type") in REVEAL_TYPES]

    def picks_of(self, reveal: Sequence[Event]) -> list[Any]:
        functions = next(e for e in reveal if e["type"] == "functions")["functions"]
        return list(functions)

    def vitals(self, view: dict[str, Any]) -> tuple[list[int], int]:
        return list(view["hp"]), int(view["start_hp"])

    def replay_options(self, state: DuelState) -> dict[str, Any]:
        return {"mode": state.mode, "hp": state.start_hp}

    def summary_extra(self, state: DuelState) -> dict[str, Any]:
        # Tau (seat 0) attacks on turn 1.
        return {"mode": state.mode, "first_seat": dd.TAU, "start_hp": state.start_hp}

    # -- texts ----------------------------------------------------------------------------

    def narrate(self, reveal: Sequence[Event], names: Sequence[str]) -> list[str]:
        return narrate_duel(reveal, names)

    def seat_label(self, view: dict[str, Any], seat: int) -> str:
        side = role_name(seat)
        if view["phase"] == "finished":
            return f" · {side}"
        if view["attacker"] == seat:
            # Translators: after a player's name on the duel's message: "Alice · Tau, attacking".
            return " · " + _("{side}, attacking").format(side=side)
        return " · " + _("{side}, defending").format(side=side)

    def picture(
        self, view: dict[str, Any], names: Sequence[str], stopped: str | None = None
    ) -> Picture | None:
        return duel_picture.render_duel(view, names, stopped)

    def seat_details(self, view: dict[str, Any], seat: int) -> list[str]:
        charges = view.get("charges")
        if not charges:
            return []
        return [_("Functions left: {functions}").format(functions=charges_left(charges[seat]))]

    def subtitle(self, view: dict[str, Any]) -> str:
        hp = number(view["start_hp"])
        if view["mode"] == "tactical":
            return _(
                "Mode **tactical: secret choices** · {hp} HP each · Tau attacks on odd turns."
            ).format(hp=hp)
        return _(
            "Mode **classic: the dice choose** · {hp} HP each · Tau attacks on odd turns."
        ).format(hp=hp)

    def challenge_details(self, options: dict[str, Any]) -> str:
        hp = number(int(options.get("hp", dd.DEFAULT_HP)))
        if options.get("mode", "tactical") == "classic":
            rules = _(
                "Mode **classic** (the dice choose everything; each player presses Roll), "
                "**{hp} HP** each."
            ).format(hp=hp)
        else:
            rules = _(
                "Mode **tactical** (both players choose ray/shield, region and function in "
                "secret (controls by DM)), **{hp} HP** each."
            ).format(hp=hp)
        tau = options.get("tau")
        first = (
            _("{player} is Tau and attacks first.").format(player=f"<@{tau}>")
            if isinstance(tau, int)
            else _("A coin flip decides who is Tau.")
        )
        return f"{rules} {first}"

    def choice_text(self, choice: Any) -> str:
        if not isinstance(choice, dict):
            return _("locked in")
        device, region, function = (
            choice.get("device"),
            choice.get("region"),
            choice.get("function"),
        )
        # Translators: a player's own locked-in choice: "Tau particles · Head · Bluff".
        return _("{device} particles · {region} · {function}").format(
            device=device_name(device) if device in dd.DEVICES else "?",
            region=region_name(region) if region in dd.REGIONS else "?",
            function=function_name(function) if function in dd.FUNCTIONS else "?",
        )

    # -- controls -------------------------------------------------------------------------

    def controls(
        self, session: Session, seat: int, state: DuelState, draft: str, ui: UiState
    ) -> tuple[discord.Embed, discord.ui.View]:
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
        lines = controls_intro(session, self, state, seat, ui)
        lines.append("")
        if attacking:
            lines.append(
                _("1️⃣ Fire a **Tau** or **Kaon ray**: a shield of the other type gives you a die.")
            )
            lines.append(_("2️⃣ **Focus** your beam: a different reinforced region gives you a die."))
        else:
            lines.append(
                _(
                    "1️⃣ Raise an **anti-Tau** or **anti-Kaon shield**: match the ray to block "
                    "its die."
                )
            )
            lines.append(_("2️⃣ **Reinforce** a region: match the focus to block its die."))
        lines.append(
            _("3️⃣ Pick a **function** (each special one works once per game; Bluff always).")
        )
        lines.append(_("Then press **Confirm**: a choice is final."))
        embed.description = "\n".join(lines)
        view = discord.ui.View(timeout=None)
        view.add_item(
            DuelField(session.id, state.turn, "dev", code, attacking=attacking, usable=usable)
        )
        view.add_item(
            DuelField(session.id, state.turn, "reg", code, attacking=attacking, usable=usable)
        )
        view.add_item(
            DuelField(session.id, state.turn, "fn", code, attacking=attacking, usable=usable)
        )
        view.add_item(DuelConfirm(session.id, state.turn, code))
        return embed, view

    def public_buttons(self, session_id: int, round_no: int, secret: bool) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        if secret:
            view.add_item(DuelMoveButton(session_id, round_no))
        else:
            view.add_item(DuelRollButton(session_id, round_no))
        return view

    def choice_from_draft(self, draft: str) -> dict[str, Any]:
        device, region, function = decode_draft(draft)
        if device is None or region is None or function is None:
            raise UserError(_("Choose your device, region and function in the menus first."))
        return {"device": device, "region": region, "function": function}


# ---------------------------------------------------------------------------------------------
# Components
# ---------------------------------------------------------------------------------------------


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
        await open_controls(interaction, GAME, self.session_id, self.turn)


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
        await press_roll(interaction, GAME, self.session_id, self.turn)


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
        values = self.item.values
        if len(values) != 1:
            raise IllegalMove("Pick one option from the menu.")
        draft = with_field(self.draft, self.field, str(values[0]))
        await update_draft(interaction, GAME, self.session_id, self.turn, draft)


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
        await confirm_choice(interaction, GAME, self.session_id, self.turn, self.draft)


COMPONENTS = (DuelMoveButton, DuelRollButton, DuelField, DuelConfirm)


# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------

Mode = Literal["tactical", "classic"]
StartHp = app_commands.Range[int, dd.MIN_START_HP, dd.MAX_START_HP]


@app_commands.guild_only()
class DimensionDuel(
    commands.GroupCog,
    group_name="duel",
    group_description="Dimension Duel: Tau against Kaon, particle rays and shields.",
):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.rules = DimensionDuelGame()
        self.handler = SecretDuelHandler(bot, self.rules)
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.sessions.register(self.handler)
        self.bot.register_components(*COMPONENTS)

    @app_commands.command(
        name="challenge",
        description="Challenge someone to a Dimension Duel.",
        extras={"public": True},
    )
    @app_commands.describe(
        opponent="The player you want to duel",
        mode="tactical: secret choices (default); classic: the dice choose everything",
        hp="Starting hit points for both (10 to 150, default 75)",
        best_of=BEST_OF_HELP,
    )
    async def challenge(
        self,
        interaction: discord.Interaction,
        opponent: discord.Member,
        mode: Mode = "tactical",
        hp: StartHp = dd.DEFAULT_HP,
        best_of: BestOf = 1,
    ) -> None:
        await start_challenge(
            self.bot,
            self.handler,
            interaction,
            opponent,
            {"mode": mode, "hp": int(hp)},
            best_of,
        )

    @app_commands.command(
        name="ai", description="Play a Dimension Duel against me.", extras={"public": True}
    )
    @app_commands.describe(
        mode="tactical: secret choices (default); classic: the dice choose everything",
        hp="Starting hit points for both (10 to 150, default 75)",
    )
    async def ai(
        self, interaction: discord.Interaction, mode: Mode = "tactical", hp: StartHp = dd.DEFAULT_HP
    ) -> None:
        await start_vs_ai(self.bot, self.handler, interaction, {"mode": mode, "hp": int(hp)})

    @app_commands.command(
        name="forfeit", description="Give up your Dimension Duel in this channel."
    )
    async def forfeit(self, interaction: discord.Interaction) -> None:
        await forfeit_game(self.bot, self.handler, interaction)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(DimensionDuel(bot))
