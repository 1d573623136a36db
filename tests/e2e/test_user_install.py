"""Games where the bot is not a member (issue 32), end to end: a user installed the app and
plays with a friend in a DM, a group DM or a server that never added the bot, where the bot
is reached only through interactions (``PLACES``; the players of the server without the bot
share no server with it). The game
message is the command's answer, a press updates it in its own answer, timers edit it
through the newest press's token while that token lives, and a restart in the middle
changes nothing (the token is in the database). No channel route is ever tried there: the
fake refuses every one (403 / 50001) and fails the test on it."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import discord
import pytest
from cluster_support import Cluster, press, session_of
from duel_support import Duel, diceman_lock, duel_lock
from fakediscord import (
    BotHarness,
    CallbackType,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    Player,
)
from knucklebones_support import (
    ai_board_idle,
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
from bot.storage import Database
from bot.ui.publish_ledger import SHOW_LEASE_SECONDS
from cogs.knucklebones.cog import AI_MOVE_DELAY

TURN_TIMEOUT = 300
# Commands synced globally (not to the test's server): a user-installed command is global.
GLOBAL = {"dev_guild_id": None}


PLACES = ("dm", "group-dm", "server-without-bot")


@dataclass
class Place:
    """Where two friends play: ``first`` installed the app; ``second`` did not."""

    channel: FakeChannel
    first: Player
    second: Player


@pytest.fixture(params=PLACES)
async def place(
    request: pytest.FixtureRequest,
    fake_discord: FakeDiscord,
    server_without_bot: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> Place:
    if request.param == "dm":
        found = Place(fake_discord.dm_between(alice, bob), alice, bob)
    elif request.param == "group-dm":
        found = Place(fake_discord.group_dm(carol, alice, bob), alice, bob)
    else:
        erin = await server_without_bot.add_member("erin")
        frank = await server_without_bot.add_member("frank")
        found = Place(server_without_bot.default_channel, erin, frank)
    found.first.install_app()
    return found


async def kept_token(bot: DiceBot, session_id: int) -> bool | None:
    """True if the session has a live token kept, None if not (never the token itself, which
    an assertion would print)."""
    return True if await bot.tokens.live(session_id) is not None else None


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


async def test_knucklebones_between_friends(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    place: Place,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bot_factory.options["settings"] = {**GLOBAL, "turn_timeout_seconds": TURN_TIMEOUT}
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    dm, alice, bob = place.channel, place.first, place.second
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
    assert accepted.pinged == {alice.id} and warned.pinged == {waiting.id}
    # Tokens are credentials: none is in the log, at any level the bot logs at by default.
    tokens = list(fake_discord.interactions_by_token)
    assert len(tokens) > 5
    for record in caplog.records:
        if record.levelno >= logging.INFO:
            text = record.getMessage()
            assert not any(token in text for token in tokens), text


async def test_a_timeout_after_the_token_died_is_shown_at_the_next_press(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    place: Place,
    clock: ManualClock,
) -> None:
    """A turn longer than a token lives: the warning and the timeout find no live token, so
    nothing is sent (no expired token is ever tried: the fake fails the test on one), and
    the board shows the result as soon as a player presses on it again."""
    bot_factory.options["settings"] = {**GLOBAL, "turn_timeout_seconds": 3600}
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    dm, alice, bob = place.channel, place.first, place.second
    board = await challenge_in_dm(fake_discord, dm, alice, bob)
    session = await session_for(bot, board)
    await press_column(alice, board, 0)
    assert mover_id(board) == bob.id
    shown = board.text()

    clock.advance(3600)
    for _ in range(500):
        stored = await bot.sessions.require(session.id)
        if not stored.is_open:
            break
        await asyncio.sleep(0.02)
    await bot.publisher.settled()
    # Over in storage; nothing could show it, and nothing waits to (no worker, no retry):
    # the repair sweep leaves the game alone until a press brings a token.
    assert stored.status == "finished" and not list(bot.publisher.pending())
    now = clock.now()
    claim = {"owner": "another process", "lease_seconds": 1.0, "limit": 10}
    assert await bot.publisher.store.claim_stale(now=now, settled_before=now, **claim) == []
    assert board.text() == shown, "nothing can reach the message without a live token"
    assert await kept_token(bot, session.id) is None
    assert [m for m in dm.messages() if m.content.startswith("⏰")] == []

    # Bob presses a column of the stale board: the press is refused (the game is over), and
    # its token shows the result on the board.
    late = await bob.click(board, "Column 2")
    assert late.type is CallbackType.DEFERRED_UPDATE
    refusal = await late.followup()
    assert refusal.visible_to == bob.id
    await fake_discord.wait_for(lambda: is_finished(board), what="the result on the board")
    assert "ran out of time" in board.text()
    # (With the press's token kept, a sweep anywhere would have shown it too.)
    assert await kept_token(bot, session.id)
    # A sweep forgets every token once it has expired (the publisher's own sweep, which
    # this clock's move may run too, or this one).
    assert await bot.db.fetch_all("SELECT session_id FROM interaction_tokens") != []
    clock.advance(15 * 60)
    await bot.tokens.sweep()
    assert await bot.db.fetch_all("SELECT session_id FROM interaction_tokens") == []


# -- the secret duels: choices through Make your move, never a DM ------------------------

ALICE_PICK = ["priority", "sword"]
BOB_PICK = ["magic", "shield"]
# Dimension Duel: the attacker fires a Tau ray at the head; the defender guards the wrong
# way, so every turn deals damage and a 10 HP duel ends in a few turns.
ATTACK = ("tau", "head")
DEFEND = ("kaon", "torso")


async def make_your_move(duel: Duel, player: Player) -> FakeMessage:
    """Press **Make your move** on the game message: where the bot is not a member it is
    answered on that message (a deferred update, whose token then reaches the message), and
    the controls come as the player's own ephemeral follow-up."""
    outcome = await player.click(duel.board, "Make your move")
    assert outcome.type is CallbackType.DEFERRED_UPDATE and outcome.message is duel.board
    controls = await outcome.followup()
    assert controls.visible_to == player.id
    return controls


