"""Versioned schema migrations, applied in order, each tracked in ``schema_migrations``.

ONE list for both databases. A step is portable SQL (a plain string, run as it is on
SQLite and on PostgreSQL) or a ``PerDialect`` pair where the two must differ: mostly the
column types of a CREATE TABLE, since PostgreSQL's INTEGER is 32-bit (Discord ids need
BIGINT), its REAL has 4 bytes (times need DOUBLE PRECISION), and its ids come from an
identity column instead of SQLite's rowid. A step may hold several statements separated
by ``;`` (no ``;`` inside a statement).

Append new migrations at the end; never edit one that has shipped. (Migrations 1-4
shipped on SQLite: their SQLite statements are kept exactly; the PostgreSQL text beside
them came with PostgreSQL support.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

Dialect = Literal["sqlite", "postgresql"]


@dataclass(frozen=True)
class PerDialect:
    """A step whose SQL differs between the two databases."""

    sqlite: str
    postgresql: str

    def for_dialect(self, dialect: Dialect) -> str:
        return self.sqlite if dialect == "sqlite" else self.postgresql


Step = str | PerDialect


class Migration(NamedTuple):
    version: int
    steps: tuple[Step, ...]

    def statements(self, dialect: Dialect) -> list[str]:
        """The migration's statements for ``dialect``, in order."""
        found: list[str] = []
        for step in self.steps:
            script = step if isinstance(step, str) else step.for_dialect(dialect)
            found.extend(part.strip() for part in script.split(";") if part.strip())
        return found


# The table that records applied migrations (created before any migration runs).
SCHEMA_MIGRATIONS = PerDialect(
    sqlite="CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)",
    postgresql="CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)",
)


