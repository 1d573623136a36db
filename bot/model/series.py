"""Games that follow one another between the same two players: rematches and match play.

Each game of a series carries a ``Series`` in its stored state (``state["series"]``): who
plays, the session it follows, and the score BEFORE it. The score after a game is that
score plus the game's own stored result, so every message can show the running score from
its own session alone, and nothing depends on memory: a restart, or another process,
reads the same. A finished game that was followed up stores the new session's id
(``state["follow_up"]``, see ``SessionService.follow_up``), so the links go both ways.

- **Match play** (``best_of`` 3 or 5): the games of one match. A game won counts for its
  winner, a drawn game for nobody. The match is over once a player has more wins than the
  other can still reach in the games left, or after ``best_of`` games (equal wins: a
  drawn match). The ladder ranks every game on its own (see the README).
- **Rematch chain**: every rematch of a game (or of a whole match) continues the chain's
  score, counted in games (or matches) won: "Alice leads 2–1".

Pure data and text: no Discord, no database.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, StrictInt

from bot.i18n import _, ngettext, number
from bot.model.text import escape

SERIES_KEY = "series"
FOLLOW_UP_KEY = "follow_up"
BEST_OF_CHOICES = (1, 3, 5)
# The ``best_of`` option of every challenge command: one game, or a series (what the code
# calls a match: ``is_match``, ``match_wins``).
BestOf = Literal[1, 3, 5]
BEST_OF_HELP = "One game (default), or a series: best of 3 or best of 5."


class Series(BaseModel):
    """Where a game stands in its match and its rematch chain (scores before it)."""

    model_config = ConfigDict(frozen=True)

    # The two players' user ids; every score below is in this order.
    players: tuple[StrictInt, StrictInt]
    # The session this game follows (a rematch, or the match's previous game).
    previous: StrictInt | None = None
    best_of: StrictInt = 1
    # This game's number in its match (1 for a single game).
    game: StrictInt = 1
    # Games of this match won before this one (draws are the games left over).
    match_wins: tuple[StrictInt, StrictInt] = (0, 0)
    # Rematch chain: games (or whole matches) won and drawn before this game's own.
    chain_wins: tuple[StrictInt, StrictInt] = (0, 0)
    chain_draws: StrictInt = 0
    # How many rematches led here: 0 for the first game (or match) of a chain.
    rematches: StrictInt = 0

    @property
    def is_match(self) -> bool:
        return self.best_of > 1

    def index_of(self, user_id: int | None) -> int | None:
        if user_id is None or user_id not in self.players:
            return None
        return self.players.index(user_id)


def load_series(state: Mapping[str, Any]) -> Series | None:
    raw = state.get(SERIES_KEY)
    return None if raw is None else Series.model_validate(raw)


def follow_up_of(state: Mapping[str, Any]) -> int | None:
    """The session that followed this finished one, if any."""
    value = state.get(FOLLOW_UP_KEY)
    return value if isinstance(value, int) else None


def with_series(state: dict[str, Any], series: Series | None) -> dict[str, Any]:
    if series is not None:
        state[SERIES_KEY] = series.model_dump(mode="json")
    return state


def keep_series(before: Mapping[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """A step's new state keeps the series the session had (a game's own state model does
    not know about it)."""
    if SERIES_KEY in before and SERIES_KEY not in after:
        after[SERIES_KEY] = before[SERIES_KEY]
    return after


def new_match(challenger: int, opponent: int, best_of: int) -> Series | None:
    """The series of a challenge: a match when ``best_of`` is more than one game."""
    if best_of not in BEST_OF_CHOICES:
        raise ValueError(f"best_of must be one of {BEST_OF_CHOICES}")
    if best_of == 1:
        return None
    return Series(players=(challenger, opponent), best_of=best_of)


# -- scores ---------------------------------------------------------------------------------


def _plus(wins: tuple[int, int], index: int | None) -> tuple[int, int]:
    if index is None:
        return wins
    return (wins[0] + 1, wins[1]) if index == 0 else (wins[0], wins[1] + 1)


def match_wins_after(series: Series, winner: int | None) -> tuple[int, int]:
    """This match's wins once this game (won by ``winner``, None for a draw) counts."""
    return _plus(series.match_wins, series.index_of(winner))


