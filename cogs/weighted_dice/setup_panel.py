"""Weighted Dice house's setup panel: the ephemeral panel the house picks the round's two
rollers and their dice on, and what its presses do.

**Set up round** (``controls.SetupButton``, on the public table) calls ``press_setup``,
which answers with this panel: two roller selects, two die selects (``DraftSelect``) and
Confirm (``ConfirmSetupButton``). The house's half-made setup lives in the panel's own
custom_ids (``<draft>`` is ``r0.d0.r1.d1`` with ``x`` for a choice not made yet), so a pick
or a confirm lands after a restart; each pick answers with the panel again, that choice
made. Confirm sends the setup as one move and turns the panel into its receipt; the table
itself is shown by the publisher. Like every control of the package, a component's
``handle`` is one call to a ``press_*`` function below, which reaches the runtime through
``bot.ui.host.host_of``.

custom_ids: ``wd:<sid>:<round>:pick:(r0|d0|r1|d1):<draft>`` and
``wd:<sid>:<round>:confirm:<draft>``; ``controls.COMPONENTS`` registers these components
with the table's.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.i18n import _, number
from bot.model.contract import Session
from bot.model.errors import UserError
from bot.model.text import clip
from bot.ui.answers import answer_for
from bot.ui.host import host_of
from bot.ui.replies import Guarded
from cogs.weighted_dice.ids import ROUND, SID, interaction_data
from cogs.weighted_dice.moves import house_engine
from cogs.weighted_dice.render import raw_name, seat_names, setup_panel_text, setup_receipt
from cogs.weighted_dice.state import DRAFT_PATTERN, Draft
from cogs.weighted_dice.story import die
from game_core import weighted_dice as wd

# Discord's limits for a select's placeholder and for an option's description.
SELECT_PLACEHOLDER_LIMIT = 150
OPTION_LIMIT = 100


# -- components -------------------------------------------------------------------------------


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
        await press_pick(interaction, self.session_id, self.round, self.field, self.draft)


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
        await press_confirm(interaction, self.session_id, self.round, self.draft)


# -- the panel ----------------------------------------------------------------------------------


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
                label=raw_name(session, seat, 100),
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


# -- what a press does ------------------------------------------------------------------------


async def press_setup(interaction: discord.Interaction, session_id: int, round_number: int) -> None:
    """Set up round: the house's panel, as a new ephemeral answer."""
    await _show_setup_panel(interaction, session_id, round_number, Draft(), update=False)


async def press_pick(
    interaction: discord.Interaction, session_id: int, round_number: int, field: str, draft: Draft
) -> None:
    """One of the panel's selects: the panel again, with that choice made."""
    values = interaction_data(interaction).get("values") or []
    choice = str(values[0]) if values else ""
    await _show_setup_panel(
        interaction, session_id, round_number, draft.with_choice(field, choice), update=True
    )


async def _show_setup_panel(
    interaction: discord.Interaction,
    session_id: int,
    round_number: int,
    draft: Draft,
    *,
    update: bool,
) -> None:
    session = await host_of(interaction).sessions.require(session_id)
    engine = house_engine(session, interaction.user.id, round_number, draft)
    content = setup_panel_text(engine, seat_names(session.seats), draft)
    view = setup_panel_view(session, engine, draft)
    if update:
        await answer_for(interaction).update(content=content, view=view)
    else:
        await answer_for(interaction).send(content, view=view)
        # discord.py gives an ephemeral view a 15-minute timer and keeps it in memory;
        # these controls are DynamicItems registered for good, so nothing needs keeping.
        view.stop()


async def press_confirm(
    interaction: discord.Interaction, session_id: int, round_number: int, draft: Draft
) -> None:
    if not draft.complete:
        raise UserError(_("Pick both rollers and a die for each before confirming."))
    action = {
        "type": "setup",
        "round": round_number,
        "rollers": [draft.r0, draft.r1],
        "dice": [draft.d0, draft.d1],
    }
    outcome = await host_of(interaction).sessions.act(session_id, interaction.user.id, action)
    # The panel becomes the receipt; the table itself is shown by the publisher.
    await answer_for(interaction).update(
        content=setup_receipt(outcome.session.seats, round_number, draft), view=None
    )
