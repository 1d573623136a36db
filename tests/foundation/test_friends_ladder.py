"""Games with friends (outside servers, stored under ``FRIENDS_LADDER``): recorded as
results, picks and a record, never on a season or a rating, never read by a server; and the
reads ``/stats`` and ``/history`` make of them outside servers: a player's record summed over
every server and their games with friends, the head-to-head record of two players, and
the games with friends listed. On both databases, written by the session service's own
move transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from guides import every_guide
from openskill.models import PlackettLuce

from bot.ladder.results import Placing, record_in_current_season
from bot.ladder.standings import (
    HeadToHead,
    Record,
    history,
    leaderboard_page,
    lifetime_stats,
    player_stats,
)
from bot.model.clock import ManualClock
from bot.model.contract import FRIENDS_LADDER, Outcome, Seat, Step, StepContext
from bot.play.guild_settings import GuildSettings
from bot.play.sessions import SeedSource, SessionService
from bot.storage import Database
from game_core.base import GameResult

SERVER = 5_000
OTHER_SERVER = 6_000
CHANNEL = 7_000
DM = 8_000
ALICE, BOB, CAROL, DAVE = 1, 2, 3, 4
AI = 999
MODEL = PlackettLuce()


class ScriptedGame:
    """Its only move ends the game with the result and summary it is given."""

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
def service(db: Database) -> SessionService:
    sessions = SessionService(
        db, ManualClock(), GuildSettings(), SeedSource(3), guides=every_guide()
    )
    for game in ("knucklebones", "diceman", "weighted_dice", "dimension_duel"):
        sessions.register(ScriptedGame(game))
    return sessions


async def play(
    service: SessionService,
    game: str,
    users: Sequence[int],
    ranks: Sequence[int],
    *,
    guild_id: int,
    channel_id: int = CHANNEL,
    draw: bool = False,
    scores: Sequence[int] | None = None,
    summary: dict[str, Any] | None = None,
    ai: Sequence[int] = (),
) -> Outcome:
    seats = [
        Seat(seat=i, user_id=user, display_name=f"p{user}", is_ai=user in ai)
        for i, user in enumerate(users)
    ]
    session = await service.create(
        game=game,
        guild_id=guild_id,
        channel_id=channel_id,
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
        "scores": None if scores is None else list(scores),
    }
    return await service.act(
        session.id, users[0], {"type": "end", "result": result, "summary": summary or {}}
    )


async def with_friends(
    service: SessionService, game: str, users: Sequence[int], ranks: Sequence[int], **kw: Any
) -> Outcome:
    return await play(service, game, users, ranks, guild_id=FRIENDS_LADDER, channel_id=DM, **kw)


async def test_a_game_with_friends_is_recorded_but_never_ranked(
    service: SessionService, db: Database
) -> None:
    outcome = await with_friends(service, "knucklebones", [ALICE, BOB], [1, 2], scores=[50, 30])
    assert outcome.result_id is not None
    result = await db.fetch_one("SELECT * FROM results WHERE id = ?", (outcome.result_id,))
    assert result is not None
    assert (result["guild_id"], result["channel_id"], result["season"]) == (
        FRIENDS_LADDER,
        DM,
        None,
    )
    seats = await db.fetch_all(
        "SELECT user_id, outcome, place, score FROM result_players WHERE result_id = ?"
        " ORDER BY seat",
        (outcome.result_id,),
    )
    assert [tuple(row) for row in seats] == [(ALICE, "win", 1, 50), (BOB, "loss", 2, 30)]
    # The record moves; the rating stays the starting one: nobody ranks games with friends.
    rows = await db.fetch_all(
        "SELECT user_id, mu, sigma, wins, losses, games, streak, score_total FROM ratings"
        " WHERE guild_id = ? ORDER BY user_id",
        (FRIENDS_LADDER,),
    )
    assert [(r["user_id"], r["wins"], r["losses"], r["games"], r["streak"]) for r in rows] == [
        (ALICE, 1, 0, 1, 1),
        (BOB, 0, 1, 1, -1),
    ]
    for row in rows:
        assert (row["mu"], row["sigma"]) == (pytest.approx(MODEL.mu), pytest.approx(MODEL.sigma))
    assert await db.fetch_all("SELECT * FROM season_ratings") == []
    assert await db.fetch_all("SELECT * FROM season_current") == []
    # A second game still leaves the rating where it started.
    await with_friends(service, "knucklebones", [ALICE, BOB], [1, 2])
    alice = await db.fetch_one(
        "SELECT mu, wins, streak, best_streak FROM ratings WHERE guild_id = ? AND user_id = ?",
        (FRIENDS_LADDER, ALICE),
    )
    assert alice is not None
    assert (alice["mu"], alice["wins"], alice["streak"], alice["best_streak"]) == (
        pytest.approx(MODEL.mu),
        2,
        2,
        2,
    )
    with pytest.raises(ValueError, match="never ranked"):
        async with db.transaction() as conn:
            await record_in_current_season(
                conn,
                guild_id=FRIENDS_LADDER,
                game="knucklebones",
                placings=[Placing(ALICE, 1, "win"), Placing(BOB, 2, "loss")],
                now=0,
            )


async def test_no_server_reads_a_game_with_friends(service: SessionService, db: Database) -> None:
    await play(service, "knucklebones", [ALICE, BOB], [2, 1], guild_id=SERVER)
    for _ in range(3):
        await with_friends(service, "knucklebones", [ALICE, BOB], [1, 2])
    board = await leaderboard_page(db, SERVER, "knucklebones", provisional_games=1)
    assert [
        (row.standing.user_id, row.standing.wins, row.standing.losses) for row in board.rows
    ] == [
        (BOB, 1, 0),
        (ALICE, 0, 1),
    ]
    stats = await player_stats(db, SERVER, ALICE, provisional_games=1)
    [knucklebones] = stats.games
    assert (knucklebones.standing.wins, knucklebones.standing.losses) == (0, 1)
    assert len(stats.recent) == 1 and stats.recent[0].guild_id == SERVER
    assert [entry.guild_id for entry in await history(db, SERVER)] == [SERVER]
    assert [entry.guild_id for entry in await history(db, SERVER, user_id=ALICE)] == [SERVER]


async def test_a_record_everywhere_sums_every_server_and_the_games_with_friends(
    service: SessionService, db: Database
) -> None:
    await play(service, "knucklebones", [ALICE, BOB], [1, 2], guild_id=SERVER, scores=[60, 10])
    await play(
        service, "knucklebones", [ALICE, CAROL], [2, 1], guild_id=OTHER_SERVER, scores=[20, 30]
    )
    await play(
        service, "knucklebones", [ALICE, AI], [1, 2], guild_id=SERVER, ai=[AI], scores=[40, 0]
    )
    await with_friends(service, "knucklebones", [BOB, ALICE], [1, 1], draw=True, scores=[25, 25])
    await with_friends(service, "knucklebones", [ALICE, BOB], [1, 2], scores=[55, 5])
    await with_friends(
        service,
        "diceman",
        [ALICE, DAVE],
        [2, 1],
        summary={
            "choices": [[["priority", "sword"], ["sword", "priority"]], [["magic", "shield"]]]
        },
    )
    await play(
        service,
        "diceman",
        [ALICE, BOB],
        [1, 2],
        guild_id=SERVER,
        summary={"choices": [[["magic", "shield"]], [["magic", "shield"]]]},
    )

    stats = await lifetime_stats(db, ALICE, viewer_id=ALICE)
    assert [game.game for game in stats.games] == ["knucklebones", "diceman"]
    knucklebones, diceman = stats.games
    assert (knucklebones.wins, knucklebones.losses, knucklebones.draws) == (2, 1, 1)
    assert knucklebones.games == 4
    assert (knucklebones.ai_wins, knucklebones.ai_losses, knucklebones.ai_draws) == (1, 0, 0)
    assert knucklebones.with_friends == Record(1, 0, 1)
    # Every final score, against players and the AI: 60, 20, 40, 25, 55.
    assert knucklebones.average_score == pytest.approx(200 / 5)
    assert (diceman.wins, diceman.losses, diceman.games) == (1, 1, 2)
    assert diceman.with_friends == Record(0, 1, 0)
    assert diceman.favourite is not None
    assert (diceman.favourite.pick, diceman.favourite.uses) == ("priority+sword", 2)
    assert stats.head_to_head is None
    # Her own games with friends, newest first: none of a server's.
    assert [(entry.game, entry.guild_id) for entry in stats.recent] == [
        ("diceman", FRIENDS_LADDER),
        ("knucklebones", FRIENDS_LADDER),
        ("knucklebones", FRIENDS_LADDER),
    ]
    assert [entry.with_friends for entry in stats.recent] == [True, True, True]
    assert all(entry.link is None for entry in stats.recent)


async def test_the_head_to_head_counts_every_game_two_players_finished_together(
    service: SessionService, db: Database
) -> None:
    await play(service, "knucklebones", [ALICE, BOB], [1, 2], guild_id=SERVER)
    await play(service, "knucklebones", [BOB, ALICE], [1, 2], guild_id=OTHER_SERVER)
    await with_friends(service, "knucklebones", [ALICE, BOB], [1, 2])
    await with_friends(service, "knucklebones", [ALICE, BOB], [1, 1], draw=True)
    await with_friends(service, "dimension_duel", [BOB, ALICE], [1, 2])
    # Not together: with Carol, and against the AI.
    await with_friends(service, "knucklebones", [ALICE, CAROL], [1, 2])
    await play(service, "knucklebones", [BOB, AI], [1, 2], guild_id=SERVER, ai=[AI])
    # A table of four: Bob second, Alice fourth, Carol and Dave between.
    await play(service, "weighted_dice", [ALICE, BOB, CAROL, DAVE], [4, 2, 1, 3], guild_id=SERVER)

    bob_asks = await lifetime_stats(db, ALICE, viewer_id=BOB)
    assert bob_asks.head_to_head == [
        HeadToHead("knucklebones", Record(wins=1, losses=2, draws=1)),
        HeadToHead("weighted_dice", Record(wins=1, losses=0, draws=0)),
        HeadToHead("dimension_duel", Record(wins=1, losses=0, draws=0)),
    ]
    alice_asks = await lifetime_stats(db, BOB, viewer_id=ALICE)
    assert alice_asks.head_to_head == [
        HeadToHead("knucklebones", Record(wins=2, losses=1, draws=1)),
        HeadToHead("weighted_dice", Record(wins=0, losses=1, draws=0)),
        HeadToHead("dimension_duel", Record(wins=0, losses=1, draws=0)),
    ]
    # Bob is shown only the games with friends he played with her, not hers with Carol.
    assert [entry.game for entry in bob_asks.recent] == [
        "dimension_duel",
        "knucklebones",
        "knucklebones",
    ]
    assert all(entry.player(BOB) is not None for entry in bob_asks.recent)
    strangers = await lifetime_stats(db, CAROL, viewer_id=DAVE)
    assert strangers.head_to_head == [HeadToHead("weighted_dice", Record(0, 1, 0))]
    assert strangers.recent == []


async def test_the_history_of_games_with_friends(service: SessionService, db: Database) -> None:
    await with_friends(service, "knucklebones", [ALICE, BOB], [1, 2])
    await with_friends(service, "diceman", [ALICE, CAROL], [2, 1])
    await with_friends(service, "knucklebones", [ALICE, AI], [1, 2], ai=[AI])
    await with_friends(service, "knucklebones", [BOB, CAROL], [1, 2])
    await play(service, "knucklebones", [ALICE, BOB], [1, 2], guild_id=SERVER)

    mine = await history(db, FRIENDS_LADDER, user_id=ALICE)
    assert [(entry.game, entry.with_friends) for entry in mine] == [
        ("knucklebones", False),  # against the AI: outside servers, not with friends
        ("diceman", True),
        ("knucklebones", True),
    ]
    assert all(entry.session_id is not None for entry in mine)
    with_bob = await history(db, FRIENDS_LADDER, user_id=ALICE, with_user=BOB)
    assert [[p.user_id for p in entry.players] for entry in with_bob] == [[ALICE, BOB]]
    knucklebones = await history(db, FRIENDS_LADDER, user_id=ALICE, game="knucklebones")
    assert len(knucklebones) == 2
    with pytest.raises(ValueError):
        await history(db, FRIENDS_LADDER, with_user=BOB)
