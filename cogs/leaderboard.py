"""``/leaderboard``, ``/stats`` and ``/history``: this server's ladders and records.

The queries live in ``bot.ladder.standings``; this module renders them as embeds. A
leaderboard is one season's (``bot.ladder.seasons``): the one running, or a closed one's final
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

from bot import i18n
from bot.app import DiceBot
from bot.i18n import N_, _, list_of, ngettext, number, pgettext
from bot.i18n import percent as percent_text
from bot.ladder.seasons import Season, closed_seasons, current_season, find_season
from bot.ladder.standings import (
    SORT_LABELS,
    GameStats,
    HistoryEntry,
    HistoryPlayer,
    LeaderboardPage,
    PlayerStats,
    SortKey,
    Standing,
    leaderboard_page,
    player_stats,
)
from bot.ladder.standings import history as finished_games
from bot.model.catalog import GAME_TITLES, GAMES, game_title
from bot.model.errors import UserError
from bot.model.text import escape
from bot.pictures import palette
from bot.ui.answers import answer_for
from bot.ui.languages import public_language
from bot.ui.replies import Guarded

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
FOOTER_LIMIT = 2000
TITLE_LIMIT = 250
SCORE_LINE_LIMIT = 60

DICEMAN_DICE = {
    "magic": N_("Magic"),
    "priority": N_("Priority"),
    "sword": N_("Sword"),
    "shield": N_("Shield"),
}
DUEL_FUNCTIONS = {
    "bluff": N_("Bluff"),
    "disruptor": N_("Disruptor"),
    "delayed_attack": N_("Delayed Attack"),
    "deflector": N_("Deflector"),
    "intensifier": N_("Intensifier"),
    "changer_self": N_("Particle Changer (self)"),
    "changer_opponent": N_("Particle Changer (opponent)"),
}
OUTCOME_MARKS = {"win": "✅", "loss": "❌", "draw": "🤝"}
# Translators: a player's result in one game, after its emoji (✅ Win).
OUTCOME_WORDS = {"win": N_("Win"), "loss": N_("Loss"), "draw": N_("Draw")}
# Translators: how a game ended, after its result ("Win (forfeit)").
REASON_NOTES = {"forfeit": N_("forfeit"), "timeout": N_("timeout"), "round_cap": N_("round limit")}


# -- small formatting helpers ----------------------------------------------------------------


def rating_text(standing: Standing) -> str:
    return number(standing.ordinal, 1)


def record_text(wins: int, losses: int, draws: int) -> str:
    return f"{number(wins)}/{number(losses)}/{number(draws)}"


def record_heading() -> str:
    # Translators: the initials of Wins/Losses/Draws above a record such as 3/1/0.
    return _("W/L/D")


def rating_note() -> str:
    """The rating in words, wherever players read it (never "μ − 3σ")."""
    return _("rating: a cautious estimate of skill that firms up as you play")


def player_name(user_id: int, display_name: str) -> str:
    """A player as a leaderboard or history names them: the stored display name, escaped
    (a mention only for a record from before names were kept)."""
    return escape(display_name) if display_name.strip() else f"<@{user_id}>"


def streak_text(streak: int) -> str:
    """``🔥 W3`` for a run of wins (the flame from two on: one win is not a streak yet)."""
    if streak > 0:
        # Translators: a streak of wins, W and the count (W3); keep it very short.
        text = _("W{count}").format(count=number(streak))
        return f"🔥 {text}" if streak > 1 else text
    if streak < 0:
        # Translators: a streak of losses, L and the count (L2); keep it very short.
        return _("L{count}").format(count=number(-streak))
    return "—"


def percent(value: float | None) -> str:
    return "—" if value is None else percent_text(value)


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


def clip_text(text: str, limit: int) -> str:
    """``text`` shortened with an ellipsis to at most ``limit`` characters (lines kept)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def when(timestamp: float) -> str:
    return f"<t:{int(timestamp)}:R>"


