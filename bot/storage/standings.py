"""The ladder's reads for ``bot.ladder.standings``: a season's leaderboard page and its
provisional players, one player's lines (lifetime, this season's, rank), their favourite
picks, and the history of finished games. Who is ranked (the threshold), the page
arithmetic and how it all reads are ``bot.ladder.standings``'s.

For ``/stats`` and ``/history`` outside servers: one player's record summed over every
server and their games with friends (``FRIENDS_LADDER``), their favourite picks there, and
the head-to-head record of two players. Every server read names its server (``guild_id =
?``, the interaction's, never 0): the friends' rows (guild 0) are read only by the queries
that say so."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from bot.model.contract import FRIENDS_LADDER
from bot.storage.base import Database
from bot.storage.connection import Row


class StandingRow(NamedTuple):
    """One player's record in one game: lifetime (``ratings``) or, on a leaderboard, the
    season's ladder line with the lifetime AI record, score totals and name."""

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
    display_name: str


class SeasonLine(NamedTuple):
    """One player's line on the ladder of the season running now."""

    ordinal: float
    wins: int
    losses: int
    draws: int
    games: int
    streak: int
    best_streak: int


class PlayerLine(NamedTuple):
    """One game's lines of one player: lifetime, the season running and their rank in it."""

    game: str
    standing: StandingRow  # lifetime
    season_number: int
    season_name: str
    season_started: float | None  # None: season 1 of a server that has not played it yet
    this_season: SeasonLine | None  # None: no game against players this season
    rank: int | None  # None: not ranked (fewer games than ``minimum``)
    ranked_total: int


class PickRow(NamedTuple):
    game: str
    pick: str
    uses: int


class LifetimeLine(NamedTuple):
    """One player's record in one game summed over every server and their games with
    friends, and the part of it played with friends. No rating (a sum of places ranks
    nothing) and no streak (a streak runs in one place)."""

    game: str
    wins: int
    losses: int
    draws: int
    games: int
    ai_wins: int
    ai_losses: int
    ai_draws: int
    score_total: int
    scored_games: int
    friends_wins: int
    friends_losses: int
    friends_draws: int


class HeadToHeadLine(NamedTuple):
    """Two players' finished games together in one game, from the first one's side: won
    (finished ahead of the other), lost (behind), drawn (the same place)."""

    game: str
    wins: int
    losses: int
    draws: int


class ResultLine(NamedTuple):
    """A ``results`` row as the history shows it."""

    id: int
    game: str
    guild_id: int
    channel_id: int
    message_id: int | None
    reason: str
    draw: bool
    vs_ai: bool
    summary: str  # JSON
    finished_at: float
    session_id: int


class ResultPlayerLine(NamedTuple):
    """One seat of a result, with the name it played under ('' if unknown)."""

    result_id: int
    seat: int
    user_id: int
    outcome: str
    place: int
    score: int | None
    is_ai: bool
    display_name: str


# Each sort matches an index of season_ratings (migration 6), so a page reads only the
# rows it shows; the user id breaks exact ties the same way everywhere.
ORDER_BY: dict[str, str] = {
    "rating": "s.ordinal DESC, s.user_id",
    "wins": "s.wins DESC, s.ordinal DESC, s.user_id",
    "win_rate": "CAST(s.wins AS REAL) / s.games DESC, s.games DESC, s.user_id",
}
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
# One season's ladder, in the queries that name it ``s``.
_IN_SEASON = "s.guild_id = ? AND s.game = ? AND s.season = ?"


def _game_list(games: Sequence[str]) -> str:
    """The games as SQL literals for ``game IN (...)`` (the known games, not input)."""
    return ", ".join("'" + game.replace("'", "''") + "'" for game in games)


def _standing(row: Row) -> StandingRow:
    return StandingRow(*(row[name] for name in StandingRow._fields))


async def count_ranked(db: Database, guild_id: int, game: str, season: int, minimum: int) -> int:
    """Players with at least ``minimum`` games on a season's ladder."""
    counts = await db.fetch_one(
        f"SELECT COUNT(*) AS ranked FROM season_ratings s WHERE {_IN_SEASON} AND s.games >= ?",
        (guild_id, game, season, minimum),
    )
    return 0 if counts is None else int(counts["ranked"])


