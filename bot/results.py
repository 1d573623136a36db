"""Finished games: the result rows and the per-server ratings, in the caller's transaction.

Ratings use openskill's Plackett-Luce model (a maintained Weng-Lin Bayesian rating): it
handles two-player wins and draws and multiplayer rankings with shared places alike, so
Weighted Dice's shared wins need no special case. Games against the AI are recorded, but
only move the separate AI record, never the human ladder.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import aiosqlite
from openskill.models import PlackettLuce

from game_core.base import GameResult

if TYPE_CHECKING:
    from bot.games import Seat, Session

RATING_MODEL = PlackettLuce()


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating shown to players: mu - 3 sigma."""
    return mu - 3.0 * sigma


async def record_result(
    conn: aiosqlite.Connection,
    *,
    session: Session,
    seats: Sequence[Seat],
    result: GameResult,
    summary: dict[str, Any],
    now: float,
) -> int:
    vs_ai = any(seat.is_ai for seat in seats)
    cursor = await conn.execute(
        "INSERT INTO results (session_id, game, guild_id, channel_id, message_id, reason, draw,"
        " vs_ai, summary, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        ),
    )
    result_id = cursor.lastrowid
    assert result_id is not None
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
    await conn.executemany(
        "INSERT INTO result_players (result_id, seat, user_id, outcome, place, score,"
        " went_first, is_ai) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    await _update_ratings(conn, session, seats, result, vs_ai, now)
    return result_id


async def _update_ratings(
    conn: aiosqlite.Connection,
    session: Session,
    seats: Sequence[Seat],
    result: GameResult,
    vs_ai: bool,
    now: float,
) -> None:
    humans = [seat for seat in seats if not seat.is_ai]
    current: dict[int, tuple[float, float]] = {}
    for seat in humans:
        async with conn.execute(
            "SELECT mu, sigma FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?",
            (session.guild_id, session.game, seat.user_id),
        ) as cursor:
            row = await cursor.fetchone()
        current[seat.seat] = (
            (row[0], row[1]) if row is not None else (RATING_MODEL.mu, RATING_MODEL.sigma)
        )

    new_ratings = dict(current)
    if not vs_ai and len(humans) >= 2:
        teams = [
            [RATING_MODEL.rating(mu=current[s.seat][0], sigma=current[s.seat][1])] for s in humans
        ]
        rated = RATING_MODEL.rate(teams, ranks=[result.ranks[s.seat] for s in humans])
        for seat, team in zip(humans, rated, strict=True):
            new_ratings[seat.seat] = (team[0].mu, team[0].sigma)

    for seat in humans:
        outcome = result.outcome(seat.seat)
        mu, sigma = new_ratings[seat.seat]
        await conn.execute(
            "INSERT INTO ratings (guild_id, game, user_id, mu, sigma, ordinal, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, game, user_id) DO NOTHING",
            (session.guild_id, session.game, seat.user_id, mu, sigma, ordinal(mu, sigma), now),
        )
        if vs_ai:
            column = {"win": "ai_wins", "loss": "ai_losses", "draw": "ai_draws"}[outcome]
            await conn.execute(
                f"UPDATE ratings SET {column} = {column} + 1, updated_at = ?"
                " WHERE guild_id = ? AND game = ? AND user_id = ?",
                (now, session.guild_id, session.game, seat.user_id),
            )
            continue
        column = {"win": "wins", "loss": "losses", "draw": "draws"}[outcome]
        # streak: +n after n wins in a row, -n after n losses; a draw resets it.
        if outcome == "win":
            streak_sql = "CASE WHEN streak > 0 THEN streak + 1 ELSE 1 END"
        elif outcome == "loss":
            streak_sql = "CASE WHEN streak < 0 THEN streak - 1 ELSE -1 END"
        else:
            streak_sql = "0"
        await conn.execute(
            f"UPDATE ratings SET mu = ?, sigma = ?, ordinal = ?, {column} = {column} + 1,"
            f" games = games + 1, streak = {streak_sql}, updated_at = ?"
            " WHERE guild_id = ? AND game = ? AND user_id = ?",
            (mu, sigma, ordinal(mu, sigma), now, session.guild_id, session.game, seat.user_id),
        )
        await conn.execute(
            "UPDATE ratings SET best_streak = MAX(best_streak, streak)"
            " WHERE guild_id = ? AND game = ? AND user_id = ?",
            (session.guild_id, session.game, seat.user_id),
        )
