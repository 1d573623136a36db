"""Leaderboard, stats and result-recording speed on a big database.

Fills a database (the bot's own schema and migrations) with N results (default 1,000,000)
across S servers (100) and P players (50,000), then times, through the bot's own code
(``bot.ladder.standings`` queries on the aiosqlite ``Database``, the
``cogs.leaderboard_render`` renderers down to the embed dict that is sent):

    (a) /leaderboard top-10 (page 1, each sort) — query + rendering
    (b) /stats for one player — query + rendering
    (c) recording one finished game — ``record_result`` in its own write transaction
        (session row, result, players, the season's ladder and the lifetime ratings,
        picks, COMMIT), 2 and 8 players
    (d) for scale: the same top-10 computed the naive way, aggregating ``result_players``
        at query time, on a few servers; the ratio (d)/(a) is printed from the same run.

Servers are skewed like real ones (activity ~ 1/rank^0.7: the largest has ~10x the
average), players have a home server and sometimes a second one, and some players play
far more than others. The bot never runs ANALYZE, so neither does this benchmark.

The database is generated with plain sqlite3 bulk inserts. Ratings rows hold the real
win/loss/draw counts, AI records, score totals and picks aggregated from the generated
results; mu and sigma are synthetic but shaped like openskill's (sigma shrinks with games),
since replaying openskill over a million games would only slow the set-up and the queries
do not depend on the exact numbers.

Usage: ``.venv/bin/python bench/leaderboard.py [--results 1000000] [--servers 100]
[--players 50000] [--samples 2000] [--db path.sqlite (kept; reused if it exists)]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.ladder.results import record_result  # noqa: E402
from bot.ladder.standings import leaderboard_page, player_stats  # noqa: E402
from bot.model.catalog import GAMES  # noqa: E402
from bot.model.contract import Seat, Session  # noqa: E402
from bot.storage import Database, SQLiteDatabase  # noqa: E402
from cogs.leaderboard_render import leaderboard_embed, stats_embed  # noqa: E402
from game_core.base import GameResult  # noqa: E402

GAME_WEIGHTS = {
    "knucklebones": 0.35,
    "diceman": 0.25,
    "dimension_duel": 0.25,
    "weighted_dice": 0.15,
}
VS_AI_SHARE = 0.10
DICEMAN_PAIRS = [
    f"{a}+{b}"
    for i, a in enumerate(("magic", "priority", "shield", "sword"))
    for b in ("magic", "priority", "shield", "sword")[i + 1 :]
]
DUEL_FUNCTIONS = [
    "bluff",
    "disruptor",
    "delayed_attack",
    "deflector",
    "intensifier",
    "changer_self",
    "changer_opponent",
]
AI_USER = 1
HINT = "Start one with `/knucklebones challenge`."
START_TIME = 1_700_000_000.0


# -- generation --------------------------------------------------------------------------------


class Generator:
    def __init__(self, results: int, servers: int, players: int, seed: int = 20240601) -> None:
        self.results = results
        self.servers = servers
        self.players = players
        self.rng = random.Random(seed)
        self.guilds = [10_000 + i for i in range(servers)]
        self.server_weights = [1 / (rank + 1) ** 0.7 for rank in range(servers)]
        self.members: dict[int, list[int]] = defaultdict(list)
        # (guild, game, user) -> [wins, losses, draws, ai_w, ai_l, ai_d, score_total, scored]
        self.records: dict[tuple[int, str, int], list[int]] = defaultdict(lambda: [0] * 8)
        self.picks: Counter[tuple[int, str, int, str]] = Counter()

    def assign_members(self) -> None:
        homes = self.rng.choices(self.guilds, weights=self.server_weights, k=self.players)
        for index, home in enumerate(homes):
            user = 100_000 + index
            self.members[home].append(user)
            if self.rng.random() < 0.3:
                self.members[self.rng.choice(self.guilds)].append(user)
        for guild in self.guilds:
            if len(self.members[guild]) < 12:
                self.members[guild].extend(100_000 + i for i in range(12))

    def pick_players(self, guild: int, count: int) -> list[int]:
        pool = self.members[guild]
        chosen: list[int] = []
        while len(chosen) < count:
            # Squaring the uniform draw makes the first members play far more often.
            user = pool[int(len(pool) * self.rng.random() ** 2)]
            if user not in chosen:
                chosen.append(user)
        return chosen

    def fill(self, path: Path) -> None:
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA foreign_keys = OFF")
        self.assign_members()
        games = list(GAME_WEIGHTS)
        game_weights = list(GAME_WEIGHTS.values())
        guild_of = self.rng.choices(self.guilds, weights=self.server_weights, k=self.results)
        game_of = self.rng.choices(games, weights=game_weights, k=self.results)
        sessions: list[tuple[Any, ...]] = []
        results: list[tuple[Any, ...]] = []
        players: list[tuple[Any, ...]] = []
        batch = 50_000
        for index in range(self.results):
            result_id = index + 1
            guild, game = guild_of[index], game_of[index]
            finished = START_TIME + index * 30
            row_players, summary, draw, vs_ai = self.one_game(guild, game)
            channel = guild * 10 + 1
            sessions.append(
                (
                    result_id,
                    game,
                    guild,
                    channel,
                    result_id,
                    "finished",
                    "{}",
                    1,
                    0,
                    row_players[0][0],
                    finished,
                    finished,
                )
            )
            results.append(
                (
                    result_id,
                    result_id,
                    game,
                    guild,
                    channel,
                    result_id,
                    "normal",
                    int(draw),
                    int(vs_ai),
                    json.dumps(summary, sort_keys=True),
                    finished,
                )
            )
            players.extend(
                (result_id, seat, user, outcome, place, score, int(seat == 0), int(is_ai))
                for seat, (user, outcome, place, score, is_ai) in enumerate(row_players)
            )
            if len(results) >= batch or index == self.results - 1:
                conn.executemany(
                    "INSERT INTO sessions (id, game, guild_id, channel_id, message_id, status,"
                    " state, version, seed, created_by, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    sessions,
                )
                conn.executemany(
                    "INSERT INTO results (id, session_id, game, guild_id, channel_id,"
                    " message_id, reason, draw, vs_ai, summary, finished_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    results,
                )
                conn.executemany(
                    "INSERT INTO result_players (result_id, seat, user_id, outcome, place,"
                    " score, went_first, is_ai) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    players,
                )
                conn.commit()
                sessions, results, players = [], [], []
        self.write_ratings(conn)
        conn.commit()
        conn.close()

    def one_game(
        self, guild: int, game: str
    ) -> tuple[list[tuple[int, str, int, int, bool]], dict[str, Any], bool, bool]:
        rng = self.rng
        if game == "weighted_dice":
            users = self.pick_players(guild, rng.randint(5, 12))
            scores = sorted((rng.randint(5, 149) for _ in users), reverse=True)
            scores[0] = rng.randint(150, 220)
            if rng.random() < 0.05:
                scores[1] = scores[0]
            places = [1 + sum(other > score for other in scores) for score in scores]
            rows = [
                (user, "win" if place == 1 else "loss", place, score, False)
                for user, place, score in zip(users, places, scores, strict=True)
            ]
            for user, outcome, _, score, _ in rows:
                self.count(guild, game, user, outcome, False, score)
            return rows, {"score_line": "A 150 · B 98 · C 60", "scores": scores}, False, False
        vs_ai = rng.random() < VS_AI_SHARE
        users = self.pick_players(guild, 1 if vs_ai else 2)
        if vs_ai:
            users.append(AI_USER)
        draw = rng.random() < 0.04
        first_wins = rng.random() < 0.5
        outcomes = (
            ["draw", "draw"] if draw else (["win", "loss"] if first_wins else ["loss", "win"])
        )
        places = [1, 1] if draw else ([1, 2] if first_wins else [2, 1])
        scores = [rng.randint(0, 120), rng.randint(0, 120)]
        summary: dict[str, Any] = {"score_line": f"{scores[0]}–{scores[1]}", "first_seat": 0}
        if game == "diceman":
            rounds = rng.randint(3, 9)
            summary["choices"] = [
                [rng.choice(DICEMAN_PAIRS).split("+") for _ in range(rounds)] for _ in users
            ]
        elif game == "dimension_duel":
            turns = rng.randint(4, 12)
            summary["functions"] = [
                [rng.choice(DUEL_FUNCTIONS) for _ in range(turns)] for _ in users
            ]
        rows = []
        for seat, user in enumerate(users):
            is_ai = user == AI_USER
            rows.append((user, outcomes[seat], places[seat], scores[seat], is_ai))
            if is_ai:
                continue
            self.count(guild, game, user, outcomes[seat], vs_ai, scores[seat])
            for pick in summary.get("choices", summary.get("functions", [[], []]))[seat]:
                key = "+".join(sorted(pick)) if isinstance(pick, list) else pick
                self.picks[(guild, game, user, key)] += 1
        return rows, summary, draw, vs_ai

    def count(
        self, guild: int, game: str, user: int, outcome: str, vs_ai: bool, score: int
    ) -> None:
        record = self.records[(guild, game, user)]
        column = {"win": 0, "loss": 1, "draw": 2}[outcome] + (3 if vs_ai else 0)
        record[column] += 1
        record[6] += score
        record[7] += 1

    def write_ratings(self, conn: sqlite3.Connection) -> None:
        rows = []
        for (guild, game, user), record in self.records.items():
            w, losses, d, aw, al, ad, total, scored = record
            games = w + losses + d
            sigma = max(0.8, 8.333 / (1 + games / 6) ** 0.5)
            mu = 25 + 12 * (w - losses) / (games + 4) + self.rng.gauss(0, 0.5)
            streak = self.rng.choice((-2, -1, 0, 1, 2, 3)) if games else 0
            rows.append(
                (
                    guild,
                    game,
                    user,
                    mu,
                    sigma,
                    mu - 3 * sigma,
                    w,
                    losses,
                    d,
                    games,
                    streak,
                    max(0, streak) + self.rng.randint(0, 3),
                    aw,
                    al,
                    ad,
                    total,
                    scored,
                    START_TIME,
                )
            )
        conn.executemany(
            "INSERT INTO ratings (guild_id, game, user_id, mu, sigma, ordinal, wins, losses,"
            " draws, games, streak, best_streak, ai_wins, ai_losses, ai_draws, score_total,"
            " scored_games, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
            " ?, ?)",
            rows,
        )
        conn.executemany(
            "INSERT INTO player_picks (guild_id, game, user_id, pick, uses) VALUES (?, ?, ?, ?, ?)",
            [(*key, uses) for key, uses in self.picks.items()],
        )
        # Every game so far is in season 1, as migration 6 leaves a server's ladders: the
        # leaderboard reads the season's ladder, /stats both.
        conn.execute(
            "INSERT INTO season_ratings (guild_id, game, season, user_id, mu, sigma, ordinal,"
            " wins, losses, draws, games, streak, best_streak, updated_at)"
            " SELECT guild_id, game, 1, user_id, mu, sigma, ordinal, wins, losses, draws,"
            " games, streak, best_streak, updated_at FROM ratings WHERE games > 0"
        )
        conn.execute(
            "INSERT INTO season_current (guild_id, game, number, name, started_at)"
            " SELECT DISTINCT guild_id, game, 1, '', ? FROM ratings",
            (START_TIME,),
        )


# -- measuring ---------------------------------------------------------------------------------


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report(name: str, samples: list[float]) -> float:
    p50, p99 = statistics.median(samples), percentile(samples, 0.99)
    print(
        f"  {name:<52} n={len(samples):>5}  p50 {p50 * 1000:7.2f} ms  p99 {p99 * 1000:7.2f} ms"
        f"  max {max(samples) * 1000:7.2f} ms"
    )
    return p99


async def timed(samples: int, action: Callable[[int], Awaitable[Any]]) -> list[float]:
    for warm in range(min(20, samples)):
        await action(warm)
    found = []
    for index in range(samples):
        started = time.perf_counter()
        await action(index)
        found.append(time.perf_counter() - started)
    return found


NAIVE_TOP10 = """
SELECT p.user_id, SUM(p.outcome = 'win') AS wins, SUM(p.outcome = 'loss') AS losses,
       SUM(p.outcome = 'draw') AS draws, COUNT(*) AS games
