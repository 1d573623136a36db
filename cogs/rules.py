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

from bot.app import DiceBot
from bot.i18n import N_, _
from bot.model.catalog import GAME_TITLES, game_title
from bot.model.errors import UserError
from bot.pictures import palette
from bot.play.guild_settings import GuildSettings
from bot.ui.answers import answer_for
from cogs.admin_render import duration_text
from cogs.texts import GAME_CHOICES, command_text, start_hint


@dataclass(frozen=True)
class RulesCard:
    """One game's rules, every text marked with ``N_`` and translated where shown. A text
    may name a slash command as ``{placeholder}`` (see ``command_names``)."""

    summary: str
    sections: tuple[tuple[str, str], ...]
    house: str


RULES: dict[str, RulesCard] = {
    "knucklebones": RulesCard(
        summary=N_(
            "Two players, each with a 3×3 grid: three columns of three slots. On your turn "
            "you roll one d6 and put it in one of **your** columns that still has room."
        ),
        sections=(
            (
                N_("Knocking out"),
                N_(
                    "Placing a die removes every die of the same face from your opponent's "
                    "**same** column."
                ),
            ),
            (
                N_("Scoring"),
                N_(
                    "In a column, each face counts face × copies × copies: `4 4 2` is "
                    "4×2×2 + 2 = **18**, `5 5 5` is **45**. Your score is your three columns "
                    "added."
                ),
            ),
            (
                N_("The end"),
                N_(
                    "The game stops the moment someone fills their ninth slot. Higher score "
                    "wins; equal scores are a draw."
                ),
            ),
        ),
        house=N_(
            "A coin flip picks who starts, unless the challenge says otherwise, and the "
            "record keeps who went first. Running out of time on your turn, or forfeiting, "
            "loses the game."
        ),
    ),
    "diceman": RulesCard(
        summary=N_(
            "Two duelists, 20 life each, each owning a **Magic d4**, **Priority d6**, "
            "**Sword d8** and **Shield d10**. Every round both secretly pick exactly two "
            "dice, then both roll; a die you did not pick counts as 0."
        ),
        sections=(
            (
                N_("Phases"),
                N_(
                    "The round is fought in phases 6 down to 0; you act in the phase equal to "
                    "your Priority roll. When you act with more Priority than your opponent (a "
                    "gap of d): your sword first strikes up to d unblockable (and loses that "
                    "much), then your shield strikes for up to d, capped by what it would "
                    "block of their sword."
                ),
            ),
            (
                N_("Swords and magic"),
                N_(
                    "Your sword then hits for its value minus their shield. Magic only fires "
                    "if you took no damage that phase; if both act with magic and neither was "
                    "hurt, the higher magic deals the difference."
                ),
            ),
            (
                N_("Winning"),
                N_(
                    "A phase's damage lands all at once; whoever is at 0 or less is dead and "
                    "never acts again. Both dead together is a draw. Life carries over between "
                    "rounds."
                ),
            ),
        ),
        house=N_(
            "After **30 rounds** the higher life wins (equal life: a draw), so nobody can "
            "stall forever. Picks are made in secret (by DM, or the **Make your move** "
            "button). Forfeiting, or being the only one out of time, loses the game; if "
            "neither player locks in, the game is abandoned without a result."
        ),
    ),
    "weighted_dice": RulesCard(
        summary=N_(
            "A betting table for 5 to 12 players, everyone starting at 20 points. A d20 "
            "roll-off picks the first house; the house then passes clockwise every round."
        ),
        sections=(
            (
                N_("A round"),
                N_(
                    "The house picks two other players as rollers and hands each a die (d4, "
                    "d6, d8, d10, d12 or d20). Everyone else may bet once, 1 to all their "
                    "points, on one roller. Bets are final. Then both rollers roll; the "
                    "higher roll wins."
                ),
            ),
            (
                N_("Scoring"),
                N_(
                    "Backers of the winner gain their bet plus everything bet on the loser "
                    "(or half their bet, rounded down, when nobody backed the loser). Backers "
                    "of the loser lose their bet but never drop below 5. The winning roller "
                    "gains their roll plus the bets on the loser."
                ),
            ),
            (
                N_("Ties and the end"),
                N_(
                    "On a tied roll the house wins every bet; with no bets at all the house "
                    "is set to 5 points. The game ends after the round in which someone "
                    "reaches **150** (or the target the host chose at {weighted_new}, such as "
                    "a short game): the highest score wins, and ties share the win."
                ),
            ),
        ),
        house=N_(
            "Players tied on the first d20 re-roll among themselves. Betting closes when "
            "everyone has bet or the betting window runs out. Your points stay in the "
            "standings if you leave."
        ),
    ),
    "dimension_duel": RulesCard(
        summary=N_(
            "**Tau** against **Kaon**, 75 hit points each. Tau attacks first and the roles "
            "swap every turn; all dice are d6."
        ),
        sections=(
            (
                N_("A turn"),
                N_(
                    "1. The attacker picks a Tau or Kaon ray, the defender an anti-Tau or "
                    "anti-Kaon shield: a mismatch gives the attacker a die.\n"
                    "2. The attacker aims at Head, Torso or Extremities, the defender guards "
                    "one: a miss gives another die.\n"
                    "3. Both pick a function, then everyone rolls their dice as damage."
                ),
            ),
            (
                N_("Functions"),
                N_(
                    "**Bluff** does nothing · **Disruptor** cancels all damage · **Delayed "
                    "Attack** gives you a die · **Deflector** makes each player take their "
                    "own dice · **Intensifier** doubles all damage (two: ×4) · **Particle "
                    "Changer** flips your own or your opponent's ray/shield choice."
                ),
            ),
            (
                N_("Winning"),
                N_("At 0 hit points or less you are out; both out in the same turn is a draw."),
            ),
        ),
        house=N_(
            "**Tactical** mode (the default) lets both players choose everything in secret, "
            "and each special function works **once per game** (Bluff is unlimited). "
            "**Classic** mode rolls a d6 for every choice. An Intensifier really doubles "
            "damage. Forfeiting, or being the only one out of time, loses the game; if "
            "neither player moves, the game is abandoned without a result."
        ),
    ),
}


