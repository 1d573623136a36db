"""Diceman in the players' languages, end to end: a whole game on a Spanish server, where
the public message speaks Spanish, the challenger (a Spanish client) gets her DMs in
Spanish and the opponent (a French client) gets his controls, notes and refusals in
French."""

from __future__ import annotations

import pytest
from duel_support import Duel, diceman_lock, diceman_pick
from fakediscord import FakeDiscord, FakeGuild, FakeMessage

from bot.app import DiceBot
from bot.model.clock import ManualClock

ALICE_PICK = ["priority", "sword"]
BOB_PICK = ["magic", "shield"]


def accept_id(board: FakeMessage) -> str:
    return next(c for c in board.custom_ids() if c.startswith("challenge:") and "accept" in c)


def finished(board: FakeMessage) -> bool:
    return "fin de la partida" in board.text()


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_whole_game_in_spanish_with_a_french_player(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    guild.locale = "es-ES"  # the server's language in its Discord settings
    alice = await fake_discord.add_member(guild, "Alicia", locale="es-ES")
    bob = await fake_discord.add_member(guild, "Benoît", locale="fr")

    challenge = await alice.slash("diceman challenge", opponent=bob)
    assert challenge.message is not None
    board = challenge.message
    assert "Cada jugador empieza con 20 de vida" in board.text()
    await bob.click(board, accept_id(board))
    duel = Duel(fake_discord, board, "dm")
    await duel.wait_round(1)

    # The public message: the server's language.
    text = board.text()
    assert "🎲 Diceman — Ronda 1" in text
    assert "Ronda 1 de 30 como máximo." in text
    assert "Esperando a Alicia y Benoît: falta fijar su elección." in text
    assert "⏳ Eligiendo…" in text
    assert "por ronda; quien no llegue a tiempo pierde por abandono" in text
    # How to give up is a command mention: each player's client names the command in
    # their own language, in a message that speaks the server's.
    assert "Usa </diceman forfeit:" in text
    assert "Usa /diceman rendirse para rendirte." in alice.reads(board)
    assert "Usa /diceman abandonner para rendirte." in bob.reads(board)
    assert board.labels() == ["Haz tu jugada"]

    # Each player's private controls: their own language.
    alice_dm = await duel.dm_controls(alice, 1)
    bob_dm = await duel.dm_controls(bob, 1)
    assert "Diceman — ronda 1: tu elección secreta" in alice_dm.text()
    assert "Elige **exactamente dos** dados en el menú" in alice_dm.text()
    assert "Diceman — manche 1 : ton choix secret" in bob_dm.text()
    assert "Choisis **exactement deux** dés dans le menu" in bob_dm.text()
    assert "Valide ton choix <t:" in bob_dm.text()
    assert [s.get("placeholder") for s in bob_dm.selects()] == ["Choisis deux dés"]
    await diceman_pick(bob, bob_dm, BOB_PICK)
    bob_dm = bob.last_dm() or bob_dm
    assert "Confirmer Magie + Bouclier" in bob_dm.labels()
    assert "Sélection :" in bob_dm.text()

    # Locking in: each note in its owner's language; the board says so in Spanish.
    note = await diceman_lock(alice, alice_dm, ALICE_PICK)
    assert "Fijado — Diceman, ronda 1" in note and "Tu elección:" in note
    await duel.wait_text("🔒 Fijado")
    assert "Esperando a Benoît: falta fijar su elección." in board.text()
    refused = await alice.click(board, "Haz tu jugada")
    assert refused.ephemeral
    assert "Ya fijaste tu elección para esta ronda, y es definitiva." in refused.text()
    opened = await bob.click(board, "Haz tu jugada")
    assert opened.ephemeral
    assert "Diceman — manche 1 : ton choix secret" in opened.text()
    # Bob's lock-in reveals the round: his controls turn into its reveal, in French.
    note = await diceman_lock(bob, bob_dm, BOB_PICK)
    assert "Diceman — la manche 1 est terminée" in note and "🔒 Validé : " in note

    # The rest of the game: the retired DMs say the round is over, each in its language.
    number = 1
    while True:
        await fake_discord.wait_for(
            lambda n=number: finished(board) or duel.round() == n + 1, what="the reveal"
        )
        if finished(board):
            break
        await fake_discord.wait_for(
            lambda d=alice_dm, n=number: f"la ronda {n} ha terminado" in d.text(),
            what="Alicia's retired DM",
        )
        await fake_discord.wait_for(
            lambda d=bob_dm, n=number: f"la manche {n} est terminée" in d.text(),
            what="Benoît's retired DM",
        )
        number += 1
        assert number <= 30
        alice_dm = await duel.dm_controls(alice, number)
        bob_dm = await duel.dm_controls(bob, number)
        await diceman_lock(alice, alice_dm, ALICE_PICK)
        await diceman_lock(bob, bob_dm, BOB_PICK)

    content = board.content or ""
    assert "**¡Alicia gana!**" in content or "**¡Benoît gana!**" in content, content
    assert "Diceman contra" in content and "Vida " in content
    await fake_discord.wait_for(
        lambda: any(
            "Tu as gagné !" in m.text() or "Tu as perdu cette fois-ci." in m.text()
            for m in bob.dms()
        ),
        what="Benoît's game-over DM in French",
    )
    await fake_discord.wait_for(
        lambda: any(
            "¡Ganaste!" in m.text() or "Esta vez perdiste." in m.text() for m in alice.dms()
        ),
        what="Alicia's game-over DM in Spanish",
    )


async def test_the_timers_speak_each_players_language(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, clock: ManualClock
) -> None:
    guild.locale = "es-ES"
    alice = await fake_discord.add_member(guild, "Alicia", locale="es-ES")
    bob = await fake_discord.add_member(guild, "Benoît", locale="fr")
    challenge = await alice.slash("diceman challenge", opponent=bob)
    assert challenge.message is not None
    board = challenge.message
    await bob.click(board, accept_id(board))
    duel = Duel(fake_discord, board, "dm")
    await duel.wait_round(1)
    await duel.dm_controls(alice, 1)
    await duel.dm_controls(bob, 1)

    clock.advance(121)  # a minute before the round's end: both are warned, each in theirs
    await fake_discord.wait_for(
        lambda: (
            "Le temps presse dans ta partie de **Diceman**" in (bob.last_dm() or board).text()
            and "Se acaba el tiempo en tu partida de **Diceman**"
            in (alice.last_dm() or board).text()
        ),
        what="the warning DMs",
    )
    assert "valide ton choix pour cette manche <t:" in (bob.last_dm() or board).text()
    await duel.wait_text("⏰ Se acaba el tiempo")

    clock.advance(60)  # nobody locked in: the game lapses
    await fake_discord.wait_for(
        lambda: "ningún jugador fijó su elección antes de que se acabara el tiempo" in board.text(),
        what="the abandoned game",
    )
