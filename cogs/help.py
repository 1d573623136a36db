"""``/help``: what the bot does, the four games in a line each, how to start one, and a
button per game that opens its rules privately.

Each game's line comes from its guide (``cogs/<game>/guide.py``, registered in
``bot.guides`` when the game is loaded), in the catalog's order. The answer is ephemeral (a
help card should not fill the channel). Its buttons are DynamicItems
(``help:rules:<game>``), so they work on a help card opened before a restart.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import DiceBot
from bot.i18n import _, list_of, ngettext, number
from bot.model.catalog import GAMES, game_title
from bot.model.guide import GameGuide
from bot.model.text import clip
from bot.pictures import palette
from bot.ui.answers import answer_for, bot_is_member
from bot.ui.replies import Guarded
from cogs.rules import send_rules
from cogs.texts import command_text, option_word, playable_anywhere, start_hint

RULES_TEMPLATE = r"help:rules:(?P<game>" + "|".join(GAMES) + ")"


def players_text(guide: GameGuide) -> str:
    """``2 players`` or ``5 to 12 players``."""
    if guide.fewest == guide.most:
        return ngettext("{count} player", "{count} players", guide.most).format(
            count=number(guide.most)
        )
    return _("{fewest} to {most} players").format(
        fewest=number(guide.fewest), most=number(guide.most)
    )


def odds_commands(bot: DiceBot) -> str:
    """``/odds``' subcommands, one per game it covers: Discord mentions a command that has
    subcommands only through one of them."""
    odds = bot.tree.get_command("odds")
    names = sorted(command.name for command in getattr(odds, "commands", []))
    return list_of([command_text("odds", name) for name in names])


def help_embed(bot: DiceBot) -> discord.Embed:
    """The help card in a server that has the bot."""
    embed = discord.Embed(
        title=_("🎲 Dicebot — help"),
        description=_(
            "I host four dice games in this server. Every game is one message in the "
            "channel that updates as you play; secret moves arrive by DM; a game carries "
            "on where it was if I restart; each game has this server's leaderboard."
        ),
        colour=discord.Colour(palette.EMBED_INFO),
    )
    for guide in bot.guides:
        embed.add_field(
            name=f"{game_title(guide.game)} · {players_text(guide)}",
            value=f"{_(guide.line)} {start_hint(bot, guide.game)}",
            inline=False,
        )
    embed.add_field(
        name=_("How to start"),
        value=_(
            "Run a game's command in a channel: challenge someone (they get **Accept** / "
            "**Decline**; add `{best_of}: 3` or `5` for a series), or play me right away. A "
            "finished game has a **Rematch** button. Run {check} once to see whether I can "
            "post in the channel and DM you."
        ).format(
            best_of=option_word("best_of"),
            check=command_text("dicebot", "check"),
        ),
        inline=False,
    )
    embed.add_field(
        name=_("More"),
        value=_(
            "{rules} a game's rules · {leaderboard} · {stats} · {history} · the chances, "
            "worked out exactly: {odds}"
        ).format(
            rules=command_text("rules"),
            leaderboard=command_text("leaderboard"),
            stats=command_text("stats"),
            history=command_text("history"),
            odds=odds_commands(bot),
        ),
        inline=False,
    )
    embed.set_footer(text=_("The buttons below show a game's rules (only to you)."))
    return embed


def anywhere_games(bot: DiceBot) -> list[str]:
    """The games played where the bot is no member, in the catalog's order."""
    return [guide.game for guide in bot.guides if playable_anywhere(bot, guide.game)]


def anywhere_help_embed(bot: DiceBot) -> discord.Embed:
    """The help card where the bot is no member (a DM, a group DM, a server that never
    added it, through the app installed to the player's account): only what works there,
    and no command that Discord does not offer there."""
    games = anywhere_games(bot)
    guides = [guide for guide in bot.guides if guide.game in games]
    embed = discord.Embed(
        title=_("🎲 Dicebot — help"),
        description=_(
            "Here you can play the two-player dice games with a friend: the game is my "
            "answer to your command and updates as you play; secret moves are made with "
            "**Make your move**, which only you see. These games count in your {stats} and "
            "{history} as games with friends, never on a server's leaderboard. Weighted "
            "Dice, leaderboards, seasons and tournaments are played in servers that added me."
        ).format(stats=command_text("stats"), history=command_text("history")),
        colour=discord.Colour(palette.EMBED_INFO),
    )
    for guide in guides:
        embed.add_field(
            name=f"{game_title(guide.game)} · {players_text(guide)}",
            value=f"{_(guide.line)} {start_hint(bot, guide.game)}",
            inline=False,
        )
    embed.add_field(
        name=_("More"),
        value=_("{rules} a game's rules · the chances, worked out exactly: {odds}").format(
            rules=command_text("rules"), odds=odds_commands(bot)
        ),
        inline=False,
    )
    embed.set_footer(text=_("The buttons below show a game's rules (only to you)."))
    return embed


class RulesButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=RULES_TEMPLATE,
):
    """Opens one game's rules privately."""

    def __init__(self, game: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=clip(_("{game} rules").format(game=game_title(game)), 80),
                emoji="📖",
                style=discord.ButtonStyle.secondary,
                custom_id=f"help:rules:{game}",
            )
        )
        self.game = game

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RulesButton:
        return cls(match["game"])

    async def handle(self, interaction: discord.Interaction) -> None:
        client = interaction.client
        assert isinstance(client, DiceBot)
        await send_rules(client, interaction, self.game)


def help_view(games: list[str]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for game in games:
        view.add_item(RulesButton(game))
    return view


class Help(commands.Cog):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.register_components(RulesButton)

    @app_commands.command(
        name="help", description="What this bot does, its four games and how to start one."
    )
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def show_help(self, interaction: discord.Interaction) -> None:
        if bot_is_member(interaction):
            games = [guide.game for guide in self.bot.guides]
            embed = help_embed(self.bot)
        else:
            games = anywhere_games(self.bot)
            embed = anywhere_help_embed(self.bot)
        view = help_view(games)
        await answer_for(interaction).send(embed=embed, view=view)
        # The buttons are DynamicItems dispatched by custom_id: nothing to keep in memory.
        view.stop()


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Help(bot))
