"""The Knucklebones cog's session step, without Discord: authorisation, stale boards,
timers, the AI's turn and what a finished game records."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from typing import Any

import pytest

from bot.model.contract import Seat, Session, Step, StepContext
from bot.model.errors import NotYourGame, UserError
from bot.play.guild_settings import GuildSettings
from bot.ui.challenges import challenge_state
from cogs.knucklebones.controls import COLUMN_TEMPLATE, column_custom_id
from cogs.knucklebones.moves import AI_MOVE_DELAY, Table, open_table, warning_lead
from cogs.knucklebones.moves import step as step_action
from game_core import knucklebones as kb
from game_core.errors import IllegalMove

ALICE = 11
BOB = 22
CAROL = 33
BOT = 99
NOW = 1_800_000_000.0
SETTINGS = GuildSettings()


def make_session(state: dict[str, Any], *, vs_ai: bool = False, version: int = 1) -> Session:
    seats = (
        Seat(0, ALICE, "alice"),
        Seat(1, BOT, "DiceBot", is_ai=True) if vs_ai else Seat(1, BOB, "bob"),
    )
    return Session(
        id=7,
        game="knucklebones",
        guild_id=1,
        channel_id=2,
        message_id=3,
        status="active",
        state=state,
        version=version,
        seed=5,
        created_by=ALICE,
        created_at=NOW - 10,
        updated_at=NOW - 10,
        seats=seats,
    )


def act(
    session: Session,
    actor: int | None,
    action: dict[str, Any],
    *,
    now: float = NOW,
    settings: GuildSettings = SETTINGS,
) -> Step:
    ctx = StepContext(
        session=session,
        actor_id=actor,
        now=now,
        rng=random.Random(f"{session.seed}:{session.version}"),
        guild_settings=settings,
    )
    return step_action(ctx, action)


def advance(session: Session, step: Step) -> Session:
    """The session as the service would store it after ``step``."""
    return replace(session, state=step.state, status=step.status, version=session.version + 1)


def human_game(first: str = "me", settings: GuildSettings = SETTINGS) -> Session:
    table, _, _ = open_table(random.Random(3), NOW, settings, first_choice=first)
    return make_session(table.dump())


def ai_game(level: str = "hard", first: str = "me") -> Session:
    table, _, _ = open_table(
        random.Random(3),
        NOW,
        SETTINGS,
        first_choice=first,
        ai_level=level,  # type: ignore[arg-type]
        ai_seat=1,
    )
    return make_session(table.dump(), vs_ai=True)


def table_of(session: Session) -> Table:
    return Table.model_validate(session.state)


def mover_id(session: Session) -> int:
    return session.user_of(table_of(session).engine.current_player).user_id


def press(session: Session, column: int, actor: int | None = None) -> Step:
    turn = table_of(session).engine.turn
    return act(
        session,
        mover_id(session) if actor is None else actor,
        {"type": "place", "column": column, "turn": turn},
    )


# -- opening ------------------------------------------------------------------------------


@pytest.mark.parametrize(("first", "seat"), [("me", 0), ("them", 1)])
def test_first_option_picks_the_seat(first: str, seat: int) -> None:
    table, events, _ = open_table(random.Random(1), NOW, SETTINGS, first_choice=first)
    assert table.engine.first_player == seat
    assert table.engine.current_player == seat
    assert events[0] == {"type": "game_started", "first_player": seat, "chosen_by": "command"}


def test_random_first_is_a_coin_flip_from_the_rng() -> None:
    firsts = {
        open_table(random.Random(n), NOW, SETTINGS, first_choice="random")[0].engine.first_player
        for n in range(20)
    }
    assert firsts == {0, 1}


def test_a_human_turn_gets_a_warning_then_a_timeout() -> None:
    table, _, deadlines = open_table(random.Random(1), NOW, SETTINGS, first_choice="me")
    by_kind = {d.kind: d for d in deadlines}
    assert set(by_kind) == {"turn_warning", "turn_timeout"}
    assert by_kind["turn_timeout"].due_at == NOW + 300
    assert by_kind["turn_warning"].due_at == NOW + 240
    assert by_kind["turn_timeout"].action == {"type": "timeout", "turn": 1}
    assert table.turn_due_at == NOW + 300


def test_a_short_turn_is_warned_a_fifth_of_its_length_ahead() -> None:
    settings = GuildSettings(turn_timeout_seconds=30)
    _, _, deadlines = open_table(random.Random(1), NOW, settings, first_choice="me")
    warning = next(d for d in deadlines if d.kind == "turn_warning")
    assert warning.due_at == pytest.approx(NOW + 24)
    assert warning_lead(30) == pytest.approx(6)


def test_the_ai_moving_first_is_scheduled_not_played_at_once() -> None:
    table, _, deadlines = open_table(
        random.Random(1), NOW, SETTINGS, first_choice="them", ai_level="easy", ai_seat=1
    )
    assert [(d.kind, d.due_at, d.action) for d in deadlines] == [
        ("ai_move", NOW + AI_MOVE_DELAY, {"type": "ai_move", "turn": 1})
    ]
    assert table.turn_due_at is None
    assert table.engine.boards == [[[], [], []], [[], [], []]]


# -- pressing a column --------------------------------------------------------------------


def test_a_press_places_the_die_and_hands_the_turn_over() -> None:
    session = human_game("me")
    die = table_of(session).engine.die
    step = press(session, 1)
    table = Table.model_validate(step.state)
    assert table.engine.boards[0] == [[], [die], []]
    assert table.engine.current_player == 1
    assert table.engine.turn == 2
    assert table.column_picks == [[0, 1, 0], [0, 0, 0]]
    assert {d.kind for d in step.deadlines or []} == {"turn_warning", "turn_timeout"}
    assert all(d.action["turn"] == 2 for d in step.deadlines or [])
    assert [e["type"] for e in step.events] == ["placed", "rolled"]


def test_someone_outside_the_game_is_told_it_is_not_their_game() -> None:
    session = human_game("me")
    with pytest.raises(NotYourGame, match="not your game: it is between alice and bob"):
        press(session, 0, actor=CAROL)


def test_the_player_waiting_is_told_it_is_not_their_turn() -> None:
    session = human_game("me")
    with pytest.raises(NotYourGame, match="not your turn: alice is placing"):
        press(session, 0, actor=BOB)


def test_a_press_on_an_older_board_is_refused_clearly() -> None:
    session = human_game("me")
    after = advance(session, press(session, 0))
    # Alice presses again on the board of turn 1 (a double press, or an outdated message).
    with pytest.raises(UserError, match="That board has moved on \\(it is turn 2 now\\)"):
        act(after, ALICE, {"type": "place", "column": 0, "turn": 1})
    # Even the player whose turn it now is cannot play from the old board.
    with pytest.raises(UserError, match="moved on"):
        act(after, BOB, {"type": "place", "column": 0, "turn": 1})


def test_a_full_column_is_refused_and_nothing_moves() -> None:
    table = table_of(human_game("me"))
    table.engine = table.engine.model_copy(update={"boards": [[[1, 2, 3], [], []], [[], [], []]]})
    session = make_session(table.dump())
    with pytest.raises(IllegalMove, match="column 1 is full; choose another column"):
        press(session, 0)
    assert press(session, 1).status == "active"


def test_players_cannot_send_system_actions() -> None:
    session = human_game("me")
    for action in ({"type": "timeout", "turn": 1}, {"type": "ai_move", "turn": 1}):
        with pytest.raises(IllegalMove):
            act(session, ALICE, action)


# -- timers -------------------------------------------------------------------------------


def test_the_warning_is_recorded_once_and_keeps_the_timeout() -> None:
    session = human_game("me")
    step = act(session, None, {"type": "warn", "turn": 1}, now=NOW + 240)
    assert step.deadlines is None  # the turn timeout stays scheduled
    assert step.events == [{"type": "turn_warning", "player": 0, "turn": 1, "due_at": NOW + 300}]
    warned = advance(session, step)
    assert table_of(warned).warned_turn == 1
    with pytest.raises(IllegalMove):
        act(warned, None, {"type": "warn", "turn": 1}, now=NOW + 241)


def test_a_warning_that_comes_after_the_timeout_is_dropped() -> None:
    session = human_game("me")
    with pytest.raises(IllegalMove, match="Too late"):
        act(session, None, {"type": "warn", "turn": 1}, now=NOW + 400)


def test_a_timer_from_an_earlier_turn_does_nothing() -> None:
    session = advance(human_game("me"), press(human_game("me"), 0))
    with pytest.raises(IllegalMove, match="earlier turn"):
        act(session, None, {"type": "timeout", "turn": 1})


def test_a_timeout_loses_the_game_for_the_player_to_move() -> None:
    session = human_game("them")
    step = act(session, None, {"type": "timeout", "turn": 1}, now=NOW + 300)
    assert step.status == "finished"
    assert step.deadlines == []
    assert step.result is not None
    assert step.result.winners == [0]
    assert step.result.reason == "timeout"
    assert step.summary["first_seat"] == 1
    assert step.summary["score_line"] == "0–0"


def test_either_player_may_forfeit_at_any_time() -> None:
    session = human_game("me")
    step = act(session, BOB, {"type": "forfeit"})
    assert step.result is not None
    assert step.result.winners == [0]
    assert step.result.reason == "forfeit"
    with pytest.raises(NotYourGame):
        act(session, CAROL, {"type": "forfeit"})


# -- the AI -------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_the_ai_plays_its_turn_when_its_timer_fires(level: str) -> None:
    session = ai_game(level, first="them")
    die = table_of(session).engine.die
    step = act(session, None, {"type": "ai_move", "turn": 1}, now=NOW + AI_MOVE_DELAY)
    table = Table.model_validate(step.state)
    assert sum(len(column) for column in table.engine.boards[1]) == 1
    assert die in [face for column in table.engine.boards[1] for face in column]
    assert table.engine.current_player == 0
    assert {d.kind for d in step.deadlines or []} == {"turn_warning", "turn_timeout"}


def test_the_human_move_schedules_the_ai_answer() -> None:
    session = ai_game("medium", first="me")
    step = press(session, 2)
    assert [(d.kind, d.action) for d in step.deadlines or []] == [
        ("ai_move", {"type": "ai_move", "turn": 2})
    ]
    assert Table.model_validate(step.state).turn_due_at is None


def test_the_ai_does_not_move_on_the_humans_turn() -> None:
    session = ai_game("easy", first="me")
    with pytest.raises(IllegalMove, match="not the AI's turn"):
        act(session, None, {"type": "ai_move", "turn": 1})


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_whole_game_against_the_ai_ends_with_a_summary(level: str) -> None:
    session = ai_game(level, first="me")
    step: Step | None = None
    for _ in range(500):
        table = table_of(session)
        if table.engine.current_player == 1:
            step = act(session, None, {"type": "ai_move", "turn": table.engine.turn})
        else:
            step = press(session, kb.legal_columns(table.engine.boards[0])[0])
        session = advance(session, step)
        if step.status == "finished":
            break
    assert step is not None and step.status == "finished"
    final = table_of(session)
    scores = [kb.board_score(board) for board in final.engine.boards]
    assert step.result is not None and step.result.scores == scores
    assert step.summary["scores"] == scores
    assert step.summary["score_line"] == f"{scores[0]}–{scores[1]}"
    assert step.summary["first_seat"] == 0
    assert step.summary["ai_level"] == level
    assert step.summary["turns"] == final.engine.turn
    assert sum(map(sum, step.summary["column_picks"])) == final.engine.turn
    assert step.summary["knocked_out"] == final.knocked_out


# -- challenges and custom ids ------------------------------------------------------------


def test_accepting_a_challenge_starts_the_game_with_its_first_option() -> None:
    state = challenge_state(Seat(0, ALICE, "alice"), Seat(1, BOB, "bob"), {"first": "them"}, NOW)
    session = replace(make_session(state), status="pending")
    step = act(session, BOB, {"type": "accept"})
    assert step.status == "active"
    table = Table.model_validate(step.state)
    assert table.engine.current_player == 1
    assert step.events[0] == {"type": "challenge_accepted"}
    assert {d.kind for d in step.deadlines or []} == {"turn_warning", "turn_timeout"}


def test_custom_ids_fit_the_template_and_carry_the_board() -> None:
    custom_id = column_custom_id(1234567890123456789, 17, 2)
    assert len(custom_id) <= 100
    match = re.fullmatch(COLUMN_TEMPLATE, custom_id)
    assert match is not None
    assert (match["session_id"], match["turn"], match["column"]) == (
        "1234567890123456789",
        "17",
        "2",
    )
    for bad in ("kb:1:1:col:3", "kb:x:1:col:0", "kb:1:1:col:0:extra", "wd:1:1:col:0"):
        assert re.fullmatch(COLUMN_TEMPLATE, bad) is None
