"""Weighted Dice end to end on the fake Discord: the lobby, whole games to 150 with 5 and
with 12 players, the house timeout, the betting window, leaving and stopping a game."""

from __future__ import annotations

import json
import re

import discord
import pytest
from fakediscord import FakeUsageError
from weighted_support import Table, eventually, script_dice

from bot.play.guild_settings import save_guild_overrides
from game_core.weighted_dice import score_round

NAMES = ("ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal", "ida", "jon", "kim", "lea")


async def members(make_member, count: int, names=NAMES) -> list:
    return [await make_member(name) for name in names[:count]]


def seat_line(name: str, points: int) -> str:
    """A seat as the table picture's alt text lists it: "Dan 20", "Dan 20 (left)"."""
    return rf"(?:: |; ){name} {points}\b"


# -- the lobby ------------------------------------------------------------------------------


async def test_lobby_fills_up_and_only_the_host_starts_from_five(
    running_bot, fake_discord, make_member
) -> None:
    players = await members(make_member, 6)
    table = Table(fake_discord, running_bot, players[:5])
    lobby = await table.open_lobby()
    assert "Players (1/12)" in lobby.text()
    start = next(b for b in lobby.buttons() if b["label"] == "Start")
    assert start["disabled"] is True
    for player in players[1:4]:
        await player.click(table.message, "Join")
    await table.settle()
    assert "Players (4/12)" in table.text()
    assert "Waiting for **1** more player" in table.text()
    with pytest.raises(FakeUsageError, match="disabled"):
        await players[0].click(table.message, "Start")

    # Joining twice is refused and changes nothing; so is opening a second table here, or
    # joining this one from another table in the same channel.
    before = await table.snapshot()
    again = await players[1].click(table.message, "Join")
    assert again.ephemeral and "already at this table" in again.text()
    second = await players[1].slash("weighted new")
    assert second.ephemeral and "You already have a game open in this channel" in second.text()
    elsewhere = Table(fake_discord, running_bot, [players[5]])
    await elsewhere.open_lobby()
    busy = await players[5].click(table.message, "Join")
    assert busy.ephemeral and "You already have a game open in this channel" in busy.text()
    await table.assert_unchanged(before)
    await players[5].slash("weighted leave")

    await players[4].click(table.message, "Join")
    await table.settle()
    assert "Players (5/12)" in table.text() and "Ready: **Ann** can press **Start**" in table.text()

    # Start belongs to the host.
    before = await table.snapshot()
    refused = await players[2].click(table.message, "Start")
    assert refused.ephemeral and "Only the host" in refused.text()
    await table.assert_unchanged(before)

    # A player leaves and rejoins: they go to the end of the join order.
    await players[1].click(table.message, "Leave")
    await table.settle()
    assert "Players (4/12)" in table.text()
    await players[5].click(table.message, "Join")
    await players[1].click(table.message, "Join")
    await table.settle()
    session = await table.session()
    assert [seat.display_name for seat in session.seats] == [
        "Ann",
        "Cat",
        "Dan",
        "Eve",
        "Fay",
        "Ben",
    ]

    await players[0].click(table.message, "Start")
    await table.settle()
    text = table.text()
    assert "round 1" in text and "Roll-off (d20)" in text and "is the first house" in text
    for name in ["Ann", "Cat", "Dan", "Eve", "Fay", "Ben"]:
        assert re.search(seat_line(name, 20), table.alt())
        assert f"**{name}** — **20**" not in text  # the seats are the picture's
    engine = await table.engine()
    house = session.seats[engine.house].display_name
    assert f"**{house}** is the house" in text
    assert table.message.labels() == ["Set up round"]


