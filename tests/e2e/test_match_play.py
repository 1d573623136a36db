"""Match play, end to end on the fake Discord: a Knucklebones best of 3 played to the end
by button presses (the score on every message, the next game from a button, the first
move alternating, the score surviving a restart, every game ranked on its own), and its
rematch as a new match."""

from __future__ import annotations

import itertools

from fakediscord import BotHarness, CallbackType, FakeDiscord, FakeGuild, FakeMessage, Player
from knucklebones_support import (
    board_turn,
    enabled_columns,
    is_finished,
    mover_id,
    play_to_the_end,
    press_column,
    result_count,
    session_for,
    stored_result,
)

from bot.app import DiceBot


async def winner_of(bot: DiceBot, board: FakeMessage) -> int | None:
    session = await session_for(bot, board)
    _, rows = await stored_result(bot, session.id)
    return next((row["user_id"] for row in rows if row["outcome"] == "win"), None)


async def test_a_best_of_three_is_played_to_the_end(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    bot = await bot_factory.start()
    challenge = await alice.slash("knucklebones challenge", opponent=bob, first="me", best_of=3)
    board = challenge.message
    assert board is not None
    assert "🏅 Best of 3: the first to 2 wins takes the series" in board.content
    await bob.click(board, "Accept")
    await fake_discord.wait_for(lambda: board_turn(board) == 1, what="game 1")
    assert board.content.endswith("\n🏅 Best of 3, game 1.")

    players = {alice.id: alice, bob.id: bob}
    names = {alice.id: "Alice", bob.id: "Bob"}
    wins = {alice.id: 0, bob.id: 0}
    first = alice.id
    boards = [board]
    while True:
        game = len(boards)
        assert mover_id(board) == first, f"game {game} should start with {names[first]}"
        if game == 2:
            # The leader gives game 2 up after a few moves, so the match goes the distance.
            leader = players[max(wins, key=lambda user: wins[user])]
            for _ in range(4):
                await press_column(players[mover_id(board) or 0], board, enabled_columns(board)[0])
            await leader.slash("knucklebones forfeit")
            await fake_discord.wait_for(
                lambda game_board=board: is_finished(game_board), what="game 2's forfeit"
            )
        else:
            await play_to_the_end(players, board)
        winner = await winner_of(bot, board)
        if winner is not None:
            wins[winner] += 1
        leader = max(wins, key=lambda user: wins[user])
        high, low = wins[leader], min(wins.values())
        if high == 2 or game == 3:
            break
        assert game == 1 or high == low == 1, wins
        lead = f"{names[leader]} leads {high}–{low}" if high > low else f"level at {high}–{low}"
        assert board.content.endswith(f"\n🏅 Best of 3, after game {game}: {lead}.")
        assert board.labels() == [f"Start game {game + 1}", "Replay"]
        if game == 1:
            # The match's score is stored with its games: a restart changes nothing.
            bot = await bot_factory.restart()
        refused = await carol.click(board, f"Start game {game + 1}")
        assert refused.ephemeral and "Only Alice and Bob can play on" in refused.text()
        # Either player starts the next game; it is on at once, the other one pinged.
        presser = bob if game == 1 else alice
        started = await presser.click(board, f"Start game {game + 1}")
        assert started.type is CallbackType.MESSAGE and started.message is not None
        previous, board = board, started.message
        boards.append(board)
        first = bob.id if first == alice.id else alice.id
        await fake_discord.wait_for(
            lambda old=previous: old.labels() == ["Replay"], what="the old game's button to go"
        )
        assert previous.content.endswith("▶️ The next game is on, below.")
        assert f"\n🏅 Best of 3, game {game + 1}: {lead}." in board.content
        other = alice if presser is bob else bob
        await fake_discord.wait_for(
            lambda: "the next game of your series" in guild.default_channel.last_message().text(),
            what="the other player's ping",
        )
        ping = guild.default_channel.last_message()
        assert ping.content.startswith(f"▶️ {other.mention}, {presser.mention} started")

    assert len(boards) == 3
    champion = max(wins, key=lambda user: wins[user])
    score = f"{wins[champion]}–{min(wins.values())}"
    if wins[alice.id] == wins[bob.id]:
        assert board.content.endswith(f"\n🤝 The series is drawn, {score} (best of 3).")
    else:
        assert board.content.endswith(
            f"\n🏅 **{names[champion]} wins the series**, {score} (best of 3)."
        )
    assert board.labels() == ["Rematch", "Replay"]
    # One result per game on the ladder.
    assert await result_count(bot) == len(boards)
    ladder = await bot.db.fetch_all(
        "SELECT user_id, games FROM ratings WHERE game = 'knucklebones' ORDER BY user_id"
    )
    assert [row["games"] for row in ladder] == [len(boards), len(boards)]
    # The games are linked in stored state, both ways.
    sessions = [await session_for(bot, message) for message in boards]
    for earlier, later in itertools.pairwise(sessions):
        assert earlier.state["follow_up"] == later.id
        assert later.state["series"]["previous"] == earlier.id

    # A rematch of the match is a new best of 3, the matches counted.
    loser = bob if champion == alice.id else alice
    again = await loser.click(board, "Rematch")
    assert again.message is not None
    text = again.message.content
    assert "rematch!" in text and "🏅 Best of 3: the first to 2 wins" in text
    if wins[alice.id] != wins[bob.id]:
        assert f"Head-to-head in series: {names[champion]} leads 1–0." in text
