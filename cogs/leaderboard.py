"""``/leaderboard``, ``/stats`` and ``/history``: this server's ladders and records.

The queries live in ``bot.leaderboard``; this module renders them as embeds. A
leaderboard is one season's (``bot.seasons``): the one running, or a closed one's final
standings with ``season:<number>``. Page buttons are DynamicItems (prefix ``lb:``) whose
custom_id carries the game, the sort, the page and the season to show (the server is the
interaction's), so they keep working after a restart and keep showing the season they
were made for after it closes: ``lb:<game>:<rating|wins|win_rate>:<page>:<p|n>:s<season>``
(``p``/``n`` only keeps the Previous and Next buttons' ids distinct when both point at the
same page; buttons from before seasons, without ``:s<season>``, show the season running).

Players appear under the display name they last played under in this server (stored
with their rating and with each game's seats), escaped: a mention would show as an
unknown user to anyone whose client has not loaded that member, or once they left.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import answer_for
from bot.app import DiceBot
from bot.errors import UserError
from bot.leaderboard import (
    GAME_TITLES,
    GAMES,
    SORT_LABELS,
    GameStats,
    HistoryEntry,
    LeaderboardPage,
    PlayerStats,
    SortKey,
    Standing,
    game_title,
    leaderboard_page,
    player_stats,
)
from bot.leaderboard import history as finished_games
from bot.pictures import palette
from bot.replies import Guarded
from bot.seasons import Season, closed_seasons, current_season, find_season
from bot.text import escape

GAME_CHOICES = [app_commands.Choice(name=title, value=game) for game, title in GAME_TITLES.items()]
SORT_CHOICES = [
    app_commands.Choice(name="rating", value="rating"),
    app_commands.Choice(name="wins", value="wins"),
    app_commands.Choice(name="win rate", value="win_rate"),
]
COLOUR = discord.Colour(palette.EMBED_INFO)
# Discord's limits, with a little room to spare.
DESCRIPTION_LIMIT = 4000
FIELD_LIMIT = 1000
SCORE_LINE_LIMIT = 60

DICEMAN_DICE = ("magic", "priority", "sword", "shield")
DUEL_FUNCTIONS = {
    "bluff": "Bluff",
    "disruptor": "Disruptor",
    "delayed_attack": "Delayed Attack",
    "deflector": "Deflector",
    "intensifier": "Intensifier",
    "changer_self": "Particle Changer (self)",
    "changer_opponent": "Particle Changer (opponent)",
}
OUTCOME_MARKS = {"win": "✅ Win", "loss": "❌ Loss", "draw": "🤝 Draw"}
REASON_NOTES = {"forfeit": " (forfeit)", "timeout": " (timeout)", "round_cap": " (round limit)"}


# -- small formatting helpers ----------------------------------------------------------------


def rating_text(standing: Standing) -> str:
    return f"{standing.ordinal:.1f}"


def record_text(wins: int, losses: int, draws: int) -> str:
    return f"{wins}/{losses}/{draws}"


# The rating in words, wherever players read it (never "μ − 3σ").
RATING_NOTE = "rating: a cautious estimate of skill that firms up as you play"


def player_name(user_id: int, display_name: str) -> str:
    """A player as a leaderboard or history names them: the stored display name, escaped
    (a mention only for a record from before names were kept)."""
    return escape(display_name) if display_name.strip() else f"<@{user_id}>"


def streak_text(streak: int) -> str:
    """``🔥 W3`` for a run of wins (the flame from two on: one win is not a streak yet)."""
    if streak > 1:
        return f"🔥 W{streak}"
    if streak == 1:
        return "W1"
    if streak < 0:
        return f"L{-streak}"
    return "—"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def join_lines(lines: list[str], limit: int) -> str:
    """Lines joined up to ``limit`` characters, dropping whole lines at the end."""
    kept: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > limit:
            kept.append("…")
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(kept)


def when(timestamp: float) -> str:
    return f"<t:{int(timestamp)}:R>"


def favourite_text(game: str, pick: str) -> str:
    if game == "diceman":
        dice = sorted(
            pick.split("+"), key=lambda d: DICEMAN_DICE.index(d) if d in DICEMAN_DICE else 9
        )
        return " + ".join(die.capitalize() for die in dice)
    if game == "dimension_duel":
        return DUEL_FUNCTIONS.get(pick, pick.replace("_", " ").capitalize())
    return pick


def start_hint(bot: DiceBot, game: str) -> str:
    """How to start a game of ``game``, from the commands its cog actually registered. The
    cog is the session handler itself or holds it as ``handler`` (the secret duels)."""
    handler = bot.sessions.handlers.get(game)
    for cog in bot.cogs.values():
        if not isinstance(cog, commands.GroupCog) or cog.app_command is None:
            continue
        owns = getattr(cog, "game", None) == game or (
            handler is not None and handler in (cog, getattr(cog, "handler", None))
        )
        if not owns:
            continue
        group = cog.app_command
        names = [command.name for command in group.commands]
        starters = [
            f"`/{group.name} {name}`" for name in ("challenge", "ai", "new") if name in names
        ]
        if starters:
            return "Start one with " + " or ".join(starters) + "."
    return "Start one with that game's slash command."


# -- /leaderboard ------------------------------------------------------------------------------


def season_heading(season: Season) -> str:
    """The line under a leaderboard's title (which names the season): since when it runs,
    or that these are a closed season's final standings and its dates."""
    if season.closed:
        assert season.started_at is not None and season.ended_at is not None
        return (
            f"**Final standings** of a closed season (<t:{int(season.started_at)}:D> – "
            f"<t:{int(season.ended_at)}:D>): they never change."
        )
    if season.started_at is None:
        return "The first season: it starts with the first game between players."
    return f"This season started <t:{int(season.started_at)}:D>."


