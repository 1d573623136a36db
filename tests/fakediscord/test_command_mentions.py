"""Application command ids and command mentions, as Discord hands them out and shows them:
a bulk overwrite keeps a command's id (a new version only when it changed), a read leaves
the localizations out unless asked for them, and a mention in a message is shown in each
reader's client language where Discord renders one, and recorded as a problem where a
reader would see its raw characters."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from fakediscord import FakeDiscord, FakeGuild, Player

SPANISH = {"es-ES": "clasificación"}
KNUCKLEBONES: dict[str, Any] = {
    "name": "knucklebones",
    "description": "Play Knucklebones.",
    "options": [
        {
            "type": 1,
            "name": "challenge",
            "description": "Challenge a player.",
            "name_localizations": {"es-ES": "desafiar", "fr": "défier"},
            "description_localizations": {"fr": "Défier un joueur."},
        },
        {"type": 1, "name": "ai", "description": "Play the bot.", "name_localizations": {}},
    ],
}
LEADERBOARD: dict[str, Any] = {
    "name": "leaderboard",
    "description": "This server's ladder.",
    "name_localizations": SPANISH,
}
DICEBOT: dict[str, Any] = {
    "name": "dicebot",
    "description": "Set up the bot.",
    "options": [
        {
            "type": 2,
            "name": "season",
            "description": "Seasons.",
            "options": [{"type": 1, "name": "list", "description": "Every season."}],
        }
    ],
}


async def send(fake: FakeDiscord, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bot {fake.token}"}
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, f"{fake.api_base}{path}", json=body, headers=headers) as response,
    ):
        text = await response.text()
        return response.status, json.loads(text) if text else None


def commands_path(fake: FakeDiscord, guild: FakeGuild) -> str:
    return f"/applications/{fake.application_id}/guilds/{guild.id}/commands"


def has_localizations(item: Any) -> bool:
    if isinstance(item, list):
        return any(has_localizations(child) for child in item)
    if not isinstance(item, dict):
        return False
    if "name_localizations" in item or "description_localizations" in item:
        return True
    return has_localizations(item.get("options") or [])


async def test_a_sync_keeps_each_commands_id_and_a_read_leaves_localizations_out(
    fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    path = commands_path(fake_discord, guild)
    status, synced = await send(fake_discord, "PUT", path, [KNUCKLEBONES, LEADERBOARD])
    assert status == 200
    ids = {command["name"]: command["id"] for command in synced}
    versions = {command["name"]: command["version"] for command in synced}
    assert has_localizations(synced)  # a sync answers the commands in full

    status, read = await send(fake_discord, "GET", path)
    assert status == 200
    assert {command["name"]: command["id"] for command in read} == ids
    assert not has_localizations(read)
    status, full = await send(fake_discord, "GET", path + "?with_localizations=true")
    assert full[1]["name_localizations"] == SPANISH
    assert full[0]["options"][0]["name_localizations"]["fr"] == "défier"

    # The same commands again: same ids, same versions; a changed one: a new version.
    changed = {**LEADERBOARD, "description": "The ladder of this server."}
    status, again = await send(fake_discord, "PUT", path, [KNUCKLEBONES, changed])
    assert {command["name"]: command["id"] for command in again} == ids
    assert again[0]["version"] == versions["knucklebones"]
    assert again[1]["version"] != versions["leaderboard"]
    assert fake_discord.commands.id_of("leaderboard", guild.id) == int(ids["leaderboard"])


async def post(fake: FakeDiscord, guild: FakeGuild, body: dict[str, Any]) -> None:
    status, _ = await send(fake, "POST", f"/channels/{guild.default_channel.id}/messages", body)
    assert status == 200


async def test_a_mention_reads_in_each_readers_language(
    fake_discord: FakeDiscord, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    alice.user.locale = "es-ES"
    bob.user.locale = "fr"
    _, synced = await send(
        fake_discord, "PUT", commands_path(fake_discord, guild), [KNUCKLEBONES, LEADERBOARD]
    )
    knucklebones, leaderboard = (command["id"] for command in synced)
    await post(
        fake_discord,
        guild,
        {
            "content": f"Use </knucklebones challenge:{knucklebones}> or "
            f"</knucklebones ai:{knucklebones}>.",
            "embeds": [{"type": "rich", "description": f"See </leaderboard:{leaderboard}>."}],
        },
    )
    message = guild.default_channel.last_message()
    assert message is not None
    assert alice.reads(message) == (
        "Use /knucklebones desafiar or /knucklebones ai.\nSee /clasificación."
    )
    assert bob.reads(message) == "Use /knucklebones défier or /knucklebones ai.\nSee /leaderboard."
    assert fake_discord.problems == []


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"content": "</knucklebones ai:{other}>"}, "content: </knucklebones ai:"),
        ({"content": "</knucklebones forfeit:{kb}>"}, "content: </knucklebones forfeit:"),
        ({"content": "</leaderboard:{kb}>"}, "content: </leaderboard:"),
        ({"content": "</knucklebones:{kb}>"}, "content: </knucklebones:"),
        ({"content": "</dicebot season:{dicebot}>"}, "content: </dicebot season:"),
        (
            {"embeds": [{"type": "rich", "footer": {"text": "</knucklebones ai:{kb}> to play"}}]},
            "embed 0 footer: </knucklebones ai:",
        ),
        (
            {"embeds": [{"type": "rich", "title": "</knucklebones ai:{kb}>"}]},
            "embed 0 title: </knucklebones",
        ),
        (
            {
                "embeds": [
                    {
                        "type": "rich",
                        "fields": [
                            {"name": "</knucklebones ai:{kb}>", "value": "v", "inline": False}
                        ],
                    }
                ]
            },
            "embed 0 field 0 name: </knucklebones ai:",
        ),
    ],
    ids=[
        "unknown-id",
        "no-such-subcommand",
        "another-commands-name",
        "a-command-with-subcommands",
        "a-group",
        "footer",
        "title",
        "field-name",
    ],
)
async def test_a_mention_a_reader_would_see_as_raw_text_is_a_problem(
    fake_discord: FakeDiscord, guild: FakeGuild, body: dict[str, Any], problem: str
) -> None:
    _, synced = await send(
        fake_discord, "PUT", commands_path(fake_discord, guild), [KNUCKLEBONES, DICEBOT]
    )
    ids = {"{kb}": synced[0]["id"], "{dicebot}": synced[1]["id"], "{other}": "12345"}
    text = json.dumps(body)
    for placeholder, command_id in ids.items():
        text = text.replace(placeholder, command_id)
    await post(fake_discord, guild, json.loads(text))
    found = fake_discord.take_problems("command-mention")
    assert len(found) == 1 and found[0].detail.startswith(problem), found


async def test_a_mention_of_a_subcommand_in_a_group_is_fine(
    fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    _, synced = await send(fake_discord, "PUT", commands_path(fake_discord, guild), [DICEBOT])
    await post(fake_discord, guild, {"content": f"</dicebot season list:{synced[0]['id']}>"})
    message = guild.default_channel.last_message()
    assert message is not None and alice.reads(message) == "/dicebot season list"
    assert fake_discord.problems == []
