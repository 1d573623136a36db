"""Finished games: the result rows, the season's ladder and each player's lifetime record
on the server, in the caller's transaction.

Ratings use openskill's Plackett-Luce model (a maintained Weng-Lin Bayesian rating): it
handles two-player wins and draws and multiplayer rankings with shared places alike, so
Weighted Dice's shared wins need no special case. Games against the AI are recorded, but
only move the separate AI record, never a ladder.

Two ladders move with a game between players: the current season's (``season_ratings``,
what ``/leaderboard`` ranks; see ``bot.seasons``) and the lifetime record (``ratings``: a
rating that never restarts, W/L/D, streaks, the AI record, score averages).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from openskill.models import PlackettLuce

from bot.seasons import lock_current_season
from game_core.base import GameResult

if TYPE_CHECKING:
    from bot.games import Seat, Session
    from bot.storage import Connection

RATING_MODEL = PlackettLuce()


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating shown to players: mu - 3 sigma."""
    return mu - 3.0 * sigma


async def record_result(
    conn: Connection,
    *,
    session: Session,
    seats: Sequence[Seat],
    result: GameResult,
    summary: dict[str, Any],
    now: float,
) -> int:
    vs_ai = any(seat.is_ai for seat in seats)
    humans = [seat for seat in seats if not seat.is_ai]
    season = None
    if not vs_ai and len(humans) >= 2:
        # First: it takes the season's lock (see bot.seasons), before any other row.
        season = await record_in_current_season(
            conn,
            guild_id=session.guild_id,
            game=session.game,
            placings=[
                Placing(seat.user_id, result.ranks[seat.seat], result.outcome(seat.seat))
                for seat in humans
            ],
            now=now,
        )
    result_id = await conn.fetch_value(
        "INSERT INTO results (session_id, game, guild_id, channel_id, message_id, reason, draw,"
        " vs_ai, summary, finished_at, season) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " RETURNING id",
        (
            session.id,
            session.game,
            session.guild_id,
            session.channel_id,
            session.message_id,
            result.reason,
            int(result.draw),
            int(vs_ai),
            json.dumps(summary, sort_keys=True),
            now,
            season,
        ),
    )
    assert isinstance(result_id, int)
    went_first = summary.get("first_seat")
    rows = []
    for seat in seats:
        score = result.scores[seat.seat] if result.scores is not None else None
        rows.append(
            (
                result_id,
                seat.seat,
                seat.user_id,
                result.outcome(seat.seat),
                result.ranks[seat.seat],
                score,
                int(went_first == seat.seat),
                int(seat.is_ai),
            )
        )
    await conn.execute_many(
        "INSERT INTO result_players (result_id, seat, user_id, outcome, place, score,"
        " went_first, is_ai) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    await _update_ratings(conn, session, seats, result, vs_ai, now)
    await _count_picks(conn, session, seats, summary)
    return result_id


def _next_streak_sql(table: str, outcome: str) -> str:
    """The streak after one more game, from the stored streak: +n after n wins in a row,
    -n after n losses; a draw resets it. Only win streaks count towards the best streak."""
    return {
        "win": f"CASE WHEN {table}.streak > 0 THEN {table}.streak + 1 ELSE 1 END",
        "loss": f"CASE WHEN {table}.streak < 0 THEN {table}.streak - 1 ELSE -1 END",
        "draw": "0",
    }[outcome]


_FIRST_STREAK = {"win": 1, "loss": -1, "draw": 0}


@dataclass(frozen=True)
class Placing:
    """One player's place in a ranked outcome between players (1 is first; equal places
    share a rank, as in ``GameResult.ranks``)."""

    user_id: int
    rank: int
    outcome: Literal["win", "loss", "draw"]


def rate(
    current: dict[int, tuple[float, float]], placings: Sequence[Placing]
) -> dict[int, tuple[float, float]]:
    """Everyone's (mu, sigma) after one ranked outcome, from their (mu, sigma) before."""
    teams = [
        [RATING_MODEL.rating(mu=current[p.user_id][0], sigma=current[p.user_id][1])]
        for p in placings
    ]
    rated = RATING_MODEL.rate(teams, ranks=[p.rank for p in placings])
    return {p.user_id: (team[0].mu, team[0].sigma) for p, team in zip(placings, rated, strict=True)}


async def record_in_current_season(
    conn: Connection, *, guild_id: int, game: str, placings: Sequence[Placing], now: float
) -> int:
    """Rank one outcome between two or more players in the season running now, in the
    caller's transaction: the season's ratings, W/L/D, games and streaks. Returns the
    season's number. A finished game calls this once; anything else that produces a
    ranked outcome (a match of several games, say) can call it the same way. Never with
    the AI: games against it are never ranked."""
    if len(placings) < 2:
        raise ValueError("a ranked outcome needs at least two players")
    season = await lock_current_season(conn, guild_id, game, now)
    user_ids = sorted(p.user_id for p in placings)
    marks = ", ".join("?" for _ in user_ids)
    rows = await conn.fetch_all(
        "SELECT user_id, mu, sigma FROM season_ratings WHERE guild_id = ? AND game = ?"
        f" AND season = ? AND user_id IN ({marks})",
        (guild_id, game, season, *user_ids),
    )
    stored = {row[0]: (row[1], row[2]) for row in rows}
    default = (RATING_MODEL.mu, RATING_MODEL.sigma)
    rated = rate({user: stored.get(user, default) for user in user_ids}, placings)
    # In user id order, so two transactions never wait for each other's rows in a circle.
    for placing in sorted(placings, key=lambda p: p.user_id):
        mu, sigma = rated[placing.user_id]
        streak = _next_streak_sql("season_ratings", placing.outcome)
        first_streak = _FIRST_STREAK[placing.outcome]
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
                placing.user_id,
                mu,
                sigma,
                ordinal(mu, sigma),
                int(placing.outcome == "win"),
                int(placing.outcome == "loss"),
                int(placing.outcome == "draw"),
                first_streak,
                max(0, first_streak),
                now,
            ),
        )
    return season


