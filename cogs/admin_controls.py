"""``/dicebot``'s guard and its buttons: ``require_manage_guild``, which every admin action
runs, and the ``season new`` confirmation (``SeasonConfirmButton`` and its view).

The request (its games, the seasons it would close, the new season's name, who asked and
when) is kept by ``bot.ladder.season_requests``; the confirmation buttons are DynamicItems
(prefix ``adm:``) that carry only its id: ``adm:season:<request id>:<yes|no>``. They expire
after ``CONFIRM_SECONDS``, only the admin who asked may press them, and a request is
answered once. **Keep it** deletes the pending request; **Close the season** marks it
closed in the transaction that closes the seasons, which refuses if any of those seasons
was closed meanwhile. Each takes the request only while it is still pending, so a press
that loses the race to the other button, or comes after it, finds what the first one did
and says so: a closed request stays readable until it expires with the others.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.app import DiceBot
from bot.i18n import N_, _
from bot.ladder.season_requests import (
    CONFIRM_SECONDS,
    SeasonClosedMeanwhile,
    close,
    closed_by_request,
    find_request,
    forget,
    keep,
)
from bot.model.catalog import game_title
from bot.model.errors import NotYourGame, UserError
from bot.ui.answers import answer_for
from bot.ui.replies import Guarded
from cogs.admin_render import closed_text
from cogs.texts import command_text

ALREADY_ANSWERED = N_("This confirmation was already answered: nothing more was changed.")


def require_manage_guild(interaction: discord.Interaction, refusal: str) -> None:
    """Refuse (with ``refusal``, a text marked with ``N_``) unless the member may manage
    the server."""
    if interaction.guild_id is None or not interaction.permissions.manage_guild:
        raise UserError(_(refusal))


class SeasonConfirmButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"adm:season:(?P<request>[0-9]{1,19}):(?P<choice>yes|no)",
):
    def __init__(self, request_id: int, choice: str) -> None:
        self.request_id, self.choice = request_id, choice
        super().__init__(
            discord.ui.Button(
                label=_("Close the season") if choice == "yes" else _("Keep it"),
                style=discord.ButtonStyle.danger
                if choice == "yes"
                else discord.ButtonStyle.secondary,
                custom_id=f"adm:season:{request_id}:{choice}",
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SeasonConfirmButton:
        return cls(int(match["request"]), match["choice"])

    async def handle(self, interaction: discord.Interaction) -> None:
        await press_season_confirm(interaction, self.request_id, self.choice)


def season_confirm_view(request_id: int) -> discord.ui.View:
    """The confirmation's two buttons: **Close the season** and **Keep it**."""
    view = discord.ui.View(timeout=None)
    view.add_item(SeasonConfirmButton(request_id, "yes"))
    view.add_item(SeasonConfirmButton(request_id, "no"))
    return view


async def press_season_confirm(
    interaction: discord.Interaction, request_id: int, choice: str
) -> None:
    """**Close the season** (``yes``) or **Keep it** (``no``) pressed on request
    ``request_id``."""
    # The season requests live in the database, which only the bot itself (not the game
    # host the games' buttons see) hands out.
    bot = interaction.client
    assert isinstance(bot, DiceBot)
    if interaction.guild_id is None:
        raise UserError(_("This confirmation belongs to a server."))
    request = await find_request(bot.db, request_id, interaction.guild_id)
    if request is None:
        await answer_for(interaction).update(content=_(ALREADY_ANSWERED), view=None)
        return
    if interaction.user.id != request.admin_id:
        raise NotYourGame(_("Only the admin who asked to close the season can answer this."))
    if request.closed:
        await _answer_late(interaction, bot, request_id, choice)
        return
    if choice == "no":
        # Only while the request is still pending: a Close the season that took it
        # first (its transaction committed while this press was on its way) leaves
        # nothing here to delete, and this press must say what that one did.
        if not await keep(bot.db, request):
            await _answer_late(interaction, bot, request_id, choice)
            return
        await answer_for(interaction).update(
            content=_("Nothing was changed: the seasons go on."), view=None
        )
        return
    require_manage_guild(
        interaction,
        N_("Only members with the **Manage Server** permission can close a season."),
    )
    now = bot.clock.now()
    if now - request.issued_at > CONFIRM_SECONDS:
        await forget(bot.db, request_id)
        await answer_for(interaction).update(
            content=_(
                "This confirmation expired, so nothing was changed. Run {command} again if "
                "you still want a new season."
            ).format(command=command_text("dicebot", "season", "new")),
            view=None,
        )
        return
    settings = await bot.sessions.guild_settings(interaction.guild_id)
    try:
        closed = await close(
            bot.db,
            request,
            closed_by=interaction.user.id,
            provisional_games=settings.provisional_games,
            now=now,
        )
    except SeasonClosedMeanwhile as error:
        raise UserError(
            _(
                "{game}: season {closed} was closed meanwhile (season {running} "
                "is running now), so nothing was changed."
            ).format(game=game_title(error.game), closed=error.expected, running=error.running)
        ) from None
    if not closed:
        await _answer_late(interaction, bot, request_id, choice)
        return
    await answer_for(interaction).update(content=closed_text(closed), view=None)


async def _answer_late(
    interaction: discord.Interaction, bot: DiceBot, request_id: int, choice: str
) -> None:
    """Answer a press on a request the other button (or an earlier press) answered
    first, with what that answer did: the message then shows the truth whichever of
    the two answers lands last."""
    assert interaction.guild_id is not None
    request = await find_request(bot.db, request_id, interaction.guild_id)
    if request is None or not request.closed:
        # Kept, or expired: nothing was closed.
        await answer_for(interaction).update(content=_(ALREADY_ANSWERED), view=None)
        return
    closed = await closed_by_request(bot.db, request)
    if choice == "no":
        note = _("⚠️ Too late to keep it: **Close the season** was pressed first.")
    else:
        note = _(ALREADY_ANSWERED)
    await answer_for(interaction).update(content=f"{closed_text(closed)}\n{note}", view=None)
