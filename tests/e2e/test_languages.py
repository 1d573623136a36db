"""Every player in their own language: the command picker, and which language each text
speaks (the player's for their own answers and DMs, the game's for public messages)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import discord
from fakediscord import FakeDiscord, FakeGuild, Player

from bot import i18n
from bot.app import DiceBot
from bot.i18n import _

SHIPPED_LOCALES = {
    locale for code in i18n.TRANSLATED for locale in i18n.LANGUAGES[code].discord_locales
}


def _walk(item: dict[str, Any], where: str) -> Iterator[tuple[str, dict[str, Any], bool]]:
    """(where, item, is_choice) for a command, every option and every choice under it."""
    yield where, item, False
    for option in item.get("options") or []:
        yield from _walk(option, f"{where} {option['name']}")
    for choice in item.get("choices") or []:
        yield f"{where} = {choice['name']}", choice, True


async def test_the_command_sync_sends_names_and_descriptions_in_every_shipped_language(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    checked = 0
    for command in fake_discord.commands.in_scope(guild.id):
        for where, item, is_choice in _walk(command.data, f"/{command.name}"):
            names = item.get("name_localizations") or {}
            assert set(names) == SHIPPED_LOCALES, f"{where}: name_localizations {names}"
            if not is_choice:
                descriptions = item.get("description_localizations") or {}
                assert set(descriptions) == SHIPPED_LOCALES, f"{where}: descriptions"
                assert all(descriptions.values())
            checked += 1
    assert checked > 50
    knucklebones = fake_discord.commands.find("knucklebones", guild)
    assert knucklebones is not None
    challenge = next(o for o in knucklebones.data["options"] if o["name"] == "challenge")
    assert challenge["name_localizations"]["es-ES"] == "desafiar"
    assert challenge["name_localizations"]["es-419"] == "desafiar"
    assert challenge["name_localizations"]["fr"] == "défier"
    # English clients see the default names: no en-GB copy of them.
    assert "en-GB" not in challenge["name_localizations"]


async def test_a_server_chooses_the_language_of_its_game_messages(
    running_bot: DiceBot, make_member: Any, alice: Player, bob: Player, carol: Player
) -> None:
    admin = await make_member("admin", permissions=discord.Permissions(manage_guild=True))
    before = await alice.slash("knucklebones challenge", opponent=bob)
    assert before.message is not None and "challenges" in before.message.content

    answer = await admin.slash("dicebot settings", language="es")
    assert answer.ephemeral
    assert "Language of game messages → Español" in answer.text()
    # The admin's own client is in English: their answer is; the games now speak Spanish.
    spanish = await carol.slash("knucklebones ai")
    assert spanish.message is not None
    with i18n.use("es"):
        spanish_buttons = [i18n.unpseudo(_("Column {column}")).format(column=n) for n in (1, 2, 3)]
    await running_bot.publisher.settled()
    assert [b["label"] for b in spanish.message.buttons()] == spanish_buttons
    # A game keeps the language it started in: alice's challenge is still English.
    accepted = await bob.click(before.message, "Accept")
    assert accepted.message is before.message
    assert "Column 1" in before.message.labels()

    shown = await admin.slash("dicebot settings")
    assert "**Language of game messages**: Español (`language`)" in shown.text()
    await admin.slash("dicebot settings", language="server")
    shown = await admin.slash("dicebot settings")
    assert "the server's own language (now English)" in shown.text()


async def test_a_language_the_bot_does_not_speak_is_refused_and_nothing_changes(
    running_bot: DiceBot, make_member: Any
) -> None:
    admin = await make_member("admin", permissions=discord.Permissions(manage_guild=True))
    answer = await admin.slash("dicebot settings", modified_client=True, language="xx")
    assert answer.ephemeral
    assert "`language` must be one of" in answer.text()
    settings = await running_bot.sessions.guild_settings(admin.home.id)  # type: ignore[union-attr]
    assert settings.language is None
