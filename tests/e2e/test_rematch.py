"""Rematches of Knucklebones, end to end on the fake Discord: against the AI (one press),
between players (a challenge the other accepts, declines or lets expire), chained with
their running score, and every way a press can go wrong: twice, by both players at once,
by a third person, while a player has another game open, across a restart, with the
answer lost on the way."""

from __future__ import annotations

import asyncio

from fakediscord import CallbackType, FakeDiscord, FakeGuild, FakeMessage, Player
from fakediscord.interactions import wait_for_answer
from knucklebones_support import (
    ai_board_idle,
    ai_thinking,
    board_turn,
    is_finished,
    mover_id,
    result_count,
    session_for,
    start_duel,
)

from bot.app import DiceBot
from bot.model.clock import ManualClock
from cogs.knucklebones.cog import AI_MOVE_DELAY


async def forfeit(fake: FakeDiscord, player: Player, board: FakeMessage) -> None:
    """``player`` gives the game on ``board`` up; waits until the board shows the end."""
    await player.slash("knucklebones forfeit")
    await fake.wait_for(lambda: is_finished(board), what="the forfeit on the board")


async def rematch(player: Player, board: FakeMessage) -> FakeMessage:
    """Press Rematch: the answer is the new public message (a challenge or a game)."""
    outcome = await player.click(board, "Rematch")
    assert outcome.type is CallbackType.MESSAGE and not outcome.ephemeral, outcome.text()
    assert outcome.message is not None and outcome.message is not board
    return outcome.message


async def accepted_rematch(fake: FakeDiscord, player: Player, challenge: FakeMessage) -> None:
    answer = await player.click(challenge, "Accept")
    assert answer.type is CallbackType.UPDATE_MESSAGE
    await fake.wait_for(lambda: board_turn(challenge) == 1, what="the rematch's board")


async def sessions_in(bot: DiceBot) -> int:
    row = await bot.db.fetch_one("SELECT COUNT(*) AS n FROM sessions")
    assert row is not None
    return int(row["n"])


async def ladder_games(bot: DiceBot, player: Player) -> tuple[int, int, int]:
    """(ladder games, AI wins, AI losses) of ``player`` in Knucklebones."""
    row = await bot.db.fetch_one(
        "SELECT games, ai_wins, ai_losses FROM ratings WHERE user_id = ? AND game = ?",
        (player.id, "knucklebones"),
    )
    return (0, 0, 0) if row is None else (row["games"], row["ai_wins"], row["ai_losses"])


async def test_against_the_ai_one_press_starts_the_rematch_and_the_first_move_alternates(
    running_bot: DiceBot, fake_discord: FakeDiscord, clock: ManualClock, alice: Player
) -> None:
    board = (await alice.slash("knucklebones ai", difficulty="hard", first="me")).message
    assert board is not None and mover_id(board) == alice.id
    await forfeit(fake_discord, alice, board)
    ai = running_bot.user.display_name
    assert board.labels() == ["Rematch", "Replay"] and "\n" not in board.content  # no series yet

    second = await rematch(alice, board)
    # At once: a game, not a challenge. Alice moved first, so the AI does now, at hard.
    assert ai_thinking(second) and "(hard)" in second.content
    assert f"🔁 Head-to-head: {ai} leads 1–0." in second.content
    # The finished game's message loses its button and says where the rematch is.
    await fake_discord.wait_for(lambda: board.labels() == ["Replay"], what="the old Rematch to go")
    assert board.content.endswith("🔁 A rematch was asked for, below.")
    assert board.content.startswith("🏳️ Alice forfeited")

    clock.advance(AI_MOVE_DELAY + 0.3)
    await fake_discord.wait_for(lambda: ai_board_idle(second), what="the AI's first move")
    assert mover_id(second) == alice.id
    await forfeit(fake_discord, alice, second)
    assert second.content.endswith(f"🔁 Head-to-head: {ai} leads 2–0.")
    third = await rematch(alice, second)
    assert mover_id(third) == alice.id  # alternates back
    assert f"Head-to-head: {ai} leads 2–0" in third.content

    # Games against the AI are recorded, never ranked: the ladder has no game of alice's.
    assert await result_count(running_bot) == 2
    assert await ladder_games(running_bot, alice) == (0, 0, 2)


