"""``/dicebot``: the bot's own commands — checking the set-up, and server administration.

``check`` and ``season list`` are for everyone. ``settings``, ``cancel`` and ``season new``
need **Manage Server**: they carry ``default_permissions(manage_guild=True)`` as the
intent, but Discord only honours default permissions on a top-level command (and
``/dicebot check`` must stay visible to all), so the real guard is the run-time check on
``interaction.permissions``, which every admin action makes again.

``season new`` closes the season of one game or of all four and starts the next (see
``bot.ladder.seasons``), after a confirmation. The request (its games, the seasons it would
close, the new season's name, who asked and when) is kept by ``bot.ladder.season_requests``;
the confirmation buttons are DynamicItems (prefix ``adm:``) that carry only its id:
``adm:season:<request id>:<yes|no>``. They expire after ``CONFIRM_SECONDS``, only the admin
who asked may press them, and a request is answered once. **Keep it** deletes the pending
request; **Close the season** marks it closed in the transaction that closes the seasons,
which refuses if any of those seasons was closed meanwhile. Each takes the request only
while it is still pending, so a press that loses the race to the other button, or comes
after it, finds what the first one did and says so: a closed request stays readable
until it expires with the others.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from pydantic import ValidationError

from bot import i18n
from bot.app import DiceBot
from bot.i18n import LANGUAGES, N_, _, list_of, ngettext, number, pgettext
from bot.ladder.season_requests import (
    CONFIRM_SECONDS,
    SeasonClosedMeanwhile,
    close,
    closed_by_request,
    find_request,
    forget,
    keep,
    request_season,
    season_players,
)
from bot.ladder.seasons import NAME_LIMIT as SEASON_NAME_LIMIT
from bot.ladder.seasons import ClosedSeason, Season, clean_name, closed_seasons, current_season
from bot.ladder.standings import leaderboard_page
from bot.model.catalog import GAME_TITLES, GAMES, game_title
from bot.model.errors import GameOver, NotYourGame, UserError
from bot.model.text import escape
from bot.pictures import palette
from bot.play.guild_settings import GuildSettings, change_guild_settings, setting_bounds
from bot.ui.answers import answer_for
from bot.ui.permissions import invite_url, missing_permissions
from bot.ui.replies import DMS_CLOSED_HELP, Guarded
from cogs.texts import FIELD_LIMIT, GAME_CHOICES, join_lines, player_name

# Stored with the cancelled game's events in English; the game's message translates it.
# Translators: why a game ended, shown inside the game's message
# ("This game was stopped by an admin").
CANCEL_REASON = N_("stopped by an admin")
ALREADY_ANSWERED = N_("This confirmation was already answered: nothing more was changed.")

# The settings /dicebot settings changes: option name -> (GuildSettings field, label).
# The labels are marked here and translated where shown (``_(label)``).
SETTING_OPTIONS: dict[str, tuple[str, str]] = {
    "turn_timeout": ("turn_timeout_seconds", N_("Turn timeout (Knucklebones)")),
    "round_timeout": ("round_timeout_seconds", N_("Round timeout (Diceman, Dimension Duel)")),
    "challenge_expiry": ("challenge_expiry_seconds", N_("Challenge expiry")),
    "betting_window": ("betting_window_seconds", N_("Betting window (Weighted Dice)")),
    "house_setup": ("house_setup_seconds", N_("House setup time (Weighted Dice)")),
    "lobby_expiry": ("lobby_expiry_seconds", N_("Lobby expiry (Weighted Dice)")),
    # Translators: how many games a player needs before the leaderboard ranks them.
    "provisional_games": ("provisional_games", N_("Provisional threshold")),
}
LANGUAGE_FIELD = "language"
FOLLOW_SERVER = "server"
FIELD_LABELS = {field: label for field, label in SETTING_OPTIONS.values()}
FIELD_LABELS[LANGUAGE_FIELD] = N_("Language of game messages")
# Each language by its own name, as its speakers look for it in a list.
LANGUAGE_CHOICES = [
    app_commands.Choice(name="The server's own language", value=FOLLOW_SERVER),
    *(
        app_commands.Choice(name=language.native_name, value=code)
        for code, language in LANGUAGES.items()
    ),
]


def language_text(code: str | None) -> str:
    """How the settings name a language choice: the language by its own name, or the
    server's own (and which that is now)."""
    if code is None:
        return _("the server's own language (now {language})").format(
            language=_(LANGUAGES[i18n.server_language()].native_name)
        )
    # Each language by its own name in every language (the catalogs keep it as it is).
    return _(LANGUAGES[code].native_name)


