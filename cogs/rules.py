"""``/rules game:<game>``: each game's rules, short, with the house decisions this bot
plays by, and this server's timers. Always ephemeral: a rules card should not fill the
channel.

The texts are our own short summaries of the rules contract (``game_core/RULES.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import answer_for
from bot.app import DiceBot
from bot.errors import UserError
from bot.guild_settings import GuildSettings
from bot.leaderboard import GAME_TITLES, game_title
from bot.pictures import palette
from cogs.admin import duration_text
from cogs.leaderboard import GAME_CHOICES, start_hint


@dataclass(frozen=True)
class RulesCard:
    summary: str
    sections: tuple[tuple[str, str], ...]
    house: str


RULES: dict[str, RulesCard] = {
    "knucklebones": RulesCard(
        summary=(
            "Two players, each with a 3×3 grid: three columns of three slots. On your turn "
            "you roll one d6 and put it in one of **your** columns that still has room."
        ),
        sections=(
            (
                "Knocking out",
                "Placing a die removes every die of the same face from your opponent's "
                "**same** column.",
            ),
            (
                "Scoring",
                "In a column, each face counts face × copies × copies: `4 4 2` is "
                "4×2×2 + 2 = **18**, `5 5 5` is **45**. Your score is your three columns added.",
            ),
            (
                "The end",
                "The game stops the moment someone fills their ninth slot. Higher score wins; "
                "equal scores are a draw.",
            ),
        ),
        house=(
            "A coin flip picks who starts, unless the challenge says otherwise, and the "
            "record keeps who went first. Running out of time on your turn, or forfeiting, "
            "loses the game."
        ),
    ),
    "diceman": RulesCard(
        summary=(
            "Two duelists, 20 life each, each owning a **Magic d4**, **Priority d6**, "
            "**Sword d8** and **Shield d10**. Every round both secretly pick exactly two "
            "dice, then both roll; a die you did not pick counts as 0."
        ),
        sections=(
            (
                "Phases",
                "The round is fought in phases 6 down to 0; you act in the phase equal to "
                "your Priority roll. When you act with more Priority than your opponent (a "
                "gap of d): your sword first strikes up to d unblockable (and loses that "
                "much), then your shield strikes for up to d, capped by what it would block "
                "of their sword.",
            ),
            (
                "Swords and magic",
                "Your sword then hits for its value minus their shield. Magic only fires if "
                "you took no damage that phase; if both act with magic and neither was hurt, "
                "the higher magic deals the difference.",
            ),
            (
                "Winning",
                "A phase's damage lands all at once; whoever is at 0 or less is dead and "
                "never acts again. Both dead together is a draw. Life carries over between "
                "rounds.",
            ),
        ),
        house=(
            "After **30 rounds** the higher life wins (equal life: a draw), so nobody can "
            "stall forever. Picks are made in secret (by DM, or the **Make your move** "
            "button). Forfeiting, or being the only one out of time, loses the game; if "
            "neither player locks in, the game is abandoned without a result."
        ),
    ),
    "weighted_dice": RulesCard(
        summary=(
            "A betting table for 5 to 12 players, everyone starting at 20 points. A d20 "
            "roll-off picks the first house; the house then passes clockwise every round."
        ),
        sections=(
            (
                "A round",
                "The house picks two other players as rollers and hands each a die (d4, d6, "
                "d8, d10, d12 or d20). Everyone else may bet once, 1 to all their points, on "
                "one roller. Bets are final. Then both rollers roll; the higher roll wins.",
            ),
            (
                "Scoring",
                "Backers of the winner gain their bet plus everything bet on the loser (or "
                "half their bet, rounded down, when nobody backed the loser). Backers of the "
                "loser lose their bet but never drop below 5. The winning roller gains their "
                "roll plus the bets on the loser.",
            ),
            (
                "Ties and the end",
                "On a tied roll the house wins every bet; with no bets at all the house is "
                "set to 5 points. The game ends after the round in which someone reaches "
                "**150** (or the target the host chose at `/weighted new`, such as a short "
                "game): the highest score wins, and ties share the win.",
            ),
        ),
        house=(
            "Players tied on the first d20 re-roll among themselves. Betting closes when "
            "everyone has bet or the betting window runs out. Your points stay in the "
            "standings if you leave."
        ),
    ),
    "dimension_duel": RulesCard(
        summary=(
            "**Tau** against **Kaon**, 75 hit points each. Tau attacks first and the roles "
            "swap every turn; all dice are d6."
        ),
        sections=(
            (
                "A turn",
                "1. The attacker picks a Tau or Kaon ray, the defender an anti-Tau or "
                "anti-Kaon shield: a mismatch gives the attacker a die.\n"
                "2. The attacker aims at Head, Torso or Extremities, the defender guards one: "
                "a miss gives another die.\n"
                "3. Both pick a function, then everyone rolls their dice as damage.",
            ),
            (
                "Functions",
                "**Bluff** does nothing · **Disruptor** cancels all damage · **Delayed "
                "Attack** gives you a die · **Deflector** makes each player take their own "
                "dice · **Intensifier** doubles all damage (two: ×4) · **Particle Changer** "
                "flips your own or your opponent's ray/shield choice.",
            ),
            (
                "Winning",
                "At 0 hit points or less you are out; both out in the same turn is a draw.",
            ),
        ),
        house=(
            "**Tactical** mode (the default) lets both players choose everything in secret, "
            "and each special function works **once per game** (Bluff is unlimited). "
            "**Classic** mode rolls a d6 for every choice. An Intensifier really doubles "
            "damage. Forfeiting, or being the only one out of time, loses the game; if "
            "neither player moves, the game is abandoned without a result."
        ),
    ),
}


def timers_text(game: str, settings: GuildSettings) -> str:
    if game == "knucklebones":
        return f"{duration_text(settings.turn_timeout_seconds)} per turn"
    if game in ("diceman", "dimension_duel"):
        return f"{duration_text(settings.round_timeout_seconds)} per round to lock in"
    return (
        f"the house has {duration_text(settings.house_setup_seconds)} to set up a round, "
        f"betting stays open {duration_text(settings.betting_window_seconds)}"
    )


def rules_embed(game: str, settings: GuildSettings | None, hint: str) -> discord.Embed:
    card = RULES[game]
    embed = discord.Embed(
        title=f"📖 {game_title(game)} — rules",
        description=card.summary,
        colour=discord.Colour(palette.EMBED_INFO),
    )
    for name, text in card.sections:
        embed.add_field(name=name, value=text, inline=False)
    embed.add_field(name="House decisions", value=card.house, inline=False)
    if settings is not None:
        embed.add_field(name="On this server", value=timers_text(game, settings), inline=False)
    embed.set_footer(text=hint.replace("`", ""))
    return embed


class Rules(commands.Cog):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @app_commands.command(name="rules", description="How to play one of the dice games.")
    @app_commands.describe(game="Which game.")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        if game not in GAME_TITLES:
            raise UserError("Pick a game from the list Discord offers.")
        await send_rules(self.bot, interaction, game)


async def send_rules(bot: DiceBot, interaction: discord.Interaction, game: str) -> None:
    """Answer ``interaction`` with ``game``'s rules card, privately (``/rules`` and the
    buttons of ``/help``), with this server's timers when asked in a server."""
    settings = None
    if interaction.guild_id is not None:
        settings = await bot.sessions.guild_settings(interaction.guild_id)
    await answer_for(interaction).send(embed=rules_embed(game, settings, start_hint(bot, game)))


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Rules(bot))
