"""``/odds``: exact odds and simulated statistics from the analysis lab, in Discord.

- ``/odds diceman``: the exact 6x6 combo table as a picture (who deals more damage, how
  often a round is even), what to pick in plain words and the mix nobody can exploit
  (``game_core.ai.diceman.matchup_table`` and ``equilibrium``).
- ``/odds weighted [die_a] [die_b]``: the exact win and tie chances of two dice
  (``game_core.weighted_dice.win_probabilities``); one die gives it against every die, none
  gives the whole grid and how many rounds a game lasts by table size, to the card's 150
  points and as a short game (``game_core.analysis.weighted_lengths``, precomputed).
- ``/odds knucklebones``: the first-player advantage (95% CI), draws and the typical game
  length for random play (the lab's vectorised simulation, 200,000 games) and medium-AI
  play (10,000 games through the engine), both with a fixed seed. Hard play is too slow to
  simulate on demand (the analysis lab measures it).

Every number is a pure function of the rules, so each is computed once per process and
kept in ``cogs.odds.figures`` (the table as a ``Picture``). Nothing is computed at start-up:
the first request that needs a slow figure defers, computes it in a worker thread (the
event loop keeps serving games) and fills the deferred answer; later requests answer at
once.

Answers are ephemeral unless the player asks to ``share`` them with the channel.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import _, number

# Through the module (not ``from ... import``): the cached values live there, so they
# outlive a reload of this cog, and tests can swap one in.
from bot.pictures import palette
from bot.ui.answers import answer_for
from cogs.odds import figures, render
from cogs.texts import option_word
from game_core.analysis.weighted_lengths import lengths
from game_core.weighted_dice import DICE

EMBED_COLOUR = discord.Colour(palette.EMBED_INFO)
DIE_CHOICES = [app_commands.Choice(name=f"d{die}", value=die) for die in DICE]
SHARE_HELP = "Post the answer for everyone in the channel (default: only you see it)."


# ---------------------------------------------------------------------------------------
# Embeds
# ---------------------------------------------------------------------------------------


def diceman_embed() -> discord.Embed:
    numbers = figures.diceman_figures()
    explanation = _(
        "The table: your pick (row) against theirs (column), how often you deal more damage "
        "in a round, and after = how often it is even. Every roll counted exactly."
    )
    embed = discord.Embed(
        title=_("Diceman: which two dice to pick"),
        description=f"{render.diceman_advice(numbers)}\n\n{explanation}",
        colour=EMBED_COLOUR,
    )
    embed.set_image(url=f"attachment://{render.HEATMAP_NAME}")
    embed.add_field(
        name=_("How often to pick each"),
        value="\n".join(render.diceman_mix_lines(numbers)),
        inline=False,
    )
    embed.add_field(name=_("Why mix"), value=render.diceman_reading(numbers), inline=False)
    embed.set_footer(text=render.die_key())
    return embed


def weighted_pair_embed(die_a: int, die_b: int) -> discord.Embed:
    odds = figures.pair_odds(die_a, die_b)
    embed = discord.Embed(
        title=_("Weighted Dice: {first} against {second}").format(
            first=render.die_name(die_a), second=render.die_name(die_b)
        ),
        description="\n".join(render.pair_lines(odds)),
        colour=EMBED_COLOUR,
    )
    embed.add_field(name=_("Reading"), value=render.pair_reading(odds), inline=False)
    embed.set_footer(text=_("Exact: every pair of faces counted once. Higher roll wins."))
    return embed


def weighted_die_embed(die: int) -> discord.Embed:
    rows = [figures.pair_odds(die, other) for other in DICE]
    table = "\n".join(render.die_against_all_lines(die, rows))
    tie = _("A tie means the house takes every bet.")
    return discord.Embed(
        title=_("Weighted Dice: a {die} against every die").format(die=render.die_name(die)),
        description=f"```\n{table}\n```\n{tie}",
        colour=EMBED_COLOUR,
    )


def weighted_grid_embed() -> discord.Embed:
    wins = {(a, b): float(figures.pair_odds(a, b).a_wins) for a in DICE for b in DICE}
    ties = {(a, b): float(figures.pair_odds(a, b).tie) for a in DICE for b in DICE}
    wins_table = "\n".join(render.odds_grid_lines(DICE, wins))
    ties_table = "\n".join(render.odds_grid_lines(DICE, ties))
    wins_head = _("The row roller wins")
    ties_head = _("Tie: the house takes every bet")
    embed = discord.Embed(
        title=_("Weighted Dice: exact odds, row die against column die"),
        description=(
            f"**{wins_head}**\n```\n{wins_table}\n```\n**{ties_head}**\n```\n{ties_table}\n```"
        ),
        colour=EMBED_COLOUR,
    )
    table = lengths()
    embed.add_field(
        name=_("How long a game lasts"),
        value=f"```\n{chr(10).join(render.game_length_lines(table))}\n```"
        + render.game_length_reading(table),
        inline=False,
    )
    embed.set_footer(
        text=_(
            "Pick {die_a} and {die_b} for the exact fractions of one pair. Game lengths: the "
            "analysis lab's simulation, {games} games per table size and target, four house "
            "and bettor strategies."
        ).format(
            die_a=option_word("die_a"),
            die_b=option_word("die_b"),
            games=number(4 * table.games_per_mix),
        )
    )
    return embed


def knucklebones_message() -> dict[str, Any]:
    levels = figures.KNUCKLEBONES_FIGURES.get()
    embed = discord.Embed(
        title=_("Knucklebones: does moving first help, and how long is a game?"),
        description=_(
            "Simulated games with both players at the same level; the first player is the one "
            "who places the first die."
        ),
        colour=EMBED_COLOUR,
    )
    embed.add_field(
        name=_("First-player advantage"),
        value="\n".join(render.seat_line(level) for level in levels),
        inline=False,
    )
    embed.add_field(
        name=_("Reading"),
        value="\n".join(render.advantage_reading(level) for level in levels),
        inline=False,
    )
    embed.add_field(
        name=_("Game length"),
        value="\n".join(render.length_line(level) for level in levels),
        inline=False,
    )
    embed.set_footer(text=_("Simulated games with a fixed seed: everyone sees the same numbers."))
    return {"embed": embed}


# ---------------------------------------------------------------------------------------
# Answering
# ---------------------------------------------------------------------------------------


async def answer(
    interaction: discord.Interaction,
    *,
    share: bool,
    needs: figures.Once[Any] | figures.PerLanguage[Any] | None,
    build: Callable[[], dict[str, Any]],
) -> None:
    """Answer with ``build()``'s message fields. When ``needs`` is not computed yet, defer
    first (Discord wants an answer within 3 s) and compute it in a worker thread."""
    reply = answer_for(interaction)
    reply.public = share
    if needs is not None and not needs.ready:
        await reply.defer()
        await asyncio.to_thread(needs.get)
    await reply.send(ephemeral=not share, **build())


def diceman_message() -> dict[str, Any]:
    return {"embed": diceman_embed(), "file": figures.DICEMAN_PICTURE.get().file()}


@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class OddsCog(
    commands.GroupCog,
    name="Odds",
    group_name="odds",
    group_description="Exact odds and simulated statistics for the dice games.",
):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(
        name="diceman", description="Which Diceman dice to pick: who beats whom, exactly."
    )
    @app_commands.describe(share=SHARE_HELP)
    async def diceman(self, interaction: discord.Interaction, share: bool = False) -> None:
        await answer(interaction, share=share, needs=figures.DICEMAN_PICTURE, build=diceman_message)

    @app_commands.command(
        name="weighted", description="Exact win and tie chances of two Weighted Dice rollers."
    )
    @app_commands.describe(
        die_a="The first roller's die (leave both dice out for the whole grid).",
        die_b="The second roller's die.",
        share=SHARE_HELP,
    )
    @app_commands.choices(die_a=DIE_CHOICES, die_b=DIE_CHOICES)
    async def weighted(
        self,
        interaction: discord.Interaction,
        die_a: app_commands.Choice[int] | None = None,
        die_b: app_commands.Choice[int] | None = None,
        share: bool = False,
    ) -> None:
        if die_a is not None and die_b is not None:
            embed = weighted_pair_embed(die_a.value, die_b.value)
        elif die_a is not None:
            embed = weighted_die_embed(die_a.value)
        elif die_b is not None:
            embed = weighted_die_embed(die_b.value)
        else:
            embed = weighted_grid_embed()
        await answer(interaction, share=share, needs=None, build=lambda: {"embed": embed})

    @app_commands.command(
        name="knucklebones",
        description="Knucklebones: the first player's advantage and how long games last.",
    )
    @app_commands.describe(share=SHARE_HELP)
    async def knucklebones(self, interaction: discord.Interaction, share: bool = False) -> None:
        await answer(
            interaction, share=share, needs=figures.KNUCKLEBONES_FIGURES, build=knucklebones_message
        )


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(OddsCog(bot))
