"""The fake speaks user installs as Discord does: DMs between users, group DMs and servers
that never added the bot; commands a user installed, offered only where their
``integration_types`` and ``contexts`` allow; the interactions' ``context``,
``authorizing_integration_owners``, ``app_permissions`` and partial channel and guild, as
discord.py reads them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.model.clock import ManualClock
from fakediscord import (
    BotHarness,
    CallbackType,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUsageError,
    Player,
)
from fakediscord.probe import Attempt, Counter, ProbeBot, ProbeLog, install_commands
from fakediscord.test_discord_checks import refused, send


def install_anywhere_commands(tree: app_commands.CommandTree[Any], log: ProbeLog) -> None:
    @tree.command(name="anywhere", description="Answer anywhere, with a Press button")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def anywhere(interaction: discord.Interaction) -> None:
        log.interactions.append(interaction)
        await interaction.response.send_message("presses 0", view=Counter(log))

    @tree.command(name="mine", description="Only for those who installed me")
    @app_commands.allowed_installs(guilds=False, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=False, private_channels=True)
    async def mine(interaction: discord.Interaction) -> None:
        log.interactions.append(interaction)
        await interaction.response.send_message("yours")

    @tree.command(name="send-here", description="Answer, then post in the channel")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def send_here(interaction: discord.Interaction) -> None:
        log.interactions.append(interaction)
        await interaction.response.send_message("answered")
        channel = interaction.channel
        assert isinstance(channel, discord.abc.Messageable)
        try:
            await channel.send("posted by the channel route")
        except discord.HTTPException as error:
            log.add(Attempt("channel-send", error))
        else:
            log.add(Attempt("channel-send"))


class AnywhereProbe(ProbeBot):
    """The probe with commands installable to users and usable anywhere."""

    async def setup_hook(self) -> None:
        self.add_view(Counter(self.log))
        install_commands(self.tree, self.log, self)
        install_anywhere_commands(self.tree, self.log)
        await self.tree.sync()


@pytest.fixture
async def anywhere(fake_discord: FakeDiscord, guild: FakeGuild) -> AsyncIterator[AnywhereProbe]:
    harness = BotHarness(fake_discord, AnywhereProbe)
    await harness.start()
    bot = harness.bot
    assert isinstance(bot, AnywhereProbe)
    yield bot
    assert await harness.stop() == []


async def test_a_dm_between_two_users_reaches_the_bot_through_a_users_install(
    anywhere: AnywhereProbe,
    fake_discord: FakeDiscord,
    dm_between: Callable[[Player, Player], FakeChannel],
    alice: Player,
    bob: Player,
) -> None:
    dm = dm_between(alice, bob)
    assert dm is fake_discord.dm_between(bob, alice)  # one DM per pair
    assert dm.type == 1 and dm.is_private_channel and not dm.bot_is_member
    with pytest.raises(FakeUsageError, match="did not install the app"):
        await alice.slash("anywhere", channel=dm)
    alice.install_app()
    answer = await alice.slash("anywhere", channel=dm)
    assert answer.type is CallbackType.MESSAGE and not answer.ephemeral
    assert answer.message in dm.messages()

    payload = answer.interaction.payload
    assert payload["context"] == 2
    assert payload["authorizing_integration_owners"] == {"1": str(alice.id)}
    assert "guild_id" not in payload and "member" not in payload
    assert payload["user"]["id"] == str(alice.id)
    assert payload["channel"]["type"] == 1
    assert [u["id"] for u in payload["channel"]["recipients"]] == [str(alice.id), str(bob.id)]
    assert payload["app_permissions"] == str(
        discord.Permissions(attach_files=True, embed_links=True, mention_everyone=True).value
    )

    # discord.py reads it: a DM channel that is not the bot's, no guild, the user install.
    seen = anywhere.log.interactions[-1]
    assert isinstance(seen.channel, discord.DMChannel)
    assert {u.id for u in seen.channel.recipients} == {alice.id, bob.id}
    assert seen.guild is None and seen.guild_id is None
    assert seen.context.private_channel and not seen.context.dm_channel
    assert seen.is_user_integration() and not seen.is_guild_integration()
    assert seen.app_permissions.embed_links and not seen.app_permissions.send_messages

    # Bob did not install the app, yet he presses on Alice's message: its owners are hers.
    pressed = await bob.click(answer.message, "Press")
    assert pressed.type is CallbackType.UPDATE_MESSAGE
    assert answer.message.content == "presses 1"
    assert pressed.interaction.payload["authorizing_integration_owners"] == {"1": str(alice.id)}
    assert pressed.interaction.payload["context"] == 2
    # The bot hears nothing of the channel itself: no MESSAGE_CREATE from a DM not its own.
    assert fake_discord.gateway.events(event="MESSAGE_CREATE") == []
    await bob.say(dm, "gg")
    assert fake_discord.gateway.events(event="MESSAGE_CREATE") == []


async def test_a_group_dm_is_a_private_channel_of_its_users_only(
    anywhere: AnywhereProbe,
    fake_discord: FakeDiscord,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    dave = fake_discord.add_user("dave")
    group = fake_discord.group_dm(alice, bob, carol, name="Dice night")
    assert group.type == 3 and not group.bot_is_member
    carol.install_app()
    answer = await carol.slash("anywhere", channel=group)
    payload = answer.interaction.payload
    assert payload["context"] == 2
    assert payload["authorizing_integration_owners"] == {"1": str(carol.id)}
    assert payload["channel"]["name"] == "Dice night"
    assert payload["channel"]["owner_id"] == str(alice.id)
    assert len(payload["channel"]["recipients"]) == 3
    seen = anywhere.log.interactions[-1]
    assert isinstance(seen.channel, discord.GroupChannel)
    assert seen.channel.name == "Dice night"

    dave.install_app()
    with pytest.raises(FakeUsageError, match="not one of the users"):
        await dave.slash("anywhere", channel=group)
    assert answer.message is not None
    with pytest.raises(FakeUsageError, match="not one of the users"):
        await dave.click(answer.message, "Press")
    await bob.click(answer.message, "Press")
    assert answer.message.content == "presses 1"


async def test_a_server_without_the_bot_sends_a_partial_guild_and_the_users_permissions(
    anywhere: AnywhereProbe,
    fake_discord: FakeDiscord,
    server_without_bot: FakeGuild,
) -> None:
    assert not server_without_bot.has_bot
    assert server_without_bot.id not in fake_discord.guilds
    erin = await server_without_bot.add_member("erin")
    frank = await server_without_bot.add_member("frank")
    # The bot heard nothing of that server: no GUILD_CREATE, no member events.
    assert all(e.guild_id != server_without_bot.id for e in fake_discord.gateway.dispatches)
    channel = server_without_bot.default_channel
    with pytest.raises(FakeUsageError, match="did not install the app"):
        await erin.slash("anywhere", channel=channel)
    with pytest.raises(FakeUsageError, match="no user install"):
        await erin.slash("answer", channel=channel)
    erin.install_app()
    with pytest.raises(FakeUsageError, match="no user install"):
        await erin.slash("answer", channel=channel)  # a server install's command only
    answer = await erin.slash("anywhere", channel=channel)
    payload = answer.interaction.payload
    assert payload["context"] == 0
    assert payload["guild_id"] == str(server_without_bot.id)
    assert payload["guild"] == {"id": str(server_without_bot.id), "locale": "en-US", "features": []}
    assert payload["member"]["user"]["id"] == str(erin.id)
    assert payload["authorizing_integration_owners"] == {"1": str(erin.id)}
    everyone = server_without_bot.everyone.permissions
    assert (
        int(payload["app_permissions"])
        == everyone | discord.Permissions(attach_files=True, embed_links=True).value
    )

    seen = anywhere.log.interactions[-1]
    assert seen.guild_id == server_without_bot.id
    assert isinstance(seen.channel, discord.TextChannel)
    assert seen.channel.name == "general"
    assert seen.is_user_integration() and not seen.is_guild_integration()
    assert seen.context.guild
    assert anywhere.get_guild(server_without_bot.id) is None  # never a cached server

    assert answer.message is not None
    await frank.click(answer.message, "Press")
    assert answer.message.content == "presses 1"
    # Only the interactions came from there, nothing else (not the answer's MESSAGE_CREATE).
    there = server_without_bot.id
    heard = {e.event for e in fake_discord.gateway.dispatches if e.guild_id == there}
    assert heard == {"INTERACTION_CREATE"}


async def test_in_a_server_with_the_bot_a_users_install_adds_its_owner(
    anywhere: AnywhereProbe, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    answer = await alice.slash("anywhere")
    assert answer.interaction.payload["authorizing_integration_owners"] == {"0": str(guild.id)}
    with pytest.raises(FakeUsageError, match="did not install the app"):
        await alice.slash("mine")
    alice.install_app()
    both = await alice.slash("anywhere")
    assert both.interaction.payload["authorizing_integration_owners"] == {
        "0": str(guild.id),
        "1": str(alice.id),
    }
    mine = await alice.slash("mine")
    assert mine.interaction.payload["authorizing_integration_owners"] == {"1": str(alice.id)}
    assert mine.interaction.payload["app_permissions"] == str(
        guild.default_channel.bot_permissions().value
    )


async def test_the_bots_own_dm_reaches_it_through_its_server_install(
    anywhere: AnywhereProbe, fake_discord: FakeDiscord, alice: Player
) -> None:
    dm = alice.open_dm()
    answer = await alice.slash("anywhere", channel=dm)
    assert answer.interaction.payload["context"] == 1
    assert answer.interaction.payload["authorizing_integration_owners"] == {"0": "0"}
    granted = discord.Permissions(int(answer.interaction.payload["app_permissions"]))
    assert granted.use_external_emojis and granted.mention_everyone and granted.send_messages
    with pytest.raises(FakeUsageError, match="contexts are"):
        await alice.slash("mine", channel=dm)
    alice.install_app()
    answer = await alice.slash("anywhere", channel=dm)
    assert answer.interaction.payload["authorizing_integration_owners"] == {
        "0": "0",
        "1": str(alice.id),
    }


async def test_a_servers_install_alone_never_reaches_a_private_channel(
    anywhere: AnywhereProbe, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    alice.install_app()
    dm = fake_discord.dm_between(alice, bob)
    # /answer declares neither a user install nor the private-channel context.
    with pytest.raises(FakeUsageError, match="its contexts are"):
        await alice.slash("answer", channel=dm)


@pytest.mark.parametrize(
    ("field", "value", "where"),
    [
        ("integration_types", [2], ("integration_types", 0)),
        ("contexts", [3], ("contexts", 0)),
        ("contexts", [], ("contexts",)),
        ("integration_types", [1, 1], ("integration_types",)),
    ],
)
async def test_a_command_with_an_unknown_install_or_context_is_refused(
    fake_discord: FakeDiscord, field: str, value: list[int], where: tuple[str | int, ...]
) -> None:
    body = [{"name": "anywhere", "description": "d", field: value}]
    status, answer = await send(
        fake_discord, "PUT", f"/applications/{fake_discord.application_id}/commands", body
    )
    refused(fake_discord, status, answer, (0, *where))


# -- where the bot is no member, channel routes are refused --------------------------------


async def test_every_channel_route_where_the_bot_is_no_member_is_missing_access(
    anywhere: AnywhereProbe,
    fake_discord: FakeDiscord,
    server_without_bot: FakeGuild,
    alice: Player,
    bob: Player,
) -> None:
    alice.install_app()
    erin = await server_without_bot.add_member("erin")
    erin.install_app()
    places = [
        (alice, fake_discord.dm_between(alice, bob)),
        (alice, fake_discord.group_dm(alice, bob)),
        (erin, server_without_bot.default_channel),
    ]
    for player, channel in places:
        answer = await player.slash("send-here", channel=channel)
        assert answer.text() == "answered"
        await anywhere.log.wait_for(lambda: len(anywhere.log.of("channel-send")) == 1)
        tried = anywhere.log.attempts.pop()
        assert isinstance(tried.error, discord.Forbidden)
        assert (tried.status, tried.code) == (403, 50001)
        assert len(fake_discord.take_problems("missing-access")) == 1
        message = answer.message
        assert message is not None and channel.messages() == [message]

        # Straight over HTTP: read, send, edit, delete, react, type: all refused.
        base = f"/channels/{channel.id}"
        attempts = [
            ("GET", base, None),
            ("GET", f"{base}/messages", None),
            ("POST", f"{base}/messages", {"content": "hi"}),
            ("GET", f"{base}/messages/{message.id}", None),
            ("PATCH", f"{base}/messages/{message.id}", {"content": "edited"}),
            ("DELETE", f"{base}/messages/{message.id}", None),
            ("PUT", f"{base}/messages/{message.id}/reactions/%F0%9F%8E%B2/@me", None),
            ("POST", f"{base}/typing", None),
        ]
        for method, path, body in attempts:
            status, refusal = await send(fake_discord, method, path, body)
            assert (status, refusal["code"]) == (403, 50001), (method, path)
        assert len(fake_discord.take_problems("missing-access")) == len(attempts)
        assert message.text() == "answered" and not message.deleted

    # The server's own routes too: it exists, the bot has no access to it.
    base = f"/guilds/{server_without_bot.id}"
    for path in (base, f"{base}/channels", f"{base}/roles", f"{base}/members/{erin.id}"):
        status, refusal = await send(fake_discord, "GET", path)
        assert (status, refusal["code"]) == (403, 50001), path
    assert len(fake_discord.take_problems("missing-access")) == 4
    commands = f"/applications/{fake_discord.application_id}{base}/commands"
    status, refusal = await send(fake_discord, "PUT", commands, [])
    assert (status, refusal["code"]) == (403, 50001)


async def test_the_bot_may_not_dm_someone_who_shares_no_server_with_it(
    anywhere: AnywhereProbe, fake_discord: FakeDiscord, server_without_bot: FakeGuild
) -> None:
    erin = await server_without_bot.add_member("erin")
    status, channel = await send(
        fake_discord, "POST", "/users/@me/channels", {"recipient_id": erin.id}
    )
    assert status == 200 and channel["type"] == 1  # opening the DM works
    path = f"/channels/{channel['id']}/messages"
    status, refusal = await send(fake_discord, "POST", path, {"content": "your move"})
    assert (status, refusal["code"]) == (403, 50007)
    erin.install_app()  # an app a user installed may DM them
    status, _ = await send(fake_discord, "POST", path, {"content": "your move"})
    assert status == 200
    assert erin.last_dm() is not None and erin.last_dm().content == "your move"


# -- the interaction token: its messages, its follow-ups, its 15 minutes -------------------


def webhook(fake: FakeDiscord, token: str, message: str | int | None = None) -> str:
    base = f"/webhooks/{fake.application_id}/{token}"
    return base if message is None else f"{base}/messages/{message}"


@pytest.mark.machine_speed("a dozen requests on one token, straight over HTTP")
async def test_a_token_edits_its_own_messages_only_for_fifteen_minutes(
    anywhere: AnywhereProbe,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    alice.install_app()
    dm = fake_discord.dm_between(alice, bob)
    first = await alice.slash("anywhere", channel=dm)
    other = await alice.slash("anywhere", channel=dm)
    board, elsewhere = first.message, other.message
    assert board is not None and elsewhere is not None
    token = first.interaction.token

    status, edited = await send(
        fake_discord,
        "PATCH",
        webhook(fake_discord, token, "@original"),
        {"content": "presses 10"},
    )
    assert status == 200 and edited["id"] == str(board.id) and board.content == "presses 10"
    status, _ = await send(
        fake_discord, "PATCH", webhook(fake_discord, token, board.id), {"content": "presses 20"}
    )
    assert status == 200 and board.content == "presses 20"
    status, posted = await send(
        fake_discord,
        "POST",
        webhook(fake_discord, token),
        {"content": "a follow-up"},
        query="?wait=true",
    )
    assert status == 200
    followup = fake_discord.message(int(posted["id"]))
    assert followup in dm.messages() and followup.interaction is first.interaction
    status, _ = await send(
        fake_discord,
        "PATCH",
        webhook(fake_discord, token, followup.id),
        {"content": "its follow-up"},
    )
    assert status == 200 and followup.content == "its follow-up"
    # A message of another interaction: not this token's.
    status, refusal = await send(
        fake_discord, "PATCH", webhook(fake_discord, token, elsewhere.id), {"content": "no"}
    )
    assert (status, refusal["code"]) == (404, 10008)
    assert elsewhere.content == "presses 0"

    # A press answered by updating the message: its token's @original is that message.
    pressed = await bob.click(board, "Press")
    assert pressed.type is CallbackType.UPDATE_MESSAGE and board.content == "presses 21"
    press_token = pressed.interaction.token
    status, _ = await send(
        fake_discord,
        "PATCH",
        webhook(fake_discord, press_token, "@original"),
        {"content": "presses 30"},
    )
    assert status == 200 and board.content == "presses 30"
    status, _ = await send(
        fake_discord,
        "PATCH",
        webhook(fake_discord, press_token, board.id),
        {"content": "presses 40"},
    )
    assert status == 200 and board.content == "presses 40"
    status, refusal = await send(
        fake_discord, "PATCH", webhook(fake_discord, press_token, followup.id), {"content": "no"}
    )
    assert (status, refusal["code"]) == (404, 10008)

    # Fifteen minutes after the command, its token is dead; the press's lives a bit longer.
    clock.advance(15 * 60 - 1)
    status, _ = await send(
        fake_discord,
        "PATCH",
        webhook(fake_discord, token, "@original"),
        {"content": "presses 50"},
    )
    assert status == 200
    clock.advance(2)
    status, refusal = await send(
        fake_discord, "PATCH", webhook(fake_discord, token, "@original"), {"content": "too late"}
    )
    assert (status, refusal["code"]) == (401, 50027)
    status, refusal = await send(
        fake_discord, "POST", webhook(fake_discord, token), {"content": "too late"}
    )
    assert (status, refusal["code"]) == (401, 50027)
    assert len(fake_discord.take_problems("expired-token")) == 2
    assert board.content == "presses 50"


@pytest.mark.machine_speed("a dozen requests on one token, straight over HTTP")
async def test_a_users_app_gets_five_follow_ups_where_it_is_not_installed(
    anywhere: AnywhereProbe, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    alice.install_app()
    dm = fake_discord.dm_between(alice, bob)
    answer = await alice.slash("anywhere", channel=dm)
    url = webhook(fake_discord, answer.interaction.token)
    for number in range(1, 6):
        status, _ = await send(fake_discord, "POST", url, {"content": f"#{number}"})
        assert status == 204
    status, refusal = await send(fake_discord, "POST", url, {"content": "#6"})
    assert (status, refusal["code"]) == (400, 40094)
    assert len(fake_discord.take_problems("followup-limit")) == 1
    assert [m.content for m in answer.followups] == ["#1", "#2", "#3", "#4", "#5"]

    # In the server that added the bot its own install authorizes it too: no such limit.
    in_server = await alice.slash("anywhere")
    assert set(in_server.interaction.payload["authorizing_integration_owners"]) == {"0", "1"}
    url = webhook(fake_discord, in_server.interaction.token)
    for number in range(1, 7):
        status, _ = await send(fake_discord, "POST", url, {"content": f"#{number}"})
        assert status == 204


async def test_where_a_user_may_not_use_external_apps_their_app_answers_them_alone(
    anywhere: AnywhereProbe, fake_discord: FakeDiscord, server_without_bot: FakeGuild
) -> None:
    erin = await server_without_bot.add_member("erin")
    erin.install_app()
    public = await erin.slash("anywhere", channel=server_without_bot.default_channel)
    assert not public.ephemeral
    everyone = discord.Permissions(server_without_bot.everyone.permissions)
    everyone.use_external_apps = False
    await server_without_bot.set_role_permissions(server_without_bot.everyone, everyone)
    answer = await erin.slash("anywhere", channel=server_without_bot.default_channel)
    assert answer.ephemeral and answer.message is not None
    assert answer.message.visible_to == erin.id
    status, _ = await send(
        fake_discord, "POST", webhook(fake_discord, answer.interaction.token), {"content": "later"}
    )
    assert status == 204
    assert answer.followups[0].ephemeral and answer.followups[0].visible_to == erin.id


@pytest.mark.machine_speed("five follow-ups on one token, straight over HTTP")
async def test_a_message_pings_the_mentioned_users_who_see_it_as_allowed_mentions_let_it(
    anywhere: AnywhereProbe, fake_discord: FakeDiscord, alice: Player, bob: Player, carol: Player
) -> None:
    alice.install_app()
    dm = fake_discord.dm_between(alice, bob)
    answer = await alice.slash("anywhere", channel=dm)
    assert answer.message is not None and answer.message.pinged == frozenset()
    url = webhook(fake_discord, answer.interaction.token)
    everyone = f"{alice.mention} <@!{bob.id}> {carol.mention}"

    async def followup(body: dict[str, Any]) -> frozenset[int]:
        status, sent = await send(fake_discord, "POST", url, body, query="?wait=true")
        assert status == 200
        return fake_discord.message(int(sent["id"])).pinged

    # Carol is mentioned but cannot see a DM between Alice and Bob: nobody tells her.
    assert await followup({"content": everyone}) == {alice.id, bob.id}
    assert await followup({"content": everyone, "allowed_mentions": {"users": [str(bob.id)]}}) == {
        bob.id
    }
    assert await followup({"content": everyone, "allowed_mentions": {"parse": []}}) == set()
    assert await followup({"content": everyone, "flags": 64}) == set()  # ephemeral: nobody
    # An edit that adds a mention notifies nobody.
    quiet = answer.followups[2]
    status, _ = await send(
        fake_discord,
        "PATCH",
        webhook(fake_discord, answer.interaction.token, quiet.id),
        {"content": f"{bob.mention} now", "allowed_mentions": {"parse": ["users"]}},
    )
    assert status == 200 and quiet.pinged == frozenset()


async def test_a_users_install_alone_answers_ephemerally_where_the_user_may_not_post(
    anywhere: AnywhereProbe, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    alice.install_app()
    muted = discord.Permissions(guild.everyone.permissions)
    muted.send_messages = False
    await guild.set_role_permissions(guild.everyone, muted)
    # Authorized by the user's install alone: the user's permissions decide.
    mine = await alice.slash("mine")
    assert mine.ephemeral
    # Authorized by the server's install too: the bot's permissions decide.
    both = await alice.slash("anywhere")
    assert not both.ephemeral


async def test_the_application_is_installable_to_servers_and_users(
    anywhere: AnywhereProbe, fake_discord: FakeDiscord, alice: Player
) -> None:
    alice.install_app()
    info = await anywhere.application_info()
    assert info.approximate_user_install_count == 1
    assert info.guild_integration_config is not None
    assert info.user_integration_config is not None
    user_params = info.user_integration_config.oauth2_install_params
    assert user_params is not None and user_params.scopes == ["applications.commands"]