async def _update_ratings(
    conn: Connection,
    session: Session,
    seats: Sequence[Seat],
    result: GameResult,
    vs_ai: bool,
    now: float,
) -> None:
    humans = [seat for seat in seats if not seat.is_ai]
    if not humans:
        return
    # Rows are written in user id order: two games ending at once with the same players
    # (two channels) lock their rating rows in the same order, never in a circle.
    in_id_order = sorted(humans, key=lambda seat: seat.user_id)
    if vs_ai:
        for seat in in_id_order:
            await _record_ai_game(conn, session, seat, result, now)
        return

    current = await _current_ratings(conn, session, [seat.user_id for seat in humans])
    new_ratings = {seat.user_id: current[seat.user_id] for seat in humans}
    if len(humans) >= 2:
        placings = [
            Placing(seat.user_id, result.ranks[seat.seat], result.outcome(seat.seat))
            for seat in humans
        ]
        new_ratings.update(rate(current, placings))

    for seat in in_id_order:
        outcome = result.outcome(seat.seat)
        mu, sigma = new_ratings[seat.user_id]
        score = _final_score(result, seat.seat)
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
                session.guild_id,
                session.game,
                seat.user_id,
                mu,
                sigma,
                ordinal(mu, sigma),
                int(outcome == "win"),
                int(outcome == "loss"),
                int(outcome == "draw"),
                first_streak,
                max(0, first_streak),
                score or 0,
                int(score is not None),
                now,
                seat.display_name,
            ),
        )


async def _record_ai_game(
    conn: Connection, session: Session, seat: Seat, result: GameResult, now: float
) -> None:
    """A game against the AI: only the separate AI record (and the score average) moves;
    a first game leaves a default ladder rating with no ladder games."""
    outcome = result.outcome(seat.seat)
    score = _final_score(result, seat.seat)
    mu, sigma = RATING_MODEL.mu, RATING_MODEL.sigma
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
            session.guild_id,
            session.game,
            seat.user_id,
            mu,
            sigma,
            ordinal(mu, sigma),
            int(outcome == "win"),
            int(outcome == "loss"),
            int(outcome == "draw"),
            score or 0,
            int(score is not None),
            now,
            seat.display_name,
        ),
    )


async def _current_ratings(
    conn: Connection, session: Session, user_ids: Sequence[int]
) -> dict[int, tuple[float, float]]:
    marks = ", ".join("?" for _ in user_ids)
    rows = await conn.fetch_all(
        "SELECT user_id, mu, sigma FROM ratings WHERE guild_id = ? AND game = ?"
        f" AND user_id IN ({marks})",
        (session.guild_id, session.game, *user_ids),
    )
    stored = {row[0]: (row[1], row[2]) for row in rows}
    default = (RATING_MODEL.mu, RATING_MODEL.sigma)
    return {user_id: stored.get(user_id, default) for user_id in user_ids}


def _final_score(result: GameResult, seat: int) -> int | None:
    if result.scores is None or seat >= len(result.scores):
        return None
    return result.scores[seat]


# -- favourite picks --------------------------------------------------------------------------

# The summary key holding each game's per-seat picks: Diceman's chosen dice pairs, one per
# round, and Dimension Duel's functions, one per turn.
PICK_KEYS: dict[str, str] = {"diceman": "choices", "dimension_duel": "functions"}


def picks_of(game: str, summary: dict[str, Any], seat: int) -> list[str]:
    """The picks one seat made during a game, as stable keys ("priority+sword", "deflector").

    The summary comes from a game's cog; anything not shaped as expected counts as no
    picks, because a stats nicety must never stop a finished game from being recorded.
    """
    key = PICK_KEYS.get(game)
    if key is None:
        return []
    per_seat = summary.get(key)
    if isinstance(per_seat, dict):
        picks = per_seat.get(str(seat), per_seat.get(seat))  # type: ignore[call-overload]
    elif isinstance(per_seat, list) and seat < len(per_seat):
        picks = per_seat[seat]
    else:
        return []
    if not isinstance(picks, list):
        return []
    found = [pick_key(pick) for pick in picks]
    return [pick for pick in found if pick is not None]


def pick_key(pick: object) -> str | None:
    """One pick as a key: a die pair in any order becomes "a+b" (sorted), a name stays."""
    if isinstance(pick, str):
        parts = [part.strip().lower() for part in pick.replace(",", "+").split("+")]
    elif isinstance(pick, list | tuple) and all(isinstance(part, str) for part in pick):
        parts = [part.strip().lower() for part in pick]
    else:
        return None
    parts = [part for part in parts if part]
    if not parts or len(parts) > 4:
        return None
    return "+".join(sorted(parts))[:60]


async def _count_picks(
    conn: Connection, session: Session, seats: Sequence[Seat], summary: dict[str, Any]
) -> None:
    rows: list[tuple[int, str, int, str, int]] = []
    for seat in seats:
        if seat.is_ai:
            continue
        counts = Counter(picks_of(session.game, summary, seat.seat))
        rows.extend(
            (session.guild_id, session.game, seat.user_id, pick, uses)
            for pick, uses in counts.items()
        )
    if rows:
        rows.sort()
        await conn.execute_many(
            "INSERT INTO player_picks (guild_id, game, user_id, pick, uses)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, game, user_id, pick)"
            " DO UPDATE SET uses = player_picks.uses + excluded.uses",
            rows,
        )
