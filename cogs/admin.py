"""``/dicebot``: the bot's own commands — checking the set-up, and server administration.

``check`` is for everyone. ``settings``, ``cancel`` and ``reset-leaderboard`` need
**Manage Server**: they carry ``default_permissions(manage_guild=True)`` as the intent, but
Discord only honours default permissions on a top-level command (and ``/dicebot check``
must stay visible to all), so the real guard is the run-time check on
``interaction.permissions``, which every admin action makes again.

The reset confirmation buttons are DynamicItems (prefix ``adm:``):
``adm:reset:<game>:<admin user id>:<issued at, unix seconds>:<yes|no>``; they expire after
``CONFIRM_SECONDS`` and only the admin who asked may press them.
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
from bot.guild_settings import GuildSettings, save_guild_overrides
from bot.leaderboard import GAME_TITLES, game_title, reset_leaderboard
from bot.permissions import invite_url, missing_permissions
from bot.pictures import palette
from bot.replies import DMS_CLOSED_HELP, Guarded
from bot.storage import Connection
from bot.text import escape
from cogs.leaderboard import GAME_CHOICES

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


def setting_bounds(field: str) -> tuple[int | None, int | None]:
    low = high = None
    for rule in GuildSettings.model_fields[field].metadata:
        low = getattr(rule, "ge", low)
        high = getattr(rule, "le", high)
    return low, high


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


# -- the reset confirmation ---------------------------------------------------------------------


class ResetConfirmButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=(
        r"adm:reset:(?P<game>[a-z_]{1,32}):(?P<admin>[0-9]{1,20}):(?P<at>[0-9]{1,12})"
        r":(?P<choice>yes|no)"
    ),
):
    def __init__(self, game: str, admin_id: int, issued_at: int, choice: str) -> None:
        self.game, self.admin_id, self.issued_at, self.choice = game, admin_id, issued_at, choice
        title = game_title(game)
        super().__init__(
            discord.ui.Button(
                label=f"Reset the {title} leaderboard" if choice == "yes" else "Keep it",
                style=discord.ButtonStyle.danger
                if choice == "yes"
                else discord.ButtonStyle.secondary,
                custom_id=f"adm:reset:{game}:{admin_id}:{issued_at}:{choice}",
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ResetConfirmButton:
        return cls(match["game"], int(match["admin"]), int(match["at"]), match["choice"])

    async def handle(self, interaction: discord.Interaction) -> None:
        bot = interaction.client
        assert isinstance(bot, DiceBot)
        if interaction.user.id != self.admin_id:
            raise NotYourGame("Only the admin who asked for this reset can answer it.")
        title = game_title(self.game)
        if self.choice == "no":
            await answer_for(interaction).update(
                content=f"Nothing was changed: the {title} leaderboard stays as it was.",
                view=None,
            )
            return
        require_manage_guild(interaction, "reset a leaderboard")
        if self.game not in GAME_TITLES:
            raise UserError("That game does not exist any more: nothing was changed.")
        if bot.clock.now() - self.issued_at > CONFIRM_SECONDS:
            await answer_for(interaction).update(
                content=(
                    "This confirmation expired, so nothing was changed. Run "
                    "`/dicebot reset-leaderboard` again if you still want the reset."
                ),
                view=None,
            )
            return
        assert interaction.guild_id is not None
        async with bot.db.transaction() as conn:
            cleared = await reset_leaderboard(conn, interaction.guild_id, self.game)
        await answer_for(interaction).update(
            content=(
                f"🧹 The {title} leaderboard of this server was reset: {cleared} player"
                f"{'s' if cleared != 1 else ''} cleared (ratings, records, streaks and "
                "favourite picks). Finished games stay in `/history`."
            ),
            view=None,
        )


def reset_view(game: str, admin_id: int, issued_at: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ResetConfirmButton(game, admin_id, issued_at, "yes"))
    view.add_item(ResetConfirmButton(game, admin_id, issued_at, "no"))
    return view


class Admin(commands.GroupCog, group_name="dicebot", group_description="Dicebot set-up and admin."):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.register_components(ResetConfirmButton)

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

    @app_commands.command(
        name="reset-leaderboard",
        description="Clear one game's leaderboard on this server (Manage Server).",
    )
    @app_commands.describe(game="Which game's leaderboard to clear.")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def reset_leaderboard_command(self, interaction: discord.Interaction, game: str) -> None:
        require_manage_guild(interaction, "reset a leaderboard")
        if game not in GAME_TITLES:
            raise UserError("Pick a game from the list Discord offers.")
        title = game_title(game)
        issued_at = int(self.bot.clock.now())
        view = reset_view(game, interaction.user.id, issued_at)
        await answer_for(interaction).send(
            f"⚠️ Reset the **{title}** leaderboard of this server? Every player's {title} "
            "rating, record, streaks and favourite picks here are cleared for good; finished "
            f"games stay in `/history`. This confirmation expires in "
            f"{duration_text(CONFIRM_SECONDS)}.",
            view=view,
            ephemeral=True,
        )
        # discord.py gives an ephemeral view a 15-minute timer and keeps it in memory;
        # the buttons are DynamicItems routed by custom_id, so the view object can go.
        view.stop()


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Admin(bot))