async def friends_result(db: Database, session_id: int) -> dict[str, object]:
    row = await db.fetch_one("SELECT * FROM results WHERE session_id = ?", (session_id,))
    assert row is not None, "the finished game was not recorded"
    return dict(row)


def dimension_attacker(board: FakeMessage, name: str) -> bool:
    """Whether the public message names ``name`` as this turn's attacker."""
    for embed_field in (board.embed or {}).get("fields", []):
        if embed_field["name"].startswith(name):
            return "attacking" in str(embed_field["name"])
    raise AssertionError(f"no field for {name} on {board.text()}")


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_diceman_between_friends(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    place: Place,
) -> None:
    bot_factory.options["settings"] = GLOBAL
    bot = await bot_factory.start()
    dm, alice, bob = place.channel, place.first, place.second
    challenge = await alice.slash("diceman challenge", channel=dm, opponent=bob)
    assert challenge.message is not None and not challenge.ephemeral
    duel = Duel(fake_discord, challenge.message, "dm")
    accepted = await bob.click(duel.board, "Accept")
    assert accepted.type is CallbackType.UPDATE_MESSAGE
    await duel.wait_round(1)
    footer = (duel.board.embed or {}).get("footer", {}).get("text", "")
    assert footer == "Choices are secret until both lock in: press Make your move to choose."
    assert "DMs closed" not in duel.board.text()

    number = 1
    while True:
        if number == 2:
            # A restart between rounds: the reach and the last press's token are stored.
            bot = await bot_factory.restart()
        alice_controls = await make_your_move(duel, alice)
        assert "Locked in" in await diceman_lock(alice, alice_controls, ALICE_PICK)
        assert "🔒 Locked in" in duel.board.text() or duel.round() == number
        bob_controls = await make_your_move(duel, bob)
        note = await diceman_lock(bob, bob_controls, BOB_PICK)
        # The reveal is an edit of the game message through a kept token.
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        # Bob's lock-in ended the round: his controls became its reveal, and say where
        # the next ones are (no DM between friends).
        next_controls = "Your next choice: press **Make your move** on the game message."
        assert duel.over() or next_controls in note, note
        if duel.over():
            break
        number += 1
        assert number < 40
    assert alice.dms() == [] and bob.dms() == []
    assert isinstance(bot, DiceBot)
    result = await friends_result(bot.db, duel.session_id)
    assert result["guild_id"] == FRIENDS_LADDER and result["reason"] == "normal"
    assert duel.board.labels() == ["Rematch", "Replay"]


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_dimension_duel_between_friends(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    place: Place,
) -> None:
    bot_factory.options["settings"] = GLOBAL
    bot = await bot_factory.start()
    dm, alice, bob = place.channel, place.first, place.second
    challenge = await alice.slash("duel challenge", channel=dm, opponent=bob, hp=10)
    assert challenge.message is not None
    duel = Duel(fake_discord, challenge.message, "dd")
    await bob.click(duel.board, "Accept")
    await duel.wait_round(1)

    number = 1
    while True:
        if number == 2:
            bot = await bot_factory.restart()
        for player in (alice, bob):
            controls = await make_your_move(duel, player)
            role = ATTACK if dimension_attacker(duel.board, player.name.capitalize()) else DEFEND
            assert "Locked in" in await duel_lock(player, controls, *role, "bluff")
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        if duel.over():
            break
        number += 1
        assert number < 40
    assert alice.dms() == [] and bob.dms() == []
    assert isinstance(bot, DiceBot)
    result = await friends_result(bot.db, duel.session_id)
    assert result["guild_id"] == FRIENDS_LADDER and result["reason"] == "normal"


