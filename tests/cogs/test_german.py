"""German (de) as players read it: Knucklebones' status line, results, warning and the
board's alt text (a number's plural: "1 Punkt", "0 Punkte"; a face as a German number:
"eine 3", "zwei 3er"), and the Weighted Dice bet form, whose suggested word for "everything"
is one the bot accepts (in every shipped language)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot import i18n
from cogs.knucklebones import alt_text, render
from cogs.weighted_dice.state import parse_amount
from game_core import knucklebones as kb

PLAYERS = [render.Player(0, 11, "alice"), render.Player(1, 22, "bob")]
DUE = 1_800_000_300.0


def position(
    boards: list[list[list[int]]],
    *,
    current: int = 0,
    die: int | None = 4,
    last_move: kb.LastMove | None = None,
    winners: list[int] | None = None,
    reason: str | None = None,
    ended_by: int | None = None,
) -> dict[str, Any]:
    finished = reason is not None
    state = kb.KnucklebonesState(
        phase="finished" if finished else "place",
        turn=5,
        first_player=0,
        current_player=current,
        die=None if finished else die,
        boards=boards,
        last_move=last_move,
        winners=winners or [],
        draw=finished and not winners,
        end_reason=reason,
        ended_by=ended_by,
    )
    return kb.public_view(state)


KNOCKOUT = position(
    [[[], [3, 5, 3], []], [[], [5], []]],
    current=1,
    die=2,
    last_move=kb.LastMove(player=0, column=1, face=3, removed=[3, 3]),
)


def test_the_knucklebones_status_line_and_results_in_german() -> None:
    boards = [[[6], [], []], [[1], [], []]]
    with i18n.use("de"):
        line = render.status_line(KNOCKOUT, PLAYERS, render.Clock(turn_due_at=DUE))
        warned = render.status_line(KNOCKOUT, PLAYERS, render.Clock(turn_due_at=DUE, warned=True))
        ai = render.status_line(
            position([[[1], [], []], [[], [], []]], current=1, die=5),
            [PLAYERS[0], render.Player(1, 99, "Dicebot", is_ai=True)],
            render.Clock(),
            ai_level="hard",
        )
        forfeit = render.result_line(
            position(boards, winners=[1], reason="forfeit", ended_by=0), PLAYERS
        )
        timeout = render.result_line(
            position(boards, winners=[0], reason="timeout", ended_by=1), PLAYERS
        )
        draw = render.result_line(
            position([[[2], [], []], [[2], [], []]], reason="normal"), PLAYERS
        )
        warning = render.warning_text(PLAYERS[0], DUE)
    assert line == (
        "🎲 <@22> hat ⚁ **2** gewürfelt: Wähl eine Spalte. Letzter Zug: alice hat eine 3 in "
        "Spalte 2 gelegt und zwei 3er rausgeworfen. ⏳ <t:1800000300:R>"
    )
    assert warned.endswith(" ⚠️ Die Zeit wird knapp: <t:1800000300:R>")
    assert ai == "🤖 **Dicebot** (schwer) hat ⚄ **5** gewürfelt und denkt nach …"
    assert forfeit == "🏳️ alice hat aufgegeben: **bob** gewinnt, 1–6."
    assert timeout == "⌛ bob ist die Zeit ausgegangen: **alice** gewinnt, 6–1."
    assert draw == "🤝 Unentschieden, 2–2."
    assert warning == (
        "⏰ <@11>, dein Zug bei Knucklebones läuft <t:1800000300:R> ab: Wähl eine Spalte, "
        "sonst gilt das als Aufgabe."
    )


def test_the_board_read_aloud_in_german_counts_points_the_german_way() -> None:
    one_point = position([[[1], [], []], [[], [], []]], current=1, die=5)
    with i18n.use("de"):
        knocked = alt_text.alt_text(KNOCKOUT, ["alice", "bob"])
        opening = alt_text.alt_text(one_point, ["alice", "bob"])
    assert knocked == (
        "Knucklebones-Brett, Zug 5. alice (oberes Raster), 17 Punkte. Spalte 1: leer; "
        "Spalte 2: 3, 5, 3 (17, ein Paar); Spalte 3: leer. bob (unteres Raster), 5 Punkte. "
        "Spalte 1: leer; Spalte 2: 5 (5); Spalte 3: leer. Letzter Zug: alice hat eine 3 in "
        "Spalte 2 gelegt und bob zwei 3er rausgeworfen. bob ist am Zug und legt eine 2."
    )
    assert opening.startswith("Knucklebones-Brett, Zug 5. alice (oberes Raster), 1 Punkt. ")
    assert "bob (unteres Raster), 0 Punkte. " in opening


# The bet form suggests, in the player's language, the word that bets everything
# ("“all”", "« tout »", "„alles“"...): the last quoted word of its description.
QUOTED = re.compile(r"[“«„\"]\s*([^”»“\"]+?)\s*[”»“\"]")


@pytest.mark.parametrize("language", sorted(i18n.LANGUAGES))
def test_the_word_the_bet_form_suggests_bets_everything(language: str) -> None:
    with i18n.use(language):
        description = i18n.unpseudo(
            i18n._("A whole number from 1 to {points} (your points), or “all”.")
        ).format(points=15)
    words = QUOTED.findall(description)
    assert words, description
    assert parse_amount(words[-1], 15) == 15, (language, words[-1])


def test_a_german_player_may_type_alles_to_bet_everything() -> None:
    assert parse_amount("alles", 15) == 15
    assert parse_amount(" Alles ", 15) == 15
    with i18n.use("de"):
        description = i18n._("A whole number from 1 to {points} (your points), or “all”.")
    assert description.format(points=15) == (
        "Eine ganze Zahl von 1 bis 15 (deine Punkte) oder „alles“."
    )
