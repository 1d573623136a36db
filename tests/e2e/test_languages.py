"""Every player in their own language: the command picker, and which language each text
speaks (the player's for their own answers and DMs, the game's for public messages)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fakediscord import FakeDiscord, FakeGuild

from bot import i18n
from bot.app import DiceBot

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