THREAD_TYPES = frozenset(
    {
        discord.ChannelType.public_thread,
        discord.ChannelType.private_thread,
        discord.ChannelType.news_thread,
    }
)


def permission_check_line(
    permissions: discord.Permissions, *, in_thread: bool, application_id: int | None
) -> str:
    """The first line of ``/dicebot check``: what the bot lacks here and how to fix it."""
    missing = missing_permissions(permissions, in_thread=in_thread)
    if not missing:
        if in_thread:
            return _("✅ I have every permission I need in this thread.")
        return _("✅ I have every permission I need in this channel.")
    # missing_permissions names them as Discord's own settings do, in the current language.
    names = ", ".join(f"**{name}**" for name in missing)
    if in_thread:
        # Translators: {permissions} lists Discord permission names, as in Discord's settings.
        lacking = _("❌ In this thread I'm missing: {permissions}.").format(permissions=names)
    else:
        # Translators: {permissions} lists Discord permission names, as in Discord's settings.
        lacking = _("❌ In this channel I'm missing: {permissions}.").format(permissions=names)
    if application_id is None:
        fix = _(
            "A server admin can grant them to my role (Server Settings → Roles) or in the "
            "channel's permissions. Until then, play in another channel."
        )
    else:
        fix = _(
            "A server admin can grant them to my role (Server Settings → Roles) or in the "
            "channel's permissions, or invite me again with this link, which asks for exactly "
            "what I need: <{link}>. Until then, play in another channel."
        ).format(link=invite_url(application_id))
    return f"{lacking} {fix}"


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
                    "That channel is in another server: `/dicebot cancel` stops games in this "
                    "server only. Nothing was stopped."
                )
            )
        return channel_id


def require_manage_guild(interaction: discord.Interaction, refusal: str) -> None:
    """Refuse (with ``refusal``, a text marked with ``N_``) unless the member may manage
    the server."""
    if interaction.guild_id is None or not interaction.permissions.manage_guild:
        raise UserError(_(refusal))


def duration_text(seconds: int) -> str:
    """300 -> "5 min", 90 -> "1 min 30 s", 7200 -> "2 h"."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    # Translators: a duration's parts, joined by spaces: "2 h", "1 min 30 s".
    parts = [_("{hours} h").format(hours=number(hours))] * bool(hours)
    parts += [_("{minutes} min").format(minutes=number(minutes))] * bool(minutes)
    parts += [_("{seconds} s").format(seconds=number(secs))] * bool(secs or not parts)
    return " ".join(parts)


def option_name(option: str) -> str:
    """A ``/dicebot settings`` option's name as the command picker shows it here."""
    return pgettext("option name", option)


def setting_value_text(field: str, value: int) -> str:
    # The seconds are shown as an admin types them in the option (no digit grouping).
    if field == "provisional_games":
        return ngettext("{count} game", "{count} games", value).format(count=number(value))
    if value >= 60:
        # Translators: a timer in seconds, then the same time in hours and minutes.
        return _("{seconds} s ({duration})").format(seconds=value, duration=duration_text(value))
    return _("{seconds} s").format(seconds=value)


def settings_error_text(error: ValidationError, given: dict[str, Any]) -> str:
    """One clear line per refused setting, naming it and its allowed range."""
    lines = []
    for problem in error.errors():
        field = str(problem["loc"][0]) if problem["loc"] else ""
        label = _(FIELD_LABELS[field]) if field in FIELD_LABELS else field
        fields = {"setting": label, "value": given.get(field)}
        if field not in FIELD_LABELS:
            lines.append(_("**{setting}** has a value I can't use ({value}).").format(**fields))
            continue
        low, high = setting_bounds(field)
        if field == "provisional_games":
            text = _("**{setting}** must be between {low} and {high} games (you gave {value}).")
        else:
            text = _("**{setting}** must be between {low} and {high} seconds (you gave {value}).")
        lines.append(text.format(low=low, high=high, **fields))
    return " ".join([_("Nothing was changed."), *lines])


