"""The tournament service (bot/play/tournaments.py) on both databases, with the pure bracket
(game_core/tournament.py) and a small two-player game that answers challenges and plays on
exactly as the duels do (bot/ui/challenges.py, bot/model/series.py): sign-up, start by the
host or by the clock, too few players, rounds whose games are challenges in the event's
thread, best-of matches that go on by the game's own follow-up, a drawn match decided by a
rematch, a match lost on time, removal, cancellation, the end with its standings, and a
second process carrying the event on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from foundation_support import OpenAnother

from bot.model.clock import ManualClock
from bot.model.contract import (
    CHANNEL_DELETED,
    MESSAGE_REFUSED,
    Deadline,
    NewSession,
    Seat,
    Step,
    StepContext,
)
from bot.model.errors import UserError
from bot.model.series import (
    keep_series,
    load_series,
    next_in_match,
    rematch_after,
    series_of,
)
from bot.play.deadlines import DeadlineRunner
from bot.play.guild_settings import GuildSettings
from bot.play.sessions import SeedSource, SessionService
from bot.play.tournament_games import CHANNEL_UNUSABLE, challenge_envelope
from bot.play.tournaments import (
    CANCELLED_BY_HOST,
    SWEEP_SECONDS,
    TOO_FEW_PLAYERS,
    TournamentRunner,
    TournamentService,
    parse_start,
)
from bot.storage import Database
from bot.storage.tournaments import TournamentRow
from bot.ui.challenges import challenge_state, challenge_step, is_challenge, rematch_challenge
from game_core import tournament as core
from game_core.base import GameResult
from game_core.errors import IllegalMove

GUILD = 31_000
CHANNEL = 310
THREAD = 311
HOST = 1
PLAYERS = list(range(101, 109))  # up to eight players: ids 101..108
TURN_SECONDS = 300.0


class Duel:
    """A duel in two moves: after the challenge is accepted, a seated player declares
    ``win`` (their seat wins) or ``draw``; the turn timer makes seat 0 lose on time."""

    game = "knucklebones"  # a game tournaments are for; the service knows only its name
    private_messages = False

    def step(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        if is_challenge(ctx.session.state):
            return challenge_step(ctx, action, self._start)
        done = self._play(ctx, action)
        keep_series(ctx.session.state, done.state)
        return done

    def _start(self, ctx: StepContext, options: dict[str, Any]) -> Step:
        return Step(state={"board": 0}, status="active", deadlines=self._turn(ctx.now))

    @staticmethod
    def _turn(now: float) -> list[Deadline]:
        return [Deadline("turn", now + TURN_SECONDS, {"type": "timeout"})]

    def _play(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        kind = action.get("type")
        if kind == "timeout" and ctx.actor_id is None:
            result = GameResult(ranks=[2, 1], winners=[1], reason="timeout")
            return Step(state={"winner": 1}, status="finished", result=result)
        if ctx.seat is None:
            raise IllegalMove("Not your game.")
        if kind == "win":
            ranks = [1, 2] if ctx.seat == 0 else [2, 1]
            result = GameResult(ranks=ranks, winners=[ctx.seat])
            return Step(state={"winner": ctx.seat}, status="finished", result=result)
        if kind == "draw":
            result = GameResult(ranks=[1, 1], winners=[0, 1], draw=True)
            return Step(state={"winner": None}, status="finished", result=result)
        raise IllegalMove("Not a move.")

    def follow_up(self, ctx: StepContext, action: dict[str, Any]) -> NewSession:
        previous = ctx.session
        seat = previous.state.get("winner")
        winner = None if seat is None else previous.user_of(seat).user_id
        players = (previous.user_of(0).user_id, previous.user_of(1).user_id)
        series = series_of(players, load_series(previous.state))
        if action["type"] == "next":
            state = {"board": 0, "series": next_in_match(series, winner, previous.id).model_dump()}
            return NewSession(
                seats=list(previous.seats),
                state=state,
                status="active",
                deadlines=self._turn(ctx.now),
            )
        return rematch_challenge(ctx, action, {}, rematch_after(series, winner, previous.id))


class World:
    """One process: the session service with the duel, the tournament service, timers."""

    def __init__(self, db: Database, clock: ManualClock) -> None:
        self.db = db
        self.clock = clock
        self.sessions = SessionService(db, clock, GuildSettings(), SeedSource(31))
        self.sessions.register(Duel())  # type: ignore[arg-type]
        self.service = TournamentService(self.sessions)
        self.deadlines = DeadlineRunner(self.sessions, clock)
        self.changes: list[int] = []
        self.service.on_change(self.changes.append)

    async def settle(self) -> None:
        """Wait for the drives that ended games started (never a blind sleep)."""
        while self.service.games.pending:
            await asyncio.gather(*self.service.games.pending)

    async def new_event(
        self, players: int, *, format: core.Format, best_of: int = 1, **options: Any
    ) -> TournamentRow:
        row = await self.service.create(
            guild_id=GUILD,
            channel_id=CHANNEL,
            host_id=HOST,
            game="knucklebones",
            name="  Friday   cup ",
            format=format,
            best_of=best_of,
            **options,
        )
        await self.service.set_thread(row.id, THREAD)
        for user in PLAYERS[:players]:
            await self.service.join(row.id, user, f"P{user}")
        return row

    async def current_games(self, tournament_id: int) -> list[tuple[int, int, int]]:
        """(session id, challenger, challenged) of the games being played now."""
        found = []
        for session_id in await self.service.round_games(tournament_id):
            session = await self.sessions.require(session_id)
            assert session.channel_id == THREAD
            found.append((session_id, session.user_of(0).user_id, session.user_of(1).user_id))
        return found

    async def play(self, session_id: int, winner: int) -> None:
        """Accept the challenge (the challenged player) and win it for ``winner``."""
        session = await self.sessions.require(session_id)
        if is_challenge(session.state):
            await self.sessions.act(session_id, session.user_of(1).user_id, {"type": "accept"})
        await self.sessions.act(session_id, winner, {"type": "win"})
        await self.settle()

    async def play_round(self, tournament_id: int, pick: Any = min) -> None:
        """Every game of the round, won by ``pick(first, second)``."""
        for session_id, first, second in await self.current_games(tournament_id):
            await self.play(session_id, pick(first, second))


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def world(db: Database, clock: ManualClock) -> AsyncIterator[World]:
    made = World(db, clock)
    yield made
    await made.settle()


async def ratings(db: Database, rated: dict[int, float]) -> None:
    """Season 1 ratings (conservative estimates) for some players."""
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO season_current (guild_id, game, number, name, started_at)"
            " VALUES (?, 'knucklebones', 1, '', 0)",
            (GUILD,),
        )
        for user, ordinal in rated.items():
            await conn.execute(
                "INSERT INTO season_ratings (guild_id, game, season, user_id, mu, sigma,"
                " ordinal, wins, losses, draws, games, streak, best_streak, updated_at)"
                " VALUES (?, 'knucklebones', 1, ?, 25, 1, ?, 1, 0, 0, 1, 1, 1, 0)",
                (GUILD, user, ordinal),
            )


def test_the_first_game_is_the_duels_own_challenge() -> None:
    challenger = Seat(seat=0, user_id=5, display_name="A")
    opponent = Seat(seat=1, user_id=6, display_name="B")
    assert challenge_envelope(challenger, opponent, 99.0) == challenge_state(
        challenger, opponent, {}, 99.0
    )


async def test_sign_up_join_leave_and_their_refusals(world: World) -> None:
    row = await world.new_event(3, format=core.Format.SINGLE_ELIMINATION, max_players=4)
    assert row.name == "Friday cup" and row.status == "signup"
    with pytest.raises(UserError, match="already signed up"):
        await world.service.join(row.id, PLAYERS[0], "again")
    await world.service.join(row.id, PLAYERS[3], "P4")
    with pytest.raises(UserError, match="full: 4 players"):
        await world.service.join(row.id, PLAYERS[4], "late")
    await world.service.leave(row.id, PLAYERS[3])
    with pytest.raises(UserError, match="not signed up"):
        await world.service.leave(row.id, PLAYERS[3])
    with pytest.raises(UserError, match="host or a member with the"):
        await world.service.start(row.id, PLAYERS[0])
    view = await world.service.view(row.id)
    # Nothing the refusals touched changed.
    assert [p.user_id for p in view.players] == PLAYERS[:3]
    assert view.tournament.status == "signup" and view.bracket is None


async def test_what_cannot_be_run_is_refused(world: World) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"game": "weighted_dice"}, "Knucklebones, Diceman and Dimension Duel"),
        ({"best_of": 2}, "one game or a series"),
        ({"max_players": 3}, "from 4 to 32 players"),
        ({"max_players": 33}, "from 4 to 32 players"),
        ({"starts_at": world.clock.now() - 1}, "next 30 days"),
    ]
    for changes, message in cases:
        options: dict[str, Any] = {
            "guild_id": GUILD,
            "channel_id": CHANNEL,
            "host_id": HOST,
            "game": "knucklebones",
            "name": "x",
            "format": core.Format.SWISS,
            "best_of": 1,
        }
        options.update(changes)
        with pytest.raises(UserError, match=message):
            await world.service.create(**options)
    assert await world.service.list_for_guild(GUILD) == []


async def test_fewer_than_four_players_cancel_the_event(world: World) -> None:
    row = await world.new_event(3, format=core.Format.SWISS)
    done = await world.service.start(row.id, HOST)
    assert (done.status, done.cancel_reason) == ("cancelled", TOO_FEW_PLAYERS)
    assert await world.service.round_games(row.id) == []
    with pytest.raises(UserError, match="not taking sign-ups"):
        await world.service.join(row.id, PLAYERS[5], "late")


async def test_six_players_single_elimination_with_two_byes_to_the_end(
    world: World, db: Database
) -> None:
    # Seeds by this season's rating: 106 and 105 are the top two (the byes).
    await ratings(db, {106: 10.0, 105: 5.0, 101: 1.0})
    row = await world.new_event(6, format=core.Format.SINGLE_ELIMINATION)
    started = await world.service.start(row.id, HOST)
    assert started.status == "running"
    view = await world.service.view(started.id)
    assert view.bracket is not None
    assert view.bracket.players[:3] == (106, 105, 101)
    assert {p.user_id: p.rating for p in view.players}[106] == 1300.0
    first_round = await world.current_games(row.id)
    assert len(first_round) == 2  # 3 v 6 and 4 v 5; seeds 1 and 2 have byes
    assert all(not p.is_bye for p in view.bracket.pending_pairings())
    # A second drive (another process, a restart) starts nothing more.
    assert await world.service.drive(row.id) == []
    await world.play_round(row.id)
    semis = await world.current_games(row.id)
    assert len(semis) == 2 and {106, 105} <= {p for _, a, b in semis for p in (a, b)}
    await world.play_round(row.id, pick=max)
    (final,) = await world.current_games(row.id)
    await world.play(final[0], 106)
    done = await world.service.get(row.id)
    assert (done.status, done.winner_id) == ("finished", 106)
    standings = await world.service.standings(row.id)
    assert standings[0].user_id == 106 and standings[0].place == 1
    assert [p.place for p in (await world.service.view(row.id)).players if p.user_id == 106] == [1]
    assert await world.service.record_of(GUILD, 106) == (1, 1)
    assert await world.service.record_of(GUILD, 101) == (1, 0)
    # The games counted for the ladder as any game does.
    games = await db.fetch_one(
        "SELECT COUNT(*) AS n FROM results WHERE guild_id = ? AND game = 'knucklebones'",
        (GUILD,),
    )
    assert games is not None and games["n"] == 5


async def test_seven_players_swiss_three_rounds_one_bye_each(world: World) -> None:
    row = await world.new_event(7, format=core.Format.SWISS)
    await world.service.start(row.id, HOST)
    for round_number in (1, 2, 3):
        view = await world.service.view(row.id)
        assert view.bracket is not None and view.bracket.round_number == round_number
        byes = [p for p in view.bracket.pairings_of_current_round() if p.is_bye]
        assert len(byes) == 1
        assert len(await world.current_games(row.id)) == 3
        await world.play_round(row.id)
    done = await world.service.get(row.id)
    assert done.status == "finished" and done.winner_id is not None
    standings = await world.service.standings(row.id)
    assert [s.place for s in standings] == list(range(1, 8))
    assert standings[0].user_id == done.winner_id


async def test_a_best_of_three_goes_on_by_the_games_own_next_game(world: World) -> None:
    row = await world.new_event(4, format=core.Format.SINGLE_ELIMINATION, best_of=3)
    await world.service.start(row.id, HOST)
    (session_id, first, second), _other = await world.current_games(row.id)
    await world.play(session_id, first)
    # Game 2 started at once, in the same move, linked to the pairing; game 1 names it.
    game_one = await world.sessions.require(session_id)
    game_two_id = game_one.state["follow_up"]
    game_two = await world.sessions.require(game_two_id)
    assert game_two.status == "active"
    series = load_series(game_two.state)
    assert series is not None and (series.game, series.match_wins) == (2, (1, 0))
    assert game_two_id in await world.service.round_games(row.id)
    await world.sessions.act(game_two_id, second, {"type": "win"})
    await world.settle()
    game_three_id = (await world.sessions.require(game_two_id)).state["follow_up"]
    await world.sessions.act(game_three_id, first, {"type": "win"})
    await world.settle()
    view = await world.service.view(row.id)
    match = next(m for m in view.matches if m.first_id == first)
    assert (match.first_wins, match.second_wins, match.games, match.winner_id) == (2, 1, 3, first)
    assert view.bracket is not None
    pairing = next(p for p in view.bracket.pairings_of_round(1) if p.first == first)
    assert (pairing.winner, pairing.score, pairing.outcome) == (first, (2, 1), "played")


async def test_a_drawn_match_is_decided_by_a_rematch(world: World) -> None:
    row = await world.new_event(4, format=core.Format.SWISS)
    await world.service.start(row.id, HOST)
    (session_id, first, second), _other = await world.current_games(row.id)
    await world.sessions.act(session_id, second, {"type": "accept"})
    await world.sessions.act(session_id, first, {"type": "draw"})
    await world.settle()
    rematch_id = (await world.sessions.require(session_id)).state["follow_up"]
    rematch = await world.sessions.require(rematch_id)
    assert is_challenge(rematch.state) and rematch.status == "pending"
    await world.play(rematch_id, second)
    view = await world.service.view(row.id)
    match = next(m for m in view.matches if m.first_id == first and m.round == 1)
    assert (match.games, match.second_wins, match.winner_id) == (2, 1, second)


async def test_a_player_who_does_not_start_in_time_loses_the_match(world: World) -> None:
    row = await world.new_event(4, format=core.Format.SINGLE_ELIMINATION)
    await world.service.start(row.id, HOST)
    games = await world.current_games(row.id)
    (late_id, first, _late) = games[0]
    await world.play(games[1][0], games[1][1])
    world.clock.advance(GuildSettings().challenge_expiry_seconds + 1)
    await world.deadlines.fire_due()
    await world.settle()
    assert (await world.sessions.require(late_id)).status == "cancelled"
    view = await world.service.view(row.id)
    assert view.bracket is not None
    pairing = next(p for p in view.bracket.pairings_of_round(1) if p.first == first)
    assert (pairing.winner, pairing.outcome) == (first, "timeout")
    # The final is on, between the two winners.
    (final,) = await world.current_games(row.id)
    assert first in final[1:]


async def test_a_player_who_does_not_finish_in_time_loses_the_match(world: World) -> None:
    row = await world.new_event(4, format=core.Format.SINGLE_ELIMINATION, best_of=3)
    await world.service.start(row.id, HOST)
    (session_id, first, second), _other = await world.current_games(row.id)
    await world.sessions.act(session_id, second, {"type": "accept"})
    world.clock.advance(TURN_SECONDS + 1)
    await world.deadlines.fire_due()
    await world.settle()
    view = await world.service.view(row.id)
    match = next(m for m in view.matches if m.first_id == first)
    # Seat 0 ran out of time in game 1 of 3: the whole match is lost on time.
    assert (match.winner_id, match.reason, match.open_session) == (second, "time", None)


async def test_removing_a_player_mid_match_lets_the_opponent_through(world: World) -> None:
    row = await world.new_event(5, format=core.Format.SINGLE_ELIMINATION)
    await world.service.start(row.id, HOST)
    (session_id, first, second), *_ = await world.current_games(row.id)
    with pytest.raises(UserError, match="host or a member with the"):
        await world.service.remove(row.id, first, second)
    await world.service.remove(row.id, PLAYERS[7], second, may_manage=True)
    assert (await world.sessions.require(session_id)).status == "cancelled"
    view = await world.service.view(row.id)
    assert [p.removed for p in view.players if p.user_id == second] == [True]
    match = next(m for m in view.matches if m.first_id == first)
    assert (match.winner_id, match.reason) == (first, "withdrawn")
    with pytest.raises(UserError, match="has already left"):
        await world.service.remove(row.id, HOST, second)
    with pytest.raises(UserError, match="not in this tournament"):
        await world.service.remove(row.id, HOST, 999)


async def test_cancelling_stops_the_games(world: World) -> None:
    row = await world.new_event(4, format=core.Format.SWISS)
    await world.service.start(row.id, HOST)
    games = await world.current_games(row.id)
    done = await world.service.cancel(row.id, HOST)
    assert (done.status, done.cancel_reason) == ("cancelled", CANCELLED_BY_HOST)
    for session_id, _first, _second in games:
        assert (await world.sessions.require(session_id)).status == "cancelled"
    with pytest.raises(UserError, match="already over"):
        await world.service.cancel(row.id, HOST)
    # Played, not won: a cancelled event counts for neither.
    assert await world.service.record_of(GUILD, games[0][1]) == (0, 0)


async def test_the_clock_starts_the_event(world: World) -> None:
    starts_at = world.clock.now() + 600
    row = await world.new_event(4, format=core.Format.SWISS, starts_at=starts_at)
    runner = TournamentRunner(world.service)
    assert await runner.tick() == pytest.approx(30.0)
    world.clock.advance(600)
    assert await runner.tick() == 30.0
    assert (await world.service.get(row.id)).status == "running"
    assert len(await world.current_games(row.id)) == 2


async def test_another_process_carries_the_event_on(
    world: World, open_another: OpenAnother, clock: ManualClock
) -> None:
    row = await world.new_event(4, format=core.Format.SINGLE_ELIMINATION)
    await world.service.start(row.id, HOST)
    games = await world.current_games(row.id)
    # This process ends a game, then stops before it drives the event on.
    await world.play(games[0][0], games[0][1])
    other = World(await open_another(), clock)
    await other.play(games[1][0], games[1][1])
    (final,) = await other.current_games(row.id)
    # The first process, back, finds the final already started.
    assert await world.service.drive(row.id) == []
    await world.play(final[0], final[1])
    assert (await other.service.get(row.id)).winner_id == final[1]


async def test_every_process_sweeps_the_events_whose_message_is_behind_one_edits_it(
    world: World, open_another: OpenAnother, clock: ManualClock
) -> None:
    """A change whose edit was never made (its process stopped after the commit): both
    processes' sweeps find the event behind; one claims its message, the other's claim
    waits; once shown, no sweep finds it."""
    other = World(await open_another(), clock)
    other.sessions.instance = "another process"
    row = await world.new_event(4, format=core.Format.SINGLE_ELIMINATION)
    await world.service.set_message(row.id, 555, shown_version=0)  # posted before the joins
    found_here: list[int] = []
    found_there: list[int] = []
    runners = [
        TournamentRunner(world.service, show=found_here.append),
        TournamentRunner(other.service, show=found_there.append),
    ]
    for runner in runners:
        runner.start()
    try:
        assert await world.service.unshown() == []  # just changed: its process shows it
        clock.advance(SWEEP_SECONDS)
        for _ in range(500):
            if found_here and found_there:
                break
            await asyncio.sleep(0.01)
        assert found_here == found_there == [row.id]
        version = (await world.service.get(row.id)).version
        assert await other.service.claim_show(row.id, version)
        assert not await world.service.claim_show(row.id, version)  # busy: no double edit
        await other.service.record_shown(row.id, version)
        assert not await world.service.claim_show(row.id, version - 1)  # never an older one
        assert await world.service.unshown() == []
    finally:
        for runner in runners:
            await runner.stop()


async def test_a_deleted_thread_moves_the_games_to_the_channel(world: World) -> None:
    row = await world.new_event(4, format=core.Format.SWISS)
    await world.service.start(row.id, HOST)
    (session_id, _first, _second), _other = await world.current_games(row.id)
    # The publisher found the thread gone: the game ends without a result.
    await world.sessions.cancel(session_id, None, CHANNEL_DELETED)
    await world.settle()
    moved = await world.service.get(row.id)
    assert (moved.status, moved.thread_id, moved.games_channel_id) == ("running", None, CHANNEL)
    channels = {
        (await world.sessions.require(game)).channel_id
        for game in await world.service.round_games(row.id)
    }
    assert channels == {CHANNEL, THREAD}  # the new game in the channel, the other as it was


async def test_an_unusable_channel_ends_the_event(world: World) -> None:
    row = await world.new_event(4, format=core.Format.SWISS)
    await world.service.set_thread(row.id, None)
    await world.service.start(row.id, HOST)
    session_id = (await world.service.round_games(row.id))[0]
    await world.sessions.cancel(session_id, None, MESSAGE_REFUSED)
    await world.settle()
    done = await world.service.get(row.id)
    assert (done.status, done.cancel_reason) == ("cancelled", CHANNEL_UNUSABLE)


async def test_a_player_in_two_events_plays_one_match_at_a_time_in_a_channel(
    world: World,
) -> None:
    first_event = await world.new_event(4, format=core.Format.SWISS)
    second_event = await world.new_event(4, format=core.Format.SWISS)
    await world.service.start(first_event.id, HOST)
    await world.service.start(second_event.id, HOST)
    # Both events play in the same thread here: the second one's games wait.
    assert len(await world.current_games(first_event.id)) == 2
    assert await world.current_games(second_event.id) == []
    await world.play_round(first_event.id)
    # The first event's round 2 and the second's round 1 compete for the same players;
    # each player is in one game at a time, whichever event it is for.
    assert await world.service.drive(second_event.id) == []
    busy = [
        player
        for event in (first_event.id, second_event.id)
        for _game, one, two in await world.current_games(event)
        for player in (one, two)
    ]
    assert len(busy) == len(set(busy)) == 4


async def test_a_removal_racing_the_end_of_the_match_counts_once(
    world: World, open_another: OpenAnother, clock: ManualClock
) -> None:
    """Two processes: one ends a game, the other removes its winner at the same moment.
    Whichever commits first decides the match; the other changes nothing of it."""
    row = await world.new_event(4, format=core.Format.SINGLE_ELIMINATION)
    await world.service.start(row.id, HOST)
    (session_id, first, second), _other = await world.current_games(row.id)
    await world.sessions.act(session_id, second, {"type": "accept"})
    other = World(await open_another(), clock)
    await asyncio.gather(
        world.sessions.act(session_id, first, {"type": "win"}),
        other.service.remove(row.id, HOST, first),
        return_exceptions=True,
    )
    await world.settle()
    await other.settle()
    view = await world.service.view(row.id)
    match = next(m for m in view.matches if m.round == 1 and m.first_id == first)
    assert view.bracket is not None
    pairing = next(p for p in view.bracket.pairings_of_round(1) if p.first == first)
    assert match.winner_id is not None and pairing.winner == match.winner_id
    assert (match.reason, pairing.outcome) in ((None, "played"), ("withdrawn", "withdrawal"))
    assert first in view.bracket.withdrawn
    assert (await world.sessions.require(session_id)).status in ("finished", "cancelled")


def test_a_start_time_as_the_host_types_it() -> None:
    now = 1_800_000_000.0  # 2027-01-15 08:00 UTC
    assert parse_start("30", now) == now + 1_800
    assert parse_start(" 18:30 ", now) == now + 10.5 * 3_600
    # A time of day already past today is tomorrow's.
    assert parse_start("07:00", now) == now + 23 * 3_600
    assert parse_start("<t:1800003600:R>", now) == 1_800_003_600
    assert parse_start("1800003600", now) == 1_800_003_600
    for unreadable in ("soon", "25:00", "18:61", "-5", "<t:abc>", "1.5"):
        with pytest.raises(UserError, match="can't read that start time"):
            parse_start(unreadable, now)


async def test_the_host_sets_how_many_swiss_rounds(world: World) -> None:
    row = await world.new_event(4, format=core.Format.SWISS, swiss_rounds=1)
    await world.service.start(row.id, HOST)
    await world.play_round(row.id)
    done = await world.service.get(row.id)
    assert done.status == "finished" and done.winner_id is not None
    # More rounds than the players can play without a repeat: as many as they can.
    many = await world.new_event(4, format=core.Format.SWISS, swiss_rounds=9)
    await world.service.start(many.id, HOST)
    view = await world.service.view(many.id)
    assert view.bracket is not None and view.bracket.total_rounds == 3
