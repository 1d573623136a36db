"""Knucklebones in other languages: the status line, the board picture's words and alt
text, the buttons and the errors in Spanish, and the longest texts in French and in the
pseudo-language (every text 40% longer) inside Discord's limits."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot import i18n
from bot.model.contract import Seat, Session
from bot.pictures import text
from bot.ui.replies import known_error_message
from cogs.knucklebones import controls, render
from cogs.knucklebones import picture as picture_module
from game_core import knucklebones as kb
from game_core.errors import IllegalMove

PLAYERS = [render.Player(0, 11, "alice"), render.Player(1, 22, "bob")]
LONGEST = [render.Player(0, 11, "W" * 32), render.Player(1, 22, "M" * 32)]

# Discord's limits (the ones these texts meet).
CONTENT_LIMIT = 2000
BUTTON_LABEL_LIMIT = 80
ATTACHMENT_DESCRIPTION_LIMIT = 1024


def position(
    boards: list[list[list[int]]],
    *,
    current: int = 0,
    die: int | None = 4,
    last_move: dict[str, Any] | None = None,
    turn: int = 5,
    finished: bool = False,
    winners: list[int] | None = None,
    reason: str | None = None,
    ended_by: int | None = None,
) -> dict[str, Any]:
    state = kb.KnucklebonesState(
        phase="finished" if finished else "place",
        turn=turn,
        first_player=0,
        current_player=current,
        die=None if finished else die,
        boards=boards,
        last_move=None if last_move is None else kb.LastMove(**last_move),
        winners=winners or [],
        draw=finished and not winners,
        end_reason=reason if finished else None,
        ended_by=ended_by,
    )
    return kb.public_view(state)


KNOCKOUT = position(
    [[[], [3, 5, 3], []], [[], [5], []]],
    current=1,
    die=2,
    last_move={"player": 0, "column": 1, "face": 3, "removed": [3, 3]},
)
FINISHED = position(
    [[[1, 1, 1], [2, 2, 2], [3, 3, 3]], [[4], [], []]],
    finished=True,
    winners=[0],
    reason="normal",
    last_move={"player": 0, "column": 2, "face": 3, "removed": []},
)
# The longest texts: 32-character names, a knock-out of three, the warning, the most dice.
LONGEST_RUNNING = position(
    [[[], [4, 4, 4], []], [[5, 5, 6], [2, 3], [1, 1, 1]]],
    current=1,
    die=4,
    turn=188,
    last_move={"player": 0, "column": 1, "face": 4, "removed": [4, 4, 4]},
)
LONGEST_FINISHED = position(
    [[[6, 6, 6], [6, 6, 6], [6, 6, 6]], [[1, 2, 3], [4, 5, 1], [2, 3, 4]]],
    finished=True,
    winners=[0],
    reason="timeout",
    ended_by=1,
    last_move={"player": 0, "column": 2, "face": 6, "removed": [6, 6, 6]},
)


# ---------------------------------------------------------------------------------------
# Spanish
# ---------------------------------------------------------------------------------------


def test_the_status_line_in_spanish() -> None:
    with i18n.use("es"):
        line = render.status_line(KNOCKOUT, PLAYERS, render.Clock(turn_due_at=1_800_000_300.0))
        warned = render.status_line(
            KNOCKOUT, PLAYERS, render.Clock(turn_due_at=1_800_000_300.0, warned=True)
        )
        ai = render.status_line(
            position([[[1], [], []], [[], [], []]], current=1, die=5),
            [PLAYERS[0], render.Player(1, 99, "Dicebot", is_ai=True)],
            render.Clock(),
            ai_level="hard",
        )
        finished = render.status_line(FINISHED, PLAYERS, render.Clock())
    assert line == (
        "🎲 <@22> sacó ⚁ **2**: elige una columna. Última jugada: alice puso un 3 en la "
        "columna 2 y eliminó dos 3. ⏳ <t:1800000300:R>"
    )
    assert warned.endswith(" ⚠️ Se acaba el tiempo: <t:1800000300:R>")
    assert ai == "🤖 **Dicebot** (difícil) sacó ⚄ **5** y está pensando…"
    assert finished == ("🏆 **alice** gana, 54–4. Última jugada: alice puso un 3 en la columna 3.")


def test_the_results_and_the_warning_in_spanish() -> None:
    boards = [[[6], [], []], [[1], [], []]]
    with i18n.use("es"):
        forfeit = render.result_line(
            position(boards, finished=True, winners=[1], reason="forfeit", ended_by=0), PLAYERS
        )
        timeout = render.result_line(
            position(boards, finished=True, winners=[0], reason="timeout", ended_by=1), PLAYERS
        )
        draw = render.result_line(
            position([[[2], [], []], [[2], [], []]], finished=True, reason="normal"), PLAYERS
        )
        warning = render.warning_text(PLAYERS[0], 1_800_000_300.4)
    assert forfeit == "🏳️ alice se rindió: **bob** gana, 1–6."
    assert timeout == "⌛ A bob se le acabó el tiempo: **alice** gana, 6–1."
    assert draw == "🤝 Empate, 2–2."
    assert warning == (
        "⏰ <@11>, tu turno de Knucklebones se acaba <t:1800000300:R>: elige una columna o "
        "perderás por abandono."
    )


def test_the_board_picture_draws_its_words_in_the_language_it_is_given() -> None:
    """The picture thread does not share the caller's language: the cog passes it, and
    the words drawn and the alt text follow it, whatever the thread's own language."""
    running = position([[[1], [], []], [[], [], []]], current=1, die=6, turn=9)
    with text.record() as drawn:
        picture = render.render_board(running, PLAYERS, "es")
    words = [d.text for d in drawn]
    assert "▶ le toca" in words and "Turno 9" in words and "puntos" in words
    # The legend, drawn in two lines.
    assert "×2 par · ×3 trío · ◯ último · ✕ fuera" in [d.wanted for d in drawn]
    assert all(d.box[2] <= picture_module.CARD_RIGHT for d in drawn)
    assert picture.alt_text == (
        "Tablero de Knucklebones, turno 9. "
        "alice (cuadrícula de arriba), 1 punto. columna 1: 1 (1); columna 2: vacía; "
        "columna 3: vacía. "
        "bob (cuadrícula de abajo), 0 puntos. columna 1: vacía; columna 2: vacía; "
        "columna 3: vacía. "
        "Le toca a bob colocar un 6."
    )
    with text.record() as drawn:
        finished = render.render_board(FINISHED, PLAYERS, "es")
    assert "★ gana" in [d.text for d in drawn]
    assert "una pareja" not in finished.alt_text and "(9, un trío)" in finished.alt_text
    assert finished.alt_text.endswith("Última jugada: alice puso un 3 en la columna 3. alice gana.")
    # English stays the default.
    assert render.render_board(running, PLAYERS).alt_text.endswith("bob to place a 6.")


