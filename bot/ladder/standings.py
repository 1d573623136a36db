"""The read side of results and ratings: leaderboard pages (a season's), one player's
stats and recent history.

Everything here is per server (``guild_id``), except what ``/stats`` and ``/history`` show
outside servers (a DM, a group DM, a server without the bot): a player's record summed
over every server and their games with friends (``FRIENDS_LADDER``), the head-to-head
record of two players, and games with friends. A leaderboard is one season's ladder
(``season_ratings``, see ``bot.ladder.seasons``) that
``bot.ladder.results.record_result`` keeps up to date in each game's own transaction, so a
page is an indexed range read, never an aggregate over all results. Lifetime records
(``ratings``) feed ``/stats``.

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
from typing import Literal

from bot.i18n import N_
from bot.ladder.seasons import Season, current_season
from bot.model.catalog import GAMES
from bot.model.contract import FRIENDS_LADDER
from bot.storage import Database
from bot.storage import standings as stored

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


def ladder_minimum(provisional_games: int) -> int:
    """Ladder games needed to be ranked: the server's threshold, and at least one game."""
    return max(1, provisional_games)


def message_link(guild_id: int, channel_id: int, message_id: int | None) -> str | None:
    # A game with friends keeps no server to link through (a server without the bot is
    # stored as FRIENDS_LADDER too), so it has no link.
    if message_id is None or guild_id == FRIENDS_LADDER:
        return None
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


class RecordFigures:
    """What a record's counts give (a server's standing and a lifetime record alike)."""

    wins: int
    games: int
    ai_wins: int
    ai_losses: int
    ai_draws: int
    score_total: int
    scored_games: int

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
class Standing(RecordFigures):
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
    def from_row(cls, row: stored.StandingRow) -> Standing:
        return cls(**row._asdict())


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
    season found with ``bot.ladder.seasons.find_season`` (a closed one shows its final standings,
    under the threshold it closed with)."""
    if season is None:
        season = await current_season(db, guild_id, game)
    if season.provisional_games is not None:
        provisional_games = season.provisional_games
    minimum = ladder_minimum(provisional_games)
    ranked_total = await stored.count_ranked(db, guild_id, game, season.number, minimum)
    pages = max(1, -(-ranked_total // PAGE_SIZE))
    page = min(max(1, page), pages)
    rows = await stored.ladder_page(
        db,
        guild_id,
        game,
        season.number,
        minimum=minimum,
        sort=sort,
        limit=PAGE_SIZE,
        offset=(page - 1) * PAGE_SIZE,
    )
    first_rank = (page - 1) * PAGE_SIZE + 1
    provisional: list[Standing] = []
    provisional_total = 0
    if minimum > 1:
        provisional_rows, provisional_total = await stored.provisional_top(
            db,
            guild_id,
            game,
            season.number,
            most_games=minimum - 1,
            limit=PROVISIONAL_LISTED,
        )
        provisional = [Standing.from_row(row) for row in provisional_rows]
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
    # The finished game's session: what its replay rebuilds (bot.ui.replay).
    session_id: int | None = None

    @property
    def link(self) -> str | None:
        return message_link(self.guild_id, self.channel_id, self.message_id)

    @property
    def with_friends(self) -> bool:
        """Played outside servers (``FRIENDS_LADDER``) between players (not the AI)."""
        return self.guild_id == FRIENDS_LADDER and not self.vs_ai

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
    lines = await stored.player_lines(db, guild_id, user_id, minimum=minimum, games=GAMES)
    favourites = await _favourites(db, guild_id, user_id)
    order = {game: index for index, game in enumerate(GAMES)}
    games = [
        GameStats(
            game=line.game,
            standing=Standing.from_row(line.standing),
            season=Season(
                guild_id, line.game, line.season_number, line.season_name, line.season_started
            ),
            this_season=None
            if line.this_season is None
            else SeasonRecord(**line.this_season._asdict()),
            rank=line.rank,
            ranked_total=line.ranked_total,
            minimum_games=minimum,
            favourite=favourites.get(line.game),
        )
        for line in sorted(lines, key=lambda line: order.get(line.game, len(order)))
    ]
    recent = await history(db, guild_id, user_id=user_id, limit=RECENT_RESULTS)
    return PlayerStats(user_id=user_id, games=games, recent=recent)


async def _favourites(db: Database, guild_id: int, user_id: int) -> dict[str, Favourite]:
    return _first_by_game(await stored.picks_of_player(db, guild_id, user_id, games=GAMES))


def _first_by_game(rows: Sequence[stored.PickRow]) -> dict[str, Favourite]:
    """Each game's most used pick, from rows by game, most used first."""
    found: dict[str, Favourite] = {}
    for row in rows:
        found.setdefault(row.game, Favourite(row.pick, row.uses))
    return found


