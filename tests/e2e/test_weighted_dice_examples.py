"""RULES.md's Weighted Dice worked examples, each played through the Discord UI.

Everyone starts at 20; seat order is H (the house), R1, R2, X, Y, Z. The roll-off and the
duel rolls are scripted through the cog's ``dice_source``; setups are made in the house's
panel and bets through the "Bet on …" modals, exactly as players do.
"""

from __future__ import annotations

from weighted_support import Table, script_dice

NAMES = ("hugo", "rosa", "rudi", "xena", "yann", "zora")


async def open_table(bot, fake, make_member) -> tuple[Table, list, list[int]]:
    players = [await make_member(name) for name in NAMES]
    table = Table(fake, bot, players)
    script = script_dice(bot, [20, 1, 1, 1, 1, 1])  # Hugo wins the roll-off: he is H
    await table.open()
    return table, players, script


async def test_example_1_bets_on_both_sides(running_bot, fake_discord, make_member) -> None:
    table, (h, r1, r2, x, y, z), script = await open_table(running_bot, fake_discord, make_member)
    await table.setup_round(h, (r1, r2), (20, 4))
    script.extend([13, 3])
    await table.bet(x, 0, 6)
    await table.bet(y, 0, 4)
    await table.bet(z, 1, 5)
    assert (await table.engine()).scores == [20, 38, 20, 31, 29, 15]
    await table.wait_for_text(r"\*\*Round 1:\*\*")
    text = table.text()
    assert "**Rosa** (d20) rolled **13**, **Rudi** (d4) rolled **3** → **Rosa** wins." in text
    # A bet is never taken up front: a winning backer gains their bet and the losing pot.
    assert (
        "**Xena** 20 → **31**: won 11 (bet 6 on Rosa: 6 for backing the winner + the 5 bet "
        "on Rudi)" in text
    )
    assert "**Yann** 20 → **29**: won 9 (bet 4 on Rosa" in text
    assert "**Zora** 20 → **15**: lost 5 (bet 5 on Rudi)" in text
    assert "**Rosa** 20 → **38**: roller bonus +18 (rolled 13 + the 5 bet on Rudi)" in text
    # Who stayed the same is one line, not a "20 → 20" each.
    assert "Unchanged: Hugo (the house), Rudi (lost the roll)." in text
    assert "20 → **20**" not in text


async def test_example_2_nobody_backs_the_loser(
    running_bot, fake_discord, make_member, clock
) -> None:
    table, (h, r1, r2, x, y, _), script = await open_table(running_bot, fake_discord, make_member)
    await table.setup_round(h, (r1, r2), (6, 6))
    script.extend([2, 5])
    await table.bet(x, 1, 7)
    await table.bet(y, 1, 3)
    # Z does not bet: the 20-second window closes the round.
    clock.advance(20)
    await table.wait_for_text(r"\*\*Round 1:\*\*")
    assert (await table.engine()).scores == [20, 20, 25, 23, 21, 20]
    text = table.text()
    assert "**Rudi** (d6) rolled **5** → **Rudi** wins." in text
    assert "**Xena** 20 → **23**: won 3 (bet 7 on Rudi; nobody backed Rosa, so half the bet)" in (
        text
    )
    assert "**Yann** 20 → **21**: won 1 (bet 3 on Rudi; nobody backed Rosa, so half the bet)" in (
        text
    )
    assert "Unchanged: Hugo (the house), Rosa (lost the roll), Zora (no bet)." in text
    assert "**Rudi** 20 → **25**: roller bonus +5 (rolled 5 + the 0 bet on Rosa)" in text


async def test_example_3_a_losing_bet_stops_at_five(running_bot, fake_discord, make_member) -> None:
    table, (h, r1, r2, x, y, z), script = await open_table(running_bot, fake_discord, make_member)
    # Round 1 brings Z to 8: a 12-point bet on the loser.
    await table.setup_round(h, (r1, r2), (20, 4))
    script.extend([13, 3])
    await table.bet(x, 0, 1)
    await table.bet(y, 0, 1)
    await table.bet(z, 1, 12)
    assert (await table.engine()).scores[5] == 8
    # Round 2 (Rosa is the house): Z bets 6 on the loser and lands on 5, not 2.
    await table.setup_round(r1, (r2, x), (8, 8))
    script.extend([6, 2])
    await table.bet(h, 0, 1)
    await table.bet(y, 0, 1)
    await table.bet(z, 1, 6)
    assert (await table.engine()).scores[5] == 5
    await table.wait_for_text(r"\*\*Round 2:\*\*")
    assert "**Zora** 8 → **5**: lost 3 (bet 6 on Xena, floored at 5)" in table.text()


async def test_example_4_the_house_takes_the_tie(
    running_bot, fake_discord, make_member, clock
) -> None:
    table, (h, r1, r2, x, y, _), script = await open_table(running_bot, fake_discord, make_member)
    await table.setup_round(h, (r1, r2), (4, 10))
    script.extend([4, 4])
    await table.bet(x, 0, 6)
    await table.bet(y, 1, 4)
    clock.advance(20)
    await table.wait_for_text(r"\*\*Round 1:\*\*")
    assert (await table.engine()).scores == [30, 20, 20, 14, 16, 20]
    text = table.text()
    assert "→ a tie: the house (**Hugo**) wins." in text
    assert "**Xena** 20 → **14**: lost 6 (bet 6 on Rosa; the house takes the tie)" in text
    assert "**Yann** 20 → **16**: lost 4 (bet 4 on Rudi; the house takes the tie)" in text
    assert "**Hugo** 20 → **30**: house takes the tie: +10 (every bet)" in text
    assert "Rosa (rolled the tie), Rudi (rolled the tie)" in text


async def test_example_5_a_tie_nobody_bet_on_rigs_the_house_to_five(
    running_bot, fake_discord, make_member, clock
) -> None:
    table, (h, r1, r2, x, y, z), script = await open_table(running_bot, fake_discord, make_member)
    # Round 1 brings Rosa, the next house, to 40: she rolls 10 and takes X's 10 on Rudi.
    await table.setup_round(h, (r1, r2), (20, 4))
    script.extend([10, 2])
    await table.bet(x, 1, 10)
    await table.bet(y, 0, 1)
    await table.bet(z, 0, 1)
    assert (await table.engine()).scores[1] == 40
    # Round 2: Rosa is the house, nobody bets, the dice tie.
    await table.setup_round(r1, (r2, x), (12, 12))
    script.extend([3, 3])
    clock.advance(20)
    await table.wait_for_text(r"\*\*Round 2:\*\*")
    assert (await table.engine()).scores[1] == 5
    assert "**Rosa** 40 → **5**: house set to 5 (a tie nobody bet on)" in table.text()
