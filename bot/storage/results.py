"""What a finished game writes, in the move's transaction, for ``bot.ladder.results``: the result
row and its players, the season's ladder (``season_ratings``), each player's lifetime
record (``ratings``) and their favourite picks (``player_picks``). The ratings maths and
who is ranked are ``bot.ladder.results``'s; these only read and write the rows, in the order the
caller asks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from bot.storage.connection import Connection

Outcome = Literal["win", "loss", "draw"]

# A player's streak after a first game: +1 after a win, -1 after a loss, 0 after a draw.
_FIRST_STREAK = {"win": 1, "loss": -1, "draw": 0}


def _next_streak_sql(table: str, outcome: str) -> str:
    """The streak after one more game, from the stored streak: +n after n wins in a row,
    -n after n losses; a draw resets it. Only win streaks count towards the best streak."""
    return {
        "win": f"CASE WHEN {table}.streak > 0 THEN {table}.streak + 1 ELSE 1 END",
        "loss": f"CASE WHEN {table}.streak < 0 THEN {table}.streak - 1 ELSE -1 END",
        "draw": "0",
    }[outcome]


class ResultRow(NamedTuple):
    """A ``results`` row (without its id)."""

    session_id: int
    game: str
    guild_id: int
    channel_id: int
    message_id: int | None
    reason: str
    draw: bool
    vs_ai: bool
    summary: str  # JSON
    finished_at: float
    season: int | None  # the season it was ranked in; None: not ranked


class ResultPlayerRow(NamedTuple):
    """A ``result_players`` row."""

    result_id: int
    seat: int
    user_id: int
    outcome: str
    place: int
    score: int | None
    went_first: bool
    is_ai: bool


class PickUses(NamedTuple):
    """How often one player picked one thing in one game (added to ``player_picks``)."""

    guild_id: int
    game: str
    user_id: int
    pick: str
    uses: int


async def add_result(conn: Connection, result: ResultRow) -> int:
    """Store a finished game's result row; returns its id."""
    result_id = await conn.fetch_value(
        "INSERT INTO results (session_id, game, guild_id, channel_id, message_id, reason, draw,"
        " vs_ai, summary, finished_at, season) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " RETURNING id",
        (
            result.session_id,
            result.game,
            result.guild_id,
            result.channel_id,
            result.message_id,
            result.reason,
            int(result.draw),
            int(result.vs_ai),
            result.summary,
            result.finished_at,
            result.season,
        ),
    )
    assert isinstance(result_id, int)
    return result_id


async def add_result_players(conn: Connection, players: Sequence[ResultPlayerRow]) -> None:
    """Store a result's seats, in the order given."""
    await conn.execute_many(
        "INSERT INTO result_players (result_id, seat, user_id, outcome, place, score,"
        " went_first, is_ai) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                p.result_id,
                p.seat,
                p.user_id,
                p.outcome,
                p.place,
                p.score,
                int(p.went_first),
                int(p.is_ai),
            )
            for p in players
        ],
    )


async def season_ratings_of(
    conn: Connection, guild_id: int, game: str, season: int, user_ids: Sequence[int]
) -> dict[int, tuple[float, float]]:
    """The stored (mu, sigma) of those players on a season's ladder (absent: no game in
    it yet)."""
    marks = ", ".join("?" for _ in user_ids)
    rows = await conn.fetch_all(
        "SELECT user_id, mu, sigma FROM season_ratings WHERE guild_id = ? AND game = ?"
        f" AND season = ? AND user_id IN ({marks})",
        (guild_id, game, season, *user_ids),
    )
    return {row[0]: (row[1], row[2]) for row in rows}


async def add_season_game(
    conn: Connection,
    *,
    guild_id: int,
    game: str,
    season: int,
    user_id: int,
    mu: float,
    sigma: float,
    ordinal: float,
    outcome: Outcome,
    now: float,
) -> None:
    """One more game on a player's season ladder line (created by their first): the new
    rating, W/L/D, games and streaks."""
    streak = _next_streak_sql("season_ratings", outcome)
    first_streak = _FIRST_STREAK[outcome]
    await conn.execute(
        "INSERT INTO season_ratings (guild_id, game, season, user_id, mu, sigma, ordinal,"
        " wins, losses, draws, games, streak, best_streak, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)"
        " ON CONFLICT (guild_id, game, season, user_id) DO UPDATE SET"
        " mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal,"
        " wins = season_ratings.wins + excluded.wins,"
        " losses = season_ratings.losses + excluded.losses,"
        " draws = season_ratings.draws + excluded.draws,"
        " games = season_ratings.games + 1,"
        f" best_streak = CASE WHEN season_ratings.best_streak > {streak}"
        f" THEN season_ratings.best_streak ELSE {streak} END, streak = {streak},"
        " updated_at = excluded.updated_at",
        (
            guild_id,
            game,
            season,
            user_id,
            mu,
            sigma,
            ordinal,
            int(outcome == "win"),
            int(outcome == "loss"),
            int(outcome == "draw"),
            first_streak,
            max(0, first_streak),
            now,
        ),
    )


