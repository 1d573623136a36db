"""The admin commands in the player's language, end to end on the fake Discord: an admin
whose Discord speaks Spanish sees /dicebot settings and a new season's confirmation in
Spanish, a French player's /dicebot check answers in French, and an English admin on the
same server still reads English."""

from __future__ import annotations

import os

import discord
import pytest
from fakediscord import FakeDiscord, FakeGuild

from bot.app import DiceBot
from bot.i18n import PSEUDO_ENV

MANAGE = discord.Permissions(manage_guild=True)

pytestmark = pytest.mark.skipif(
    os.environ.get(PSEUDO_ENV) == "1", reason="reads the Spanish and French texts themselves"
)


def embed_text(player_answer: object) -> str:
    message = getattr(player_answer, "message", None)
    assert message is not None and message.embed is not None
    embed = message.embed
    footer = embed.get("footer") or {}
    return "\n".join(
        [str(embed.get("title", "")), str(embed.get("description", "")), str(footer.get("text"))]
    )


async def test_settings_answer_in_the_admins_language(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    spanish = await fake_discord.add_member(guild, "ana", permissions=MANAGE, locale="es-ES")
    english = await fake_discord.add_member(guild, "ed", permissions=MANAGE)
    answer = await spanish.slash("dicebot settings", challenge_expiry=120, provisional_games=1)
    assert answer.ephemeral
    text = embed_text(answer)
    assert "⚙️ Ajustes de Dicebot en este servidor" in text
    assert "✅ Guardado: Caducidad de los desafíos → 120 s (2 min) y " in text
    assert "Umbral de partidas provisionales → 1 partida." in text
    assert "**Tiempo por turno (Knucklebones)**: 300 s (5 min) (`tiempo_turno`, 30–86400)" in text
    assert "Cambia uno con /dicebot ajustes <opción>:<valor>." in text

    refused = await spanish.slash("dicebot settings", betting_window=1)
    assert refused.text() == (
        "No se ha cambiado nada. **Tiempo de apuestas (Weighted Dice)** debe estar entre 5 y "
        "600 segundos (has puesto 1)."
    )
    # The same server, an English client: English.
    assert "**Challenge expiry**: 120 s (2 min) · *changed*" in embed_text(
        await english.slash("dicebot settings")
    )


async def test_a_new_season_asked_and_confirmed_in_spanish(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    admin = await fake_discord.add_member(guild, "ana", permissions=MANAGE, locale="es-419")
    member = await fake_discord.add_member(guild, "beto", locale="es-ES")
    refused = await member.slash("dicebot season new", name="Verano")
    assert refused.text() == (
        "Solo los miembros con el permiso **Gestionar servidor** pueden empezar una nueva "
        "temporada."
    )
    asked = await admin.slash("dicebot season new", name="Verano", game="knucklebones")
    assert asked.message is not None
    assert asked.message.labels() == ["Cerrar la temporada", "Mantenerla"]
    question = asked.text()
    assert question.startswith("⚠️ **¿Cerrar la temporada actual y empezar una nueva?**\n")
    assert "• **Knucklebones**: Temporada 1 (0 jugadores) → **Temporada 2 · Verano**" in question
    # The admin's client asks for Latin American Spanish: « vence », not Spain's « caduca ».
    assert question.endswith("Esta confirmación vence en 5 min.")

    done = await admin.click(asked.message, "Cerrar la temporada")
    closed = (await done.final_message()).text()
    assert closed.startswith("🏁 **Nueva temporada en marcha.**\n")
    assert (
        "• **Knucklebones**: Temporada 1 cerrada sin partidas entre jugadores; "
        "**Temporada 2 · Verano** comenzó." in closed
    )

    listed = await member.slash("dicebot season list", game="knucklebones")
    text = embed_text(listed)
    assert "🗓️ Temporadas de este servidor" in text
    assert "La clasificación final de una temporada cerrada: /clasificación juego:<juego>" in text


async def test_check_answers_in_french(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    camille = await fake_discord.add_member(guild, "camille", locale="fr")
    answer = await camille.slash("dicebot check")
    final = (await answer.final_message()).text()
    assert final.startswith("✅ J'ai toutes les permissions dont j'ai besoin dans ce salon.\n")
    assert final.endswith(
        "✅ Je peux t'envoyer des MP, donc tes coups secrets t'arriveront en privé."
    )
    dm = camille.last_dm()
    assert dm is not None
    assert dm.text() == (
        "👋 Les MP fonctionnent\u00a0: tes coups secrets (Diceman, Dimension Duel) arriveront ici."
    )
