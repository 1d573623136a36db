"""Finished games: result rows and ratings written in the move's own transaction."""

from __future__ import annotations

import json
from typing import Any

import pytest
from foundation_support import AI_USER, ALICE, BOB, CAROL, GAME, GUILD, new_counter, snapshot
from openskill.models import PlackettLuce

from bot.ladder.results import ordinal
from bot.play.sessions import SessionService
from bot.storage import Database


async def rating(db: Database, user_id: int) -> dict[str, Any] | None:
    row = await db.fetch_one(
        "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?",
        (GUILD, GAME, user_id),
    )
    return None if row is None else dict(row)


async def players(db: Database, result_id: int) -> list[dict[str, Any]]:
    rows = await db.fetch_all(
        "SELECT * FROM result_players WHERE result_id = ? ORDER BY seat", (result_id,)
    )
    return [dict(row) for row in rows]


async def test_a_two_player_win_records_the_result_and_openskill_ratings(
    service: SessionService, db: Database
) -> None:
    session = await new_counter(service, ALICE, BOB)
    await service.act(session.id, ALICE, {"type": "inc", "by": 4})
    outcome = await service.act(
        session.id, ALICE, {"type": "end", "ranks": [2, 1], "winners": [1], "scores": [4, 9]}
    )
    assert outcome.session.status == "finished"
    assert outcome.result_id is not None

    result = await db.fetch_one("SELECT * FROM results WHERE id = ?", (outcome.result_id,))
    assert result is not None
    assert (result["session_id"], result["game"], result["guild_id"]) == (session.id, GAME, GUILD)
    assert (result["draw"], result["vs_ai"], result["reason"]) == (0, 0, "normal")
    assert json.loads(result["summary"]) == {"first_seat": 0, "line": "4"}

    rows = await players(db, outcome.result_id)
    assert [(r["user_id"], r["outcome"], r["place"], r["score"]) for r in rows] == [
        (ALICE, "loss", 2, 4),
        (BOB, "win", 1, 9),
    ]
    assert [r["went_first"] for r in rows] == [1, 0]

    model = PlackettLuce()
    expected = model.rate([[model.rating()], [model.rating()]], ranks=[2, 1])
    alice, bob = await rating(db, ALICE), await rating(db, BOB)
    assert alice is not None and bob is not None
    assert alice["mu"] == pytest.approx(expected[0][0].mu, abs=1e-9)
    assert alice["sigma"] == pytest.approx(expected[0][0].sigma, abs=1e-9)
    assert bob["mu"] == pytest.approx(expected[1][0].mu, abs=1e-9)
    assert bob["sigma"] == pytest.approx(expected[1][0].sigma, abs=1e-9)
    assert bob["ordinal"] == pytest.approx(expected[1][0].ordinal(), abs=1e-9)
    assert bob["mu"] > alice["mu"]
    assert (alice["wins"], alice["losses"], alice["games"], alice["streak"]) == (0, 1, 1, -1)
    assert (bob["wins"], bob["losses"], bob["games"], bob["streak"]) == (1, 0, 1, 1)
    assert (bob["ai_wins"], bob["ai_losses"], bob["ai_draws"]) == (0, 0, 0)


async def test_ratings_build_on_the_previous_game(service: SessionService, db: Database) -> None:
    model = PlackettLuce()
    alice, bob = model.rating(), model.rating()
    for _ in range(3):
        session = await new_counter(service, ALICE, BOB)
        await service.act(session.id, BOB, {"type": "end", "ranks": [1, 2], "winners": [0]})
        [alice], [bob] = model.rate([[alice], [bob]], ranks=[1, 2])
    stored = await rating(db, ALICE)
    assert stored is not None
    assert stored["mu"] == pytest.approx(alice.mu, abs=1e-9)
    assert stored["sigma"] == pytest.approx(alice.sigma, abs=1e-9)
    assert (stored["wins"], stored["games"], stored["streak"], stored["best_streak"]) == (
        3,
        3,
        3,
        3,
    )
    loser = await rating(db, BOB)
    assert loser is not None and (loser["streak"], loser["best_streak"]) == (-3, 0)


