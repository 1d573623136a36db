"""``/dicebot``: the bot's own commands — checking the set-up, and server administration.

``check`` and ``season list`` are for everyone. ``settings``, ``cancel`` and ``season new``
need **Manage Server**: they carry ``default_permissions(manage_guild=True)`` as the
intent, but Discord only honours default permissions on a top-level command (and
``/dicebot check`` must stay visible to all), so the real guard is the run-time check on
``interaction.permissions``, which every admin action makes again.

``season new`` closes the season of one game or of all four and starts the next (see
``bot.seasons``), after a confirmation. The request (its games, the seasons it would
close, the new season's name, who asked and when) is stored in ``season_requests``; the
confirmation buttons are DynamicItems (prefix ``adm:``) that carry only its id:
``adm:season:<request id>:<yes|no>``. They expire after ``CONFIRM_SECONDS``, only the admin
who asked may press them, and a request is answered once: the transaction that closes
the seasons deletes it, and refuses if any of those seasons was closed meanwhile.
"""

from __future__ import annotations

import json
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from pydantic import ValidationError

from bot.answers import answer_for
from bot.app import DiceBot
from bot.errors import GameOver, NotYourGame, UserError
from bot.guild_settings import GuildSettings, save_guild_overrides, setting_bounds
from bot.leaderboard import GAME_TITLES, GAMES, game_title, leaderboard_page
from bot.permissions import invite_url, missing_permissions
from bot.pictures import palette
from bot.replies import DMS_CLOSED_HELP, Guarded
from bot.seasons import NAME_LIMIT as SEASON_NAME_LIMIT
from bot.seasons import (
    ClosedSeason,
    Season,
    SeasonChanged,
    clean_name,
    close_season,
    closed_seasons,
    current_season,
)
from bot.storage import Connection, Database
from bot.text import escape
from cogs.leaderboard import FIELD_LIMIT, GAME_CHOICES, join_lines, player_name

CANCEL_REASON = "stopped by an admin"
CONFIRM_SECONDS = 300

# The settings /dicebot settings changes: option name -> (GuildSettings field, label).
SETTING_OPTIONS: dict[str, tuple[str, str]] = {
    "turn_timeout": ("turn_timeout_seconds", "Turn timeout (Knucklebones)"),
    "round_timeout": ("round_timeout_seconds", "Round timeout (Diceman, Dimension Duel)"),
    "challenge_expiry": ("challenge_expiry_seconds", "Challenge expiry"),
    "betting_window": ("betting_window_seconds", "Betting window (Weighted Dice)"),
    "house_setup": ("house_setup_seconds", "House setup time (Weighted Dice)"),
    "lobby_expiry": ("lobby_expiry_seconds", "Lobby expiry (Weighted Dice)"),
    "provisional_games": ("provisional_games", "Provisional threshold"),
}
FIELD_LABELS = {field: label for field, label in SETTING_OPTIONS.values()}

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
    where = "this thread" if in_thread else "this channel"
    if not missing:
        return f"✅ I have every permission I need in {where}."
    line = (
        f"❌ In {where} I'm missing: **" + "**, **".join(missing) + "**. A server admin can "
        "grant them to my role (Server Settings → Roles) or in the channel's permissions"
    )
    if application_id is not None:
        link = invite_url(application_id)
        line += f", or invite me again with this link, which asks for exactly what I need: <{link}>"
    return line + ". Until then, play in another channel."


def require_manage_guild(interaction: discord.Interaction, what: str) -> None:
    if interaction.guild_id is None or not interaction.permissions.manage_guild:
        raise UserError(f"Only members with the **Manage Server** permission can {what}.")


