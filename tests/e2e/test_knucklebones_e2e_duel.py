"""Knucklebones between two members, end to end on the fake Discord: the challenge, a
whole game played by button presses, and every refusal a player can run into."""

from __future__ import annotations

import asyncio
import io

import pytest
from fakediscord import CallbackType, FakeDiscord, FakeGuild, Player
from fakediscord.interactions import InteractionType, wait_for_answer
from knucklebones_support import (
    board_turn,
    enabled_columns,
    is_finished,
    mover_id,
    press_column,
    result_count,
    session_for,
    start_duel,
    stored_result,
)
from PIL import Image

from bot.app import DiceBot
from bot.model.clock import ManualClock
from game_core import knucklebones as kb


async def test_a_whole_game_by_button_presses_is_recorded(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    challenge = await alice.slash("knucklebones challenge", opponent=bob, first="me")
    board = challenge.message
    assert board is not None
    assert challenge.type is CallbackType.MESSAGE and not challenge.ephemeral
    assert bob.mention in board.content and "expires <t:" in board.content
    assert "alice" in board.content or alice.mention in board.content
    assert board.labels() == ["Accept", "Decline"]

    # Only bob may answer.
    refused = await carol.click(board, "Accept")
    assert refused.ephemeral and f"for {bob.mention}, not for you" in refused.text()
    refused = await alice.click(board, "Accept")
    assert refused.ephemeral and "can't accept your own challenge" in refused.text()
    assert board.labels() == ["Accept", "Decline"]

    accepted = await bob.click(board, "Accept")
    # The answer turns the challenge into the board in place.
    assert accepted.type is CallbackType.UPDATE_MESSAGE
    await fake_discord.wait_for(lambda: board_turn(board) == 1, what="the game board")
    assert board.labels() == ["Column 1", "Column 2", "Column 3"]
    assert mover_id(board) == alice.id  # first: me
    # One status line, the picture (the boards as its alt text), the buttons: no embed.
    assert "\n" not in board.content and board.embeds == []
    assert [a.filename for a in board.attachments] == ["board.png"]
    assert board.attachment("board.png").description.startswith("Knucklebones board, turn 1.")
    # The board edit notifies nobody, so alice, who moves first, is pinged once.
    await fake_discord.wait_for(
        lambda: "accepted your challenge" in guild.default_channel.last_message().text(),
        what="the ping to the challenger",
    )
    ping = [r for r in fake_discord.requests if "accepted your challenge" in str(r.body)]
    assert len(ping) == 1 and ping[0].body["content"].startswith(f"{alice.mention},")
    assert ping[0].body["allowed_mentions"]["users"] == [alice.id]

    players = {alice.id: alice, bob.id: bob}
    presses = 0
    while not is_finished(board):
        turn = board_turn(board)
        assert turn is not None
        mover = players[mover_id(board) or 0]
        columns = enabled_columns(board)
        await press_column(mover, board, columns[turn % len(columns)])
        presses += 1
        assert is_finished(board) or board_turn(board) == turn + 1
        assert presses < 300

    # The end: final boards and scores on the message, no buttons left.
    assert board.labels() == ["Rematch", "Replay"]  # the game is over: a rematch, and its replay
    session = await session_for(running_bot, board)
    assert session.status == "finished"
    engine = kb.KnucklebonesState.model_validate(session.state["engine"])
    scores = [kb.board_score(b) for b in engine.boards]
    assert presses == engine.turn
    # The message names the winner and the score, the winner's first; the boards and
    # totals are in the picture and its alt text, never repeated in the message.
    if scores[0] == scores[1]:
        assert board.content.startswith(f"🤝 Draw, {scores[0]}–{scores[1]}.")
    else:
        leader = 0 if scores[0] > scores[1] else 1
        winner = session.user_of(leader).display_name
        assert board.content.startswith(
            f"🏆 **{winner}** wins, {scores[leader]}–{scores[1 - leader]}."
        )
    alt = board.attachment("board.png").description
    for seat in (0, 1):
        assert f"{session.user_of(seat).display_name} (" in alt
        assert f"grid), {scores[seat]} points." in alt
    assert board.embeds == [] and "\n" not in board.content
    image = Image.open(io.BytesIO(board.attachment("board.png").content))
    assert image.format == "PNG" and image.width > 300

    result, rows = await stored_result(running_bot, session.id)
    assert result["reason"] == "normal"
    assert result["summary"]["score_line"] == f"{scores[0]}–{scores[1]}"
    assert result["summary"]["scores"] == scores
    assert result["summary"]["first_seat"] == 0
    assert [row["user_id"] for row in rows] == [alice.id, bob.id]
    assert [row["score"] for row in rows] == scores
    assert [row["went_first"] for row in rows] == [1, 0]
    if scores[0] == scores[1]:
        assert [row["outcome"] for row in rows] == ["draw", "draw"]
    else:
        leader = 0 if scores[0] > scores[1] else 1
        assert rows[leader]["outcome"] == "win" and rows[1 - leader]["outcome"] == "loss"

    # Every answer of the whole game went out well inside Discord's 3 seconds.
    latencies = fake_discord.first_answer_latencies()
    assert len(latencies) == presses + 4
    assert max(latencies) < 3.0


async def test_declining_closes_the_challenge(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = (await alice.slash("knucklebones challenge", opponent=bob)).message
    assert board is not None
    declined = await bob.click(board, "Decline")
    assert declined.type is CallbackType.UPDATE_MESSAGE
    await fake_discord.wait_for(lambda: "declined" in board.content, what="the decline")
    assert board.content == f"❌ {bob.mention} declined {alice.mention}'s Knucklebones challenge."
    assert board.buttons() == [] and board.embeds == []
    assert (await session_for(running_bot, board)).status == "cancelled"
    assert await result_count(running_bot) == 0
    # Nobody is blocked afterwards: the same challenge can be made again.
    again = await alice.slash("knucklebones challenge", opponent=bob)
    assert again.message is not None and again.message is not board


async def test_a_challenge_expires_after_the_servers_setting_and_says_so(
    bot_factory, fake_discord: FakeDiscord, clock: ManualClock, alice: Player, bob: Player
) -> None:
    bot_factory.options["settings"] = {"challenge_expiry_seconds": 120}
    bot = await bot_factory.start()
    board = (await alice.slash("knucklebones challenge", opponent=bob)).message
    assert board is not None
    assert f"<t:{int(clock.now()) + 120}:R>" in board.content
    clock.advance(119)
    # Nothing is due yet: the next timer (the expiry) is one second away.
    assert await bot.deadlines.fire_due() == pytest.approx(1.0)
    assert board.labels() == ["Accept", "Decline"]
    clock.advance(2)
    await fake_discord.wait_for(lambda: "expired" in board.content, what="the expiry")
    assert board.content == (
        f"⌛ {alice.mention}'s Knucklebones challenge to {bob.mention} expired: "
        "it was not accepted within 2 minutes."
    )
    assert board.buttons() == []
    assert (await session_for(bot, board)).status == "cancelled"


async def test_challenges_that_cannot_be_made(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    channel = guild.default_channel
    itself = await alice.slash("knucklebones challenge", opponent=alice)
    assert itself.ephemeral and "can't challenge yourself" in itself.text()
    a_bot = await alice.slash("knucklebones challenge", opponent=fake_discord.bot_user)
    assert a_bot.ephemeral and "is a bot" in a_bot.text()

    assert channel.messages() == []
    assert await running_bot.db.fetch_all("SELECT id FROM sessions") == []

    pending = await alice.slash("knucklebones challenge", opponent=bob)
    assert pending.message is not None and not pending.ephemeral
    public_before = len(channel.messages())
    busy = await alice.slash("knucklebones challenge", opponent=carol)
    assert busy.ephemeral and "You already have a game open in this channel" in busy.text()
    busy = await carol.slash("knucklebones challenge", opponent=bob)
    assert busy.ephemeral and "bob already has a game open" in busy.text().lower()
    busy = await alice.slash("knucklebones ai")
    assert busy.ephemeral and "already have a game open" in busy.text()
    assert len(channel.messages()) == public_before
    assert len(await running_bot.db.fetch_all("SELECT id FROM sessions")) == 1

    # Another channel is fine.
    other = await guild.add_channel("dice-two")
    elsewhere = await alice.slash("knucklebones challenge", opponent=carol, channel=other)
    assert elsewhere.message is not None and not elsewhere.ephemeral


async def test_presses_by_the_wrong_people_change_nothing(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player, carol: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    before = await session_for(running_bot, board)
    edits = board.edit_count

    outsider = await carol.click(board, "Column 1")
    assert outsider.ephemeral
    assert "this is not your game: it is between alice and bob" in outsider.text().lower()
    waiting = await bob.click(board, "Column 2")
    assert waiting.ephemeral
    assert waiting.text().lower() == "it is not your turn: alice is placing a die right now."

    after = await session_for(running_bot, board)
    assert after.version == before.version and after.state == before.state
    assert board.edit_count == edits and board_turn(board) == 1


async def test_a_full_column_is_disabled_and_a_forced_press_is_refused(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    # Alice fills her column 1; bob plays in his columns 2 and 3, which never touch it.
    for bob_column in (1, 2, 1):
        await press_column(alice, board, 0)
        await press_column(bob, board, bob_column)
    assert mover_id(board) == alice.id
    column_1 = next(b for b in board.buttons() if b["label"] == "Column 1")
    assert column_1["disabled"] is True
    assert enabled_columns(board) == [1, 2]
    before = await session_for(running_bot, board)

    # A real client cannot press a disabled button; a tampered one can. Still refused.
    interaction = await fake_discord.send_interaction(
        InteractionType.COMPONENT,
        user=alice.user,
        channel=board.channel,
        data={"custom_id": column_1["custom_id"], "component_type": 2},
        description="alice forcing the disabled Column 1",
        source_message=board,
        custom_id=column_1["custom_id"],
    )
    forced = await wait_for_answer(interaction, 5)
    assert forced.ephemeral
    assert forced.text() == "Your column 1 is full; choose another column."
    after = await session_for(running_bot, board)
    assert after.version == before.version and after.state == before.state


async def test_a_double_press_applies_one_move(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    first, second = await asyncio.gather(
        alice.begin_click(board, "Column 1"), alice.begin_click(board, "Column 1")
    )
    assert first.custom_id == second.custom_id
    answers = [await wait_for_answer(first, 5), await wait_for_answer(second, 5)]
    applied = [a for a in answers if a.type is CallbackType.UPDATE_MESSAGE]
    refused = [a for a in answers if a.ephemeral]
    assert len(applied) == 1 and len(refused) == 1
    assert refused[0].text().startswith("That board has moved on (it is turn 2 now)")

    session = await session_for(running_bot, board)
    engine = kb.KnucklebonesState.model_validate(session.state["engine"])
    assert engine.turn == 2
    assert sum(len(column) for column in engine.boards[0]) == 1
    assert mover_id(board) == bob.id and board_turn(board) == 2


async def test_forfeit_ends_the_game_for_the_other_player(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="them")
    await press_column(bob, board, 0)
    await press_column(alice, board, 2)

    forfeit = await bob.slash("knucklebones forfeit")
    assert forfeit.type is CallbackType.MESSAGE and not forfeit.ephemeral
    assert forfeit.text().lower().startswith("🏳️ bob forfeited: **alice** wins")
    await fake_discord.wait_for(lambda: is_finished(board), what="the board to show the end")
    assert "🏳️ bob forfeited: **alice** wins" in board.text().lower()
    assert board.labels() == ["Rematch", "Replay"]

    session = await session_for(running_bot, board)
    result, rows = await stored_result(running_bot, session.id)
    assert result["reason"] == "forfeit"
    assert result["summary"]["first_seat"] == 1
    assert [row["outcome"] for row in rows] == ["win", "loss"]
    assert [row["went_first"] for row in rows] == [0, 1]

    again = await bob.slash("knucklebones forfeit")
    assert again.ephemeral
    assert again.text() == "You have no Knucklebones game open in this channel."


async def test_forfeiting_a_pending_challenge_withdraws_it(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = (await alice.slash("knucklebones challenge", opponent=bob)).message
    assert board is not None
    withdrawn = await alice.slash("knucklebones forfeit")
    assert withdrawn.ephemeral and "withdrew" in withdrawn.text()
    await fake_discord.wait_for(lambda: board.buttons() == [], what="the challenge to close")
    assert "withdrew the Knucklebones challenge" in board.content
    assert await result_count(running_bot) == 0


async def test_a_move_whose_answer_is_lost_still_shows_on_the_board(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    # Discord refuses the answer (as if it came too late): the move was committed, so the
    # bot shows it through the channel endpoint instead.
    fake_discord.callback_deadline = 0.0
    interaction = await alice.begin_click(board, "Column 2")
    await fake_discord.wait_for(lambda: board_turn(board) == 2, what="the board to show turn 2")
    fake_discord.callback_deadline = 3.0
    assert interaction.callback_attempts and interaction.callback_attempts[0][1] == 404
    assert fake_discord.take_problems("late-answer")
    assert mover_id(board) == bob.id
    session = await session_for(running_bot, board)
    engine = kb.KnucklebonesState.model_validate(session.state["engine"])
    assert [len(column) for column in engine.boards[0]] == [0, 1, 0]
