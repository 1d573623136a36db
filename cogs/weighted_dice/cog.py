"""Weighted Dice in Discord: a public betting table for 5 to 12 players.

Flow. ``/weighted new`` posts a lobby (Join / Leave / Start); the host starts it from five
players. The engine (``game_core.weighted_dice``) holds the d20 roll-off for the first
house; from then on one public table message shows seats, points, the house and the round.
The house presses **Set up round** and gets an ephemeral panel (two roller selects, two die
selects, Confirm); betting opens with **Bet on …** buttons (a modal for the amount) and
quick-amount buttons; the engine rolls and scores when everyone has bet or the window
closes, then passes the house. ``/weighted leave`` and ``/weighted end`` do what they say.

Durability. The cog keeps no game state in memory: the session row holds the lobby or the
table (``cogs.weighted_dice.state``), the house-setup and betting timers are durable deadlines,
and every control is a DynamicItem whose custom_id carries what it needs (the house's
half-made setup lives in its panel's custom_ids), so a restart at any point continues.

Public updates. A button or modal answer is an ephemeral reply or a deferred update; the
table itself is shown by the bot's publisher, which renders the newest stored state after
every commit. Joins and bets come in bursts: ``gather_after`` asks the publisher to wait a
moment first, so a burst lands in one edit, never one per bet.

Dice. ``WeightedDice.dice_source(ctx)`` returns the ``random.Random`` the engine rolls with;
it is the session's seeded ``ctx.rng``. Tests that must reproduce given rolls (RULES.md's
worked examples) replace this attribute on the loaded cog with a scripted source; the
production path has no other branch.

custom_ids (prefix ``wd:``, nothing else in the project starts with it):
``wd:<sid>:lobby:(join|leave|start)``, ``wd:<sid>:<round>:setup``,
``wd:<sid>:<round>:pick:(r0|d0|r1|d1):<draft>``, ``wd:<sid>:<round>:confirm:<draft>``,
``wd:<sid>:<round>:bet:<side>``, ``wd:<sid>:<round>:quick:<side>:(5|10|all)`` and the
modal ``wd:<sid>:<round>:betmodal:<side>``; ``<draft>`` is ``r0.d0.r1.d1`` with ``x`` for
a choice not made yet.

Results: a finished game records ``GameResult`` with the summary keys ``score_line``
(the top three, e.g. ``"Ann 152 · Bo 98 · Cy 60"``), ``scores`` (points per seat),
``rounds`` (rounds scored) and ``first_seat`` (the first house, from the roll-off).
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.app import DiceBot
from bot.i18n import N_, _, current, ngettext, number, pgettext
from bot.model.contract import (
    Deadline,
    MessageFields,
    NewSession,
    Outcome,
    PrivateControls,
    Seat,
    Session,
    ShowContext,
    Step,
    StepContext,
    cancel_reason,
    stopped_text,
)
from bot.model.errors import NotYourGame, UserError
from bot.model.series import follow_up_of
from bot.model.text import clip
from bot.pictures import worker as picture_worker
from bot.ui.answers import answer_for
from bot.ui.command_rules import MAX_OPTION_INTEGER
from bot.ui.rematch import play_on_view
from bot.ui.replies import Guarded
from cogs.weighted_dice.render import (
    Rendered,
    die,
    lobby_embed,
    player_name,
    seat_names,
    setup_panel_text,
    table_embed,
    table_picture,
)
from cogs.weighted_dice.state import (
    BETTING_WINDOW_BOUNDS,
    DRAFT_PATTERN,
    GAME,
    HOUSE_SETUP_BOUNDS,
    SHORT_GAME,
    Draft,
    LobbyState,
    TableOptions,
    TableState,
    legacy_options,
    load_state,
    parse_amount,
    with_notices,
)
from game_core import weighted_dice as wd
from game_core.analysis.weighted_lengths import OFFERED_TARGETS
from game_core.base import Event
from game_core.errors import IllegalMove

log = logging.getLogger(__name__)

SID = r"(?P<sid>[0-9]{1,19})"
ROUND = r"(?P<round>[0-9]{1,4})"
SIDE = r"(?P<side>[01])"
QUICK_AMOUNTS = ("5", "10", "all")
BET_MODAL_PATTERN = rf"wd:{SID}:{ROUND}:betmodal:{SIDE}"
AMOUNT_INPUT = "amount"
# Discord's limits for a modal title and for a label.
MODAL_TITLE_LIMIT = 45
LABEL_LIMIT = 45
LABEL_DESCRIPTION_LIMIT = 100
PLACEHOLDER_LIMIT = 100
SELECT_PLACEHOLDER_LIMIT = 150
OPTION_LIMIT = 100
BUTTON_LABEL_LIMIT = 80
BUTTON_NAME_LIMIT = 40

# How long the table waits after a bet or a join before it is re-rendered, so that a
# burst lands in one edit (see ``gather_after``).
COALESCE_DELAY_SECONDS = 0.3

DiceSource = Callable[[StepContext], random.Random]

# The points to win a host can choose: the short game (its target is set by the table size
# when the game starts) and the fixed targets the lab has lengths for.
POINTS_CHOICES = [
    app_commands.Choice(
        name="short game: about 10-12 rounds, points set by the table size", value=SHORT_GAME
    ),
    *(
        app_commands.Choice(
            name=f"{target} points" + (" (the card)" if target == wd.TARGET_POINTS else ""),
            value=target,
        )
        for target in OFFERED_TARGETS
    ),
]


# The command names' translations come from the command tree (tools.i18n reads them
# there), so they are looked up by these names rather than marked here a second time.
COMMAND_NAME = "command name"
GROUP_NAME = "weighted"
NEW_NAME = "new"


def new_command() -> str:
    """``/weighted new`` as the player's command picker names it."""
    group = pgettext(COMMAND_NAME, GROUP_NAME)
    command = pgettext(COMMAND_NAME, NEW_NAME)
    return f"`/{group} {command}`"