async def test_against_the_ai_and_a_rematch_between_friends(
    bot_factory: BotHarness, fake_discord: FakeDiscord, place: Place, clock: ManualClock
) -> None:
    """The AI's moves are edits through the command's token; a Rematch press answers with
    the new game (its token kept for it), which inherits the reach and the friends' ladder,
    and the finished game's message loses its button through that game's own token."""
    bot_factory.options["settings"] = GLOBAL
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    channel, player = place.channel, place.first
    started = await player.slash("knucklebones ai", channel=channel, first="them")
    board = started.message
    assert board is not None and not started.ephemeral
    clock.advance(AI_MOVE_DELAY + 0.3)
    await fake_discord.wait_for(lambda: mover_id(board) == player.id, what="the AI's move")
    await player.slash("knucklebones forfeit", channel=channel)
    await fake_discord.wait_for(lambda: is_finished(board), what="the forfeit on the board")
    first = await session_for(bot, board)

    outcome = await player.click(board, "Rematch")
    assert outcome.type is CallbackType.MESSAGE and not outcome.ephemeral, outcome.text()
    second_board = outcome.message
    assert second_board is not None and second_board is not board
    await fake_discord.wait_for(lambda: board.labels() == ["Replay"], what="the old Rematch to go")
    second = await session_for(bot, second_board)
    assert (second.reach, second.guild_id) == ("interaction", FRIENDS_LADDER)
    assert second.channel_id == first.channel_id
    assert await kept_token(bot, second.id) is not None
    # The first game is shown for good: its token is no longer kept (forgotten right after
    # the edit that showed it).
    for _ in range(200):
        if await kept_token(bot, first.id) is None:
            break
        await asyncio.sleep(0.01)
    assert await kept_token(bot, first.id) is None, "the finished game's token is still kept"
    if mover_id(second_board) != player.id:
        clock.advance(AI_MOVE_DELAY + 0.3)
        await fake_discord.wait_for(
            lambda: mover_id(second_board) == player.id, what="the AI's move in the rematch"
        )
    await press_column(player, second_board, enabled_columns(second_board)[0])
    clock.advance(AI_MOVE_DELAY + 0.3)
    await fake_discord.wait_for(
        lambda: mover_id(second_board) == player.id, what="the AI's reply, shown"
    )


async def test_the_turn_warning_is_deleted_once_the_player_moves(
    bot_factory: BotHarness, fake_discord: FakeDiscord, place: Place, clock: ManualClock
) -> None:
    bot_factory.options["settings"] = {**GLOBAL, "turn_timeout_seconds": TURN_TIMEOUT}
    await bot_factory.start()
    channel, alice, bob = place.channel, place.first, place.second
    board = await challenge_in_dm(fake_discord, channel, alice, bob)
    await press_column(alice, board, 0)
    clock.advance(TURN_TIMEOUT - 60)

    def warnings() -> list[FakeMessage]:
        return [m for m in channel.messages() if m.content.startswith("⏰")]

    await fake_discord.wait_for(warnings, what="the turn warning")
    (warning,) = warnings()
    assert warning.content.startswith(f"⏰ {bob.mention}, your Knucklebones turn runs out")
    # The ping notifies Bob only: it mentions nobody else.
    assert warning.pinged == {bob.id}
    await press_column(bob, board, 1)
    await fake_discord.wait_for(lambda: warning.deleted, what="the warning to be deleted")
    assert warnings() == [] and mover_id(board) == alice.id


