"""How ``/leaderboard``, ``/stats`` and ``/history`` look: their embeds, from the read
models of ``bot.ladder.standings``. Pure: no I/O, no database, no clock. What they say of
one game beyond its record (the favourite pick's words, the average final score, a score
line's leading word) comes from the game's guide (``bot.model.guide``).

Players appear under the display name they last played under in this server (stored
with their rating and with each game's seats), escaped: a mention would show as an
unknown user to anyone whose client has not loaded that member, or once they left.
"""

from __future__ import annotations

import re

import discord

from bot.i18n import N_, _, list_of, ngettext, number
from bot.i18n import percent as percent_text
from bot.ladder.results import RATING_START, shown_rating
from bot.ladder.seasons import Season
from bot.ladder.standings import (
    Favourite,
    GameStats,
    HeadToHead,
    HistoryEntry,
    HistoryPlayer,
    LeaderboardPage,
    LifetimeGame,
    LifetimeStats,
    PlayerStats,
    Standing,
)
from bot.model.catalog import game_title
from bot.model.guide import GameGuide, GuideBook
from bot.model.text import escape
from bot.pictures import palette
from cogs.texts import (
    DESCRIPTION_LIMIT,
    FIELD_LIMIT,
    FOOTER_LIMIT,
    TITLE_LIMIT,
    clip_text,
    command_text,
    join_lines,
    player_name,
)

COLOUR = discord.Colour(palette.EMBED_INFO)
SCORE_LINE_LIMIT = 60
# A select menu option's label and description: at most 100 characters each (Discord).
OPTION_TEXT_LIMIT = 100

OUTCOME_MARKS = {"win": "✅", "loss": "❌", "draw": "🤝"}
# Translators: a player's result in one game, after its emoji (✅ Win).
OUTCOME_WORDS = {"win": N_("Win"), "loss": N_("Loss"), "draw": N_("Draw")}
# Translators: how a game ended, after its result ("Win (forfeit)").
REASON_NOTES = {"forfeit": N_("forfeit"), "timeout": N_("timeout"), "round_cap": N_("round limit")}


# -- small formatting helpers ----------------------------------------------------------------


def rating_text(standing: Standing) -> str:
    return number(shown_rating(standing.ordinal))


def record_text(wins: int, losses: int, draws: int) -> str:
    return f"{number(wins)}/{number(losses)}/{number(draws)}"


def rating_note() -> str:
    """The rating in words, wherever players read it (never "μ − 3σ")."""
    return _(
        "rating: a cautious estimate of skill, starting at {start}, that firms up as you play"
    ).format(start=number(RATING_START))


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


def when(timestamp: float) -> str:
    return f"<t:{int(timestamp)}:R>"


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
            _("No finished {game} games between players this season yet.").format(game=title)
            + " "
            + hint
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
        # Translators: the column heads of a leaderboard; W/L/D are the initials of
        # Wins/Losses/Draws above a record such as 3/1/0.
        lines.append("`#` " + _("Player · Rating · W/L/D · Games · Streak"))
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
        # Short notes, each its own text, in a row.
        notes = [
            _(SORTED_BY.get(board.sort, SORTED_BY["rating"])),
            _("page {page}/{pages}").format(page=number(board.page), pages=number(board.pages)),
            _("{ranked} ranked").format(ranked=number(board.ranked_total)),
            rating_note(),
            _("games against the AI are not ranked"),
        ]
        embed.set_footer(text=clip_text(" · ".join(notes), FOOTER_LIMIT))
    return embed


# -- /stats ------------------------------------------------------------------------------------


# How a leaderboard is sorted (its ``sort`` option), as its footer says it.
SORTED_BY = {
    "rating": N_("Sorted by rating"),
    "wins": N_("Sorted by wins"),
    "win_rate": N_("Sorted by win rate"),
}


# A game whose guide counts no picks (or is not loaded) words a favourite plainly.
FAVOURITE_PICK = N_("Favourite pick")


def favourite_line(favourite: Favourite | None, guide: GameGuide | None) -> str | None:
    """The favourite pick as the game's guide words it ("Favourite dice: **Priority +
    Sword** (2 rounds)")."""
    if favourite is None:
        return None
    picks = guide.picks if guide is not None else None
    if picks is None:
        what, pick = _(FAVOURITE_PICK), favourite.pick
        uses = ngettext("{count} turn", "{count} turns", favourite.uses)
    else:
        what, pick, uses = _(picks.head), picks.words(favourite.pick), picks.uses(favourite.uses)
    return _("{what}: **{pick}** ({uses})").format(
        what=what, pick=pick, uses=uses.format(count=number(favourite.uses))
    )


