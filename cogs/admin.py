"""``/dicebot``: the bot's own commands — checking the set-up, and server administration."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import DiceBot
from bot.replies import DMS_CLOSED_HELP

# What the games need in a channel, with the names server admins see in Discord.
REQUIRED_CHANNEL_PERMISSIONS: tuple[tuple[str, str], ...] = (
    ("view_channel", "View Channel"),
    ("send_messages", "Send Messages"),
    ("embed_links", "Embed Links"),
    ("attach_files", "Attach Files"),
    ("read_message_history", "Read Message History"),
)


def missing_channel_permissions(permissions: discord.Permissions) -> list[str]:
    return [label for name, label in REQUIRED_CHANNEL_PERMISSIONS if not getattr(permissions, name)]


class Admin(commands.GroupCog, group_name="dicebot", group_description="Dicebot set-up and admin."):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(
        name="check", description="Check that I can post here and send you secret moves by DM."
    )
    @app_commands.guild_only()
    async def check(self, interaction: discord.Interaction) -> None:
        # Answer first (inside Discord's 3 seconds), then try the DM.
        await interaction.response.defer(ephemeral=True, thinking=True)
        lines = []
        missing = missing_channel_permissions(interaction.app_permissions)
        if missing:
            lines.append(
                "❌ In this channel I'm missing: **" + "**, **".join(missing) + "**. "
                "Ask a server admin to grant them, or play in another channel."
            )
        else:
            lines.append("✅ I have every permission I need in this channel.")
        sent = await self.bot.send_dm(
            interaction.user.id,
            content="👋 DMs work: your secret moves (Diceman, Dimension Duel) will arrive here.",
        )
        if sent is None:
            lines.append("❌ " + DMS_CLOSED_HELP)
        else:
            lines.append("✅ I can DM you, so secret moves will reach you privately.")
        await interaction.followup.send("\n".join(lines), ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Admin(bot))
