"""Weighted Dice bets end to end: every refusal (and that it changes nothing), a burst of
twelve players betting at once, and restarts during setup, betting and between rounds."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from fakediscord import FakeUsageError
from fakediscord.interactions import wait_for_answer
from weighted_support import Table, script_dice

from game_core import weighted_dice as wd

NAMES = ("hugo", "rosa", "rudi", "xena", "yann", "zora")
TWELVE = ("ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal", "ida", "jon", "kim", "lea")


async def betting_table(bot, fake, make_member, names=NAMES, dice=(20, 4), quick_edits=True):
    """Hugo (seat 0) is the house; Rosa and Rudi roll; everyone else may bet."""
    players = [await make_member(name) for name in names]
    table = Table(fake, bot, players, quick_edits=quick_edits)
    script = script_dice(bot, [20] + [1] * (len(names) - 1))
    await table.open()
    await table.setup_round(players[0], (players[1], players[2]), dice)
    return table, players, script


# -- refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("25", "You have only 20 points: bet from 1 to 20."),
        ("0", "A bet must be at least 1 point."),
        ("-3", "A bet must be at least 1 point."),
        ("ten", "“ten” is not a whole number: type an amount from 1 to 20 (your points)."),
        ("2.5", "“2.5” is not a whole number: type an amount from 1 to 20 (your points)."),
    ],
)
async def test_a_bad_amount_is_refused_and_changes_nothing(
    running_bot, fake_discord, make_member, typed: str, message: str
) -> None:
    table, players, _ = await betting_table(running_bot, fake_discord, make_member)
    xena = players[3]
    opened = await table.open_bet(xena, 0)
    assert opened.modal is not None
    assert "1 to 20" in json.dumps(opened.modal.components)
    before = await table.snapshot()
    answer = await xena.submit_modal(opened, amount=typed)
    assert answer.ephemeral and answer.text() == message
    await table.assert_unchanged(before)
    # The same player can still bet properly afterwards.
    assert "You bet **20**" in (await table.bet(xena, 0, "all")).text()


async def test_the_house_a_roller_and_an_outsider_cannot_bet(
    running_bot, fake_discord, make_member
) -> None:
    table, (hugo, rosa, rudi, *_), _ = await betting_table(running_bot, fake_discord, make_member)
    outsider = await make_member("olaf")
    before = await table.snapshot()
    cases = [
        (hugo, "You are the house this round: the house does not bet."),
        (rosa, "You are rolling this round: rollers cannot bet."),
        (rudi, "You are rolling this round: rollers cannot bet."),
        (outsider, "You are not playing at this table."),
    ]
    for player, message in cases:
        by_modal = await table.open_bet(player, 1)
        assert by_modal.modal is None and by_modal.ephemeral and by_modal.text() == message
        quick = await table.quick_bet(player, 0, "5")
        assert quick.ephemeral and quick.text() == message
    await table.assert_unchanged(before)


async def test_a_second_bet_is_refused_even_from_a_second_modal(
    running_bot, fake_discord, make_member
) -> None:
    table, players, _ = await betting_table(running_bot, fake_discord, make_member)
    xena = players[3]
    first = await table.open_bet(xena, 0)
    second = await table.open_bet(xena, 1)
    assert "You bet **6** on **Rosa**" in (await xena.submit_modal(first, amount="6")).text()
    await table.settle()
    before = await table.snapshot()
    again = await xena.submit_modal(second, amount="3")
    assert again.text() == "You already bet 6 on Rosa: bets are final."
    button = await table.open_bet(xena, 1)
    assert button.modal is None and "You already bet 6" in button.text()
    quick = await table.quick_bet(xena, 1, "10")
    assert "You already bet 6" in quick.text()
    await table.assert_unchanged(before)
    assert re.search(r"Xena [0-9]+ \(6 on Rosa\)", table.alt())


async def test_a_bet_after_the_window_is_refused(
    running_bot, fake_discord, make_member, clock
) -> None:
    table, players, _ = await betting_table(running_bot, fake_discord, make_member)
    xena = players[3]
    opened = await table.open_bet(xena, 0)
    clock.advance(20)
    await table.wait_for_text(r"\*\*Round 1:\*\*")
    before = await table.snapshot()
    late = await xena.submit_modal(opened, amount="5")
    assert late.text() == "Betting for round 1 is closed: the table is on round 2 now."
    await table.assert_unchanged(before)
    # Nobody bet, so the house scored nothing unless the dice tied; Xena is untouched.
    assert (await table.engine()).scores[3] == 20


async def test_setup_refusals_change_nothing(running_bot, fake_discord, make_member, clock) -> None:
    players = [await make_member(name) for name in NAMES]
    hugo, rosa = players[:2]
    table = Table(fake_discord, running_bot, players)
    script_dice(running_bot, [20, 1, 1, 1, 1, 1])
    await table.open()
    before = await table.snapshot()
    not_house = await rosa.click(table.message, "Set up round")
    assert not_house.ephemeral and not_house.text() == "Only the house (Hugo) sets up this round."

    panel = await hugo.click(table.message, "Set up round")
    message = panel.message
    assert message is not None
    await hugo.select(message, ["Rosa"], select="Roller 1")
    await hugo.select(message, ["Rosa"], select="Roller 2")
    assert "Pick two different players" in message.text()
    await hugo.select(message, ["d6"], select="Die for roller 1")
    await hugo.select(message, ["d6"], select="Die for roller 2")
    with pytest.raises(FakeUsageError, match="disabled"):
        await hugo.click(message, "Confirm")
    # The house is not on the list of rollers at all.
    with pytest.raises(FakeUsageError, match="no option"):
        await hugo.select(message, ["Hugo"], select="Roller 1")
    await table.assert_unchanged(before)

    # The house times out while the panel is open: the panel no longer applies.
    await hugo.select(message, ["Rudi"], select="Roller 2")
    assert "Chances: **Rosa** wins" in message.text()
    clock.advance(60)
    await table.wait_for_text("did not set up round 1 in time")
    before = await table.snapshot()
    late = await hugo.click(message, "Confirm")
    assert late.ephemeral and "already set" in late.text()
    stale_pick = await hugo.select(message, ["d20"], select="Die for roller 1")
    assert "Round 1 is already set up or over" in stale_pick.text()
    await table.assert_unchanged(before)


# -- twelve at once ----------------------------------------------------------------------------


async def test_twelve_players_betting_at_the_same_moment(
    running_bot, fake_discord, make_member
) -> None:
    """All twelve act at once: the nine eligible submit their modals while the house and
    both rollers press quick bets. Production edit pacing is kept: that is what is measured."""
    table, players, _ = await betting_table(
        running_bot, fake_discord, make_member, names=TWELVE, dice=(10, 10), quick_edits=False
    )
    bettors = players[3:]
    amounts = {player.name: 2 + index for index, player in enumerate(bettors)}
    sides = {player.name: index % 2 for index, player in enumerate(bettors)}
    modals = {p.name: await table.open_bet(p, sides[p.name]) for p in bettors}
    await table.settle()
    edits_before = table.edits()
    started = [
        *(p.begin_submit_modal(modals[p.name], amount=str(amounts[p.name])) for p in bettors),
        *(p.begin_click(table.message, f"wd:{table.session_id}:1:quick:0:5") for p in players[:3]),
    ]
    interactions = await asyncio.gather(*started)
    answers = await asyncio.gather(*(wait_for_answer(i, 5.0) for i in interactions))
    assert all(a.ephemeral for a in answers)
    assert sum("You bet" in a.text() for a in answers) == 9
    # The house and the rollers are refused: as such, or (if the nine were quicker) because
    # the window had closed already.
    closed = "Betting for round 1 is closed: the table is on round 2 now."
    assert answers[9].text() in ("You are the house this round: the house does not bet.", closed)
    for answer in answers[10:]:
        assert answer.text() in ("You are rolling this round: rollers cannot bet.", closed)
    assert sum("Everyone has bet" in a.text() for a in answers) == 1
    await table.settle()
    assert 1 <= table.edits() - edits_before <= 2

    # Every bet counted once, on the side and for the amount given; one round scored.
    engine = await table.engine()
    assert engine.rounds_played == 1 and engine.last_round is not None
    scored = {bet.player: (bet.roller, bet.amount) for bet in engine.last_round.bets}
    assert len(engine.last_round.bets) == 9
    assert scored == {3 + i: (sides[p.name], amounts[p.name]) for i, p in enumerate(bettors)}
    rows = await running_bot.db.fetch_all(
        "SELECT events FROM events WHERE session_id = ?", (table.session_id,)
    )
    events = [e for r in rows for e in json.loads(r["events"])]
    assert sorted(e["player"] for e in events if e["type"] == "bet") == list(range(3, 12))
    assert sum(e["type"] == "round_scored" for e in events) == 1
    closing = next(e for e in events if e["type"] == "betting_closed")
    totals = [0, 0]
    for player in bettors:
        totals[sides[player.name]] += amounts[player.name]
    assert closing["totals"] == totals and closing["bets"] == 9

    # Round 2: a burst of eight quick bets leaves one bettor to go; the table shows the
    # live totals after one coalesced edit.
    ben, cat, dan = players[1:4]
    await table.setup_round(ben, (cat, dan), (6, 6))
    engine = await table.engine()
    eligible = [players[seat] for seat in wd.eligible_bettors(engine)]
    await table.settle()
    edits_before = table.edits()
    burst = [
        p.begin_click(table.message, f"wd:{table.session_id}:2:quick:{i % 2}:5")
        for i, p in enumerate(eligible[:8])
    ]
    answers = await asyncio.gather(*(wait_for_answer(i, 5.0) for i in await asyncio.gather(*burst)))
    assert all("You bet **5**" in a.text() for a in answers)
    await table.settle()
    assert table.edits() - edits_before <= 2
    text = table.text()
    # The live totals and who is still to bet are in the picture (and its alt text).
    alt = table.alt()
    assert "Cat rolls a d6 (42% to win, bets 20) against Dan with a d6 (42%, bets 20)" in alt
    assert re.search(rf"{eligible[8].name.title()} [0-9]+ \(to bet…\)", alt)
    assert "On Cat" not in text and "Still to bet" not in text


# -- restarts ------------------------------------------------------------------------------------


async def test_restarts_during_setup_betting_and_between_rounds(
    running_bot, bot_factory, fake_discord, make_member, clock
) -> None:
    players = [await make_member(name) for name in NAMES]
    hugo, _, _, xena, yann, zora = players
    table = Table(fake_discord, running_bot, players)
    script_dice(running_bot, [20, 1, 1, 1, 1, 1])
    await table.open()

    # During setup: half the panel before the restart, the rest after it.
    panel = await hugo.click(table.message, "Set up round")
    message = panel.message
    assert message is not None
    await hugo.select(message, ["Rosa"], select="Roller 1")
    await hugo.select(message, ["d20"], select="Die for roller 1")
    bot = await bot_factory.restart()
    table.bind(bot)
    await hugo.select(message, ["Rudi"], select="Roller 2")
    await hugo.select(message, ["d4"], select="Die for roller 2")
    confirmed = await hugo.click(message, "Confirm")
    assert "Round 1 is set: **Rosa** (d20) vs **Rudi** (d4)" in confirmed.text()
    await table.wait_for_control("1:bet:0")

    # During betting: one bet placed and one modal open when the bot restarts.
    await table.bet(xena, 0, 6)
    open_modal = await table.open_bet(yann, 0)
    bot = await bot_factory.restart()
    table.bind(bot)
    script = script_dice(bot, [13, 3])
    assert "You bet **4**" in (await yann.submit_modal(open_modal, amount="4")).text()
    assert "Everyone has bet" in (await table.bet(zora, 1, 5)).text()
    assert (await table.engine()).scores == [20, 38, 20, 31, 29, 15]
    assert script == []

    # Between rounds: the new house's timer survives a restart and fires on the new bot.
    await table.wait_for_control("2:setup")
    bot = await bot_factory.restart()
    table.bind(bot)
    clock.advance(60)
    await table.wait_for_text("did not set up round 2 in time")
    assert (await table.engine()).phase == "betting"
