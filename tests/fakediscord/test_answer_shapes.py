"""The fake answers with Discord's shapes: the real bot through a game flow (and its
discord.py client through every other read and write it can make) against a fake that
checks each 2xx JSON answer, and the gateway's objects, against Discord's description
(``answer_shapes.py``); then the checker itself, on answers Discord would not give."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from weighted_support import Table, script_dice

from bot.app import DiceBot
from fakediscord import CallbackType, FakeDiscord, FakeGuild, Player, api_schema
from fakediscord.answer_shapes import EXCEPTIONS, answer_problems, event_problems
from fakediscord.interactions import InteractionType
from fakediscord.models import walk_components

# Every route of a game's life, and of what a bot reads: each must have been answered
# (2xx, JSON) in the flow below, so that the flow keeps covering them.
ROUTES = {
    ("GET", "/gateway/bot"),
    ("GET", "/users/@me"),
    ("GET", "/oauth2/applications/@me"),
    ("PUT", "/applications/{application_id}/commands"),
    ("GET", "/applications/{application_id}/commands"),
    ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands"),
    ("GET", "/applications/{application_id}/guilds/{guild_id}/commands"),
    ("POST", "/interactions/{interaction_id}/{interaction_token}/callback"),
    ("POST", "/webhooks/{webhook_id}/{webhook_token}"),
    ("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/@original"),
    ("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original"),
    ("POST", "/channels/{channel_id}/messages"),
    ("GET", "/channels/{channel_id}/messages"),
    ("GET", "/channels/{channel_id}/messages/{message_id}"),
    ("PATCH", "/channels/{channel_id}/messages/{message_id}"),
    ("GET", "/channels/{channel_id}"),
    ("POST", "/users/@me/channels"),
    ("GET", "/users/{user_id}"),
    ("GET", "/guilds/{guild_id}"),
    ("GET", "/guilds/{guild_id}/channels"),
    ("GET", "/guilds/{guild_id}/roles"),
    ("GET", "/guilds/{guild_id}/members/{user_id}"),
}

USER_KEYS = {
    "id",
    "username",
    "discriminator",
    "global_name",
    "avatar",
    "avatar_decoration_data",
    "banner",
    "accent_color",
    "public_flags",
    "flags",
    "collectibles",
    "primary_guild",
}


def answered(fake: FakeDiscord) -> set[tuple[str, str]]:
    """The (method, Discord route template) of every 2xx JSON answer the fake gave."""
    found = set()
    for record in fake.requests:
        matched = api_schema.match_route(record.path)
        if matched is not None and 200 <= record.status < 300 and record.response is not None:
            found.add((record.method, matched[0]))
    return found


def shape_problems(fake: FakeDiscord) -> list[str]:
    return [str(p) for p in fake.problems if p.kind == "answer-shape"]


def callback_answers(fake: FakeDiscord, kind: int) -> list[dict[str, Any]]:
    """The with_response bodies of the callbacks of one type."""
    return [
        r.response
        for r in fake.requests
        if r.route == "/interactions/{interaction_id}/{token}/callback"
        and r.status == 200
        and isinstance(r.body, dict)
        and r.body.get("type") == kind
    ]


def bot_interaction(bot: DiceBot, payload: dict[str, Any]) -> discord.Interaction[Any]:
    """An interaction the bot already answered, as its discord.py builds it from
    INTERACTION_CREATE: to reach its token's routes (@original, follow-ups) the way a
    handler does."""
    return discord.Interaction(data=payload, state=bot._connection)  # type: ignore[arg-type]


async def test_a_game_flow_gets_only_discord_shaped_answers(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    make_member: Any,
) -> None:
    fake = fake_discord
    assert fake.check_answers
    names = ("hugo", "rosa", "rudi", "xena", "yann", "zora")
    players = [await make_member(name) for name in names]
    hugo, rosa, rudi, xena = players[:4]

    # A Weighted Dice table: /weighted new (a message answer), Join and Start (the message
    # updated), the house's panel (an ephemeral answer with selects), a bet: its modal and
    # the submission.
    table = Table(fake, running_bot, players)
    script_dice(running_bot, [20] + [1] * (len(players) - 1))
    await table.open()
    await table.setup_round(hugo, (rosa, rudi), (20, 4))
    opened = await table.open_bet(xena, 0)
    assert opened.type is CallbackType.MODAL and opened.modal is not None
    placed = await xena.submit_modal(opened, amount="5")
    assert placed.message is not None and "You bet" in placed.text()
    await xena.say(guild.default_channel, "good luck")

    # /help: a message with Unicode emoji buttons.
    helped = await hugo.slash("help")
    assert helped.message is not None

    # Through the bot's discord.py: a follow-up (wait=true) and @original, read and edited.
    interaction = bot_interaction(running_bot, helped.interaction.payload)
    original = await interaction.original_response()
    assert original.id == helped.message.id
    await interaction.edit_original_response(content="help, edited")
    followup = await interaction.followup.send("a follow-up", wait=True)
    assert followup.interaction_metadata is not None
    assert followup.interaction_metadata.original_response_message_id == helped.message.id

    # Channel messages, a reaction, a DM, and every read.
    channel = running_bot.get_channel(guild.default_channel.id)
    assert isinstance(channel, discord.TextChannel)
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="Roll", emoji="🎲", custom_id="shapes:roll"))
    sent = await channel.send("shapes", view=view)
    view.stop()
    await sent.add_reaction("🎲")
    await sent.edit(content="shapes, edited")
    fetched = await channel.fetch_message(sent.id)
    assert [str(r.emoji) for r in fetched.reactions] == ["🎲"]
    assert [m.id async for m in channel.history(limit=1)] == [sent.id]
    await running_bot.fetch_channel(channel.id)
    user = await running_bot.fetch_user(rosa.id)
    dm = await user.create_dm()
    await dm.send("a private word")
    fetched_guild = await running_bot.fetch_guild(guild.id)
    await fetched_guild.fetch_channels()
    await fetched_guild.fetch_roles()
    await fetched_guild.fetch_member(rosa.id)
    await running_bot.tree.fetch_commands(guild=discord.Object(guild.id))
    # The sync a production bot (no DEV_GUILD_ID) makes: global commands.
    assert await running_bot.tree.sync()
    await running_bot.tree.fetch_commands()
    await running_bot.http.get_bot_gateway()

    assert answered(fake) >= ROUTES, sorted(ROUTES - answered(fake))
    assert shape_problems(fake) == []

    # What the description asked of the fake, seen in the answers themselves.
    modal_answer = callback_answers(fake, 9)[0]
    assert set(modal_answer) == {"interaction"}
    assert set(modal_answer["interaction"]) == {"id", "type"}
    slash_answer = callback_answers(fake, 4)[0]
    assert slash_answer["resource"]["type"] == 4
    assert slash_answer["interaction"]["response_message_id"] == str(table.message_id)

    board = table.message.payload()
    assert board["interaction"]["name"] == "weighted new"
    assert board["interaction_metadata"]["type"] == int(InteractionType.APPLICATION_COMMAND)
    assert "interacted_message_id" not in board["interaction_metadata"]
    assert "original_response_message_id" not in board["interaction_metadata"]
    assert set(board["author"]) == USER_KEYS | {"bot"} and board["author"]["bot"] is True
    every = list(walk_components(board["components"]))
    assert every and all(isinstance(c["id"], int) for c in every)
    # A Unicode emoji is its name alone; a custom one would have its id.
    help_message = fake.message(helped.message.id).payload()
    emojis = [c["emoji"] for c in walk_components(help_message["components"]) if "emoji" in c]
    assert emojis and all(set(e) == {"name"} for e in emojis), emojis

    bet = placed.message.payload()
    metadata = bet["interaction_metadata"]
    assert metadata["type"] == int(InteractionType.MODAL_SUBMIT)
    assert metadata["user"]["id"] == str(xena.id) and "bot" not in metadata["user"]
    assert set(metadata["user"]) == USER_KEYS
    trigger = metadata["triggering_interaction_metadata"]
    assert trigger["type"] == int(InteractionType.COMPONENT)
    assert trigger["interacted_message_id"] == str(table.message_id)
    assert "interaction" not in bet  # the older object is a command's alone

    global_syncs = fake.requests_to("/applications/{application_id}/commands", "PUT")
    synced = [c for r in global_syncs for c in r.response]
    # What a command declared, else the app's configured install: the server one.
    declared = [c.get("integration_types") or [0] for r in global_syncs for c in r.body]
    assert synced and [c["integration_types"] for c in synced] == declared
    assert all(None not in (c.get("options"), c.get("dm_permission")) for c in synced)
    guild_synced = [
        c
        for r in fake.requests_to(
            "/applications/{application_id}/guilds/{guild_id}/commands", "PUT"
        )
        for c in r.response
    ]
    assert guild_synced and all("integration_types" not in c for c in guild_synced)

    reaction = fake.requests_to("/channels/{channel_id}/messages/{message_id}", "GET")[-1]
    # A reaction's emoji keeps its null id: Discord's Emoji object (and its description).
    assert reaction.response["reactions"][0]["emoji"] == {"id": None, "name": "🎲"}


# -- the checker ------------------------------------------------------------------------


def user(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "80351110224678912",
        "username": "nelly",
        "discriminator": "0",
        "global_name": "Nelly",
        "avatar": None,
        "avatar_decoration_data": None,
        "banner": None,
        "accent_color": None,
        "public_flags": 0,
        "flags": 0,
        "collectibles": None,
        "primary_guild": None,
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not ...}


def message(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "1300000000000000001",
        "channel_id": "1300000000000000002",
        "author": user(),
        "content": "hello",
        "timestamp": "2025-01-01T00:00:00+00:00",
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": [],
        "embeds": [],
        "components": [
            {
                "type": 1,
                "id": 1,
                "components": [
                    {
                        "type": 2,
                        "id": 2,
                        "style": 1,
                        "custom_id": "roll",
                        "emoji": {"name": "🎲"},
                    }
                ],
            }
        ],
        "pinned": False,
        "type": 0,
        "flags": 0,
    }
    data.update(changes)
    return data


SEND = ("POST", "/channels/1300000000000000002/messages", 200)


def test_the_checker_passes_discord_shapes() -> None:
    assert answer_problems(*SEND, message()) == []
    assert event_problems("MESSAGE_CREATE", message()) == []
    assert answer_problems("GET", "/users/80351110224678912", 200, user()) == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (message(author=user(primary_guild=...)), "author.primary_guild"),
        (message(author=user(flags=...)), "author.flags"),
        (message(components=[{"type": 1, "components": []}]), "components.0.id"),
        (
            message(
                components=[
                    {
                        "type": 1,
                        "id": 1,
                        "components": [
                            {
                                "type": 2,
                                "id": 2,
                                "style": 1,
                                "custom_id": "roll",
                                "emoji": {"id": None, "name": "🎲"},
                            }
                        ],
                    }
                ]
            ),
            "components.0.components.0.emoji.id",
        ),
        (message(edited_timestamp=...), "edited_timestamp"),
    ],
)
def test_the_checker_names_the_field_discord_would_not_send(body: Any, field: str) -> None:
    body = {k: v for k, v in body.items() if v is not ...}
    # Checked after a valid message of the same structure: remembering valid shapes
    # must not let a broken one through.
    assert answer_problems(*SEND, message()) == []
    problems = answer_problems(*SEND, body)
    assert problems and all(
        p.startswith("POST /channels/{channel_id}/messages 200: ") for p in problems
    )
    assert any(f" {field}: " in p for p in problems), problems
    assert any(f" {field}: " in p for p in event_problems("MESSAGE_CREATE", body)), field


def test_the_checker_knows_what_discord_leaves_out() -> None:
    callback = ("POST", "/interactions/1300000000000000003/token/callback", 200)
    modal = {"interaction": {"id": "1300000000000000003", "type": 3}}
    assert answer_problems(*callback, modal) == []
    with_null = {"interaction": {**modal["interaction"], "response_message_id": None}}
    assert any(
        "interaction.response_message_id" in p for p in answer_problems(*callback, with_null)
    )
    command = {
        "id": "1300000000000000004",
        "application_id": "1300000000000000005",
        "version": "1300000000000000004",
        "default_member_permissions": None,
        "type": 1,
        "name": "ping",
        "description": "Check that the bot is awake.",
    }
    sync = ("PUT", "/applications/1300000000000000005/commands", 200)
    assert answer_problems(*sync, [command]) == []
    problems = answer_problems(*sync, [{**command, "integration_types": None}])
    assert any("0.integration_types" in p for p in problems), problems
    problems = answer_problems(*sync, [{**command, "default_member_permissions": 8}])
    assert any("0.default_member_permissions" in p for p in problems), problems


def test_each_exception_names_its_source() -> None:
    for exception in EXCEPTIONS:
        assert exception.why and exception.source and exception.code


def test_a_player_sees_the_same_user_shape_everywhere(
    fake_discord: FakeDiscord, alice: Player
) -> None:
    payload = alice.user.payload()
    assert set(payload) == USER_KEYS and "bot" not in payload
    assert set(fake_discord.bot_user.payload()) == USER_KEYS | {"bot"}
