"""A whole Weighted Dice game on a Spanish server: the table speaks Spanish, and a player
whose Discord is in French gets her own answers (her bets, the house panel) in French."""

from __future__ import annotations

import re

import pytest
from test_weighted_dice import DICE_CYCLE
from weighted_support import Table

from bot import i18n
from bot.i18n import _


def said(language: str, english: str) -> str:
    with i18n.use(language):
        return i18n.unpseudo(_(english))


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_whole_game_in_spanish_with_a_french_player(
    running_bot, fake_discord, guild, make_member
) -> None:
    guild.locale = "es-ES"
    ann = await make_member("ann")
    ben = await fake_discord.add_member(guild, "ben", locale="fr")
    others = [await make_member(name) for name in ("cat", "dan", "eve")]
    players = [ann, ben, *others]
    count = len(players)
    table = Table(fake_discord, running_bot, players, language="es")
    await table.open()
    assert said("es", "Table #{table}").format(table=table.session_id) in table.text()

    french_bet = said("fr", "✅ You bet **{amount}** on **{roller}**. Bets are final.")
    french_prefix = french_bet.split("{amount}")[0]
    rounds = 0
    ben_bets = ben_panels = 0
    while (engine := await table.engine()).phase != "finished":
        assert rounds < 40, "the game should reach 150 long before this"
        house = engine.house
        order = sorted(
            (s for s in range(count) if engine.active[s] and s != house),
            key=lambda seat: (seat - house) % count,
        )
        rollers = (players[order[0]], players[order[1]])
        confirmed = await table.setup_round(
            players[house], rollers, DICE_CYCLE[rounds % len(DICE_CYCLE)]
        )
        assert confirmed is not None
        ben_panels += players[house] is ben
        for index, seat in enumerate(order[2:]):
            amount = max(engine.scores[seat] // 2, 1)
            answer = await table.bet(players[seat], side=index % 2, amount=amount)
            assert answer.ephemeral
            if players[seat] is ben:
                # Ben's own answer is French, whatever the table speaks.
                assert answer.text().startswith(french_prefix), answer.text()
                ben_bets += 1
            else:
                # The others' clients are in English: so are their answers.
                assert answer.text().startswith("✅ You bet **"), answer.text()
        rounds += 1

    await table.settle()
    assert ben_bets > 0 and ben_panels > 0, "ben should both bet and run the house"
    assert said("es", "🎲 Weighted Dice — final standings") in table.text()
    assert table.message.labels() == [said("es", "Play again"), said("es", "Replay")]
    assert table.message.content.startswith("🏆 ")
    # The table's picture describes itself in Spanish too.
    winners = said("es", "Weighted Dice, final standings: {winners} won.").split("{winners}")[0]
    assert re.escape(winners) and winners in table.alt()
