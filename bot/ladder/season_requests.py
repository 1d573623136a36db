"""``/dicebot season new``'s requests: what an admin asked to close, kept until they answer
the confirmation (``cogs/admin.py`` shows it; ``bot.storage.season_requests`` stores it).

A request is answered once. **Keep it** (``keep``) deletes it while it is still pending;
**Close the season** (``close``) marks it closed in the one transaction that closes its
seasons (``bot.ladder.seasons.close_season``), which changes nothing if any of them was closed
meanwhile. A press that finds the request already answered reads what the first answer
did (``closed_by_request``): a closed request stays readable until it expires with the
others.
"""

from __future__ import annotations

from bot.ladder.seasons import (
    ClosedSeason,
    Season,
    SeasonChanged,
    close_season,
    current_season,
    find_season,
)
from bot.model.catalog import GAMES
from bot.storage import Database
from bot.storage.season_ratings import count_players
from bot.storage.season_requests import (
    SeasonRequest,
    add_request,
    delete_request,
    find_request,
    keep_request,
    mark_closed,
)

__all__ = [
    "CONFIRM_SECONDS",
    "SeasonClosedMeanwhile",
    "SeasonRequest",
    "close",
    "closed_by_request",
    "find_request",
    "forget",
    "keep",
    "request_season",
    "season_players",
]

# How long a confirmation may be answered.
CONFIRM_SECONDS = 300


class SeasonClosedMeanwhile(Exception):
    """Close the season found one of its seasons closed since the request (nothing was
    changed)."""

    def __init__(self, game: str, expected: int, running: int) -> None:
        super().__init__(game, expected, running)
        self.game, self.expected, self.running = game, expected, running


async def season_players(db: Database, season: Season) -> int:
    """Players with a game against other players in a season."""
    return await count_players(db, season.guild_id, season.game, season.number)


async def request_season(
    db: Database,
    *,
    guild_id: int,
    game: str | None,
    name: str,
    admin_id: int,
    now: float,
) -> tuple[int, list[tuple[Season, int]]]:
    """Store an admin's request to close the seasons of ``game`` (None: every game);
    returns its id and, per game, the season it would close with its players. Requests
    older than ``CONFIRM_SECONDS`` go (nobody answered them in time)."""
    plan = []
    for each in GAMES if game is None else (game,):
        season = await current_season(db, guild_id, each)
        plan.append((season, await season_players(db, season)))
    request_id = await add_request(
        db,
        guild_id=guild_id,
        game=game,
        name=name,
        admin_id=admin_id,
        numbers={season.game: season.number for season, _ in plan},
        now=now,
        expired_before=now - CONFIRM_SECONDS,
    )
    return request_id, plan


async def keep(db: Database, request: SeasonRequest) -> bool:
    """Keep it: the request goes, nothing else changes. False when the request was no
    longer pending (a Close the season took it first, committed while this press was on
    its way): this press must then say what that one did."""
    return await keep_request(db, request)


async def close(
    db: Database,
    request: SeasonRequest,
    *,
    closed_by: int,
    provisional_games: int,
    now: float,
) -> list[ClosedSeason]:
    """Close the season: in ONE transaction, mark the request closed and close each of its
    seasons, starting the next one named as asked. Empty when the request was no longer
    pending (a Keep it, another press or another process took it first). Raises
    SeasonClosedMeanwhile, changing nothing, when one of its seasons was closed since."""
    closed: list[ClosedSeason] = []
    async with db.transaction() as conn:
        # Marking the request closed first makes a second press (or a second process, or
        # a Keep it pressed meanwhile) find it answered: only one transaction closes these
        # seasons.
        if await mark_closed(conn, request):
            for game in sorted(request.numbers, key=GAMES.index):
                expected = request.numbers[game]
                try:
                    closed.append(
                        await close_season(
                            conn,
                            guild_id=request.guild_id,
                            game=game,
                            expected=expected,
                            name=request.name,
                            closed_by=closed_by,
                            provisional_games=provisional_games,
                            now=now,
                        )
                    )
                except SeasonChanged as error:
                    raise SeasonClosedMeanwhile(game, expected, error.running) from None
    return closed


async def forget(db: Database, request_id: int) -> None:
    """An expired request goes, whatever its state."""
    await delete_request(db, request_id)


async def closed_by_request(db: Database, request: SeasonRequest) -> list[ClosedSeason]:
    """What a request's Close the season did, read back: each season it closed (a closed
    season never changes) and the one that followed it, named as the request asked."""
    closed = []
    for game in sorted(request.numbers, key=GAMES.index):
        season = await find_season(db, request.guild_id, game, request.numbers[game])
        if season is None or not season.closed:
            continue
        assert season.ended_at is not None
        closed.append(
            ClosedSeason(
                closed=season,
                started=Season(
                    request.guild_id, game, season.number + 1, request.name, season.ended_at
                ),
                players=await season_players(db, season),
            )
        )
    return closed
