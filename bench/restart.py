"""A restart of the bot with many open games (issue 30, target 3), on SQLite and PostgreSQL.

For each database, one fake Discord (served by this process, which also plays the users)
with ``--guilds`` servers of ``--channels`` text channels each, and a fresh database. The
games are seeded through the bot itself: the real bot in its own process
(``bench/bot_process.py``) answers the players' commands and presses, its session service
and storage write the games, its publisher posts their messages and records the version
each shows, and it stops cleanly (so every message shows its stored version). A mix of the
four games, in turn, one game per player per channel, as the bot allows:

    Knucklebones: a challenge nobody answered yet, a game between two players, a game
    against the AI; Diceman and Dimension Duel: a game between two players (their secret
    picks' controls in DMs), a game against the AI; Weighted Dice: a lobby with 3 players.

Every timer is as long as the settings allow (``LONG_TIMERS``), so none falls due during a
run, except for a third of the games: those are seeded by a bot whose clock stands a day
and up to ``--spread`` hours in the past, in batches whose hours are shuffled, so their
timers (turn warnings and time-outs, a challenge's or a lobby's expiry) were due while the
bot was down, in an order that is not the order the games were made.

Then the real bot restarts on that database (production settings but the long timers, its
picture helper process included), and the bench prints, with PASS or FAIL:

- READY to the first press served: the moment the gateway sends READY, a player presses a
  column on a Knucklebones game between two players (one whose message shows its stored
  version); the time until its answer arrives, a press Discord would have failed (no
  answer within 3 s) pressed again. Target: at most 5 s. Then ``--presses`` more presses,
  one after another, while the bot applies the due timers (their latencies).
- REST requests for games whose message already showed their stored version (and that no
  press moved): every request the bot made from its start, put down to the game whose
  message (or a reply under it, or its players' DMs) it concerns. Target: 0.
- The due timers: all applied (none left due), with no 429 from the fake's rate limits
  (``tests/fakediscord/ratelimits.py``, Discord's numbers), oldest first: the bot reports
  each timer it claims (with its due time) and applies (in commit order), and the bench
  counts those applied after a later-due one.
- The bot process's memory (RSS) at READY and once it has applied the timers and gone
  quiet, at 0, 1,000 and 10,000 open games (``--games``): one restart each, the games
  topped up between them (a third of the new ones due).

Usage: ``.venv/bin/python bench/restart.py [--games 0,1000,10000] [--databases
sqlite,postgres] [--postgres postgresql://postgres@127.0.0.1:5432/test] [--guilds 100]
[--channels 10] [--presses 20] [--spread 4] [--record]``; ``--record`` appends target 3 to
``bench/history/restart.jsonl`` and redraws its chart (``bench/history.py``). The
PostgreSQL URL (default ``TEST_DATABASE_URL``) names a server where the bench may create and
drop a database.
``BENCH_PROFILE_BOT=file`` runs the restarted bot under cProfile (``file.<database>.<games>``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve()
ROOT = SCRIPT.parents[1]
sys.path.insert(0, str(SCRIPT.parent))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import history  # noqa: E402
from bot_process import Child, children_of, load_line, mib, rss_kib, start_child  # noqa: E402
from fakediscord import (  # noqa: E402
    CallbackType,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    Player,
    RequestRecord,
    wait_for_answer,
)
from fakediscord.ratelimits import RateLimits  # noqa: E402
from scaling import DEFAULT_POSTGRES, create_database, drop_database  # noqa: E402

from bot.storage import Database, SQLiteDatabase, open_url  # noqa: E402
from bot.storage.deadlines import next_claimable  # noqa: E402
from bot.storage.sessions import open_ids, read_session  # noqa: E402

FIRST_PRESS_TARGET_SECONDS = 5.0
# Discord's window for an interaction's first answer, and how long a player waits for it.
CALLBACK_DEADLINE, ANSWER_TIMEOUT = 3.0, 5.0
DAY = 86_400.0
# Requests the bot makes to start, whatever its games: not any game's.
START_UP_ROUTES = (
    "/gateway",
    "/users/@me",
    "/oauth2/",
    "/applications/",
)
COLUMN = re.compile(r"kb:\d+:\d+:col:[0-2]")


# -- the games -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    name: str
    command: str
    # Players besides the one who starts it.
    others: int
    # What the others press on the new message (Accept, Join), if anything.
    press: str | None = None
    options: tuple[tuple[str, Any], ...] = ()


KINDS = (
    Kind("knucklebones challenge", "knucklebones challenge", 1, None, (("first", "me"),)),
    Kind("knucklebones duel", "knucklebones challenge", 1, "Accept", (("first", "me"),)),
    Kind("knucklebones vs AI", "knucklebones ai", 0, None, (("first", "me"),)),
    Kind("diceman duel", "diceman challenge", 1, "Accept"),
    Kind("diceman vs AI", "diceman ai", 0),
    Kind("dimension duel", "duel challenge", 1, "Accept"),
    Kind("dimension duel vs AI", "duel ai", 0),
    Kind("weighted dice lobby", "weighted new", 2, "Join"),
)


@dataclass(eq=False)
class Game:
    kind: Kind
    channel: FakeChannel
    players: list[Player]
    due: bool
    message: FakeMessage | None = None
    # A press during a measured restart moved it: its requests are its own.
    pressed: bool = False
    # Closed by a timer in an earlier restart: no longer open.
    settled: bool = False


class World:
    """The servers, their channels and players, and every game seeded so far."""

    def __init__(self, fake: FakeDiscord, guilds: int, channels: int) -> None:
        self.fake = fake
        self.guild_count = guilds
        self.channel_count = channels
        self.guilds: list[FakeGuild] = []
        self.channels: list[FakeChannel] = []
        # Players by (guild, due): those of games seeded in the past play no other game,
        # so a DM can be put down to the one kind of game its player is in.
        self._pools: dict[tuple[int, bool], list[Player]] = {}
        self._busy: dict[int, set[int]] = {}
        self.games: list[Game] = []
        self.by_message: dict[int, Game] = {}
        self.by_player: dict[int, bool] = {}
        self.by_user: dict[int, list[Game]] = {}
        self._next_channel = 0

    async def build(self) -> None:
        names = tuple(f"games-{n + 1}" for n in range(self.channel_count))
        for number in range(self.guild_count):
            guild = await self.fake.create_guild(f"Server {number + 1}", channels=names)
            self.guilds.append(guild)
        # Round robin over the servers first, then their channels.
        for index in range(self.channel_count):
            for guild in self.guilds:
                self.channels.append(list(guild.channels.values())[index])

    async def _player(self, channel: FakeChannel, due: bool) -> Player:
        guild = channel.guild
        assert guild is not None
        pool = self._pools.setdefault((guild.id, due), [])
        busy = self._busy.setdefault(channel.id, set())
        for player in pool:
            if player.id not in busy:
                break
        else:
            player = await guild.add_member(
                f"{'late' if due else 'p'}{len(pool)}g{guild.id % 10_000}"
            )
            pool.append(player)
            self.by_player[player.id] = due
        busy.add(player.id)
        return player

    async def plan(self, count: int, *, due: bool) -> list[Game]:
        """The next ``count`` games (kinds in turn, channels in turn), their players chosen."""
        planned = []
        for _ in range(count):
            kind = KINDS[len(self.games) % len(KINDS)]
            channel = self.channels[self._next_channel % len(self.channels)]
            self._next_channel += 1
            players = [await self._player(channel, due) for _ in range(1 + kind.others)]
            game = Game(kind, channel, players, due)
            self.games.append(game)
            for player in players:
                self.by_user.setdefault(player.id, []).append(game)
            planned.append(game)
        return planned

    def record(self, game: Game, message: FakeMessage) -> None:
        game.message = message
        self.by_message[message.id] = game

    def release(self, game: Game) -> None:
        """The game is over: its players may play again in its channel."""
        game.settled = True
        busy = self._busy.get(game.channel.id, set())
        for player in game.players:
            busy.discard(player.id)


class SeedingFailed(Exception):
    pass


async def seed_one(fake: FakeDiscord, world: World, game: Game) -> None:
    starter, others = game.players[0], game.players[1:]
    values: dict[str, Any] = dict(game.kind.options)
    if game.kind.others == 1:
        values["opponent"] = others[0]
    outcome = await starter.slash(game.kind.command, channel=game.channel, **values)
    if outcome.message is None or outcome.ephemeral:
        raise SeedingFailed(f"{game.kind.name} was refused: {outcome.text()[:200]!r}")
    world.record(game, outcome.message)
    if game.kind.press is not None:
        # On a busy machine the bot defers the command's answer and edits its buttons in
        # after: they are pressed once they are there.
        message, label = outcome.message, game.kind.press
        await fake.wait_for(
            lambda: any(b.get("label") == label for b in message.buttons()),
            timeout=60,
            what=f"{game.kind.name} to show {label}: {message.text()[:200]!r}",
        )
        for player in others:
            pressed = await player.click(outcome.message, game.kind.press)
            if pressed.ephemeral:
                raise SeedingFailed(f"{game.kind.press} was refused: {pressed.text()[:200]!r}")


async def seed_all(
    fake: FakeDiscord, world: World, games: Sequence[Game], concurrency: int
) -> None:
    gate = asyncio.Semaphore(concurrency)

    async def one(game: Game) -> None:
        async with gate:
            await seed_one(fake, world, game)

    await asyncio.gather(*(one(game) for game in games))


async def wait_quiet(fake: FakeDiscord, *, quiet: float, limit: float) -> float:
    """Wait until the bot has made no request for ``quiet`` seconds (at most ``limit``);
    returns when its last request came (perf_counter)."""
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        try:
            await asyncio.wait_for(fake.next_change(), quiet)
        except TimeoutError:
            break
    return fake.requests[-1].at if fake.requests else time.perf_counter()


# -- the database, read through the bot's storage -----------------------------------------------


def open_database(database: str) -> Database:
    if database.startswith("postgresql://"):
        return open_url(database, pool_size=2)
    return SQLiteDatabase(Path(database))


@dataclass
class Stored:
    open_games: int
    # The public messages of open games that show an older version than stored.
    behind_messages: set[int] = field(default_factory=set)

    @property
    def behind(self) -> int:
        return len(self.behind_messages)


async def stored_games(database: str) -> Stored:
    db = open_database(database)
    await db.open()
    try:
        # A restart is of a database the bot has made before (none on the first start).
        await db.migrate()
        ids = await open_ids(db)
        behind = set()
        for session_id in ids:
            session = await read_session(db, session_id)
            if session is not None and session.shown_version < session.version:
                behind.add(session.message_id or -session_id)
        return Stored(len(ids), behind)
    finally:
        await db.close()


async def timers_left_due(database: str) -> bool:
    db = open_database(database)
    await db.open()
    try:
        upcoming = await next_claimable(db, owner="bench")
        return upcoming is not None and upcoming[2] <= time.time()
    finally:
        await db.close()


# -- seeding -------------------------------------------------------------------------------


async def start_bot(fake: FakeDiscord, database: str, **options: Any) -> Child:
    """A bot to seed games with: ready, and its commands synced (which it does once ready)."""
    syncs_before = fake.commands.sync_count
    child = await start_child("bot", fake.port, fake.token, database=database, **options)
    try:
        await child.wait_event("ready", timeout=180)
        await child.guard(
            fake.wait_for(
                lambda: fake.commands.sync_count > syncs_before,
                timeout=60,
                what="the bot to sync its commands",
            )
        )
    except BaseException:
        await child.stop()
        raise
    return child


async def seed(
    fake: FakeDiscord, world: World, database: str, *, on_time: int, due: int, args: Any
) -> None:
    """Seed ``on_time`` games with no timer due, then ``due`` games made in the past, by
    one bot whose clock is then moved back. Its own timers stay in its future: the games
    of now are a day away, those of the past are due only from a day after it."""
    fake.rate_limits.for_benchmark("seeding the games, not measured")
    # Seeding is not measured: a bot slowed by the machine's load answers late rather than
    # failing the seeding (the measured restart has Discord's 3 s again).
    fake.callback_deadline, fake.answer_timeout = 60.0, 90.0
    rng = random.Random(30)
    # A day (the timers' length) and up to --spread hours ago, the batches' hours
    # shuffled: the games' ids do not follow their timers' order.
    batches = max(1, min(args.batches, due))
    spreads = [(n + 1) * args.spread * 3600 / batches for n in range(batches)]
    rng.shuffle(spreads)
    sizes = [due // batches + (n < due % batches) for n in range(batches)]
    child = await start_bot(fake, database)
    try:
        if on_time:
            await seed_all(fake, world, await world.plan(on_time, due=False), args.concurrency)
            await wait_quiet(fake, quiet=0.5, limit=120)
        for spread, size in zip(spreads, sizes, strict=True):
            if not size:
                continue
            await child.set_offset(-(DAY + spread))
            await seed_all(fake, world, await world.plan(size, due=True), args.concurrency)
            await wait_quiet(fake, quiet=0.5, limit=120)
        # Its publisher shows the last games before it stops (and records what it showed).
        await wait_quiet(fake, quiet=3.0, limit=600)
    finally:
        await child.stop()
        fake.rate_limits = RateLimits(fake)
        fake.rate_limited.clear()
        fake.callback_deadline, fake.answer_timeout = CALLBACK_DEADLINE, ANSWER_TIMEOUT


# -- one restart, measured -------------------------------------------------------------------


@dataclass
class Press:
    latency: float | None  # None: not served (no answer in time, or not the move)
    sent_at: float
    answered_at: float | None
    # What the player got when the press was not served.
    note: str = ""


@dataclass
class Restart:
    label: str
    games: int
    due_games: int
    stored: Stored  # at the restart
    behind_after: int  # open games whose message is behind once the bot stopped
    start_to_ready: float
    first_served: float | None  # READY -> first press served (s)
    presses: list[Press]
    requests: int
    # The requests by whose they are (``attribute``), and the up-to-date games' own.
    owners: dict[str | None, int]
    up_to_date_requests: list[RequestRecord]
    other_requests: list[RequestRecord]
    claimed: int
    applied: int
    out_of_order: int
    applied_seconds: float | None  # from the process's start to the last timer applied
    shown_seconds: float | None  # ... to the last request for a game with timers due
    left_due: bool
    rate_limited: list[str]
    rss_ready: int | None
    rss_settled: int | None
    helper_rss: int | None
    problems: list[str] = field(default_factory=list)


def mover(game: Game) -> tuple[Player, dict[str, Any]] | None:
    """Whose turn it is on a Knucklebones game between two players, and a column."""
    message = game.message
    if message is None:
        return None
    columns = [
        b
        for b in message.buttons()
        if COLUMN.fullmatch(str(b.get("custom_id"))) and not b.get("disabled")
    ]
    if not columns:
        return None
    for player in game.players:
        if f"<@{player.id}>" in message.content:
            return player, columns[0]
    return None


async def press(fake: FakeDiscord, game: Game) -> Press:
    """A column press; served when the player sees the move: the answer that shows it, or
    for an answer that only acknowledges the press (deferred), the edit that follows."""
    move = mover(game)
    assert move is not None and game.message is not None
    player, column = move
    message = game.message
    game.pressed = True
    edits = message.edit_count
    interaction = await player.begin_click(message, column)
    assert interaction.sent_at is not None
    try:
        outcome = await wait_for_answer(interaction, fake.answer_timeout)
    except AssertionError:
        return Press(None, interaction.sent_at, None, "no answer")
    if interaction.late:
        return Press(None, interaction.sent_at, interaction.answered_at, "answered too late")
    if interaction.callback_type is CallbackType.DEFERRED_UPDATE:
        try:
            await fake.wait_for(lambda: message.edit_count > edits, timeout=10, what="the move")
        except AssertionError:
            return Press(None, interaction.sent_at, None, "deferred, then no edit in 10 s")
        shown = time.perf_counter()
        return Press(shown - interaction.sent_at, interaction.sent_at, shown)
    if interaction.callback_type is not CallbackType.UPDATE_MESSAGE:
        note = f"answer type {interaction.callback_type}: {outcome.text()[:120]!r}"
        return Press(None, interaction.sent_at, interaction.answered_at, note)
    return Press(interaction.latency, interaction.sent_at, interaction.answered_at)


def attribute(world: World, record: RequestRecord, behind: Stored) -> str | None:
    """Whose a request is: "pressed" (a game a press moved, or a press's own answer),
    "behind" (a game whose message was behind its stored version at the restart), "due"
    (a game with timers due), "up to date" (any other game); None for anything else. A
    request is a game's when it edits its public message or replies under it, or is a DM
    to one of its players (the players of the games seeded in the past play no other)."""
    if record.interaction is not None:
        return "pressed"
    if record.is_dm or record.route == "/users/@me/channels":
        user_id = None
        if record.route == "/users/@me/channels" and isinstance(record.body, dict):
            user_id = int(record.body.get("recipient_id", 0))
        elif record.channel is not None and record.channel.recipient is not None:
            user_id = record.channel.recipient.id
        if user_id is None or user_id not in world.by_player:
            return None
        if any(
            g.message is not None and g.message.id in behind.behind_messages
            for g in world.by_user.get(user_id, [])
        ):
            return "behind"
        return "due" if world.by_player[user_id] else "up to date"
    message_id = record.message_id
    if message_id is None and isinstance(record.body, dict):
        reference = record.body.get("message_reference") or {}
        if reference.get("message_id") is not None:
            message_id = int(reference["message_id"])
    game = None if message_id is None else world.by_message.get(message_id)
    if game is None:
        return None
    if game.pressed:
        return "pressed"
    if message_id in behind.behind_messages:
        return "behind"
    return "due" if game.due else "up to date"


def dump_requests(path: str, records: Iterable[RequestRecord]) -> None:
    """When each request came and how it was answered (``BENCH_DUMP_REQUESTS``)."""
    Path(path).write_text("".join(f"{r.at:.6f} {r.status} {r.method} {r.path}\n" for r in records))


async def measure_restart(
    fake: FakeDiscord, world: World, database: str, label: str, args: Any
) -> Restart:
    # As in a real restart, which takes seconds: the windows of Discord's limits that the
    # seeding bot's last requests used (5 s at most) are over when this bot starts.
    if fake.requests:
        await asyncio.sleep(max(0.0, fake.requests[-1].at + 5.0 - time.perf_counter()))
    stored = await stored_games(database)
    due_now = [g for g in world.games if g.due and not g.settled]
    candidates = [
        g
        for g in world.games
        if g.kind.name == "knucklebones duel"
        and not g.due
        and not g.pressed
        and not g.settled
        and mover(g) is not None
    ]
    random.Random(len(world.games)).shuffle(candidates)
    requests_before = len(fake.requests)
    identifies_before = len(fake.gateway.identifies)
    problems_before = len(fake.problems)
    profile = os.environ.get("BENCH_PROFILE_BOT")
    env = {"BENCH_PROFILE_BOT": f"{profile}.{label}"} if profile else {}
    # No garbage collection in this process while the bot restarts: the fake and the
    # players keep every game, message and request seen, and a full collection of them
    # (seconds at 10,000 games) would hold the requests the bot sends meanwhile and then
    # count them all at once, as Discord would not (see bench/interactions.py).
    gc.collect()
    gc.freeze()
    gc.disable()
    child = await start_child(
        "bot", fake.port, fake.token, database=database, watch_timers=True, env=env
    )
    try:
        await child.guard(
            fake.wait_for(
                lambda: any(i.accepted for i in fake.gateway.identifies[identifies_before:]),
                timeout=300,
                what="the bot to identify",
            )
        )
        ready_at = next(i.at for i in fake.gateway.identifies[identifies_before:] if i.accepted)
        presses: list[Press] = []
        first_served: float | None = None
        # The first press as READY goes out, again until one is served (10 s at most).
        while candidates and time.perf_counter() - ready_at < 10.0:
            result = await press(fake, candidates.pop())
            presses.append(result)
            if result.latency is not None:
                assert result.answered_at is not None
                first_served = result.answered_at - ready_at
                break
        # Then more, one after another, while the bot applies the due timers.
        for _ in range(args.presses):
            if not candidates:
                break
            presses.append(await press(fake, candidates.pop()))
        ready = await child.wait_event("ready", timeout=300)
        # Every due timer applied (none left due), then the bot quiet (its edits paced).
        started = time.monotonic()
        while await timers_left_due(database):
            if time.monotonic() - started > args.timer_limit:
                break
            await asyncio.sleep(1.0)
        left_due = await timers_left_due(database)
        await wait_quiet(fake, quiet=2.0, limit=args.timer_limit)
        rss_settled = rss_kib(child.pid)
        helpers = [rss_kib(pid) for pid in children_of(child.pid)]
        helper_rss = sum(h for h in helpers if h is not None) if helpers else None
    finally:
        await child.stop()
        gc.enable()
    made = fake.requests[requests_before:]
    dump = os.environ.get("BENCH_DUMP_REQUESTS")
    if dump:
        # When each request came and how it was answered, to look at the pacing.
        dump_requests(f"{dump}.{label.replace(' ', '').replace(',', '-')}", made)
    # What the bot reported of its timers.
    due_of = {e["deadline"]: e["due_at"] for e in child.seen("claimed")}
    applied = child.seen("applied")
    out_of_order = 0
    latest = -float("inf")
    for event in applied:
        due_at = due_of.get(event["deadline"], latest)
        if due_at < latest:
            out_of_order += 1
        latest = max(latest, due_at)
    # Every request the bot made, put down to a game.
    owners: dict[str | None, int] = {}
    up_to_date: list[RequestRecord] = []
    other: list[RequestRecord] = []
    last_due: float | None = None
    for record in made:
        starting = record.route.startswith(START_UP_ROUTES)
        if starting and not record.route.startswith("/users/@me/channels"):
            owners["start-up"] = owners.get("start-up", 0) + 1
            continue
        owner = attribute(world, record, stored)
        owners[owner] = owners.get(owner, 0) + 1
        if owner == "up to date":
            up_to_date.append(record)
        elif owner == "due":
            last_due = record.at
        elif owner is None:
            other.append(record)
    behind_after = (await stored_games(database)).behind
    # The timers applied: those games are no longer in the past (most are over); their
    # players may play again in their channels.
    for game in due_now:
        world.release(game)
    return Restart(
        label=label,
        games=stored.open_games,
        due_games=len(due_now),
        stored=stored,
        behind_after=behind_after,
        start_to_ready=ready["at"] - child.started_at,
        first_served=first_served,
        presses=presses,
        requests=len(made),
        owners=owners,
        up_to_date_requests=up_to_date,
        other_requests=other,
        claimed=len(due_of),
        applied=len(applied),
        out_of_order=out_of_order,
        applied_seconds=applied[-1]["at"] - child.started_at if applied else None,
        shown_seconds=None if last_due is None else last_due - child.started_at,
        left_due=left_due,
        rate_limited=[str(hit) for hit in fake.rate_limited],
        rss_ready=ready.get("rss_kib"),
        rss_settled=rss_settled,
        helper_rss=helper_rss,
        problems=[str(p) for p in fake.problems[problems_before:]],
    )


# -- one database ----------------------------------------------------------------------------


def verdict(holds: bool) -> str:
    return "PASS" if holds else "FAIL"


def report(result: Restart) -> list[str]:
    """The restart's lines, targets with PASS or FAIL."""
    lines = [
        f"{result.label}: {result.games:,} open games ({result.due_games:,} with timers due, "
        f"{result.stored.behind:,} with a message behind their stored version)",
        f"  process start -> READY (on_ready) {result.start_to_ready:.1f} s",
    ]
    if result.presses:
        served = [p.latency for p in result.presses if p.latency is not None]
        failed = len(result.presses) - len(served)
        first = result.first_served
        lines.append(
            f"  {verdict(first is not None and first <= FIRST_PRESS_TARGET_SECONDS)}  READY -> "
            f"first press served <= {FIRST_PRESS_TARGET_SECONDS:.0f} s: "
            + ("never (10 s)" if first is None else f"{first:.2f} s")
            + (f" ({failed} press(es) not served)" if failed else "")
        )
        for unserved in [p for p in result.presses if p.latency is None][:3]:
            lines.append(f"        not served: {unserved.note}")
        if len(served) > 1:
            lines.append(
                f"        presses during the restart: {len(result.presses)}, p50 "
                f"{statistics.median(served) * 1000:.0f} ms, max {max(served) * 1000:.0f} ms"
            )
    up_to_date = result.up_to_date_requests
    lines.append(
        f"  {verdict(not up_to_date)}  REST requests for games whose message showed their "
        f"stored version: {len(up_to_date)}"
        + "".join(f"\n        {r.method} {r.path[:90]} -> {r.status}" for r in up_to_date[:5])
    )
    owners = result.owners
    lines.append(
        f"        all REST requests from the start: {result.requests:,} (games with timers "
        f"due {owners.get('due', 0):,}, the presses {owners.get('pressed', 0):,}, games "
        f"behind at the restart {owners.get('behind', 0):,}, start-up "
        f"{owners.get('start-up', 0):,}, other {owners.get(None, 0):,})"
    )
    if result.other_requests:
        routes: dict[str, int] = {}
        for record in result.other_requests:
            key = f"{record.method} {record.route}"
            routes[key] = routes.get(key, 0) + 1
        ordered = sorted(routes.items(), key=lambda kv: -kv[1])
        lines.append(
            "        not put down to a game: " + ", ".join(f"{n} {route}" for route, n in ordered)
        )
    if result.due_games or result.claimed:
        shown = result.behind_after == 0 and not result.left_due
        timing = ""
        if result.applied_seconds is not None:
            timing += f", the last {result.applied_seconds:.1f} s from the start"
        if result.shown_seconds is not None:
            timing += f", shown by {result.shown_seconds:.1f} s"
        lines.append(
            f"  {verdict(not result.rate_limited and shown)}  due timers applied and shown "
            f"with no 429: {result.applied:,} applied of {result.claimed:,} claimed (the "
            f"rest no longer applied){timing}; "
            + ("some still due; " if result.left_due else "")
            + f"messages behind after: {result.behind_after}; 429s: {len(result.rate_limited)}"
            + "".join(f"\n        {hit}" for hit in result.rate_limited[:5])
        )
        lines.append(
            f"  {verdict(result.out_of_order == 0 and result.applied > 0)}  due timers oldest "
            f"first: {result.out_of_order} applied after a later-due one"
        )
    elif result.rate_limited:
        lines.append(f"  FAIL  429s: {len(result.rate_limited)}")
    helper = f" (+ picture helper {mib(result.helper_rss)})" if result.helper_rss else ""
    lines.append(
        f"  memory (RSS): at READY {mib(result.rss_ready)}, timers applied and quiet "
        f"{mib(result.rss_settled)}{helper}"
    )
    if result.problems:
        lines.append(f"  the fake saw {len(result.problems)} problem(s): {result.problems[:3]}")
    return lines


async def run_database(database_key: str, args: argparse.Namespace) -> list[Restart]:
    label = "SQLite" if database_key == "sqlite" else "PostgreSQL"
    fake = FakeDiscord()
    await fake.start()
    results: list[Restart] = []
    database_name: str | None = None
    try:
        world = World(fake, args.guilds, args.channels)
        await world.build()
        with tempfile.TemporaryDirectory() as directory:
            if database_key == "postgres":
                database_name, database = await create_database(args.postgres)
            else:
                database = str(Path(directory) / "restart.db")
            for size in args.games:
                now_open = (await stored_games(database)).open_games if results else 0
                more = max(0, size - now_open)
                due = min(more, round(size / 3))
                if more:
                    began = time.monotonic()
                    await seed(fake, world, database, on_time=more - due, due=due, args=args)
                    print(
                        f"  ({label}: seeded {more:,} games, {due:,} of them in the past, in "
                        f"{time.monotonic() - began:.0f} s through the bot)",
                        flush=True,
                    )
                result = await measure_restart(
                    fake, world, database, f"{label}, {size:,} games", args
                )
                for line in report(result):
                    print(line, flush=True)
                results.append(result)
    finally:
        await fake.stop()
        if database_name is not None:
            await drop_database(args.postgres, database_name)
    return results


def history_figures(database_key: str, result: Restart) -> list[history.Figure]:
    """Target 3 as ``bench/history.py`` records it: the figures ``report`` judges, keyed by
    database and open games."""
    key = f"{database_key}/{result.games}"
    figures = []
    if result.presses:
        first = result.first_served
        figures.append(
            history.Figure(
                f"{key}/first-press",
                # Never served: the 10 s the bench waited, judged FAIL.
                round(10.0 if first is None else first, 3),
                FIRST_PRESS_TARGET_SECONDS,
                verdict(first is not None and first <= FIRST_PRESS_TARGET_SECONDS),
            )
        )
    up_to_date = len(result.up_to_date_requests)
    figures.append(
        history.Figure(f"{key}/up-to-date-requests", up_to_date, 0, verdict(not up_to_date))
    )
    if result.due_games or result.claimed:
        shown = result.behind_after == 0 and not result.left_due
        figures.append(
            history.Figure(
                f"{key}/429s",
                len(result.rate_limited),
                0,
                verdict(not result.rate_limited and shown),
            )
        )
        figures.append(
            history.Figure(
                f"{key}/out-of-order",
                result.out_of_order,
                0,
                verdict(result.out_of_order == 0 and result.applied > 0),
            )
        )
    for name, kib in (("rss-ready", result.rss_ready), ("rss-settled", result.rss_settled)):
        if kib is not None:
            figures.append(history.Figure(f"{key}/{name}", round(kib / 1024, 1)))
    return figures


def summary(results: Iterable[Restart]) -> list[str]:
    lines = ["", "memory (RSS) of the bot process, timers applied and quiet:"]
    for result in results:
        lines.append(
            f"  {result.label:<28} at READY {mib(result.rss_ready):>9}   settled "
            f"{mib(result.rss_settled):>9}"
        )
    return lines


async def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING)
    print(
        f"restart with {', '.join(f'{n:,}' for n in args.games)} open games; "
        f"{args.guilds} servers x {args.channels} channels; {load_line()}",
        flush=True,
    )
    results: list[Restart] = []
    figures: list[history.Figure] = []
    for key in args.databases:
        measured = await run_database(key, args)
        results += measured
        figures += [figure for result in measured for figure in history_figures(key, result)]
    for line in summary(results):
        print(line)
    print(f"({load_line()})")
    if args.record:
        note = f"{args.guilds} servers x {args.channels} channels, {args.presses} presses"
        print(f"recorded in {history.record('restart', figures, note)} and its chart redrawn")
    return 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[0, 1_000, 10_000],
        help="open games at each restart, comma-separated, growing (default 0,1000,10000)",
    )
    parser.add_argument(
        "--databases",
        type=lambda text: text.split(","),
        default=["sqlite", "postgres"],
        help="sqlite, postgres or both (comma-separated)",
    )
    parser.add_argument(
        "--postgres",
        default=os.environ.get("TEST_DATABASE_URL") or DEFAULT_POSTGRES,
        help="a PostgreSQL server where the bench may create and drop a database",
    )
    parser.add_argument("--guilds", type=int, default=100, help="servers")
    parser.add_argument("--channels", type=int, default=10, help="text channels per server")
    parser.add_argument("--presses", type=int, default=20, help="presses after the first")
    parser.add_argument("--concurrency", type=int, default=8, help="seeding: commands in flight")
    parser.add_argument(
        "--spread", type=float, default=4.0, help="hours over which the due timers fell due"
    )
    parser.add_argument(
        "--batches", type=int, default=8, help="batches of due games, each its own hour"
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="append target 3 to bench/history/restart.jsonl and redraw its chart "
        "(BENCH_HISTORY_DIR, BENCH_CHART_DIR: elsewhere)",
    )
    parser.add_argument(
        "--timer-limit",
        type=float,
        default=900.0,
        help="seconds to wait for the due timers to be applied and shown",
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse(sys.argv[1:]))))