async def ladder_page(
    db: Database,
    guild_id: int,
    game: str,
    season: int,
    *,
    minimum: int,
    sort: str,
    limit: int,
    offset: int,
) -> list[StandingRow]:
    """The players with at least ``minimum`` games on a season's ladder, in the order of
    ``sort`` (a key of ``ORDER_BY``), ``limit`` of them from ``offset``."""
    rows = await db.fetch_all(
        f"SELECT {_SEASON_STANDING_COLUMNS} FROM {_SEASON_JOIN} WHERE {_IN_SEASON}"
        f" AND s.games >= ? ORDER BY {ORDER_BY[sort]} LIMIT ? OFFSET ?",
        (guild_id, game, season, minimum, limit, offset),
    )
    return [_standing(row) for row in rows]


async def provisional_top(
    db: Database, guild_id: int, game: str, season: int, *, most_games: int, limit: int
) -> tuple[list[StandingRow], int]:
    """The best ``limit`` players (rating order) with 1 to ``most_games`` games on a
    season's ladder, and how many such players there are."""
    # The few listed are picked (and all of them counted) on the ladder index alone;
    # only those few then read their rows: a big server has thousands provisional.
    key = (guild_id, game, season)
    rows = await db.fetch_all(
        f"SELECT {_SEASON_STANDING_COLUMNS}, top.total FROM ("
        "   SELECT user_id, ordinal, COUNT(*) OVER () AS total FROM season_ratings"
        "   WHERE guild_id = ? AND game = ? AND season = ? AND games BETWEEN 1 AND ?"
        "   ORDER BY ordinal DESC, user_id LIMIT ?"
        " ) top JOIN season_ratings s ON s.user_id = top.user_id"
        " JOIN ratings r"
        " ON r.guild_id = s.guild_id AND r.game = s.game AND r.user_id = s.user_id"
        f" WHERE {_IN_SEASON} ORDER BY top.ordinal DESC, top.user_id",
        (*key, most_games, limit, *key),
    )
    total = int(rows[0]["total"]) if rows else 0
    return [_standing(row) for row in rows], total


