"""Dimension Duel as the shared secret-duel flow plays it (``DimensionDuelGame``): the engine
calls (``game_core.dimension_duel``, the AI's choice), the words of its messages, its picture
(``cogs.dimension_duel.picture``) and its private controls (``cogs.dimension_duel.controls``),
in tactical (secret choices by DM) or classic (the dice choose; each player presses Roll) mode.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import discord

from bot.i18n import N_, _, number
from bot.model.contract import Session
from bot.model.errors import UserError
from bot.pictures.picture import Picture
from cogs.dimension_duel.controls import GAME, controls_message, decode_draft, public_buttons
from cogs.dimension_duel.render import (
    charges_left,
    device_name,
    function_name,
    narrate_duel,
    region_name,
    role_name,
)
from cogs.secret_duel.game import SecretDuelGame
from cogs.secret_duel.state import UiState
from game_core import dimension_duel as dd
from game_core.base import Event, GameResult
from game_core.dimension_duel import DuelState
from game_core.errors import IllegalMove

REVEAL_TYPES = frozenset(
    {"reveal", "calibration", "focus", "functions", "dice_awarded", "faces_rolled", "damage", "hp"}
)


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
                "In tactical mode you choose your ray or shield, your region and your "
                "function: press **Make your move**."
            )
        return {
            "type": "choose",
            "player": seat,
            "device": choice.get("device"),
            "region": choice.get("region"),
            "function": choice.get("function"),
        }

    def ai_action(self, state: DuelState, seat: int, rng: random.Random) -> dict[str, Any]:
        # Imported by the first game against the AI: the AI loads numpy (about 10 MiB), which
        # the bot's process has no other need of.
        from game_core.ai.dimension_duel import choose_action

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
        # Drawn in the picture helper: the bot's process does not load Pillow unless it
        # draws itself (PICTURE_WORKER=thread).
        from cogs.dimension_duel import picture as duel_picture

        return duel_picture.render_duel(view, names, stopped)

    def seat_details(self, view: dict[str, Any], seat: int) -> list[str]:
        charges = view.get("charges")
        if not charges:
            return []
        left = charges_left(charges[seat])
        if not left:
            return [_("Functions left: only Bluff")]
        return [_("Functions left: {functions}").format(functions=left)]

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
                "Mode **tactical** (both players choose ray or shield, region and function in "
                "secret, in their DMs), **{hp} HP** each."
            ).format(hp=hp)
        tau = options.get("tau")
        first = (
            _("{player} is Tau and attacks first.").format(player=f"<@{tau}>")
            if isinstance(tau, int)
            else _("A coin flip decides who is Tau.")
        )
        return f"{rules} {first}"

    def choice_text(self, choice: Any) -> str | None:
        if not isinstance(choice, dict):
            return None
        device, region, function = (
            choice.get("device"),
            choice.get("region"),
            choice.get("function"),
        )
        # Names only ("Tau · Head · Bluff"): the particle of the player's ray or shield,
        # the region, the function.
        return " · ".join(
            (
                device_name(device) if device in dd.DEVICES else "?",
                region_name(region) if region in dd.REGIONS else "?",
                function_name(function) if function in dd.FUNCTIONS else "?",
            )
        )

    # -- controls (cogs.dimension_duel.controls) -------------------------------------------

    def controls(
        self, session: Session, seat: int, state: DuelState, draft: str, ui: UiState
    ) -> tuple[discord.Embed, discord.ui.View]:
        return controls_message(self, session, seat, state, draft, ui)

    def public_buttons(self, session_id: int, round_no: int, secret: bool) -> discord.ui.View:
        return public_buttons(session_id, round_no, secret)

    def choice_from_draft(self, draft: str) -> dict[str, Any]:
        device, region, function = decode_draft(draft)
        if device is None or region is None or function is None:
            raise UserError(
                _("Choose your ray or shield, your region and your function in the menus first.")
            )
        return {"device": device, "region": region, "function": function}
