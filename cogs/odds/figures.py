"""The numbers behind ``/odds``, computed once per process and kept.

Every figure is a pure function of the rules (the simulations use a fixed seed), so it is
computed on first use and never again. This module is not a cog: ``load_extension``
re-executes a cog's module on every (re)load, which would throw the caches away, while a
plain module is imported once per process. What a figure is computed or drawn with (the
AI and the lab load numpy, the picture Pillow) is imported when it is first computed, so
the bot's process loads them only once someone asks ``/odds``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import cache
from typing import Any, Generic, TypeVar

from bot import i18n
from bot.pictures.picture import Picture
from cogs.odds import render
from game_core.weighted_dice import win_probabilities

log = logging.getLogger(__name__)

T = TypeVar("T")


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
    # Imported on first use: the AI and its analysis load numpy (about 10 MiB), which the
    # bot's process needs for nothing else unless a game against the AI moves.
    from game_core.ai.diceman import equilibrium, matchup_table
    from game_core.analysis.diceman import label

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


class PerLanguage(Generic[T]):
    """A ``Once`` per language, for a value that holds translated text (a picture's labels
    and alt text): ``get`` and ``ready`` answer for the language in use where they are
    called (``asyncio.to_thread`` carries it into the worker thread), and the value is
    computed inside ``i18n.use`` of that language."""

    def __init__(self, compute: Callable[[], T], name: str) -> None:
        self._compute = compute
        self._name = name
        self._lock = threading.Lock()
        self._values: dict[str, Once[T]] = {}

    def _once(self) -> Once[T]:
        language = i18n.current()
        with self._lock:
            once = self._values.get(language)
            if once is None:

                def compute() -> T:
                    with i18n.use(language):
                        return self._compute()

                once = Once(compute, f"{self._name} ({language})")
                self._values[language] = once
        return once

    @property
    def ready(self) -> bool:
        return self._once().ready

    def get(self) -> T:
        return self._once().get()

    def forget(self) -> None:
        """Drop every language's value (tests use it to exercise the first request)."""
        with self._lock:
            self._values.clear()


def _diceman_picture() -> Picture:
    # Imported on first use: the drawing loads Pillow, which the bot's process does not
    # load unless it draws itself.
    from cogs.odds import picture

    return picture.render_diceman_picture(diceman_figures())


# The picture's title and alt text are in the player's language: one picture per language.
DICEMAN_PICTURE: PerLanguage[Picture] = PerLanguage(_diceman_picture, "the Diceman odds picture")


# Knucklebones: a fixed seed, so every process shows the same numbers. Random play uses the
# lab's vectorised simulation (~0.3 s for 200,000 games); medium play goes through the
# engine one game at a time (~0.4 s for 10,000). Hard play (a search, ~50 ms a game) is
# too slow to run on demand: the CLI measures it.
KNUCKLEBONES_SEED = 20240601
RANDOM_GAMES = 200_000
MEDIUM_GAMES = 10_000


def seat_figures(level: str, report: dict[str, Any]) -> render.SeatFigures:
    """One level's numbers from a lab report (``simulate_random_games``/``simulate_games``)."""
    advantage = report["first_player_advantage"]
    turns = report["turns"]
    percentiles = turns["percentiles"]
    return render.SeatFigures(
        level=level,
        games=report["games"],
        first_wins=advantage["win_rate_all"],
        first_ci95=(advantage["ci95_all"][0], advantage["ci95_all"][1]),
        second_wins=advantage["second_win_rate_all"],
        draws=advantage["draw_rate"],
        decided_share=advantage["win_rate_decided"],
        decided_ci95=(advantage["ci95_decided"][0], advantage["ci95_decided"][1]),
        mean_turns=turns["mean"],
        median_turns=percentiles.get("p50"),
        turns_p10=percentiles.get("p10"),
        turns_p90=percentiles.get("p90"),
    )


def knucklebones_figures() -> tuple[render.SeatFigures, ...]:
    # Imported on first use: the simulation module is only needed for this one answer.
    from game_core.analysis import knucklebones as knucklebones_lab

    random_play = knucklebones_lab.simulate_random_games(RANDOM_GAMES, KNUCKLEBONES_SEED)
    medium_play = knucklebones_lab.simulate_games(
        "medium", "medium", MEDIUM_GAMES, KNUCKLEBONES_SEED
    )
    return (seat_figures("Random", random_play), seat_figures("Medium", medium_play))


KNUCKLEBONES_FIGURES: Once[tuple[render.SeatFigures, ...]] = Once(
    knucklebones_figures, "the Knucklebones odds"
)


def pair_odds(die_a: int, die_b: int) -> render.PairOdds:
    a_wins, b_wins, tie = win_probabilities(die_a, die_b)
    return render.PairOdds(die_a, die_b, a_wins, b_wins, tie)
