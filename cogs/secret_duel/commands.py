"""The slash commands both secret duels share: ``challenge`` (a challenge, or a match's
first game), ``ai`` (a game against the bot, begun at once) and ``forfeit``. Each game's
cog calls them with its handler; they reach the runtime through the game host
(``bot.ui.host``).
"""

from __future__ import annotations

import contextlib
from typing import Any

import discord

from bot.i18n import _
from bot.model.command_mentions import command_mention
from bot.model.contract import FRIENDS_LADDER, Deadline, Seat, ShowContext
from bot.model.errors import UserError
from bot.model.series import new_match, with_series
from bot.ui.answers import answer_for
from bot.ui.challenges import act_on_challenge, challenge_deadlines, challenge_state, is_challenge
from bot.ui.delivery import check_public_answers, reach_of
from bot.ui.host import host_of
from cogs.secret_duel.handler import SecretDuelHandler
from cogs.secret_duel.moves import BEGIN_DELAY_SECONDS
from cogs.secret_duel.state import SETUP_KEY
from game_core.errors import IllegalMove


async def start_challenge(
    interaction: discord.Interaction,
    handler: SecretDuelHandler[Any],
    opponent: discord.User | discord.Member,
    options: dict[str, Any],
    best_of: int = 1,
) -> None:
    """``/<game> challenge``: post the challenge to ``opponent`` (the first game of a match
    when ``best_of`` > 1)."""
    host = host_of(interaction)
    rules = handler.rules
    if interaction.channel_id is None:
        raise UserError(_("Duels are played in a server channel."))
    check_public_answers(interaction)
    reach = reach_of(interaction)
    guild_id = (interaction.guild_id if reach == "member" else None) or FRIENDS_LADDER
    if opponent.id == interaction.user.id:
        raise UserError(
            _("You can't challenge yourself. Pick another player, or play me with {ai}.").format(
                ai=command_mention(rules.command, "ai")
            )
        )
    if opponent.bot:
        if host.user is not None and opponent.id == host.user.id:
            raise UserError(
                _("To play against me, use {ai}.").format(ai=command_mention(rules.command, "ai"))
            )
        raise UserError(_("Bots can't play: challenge a person."))
    handler.moves.check_options(options)
    settings = await host.sessions.guild_settings(guild_id)
    expires_at = host.sessions.clock.now() + settings.challenge_expiry_seconds
    challenger = Seat(
        seat=0, user_id=interaction.user.id, display_name=interaction.user.display_name
    )
    challenged = Seat(seat=1, user_id=opponent.id, display_name=opponent.display_name)
    session = await host.sessions.create(
        game=rules.game,
        guild_id=guild_id,
        channel_id=interaction.channel_id,
        created_by=interaction.user.id,
        seats=[challenger, challenged],
        state=with_series(
            challenge_state(challenger, challenged, options, expires_at),
            new_match(challenger.user_id, challenged.user_id, best_of),
        ),
        status="pending",
        deadlines=challenge_deadlines(expires_at),
        reach=reach,
    )
    fields = await handler.render(session, ShowContext())
    fields["allowed_mentions"] = discord.AllowedMentions(users=[discord.Object(opponent.id)])
    await host.publisher.post_first(interaction, session, fields)


async def start_vs_ai(
    interaction: discord.Interaction, handler: SecretDuelHandler[Any], options: dict[str, Any]
) -> None:
    """``/<game> ai``: a game against the bot, begun at once."""
    host = host_of(interaction)
    if interaction.channel_id is None or host.user is None:
        raise UserError(_("Duels are played in a server channel."))
    check_public_answers(interaction)
    reach = reach_of(interaction)
    handler.moves.check_options(options)
    human = Seat(seat=0, user_id=interaction.user.id, display_name=interaction.user.display_name)
    machine = Seat(seat=1, user_id=host.user.id, display_name=host.user.display_name, is_ai=True)
    now = host.sessions.clock.now()
    session = await host.sessions.create(
        game=handler.game,
        guild_id=(interaction.guild_id if reach == "member" else None) or FRIENDS_LADDER,
        channel_id=interaction.channel_id,
        created_by=interaction.user.id,
        seats=[human, machine],
        state={SETUP_KEY: options},
        status="active",
        # A durable safety net: if we stop right here, the game still begins on restart.
        deadlines=[
            Deadline(kind="begin", due_at=now + BEGIN_DELAY_SECONDS, action={"type": "begin"})
        ],
        reach=reach,
    )
    with contextlib.suppress(IllegalMove):  # the safety timer may have begun it first
        await host.sessions.act(session.id, None, {"type": "begin"})
    started = await host.sessions.require(session.id)
    fields = await handler.render(started, ShowContext())
    await host.publisher.post_first(interaction, started, fields)


async def forfeit_game(interaction: discord.Interaction, handler: SecretDuelHandler[Any]) -> None:
    """``/<game> forfeit``: give up the player's game in this channel, or call off their
    challenge."""
    host = host_of(interaction)
    if interaction.channel_id is None:
        raise UserError(_("Duels are played in a server channel."))
    session = await host.sessions.open_session_for(
        interaction.user.id, interaction.channel_id, handler.game
    )
    game = handler.rules.shown_title()
    if session is None:
        raise UserError(_("You have no {game} game open in this channel.").format(game=game))
    if is_challenge(session.state):
        await act_on_challenge(host, session, interaction.user.id, "decline", handler.rules.command)
        await answer_for(interaction).send(_("Done: the challenge is off."))
    else:
        await host.sessions.act(session.id, interaction.user.id, {"type": "forfeit"})
        await answer_for(interaction).send(_("You forfeited the {game} game.").format(game=game))
