"""Knucklebones over time, end to end: turn warnings and timeouts (with the bot running
and across a restart), restarts mid-game, the AI at every level, and games that outlive
the 15-minute interaction token."""

from __future__ import annotations

import pytest
from fakediscord import CallbackType, FakeDiscord, FakeGuild, FakeMessage, Player
from knucklebones_support import (
    ai_board_idle,
    ai_thinking,
    board_turn,
    enabled_columns,
    is_finished,
    mover_id,
    press_column,
    session_for,
    start_duel,
    stored_result,
    wait_for_turn,
)

from bot.app import DiceBot
from bot.model.clock import ManualClock
from cogs.knucklebones.cog import AI_MOVE_DELAY
from game_core import knucklebones as kb

CHANNEL_MESSAGE = "/channels/{channel_id}/messages/{message_id}"
WEBHOOK_ORIGINAL = "/webhooks/{application_id}/{token}/messages/@original"


async def let_the_ai_move(fake: FakeDiscord, clock: ManualClock, board: FakeMessage) -> None:
    """The AI's move is a timer ~0.7 s ahead: move the clock and wait for its edit."""
    clock.advance(AI_MOVE_DELAY + 0.3)
    await fake.wait_for(lambda: ai_board_idle(board), what="the AI's move to show")


def warnings_in(guild: FakeGuild) -> list[FakeMessage]:
    return [m for m in guild.default_channel.messages() if m.content.startswith("⏰")]


