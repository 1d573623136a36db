"""Games where the bot is not a member (issue 32), end to end: a user installed the app and
plays in a DM with a friend, where the bot is reached only through interactions. The game
message is the command's answer, a press updates it in its own answer, timers edit it
through the newest press's token while that token lives, and a restart in the middle
changes nothing (the token is in the database). No channel route is ever tried there: the
fake refuses every one (403 / 50001) and fails the test on it."""

from __future__ import annotations

from collections.abc import Callable

from fakediscord import BotHarness, CallbackType, FakeChannel, FakeDiscord, FakeMessage, Player
from knucklebones_support import (
    board_turn,
    enabled_columns,
    is_finished,
    mover_id,
    press_column,
    session_for,
    stored_result,
)

from bot.app import DiceBot
from bot.model.clock import ManualClock
from bot.model.contract import FRIENDS_LADDER

TURN_TIMEOUT = 300
# Commands synced globally (not to the test's server): a user-installed command is global.
GLOBAL = {"dev_guild_id": None}


async def kept_token(bot: DiceBot, session_id: int) -> str | None:
    return await bot.tokens.live(session_id)


async def challenge_in_dm(
    fake: FakeDiscord, channel: FakeChannel, alice: Player, bob: Player, first: str = "me"
) -> FakeMessage:
    """Alice challenges Bob in their DM with her installed app; Bob accepts on the message."""
    challenge = await alice.slash(
        "knucklebones challenge", channel=channel, opponent=bob, first=first
    )
    assert challenge.type is CallbackType.MESSAGE and not challenge.ephemeral
    board = challenge.message
    assert board is not None and board in channel.messages()
    accepted = await bob.click(board, "Accept")
    assert accepted.type is CallbackType.UPDATE_MESSAGE and accepted.message is board
    await fake.wait_for(lambda: board_turn(board) == 1, what="the game board after Accept")
    return board


async def test_knucklebones_in_a_dm_between_two_users(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    dm_between: Callable[[Player, Player], FakeChannel],
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    bot_factory.options["settings"] = {**GLOBAL, "turn_timeout_seconds": TURN_TIMEOUT}
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    alice.install_app()
    dm = dm_between(alice, bob)
    board = await challenge_in_dm(fake_discord, dm, alice, bob)
    session = await session_for(bot, board)
    assert session.reach == "interaction" and session.guild_id == FRIENDS_LADDER
    assert session.channel_id == dm.id
    assert await kept_token(bot, session.id) is not None

    players = {alice.id: alice, bob.id: bob}
    for _ in range(4):
        mover = players[mover_id(board) or 0]
        await press_column(mover, board, enabled_columns(board)[0])

    # A restart in the middle: the new process finds the reach and the token stored.
    bot = await bot_factory.restart()
    assert isinstance(bot, DiceBot)
    mover = players[mover_id(board) or 0]
    await press_column(mover, board, enabled_columns(board)[0])
    waiting = players[mover_id(board) or 0]
    assert waiting is not mover

    # The next player lets their turn run out: the warning and the timeout come through
    # the token of the last press (the bot cannot post or edit in this DM otherwise).
    clock.advance(TURN_TIMEOUT - 60)
    await fake_discord.wait_for(
        lambda: any(m.content.startswith("⏰") for m in dm.messages()), what="the turn warning"
    )
    (warning,) = [m for m in dm.messages() if m.content.startswith("⏰")]
    assert waiting.mention in warning.content
    clock.advance(60)
    await fake_discord.wait_for(lambda: is_finished(board), what="the timeout, shown")
    assert "ran out of time" in board.text()
    result, rows = await stored_result(bot, session.id)
    assert result["reason"] == "timeout" and result["guild_id"] == FRIENDS_LADDER
    assert {row["user_id"]: row["outcome"] for row in rows} == {
        waiting.id: "loss",
        mover.id: "win",
    }
    # Everything the bot showed there: the game message, the ping to the challenger that
    # the game is on (a follow-up of the challenge's token), and the warning.
    board_again, accepted, warned = dm.messages()
    assert (board_again, warned) == (board, warning)
    assert accepted.content.startswith(f"{alice.mention}, {bob.mention} accepted your challenge")
