"""Several bot processes on one PostgreSQL database, each running its own gateway shards:
the bot services of the project's compose.yaml (shard 0 in one process, shard 1 in
another, their settings read from that file), each the real bot as its own process on a
clock the test moves (``fakediscord.clocked``).

Any process serves any interaction (a DM press for a game in shard 1's server reaches
shard 0's process); commands are synced once; identifies keep Discord's max_concurrency
across processes. When the shard-1 process is SIGKILLed mid-game, its server's timers
fire from the other process, exactly once; restarted, it carries on from the old buttons;
no committed move is lost and no deadline is applied twice."""

from __future__ import annotations

import json
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
import yaml
from backends import isolated_database
from duel_support import Duel, diceman_lock
from fakediscord import CallbackType, FakeDiscord, FakeGuild, FakeMessage, Player
from fakediscord.process import BotProcess
from knucklebones_support import ai_board_idle, board_turn, enabled_columns, start_duel

from bot.clock import ManualClock

SEED = "2468"
ROUND_TIMEOUT = 60
COMPOSE = Path(__file__).resolve().parents[2] / "compose.yaml"


def compose_services() -> dict[str, dict[str, str]]:
    """The bot services of compose.yaml and their environment (DATABASE_URL aside: the
    test's own database replaces the compose network's)."""
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    bots = {}
    for name, service in services.items():
        environment = {k: str(v) for k, v in service.get("environment", {}).items()}
        if "SHARD_IDS" in environment:
            url = environment.pop("DATABASE_URL")
            assert url.startswith("postgresql://") and "@postgres:5432/" in url
            assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
            bots[name] = environment
    return bots


def test_compose_runs_every_shard_once_on_one_database() -> None:
    bots = compose_services()
    counts = {int(env["SHARD_COUNT"]) for env in bots.values()}
    assert len(counts) == 1
    shards = sorted(int(env["SHARD_IDS"]) for env in bots.values())
    assert shards == list(range(counts.pop()))


class ShardProcess:
    """One bot process running ``shard`` of two, on the test's clock."""

    def __init__(
        self, fake: FakeDiscord, clock: ManualClock, url: str, environment: dict[str, str]
    ) -> None:
        self.fake = fake
        self.clock = clock
        self.shard = int(environment["SHARD_IDS"])
        self.process = BotProcess.for_fake(
            fake,
            guild_id=None,  # commands synced globally: every server has them
            database=Path("unused.db"),  # DATABASE_URL is set: no SQLite file
            launcher="fakediscord.clocked",
            **environment,
            DATABASE_URL=url,
            ROUND_TIMEOUT_SECONDS=str(ROUND_TIMEOUT),
        )

    @property
    def running(self) -> bool:
        return self.process.process is not None and self.process.process.returncode is None

    async def start(self) -> None:
        self.process.launcher_args = (repr(self.clock.now()), SEED + str(self.shard))
        await self.process.start()

    async def ready(self, syncs_before: int) -> None:
        await self.process.wait_ready(
            self.fake, shards=[self.shard], sync=self.shard == 0, syncs_before=syncs_before
        )

    async def kill(self) -> None:
        assert await self.process.kill() == -signal.SIGKILL
        await self.fake.wait_for(
            lambda: not self.fake.gateway.shard_connected(self.shard),
            what=f"shard {self.shard}'s gateway to close",
        )

    def errors(self) -> list[str]:
        return [line for line in self.process.output if line.startswith(("ERROR", "CRITICAL"))]


class Cluster:
    def __init__(self, fake: FakeDiscord, clock: ManualClock, url: str) -> None:
        self.fake = fake
        self.clock = clock
        self.url = url
        processes = [ShardProcess(fake, clock, url, env) for env in compose_services().values()]
        self.shards = sorted(processes, key=lambda process: process.shard)

    async def advance(self, seconds: float) -> None:
        """Move the clock of the test (and the fake) and of every running process."""
        self.clock.advance(seconds)
        for shard in self.shards:
            if shard.running:
                await shard.process.send_line(f"advance {seconds}")

    async def events(self, session_id: int) -> list[tuple[int, int | None, str]]:
        conn = await asyncpg.connect(self.url)
        try:
            rows = await conn.fetch(
                "SELECT version, actor_id, action FROM events WHERE session_id = $1"
                " ORDER BY version",
                session_id,
            )
        finally:
            await conn.close()
        return [
            (row["version"], row["actor_id"], json.loads(row["action"])["type"]) for row in rows
        ]


@pytest.fixture
async def sharded_fake(clock: ManualClock) -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord(time_source=clock.now, shard_count=2, max_concurrency=1)
    # Discord refuses an identify over max_concurrency: so does the fake.
    fake.gateway.enforce_identify_limit = True
    await fake.start()
    yield fake
    await fake.stop()
    problems = fake.final_problems()
    assert not problems, problems