async def test_a_turn_is_warned_once_then_times_out(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    await press_column(alice, board, 0)
    turn_started = clock.now()
    assert mover_id(board) == bob.id

    clock.advance(239)
    assert await running_bot.deadlines.fire_due() == pytest.approx(1.0)
    assert warnings_in(guild) == []

    clock.advance(1)
    await fake_discord.wait_for(lambda: warnings_in(guild), what="the turn warning")
    await fake_discord.wait_for(
        lambda: "⚠️ Running out of time: <t:" in board.content, what="the board's warning line"
    )
    (warning,) = warnings_in(guild)
    assert warning.content == (
        f"⏰ {bob.mention}, your Knucklebones turn runs out <t:{int(turn_started) + 300}:R>: "
        "pick a column or you forfeit."
    )
    assert board_turn(board) == 2  # bob can still play

    clock.advance(60)
    await fake_discord.wait_for(lambda: is_finished(board), what="the timeout")
    assert "ran out of time" in board.text() and board.labels() == ["Rematch", "Replay"]
    assert len(warnings_in(guild)) == 1

    session = await session_for(running_bot, board)
    result, rows = await stored_result(running_bot, session.id)
    assert result["reason"] == "timeout"
    assert [row["outcome"] for row in rows] == ["win", "loss"]
    assert result["summary"]["first_seat"] == 0


async def test_the_warning_is_deleted_once_the_player_moves(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    await press_column(alice, board, 0)
    clock.advance(240)
    await fake_discord.wait_for(lambda: warnings_in(guild), what="the turn warning")
    (warning,) = warnings_in(guild)

    await press_column(bob, board, 1)
    await fake_discord.wait_for(lambda: warning.deleted, what="the warning to be deleted")
    assert warnings_in(guild) == []
    assert board_turn(board) == 3 and mover_id(board) == alice.id


async def test_a_timeout_that_passed_while_the_bot_was_down_applies_at_start(
    bot_factory,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    bot_factory.options["settings"] = {"turn_timeout_seconds": 120}
    await bot_factory.start()
    board = await start_duel(fake_discord, alice, bob, first="them")
    assert mover_id(board) == bob.id

    await bot_factory.stop()
    clock.advance(500)
    bot = await bot_factory.start()
    await fake_discord.wait_for(lambda: is_finished(board), what="the timeout at start-up")
    assert "ran out of time" in board.text().lower()
    # Both the warning and the timeout were overdue: only the timeout speaks.
    assert warnings_in(guild) == []
    session = await session_for(bot, board)
    result, rows = await stored_result(bot, session.id)
    assert result["reason"] == "timeout"
    assert [row["outcome"] for row in rows] == ["win", "loss"]


async def test_the_existing_buttons_keep_working_after_a_restart(
    bot_factory, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    await bot_factory.start()
    board = await start_duel(fake_discord, alice, bob, first="me")
    await press_column(alice, board, 1)
    await press_column(bob, board, 2)
    # Coalesced board edits are spaced out; let the last one land before counting.
    await bot_factory.bot.publisher.settled()
    edits = board.edit_count

    bot = await bot_factory.restart()
    assert board.edit_count == edits  # the very same message and buttons
    players = {alice.id: alice, bob.id: bob}
    while not is_finished(board):
        mover = players[mover_id(board) or 0]
        await press_column(mover, board, enabled_columns(board)[-1])
    session = await session_for(bot, board)
    result, _ = await stored_result(bot, session.id)
    assert result["reason"] == "normal"


async def test_a_restart_while_the_ai_is_due_to_move(
    bot_factory, fake_discord: FakeDiscord, clock: ManualClock, alice: Player
) -> None:
    await bot_factory.start()
    board = (await alice.slash("knucklebones ai", difficulty="medium", first="me")).message
    assert board is not None
    await press_column(alice, board, 0)
    # The Column buttons stay where they were, disabled, while the AI thinks.
    assert ai_thinking(board) and board_turn(board) is None

    await bot_factory.stop()
    clock.advance(30)  # the AI's timer passes while the bot is down
    bot = await bot_factory.start()
    await fake_discord.wait_for(lambda: board_turn(board) == 3, what="the AI's move at start")
    session = await session_for(bot, board)
    engine = kb.KnucklebonesState.model_validate(session.state["engine"])
    assert engine.turn == 3 and sum(len(c) for c in engine.boards[1]) == 1
    await press_column(alice, board, enabled_columns(board)[0])
    await let_the_ai_move(fake_discord, clock, board)
    assert board_turn(board) == 5


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_game_against_each_ai_level_to_the_end(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
    level: str,
) -> None:
    started = await alice.slash("knucklebones ai", difficulty=level, first="them")
    board = started.message
    assert started.type is CallbackType.MESSAGE and board is not None
    # The AI goes by the bot's own name, with the level it plays at.
    assert board.content.startswith(f"🤖 **{running_bot.user.display_name}** ({level}) rolled")
    assert ai_thinking(board)  # the AI moves first
    await let_the_ai_move(fake_discord, clock, board)

    while not is_finished(board):
        turn = board_turn(board)
        assert turn is not None and mover_id(board) == alice.id
        await press_column(alice, board, enabled_columns(board)[0])
        if not is_finished(board):
            await let_the_ai_move(fake_discord, clock, board)
            await wait_for_turn(fake_discord, board, turn + 1)

    session = await session_for(running_bot, board)
    engine = kb.KnucklebonesState.model_validate(session.state["engine"])
    scores = [kb.board_score(b) for b in engine.boards]
    result, rows = await stored_result(running_bot, session.id)
    assert result["vs_ai"] == 1 and result["reason"] == "normal"
    assert result["summary"]["ai_level"] == level
    assert result["summary"]["first_seat"] == 1
    assert result["summary"]["score_line"] == f"{scores[0]}–{scores[1]}"
    assert [row["is_ai"] for row in rows] == [0, 1]
    assert [row["went_first"] for row in rows] == [0, 1]
    # Every AI move was its own edit of the board through the channel endpoint.
    ai_moves = (engine.turn + 1) // 2  # the AI played turns 1, 3, 5, ...
    assert len(fake_discord.requests_to(CHANNEL_MESSAGE, "PATCH")) >= ai_moves


async def test_a_game_longer_than_the_interaction_token_keeps_working(
    bot_factory,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
) -> None:
    bot_factory.options["settings"] = {"turn_timeout_seconds": 3600}
    await bot_factory.start()
    board = (await alice.slash("knucklebones ai", difficulty="easy", first="them")).message
    assert board is not None
    clock.advance(16 * 60)  # the /knucklebones ai token is dead before the AI even moves
    await fake_discord.wait_for(lambda: ai_board_idle(board), what="the AI's first move")
    for _ in range(3):
        turn = board_turn(board)
        assert turn is not None
        await press_column(alice, board, enabled_columns(board)[0])
        clock.advance(16 * 60)
        await fake_discord.wait_for(
            lambda turn=turn: is_finished(board) or (board_turn(board) or 0) > turn + 1,
            what="the AI's move, long after every token expired",
        )
    assert board_turn(board) == 8
    assert fake_discord.requests_to(WEBHOOK_ORIGINAL, "PATCH") == []
    assert len(fake_discord.requests_to(CHANNEL_MESSAGE, "PATCH")) >= 4