def test_the_column_buttons_in_spanish() -> None:
    view = position([[[1, 2, 3], [], []], [[], [], []]], current=0)
    with i18n.use("es"):
        buttons = controls.board_view(7, view, mover_is_ai=False)
    assert buttons is not None
    labels = [(item.item.label, item.item.disabled) for item in buttons.children]  # type: ignore[attr-defined]
    assert labels == [("Columna 1", True), ("Columna 2", False), ("Columna 3", False)]


def test_a_refused_move_in_spanish() -> None:
    state, _ = kb.new_game(random.Random(3), 0)
    rng = random.Random(4)
    for _ in range(3):  # seat 0 fills column 1, seat 1 plays column 3
        state, _ = kb.apply(state, kb.place_action(state.current_player, 0), rng)
        state, _ = kb.apply(state, kb.place_action(state.current_player, 2), rng)
    with pytest.raises(IllegalMove) as refused:
        kb.apply(state, kb.place_action(0, 0), rng)
    assert str(refused.value) == "Your column 1 is full; choose another column."
    with i18n.use("es"):
        assert known_error_message(refused.value) == "Tu columna 1 está llena; elige otra columna."
    with i18n.use("fr"):
        assert (
            known_error_message(refused.value)
            == "Ta colonne 1 est pleine ; choisis une autre colonne."
        )