def settings_embed(current: GuildSettings, defaults: GuildSettings, note: str) -> discord.Embed:
    embed = discord.Embed(title=_("⚙️ Dicebot settings for this server"), colour=palette.EMBED_INFO)
    lines = []
    for option, (field, label) in SETTING_OPTIONS.items():
        value = getattr(current, field)
        low, high = setting_bounds(field)
        fields = {
            "setting": _(label),
            "value": setting_value_text(field, value),
            "option": option_name(option),
            "low": low,
            "high": high,
        }
        if value == getattr(defaults, field):
            # Translators: one setting: its name, its value, the command option that
            # changes it and the values it accepts (as typed in the option).
            line = _("**{setting}**: {value} (`{option}`, {low}–{high})")
        else:
            # Translators: as the line without "changed", for a value the server changed.
            line = _("**{setting}**: {value} · *changed* (`{option}`, {low}–{high})")
        lines.append(line.format(**fields))
    lines.append(
        # Translators: the language setting: its name, its value, the option that changes it.
        _("**{setting}**: {value} (`{option}`)").format(
            setting=_(FIELD_LABELS[LANGUAGE_FIELD]),
            value=language_text(current.language),
            option=option_name(LANGUAGE_FIELD),
        )
    )
    embed.description = note + "\n\n" + "\n".join(lines)
    embed.set_footer(
        text=_(
            "Change one with /dicebot settings <option>:<value>. New values apply to timers "
            "started from now on."
        )
    )
    return embed


# -- seasons ----------------------------------------------------------------------------------


def season_text(season: Season) -> str:
    """ "Season 2 · Spring Cup" with the name escaped, for a message."""
    return season_label(season.number, season.name)


def season_label(number_: int, name: str) -> str:
    """ "Season 2" or "Season 2 · Spring Cup" (the name escaped)."""
    if name:
        # Translators: a season's number and the name its server gave it.
        return _("Season {number} · {name}").format(number=number_, name=escape(name))
    return _("Season {number}").format(number=number_)


def season_dates(season: Season) -> str:
    if season.started_at is None:
        # Translators: when a season started, for a season nobody has played yet.
        return _("no games yet")
    start = f"<t:{int(season.started_at)}:D>"
    if season.ended_at is None:
        # Translators: {date} is a date Discord shows in the reader's own format.
        return _("since {date}").format(date=start)
    return f"{start} – <t:{int(season.ended_at)}:D>"


def players_text(count: int) -> str:
    return ngettext("{count} player", "{count} players", count).format(count=number(count))


