"""The presses behind both secret duels' components, and the lines their private controls
start with.

Each game's components (``cogs.diceman.controls``, ``cogs.dimension_duel.controls``) call
one of these with the ids their custom_id carries (and their game's key, which finds the
game's handler): **Make your move** (``press_move``), a select changed (``press_draft``),
**Confirm** (``press_confirm``) and classic mode's **Roll** (``press_roll``). A press
reaches the runtime through the game host (``bot.ui.host``): the session service, the
publisher, and the game's handler the session service holds.

Choices being made (a select's current value) live in the components' custom_ids of the
player's own DM or ephemeral message (the "draft"), so they survive a restart without being
stored anywhere else. Confirming sends the engine's ``Choose`` (or ``Roll``); error texts
never name a choice.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.i18n import _
from bot.model.contract import Session
from bot.model.errors import NotYourGame, UserError
from bot.model.text import escape
from bot.ui.answers import answer_for
from bot.ui.host import GameHost, host_of
from cogs.secret_duel.game import SecretDuelGame
from cogs.secret_duel.handler import SecretDuelHandler
from cogs.secret_duel.render import life_bar
from cogs.secret_duel.state import UiState, round_key
from game_core.errors import IllegalMove


def controls_intro(
    session: Session, rules: SecretDuelGame[Any], state: Any, seat: int, ui: UiState
) -> list[str]:
    """The lines every private control message starts with: both bars and the deadline."""
    view = rules.public_view(state)
    values, maximum = rules.vitals(view)
    opponent = escape(session.user_of(1 - seat).display_name)
    return [
        _("You: {bar}").format(bar=life_bar(values[seat], maximum)),
        f"{opponent}: {life_bar(values[1 - seat], maximum)}",
        _(
            "Lock in {deadline} or you forfeit. Your opponent only sees that you've locked "
            "in, never what."
        ).format(deadline=f"<t:{int(ui.deadline_at)}:R>"),
    ]


def handler_for(host: GameHost, game: str) -> SecretDuelHandler[Any]:
    """The handler of the secret duel ``game`` (registered by its cog)."""
    handler = host.sessions.handlers.get(game)
    assert isinstance(handler, SecretDuelHandler)
    return handler


async def _playing_state(
    host: GameHost,
    handler: SecretDuelHandler[Any],
    interaction: discord.Interaction,
    session_id: int,
    round_no: int | None,
) -> tuple[Session, Any, UiState, int]:
    """Load the game for a player's private control: their seat, the current round (or
    ``round_no`` exactly, for controls made for one round), not yet locked in. Raises the
    clear UserError / IllegalMove otherwise (changing nothing)."""
    session = await host.sessions.require(session_id)
    if not session.is_open:
        raise UserError(_("That game is already over."))
    seat = session.seat_of(interaction.user.id)
    if seat is None:
        raise NotYourGame()
    parsed = handler.parse(session)
    if parsed is None:
        raise IllegalMove("That game has not started yet.")
    state, ui = parsed
    if round_no is not None:
        handler.check_round(state, round_no, by_dm=session.reach == "member")
    if seat not in handler.rules.waiting_for(state):
        raise IllegalMove(handler.already_locked_text())
    return session, state, ui, seat


async def press_move(
    interaction: discord.Interaction, game: str, session_id: int, round_no: int
) -> None:
    """**Make your move**: the current round's controls as an ephemeral message, whichever
    round the button was drawn for (a game message that is behind is never a dead end,
    and is brought up to date). Pressing it again reopens them."""
    host = host_of(interaction)
    handler = handler_for(host, game)
    session, state, ui, seat = await _playing_state(host, handler, interaction, session_id, None)
    if round_no != handler.rules.round_of(state):
        host.publisher.request(session_id, force=True)
    embed, view = handler.rules.controls(session, seat, state, "", ui)
    await answer_for(interaction).send(embed=embed, view=view)
    # discord.py gives an ephemeral view a 15-minute timer; ours is all DynamicItems
    # (dispatched by custom_id, not by this object), so stop tracking it at once.
    view.stop()


async def press_draft(
    interaction: discord.Interaction, game: str, session_id: int, round_no: int, draft: str
) -> None:
    """A select changed: redraw the player's own controls with the new draft (no commit)."""
    host = host_of(interaction)
    handler = handler_for(host, game)
    session, state, ui, seat = await _playing_state(
        host, handler, interaction, session_id, round_no
    )
    embed, view = handler.rules.controls(session, seat, state, draft, ui)
    await answer_for(interaction).update(embed=embed, view=view)


async def press_confirm(
    interaction: discord.Interaction, game: str, session_id: int, round_no: int, draft: str
) -> None:
    """Confirm: lock the drafted choice in (final); the controls turn into what the
    player's private message shows from now on (their choice, or the reveal)."""
    host = host_of(interaction)
    handler = handler_for(host, game)
    choice = handler.rules.choice_from_draft(draft)
    user_id = interaction.user.id
    # While the answer is under way the publisher leaves this player's private messages
    # alone: it then finds this one showing what it became, and does not edit it again.
    # The move's step checks what a read first would (the game, the seat, the round, not
    # locked in yet), with the same answers, so the press reads the game only once.
    async with host.publisher.answering_privately(session_id, user_id):
        outcome = await host.sessions.act(
            session_id, user_id, {"type": "lock", "round": round_no, "choice": choice}
        )
        seat = outcome.session.seat_of(user_id)
        assert seat is not None  # the step refuses anyone without a seat
        key = round_key(round_no)
        fields = handler.private_after(outcome.session, seat, key)
        if await answer_for(interaction).update(**fields) and interaction.message is not None:
            await host.publisher.record_private_shown(
                outcome.session, seat, key, fields, interaction.message.id
            )


async def press_roll(interaction: discord.Interaction, session_id: int, round_no: int) -> None:
    """Classic mode's public **Roll** button: lock in; the engine rolls every choice."""
    host = host_of(interaction)
    async with host.publisher.answering(session_id) as show:
        outcome = await host.sessions.act(
            session_id,
            interaction.user.id,
            {"type": "lock", "round": round_no, "choice": None},
            on_message=None if interaction.message is None else interaction.message.id,
        )
        await show(answer_for(interaction), outcome.session, outcome.events)