def _round_number(value: object) -> int | str:
    """A round number from an action (a stored value; shown as given if not a number)."""
    return value if isinstance(value, int) else str(value)


def session_dice(ctx: StepContext) -> random.Random:
    return ctx.rng


def refuse_second_bet(session: Session, engine: wd.WeightedDiceState, seat: int) -> None:
    """Bets are final: a second one is refused, naming the roller the first one backs."""
    placed = next((bet for bet in engine.bets if bet.player == seat), None)
    if placed is None:
        return
    roller = seat_names(session.seats)[engine.rollers[placed.roller]]
    raise IllegalMove(
        "You already bet {amount} on {roller}: bets are final.",
        {"amount": placed.amount, "roller": roller},
    )


# Why a game was stopped, as ``SessionService.cancel`` stores it (English, a stored value),
# and the line a stopped table shows for it.
STOP_NOTES = {
    "stopped by an admin": N_("🛑 This game was stopped by an admin; no result was recorded."),
    "ended because its channel was deleted": N_(
        "🛑 This game ended because its channel was deleted; no result was recorded."
    ),
    "ended because its message could not be posted here": N_(
        "🛑 This game ended because its message could not be posted here; no result was recorded."
    ),
}


def stop_note(events: list[Event]) -> str | None:
    """The line a stopped table shows: who stopped it, or why it ended."""
    # The stored (English) reason picks the sentence; ``cancel_reason`` gives it translated.
    stored = next(
        (
            str(event["reason"])
            for event in events
            if event.get("type") == "cancelled" and isinstance(event.get("reason"), str)
        ),
        None,
    )
    if stored is None:
        return None
    stopped_by = re.fullmatch(r"ended by ([0-9]{1,20})", stored)
    if stopped_by is not None:
        return _("🛑 Stopped by {user}; no result was recorded.").format(
            user=f"<@{stopped_by.group(1)}>"
        )
    if stored in STOP_NOTES:
        return _(STOP_NOTES[stored])
    # Translators: {reason} is why a game ended, e.g. "stopped by an admin".
    return _("🛑 This game was {reason}; no result was recorded.").format(
        reason=cancel_reason(events)
    )


def stopped_sentence(session: Session, events: list[Event]) -> str | None:
    """What the picture of a table stopped without a result says instead of what the
    round is doing (None for a table that is not stopped)."""
    if session.status != "cancelled":
        return None
    stored = next(
        (
            str(event["reason"])
            for event in events
            if event.get("type") == "cancelled" and isinstance(event.get("reason"), str)
        ),
        "",
    )
    ended_by = re.fullmatch(r"ended by ([0-9]{1,20})", stored)
    if ended_by is None:
        return stopped_text(cancel_reason(events))
    seat = session.seat_of(int(ended_by.group(1)))
    if seat is None:
        # Translators: a stopped table's picture, read aloud; only its host or someone
        # with Manage Server can end a game.
        return _("A server manager ended the game; no result counts.")
    # Translators: a stopped table's picture, read aloud; {player} is a name as written.
    return _("{player} ended the game; no result counts.").format(
        player=session.user_of(seat).display_name
    )


def _message_id(interaction: discord.Interaction) -> int | None:
    """The message a component (or the component that opened a modal) was on."""
    return None if interaction.message is None else interaction.message.id


def _interaction_data(interaction: discord.Interaction) -> dict[str, Any]:
    """The raw payload data as a plain dict (discord.py types it as a union of TypedDicts)."""
    return dict(interaction.data or {})  # type: ignore[arg-type]


def _bot(interaction: discord.Interaction) -> DiceBot:
    client = interaction.client
    assert isinstance(client, DiceBot)
    return client


def _cog(interaction: discord.Interaction) -> WeightedDice:
    cog = _bot(interaction).get_cog(WeightedDice.__cog_name__)
    assert isinstance(cog, WeightedDice)
    return cog


def _raw_name(session: Session, seat: int, limit: int = BUTTON_NAME_LIMIT) -> str:
    """A display name for places that show plain text (buttons, options, modal titles)."""
    name = session.user_of(seat).display_name.strip() or player_name(seat)
    return name if len(name) <= limit else name[: limit - 1] + "…"


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
        await _cog(interaction).press_lobby(interaction, self.session_id, self.choice)


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
        await _cog(interaction).press_setup(interaction, self.session_id, self.round)


