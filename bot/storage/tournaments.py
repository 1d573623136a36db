"""Tournaments' rows (migrations 11 and 12): the event (``tournaments``, versioned like a
session, with the version its message shows and the claim on editing that message),
its sign-ups and final places (``tournament_players``), one row a pairing
(``tournament_matches``) and which sessions are that pairing's games
(``tournament_games``). ``bot.play.tournaments`` opens the transactions; every query of a
tournament is here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bot.storage.base import Database
from bot.storage.connection import Connection, Row
from bot.storage.publication import ShowClaim

TournamentStatus = Literal["signup", "running", "finished", "cancelled"]
OPEN_TOURNAMENT_STATUSES: tuple[TournamentStatus, ...] = ("signup", "running")


@dataclass(frozen=True)
class TournamentRow:
    id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    message_id: int | None
    host_id: int
    game: str
    name: str
    format: str
    best_of: int
    max_players: int
    swiss_rounds: int | None
    starts_at: float | None
    status: TournamentStatus
    seed: int
    # The pure bracket (game_core.tournament) as stored JSON text; None before the start.
    state: str | None
    version: int
    language: str
    winner_id: int | None
    cancel_reason: str | None
    created_at: float
    updated_at: float
    finished_at: float | None

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_TOURNAMENT_STATUSES

    @property
    def games_channel_id(self) -> int:
        """Where the matches are played: the event's thread, else its channel."""
        return self.thread_id if self.thread_id is not None else self.channel_id


@dataclass(frozen=True)
class NewTournament:
    guild_id: int
    channel_id: int
    host_id: int
    game: str
    name: str
    format: str
    best_of: int
    max_players: int
    swiss_rounds: int | None
    starts_at: float | None
    seed: int
    language: str


@dataclass(frozen=True)
class TournamentPlayer:
    user_id: int
    display_name: str
    joined_at: float
    rating: float | None
    seed: int | None
    removed: bool
    place: int | None


@dataclass(frozen=True)
class MatchRow:
    tournament_id: int
    round: int
    table_no: int
    first_id: int
    second_id: int
    first_wins: int
    second_wins: int
    games: int
    open_session: int | None
    winner_id: int | None
    # Why the match ended other than by its games: "time" (a player did not start or
    # finish in time), "withdrawn" (a player gave up or was removed).
    reason: str | None

    @property
    def decided(self) -> bool:
        return self.winner_id is not None


@dataclass(frozen=True)
class GameLink:
    """The pairing a session is a game of."""

    tournament_id: int
    round: int
    table_no: int


_COLUMNS = (
    "id, guild_id, channel_id, thread_id, message_id, host_id, game, name, format, best_of,"
    " max_players, swiss_rounds, starts_at, status, seed, state, version, language,"
    " winner_id, cancel_reason, created_at, updated_at, finished_at"
)