async def player_lines(
    db: Database, guild_id: int, user_id: int, *, minimum: int, games: Sequence[str]
) -> list[PlayerLine]:
    """One player's lines here in each of ``games`` they have played (in no set order),
    ranked among the players with at least ``minimum`` games in the season running."""
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
        f" WHERE r.guild_id = ?2 AND r.game IN ({_game_list(games)}) AND r.user_id = ?3",
        (minimum, guild_id, user_id),
    )
    return [
        PlayerLine(
            game=row["game"],
            standing=_standing(row),
            season_number=row["season_number"],
            season_name=row["season_name"],
            season_started=row["season_started"],
            this_season=None
            if row["season_games"] is None
            else SeasonLine(
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
        )
        for row in rows
    ]


async def picks_of_player(
    db: Database, guild_id: int, user_id: int, *, games: Sequence[str]
) -> list[PickRow]:
    """One player's picks here in ``games``: by game, most used first (then by pick)."""
    rows = await db.fetch_all(
        "SELECT game, pick, uses FROM player_picks"
        f" WHERE guild_id = ? AND game IN ({_game_list(games)}) AND user_id = ?"
        " ORDER BY game, uses DESC, pick",
        (guild_id, user_id),
    )
    return [PickRow(row["game"], row["pick"], row["uses"]) for row in rows]


async def recent_results(
    db: Database,
    guild_id: int,
    *,
    game: str | None = None,
    user_id: int | None = None,
    with_user: int | None = None,
    limit: int,
) -> list[ResultLine]:
    """This server's finished games (``FRIENDS_LADDER``: the games with friends), newest
    first, optionally one game's or one player's (their games against players and against
    the AI), and of those only the ones ``with_user`` played too (needs ``user_id``)."""
    if with_user is not None and user_id is None:
        raise ValueError("with_user narrows one player's games: give user_id too")
    columns = (
        "r.id, r.game, r.guild_id, r.channel_id, r.message_id, r.reason, r.draw, r.vs_ai,"
        " r.summary, r.finished_at, r.session_id"
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
        if with_user is not None:
            # One primary-key range of the result's own seats.
            sql += (
                " AND EXISTS (SELECT 1 FROM result_players o WHERE o.result_id = p.result_id"
                " AND o.user_id = ? AND o.is_ai = 0)"
            )
            params.append(with_user)
        sql += " ORDER BY p.result_id DESC LIMIT ?"
    params.append(limit)
    rows = await db.fetch_all(sql, tuple(params))
    return [
        ResultLine(
            id=row["id"],
            game=row["game"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            message_id=row["message_id"],
            reason=row["reason"],
            draw=bool(row["draw"]),
            vs_ai=bool(row["vs_ai"]),
            summary=row["summary"],
            finished_at=row["finished_at"],
            session_id=row["session_id"],
        )
        for row in rows
    ]


async def players_of_results(db: Database, result_ids: Sequence[int]) -> list[ResultPlayerLine]:
    """The seats of those results, by result and seat."""
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
    return [
        ResultPlayerLine(
            result_id=row["result_id"],
            seat=row["seat"],
            user_id=row["user_id"],
            outcome=row["outcome"],
            place=row["place"],
            score=row["score"],
            is_ai=bool(row["is_ai"]),
            display_name=row["display_name"],
        )
        for row in rows
    ]


# -- outside servers: one player everywhere --------------------------------------------------

# The places (servers, and FRIENDS_LADDER) where a player has finished a game: walked on
# their own results (result_players_by_user), so the reads below probe the primary keys of
# ``ratings`` and ``player_picks`` (guild_id, game, user_id...) instead of scanning them
# (neither has an index by player). ?1 is the player.
_PLACES_OF_PLAYER = (
    "SELECT DISTINCT res.guild_id FROM result_players p"
    " JOIN results res ON res.id = p.result_id WHERE p.user_id = ?1 AND p.is_ai = 0"
)


async def lifetime_lines(db: Database, user_id: int, *, games: Sequence[str]) -> list[LifetimeLine]:
    """One player's record in each of ``games`` they have played (in no set order), summed
    over every server and their games with friends, with the part played with friends."""
    summed = ", ".join(
        f"SUM(r.{column}) AS {column}"
        for column in (
            "wins",
            "losses",
            "draws",
            "games",
            "ai_wins",
            "ai_losses",
            "ai_draws",
            "score_total",
            "scored_games",
        )
    )
    friends = ", ".join(
        f"SUM(CASE WHEN r.guild_id = {FRIENDS_LADDER} THEN r.{column} ELSE 0 END)"
        f" AS friends_{column}"
        for column in ("wins", "losses", "draws")
    )
    rows = await db.fetch_all(
        f"SELECT r.game AS game, {summed}, {friends}"
        f" FROM ratings r WHERE r.guild_id IN ({_PLACES_OF_PLAYER})"
        f" AND r.game IN ({_game_list(games)}) AND r.user_id = ?1 GROUP BY r.game",
        (user_id,),
    )
    return [
        # The sums are whole numbers (PostgreSQL's SUM of a BIGINT is a NUMERIC).
        LifetimeLine(row["game"], *(int(row[name]) for name in LifetimeLine._fields[1:]))
        for row in rows
    ]


async def lifetime_picks(db: Database, user_id: int, *, games: Sequence[str]) -> list[PickRow]:
    """One player's picks in ``games`` summed over every server and their games with
    friends: by game, most used first (then by pick)."""
    rows = await db.fetch_all(
        "SELECT game, pick, SUM(uses) AS uses FROM player_picks"
        f" WHERE guild_id IN ({_PLACES_OF_PLAYER}) AND game IN ({_game_list(games)})"
        " AND user_id = ?1 GROUP BY game, pick ORDER BY game, SUM(uses) DESC, pick",
        (user_id,),
    )
    return [PickRow(row["game"], row["pick"], int(row["uses"])) for row in rows]


async def head_to_head(db: Database, user_id: int, other_id: int) -> list[HeadToHeadLine]:
    """Every finished game ``user_id`` and ``other_id`` played together (in any server and
    with friends), by game (in no set order): from ``user_id``'s side, won (a better
    place), lost, drawn (the same place)."""
    # The first player's results (result_players_by_user), each probed for the other's
    # seat on the result's primary key.
    rows = await db.fetch_all(
        "SELECT r.game AS game,"
        " SUM(CASE WHEN me.place < them.place THEN 1 ELSE 0 END) AS wins,"
        " SUM(CASE WHEN me.place > them.place THEN 1 ELSE 0 END) AS losses,"
        " SUM(CASE WHEN me.place = them.place THEN 1 ELSE 0 END) AS draws"
        " FROM result_players me"
        " JOIN result_players them ON them.result_id = me.result_id"
        " AND them.user_id = ? AND them.is_ai = 0"
        " JOIN results r ON r.id = me.result_id"
        " WHERE me.user_id = ? AND me.is_ai = 0 GROUP BY r.game",
        (other_id, user_id),
    )
    return [
        HeadToHeadLine(row["game"], int(row["wins"]), int(row["losses"]), int(row["draws"]))
        for row in rows
    ]
