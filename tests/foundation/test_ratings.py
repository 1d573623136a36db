"""Ratings, records and favourite picks written by ``record_result`` in the move's own
transaction, checked against openskill's own numbers (Plackett-Luce, the model the bot
uses): a two-player win, a draw, a forfeit, and a seven-player Weighted Dice ranking with
shared wins. Also: games against the AI, picks, and migration 2 on old data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from foundation_support import OpenAnother
from guides import every_guide
from openskill.models import PlackettLuce

from bot.ladder.results import pick_key, picks_of
from bot.ladder.standings import leaderboard_page, player_stats
from bot.model.clock import ManualClock
from bot.model.contract import Outcome, Seat, Step, StepContext
from bot.play.guild_settings import GuildSettings
from bot.play.sessions import SeedSource, SessionService
from bot.storage import Database
from bot.storage.migrations import MIGRATIONS
from game_core.base import GameResult

GUILD = 5_000
OTHER_GUILD = 6_000
CHANNEL = 7_000
AI = 999


class ScriptedGame:
    """A handler whose only move ends the game with the result and summary it is given,
    so each test states exactly the outcome it wants recorded."""

    def __init__(self, game: str) -> None:
        self.game = game

    def step(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        result = GameResult.model_validate(action["result"])
        return Step(
            state={}, status="finished", result=result, summary=dict(action.get("summary", {}))
        )

    async def publish(self, outcome: Outcome) -> None:
        pass


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def service(db: Database, clock: ManualClock) -> SessionService:
    sessions = SessionService(db, clock, GuildSettings(), SeedSource(3), guides=every_guide())
    for game in ("knucklebones", "diceman", "weighted_dice", "dimension_duel"):
        sessions.register(ScriptedGame(game))
    return sessions


async def play(
    service: SessionService,
    game: str,
    users: Sequence[int],
    ranks: Sequence[int],
    *,
    draw: bool = False,
    reason: str = "normal",
    scores: Sequence[int] | None = None,
    summary: dict[str, Any] | None = None,
    ai: Sequence[int] = (),
    guild_id: int = GUILD,
) -> Outcome:
    seats = [
        Seat(seat=i, user_id=user, display_name=f"p{user}", is_ai=user in ai)
        for i, user in enumerate(users)
    ]
    session = await service.create(
        game=game,
        guild_id=guild_id,
        channel_id=CHANNEL,
        created_by=users[0],
        seats=seats,
        state={},
        status="active",
        exclusive=False,
    )
    result = {
        "ranks": list(ranks),
        "winners": [] if draw else [i for i, rank in enumerate(ranks) if rank == 1],
        "draw": draw,
        "reason": reason,
        "scores": None if scores is None else list(scores),
    }
    return await service.act(
        session.id, users[0], {"type": "end", "result": result, "summary": summary or {}}
    )


async def stored(db: Database, user: int, game: str, guild_id: int = GUILD) -> dict[str, Any]:
    row = await db.fetch_one(
        "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?",
        (guild_id, game, user),
    )
    assert row is not None
    return dict(row)


def assert_matches(row: dict[str, Any], mu: float, sigma: float) -> None:
    assert row["mu"] == pytest.approx(mu, abs=1e-9)
    assert row["sigma"] == pytest.approx(sigma, abs=1e-9)
    assert row["ordinal"] == pytest.approx(mu - 3 * sigma, abs=1e-9)


MODEL = PlackettLuce()


async def test_a_two_player_win_moves_both_ratings_as_openskill_does(
    service: SessionService, db: Database
) -> None:
    await play(service, "knucklebones", [1, 2], [1, 2], scores=[40, 31])
    [[winner], [loser]] = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[1, 2])
    one, two = await stored(db, 1, "knucklebones"), await stored(db, 2, "knucklebones")
    assert_matches(one, winner.mu, winner.sigma)
    assert_matches(two, loser.mu, loser.sigma)
    assert (one["wins"], one["losses"], one["games"], one["streak"], one["best_streak"]) == (
        1,
        0,
        1,
        1,
        1,
    )
    assert (two["wins"], two["losses"], two["games"], two["streak"]) == (0, 1, 1, -1)
    # The final scores feed Knucklebones' average final score.
    assert (one["score_total"], one["scored_games"]) == (40, 1)

    # A second game starts from the stored ratings, not from scratch.
    await play(service, "knucklebones", [2, 1], [1, 2], scores=[50, 20])
    [[two_again], [one_again]] = MODEL.rate([[loser], [winner]], ranks=[1, 2])
    assert_matches(await stored(db, 1, "knucklebones"), one_again.mu, one_again.sigma)
    assert_matches(await stored(db, 2, "knucklebones"), two_again.mu, two_again.sigma)
    again = await stored(db, 1, "knucklebones")
    assert (again["streak"], again["best_streak"], again["score_total"]) == (-1, 1, 60)


async def test_a_draw_is_a_shared_place(service: SessionService, db: Database) -> None:
    # Unequal players first, so the draw visibly pulls them together.
    await play(service, "dimension_duel", [1, 2], [1, 2])
    one_before, two_before = (
        await stored(db, 1, "dimension_duel"),
        await stored(db, 2, "dimension_duel"),
    )
    outcome = await play(service, "dimension_duel", [1, 2], [1, 1], draw=True)
    assert outcome.result_id is not None
    [[one], [two]] = MODEL.rate(
        [
            [MODEL.rating(mu=one_before["mu"], sigma=one_before["sigma"])],
            [MODEL.rating(mu=two_before["mu"], sigma=two_before["sigma"])],
        ],
        ranks=[1, 1],
    )
    one_after, two_after = (
        await stored(db, 1, "dimension_duel"),
        await stored(db, 2, "dimension_duel"),
    )
    assert_matches(one_after, one.mu, one.sigma)
    assert_matches(two_after, two.mu, two.sigma)
    assert one_after["mu"] < one_before["mu"] and two_after["mu"] > two_before["mu"]
    assert (one_after["draws"], one_after["streak"], one_after["best_streak"]) == (1, 0, 1)
    outcomes = await db.fetch_all(
        "SELECT outcome FROM result_players WHERE result_id = ?", (outcome.result_id,)
    )
    assert [row["outcome"] for row in outcomes] == ["draw", "draw"]


async def test_a_forfeit_counts_as_a_loss(service: SessionService, db: Database) -> None:
    # Seat 0 forfeits while ahead on score: still a loss, rated exactly like one.
    outcome = await play(service, "diceman", [1, 2], [2, 1], reason="forfeit", scores=[18, 3])
    result = await db.fetch_one("SELECT reason FROM results WHERE id = ?", (outcome.result_id,))
    assert result is not None and result["reason"] == "forfeit"
    [[quitter], [stayer]] = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[2, 1])
    one, two = await stored(db, 1, "diceman"), await stored(db, 2, "diceman")
    assert_matches(one, quitter.mu, quitter.sigma)
    assert_matches(two, stayer.mu, stayer.sigma)
    assert (one["losses"], one["wins"], one["streak"]) == (1, 0, -1)
    assert (two["wins"], two["streak"]) == (1, 1)


async def test_seven_player_weighted_dice_with_shared_wins(
    service: SessionService, db: Database
) -> None:
    # Some history first, so the seven start from different ratings.
    await play(service, "weighted_dice", [1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    await play(service, "weighted_dice", [5, 6, 7, 1, 3], [1, 1, 3, 4, 5])
    users = [1, 2, 3, 4, 5, 6, 7]
    before = {user: await stored(db, user, "weighted_dice") for user in (1, 2, 3, 4, 5, 6, 7)}
    # Two players tie for the win at 150+, two share fourth place.
    ranks = [1, 3, 1, 4, 4, 6, 7]
    scores = [152, 90, 152, 60, 60, 25, 5]
    await play(service, "weighted_dice", users, ranks, scores=scores)

    teams = [[MODEL.rating(mu=before[u]["mu"], sigma=before[u]["sigma"])] for u in users]
    expected = MODEL.rate(teams, ranks=ranks)
    for user, team in zip(users, expected, strict=True):
        row = await stored(db, user, "weighted_dice")
        assert_matches(row, team[0].mu, team[0].sigma)
    first, third = await stored(db, 1, "weighted_dice"), await stored(db, 3, "weighted_dice")
    assert first["wins"] == 1 + before[1]["wins"] and third["wins"] == 1 + before[3]["wins"]
    # Everyone not sharing first place lost this one.
    assert (await stored(db, 4, "weighted_dice"))["losses"] == before[4]["losses"] + 1
    assert (await stored(db, 7, "weighted_dice"))["games"] == 2

    board = await leaderboard_page(db, GUILD, "weighted_dice", provisional_games=3)
    ranked = [entry.standing.user_id for entry in board.rows]
    # Ranked means three games: players 1, 3 and 5; 2, 4, 6, 7 are provisional.
    assert sorted(ranked) == [1, 3, 5]
    ordinals = [entry.standing.ordinal for entry in board.rows]
    assert ordinals == sorted(ordinals, reverse=True)
    assert sorted(s.user_id for s in board.provisional) == [2, 4, 6, 7]
    assert board.provisional_total == 4


async def test_games_against_the_ai_keep_a_separate_record(
    service: SessionService, db: Database
) -> None:
    await play(service, "knucklebones", [1, 2], [1, 2], scores=[30, 20])
    ladder = await stored(db, 1, "knucklebones")
    await play(service, "knucklebones", [1, AI], [2, 1], ai=[AI], scores=[44, 50])
    await play(service, "knucklebones", [1, AI], [1, 1], ai=[AI], draw=True, scores=[40, 40])
    after = await stored(db, 1, "knucklebones")
    for column in ("mu", "sigma", "ordinal", "wins", "losses", "draws", "games", "streak"):
        assert after[column] == ladder[column], column
    assert (after["ai_wins"], after["ai_losses"], after["ai_draws"]) == (0, 1, 1)
    assert (after["score_total"], after["scored_games"]) == (114, 3)
    assert await db.fetch_one("SELECT 1 FROM ratings WHERE user_id = ?", (AI,)) is None


async def test_favourite_picks_are_counted_per_player(
    service: SessionService, db: Database
) -> None:
    await play(
        service,
        "diceman",
        [1, 2],
        [1, 2],
        summary={
            "choices": [
                [["sword", "priority"], ["priority", "sword"], ["magic", "shield"]],
                [["shield", "sword"]],
            ]
        },
    )
    await play(
        service,
        "dimension_duel",
        [1, AI],
        [1, 2],
        ai=[AI],
        summary={"functions": [["deflector", "bluff", "deflector"], ["intensifier"]]},
    )
    rows = await db.fetch_all(
        "SELECT game, user_id, pick, uses FROM player_picks ORDER BY game, user_id, pick"
    )
    assert [tuple(row) for row in rows] == [
        ("diceman", 1, "magic+shield", 1),
        ("diceman", 1, "priority+sword", 2),
        ("diceman", 2, "shield+sword", 1),
        ("dimension_duel", 1, "bluff", 1),
        ("dimension_duel", 1, "deflector", 2),
    ]
    stats = await player_stats(db, GUILD, 1, provisional_games=3)
    favourites = {g.game: g.favourite for g in stats.games}
    assert favourites["diceman"] is not None and favourites["diceman"].pick == "priority+sword"
    assert favourites["dimension_duel"] is not None
    assert (favourites["dimension_duel"].pick, favourites["dimension_duel"].uses) == (
        "deflector",
        2,
    )


async def test_a_malformed_summary_never_blocks_recording(
    service: SessionService, db: Database
) -> None:
    outcome = await play(
        service, "diceman", [1, 2], [1, 2], summary={"choices": "sword", "score_line": 7}
    )
    assert outcome.result_id is not None
    assert await db.fetch_all("SELECT * FROM player_picks") == []
    assert picks_of("choices", {"choices": {"0": [["magic", "sword"], 5, None]}}, 0) == [
        "magic+sword"
    ]
    assert picks_of("functions", {"functions": [["bluff"]]}, 3) == []
    assert pick_key(["Sword", " priority "]) == "priority+sword"
    assert pick_key("shield,magic") == "magic+shield"
    assert pick_key([]) is None and pick_key({"a": 1}) is None


async def test_migration_2_keeps_existing_ratings(open_another: OpenAnother) -> None:
    old = await open_another()
    assert await old.migrate(upto=1) == [1]
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO ratings (guild_id, game, user_id, mu, sigma, ordinal, wins, games,"
            " updated_at) VALUES (1, 'diceman', 42, 30.0, 5.0, 15.0, 4, 6, 0)"
        )
    await old.close()

    new = await open_another()
    assert await new.migrate() == [version for version, _ in MIGRATIONS[1:]]
    row = await new.fetch_one("SELECT * FROM ratings WHERE user_id = 42")
    assert row is not None
    assert (row["wins"], row["games"], row["score_total"], row["scored_games"]) == (4, 6, 0, 0)
    names = {name for name, _ in await new.schema()}
    assert {
        "player_picks",
        "ratings_ladder",
        "ratings_by_wins",
        "ratings_by_win_rate",
        "results_by_guild",
    } <= names
    # The covering ladder index replaces migration 1's narrower one.
    assert "ratings_by_ordinal" not in names
