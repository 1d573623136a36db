"""What ``/dicebot`` says: the set-up check's line, the settings and their refusals, the
season confirmation and its answer, and the seasons list. Pure: the cog reads what these
show and passes it in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord
from pydantic import ValidationError

from bot import i18n
from bot.i18n import LANGUAGES, N_, _, ngettext, number
from bot.ladder.seasons import ClosedSeason, Season
from bot.ladder.standings import LeaderboardPage
from bot.model.catalog import game_title
from bot.model.text import escape
from bot.pictures import palette
from bot.play.guild_settings import GuildSettings, setting_bounds
from bot.ui.permissions import invite_url, missing_permissions
from cogs.texts import FIELD_LIMIT, command_text, join_lines, option_word, player_name

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
# Who may open a tournament: the option, its stored field, and its two choices' values.
HOSTS_OPTION = "tournament_hosts"
HOSTS_FIELD = "tournaments_by_anyone"
HOSTS_EVERYONE = "everyone"
HOSTS_MANAGERS = "managers"
FIELD_LABELS = {field: label for field, label in SETTING_OPTIONS.values()}
FIELD_LABELS[LANGUAGE_FIELD] = N_("Language of game messages")
FIELD_LABELS[HOSTS_FIELD] = N_("Who can open a tournament")


def hosts_text(by_anyone: bool) -> str:
    """The tournament hosts setting's value, as the settings show it."""
    if by_anyone:
        return _("any member")
    return _("members with the **Manage Server** permission")


def language_text(code: str | None) -> str:
    """How the settings name a language choice: the language by its own name, or the
    server's own (and which that is now)."""
    if code is None:
        return _("the server's own language (now {language})").format(
            language=_(LANGUAGES[i18n.server_language()].native_name)
        )
    # Each language by its own name in every language (the catalogs keep it as it is).
    return _(LANGUAGES[code].native_name)


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


def tournament_threads_line(permissions: discord.Permissions) -> str:
    """Where ``/tournament`` plays its matches from this channel: in a thread of the event's
    message when the bot may open one and write in it, else in the channel itself."""
    if permissions.create_public_threads and permissions.send_messages_in_threads:
        return _("✅ Tournaments opened here play their matches in a thread of their message.")
    return _(
        "ℹ️ Tournaments opened here play their matches in this channel: to play them in a "
        "thread, give me **Create Public Threads** and **Send Messages in Threads**."
    )


def duration_text(seconds: int) -> str:
    """300 -> "5 min", 90 -> "1 min 30 s", 7200 -> "2 h"."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    # Translators: a duration's parts, joined by spaces: "2 h", "1 min 30 s".
    parts = [_("{hours} h").format(hours=number(hours))] * bool(hours)
    parts += [_("{minutes} min").format(minutes=number(minutes))] * bool(minutes)
    parts += [_("{seconds} s").format(seconds=number(secs))] * bool(secs or not parts)
    return " ".join(parts)


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
            "option": option_word(option),
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
            option=option_word(LANGUAGE_FIELD),
        )
    )
    lines.append(
        _("**{setting}**: {value} (`{option}`)").format(
            setting=_(FIELD_LABELS[HOSTS_FIELD]),
            value=hosts_text(current.tournaments_by_anyone),
            option=option_word(HOSTS_OPTION),
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


def confirmation_text(plan: list[tuple[Season, int]], new_name: str, expires_in: int) -> str:
    """The question ``/dicebot season new`` asks before anything changes."""
    lines = [_("⚠️ **Close the current season and start a new one?**")]
    for season, players in plan:
        # Translators: one game's season that closes, its players, and the season that follows.
        line = ngettext(
            "• **{game}**: {season} ({count} player) → **{new_season}**",
            "• **{game}**: {season} ({count} players) → **{new_season}**",
            players,
        )
        lines.append(
            line.format(
                game=game_title(season.game),
                season=season_text(season),
                count=number(players),
                new_season=season_label(season.number + 1, new_name),
            )
        )
    example = plan[0][0]
    lines += [
        "",
        _("What happens:"),
        # Translators: {leaderboard} is the /leaderboard command, to run with the game
        # {game} and the season {number} picked.
        _(
            "• The closed season's final standings are kept and never change: "
            "{leaderboard} shows them with **{game}** and season **{number}** picked."
        ).format(
            leaderboard=command_text("leaderboard"),
            game=game_title(example.game),
            number=example.number,
        ),
        _(
            "• Everyone's rating starts fresh in the new season. Lifetime records ({stats}) "
            "and {history} stay as they are."
        ).format(stats=command_text("stats"), history=command_text("history")),
        _("• Games being played now count in the new season when they finish."),
        _("This confirmation expires in {duration}.").format(duration=duration_text(expires_in)),
    ]
    return "\n".join(lines)


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
            # Translators: {leaderboard} is the /leaderboard command, to run with the game
            # {game} and the season {number} picked.
            line = ngettext(
                "• **{game}**: {closed} closed with {count} player (final standings: "
                "{leaderboard}, season **{number}**); **{started}** has begun.",
                "• **{game}**: {closed} closed with {count} players (final standings: "
                "{leaderboard}, season **{number}**); **{started}** has begun.",
                done.players,
            )
            fields["count"] = number(done.players)
            fields["leaderboard"] = command_text("leaderboard")
        else:
            line = _(
                "• **{game}**: {closed} closed without games between players; **{started}** "
                "has begun."
            )
        lines.append(line.format(**fields))
    lines.append(
        _(
            "Ratings start fresh from the next game; lifetime records and {history} stay. "
            "{seasons} shows every season."
        ).format(history=command_text("history"), seasons=command_text("dicebot", "season", "list"))
    )
    return "\n".join(lines)


@dataclass(frozen=True)
class GameSeasons:
    """One game's seasons as ``/dicebot season list`` shows them: the season running and its
    players, and each closed season (as ``closed_seasons`` lists them) with its final
    standings."""

    game: str
    current: Season
    players: int
    closed: list[tuple[Season, LeaderboardPage]]


def seasons_embed(games: list[GameSeasons]) -> discord.Embed:
    """``/dicebot season list``: per game, the season running and the closed ones with
    their winners."""
    embed = discord.Embed(title=_("🗓️ Seasons in this server"), colour=palette.EMBED_INFO)
    for found in games:
        current = found.current
        if current.started_at is None:
            # Translators: the season running now, which nobody has played yet.
            now_line = _("Now: **{season}**, no games yet.").format(season=season_text(current))
        else:
            # Translators: the season running now, since when ({date}: a date Discord shows
            # in the reader's own format), and how many players it has.
            now_line = ngettext(
                "Now: **{season}**, since {date} · {count} player",
                "Now: **{season}**, since {date} · {count} players",
                found.players,
            ).format(
                season=season_text(current),
                date=f"<t:{int(current.started_at)}:D>",
                count=number(found.players),
            )
        lines = [now_line]
        for season, board in found.closed:
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
        embed.add_field(
            name=game_title(found.game), value=join_lines(lines, FIELD_LIMIT), inline=False
        )
    embed.set_footer(
        text=_("A closed season's final standings: /leaderboard game:<game> season:<number>")
    )
    return embed