def match_decided(best_of: int, wins: tuple[int, int], played: int) -> bool:
    """Over when the leader has more wins than the other can still reach, or all games
    are played."""
    left = best_of - played
    return left <= 0 or abs(wins[0] - wins[1]) > left


def match_over_after(series: Series, winner: int | None) -> bool:
    """Whether this game ends its match (a single game always does)."""
    if not series.is_match:
        return True
    return match_decided(series.best_of, match_wins_after(series, winner), series.game)


def match_winner(wins: tuple[int, int], players: tuple[int, int]) -> int | None:
    if wins[0] == wins[1]:
        return None
    return players[0] if wins[0] > wins[1] else players[1]


def unit_winner(series: Series, winner: int | None) -> int | None:
    """Who won the unit the chain counts (this game, or this game's whole match)."""
    if not series.is_match:
        return winner
    return match_winner(match_wins_after(series, winner), series.players)


def chain_after(series: Series, winner: int | None) -> tuple[tuple[int, int], int]:
    """The chain's (wins, draws) once this game counts: a single game always, a match's
    game only when it ends the match."""
    if not match_over_after(series, winner):
        return series.chain_wins, series.chain_draws
    index = series.index_of(unit_winner(series, winner))
    if index is None:
        return series.chain_wins, series.chain_draws + 1
    return _plus(series.chain_wins, index), series.chain_draws


# -- what follows a finished game ----------------------------------------------------------


def series_of(players: tuple[int, int], stored: Series | None) -> Series:
    """The series a finished game belongs to: a single game that never had one is the
    first of a chain between its two seats."""
    return stored if stored is not None else Series(players=players)


def next_in_match(series: Series, winner: int | None, previous: int) -> Series:
    """The match's next game, after this one (which did not end the match)."""
    return series.model_copy(
        update={
            "previous": previous,
            "game": series.game + 1,
            "match_wins": match_wins_after(series, winner),
        }
    )


def rematch_after(series: Series, winner: int | None, previous: int) -> Series:
    """A rematch of this game (or of its whole match): the same kind of game from the
    start, the chain's score carried on."""
    wins, draws = chain_after(series, winner)
    return series.model_copy(
        update={
            "previous": previous,
            "game": 1,
            "match_wins": (0, 0),
            "chain_wins": wins,
            "chain_draws": draws,
            "rematches": series.rematches + 1,
        }
    )


# -- texts (names escaped here; ``names`` maps user ids to display names as written) ------
#
# Players read a best of 3 or 5 as a **series** and the running score of the games two
# players played against each other, rematch after rematch, as their **head-to-head**. Each
# line below is one whole sentence of the catalogs, chosen for the case (level or who
# leads, draws or none), never a score phrase slotted into another sentence.


def _score(high: int, low: int) -> str:
    return f"{number(high)}–{number(low)}"


def _leader(wins: tuple[int, int], players: tuple[int, int], names: Mapping[int, str]) -> str:
    leader = 0 if wins[0] > wins[1] else 1
    return escape(names.get(players[leader], "?"))


def _chain_text(wins: tuple[int, int], draws: int, series: Series, names: Mapping[int, str]) -> str:
    """The head-to-head score of a rematch chain: games won by each or, for series, series
    won, with the drawn ones; one sentence."""
    score = _score(max(wins), min(wins))
    level = wins[0] == wins[1]
    name = _leader(wins, series.players, names)
    count = number(draws)
    if series.is_match:
        if level and draws:
            return ngettext(
                "Head-to-head in series: level at {score}, with {count} drawn series.",
                "Head-to-head in series: level at {score}, with {count} drawn series.",
                draws,
            ).format(score=score, count=count)
        if level:
            return _("Head-to-head in series: level at {score}.").format(score=score)
        if draws:
            return ngettext(
                "Head-to-head in series: {name} leads {score}, with {count} drawn series.",
                "Head-to-head in series: {name} leads {score}, with {count} drawn series.",
                draws,
            ).format(name=name, score=score, count=count)
        return _("Head-to-head in series: {name} leads {score}.").format(name=name, score=score)
    if level and draws:
        return ngettext(
            "Head-to-head: level at {score}, with {count} draw.",
            "Head-to-head: level at {score}, with {count} draws.",
            draws,
        ).format(score=score, count=count)
    if level:
        return _("Head-to-head: level at {score}.").format(score=score)
    if draws:
        return ngettext(
            "Head-to-head: {name} leads {score}, with {count} draw.",
            "Head-to-head: {name} leads {score}, with {count} draws.",
            draws,
        ).format(name=name, score=score, count=count)
    return _("Head-to-head: {name} leads {score}.").format(name=name, score=score)


