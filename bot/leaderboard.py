"""The read side of results and ratings: leaderboard pages (a season's), one player's
stats and recent history.

Everything here is per server (``guild_id``). A leaderboard is one season's ladder
(``season_ratings``, see ``bot.seasons``) that ``bot.results.record_result`` keeps up to
date in each game's own transaction, so a page is an indexed range read, never an
aggregate over all results. Lifetime records (``ratings``) feed ``/stats``.

Who is ranked: a player needs ``max(1, provisional_games)`` games against other players
in the season (games against the AI never count) to be ranked; players with fewer, but at
least one, are listed apart as provisional. A closed season uses the threshold it closed
under. Rank is the position in the rating order (conservative ordinal, then user id for
exact ties), the same in ``/leaderboard`` and ``/stats``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

# GAME_TITLES and game_title are re-exported for cogs/admin.py, which imports them from here.
from bot.catalog import GAME_TITLES as GAME_TITLES
from bot.catalog import GAMES
from bot.catalog import game_title as game_title
from bot.i18n import N_
from bot.seasons import Season, current_season
from bot.storage import Database, Row

SortKey = Literal["rating", "wins", "win_rate"]
# Translators: how a leaderboard is sorted ("Sorted by {sort}").
SORT_LABELS: dict[str, str] = {
    "rating": N_("rating"),
    "wins": N_("wins"),
    "win_rate": N_("win rate"),
}

PAGE_SIZE = 10
# How many provisional players a leaderboard page lists (the rest are counted).
PROVISIONAL_LISTED = 5
HISTORY_LIMIT = 10
RECENT_RESULTS = 5

# Each sort matches an index of season_ratings (migration 6), so a page reads only the
# rows it shows; the user id breaks exact ties the same way everywhere.
_ORDER_BY: dict[str, str] = {
    "rating": "s.ordinal DESC, s.user_id",
    "wins": "s.wins DESC, s.ordinal DESC, s.user_id",
    "win_rate": "CAST(s.wins AS REAL) / s.games DESC, s.games DESC, s.user_id",
}
_GAME_LIST = ", ".join(f"'{game}'" for game in GAMES)
_STANDING_COLUMNS = (
    "r.user_id, r.mu, r.sigma, r.ordinal, r.wins, r.losses, r.draws, r.games, r.streak,"
    " r.best_streak, r.ai_wins, r.ai_losses, r.ai_draws, r.score_total, r.scored_games,"
    " r.display_name"
)
# A season's ladder row, with the player's lifetime columns for what a season does not
# keep (the record against the AI, score averages, the name they last played under).
_SEASON_STANDING_COLUMNS = (
    "s.user_id, s.mu, s.sigma, s.ordinal, s.wins, s.losses, s.draws, s.games, s.streak,"
    " s.best_streak, r.ai_wins, r.ai_losses, r.ai_draws, r.score_total, r.scored_games,"
    " r.display_name"
)
_SEASON_JOIN = (
    "season_ratings s JOIN ratings r"
    " ON r.guild_id = s.guild_id AND r.game = s.game AND r.user_id = s.user_id"
)


def ladder_minimum(provisional_games: int) -> int:
    """Ladder games needed to be ranked: the server's threshold, and at least one game."""
    return max(1, provisional_games)


def message_link(guild_id: int, channel_id: int, message_id: int | None) -> str | None:
    if message_id is None:
        return None
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


@dataclass(frozen=True)
class Standing:
    """One player's record in one game on one server: lifetime in ``/stats``; on a
    leaderboard, the season's (the AI record and score averages stay lifetime)."""

    user_id: int
    mu: float
    sigma: float
    ordinal: float
    wins: int
    losses: int
    draws: int
    games: int
    streak: int
    best_streak: int
    ai_wins: int
    ai_losses: int
    ai_draws: int
    score_total: int
    scored_games: int
    # The name they last played under on this server ('' if unknown: shown as a mention).
    display_name: str = ""

    @classmethod
    def from_row(cls, row: Row) -> Standing:
        return cls(**{name: row[name] for name in cls.__dataclass_fields__})

    @property
    def win_rate(self) -> float | None:
        return None if self.games == 0 else self.wins / self.games

    @property
    def ai_games(self) -> int:
        return self.ai_wins + self.ai_losses + self.ai_draws

    @property
    def average_score(self) -> float | None:
        return None if self.scored_games == 0 else self.score_total / self.scored_games


