"""Seasons: each server's ladder of each game runs in numbered seasons.

- ``season_current`` holds, per server and game, the season now running: its number,
  optional name and start. A server that never closed a season is in season 1, unnamed.
- ``season_ratings`` is each season's ladder: ratings (openskill, fresh at the start of a
  season), W/L/D, games and streaks of every player who finished a game against other
  players in that season. ``bot.ladder.results.record_in_current_season`` writes it.
- ``seasons`` keeps every closed season: its name, start and end, who closed it, and the
  provisional threshold in force when it closed, so its final standings never change,
  even when the server changes its threshold later.

Closing a season (``close_season``) adds the ``seasons`` row and moves ``season_current``
on to the next number; it copies and deletes nothing, because results are only ever
written into the current season's number. The ``season_current`` row is the lock: the
transaction that records a result and the one that closes a season both take it first
(an upsert, which locks the row on PostgreSQL; SQLite's write lock serialises anyway), so
a result lands either in the season that is closing, before it closes, or in the next.
A game still being played when its season closes counts in the season in which it ends.

Lifetime records (the ``ratings`` table: W/L/D, streaks, the record against the AI,
averages, favourite picks) and the history of finished games are not per season.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from bot.i18n import _
from bot.model.errors import UserError
from bot.storage import Connection, Database
from bot.storage import seasons as stored
from bot.storage.season_ratings import count_players

# How long a season's name may be (Discord shows it in titles; the option says so too).
NAME_LIMIT = 40
# How many closed seasons a listing shows per game.
LISTED_SEASONS = 10


class SeasonChanged(UserError):
    """The season asked about is no longer the current one (someone closed it first)."""

    def __init__(self, message: str, *, running: int) -> None:
        super().__init__(message)
        self.running = running


@dataclass(frozen=True)
class Season:
    guild_id: int
    game: str
    number: int
    name: str
    started_at: float | None  # None: season 1 of a server that has not played it yet
    ended_at: float | None = None  # None while it runs
    closed_by: int | None = None
    # The provisional threshold in force when it closed (None while it runs: the server's).
    provisional_games: int | None = None

    @property
    def closed(self) -> bool:
        return self.ended_at is not None

    @property
    def label(self) -> str:
        """ "Season 2" or "Season 2 · Spring Cup" (the name as typed: escape it to show),
        in the current language."""
        if self.name:
            # Translators: a season's number and the name its server gave it.
            return _("Season {number} · {name}").format(number=self.number, name=self.name)
        return _("Season {number}").format(number=self.number)

    @classmethod
    def from_current(cls, guild_id: int, game: str, row: stored.CurrentRow | None) -> Season:
        if row is None:
            return cls(guild_id, game, 1, "", None)
        return cls(guild_id, game, row.number, row.name, row.started_at)

    @classmethod
    def from_closed(cls, row: stored.ClosedRow) -> Season:
        return cls(**row._asdict())


def clean_name(name: str | None) -> str:
    """A season's name as stored: one line, spaces collapsed, at most ``NAME_LIMIT``
    characters; any script and emoji are welcome. Raises UserError for a name with
    nothing visible in it or one too long."""
    if name is None:
        return ""
    # Control characters (newlines, tabs, bidi overrides) would break a title's line.
    visible = "".join(" " if unicodedata.category(ch).startswith("C") else ch for ch in name)
    cleaned = " ".join(visible.split())
    if not cleaned:
        raise UserError(_("A season's name needs at least one visible character: nothing changed."))
    if len(cleaned) > NAME_LIMIT:
        raise UserError(
            _(
                "A season's name can be at most {limit} characters (yours has {length}): "
                "nothing changed."
            ).format(limit=NAME_LIMIT, length=len(cleaned))
        )
    return cleaned


async def lock_current_season(conn: Connection, guild_id: int, game: str, now: float) -> int:
    """The number of the season running now, its row locked until the caller's transaction
    ends (created as season 1 the first time). Everything that writes a season's ladder
    or closes a season goes through here first."""
    return await stored.lock_current(conn, guild_id, game, now)


async def current_season(db: Database | Connection, guild_id: int, game: str) -> Season:
    row = await stored.read_current(db, guild_id, game)
    return Season.from_current(guild_id, game, row)


async def find_season(db: Database, guild_id: int, game: str, number: int) -> Season | None:
    """Season ``number`` of one game here, running or closed; None if there is none."""
    current = await current_season(db, guild_id, game)
    if number == current.number:
        return current
    row = await stored.read_closed(db, guild_id, game, number)
    return None if row is None else Season.from_closed(row)


async def closed_seasons(
    db: Database, guild_id: int, game: str, *, limit: int = LISTED_SEASONS
) -> list[Season]:
    """One game's closed seasons here, newest first."""
    rows = await stored.list_closed(db, guild_id, game, limit)
    return [Season.from_closed(row) for row in rows]


@dataclass(frozen=True)
class ClosedSeason:
    """What closing one game's season did."""

    closed: Season
    started: Season
    players: int  # players with at least one game in the closed season


async def close_season(
    conn: Connection,
    *,
    guild_id: int,
    game: str,
    expected: int,
    name: str,
    closed_by: int,
    provisional_games: int,
    now: float,
) -> ClosedSeason:
    """Close season ``expected`` of ``game`` here and start the next one, named ``name``,
    in the caller's transaction. Raises SeasonChanged when ``expected`` is not the season
    running (someone closed it meanwhile): nothing is changed then."""
    number = await lock_current_season(conn, guild_id, game, now)
    if number != expected:
        raise SeasonChanged(
            _(
                "season {closed} was closed meanwhile (season {running} is running now), so "
                "nothing was changed."
            ).format(closed=expected, running=number),
            running=number,
        )
    running = await current_season(conn, guild_id, game)
    started_at = running.started_at if running.started_at is not None else now
    await stored.add_closed(
        conn,
        stored.ClosedRow(
            guild_id, game, number, running.name, started_at, now, closed_by, provisional_games
        ),
    )
    await stored.start_next(conn, guild_id, game, number=number + 1, name=name, now=now)
    players = await count_players(conn, guild_id, game, number)
    closed = Season(
        guild_id, game, number, running.name, started_at, now, closed_by, provisional_games
    )
    return ClosedSeason(
        closed=closed,
        started=Season(guild_id, game, number + 1, name, now),
        players=players,
    )