MIGRATIONS: list[Migration] = [
    Migration(
        1,
        (
            PerDialect(
                sqlite="""
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            game TEXT NOT NULL,
            guild_id INTEGER NOT NULL,
            channel_id INTEGER NOT NULL,
            message_id INTEGER,
            status TEXT NOT NULL
                CHECK (status IN ('pending', 'active', 'finished', 'cancelled')),
            state TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 0,
            seed INTEGER NOT NULL,
            created_by INTEGER NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX sessions_open_by_channel ON sessions (channel_id, status);
        CREATE INDEX sessions_by_message ON sessions (message_id);

        CREATE TABLE session_players (
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            user_id INTEGER NOT NULL,
            display_name TEXT NOT NULL,
            is_ai INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (session_id, seat)
        );
        CREATE INDEX session_players_by_user ON session_players (user_id, session_id);

        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            version INTEGER NOT NULL,
            actor_id INTEGER,
            action TEXT NOT NULL,
            events TEXT NOT NULL,
            created_at REAL NOT NULL,
            UNIQUE (session_id, version)
        );

        CREATE TABLE deadlines (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            due_at REAL NOT NULL,
            action TEXT NOT NULL,
            UNIQUE (session_id, kind)
        );
        CREATE INDEX deadlines_by_due ON deadlines (due_at, id);

        CREATE TABLE results (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL UNIQUE REFERENCES sessions (id),
            game TEXT NOT NULL,
            guild_id INTEGER NOT NULL,
            channel_id INTEGER NOT NULL,
            message_id INTEGER,
            reason TEXT NOT NULL,
            draw INTEGER NOT NULL,
            vs_ai INTEGER NOT NULL,
            summary TEXT NOT NULL,
            finished_at REAL NOT NULL
        );
        CREATE INDEX results_by_guild_game ON results (guild_id, game, finished_at DESC);

        CREATE TABLE result_players (
            result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            user_id INTEGER NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ('win', 'loss', 'draw')),
            place INTEGER NOT NULL,
            score INTEGER,
            went_first INTEGER NOT NULL DEFAULT 0,
            is_ai INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (result_id, seat)
        );
        CREATE INDEX result_players_by_user ON result_players (user_id, result_id);

        CREATE TABLE ratings (
            guild_id INTEGER NOT NULL,
            game TEXT NOT NULL,
            user_id INTEGER NOT NULL,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            ordinal REAL NOT NULL,
            wins INTEGER NOT NULL DEFAULT 0,
            losses INTEGER NOT NULL DEFAULT 0,
            draws INTEGER NOT NULL DEFAULT 0,
            games INTEGER NOT NULL DEFAULT 0,
            streak INTEGER NOT NULL DEFAULT 0,
            best_streak INTEGER NOT NULL DEFAULT 0,
            ai_wins INTEGER NOT NULL DEFAULT 0,
            ai_losses INTEGER NOT NULL DEFAULT 0,
            ai_draws INTEGER NOT NULL DEFAULT 0,
            updated_at REAL NOT NULL,
            PRIMARY KEY (guild_id, game, user_id)
        );
        CREATE INDEX ratings_by_ordinal ON ratings (guild_id, game, ordinal DESC);

        CREATE TABLE guild_settings (
            guild_id INTEGER PRIMARY KEY,
            settings TEXT NOT NULL,
            updated_at REAL NOT NULL
        );
        """,
                postgresql="""
        CREATE TABLE sessions (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            game TEXT NOT NULL,
            guild_id BIGINT NOT NULL,
            channel_id BIGINT NOT NULL,
            message_id BIGINT,
            status TEXT NOT NULL
                CHECK (status IN ('pending', 'active', 'finished', 'cancelled')),
            state TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 0,
            seed BIGINT NOT NULL,
            created_by BIGINT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX sessions_open_by_channel ON sessions (channel_id, status);
        CREATE INDEX sessions_by_message ON sessions (message_id);

        CREATE TABLE session_players (
            session_id BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            user_id BIGINT NOT NULL,
            display_name TEXT NOT NULL,
            is_ai INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (session_id, seat)
        );
        CREATE INDEX session_players_by_user ON session_players (user_id, session_id);

        CREATE TABLE events (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            session_id BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            version INTEGER NOT NULL,
            actor_id BIGINT,
            action TEXT NOT NULL,
            events TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            UNIQUE (session_id, version)
        );

        CREATE TABLE deadlines (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            session_id BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            due_at DOUBLE PRECISION NOT NULL,
            action TEXT NOT NULL,
            UNIQUE (session_id, kind)
        );
        CREATE INDEX deadlines_by_due ON deadlines (due_at, id);

        CREATE TABLE results (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            session_id BIGINT NOT NULL UNIQUE REFERENCES sessions (id),
            game TEXT NOT NULL,
            guild_id BIGINT NOT NULL,
            channel_id BIGINT NOT NULL,
            message_id BIGINT,
            reason TEXT NOT NULL,
            draw INTEGER NOT NULL,
            vs_ai INTEGER NOT NULL,
            summary TEXT NOT NULL,
            finished_at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX results_by_guild_game ON results (guild_id, game, finished_at DESC);

        CREATE TABLE result_players (
            result_id BIGINT NOT NULL REFERENCES results (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            user_id BIGINT NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ('win', 'loss', 'draw')),
            place INTEGER NOT NULL,
            score INTEGER,
            went_first INTEGER NOT NULL DEFAULT 0,
            is_ai INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (result_id, seat)
        );
        CREATE INDEX result_players_by_user ON result_players (user_id, result_id);

        CREATE TABLE ratings (
            guild_id BIGINT NOT NULL,
            game TEXT NOT NULL,
            user_id BIGINT NOT NULL,
            mu DOUBLE PRECISION NOT NULL,
            sigma DOUBLE PRECISION NOT NULL,
            ordinal DOUBLE PRECISION NOT NULL,
            wins INTEGER NOT NULL DEFAULT 0,
            losses INTEGER NOT NULL DEFAULT 0,
            draws INTEGER NOT NULL DEFAULT 0,
            games INTEGER NOT NULL DEFAULT 0,
            streak INTEGER NOT NULL DEFAULT 0,
            best_streak INTEGER NOT NULL DEFAULT 0,
            ai_wins INTEGER NOT NULL DEFAULT 0,
            ai_losses INTEGER NOT NULL DEFAULT 0,
            ai_draws INTEGER NOT NULL DEFAULT 0,
            updated_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (guild_id, game, user_id)
        );
        CREATE INDEX ratings_by_ordinal ON ratings (guild_id, game, ordinal DESC);

        CREATE TABLE guild_settings (
            guild_id BIGINT PRIMARY KEY,
            settings TEXT NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL
        );
        """,
            ),
        ),
    ),
    Migration(
        2,
        # Leaderboards, /stats and /history. A separate migration: number 1 has shipped.
        # The ratings row also keeps a running final-score total (Knucklebones' average
        # final score), and favourite picks are counted per player at record time, so
        # /stats never parses result JSON. Indexes serve each leaderboard sort and the
        # newest-first history of one server; the rating order index also holds games and
        # user_id, so counting the players ahead of someone (their rank) never reads the
        # table, and it replaces migration 1's narrower ratings_by_ordinal.
        (
            """
        ALTER TABLE ratings ADD COLUMN score_total INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE ratings ADD COLUMN scored_games INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX ratings_ladder ON ratings (guild_id, game, ordinal DESC, games, user_id);
        DROP INDEX ratings_by_ordinal;
        CREATE INDEX ratings_by_wins ON ratings (guild_id, game, wins DESC, ordinal DESC);
        """,
            # PostgreSQL raises on a division by zero where SQLite gives NULL, and a player
            # with only games against the AI has games = 0.
            PerDialect(
                sqlite="""
        CREATE INDEX ratings_by_win_rate
            ON ratings (guild_id, game, (CAST(wins AS REAL) / games) DESC, games DESC);
        """,
                postgresql="""
        CREATE INDEX ratings_by_win_rate ON ratings
            (guild_id, game, (CAST(wins AS DOUBLE PRECISION) / NULLIF(games, 0)) DESC, games DESC);
        """,
            ),
            PerDialect(
                sqlite="""
        CREATE TABLE player_picks (
            guild_id INTEGER NOT NULL,
            game TEXT NOT NULL,
            user_id INTEGER NOT NULL,
            pick TEXT NOT NULL,
            uses INTEGER NOT NULL,
            PRIMARY KEY (guild_id, game, user_id, pick)
        ) WITHOUT ROWID;
        """,
                postgresql="""
        CREATE TABLE player_picks (
            guild_id BIGINT NOT NULL,
            game TEXT NOT NULL,
            user_id BIGINT NOT NULL,
            pick TEXT NOT NULL,
            uses INTEGER NOT NULL,
            PRIMARY KEY (guild_id, game, user_id, pick)
        );
        """,
            ),
            """
        CREATE INDEX results_by_guild ON results (guild_id, finished_at DESC);
        """,
        ),
    ),
    Migration(
        3,
        # A player who leaves a Weighted Dice table keeps the seat (the standings need it)
        # but no longer counts as busy in that channel.
        (
            """
        ALTER TABLE session_players ADD COLUMN has_left INTEGER NOT NULL DEFAULT 0;
        """,
        ),
    ),
    Migration(
        4,
        # What players see converges on what is stored (bot/ui/publishing.py):
        # - sessions.shown_version: the version the public message shows (-1: none yet).
        #   Rows from before are taken as shown; the partial index finds the stale ones.
        # - private_messages: each seat's private controls (a DM), which controls they are
        #   (``key``, e.g. a round), whether the DM could not be sent (closed DMs), and a
        #   signature of what the message shows now.
        # - busy_players: one open game per player per channel, guaranteed by the primary
        #   key instead of a check outside the transaction (two lobbies joined at once).
        (
            """
        ALTER TABLE sessions ADD COLUMN shown_version INTEGER NOT NULL DEFAULT -1;
        UPDATE sessions SET shown_version = version;
        CREATE INDEX sessions_unshown ON sessions (id) WHERE shown_version < version;
        """,
            PerDialect(
                sqlite="""
        CREATE TABLE private_messages (
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            key TEXT NOT NULL,
            channel_id INTEGER,
            message_id INTEGER,
            closed INTEGER NOT NULL DEFAULT 0,
            shown TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (session_id, seat)
        );

        CREATE TABLE busy_players (
            channel_id INTEGER NOT NULL,
            user_id INTEGER NOT NULL,
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            PRIMARY KEY (channel_id, user_id)
        );
        """,
                postgresql="""
        CREATE TABLE private_messages (
            session_id BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            key TEXT NOT NULL,
            channel_id BIGINT,
            message_id BIGINT,
            closed INTEGER NOT NULL DEFAULT 0,
            shown TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (session_id, seat)
        );

        CREATE TABLE busy_players (
            channel_id BIGINT NOT NULL,
            user_id BIGINT NOT NULL,
            session_id BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            PRIMARY KEY (channel_id, user_id)
        );
        """,
            ),
            """
        CREATE INDEX busy_players_by_session ON busy_players (session_id);
        INSERT INTO busy_players (channel_id, user_id, session_id)
            SELECT s.channel_id, p.user_id, MIN(s.id)
            FROM sessions s JOIN session_players p ON p.session_id = s.id
            WHERE s.status IN ('pending', 'active') AND p.is_ai = 0 AND p.has_left = 0
            GROUP BY s.channel_id, p.user_id;
        """,
        ),
    ),
    Migration(
        5,
        # Several bot processes on one database (PostgreSQL, shards split between them):
        # - deadlines.claimed_by / claimed_until: a process claims due deadlines for a
        #   short lease before firing them, so each fires once; a process that dies
        #   holding a claim loses it when the lease runs out.
        # - sessions.repair_owner / repair_until: the same for the message reconciler,
        #   so two processes never both repair (and re-post) one stale game message.
        # - identify_slots: when each gateway identify bucket may next identify
        #   (Discord allows max_concurrency identifies per 5 s across all processes).
        (
            PerDialect(
                sqlite="""
        ALTER TABLE deadlines ADD COLUMN claimed_by TEXT;
        ALTER TABLE deadlines ADD COLUMN claimed_until REAL;
        ALTER TABLE sessions ADD COLUMN repair_owner TEXT;
        ALTER TABLE sessions ADD COLUMN repair_until REAL;
        CREATE TABLE identify_slots (
            bucket INTEGER PRIMARY KEY,
            next_at REAL NOT NULL
        );
        """,
                postgresql="""
        ALTER TABLE deadlines ADD COLUMN claimed_by TEXT;
        ALTER TABLE deadlines ADD COLUMN claimed_until DOUBLE PRECISION;
        ALTER TABLE sessions ADD COLUMN repair_owner TEXT;
        ALTER TABLE sessions ADD COLUMN repair_until DOUBLE PRECISION;
        CREATE TABLE identify_slots (
            bucket INTEGER PRIMARY KEY,
            next_at DOUBLE PRECISION NOT NULL
        );
        """,
            ),
        ),
    ),
    Migration(
        6,
        # Leaderboards name players by the display name they last played under here, not
        # by a mention (which shows as an unknown user once they left the server or are
        # not loaded in the reader's client). Filled from each player's latest game.
        (
            """
        ALTER TABLE ratings ADD COLUMN display_name TEXT NOT NULL DEFAULT '';
        UPDATE ratings SET display_name = COALESCE((
            SELECT sp.display_name
            FROM result_players p
            JOIN results r ON r.id = p.result_id
            JOIN session_players sp ON sp.session_id = r.session_id AND sp.seat = p.seat
            WHERE p.user_id = ratings.user_id AND r.guild_id = ratings.guild_id
                AND r.game = ratings.game
            ORDER BY p.result_id DESC
            LIMIT 1
        ), '');
        """,
        ),
    ),
    Migration(
        7,
        # Seasons (bot/ladder/seasons.py). season_current: the season each server's game is in
        # (the row a closing season and a finishing game both lock); seasons: the closed
        # ones, with the provisional threshold they closed under; season_ratings: each
        # season's ladder, with indexes for the three leaderboard sorts as migration 2
        # made for ratings; season_requests: an admin's pending "close the season"
        # confirmation (its name is too long for a button's custom_id); results.season:
        # the season a ranked game counted in (NULL: against the AI, or before seasons).
        # Every ladder so far becomes season 1, started at its server's first game
        # between players.
        (
            PerDialect(
                sqlite="""
        CREATE TABLE season_current (
            guild_id INTEGER NOT NULL,
            game TEXT NOT NULL,
            number INTEGER NOT NULL,
            name TEXT NOT NULL DEFAULT '',
            started_at REAL NOT NULL,
            PRIMARY KEY (guild_id, game)
        );
        CREATE TABLE seasons (
            guild_id INTEGER NOT NULL,
            game TEXT NOT NULL,
            number INTEGER NOT NULL,
            name TEXT NOT NULL,
            started_at REAL NOT NULL,
            ended_at REAL NOT NULL,
            closed_by INTEGER NOT NULL,
            provisional_games INTEGER NOT NULL,
            PRIMARY KEY (guild_id, game, number)
        );
        CREATE TABLE season_ratings (
            guild_id INTEGER NOT NULL,
            game TEXT NOT NULL,
            season INTEGER NOT NULL,
            user_id INTEGER NOT NULL,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            ordinal REAL NOT NULL,
            wins INTEGER NOT NULL DEFAULT 0,
            losses INTEGER NOT NULL DEFAULT 0,
            draws INTEGER NOT NULL DEFAULT 0,
            games INTEGER NOT NULL DEFAULT 0,
            streak INTEGER NOT NULL DEFAULT 0,
            best_streak INTEGER NOT NULL DEFAULT 0,
            updated_at REAL NOT NULL,
            PRIMARY KEY (guild_id, game, season, user_id)
        );
        CREATE INDEX season_ratings_by_win_rate ON season_ratings
            (guild_id, game, season, (CAST(wins AS REAL) / games) DESC, games DESC);
        CREATE TABLE season_requests (
            id INTEGER PRIMARY KEY,
            guild_id INTEGER NOT NULL,
            game TEXT,
            name TEXT NOT NULL,
            admin_id INTEGER NOT NULL,
            issued_at REAL NOT NULL,
            numbers TEXT NOT NULL
        );
        """,
                postgresql="""
        CREATE TABLE season_current (
            guild_id BIGINT NOT NULL,
            game TEXT NOT NULL,
            number INTEGER NOT NULL,
            name TEXT NOT NULL DEFAULT '',
            started_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (guild_id, game)
        );
        CREATE TABLE seasons (
            guild_id BIGINT NOT NULL,
            game TEXT NOT NULL,
            number INTEGER NOT NULL,
            name TEXT NOT NULL,
            started_at DOUBLE PRECISION NOT NULL,
            ended_at DOUBLE PRECISION NOT NULL,
            closed_by BIGINT NOT NULL,
            provisional_games INTEGER NOT NULL,
            PRIMARY KEY (guild_id, game, number)
        );
        CREATE TABLE season_ratings (
            guild_id BIGINT NOT NULL,
            game TEXT NOT NULL,
            season INTEGER NOT NULL,
            user_id BIGINT NOT NULL,
            mu DOUBLE PRECISION NOT NULL,
            sigma DOUBLE PRECISION NOT NULL,
            ordinal DOUBLE PRECISION NOT NULL,
            wins INTEGER NOT NULL DEFAULT 0,
            losses INTEGER NOT NULL DEFAULT 0,
            draws INTEGER NOT NULL DEFAULT 0,
            games INTEGER NOT NULL DEFAULT 0,
            streak INTEGER NOT NULL DEFAULT 0,
            best_streak INTEGER NOT NULL DEFAULT 0,
            updated_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (guild_id, game, season, user_id)
        );
        CREATE INDEX season_ratings_by_win_rate ON season_ratings (guild_id, game, season,
            (CAST(wins AS DOUBLE PRECISION) / NULLIF(games, 0)) DESC, games DESC);
        CREATE TABLE season_requests (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            guild_id BIGINT NOT NULL,
            game TEXT,
            name TEXT NOT NULL,
            admin_id BIGINT NOT NULL,
            issued_at DOUBLE PRECISION NOT NULL,
            numbers TEXT NOT NULL
        );
        """,
            ),
            """
        CREATE INDEX season_ratings_ladder
            ON season_ratings (guild_id, game, season, ordinal DESC, games, user_id);
        CREATE INDEX season_ratings_by_wins
            ON season_ratings (guild_id, game, season, wins DESC, ordinal DESC);
        ALTER TABLE results ADD COLUMN season INTEGER;
        INSERT INTO season_current (guild_id, game, number, name, started_at)
            SELECT guild_id, game, 1, '', MIN(finished_at) FROM results
            WHERE vs_ai = 0 GROUP BY guild_id, game;
        INSERT INTO season_ratings (guild_id, game, season, user_id, mu, sigma, ordinal, wins,
            losses, draws, games, streak, best_streak, updated_at)
            SELECT guild_id, game, 1, user_id, mu, sigma, ordinal, wins, losses, draws, games,
                streak, best_streak, updated_at
            FROM ratings WHERE games > 0;
        """,
        ),
    ),
    Migration(
        8,
        # Languages (bot/i18n.py). sessions.language: the language a game's public message
        # speaks, fixed when the game starts (the server's setting, else its Discord locale),
        # so every process and every restart shows it the same. user_languages: the
        # language each player's Discord client last reported, for the direct messages a
        # timer or another player's move sends them.
        (
            "ALTER TABLE sessions ADD COLUMN language TEXT NOT NULL DEFAULT 'en'",
            PerDialect(
                sqlite="""
        CREATE TABLE user_languages (
            user_id INTEGER PRIMARY KEY,
            language TEXT NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
                postgresql="""
        CREATE TABLE user_languages (
            user_id BIGINT PRIMARY KEY,
            language TEXT NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL
        )
        """,
            ),
        ),
    ),
    Migration(
        9,
        # Deadline ids are never reused. SQLite's plain INTEGER PRIMARY KEY hands a deleted
        # highest id to the next row: a runner that had claimed a turn's timer, racing the
        # move that replaced it, then fired or dropped the NEXT turn's timer under the old
        # id. AUTOINCREMENT never reuses one, so the table is rebuilt with it (SQLite cannot
        # alter a primary key). PostgreSQL's identity column never reuses ids: nothing to do.
        (
            PerDialect(
                sqlite="""
        CREATE TABLE deadlines_never_reused (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            due_at REAL NOT NULL,
            action TEXT NOT NULL,
            claimed_by TEXT,
            claimed_until REAL,
            UNIQUE (session_id, kind)
        );
        INSERT INTO deadlines_never_reused
            (id, session_id, kind, due_at, action, claimed_by, claimed_until)
            SELECT id, session_id, kind, due_at, action, claimed_by, claimed_until
            FROM deadlines;
        DROP TABLE deadlines;
        ALTER TABLE deadlines_never_reused RENAME TO deadlines;
        CREATE INDEX deadlines_by_due ON deadlines (due_at, id)
        """,
                postgresql="",
            ),
        ),
    ),
    Migration(
        10,
        # What a public message shows only moves forward, whichever process draws it.
        # - sessions.show_fence: the newest version any process has shown or is showing
        #   (-1: none). An edit goes out only for a version at least as new (publishing.py).
        # - sessions.show_owner / show_until: the process editing the message now, and the
        #   end of its claim (game clock): another process edits only after it, so two
        #   edits of one message never race on Discord's side; a process that dies
        #   holding a claim loses it when the lease ends.
        (
            "ALTER TABLE sessions ADD COLUMN show_fence INTEGER NOT NULL DEFAULT -1",
            "UPDATE sessions SET show_fence = shown_version",
            "ALTER TABLE sessions ADD COLUMN show_owner TEXT",
            PerDialect(
                sqlite="ALTER TABLE sessions ADD COLUMN show_until REAL",
                postgresql="ALTER TABLE sessions ADD COLUMN show_until DOUBLE PRECISION",
            ),
        ),
    ),
    Migration(
        11,
        # Tournaments (bot/play/tournaments.py). One row an event, versioned like a session
        # (``UPDATE ... WHERE version = ?``) so that two processes never both start a round
        # or record one result twice; ``state`` is the pure bracket (game_core.tournament)
        # as JSON once the event has started. tournament_players: who signed up, their seed
        # and rating at the start, a removal, their final place. tournament_matches: one
        # row a pairing (its games' score, the game being played now, its winner).
        # tournament_games: which session is a game of which pairing, so that the move
        # that ends a game records the match's result in its own transaction.
        (
            PerDialect(
                sqlite="""
        CREATE TABLE tournaments (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            guild_id INTEGER NOT NULL,
            channel_id INTEGER NOT NULL,
            thread_id INTEGER,
            message_id INTEGER,
            host_id INTEGER NOT NULL,
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            format TEXT NOT NULL CHECK (format IN ('single_elimination', 'swiss')),
            best_of INTEGER NOT NULL,
            max_players INTEGER NOT NULL,
            swiss_rounds INTEGER,
            starts_at REAL,
            status TEXT NOT NULL
                CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
            seed INTEGER NOT NULL,
            state TEXT,
            version INTEGER NOT NULL DEFAULT 0,
            language TEXT NOT NULL DEFAULT 'en',
            winner_id INTEGER,
            cancel_reason TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            finished_at REAL
        );
        CREATE TABLE tournament_players (
            tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
            user_id INTEGER NOT NULL,
            display_name TEXT NOT NULL,
            joined_at REAL NOT NULL,
            rating REAL,
            seed INTEGER,
            removed INTEGER NOT NULL DEFAULT 0,
            place INTEGER,
            PRIMARY KEY (tournament_id, user_id)
        );
        CREATE TABLE tournament_matches (
            tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
            round INTEGER NOT NULL,
            table_no INTEGER NOT NULL,
            first_id INTEGER NOT NULL,
            second_id INTEGER NOT NULL,
            first_wins INTEGER NOT NULL DEFAULT 0,
            second_wins INTEGER NOT NULL DEFAULT 0,
            games INTEGER NOT NULL DEFAULT 0,
            open_session INTEGER,
            winner_id INTEGER,
            reason TEXT,
            PRIMARY KEY (tournament_id, round, table_no)
        );
        CREATE TABLE tournament_games (
            session_id INTEGER PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
            tournament_id INTEGER NOT NULL,
            round INTEGER NOT NULL,
            table_no INTEGER NOT NULL,
            FOREIGN KEY (tournament_id, round, table_no)
                REFERENCES tournament_matches (tournament_id, round, table_no) ON DELETE CASCADE
        )
        """,
                postgresql="""
        CREATE TABLE tournaments (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            guild_id BIGINT NOT NULL,
            channel_id BIGINT NOT NULL,
            thread_id BIGINT,
            message_id BIGINT,
            host_id BIGINT NOT NULL,
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            format TEXT NOT NULL CHECK (format IN ('single_elimination', 'swiss')),
            best_of INTEGER NOT NULL,
            max_players INTEGER NOT NULL,
            swiss_rounds INTEGER,
            starts_at DOUBLE PRECISION,
            status TEXT NOT NULL
                CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
            seed BIGINT NOT NULL,
            state TEXT,
            version INTEGER NOT NULL DEFAULT 0,
            language TEXT NOT NULL DEFAULT 'en',
            winner_id BIGINT,
            cancel_reason TEXT,
            created_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL,
            finished_at DOUBLE PRECISION
        );
        CREATE TABLE tournament_players (
            tournament_id BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
            user_id BIGINT NOT NULL,
            display_name TEXT NOT NULL,
            joined_at DOUBLE PRECISION NOT NULL,
            rating DOUBLE PRECISION,
            seed INTEGER,
            removed INTEGER NOT NULL DEFAULT 0,
            place INTEGER,
            PRIMARY KEY (tournament_id, user_id)
        );
        CREATE TABLE tournament_matches (
            tournament_id BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
            round INTEGER NOT NULL,
            table_no INTEGER NOT NULL,
            first_id BIGINT NOT NULL,
            second_id BIGINT NOT NULL,
            first_wins INTEGER NOT NULL DEFAULT 0,
            second_wins INTEGER NOT NULL DEFAULT 0,
            games INTEGER NOT NULL DEFAULT 0,
            open_session BIGINT,
            winner_id BIGINT,
            reason TEXT,
            PRIMARY KEY (tournament_id, round, table_no)
        );
        CREATE TABLE tournament_games (
            session_id BIGINT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
            tournament_id BIGINT NOT NULL,
            round INTEGER NOT NULL,
            table_no INTEGER NOT NULL,
            FOREIGN KEY (tournament_id, round, table_no)
                REFERENCES tournament_matches (tournament_id, round, table_no) ON DELETE CASCADE
        )
        """,
            ),
            """
        CREATE INDEX tournaments_by_guild ON tournaments (guild_id, status, id);
        CREATE INDEX tournaments_due ON tournaments (status, starts_at);
        CREATE INDEX tournament_players_by_user ON tournament_players (user_id, tournament_id);
        CREATE INDEX tournament_games_by_match ON tournament_games (tournament_id, round, table_no)
        """,
        ),
    ),
    Migration(
        12,
        # An event's message converges to the stored event as a game's does (migrations 4
        # and 10): tournaments.shown_version is the version its message shows (-1: none
        # yet), show_fence the newest version any process has shown or is showing, and
        # show_owner / show_until the process editing it now and the end of its claim
        # (game clock). Events from before count as shown: no burst of edits at upgrade.
        (
            "ALTER TABLE tournaments ADD COLUMN shown_version INTEGER NOT NULL DEFAULT -1",
            "UPDATE tournaments SET shown_version = version",
            "ALTER TABLE tournaments ADD COLUMN show_fence INTEGER NOT NULL DEFAULT -1",
            "UPDATE tournaments SET show_fence = version",
            "ALTER TABLE tournaments ADD COLUMN show_owner TEXT",
            PerDialect(
                sqlite="ALTER TABLE tournaments ADD COLUMN show_until REAL",
                postgresql="ALTER TABLE tournaments ADD COLUMN show_until DOUBLE PRECISION",
            ),
            "CREATE INDEX tournaments_unshown ON tournaments (id) WHERE shown_version < version",
        ),
    ),
    Migration(
        13,
        # Games reached only through interactions (issue 32: a user-installed command in a
        # DM, a group DM or a server without the bot). sessions.reach: 'member' (channel
        # routes, as before) or 'interaction'. interaction_tokens: per such session, the
        # newest live interaction token whose message is the game's public message, and
        # when it stops being usable (its interaction's creation + 15 min, less a margin):
        # a credential, deleted once expired (the publisher's sweep) or no longer needed.
        (
            "ALTER TABLE sessions ADD COLUMN reach TEXT NOT NULL DEFAULT 'member'",
            PerDialect(
                sqlite="""
        CREATE TABLE interaction_tokens (
            session_id INTEGER PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
            token TEXT NOT NULL,
            expires_at REAL NOT NULL
        )
        """,
                postgresql="""
        CREATE TABLE interaction_tokens (
            session_id BIGINT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
            token TEXT NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL
        )
        """,
            ),
            "CREATE INDEX interaction_tokens_by_expiry ON interaction_tokens (expires_at)",
        ),
    ),
]
