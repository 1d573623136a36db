"""The shared secret-duel session step, without Discord: challenges, lock-ins, the AI's
secret pick, timers, refusals and what a finished game records."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from bot.model.contract import Seat, Session, Step, StepContext
from bot.model.errors import NotYourGame, StaleControl
from bot.play.guild_settings import GuildSettings
from bot.ui.challenges import challenge_state
from cogs.diceman.game import DicemanGame
from cogs.dimension_duel.game import DimensionDuelGame
from cogs.secret_duel.handler import SecretDuelHandler
from cogs.secret_duel.moves import warning_after
from cogs.secret_duel.state import SETUP_KEY
from game_core.errors import IllegalMove

ALICE, BOB, CAROL, BOT = 11, 22, 33, 99
NOW = 1_800_000_000.0
SETTINGS = GuildSettings(round_timeout_seconds=180)


def handler(game: str = "diceman") -> SecretDuelHandler[Any]:
    rules = DicemanGame() if game == "diceman" else DimensionDuelGame()
    # The step never touches the bot; only publish does.
    return SecretDuelHandler(None, rules)  # type: ignore[arg-type]


def session(
    state: dict[str, Any], *, game: str = "diceman", vs_ai: bool = False, status: str = "active"
) -> Session:
    seats = (
        Seat(0, ALICE, "Alice"),
        Seat(1, BOT, "DiceBot", is_ai=True) if vs_ai else Seat(1, BOB, "Bob"),
    )
    return Session(
        id=5,
        game=game,
        guild_id=1,
        channel_id=2,
        message_id=3,
        status=status,  # type: ignore[arg-type]
        state=state,
        version=1,
        seed=42,
        created_by=ALICE,
        created_at=NOW,
        updated_at=NOW,
        seats=seats,
    )


def act(
    h: SecretDuelHandler[Any],
    s: Session,
    actor: int | None,
    action: dict[str, Any],
    *,
    at: float = NOW,
) -> Step:
    ctx = StepContext(
        session=s,
        actor_id=actor,
        now=at,
        rng=random.Random(f"{s.seed}:{s.version}"),
        guild_settings=SETTINGS,
    )
    return h.step(ctx, action)


def advance(s: Session, step: Step) -> Session:
    seats = tuple(step.seats) if step.seats is not None else s.seats
    return replace(s, state=step.state, status=step.status, version=s.version + 1, seats=seats)


def accepted(game: str = "diceman", options: dict[str, Any] | None = None) -> Session:
    h = handler(game)
    pending = session(
        challenge_state(Seat(0, ALICE, "Alice"), Seat(1, BOB, "Bob"), options or {}, NOW + 300),
        game=game,
        status="pending",
    )
    return advance(pending, act(h, pending, BOB, {"type": "accept"}))


def lock(h: SecretDuelHandler[Any], s: Session, actor: int, choice: Any, rnd: int = 1) -> Step:
    return act(h, s, actor, {"type": "lock", "round": rnd, "choice": choice})


def test_accepting_starts_round_one_with_a_warning_and_a_timeout() -> None:
    h = handler()
    pending = session(
        challenge_state(Seat(0, ALICE, "Alice"), Seat(1, BOB, "Bob"), {}, NOW + 300),
        status="pending",
    )
    with pytest.raises(NotYourGame):
        act(h, pending, CAROL, {"type": "accept"})
    step = act(h, pending, BOB, {"type": "accept"})
    assert step.status == "active"
    assert [e["type"] for e in step.events][:2] == ["challenge_accepted", "seats"]
    assert step.state["game"]["round"] == 1
    assert step.state["ui"]["deadline_at"] == NOW + 180
    assert [(d.kind, d.due_at, d.action) for d in step.deadlines or []] == [
        ("round_warning", NOW + 120, {"type": "warn", "round": 1}),
        ("round_timeout", NOW + 180, {"type": "timeout", "round": 1}),
    ]


def test_warning_time() -> None:
    assert warning_after(180) == 120  # a minute before the end
    assert warning_after(30) == 20  # a third of a short round


def test_a_lock_in_is_final_and_checked() -> None:
    h, s = handler(), accepted()
    with pytest.raises(NotYourGame):
        lock(h, s, CAROL, {"dice": ["magic", "sword"]})
    with pytest.raises(IllegalMove, match="round 2, which has not begun"):
        lock(h, s, ALICE, {"dice": ["magic", "sword"]}, rnd=2)
    with pytest.raises(IllegalMove, match="Choose exactly two dice"):
        lock(h, s, ALICE, None)
    with pytest.raises(IllegalMove):
        lock(h, s, ALICE, {"dice": ["magic", "magic"]})
    step = lock(h, s, ALICE, {"dice": ["sword", "magic"]})
    assert step.deadlines is None  # the round's timers keep running
    assert [e["type"] for e in step.events] == ["locked_in"]
    assert step.state["game"]["choices"][0] == ["magic", "sword"]
    s = advance(s, step)
    with pytest.raises(IllegalMove, match="already locked in for this round: a choice is final"):
        lock(h, s, ALICE, {"dice": ["priority", "shield"]})


def test_a_stale_lock_in_says_where_the_current_controls_are() -> None:
    """A lock-in from controls of a round that is over: in a server the next controls came
    by DM; between friends (reached through interactions only) never by DM."""
    h, s = handler(), accepted()
    s = advance(s, lock(h, s, ALICE, {"dice": ["priority", "sword"]}))
    s = advance(s, lock(h, s, BOB, {"dice": ["magic", "shield"]}))
    with pytest.raises(StaleControl) as in_server:
        lock(h, s, ALICE, {"dice": ["magic", "sword"]}, rnd=1)
    assert str(in_server.value) == (
        "That press is for round 1, which is over: this is round 2. Use your latest DM or "
        "the **Make your move** button on the game message."
    )
    friends = replace(s, reach="interaction")
    with pytest.raises(StaleControl) as between_friends:
        lock(h, friends, ALICE, {"dice": ["magic", "sword"]}, rnd=1)
    assert str(between_friends.value) == (
        "That press is for round 1, which is over: this is round 2. Use the **Make your "
        "move** button on the game message."
    )
    assert "DM" not in str(between_friends.value)


def test_both_locked_in_reveals_records_the_picks_and_restarts_the_timers() -> None:
    h, s = handler(), accepted()
    s = advance(s, lock(h, s, ALICE, {"dice": ["priority", "sword"]}))
    step = lock(h, s, BOB, {"dice": ["magic", "shield"]}, rnd=1)
    types = [e["type"] for e in step.events]
    assert "reveal" in types and "phase" in types and types[-1] == "round_started"
    ui = step.state["ui"]
    assert ui["picks"] == [[["priority", "sword"]], [["magic", "shield"]]]
    assert [e["type"] for e in ui["reveal"]] == ["reveal", *["phase"] * (len(ui["reveal"]) - 1)]
    assert step.state["game"]["round"] == 2
    assert [d.action for d in step.deadlines or []] == [
        {"type": "warn", "round": 2},
        {"type": "timeout", "round": 2},
    ]


def test_system_actions_are_refused_from_players() -> None:
    h, s = handler(), accepted()
    for action in (
        {"type": "warn", "round": 1},
        {"type": "timeout", "round": 1},
        {"type": "dm_sent", "round": 1, "dms": {}, "closed": []},
        {"type": "choose", "player": 0, "dice": ["magic", "sword"]},
    ):
        with pytest.raises(IllegalMove):
            act(h, s, ALICE, action)


def test_warning_then_timeout_forfeits_the_slow_player() -> None:
    h, s = handler(), accepted()
    s = advance(s, lock(h, s, ALICE, {"dice": ["priority", "sword"]}))
    warned = act(h, s, None, {"type": "warn", "round": 1})
    assert warned.events == [{"type": "round_warning", "round": 1, "seats": [1]}]
    s = advance(s, warned)
    with pytest.raises(IllegalMove):
        act(h, s, None, {"type": "warn", "round": 1})  # only once
    with pytest.raises(IllegalMove):
        act(h, s, None, {"type": "timeout", "round": 7})  # a timer of another round
    with pytest.raises(StaleControl, match="round 0, which is over: this is round 1"):
        act(h, s, None, {"type": "timeout", "round": 0})
    step = act(h, s, None, {"type": "timeout", "round": 1})
    assert step.status == "finished"
    assert step.result is not None and step.result.reason == "timeout"
    assert step.result.winners == [0]
    assert step.summary == {"score_line": "Life 20–20", "rounds": 1, "choices": [[], []]}


def test_nobody_moving_abandons_the_game_without_a_result() -> None:
    h, s = handler(), accepted()
    step = act(h, s, None, {"type": "timeout", "round": 1})
    assert step.status == "cancelled" and step.result is None
    assert step.state["ui"]["ended"] == "abandoned"


def test_forfeit() -> None:
    h, s = handler(), accepted()
    with pytest.raises(NotYourGame):
        act(h, s, CAROL, {"type": "forfeit"})
    step = act(h, s, BOB, {"type": "forfeit"})
    assert step.status == "finished" and step.result is not None
    assert step.result.reason == "forfeit" and step.result.winners == [0]


def test_the_ai_locks_in_secretly_when_a_round_starts() -> None:
    h = handler()
    s = session({SETUP_KEY: {}}, vs_ai=True)
    with pytest.raises(IllegalMove):
        act(h, s, ALICE, {"type": "begin"})
    step = act(h, s, None, {"type": "begin"})
    assert {"type": "locked_in", "player": 1, "round": 1} in step.events
    ai_pick = step.state["game"]["choices"][1]
    assert ai_pick is not None and len(ai_pick) == 2
    view = h.rules.public_view(h.rules.load(step.state["game"]))
    assert view["locked_in"] == [False, True]
    assert str(ai_pick) not in str(view)
    s = advance(s, step)
    after = lock(h, s, ALICE, {"dice": ["sword", "shield"]})
    assert after.state["game"]["round"] == 2
    assert after.state["game"]["choices"][1] is not None  # the AI's next pick, already in


def test_dimension_duel_tactical_and_classic_locks() -> None:
    h = handler("dimension_duel")
    s = accepted("dimension_duel", {"mode": "tactical", "hp": 30})
    assert s.state["game"]["hp"] == [30, 30]
    tau = s.user_of(0).user_id
    with pytest.raises(IllegalMove, match="Make your move"):
        lock(h, s, tau, None)
    with pytest.raises(IllegalMove):
        lock(h, s, tau, {"device": "tau", "region": "elbow", "function": "bluff"})
    step = lock(h, s, tau, {"device": "tau", "region": "head", "function": "intensifier"})
    assert step.state["game"]["locked"][0] is True

    c = accepted("dimension_duel", {"mode": "classic", "hp": 10})
    with pytest.raises(IllegalMove, match="press \\*\\*Roll\\*\\*"):
        lock(h, c, ALICE, {"device": "tau", "region": "head", "function": "bluff"})
    c = advance(c, lock(h, c, ALICE, None))
    step = lock(h, c, BOB, None)
    reveal = next(e for e in step.events if e["type"] == "reveal")
    assert reveal["table_dice"]  # the card's rolls are part of the reveal


def test_a_coin_flip_decides_who_is_tau() -> None:
    swapped = 0
    for seed in range(20):
        h = handler("dimension_duel")
        pending = replace(
            session(
                challenge_state(Seat(0, ALICE, "Alice"), Seat(1, BOB, "Bob"), {}, NOW + 300),
                game="dimension_duel",
                status="pending",
            ),
            seed=seed,
        )
        step = act(h, pending, BOB, {"type": "accept"})
        flip = next(e for e in step.events if e["type"] == "seats")
        if flip["swapped"]:
            swapped += 1
            assert step.seats is not None
            assert [(s.seat, s.user_id) for s in step.seats] == [(0, BOB), (1, ALICE)]
        else:
            assert step.seats is None
    assert 0 < swapped < 20


def test_a_finished_duel_records_functions_and_who_went_first() -> None:
    h = handler("dimension_duel")
    s = accepted("dimension_duel", {"mode": "tactical", "hp": 10})
    turn = 1
    while s.status == "active":
        attacker = s.state["game"]["attacker"]
        for seat in (0, 1):
            device, region = ("tau", "head") if seat == attacker else ("kaon", "torso")
            step = lock(
                h,
                s,
                s.user_of(seat).user_id,
                {"device": device, "region": region, "function": "bluff"},
                rnd=turn,
            )
            s = advance(s, step)
        turn += 1
    assert step.result is not None
    summary = step.summary
    assert summary["first_seat"] == 0 and summary["mode"] == "tactical"
    assert summary["functions"] == [["bluff"] * (turn - 1), ["bluff"] * (turn - 1)]
    assert summary["score_line"].startswith("HP ") and summary["rounds"] == turn - 1


def test_a_round_cap_with_equal_life_is_called_a_draw_not_a_double_fall() -> None:
    h = handler()
    s = accepted()
    game = dict(s.state["game"])
    game.update(
        phase="finished",
        round=30,
        life=[7, 7],
        result={"ranks": [1, 1], "winners": [], "draw": True, "reason": "round_cap"},
    )
    finished = replace(s, state={**s.state, "game": game}, status="finished")
    # The finished message's first line says how it ended (and no line repeats it).
    text = h.render_public(finished)["content"]
    assert text == "⏹️ The round limit was reached with equal life: **a draw**, Life 7–7."
    assert "fell" not in text