async def test_a_draw_is_recorded_and_rated_as_shared_place(
    service: SessionService, db: Database
) -> None:
    session = await new_counter(service, ALICE, BOB)
    outcome = await service.act(session.id, ALICE, {"type": "end", "ranks": [1, 1], "draw": True})
    assert outcome.result_id is not None
    result = await db.fetch_one("SELECT draw FROM results WHERE id = ?", (outcome.result_id,))
    assert result is not None and result["draw"] == 1
    rows = await players(db, outcome.result_id)
    assert [r["outcome"] for r in rows] == ["draw", "draw"]

    model = PlackettLuce()
    expected = model.rate([[model.rating()], [model.rating()]], ranks=[1, 1])
    for user, team in ((ALICE, expected[0]), (BOB, expected[1])):
        stored = await rating(db, user)
        assert stored is not None
        assert stored["mu"] == pytest.approx(team[0].mu, abs=1e-9)
        assert stored["sigma"] == pytest.approx(team[0].sigma, abs=1e-9)
        assert (stored["draws"], stored["games"], stored["streak"]) == (1, 1, 0)


async def test_a_game_against_the_ai_only_moves_the_ai_record(
    service: SessionService, db: Database
) -> None:
    # Alice first earns a ladder rating against Bob.
    ladder = await new_counter(service, ALICE, BOB)
    await service.act(ladder.id, ALICE, {"type": "end", "ranks": [1, 2], "winners": [0]})
    before = await rating(db, ALICE)
    assert before is not None

    versus_ai = await new_counter(service, ALICE, AI_USER, ai=[AI_USER])
    outcome = await service.act(
        versus_ai.id, ALICE, {"type": "end", "ranks": [1, 2], "winners": [0]}
    )
    assert outcome.result_id is not None
    result = await db.fetch_one("SELECT vs_ai FROM results WHERE id = ?", (outcome.result_id,))
    assert result is not None and result["vs_ai"] == 1
    rows = await players(db, outcome.result_id)
    assert [(r["user_id"], r["is_ai"], r["outcome"]) for r in rows] == [
        (ALICE, 0, "win"),
        (AI_USER, 1, "loss"),
    ]

    after = await rating(db, ALICE)
    assert after is not None
    assert after["ai_wins"] == before["ai_wins"] + 1
    ladder_columns = ("mu", "sigma", "ordinal", "wins", "losses", "draws", "games", "streak")
    assert {k: after[k] for k in ladder_columns} == {k: before[k] for k in ladder_columns}
    # The AI never gets a rating row of its own.
    assert await rating(db, AI_USER) is None


async def test_a_first_game_against_the_ai_leaves_a_default_ladder_rating(
    service: SessionService, db: Database
) -> None:
    session = await new_counter(service, CAROL, AI_USER, ai=[AI_USER])
    await service.act(session.id, CAROL, {"type": "end", "ranks": [2, 1], "winners": [1]})
    stored = await rating(db, CAROL)
    model = PlackettLuce()
    assert stored is not None
    assert (stored["mu"], stored["sigma"]) == (model.mu, model.sigma)
    assert stored["ordinal"] == pytest.approx(ordinal(model.mu, model.sigma))
    assert (stored["games"], stored["losses"], stored["ai_losses"]) == (0, 0, 1)


async def test_a_failed_result_write_rolls_back_the_whole_move(
    service: SessionService, db: Database
) -> None:
    session = await new_counter(service, ALICE, BOB)
    before = await snapshot(db, session.id)
    # Ranks for one seat only: recording the second seat fails inside the transaction.
    with pytest.raises(IndexError):
        await service.act(session.id, ALICE, {"type": "end", "ranks": [1], "winners": [0]})
    assert await snapshot(db, session.id) == before
    assert await rating(db, ALICE) is None
    assert await db.fetch_all("SELECT * FROM result_players") == []


async def test_ordinal_is_mu_minus_three_sigma() -> None:
    model = PlackettLuce()
    player = model.rating(mu=30.0, sigma=2.0)
    assert ordinal(30.0, 2.0) == pytest.approx(player.ordinal()) == 24.0
