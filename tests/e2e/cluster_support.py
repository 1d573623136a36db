"""Several bot processes on one PostgreSQL database, each the real bot as its own process on
a clock the test moves (``fakediscord.clocked``), each running the gateway shards the
project's compose.yaml gives it: for the multi-process tests (test_processes.py,
test_process_chaos.py; the fixtures are in conftest.py)."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import asyncpg
import yaml
from fakediscord import CallbackType, FakeDiscord, FakeMessage, Player
from fakediscord.process import BotProcess
from knucklebones_support import enabled_columns

from bot.model.clock import ManualClock

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


def session_of(message: FakeMessage) -> int:
    for custom_id in message.custom_ids():
        parts = custom_id.split(":")
        if len(parts) > 1 and parts[1].isdigit():
            return int(parts[1])
    raise AssertionError(f"no session id on {message.custom_ids()}")


async def press(player: Player, board: FakeMessage) -> None:
    outcome = await player.click(board, f"Column {enabled_columns(board)[0] + 1}")
    # The answer is the board itself, unless the move took over 1.5 s on a loaded machine:
    # then the bot deferred in time and edited the board after (bot/ui/answers.py).
    deferred_in_time = outcome.type is CallbackType.DEFERRED_UPDATE and outcome.latency >= 1.4
    assert outcome.type is CallbackType.UPDATE_MESSAGE or deferred_in_time, (
        outcome.type,
        outcome.latency,
        outcome.text(),
    )


def turns_shown(board: FakeMessage) -> list[int]:
    """The turn of every version of the board that landed, oldest first (a finished board,
    or one without live buttons, counts as showing no turn and is left out)."""
    shown = []
    for version in board.history:
        for custom_id in version.custom_ids():
            parts = custom_id.split(":")
            if len(parts) > 3 and parts[0] == "kb" and parts[3] == "col":
                shown.append(int(parts[2]))
                break
    return shown