def duration_text(seconds: int) -> str:
    """300 -> "5 min", 90 -> "1 min 30 s", 7200 -> "2 h"."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h"] * bool(hours) + [f"{minutes} min"] * bool(minutes)
    parts += [f"{secs} s"] * bool(secs)
    return " ".join(parts) or "0 s"


def setting_value_text(field: str, value: int) -> str:
    if field == "provisional_games":
        return f"{value} game{'s' if value != 1 else ''}"
    return f"{value} s ({duration_text(value)})" if value >= 60 else f"{value} s"


def settings_error_text(error: ValidationError, given: dict[str, Any]) -> str:
    """One clear line per refused setting, naming it and its allowed range."""
    lines = []
    for problem in error.errors():
        field = str(problem["loc"][0]) if problem["loc"] else ""
        label = FIELD_LABELS.get(field, field)
        low, high = setting_bounds(field) if field in GuildSettings.model_fields else (None, None)
        unit = "games" if field == "provisional_games" else "seconds"
        allowed = f"between {low} and {high} {unit}" if low is not None else "a whole number"
        lines.append(f"**{label}** must be {allowed} (you gave {given.get(field)}).")
    return "Nothing was changed. " + " ".join(lines)


def settings_embed(current: GuildSettings, defaults: GuildSettings, note: str) -> discord.Embed:
    embed = discord.Embed(title="⚙️ Dicebot settings for this server", colour=palette.EMBED_INFO)
    lines = []
    for option, (field, label) in SETTING_OPTIONS.items():
        value = getattr(current, field)
        low, high = setting_bounds(field)
        marker = "" if value == getattr(defaults, field) else " · *changed*"
        lines.append(
            f"**{label}**: {setting_value_text(field, value)}{marker} (`{option}`, {low}–{high})"
        )
    embed.description = note + "\n\n" + "\n".join(lines)
    embed.set_footer(
        text="Change one with /dicebot settings <option>:<value>. New values apply to timers "
        "started from now on."
    )
    return embed


async def stored_overrides(conn: Connection, guild_id: int) -> dict[str, Any]:
    stored = await conn.fetch_value(
        "SELECT settings FROM guild_settings WHERE guild_id = ?" + conn.for_update, (guild_id,)
    )
    if stored is None:
        return {}
    try:
        data = json.loads(stored)
    except ValueError:
        return {}
    return {k: v for k, v in data.items() if k in GuildSettings.model_fields}


# -- seasons ----------------------------------------------------------------------------------


def season_text(season: Season) -> str:
    """ "Season 2 · Spring Cup" with the name escaped, for a message."""
    return f"Season {season.number}" + (f" · {escape(season.name)}" if season.name else "")


def season_dates(season: Season) -> str:
    if season.started_at is None:
        return "no games yet"
    start = f"<t:{int(season.started_at)}:D>"
    if season.ended_at is None:
        return f"since {start}"
    return f"{start} – <t:{int(season.ended_at)}:D>"


def players_text(count: int) -> str:
    return f"{count} player{'s' if count != 1 else ''}"


async def season_players(db: Database, season: Season) -> int:
    """Players with a game against other players in a season."""
    row = await db.fetch_one(
        "SELECT COUNT(*) AS players FROM season_ratings"
        " WHERE guild_id = ? AND game = ? AND season = ?",
        (season.guild_id, season.game, season.number),
    )
    return 0 if row is None else int(row["players"])


def confirmation_text(plan: list[tuple[Season, int]], new_name: str, expires_in: int) -> str:
    """The question ``/dicebot season new`` asks before anything changes."""
    new = f" · {escape(new_name)}" if new_name else ""
    lines = ["⚠️ **Close the current season and start a new one?**"]
    for season, players in plan:
        lines.append(
            f"• **{game_title(season.game)}**: {season_text(season)} ({players_text(players)}) "
            f"→ **Season {season.number + 1}{new}**"
        )
    example = plan[0][0]
    lines += [
        "",
        "What happens:",
        "• The closed season's final standings are kept and never change: "
        f"`/leaderboard game:{game_title(example.game)} season:{example.number}` shows them.",
        "• Everyone's rating starts fresh in the new season. Lifetime records (`/stats`) and "
        "`/history` stay as they are.",
        "• Games being played now count in the new season when they finish.",
        f"This confirmation expires in {duration_text(expires_in)}.",
    ]
    return "\n".join(lines)


async def request_season(
    db: Database,
    *,
    guild_id: int,
    game: str | None,
    name: str,
    admin_id: int,
    now: float,
) -> tuple[int, list[tuple[Season, int]]]:
    """Store an admin's request to close the seasons of ``game`` (None: every game);
    returns its id and, per game, the season it would close with its players."""
    plan = []
    for each in GAMES if game is None else (game,):
        season = await current_season(db, guild_id, each)
        plan.append((season, await season_players(db, season)))
    numbers = {season.game: season.number for season, _ in plan}
    async with db.transaction() as conn:
        # Confirmations nobody answered before they expired are of no use any more.
        await conn.execute(
            "DELETE FROM season_requests WHERE issued_at < ?", (now - CONFIRM_SECONDS,)
        )
        request_id = await conn.fetch_value(
            "INSERT INTO season_requests (guild_id, game, name, admin_id, issued_at, numbers)"
            " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (guild_id, game, name, admin_id, now, json.dumps(numbers, sort_keys=True)),
        )
    assert isinstance(request_id, int)
    return request_id, plan


class SeasonConfirmButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"adm:season:(?P<request>[0-9]{1,19}):(?P<choice>yes|no)",
):
    def __init__(self, request_id: int, choice: str) -> None:
        self.request_id, self.choice = request_id, choice
        super().__init__(
            discord.ui.Button(
                label="Close the season" if choice == "yes" else "Keep it",
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
            raise UserError("This confirmation belongs to a server.")
        request = await bot.db.fetch_one(
            "SELECT id, game, name, admin_id, issued_at, numbers FROM season_requests"
            " WHERE id = ? AND guild_id = ?",
            (self.request_id, interaction.guild_id),
        )
        if request is None:
            await answer_for(interaction).update(
                content="This confirmation was already answered: nothing more was changed.",
                view=None,
            )
            return
        if interaction.user.id != request["admin_id"]:
            raise NotYourGame("Only the admin who asked to close the season can answer this.")
        if self.choice == "no":
            await forget_request(bot.db, self.request_id)
            await answer_for(interaction).update(
                content="Nothing was changed: the seasons go on.", view=None
            )
            return
        require_manage_guild(interaction, "close a season")
        now = bot.clock.now()
        if now - request["issued_at"] > CONFIRM_SECONDS:
            await forget_request(bot.db, self.request_id)
            await answer_for(interaction).update(
                content=(
                    "This confirmation expired, so nothing was changed. Run "
                    "`/dicebot season new` again if you still want a new season."
                ),
                view=None,
            )
            return
        settings = await bot.sessions.guild_settings(interaction.guild_id)
        numbers: dict[str, int] = json.loads(request["numbers"])
        closed: list[ClosedSeason] = []
        async with bot.db.transaction() as conn:
            # Deleting the request first makes a second press (or a second process) find
            # nothing to do: only one transaction closes these seasons.
            taken = await conn.execute(
                "DELETE FROM season_requests WHERE id = ?", (self.request_id,)
            )
            if taken == 1:
                for game in sorted(numbers, key=GAMES.index):
                    try:
                        closed.append(
                            await close_season(
                                conn,
                                guild_id=interaction.guild_id,
                                game=game,
                                expected=numbers[game],
                                name=request["name"],
                                closed_by=interaction.user.id,
                                provisional_games=settings.provisional_games,
                                now=now,
                            )
                        )
                    except SeasonChanged as error:
                        raise UserError(f"{game_title(game)}: {error}") from None
        if not closed:
            await answer_for(interaction).update(
                content="This confirmation was already answered: nothing more was changed.",
                view=None,
            )
            return
        await answer_for(interaction).update(content=closed_text(closed), view=None)


def closed_text(closed: list[ClosedSeason]) -> str:
    lines = ["🏁 **New season started.**"]
    for done in closed:
        title = game_title(done.closed.game)
        if done.players:
            ending = (
                f"closed with {players_text(done.players)} (final standings: "
                f"`/leaderboard game:{title} season:{done.closed.number}`)"
            )
        else:
            ending = "closed without games between players"
        lines.append(
            f"• **{title}**: {season_text(done.closed)} {ending}; "
            f"**{season_text(done.started)}** has begun."
        )
    lines.append(
        "Ratings start fresh from the next game; lifetime records and `/history` stay. "
        "`/dicebot season list` shows every season."
    )
    return "\n".join(lines)


async def forget_request(db: Database, request_id: int) -> None:
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM season_requests WHERE id = ?", (request_id,))


async def seasons_embed(bot: DiceBot, guild_id: int, games: tuple[str, ...]) -> discord.Embed:
    """``/dicebot season list``: per game, the season running and the closed ones with
    their winners."""
    settings = await bot.sessions.guild_settings(guild_id)
    embed = discord.Embed(title="🗓️ Seasons in this server", colour=palette.EMBED_INFO)
    for game in games:
        current = await current_season(bot.db, guild_id, game)
        lines = [
            f"Now: **{season_text(current)}**, {season_dates(current)} · "
            f"{players_text(await season_players(bot.db, current))}"
        ]
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
                outcome = f"🏆 {winner} · {players_text(board.ranked_total)} ranked"
            else:
                outcome = "nobody ranked"
            lines.append(f"{season_text(season)}, {season_dates(season)} · {outcome}")
        embed.add_field(name=game_title(game), value=join_lines(lines, FIELD_LIMIT), inline=False)
    embed.set_footer(
        text="A closed season's final standings: /leaderboard game:<game> season:<number>"
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
            content="👋 DMs work: your secret moves (Diceman, Dimension Duel) will arrive here.",
        )
        if sent is None:
            lines.append("❌ " + DMS_CLOSED_HELP)
        else:
            lines.append("✅ I can DM you, so secret moves will reach you privately.")
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
    ) -> None:
        require_manage_guild(interaction, "view or change Dicebot's settings")
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
        changes = {
            SETTING_OPTIONS[name][0]: value for name, value in options.items() if value is not None
        }
        defaults = self.bot.sessions.defaults
        if not changes:
            current = await self.bot.sessions.guild_settings(interaction.guild_id)
            note = "Nothing changed. Give an option to change it."
            await answer_for(interaction).send(
                embed=settings_embed(current, defaults, note), ephemeral=True
            )
            return
        async with self.bot.db.transaction() as conn:
            overrides = {**await stored_overrides(conn, interaction.guild_id), **changes}
            try:
                current = GuildSettings.model_validate({**defaults.model_dump(), **overrides})
            except ValidationError as error:
                raise UserError(settings_error_text(error, changes)) from None
            await save_guild_overrides(conn, interaction.guild_id, overrides, self.bot.clock.now())
        changed = ", ".join(
            f"{FIELD_LABELS[field]} → {setting_value_text(field, value)}"
            for field, value in changes.items()
        )
        await answer_for(interaction).send(
            embed=settings_embed(current, defaults, f"✅ Saved: {changed}."), ephemeral=True
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
        channel: discord.TextChannel | discord.Thread | None = None,
    ) -> None:
        require_manage_guild(interaction, "stop games")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        channel_id = channel.id if channel is not None else interaction.channel_id
        # Editing each game's message comes after the answer, which only needs the database.
        await answer_for(interaction).defer()
        rows = await self.bot.db.fetch_all(
            "SELECT id FROM sessions WHERE channel_id = ? AND guild_id = ?"
            " AND status IN ('pending', 'active') ORDER BY id",
            (channel_id, interaction.guild_id),
        )
        stopped: list[str] = []
        for row in rows:
            try:
                outcome = await self.bot.sessions.cancel(
                    row["id"], interaction.user.id, CANCEL_REASON
                )
            except GameOver:
                continue  # it ended on its own meanwhile
            players = " and ".join(
                escape(seat.display_name) if seat.is_ai else f"<@{seat.user_id}>"
                for seat in outcome.session.seats
            )
            stopped.append(f"{game_title(outcome.session.game)} ({players})")
        if not stopped:
            text = f"There is no open game in <#{channel_id}>: nothing to stop."
        else:
            text = (
                f"🛑 Stopped {len(stopped)} game{'s' if len(stopped) != 1 else ''} in "
                f"<#{channel_id}>: " + "; ".join(stopped) + ". No results were recorded."
            )
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
        require_manage_guild(interaction, "start a new season")
        assert interaction.guild_id is not None
        if game is not None and game not in GAME_TITLES:
            raise UserError("Pick a game from the list Discord offers.")
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
            raise UserError("Pick a game from the list Discord offers.")
        games = GAMES if game is None else (game,)
        await answer_for(interaction).send(
            embed=await seasons_embed(self.bot, interaction.guild_id, games),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Admin(bot))
