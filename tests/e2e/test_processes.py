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

import asyncio

import asyncpg
import pytest
from cluster_support import (
    ROUND_TIMEOUT,
    Cluster,
    compose_services,
    press,
    session_of,
    turns_shown,
)
from duel_support import Duel, diceman_lock
from fakediscord import CallbackType, FakeDiscord, FakeGuild, routes
from knucklebones_support import ai_board_idle, board_turn, enabled_columns, start_duel

from bot.ui.publish_ledger import SHOW_LEASE_SECONDS


def test_compose_runs_every_shard_once_on_one_database() -> None:
    bots = compose_services()
    counts = {int(env["SHARD_COUNT"]) for env in bots.values()}
    assert len(counts) == 1
    shards = sorted(int(env["SHARD_IDS"]) for env in bots.values())
    assert shards == list(range(counts.pop()))


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
    # The other process fires that timer and shows it on shard 1's board, once the dead
    # process's claim on the board (its answer might still have been landing) is over.
    await cluster.advance(SHOW_LEASE_SECONDS)
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


@pytest.mark.postgres_only
async def test_a_restarted_process_s_repair_never_lands_over_a_newer_answer(
    cluster: Cluster, sharded_fake: FakeDiscord
) -> None:
    """A process starting up repairs a board that looks behind (what a message shows is
    recorded every half second) while the process playing it answers a newer move. The
    repair's edit is slow to land: the newer answer waits for it rather than land first,
    and the board ends on the newest turn, never showing an older one after a newer."""
    fake = sharded_fake
    one: FakeGuild = await fake.create_guild("Shard One", shard=1)
    alice, bob = await one.add_member("alice"), await one.add_member("bob")
    first, second = cluster.shards
    await first.start()
    await second.start()
    await first.ready(syncs_before=0)
    await second.ready(syncs_before=0)
    board = await start_duel(fake, alice, bob, first="me")
    await press(alice, board)
    assert board_turn(board) == 2

    # Shard 0's process restarts while the board looks behind in the database (as it
    # does for up to half a second after each move): once what the board shows is
    # recorded, it is set back one version.
    await first.process.stop()
    conn = await asyncpg.connect(cluster.url)
    try:

        async def recorded() -> bool:
            row = await conn.fetchrow(
                "SELECT shown_version, version, show_owner FROM sessions WHERE id = $1",
                session_of(board),
            )
            return row["shown_version"] == row["version"] and row["show_owner"] is None

        # Recorded by the other process on its own time: nothing reaches the fake then,
        # so this one condition is polled (for 5 s at most).
        for _ in range(100):
            if await recorded():
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the board's version was not recorded within 5 s")
        await conn.execute(
            "UPDATE sessions SET shown_version = shown_version - 1 WHERE id = $1",
            session_of(board),
        )
    finally:
        await conn.close()
    repair = fake.hold(routes.MESSAGE, method="PATCH", when=lambda r: r.message_id == board.id)
    syncs = fake.commands.sync_count
    await first.start()
    await first.ready(syncs_before=syncs)
    held = await repair.arrived()  # its repair of turn 2 is on its way...
    # ...when bob moves: the answer comes from shard 1's process.
    outcome = await bob.click(board, f"Column {enabled_columns(board)[0] + 1}")
    assert outcome.type in (CallbackType.UPDATE_MESSAGE, CallbackType.DEFERRED_UPDATE)
    repair.release()
    await fake.wait_for(lambda: held.status != 0, what="the repair's edit to land")
    await fake.wait_for(lambda: board_turn(board) == 3, timeout=10, what="turn 3 on the board")
    shown = turns_shown(board)
    assert shown == sorted(shown), f"an older turn landed after a newer one: {shown}"
    assert first.errors() == [] and second.errors() == []
    await second.process.stop()
    await first.process.stop()
