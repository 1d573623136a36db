"""Small commands every bot has: a health check that answers at once."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import _
from bot.ui.answers import answer_for


class Meta(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="ping", description="Check that the bot is awake.")
    async def ping(self, interaction: discord.Interaction) -> None:
        await answer_for(interaction).send(_("Pong!"))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Meta(bot))