async def lifetime_ratings_of(
    conn: Connection, guild_id: int, game: str, user_ids: Sequence[int]
) -> dict[int, tuple[float, float]]:
    """The stored lifetime (mu, sigma) of those players (absent: no game yet)."""
    marks = ", ".join("?" for _ in user_ids)
    rows = await conn.fetch_all(
        "SELECT user_id, mu, sigma FROM ratings WHERE guild_id = ? AND game = ?"
        f" AND user_id IN ({marks})",
        (guild_id, game, *user_ids),
    )
    return {row[0]: (row[1], row[2]) for row in rows}


async def add_lifetime_game(
    conn: Connection,
    *,
    guild_id: int,
    game: str,
    user_id: int,
    display_name: str,
    mu: float,
    sigma: float,
    ordinal: float,
    outcome: Outcome,
    score: int | None,
    now: float,
) -> None:
    """One more game against players on a player's lifetime record (created by their
    first): the new rating, W/L/D, games, streaks, the score average and their name."""
    streak = _next_streak_sql("ratings", outcome)
    first_streak = _FIRST_STREAK[outcome]
    # One upsert per player: the VALUES are what a first game leaves behind, the
    # UPDATE adds this game to an existing row (SET expressions see the old values,
    # named with the table: a bare name there is ambiguous to PostgreSQL).
    await conn.execute(
        "INSERT INTO ratings (guild_id, game, user_id, mu, sigma, ordinal, wins, losses,"
        " draws, games, streak, best_streak, score_total, scored_games, updated_at,"
        " display_name)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild_id, game, user_id) DO UPDATE SET"
        " display_name = excluded.display_name,"
        " mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal,"
        " wins = ratings.wins + excluded.wins, losses = ratings.losses + excluded.losses,"
        " draws = ratings.draws + excluded.draws, games = ratings.games + 1,"
        f" best_streak = CASE WHEN ratings.best_streak > {streak}"
        f" THEN ratings.best_streak ELSE {streak} END, streak = {streak},"
        " score_total = ratings.score_total + excluded.score_total,"
        " scored_games = ratings.scored_games + excluded.scored_games,"
        " updated_at = excluded.updated_at",
        (
            guild_id,
            game,
            user_id,
            mu,
            sigma,
            ordinal,
            int(outcome == "win"),
            int(outcome == "loss"),
            int(outcome == "draw"),
            first_streak,
            max(0, first_streak),
            score or 0,
            int(score is not None),
            now,
            display_name,
        ),
    )


async def add_ai_game(
    conn: Connection,
    *,
    guild_id: int,
    game: str,
    user_id: int,
    display_name: str,
    mu: float,
    sigma: float,
    ordinal: float,
    outcome: Outcome,
    score: int | None,
    now: float,
) -> None:
    """One more game against the AI on a player's lifetime record: only the AI record,
    the score average and their name move; a first game leaves the rating given (mu,
    sigma, ordinal) with no ladder games."""
    await conn.execute(
        "INSERT INTO ratings (guild_id, game, user_id, mu, sigma, ordinal, ai_wins, ai_losses,"
        " ai_draws, score_total, scored_games, updated_at, display_name)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild_id, game, user_id) DO UPDATE SET"
        " display_name = excluded.display_name,"
        " ai_wins = ratings.ai_wins + excluded.ai_wins,"
        " ai_losses = ratings.ai_losses + excluded.ai_losses,"
        " ai_draws = ratings.ai_draws + excluded.ai_draws,"
        " score_total = ratings.score_total + excluded.score_total,"
        " scored_games = ratings.scored_games + excluded.scored_games,"
        " updated_at = excluded.updated_at",
        (
            guild_id,
            game,
            user_id,
            mu,
            sigma,
            ordinal,
            int(outcome == "win"),
            int(outcome == "loss"),
            int(outcome == "draw"),
            score or 0,
            int(score is not None),
            now,
            display_name,
        ),
    )


async def add_picks(conn: Connection, picks: Sequence[PickUses]) -> None:
    """Add uses to players' favourite picks, in the order given."""
    await conn.execute_many(
        "INSERT INTO player_picks (guild_id, game, user_id, pick, uses)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, game, user_id, pick)"
        " DO UPDATE SET uses = player_picks.uses + excluded.uses",
        [tuple(pick) for pick in picks],
    )