def game_stats_text(stats: GameStats, guide: GameGuide | None) -> str:
    """One game's field: this season's rating and rank, then the lifetime record, and the
    lines its guide adds (the average final score, the favourite pick)."""
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
                rating=number(shown_rating(record.ordinal)),
                games=number(record.games),
                needed=number(stats.minimum_games),
            )
        )
    else:
        lines.append(
            # Translators: W/L/D are the initials of Wins/Losses/Draws before a record such
            # as 3/1/0.
            _(
                "{season}: rating **{rating}** · rank **#{rank}** of {ranked} · W/L/D {record}"
            ).format(
                season=season,
                rating=number(shown_rating(record.ordinal)),
                rank=number(stats.rank),
                ranked=number(stats.ranked_total),
                record=record_text(record.wins, record.losses, record.draws),
            )
        )
    if s.games == 0:
        lines.append(_("No games against other players yet."))
    else:
        lines.append(all_time_line(s.wins, s.losses, s.draws, s.games))
        lines.append(
            _("Streak {streak} · best win streak **{best}**").format(
                streak=streak_text(s.streak), best=number(s.best_streak)
            )
        )
    lines.extend(guide_lines(s, stats.favourite, guide))
    return join_lines(lines, FIELD_LIMIT)


def all_time_line(wins: int, losses: int, draws: int, games: int) -> str:
    """``All time: W/L/D **3/1/0** · win rate **75%** · 4 games`` (games against players)."""
    return ngettext(
        "All time: W/L/D **{record}** · win rate **{rate}** · {count} game",
        "All time: W/L/D **{record}** · win rate **{rate}** · {count} games",
        games,
    ).format(
        record=record_text(wins, losses, draws),
        rate=percent(None if games == 0 else wins / games),
        count=number(games),
    )


def guide_lines(
    record: Standing | LifetimeGame, favourite: Favourite | None, guide: GameGuide | None
) -> list[str]:
    """What a record adds under its games against players: the record against the AI, and
    what the game's guide words (the average final score, the favourite pick)."""
    lines: list[str] = []
    if record.ai_games:
        lines.append(
            _("vs the AI (not ranked): {record}").format(
                record=record_text(record.ai_wins, record.ai_losses, record.ai_draws)
            )
        )
    average = guide.average_score if guide is not None else None
    if average is not None and record.average_score is not None:
        lines.append(_(average).format(score=number(record.average_score, 1)))
    favourite_text = favourite_line(favourite, guide)
    if favourite_text is not None:
        lines.append(favourite_text)
    return lines


def opponents_text(entry: HistoryEntry, user_id: int) -> str:
    others = [p for p in entry.players if p.user_id != user_id or p.is_ai]
    if len(others) == 1:
        # Translators: the opponent in a game ("vs bob").
        return _("vs {name}").format(name=player_name(others[0].user_id, others[0].display_name))
    return ngettext("with {count} other", "with {count} others", len(others)).format(
        count=number(len(others))
    )


_TWO_SCORES = re.compile(r"(?P<prefix>[^0-9–-]*)(?P<a>-?[0-9]+)–(?P<b>-?[0-9]+)")


def oriented_score_line(entry: HistoryEntry, first_seat: int, guides: GuideBook) -> str | None:
    """A two-player score line ("38–43", "Life 20–4", stored in seat order) with
    ``first_seat``'s score first, so it reads in the order the sentence names the
    players ("bob beat alice · 43–38"), its leading word in the reader's language."""
    line = entry.score_line
    if not line:
        return None
    match = _TWO_SCORES.fullmatch(line)
    if match is None or len(entry.players) != 2 or first_seat not in (0, 1):
        return line
    scores = (match["a"], match["b"])
    prefix = score_prefix(match["prefix"], guides)
    return f"{prefix}{scores[first_seat]}–{scores[1 - first_seat]}"


def score_prefix(prefix: str, guides: GuideBook) -> str:
    """The word a stored score line starts with (stored in English: the duels' "Life 20–4",
    "HP 12–0"), in the reader's language when a game's guide names it."""
    word = prefix.strip()
    if not word or all(guide.score_word != word for guide in guides):
        return prefix
    return prefix.replace(word, _(word))


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


def with_friends_label() -> str:
    """What marks a game played with friends (outside servers) in a list of games."""
    # Translators: marks a game played outside servers, in a DM or a group DM.
    return "👥 " + _("with friends")


