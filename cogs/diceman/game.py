"""Diceman as the shared secret-duel flow plays it (``DicemanGame``): the engine calls
(``game_core.diceman``, the AI's pick), the words of its messages and its private controls
(``cogs.diceman.controls``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import discord

from bot.i18n import N_, _, number
from bot.model.contract import Session
from bot.model.errors import UserError
from cogs.diceman.controls import GAME, controls_message, draft_dice, public_buttons
from cogs.diceman.render import dice_pair, narrate_diceman
from cogs.secret_duel.game import SecretDuelGame
from cogs.secret_duel.state import UiState
from game_core import diceman
from game_core.base import Event, GameResult
from game_core.diceman import DicemanState
from game_core.errors import IllegalMove


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
        # Imported by the first game against the AI: the AI loads numpy (about 10 MiB), which
        # the bot's process has no other need of.
        from game_core.ai.diceman import choose_dice

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
            "**Priority d6**, **Sword d8** and **Shield d10** (in their DMs), then "
            "the dice fight it out."
        ).format(life=number(diceman.START_LIFE))

    def choice_text(self, choice: Any) -> str:
        dice = choice.get("dice") if isinstance(choice, dict) else choice
        return dice_pair(diceman.normalize_dice(dice))

    # -- controls (cogs.diceman.controls) ---------------------------------------------------

    def controls(
        self, session: Session, seat: int, state: DicemanState, draft: str, ui: UiState
    ) -> tuple[discord.Embed, discord.ui.View]:
        return controls_message(self, session, seat, state, draft, ui)

    def public_buttons(self, session_id: int, round_no: int, secret: bool) -> discord.ui.View:
        return public_buttons(session_id, round_no)

    def choice_from_draft(self, draft: str) -> dict[str, Any]:
        picked = draft_dice(draft)
        if picked is None:
            raise UserError(_("Pick two dice in the menu first, then confirm."))
        return {"dice": picked}