async def test_a_deleted_game_message_is_posted_again_through_the_token(
    bot_factory: BotHarness,
    fake_discord: FakeDiscord,
    server_without_bot: FakeGuild,
    clock: ManualClock,
) -> None:
    """In a server without the bot, a moderator deletes the game message: the game goes on;
    its next edit finds it gone (404 through the token) and posts it again as a follow-up
    of the kept token, whose id is stored; the players play on there."""
    bot_factory.options["settings"] = {**GLOBAL, "turn_timeout_seconds": TURN_TIMEOUT}
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    erin = await server_without_bot.add_member("erin")
    frank = await server_without_bot.add_member("frank")
    erin.install_app()
    channel = server_without_bot.default_channel
    board = await challenge_in_dm(fake_discord, channel, erin, frank)
    session = await session_for(bot, board)
    await press_column(erin, board, 0)
    await fake_discord.delete_message(board)

    # The turn warning is the next edit: it posts the board again.
    clock.advance(TURN_TIMEOUT - 60)

    def boards() -> list[FakeMessage]:
        return [m for m in channel.messages() if m.buttons() and not m.deleted]

    await fake_discord.wait_for(boards, what="the game message posted again")
    (again,) = boards()
    assert bot.user is not None
    assert again.id != board.id and again.author.id == bot.user.id
    assert mover_id(again) == frank.id and "Running out of time" in again.text()
    for _ in range(200):  # stored right after Discord answered the post
        stored = await bot.sessions.require(session.id)
        if stored.message_id == again.id:
            break
        await asyncio.sleep(0.01)
    assert stored.message_id == again.id
    await press_column(frank, again, 1)
    assert mover_id(again) == erin.id


async def test_a_duels_round_warning_and_timeout_between_friends(
    bot_factory: BotHarness, fake_discord: FakeDiscord, place: Place, clock: ManualClock
) -> None:
    """A secret duel's "time is running out" goes under the game (a follow-up of the kept
    token, pinging only the player who has not locked in), never by DM; the timeout shows
    on the game message through the token."""
    bot_factory.options["settings"] = {**GLOBAL, "round_timeout_seconds": 180}
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    channel, alice, bob = place.channel, place.first, place.second
    challenge = await alice.slash("diceman challenge", channel=channel, opponent=bob)
    assert challenge.message is not None
    duel = Duel(fake_discord, challenge.message, "dm")
    await bob.click(duel.board, "Accept")
    await duel.wait_round(1)
    round_started = clock.now()
    await diceman_lock(alice, await make_your_move(duel, alice), ALICE_PICK)

    clock.advance(120)

    def warnings() -> list[FakeMessage]:
        return [m for m in channel.messages() if m.content.startswith("⏰")]

    await fake_discord.wait_for(warnings, what="the round warning")
    (warning,) = warnings()
    assert warning.content == (
        f"⏰ {bob.mention}, time is running out in this **Diceman** game: press **Make your "
        f"move** and lock in <t:{int(round_started) + 180}:R>, or you forfeit."
    )
    assert warning.pinged == {bob.id}
    clock.advance(60)
    await duel.wait_over()
    assert alice.dms() == [] and bob.dms() == []
    result = await friends_result(bot.db, duel.session_id)
    assert result["reason"] == "timeout" and result["guild_id"] == FRIENDS_LADDER


async def test_a_game_between_friends_speaks_its_creators_language(
    bot_factory: BotHarness, fake_discord: FakeDiscord, place: Place
) -> None:
    """No server settings apply outside servers: the game speaks the language of the
    player who started it (their client's), for both players."""
    bot_factory.options["settings"] = GLOBAL
    await bot_factory.start()
    channel, alice, bob = place.channel, place.first, place.second
    alice.user.locale = "fr"
    challenge = await alice.slash("knucklebones challenge", channel=channel, opponent=bob)
    board = challenge.message
    assert board is not None
    assert board.labels() == ["Accepter", "Refuser"]
    await bob.click(board, "Accepter")
    await fake_discord.wait_for(lambda: board_turn(board) == 1, what="the game board")
    assert board.labels() == ["Colonne 1", "Colonne 2", "Colonne 3"]


