"""The shared answers (challenges, refusals, option checks, stale controls) in each
player's own language, end to end on the fake Discord: a Spanish and a French client on an
English server each read their own, and the game's public message stays in English."""

from __future__ import annotations

from fakediscord import CallbackType, FakeDiscord, FakeGuild, Player
from knucklebones_support import board_turn

from bot.app import DiceBot


async def test_refusals_speak_each_players_language(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
) -> None:
    carla = await fake_discord.add_member(guild, "carla", locale="es-ES")
    claude = await fake_discord.add_member(guild, "claude", locale="fr")

    challenge = await alice.slash("knucklebones challenge", opponent=bob, first="me")
    board = challenge.message
    assert board is not None
    # The public challenge speaks the server's language (English here).
    assert board.labels() == ["Accept", "Decline"]
    assert f"{bob.mention}, accept or decline" in board.content

    refused = await carla.click(board, "Accept")
    assert refused.ephemeral
    assert refused.text() == f"Este desafío es para {bob.mention}, no para ti."
    refused = await claude.click(board, "Decline")
    assert refused.ephemeral
    assert refused.text() == f"Ce défi est pour {bob.mention}, pas pour toi."
    refused = await alice.click(board, "Accept")
    assert refused.text() == "You can't accept your own challenge: wait for your opponent."

    accepted = await bob.click(board, "Accept")
    assert accepted.type is CallbackType.UPDATE_MESSAGE
    await fake_discord.wait_for(lambda: board_turn(board) == 1, what="the board")

    # Someone else's game, in the channel where carla wants to play: in Spanish.
    busy = await carla.slash("knucklebones challenge", opponent=alice)
    assert busy.ephemeral
    assert busy.text() == (
        "Alice ya tiene una partida abierta en este canal (Knucklebones). Primero debe "
        "terminarla o rendirse; si no, juega en otro canal."
    )


async def test_option_refusals_name_the_option_in_the_players_language(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    carla = await fake_discord.add_member(guild, "carla", locale="es-419")
    claude = await fake_discord.add_member(guild, "claude", locale="fr")
    answer = await carla.slash("duel ai", modified_client=True, hp=500)
    assert answer.ephemeral and answer.text() == "`pv` debe estar entre 10 y 150."
    answer = await claude.slash("duel ai", modified_client=True, hp=9)
    assert answer.ephemeral and answer.text() == "`pv` doit être compris entre 10 et 150."
