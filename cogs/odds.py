"""``/odds``: exact odds and simulated statistics from the analysis lab, in Discord.

- ``/odds diceman``: the exact 6x6 combo table as a heatmap picture, the equilibrium mix
  below it (``game_core.ai.diceman.matchup_table`` and ``equilibrium``).
- ``/odds weighted [die_a] [die_b]``: the exact win and tie chances of two dice
  (``game_core.weighted_dice.win_probabilities``); one die gives it against every die, none
  gives the whole grid.
- ``/odds knucklebones``: the first-player advantage and the typical game length, from the
  lab's vectorised random-play simulation with a fixed seed.

Every number is a pure function of the rules, so each is computed once per process and
kept (the heatmap as PNG bytes). Nothing is computed at start-up: the first request that
needs a slow figure defers, computes it in a worker thread (the event loop keeps serving
games) and fills the deferred answer; later requests answer at once.

Answers are ephemeral unless the player asks to ``share`` them with the channel.
"""

from __future__ import annotations

import asyncio
import io
import logging
import threading
import time
from collections.abc import Callable
from functools import cache
from typing import Any, Generic, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from cogs import odds_render as render
from game_core.ai.diceman import equilibrium, matchup_table
from game_core.analysis.diceman import label
from game_core.weighted_dice import DICE, win_probabilities

log = logging.getLogger(__name__)

T = TypeVar("T")

EMBED_COLOUR = discord.Colour.teal()
DIE_CHOICES = [app_commands.Choice(name=f"d{die}", value=die) for die in DICE]
SHARE_HELP = "Post the answer for everyone in the channel (default: only you see it)."


class Once(Generic[T]):
    """A value computed at most once per process, on first use, safely from any thread.

    ``get`` computes it in the calling thread (the lock makes concurrent first callers wait
    for one computation); ``ready`` says whether asking costs nothing.
    """

    def __init__(self, compute: Callable[[], T], name: str) -> None:
        self._compute = compute
        self._name = name
        self._lock = threading.Lock()
        self._value: T | None = None
        self._done = False

    @property
    def ready(self) -> bool:
        return self._done

    def get(self) -> T:
        if self._done:
            return self._value  # type: ignore[return-value]
        with self._lock:
            if not self._done:
                started = time.perf_counter()
                self._value = self._compute()
                self._done = True
                log.info("computed %s in %.2f s", self._name, time.perf_counter() - started)
        return self._value  # type: ignore[return-value]

    def forget(self) -> None:
        """Drop the value (tests use it to exercise the first-request path)."""
        with self._lock:
            self._value = None
            self._done = False


# ---------------------------------------------------------------------------------------
# The figures (pure, cached)
# ---------------------------------------------------------------------------------------


@cache
def diceman_figures() -> render.DicemanFigures:
    table = matchup_table()
    solution = equilibrium()
    return render.DicemanFigures(
        labels=tuple(label(combo) for combo in table.combos),
        p_more=tuple(tuple(float(cell.p_more) for cell in row) for row in table.entries),
        balance=tuple(tuple(float(cell.balance) for cell in row) for row in table.entries),
        mix=tuple(
            render.MixEntry(label(combo), float(share), str(share))
            for combo, share in solution.mix.items()
        ),
        value=float(solution.value),
    )


def _diceman_picture() -> bytes:
    return render.render_diceman_heatmap(diceman_figures())


DICEMAN_PICTURE: Once[bytes] = Once(_diceman_picture, "the Diceman odds heatmap")


def pair_odds(die_a: int, die_b: int) -> render.PairOdds:
    a_wins, b_wins, tie = win_probabilities(die_a, die_b)
    return render.PairOdds(die_a, die_b, a_wins, b_wins, tie)


# ---------------------------------------------------------------------------------------
# Embeds
# ---------------------------------------------------------------------------------------


def diceman_embed() -> discord.Embed:
    figures = diceman_figures()
    embed = discord.Embed(
        title="Diceman: which two dice beat which",
        description=(
            "Each cell: the chance that the **row** combination deals more damage than the "
            "**column** in one round (every roll counted exactly); the small number is the "
            "expected damage dealt minus received.\n" + render.DIE_KEY.replace("   ", " · ")
        ),
        colour=EMBED_COLOUR,
    )
    embed.set_image(url=f"attachment://{render.HEATMAP_NAME}")
    embed.add_field(
        name="Equilibrium mix", value="\n".join(render.diceman_mix_lines(figures)), inline=False
    )
    embed.add_field(name="Reading", value=render.diceman_reading(figures), inline=False)
    return embed


def weighted_pair_embed(die_a: int, die_b: int) -> discord.Embed:
    odds = pair_odds(die_a, die_b)
    embed = discord.Embed(
        title=f"Weighted Dice: d{die_a} against d{die_b}",
        description="\n".join(render.pair_lines(odds)),
        colour=EMBED_COLOUR,
    )
    embed.add_field(name="Reading", value=render.pair_reading(odds), inline=False)
    embed.set_footer(text="Exact: every pair of faces counted once. Higher roll wins.")
    return embed


def weighted_die_embed(die: int) -> discord.Embed:
    rows = [pair_odds(die, other) for other in DICE]
    table = "\n".join(render.die_against_all_lines(die, rows))
    return discord.Embed(
        title=f"Weighted Dice: a d{die} against every die",
        description=f"```\n{table}\n```\nA tie means the house takes every bet.",
        colour=EMBED_COLOUR,
    )


def weighted_grid_embed() -> discord.Embed:
    wins = {(a, b): float(pair_odds(a, b).a_wins) for a in DICE for b in DICE}
    ties = {(a, b): float(pair_odds(a, b).tie) for a in DICE for b in DICE}
    wins_table = "\n".join(render.odds_grid_lines(DICE, wins))
    ties_table = "\n".join(render.odds_grid_lines(DICE, ties))
    embed = discord.Embed(
        title="Weighted Dice: exact odds, row die against column die",
        description=(
            f"**The row roller wins**\n```\n{wins_table}\n```\n"
            f"**Tie: the house takes every bet**\n```\n{ties_table}\n```"
        ),
        colour=EMBED_COLOUR,
    )
    embed.set_footer(text="Pick die_a and die_b for the exact fractions of one pair.")
    return embed


# ---------------------------------------------------------------------------------------
# Answering
# ---------------------------------------------------------------------------------------


async def answer(
    interaction: discord.Interaction,
    *,
    share: bool,
    needs: Once[Any] | None,
    build: Callable[[], dict[str, Any]],
) -> None:
    """Answer with ``build()``'s message fields. When ``needs`` is not computed yet, defer
    first (Discord wants an answer within 3 s) and compute it in a worker thread."""
    ephemeral = not share
    if needs is not None and not needs.ready:
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)
        await asyncio.to_thread(needs.get)
    fields = build()
    if interaction.response.is_done():
        await interaction.followup.send(ephemeral=ephemeral, **fields)
    else:
        await interaction.response.send_message(ephemeral=ephemeral, **fields)


def diceman_message() -> dict[str, Any]:
    picture = discord.File(io.BytesIO(DICEMAN_PICTURE.get()), filename=render.HEATMAP_NAME)
    return {"embed": diceman_embed(), "file": picture}


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
        name="diceman", description="Which Diceman combinations beat which: an exact heatmap."
    )
    @app_commands.describe(share=SHARE_HELP)
    async def diceman(self, interaction: discord.Interaction, share: bool = False) -> None:
        await answer(interaction, share=share, needs=DICEMAN_PICTURE, build=diceman_message)

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


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(OddsCog(bot))
