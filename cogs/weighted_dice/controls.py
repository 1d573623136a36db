"""Weighted Dice controls: the lobby's buttons, the table's buttons (Set up round, the bet
buttons) and the bet form, the views that hold them, and what a press does.

Every control is a DynamicItem whose custom_id carries what it needs, so a press lands after
a restart. Its ``handle`` is one call to a ``press_*`` function, which reaches the runtime
through ``bot.ui.host.host_of`` (the sessions, the publisher), never through the cog. A
press's answer is ephemeral or a deferred update; the table itself is shown by the publisher.
**Set up round** opens the house's panel, whose selects and Confirm (and their presses) are
``cogs.weighted_dice.setup_panel``; ``COMPONENTS`` below registers them with the rest.

The bet form (``BetModal``) is not a DynamicItem: its submission is routed by custom_id
(``BET_MODAL_PATTERN``, registered by the cog with ``bot.register_modal``) to
``submit_bet_modal``, so a form opened before a restart still lands.

custom_ids (prefix ``wd:``, nothing else in the project starts with it):
``wd:<sid>:lobby:(join|leave|start)``, ``wd:<sid>:<round>:setup``,
``wd:<sid>:<round>:pick:(r0|d0|r1|d1):<draft>``, ``wd:<sid>:<round>:confirm:<draft>``,
``wd:<sid>:<round>:bet:<side>``, ``wd:<sid>:<round>:quick:<side>:(5|10|all)`` and the
modal ``wd:<sid>:<round>:betmodal:<side>``; ``<draft>`` is ``r0.d0.r1.d1`` with ``x`` for
a choice not made yet (the panel's, in ``setup_panel``).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import discord

from bot.i18n import N_, _, number
from bot.model.contract import Session
from bot.model.text import clip
from bot.ui.answers import answer_for
from bot.ui.host import host_of
from bot.ui.replies import Guarded
from cogs.weighted_dice.ids import ROUND, SID, SIDE, interaction_data
from cogs.weighted_dice.moves import bettor_seat
from cogs.weighted_dice.render import bet_receipt, raw_name
from cogs.weighted_dice.setup_panel import ConfirmSetupButton, DraftSelect, press_setup
from cogs.weighted_dice.story import die
from game_core import weighted_dice as wd

QUICK_AMOUNTS = ("5", "10", "all")
BET_MODAL_PATTERN = rf"wd:{SID}:{ROUND}:betmodal:{SIDE}"
AMOUNT_INPUT = "amount"
# Discord's limits for a modal title and for a label.
MODAL_TITLE_LIMIT = 45
LABEL_LIMIT = 45
LABEL_DESCRIPTION_LIMIT = 100
PLACEHOLDER_LIMIT = 100
BUTTON_LABEL_LIMIT = 80


def _message_id(interaction: discord.Interaction) -> int | None:
    """The message a component (or the component that opened a modal) was on."""
    return None if interaction.message is None else interaction.message.id


# -- components -------------------------------------------------------------------------------


class LobbyButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"wd:{SID}:lobby:(?P<choice>join|leave|start)",
):
    # Translators: the lobby's buttons (join the table, leave it, start the game).
    LABELS: ClassVar[dict[str, str]] = {
        "join": N_("Join"),
        "leave": N_("Leave"),
        "start": N_("Start"),
    }
    STYLES: ClassVar[dict[str, discord.ButtonStyle]] = {
        "join": discord.ButtonStyle.primary,
        "leave": discord.ButtonStyle.secondary,
        "start": discord.ButtonStyle.success,
    }

    def __init__(self, session_id: int, choice: str, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=_(self.LABELS[choice]),
                style=self.STYLES[choice],
                custom_id=f"wd:{session_id}:lobby:{choice}",
                disabled=disabled,
            )
        )
        self.session_id = session_id
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LobbyButton:
        return cls(int(match["sid"]), match["choice"])

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_lobby(interaction, self.session_id, self.choice)


class SetupButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"wd:{SID}:{ROUND}:setup",
):
    def __init__(self, session_id: int, round_number: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=_("Set up round"),
                emoji="🏠",
                style=discord.ButtonStyle.primary,
                custom_id=f"wd:{session_id}:{round_number}:setup",
            )
        )
        self.session_id = session_id
        self.round = round_number

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SetupButton:
        return cls(int(match["sid"]), int(match["round"]))

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_setup(interaction, self.session_id, self.round)


class BetButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"wd:{SID}:{ROUND}:bet:{SIDE}",
):
    def __init__(
        self, session_id: int, round_number: int, side: int, label: str | None = None
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or _("Bet"),
                style=discord.ButtonStyle.primary,
                custom_id=f"wd:{session_id}:{round_number}:bet:{side}",
                row=0,
            )
        )
        self.session_id = session_id
        self.round = round_number
        self.side = side

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> BetButton:
        return cls(int(match["sid"]), int(match["round"]), int(match["side"]))

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_bet_on(interaction, self.session_id, self.round, self.side)


class QuickBetButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"wd:{SID}:{ROUND}:quick:{SIDE}:(?P<amount>5|10|all)",
):
    def __init__(
        self,
        session_id: int,
        round_number: int,
        side: int,
        amount: str,
        label: str | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or _("Bet"),
                style=discord.ButtonStyle.secondary,
                custom_id=f"wd:{session_id}:{round_number}:quick:{side}:{amount}",
                row=1 + side,
            )
        )
        self.session_id = session_id
        self.round = round_number
        self.side = side
        self.amount = amount

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> QuickBetButton:
        return cls(int(match["sid"]), int(match["round"]), int(match["side"]), match["amount"])

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_bet_amount(interaction, self.session_id, self.round, self.side, self.amount)


# The controls the cog registers with the bot (``bot.register_components``): the table's
# and the house's panel's.
COMPONENTS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    LobbyButton,
    SetupButton,
    DraftSelect,
    ConfirmSetupButton,
    BetButton,
    QuickBetButton,
)


class BetModal(discord.ui.Modal):
    """The amount form. Its submission is routed by custom_id (``bot.register_modal``), so a
    modal opened before a restart still lands; the library's own copy is dropped right after
    sending (see ``press_bet_on``)."""

    def __init__(
        self, session_id: int, round_number: int, side: int, title: str, points: int
    ) -> None:
        super().__init__(
            title=clip(title, MODAL_TITLE_LIMIT),
            custom_id=f"wd:{session_id}:{round_number}:betmodal:{side}",
            timeout=None,
        )
        self.amount: discord.ui.TextInput[BetModal] = discord.ui.TextInput(
            custom_id=AMOUNT_INPUT,
            # Translators: the bet amount's placeholder, e.g. "1 to 42".
            placeholder=clip(_("1 to {points}").format(points=number(points)), PLACEHOLDER_LIMIT),
            max_length=12,
            required=True,
        )
        self.add_item(
            discord.ui.Label(
                # Translators: the bet form's one field.
                text=clip(_("Amount"), LABEL_LIMIT),
                # Translators: keep the word players type to bet everything (“all”) in
                # your language: the bot accepts all, todo, tout, tapis and max.
                description=clip(
                    _("A whole number from 1 to {points} (your points), or “all”.").format(
                        points=number(points)
                    ),
                    LABEL_DESCRIPTION_LIMIT,
                ),
                component=self.amount,
            )
        )


def modal_value(components: list[dict[str, Any]], custom_id: str) -> str:
    """The value of one text input in a modal submission (rows and labels both walked)."""
    for component in components:
        if component.get("custom_id") == custom_id and "value" in component:
            return str(component["value"])
        nested = list(component.get("components") or [])
        if "component" in component:
            nested.append(component["component"])
        if nested:
            found = modal_value(nested, custom_id)
            if found:
                return found
    return ""


# -- views --------------------------------------------------------------------------------------


def lobby_view(session: Session) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    players = len(session.seats)
    view.add_item(LobbyButton(session.id, "join", disabled=players >= wd.MAX_PLAYERS))
    view.add_item(LobbyButton(session.id, "leave"))
    view.add_item(LobbyButton(session.id, "start", disabled=players < wd.MIN_PLAYERS))
    return view


def table_view(session: Session, state: wd.WeightedDiceState) -> discord.ui.View | None:
    if state.phase == "setup":
        view = discord.ui.View(timeout=None)
        view.add_item(SetupButton(session.id, state.round))
        return view
    if state.phase != "betting":
        return None
    view = discord.ui.View(timeout=None)
    for side, roller in enumerate(state.rollers):
        name = raw_name(session, roller)
        label = clip(_("Bet on {name}").format(name=name), BUTTON_LABEL_LIMIT)
        view.add_item(BetButton(session.id, state.round, side, label))
    for side, roller in enumerate(state.rollers):
        # Whole Discord names (32 characters at most) fit every quick bet's label.
        name = raw_name(session, roller)
        for amount in QUICK_AMOUNTS:
            if amount == "all":
                label = _("All in on {name}").format(name=name)
            else:
                # Translators: a quick bet's button, e.g. "10 on Ann".
                label = _("{amount} on {name}").format(amount=number(int(amount)), name=name)
            label = clip(label, BUTTON_LABEL_LIMIT)
            view.add_item(QuickBetButton(session.id, state.round, side, amount, label))
    return view


# -- what a press does ------------------------------------------------------------------------


async def press_lobby(interaction: discord.Interaction, session_id: int, choice: str) -> None:
    host = host_of(interaction)
    action: dict[str, Any] = {"type": choice}
    if choice == "join":
        action["name"] = interaction.user.display_name
    async with host.publisher.answering(session_id) as show:
        # One open game per player per channel is checked inside the transaction.
        outcome = await host.sessions.act(
            session_id, interaction.user.id, action, on_message=_message_id(interaction)
        )
        await show(answer_for(interaction), outcome.session, outcome.events)


async def press_bet_on(
    interaction: discord.Interaction, session_id: int, round_number: int, side: int
) -> None:
    """Bet on …: the amount form, if this player may bet on that roller now."""
    session = await host_of(interaction).sessions.require(session_id)
    engine, seat = bettor_seat(session, interaction.user.id, round_number, side)
    roller = engine.rollers[side]
    # Translators: the bet form's title, e.g. "Bet on Ann (d8)" (45 characters at most).
    title = _("Bet on {name} ({die})").format(
        name=raw_name(session, roller, 28), die=die(engine.dice[side])
    )
    modal = BetModal(session_id, round_number, side, title, engine.scores[seat])
    await answer_for(interaction).modal(modal)
    # discord.py keeps a sent modal by custom_id until it is submitted; several players
    # share one custom_id and the bot routes submissions itself, so keep nothing.
    modal.stop()


async def submit_bet_modal(interaction: discord.Interaction, match: re.Match[str]) -> None:
    """The bet form sent (routed by the bot on ``BET_MODAL_PATTERN``): bet what it says."""
    components = interaction_data(interaction).get("components") or []
    amount = modal_value(list(components), AMOUNT_INPUT)
    await press_bet_amount(
        interaction, int(match["sid"]), int(match["round"]), int(match["side"]), amount
    )


async def press_bet_amount(
    interaction: discord.Interaction, session_id: int, round_number: int, side: int, amount: str
) -> None:
    """A bet of ``amount`` (as typed, or a quick bet's) on the roller at ``side``."""
    action = {"type": "bet", "round": round_number, "side": side, "amount": amount}
    outcome = await host_of(interaction).sessions.act(
        session_id, interaction.user.id, action, on_message=_message_id(interaction)
    )
    # The receipt is private; the table's live totals are shown by the publisher.
    await answer_for(interaction).send(bet_receipt(outcome))
