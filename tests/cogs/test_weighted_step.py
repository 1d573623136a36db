"""The Weighted Dice cog's session step and custom_ids, without Discord: the lobby, who may
do what, timers per server setting, stale timers, and what a finished game records."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from bot.model.contract import Seat, Session, Step, StepContext
from bot.model.errors import NotYourGame, UserError
from bot.play.guild_settings import GuildSettings
from cogs.weighted_dice.cog import WeightedDice
from cogs.weighted_dice.controls import (
    BET_MODAL_PATTERN,
    BetButton,
    LobbyButton,
    QuickBetButton,
    SetupButton,
    modal_value,
)
from cogs.weighted_dice.setup_panel import ConfirmSetupButton, DraftSelect
from cogs.weighted_dice.state import Draft, LobbyState, TableOptions, TableState
from game_core import weighted_dice as wd
from game_core.errors import IllegalMove

NOW = 1_800_000_000.0
HOST = 100
SETTINGS = GuildSettings()


def players(count: int) -> tuple[Seat, ...]:
    return tuple(Seat(seat=i, user_id=HOST + i, display_name=f"P{i}") for i in range(count))


def session(state: dict[str, Any], seats: tuple[Seat, ...], status: str = "active") -> Session:
    return Session(
        id=7,
        game="weighted_dice",
        guild_id=1,
        channel_id=2,
        message_id=3,
        status=status,  # type: ignore[arg-type]
        state=state,
        version=4,
        seed=5,
        created_by=HOST,
        created_at=NOW - 10,
        updated_at=NOW - 10,
        seats=seats,
    )


def lobby(count: int, options: TableOptions | None = None) -> Session:
    state = LobbyState(host=HOST, expires_at=NOW + 1800, options=options).model_dump(mode="json")
    return session(state, players(count), status="pending")


@pytest.fixture
def cog() -> WeightedDice:
    return WeightedDice(SimpleNamespace())  # type: ignore[arg-type]


def act(
    cog: WeightedDice,
    current: Session,
    actor: int | None,
    action: dict[str, Any],
    settings: GuildSettings = SETTINGS,
) -> Step:
    ctx = StepContext(
        session=current,
        actor_id=actor,
        now=NOW,
        rng=random.Random(f"{current.seed}:{current.version}"),
        guild_settings=settings,
    )
    return cog.step(ctx, action)


def advance(current: Session, step: Step) -> Session:
    seats = tuple(step.seats) if step.seats is not None else current.seats
    return replace(
        current, state=step.state, status=step.status, version=current.version + 1, seats=seats
    )


def started(cog: WeightedDice, count: int = 5, options: TableOptions | None = None) -> Session:
    current = lobby(count, options)
    return advance(current, act(cog, current, HOST, {"type": "start"}))


# -- the lobby ------------------------------------------------------------------------------


def test_joining_adds_a_seat_in_join_order(cog: WeightedDice) -> None:
    step = act(cog, lobby(2), 555, {"type": "join", "name": "Newcomer"})
    assert step.status == "pending"
    assert step.seats is not None and step.seats[-1] == Seat(2, 555, "Newcomer")
    with pytest.raises(UserError, match="already at this table"):
        act(cog, lobby(2), HOST + 1, {"type": "join", "name": "again"})
    with pytest.raises(UserError, match="full"):
        act(cog, lobby(12), 555, {"type": "join", "name": "late"})


def test_leaving_the_lobby_renumbers_and_the_host_leaving_closes_it(cog: WeightedDice) -> None:
    step = act(cog, lobby(4), HOST + 1, {"type": "leave"})
    assert step.seats is not None
    assert [(s.seat, s.user_id) for s in step.seats] == [(0, 100), (1, 102), (2, 103)]
    closed = act(cog, lobby(4), HOST, {"type": "leave"})
    assert closed.status == "cancelled" and closed.deadlines == []
    assert closed.state["closed"] == "host_left"
    with pytest.raises(NotYourGame):
        act(cog, lobby(4), 999, {"type": "leave"})


def test_only_the_host_starts_and_only_from_five(cog: WeightedDice) -> None:
    with pytest.raises(NotYourGame, match="Only the host"):
        act(cog, lobby(5), HOST + 1, {"type": "start"})
    with pytest.raises(IllegalMove, match="at least 5 players: 4 have joined"):
        act(cog, lobby(4), HOST, {"type": "start"})
    with pytest.raises(IllegalMove, match="not started yet"):
        act(cog, lobby(5), HOST + 1, {"type": "bet", "round": 1, "side": 0, "amount": "3"})


def test_starting_rolls_off_and_arms_the_house_timer(cog: WeightedDice) -> None:
    settings = GuildSettings(house_setup_seconds=45)
    step = act(cog, lobby(7), HOST, {"type": "start"}, settings)
    table = TableState.model_validate(step.state)
    assert step.status == "active" and table.engine.n_players == 7
    assert table.first_house == table.engine.house
    assert table.roll_off and table.roll_off[0]["type"] == "roll_off"
    assert step.deadlines is not None
    [deadline] = step.deadlines
    assert (deadline.kind, deadline.due_at) == ("house_setup", NOW + 45)
    assert deadline.action == {"type": "house_timeout", "round": 1}
    assert table.deadline_at == NOW + 45


def test_the_lobby_timer_is_the_systems_alone(cog: WeightedDice) -> None:
    with pytest.raises(IllegalMove):
        act(cog, lobby(3), HOST, {"type": "lobby_expire"})
    step = act(cog, lobby(3), None, {"type": "lobby_expire"})
    assert step.status == "cancelled" and step.state["closed"] == "expired"


# -- the table ------------------------------------------------------------------------------


def test_timers_follow_the_phase_and_the_tables_own_times(cog: WeightedDice) -> None:
    options = TableOptions(betting_window_seconds=33, house_setup_seconds=45)
    current = started(cog, options=options)
    engine = TableState.model_validate(current.state).engine
    with pytest.raises(IllegalMove, match="round that is over"):
        act(cog, current, None, {"type": "house_timeout", "round": 2})
    with pytest.raises(IllegalMove, match="Only the timer"):
        act(cog, current, HOST, {"type": "house_timeout", "round": 1})
    # The server's settings changed meanwhile: a table keeps the times it was opened with.
    settings = GuildSettings(betting_window_seconds=50, house_setup_seconds=70)
    step = act(cog, current, None, {"type": "house_timeout", "round": 1}, settings)
    assert step.deadlines is not None
    assert [(d.kind, d.due_at) for d in step.deadlines] == [("betting_window", NOW + 33)]
    current = advance(current, step)
    betting = TableState.model_validate(current.state).engine
    assert betting.phase == "betting" and betting.house == engine.house
    bettor = wd.eligible_bettors(betting)[0]
    bet = act(cog, current, HOST + bettor, {"type": "bet", "round": 1, "side": 0, "amount": "2"})
    assert bet.deadlines is None  # the window keeps running
    with pytest.raises(IllegalMove, match="Betting for round 3 is closed"):
        act(cog, current, HOST + bettor, {"type": "bet", "round": 3, "side": 0, "amount": "2"})
    with pytest.raises(NotYourGame, match="not playing"):
        act(cog, current, 999, {"type": "bet", "round": 1, "side": 0, "amount": "2"})
    with pytest.raises(IllegalMove, match="already started"):
        act(cog, current, HOST, {"type": "start"})
    closed = act(cog, current, None, {"type": "close_betting", "round": 1}, settings)
    assert closed.deadlines is not None
    assert [(d.kind, d.action["round"], d.due_at) for d in closed.deadlines] == [
        ("house_setup", 2, NOW + 45)
    ]


@pytest.mark.parametrize(("seated", "target"), [(5, 60), (7, 90), (12, 150)])
def test_a_short_game_takes_its_target_from_the_players_seated_at_start(
    cog: WeightedDice, seated: int, target: int
) -> None:
    options = TableOptions(target=None, betting_window_seconds=20, house_setup_seconds=60)
    table = TableState.model_validate(started(cog, seated, options).state)
    assert table.engine.target == target
    assert table.options == options


def test_a_chosen_target_is_the_engines_target(cog: WeightedDice) -> None:
    options = TableOptions(target=300, betting_window_seconds=20, house_setup_seconds=60)
    assert TableState.model_validate(started(cog, 6, options).state).engine.target == 300


def test_a_lobby_from_before_table_options_starts_with_the_card_and_the_servers_times(
    cog: WeightedDice,
) -> None:
    current = lobby(5)
    settings = GuildSettings(betting_window_seconds=12, house_setup_seconds=34)
    table = TableState.model_validate(act(cog, current, HOST, {"type": "start"}, settings).state)
    assert table.engine.target == wd.TARGET_POINTS
    assert table.options == TableOptions(betting_window_seconds=12, house_setup_seconds=34)


def test_a_table_from_before_table_options_follows_the_servers_times(cog: WeightedDice) -> None:
    current = started(cog)
    state = current.state | {"options": None}
    current = replace(current, state=state)
    settings = GuildSettings(betting_window_seconds=41)
    step = act(cog, current, None, {"type": "house_timeout", "round": 1}, settings)
    assert step.deadlines is not None
    assert [(d.kind, d.due_at) for d in step.deadlines] == [("betting_window", NOW + 41)]


def test_table_options_are_refused_outside_the_servers_limits() -> None:
    settings = GuildSettings()
    with pytest.raises(IllegalMove) as refused:
        TableOptions.chosen(settings, points=155, betting_window=4, house_setup=3601)
    assert str(refused.value) == (
        "No table was opened: **points** must be the short game or one of 100, 150, 200, 300; "
        "**betting_window** must be from 5 to 600 seconds; **house_setup** must be from 10 "
        "to 3600 seconds."
    )
    chosen = TableOptions.chosen(
        GuildSettings(betting_window_seconds=25, house_setup_seconds=90),
        points=None,
        betting_window=None,
        house_setup=None,
    )
    assert chosen == TableOptions(betting_window_seconds=25, house_setup_seconds=90)
    assert chosen.target == 150 and not chosen.short
    short = TableOptions.chosen(settings, points=0, betting_window=5, house_setup=3600)
    assert short.short and short.target_for(5) == 60


def test_a_finished_game_records_its_result_and_summary(cog: WeightedDice) -> None:
    current = started(cog, 5)
    table = TableState.model_validate(current.state)
    engine = table.engine
    # Put the first roller one win short of 150, then let the house's timeout and the
    # betting deadline play the round until somebody reaches it.
    for _ in range(200):
        if engine.phase == "finished":
            break
        engine = engine.model_copy(update={"scores": [149] * 5})
        current = replace(
            current, state=table.model_copy(update={"engine": engine}).model_dump(mode="json")
        )
        kind = "house_timeout" if engine.phase == "setup" else "close_betting"
        step = act(cog, current, None, {"type": kind, "round": engine.round})
        current = advance(current, step)
        table = TableState.model_validate(current.state)
        engine = table.engine
    assert step.status == "finished" and step.result is not None
    assert step.result.winners == [s for s in range(5) if engine.scores[s] == max(engine.scores)]
    assert set(step.summary) == {"score_line", "scores", "rounds", "first_seat"}
    assert step.summary["scores"] == engine.scores
    assert step.summary["rounds"] == engine.rounds_played
    assert step.summary["first_seat"] == table.first_house
    top = max(range(5), key=lambda s: (engine.scores[s], -s))
    assert step.summary["score_line"].startswith(f"P{top} {engine.scores[top]}")


# -- custom_ids -----------------------------------------------------------------------------

BIG = 9_223_372_036_854_775_807
DRAFT = Draft(r0=11, d0=20, r1=10, d1=12)
ITEMS = [
    (LobbyButton, LobbyButton(BIG, "start").item.custom_id),
    (SetupButton, SetupButton(BIG, 9999).item.custom_id),
    (DraftSelect, DraftSelect(BIG, 9999, "d1", DRAFT).item.custom_id),
    (ConfirmSetupButton, ConfirmSetupButton(BIG, 9999, DRAFT).item.custom_id),
    (BetButton, BetButton(BIG, 9999, 1).item.custom_id),
    (QuickBetButton, QuickBetButton(BIG, 9999, 1, "all").item.custom_id),
]


def test_each_custom_id_fits_and_matches_exactly_one_template() -> None:
    templates = [item.__discord_ui_compiled_template__ for item, _ in ITEMS]
    templates.append(re.compile(BET_MODAL_PATTERN))
    ids = [custom_id for _, custom_id in ITEMS] + [f"wd:{BIG}:9999:betmodal:1"]
    for index, custom_id in enumerate(ids):
        assert custom_id is not None and custom_id.startswith("wd:") and len(custom_id) <= 100
        matching = [i for i, template in enumerate(templates) if template.fullmatch(custom_id)]
        assert matching == [index], custom_id


@pytest.mark.parametrize(
    "custom_id",
    [
        "wd:1:1:bet:2",
        "wd:1:1:bet:0:extra",
        "wd:x:1:setup",
        "wd:1:lobby:destroy",
        "wd:1:1:quick:0:7",
        "wd:1:1:pick:r2:x.x.x.x",
        "wd:1:1:confirm:1.2.3",
        "wd:12345678901234567890:1:setup",
        "kb:1:1:col:0",
    ],
)
def test_malformed_custom_ids_match_nothing(custom_id: str) -> None:
    templates = [item.__discord_ui_compiled_template__ for item, _ in ITEMS]
    templates.append(re.compile(BET_MODAL_PATTERN))
    assert not any(template.fullmatch(custom_id) for template in templates)


def test_the_amount_is_found_in_rows_and_in_labels() -> None:
    rows = [{"type": 1, "components": [{"type": 4, "custom_id": "amount", "value": "12"}]}]
    labels = [{"type": 18, "component": {"type": 4, "custom_id": "amount", "value": "7"}}]
    assert modal_value(rows, "amount") == "12"
    assert modal_value(labels, "amount") == "7"
    assert modal_value([{"type": 10, "content": "hi"}], "amount") == ""
