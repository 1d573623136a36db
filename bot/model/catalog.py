"""The games the bot hosts: their keys and their titles in every language. The lowest
layer's registry, so that storage, the ladder and the cogs all name games the same way
without importing one another."""

from __future__ import annotations

from bot.i18n import N_, _

# Proper names in every language, still through the catalogs (``game_title``); the
# English stays the choice names of the slash commands (their translator localizes those).
GAME_TITLES: dict[str, str] = {
    "knucklebones": N_("Knucklebones"),
    "diceman": N_("Diceman"),
    "weighted_dice": N_("Weighted Dice"),
    "dimension_duel": N_("Dimension Duel"),
}
GAMES: tuple[str, ...] = tuple(GAME_TITLES)


def game_title(game: str) -> str:
    """A game's title in the current language (the game's proper name)."""
    title = GAME_TITLES.get(game)
    return _(title) if title is not None else game.replace("_", " ").title()
