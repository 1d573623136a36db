"""Finished games: the result rows, the season's ladder and each player's lifetime record
on the server, in the caller's transaction.

Ratings use openskill's Plackett-Luce model (a maintained Weng-Lin Bayesian rating): it
handles two-player wins and draws and multiplayer rankings with shared places alike, so
Weighted Dice's shared wins need no special case. Games against the AI are recorded, but
only move the separate AI record, never a ladder.

Two ladders move with a game between players: the current season's (``season_ratings``,
what ``/leaderboard`` ranks; see ``bot.ladder.seasons``) and the lifetime record (``ratings``: a
rating that never restarts, W/L/D, streaks, the AI record, score averages).

Games with friends (outside servers, ``FRIENDS_LADDER``) have no ladder: no season, no
rating (nobody could ever see one: no server ranks them). Their result rows, picks and
lifetime record (W/L/D, streaks, the AI record, score averages) are written under guild 0
for ``/stats`` and ``/history`` outside servers; that record keeps the starting rating.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from openskill.models import PlackettLuce

from bot.ladder.seasons import lock_current_season
from bot.model.contract import FRIENDS_LADDER
from bot.storage import results as stored
from game_core.base import GameResult

if TYPE_CHECKING:
    from bot.model.contract import Seat, Session
    from bot.storage import Connection

RATING_MODEL = PlackettLuce()


def ordinal(mu: float, sigma: float) -> float:
    """The conservative estimate the ladder ranks by (stored): mu - 3 sigma."""
    return mu - 3.0 * sigma


# The rating players read: a fixed affine map of the stored conservative estimate, rounded
# to a whole number and never below 0. The estimate itself is 0 for a new player and goes
# negative after a loss or two ("-3.8" read as a bug), so it is shown as
# RATING_START + RATING_SCALE x (mu - 3 sigma):
# - increasing, so the order shown is exactly the ladder's order (ties in rounding aside);
# - a new player shows RATING_START (1000), a start players know from chess and other games;
# - RATING_SCALE makes a gap read like an Elo gap: between two settled players (small
#   sigma) openskill's Plackett-Luce gives the stronger one a win chance of
#   1 / (1 + exp(-d / c)) for a gap d in mu, c = sqrt(2) x beta = 5.9 with the default beta
#   (25/6); Elo's curve is the same with 400 / (c x ln 10) = 29.5 Elo points per unit of
#   mu, so 30 points each, and 400 points apart is about 10 to 1, as in chess;
# - the floor at 0 only keeps it from ever reading negative: it takes an estimate below
#   -33 (thirty straight losses against new players leave about -17).
# Stored ratings never change: this is the display only.
RATING_START = 1000
RATING_SCALE = 30


def shown_rating(conservative: float) -> int:
    """The rating as players read it on every screen (see RATING_START above)."""
    return max(0, round(RATING_START + RATING_SCALE * conservative))


async def record_result(
    conn: Connection,
    *,
    session: Session,
    seats: Sequence[Seat],
    result: GameResult,
    summary: dict[str, Any],
    now: float,
    picks_key: str | None = None,
) -> int:
    """Record a finished game. ``picks_key`` is the key of ``summary`` that holds each
    seat's picks, as the game's guide says (``bot.model.guide.Picks``); None counts none."""
    vs_ai = any(seat.is_ai for seat in seats)
    humans = [seat for seat in seats if not seat.is_ai]
    season = None
    if not vs_ai and len(humans) >= 2 and session.guild_id != FRIENDS_LADDER:
        # First: it takes the season's lock (see bot.ladder.seasons), before any other row.
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
    result_id = await stored.add_result(
        conn,
        stored.ResultRow(
            session_id=session.id,
            game=session.game,
            guild_id=session.guild_id,
            channel_id=session.channel_id,
            message_id=session.message_id,
            reason=result.reason,
            draw=result.draw,
            vs_ai=vs_ai,
            summary=json.dumps(summary, sort_keys=True),
            finished_at=now,
            season=season,
        ),
    )
    went_first = summary.get("first_seat")
    players = []
    for seat in seats:
        score = result.scores[seat.seat] if result.scores is not None else None
        players.append(
            stored.ResultPlayerRow(
                result_id=result_id,
                seat=seat.seat,
                user_id=seat.user_id,
                outcome=result.outcome(seat.seat),
                place=result.ranks[seat.seat],
                score=score,
                went_first=went_first == seat.seat,
                is_ai=seat.is_ai,
            )
        )
    await stored.add_result_players(conn, players)
    await _update_ratings(conn, session, seats, result, vs_ai, now)
    if picks_key is not None:
        await _count_picks(conn, session, seats, summary, picks_key)
    return result_id


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
    if guild_id == FRIENDS_LADDER:
        raise ValueError("games with friends are never ranked: they have no season")
    season = await lock_current_season(conn, guild_id, game, now)
    user_ids = sorted(p.user_id for p in placings)
    stored_ratings = await stored.season_ratings_of(conn, guild_id, game, season, user_ids)
    default = (RATING_MODEL.mu, RATING_MODEL.sigma)
    rated = rate({user: stored_ratings.get(user, default) for user in user_ids}, placings)
    # In user id order, so two transactions never wait for each other's rows in a circle.
    for placing in sorted(placings, key=lambda p: p.user_id):
        mu, sigma = rated[placing.user_id]
        await stored.add_season_game(
            conn,
            guild_id=guild_id,
            game=game,
            season=season,
            user_id=placing.user_id,
            mu=mu,
            sigma=sigma,
            ordinal=ordinal(mu, sigma),
            outcome=placing.outcome,
            now=now,
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

    if session.guild_id == FRIENDS_LADDER:
        # Unrated: the record alone, under the starting rating (see the module's doc).
        start = (RATING_MODEL.mu, RATING_MODEL.sigma)
        current = {seat.user_id: start for seat in humans}
    else:
        current = await _current_ratings(conn, session, [seat.user_id for seat in humans])
    new_ratings = {seat.user_id: current[seat.user_id] for seat in humans}
    if len(humans) >= 2 and session.guild_id != FRIENDS_LADDER:
        placings = [
            Placing(seat.user_id, result.ranks[seat.seat], result.outcome(seat.seat))
            for seat in humans
        ]
        new_ratings.update(rate(current, placings))

    for seat in in_id_order:
        outcome = result.outcome(seat.seat)
        mu, sigma = new_ratings[seat.user_id]
        score = _final_score(result, seat.seat)
        await stored.add_lifetime_game(
            conn,
            guild_id=session.guild_id,
            game=session.game,
            user_id=seat.user_id,
            display_name=seat.display_name,
            mu=mu,
            sigma=sigma,
            ordinal=ordinal(mu, sigma),
            outcome=outcome,
            score=score,
            now=now,
        )


async def _record_ai_game(
    conn: Connection, session: Session, seat: Seat, result: GameResult, now: float
) -> None:
    """A game against the AI: only the separate AI record (and the score average) moves;
    a first game leaves a default ladder rating with no ladder games."""
    outcome = result.outcome(seat.seat)
    score = _final_score(result, seat.seat)
    mu, sigma = RATING_MODEL.mu, RATING_MODEL.sigma
    await stored.add_ai_game(
        conn,
        guild_id=session.guild_id,
        game=session.game,
        user_id=seat.user_id,
        display_name=seat.display_name,
        mu=mu,
        sigma=sigma,
        ordinal=ordinal(mu, sigma),
        outcome=outcome,
        score=score,
        now=now,
    )


async def _current_ratings(
    conn: Connection, session: Session, user_ids: Sequence[int]
) -> dict[int, tuple[float, float]]:
    stored_ratings = await stored.lifetime_ratings_of(
        conn, session.guild_id, session.game, user_ids
    )
    default = (RATING_MODEL.mu, RATING_MODEL.sigma)
    return {user_id: stored_ratings.get(user_id, default) for user_id in user_ids}


def _final_score(result: GameResult, seat: int) -> int | None:
    if result.scores is None or seat >= len(result.scores):
        return None
    return result.scores[seat]


# -- favourite picks --------------------------------------------------------------------------

# Where a game's summary keeps each seat's picks (Diceman's dice pairs, one per round;
# Dimension Duel's functions, one per turn) is the game's to say: its guide's ``Picks.key``,
# which the session service passes as ``picks_key``.


def picks_of(key: str, summary: dict[str, Any], seat: int) -> list[str]:
    """The picks one seat made during a game, as stable keys ("priority+sword", "deflector"),
    from ``summary[key]``: a list in seat order or a dict by seat, of each seat's picks.

    The summary comes from a game's cog; anything not shaped as expected counts as no
    picks, because a stats nicety must never stop a finished game from being recorded.
    """
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
    conn: Connection,
    session: Session,
    seats: Sequence[Seat],
    summary: dict[str, Any],
    picks_key: str,
) -> None:
    picks: list[stored.PickUses] = []
    for seat in seats:
        if seat.is_ai:
            continue
        counts = Counter(picks_of(picks_key, summary, seat.seat))
        picks.extend(
            stored.PickUses(session.guild_id, session.game, seat.user_id, pick, uses)
            for pick, uses in counts.items()
        )
    if picks:
        picks.sort()
        await stored.add_picks(conn, picks)