async def test_both_friends_press_rematch(
    bot_factory: BotHarness, fake_discord: FakeDiscord, place: Place
) -> None:
    """The second Rematch press accepts the first one's challenge, and says so without a
    link (there is no server to link in; the new game is right below)."""
    bot_factory.options["settings"] = GLOBAL
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    channel, alice, bob = place.channel, place.first, place.second
    board = await challenge_in_dm(fake_discord, channel, alice, bob)
    await alice.slash("knucklebones forfeit", channel=channel)
    await fake_discord.wait_for(lambda: is_finished(board), what="the forfeit on the board")
    asked = await alice.click(board, "Rematch")
    challenge = asked.message
    assert challenge is not None and challenge is not board
    rematch = await session_for(bot, challenge)  # its message stored: no more "on its way"
    second = await bob.click(board, "Rematch")
    assert second.type is CallbackType.DEFERRED_UPDATE
    note = await second.followup()
    assert note.visible_to == bob.id
    assert note.content == f"✅ You accepted {alice.mention}'s rematch: the game is on."
    await fake_discord.wait_for(lambda: board_turn(challenge) == 1, what="the rematch's board")
    assert (rematch.reach, rematch.guild_id) == ("interaction", FRIENDS_LADDER)


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_diceman_against_the_ai_between_friends(
    bot_factory: BotHarness, fake_discord: FakeDiscord, place: Place
) -> None:
    """Against the AI: the game begins at once, its reveals are edits through the token of
    the player's last Make your move press; no DM."""
    bot_factory.options["settings"] = GLOBAL
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    channel, alice = place.channel, place.first
    started = await alice.slash("diceman ai", channel=channel)
    assert started.message is not None and not started.ephemeral
    duel = Duel(fake_discord, started.message, "dm")
    await duel.wait_round(1)
    number = 1
    while not duel.over():
        await diceman_lock(alice, await make_your_move(duel, alice), ALICE_PICK)
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        number += 1
        assert number < 40
    assert alice.dms() == []
    result = await friends_result(bot.db, duel.session_id)
    assert result["guild_id"] == FRIENDS_LADDER


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_diceman_against_the_ai_in_the_bots_own_dm(
    bot_factory: BotHarness, fake_discord: FakeDiscord, alice: Player
) -> None:
    """The bot's own DM is no server either: the game is reached through interactions as
    in a DM between friends (its Make your move presses are on the command's answer)."""
    bot_factory.options["settings"] = GLOBAL
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    started = await alice.slash("diceman ai", channel=alice.open_dm())
    assert started.message is not None
    duel = Duel(fake_discord, started.message, "dm")
    await duel.wait_round(1)
    session = await bot.sessions.require(duel.session_id)
    assert (session.reach, session.guild_id) == ("interaction", FRIENDS_LADDER)
    number = 1
    while not duel.over():
        await diceman_lock(alice, await make_your_move(duel, alice), ALICE_PICK)
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        number += 1
        assert number < 40
    assert [m for m in alice.dms() if m.visible_to is None] == [duel.board]  # no DM


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_classic_dimension_duel_between_friends(
    bot_factory: BotHarness, fake_discord: FakeDiscord, place: Place
) -> None:
    """Classic mode: each press of Roll answers on the game message; a second press is
    refused privately (a follow-up of a deferred update, whose token is kept too)."""
    bot_factory.options["settings"] = GLOBAL
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    channel, alice, bob = place.channel, place.first, place.second
    challenge = await alice.slash(
        "duel challenge", channel=channel, opponent=bob, mode="classic", hp=10
    )
    assert challenge.message is not None
    duel = Duel(fake_discord, challenge.message, "dd")
    await bob.click(duel.board, "Accept")
    await duel.wait_round(1)
    number = 1
    while True:
        rolled = await alice.click(duel.board, "Roll")
        assert rolled.type is CallbackType.UPDATE_MESSAGE
        twice = await alice.click(duel.board, "Roll")
        assert twice.type is CallbackType.DEFERRED_UPDATE
        assert "already locked in" in (await twice.followup()).content
        await bob.click(duel.board, "Roll")
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        if duel.over():
            break
        number += 1
        assert number < 40
    result = await friends_result(bot.db, duel.session_id)
    assert result["guild_id"] == FRIENDS_LADDER and result["reason"] == "normal"