def command_names() -> dict[str, str]:
    """The slash commands the rules mention, as the player's client lists them."""
    return {"weighted_new": command_text("weighted", "new")}


def card_text(text: str) -> str:
    """One of the rules' texts in the current language, its commands filled in."""
    return _(text).format(**command_names())


def timers_text(game: str, settings: GuildSettings) -> str:
    if game == "knucklebones":
        return _("{duration} per turn").format(
            duration=duration_text(settings.turn_timeout_seconds)
        )
    if game in ("diceman", "dimension_duel"):
        return _("{duration} per round to lock in").format(
            duration=duration_text(settings.round_timeout_seconds)
        )
    return _("the house has {setup} to set up a round, betting stays open {betting}").format(
        setup=duration_text(settings.house_setup_seconds),
        betting=duration_text(settings.betting_window_seconds),
    )


def rules_embed(game: str, settings: GuildSettings | None, hint: str) -> discord.Embed:
    card = RULES[game]
    embed = discord.Embed(
        title=_("📖 {game} — rules").format(game=game_title(game)),
        description=card_text(card.summary),
        colour=discord.Colour(palette.EMBED_INFO),
    )
    for name, text in card.sections:
        embed.add_field(name=_(name), value=card_text(text), inline=False)
    embed.add_field(name=_("House decisions"), value=card_text(card.house), inline=False)
    if settings is not None:
        embed.add_field(name=_("On this server"), value=timers_text(game, settings), inline=False)
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
            raise UserError(_("Pick a game from the list Discord offers."))
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
