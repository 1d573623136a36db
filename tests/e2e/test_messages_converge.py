"""What players see catches up with the stored game: a crash between a commit and its edit,
a stale press, a database locked for seconds, two lobbies joined at once, forged or
out-of-range input, and a challenge to someone who is not in the server. No test here may
log an ERROR (tests/conftest.py fails any test that does).

Faults on Discord's side (lost answers, 5xx, 429s, permission outages) are in
``test_faults.py``; a real SIGKILL between commit and edit is in ``test_crash_repair.py``.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import pytest
from crash_support import commit_unseen
from fakediscord import BotHarness, CallbackType, FakeDiscord, FakeGuild, Player, routes
from fakediscord.interactions import wait_for_answer
from knucklebones_support import (
    ai_board_idle,
    board_turn,
    enabled_columns,
    session_for,
    start_duel,
)

from bot.app import DiceBot
from bot.model.clock import ManualClock
from bot.model.errors import UserError
from bot.storage.publication import Snapshot
from bot.ui.challenges import act_on_challenge


@asynccontextmanager
async def database_locked(path: Path, seconds: float) -> AsyncIterator[threading.Thread]:
    """Another connection holds the database's write lock for ``seconds``. The waits run
    off the event loop: the bot shares it, and a transaction of the bot's that is under way
    must be able to finish before the other connection can take the lock."""
    locked = threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            locked.set()
            time.sleep(seconds)
            conn.execute("ROLLBACK")
        finally:
            conn.close()

    holder = threading.Thread(target=hold, name="lock-holder")
    holder.start()
    assert await asyncio.to_thread(locked.wait, 5)
    try:
        yield holder
    finally:
        await asyncio.to_thread(holder.join)


@asynccontextmanager
async def writes_locked(bot: DiceBot, seconds: float) -> AsyncIterator[None]:
    """Another connection (another process) keeps every game from being written for
    ``seconds``: SQLite's write lock, or a lock on PostgreSQL's sessions table that still
    lets reads through."""
    url = bot.settings.database_url
    if url is None:
        async with database_locked(bot.settings.database_path, seconds):
            yield
        return
    conn = await asyncpg.connect(url.get_secret_value())
    try:
        transaction = conn.transaction()
        await transaction.start()
        await conn.execute("LOCK TABLE sessions IN EXCLUSIVE MODE")
        release = asyncio.create_task(asyncio.sleep(seconds))
        try:
            yield
            await release
        finally:
            release.cancel()
            await transaction.rollback()
    finally:
        await conn.close()


# -- a move racing the first message -------------------------------------------------------


def hold_storing_messages(
    bot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> tuple[asyncio.Event, asyncio.Event]:
    """Make storing a game's message id wait: the first event is set when a store
    starts, and it goes on once the test sets the second."""
    store_message = bot.sessions.set_message
    storing = asyncio.Event()
    may_store = asyncio.Event()

    async def held_set_message(
        session_id: int, message_id: int, shown_version: int | None = None
    ) -> None:
        storing.set()
        await may_store.wait()
        await store_message(session_id, message_id, shown_version)

    monkeypatch.setattr(bot.sessions, "set_message", held_set_message)
    return storing, may_store


async def test_a_move_read_while_the_first_message_is_stored_edits_it_and_posts_no_second(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    clock: ManualClock,
    alice: Player,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The AI moves while the command that started the game is still storing its message's
    id, and the publisher's read of the game (no message id yet) comes back only once that
    is done. The game is more than 30 s old, so a message missing that long would be posted
    afresh: the publisher must see that the posting ended after its read, and edit the
    board the player has rather than post a second one."""
    publisher = running_bot.publisher
    storing, may_store = hold_storing_messages(running_bot, monkeypatch)
    posting = publisher.posting
    posted = asyncio.Event()

    @asynccontextmanager
    async def watched_posting(session_id: int) -> AsyncIterator[None]:
        async with posting(session_id):
            yield
        posted.set()

    read_snapshot = publisher.store.snapshot

    async def late_snapshot(session_id: int) -> Snapshot | None:
        snapshot = await read_snapshot(session_id)
        if not may_store.is_set():
            may_store.set()  # read without the message id: now the command stores it...
            await posted.wait()  # ...and is done, before this read returns
        return snapshot

    monkeypatch.setattr(publisher, "posting", watched_posting)
    monkeypatch.setattr(publisher.store, "snapshot", late_snapshot)
    board = (await alice.slash("knucklebones ai", difficulty="easy", first="them")).message
    assert board is not None
    await asyncio.wait_for(storing.wait(), 5)
    clock.advance(60)  # the AI moves; the game is a minute old
    await fake_discord.wait_for(lambda: ai_board_idle(board), what="the AI's move on the board")
    await publisher.settled()
    assert guild.default_channel.messages() == [board]
    assert publisher.reposts == 0


