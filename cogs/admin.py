"""``/dicebot``: the bot's own commands — checking the set-up, and server administration.

``check`` and ``season list`` are for everyone. ``settings``, ``cancel`` and ``season new``
need **Manage Server**: they carry ``default_permissions(manage_guild=True)`` as the
intent, but Discord only honours default permissions on a top-level command (and
``/dicebot check`` must stay visible to all), so the real guard is the run-time check on
``interaction.permissions`` (``admin_controls.require_manage_guild``), which every admin
action makes again.

``season new`` closes the season of one game or of all four and starts the next (see
``bot.ladder.seasons``), after a confirmation whose buttons are ``admin_controls``'. What
the commands say is ``admin_render``'s.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from pydantic import ValidationError

from bot.app import DiceBot
from bot.i18n import LANGUAGES, N_, _, list_of, ngettext, number
from bot.ladder.season_requests import CONFIRM_SECONDS, request_season, season_players
from bot.ladder.seasons import NAME_LIMIT as SEASON_NAME_LIMIT
from bot.ladder.seasons import clean_name, closed_seasons, current_season
from bot.ladder.standings import leaderboard_page
from bot.model.catalog import GAME_TITLES, GAMES, game_title
from bot.model.contract import STOPPED_BY_ADMIN
from bot.model.errors import GameOver, UserError
from bot.model.text import escape
from bot.play.guild_settings import change_guild_settings
from bot.ui.answers import answer_for
from bot.ui.replies import DMS_CLOSED_HELP
from cogs.admin_controls import SeasonConfirmButton, require_manage_guild, season_confirm_view
from cogs.admin_render import (
    FIELD_LABELS,
    HOSTS_EVERYONE,
    HOSTS_FIELD,
    HOSTS_MANAGERS,
    LANGUAGE_FIELD,
    SETTING_OPTIONS,
    GameSeasons,
    confirmation_text,
    hosts_text,
    language_text,
    permission_check_line,
    seasons_embed,
    setting_value_text,
    settings_embed,
    settings_error_text,
    tournament_threads_line,
)
from cogs.texts import GAME_CHOICES, command_text

# Stored with the cancelled game's events; each game's message tells it in a sentence of its own.
CANCEL_REASON = STOPPED_BY_ADMIN
FOLLOW_SERVER = "server"
# Each language by its own name, as its speakers look for it in a list.
LANGUAGE_CHOICES = [
    app_commands.Choice(name="The server's own language", value=FOLLOW_SERVER),
    *(
        app_commands.Choice(name=language.native_name, value=code)
        for code, language in LANGUAGES.items()
    ),
]


THREAD_TYPES = frozenset(
    {
        discord.ChannelType.public_thread,
        discord.ChannelType.private_thread,
        discord.ChannelType.news_thread,
    }
)


class ChannelHere(app_commands.Transformer):
    """A channel option naming a text channel or thread of this server, as its id. Discord
    offers this server's channels, but a modified client can send any channel's id: one
    the bot knows in another server is refused with a clear answer rather than left to
    discord.py's conversion, which fails on it. Anything else goes on: what the command
    then looks up is limited to this server anyway."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.channel

    @property
    def channel_types(self) -> list[discord.ChannelType]:
        # What ``discord.TextChannel | discord.Thread`` offers, in the same order.
        return [
            discord.ChannelType.text,
            discord.ChannelType.news,
            discord.ChannelType.news_thread,
            discord.ChannelType.private_thread,
            discord.ChannelType.public_thread,
        ]

    async def transform(self, interaction: discord.Interaction, value: Any, /) -> int:
        channel_id = int(value.id)
        known = interaction.client.get_channel(channel_id)
        guild = getattr(known, "guild", None)
        if known is not None and (guild is None or guild.id != interaction.guild_id):
            raise UserError(
                _(
                    "That channel is in another server: {command} stops games in this server "
                    "only. Nothing was stopped."
                ).format(command=command_text("dicebot", "cancel"))
            )
        return channel_id


async def seasons_of(bot: DiceBot, guild_id: int, games: tuple[str, ...]) -> list[GameSeasons]:
    """What ``/dicebot season list`` shows, per game: the season running and its players,
    and each closed season's final standings."""
    settings = await bot.sessions.guild_settings(guild_id)
    found: list[GameSeasons] = []
    for game in games:
        current = await current_season(bot.db, guild_id, game)
        players = await season_players(bot.db, current)
        closed = [
            (
                season,
                await leaderboard_page(
                    bot.db,
                    guild_id,
                    game,
                    season=season,
                    provisional_games=settings.provisional_games,
                ),
            )
            for season in await closed_seasons(bot.db, guild_id, game)
        ]
        found.append(GameSeasons(game, current, players, closed))
    return found