class DraftSelect(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"wd:{SID}:{ROUND}:pick:(?P<field>r0|d0|r1|d1):{DRAFT_PATTERN}",
):
    """One of the house's four choices; its custom_id carries the other three."""

    def __init__(
        self,
        session_id: int,
        round_number: int,
        field: str,
        draft: Draft,
        *,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"wd:{session_id}:{round_number}:pick:{field}:{draft.encode()}",
                options=options or [],
                placeholder=placeholder,
                row=row,
            )
        )
        self.session_id = session_id
        self.round = round_number
        self.field = field
        self.draft = draft

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DraftSelect:
        return cls(
            int(match["sid"]),
            int(match["round"]),
            match["field"],
            Draft.from_groups(match.groupdict()),
        )

    async def handle(self, interaction: discord.Interaction) -> None:
        values = _interaction_data(interaction).get("values") or []
        choice = str(values[0]) if values else ""
        draft = self.draft.with_choice(self.field, choice)
        await _cog(interaction).show_setup_panel(
            interaction, self.session_id, self.round, draft, update=True
        )


class ConfirmSetupButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"wd:{SID}:{ROUND}:confirm:{DRAFT_PATTERN}",
):
    def __init__(
        self, session_id: int, round_number: int, draft: Draft, *, disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=_("Confirm"),
                style=discord.ButtonStyle.success,
                custom_id=f"wd:{session_id}:{round_number}:confirm:{draft.encode()}",
                disabled=disabled,
                row=4,
            )
        )
        self.session_id = session_id
        self.round = round_number
        self.draft = draft

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ConfirmSetupButton:
        return cls(int(match["sid"]), int(match["round"]), Draft.from_groups(match.groupdict()))

    async def handle(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).confirm_setup(interaction, self.session_id, self.round, self.draft)


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
        await _cog(interaction).open_bet_modal(interaction, self.session_id, self.round, self.side)


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
        await _cog(interaction).place_bet(
            interaction, self.session_id, self.round, self.side, self.amount
        )


class BetModal(discord.ui.Modal):
    """The amount form. Its submission is routed by custom_id (``bot.register_modal``), so a
    modal opened before a restart still lands; the library's own copy is dropped right after
    sending (see ``open_bet_modal``)."""

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


def invitation(lobby: LobbyState, session: Session) -> str | None:
    """A Play again lobby's line for the invited players who have not joined yet."""
    waiting = [user for user in lobby.invited if session.seat_of(user) is None]
    if not waiting:
        return None
    mentions = " ".join(f"<@{user}>" for user in waiting)
    return _("🔁 Play again: {mentions}, press **Join** to take your seat.").format(
        mentions=mentions
    )


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
        name = _raw_name(session, roller)
        label = clip(_("Bet on {name}").format(name=name), BUTTON_LABEL_LIMIT)
        view.add_item(BetButton(session.id, state.round, side, label))
    for side, roller in enumerate(state.rollers):
        # Whole Discord names (32 characters at most) fit every quick bet's label.
        name = _raw_name(session, roller)
        for amount in QUICK_AMOUNTS:
            if amount == "all":
                label = _("All in on {name}").format(name=name)
            else:
                # Translators: a quick bet's button, e.g. "10 on Ann".
                label = _("{amount} on {name}").format(amount=number(int(amount)), name=name)
            label = clip(label, BUTTON_LABEL_LIMIT)
            view.add_item(QuickBetButton(session.id, state.round, side, amount, label))
    return view


def setup_panel_view(
    session: Session, state: wd.WeightedDiceState, draft: Draft
) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    candidates = [
        seat for seat in range(state.n_players) if state.active[seat] and seat != state.house
    ]
    for index, (roller_field, die_field) in enumerate((("r0", "d0"), ("r1", "d1"))):
        chosen_roller = getattr(draft, roller_field)
        chosen_die = getattr(draft, die_field)
        roller_options = [
            discord.SelectOption(
                label=_raw_name(session, seat, 100),
                value=str(seat),
                # Translators: a roller choice's description in the house's panel.
                description=clip(
                    _("seat {seat} · {points} points").format(
                        seat=number(seat + 1), points=number(state.scores[seat])
                    ),
                    OPTION_LIMIT,
                ),
                default=seat == chosen_roller,
            )
            for seat in candidates
        ]
        die_options = [
            discord.SelectOption(label=die(sides), value=str(sides), default=sides == chosen_die)
            for sides in wd.DICE
        ]
        view.add_item(
            DraftSelect(
                session.id,
                state.round,
                roller_field,
                draft,
                options=roller_options,
                placeholder=clip(
                    _("Roller {number}").format(number=number(index + 1)),
                    SELECT_PLACEHOLDER_LIMIT,
                ),
                row=2 * index,
            )
        )
        view.add_item(
            DraftSelect(
                session.id,
                state.round,
                die_field,
                draft,
                options=die_options,
                placeholder=clip(
                    _("Die for roller {number}").format(number=number(index + 1)),
                    SELECT_PLACEHOLDER_LIMIT,
                ),
                row=2 * index + 1,
            )
        )
    ready = draft.complete and draft.r0 != draft.r1
    view.add_item(ConfirmSetupButton(session.id, state.round, draft, disabled=not ready))
    return view


# -- the cog --------------------------------------------------------------------------------------