def confirmation_text(plan: list[tuple[Season, int]], new_name: str, expires_in: int) -> str:
    """The question ``/dicebot season new`` asks before anything changes."""
    lines = [_("⚠️ **Close the current season and start a new one?**")]
    for season, players in plan:
        # Translators: one game's season that closes, its players, and the season that follows.
        line = _("• **{game}**: {season} ({players}) → **{new_season}**")
        lines.append(
            line.format(
                game=game_title(season.game),
                season=season_text(season),
                players=players_text(players),
                new_season=season_label(season.number + 1, new_name),
            )
        )
    example = plan[0][0]
    lines += [
        "",
        _("What happens:"),
        # Translators: {game} and {number} fill the /leaderboard options game and season.
        _(
            "• The closed season's final standings are kept and never change: "
            "`/leaderboard game:{game} season:{number}` shows them."
        ).format(game=game_title(example.game), number=example.number),
        _(
            "• Everyone's rating starts fresh in the new season. Lifetime records (`/stats`) "
            "and `/history` stay as they are."
        ),
        _("• Games being played now count in the new season when they finish."),
        _("This confirmation expires in {duration}.").format(duration=duration_text(expires_in)),
    ]
    return "\n".join(lines)


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
        bot = interaction.client
        assert isinstance(bot, DiceBot)
        if interaction.guild_id is None:
            raise UserError(_("This confirmation belongs to a server."))
        request = await find_request(bot.db, self.request_id, interaction.guild_id)
        if request is None:
            await answer_for(interaction).update(content=_(ALREADY_ANSWERED), view=None)
            return
        if interaction.user.id != request.admin_id:
            raise NotYourGame(_("Only the admin who asked to close the season can answer this."))
        if request.closed:
            await self.answer_late(interaction, bot)
            return
        if self.choice == "no":
            # Only while the request is still pending: a Close the season that took it
            # first (its transaction committed while this press was on its way) leaves
            # nothing here to delete, and this press must say what that one did.
            if not await keep(bot.db, request):
                await self.answer_late(interaction, bot)
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
            await forget(bot.db, self.request_id)
            await answer_for(interaction).update(
                content=_(
                    "This confirmation expired, so nothing was changed. Run "
                    "`/dicebot season new` again if you still want a new season."
                ),
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
            await self.answer_late(interaction, bot)
            return
        await answer_for(interaction).update(content=closed_text(closed), view=None)

    async def answer_late(self, interaction: discord.Interaction, bot: DiceBot) -> None:
        """Answer a press on a request the other button (or an earlier press) answered
        first, with what that answer did: the message then shows the truth whichever of
        the two answers lands last."""
        assert interaction.guild_id is not None
        request = await find_request(bot.db, self.request_id, interaction.guild_id)
        if request is None or not request.closed:
            # Kept, or expired: nothing was closed.
            await answer_for(interaction).update(content=_(ALREADY_ANSWERED), view=None)
            return
        closed = await closed_by_request(bot.db, request)
        if self.choice == "no":
            note = _("⚠️ Too late to keep it: **Close the season** was pressed first.")
        else:
            note = _(ALREADY_ANSWERED)
        await answer_for(interaction).update(content=f"{closed_text(closed)}\n{note}", view=None)


def closed_text(closed: list[ClosedSeason]) -> str:
    lines = [_("🏁 **New season started.**")]
    for done in closed:
        fields = {
            "game": game_title(done.closed.game),
            "closed": season_text(done.closed),
            "started": season_text(done.started),
            "number": done.closed.number,
        }
        if done.players:
            # Translators: {players} is "3 players"; {game} and {number} fill the
            # /leaderboard options game and season.
            line = _(
                "• **{game}**: {closed} closed with {players} (final standings: "
                "`/leaderboard game:{game} season:{number}`); **{started}** has begun."
            )
            fields["players"] = players_text(done.players)
        else:
            line = _(
                "• **{game}**: {closed} closed without games between players; **{started}** "
                "has begun."
            )
        lines.append(line.format(**fields))
    lines.append(
        _(
            "Ratings start fresh from the next game; lifetime records and `/history` stay. "
            "`/dicebot season list` shows every season."
        )
    )
    return "\n".join(lines)


async def seasons_embed(bot: DiceBot, guild_id: int, games: tuple[str, ...]) -> discord.Embed:
    """``/dicebot season list``: per game, the season running and the closed ones with
    their winners."""
    settings = await bot.sessions.guild_settings(guild_id)
    embed = discord.Embed(title=_("🗓️ Seasons in this server"), colour=palette.EMBED_INFO)
    for game in games:
        current = await current_season(bot.db, guild_id, game)
        # Translators: the season running now, since when, and "3 players".
        now_line = _("Now: **{season}**, {dates} · {players}").format(
            season=season_text(current),
            dates=season_dates(current),
            players=players_text(await season_players(bot.db, current)),
        )
        lines = [now_line]
        for season in await closed_seasons(bot.db, guild_id, game):
            board = await leaderboard_page(
                bot.db,
                guild_id,
                game,
                season=season,
                provisional_games=settings.provisional_games,
            )
            if board.rows:
                top = board.rows[0].standing
                winner = player_name(top.user_id, top.display_name)
                ranked = board.ranked_total
                outcome = ngettext(
                    "🏆 {winner} · {count} player ranked",
                    "🏆 {winner} · {count} players ranked",
                    ranked,
                ).format(winner=winner, count=number(ranked))
            else:
                # Translators: a closed season in which no player had enough games to rank.
                outcome = _("nobody ranked")
            lines.append(f"{season_text(season)}, {season_dates(season)} · {outcome}")
        embed.add_field(name=game_title(game), value=join_lines(lines, FIELD_LIMIT), inline=False)
    embed.set_footer(
        text=_("A closed season's final standings: /leaderboard game:<game> season:<number>")
    )
    return embed


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
    )
    @app_commands.choices(language=LANGUAGE_CHOICES)
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
                    else setting_value_text(field, value),
                )
                for field, value in changes.items()
            ]
        )
        note = _("✅ Saved: {changes}.").format(changes=changed)
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
        view = discord.ui.View(timeout=None)
        view.add_item(SeasonConfirmButton(request_id, "yes"))
        view.add_item(SeasonConfirmButton(request_id, "no"))
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
            embed=await seasons_embed(self.bot, interaction.guild_id, games),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Admin(bot))