async def test_lobby_holds_twelve_and_the_roll_off_re_rolls_ties(
    running_bot, fake_discord, make_member
) -> None:
    players = await members(make_member, 12)
    table = Table(fake_discord, running_bot, players)
    # Seats 2 and 7 tie on 20; the re-roll gives seat 7 the house.
    script_dice(running_bot, [5, 9, 20, 1, 1, 1, 1, 20, 3, 3, 3, 3, 4, 17])
    await table.open_lobby()
    await table.join_all()
    assert "Players (12/12)" in table.text()
    join = next(b for b in table.message.buttons() if b["label"] == "Join")
    assert join["disabled"] is True
    late = await make_member("zed")
    with pytest.raises(FakeUsageError, match="disabled"):
        await late.click(table.message, "Join")
    await table.start()
    text = table.text()
    assert "Tie at 20 between Cat, Hal: they roll again." in text
    assert "Re-roll: Cat 4 · Hal 17" in text
    assert "**Hal** rolled highest and is the first house." in text
    assert (await table.engine()).house == 7


async def test_a_lobby_expires_when_never_started(
    running_bot, fake_discord, make_member, clock
) -> None:
    players = await members(make_member, 3)
    table = Table(fake_discord, running_bot, players)
    await table.open_lobby()
    await table.join_all()
    clock.advance(1_799)
    await table.settle()
    assert "Join" in table.message.labels()
    clock.advance(1)
    await table.wait_for_text("expired before the game started")
    assert table.message.custom_ids() == []
    assert (await table.session()).status == "cancelled"


async def test_the_host_leaving_closes_the_lobby(running_bot, fake_discord, make_member) -> None:
    players = await members(make_member, 2)
    table = Table(fake_discord, running_bot, players)
    await table.open_lobby()
    await table.join_all()
    answer = await players[0].slash("weighted leave")
    assert answer.ephemeral and "lobby closed" in answer.text()
    await table.wait_for_text("The host left")
    assert table.message.custom_ids() == []
    # The player left behind is free to open a table of their own.
    assert not (await players[1].slash("weighted new")).ephemeral


# -- a whole game -----------------------------------------------------------------------------


DICE_CYCLE = ((20, 20), (12, 8), (6, 10), (20, 4), (8, 8))


@pytest.mark.parametrize("count", [5, 12])
@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_whole_game_to_150_through_buttons_and_modals(
    running_bot, fake_discord, make_member, count: int
) -> None:
    """Rollers are the two seats after the house; bettors back alternate sides with half
    their points by modal or 10 (or 5) with a quick button; the seeded session rng rolls."""
    players = await members(make_member, count)
    names = [p.name.title() for p in players]
    table = Table(fake_discord, running_bot, players)
    await table.open()
    rounds = 0
    while (engine := await table.engine()).phase != "finished":
        assert rounds < 40, "the game should reach 150 long before this"
        house = engine.house
        order = sorted(
            (s for s in range(count) if engine.active[s] and s != house),
            key=lambda seat: (seat - house) % count,
        )
        rollers = (players[order[0]], players[order[1]])
        await table.setup_round(players[house], rollers, DICE_CYCLE[rounds % len(DICE_CYCLE)])
        for index, seat in enumerate(order[2:]):
            side = index % 2
            points = engine.scores[seat]
            if index % 3 == 2:
                amount = 10 if points >= 10 else 5
                answer = await table.quick_bet(players[seat], side, str(amount))
            else:
                amount = points // 2
                answer = await table.bet(players[seat], side, amount)
            assert answer.ephemeral and f"You bet **{amount}**" in answer.text()
        rounds += 1
        assert (await table.engine()).rounds_played == rounds
        await table.wait_for_text(rf"\*\*Round {engine.round}:\*\*")

    await table.settle()
    text = table.text()
    assert "final standings" in text
    assert table.message.labels() == [
        "Play again",
        "Replay",
    ]  # nothing to play but a new table, and its replay
    assert max(engine.scores) >= 150
    best = max(engine.scores)
    winners = [names[seat] for seat in range(count) if engine.scores[seat] == best]
    # The message text names the winners; the standings are the picture's, by rank.
    assert table.message.content.startswith("🏆 ")
    assert all(f"**{name}**" in table.message.content for name in winners)
    for seat in range(count):
        assert re.search(seat_line(names[seat], engine.scores[seat]), table.alt())

    # The result and the summary for /stats.
    row = await running_bot.db.fetch_one(
        "SELECT id, reason, summary FROM results WHERE session_id = ?", (table.session_id,)
    )
    assert row is not None and row["reason"] == "normal"
    summary = json.loads(row["summary"])
    assert summary["scores"] == engine.scores
    assert summary["rounds"] == rounds
    top = sorted(range(count), key=lambda seat: (-engine.scores[seat], seat))[:3]
    assert summary["score_line"].split(" · ")[0] == f"{names[top[0]]} {engine.scores[top[0]]}"
    places = await running_bot.db.fetch_all(
        "SELECT seat, outcome, place, score FROM result_players WHERE result_id = ? ORDER BY seat",
        (row["id"],),
    )
    assert [p["score"] for p in places] == engine.scores
    assert [p["seat"] for p in places if p["outcome"] == "win"] == [
        seat for seat in range(count) if engine.scores[seat] == best
    ]

    # Every scored round agrees with the pure scorer, fed from the event log.
    await check_rounds_against_the_scorer(running_bot, table.session_id, rounds)