@app_commands.guild_only()
class WeightedDice(
    commands.GroupCog,
    group_name="weighted",
    group_description="Weighted Dice: a betting table for 5 to 12 players.",
):
    game = GAME
    private_messages = False  # the house's panel is an ephemeral answer, not a tracked DM

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        # The rng the engine rolls with, per transaction (see the module docstring).
        self.dice_source: DiceSource = session_dice
        # Seconds a bet or a join waits before the table is re-rendered, so that a burst
        # lands in one edit (see ``gather_after``).
        self.coalesce_delay = COALESCE_DELAY_SECONDS
        # Table session id -> this round's "you are the house" ping, deleted when the next
        # round pings. Memory only: after a restart one old ping may stay behind.
        self._house_pings: dict[int, int] = {}
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.sessions.register(self)
        self.bot.register_components(
            LobbyButton,
            SetupButton,
            DraftSelect,
            ConfirmSetupButton,
            BetButton,
            QuickBetButton,
        )
        self.bot.register_modal(BET_MODAL_PATTERN, self.submit_bet_modal)

    # -- slash commands ----------------------------------------------------------------------

    @app_commands.command(
        name="new",
        description="Open a Weighted Dice table (5 to 12 players).",
        extras={"public": True},
    )
    @app_commands.describe(
        points="Points to win: the card's 150, or a short game of about 10-12 rounds.",
        betting_window=f"Seconds betting stays open each round ({BETTING_WINDOW_BOUNDS[0]}-"
        f"{BETTING_WINDOW_BOUNDS[1]}; default: this server's setting).",
        house_setup=f"Seconds the house has to set up a round ({HOUSE_SETUP_BOUNDS[0]}-"
        f"{HOUSE_SETUP_BOUNDS[1]}; default: this server's setting).",
    )
    @app_commands.choices(points=POINTS_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction,
        points: int | None = None,
        betting_window: app_commands.Range[int, BETTING_WINDOW_BOUNDS[0], BETTING_WINDOW_BOUNDS[1]]
        | None = None,
        house_setup: app_commands.Range[int, HOUSE_SETUP_BOUNDS[0], HOUSE_SETUP_BOUNDS[1]]
        | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        settings = await self.bot.sessions.guild_settings(interaction.guild_id)
        # Checked before anything is stored: a refused option opens no table.
        options = TableOptions.chosen(
            settings, points=points, betting_window=betting_window, house_setup=house_setup
        )
        expires_at = self.bot.clock.now() + settings.lobby_expiry_seconds
        host = Seat(seat=0, user_id=interaction.user.id, display_name=interaction.user.display_name)
        lobby = LobbyState(host=interaction.user.id, expires_at=expires_at, options=options)
        session = await self.bot.sessions.create(
            game=GAME,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            created_by=interaction.user.id,
            seats=[host],
            state=lobby.model_dump(mode="json"),
            status="pending",
            deadlines=[
                Deadline(kind="lobby_expiry", due_at=expires_at, action={"type": "lobby_expire"})
            ],
            events=[{"type": "lobby_opened", "host": interaction.user.id}],
        )
        # The lobby is public: it speaks the game's language, not the host's.
        with i18n.use(session.language):
            fields = self.table_fields(session)
        await self.bot.publisher.post_first(interaction, session, fields)

    @app_commands.command(name="leave", description="Leave your Weighted Dice table here.")
    async def leave(self, interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        session = await self.bot.sessions.open_session_for(
            interaction.user.id, interaction.channel_id, GAME, include_left=True
        )
        if session is None:
            raise UserError(_("You are not at a Weighted Dice table in this channel."))
        outcome = await self.bot.sessions.act(session.id, interaction.user.id, {"type": "leave"})
        if outcome.session.status == "cancelled":
            text = _("You left, and as the host your lobby closed with you.")
        elif isinstance(load_state(outcome.previous.state), LobbyState):
            text = _("You left the lobby.")
        else:
            seat = outcome.previous.seat_of(interaction.user.id)
            table = load_state(outcome.session.state)
            assert isinstance(table, TableState) and seat is not None
            points = table.engine.scores[seat]
            text = ngettext(
                "You left the table. Your {points} point stays in the standings; you no "
                "longer bet, roll or host.",
                "You left the table. Your {points} points stay in the standings; you no "
                "longer bet, roll or host.",
                points,
            ).format(points=number(points))
        await answer_for(interaction).send(text)

    @app_commands.command(
        name="end", description="Stop a Weighted Dice game (its host or a server manager)."
    )
    @app_commands.describe(
        table="The table number (shown under the table); needed only if several are open here."
    )
    async def end(
        self,
        interaction: discord.Interaction,
        # A table number is a session id a person types: Discord bounds the option at
        # 2**53 - 1, more than the ids will ever reach.
        table: app_commands.Range[int, 1, MAX_OPTION_INTEGER] | None = None,
    ) -> None:
        session = await self._table_to_end(interaction, table)
        host = load_state(session.state).host
        manager = interaction.permissions.manage_guild
        if interaction.user.id != host and not manager:
            raise NotYourGame(
                _(
                    "Only the host ({host}) or someone with **Manage Server** can end this game."
                ).format(host=f"<@{host}>")
            )
        outcome = await self.bot.sessions.cancel(
            session.id, interaction.user.id, f"ended by {interaction.user.id}"
        )
        await answer_for(interaction).send(
            _("Stopped table #{table}; no result was recorded.").format(table=outcome.session.id)
        )

    async def _table_to_end(self, interaction: discord.Interaction, table: int | None) -> Session:
        assert interaction.channel_id is not None
        if table is not None:
            session = await self.bot.sessions.get(table)
            if session is None or session.game != GAME or session.guild_id != interaction.guild_id:
                raise UserError(
                    _("There is no Weighted Dice table #{table} in this server.").format(
                        table=table
                    )
                )
            if not session.is_open:
                raise UserError(_("Table #{table} is already over.").format(table=table))
            return session
        own = await self.bot.sessions.open_session_for(
            interaction.user.id, interaction.channel_id, GAME, include_left=True
        )
        if own is not None:
            return own
        tables = await self.bot.sessions.open_in_channel(interaction.channel_id, game=GAME)
        if not tables:
            raise UserError(_("No Weighted Dice table is open in this channel."))
        if len(tables) > 1:
            listed = ", ".join(f"#{table_id}" for table_id in tables)
            raise UserError(
                _("Several tables are open here ({tables}): give the `{option}` number.").format(
                    tables=listed, option=pgettext("option name", "table")
                )
            )
        return await self.bot.sessions.require(tables[0])

    # -- the game handler (runs inside the session's transaction) ----------------------------

    def step(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        state = load_state(ctx.session.state)
        if isinstance(state, LobbyState):
            return self._lobby_step(ctx, state, action)
        return self._table_step(ctx, state, action)

    def _lobby_step(self, ctx: StepContext, lobby: LobbyState, action: dict[str, Any]) -> Step:
        kind = action.get("type")
        seats = list(ctx.session.seats)
        if kind == "lobby_expire":
            if ctx.actor_id is not None:
                raise IllegalMove("Only the timer can close a lobby.")
            closed = lobby.model_copy(update={"closed": "expired"})
            return Step(
                state=closed.model_dump(mode="json"),
                events=[{"type": "lobby_expired", "players": len(seats)}],
                status="cancelled",
                deadlines=[],
            )
        if ctx.actor_id is None:
            raise IllegalMove("That timer no longer applies.")
        if kind == "join":
            if ctx.seat is not None:
                raise UserError(_("You are already at this table."))
            if len(seats) >= wd.MAX_PLAYERS:
                raise UserError(
                    _("This table is full ({players} players).").format(
                        players=number(wd.MAX_PLAYERS)
                    )
                )
            # Stored, so never translated: a seat's name is what the player is called.
            name = str(action.get("name") or "").strip()[:100] or f"Player {len(seats) + 1}"
            seats.append(Seat(seat=len(seats), user_id=ctx.actor_id, display_name=name))
            return Step(
                state=lobby.model_dump(mode="json"),
                events=[{"type": "joined", "user": ctx.actor_id, "seat": len(seats) - 1}],
                status="pending",
                seats=seats,
            )
        if kind == "leave":
            if ctx.seat is None:
                raise NotYourGame(_("You are not in this lobby."))
            if ctx.actor_id == lobby.host:
                closed = lobby.model_copy(update={"closed": "host_left"})
                return Step(
                    state=closed.model_dump(mode="json"),
                    events=[{"type": "lobby_closed", "reason": "host_left"}],
                    status="cancelled",
                    deadlines=[],
                )
            # Seats stay in join order: everyone after the leaver moves up one.
            remaining = [seat for seat in seats if seat.user_id != ctx.actor_id]
            renumbered = [
                Seat(seat=index, user_id=seat.user_id, display_name=seat.display_name)
                for index, seat in enumerate(remaining)
            ]
            return Step(
                state=lobby.model_dump(mode="json"),
                events=[{"type": "left_lobby", "user": ctx.actor_id}],
                status="pending",
                seats=renumbered,
            )
        if kind == "start":
            if ctx.actor_id != lobby.host:
                raise NotYourGame(
                    _("Only the host ({host}) can start the game.").format(host=f"<@{lobby.host}>")
                )
            if len(seats) < wd.MIN_PLAYERS:
                if len(seats) == 1:
                    raise IllegalMove(
                        "Weighted Dice needs at least {needed} players: 1 has joined.",
                        {"needed": wd.MIN_PLAYERS},
                    )
                raise IllegalMove(
                    "Weighted Dice needs at least {needed} players: {joined} have joined.",
                    {"needed": wd.MIN_PLAYERS, "joined": len(seats)},
                )
            options = lobby.options or legacy_options(ctx.guild_settings)
            engine, events = wd.new_game(
                len(seats), self.dice_source(ctx), target=options.target_for(len(seats))
            )
            deadlines, due = self._timers(ctx, options, engine)
            table = TableState(
                host=lobby.host,
                engine=engine,
                roll_off=[event for event in events if event["type"] == "roll_off"],
                first_house=engine.house,
                deadline_at=due,
                options=options,
            )
            return Step(
                state=table.model_dump(mode="json"),
                events=events,
                status="active",
                deadlines=deadlines,
            )
        raise IllegalMove("The game has not started yet: wait for the host to press Start.")

    def follow_up(self, ctx: StepContext, action: dict[str, Any]) -> NewSession:
        """Play again: a new lobby hosted by whoever pressed, the other players of the
        finished table invited (each presses Join; anyone else may join too)."""
        previous = ctx.session
        if ctx.seat is None:
            raise NotYourGame(
                _(
                    "Only the players of this table can open the next one: open your own with "
                    "{command}."
                ).format(command=new_command())
            )
        if previous.status != "finished" or not isinstance(load_state(previous.state), TableState):
            raise UserError(
                _("This table ended without a result: open a new one with {command}.").format(
                    command=new_command()
                )
            )
        if action.get("type") != "lobby":
            raise IllegalMove("That is not something to do with a finished Weighted Dice table.")
        expires_at = ctx.now + ctx.guild_settings.lobby_expiry_seconds
        me = previous.user_of(ctx.seat)
        name = str(action.get("name") or "").strip()[:100] or me.display_name
        invited = [seat.user_id for seat in previous.seats if seat.user_id != me.user_id]
        table = load_state(previous.state)
        assert isinstance(table, TableState)
        # The table's options carry over (a table from before options had none: the
        # server's settings apply, as they did to it).
        lobby = LobbyState(
            host=me.user_id, expires_at=expires_at, options=table.options, invited=invited
        )
        return NewSession(
            seats=[Seat(seat=0, user_id=me.user_id, display_name=name)],
            state=lobby.model_dump(mode="json"),
            status="pending",
            deadlines=[
                Deadline(kind="lobby_expiry", due_at=expires_at, action={"type": "lobby_expire"})
            ],
            events=[{"type": "lobby_opened", "host": me.user_id, "again": previous.id}],
            ping=invited,
        )

    def rejoin_action(self, follow: Session, user_id: int) -> dict[str, Any] | None:
        """Play again pressed on a table whose new lobby is open: join it, if invited."""
        state = load_state(follow.state)
        if follow.status != "pending" or not isinstance(state, LobbyState):
            return None
        if user_id not in state.invited or follow.seat_of(user_id) is not None:
            return None
        return {"type": "join"}

    def _table_step(self, ctx: StepContext, table: TableState, action: dict[str, Any]) -> Step:
        engine = table.engine
        move = self._engine_action(ctx, engine, action)
        new, events = wd.apply(engine, move, self.dice_source(ctx))
        deadlines: list[Deadline] | None = None
        due = table.deadline_at
        if new.phase != engine.phase or new.round != engine.round:
            options = table.options or legacy_options(ctx.guild_settings)
            deadlines, due = self._timers(ctx, options, new)
        updated = table.model_copy(
            update={
                "engine": new,
                "deadline_at": due,
                "notices": with_notices(table.notices, events),
            }
        )
        step = Step(
            state=updated.model_dump(mode="json"),
            events=events,
            status="active",
            deadlines=deadlines,
        )
        if new.active != engine.active:
            step.seats = [
                replace(seat, has_left=not new.active[seat.seat]) for seat in ctx.session.seats
            ]
        outcome = wd.result(new)
        if outcome is not None:
            step.status = "finished"
            step.result = outcome
            step.summary = self._summary(ctx.session, new, table.first_house)
        return step

    def _engine_action(
        self, ctx: StepContext, engine: wd.WeightedDiceState, action: dict[str, Any]
    ) -> wd.AnyAction:
        kind = action.get("type")
        if kind in ("house_timeout", "close_betting"):
            if ctx.actor_id is not None:
                raise IllegalMove("Only the timer can do that.")
            if action.get("round") != engine.round:
                raise IllegalMove("That timer belongs to a round that is over.")
            return wd.HouseTimeout() if kind == "house_timeout" else wd.CloseBetting()
        if kind in ("join", "start", "lobby_expire"):
            raise IllegalMove("This game has already started.")
        seat = ctx.seat
        if seat is None:
            raise NotYourGame(_("You are not playing at this table."))
        if kind == "leave":
            return wd.Leave(player=seat)
        if kind == "setup":
            if action.get("round") != engine.round:
                raise IllegalMove(
                    "That setup was for round {old}, which is over: the table is on round {round}.",
                    {"old": _round_number(action.get("round")), "round": engine.round},
                )
            return wd.Setup(
                player=seat,
                rollers=[int(r) for r in action["rollers"]],
                dice=[int(d) for d in action["dice"]],
            )
        if kind == "bet":
            if action.get("round") != engine.round:
                raise IllegalMove(
                    "Betting for round {old} is closed: the table is on round {round} now.",
                    {"old": _round_number(action.get("round")), "round": engine.round},
                )
            refuse_second_bet(ctx.session, engine, seat)
            amount = parse_amount(str(action.get("amount", "")), engine.scores[seat])
            return wd.Bet(player=seat, roller=int(action["side"]), amount=amount)
        raise IllegalMove("That is not a Weighted Dice move.")

    @staticmethod
    def _timers(
        ctx: StepContext, options: TableOptions, state: wd.WeightedDiceState
    ) -> tuple[list[Deadline], float | None]:
        """The timer of the phase the table is in, from the table's own options."""
        if state.phase == "setup":
            due = ctx.now + options.house_setup_seconds
            action = {"type": "house_timeout", "round": state.round}
            return [Deadline(kind="house_setup", due_at=due, action=action)], due
        if state.phase == "betting":
            due = ctx.now + options.betting_window_seconds
            action = {"type": "close_betting", "round": state.round}
            return [Deadline(kind="betting_window", due_at=due, action=action)], due
        return [], None

    @staticmethod
    def _summary(session: Session, state: wd.WeightedDiceState, first_house: int) -> dict[str, Any]:
        outcome = wd.result(state)
        assert outcome is not None
        order = sorted(range(state.n_players), key=lambda seat: (outcome.ranks[seat], seat))
        top = " · ".join(
            f"{session.user_of(seat).display_name} {state.scores[seat]}" for seat in order[:3]
        )
        return {
            "score_line": top,
            "scores": list(state.scores),
            "rounds": state.rounds_played,
            "first_seat": first_house,
        }

    # -- what players see (shown by the publisher) -------------------------------------------

    async def render(self, session: Session, context: ShowContext) -> MessageFields:
        fields = self.table_fields(session, note=stop_note(context.events))
        state = load_state(session.state)
        if isinstance(state, TableState):
            # The table picture, drawn off the event loop. A plain attachment rather than
            # the embed's image: an embed shows at most 300 px of height, and a table of
            # more than eight seats is taller (up to 348 px for twelve); as an attachment
            # every size shows whole, above the embed, like every game's picture.
            # The picture thread does not see this task's language: it is passed along.
            picture = await picture_worker.draw(
                table_picture,
                state,
                session.seats,
                current(),
                stopped_sentence(session, context.events),
            )
            fields["attachments"] = [picture.file()]
        return fields

    def private_controls(self, session: Session, seat: int) -> PrivateControls | None:
        return None  # the house's panel is an ephemeral answer, not a tracked message

    def private_after(self, session: Session, seat: int, key: str) -> MessageFields:
        return {}

    def gather_after(self, outcome: Outcome) -> float:
        """Joins and bets come in bursts: wait a moment so one edit shows several. A bet
        that closed the window shows the rolls at once."""
        kinds = {event.get("type") for event in outcome.events}
        if "betting_closed" in kinds:
            return 0.0
        if kinds & {"joined", "bet"}:
            return self.coalesce_delay
        return 0.0

    async def notify(self, outcome: Outcome) -> None:
        await self.announce_house(outcome)

    async def announce_house(self, outcome: Outcome) -> None:
        """Ping the house when a round starts: the table edit that names them notifies
        nobody, and they have a minute to set up. The previous round's ping is deleted so
        a long game leaves one, not dozens."""
        started = next((e for e in outcome.events if e.get("type") == "round_started"), None)
        session = outcome.session
        over = session.status != "active"
        if started is None and not over:
            return
        previous = self._house_pings.pop(session.id, None)
        if previous is not None:
            await self.bot.delete_message_quietly(session.channel_id, previous)
        if over or started is None:
            return
        house = session.user_of(int(started["house"]))
        try:
            sent = await self.bot.ping_under_game(
                session,
                house.user_id,
                _(
                    "🎲 Round {round}: {house}, you are the house. Press **Set up round** on the "
                    "table to pick the rollers and their dice."
                ).format(round=number(int(started["round"])), house=f"<@{house.user_id}>"),
            )
        except discord.HTTPException as error:
            # The table names the house too; a lost ping is not worth failing the round.
            log.info("could not ping the house of table %s (HTTP %s)", session.id, error.status)
            return
        self._house_pings[session.id] = sent.id

    def table_fields(self, session: Session, note: str | None = None) -> dict[str, Any]:
        state = load_state(session.state)
        cancelled = session.status == "cancelled"
        rendered: Rendered
        view: discord.ui.View | None = None
        content: str | None
        if isinstance(state, LobbyState):
            rendered = lobby_embed(state, session.seats, session.id, cancelled=cancelled, note=note)
            content = rendered.content
            if session.status == "pending":
                view = lobby_view(session)
                content = invitation(state, session) or content
        else:
            rendered = table_embed(state, session.seats, session.id, cancelled=cancelled, note=note)
            content = rendered.content
            if session.status == "active":
                view = table_view(session, state.engine)
            elif session.status == "finished":
                if follow_up_of(session.state) is None:
                    view = play_on_view(session.id, "lobby")
                else:
                    content = f"{content}\n" + _("🔁 A new table is open, below.")
        return {
            "content": content,
            "embed": rendered.embed,
            "view": view,
            "allowed_mentions": discord.AllowedMentions.none(),
        }

    # -- component handlers ------------------------------------------------------------------

    async def press_lobby(
        self, interaction: discord.Interaction, session_id: int, choice: str
    ) -> None:
        action: dict[str, Any] = {"type": choice}
        if choice == "join":
            action["name"] = interaction.user.display_name
        async with self.bot.publisher.answering(session_id) as show:
            # One open game per player per channel is checked inside the transaction.
            outcome = await self.bot.sessions.act(
                session_id, interaction.user.id, action, on_message=_message_id(interaction)
            )
            await show(answer_for(interaction), outcome.session, outcome.events)

    async def _house_table(
        self, interaction: discord.Interaction, session_id: int, round_number: int
    ) -> tuple[Session, wd.WeightedDiceState]:
        """The session and engine state, if the user is the house setting up this round."""
        session = await self.bot.sessions.require(session_id)
        state = load_state(session.state)
        if not session.is_open or not isinstance(state, TableState):
            raise UserError(_("This table is no longer running."))
        engine = state.engine
        if engine.round != round_number or engine.phase != "setup":
            raise UserError(
                _(
                    "Round {round} is already set up or over: look at the table for the "
                    "current round."
                ).format(round=number(round_number))
            )
        seat = session.seat_of(interaction.user.id)
        if seat != engine.house:
            house = _raw_name(session, engine.house)
            raise NotYourGame(_("Only the house ({house}) sets up this round.").format(house=house))
        return session, engine

    async def press_setup(
        self, interaction: discord.Interaction, session_id: int, round_number: int
    ) -> None:
        await self.show_setup_panel(interaction, session_id, round_number, Draft(), update=False)

    async def show_setup_panel(
        self,
        interaction: discord.Interaction,
        session_id: int,
        round_number: int,
        draft: Draft,
        *,
        update: bool,
    ) -> None:
        session, engine = await self._house_table(interaction, session_id, round_number)
        for seat in draft.rollers:
            if seat >= engine.n_players or not engine.active[seat] or seat == engine.house:
                raise IllegalMove("That player cannot roll this round: pick another.")
        content = setup_panel_text(engine, seat_names(session.seats), draft)
        view = setup_panel_view(session, engine, draft)
        if update:
            await answer_for(interaction).update(content=content, view=view)
        else:
            await answer_for(interaction).send(content, view=view)
            # discord.py gives an ephemeral view a 15-minute timer and keeps it in memory;
            # these controls are DynamicItems registered for good, so nothing needs keeping.
            view.stop()

    async def confirm_setup(
        self, interaction: discord.Interaction, session_id: int, round_number: int, draft: Draft
    ) -> None:
        if not draft.complete:
            raise UserError(_("Pick both rollers and a die for each before confirming."))
        action = {
            "type": "setup",
            "round": round_number,
            "rollers": [draft.r0, draft.r1],
            "dice": [draft.d0, draft.d1],
        }
        outcome = await self.bot.sessions.act(session_id, interaction.user.id, action)
        session = outcome.session
        names = seat_names(session.seats)
        assert draft.r0 is not None and draft.r1 is not None
        assert draft.d0 is not None and draft.d1 is not None
        # The panel becomes the receipt; the table itself is shown by the publisher.
        await answer_for(interaction).update(
            content=_(
                "✅ Round {round} is set: **{first}** ({first_die}) vs **{second}** "
                "({second_die}). Betting is open on the table."
            ).format(
                round=number(round_number),
                first=names[draft.r0],
                first_die=die(draft.d0),
                second=names[draft.r1],
                second_die=die(draft.d1),
            ),
            view=None,
        )

    async def open_bet_modal(
        self, interaction: discord.Interaction, session_id: int, round_number: int, side: int
    ) -> None:
        session = await self.bot.sessions.require(session_id)
        state = load_state(session.state)
        if not session.is_open or not isinstance(state, TableState):
            raise UserError(_("This table is no longer running."))
        engine = state.engine
        if engine.round != round_number or engine.phase != "betting":
            raise IllegalMove("Betting for round {round} is closed.", {"round": round_number})
        seat = session.seat_of(interaction.user.id)
        if seat is None:
            raise NotYourGame(_("You are not playing at this table."))
        # Ask the engine (on a throwaway copy) whether this player may bet at all, so the
        # house, a roller or a second bet is refused before a modal is shown.
        refuse_second_bet(session, engine, seat)
        wd.apply(engine, wd.Bet(player=seat, roller=side, amount=1), random.Random(0))
        roller = engine.rollers[side]
        # Translators: the bet form's title, e.g. "Bet on Ann (d8)" (45 characters at most).
        title = _("Bet on {name} ({die})").format(
            name=_raw_name(session, roller, 28), die=die(engine.dice[side])
        )
        modal = BetModal(session_id, round_number, side, title, engine.scores[seat])
        await answer_for(interaction).modal(modal)
        # discord.py keeps a sent modal by custom_id until it is submitted; several players
        # share one custom_id and the bot routes submissions itself, so keep nothing.
        modal.stop()

    async def submit_bet_modal(
        self, interaction: discord.Interaction, match: re.Match[str]
    ) -> None:
        components = _interaction_data(interaction).get("components") or []
        amount = modal_value(list(components), AMOUNT_INPUT)
        await self.place_bet(
            interaction, int(match["sid"]), int(match["round"]), int(match["side"]), amount
        )

    async def place_bet(
        self,
        interaction: discord.Interaction,
        session_id: int,
        round_number: int,
        side: int,
        amount: str,
    ) -> None:
        action = {"type": "bet", "round": round_number, "side": side, "amount": amount}
        outcome = await self.bot.sessions.act(
            session_id, interaction.user.id, action, on_message=_message_id(interaction)
        )
        # The receipt is private; the table's live totals are shown by the publisher.
        await answer_for(interaction).send(self._bet_receipt(outcome))

    @staticmethod
    def _bet_receipt(outcome: Outcome) -> str:
        names = seat_names(outcome.session.seats)
        bet = next(event for event in outcome.events if event["type"] == "bet")
        totals = bet["totals"]
        previous = load_state(outcome.previous.state)
        assert isinstance(previous, TableState)
        rollers = previous.engine.rollers
        lines = [
            _("✅ You bet **{amount}** on **{roller}**. Bets are final.").format(
                amount=number(bet["amount"]), roller=names[bet["roller_seat"]]
            ),
            _("Totals now: {first} {first_total} · {second} {second_total}.").format(
                first=names[rollers[0]],
                first_total=number(totals[0]),
                second=names[rollers[1]],
                second_total=number(totals[1]),
            ),
        ]
        if any(event["type"] == "betting_closed" for event in outcome.events):
            lines.append(_("Everyone has bet, so the dice were rolled: see the table."))
        return "\n".join(lines)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(WeightedDice(bot))