# -- one player outside servers --------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    wins: int
    losses: int
    draws: int

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws


@dataclass(frozen=True)
class LifetimeGame(RecordFigures):
    """One player's record in one game everywhere: every server and their games with
    friends. No rating or rank (each server ranks its own) and no streak (a streak runs
    in one place)."""

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
    with_friends: Record  # the part of wins/losses/draws played with friends
    favourite: Favourite | None


@dataclass(frozen=True)
class HeadToHead:
    """The finished games of one game two players played together, from the viewer's
    side: won (finished ahead), lost, drawn (the same place)."""

    game: str
    record: Record


@dataclass(frozen=True)
class LifetimeStats:
    """What ``/stats`` shows outside servers: ``user_id``'s record everywhere, asked by
    ``viewer_id``; with someone else's, also their head-to-head record (the viewer's
    side). ``recent`` lists only games with friends the viewer played: their own, or the
    two players' games together (outside servers nobody lists a third person's games)."""

    user_id: int
    viewer_id: int
    games: list[LifetimeGame]
    head_to_head: list[HeadToHead] | None  # None: the viewer's own stats
    recent: list[HistoryEntry]

    @property
    def empty(self) -> bool:
        return not self.games and not self.recent


async def lifetime_stats(db: Database, user_id: int, *, viewer_id: int) -> LifetimeStats:
    """``user_id``'s record in every server and with friends, as ``viewer_id`` asks it
    outside servers (see ``LifetimeStats``)."""
    order = {game: index for index, game in enumerate(GAMES)}
    lines = await stored.lifetime_lines(db, user_id, games=GAMES)
    favourites = _first_by_game(await stored.lifetime_picks(db, user_id, games=GAMES))
    games = [
        LifetimeGame(
            game=line.game,
            wins=line.wins,
            losses=line.losses,
            draws=line.draws,
            games=line.games,
            ai_wins=line.ai_wins,
            ai_losses=line.ai_losses,
            ai_draws=line.ai_draws,
            score_total=line.score_total,
            scored_games=line.scored_games,
            with_friends=Record(line.friends_wins, line.friends_losses, line.friends_draws),
            favourite=favourites.get(line.game),
        )
        for line in sorted(lines, key=lambda line: order.get(line.game, len(order)))
    ]
    together = None
    if viewer_id != user_id:
        found = await stored.head_to_head(db, viewer_id, user_id)
        together = [
            HeadToHead(line.game, Record(line.wins, line.losses, line.draws))
            for line in sorted(found, key=lambda line: order.get(line.game, len(order)))
        ]
    recent = await history(
        db,
        FRIENDS_LADDER,
        user_id=user_id,
        with_user=None if viewer_id == user_id else viewer_id,
        limit=RECENT_RESULTS,
    )
    return LifetimeStats(
        user_id=user_id, viewer_id=viewer_id, games=games, head_to_head=together, recent=recent
    )


# -- history ---------------------------------------------------------------------------------


async def history(
    db: Database,
    guild_id: int,
    *,
    game: str | None = None,
    user_id: int | None = None,
    with_user: int | None = None,
    limit: int = HISTORY_LIMIT,
) -> list[HistoryEntry]:
    """This server's finished games (``FRIENDS_LADDER``: the games with friends), newest
    first, optionally one game's or one player's, and of those the ones ``with_user``
    played too."""
    rows = await stored.recent_results(
        db, guild_id, game=game, user_id=user_id, with_user=with_user, limit=limit
    )
    if not rows:
        return []
    players = await _players_of(db, [row.id for row in rows])
    return [
        HistoryEntry(
            result_id=row.id,
            game=row.game,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            message_id=row.message_id,
            reason=row.reason,
            draw=row.draw,
            vs_ai=row.vs_ai,
            score_line=_score_line(row.summary),
            finished_at=row.finished_at,
            players=players.get(row.id, []),
            session_id=row.session_id,
        )
        for row in rows
    ]


async def _players_of(db: Database, result_ids: Sequence[int]) -> dict[int, list[HistoryPlayer]]:
    rows = await stored.players_of_results(db, result_ids)
    found: dict[int, list[HistoryPlayer]] = {}
    for row in rows:
        found.setdefault(row.result_id, []).append(
            HistoryPlayer(
                seat=row.seat,
                user_id=row.user_id,
                outcome=row.outcome,
                place=row.place,
                score=row.score,
                is_ai=row.is_ai,
                display_name=row.display_name,
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
