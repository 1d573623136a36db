"""``/duel``: Dimension Duel, Tau against Kaon, in tactical (secret choices by DM) or
classic (the dice choose; each player presses Roll) mode.

The extension: the slash commands and the wiring. The shared secret-duel flow
(``cogs.secret_duel``) does the sessions, DMs, timers and public message around Dimension
Duel's plug-in (``cogs.dimension_duel.game``: engine calls, words and picture), its
components (``cogs.dimension_duel.controls``) and its texts (``cogs.dimension_duel.render``).
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import DiceBot
from bot.i18n import N_
from bot.model.series import BEST_OF_HELP, BestOf
from bot.ui.delivery import Opponent
from cogs.dimension_duel.controls import COMPONENTS
from cogs.dimension_duel.game import DimensionDuelGame
from cogs.dimension_duel.guide import GUIDE
from cogs.secret_duel.commands import forfeit_game, start_challenge, start_vs_ai
from cogs.secret_duel.handler import SecretDuelHandler
from game_core import dimension_duel as dd

Mode = Literal["tactical", "classic"]
# The two modes, as the command's choices name them (the same catalog entries).
MODE_NAMES = {"tactical": N_("tactical"), "classic": N_("classic")}
StartHp = app_commands.Range[int, dd.MIN_START_HP, dd.MAX_START_HP]


@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class DimensionDuel(
    commands.GroupCog,
    group_name="duel",
    group_description="Dimension Duel: Tau against Kaon, particle rays and shields.",
):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.rules = DimensionDuelGame()
        self.handler = SecretDuelHandler(bot, self.rules)
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.sessions.register(self.handler)
        self.bot.guides.register(GUIDE)
        self.bot.register_components(*COMPONENTS)

    @app_commands.command(
        name="challenge",
        description="Challenge someone to a Dimension Duel.",
        extras={"public": True},
    )
    @app_commands.describe(
        opponent="The player you want to duel",
        mode="tactical: secret choices (default); classic: the dice choose everything",
        hp="Starting hit points for both (10 to 150, default 75)",
        best_of=BEST_OF_HELP,
    )
    async def challenge(
        self,
        interaction: discord.Interaction,
        opponent: Opponent,
        mode: Mode = "tactical",
        hp: StartHp = dd.DEFAULT_HP,
        best_of: BestOf = 1,
    ) -> None:
        await start_challenge(
            interaction, self.handler, opponent, {"mode": mode, "hp": int(hp)}, best_of
        )

    @app_commands.command(
        name="ai", description="Play a Dimension Duel against me.", extras={"public": True}
    )
    @app_commands.describe(
        mode="tactical: secret choices (default); classic: the dice choose everything",
        hp="Starting hit points for both (10 to 150, default 75)",
    )
    async def ai(
        self, interaction: discord.Interaction, mode: Mode = "tactical", hp: StartHp = dd.DEFAULT_HP
    ) -> None:
        await start_vs_ai(interaction, self.handler, {"mode": mode, "hp": int(hp)})

    @app_commands.command(
        name="forfeit", description="Give up your Dimension Duel in this channel."
    )
    async def forfeit(self, interaction: discord.Interaction) -> None:
        await forfeit_game(interaction, self.handler)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(DimensionDuel(bot))
