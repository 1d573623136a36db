"""Who may replay a finished game from where (``bot.ui.replay.may_replay``): a server's game
only in its server; a game with friends (``FRIENDS_LADDER``) by its players anywhere, and by
anyone in the channel it was played in, never by a stranger elsewhere (a forged id)."""

from __future__ import annotations

from bot.model.contract import FRIENDS_LADDER, Seat, Session
from bot.ui.replay import may_replay

SERVER, OTHER_SERVER = 100, 200
GAME_CHANNEL, DM, OTHER_DM = 10, 20, 30
ALICE, BOB, CAROL, AI = 1, 2, 3, 99


def finished(guild_id: int, channel_id: int) -> Session:
    return Session(
        id=7,
        game="knucklebones",
        guild_id=guild_id,
        channel_id=channel_id,
        message_id=70,
        status="finished",
        state={},
        version=9,
        seed=0,
        created_by=ALICE,
        created_at=0.0,
        updated_at=0.0,
        seats=(
            Seat(seat=0, user_id=ALICE, display_name="Alice"),
            Seat(seat=1, user_id=AI, display_name="Dicebot", is_ai=True),
            Seat(seat=2, user_id=BOB, display_name="Bob"),
        ),
    )


def test_a_servers_game_is_replayed_only_in_its_server() -> None:
    game = finished(SERVER, GAME_CHANNEL)
    assert may_replay(game, guild_id=SERVER, channel_id=GAME_CHANNEL, user_id=CAROL)
    assert may_replay(game, guild_id=SERVER, channel_id=99, user_id=CAROL)
    # Not from another server, nor from outside servers, even by its own player.
    assert not may_replay(game, guild_id=OTHER_SERVER, channel_id=GAME_CHANNEL, user_id=ALICE)
    assert not may_replay(game, guild_id=None, channel_id=DM, user_id=ALICE)


def test_a_game_with_friends_is_its_players_and_its_channels() -> None:
    game = finished(FRIENDS_LADDER, DM)
    # Its players, from anywhere (their own /history lists it wherever they ask).
    assert may_replay(game, guild_id=None, channel_id=OTHER_DM, user_id=ALICE)
    assert may_replay(game, guild_id=SERVER, channel_id=GAME_CHANNEL, user_id=BOB)
    # Anyone in the channel it was played in (its message's Replay button is there).
    assert may_replay(game, guild_id=None, channel_id=DM, user_id=CAROL)
    # A stranger elsewhere, or someone claiming the AI's seat: no.
    assert not may_replay(game, guild_id=None, channel_id=OTHER_DM, user_id=CAROL)
    assert not may_replay(game, guild_id=SERVER, channel_id=GAME_CHANNEL, user_id=CAROL)
    assert not may_replay(game, guild_id=None, channel_id=OTHER_DM, user_id=AI)