def leaderboard_embed(board: LeaderboardPage, hint: str) -> discord.Embed:
    title = game_title(board.game)
    season = board.season
    label = f"Season {season.number}" + (f" · {escape(season.name)}" if season.name else "")
    embed = discord.Embed(title=f"🏆 {title} leaderboard — {label}", colour=COLOUR)
    lines: list[str] = [season_heading(season)]
    if board.empty and season.closed:
        lines.append(f"Nobody played {title} against other players in this season.")
    elif board.empty:
        lines.append(f"No finished {title} games between players this season yet. {hint}")
    elif board.ranked_total == 0:
        lines.append(
            f"Nobody has played {board.minimum_games} {title} games yet, so nobody is ranked: "
            "the provisional players are below."
        )
    else:
        lines.append("`#` Player · Rating · W/L/D · Games · Streak")
        for entry in board.rows:
            s = entry.standing
            lines.append(
                f"`{entry.rank:>2}` {player_name(s.user_id, s.display_name)} · "
                f"**{rating_text(s)}** · {record_text(s.wins, s.losses, s.draws)} · "
                f"{s.games} · {streak_text(s.streak)}"
            )
    embed.description = join_lines(lines, DESCRIPTION_LIMIT)
    if board.provisional:
        provisional_lines = [
            f"{player_name(s.user_id, s.display_name)} · {rating_text(s)} · "
            f"{record_text(s.wins, s.losses, s.draws)} · {s.games} of {board.minimum_games}"
            for s in board.provisional
        ]
        hidden = board.provisional_total - len(board.provisional)
        if hidden > 0:
            provisional_lines.append(f"…and {hidden} more")
        embed.add_field(
            name=f"Provisional (fewer than {board.minimum_games} games)",
            value=join_lines(provisional_lines, FIELD_LIMIT),
            inline=False,
        )
    if not board.empty:
        embed.set_footer(
            text=(
                f"Sorted by {SORT_LABELS[board.sort]} · page {board.page}/{board.pages} · "
                f"{board.ranked_total} ranked · {RATING_NOTE} · games against the AI are not "
                "ranked"
            )
        )
    return embed


class PageButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=(
        r"lb:(?P<game>[a-z_]{1,32}):(?P<sort>rating|wins|win_rate)"
        r":(?P<page>[1-9][0-9]{0,5}):(?P<dir>[pn])(?::s(?P<season>[1-9][0-9]{0,5}))?"
    ),
):
    def __init__(
        self,
        game: str,
        sort: SortKey,
        page: int,
        direction: str,
        *,
        season: int | None,
        disabled: bool,
    ) -> None:
        self.game, self.sort, self.page, self.season = game, sort, page, season
        label = "◀ Previous" if direction == "p" else "Next ▶"
        pinned = "" if season is None else f":s{season}"
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"lb:{game}:{sort}:{page}:{direction}{pinned}",
                disabled=disabled,
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PageButton:
        sort: SortKey = match["sort"]  # type: ignore[assignment]
        season = None if match["season"] is None else int(match["season"])
        return cls(
            match["game"], sort, int(match["page"]), match["dir"], season=season, disabled=False
        )

    async def handle(self, interaction: discord.Interaction) -> None:
        bot = interaction.client
        assert isinstance(bot, DiceBot)
        if interaction.guild_id is None or self.game not in GAME_TITLES:
            raise UserError("This leaderboard is no longer available: use `/leaderboard`.")
        fields = await leaderboard_fields(
            bot, interaction.guild_id, self.game, self.sort, self.page, self.season
        )
        await answer_for(interaction).update(**fields)


def leaderboard_view(board: LeaderboardPage) -> discord.ui.View | None:
    if board.pages <= 1:
        return None
    view = discord.ui.View(timeout=None)
    season = board.season.number
    view.add_item(
        PageButton(
            board.game,
            board.sort,
            max(1, board.page - 1),
            "p",
            season=season,
            disabled=board.page <= 1,
        )
    )
    view.add_item(
        PageButton(
            board.game,
            board.sort,
            min(board.pages, board.page + 1),
            "n",
            season=season,
            disabled=board.page >= board.pages,
        )
    )
    return view


async def seasons_known(bot: DiceBot, guild_id: int, game: str) -> str:
    """Which seasons of ``game`` exist here, for a refusal."""
    current = await current_season(bot.db, guild_id, game)
    closed = await closed_seasons(bot.db, guild_id, game, limit=1)
    if not closed:
        return f"{game_title(game)} has only season {current.number} here, the one running"
    return (
        f"{game_title(game)} seasons here run up to {current.number}, the one running "
        "(`/dicebot season list` shows them all)"
    )


async def leaderboard_fields(
    bot: DiceBot,
    guild_id: int,
    game: str,
    sort: SortKey,
    page: int,
    season_number: int | None = None,
) -> dict[str, Any]:
    settings = await bot.sessions.guild_settings(guild_id)
    season = None
    if season_number is not None:
        season = await find_season(bot.db, guild_id, game, season_number)
        if season is None:
            known = await seasons_known(bot, guild_id, game)
            raise UserError(f"There is no season {season_number}: {known}.")
    board = await leaderboard_page(
        bot.db,
        guild_id,
        game,
        season=season,
        sort=sort,
        page=page,
        provisional_games=settings.provisional_games,
    )
    return {
        "embed": leaderboard_embed(board, start_hint(bot, game)),
        "view": leaderboard_view(board),
        "allowed_mentions": discord.AllowedMentions.none(),
    }


# -- /stats ------------------------------------------------------------------------------------


def game_stats_text(stats: GameStats) -> str:
    """One game's field: this season's rating and rank, then the lifetime record."""
    s = stats.standing
    season = f"Season {stats.season.number}" + (
        f" · {escape(stats.season.name)}" if stats.season.name else ""
    )
    record = stats.this_season
    lines: list[str] = []
    if record is None:
        if s.games:
            lines.append(f"{season}: no games against other players yet this season.")
    elif stats.rank is None:
        lines.append(
            f"{season}: rating **{record.ordinal:.1f}** · provisional ({record.games} of "
            f"{stats.minimum_games} games to be ranked)"
        )
    else:
        lines.append(
            f"{season}: rating **{record.ordinal:.1f}** · rank **#{stats.rank}** of "
            f"{stats.ranked_total} · W/L/D {record_text(record.wins, record.losses, record.draws)}"
        )
    if s.games == 0:
        lines.append("No games against other players yet.")
    else:
        lines.append(
            f"All time: W/L/D **{record_text(s.wins, s.losses, s.draws)}** · win rate "
            f"**{percent(s.win_rate)}** · {s.games} game{'' if s.games == 1 else 's'}"
        )
        lines.append(f"Streak {streak_text(s.streak)} · best win streak **{s.best_streak}**")
    if s.ai_games:
        lines.append(f"vs the AI (not ranked): {record_text(s.ai_wins, s.ai_losses, s.ai_draws)}")
    if stats.game == "knucklebones" and s.average_score is not None:
        lines.append(f"Average final score: **{s.average_score:.1f}**")
    if stats.favourite is not None:
        what = {"diceman": "Favourite dice", "dimension_duel": "Favourite function"}.get(
            stats.game, "Favourite pick"
        )
        unit = "round" if stats.game == "diceman" else "turn"
        lines.append(
            f"{what}: **{favourite_text(stats.game, stats.favourite.pick)}** "
            f"({stats.favourite.uses} {unit}{'' if stats.favourite.uses == 1 else 's'})"
        )
    return join_lines(lines, FIELD_LIMIT)