def recent_line(entry: HistoryEntry, user_id: int, guides: GuideBook) -> str:
    me = entry.player(user_id)
    outcome = outcome_text(me.outcome, entry.reason) if me is not None else "·"
    parts = [outcome, game_title(entry.game)]
    if entry.with_friends:
        parts.append(with_friends_label())
    parts.append(opponents_text(entry, user_id))
    score_line = oriented_score_line(entry, me.seat, guides) if me is not None else entry.score_line
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


def stats_embed(stats: PlayerStats, name: str, guides: GuideBook) -> discord.Embed:
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
        text = game_stats_text(game_stats, guides.get(game_stats.game))
        embed.add_field(name=game_title(game_stats.game), value=text, inline=False)
    if stats.recent:
        lines = [recent_line(entry, stats.user_id, guides) for entry in stats.recent]
        embed.add_field(
            name=ngettext("Last {count} result", "Last {count} results", len(lines)).format(
                count=number(len(lines))
            ),
            value=join_lines(lines, FIELD_LIMIT),
            inline=False,
        )
    embed.set_footer(
        text=_(
            "Rating: a cautious estimate of skill, starting at {start}, that firms up as you "
            "play; it starts fresh each season. Records and streaks are all time."
        ).format(start=number(RATING_START))
    )
    return embed


# -- /stats outside servers --------------------------------------------------------------------


def lifetime_game_text(stats: LifetimeGame, guide: GameGuide | None) -> str:
    """One game's field outside servers: the record in every server and with friends, the
    part played with friends, then what its guide adds."""
    lines: list[str] = []
    if stats.games == 0:
        lines.append(_("No games against other players yet."))
    else:
        lines.append(all_time_line(stats.wins, stats.losses, stats.draws, stats.games))
    friends = stats.with_friends
    if friends.games:
        lines.append(
            ngettext(
                "With friends: W/L/D **{record}** · {count} game",
                "With friends: W/L/D **{record}** · {count} games",
                friends.games,
            ).format(
                record=record_text(friends.wins, friends.losses, friends.draws),
                count=number(friends.games),
            )
        )
    lines.extend(guide_lines(stats, stats.favourite, guide))
    return join_lines(lines, FIELD_LIMIT)


def head_to_head_text(together: list[HeadToHead], first: str, second: str) -> str:
    """Each game two players finished together, from ``first``'s side."""
    if not together:
        return _("{first} and {second} have not finished a game together yet.").format(
            first=first, second=second
        )
    return join_lines(
        [
            # Translators: W/L/D are the initials of Wins/Losses/Draws before a record such
            # as 3/1/0; {name} is the player whose wins come first.
            _("{game}: W/L/D **{record}** for {name}").format(
                game=game_title(line.game),
                record=record_text(line.record.wins, line.record.losses, line.record.draws),
                name=first,
            )
            for line in together
        ],
        FIELD_LIMIT,
    )