def favourite_text(game: str, pick: str) -> str:
    if game == "diceman":
        order = list(DICEMAN_DICE)
        dice = sorted(pick.split("+"), key=lambda d: order.index(d) if d in order else 9)
        return " + ".join(
            _(DICEMAN_DICE[die]) if die in DICEMAN_DICE else die.capitalize() for die in dice
        )
    if game == "dimension_duel":
        name = DUEL_FUNCTIONS.get(pick)
        return _(name) if name is not None else pick.replace("_", " ").capitalize()
    return pick


# The contexts the command translator asks names in. Passed as variables, so the catalogs'
# extractor leaves these look-ups alone: the names are the command areas' entries.
COMMAND_NAME, OPTION_NAME = "command name", "option name"


def command_word(name: str) -> str:
    """One word of a slash command (``challenge``) as Discord shows it in this language."""
    return pgettext(COMMAND_NAME, name)


def option_word(name: str) -> str:
    """An option's name (``best_of``) as Discord shows it in this language."""
    return pgettext(OPTION_NAME, name)


def command_text(*names: str) -> str:
    """A slash command as the player's client lists it: ``/knucklebones challenge`` with
    each word in the current language (the names the command translator gives Discord)."""
    return "`/" + " ".join(command_word(name) for name in names) + "`"


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
            command_text(group.name, name) for name in ("challenge", "ai", "new") if name in names
        ]
        if len(starters) == 1:
            return _("Start one with {command}.").format(command=starters[0])
        if len(starters) == 2:
            return _("Start one with {first} or {second}.").format(
                first=starters[0], second=starters[1]
            )
        if starters:
            # Translators: {commands} is a list of slash commands, joined the language's way.
            return _("Start one with {commands}.").format(commands=list_of(starters))
    return _("Start one with that game's slash command.")


# -- /leaderboard ------------------------------------------------------------------------------


def season_label(season: Season) -> str:
    """``Season 3`` or ``Season 3 · Summer cup`` (the name as the server wrote it)."""
    label = _("Season {number}").format(number=number(season.number))
    return label + (f" · {escape(season.name)}" if season.name else "")


def season_heading(season: Season) -> str:
    """The line under a leaderboard's title (which names the season): since when it runs,
    or that these are a closed season's final standings and its dates."""
    if season.closed:
        assert season.started_at is not None and season.ended_at is not None
        # Translators: {start} and {end} are dates Discord shows in each reader's language.
        return _(
            "**Final standings** of a closed season ({start} – {end}): they never change."
        ).format(start=f"<t:{int(season.started_at)}:D>", end=f"<t:{int(season.ended_at)}:D>")
    if season.started_at is None:
        return _("The first season: it starts with the first game between players.")
    # Translators: {date} is a date Discord shows in each reader's language.
    return _("This season started {date}.").format(date=f"<t:{int(season.started_at)}:D>")