def opponents_text(entry: HistoryEntry, user_id: int) -> str:
    others = [p for p in entry.players if p.user_id != user_id or p.is_ai]
    if len(others) == 1:
        return f"vs {player_name(others[0].user_id, others[0].display_name)}"
    return f"with {len(others)} others"


_TWO_SCORES = re.compile(r"(?P<prefix>[^0-9–-]*)(?P<a>-?[0-9]+)–(?P<b>-?[0-9]+)")


def oriented_score_line(entry: HistoryEntry, first_seat: int) -> str | None:
    """A two-player score line ("38–43", "Life 20–4", stored in seat order) with
    ``first_seat``'s score first, so it reads in the order the sentence names the
    players ("bob beat alice · 43–38")."""
    line = entry.score_line
    if not line:
        return None
    match = _TWO_SCORES.fullmatch(line)
    if match is None or len(entry.players) != 2 or first_seat not in (0, 1):
        return line
    scores = (match["a"], match["b"])
    return f"{match['prefix']}{scores[first_seat]}–{scores[1 - first_seat]}"


def recent_line(entry: HistoryEntry, user_id: int) -> str:
    me = entry.player(user_id)
    outcome = OUTCOME_MARKS.get(me.outcome, me.outcome) if me is not None else "·"
    parts = [f"{outcome}{REASON_NOTES.get(entry.reason, '')}", game_title(entry.game)]
    parts.append(opponents_text(entry, user_id))
    score_line = oriented_score_line(entry, me.seat) if me is not None else entry.score_line
    if score_line:
        # A score line may hold names (Weighted Dice's top three): shown as written.
        parts.append(escape(score_line, SCORE_LINE_LIMIT))
    parts.append(when(entry.finished_at))
    if entry.link:
        parts.append(f"[game]({entry.link})")
    return " · ".join(parts)


def stats_embed(stats: PlayerStats, name: str) -> discord.Embed:
    embed = discord.Embed(title=f"📊 {escape(name, 100)} — stats in this server", colour=COLOUR)
    if stats.empty:
        embed.description = (
            f"{escape(name)} has not finished a game in this server yet. "
            "See `/help` for the games, or look at `/leaderboard`."
        )
        return embed
    for game_stats in stats.games:
        embed.add_field(
            name=game_title(game_stats.game), value=game_stats_text(game_stats), inline=False
        )
    if stats.recent:
        lines = [recent_line(entry, stats.user_id) for entry in stats.recent]
        embed.add_field(
            name=f"Last {len(lines)} result{'s' if len(lines) != 1 else ''}",
            value=join_lines(lines, FIELD_LIMIT),
            inline=False,
        )
    embed.set_footer(
        text=RATING_NOTE[0].upper() + RATING_NOTE[1:] + "; it starts fresh each season. "
        "Records and streaks are all time."
    )
    return embed


# -- /history ----------------------------------------------------------------------------------