def _tournament(row: Row) -> TournamentRow:
    return TournamentRow(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        thread_id=row["thread_id"],
        message_id=row["message_id"],
        host_id=row["host_id"],
        game=row["game"],
        name=row["name"],
        format=row["format"],
        best_of=row["best_of"],
        max_players=row["max_players"],
        swiss_rounds=row["swiss_rounds"],
        starts_at=row["starts_at"],
        status=row["status"],
        seed=row["seed"],
        state=row["state"],
        version=row["version"],
        language=row["language"],
        winner_id=row["winner_id"],
        cancel_reason=row["cancel_reason"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        finished_at=row["finished_at"],
    )


def _player(row: Row) -> TournamentPlayer:
    return TournamentPlayer(
        user_id=row["user_id"],
        display_name=row["display_name"],
        joined_at=row["joined_at"],
        rating=row["rating"],
        seed=row["seed"],
        removed=bool(row["removed"]),
        place=row["place"],
    )


def _match(row: Row) -> MatchRow:
    return MatchRow(
        tournament_id=row["tournament_id"],
        round=row["round"],
        table_no=row["table_no"],
        first_id=row["first_id"],
        second_id=row["second_id"],
        first_wins=row["first_wins"],
        second_wins=row["second_wins"],
        games=row["games"],
        open_session=row["open_session"],
        winner_id=row["winner_id"],
        reason=row["reason"],
    )


# -- the event ------------------------------------------------------------------------------


async def insert_tournament(conn: Connection, new: NewTournament, *, now: float) -> int:
    """Store a new event in sign-up; returns its id."""
    tournament_id = await conn.fetch_value(
        "INSERT INTO tournaments (guild_id, channel_id, host_id, game, name, format, best_of,"
        " max_players, swiss_rounds, starts_at, status, seed, version, language, created_at,"
        " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'signup', ?, 0, ?, ?, ?)"
        " RETURNING id",
        (
            new.guild_id,
            new.channel_id,
            new.host_id,
            new.game,
            new.name,
            new.format,
            new.best_of,
            new.max_players,
            new.swiss_rounds,
            new.starts_at,
            new.seed,
            new.language,
            now,
            now,
        ),
    )
    assert isinstance(tournament_id, int)
    return tournament_id


async def load_tournament(
    conn: Connection, tournament_id: int, *, lock: bool = False
) -> TournamentRow | None:
    """The event; ``lock`` (in a write transaction) holds its row until the commit."""
    row = await conn.fetch_one(
        f"SELECT {_COLUMNS} FROM tournaments WHERE id = ?" + (conn.for_update if lock else ""),
        (tournament_id,),
    )
    return None if row is None else _tournament(row)


async def read_tournament(db: Database, tournament_id: int) -> TournamentRow | None:
    row = await db.fetch_one(f"SELECT {_COLUMNS} FROM tournaments WHERE id = ?", (tournament_id,))
    return None if row is None else _tournament(row)


async def save_tournament(
    conn: Connection,
    before: TournamentRow,
    *,
    now: float,
    status: TournamentStatus | None = None,
    state: str | None = None,
    winner_id: int | None = None,
    cancel_reason: str | None = None,
) -> bool:
    """The event's next version (status, bracket, winner, reason: None keeps each as it
    was); False when another transaction saved a version since ``before`` was read."""
    new_status = status or before.status
    finished_at = now if new_status in ("finished", "cancelled") else before.finished_at
    changed = await conn.execute(
        "UPDATE tournaments SET status = ?, state = ?, winner_id = ?, cancel_reason = ?,"
        " version = version + 1, updated_at = ?, finished_at = ? WHERE id = ? AND version = ?",
        (
            new_status,
            state if state is not None else before.state,
            winner_id if winner_id is not None else before.winner_id,
            cancel_reason if cancel_reason is not None else before.cancel_reason,
            now,
            finished_at,
            before.id,
            before.version,
        ),
    )
    return changed == 1


async def store_message(db: Database, tournament_id: int, message_id: int) -> None:
    """The event's public message (its sign-up, later its picture)."""
    await db.write(
        "UPDATE tournaments SET message_id = ? WHERE id = ?", (message_id, tournament_id)
    )


async def store_message_shown(
    db: Database, tournament_id: int, message_id: int, version: int
) -> None:
    """The event's public message, posted showing ``version`` (the shown version only
    moves up: a change shown meanwhile by another process stays counted)."""
    await db.write(
        "UPDATE tournaments SET message_id = ?,"
        " shown_version = CASE WHEN shown_version < ? THEN ? ELSE shown_version END,"
        " show_fence = CASE WHEN show_fence < ? THEN ? ELSE show_fence END WHERE id = ?",
        (message_id, version, version, version, version, tournament_id),
    )


async def claim_event_show(
    db: Database, tournament_id: int, version: int, *, owner: str, now: float, lease_seconds: float
) -> ShowClaim:
    """Claim the event's message to show ``version`` on it, as ``PublicationStore.claim_show``
    does a game's: granted unless a newer version is shown or being shown (``NEWER``) or
    another process is editing it now (``BUSY``). Held until ``record_event_shown`` or the
    lease's end (a process that died)."""
    claimed = await db.write(
        "UPDATE tournaments SET show_fence = ?, show_owner = ?, show_until = ?"
        " WHERE id = ? AND show_fence <= ?"
        " AND (show_owner IS NULL OR show_owner = ? OR show_until <= ?)",
        (version, owner, now + lease_seconds, tournament_id, version, owner, now),
    )
    if claimed:
        return ShowClaim.GRANTED
    row = await db.fetch_one("SELECT show_fence FROM tournaments WHERE id = ?", (tournament_id,))
    if row is None or row["show_fence"] > version:
        return ShowClaim.NEWER
    return ShowClaim.BUSY


async def record_event_shown(
    db: Database, tournament_id: int, version: int | None, *, owner: str
) -> None:
    """The event's message shows ``version`` (None: the edit failed, nothing new is shown;
    the shown version is never lowered), and ``owner``'s claim on it ends."""
    shown = -1 if version is None else version
    await db.write(
        "UPDATE tournaments"
        " SET shown_version = CASE WHEN shown_version < ? THEN ? ELSE shown_version END,"
        " show_until = CASE WHEN show_owner = ? THEN NULL ELSE show_until END,"
        " show_owner = CASE WHEN show_owner = ? THEN NULL ELSE show_owner END"
        " WHERE id = ?",
        (shown, shown, owner, owner, tournament_id),
    )


async def unshown_events(
    db: Database, *, settled_before: float, finished_since: float, limit: int
) -> list[int]:
    """Events with a message that shows an older version than the stored one: open ones,
    and those that ended since ``finished_since`` (their last edit, the winner or the
    cancel). Only those unchanged since ``settled_before``: the process that changed one
    shows it itself, within moments."""
    rows = await db.fetch_all(
        "SELECT id FROM tournaments WHERE shown_version < version AND message_id IS NOT NULL"
        " AND updated_at <= ?"
        " AND (status IN ('signup', 'running') OR finished_at >= ?) ORDER BY id LIMIT ?",
        (settled_before, finished_since, limit),
    )
    return [row["id"] for row in rows]


async def store_thread(conn: Connection, tournament_id: int, thread_id: int | None) -> None:
    """Where the event's matches are played (None: in its channel)."""
    await conn.execute(
        "UPDATE tournaments SET thread_id = ? WHERE id = ?", (thread_id, tournament_id)
    )


async def due_to_start(db: Database, now: float) -> list[int]:
    """Events in sign-up whose start time has come, earliest first."""
    rows = await db.fetch_all(
        "SELECT id FROM tournaments WHERE status = 'signup' AND starts_at IS NOT NULL"
        " AND starts_at <= ? ORDER BY starts_at, id",
        (now,),
    )
    return [row["id"] for row in rows]


async def next_start(db: Database) -> float | None:
    """The earliest start time of an event still in sign-up."""
    value = await db.fetch_one(
        "SELECT MIN(starts_at) AS due FROM tournaments"
        " WHERE status = 'signup' AND starts_at IS NOT NULL"
    )
    return None if value is None else value["due"]


async def open_ids(db: Database) -> list[int]:
    """Every event in sign-up or running, oldest first."""
    rows = await db.fetch_all(
        "SELECT id FROM tournaments WHERE status IN ('signup', 'running') ORDER BY id"
    )
    return [row["id"] for row in rows]


async def running_ids(db: Database) -> list[int]:
    rows = await db.fetch_all("SELECT id FROM tournaments WHERE status = 'running' ORDER BY id")
    return [row["id"] for row in rows]


async def guild_tournaments(db: Database, guild_id: int, *, limit: int) -> list[TournamentRow]:
    """This server's events: the open ones first, then the newest."""
    rows = await db.fetch_all(
        f"SELECT {_COLUMNS} FROM tournaments WHERE guild_id = ?"
        " ORDER BY CASE WHEN status IN ('signup', 'running') THEN 0 ELSE 1 END, id DESC"
        " LIMIT ?",
        (guild_id, limit),
    )
    return [_tournament(row) for row in rows]


# -- players --------------------------------------------------------------------------------


async def add_player(
    conn: Connection, tournament_id: int, user_id: int, display_name: str, *, now: float
) -> bool:
    """Sign a player up; False if they already were."""
    added = await conn.execute(
        "INSERT INTO tournament_players (tournament_id, user_id, display_name, joined_at)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (tournament_id, user_id) DO NOTHING",
        (tournament_id, user_id, display_name, now),
    )
    return added == 1


async def drop_player(conn: Connection, tournament_id: int, user_id: int) -> bool:
    """Take a sign-up back (before the start); False if they were not signed up."""
    dropped = await conn.execute(
        "DELETE FROM tournament_players WHERE tournament_id = ? AND user_id = ?",
        (tournament_id, user_id),
    )
    return dropped == 1


async def players_of(conn: Connection, tournament_id: int) -> list[TournamentPlayer]:
    """The event's players in the order they signed up."""
    rows = await conn.fetch_all(
        "SELECT user_id, display_name, joined_at, rating, seed, removed, place"
        " FROM tournament_players WHERE tournament_id = ? ORDER BY joined_at, user_id",
        (tournament_id,),
    )
    return [_player(row) for row in rows]


async def read_players(db: Database, tournament_id: int) -> list[TournamentPlayer]:
    async with db.read() as conn:
        return await players_of(conn, tournament_id)


async def store_seeds(
    conn: Connection, tournament_id: int, seeds: Sequence[tuple[int, int, float | None]]
) -> None:
    """Each player's (user id, seed, rating at the start)."""
    await conn.execute_many(
        "UPDATE tournament_players SET seed = ?, rating = ?"
        " WHERE tournament_id = ? AND user_id = ?",
        [(seed, rating, tournament_id, user_id) for user_id, seed, rating in seeds],
    )


async def mark_removed(conn: Connection, tournament_id: int, user_id: int) -> None:
    await conn.execute(
        "UPDATE tournament_players SET removed = 1 WHERE tournament_id = ? AND user_id = ?",
        (tournament_id, user_id),
    )


async def store_places(
    conn: Connection, tournament_id: int, places: Sequence[tuple[int, int]]
) -> None:
    """The final standings: (user id, place)."""
    await conn.execute_many(
        "UPDATE tournament_players SET place = ? WHERE tournament_id = ? AND user_id = ?",
        [(place, tournament_id, user_id) for user_id, place in places],
    )


async def tournament_record(db: Database, guild_id: int, user_id: int) -> tuple[int, int]:
    """(events played, events won) by a player on a server: played = took part in an
    event that started (running or finished), won = finished as its winner."""
    row = await db.fetch_one(
        "SELECT COUNT(*) AS played,"
        " COALESCE(SUM(CASE WHEN t.status = 'finished' AND t.winner_id = p.user_id"
        " THEN 1 ELSE 0 END), 0) AS won"
        " FROM tournament_players p JOIN tournaments t ON t.id = p.tournament_id"
        " WHERE t.guild_id = ? AND p.user_id = ? AND t.status IN ('running', 'finished')",
        (guild_id, user_id),
    )
    if row is None:
        return 0, 0
    return int(row["played"]), int(row["won"])


# -- pairings and their games --------------------------------------------------------------


_MATCH_COLUMNS = (
    "tournament_id, round, table_no, first_id, second_id, first_wins, second_wins, games,"
    " open_session, winner_id, reason"
)


async def insert_match(
    conn: Connection, tournament_id: int, round_number: int, table_no: int, first: int, second: int
) -> None:
    """A pairing of a round (a bye has none: it is won at once in the bracket)."""
    await conn.execute(
        "INSERT INTO tournament_matches (tournament_id, round, table_no, first_id, second_id)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (tournament_id, round, table_no) DO NOTHING",
        (tournament_id, round_number, table_no, first, second),
    )


async def load_match(
    conn: Connection, tournament_id: int, round_number: int, table_no: int, *, lock: bool = False
) -> MatchRow | None:
    row = await conn.fetch_one(
        f"SELECT {_MATCH_COLUMNS} FROM tournament_matches"
        " WHERE tournament_id = ? AND round = ? AND table_no = ?"
        + (conn.for_update if lock else ""),
        (tournament_id, round_number, table_no),
    )
    return None if row is None else _match(row)


async def matches_of(
    conn: Connection, tournament_id: int, round_number: int | None = None
) -> list[MatchRow]:
    """The event's pairings (one round's with ``round_number``), by round and table."""
    if round_number is None:
        rows = await conn.fetch_all(
            f"SELECT {_MATCH_COLUMNS} FROM tournament_matches WHERE tournament_id = ?"
            " ORDER BY round, table_no",
            (tournament_id,),
        )
    else:
        rows = await conn.fetch_all(
            f"SELECT {_MATCH_COLUMNS} FROM tournament_matches WHERE tournament_id = ?"
            " AND round = ? ORDER BY table_no",
            (tournament_id, round_number),
        )
    return [_match(row) for row in rows]


async def read_matches(db: Database, tournament_id: int) -> list[MatchRow]:
    async with db.read() as conn:
        return await matches_of(conn, tournament_id)


async def save_match(conn: Connection, match: MatchRow) -> None:
    """A pairing's score, game in play, winner and reason, as given."""
    await conn.execute(
        "UPDATE tournament_matches SET first_wins = ?, second_wins = ?, games = ?,"
        " open_session = ?, winner_id = ?, reason = ?"
        " WHERE tournament_id = ? AND round = ? AND table_no = ?",
        (
            match.first_wins,
            match.second_wins,
            match.games,
            match.open_session,
            match.winner_id,
            match.reason,
            match.tournament_id,
            match.round,
            match.table_no,
        ),
    )


async def link_game(conn: Connection, session_id: int, match: MatchRow) -> None:
    """``session_id`` is a game of ``match``."""
    await conn.execute(
        "INSERT INTO tournament_games (session_id, tournament_id, round, table_no)"
        " VALUES (?, ?, ?, ?)",
        (session_id, match.tournament_id, match.round, match.table_no),
    )


async def game_link(conn: Connection, session_id: int) -> GameLink | None:
    """The pairing whose game ``session_id`` is (None: not a tournament game). A plain
    SELECT, so a move tried outside a transaction may ask it."""
    row = await conn.fetch_one(
        "SELECT tournament_id, round, table_no FROM tournament_games WHERE session_id = ?",
        (session_id,),
    )
    if row is None:
        return None
    return GameLink(row["tournament_id"], row["round"], row["table_no"])


async def hold_event(conn: Connection, tournament_id: int) -> None:
    """Lock an event's row for the move that ends one of its games, before the move is
    written. Every transaction takes a session's row before its event's, and an event's
    before its pairings', so two never wait for each other in a circle. A write (that
    changes nothing), so a PostgreSQL move tried outside a transaction takes the locked
    one."""
    await conn.execute("UPDATE tournaments SET version = version WHERE id = ?", (tournament_id,))


async def season_ordinals(
    conn: Connection, guild_id: int, game: str, season: int, user_ids: Sequence[int]
) -> dict[int, float]:
    """The players' conservative rating estimates in one season of one game here; a player
    without a game against players in it is absent (unrated)."""
    if not user_ids:
        return {}
    marks = ", ".join("?" for _ in user_ids)
    rows = await conn.fetch_all(
        "SELECT user_id, ordinal FROM season_ratings WHERE guild_id = ? AND game = ?"
        f" AND season = ? AND games > 0 AND user_id IN ({marks})",
        (guild_id, game, season, *user_ids),
    )
    return {row["user_id"]: float(row["ordinal"]) for row in rows}


async def open_games(conn: Connection, tournament_id: int) -> list[int]:
    """The sessions of the event's pairings being played now."""
    rows = await conn.fetch_all(
        "SELECT open_session FROM tournament_matches"
        " WHERE tournament_id = ? AND open_session IS NOT NULL AND winner_id IS NULL"
        " ORDER BY round, table_no",
        (tournament_id,),
    )
    return [row["open_session"] for row in rows]


async def anyone_busy(conn: Connection, channel_id: int, user_ids: Sequence[int]) -> bool:
    """Whether any of the players has an open game in the channel (``busy_players``)."""
    marks = ", ".join("?" for _ in user_ids)
    found = await conn.fetch_value(
        f"SELECT COUNT(*) FROM busy_players WHERE channel_id = ? AND user_id IN ({marks})",
        (channel_id, *user_ids),
    )
    return bool(found)