@dataclass(frozen=True)
class Ranked:
    rank: int
    standing: Standing


@dataclass(frozen=True)
class LeaderboardPage:
    game: str
    season: Season
    sort: SortKey
    page: int  # 1-based, clamped to the pages that exist
    pages: int
    ranked_total: int
    rows: list[Ranked]
    provisional: list[Standing]
    provisional_total: int
    minimum_games: int

    @property
    def empty(self) -> bool:
        return self.ranked_total == 0 and self.provisional_total == 0


async def leaderboard_page(
    db: Database,
    guild_id: int,
    game: str,
    *,
    season: Season | None = None,
    sort: SortKey = "rating",
    page: int = 1,
    provisional_games: int = 3,
) -> LeaderboardPage:
    """One page of a season's ladder: the season running now (``season`` None), or a
    season found with ``bot.seasons.find_season`` (a closed one shows its final standings,
    under the threshold it closed with)."""
    if season is None:
        season = await current_season(db, guild_id, game)
    if season.provisional_games is not None:
        provisional_games = season.provisional_games
    minimum = ladder_minimum(provisional_games)
    where = "s.guild_id = ? AND s.game = ? AND s.season = ?"
    key = (guild_id, game, season.number)
    counts = await db.fetch_one(
        f"SELECT COUNT(*) AS ranked FROM season_ratings s WHERE {where} AND s.games >= ?",
        (*key, minimum),
    )
    ranked_total = 0 if counts is None else int(counts["ranked"])
    pages = max(1, -(-ranked_total // PAGE_SIZE))
    page = min(max(1, page), pages)
    rows = await db.fetch_all(
        f"SELECT {_SEASON_STANDING_COLUMNS} FROM {_SEASON_JOIN} WHERE {where}"
        f" AND s.games >= ? ORDER BY {_ORDER_BY[sort]} LIMIT ? OFFSET ?",
        (*key, minimum, PAGE_SIZE, (page - 1) * PAGE_SIZE),
    )
    first_rank = (page - 1) * PAGE_SIZE + 1
    provisional: list[Standing] = []
    provisional_total = 0
    if minimum > 1:
        # The few listed are picked (and all of them counted) on the ladder index alone;
        # only those few then read their rows: a big server has thousands provisional.
        provisional_rows = await db.fetch_all(
            f"SELECT {_SEASON_STANDING_COLUMNS}, top.total FROM ("
            "   SELECT user_id, ordinal, COUNT(*) OVER () AS total FROM season_ratings"
            "   WHERE guild_id = ? AND game = ? AND season = ? AND games BETWEEN 1 AND ?"
            "   ORDER BY ordinal DESC, user_id LIMIT ?"
            " ) top JOIN season_ratings s ON s.user_id = top.user_id"
            " JOIN ratings r"
            " ON r.guild_id = s.guild_id AND r.game = s.game AND r.user_id = s.user_id"
            f" WHERE {where} ORDER BY top.ordinal DESC, top.user_id",
            (*key, minimum - 1, PROVISIONAL_LISTED, *key),
        )
        provisional = [Standing.from_row(row) for row in provisional_rows]
        provisional_total = int(provisional_rows[0]["total"]) if provisional_rows else 0
    return LeaderboardPage(
        game=game,
        season=season,
        sort=sort,
        page=page,
        pages=pages,
        ranked_total=ranked_total,
        rows=[Ranked(first_rank + i, Standing.from_row(row)) for i, row in enumerate(rows)],
        provisional=provisional,
        provisional_total=provisional_total,
        minimum_games=minimum,
    )


# -- one player ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Favourite:
    pick: str
    uses: int


@dataclass(frozen=True)
class SeasonRecord:
    """One player's line on the ladder of the season running now."""

    ordinal: float
    wins: int
    losses: int
    draws: int
    games: int
    streak: int
    best_streak: int


@dataclass(frozen=True)
class GameStats:
    game: str
    standing: Standing  # lifetime
    season: Season  # the season running now
    this_season: SeasonRecord | None  # None: no game against players this season
    rank: int | None  # in the season; None while provisional (or with no ladder games)
    ranked_total: int
    minimum_games: int
    favourite: Favourite | None

    @property
    def provisional(self) -> bool:
        return self.rank is None


@dataclass(frozen=True)
class HistoryPlayer:
    seat: int
    user_id: int
    outcome: str
    place: int
    score: int | None
    is_ai: bool
    # The name they played that game under ('' if unknown: shown as a mention).
    display_name: str = ""


@dataclass(frozen=True)
class HistoryEntry:
    result_id: int
    game: str
    guild_id: int
    channel_id: int
    message_id: int | None
    reason: str
    draw: bool
    vs_ai: bool
    score_line: str | None
    finished_at: float
    players: list[HistoryPlayer]

    @property
    def link(self) -> str | None:
        return message_link(self.guild_id, self.channel_id, self.message_id)

    def player(self, user_id: int) -> HistoryPlayer | None:
        for player in self.players:
            if player.user_id == user_id and not player.is_ai:
                return player
        return None


@dataclass(frozen=True)
class PlayerStats:
    user_id: int
    games: list[GameStats]
    recent: list[HistoryEntry]

    @property
    def empty(self) -> bool:
        return not self.games and not self.recent


async def player_stats(
    db: Database, guild_id: int, user_id: int, *, provisional_games: int = 3
) -> PlayerStats:
    minimum = ladder_minimum(provisional_games)
    # game IN (...) turns the lookup into one primary-key probe per game, joined to the
    # season running (season 1 without a row) and the player's line on its ladder; the
    # rank is the count of ranked players ahead in the rating order: two ranges of the
    # covering season_ratings_ladder index (higher ordinal; same ordinal, lower user id),
    # kept as two counts because an OR of them makes SQLite scan the primary key instead.
    # ?1 is the minimum of ladder games, ?2 the server, ?3 the player.
    season = "COALESCE(c.number, 1)"
    rows = await db.fetch_all(
        f"SELECT {_STANDING_COLUMNS}, r.game AS game, {season} AS season_number,"
        " COALESCE(c.name, '') AS season_name, c.started_at AS season_started,"
        " s.ordinal AS season_ordinal, s.wins AS season_wins, s.losses AS season_losses,"
        " s.draws AS season_draws, s.games AS season_games, s.streak AS season_streak,"
        " s.best_streak AS season_best_streak,"
        " CASE WHEN s.games >= ?1 THEN 1 + ("
        "   SELECT COUNT(*) FROM season_ratings o WHERE o.guild_id = s.guild_id"
        "   AND o.game = s.game AND o.season = s.season AND o.ordinal > s.ordinal"
        "   AND o.games >= ?1"
        " ) + ("
        "   SELECT COUNT(*) FROM season_ratings o WHERE o.guild_id = s.guild_id"
        "   AND o.game = s.game AND o.season = s.season AND o.ordinal = s.ordinal"
        "   AND o.user_id < s.user_id AND o.games >= ?1"
        " ) END AS rank,"
        " (SELECT COUNT(*) FROM season_ratings o WHERE o.guild_id = r.guild_id"
        f"   AND o.game = r.game AND o.season = {season} AND o.games >= ?1) AS ranked_total"
        " FROM ratings r"
        " LEFT JOIN season_current c ON c.guild_id = r.guild_id AND c.game = r.game"
        " LEFT JOIN season_ratings s ON s.guild_id = r.guild_id AND s.game = r.game"
        f"   AND s.season = {season} AND s.user_id = r.user_id"
        f" WHERE r.guild_id = ?2 AND r.game IN ({_GAME_LIST}) AND r.user_id = ?3",
        (minimum, guild_id, user_id),
    )
    favourites = await _favourites(db, guild_id, user_id)
    order = {game: index for index, game in enumerate(GAMES)}
    games = [
        GameStats(
            game=row["game"],
            standing=Standing.from_row(row),
            season=Season(
                guild_id,
                row["game"],
                row["season_number"],
                row["season_name"],
                row["season_started"],
            ),
            this_season=None
            if row["season_games"] is None
            else SeasonRecord(
                ordinal=row["season_ordinal"],
                wins=row["season_wins"],
                losses=row["season_losses"],
                draws=row["season_draws"],
                games=row["season_games"],
                streak=row["season_streak"],
                best_streak=row["season_best_streak"],
            ),
            rank=row["rank"],
            ranked_total=row["ranked_total"],
            minimum_games=minimum,
            favourite=favourites.get(row["game"]),
        )
        for row in sorted(rows, key=lambda row: order.get(row["game"], len(order)))
    ]
    recent = await history(db, guild_id, user_id=user_id, limit=RECENT_RESULTS)
    return PlayerStats(user_id=user_id, games=games, recent=recent)


async def _favourites(db: Database, guild_id: int, user_id: int) -> dict[str, Favourite]:
    rows = await db.fetch_all(
        "SELECT game, pick, uses FROM player_picks"
        f" WHERE guild_id = ? AND game IN ({_GAME_LIST}) AND user_id = ?"
        " ORDER BY game, uses DESC, pick",
        (guild_id, user_id),
    )
    found: dict[str, Favourite] = {}
    for row in rows:
        found.setdefault(row["game"], Favourite(row["pick"], row["uses"]))
    return found


# -- history ---------------------------------------------------------------------------------


async def history(
    db: Database,
    guild_id: int,
    *,
    game: str | None = None,
    user_id: int | None = None,
    limit: int = HISTORY_LIMIT,
) -> list[HistoryEntry]:
    """This server's finished games, newest first, optionally one game's or one player's."""
    columns = (
        "r.id, r.game, r.guild_id, r.channel_id, r.message_id, r.reason, r.draw, r.vs_ai,"
        " r.summary, r.finished_at"
    )
    params: list[Any] = []
    if user_id is None:
        sql = f"SELECT {columns} FROM results r WHERE r.guild_id = ?"
        params.append(guild_id)
        if game is not None:
            sql += " AND r.game = ?"
            params.append(game)
        sql += " ORDER BY r.finished_at DESC, r.id DESC LIMIT ?"
    else:
        # Walk the player's own results newest first (index on user_id, result_id) and
        # keep this server's: a player's games are few next to a server's.
        sql = (
            f"SELECT {columns} FROM result_players p JOIN results r ON r.id = p.result_id"
            " WHERE p.user_id = ? AND p.is_ai = 0 AND r.guild_id = ?"
        )
        params.extend((user_id, guild_id))
        if game is not None:
            sql += " AND r.game = ?"
            params.append(game)
        sql += " ORDER BY p.result_id DESC LIMIT ?"
    params.append(limit)
    rows = await db.fetch_all(sql, tuple(params))
    if not rows:
        return []
    players = await _players_of(db, [row["id"] for row in rows])
    return [
        HistoryEntry(
            result_id=row["id"],
            game=row["game"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            message_id=row["message_id"],
            reason=row["reason"],
            draw=bool(row["draw"]),
            vs_ai=bool(row["vs_ai"]),
            score_line=_score_line(row["summary"]),
            finished_at=row["finished_at"],
            players=players.get(row["id"], []),
        )
        for row in rows
    ]


async def _players_of(db: Database, result_ids: Sequence[int]) -> dict[int, list[HistoryPlayer]]:
    marks = ", ".join("?" for _ in result_ids)
    # The names come from the game's own seats (kept with the session the result belongs
    # to): what the players were called when they played.
    rows = await db.fetch_all(
        "SELECT p.result_id, p.seat, p.user_id, p.outcome, p.place, p.score, p.is_ai,"
        " COALESCE(sp.display_name, '') AS display_name"
        " FROM result_players p JOIN results r ON r.id = p.result_id"
        " LEFT JOIN session_players sp ON sp.session_id = r.session_id AND sp.seat = p.seat"
        f" WHERE p.result_id IN ({marks}) ORDER BY p.result_id, p.seat",
        tuple(result_ids),
    )
    found: dict[int, list[HistoryPlayer]] = {}
    for row in rows:
        found.setdefault(row["result_id"], []).append(
            HistoryPlayer(
                seat=row["seat"],
                user_id=row["user_id"],
                outcome=row["outcome"],
                place=row["place"],
                score=row["score"],
                is_ai=bool(row["is_ai"]),
                display_name=row["display_name"],
            )
        )
    return found


def _score_line(summary: str) -> str | None:
    try:
        data = json.loads(summary)
    except ValueError:
        return None
    line = data.get("score_line") if isinstance(data, dict) else None
    return line if isinstance(line, str) and line else None