@pytest.mark.postgres_only
async def test_another_process_shows_a_friends_game_through_the_stored_token(
    cluster: Cluster, sharded_fake: FakeDiscord
) -> None:
    """Two bot processes on one database (compose.yaml's): the press reaches the process
    of shard 0 (a DM's interactions do), which dies before the AI's move; the other process
    fires that timer and edits the board through the token the press left in the database.
    Restarted, the first carries on from the same board."""
    fake = sharded_fake
    await fake.create_guild("Shard Zero", shard=0)
    one = await fake.create_guild("Shard One", shard=1)
    carol, dave = await one.add_member("carol"), await one.add_member("dave")
    carol.install_app()
    dm = fake.dm_between(carol, dave)
    first, second = cluster.shards
    await first.start()
    await second.start()
    await first.ready(syncs_before=0)
    await second.ready(syncs_before=0)

    started = await carol.slash("knucklebones ai", channel=dm, difficulty="easy", first="me")
    board = started.message
    assert board is not None
    await press(carol, board)
    press_event = fake.gateway.events(event="INTERACTION_CREATE")[-1]
    assert press_event.shard_id == 0 and press_event.guild_id is None
    await first.kill()
    await cluster.advance(SHOW_LEASE_SECONDS)
    await fake.wait_for(
        lambda: board_turn(board) == 3 and ai_board_idle(board),
        what="the AI's move, shown by the other process",
    )

    syncs = fake.commands.sync_count
    await first.start()
    await first.ready(syncs_before=syncs)
    await press(carol, board)
    await cluster.advance(1)
    await fake.wait_for(lambda: board_turn(board) == 5, what="the AI after the restart")
    events = await cluster.events(session_of(board))
    moves = [(actor, kind) for _, actor, kind in events[1:]]
    assert moves == [(carol.id, "place"), (None, "ai_move")] * 2, moves
    assert first.errors() == [] and second.errors() == []
    await second.process.stop()
    await first.process.stop()


async def test_no_game_where_the_players_app_may_only_answer_them_alone(
    bot_factory: BotHarness, fake_discord: FakeDiscord, server_without_bot: FakeGuild
) -> None:
    """In a server without the bot whose members may not use external apps, Discord makes
    every answer of a user's app private to them: a game there could be seen by nobody
    else, so none starts, and the player is told why."""
    bot_factory.options["settings"] = GLOBAL
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    erin = await server_without_bot.add_member("erin")
    frank = await server_without_bot.add_member("frank")
    erin.install_app()
    everyone = discord.Permissions(server_without_bot.everyone.permissions)
    everyone.use_external_apps = False
    await server_without_bot.set_role_permissions(server_without_bot.everyone, everyone)
    channel = server_without_bot.default_channel
    for command, options in (
        ("knucklebones challenge", {"opponent": frank}),
        ("knucklebones ai", {}),
        ("diceman challenge", {"opponent": frank}),
        ("duel ai", {}),
    ):
        refused = await erin.slash(command, channel=channel, **options)
        assert refused.ephemeral
        assert refused.text() == (
            "I can't start a game here: this server doesn't let you use apps in public. "
            "Play in a DM or a group DM, or ask its admins to allow external apps."
        )
    assert await bot.db.fetch_all("SELECT id FROM sessions") == []


async def test_a_choice_between_friends_stays_secret_until_the_reveal(
    bot_factory: BotHarness, fake_discord: FakeDiscord, place: Place
) -> None:
    """Alice locks in first: until Bob does, nothing anyone else can see names her dice:
    no version of the game message, no message to Bob, no other message in the channel
    (her choice is in her own ephemeral controls only); the reveal then shows it."""
    bot_factory.options["settings"] = GLOBAL
    await bot_factory.start()
    channel, alice, bob = place.channel, place.first, place.second
    challenge = await alice.slash("diceman challenge", channel=channel, opponent=bob)
    assert challenge.message is not None
    duel = Duel(fake_discord, challenge.message, "dm")
    await bob.click(duel.board, "Accept")
    await duel.wait_round(1)
    picked = ("Priority", "Sword")  # Alice's pick, as its texts name it
    board_versions = len(duel.board.history)
    controls = await make_your_move(duel, alice)
    note = await diceman_lock(alice, controls, ALICE_PICK)
    assert all(name in note for name in picked)  # her own note names her choice
    await duel.wait_text("Locked in")
    seen_by_others = [version.text for version in duel.board.history[board_versions:]]
    seen_by_others += [m.text() for m in channel.messages() if m.id != duel.board.id]
    seen_by_others += [m.text() for m in bob.ephemerals()]
    assert seen_by_others and not any(name in text for text in seen_by_others for name in picked)
    await diceman_lock(bob, await make_your_move(duel, bob), BOB_PICK)
    await fake_discord.wait_for(
        lambda: duel.over() or duel.round() == 2, what="the reveal of round 1"
    )
    assert all(name in duel.board.text() for name in picked)
