"""Weighted Dice table options end to end: the points to win (a short game ends sooner),
the betting window and the house's set-up time, refused out of bounds before any table
exists, shown in the lobby and on the table, and kept through restarts."""

from __future__ import annotations

import json

import pytest
from weighted_support import Table, script_dice

from bot.play.guild_settings import save_guild_overrides
from cogs.weighted_dice.state import TableOptions, TableState, load_state

NAMES = ("ann", "ben", "cat", "dan", "eve", "fay")


async def members(make_member, count: int) -> list:
    return [await make_member(name) for name in NAMES[:count]]


async def deadlines(bot, session_id: int) -> list[tuple[str, float]]:
    rows = await bot.db.fetch_all(
        "SELECT kind, due_at FROM deadlines WHERE session_id = ? ORDER BY id", (session_id,)
    )
    return [(row["kind"], row["due_at"]) for row in rows]


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_short_game_shows_its_target_and_ends_sooner(
    running_bot, fake_discord, make_member
) -> None:
    players = await members(make_member, 5)
    table = Table(fake_discord, running_bot, players)
    lobby = await table.open_lobby(
        points="short game: about 10-12 rounds, points set by the table size"
    )
    assert "**Short game**: first to **60** points with 5 players;" in lobby.text()
    assert "With 5 players a game lasts about **10** rounds" in lobby.text()
    await table.join_all()
    await table.start()
    engine = await table.engine()
    assert engine.target == 60
    footer = table.message.embed["footer"]["text"]  # type: ignore[index]
    assert "first to 60 points wins (short game) · about 10 rounds with 5 players" in footer
    assert "bets 20 s · house 60 s" in footer

    rounds = 0
    while (engine := await table.engine()).phase != "finished":
        assert rounds < 40, "a short game should be over long before this"
        house = engine.house
        order = sorted((s for s in range(5) if s != house), key=lambda s: (s - house) % 5)
        await table.setup_round(players[house], (players[order[0]], players[order[1]]), (20, 6))
        for side, seat in enumerate(order[2:]):
            await table.quick_bet(players[seat], side, "5")
        rounds += 1
    await table.settle()
    # Over at 60: the card's 150 would still be far off.
    assert 60 <= max(engine.scores) < 150, engine.scores
    assert "final standings" in table.text()
    row = await running_bot.db.fetch_one(
        "SELECT reason, summary FROM results WHERE session_id = ?", (table.session_id,)
    )
    assert row is not None and row["reason"] == "normal"
    assert json.loads(row["summary"])["rounds"] == rounds


async def test_the_chosen_times_apply_through_restarts_whatever_the_server_says(
    running_bot, bot_factory, fake_discord, guild, make_member, clock
) -> None:
    players = await members(make_member, 6)
    ann, ben, cat, dan = players[:4]
    table = Table(fake_discord, running_bot, players)
    lobby = await table.open_lobby(points=300, betting_window=45, house_setup=90)
    assert "First to **300** points wins" in lobby.text()
    assert "Bets stay open **45 s** a round; the house has **90 s** to set up." in lobby.text()

    # A restart while the lobby fills, and a server setting that changes meanwhile: the
    # table keeps what its host chose.
    await table.settle()
    bot = await bot_factory.restart()
    table.bind(bot)
    async with bot.db.transaction() as conn:
        overrides = {"betting_window_seconds": 10, "house_setup_seconds": 15}
        await save_guild_overrides(conn, guild.id, overrides, bot.clock.now())
    script_dice(bot, [20, 1, 1, 1, 1, 1])
    await table.join_all()
    await table.start()
    state = load_state((await table.session()).state)
    assert isinstance(state, TableState)
    assert state.engine.target == 300
    assert state.options == TableOptions(
        target=300, betting_window_seconds=45, house_setup_seconds=90
    )
    started_at = clock.now()
    assert await deadlines(bot, table.session_id) == [("house_setup", started_at + 90)]

    # The house's 90 seconds.
    clock.advance(89)
    await table.settle()
    assert (await table.engine()).phase == "setup"
    clock.advance(1)
    await table.wait_for_text("did not set up round 1 in time")
    betting = await table.engine()
    assert betting.phase == "betting"
    opened_at = clock.now()
    assert await deadlines(bot, table.session_id) == [("betting_window", opened_at + 45)]

    # The 45-second window, across another restart.
    bettor = next(p for p in (ben, cat, dan) if table.seat_of(p) not in betting.rollers)
    assert (await table.bet(bettor, 0, 4)).ephemeral
    clock.advance(30)
    bot = await bot_factory.restart()
    table.bind(bot)
    clock.advance(14)
    await table.settle()
    assert (await table.engine()).phase == "betting"
    clock.advance(1)
    await table.wait_for_text(r"\*\*Round 1:\*\*")
    engine = await table.engine()
    assert engine.last_round is not None and engine.last_round.closed_by == "deadline"
    assert await deadlines(bot, table.session_id) == [("house_setup", clock.now() + 90)]
    assert "bets 45 s · house 90 s" in table.message.embed["footer"]["text"]  # type: ignore[index]
    await ann.slash("weighted end")


async def test_options_out_of_bounds_open_no_table(running_bot, fake_discord, make_member) -> None:
    (ann,) = await members(make_member, 1)
    channel = ann.home.default_channel
    before = len(channel.messages())
    cases = [
        ({"betting_window": 4}, "`betting_window` must be between 5 and 600."),
        ({"house_setup": 3601}, "`house_setup` must be between 10 and 3600."),
        ({"points": 155}, "`points` must be one of `short game"),
    ]
    for options, message in cases:
        refused = await ann.slash("weighted new", modified_client=True, **options)
        assert refused.ephemeral and message in refused.text(), refused.text()
    sessions = await running_bot.db.fetch_one("SELECT COUNT(*) AS n FROM sessions", ())
    assert sessions is not None and sessions["n"] == 0
    assert len(channel.messages()) == before
    # Within the bounds, the same player opens a table at once.
    opened = await ann.slash("weighted new", betting_window=5, house_setup=3600)
    assert not opened.ephemeral and "**5 s** a round" in opened.text()