FROM results r JOIN result_players p ON p.result_id = r.id
WHERE r.guild_id = ? AND r.game = ? AND r.vs_ai = 0 AND p.is_ai = 0
GROUP BY p.user_id HAVING COUNT(*) >= 3
ORDER BY wins DESC, games DESC LIMIT 10
"""


async def measure(db: Database, gen_guilds: list[int], samples: int) -> None:
    rng = random.Random(7)
    weights = [1 / (rank + 1) ** 0.7 for rank in range(len(gen_guilds))]
    largest = gen_guilds[0]
    busiest = await db.fetch_all(
        "SELECT guild_id, user_id FROM ratings WHERE guild_id = ? ORDER BY games DESC LIMIT 50",
        (largest,),
    )
    stat_targets = await db.fetch_all(
        "SELECT guild_id, user_id FROM ratings WHERE rowid % 97 = 0 LIMIT 5000"
    )
    targets = [(row["guild_id"], row["user_id"]) for row in stat_targets]

    def pick_guild() -> int:
        return rng.choices(gen_guilds, weights=weights)[0]

    async def top10(sort: str, guild: int | None = None) -> None:
        board = await leaderboard_page(
            db,
            guild or pick_guild(),
            rng.choice(GAMES),
            sort=sort,
            page=1,  # type: ignore[arg-type]
            provisional_games=3,
        )
        leaderboard_embed(board, HINT).to_dict()

    async def stats(index: int, pool: list[tuple[int, int]]) -> None:
        guild, user = pool[index % len(pool)]
        found = await player_stats(db, guild, user, provisional_games=3)
        stats_embed(found, f"player {user}").to_dict()

    print("(a) /leaderboard top-10, query + embed")
    p99 = {}
    for sort in ("rating", "wins", "win_rate"):
        p99[sort] = report(
            f"sort={sort}, servers by activity",
            await timed(samples, lambda _i, s=sort: top10(s)),
        )
    largest_p99 = report(
        "sort=rating, the largest server only",
        await timed(samples // 2, lambda _i: top10("rating", largest)),
    )
    print("(b) /stats, query + embed")
    stats_p99 = report("random players", await timed(samples, lambda i: stats(i, targets)))
    heavy = [(row["guild_id"], row["user_id"]) for row in busiest]
    heavy_p99 = report(
        "the 50 most active players of the largest server",
        await timed(samples // 2, lambda i: stats(i, heavy)),
    )

    print("(d) naive top-10 aggregated from result_players (no ratings table)")
    naive_guilds = [largest, *rng.sample(gen_guilds, 4)]
    naive = await timed(
        len(naive_guilds) * 2,
        lambda i: db.fetch_all(NAIVE_TOP10, (naive_guilds[i % len(naive_guilds)], "knucklebones")),
    )
    report("naive aggregate, 5 servers incl. the largest", naive)
    indexed = await timed(
        len(naive_guilds) * 20,
        lambda i: leaderboard_page(
            db,
            naive_guilds[i % len(naive_guilds)],
            "knucklebones",
            sort="wins",
            provisional_games=3,
        ),
    )
    report("indexed page, same servers, sort=wins", indexed)
    print(
        f"  ratio naive/indexed (p50): {statistics.median(naive) / statistics.median(indexed):.0f}x"
    )

    print("(c) record one finished game (record_result + session row + COMMIT)")
    last = await db.fetch_one("SELECT MAX(id) AS id FROM sessions")
    next_id = [int(last["id"] or 0) if last is not None else 0]

    async def record(players: int) -> None:
        next_id[0] += 1
        guild = pick_guild()
        users = rng.sample(range(100_000, 150_000), players)
        game = "weighted_dice" if players > 2 else "diceman"
        now = time.time()
        seats = tuple(Seat(i, u, f"p{u}") for i, u in enumerate(users))
        ranks = list(range(1, players + 1))
        result = GameResult(ranks=ranks, winners=[0], scores=[150] + [20] * (players - 1))
        summary: dict[str, Any] = {"score_line": "x", "first_seat": 0}
        if game == "diceman":
            summary["choices"] = [[["sword", "shield"]] * 5, [["magic", "priority"]] * 5]
        async with db.transaction() as conn:
            await conn.execute(
                "INSERT INTO sessions (id, game, guild_id, channel_id, status, state, version,"
                " seed, created_by, created_at, updated_at)"
                " VALUES (?, ?, ?, 1, 'finished', '{}', 1, 0, ?, ?, ?)",
                (next_id[0], game, guild, users[0], now, now),
            )
            session = Session(
                id=next_id[0],
                game=game,
                guild_id=guild,
                channel_id=1,
                message_id=None,
                status="finished",
                state={},
                version=1,
                seed=0,
                created_by=users[0],
                created_at=now,
                updated_at=now,
                seats=seats,
            )
            await record_result(
                conn, session=session, seats=seats, result=result, summary=summary, now=now
            )

    record2 = report("2 players (Diceman)", await timed(samples // 4, lambda _i: record(2)))
    record8 = report("8 players (Weighted Dice)", await timed(samples // 4, lambda _i: record(8)))

    target = 0.020
    worst_read = max(*p99.values(), largest_p99, stats_p99, heavy_p99)
    print()
    print(
        f"target: /leaderboard and /stats under {target * 1000:.0f} ms at p99 -> worst p99 "
        f"{worst_read * 1000:.2f} ms: {'MET' if worst_read < target else 'MISSED'}"
    )
    print(
        f"record one result p99: 2 players {record2 * 1000:.2f} ms, 8 players "
        f"{record8 * 1000:.2f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=1_000_000)
    parser.add_argument("--servers", type=int, default=100)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--db", type=Path, default=None)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        path = args.db or Path(scratch) / "bench.db"
        generator = Generator(args.results, args.servers, args.players)
        db = SQLiteDatabase(path)
        fresh = not path.exists()
        await db.open()
        await db.migrate()
        if fresh:
            await db.close()
            started = time.perf_counter()
            generator.fill(path)
            print(
                f"generated {args.results:,} results, {args.servers} servers, "
                f"{args.players:,} players in {time.perf_counter() - started:.1f} s"
            )
            await db.open()
        else:
            print(f"reusing {path}")
        counts = {
            table: (await db.fetch_one(f"SELECT COUNT(*) AS n FROM {table}"))["n"]  # type: ignore[index]
            for table in ("results", "result_players", "ratings", "season_ratings", "player_picks")
        }
        print("rows: " + ", ".join(f"{name} {n:,}" for name, n in counts.items()))
        print(f"database file: {path.stat().st_size / 1e6:.0f} MB")
        try:
            await measure(db, generator.guilds, args.samples)
        finally:
            await db.close()


if __name__ == "__main__":
    asyncio.run(main())
