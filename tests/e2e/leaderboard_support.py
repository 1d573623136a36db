"""Helpers for the leaderboard and admin end-to-end tests: finished games recorded through
the production path (``bot.ladder.results.record_result`` in one transaction), without playing
each game move by move, and a few readers of what the bot stored."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pseudo_locale import STORED_NAMES

from bot.app import DiceBot
from bot.ladder.results import record_result
from bot.model.contract import Seat, Session
from game_core.base import EndReason, GameResult


async def finish_game(
    bot: DiceBot,
    *,
    game: str,
    guild_id: int,
    channel_id: int,
    players: Sequence[int],
    ranks: Sequence[int],
    ai: Sequence[int] = (),
    draw: bool = False,
    reason: EndReason = "normal",
    scores: Sequence[int] | None = None,
    summary: dict[str, Any] | None = None,
    message_id: int | None = None,
    names: Mapping[int, str] | None = None,
) -> int:
    """Record one finished game as the session service does when a game ends; returns the
    result id. The session row (with its seats) is created already finished and shown, so
    no cog ever sees it open and the publisher has nothing to show. Players are named
    ``names[user]``, else ``player<id>``; the AI goes by the bot's name."""
    now = bot.clock.now()
    assert bot.user is not None
    seats = tuple(
        Seat(
            seat=i,
            user_id=user,
            display_name=bot.user.display_name
            if user in ai
            else (names or {}).get(user, player_name(user)),
            is_ai=user in ai,
        )
        for i, user in enumerate(players)
    )
    result = GameResult(
        ranks=list(ranks),
        winners=[] if draw else [i for i, rank in enumerate(ranks) if rank == 1],
        draw=draw,
        reason=reason,
        scores=None if scores is None else list(scores),
    )
    STORED_NAMES.update(seat.display_name for seat in seats)
    async with bot.db.transaction() as conn:
        session_id = await conn.fetch_value(
            "INSERT INTO sessions (game, guild_id, channel_id, message_id, status, state,"
            " version, shown_version, seed, created_by, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, 'finished', '{}', 1, 1, 0, ?, ?, ?) RETURNING id",
            (game, guild_id, channel_id, message_id, players[0], now, now),
        )
        assert isinstance(session_id, int)
        await conn.execute_many(
            "INSERT INTO session_players (session_id, seat, user_id, display_name, is_ai)"
            " VALUES (?, ?, ?, ?, ?)",
            [(session_id, s.seat, s.user_id, s.display_name, int(s.is_ai)) for s in seats],
        )
        session = Session(
            id=session_id,
            game=game,
            guild_id=guild_id,
            channel_id=channel_id,
            message_id=message_id,
            status="finished",
            state={},
            version=1,
            seed=0,
            created_by=players[0],
            created_at=now,
            updated_at=now,
            seats=seats,
        )
        return await record_result(
            conn,
            session=session,
            seats=seats,
            result=result,
            summary=summary if summary is not None else {"score_line": "3–1"},
            now=now,
            picks_key=bot.guides.picks_key(game),
        )


def player_name(user_id: int) -> str:
    """The name ``finish_game`` gives a player unless told otherwise."""
    return f"player{user_id}"


async def win(
    bot: DiceBot, game: str, guild_id: int, channel_id: int, winner: int, loser: int
) -> int:
    return await finish_game(
        bot,
        game=game,
        guild_id=guild_id,
        channel_id=channel_id,
        players=[winner, loser],
        ranks=[1, 2],
    )


async def rating_row(bot: DiceBot, guild_id: int, game: str, user_id: int) -> dict[str, Any]:
    row = await bot.db.fetch_one(
        "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?",
        (guild_id, game, user_id),
    )
    assert row is not None, f"no rating for {user_id} in {game}"
    return dict(row)


async def ladder_snapshot(bot: DiceBot) -> list[tuple[Any, ...]]:
    """Every ladder row: lifetime records, picks, and every season's rows and bounds."""
    found: list[tuple[Any, ...]] = []
    for sql in (
        "SELECT * FROM ratings ORDER BY guild_id, game, user_id",
        "SELECT * FROM player_picks ORDER BY guild_id, game, user_id, pick",
        "SELECT * FROM season_current ORDER BY guild_id, game",
        "SELECT * FROM seasons ORDER BY guild_id, game, number",
        "SELECT * FROM season_ratings ORDER BY guild_id, game, season, user_id",
    ):
        found += [tuple(row) for row in await bot.db.fetch_all(sql)]
    return found
