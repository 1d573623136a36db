"""The fake itself, driven by a tiny discord.py bot defined here: every callback type,
follow-ups, modals, selects, DMs, permissions, attachments and the wire traps."""

from __future__ import annotations

import asyncio
import io
import struct
import zlib
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from fakediscord import (
    BotHarness,
    CallbackType,
    FakeDiscord,
    FakeGuild,
    FakeUsageError,
    Player,
)
from fakediscord.probe import ProbeBot


def tiny_png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"".join(b"\x00" + b"\x80" * width for _ in range(height)))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


class BetModal(discord.ui.Modal, title="Place a bet"):
    amount: discord.ui.TextInput[Any] = discord.ui.TextInput(
        label="Amount", custom_id="amount", max_length=4
    )
    note: discord.ui.TextInput[Any] = discord.ui.TextInput(
        label="Note", custom_id="note", required=False
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"bet {self.amount.value} ({self.note.value or '-'})", ephemeral=True
        )


class Board(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Roll", custom_id="t:roll")
    async def roll(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        button.disabled = True
        await interaction.response.edit_message(content="rolled", view=self)

    @discord.ui.button(label="Bet", custom_id="t:bet")
    async def bet(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.send_modal(BetModal())

    @discord.ui.button(label="Think", custom_id="t:think")
    async def think(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send("thought about it", ephemeral=True)

    @discord.ui.select(
        custom_id="t:kit",
        placeholder="Pick your kit",
        min_values=1,
        max_values=2,
        options=[
            discord.SelectOption(label=x.title(), value=x) for x in ("sword", "shield", "bow")
        ],
    )
    async def kit(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content=f"kit: {', '.join(select.values)}")


class PickModal(discord.ui.Modal, title="Pick"):
    """A modal in the newer shape: labels wrapping a text input and a select."""

    def __init__(self) -> None:
        super().__init__(custom_id="t:pick")
        self.word: discord.ui.TextInput[Any] = discord.ui.TextInput(custom_id="word")
        self.colour: discord.ui.Select[Any] = discord.ui.Select(
            custom_id="colour",
            options=[discord.SelectOption(label=c.title(), value=c) for c in ("red", "blue")],
        )
        self.add_item(discord.ui.Label(text="Word", component=self.word))
        self.add_item(discord.ui.Label(text="Colour", component=self.colour))

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"{self.word.value} in {self.colour.values[0]}", ephemeral=True
        )


class Layout(discord.ui.LayoutView):
    """Components V2: a container with text and a row holding a button and a user select."""

    def __init__(self) -> None:
        super().__init__(timeout=None)
        go: discord.ui.Button[Any] = discord.ui.Button(label="Go", custom_id="t:go")
        go.callback = self.go  # type: ignore[method-assign]
        who: discord.ui.UserSelect[Any] = discord.ui.UserSelect(custom_id="t:who")
        who.callback = self.who  # type: ignore[method-assign]
        self.picker = who
        self.add_item(
            discord.ui.Container(
                discord.ui.TextDisplay("A V2 board"),
                discord.ui.ActionRow(go),
                discord.ui.ActionRow(who),
            )
        )

    async def go(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(PickModal())

    async def who(self, interaction: discord.Interaction) -> None:
        chosen = self.picker.values[0]
        kind = "member" if isinstance(chosen, discord.Member) else "user"
        await interaction.response.send_message(f"picked {chosen.name} ({kind})", ephemeral=True)


class TinyBot(commands.AutoShardedBot):
    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            guild_ready_timeout=0.05,
        )

    async def setup_hook(self) -> None:
        self.add_view(Board())
        tree = self.tree

        @tree.command(name="board", description="Post a board")
        async def board(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("a board", view=Board())

        @tree.command(name="v2", description="Post a Components V2 board")
        async def v2(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(view=Layout())

        @tree.command(name="dm", description="DM me")
        async def dm(interaction: discord.Interaction) -> None:
            try:
                await interaction.user.send("hello in private", view=Board())
            except discord.Forbidden as error:
                await interaction.response.send_message(f"closed {error.code}", ephemeral=True)
            else:
                await interaction.response.send_message("sent", ephemeral=True)

        @tree.command(name="post", description="Post in the channel with the bot token")
        async def post(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True)
            try:
                assert isinstance(interaction.channel, discord.abc.Messageable)
                png = discord.File(io.BytesIO(tiny_png(3, 2)), filename="board.png")
                embed = discord.Embed(title="Board").set_image(url="attachment://board.png")
                await interaction.channel.send(embed=embed, file=png)
            except discord.Forbidden as error:
                await interaction.followup.send(f"forbidden {error.code}", ephemeral=True)
            else:
                await interaction.followup.send("posted", ephemeral=True)

        @tree.command(name="perms", description="What may I do here")
        async def perms(interaction: discord.Interaction) -> None:
            can = interaction.app_permissions.send_messages
            await interaction.response.send_message(f"send_messages={can}", ephemeral=True)

        @tree.command(name="duel", description="Challenge someone")
        @app_commands.describe(opponent="who", stake="points", mode="how")
        @app_commands.choices(
            mode=[
                app_commands.Choice(name="Fast", value="fast"),
                app_commands.Choice(name="Slow", value="slow"),
            ]
        )
        async def duel(
            interaction: discord.Interaction,
            opponent: discord.Member,
            stake: app_commands.Range[int, 1, 100],
            mode: app_commands.Choice[str] | None = None,
        ) -> None:
            chosen = mode.value if mode else "default"
            await interaction.response.send_message(
                f"{interaction.user.name} vs {opponent.name} for {stake} ({chosen})"
            )

        settings = app_commands.Group(
            name="settings",
            description="Settings",
            default_permissions=discord.Permissions(manage_guild=True),
        )
        turn = app_commands.Group(name="turn", description="Turn settings", parent=settings)

        @turn.command(name="timeout", description="Set the turn timeout")
        async def timeout(interaction: discord.Interaction, seconds: int) -> None:
            await interaction.response.send_message(f"timeout {seconds}", ephemeral=True)

        tree.add_command(settings)
        await tree.sync()


@pytest.fixture
async def tiny_bot(fake_discord: FakeDiscord, guild: FakeGuild) -> AsyncIterator[BotHarness]:
    harness = BotHarness(fake_discord, TinyBot)
    await harness.start()
    yield harness
    assert await harness.stop() == []


async def test_registered_commands_drive_the_payloads(
    tiny_bot: BotHarness, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    assert "settings turn timeout" in fake_discord.commands.names()
    outcome = await alice.slash("duel", opponent=bob, stake=5, mode="Slow")
    assert outcome.text() == "alice vs bob for 5 (slow)"
    with pytest.raises(FakeUsageError, match="no command /duell"):
        await alice.slash("duell", opponent=bob, stake=5)
    with pytest.raises(FakeUsageError, match="between 1 and 100"):
        await alice.slash("duel", opponent=bob, stake=500)
    with pytest.raises(FakeUsageError, match="takes an integer"):
        await alice.slash("duel", opponent=bob, stake="5")
    with pytest.raises(FakeUsageError, match="'stake' is required"):
        await alice.slash("duel", opponent=bob)


async def test_admin_command_is_hidden_from_members_without_the_permission(
    tiny_bot: BotHarness, guild: FakeGuild, alice: Player
) -> None:
    with pytest.raises(FakeUsageError, match="cannot see /settings"):
        await alice.slash("settings turn timeout", seconds=60)
    admin = await guild.add_member("admin", permissions=discord.Permissions(manage_guild=True))
    outcome = await admin.slash("settings turn timeout", seconds=60)
    assert outcome.ephemeral and outcome.text() == "timeout 60"


async def test_buttons_modals_selects_and_deferrals(
    tiny_bot: BotHarness, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = (await alice.slash("board")).message
    assert board is not None and board.labels() == ["Roll", "Bet", "Think"]

    rolled = await alice.click(board, "Roll")
    assert rolled.type is CallbackType.UPDATE_MESSAGE and board.content == "rolled"
    with pytest.raises(FakeUsageError, match="disabled"):
        await bob.click(board, "Roll")
    with pytest.raises(FakeUsageError, match="cannot find button 'Fold'"):
        await bob.click(board, "Fold")

    opened = await bob.click(board, "Bet")
    assert opened.type is CallbackType.MODAL and opened.modal is not None
    with pytest.raises(FakeUsageError, match="opened for bob"):
        await alice.submit_modal(opened)
    with pytest.raises(FakeUsageError, match="at most 4"):
        await bob.submit_modal(opened, Amount="123456")
    submitted = await bob.submit_modal(opened, Amount="30")
    assert submitted.ephemeral and submitted.text() == "bet 30 (-)"
    assert submitted.message in bob.ephemerals() and not alice.ephemerals()

    thought = await alice.click(board, "Think")
    assert thought.type is CallbackType.DEFERRED_MESSAGE and thought.ephemeral
    final = await thought.final_message()
    assert final.text() == "thought about it" and final is thought.message

    picked = await bob.select(board, ["sword", "Shield"])
    assert picked.type is CallbackType.DEFERRED_UPDATE
    await fake_discord.wait_for(lambda: board.content.startswith("kit"))
    assert board.content == "kit: sword, shield"
    with pytest.raises(FakeUsageError, match="between 1 and 2"):
        await bob.select(board, ["sword", "shield", "bow"])


async def test_dms_permissions_and_attachments(
    tiny_bot: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    assert (await alice.slash("dm")).text() == "sent"
    assert [m.content for m in alice.dms()] == ["hello in private"]
    in_dm = await alice.click(alice.dms()[0], "Roll")
    assert in_dm.interaction.payload["context"] == 1 and "guild_id" not in in_dm.interaction.payload
    assert alice.dms()[0].content == "rolled"
    with pytest.raises(FakeUsageError, match="someone else's DM"):
        await bob.click(alice.dms()[0], "Bet")
    bob.dms_open = False
    assert (await bob.slash("dm")).text() == "closed 50007"

    posted = await alice.slash("post")
    assert (await posted.final_message()).text() == "posted"
    message = guild.default_channel.last_message()
    assert message is not None
    png = message.attachment("board.png")
    assert (png.width, png.height) == (3, 2) and png.content.startswith(b"\x89PNG")
    assert message.embeds[0]["image"]["url"] == png.url

    closed = await guild.add_channel("locked", bot_deny=discord.Permissions(send_messages=True))
    assert (await alice.slash("perms", channel=closed)).text() == "send_messages=False"
    refused = await alice.slash("post", channel=closed)
    assert (await refused.final_message()).text() == "forbidden 50013"
    assert closed.messages() == []


async def test_rate_limit_is_retried_by_discord_py(
    tiny_bot: BotHarness, fake_discord: FakeDiscord, alice: Player
) -> None:
    rule = fake_discord.rate_limit("/channels/{channel_id}/messages", method="POST")
    posted = await alice.slash("post")
    assert (await posted.final_message()).text() == "posted"
    statuses = [r.status for r in fake_discord.requests_to("/channels/{channel_id}/messages")]
    assert statuses == [429, 200] and rule.hits == 1


async def test_resume_after_reconnect_replays_missed_events(
    tiny_bot: BotHarness, fake_discord: FakeDiscord, alice: Player
) -> None:
    await fake_discord.gateway.request_reconnect()
    await fake_discord.wait_for(lambda: fake_discord.gateway.resume_count == 1)
    assert fake_discord.gateway.identify_count == 1
    assert (await alice.slash("perms")).text() == "send_messages=True"


async def test_components_v2_user_select_and_label_modal(
    tiny_bot: BotHarness, alice: Player, bob: Player
) -> None:
    board = (await alice.slash("v2")).message
    assert board is not None and board.flags & (1 << 15)
    assert board.text() == "A V2 board" and board.labels() == ["Go"]
    picked = await alice.select(board, [bob])
    assert picked.text() == "picked bob (member)"
    opened = await alice.click(board, "Go")
    assert opened.modal is not None and opened.modal.field_names() == ["word", "colour"]
    submitted = await alice.submit_modal(opened, Word="dice", Colour="Blue")
    assert submitted.text() == "dice in blue"


async def test_a_guild_made_with_roles_reaches_the_bot_with_them(
    fake_discord: FakeDiscord, probe: ProbeBot
) -> None:
    joined = asyncio.ensure_future(probe.wait_for("guild_join", timeout=5))
    made = await fake_discord.create_guild(
        "Big Server", channels=("general", "rules", "memes"), roles=("Mod", "Member", "Gold")
    )
    seen = await joined
    assert seen.id == made.id
    # @everyone, the bot's own role, and the three named ones, above the bot's.
    assert [role.name for role in seen.roles] == ["@everyone", "DiceBot", "Mod", "Member", "Gold"]
    assert [channel.name for channel in seen.text_channels] == ["general", "rules", "memes"]