async def check_rounds_against_the_scorer(bot, session_id: int, rounds: int) -> None:
    rows = await bot.db.fetch_all(
        "SELECT events FROM events WHERE session_id = ? ORDER BY version", (session_id,)
    )
    setup: dict = {}
    bets: dict[str, tuple[int, int]] = {}
    checked = 0
    for row in rows:
        for event in json.loads(row["events"]):
            if event["type"] == "setup":
                setup, bets = event, {}
            elif event["type"] == "bet":
                bets[str(event["player"])] = (event["roller"], event["amount"])
            elif event["type"] == "rolls":
                rolls = tuple(event["rolls"])
            elif event["type"] == "round_scored":
                before = {str(c["player"]): c["before"] for c in event["changes"]}
                after = {str(c["player"]): c["after"] for c in event["changes"]}
                rollers = (str(setup["rollers"][0]), str(setup["rollers"][1]))
                assert score_round(before, str(setup["house"]), rollers, rolls, bets) == after
                checked += 1
    assert checked == rounds


# -- timers ----------------------------------------------------------------------------------


async def set_server(bot, guild_id: int, **overrides: int) -> None:
    async with bot.db.transaction() as conn:
        await save_guild_overrides(conn, guild_id, overrides, bot.clock.now())


async def test_the_house_timeout_sets_up_at_random_and_says_so(
    running_bot, fake_discord, guild, make_member, clock
) -> None:
    await set_server(running_bot, guild.id, house_setup_seconds=30)
    players = await members(make_member, 5)
    table = Table(fake_discord, running_bot, players)
    await table.open()
    engine = await table.engine()
    assert "Set up round" in table.message.labels()
    clock.advance(29)
    await table.settle()
    assert (await table.engine()).phase == "setup"
    clock.advance(1)
    await table.wait_for_text("did not set up round 1 in time")
    after = await table.engine()
    assert after.phase == "betting" and after.auto_setup
    assert engine.house not in after.rollers and len(set(after.rollers)) == 2
    house = players[engine.house].name.title()
    assert f"**{house}** did not set up round 1 in time, so I picked" in table.text()
    assert "Chances:" in table.text()
    # The house's panel from before is for a round already set up.
    panel_press = await players[engine.house].click(table.message, f"wd:{table.session_id}:1:bet:0")
    assert "the house does not bet" in panel_press.text()


