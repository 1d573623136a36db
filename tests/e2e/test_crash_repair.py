"""A bot process killed with SIGKILL loses nothing that was committed, and what players see
catches up when a new process starts: the real bot, as its own process, on a clock the test
moves (``fakediscord.clocked``)."""

from __future__ import annotations

from clocked_support import ClockedBot
from fakediscord import CallbackType, FakeDiscord, Player, routes, wait_for_answer
from knucklebones_support import ai_board_idle, board_turn, enabled_columns, start_duel

from bot.ui.publish_ledger import SHOW_LEASE_SECONDS
from bot.ui.publish_loop import SWEEP_INTERVAL_SECONDS
from bot.ui.publish_public import ORPHAN_GRACE_SECONDS


async def test_a_game_against_the_ai_goes_on_after_a_sigkill(
    clocked_bot: ClockedBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    await clocked_bot.start()
    board = (await alice.slash("knucklebones ai", difficulty="easy", first="me")).message
    assert board is not None
    await alice.click(board, "Column 1")
    # The AI's move is a timer 0.7 s ahead: the process dies before it fires.
    await clocked_bot.kill()
    await clocked_bot.advance(30)
    await clocked_bot.start()
    # The timer that passed while the bot was down fires at start, and the board shows it.
    await fake_discord.wait_for(
        lambda: board_turn(board) == 3 and ai_board_idle(board), timeout=10, what="the AI's move"
    )
    await alice.click(board, f"Column {enabled_columns(board)[0] + 1}")
    await clocked_bot.advance(1)
    await fake_discord.wait_for(lambda: board_turn(board) == 5, timeout=10, what="turn 5")
    assert clocked_bot.errors() == []


async def test_a_sigkill_between_a_commit_and_its_answer_is_repaired_at_start(
    clocked_bot: ClockedBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    await clocked_bot.start()
    board = await start_duel(fake_discord, alice, bob)
    held = fake_discord.hold(routes.CALLBACK)
    press = await alice.begin_click(board, "Column 1")
    # The answer is sent only after the commit: once it is in flight, the move is stored.
    await held.arrived()
    await clocked_bot.kill()
    held.drop()
    outcome = await wait_for_answer(press, 5)
    assert outcome.lost and fake_discord.take_problems("interaction-failed")
    assert board_turn(board) == 1  # what players see is behind the database

    await clocked_bot.start()
    # The dead process had claimed the board for its answer: no process edits it until
    # that claim's lease is over (its answer might still land). Then it is repaired, before
    # anyone presses anything, and play goes on.
    await clocked_bot.advance(SHOW_LEASE_SECONDS)
    await fake_discord.wait_for(lambda: board_turn(board) == 2, timeout=10, what="turn 2")
    await bob.click(board, "Column 1")
    assert board_turn(board) == 3
    assert clocked_bot.errors() == []


async def test_a_sigkill_between_posting_a_challenge_and_storing_its_id_leaves_one_challenge(
    clocked_bot: ClockedBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    """The challenge is posted (Discord applies the command's answer) but the process dies
    before it stores the message's id: the next process finds that message and keeps it,
    rather than post the challenge a second time with a second pair of live buttons."""
    await clocked_bot.start()
    held = fake_discord.hold(routes.CALLBACK)
    command = await alice.begin_slash("knucklebones challenge", opponent=bob, first="me")
    await held.arrived()
    await clocked_bot.kill()
    held.release()  # Discord had the whole answer: the challenge is in the channel
    challenge = (await wait_for_answer(command, 5)).message
    assert challenge is not None and challenge.buttons()

    await clocked_bot.start()
    # Past the grace in which a first message may still be on its way, to the next sweep.
    await clocked_bot.advance(max(ORPHAN_GRACE_SECONDS, SWEEP_INTERVAL_SECONDS) + 1)
    # The sweep brings the game's message up to date: an edit of the challenge (or, as
    # before, a second challenge posted).
    requests = len(fake_discord.requests)
    await fake_discord.wait_for(
        lambda: any(
            r.message_id == challenge.id or (r.method, r.route) == ("POST", routes.CHANNEL_MESSAGES)
            for r in fake_discord.requests[requests:]
        ),
        timeout=10,
        what="the new process to bring the challenge up to date",
    )
    live = [
        m
        for m in fake_discord.guilds[challenge.channel.guild.id].default_channel.messages()
        if m.buttons()
    ]
    assert live == [challenge], [m.text() for m in live]
    accepted = await bob.click(challenge, "Accept")
    assert accepted.type is CallbackType.UPDATE_MESSAGE
    await fake_discord.wait_for(lambda: board_turn(challenge) == 1, what="the game on the message")
    assert clocked_bot.errors() == []
