"""Chaos across processes: two bot processes on one PostgreSQL (the shards of compose.yaml),
SIGKILLed and restarted at random, some of them in the middle of a press, while players
play Knucklebones duels, Knucklebones against the AI and a Diceman duel by DM, and press
again when an answer was lost. Seeded: the same seed makes the same choices (the timings
between processes still vary).

What it checks, from the fake's edit history and the database:
- no message ever showed an older state after a newer one, not even for a moment;
- every message ends showing its stored game;
- every committed move is in the log once (versions 0, 1, 2, ... without a gap), every
  finished game has exactly one result, and no process logged an ERROR.

CI runs one short seed. ``DICEBOT_CHAOS_SEEDS=1,2,...,20`` runs those seeds, and
``DICEBOT_CHAOS_STEPS=200`` makes each run longer.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from dataclasses import dataclass, field

import asyncpg
import pytest
from cluster_support import Cluster, ShardProcess, session_of, turns_shown
from duel_support import CUSTOM_ID, Duel, diceman_lock
from fakediscord import FakeDiscord, FakeGuild, FakeMessage, Player
from fakediscord.interactions import FakeInteraction, wait_for_answer
from knucklebones_support import (
    ai_board_idle,
    board_turn,
    enabled_columns,
    is_finished,
    mover_id,
    start_duel,
)

from bot.ui.publish_ledger import SHOW_LEASE_SECONDS
from bot.ui.publish_loop import REPAIR_LEASE_SECONDS, SWEEP_INTERVAL_SECONDS

SEEDS = [int(seed) for seed in os.environ.get("DICEBOT_CHAOS_SEEDS", "7").split(",")]
STEPS = int(os.environ.get("DICEBOT_CHAOS_STEPS", "40"))
# How an answer can be lost here: the process serving the press is killed under it.
LOST_PROBLEMS = ("late-answer",)


@dataclass
class Game:
    board: FakeMessage
    shard: int
    players: dict[int, Player]
    kind: str  # "duel", "ai" or "diceman"
    duel: Duel | None = None
    session_id: int = 0

    def __post_init__(self) -> None:
        self.session_id = session_of(self.board)


@dataclass
class Chaos:
    fake: FakeDiscord
    cluster: Cluster
    rng: random.Random
    games: list[Game] = field(default_factory=list)
    lost: list[FakeInteraction] = field(default_factory=list)
    kills: int = 0
    presses: int = 0

    def process(self, shard: int) -> ShardProcess:
        return self.cluster.shards[shard]

    async def restart(self, shard: int) -> None:
        process = self.process(shard)
        syncs = self.fake.commands.sync_count
        await process.start()
        await process.ready(syncs_before=syncs)

    async def kill(self, shard: int) -> None:
        self.kills += 1
        await self.process(shard).kill()

    def playable(self) -> list[Game]:
        """Games a player can press now: not over, served by a running process (DMs come
        to shard 0's)."""
        found = []
        for game in self.games:
            shard = 0 if game.kind == "diceman" else game.shard
            if not self.process(shard).running:
                continue
            if game.kind == "diceman":
                assert game.duel is not None
                if not game.duel.over() and game.duel.round() is not None:
                    found.append(game)
            elif (
                not is_finished(game.board)
                and enabled_columns(game.board)
                and (game.kind == "duel" or ai_board_idle(game.board))
            ):
                found.append(game)
        return found

    async def press(self, game: Game, *, kill_under_it: bool) -> None:
        """One player's move on ``game``; with ``kill_under_it`` the process serving it is
        SIGKILLed a moment after the press (the player may see "This interaction failed",
        and presses again later)."""
        if game.kind == "diceman":
            await self._diceman_move(game)
            return
        mover = game.players.get(mover_id(game.board) or 0)
        if mover is None:
            return
        column = self.rng.choice(enabled_columns(game.board))
        interaction = await mover.begin_click(game.board, f"Column {column + 1}")
        self.presses += 1
        if kill_under_it:
            await asyncio.sleep(self.rng.uniform(0.0, 0.03))
            await self.kill(game.shard)
        try:
            await wait_for_answer(interaction, 4.0)
        except AssertionError:
            if not kill_under_it:
                raise
            # The process died before it answered: the player saw the press fail.
            interaction.expect_answer = False
            self.lost.append(interaction)

    async def _diceman_move(self, game: Game) -> None:
        duel = game.duel
        assert duel is not None
        number = duel.round()
        assert number is not None
        for player in game.players.values():
            message = player.last_dm()
            if duel.controls_in(message, number) and "Locked in" not in (message.text() or ""):
                dice = self.rng.sample(["magic", "priority", "sword", "shield"], 2)
                await diceman_lock(player, await duel.dm_controls(player, number), dice)
                self.presses += 1
                return


def dm_rounds_shown(board: FakeMessage) -> list[int]:
    shown = []
    for version in board.history:
        rounds = [
            int(match["round"])
            for match in map(CUSTOM_ID.fullmatch, version.custom_ids())
            if match is not None
        ]
        if rounds:
            shown.append(max(rounds))
    return shown


async def stored(url: str) -> dict[int, dict[str, object]]:
    conn = await asyncpg.connect(url)
    try:
        sessions = await conn.fetch(
            "SELECT id, status, version, state, shown_version, show_owner FROM sessions"
        )
        versions = await conn.fetch("SELECT session_id, version FROM events ORDER BY version")
        results = await conn.fetch("SELECT session_id FROM results")
    finally:
        await conn.close()
    found: dict[int, dict[str, object]] = {
        row["id"]: {**dict(row), "events": [], "results": 0} for row in sessions
    }
    for row in versions:
        found[row["session_id"]]["events"].append(row["version"])  # type: ignore[union-attr]
    for row in results:
        found[row["session_id"]]["results"] += 1  # type: ignore[operator]
    return found


async def divergences(chaos: Chaos, url: str) -> list[str]:
    """What differs between each board and its stored game (nothing, once converged)."""
    sessions = await stored(url)
    found = []
    for game in chaos.games:
        session_id = game.session_id
        row = sessions[session_id]
        where = f"{game.kind} (session {session_id}, shard {game.shard})"
        if row["shown_version"] != row["version"] or row["show_owner"] is not None:
            found.append(
                f"{where}: version {row['version']}, shown {row['shown_version']}, "
                f"claimed by {row['show_owner']}"
            )
        elif game.kind == "diceman":
            continue  # its rounds are checked below; its text is the stored game's
        elif row["status"] != "active":
            if not is_finished(game.board):
                found.append(
                    f"{where}: {row['status']}, the board shows turn {board_turn(game.board)}"
                )
        else:
            turn = json.loads(str(row["state"]))["engine"]["turn"]
            shown = turns_shown(game.board)
            if not shown or shown[-1] != turn:
                found.append(f"{where}: turn {turn}, the board shows {shown[-1:]}")
    return found


@pytest.mark.postgres_only
@pytest.mark.parametrize("seed", SEEDS)
async def test_processes_killed_at_random_never_show_an_older_game(
    cluster: Cluster, sharded_fake: FakeDiscord, seed: int
) -> None:
    fake = sharded_fake
    rng = random.Random(seed)
    chaos = Chaos(fake, cluster, rng)
    guilds: list[FakeGuild] = [
        await fake.create_guild("Zero", shard=0),
        await fake.create_guild("One", shard=1),
    ]
    for shard in (0, 1):
        await cluster.shards[shard].start()
    for shard in (0, 1):
        await cluster.shards[shard].ready(syncs_before=0)
    for shard, guild in enumerate(guilds):
        alice, bob, carol = [await guild.add_member(f"{n}{shard}") for n in ("al", "bo", "cy")]
        duel = await start_duel(fake, alice, bob, first="me")
        chaos.games.append(Game(duel, shard, {alice.id: alice, bob.id: bob}, "duel"))
        ai = (await carol.slash("knucklebones ai", difficulty="easy", first="me")).message
        assert ai is not None
        chaos.games.append(Game(ai, shard, {carol.id: carol}, "ai"))
    dave, erin = await guilds[1].add_member("dave"), await guilds[1].add_member("erin")
    challenge = (await dave.slash("diceman challenge", opponent=erin)).message
    assert challenge is not None
    diceman = Duel(fake, challenge, "dm")
    await erin.click(challenge, "Accept")
    await diceman.wait_round(1)
    chaos.games.append(Game(challenge, 1, {dave.id: dave, erin.id: erin}, "diceman", diceman))

    for _ in range(STEPS):
        running = [s for s in (0, 1) if cluster.shards[s].running]
        dead = [s for s in (0, 1) if not cluster.shards[s].running]
        choice = rng.choices(
            ["press", "advance", "kill", "kill-under-press", "restart"],
            weights=[
                6,
                3,
                1 if len(running) == 2 else 0,
                1 if len(running) == 2 else 0,
                3 if dead else 0,
            ],
        )[0]
        playable = chaos.playable()
        if choice == "press" and playable:
            await chaos.press(rng.choice(playable), kill_under_it=False)
        elif choice == "kill-under-press":
            targets = [g for g in playable if g.kind != "diceman"]
            if targets:
                await chaos.press(rng.choice(targets), kill_under_it=True)
        elif choice == "kill":
            await chaos.kill(rng.choice(running))
        elif choice == "restart":
            # A press on the other process's games as this one starts: its start-up
            # repair races the live process's answer (and what is recorded as shown).
            shard = rng.choice(dead)
            others = [g for g in playable if g.kind != "diceman" and g.shard != shard]
            pressing = (
                asyncio.create_task(chaos.press(rng.choice(others), kill_under_it=False))
                if others
                else None
            )
            await chaos.restart(shard)
            if pressing is not None:
                await pressing
        else:
            await cluster.advance(rng.uniform(0.2, 2.0))

    for shard in (0, 1):
        if not cluster.shards[shard].running:
            await chaos.restart(shard)
    # The claims of the processes that died run out (to edit a message, then to repair
    # it), the AI's pending moves fire, and the next sweep repairs what they left behind.
    await cluster.advance(SHOW_LEASE_SECONDS + 1)
    await cluster.advance(REPAIR_LEASE_SECONDS)
    await cluster.advance(SWEEP_INTERVAL_SECONDS)
    for _ in range(200):  # what the processes record reaches no fake: polled, 10 s at most
        if not await divergences(chaos, cluster.url):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError(
            "the messages did not come to show their stored games:\n  "
            + "\n  ".join(await divergences(chaos, cluster.url))
            + "\n"
            + "\n".join(line for p in cluster.shards for line in p.process.output[-15:])
        )

    for game in chaos.games:
        shown = dm_rounds_shown(game.board) if game.kind == "diceman" else turns_shown(game.board)
        assert shown == sorted(shown), f"{game.kind}: an older state landed after a newer: {shown}"
    sessions = await stored(cluster.url)
    for session in sessions.values():
        assert session["events"] == list(range(int(str(session["version"])) + 1)), session
        assert session["results"] == (1 if session["status"] == "finished" else 0), session
    for process in cluster.shards:
        assert process.errors() == []
    # The answers lost to a kill are what players saw fail; nothing else is.
    for kind in LOST_PROBLEMS:
        fake.take_problems(kind)
    print(f"seed {seed}: {chaos.presses} presses, {chaos.kills} kills, {len(chaos.lost)} lost")
    for process in cluster.shards:
        await process.process.stop()
    # Two processes, or a killed one and the one started after it, spend one route's bucket
    # (a channel's message edits) without knowing what the other spent: Discord answers the
    # one request too many with a 429 and discord.py sends it again when told. The global
    # limit is another matter: that 429 stays a problem.
    for problem in fake.take_problems("rate-limited"):
        if "over its bucket" not in problem.detail:
            fake.problems.append(problem)