async def test_the_window_follows_the_server_setting_and_a_restart(
    running_bot, bot_factory, fake_discord, guild, make_member, clock
) -> None:
    """A 45-second window (per server): nothing closes at 20 s; a restart in between
    keeps the original deadline; at 45 s the round is scored with the bets placed."""
    await set_server(running_bot, guild.id, betting_window_seconds=45)
    players = await members(make_member, 6)
    table = Table(fake_discord, running_bot, players)
    script_dice(running_bot, [20, 1, 1, 1, 1, 1, 7, 2])
    await table.open()
    ann, ben, cat, dan = players[:4]
    await table.setup_round(ann, (ben, cat), (8, 8))
    assert (await table.bet(dan, 0, 4)).ephemeral
    clock.advance(20)
    await table.settle()
    assert (await table.engine()).phase == "betting"
    assert "Dan 20 (4 on Ben)" in table.alt()

    bot = await bot_factory.restart()
    table.bind(bot)
    script_dice(bot, [7, 2])
    clock.advance(24)
    await table.settle()
    assert (await table.engine()).phase == "betting"
    clock.advance(1)
    await table.wait_for_text(r"\*\*Round 1:\*\* \*\*Ben\*\* \(d8\) rolled \*\*7\*\*")
    engine = await table.engine()
    assert engine.scores == [20, 27, 20, 22, 20, 20]
    assert engine.last_round is not None and engine.last_round.closed_by == "deadline"


async def test_the_window_closes_at_once_when_everyone_has_bet(
    running_bot, fake_discord, make_member
) -> None:
    players = await members(make_member, 5)
    table = Table(fake_discord, running_bot, players)
    script_dice(running_bot, [20, 1, 1, 1, 1, 9, 4])
    await table.open()
    ann, ben, cat, dan, eve = players
    await table.setup_round(ann, (ben, cat), (10, 10))
    await table.bet(dan, 0, 3)
    assert (await table.engine()).phase == "betting"
    last = await table.bet(eve, 1, 2)
    assert "Everyone has bet, so the dice were rolled" in last.text()
    engine = await table.engine()
    assert engine.round == 2 and engine.last_round is not None
    assert engine.last_round.closed_by == "all_bet"
    # The next timer is the new house's setup, not the old window.
    deadlines = await running_bot.db.fetch_all(
        "SELECT kind, action FROM deadlines WHERE session_id = ?", (table.session_id,)
    )
    assert [(d["kind"], json.loads(d["action"])["round"]) for d in deadlines] == [
        ("house_setup", 2)
    ]


async def test_the_house_is_pinged_each_round_and_the_old_ping_goes(
    running_bot, fake_discord, make_member
) -> None:
    players = await members(make_member, 5)
    table = Table(fake_discord, running_bot, players)
    script_dice(running_bot, [20, 1, 1, 1, 1, 9, 4])
    await table.open()
    ann, ben, cat, dan, eve = players
    channel = table.message.channel

    def pings() -> list:
        return [m for m in channel.messages() if "you are the house" in m.content]

    await fake_discord.wait_for(lambda: len(pings()) == 1, what="the first house's ping")
    (first,) = pings()
    assert first.content.startswith(f"🎲 Round 1: {ann.mention}, you are the house.")

    await table.setup_round(ann, (ben, cat), (10, 10))
    await table.bet(dan, 0, 3)
    await table.bet(eve, 1, 2)  # everyone has bet: round 1 is scored, round 2 begins
    await fake_discord.wait_for(
        lambda: first.deleted and len(pings()) == 1, what="round 2's ping instead of round 1's"
    )
    (second,) = pings()
    assert second.content.startswith(f"🎲 Round 2: {ben.mention}, you are the house.")
    sent = [r for r in fake_discord.requests if "you are the house" in str(r.body)]
    assert [r.body["allowed_mentions"]["users"] for r in sent] == [[ann.id], [ben.id]]

    await ann.slash("weighted end")
    await fake_discord.wait_for(lambda: second.deleted, what="the last ping to go at the end")