async def test_settled_waits_for_the_end_of_a_first_post_still_storing_its_message(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    alice: Player,
    bob: Player,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The challenge is on screen, but the command is still storing its message's id (a
    slow database): ``settled`` must wait for that too, or a test's next step races the
    look the posting asks for when it ends."""
    publisher = running_bot.publisher
    storing, may_store = hold_storing_messages(running_bot, monkeypatch)
    challenge = await alice.slash("knucklebones challenge", opponent=bob)
    assert challenge.message is not None
    await asyncio.wait_for(storing.wait(), 5)
    settled = asyncio.ensure_future(publisher.settled())
    await asyncio.sleep(0.2)
    assert not settled.done()
    may_store.set()
    await asyncio.wait_for(settled, 5)
    session = await session_for(running_bot, challenge.message)
    assert session.message_id == challenge.message.id


# -- a crash between the commit and the edit ----------------------------------------------


async def test_a_move_committed_before_a_crash_shows_when_the_bot_starts(
    bot_factory: BotHarness, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    board = await start_duel(fake_discord, alice, bob)
    session = await session_for(bot, board)
    # Alice's move is stored, and the bot dies before its edit: the board still shows turn 1.
    await commit_unseen(bot, session.id, alice.id, {"type": "place", "column": 0, "turn": 1})
    assert board_turn(board) == 1

    await bot_factory.restart()
    # Repaired at start-up, before anyone presses anything.
    await fake_discord.wait_for(lambda: board_turn(board) == 2, what="the board to show turn 2")
    assert f"🎲 <@{bob.id}> rolled" in board.content


async def test_a_repair_a_stopped_process_was_retrying_is_taken_up_at_once_by_the_next(
    bot_factory: BotHarness, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    """A process claims a behind board to repair it, Discord fails its edit, and it is
    stopped cleanly while it waits to retry: the next process repairs the board at start-up,
    not a repair lease (a minute) later."""
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    board = await start_duel(fake_discord, alice, bob)
    session = await session_for(bot, board)
    await commit_unseen(bot, session.id, alice.id, {"type": "place", "column": 0, "turn": 1})
    outage = fake_discord.fail(
        routes.MESSAGE,
        method="PATCH",
        status=503,
        times=None,
        when=lambda r: r.message_id == board.id,
    )
    await bot_factory.restart()
    await fake_discord.wait_for(lambda: outage.hits >= 1, what="the start-up repair's edit")
    outage.cancel()
    assert board_turn(board) == 1

    started = time.monotonic()
    await bot_factory.restart()  # a clean stop, a new process at once (same game clock)
    await fake_discord.wait_for(lambda: board_turn(board) == 2, what="the next process's repair")
    # Nor did the stop wait for the failed edit's retry: well under its ceiling, a minute
    # (a restart alone takes seconds on a busy machine: 6 s in a parallel run of the suite).
    assert time.monotonic() - started < 15


async def test_a_press_on_a_board_that_is_behind_brings_it_up_to_date(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = await start_duel(fake_discord, alice, bob)
    session = await session_for(running_bot, board)
    await commit_unseen(
        running_bot, session.id, alice.id, {"type": "place", "column": 0, "turn": 1}
    )

    refused = await alice.click(board, "Column 2")  # turn 1's buttons, still on screen
    assert refused.ephemeral and "has moved on (it is turn 2 now)" in refused.text()
    await fake_discord.wait_for(lambda: board_turn(board) == 2, what="the repaired board")
    stored = await running_bot.sessions.require(session.id)
    assert stored.version == session.version + 1  # the refused press applied nothing


# -- the database is locked by someone else -----------------------------------------------


async def test_a_move_waiting_on_a_locked_database_is_deferred_then_shown(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    alice: Player,
    bob: Player,
) -> None:
    board = await start_duel(fake_discord, alice, bob)
    async with writes_locked(running_bot, 3.5):
        pressed = await alice.begin_click(board, "Column 1")
        outcome = await wait_for_answer(pressed, 3)
        # Inside Discord's 3 seconds: a deferred update, not "This interaction failed".
        assert outcome.type is CallbackType.DEFERRED_UPDATE
        assert outcome.latency < 3.0
    await fake_discord.wait_for(lambda: board_turn(board) == 2, timeout=5, what="the move")
    assert f"🎲 <@{bob.id}> rolled" in board.content


@pytest.mark.sqlite_only  # PostgreSQL's lock timeout: test_storage_failures_postgres.py
async def test_a_lock_that_outlasts_the_busy_timeout_gets_try_again_and_changes_nothing(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    alice: Player,
    bob: Player,
) -> None:
    board = await start_duel(fake_discord, alice, bob)
    session = await session_for(running_bot, board)
    # A shorter busy timeout than the default 5 s keeps this test quick; the path is the same.
    await running_bot.db.conn.execute("PRAGMA busy_timeout = 2500")
    async with database_locked(running_bot.settings.database_path, 4.0):
        pressed = await alice.begin_click(board, "Column 1")
        outcome = await wait_for_answer(pressed, 3)
        assert outcome.type is CallbackType.DEFERRED_UPDATE
        follow = await outcome.followup(timeout=5)
        assert follow.ephemeral and "try again in a moment" in follow.text()
    assert (await running_bot.sessions.require(session.id)).version == session.version
    assert board_turn(board) == 1 and enabled_columns(board) == [0, 1, 2]


# -- two lobbies, one player, the same moment ---------------------------------------------


async def test_joining_two_tables_at_once_seats_the_player_at_one(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    dana = await guild.add_member("dana")
    first = (await alice.slash("weighted new")).message
    second = (await bob.slash("weighted new")).message
    assert first is not None and second is not None
    presses = [await dana.begin_click(first, "Join"), await dana.begin_click(second, "Join")]
    answers = [await wait_for_answer(press, 5) for press in presses]
    refused = [a for a in answers if a.ephemeral]
    assert len(refused) == 1 and "already have a game open in this channel" in refused[0].text()
    assert "(Weighted Dice)" in refused[0].text()  # the game by its title, not its key
    rows = await running_bot.db.fetch_all(
        "SELECT session_id FROM session_players WHERE user_id = ?", (dana.id,)
    )
    assert len(rows) == 1


# -- input a modified client can send -----------------------------------------------------


async def test_a_column_button_copied_onto_another_message_moves_nothing(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
) -> None:
    board = await start_duel(fake_discord, alice, bob)
    session = await session_for(running_bot, board)
    forged = await fake_discord.seed_bot_message(
        guild.default_channel,
        content="an older message of the bot",
        components=[
            {
                "type": 1,
                "components": [
                    {
                        "type": 2,
                        "style": 1,
                        "label": "Column 1",
                        "custom_id": f"kb:{session.id}:1:col:0",
                    }
                ],
            }
        ],
    )
    refused = await alice.click(forged, "Column 1")
    assert refused.ephemeral and "does not belong to this message" in refused.text()
    assert forged.edit_count == 0 and forged.content == "an older message of the bot"
    assert (await running_bot.sessions.require(session.id)).version == session.version
    assert board_turn(board) == 1


async def test_a_forged_press_from_another_server_gets_no_link_to_the_game(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
) -> None:
    board = await start_duel(fake_discord, alice, bob)
    session = await session_for(running_bot, board)
    link = f"https://discord.com/channels/{guild.id}/{guild.default_channel.id}/{board.id}"
    column = {"type": 2, "style": 1, "label": "Column 1", "custom_id": f"kb:{session.id}:1:col:0"}
    # Copied onto another message of this server: the refusal shows where the game is.
    copied = await fake_discord.seed_bot_message(
        guild.default_channel, content="copied", components=[{"type": 1, "components": [column]}]
    )
    refused = await alice.click(copied, "Column 1")
    assert refused.ephemeral and link in refused.text()

    # Forged in another server by someone who is not there: the game stays out of sight.
    other = await fake_discord.create_guild("Other")
    outsider = await other.add_member("olga")
    forged = await fake_discord.seed_bot_message(
        other.default_channel, content="forged", components=[{"type": 1, "components": [column]}]
    )
    refused = await outsider.click(forged, "Column 1")
    assert refused.ephemeral
    assert refused.text() == (
        "That button does not belong to this message, so nothing was done. Use the buttons "
        "on the game's own message."
    )
    assert forged.edit_count == 0 and forged.content == "forged"
    assert (await running_bot.sessions.require(session.id)).version == session.version
    assert board_turn(board) == 1


@pytest.mark.parametrize(
    "custom_id",
    [
        "kb:99999999999999999999:1:col:0",  # 20 digits: matches no template
        "kb:9999999999999999999:1:col:0",  # 19 digits, above the largest 64-bit id
        "challenge:9999999999999999999:accept",
        "wd:9999999999999999999:lobby:join",
    ],
)
async def test_a_forged_id_too_large_for_the_database_gets_a_clear_answer(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    custom_id: str,
) -> None:
    forged = await fake_discord.seed_bot_message(
        guild.default_channel,
        content="forged",
        components=[
            {
                "type": 1,
                "components": [{"type": 2, "style": 1, "label": "Press", "custom_id": custom_id}],
            }
        ],
    )
    answer = await alice.click(forged, "Press")
    assert answer.ephemeral
    assert "nothing was done" in answer.text() or "no longer active" in answer.text()
    assert "Something went wrong" not in answer.text()


async def test_a_select_value_that_is_not_a_plain_number_is_refused(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
) -> None:
    forged = await fake_discord.seed_bot_message(
        guild.default_channel,
        content="a house panel",
        components=[
            {
                "type": 1,
                "components": [
                    {
                        "type": 3,
                        "custom_id": "wd:1:1:pick:d0:x.x.x.x",
                        "options": [{"label": "two", "value": "²"}],
                    }
                ],
            }
        ],
    )
    answer = await alice.select(forged, ["²"])
    assert answer.ephemeral and "not on the list" in answer.text()


# -- opponents who are not in the server ---------------------------------------------------


@pytest.mark.parametrize(
    "command", ["knucklebones challenge", "diceman challenge", "duel challenge"]
)
async def test_challenging_someone_who_is_not_a_member_says_so(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    alice: Player,
    command: str,
) -> None:
    stranger = fake_discord.add_user("Zoë")
    answer = await alice.slash(command, opponent=stranger)
    assert answer.ephemeral
    assert answer.text() == "Zoë isn't in this server, so they can't play here."
    assert await running_bot.db.fetch_all("SELECT id FROM sessions") == []


# -- a challenge answered twice, or called off while accepted ------------------------------


async def test_a_double_accept_starts_one_game_and_says_so(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = (await alice.slash("knucklebones challenge", opponent=bob)).message
    assert board is not None
    presses = [await bob.begin_click(board, "Accept"), await bob.begin_click(board, "Accept")]
    answers = [await wait_for_answer(press, 5) for press in presses]
    refused = [a for a in answers if a.ephemeral]
    assert len(refused) == 1
    assert refused[0].text() == (
        "That challenge has been answered already: the game is on, on the same message."
    )
    await fake_discord.wait_for(lambda: board_turn(board) == 1, what="the game board")


async def test_calling_off_a_challenge_that_was_just_accepted_says_the_game_is_on(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    board = (await alice.slash("diceman challenge", opponent=bob)).message
    assert board is not None
    pending = await running_bot.sessions.open_session_for(alice.id, guild.default_channel.id)
    assert pending is not None
    await bob.click(board, "Accept")
    # Alice's /diceman forfeit looked the challenge up a moment before bob's Accept landed.
    with pytest.raises(UserError, match="was accepted a moment ago, so the game is on"):
        await act_on_challenge(running_bot, pending, alice.id, "decline", "diceman")
    assert (await running_bot.sessions.require(pending.id)).status == "active"


# -- small things players saw --------------------------------------------------------------


async def test_a_leaderboard_of_one_page_is_posted_without_an_error(
    running_bot: DiceBot, alice: Player
) -> None:
    answer = await alice.slash("leaderboard", game="knucklebones")
    assert not answer.ephemeral and answer.message is not None
    assert answer.message.buttons() == []
    assert not any("Something went wrong" in m.text() for m in alice.ephemerals())
    await asyncio.sleep(0.05)  # an error answer would follow the board at once
    assert not any("Something went wrong" in m.text() for m in alice.ephemerals())


@pytest.mark.parametrize(
    ("command", "options", "refusal"),
    [
        ("duel ai", {"hp": 500}, "`hp` must be between 10 and 150."),
        ("duel ai", {"hp": 9}, "`hp` must be between 10 and 150."),
        ("duel challenge", {"hp": 151}, "`hp` must be between 10 and 150."),
        ("duel ai", {"mode": "chaotic"}, "`mode` must be one of `tactical`, `classic`."),
        ("knucklebones ai", {"difficulty": "impossible"}, "`difficulty` must be one of"),
        ("knucklebones challenge", {"first": "nobody"}, "`first` must be one of"),
        ("leaderboard", {"game": "chess"}, "`game` must be one of"),
        ("leaderboard", {"game": "knucklebones", "page": 0}, "`page` must be between 1 and"),
    ],
)
async def test_options_a_modified_client_sends_are_refused_before_any_game_exists(
    running_bot: DiceBot,
    alice: Player,
    bob: Player,
    command: str,
    options: dict[str, object],
    refusal: str,
) -> None:
    if command.endswith("challenge"):
        options = {"opponent": bob, **options}
    answer = await alice.slash(command, modified_client=True, **options)
    assert answer.ephemeral and refusal in answer.text()
    assert await running_bot.db.fetch_all("SELECT id FROM sessions") == []
    # Nothing is left blocking the player: a valid command right after works.
    if command.startswith("duel"):
        started = await alice.slash("duel ai", hp=20)
        assert not started.ephemeral
