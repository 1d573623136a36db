"""Several shards, possibly from several processes: guild events on ``(guild_id >> 22) %
shard_count``, DMs on shard 0, and identifies checked against max_concurrency."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from bot.model.clock import ManualClock
from fakediscord import BotHarness, FakeDiscord
from fakediscord.probe import ShardedProbeBot


@pytest.fixture
async def sharded_fake(clock: ManualClock) -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord(time_source=clock.now, shard_count=2, check_answers=True)
    await fake.start()
    with fake.redirect_discord_py():
        yield fake
    await fake.stop()
    assert fake.final_problems() == []


def shard_bot(shard: int, *, identify_pause: float | None = None) -> Callable[[], ShardedProbeBot]:
    def make() -> ShardedProbeBot:
        bot = ShardedProbeBot(shard_ids=[shard], shard_count=2)
        bot.identify_pause = identify_pause
        return bot

    return make


async def test_each_shard_gets_its_guilds_and_dms_go_to_shard_0(
    sharded_fake: FakeDiscord,
) -> None:
    fake = sharded_fake
    zero = await fake.create_guild("Zero", shard=0)
    one = await fake.create_guild("One", shard=1)
    assert [fake.gateway.shard_of(g.id) for g in (zero, one)] == [0, 1]
    alice = await zero.add_member("alice")
    bob = await one.add_member("bob")
    first = BotHarness(fake, shard_bot(0))
    second = BotHarness(fake, shard_bot(1))
    bot0 = await first.start()
    bot1 = await second.start()
    assert isinstance(bot1, ShardedProbeBot)
    try:
        assert [g.id for g in bot0.guilds] == [zero.id]
        assert [g.id for g in bot1.guilds] == [one.id]
        assert (await alice.slash("where")).text() == "shards [0]"
        in_guild = await bob.slash("where")
        assert in_guild.text() == "shards [1]" and in_guild.interaction.shard_id == 1
        in_dm = await bob.slash("where", channel=bob.open_dm())
        assert in_dm.text() == "shards [0]" and in_dm.interaction.shard_id == 0

        late = await fake.create_guild("Late", shard=1)
        await bot1.log.wait_for(lambda: ("guild_join", late.id) in bot1.log.events)
        assert bot0.get_guild(late.id) is None
        created = fake.gateway.events(event="GUILD_CREATE")
        assert [(e.shard_id, e.guild_id) for e in created] == [
            (0, zero.id),
            (1, one.id),
            (1, late.id),
        ]
        interactions = fake.gateway.events(event="INTERACTION_CREATE")
        assert [(e.shard_id, e.guild_id) for e in interactions] == [
            (0, zero.id),
            (1, one.id),
            (0, None),
        ]
        # Each shard is its own connection (here, its own client).
        assert len({e.connection for e in created}) == 2

        shards, _, limit = await bot0.http.get_bot_gateway()
        assert shards == 2 and limit["max_concurrency"] == 1
        assert limit["remaining"] == limit["total"] - 2
        # Both clients identified at once, each as its "initial" shard: with
        # max_concurrency 1 Discord allows one identify per 5 s, so the fake flags it.
        identifies = fake.gateway.identifies
        assert [(i.shard_id, i.accepted) for i in identifies] == [(0, True), (1, True)]
        assert fake.gateway.identify_violations() == [identifies[1]]
    finally:
        leftovers = [*await second.stop(), *await first.stop()]
        assert leftovers == []


async def test_an_identify_over_max_concurrency_is_refused_as_discord_does(
    sharded_fake: FakeDiscord,
) -> None:
    fake = sharded_fake
    fake.gateway.enforce_identify_limit = True
    # A short window keeps the test short; the rule is the same as Discord's 5 s.
    fake.gateway.identify_window = 0.3
    await fake.create_guild("One", shard=1)
    first = BotHarness(fake, shard_bot(0))
    second = BotHarness(fake, shard_bot(1, identify_pause=0.4))
    await first.start()
    bot1 = await second.start()
    try:
        assert isinstance(bot1, ShardedProbeBot)
        outcome = [(i.shard_id, i.accepted) for i in fake.gateway.identifies]
        # INVALID_SESSION (op 9): discord.py reconnects and identifies again after its
        # before_identify_hook (not "initial" any more), which waits out the window.
        assert outcome == [(0, True), (1, False), (1, True)]
        assert bot1.identify_calls == [(1, True), (1, False)]
        assert fake.gateway.identify_violations() == []
        assert fake.gateway.connected and [g.name for g in bot1.guilds] == ["One"]
    finally:
        leftovers = [*await second.stop(), *await first.stop()]
        assert leftovers == []
