"""A tournament's row as every change takes it: read locked, saved as its next version, and
advanced by its pure bracket (``game_core.tournament``) with the pairings to play stored. The
sign-up and the host's controls (``bot.play.tournaments``) and the games' ends
(``bot.play.tournament_games``) change an event only through these, inside their own
transaction."""

from __future__ import annotations

from bot.i18n import _
from bot.model.errors import UserError
from bot.storage import Connection
from bot.storage.tournaments import (
    TournamentRow,
    TournamentStatus,
    insert_match,
    load_tournament,
    save_tournament,
    store_places,
)
from game_core import tournament as core


class TournamentNotFound(UserError):
    def __init__(self) -> None:
        super().__init__(_("That tournament no longer exists."))


class NotTheHost(UserError):
    def __init__(self) -> None:
        super().__init__(
            _(
                "Only the tournament's host or a member with the **Manage Server** permission "
                "can do that."
            )
        )


def parse_bracket(row: TournamentRow) -> core.Tournament | None:
    return None if row.state is None else core.Tournament.from_json(row.state)


async def locked_event(conn: Connection, tournament_id: int) -> TournamentRow:
    row = await load_tournament(conn, tournament_id, lock=True)
    if row is None:
        raise TournamentNotFound()
    return row


def authorise(row: TournamentRow, actor_id: int | None, may_manage: bool) -> None:
    if actor_id is not None and actor_id != row.host_id and not may_manage:
        raise NotTheHost()


async def save_event(
    conn: Connection,
    row: TournamentRow,
    *,
    now: float,
    status: TournamentStatus | None = None,
    state: str | None = None,
    winner_id: int | None = None,
    cancel_reason: str | None = None,
) -> TournamentRow:
    """The event's next version (every change bumps it, so a press on an older message
    is told the event moved on)."""
    saved_ok = await save_tournament(
        conn,
        row,
        now=now,
        status=status,
        state=state,
        winner_id=winner_id,
        cancel_reason=cancel_reason,
    )
    # The row is locked for this transaction: another version cannot come between.
    assert saved_ok
    saved = await load_tournament(conn, row.id)
    assert saved is not None
    return saved


async def advance_event(
    conn: Connection, row: TournamentRow, bracket: core.Tournament, *, now: float
) -> TournamentRow:
    """Store ``bracket``, its pairings to play, and every round decided without play;
    end the event when it is over."""
    while True:
        for pairing in bracket.pending_pairings():
            assert pairing.first is not None and pairing.second is not None
            await insert_match(
                conn, row.id, pairing.round, pairing.table, pairing.first, pairing.second
            )
        if not bracket.round_complete or bracket.finished:
            break
        bracket = core.advance_round(bracket)
    if not bracket.finished:
        return await save_event(conn, row, now=now, status="running", state=bracket.to_json())
    places = [
        (standing.player_id, standing.place)
        for standing in bracket.standings()
        if standing.place is not None
    ]
    await store_places(conn, row.id, places)
    return await save_event(
        conn,
        row,
        now=now,
        status="finished",
        state=bracket.to_json(),
        winner_id=bracket.winner,
    )