@pytest.fixture
async def cluster(sharded_fake: FakeDiscord, clock: ManualClock) -> AsyncIterator[Cluster]:
    async with isolated_database() as url:
        running = Cluster(sharded_fake, clock, url)
        try:
            yield running
        finally:
            for shard in running.shards:
                await shard.process.ensure_dead()


def session_of(message: FakeMessage) -> int:
    for custom_id in message.custom_ids():
        parts = custom_id.split(":")
        if len(parts) > 1 and parts[1].isdigit():
            return int(parts[1])
    raise AssertionError(f"no session id on {message.custom_ids()}")


async def press(player: Player, board: FakeMessage) -> None:
    outcome = await player.click(board, f"Column {enabled_columns(board)[0] + 1}")
    # The answer is the board itself, unless the move took over 1.5 s on a loaded machine:
    # then the bot deferred in time and edited the board after (bot/answers.py).
    deferred_in_time = outcome.type is CallbackType.DEFERRED_UPDATE and outcome.latency >= 1.4
    assert outcome.type is CallbackType.UPDATE_MESSAGE or deferred_in_time, (
        outcome.type,
        outcome.latency,
        outcome.text(),
    )


@pytest.mark.postgres_only
async def test_two_processes_share_the_games_and_survive_one_being_killed(
    cluster: Cluster, sharded_fake: FakeDiscord
) -> None:
    fake = sharded_fake
    zero: FakeGuild = await fake.create_guild("Shard Zero", shard=0)
    one: FakeGuild = await fake.create_guild("Shard One", shard=1)
    alice, bob = await zero.add_member("alice"), await zero.add_member("bob")
    carol, dave, erin = [await one.add_member(name) for name in ("carol", "dave", "erin")]

    first, second = cluster.shards
    await first.start()
    await second.start()
    await first.ready(syncs_before=0)
    await second.ready(syncs_before=0)
    # One process synced the commands; the identifies kept max_concurrency across both.
    assert fake.commands.sync_count == 1
    assert [i.accepted for i in fake.gateway.identifies].count(True) == 2
    assert fake.gateway.identify_violations() == []

    # Shard 0's server: a duel between two players.
    duel_zero = await start_duel(fake, alice, bob, first="me")
    await press(alice, duel_zero)
    # Shard 1's server: a game against the AI, and Diceman by DM.
    ai_board = (await carol.slash("knucklebones ai", difficulty="easy", first="me")).message
    assert ai_board is not None
    await press(carol, ai_board)
    await cluster.advance(1)
    await fake.wait_for(lambda: board_turn(ai_board) == 3 and ai_board_idle(ai_board), what="AI")
    challenge = await dave.slash("diceman challenge", opponent=erin)
    assert challenge.message is not None
    diceman = Duel(fake, challenge.message, "dm")
    await erin.click(diceman.board, "Accept")
    await diceman.wait_round(1)
    # Dave locks in from his DM: DMs arrive on shard 0, whose process serves the game of
    # shard 1's server.
    await diceman_lock(dave, await diceman.dm_controls(dave, 1), ["sword", "shield"])
    dm_press = fake.gateway.events(event="INTERACTION_CREATE")[-1]
    assert dm_press.shard_id == 0 and dm_press.guild_id is None
    await diceman.wait_text("Locked in")

    # Carol moves; the AI's answer is a timer 0.7 s ahead. Shard 1's process dies first.
    ai_session = session_of(ai_board)
    await press(carol, ai_board)
    await second.kill()
    await cluster.advance(1)
    # The other process fires that timer and shows it on shard 1's board.
    await fake.wait_for(
        lambda: board_turn(ai_board) == 5 and ai_board_idle(ai_board), what="the AI's move"
    )
    # Shard 0's game goes on meanwhile.
    await press(bob, duel_zero)
    # Erin never locks in: the round timer fires, from the surviving process, once.
    await cluster.advance(ROUND_TIMEOUT + 1)
    await diceman.wait_over()

    # Shard 1's process comes back; its games go on from the very same buttons.
    syncs = fake.commands.sync_count
    await second.start()
    await second.ready(syncs_before=syncs)
    assert fake.commands.sync_count == syncs  # it does not sync again
    await press(carol, ai_board)
    await cluster.advance(1)
    await fake.wait_for(lambda: board_turn(ai_board) == 7, what="the AI after the restart")
    await press(alice, duel_zero)

    # Every committed move is there, each deadline applied once: on the AI board the
    # player and the AI (the system, actor None) alternate, version after version.
    events = await cluster.events(ai_session)
    assert [version for version, _, _ in events] == list(range(len(events)))
    moves = [(actor, kind) for _, actor, kind in events[1:]]
    assert moves == [(carol.id, "place"), (None, "ai_move")] * 3, moves
    timers = [kind for _, actor, kind in await cluster.events(diceman.session_id) if not actor]
    assert timers == ["warn", "timeout"], timers
    assert fake.gateway.identify_violations() == []
    assert first.errors() == [] and second.errors() == []
    await second.process.stop()
    await first.process.stop()
