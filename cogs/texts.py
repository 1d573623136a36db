"""The shared cogs' text library: what ``/leaderboard``, ``/dicebot``, ``/help``, ``/rules``
and ``/odds`` all say the same way. The games as a command option offers them, slash
commands and their options named as the player's client lists them, how to start a game,
a player's stored name, and lines kept inside Discord's limits.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.app import DiceBot
from bot.i18n import _, list_of, pgettext
from bot.model.catalog import GAME_TITLES
from bot.model.command_mentions import command_mention
from bot.model.text import escape

GAME_CHOICES = [app_commands.Choice(name=title, value=game) for game, title in GAME_TITLES.items()]
# Discord's limits, with a little room to spare.
DESCRIPTION_LIMIT = 4000
FIELD_LIMIT = 1000
FOOTER_LIMIT = 2000
TITLE_LIMIT = 250


def player_name(user_id: int, display_name: str) -> str:
    """A player as a leaderboard or history names them: the stored display name, escaped
    (a mention only for a record from before names were kept)."""
    return escape(display_name) if display_name.strip() else f"<@{user_id}>"


def join_lines(lines: list[str], limit: int) -> str:
    """Lines joined up to ``limit`` characters, dropping whole lines at the end."""
    kept: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > limit:
            kept.append("…")
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(kept)


def clip_text(text: str, limit: int) -> str:
    """``text`` shortened with an ellipsis to at most ``limit`` characters (lines kept)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# The context the command translator asks option names in. Passed as a variable, so the
# catalogs' extractor leaves these look-ups alone: the names are the command areas' entries.
OPTION_NAME = "option name"


def option_word(name: str) -> str:
    """An option's name (``best_of``) as Discord shows it in this language."""
    return pgettext(OPTION_NAME, name)


def command_text(*names: str) -> str:
    """A slash command for the player to use: a clickable mention each reader's client
    shows in their own language (``bot.model.command_mentions``), or, before the sync told
    its id, ``/knucklebones challenge`` in backticks in the current language."""
    return command_mention(*names)


def game_group(bot: DiceBot, game: str) -> app_commands.Group | None:
    """The slash command group ``game``'s cog registered (None if it is not loaded). The
    cog is the session handler itself or holds it as ``handler`` (the secret duels)."""
    handler = bot.sessions.handlers.get(game)
    for cog in bot.cogs.values():
        if not isinstance(cog, commands.GroupCog) or cog.app_command is None:
            continue
        owns = getattr(cog, "game", None) == game or (
            handler is not None and handler in (cog, getattr(cog, "handler", None))
        )
        if owns:
            return cog.app_command
    return None


def playable_anywhere(bot: DiceBot, game: str) -> bool:
    """Whether ``game``'s commands may be installed to a person's account, so it is played
    in DMs, group DMs and servers without the bot too (the duels; not Weighted Dice)."""
    group = game_group(bot, game)
    installs = group.allowed_installs if group is not None else None
    return installs is not None and installs.user


def start_hint(bot: DiceBot, game: str) -> str:
    """How to start a game of ``game``, from the commands its cog actually registered, as
    mentions (so only where Discord shows them: a description or a field's value)."""
    group = game_group(bot, game)
    if group is not None:
        names = [command.name for command in group.commands]
        starters = [
            command_text(group.name, name) for name in ("challenge", "ai", "new") if name in names
        ]
        if len(starters) == 1:
            return _("Start one with {command}.").format(command=starters[0])
        if len(starters) == 2:
            return _("Start one with {first} or {second}.").format(
                first=starters[0], second=starters[1]
            )
        if starters:
            # Translators: {commands} is a list of slash commands, joined the language's way.
            return _("Start one with {commands}.").format(commands=list_of(starters))
    return _("Start one with that game's slash command.")