def players_text(entry: HistoryEntry) -> str:
    def name(player: Any) -> str:
        return player_name(player.user_id, player.display_name)

    players = sorted(entry.players, key=lambda p: (p.place, p.seat))
    if not players:
        return ""
    if len(players) == 2:
        first, second = players
        if entry.draw:
            return f"{name(first)} and {name(second)} drew"
        verb = "beat"
        if entry.reason == "forfeit":
            verb = "won by forfeit against"
        elif entry.reason == "timeout":
            verb = "won on time against"
        return f"{name(first)} {verb} {name(second)}"
    winners = [p for p in players if p.outcome == "win"]
    if entry.draw or not winners:
        return f"{len(players)} players, a draw"
    return f"🏆 {', '.join(name(p) for p in winners)} ({len(players)} players)"


def history_line(entry: HistoryEntry) -> str:
    parts = [f"**{game_title(entry.game)}**", players_text(entry)]
    named_first = min(entry.players, key=lambda p: (p.place, p.seat), default=None)
    score_line = (
        entry.score_line if named_first is None else oriented_score_line(entry, named_first.seat)
    )
    if score_line:
        parts.append(escape(score_line, SCORE_LINE_LIMIT))
    parts.append(when(entry.finished_at))
    if entry.link:
        parts.append(f"[game]({entry.link})")
    return " · ".join(part for part in parts if part)


def history_embed(entries: list[HistoryEntry], game: str | None, who: str | None) -> discord.Embed:
    scope = game_title(game) + " games" if game is not None else "games"
    title = f"📜 Recent {scope}" + (f" of {escape(who, 80)}" if who else "")
    embed = discord.Embed(title=title, colour=COLOUR)
    if not entries:
        embed.description = "No finished games match in this server yet."
    else:
        embed.description = join_lines([history_line(e) for e in entries], DESCRIPTION_LIMIT)
    return embed


# -- the cog -----------------------------------------------------------------------------------


class Leaderboards(commands.Cog):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.register_components(PageButton)

    @app_commands.command(
        name="leaderboard",
        description="This server's ranking in one game.",
        extras={"public": True},
    )
    @app_commands.describe(
        game="Which game.",
        sort="Order by rating (default), wins or win rate.",
        page="Which page of ten (default 1).",
        season="A past season's final standings, by number (default: the season running).",
    )
    @app_commands.choices(game=GAME_CHOICES, sort=SORT_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(
        self,
        interaction: discord.Interaction,
        game: str,
        sort: str = "rating",
        page: app_commands.Range[int, 1, 100_000] = 1,
        season: app_commands.Range[int, 1, 100_000] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        if game not in GAME_TITLES or sort not in SORT_LABELS:
            raise UserError("Pick a game and a sort from the lists Discord offers.")
        sort_key: SortKey = sort  # type: ignore[assignment]
        fields = await leaderboard_fields(
            self.bot, interaction.guild_id, game, sort_key, page, season
        )
        await answer_for(interaction).send(ephemeral=False, **fields)

    @app_commands.command(
        name="stats", description="A player's record in this server.", extras={"public": True}
    )
    @app_commands.describe(user="Whose stats (default: yours).")
    @app_commands.guild_only()
    async def stats(
        self, interaction: discord.Interaction, user: discord.Member | discord.User | None = None
    ) -> None:
        assert interaction.guild_id is not None
        target = user or interaction.user
        settings = await self.bot.sessions.guild_settings(interaction.guild_id)
        found = await player_stats(
            self.bot.db,
            interaction.guild_id,
            target.id,
            provisional_games=settings.provisional_games,
        )
        await answer_for(interaction).send(
            ephemeral=False,
            embed=stats_embed(found, target.display_name),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(
        name="history", description="Recent finished games in this server.", extras={"public": True}
    )
    @app_commands.describe(game="Only this game.", user="Only this player's games.")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.guild_only()
    async def history(
        self,
        interaction: discord.Interaction,
        game: str | None = None,
        user: discord.Member | discord.User | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        if game is not None and game not in GAMES:
            raise UserError("Pick a game from the list Discord offers.")
        entries = await finished_games(
            self.bot.db,
            interaction.guild_id,
            game=game,
            user_id=None if user is None else user.id,
        )
        await answer_for(interaction).send(
            ephemeral=False,
            embed=history_embed(entries, game, None if user is None else user.display_name),
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Leaderboards(bot))