def challenge_session(events_kind: str | None, *, minutes: int = 10) -> Session:
    return Session(
        id=5,
        game="knucklebones",
        guild_id=1,
        channel_id=2,
        message_id=3,
        status="cancelled",
        state={
            "challenge": {
                "challenger": 11,
                "opponent": 22,
                "expires_at": 1000.0 + minutes * 60,
                "options": {"first": "random"},
            }
        },
        version=2,
        seed=0,
        created_by=11,
        created_at=1000.0,
        updated_at=1000.0,
        seats=(
            Seat(seat=0, user_id=11, display_name="alice"),
            Seat(seat=1, user_id=22, display_name="bob"),
        ),
    )


def test_the_challenge_texts_in_spanish() -> None:
    with i18n.use("es"):
        declined = render.closed_challenge_text(
            challenge_session(None), [{"type": "challenge_declined"}]
        )
        expired = render.closed_challenge_text(
            challenge_session(None, minutes=1), [{"type": "challenge_expired"}]
        )
        first = render.first_details({"challenger": 11, "opponent": 22, "options": {"first": "me"}})
        coin = render.first_details({"challenger": 11, "opponent": 22, "options": {}})
    assert declined == "❌ <@22> rechazó el desafío de Knucklebones de <@11>."
    assert expired == (
        "⌛ El desafío de Knucklebones de <@11> a <@22> caducó: nadie lo aceptó en 1 minuto."
    )
    assert first == "<@11> empieza."
    assert coin == "Una moneda al aire decide quién empieza."


# ---------------------------------------------------------------------------------------
# Longer languages: French and the pseudo-language stay inside Discord's limits
# ---------------------------------------------------------------------------------------


@pytest.fixture(params=["fr", "pseudo"])
def long_language(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "pseudo":
        monkeypatch.setenv(i18n.PSEUDO_ENV, "1")
        return "fr"  # pseudo text on top of French, the longer of the two
    return str(request.param)


def test_the_longest_texts_fit_discords_limits(long_language: str) -> None:
    with i18n.use(long_language):
        lines = [
            render.status_line(LONGEST_RUNNING, LONGEST, render.Clock(1_800_000_300.0, True)),
            render.status_line(LONGEST_FINISHED, LONGEST, render.Clock()),
            render.warning_text(LONGEST[0], 1_800_000_300.0),
        ]
        buttons = controls.board_view(10**18, LONGEST_RUNNING, mover_is_ai=False)
        with text.record() as drawn:
            pictures = [
                render.render_board(LONGEST_RUNNING, LONGEST, long_language),
                render.render_board(LONGEST_FINISHED, LONGEST, long_language),
            ]
    assert all(len(line) <= CONTENT_LIMIT and "\n" not in line for line in lines)
    assert buttons is not None
    assert all(len(item.item.label) <= BUTTON_LABEL_LIMIT for item in buttons.children)  # type: ignore[attr-defined]
    assert all(len(p.alt_text) <= ATTACHMENT_DESCRIPTION_LIMIT for p in pictures)
    # Every word drawn stays inside the picture's cards (long words end in "…").
    assert drawn and all(d.box[2] <= picture_module.CARD_RIGHT for d in drawn)
    assert all(d.box[3] <= picture_module.HEIGHT for d in drawn)


def test_every_catalog_message_of_the_status_line_is_in_french() -> None:
    with i18n.use("fr"):
        line = render.status_line(KNOCKOUT, PLAYERS, render.Clock(turn_due_at=1_800_000_300.0))
    assert line == (
        "🎲 <@22> a obtenu ⚁ **2** : choisis une colonne. Dernier coup : alice a placé un 3 "
        "dans la colonne 2 et éliminé deux 3. ⏳ <t:1800000300:R>"
    )