def challenge_line(series: Series | None, names: Mapping[int, str]) -> str:
    """The series part of a challenge (or rematch) message: the series' length, and the
    head-to-head score so far ("" when neither applies)."""
    if series is None:
        return ""
    parts: list[str] = []
    if series.is_match:
        needed = series.best_of // 2 + 1
        parts.append(
            _(
                "🏅 Best of {count}: the first to {needed} wins takes the series (a drawn game "
                "counts for nobody)."
            ).format(count=number(series.best_of), needed=number(needed))
        )
    if series.rematches:
        parts.append(_chain_text(series.chain_wins, series.chain_draws, series, names))
    return " ".join(parts)


def is_rematch(state: Mapping[str, Any]) -> bool:
    """Whether a (pending) session is a rematch of an earlier game."""
    series = load_series(state)
    return series is not None and series.rematches > 0 and series.game == 1


def running_line(series: Series | None, names: Mapping[int, str]) -> str | None:
    """The series line of a game being played: the series score before it, and the
    head-to-head score once there is a rematch chain."""
    if series is None:
        return None
    parts: list[str] = []
    if series.is_match:
        wins = series.match_wins
        count, game = number(series.best_of), number(series.game)
        if series.game == 1:
            parts.append(_("🏅 Best of {count}, game {game}.").format(count=count, game=game))
        elif wins[0] == wins[1]:
            parts.append(
                _("🏅 Best of {count}, game {game}: level at {score}.").format(
                    count=count, game=game, score=_score(wins[0], wins[1])
                )
            )
        else:
            parts.append(
                _("🏅 Best of {count}, game {game}: {name} leads {score}.").format(
                    count=count,
                    game=game,
                    name=_leader(wins, series.players, names),
                    score=_score(max(wins), min(wins)),
                )
            )
    if series.rematches:
        text = _chain_text(series.chain_wins, series.chain_draws, series, names)
        parts.append(text if series.is_match else f"🔁 {text}")
    return " ".join(parts) if parts else None


def finished_line(series: Series | None, winner: int | None, names: Mapping[int, str]) -> str:
    """The series line of a finished game (None-free: "" when there is nothing to say)."""
    if series is None:
        return ""
    parts: list[str] = []
    if series.is_match:
        wins = match_wins_after(series, winner)
        count = number(series.best_of)
        if match_over_after(series, winner):
            champion = match_winner(wins, series.players)
            score = _score(max(wins), min(wins))
            if champion is None:
                parts.append(
                    _("🤝 The series is drawn, {score} (best of {count}).").format(
                        score=score, count=count
                    )
                )
            else:
                name = escape(names.get(champion, "?"))
                parts.append(
                    _("🏅 **{name} wins the series**, {score} (best of {count}).").format(
                        name=name, score=score, count=count
                    )
                )
        elif wins[0] == wins[1]:
            parts.append(
                _("🏅 Best of {count}, after game {game}: level at {score}.").format(
                    count=count, game=number(series.game), score=_score(wins[0], wins[1])
                )
            )
        else:
            parts.append(
                _("🏅 Best of {count}, after game {game}: {name} leads {score}.").format(
                    count=count,
                    game=number(series.game),
                    name=_leader(wins, series.players, names),
                    score=_score(max(wins), min(wins)),
                )
            )
    if series.rematches:
        wins, draws = chain_after(series, winner)
        text = _chain_text(wins, draws, series, names)
        parts.append(text if series.is_match else f"🔁 {text}")
    return " ".join(parts)
