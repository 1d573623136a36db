"""The real bot as its own process, with one command Discord would refuse in its tree:
``python -m hosting.refused_commands <api_base> <gateway_url>``.

It runs what ``fakediscord.process`` runs (discord.py pointed at the fake, then the bot's
real entry point: settings, logging, ``serve`` and its exit code), except that each bot
``serve`` creates gets ``/refused end``, whose ``table`` option has the bound
``/weighted end`` once had (2**63 - 1, past Discord's int53). Only this launcher, under
``tests/``, adds it: the product has no hook for it.
"""

from __future__ import annotations

import sys
from typing import Any

import discord
from discord import app_commands
from fakediscord.process import main as run_against_fake

OLD_BOUND = 9_223_372_036_854_775_807


def refused_group() -> app_commands.Group:
    group = app_commands.Group(name="refused", description="A command Discord would refuse.")

    @group.command(name="end", description="Stop a table.")
    @app_commands.describe(table="The table number.")
    async def end(
        interaction: discord.Interaction,
        table: app_commands.Range[int, 1, OLD_BOUND] | None = None,
    ) -> None:
        del interaction, table

    return group


def main(argv: list[str]) -> int:
    import bot.service.lifecycle

    create_bot = bot.service.lifecycle.create_bot

    def create_with_refused_command(*args: Any, **options: Any) -> Any:
        made = create_bot(*args, **options)
        made.tree.add_command(refused_group())
        return made

    bot.service.lifecycle.create_bot = create_with_refused_command
    return run_against_fake(argv)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