async def test_a_rematch_between_players_is_a_challenge_the_other_accepts(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    await forfeit(fake_discord, bob, board)
    assert board.labels() == ["Rematch", "Replay"]

    # Someone who did not play cannot ask; nothing changes.
    sessions = await sessions_in(running_bot)
    refused = await carol.click(board, "Rematch")
    assert refused.ephemeral and "Only Alice and Bob can play on from this game" in refused.text()
    assert board.labels() == ["Rematch", "Replay"] and await sessions_in(running_bot) == sessions

    challenge = await rematch(bob, board)
    assert challenge.content.startswith(
        f"🔁 {bob.mention} asks {alice.mention} for a **Knucklebones** rematch!"
    )
    # Alice moved first last time: bob does now. The chain's score so far.
    assert f"{bob.mention} moves first." in challenge.content
    assert "Head-to-head: Alice leads 1–0." in challenge.content
    assert challenge.labels() == ["Accept", "Decline"]
    request = next(r for r in fake_discord.requests if "rematch!" in str(r.body))
    assert request.body["data"]["allowed_mentions"]["users"] == [alice.id]  # alice is pinged
    await fake_discord.wait_for(lambda: board.labels() == ["Replay"], what="the old Rematch to go")

    # The same answers as a challenge: only alice accepts.
    refused = await carol.click(challenge, "Accept")
    assert refused.ephemeral and "not for you" in refused.text()
    refused = await bob.click(challenge, "Accept")
    assert refused.ephemeral and "can't accept your own challenge" in refused.text()
    await accepted_rematch(fake_discord, alice, challenge)
    assert mover_id(challenge) == bob.id
    assert "🔁 Head-to-head: Alice leads 1–0." in challenge.content
    await fake_discord.wait_for(
        lambda: "accepted your challenge" in guild.default_channel.last_message().text(),
        what="bob's ping",
    )

    # A chain: 1–1, then alice leads 2–1.
    await forfeit(fake_discord, alice, challenge)
    assert challenge.content.endswith("🔁 Head-to-head: level at 1–1.")
    third = await rematch(alice, challenge)
    assert "Head-to-head: level at 1–1." in third.content
    await accepted_rematch(fake_discord, bob, third)
    assert mover_id(third) == alice.id  # bob moved first in the second game
    await forfeit(fake_discord, bob, third)
    assert third.content.endswith("🔁 Head-to-head: Alice leads 2–1.")
    assert third.labels() == ["Rematch", "Replay"]

    # Every game is on the ladder on its own.
    assert await result_count(running_bot) == 3
    assert (await ladder_games(running_bot, alice))[0] == 3


async def test_a_declined_rematch_closes_and_the_old_game_keeps_its_result(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    await forfeit(fake_discord, bob, board)
    challenge = await rematch(alice, board)
    declined = await bob.click(challenge, "Decline")
    assert declined.type is CallbackType.UPDATE_MESSAGE
    assert challenge.content == f"❌ {bob.mention} declined {alice.mention}'s Knucklebones rematch."
    assert challenge.buttons() == []
    await fake_discord.wait_for(lambda: board.labels() == ["Replay"], what="the old Rematch to go")
    assert board.content.startswith("🏳️ Bob forfeited: **Alice** wins")
    assert await result_count(running_bot) == 1
    # Both are free to play again in the channel.
    again = await bob.slash("knucklebones challenge", opponent=alice)
    assert again.message is not None and "challenges" in again.message.content


async def test_an_unanswered_rematch_expires_like_a_challenge(
    bot_factory, fake_discord: FakeDiscord, clock: ManualClock, alice: Player, bob: Player
) -> None:
    bot_factory.options["settings"] = {"challenge_expiry_seconds": 120}
    bot = await bot_factory.start()
    board = await start_duel(fake_discord, alice, bob, first="me")
    await forfeit(fake_discord, alice, board)
    challenge = await rematch(bob, board)
    clock.advance(119)
    await bot.deadlines.fire_due()
    assert challenge.labels() == ["Accept", "Decline"]
    clock.advance(1)
    await fake_discord.wait_for(lambda: "expired" in challenge.content, what="the expiry")
    assert challenge.content == (
        f"⌛ {bob.mention}'s Knucklebones rematch to {alice.mention} expired: it was not "
        "accepted within 2 minutes."
    )
    assert challenge.buttons() == [] and await result_count(bot) == 1


async def test_rematch_pressed_twice_and_by_both_players_at_once(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    await forfeit(fake_discord, bob, board)
    sessions = await sessions_in(running_bot)

    # Alice twice and bob once, all before the bot has answered any of them.
    presses = [
        await alice.begin_click(board, "Rematch"),
        await alice.begin_click(board, "Rematch"),
        await bob.begin_click(board, "Rematch"),
    ]
    answers = [await wait_for_answer(press, 5) for press in presses]
    # One new session, whoever pressed first asked, the other player's press accepted it.
    assert await sessions_in(running_bot) == sessions + 1
    public = [a for a in answers if not a.ephemeral]
    private = [a for a in answers if a.ephemeral]
    assert len(public) == 1 and len(private) == 2
    game = public[0].message
    assert game is not None
    texts = sorted(answer.text() for answer in private)
    assert any(text.startswith("✅ You accepted") for text in texts), texts
    assert any(text.startswith("You already asked for this rematch") for text in texts), texts
    await fake_discord.wait_for(lambda: board_turn(game) == 1, what="the rematch under way")
    await fake_discord.wait_for(lambda: board.labels() == ["Replay"], what="the old Rematch to go")


async def test_no_rematch_while_a_player_has_another_game_open_in_the_channel(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    await forfeit(fake_discord, bob, board)
    other = (await bob.slash("knucklebones ai")).message
    assert other is not None
    sessions = await sessions_in(running_bot)

    refused = await alice.click(board, "Rematch")
    assert refused.ephemeral
    assert refused.text().startswith("Bob already has a game open in this channel (Knucklebones)")
    assert board.labels() == ["Rematch", "Replay"] and await sessions_in(running_bot) == sessions

    # Once bob's other game is over the same button works.
    await bob.slash("knucklebones forfeit")
    await fake_discord.wait_for(lambda: is_finished(other), what="bob's AI game to end")
    challenge = await rematch(alice, board)
    assert "rematch!" in challenge.content


async def test_a_rematch_and_a_pending_one_survive_a_restart(
    bot_factory, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    await bot_factory.start()
    board = await start_duel(fake_discord, alice, bob, first="me")
    await forfeit(fake_discord, bob, board)
    await bot_factory.restart()
    challenge = await rematch(alice, board)  # the button from before the restart

    bot = await bot_factory.restart()
    await accepted_rematch(fake_discord, bob, challenge)
    assert mover_id(challenge) == bob.id
    assert "Head-to-head: Alice leads 1–0." in challenge.content
    session = await session_for(bot, challenge)
    assert session.state["series"]["previous"] == (await session_for(bot, board)).id
    assert (await session_for(bot, board)).state["follow_up"] == session.id


async def test_a_rematch_whose_answer_is_lost_is_posted_anyway(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    await forfeit(fake_discord, bob, board)
    outcome = await alice.click(board, "Rematch", fault="unknown-interaction")
    assert outcome.lost
    assert fake_discord.take_problems("interaction-failed")
    channel = guild.default_channel
    await fake_discord.wait_for(
        lambda: "rematch!" in channel.last_message().content, what="the rematch posted anyway"
    )
    challenge = channel.last_message()
    assert challenge.labels() == ["Accept", "Decline"]
    await accepted_rematch(fake_discord, bob, challenge)
    await asyncio.sleep(0)


def button(custom_id: str, label: str) -> dict[str, object]:
    """An action row with one button, as a message that is behind (or forged) holds it."""
    pressable = {"type": 2, "style": 1, "label": label, "custom_id": custom_id}
    return {"type": 1, "components": [pressable]}


async def test_copied_and_forged_play_on_buttons_change_nothing(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
) -> None:
    board = await start_duel(fake_discord, alice, bob, first="me")
    session = await session_for(running_bot, board)
    channel = guild.default_channel
    # A Rematch on a message that is not the game's: refused.
    early = await fake_discord.seed_bot_message(
        channel, content="old", components=[button(f"again:{session.id}:rematch", "Rematch")]
    )
    refused = await alice.click(early, "Rematch")
    assert refused.ephemeral and "That button does not belong to this message" in refused.text()
    columns = board.components
    board.components = [button(f"again:{session.id}:rematch", "Rematch")]
    refused = await alice.click(board, "Rematch")
    assert refused.ephemeral and "This game is not over yet" in refused.text()
    board.components = columns
    await forfeit(fake_discord, bob, board)
    sessions = await sessions_in(running_bot)
    # The game's Rematch copied onto another message.
    refused = await alice.click(early, "Rematch")
    assert refused.ephemeral and "does not belong to this message" in refused.text()
    # A match's next game asked of a single game, a lobby asked of Knucklebones: forged
    # custom_ids on the game's own message are refused just the same.
    for forged, words in (
        ("next", "not part of a series"),
        ("lobby", "not something to do with a finished Knucklebones game"),
    ):
        board.components = [button(f"again:{session.id}:{forged}", "Forged")]
        refused = await alice.click(board, "Forged")
        assert refused.ephemeral and words in refused.text(), refused.text()
    assert await sessions_in(running_bot) == sessions
    assert await result_count(running_bot) == 1
