"""``/diceman``: two duelists pick two of four dice in secret each round (by DM), then fight.

The extension: the slash commands and the wiring. The shared secret-duel flow
(``cogs.secret_duel``) does the sessions, DMs, timers and public message around Diceman's
plug-in (``cogs.diceman.game``: engine calls and words), its components
(``cogs.diceman.controls``) and its texts (``cogs.diceman.render``).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import DiceBot
from bot.model.series import BEST_OF_HELP, BestOf
from bot.ui.delivery import Opponent
from cogs.diceman.controls import COMPONENTS
from cogs.diceman.game import DicemanGame
from cogs.diceman.guide import GUIDE
from cogs.secret_duel.commands import forfeit_game, start_challenge, start_vs_ai
from cogs.secret_duel.handler import SecretDuelHandler


@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class Diceman(
    commands.GroupCog,
    group_name="diceman",
    group_description="Diceman: pick two of four dice in secret, then duel.",
):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.rules = DicemanGame()
        self.handler = SecretDuelHandler(bot, self.rules)
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.sessions.register(self.handler)
        self.bot.guides.register(GUIDE)
        self.bot.register_components(*COMPONENTS)

    @app_commands.command(
        name="challenge",
        description="Challenge someone to a Diceman duel.",
        extras={"public": True},
    )
    @app_commands.describe(opponent="The player you want to duel", best_of=BEST_OF_HELP)
    async def challenge(
        self, interaction: discord.Interaction, opponent: Opponent, best_of: BestOf = 1
    ) -> None:
        await start_challenge(interaction, self.handler, opponent, {}, best_of)

    @app_commands.command(
        name="ai", description="Play Diceman against me.", extras={"public": True}
    )
    async def ai(self, interaction: discord.Interaction) -> None:
        await start_vs_ai(interaction, self.handler, {})

    @app_commands.command(name="forfeit", description="Give up your Diceman game in this channel.")
    async def forfeit(self, interaction: discord.Interaction) -> None:
        await forfeit_game(interaction, self.handler)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Diceman(bot))