# -- leaving and stopping ---------------------------------------------------------------------


@pytest.mark.machine_speed("a table of six, its presses milliseconds apart")
async def test_leaving_keeps_points_and_the_game_ends_below_five(
    running_bot, fake_discord, make_member
) -> None:
    players = await members(make_member, 6)
    table = Table(fake_discord, running_bot, players)
    script_dice(running_bot, [20, 1, 1, 1, 1, 1, 13, 3])
    await table.open()
    ann, ben, cat, dan, eve, fay = players
    await table.setup_round(ann, (ben, cat), (20, 4))
    await table.bet(dan, 0, 10)
    # Dan leaves with a bet placed: the bet stays and is scored with the round.
    answer = await dan.slash("weighted leave")
    assert answer.ephemeral and "Your 20 points stay in the standings" in answer.text()
    await table.settle()
    assert "**Dan** left the table" in table.text()
    assert re.search(seat_line("Dan", 20) + r" \(left\)", table.alt())
    await table.bet(eve, 0, 5)
    await table.bet(fay, 1, 5)
    engine = await table.engine()
    assert engine.scores[3] == 20 + 5 + 10  # the 5 bet on the loser plus as much as he bet

    # Dan can no longer bet, roll or host; a second /weighted leave is refused.
    again = await dan.slash("weighted leave")
    assert "already left" in again.text()
    # But he is free to play something else in this channel while the table goes on.
    zed = await make_member("zed")
    challenge = await dan.slash("knucklebones challenge", opponent=zed)
    assert not challenge.ephemeral and "challenge" in challenge.text().lower()
    # Those still seated are not.
    busy = await eve.slash("knucklebones challenge", opponent=zed)
    assert busy.ephemeral and "already have a game open in this channel" in busy.text()
    await table.setup_round(ben, (cat, eve), (6, 6))
    refused = await table.open_bet(dan, 0)
    assert refused.modal is None and "You have left this game" in refused.text()

    # Below five seated players the game ends; leavers keep their points in the standings.
    await fay.slash("weighted leave")
    await table.wait_for_text("fewer than 5 players remain")
    assert table.message.labels() == ["Play again", "Replay"]  # the only controls left
    final = await table.engine()
    assert final.phase == "finished" and final.end_reason == "abandoned"
    assert re.search(seat_line("Dan", 35), table.alt())
    row = await running_bot.db.fetch_one(
        "SELECT reason FROM results WHERE session_id = ?", (table.session_id,)
    )
    assert row is not None and row["reason"] == "abandoned"


async def test_only_the_host_or_a_manager_can_end_a_game(
    running_bot, fake_discord, make_member
) -> None:
    players = await members(make_member, 5)
    manager = await make_member("max", permissions=discord.Permissions(manage_guild=True))
    table = Table(fake_discord, running_bot, players)
    await table.open()

    before = await table.snapshot()
    refused = await players[2].slash("weighted end")
    assert refused.ephemeral and "Only the host" in refused.text()
    await table.assert_unchanged(before)

    outsider = await make_member("oli")
    nothing = await outsider.slash("weighted end")
    assert "Only the host" in nothing.text()

    stopped = await manager.slash("weighted end", table=table.session_id)
    assert stopped.ephemeral and "no result was recorded" in stopped.text()
    await table.wait_for_text("Stopped by")
    assert table.message.custom_ids() == []
    assert (await table.session()).status == "cancelled"
    assert await running_bot.db.fetch_one("SELECT id FROM results") is None

    # The host ends their own next game without naming it.
    second = Table(fake_discord, running_bot, players)
    await second.open()
    ended = await players[0].slash("weighted end")
    assert "no result was recorded" in ended.text()

    async def cancelled() -> bool:
        return (await second.session()).status == "cancelled"

    await eventually(cancelled, "the second game to stop")
    missing = await players[0].slash("weighted end")
    assert "No Weighted Dice table is open" in missing.text()
