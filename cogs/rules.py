"""``/rules game:<game>``: each game's rules, short, with the house decisions this bot
plays by, and this server's timers. Always ephemeral: a rules card should not fill the
channel.

Each game's card and timers come from its guide (``cogs/<game>/guide.py``, registered in
``bot.guides`` when the game is loaded); the texts are our own short summaries of the rules
contract (``game_core/RULES.md``).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import DiceBot
from bot.i18n import _
from bot.model.catalog import game_title
from bot.model.errors import UserError
from bot.model.guide import GameGuide
from bot.pictures import palette
from bot.play.guild_settings import GuildSettings
from bot.ui.answers import answer_for, bot_is_member
from cogs.admin_render import duration_text
from cogs.texts import GAME_CHOICES, command_text, start_hint


def card_text(text: str, guide: GameGuide) -> str:
    """One of the rules' texts in the current language, the commands it names filled in
    as the player's client lists them."""
    words = {name: command_text(*command) for name, command in guide.commands.items()}
    return _(text).format(**words)


def timers_text(guide: GameGuide, settings: GuildSettings) -> str:
    """This server's timers of the game, as its guide words them."""
    timers = guide.timers
    durations = {
        name: duration_text(getattr(settings, setting)) for name, setting in timers.settings.items()
    }
    return _(timers.text).format(**durations)


def rules_embed(guide: GameGuide, settings: GuildSettings | None, hint: str) -> discord.Embed:
    card = guide.rules
    # How to start one closes the summary (not the footer: Discord shows the command
    # mentions it holds in a description, never in a footer).
    summary = card_text(card.summary, guide)
    embed = discord.Embed(
        title=_("📖 {game} — rules").format(game=game_title(guide.game)),
        description=f"{summary}\n\n{hint}" if hint else summary,
        colour=discord.Colour(palette.EMBED_INFO),
    )
    for name, text in card.sections:
        embed.add_field(name=_(name), value=card_text(text, guide), inline=False)
    # Translators: the heading of the rules this bot adds to a game's card (where the card
    # is unclear, the default modes, the timers); not Weighted Dice's house.
    embed.add_field(
        name=_("How it's played here"), value=card_text(card.house, guide), inline=False
    )
    if settings is not None:
        embed.add_field(name=_("On this server"), value=timers_text(guide, settings), inline=False)
    return embed


class Rules(commands.Cog):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @app_commands.command(name="rules", description="How to play one of the dice games.")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    @app_commands.describe(game="Which game.")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        await send_rules(self.bot, interaction, game)


async def send_rules(bot: DiceBot, interaction: discord.Interaction, game: str) -> None:
    """Answer ``interaction`` with ``game``'s rules card, privately (``/rules`` and the
    buttons of ``/help``), with this server's timers when asked in a server. A game whose
    guide is not loaded is refused as an unknown one."""
    guide = bot.guides.get(game)
    if guide is None:
        raise UserError(_("Pick a game from the list Discord offers."))
    settings = None
    if interaction.guild_id is not None and bot_is_member(interaction):
        # A server without the bot has no settings of its own: its games are with friends.
        settings = await bot.sessions.guild_settings(interaction.guild_id)
    await answer_for(interaction).send(embed=rules_embed(guide, settings, start_hint(bot, game)))


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Rules(bot))