def lifetime_stats_embed(
    stats: LifetimeStats, name: str, viewer_name: str, guides: GuideBook
) -> discord.Embed:
    """``/stats`` outside servers (a DM, a group DM, a server without the bot): ``name``'s
    record in every server and with friends; asked by someone else (``viewer_name``), their
    head-to-head record too. Only games with friends the viewer played are listed."""
    shown, viewer = escape(name, 100), escape(viewer_name, 100)
    embed = discord.Embed(
        title=clip_text(
            _("📊 {name} — stats in every server and with friends").format(name=shown),
            TITLE_LIMIT,
        ),
        colour=COLOUR,
    )
    if stats.empty:
        embed.description = _(
            "{name} has not finished a game yet. See {help} for the games."
        ).format(name=escape(name), help=command_text("help"))
    for game_stats in stats.games:
        text = lifetime_game_text(game_stats, guides.get(game_stats.game))
        embed.add_field(name=game_title(game_stats.game), value=text, inline=False)
    if stats.head_to_head is not None:
        embed.add_field(
            name=clip_text(
                _("⚔️ Head to head: {first} vs {second}").format(first=viewer, second=shown),
                TITLE_LIMIT,
            ),
            value=head_to_head_text(stats.head_to_head, viewer, shown),
            inline=False,
        )
    if stats.recent:
        lines = [recent_line(entry, stats.user_id, guides) for entry in stats.recent]
        count = len(lines)
        if stats.head_to_head is None:
            heading = ngettext(
                "Last {count} result outside servers", "Last {count} results outside servers", count
            )
        else:
            heading = ngettext(
                "Last {count} game together with friends",
                "Last {count} games together with friends",
                count,
            )
        embed.add_field(
            name=heading.format(count=number(count)),
            value=join_lines(lines, FIELD_LIMIT),
            inline=False,
        )
    if not stats.empty:
        embed.set_footer(
            text=_(
                "Records count the games in every server and with friends. Ratings, ranks "
                "and seasons belong to each server's leaderboard."
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


def history_score_line(entry: HistoryEntry, guides: GuideBook) -> str | None:
    """A history entry's score line, the player named first (the winner) first, its
    leading word in the reader's language."""
    named_first = min(entry.players, key=lambda p: (p.place, p.seat), default=None)
    if named_first is None:
        return entry.score_line
    return oriented_score_line(entry, named_first.seat, guides)


def history_line(entry: HistoryEntry, guides: GuideBook) -> str:
    parts = [f"**{game_title(entry.game)}**"]
    if entry.with_friends:
        parts.append(with_friends_label())
    parts.append(players_text(entry))
    score_line = history_score_line(entry, guides)
    if score_line:
        parts.append(escape(score_line, SCORE_LINE_LIMIT))
    parts.append(when(entry.finished_at))
    if entry.link:
        parts.append(game_link(entry.link))
    return " · ".join(part for part in parts if part)


def replay_choices(entries: list[HistoryEntry], guides: GuideBook) -> list[tuple[int, str, str]]:
    """The games of a history that can be replayed, as the picker lists them: (session
    id, "1. Knucklebones · 68–25", the players), numbered and scored as the history's
    lines read."""
    choices = []
    for index, entry in enumerate(entries, start=1):
        if entry.session_id is None:
            continue
        label = f"{number(index)}. {game_title(entry.game)}"
        score_line = history_score_line(entry, guides)
        if score_line:
            label += f" · {score_line}"
        names = [player.display_name for player in entry.players if player.display_name]
        choices.append((entry.session_id, label, names_within(names, OPTION_TEXT_LIMIT)))
    return choices


def names_within(names: list[str], limit: int) -> str:
    """The players' names in at most ``limit`` characters, whole names only: all of them
    if they fit, else as many as fit and how many more (a 12-seat table's names do not
    fit a menu option's description, and one cut in the middle reads as a typo)."""
    every = list_of(names)
    if len(every) <= limit:
        return every
    for shown in range(len(names) - 1, 0, -1):
        more = len(names) - shown
        # Translators: the players of a game in a menu, when not all fit: "ana, bo and 9 more".
        text = ngettext("{names} and {count} more", "{names} and {count} more", more).format(
            names=", ".join(names[:shown]), count=number(more)
        )
        if len(text) <= limit:
            return text
    return every


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


def history_embed(
    entries: list[HistoryEntry], game: str | None, who: str | None, guides: GuideBook
) -> discord.Embed:
    embed = discord.Embed(title=history_title(game, who), colour=COLOUR)
    if not entries:
        embed.description = _("No finished games match in this server yet.")
    else:
        lines = [history_line(e, guides) for e in entries]
        embed.description = join_lines(lines, DESCRIPTION_LIMIT)
    return embed


def outside_history_title(game: str | None, name: str, together_with: str | None) -> str:
    """The title of ``/history`` outside servers: ``name``'s games there, or only those
    with ``together_with``."""
    shown = escape(name, 80)
    if together_with is not None:
        other = escape(together_with, 80)
        if game is not None:
            title = _("📜 Recent {game} games between {first} and {second} outside servers").format(
                game=game_title(game), first=shown, second=other
            )
        else:
            title = _("📜 Recent games between {first} and {second} outside servers").format(
                first=shown, second=other
            )
    elif game is not None:
        title = _("📜 Recent {game} games of {name} outside servers").format(
            game=game_title(game), name=shown
        )
    else:
        title = _("📜 Recent games of {name} outside servers").format(name=shown)
    return clip_text(title, TITLE_LIMIT)


def outside_history_embed(
    entries: list[HistoryEntry],
    game: str | None,
    name: str,
    together_with: str | None,
    guides: GuideBook,
) -> discord.Embed:
    """``/history`` outside servers (a DM, a group DM, a server without the bot): the
    caller's games there (with friends, and against the AI), or only those with one
    friend; each game with friends says so."""
    embed = discord.Embed(title=outside_history_title(game, name, together_with), colour=COLOUR)
    if not entries:
        embed.description = _("No finished games outside servers match yet.")
    else:
        embed.description = join_lines(
            [history_line(e, guides) for e in entries], DESCRIPTION_LIMIT
        )
    return embed
