"""What the shared commands say about a game: its ``GameGuide``. ``/help``'s line (how many
play it, what it is), ``/rules``' card and this server's timers, how ``/stats`` words a
player's favourite pick and any extra line of theirs (with ``/history``, a score line's
leading word), and where a finished game's summary keeps each seat's picks (what the ladder
counts for those favourites).

Each game's package defines its guide (``cogs/<game>/guide.py``) and registers it with the
runtime when the game is loaded, beside its handler; ``GuideBook`` is that registry, read
in the catalog's game order. A game the book does not know (its cog is not loaded) has no
line, no card, no counted picks and the plain wording of ``/stats``.

Discord-free: every text is marked with ``N_`` and translated where it is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from bot.model.catalog import GAME_TITLES, GAMES


@dataclass(frozen=True)
class RulesCard:
    """One game's rules, every text marked with ``N_``. A text may name a slash command as
    ``{placeholder}`` (``GameGuide.commands`` says which)."""

    summary: str
    sections: tuple[tuple[str, str], ...]  # (heading, text)
    house: str  # the house decisions this bot plays by


@dataclass(frozen=True)
class ServerTimers:
    """What ``/rules`` says under "On this server": a text (``N_``) with one placeholder
    per timer, each filled with the duration of a server setting (a ``GuildSettings`` field,
    in seconds; named rather than imported, as the settings live in a higher layer)."""

    text: str
    settings: Mapping[str, str]  # placeholder -> GuildSettings field


@dataclass(frozen=True)
class Picks:
    """A game whose players' picks are counted for ``/stats``' favourite (Diceman's dice
    pairs, Dimension Duel's functions)."""

    # The key of a finished game's summary that holds each seat's picks: a list in seat
    # order or a dict by seat, each a list of picks (``bot.ladder.results.picks_of``).
    key: str
    head: str  # "Favourite dice" (``N_``)
    # How many times it was picked: the translated template ("{count} rounds") for a count.
    uses: Callable[[int], str]
    # A counted pick ("priority+sword") in the current language ("Priority + Sword").
    words: Callable[[str], str]


@dataclass(frozen=True)
class GameGuide:
    """What ``/help``, ``/rules`` and ``/stats`` say about one game."""

    game: str  # its key in ``bot.model.catalog``
    fewest: int  # players
    most: int
    line: str  # /help's line (``N_``)
    rules: RulesCard
    timers: ServerTimers
    # The slash commands the rules name: placeholder -> the command's words (("weighted",
    # "new")), shown as the player's client lists them.
    commands: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    picks: Picks | None = None  # None: nothing counted, /stats' plain wording
    # /stats' line of the average final score (``N_``, with ``{score}``); None: not shown.
    average_score: str | None = None
    # The word its stored score lines start with (stored in English: "Life" of "Life 20–4"),
    # marked with ``N_``: /stats and /history show any loaded game's word in the reader's
    # language (a line of a game no longer loaded may start with it too).
    score_word: str | None = None


class GuideBook:
    """The guides of the games loaded in one bot, in the catalog's game order."""

    def __init__(self, guides: Iterable[GameGuide] = ()) -> None:
        self._guides: dict[str, GameGuide] = {}
        for guide in guides:
            self.register(guide)

    def register(self, guide: GameGuide) -> None:
        """Add (or, for a reloaded game, replace) a game's guide. The game must be in the
        catalog: its title and its place in every list come from there."""
        if guide.game not in GAME_TITLES:
            raise ValueError(f"{guide.game!r} is not in bot.model.catalog.GAME_TITLES")
        self._guides[guide.game] = guide

    def get(self, game: str) -> GameGuide | None:
        return self._guides.get(game)

    def __iter__(self) -> Iterator[GameGuide]:
        return (self._guides[game] for game in GAMES if game in self._guides)

    def __len__(self) -> int:
        return len(self._guides)

    def picks_key(self, game: str) -> str | None:
        """Where a finished game's summary keeps each seat's picks; None: none to count."""
        guide = self._guides.get(game)
        return guide.picks.key if guide is not None and guide.picks is not None else None