def leaderboard_embed(board: LeaderboardPage, hint: str) -> discord.Embed:
    title = game_title(board.game)
    season = board.season
    embed = discord.Embed(
        title=clip_text(
            _("🏆 {game} leaderboard — {season}").format(game=title, season=season_label(season)),
            TITLE_LIMIT,
        ),
        colour=COLOUR,
    )
    lines: list[str] = [season_heading(season)]
    if board.empty and season.closed:
        lines.append(
            _("Nobody played {game} against other players in this season.").format(game=title)
        )
    elif board.empty:
        lines.append(
            _("No finished {game} games between players this season yet. {hint}").format(
                game=title, hint=hint
            )
        )
    elif board.ranked_total == 0:
        lines.append(
            ngettext(
                "Nobody has played {count} {game} game yet, so nobody is ranked: the "
                "provisional players are below.",
                "Nobody has played {count} {game} games yet, so nobody is ranked: the "
                "provisional players are below.",
                board.minimum_games,
            ).format(count=number(board.minimum_games), game=title)
        )
    else:
        # Translators: the column heads of a leaderboard; {record} is W/L/D.
        lines.append(
            "`#` "
            + _("Player · Rating · {record} · Games · Streak").format(record=record_heading())
        )
        for entry in board.rows:
            s = entry.standing
            lines.append(
                f"`{entry.rank:>2}` {player_name(s.user_id, s.display_name)} · "
                f"**{rating_text(s)}** · {record_text(s.wins, s.losses, s.draws)} · "
                f"{number(s.games)} · {streak_text(s.streak)}"
            )
    embed.description = join_lines(lines, DESCRIPTION_LIMIT)
    if board.provisional:
        provisional_lines = [
            f"{player_name(s.user_id, s.display_name)} · {rating_text(s)} · "
            f"{record_text(s.wins, s.losses, s.draws)} · "
            # Translators: games played out of those needed to be ranked ("2 of 3").
            + _("{games} of {needed}").format(
                games=number(s.games), needed=number(board.minimum_games)
            )
            for s in board.provisional
        ]
        hidden = board.provisional_total - len(board.provisional)
        if hidden > 0:
            provisional_lines.append(
                ngettext("…and {count} more", "…and {count} more", hidden).format(
                    count=number(hidden)
                )
            )
        embed.add_field(
            name=ngettext(
                "Provisional (fewer than {count} game)",
                "Provisional (fewer than {count} games)",
                board.minimum_games,
            ).format(count=number(board.minimum_games)),
            value=join_lines(provisional_lines, FIELD_LIMIT),
            inline=False,
        )
    if not board.empty:
        embed.set_footer(
            text=clip_text(
                _(
                    "Sorted by {sort} · page {page}/{pages} · {ranked} ranked · {rating_note} · "
                    "games against the AI are not ranked"
                ).format(
                    sort=_(SORT_LABELS[board.sort]),
                    page=number(board.page),
                    pages=number(board.pages),
                    ranked=number(board.ranked_total),
                    rating_note=rating_note(),
                ),
                FOOTER_LIMIT,
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
        label = "◀ " + _("Previous") if direction == "p" else _("Next") + " ▶"
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
            raise UserError(
                _("This leaderboard is no longer available: use {command}.").format(
                    command=command_text("leaderboard")
                )
            )
        with i18n.use(await public_language(bot, interaction.guild_id)):
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
        return _("{game} has only season {number} here, the one running").format(
            game=game_title(game), number=number(current.number)
        )
    return _(
        "{game} seasons here run up to {number}, the one running ({command} shows them all)"
    ).format(
        game=game_title(game),
        number=number(current.number),
        command=command_text("dicebot", "season", "list"),
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
            # Translators: {known} says which seasons exist ("Diceman has only season 1 here…").
            raise UserError(
                _("There is no season {number}: {known}.").format(
                    number=number(season_number), known=known
                )
            )
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


FAVOURITE_HEADS = {"diceman": N_("Favourite dice"), "dimension_duel": N_("Favourite function")}
FAVOURITE_PICK = N_("Favourite pick")


def favourite_line(stats: GameStats) -> str | None:
    favourite = stats.favourite
    if favourite is None:
        return None
    what = _(FAVOURITE_HEADS.get(stats.game, FAVOURITE_PICK))
    if stats.game == "diceman":
        uses = ngettext("{count} round", "{count} rounds", favourite.uses)
    else:
        uses = ngettext("{count} turn", "{count} turns", favourite.uses)
    return _("{what}: **{pick}** ({uses})").format(
        what=what,
        pick=favourite_text(stats.game, favourite.pick),
        uses=uses.format(count=number(favourite.uses)),
    )


def game_stats_text(stats: GameStats) -> str:
    """One game's field: this season's rating and rank, then the lifetime record."""
    s = stats.standing
    season = season_label(stats.season)
    record = stats.this_season
    lines: list[str] = []
    if record is None:
        if s.games:
            lines.append(
                _("{season}: no games against other players yet this season.").format(season=season)
            )
    elif stats.rank is None:
        lines.append(
            ngettext(
                "{season}: rating **{rating}** · provisional ({games} of {needed} game to be "
                "ranked)",
                "{season}: rating **{rating}** · provisional ({games} of {needed} games to be "
                "ranked)",
                stats.minimum_games,
            ).format(
                season=season,
                rating=number(record.ordinal, 1),
                games=number(record.games),
                needed=number(stats.minimum_games),
            )
        )
    else:
        lines.append(
            _(
                "{season}: rating **{rating}** · rank **#{rank}** of {ranked} · "
                "{record_heading} {record}"
            ).format(
                season=season,
                rating=number(record.ordinal, 1),
                rank=number(stats.rank),
                ranked=number(stats.ranked_total),
                record_heading=record_heading(),
                record=record_text(record.wins, record.losses, record.draws),
            )
        )
    if s.games == 0:
        lines.append(_("No games against other players yet."))
    else:
        lines.append(
            ngettext(
                "All time: {record_heading} **{record}** · win rate **{rate}** · {count} game",
                "All time: {record_heading} **{record}** · win rate **{rate}** · {count} games",
                s.games,
            ).format(
                record_heading=record_heading(),
                record=record_text(s.wins, s.losses, s.draws),
                rate=percent(s.win_rate),
                count=number(s.games),
            )
        )
        lines.append(
            _("Streak {streak} · best win streak **{best}**").format(
                streak=streak_text(s.streak), best=number(s.best_streak)
            )
        )
    if s.ai_games:
        lines.append(
            _("vs the AI (not ranked): {record}").format(
                record=record_text(s.ai_wins, s.ai_losses, s.ai_draws)
            )
        )
    if stats.game == "knucklebones" and s.average_score is not None:
        lines.append(_("Average final score: **{score}**").format(score=number(s.average_score, 1)))
    favourite = favourite_line(stats)
    if favourite is not None:
        lines.append(favourite)
    return join_lines(lines, FIELD_LIMIT)


def opponents_text(entry: HistoryEntry, user_id: int) -> str:
    others = [p for p in entry.players if p.user_id != user_id or p.is_ai]
    if len(others) == 1:
        # Translators: the opponent in a game ("vs bob").
        return _("vs {name}").format(name=player_name(others[0].user_id, others[0].display_name))
    return ngettext("with {count} other", "with {count} others", len(others)).format(
        count=number(len(others))
    )


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
    return f"{score_prefix(match['prefix'])}{scores[first_seat]}–{scores[1 - first_seat]}"


# The words a stored score line may start with (stored in English: the duels' "Life 20–4",
# "HP 12–0"), shown in the reader's language.
SCORE_WORDS = {"Life": N_("Life"), "HP": N_("HP")}


def score_prefix(prefix: str) -> str:
    word = SCORE_WORDS.get(prefix.strip())
    return prefix if word is None else prefix.replace(prefix.strip(), _(word))


def outcome_text(outcome: str, reason: str) -> str:
    """``✅ Win`` or ``❌ Loss (timeout)``: a player's result in one game."""
    mark = OUTCOME_MARKS.get(outcome, "·")
    word = OUTCOME_WORDS.get(outcome)
    text = f"{mark} {_(word)}" if word is not None else mark
    note = REASON_NOTES.get(reason)
    if note is not None:
        # Translators: a result and how the game ended ("✅ Win (forfeit)").
        text = _("{outcome} ({reason})").format(outcome=text, reason=_(note))
    return text


def recent_line(entry: HistoryEntry, user_id: int) -> str:
    me = entry.player(user_id)
    outcome = outcome_text(me.outcome, entry.reason) if me is not None else "·"
    parts = [outcome, game_title(entry.game)]
    parts.append(opponents_text(entry, user_id))
    score_line = oriented_score_line(entry, me.seat) if me is not None else entry.score_line
    if score_line:
        # A score line may hold names (Weighted Dice's top three): shown as written.
        parts.append(escape(score_line, SCORE_LINE_LIMIT))
    parts.append(when(entry.finished_at))
    if entry.link:
        parts.append(game_link(entry.link))
    return " · ".join(parts)


def game_link(link: str) -> str:
    # Translators: a link to a finished game's message, "[game](link)".
    return "[{label}]({link})".format(label=_("game"), link=link)


def stats_embed(stats: PlayerStats, name: str) -> discord.Embed:
    embed = discord.Embed(
        title=clip_text(
            _("📊 {name} — stats in this server").format(name=escape(name, 100)), TITLE_LIMIT
        ),
        colour=COLOUR,
    )
    if stats.empty:
        embed.description = _(
            "{name} has not finished a game in this server yet. See {help} for the games, "
            "or look at {leaderboard}."
        ).format(
            name=escape(name),
            help=command_text("help"),
            leaderboard=command_text("leaderboard"),
        )
        return embed
    for game_stats in stats.games:
        embed.add_field(
            name=game_title(game_stats.game), value=game_stats_text(game_stats), inline=False
        )
    if stats.recent:
        lines = [recent_line(entry, stats.user_id) for entry in stats.recent]
        embed.add_field(
            name=ngettext("Last {count} result", "Last {count} results", len(lines)).format(
                count=number(len(lines))
            ),
            value=join_lines(lines, FIELD_LIMIT),
            inline=False,
        )
    embed.set_footer(
        text=_(
            "Rating: a cautious estimate of skill that firms up as you play; it starts fresh "
            "each season. Records and streaks are all time."
        )
    )
    return embed


# -- /history ----------------------------------------------------------------------------------


def players_text(entry: HistoryEntry) -> str:
    def name(player: HistoryPlayer) -> str:
        return player_name(player.user_id, player.display_name)

    players = sorted(entry.players, key=lambda p: (p.place, p.seat))
    if not players:
        return ""
    if len(players) == 2:
        first, second = players
        if entry.draw:
            return _("{first} and {second} drew").format(first=name(first), second=name(second))
        if entry.reason == "forfeit":
            sentence = _("{winner} won by forfeit against {loser}")
        elif entry.reason == "timeout":
            sentence = _("{winner} won on time against {loser}")
        else:
            sentence = _("{winner} beat {loser}")
        return sentence.format(winner=name(first), loser=name(second))
    winners = [p for p in players if p.outcome == "win"]
    count = number(len(players))
    if entry.draw or not winners:
        return ngettext("{count} player, a draw", "{count} players, a draw", len(players)).format(
            count=count
        )
    return "🏆 " + ngettext(
        "{winners} ({count} player)", "{winners} ({count} players)", len(players)
    ).format(winners=", ".join(name(p) for p in winners), count=count)


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
        parts.append(game_link(entry.link))
    return " · ".join(part for part in parts if part)


def history_title(game: str | None, who: str | None) -> str:
    if game is not None and who:
        title = _("📜 Recent {game} games of {name}").format(
            game=game_title(game), name=escape(who, 80)
        )
    elif game is not None:
        title = _("📜 Recent {game} games").format(game=game_title(game))
    elif who:
        title = _("📜 Recent games of {name}").format(name=escape(who, 80))
    else:
        title = _("📜 Recent games")
    return clip_text(title, TITLE_LIMIT)


def history_embed(entries: list[HistoryEntry], game: str | None, who: str | None) -> discord.Embed:
    embed = discord.Embed(title=history_title(game, who), colour=COLOUR)
    if not entries:
        embed.description = _("No finished games match in this server yet.")
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
            raise UserError(_("Pick a game and a sort from the lists Discord offers."))
        sort_key: SortKey = sort  # type: ignore[assignment]
        # A public answer: everyone reads it in the server's language.
        with i18n.use(await public_language(self.bot, interaction.guild_id)):
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
        with i18n.use(await public_language(self.bot, interaction.guild_id)):
            embed = stats_embed(found, target.display_name)
        await answer_for(interaction).send(
            ephemeral=False, embed=embed, allowed_mentions=discord.AllowedMentions.none()
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
            raise UserError(_("Pick a game from the list Discord offers."))
        entries = await finished_games(
            self.bot.db,
            interaction.guild_id,
            game=game,
            user_id=None if user is None else user.id,
        )
        with i18n.use(await public_language(self.bot, interaction.guild_id)):
            embed = history_embed(entries, game, None if user is None else user.display_name)
        await answer_for(interaction).send(
            ephemeral=False, embed=embed, allowed_mentions=discord.AllowedMentions.none()
        )


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Leaderboards(bot))
