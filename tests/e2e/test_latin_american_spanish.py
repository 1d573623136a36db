"""Latin American Spanish end to end on the fake Discord: the command picker offers es-419
its own names, a player whose client asks for es-419 gets Latin American answers while a
Spain client on the same server gets Spain's, a server whose Discord language is es-419
runs its tables in it, and a server set to "es" (before es-419 existed) stays es-ES."""

from __future__ import annotations

import os

import discord
import pytest
from fakediscord import FakeDiscord, FakeGuild
from weighted_support import Table

from bot import i18n
from bot.app import DiceBot
from bot.i18n import PSEUDO_ENV

MANAGE = discord.Permissions(manage_guild=True)

pytestmark = [
    pytest.mark.skipif("es-419" not in i18n.LANGUAGES, reason="es-419 is not shipped"),
    pytest.mark.skipif(
        os.environ.get(PSEUDO_ENV) == "1", reason="reads the Spanish texts themselves"
    ),
]


async def test_the_picker_and_the_answers_follow_each_spanish_client(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    dicebot = fake_discord.commands.find("dicebot", guild)
    assert dicebot is not None
    settings = next(o for o in dicebot.data["options"] if o["name"] == "settings")
    assert settings["name_localizations"]["es-419"] == "configuración"
    assert settings["name_localizations"]["es-ES"] == "ajustes"

    lucia = await fake_discord.add_member(guild, "lucia", locale="es-419")
    pablo = await fake_discord.add_member(guild, "pablo", locale="es-ES")
    latam = await lucia.slash("dicebot settings", challenge_expiry=120)
    spain = await pablo.slash("dicebot settings", challenge_expiry=120)
    assert latam.ephemeral and spain.ephemeral
    assert latam.text() == (
        "Solo los miembros con el permiso **Administrar servidor** pueden ver o cambiar la "
        "configuración de Dicebot."
    )
    assert spain.text() == (
        "Solo los miembros con el permiso **Gestionar servidor** pueden ver o cambiar los "
        "ajustes de Dicebot."
    )


async def test_a_latin_american_server_runs_its_table_in_es_419_until_set_to_es(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, make_member
) -> None:
    guild.locale = "es-419"
    players = [await make_member(name) for name in ("ana", "beto", "caro", "dani", "eva")]
    table = Table(fake_discord, running_bot, players, language="es-419")
    await table.open_lobby()
    lobby = table.text()
    assert "Presiona **Unirse** para ocupar un asiento" in lobby
    assert "Pulsa" not in lobby

    # The server chose "es" back when "es" meant every Spanish: it keeps Spain's Spanish.
    admin = await fake_discord.add_member(guild, "admin", permissions=MANAGE)
    await admin.slash("dicebot settings", language="es")
    spanish = await fake_discord.add_member(guild, "sara")
    opened = await spanish.slash("weighted new")
    assert opened.message is not None and not opened.ephemeral
    assert "Pulsa **Unirse** para ocupar un asiento" in opened.message.text()
