"""``/diceman``: two duelists pick two of four dice in secret each round (by DM), then fight.

The shared secret-duel flow (``cogs/secret_duel/handler.py``) does the sessions, DMs, timers and
public message; this module supplies the Diceman engine calls, words and controls.

Components (prefix ``dm:``; the draft is the player's current, unconfirmed pick):
``dm:<session>:<round>:move`` (public **Make your move**),
``dm:<session>:<round>:pick:<draft>`` (the two-dice select) and
``dm:<session>:<round>:ok:<draft>`` (Confirm). A draft is ``_`` or two of ``m p s h``
(magic, priority, sword, shield), always in that order.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

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
from bot.ui.replies import Guarded
from cogs.secret_duel.handler import (
    SecretDuelGame,
    SecretDuelHandler,
    UiState,
    confirm_choice,
    controls_intro,
    forfeit_game,
    open_controls,
    start_challenge,
    start_vs_ai,
    update_draft,
)
from cogs.secret_duel.render import (
    DICEMAN_DICE,
    DICEMAN_EMOJI,
    DICEMAN_HELP,
    dice_pair,
    die_label,
    narrate_diceman,
)
from game_core import diceman
from game_core.ai.diceman import choose_dice
from game_core.base import Event, GameResult
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


class DicemanGame(SecretDuelGame[DicemanState]):
    game = GAME
    title = N_("Diceman")
    command = "diceman"
    round_word = "round"
    vitals_word = "Life"
    picks_key = "choices"
    emoji = "🎲"

    # -- the engine -----------------------------------------------------------------------

    def new_game(
        self, options: dict[str, Any], rng: random.Random
    ) -> tuple[DicemanState, list[Event]]:
        return diceman.new_game(rng)

    def load(self, data: dict[str, Any]) -> DicemanState:
        return DicemanState.model_validate(data)

    def apply(
        self, state: DicemanState, action: dict[str, Any], rng: random.Random
    ) -> tuple[DicemanState, list[Event]]:
        return diceman.apply(state, action, rng)

    def public_view(self, state: DicemanState) -> dict[str, Any]:
        return diceman.public_view(state)

    def private_view(self, state: DicemanState, seat: int) -> dict[str, Any]:
        return diceman.private_view(state, seat)

    def round_of(self, state: DicemanState) -> int:
        return state.round

    def is_finished(self, state: DicemanState) -> bool:
        return diceman.is_finished(state)

    def result(self, state: DicemanState) -> GameResult | None:
        return diceman.result(state)

    def waiting_for(self, state: DicemanState) -> list[int]:
        return diceman.to_act(state)

    def is_secret(self, state: DicemanState) -> bool:
        return True

    def lock_action(
        self, state: DicemanState, seat: int, choice: dict[str, Any] | None
    ) -> dict[str, Any]:
        if choice is None or not isinstance(choice.get("dice"), list):
            raise IllegalMove("Choose exactly two dice, then confirm.")
        return {"type": "choose", "player": seat, "dice": list(choice["dice"])}

    def ai_action(self, state: DicemanState, seat: int, rng: random.Random) -> dict[str, Any]:
        return {"type": "choose", "player": seat, "dice": choose_dice(state, seat, rng)}

    def reveal_events(self, events: Sequence[Event]) -> list[Event]:
        # The engine's "reveal" (choices, rolls, life) and then one "phase" event per phase.
        return [dict(event) for event in events if event.get("type") in ("reveal", "phase")]

    def picks_of(self, reveal: Sequence[Event]) -> list[Any]:
        summary = next(event for event in reveal if event["type"] == "reveal")
        return [list(choice) for choice in summary["choices"]]

    def vitals(self, view: dict[str, Any]) -> tuple[list[int], int]:
        return list(view["life"]), diceman.START_LIFE

    # -- texts ----------------------------------------------------------------------------

    def narrate(self, reveal: Sequence[Event], names: Sequence[str]) -> list[str]:
        summary = next(event for event in reveal if event["type"] == "reveal")
        phases = [event for event in reveal if event["type"] == "phase"]
        return narrate_diceman({**summary, "phases": phases}, names)

    def seat_label(self, view: dict[str, Any], seat: int) -> str:
        return ""

    def subtitle(self, view: dict[str, Any]) -> str:
        if view["phase"] == "finished":
            return ""
        return _("Round {round} of at most {max_rounds}.").format(
            round=number(view["round"]), max_rounds=number(view["max_rounds"])
        )

    def challenge_details(self, options: dict[str, Any]) -> str:
        return _(
            "{life} life each. Every round both players secretly pick two of **Magic d4**, "
            "**Priority d6**, **Sword d8** and **Shield d10** (controls arrive by DM), then "
            "the dice fight it out."
        ).format(life=number(diceman.START_LIFE))

    def choice_text(self, choice: Any) -> str:
        dice = choice.get("dice") if isinstance(choice, dict) else choice
        return dice_pair(diceman.normalize_dice(dice))

    # -- controls -------------------------------------------------------------------------

    def controls(
        self, session: Session, seat: int, state: DicemanState, draft: str, ui: UiState
    ) -> tuple[discord.Embed, discord.ui.View]:
        picked = draft_dice(draft)
        embed = discord.Embed(
            # Translators: the title of a player's private Diceman controls.
            title="🎲 "
            + _("Diceman — round {round}: your secret pick").format(round=number(state.round)),
            colour=discord.Colour(palette.EMBED_RUNNING),
        )
        lines = controls_intro(session, self, state, seat, ui)
        lines.append("")
        lines.append(_("Pick **exactly two** dice in the menu, then press **Confirm**."))
        lines.extend(
            f"{DICEMAN_EMOJI[name]} **{die_label(name)}**: {_(DICEMAN_HELP[name])}"
            for name in DICEMAN_DICE
        )
        if picked is not None:
            lines.append("")
            lines.append(
                _("Selected: {dice} (not locked in until you confirm)").format(
                    dice=dice_pair(picked)
                )
            )
        embed.description = "\n".join(lines)
        view = discord.ui.View(timeout=None)
        code = NO_DRAFT if picked is None else draft
        view.add_item(DicemanPick(session.id, state.round, code))
        view.add_item(DicemanConfirm(session.id, state.round, code))
        return embed, view

    def public_buttons(self, session_id: int, round_no: int, secret: bool) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        view.add_item(DicemanMoveButton(session_id, round_no))
        return view

    def choice_from_draft(self, draft: str) -> dict[str, Any]:
        picked = draft_dice(draft)
        if picked is None:
            raise UserError(_("Pick two dice in the menu first, then confirm."))
        return {"dice": picked}


# ---------------------------------------------------------------------------------------------
# Components
# ---------------------------------------------------------------------------------------------


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
        await open_controls(interaction, GAME, self.session_id, self.round_no)


def _pick_options(picked: Sequence[str] | None) -> list[discord.SelectOption]:
    return [
        discord.SelectOption(
            label=die_label(name),
            value=name,
            emoji=DICEMAN_EMOJI[name],
            description=clip(_(DICEMAN_HELP[name]), 100),
            default=picked is not None and name in picked,
        )
        for name in DICEMAN_DICE
    ]


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
        draft = draft_code(self.item.values)
        await update_draft(interaction, GAME, self.session_id, self.round_no, draft)


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
        await confirm_choice(interaction, GAME, self.session_id, self.round_no, self.draft)


COMPONENTS = (DicemanMoveButton, DicemanPick, DicemanConfirm)


# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------


@app_commands.guild_only()
class Diceman(
    commands.GroupCog,
    group_name="diceman",
    group_description="Diceman: pick two of four dice in secret, then duel.",
):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.rules = DicemanGame()
        self.handler = SecretDuelHandler(bot, self.rules)
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.sessions.register(self.handler)
        self.bot.register_components(*COMPONENTS)

    @app_commands.command(
        name="challenge",
        description="Challenge someone to a Diceman duel.",
        extras={"public": True},
    )
    @app_commands.describe(opponent="The player you want to duel", best_of=BEST_OF_HELP)
    async def challenge(
        self, interaction: discord.Interaction, opponent: discord.Member, best_of: BestOf = 1
    ) -> None:
        await start_challenge(self.bot, self.handler, interaction, opponent, {}, best_of)

    @app_commands.command(
        name="ai", description="Play Diceman against me.", extras={"public": True}
    )
    async def ai(self, interaction: discord.Interaction) -> None:
        await start_vs_ai(self.bot, self.handler, interaction, {})

    @app_commands.command(name="forfeit", description="Give up your Diceman game in this channel.")
    async def forfeit(self, interaction: discord.Interaction) -> None:
        await forfeit_game(self.bot, self.handler, interaction)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Diceman(bot))
