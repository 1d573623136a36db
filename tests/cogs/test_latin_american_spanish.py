"""Latin American Spanish (es-419) is its own catalog beside Spain's (es): a client that
asks for es-419 reads ustedes, « presionar », « elegir » and Discord's Latin American
wording; a Spain client still reads Spain's Spanish; a language stored as "es" (a server
setting, a player's DM language) keeps meaning Spain's."""

from __future__ import annotations

import re

import discord
import pytest

from bot import i18n
from bot.i18n import _
from cogs.odds import cog as odds
from tools import glossary

LATAM, SPAIN = "es-419", "es"

pytestmark = pytest.mark.skipif(LATAM not in i18n.LANGUAGES, reason="es-419 is not shipped")


def said(language: str, english: str) -> str:
    with i18n.use(language):
        return i18n.unpseudo(_(english))


def embed_text(embed: discord.Embed) -> str:
    parts = [embed.title or "", embed.description or "", embed.footer.text or ""]
    parts += [f"{field.name}\n{field.value}" for field in embed.fields]
    return i18n.unpseudo("\n".join(parts))


def test_each_spanish_client_gets_its_own_catalog() -> None:
    assert i18n.resolve(discord.Locale.latin_american_spanish) == LATAM
    assert i18n.resolve(discord.Locale.spain_spanish) == SPAIN
    # A server set to "es", or a player stored as "es", before es-419 existed: still Spain's.
    assert i18n.resolve("es") == SPAIN
    assert i18n.LANGUAGES[SPAIN].discord_locales == ("es-ES",)
    assert i18n.LANGUAGES[LATAM].discord_locales == ("es-419",)
    # Numbers as CLDR (and ICU: Intl.NumberFormat("es-419")) writes them: Latin America
    # groups thousands with a comma from four digits, Spain with a dot from five.
    with i18n.use(LATAM):
        assert (i18n.number(1234), i18n.number(12345)) == ("1,234", "12,345")
    with i18n.use(SPAIN):
        assert (i18n.number(1234), i18n.number(12345)) == ("1234", "12.345")


def test_odds_diceman_never_says_coger_nor_vosotros_in_latin_america() -> None:
    with i18n.use(LATAM):
        latam = embed_text(odds.diceman_embed())
    with i18n.use(SPAIN):
        spain = embed_text(odds.diceman_embed())
    # Issue 29 item 2: "nunca cojas Prioridad" and "quedáis igualados" reached es-419.
    assert "cojas" not in latam and "quedáis" not in latam
    assert re.search(r"nunca elijas \*\*\w+\*\*", latam), latam
    assert "quedan igualados" in latam or "igualad" not in latam
    assert "en promedio" in latam and "de media" not in latam
    assert latam != spain


def test_buttons_permissions_and_bets_speak_latin_american_spanish() -> None:
    # Press: « presiona » (Spain: « pulsa »); the public table addresses everyone as ustedes.
    press = "Ready: {host} can press **Start**."
    assert said(LATAM, press) == "Listo: {host} puede presionar **Empezar**."
    assert said(SPAIN, press) == "Listo: {host} puede pulsar **Empezar**."
    bets = said(
        LATAM,
        "🎲 **Weighted Dice**, round {round}: **{first}** ({first_die}) against **{second}** "
        "({second_die}): place your bets.",
    )
    assert bets.endswith("hagan sus apuestas.")
    # Discord's own Latin American names for its permissions and settings.
    assert said(LATAM, "Manage Server") == "Administrar servidor"
    assert said(SPAIN, "Manage Server") == "Gestionar servidor"
    with i18n.use(LATAM):
        assert i18n.translate_in(LATAM, "settings", "command name") == "configuración"
        assert i18n.translate_in(LATAM, "challenge", "command name") == "desafiar"


def test_no_latin_american_text_uses_a_spain_only_word() -> None:
    words = glossary.load().regional[LATAM]
    found = [
        f"{message.label!r}: {text!r} uses {word!r}"
        for message in glossary.translated(LATAM)
        for text in message.translations
        for word, _why in words
        if glossary.uses(text, [word])
    ]
    assert found == []
    # The check itself: it would catch Spain's own catalog.
    spain = [
        word
        for message in glossary.translated(SPAIN)
        for text in message.translations
        for word, _why in words
        if glossary.uses(text, [word])
    ]
    assert "puls*" in spain