class Admin(commands.GroupCog, group_name="dicebot", group_description="Dicebot set-up and admin."):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.register_components(SeasonConfirmButton)

    @app_commands.command(
        name="check", description="Check that I can post here and send you secret moves by DM."
    )
    @app_commands.guild_only()
    async def check(self, interaction: discord.Interaction) -> None:
        # Answer first (inside Discord's 3 seconds), then try the DM.
        await answer_for(interaction).defer()
        in_thread = getattr(interaction.channel, "type", None) in THREAD_TYPES
        lines = [
            permission_check_line(
                interaction.app_permissions,
                in_thread=in_thread,
                application_id=self.bot.application_id,
            )
        ]
        if not in_thread:
            lines.append(tournament_threads_line(interaction.app_permissions))
        sent = await self.bot.send_dm(
            interaction.user.id,
            content=_("👋 DMs work: your secret moves (Diceman, Dimension Duel) will arrive here."),
        )
        if sent is None:
            lines.append("❌ " + _(DMS_CLOSED_HELP))
        else:
            lines.append(_("✅ I can DM you, so secret moves will reach you privately."))
        await answer_for(interaction).send("\n".join(lines))

    @app_commands.command(
        name="settings", description="View or change this server's game timers (Manage Server)."
    )
    @app_commands.describe(
        turn_timeout="Seconds per Knucklebones turn (30-86400).",
        round_timeout="Seconds per Diceman / Dimension Duel round (30-86400).",
        challenge_expiry="Seconds before an unanswered challenge expires (30-86400).",
        betting_window="Seconds Weighted Dice betting stays open (5-600).",
        house_setup="Seconds the Weighted Dice house has to set up a round (10-3600).",
        lobby_expiry="Seconds before an unstarted Weighted Dice lobby closes (60-86400).",
        provisional_games="Games a player needs before being ranked (0-100).",
        language="The language of game messages here (default: the server's own language).",
        tournament_hosts="Who can open a tournament: Manage Server only (default), or anyone.",
    )
    @app_commands.choices(
        language=LANGUAGE_CHOICES,
        tournament_hosts=[
            app_commands.Choice(name="Members with Manage Server", value=HOSTS_MANAGERS),
            app_commands.Choice(name="Any member", value=HOSTS_EVERYONE),
        ],
    )
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def settings(
        self,
        interaction: discord.Interaction,
        turn_timeout: int | None = None,
        round_timeout: int | None = None,
        challenge_expiry: int | None = None,
        betting_window: int | None = None,
        house_setup: int | None = None,
        lobby_expiry: int | None = None,
        provisional_games: int | None = None,
        language: str | None = None,
        tournament_hosts: str | None = None,
    ) -> None:
        require_manage_guild(
            interaction,
            N_(
                "Only members with the **Manage Server** permission can view or change "
                "Dicebot's settings."
            ),
        )
        assert interaction.guild_id is not None
        options = {
            "turn_timeout": turn_timeout,
            "round_timeout": round_timeout,
            "challenge_expiry": challenge_expiry,
            "betting_window": betting_window,
            "house_setup": house_setup,
            "lobby_expiry": lobby_expiry,
            "provisional_games": provisional_games,
        }
        changes: dict[str, Any] = {
            SETTING_OPTIONS[name][0]: value for name, value in options.items() if value is not None
        }
        if language is not None:
            # "server": no choice of ours, the server's own Discord language.
            changes[LANGUAGE_FIELD] = None if language == FOLLOW_SERVER else language
        if tournament_hosts is not None:
            changes[HOSTS_FIELD] = tournament_hosts == HOSTS_EVERYONE
        defaults = self.bot.sessions.defaults
        if not changes:
            current = await self.bot.sessions.guild_settings(interaction.guild_id)
            note = _("Nothing changed. Give an option to change it.")
            await answer_for(interaction).send(
                embed=settings_embed(current, defaults, note), ephemeral=True
            )
            return
        try:
            current = await change_guild_settings(
                self.bot.db,
                interaction.guild_id,
                changes,
                defaults=defaults,
                now=self.bot.clock.now(),
            )
        except ValidationError as error:
            raise UserError(settings_error_text(error, changes)) from None
        changed = list_of(
            [
                # Translators: a changed setting and its new value.
                _("{setting} → {value}").format(
                    setting=_(FIELD_LABELS[field]),
                    value=language_text(value)
                    if field == LANGUAGE_FIELD
                    else hosts_text(value)
                    if field == HOSTS_FIELD
                    else setting_value_text(field, value),
                )
                for field, value in changes.items()
            ]
        )
        # A heading and a list of "setting → value" items: no sentence to agree with.
        note = _("✅ Saved:") + f" {changed}."
        await answer_for(interaction).send(
            embed=settings_embed(current, defaults, note), ephemeral=True
        )

    @app_commands.command(
        name="cancel", description="End a stuck game in a channel without a result (Manage Server)."
    )
    @app_commands.describe(channel="The channel of the game (default: this one).")
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def cancel(
        self,
        interaction: discord.Interaction,
        channel: app_commands.Transform[int, ChannelHere] | None = None,
    ) -> None:
        require_manage_guild(
            interaction, N_("Only members with the **Manage Server** permission can stop games.")
        )
        assert interaction.guild_id is not None and interaction.channel_id is not None
        channel_id = channel if channel is not None else interaction.channel_id
        # Editing each game's message comes after the answer, which only needs the database.
        await answer_for(interaction).defer()
        session_ids = await self.bot.sessions.open_in_channel(
            channel_id, guild_id=interaction.guild_id
        )
        stopped: list[str] = []
        for session_id in session_ids:
            try:
                outcome = await self.bot.sessions.cancel(
                    session_id, interaction.user.id, CANCEL_REASON
                )
            except GameOver:
                continue  # it ended on its own meanwhile
            players = list_of(
                [
                    escape(seat.display_name) if seat.is_ai else f"<@{seat.user_id}>"
                    for seat in outcome.session.seats
                ]
            )
            stopped.append(f"{game_title(outcome.session.game)} ({players})")
        channel_mention = f"<#{channel_id}>"
        if not stopped:
            text = _("There is no open game in {channel}: nothing to stop.").format(
                channel=channel_mention
            )
        else:
            # Translators: {games} lists each game stopped with its players, separated by ";".
            text = ngettext(
                "🛑 Stopped {count} game in {channel}: {games}. No results were recorded.",
                "🛑 Stopped {count} games in {channel}: {games}. No results were recorded.",
                len(stopped),
            ).format(count=number(len(stopped)), channel=channel_mention, games="; ".join(stopped))
        await answer_for(interaction).send(text, allowed_mentions=discord.AllowedMentions.none())

    season = app_commands.Group(
        name="season", description="Leaderboard seasons: list them, or start a new one."
    )

    @season.command(
        name="new",
        description="Close the current season (one game or all) and start a new one "
        "(Manage Server).",
    )
    @app_commands.describe(
        name=f"A name for the new season (up to {SEASON_NAME_LIMIT} characters).",
        game="Only this game's season (default: every game).",
    )
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.guild_only()
    async def season_new(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, SEASON_NAME_LIMIT] | None = None,
        game: str | None = None,
    ) -> None:
        require_manage_guild(
            interaction,
            N_("Only members with the **Manage Server** permission can start a new season."),
        )
        assert interaction.guild_id is not None
        if game is not None and game not in GAME_TITLES:
            raise UserError(_("Pick a game from the list Discord offers."))
        cleaned = clean_name(name)
        request_id, plan = await request_season(
            self.bot.db,
            guild_id=interaction.guild_id,
            game=game,
            name=cleaned,
            admin_id=interaction.user.id,
            now=self.bot.clock.now(),
        )
        view = season_confirm_view(request_id)
        await answer_for(interaction).send(
            confirmation_text(plan, cleaned, CONFIRM_SECONDS),
            view=view,
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        # discord.py gives an ephemeral view a 15-minute timer and keeps it in memory;
        # the buttons are DynamicItems routed by custom_id, so the view object can go.
        view.stop()

    @season.command(name="list", description="This server's seasons: now and past, with winners.")
    @app_commands.describe(game="Only this game's seasons (default: every game).")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.guild_only()
    async def season_list(self, interaction: discord.Interaction, game: str | None = None) -> None:
        assert interaction.guild_id is not None
        if game is not None and game not in GAME_TITLES:
            raise UserError(_("Pick a game from the list Discord offers."))
        games = GAMES if game is None else (game,)
        await answer_for(interaction).send(
            embed=seasons_embed(await seasons_of(self.bot, interaction.guild_id, games)),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Admin(bot))
