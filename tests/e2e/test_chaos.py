"""Seeded chaos: complete games of all four games while the fake Discord loses answers,
answers 5xx, bursts 429s and takes permissions away at random, and the bot process is
SIGKILLed once and started again. Every game ends; every public message ends showing its
stored final state; every committed move is in the event log exactly once; the bot logs no
ERROR.

Players act as people do: they look at the messages (and DMs) they have, press what is
there, and press again when a press failed. The driver reads the database only to know
when everything is over and to check the promises at the end.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from abc import ABC, abstractmethod
from collections import Counter
from pathlib import Path
from typing import Any

from clocked_support import ClockedBot
from duel_support import Duel
from fakediscord import (
    BotDidNotAnswer,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    FakeUsageError,
    InteractionOutcome,
    Player,
)
from knucklebones_support import board_turn, enabled_columns, is_finished, mover_id

from bot.model.clock import ManualClock

SEED = 20261123
KILL_AFTER_ACTIONS = 40
MAX_STEPS = 900


def rows(db: Path, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


async def attempt(call: Any) -> InteractionOutcome | None:
    """One press as a player makes it: None when it could not be made or was lost."""
    try:
        outcome = await call
    except (FakeUsageError, BotDidNotAnswer):
        return None  # the control was gone by the time they pressed, or the bot died
    return None if outcome.lost else outcome


async def press(call: Any) -> bool:
    return await attempt(call) is not None


class Game(ABC):
    name = ""
    session_id = 0

    @abstractmethod
    async def step(self) -> bool:
        """Make the next press this game's players would make; True if one was tried."""


class Knucklebones(Game):
    name = "knucklebones"

    def __init__(self, board: FakeMessage, players: dict[int, Player]) -> None:
        self.board = board
        self.players = players

    async def step(self) -> bool:
        if is_finished(self.board) or board_turn(self.board) is None:
            return False
        mover = self.players.get(mover_id(self.board) or 0)
        columns = enabled_columns(self.board)
        if mover is None or not columns:
            return False
        return await press(mover.click(self.board, f"Column {columns[0] + 1}"))


class Diceman(Game):
    name = "diceman"

    def __init__(self, duel: Duel, players: list[Player]) -> None:
        self.duel = duel
        self.players = players
        self.done: set[tuple[int, int]] = set()

    def controls(self, player: Player, current: int) -> FakeMessage | None:
        """The newest message this player has with controls for ``current``: a DM, or the
        ephemeral copy from **Make your move**."""
        for message in reversed([*player.dms(), *player.ephemerals()]):
            if self.duel.controls_in(message, current):
                return message
        return None

    async def step(self) -> bool:
        current = self.duel.round()
        if current is None:
            return False
        for player in self.players:
            if (player.id, current) in self.done:
                continue
            controls = self.controls(player, current)
            if controls is None:
                # No DM (yet): the button every player has on the game message.
                opened = await attempt(player.click(self.duel.board, "Make your move"))
                if opened is not None and "already locked in" in opened.text():
                    self.done.add((player.id, current))  # a lock-in whose answer was lost
                return True
            picked = await press(player.select(controls, ["priority", "sword"]))
            confirm = next((c for c in controls.custom_ids() if ":ok:ps" in c), None)
            if picked and confirm is not None and await press(player.click(controls, confirm)):
                self.done.add((player.id, current))
            return True
        return False


class ClassicDuel(Game):
    name = "dimension_duel"

    def __init__(self, duel: Duel, player: Player) -> None:
        self.duel = duel
        self.player = player

    async def step(self) -> bool:
        if self.duel.round() is None or "Roll" not in self.duel.board.labels():
            return False
        return await press(self.player.click(self.duel.board, "Roll"))


class WeightedDice(Game):
    name = "weighted_dice"

    def __init__(self, table: FakeMessage, players: list[Player], db: Path) -> None:
        self.table = table
        self.players = players
        self.db = db

    def engine(self) -> dict[str, Any] | None:
        found = rows(self.db, "SELECT state FROM sessions WHERE id = ?", (self.session_id,))
        state = json.loads(found[0]["state"]) if found else {}
        return state.get("engine")

    async def step(self) -> bool:
        engine = self.engine()
        if engine is None:
            return False
        # The table as it is on screen: its controls are the round it shows, which may lag
        # the stored game (its edits wait for the channel's rate limit). A player presses
        # the current round's Set up round when it is there, as they do with bets.
        setup = f"wd:{self.session_id}:{engine['round']}:setup"
        if engine["phase"] == "setup" and setup in self.table.custom_ids():
            return await self.set_up(engine)
        if engine["phase"] == "betting":
            rollers = engine["rollers"]
            betters = {bet["player"] for bet in engine["bets"]}
            for seat, player in enumerate(self.players):
                if seat == engine["house"] or seat in rollers or seat in betters:
                    continue
                if not engine["active"][seat]:
                    continue
                quick = f"wd:{self.session_id}:{engine['round']}:quick:0:all"
                if quick in self.table.custom_ids():
                    return await press(player.click(self.table, quick))
        return False

    async def set_up(self, engine: dict[str, Any]) -> bool:
        house = self.players[engine["house"]]
        opened = None
        with contextlib.suppress(FakeUsageError, BotDidNotAnswer):
            opened = await house.click(self.table, f"wd:{self.session_id}:{engine['round']}:setup")
        if opened is None or opened.lost or opened.message is None:
            return True
        panel = opened.message
        others = [
            p
            for seat, p in enumerate(self.players)
            if seat != engine["house"] and engine["active"][seat]
        ]
        for index in (0, 1):
            name = others[index].name.title()
            if not await press(house.select(panel, [name], select=f"Roller {index + 1}")):
                return True
            if not await press(house.select(panel, ["d20"], select=f"Die for roller {index + 1}")):
                return True
        await press(house.click(panel, "Confirm"))
        return True


async def test_four_games_survive_chaos_and_a_sigkill(
    fake_discord: FakeDiscord, guild: FakeGuild, clock: ManualClock, tmp_path: Path
) -> None:
    db = tmp_path / "bot.db"
    # The driver moves the clock a second whenever nobody can press anything (the bot's
    # retries wait on it): long turns keep the games ending by play, not by the clock.
    long_turns = {
        "TURN_TIMEOUT_SECONDS": "86400",
        "ROUND_TIMEOUT_SECONDS": "86400",
        "CHALLENGE_EXPIRY_SECONDS": "86400",
        "HOUSE_SETUP_SECONDS": "3600",
        "PUBLISHING_LOG_LEVEL": "DEBUG",
    }
    clocked_bot = ClockedBot(fake_discord, guild, clock, db, **long_turns)
    try:
        await play_through_chaos(fake_discord, guild, clocked_bot, db)
    finally:
        await clocked_bot.process.ensure_dead()


async def play_through_chaos(
    fake_discord: FakeDiscord, guild: FakeGuild, clocked_bot: ClockedBot, db: Path
) -> None:
    names = ["alice", "bob", "carol", "dave", "jack", "ann", "ben", "cy", "dee", "eve"]
    people = {name: await guild.add_member(name) for name in names}
    await clocked_bot.start()

    # Four games, started before the chaos begins (a start's lost answer is tested apart).
    board = (
        await people["alice"].slash("knucklebones challenge", opponent=people["bob"], first="me")
    ).message
    assert board is not None
    await people["bob"].click(board, "Accept")
    await fake_discord.wait_for(lambda: board_turn(board) == 1, timeout=10, what="the board")
    duel_board = (await people["carol"].slash("diceman challenge", opponent=people["dave"])).message
    assert duel_board is not None
    await people["dave"].click(duel_board, "Accept")
    diceman = Duel(fake_discord, duel_board, "dm")
    await diceman.wait_round(1)
    classic_board = (await people["jack"].slash("duel ai", mode="classic", hp=10)).message
    assert classic_board is not None
    classic = Duel(fake_discord, classic_board, "dd")
    await classic.wait_round(1)
    bettors = [people[name] for name in ("ann", "ben", "cy", "dee", "eve")]
    table = (await bettors[0].slash("weighted new")).message
    assert table is not None
    for player in bettors[1:]:
        await player.click(table, "Join")
    await fake_discord.wait_for(lambda: "Start" in table.labels(), what="the lobby")
    await bettors[0].click(table, "Start")

    games: list[Game] = [
        Knucklebones(board, {people["alice"].id: people["alice"], people["bob"].id: people["bob"]}),
        Diceman(diceman, [people["carol"], people["dave"]]),
        ClassicDuel(classic, people["jack"]),
        WeightedDice(table, bettors, db),
    ]
    ids = {row["game"]: row["id"] for row in rows(db, "SELECT id, game FROM sessions")}
    for game in games:
        game.session_id = ids[game.name]

    def all_over() -> bool:
        found = rows(db, "SELECT status FROM sessions")
        return all(row["status"] in ("finished", "cancelled") for row in found)

    chaos = fake_discord.chaos(
        seed=SEED,
        lost_answers=0.08,
        server_errors=0.05,
        rate_limit_bursts=0.04,
        connection_drops=0.03,
        permission_outage=0.02,
        outage_denies=("send_messages", "view_channel"),
    )
    actions = 0
    killed = False
    for _ in range(MAX_STEPS):
        if all_over():
            break
        moved = False
        for game in games:
            if await game.step():
                moved = True
                actions += 1
        if not killed and actions >= KILL_AFTER_ACTIONS:
            await clocked_bot.kill()
            killed = True
            await clocked_bot.start()
        if not moved:
            # Nothing to press: let the bot's retries (on its clock) catch up.
            await clocked_bot.advance(1.0)
            with contextlib.suppress(AssertionError):
                await fake_discord.wait_for(lambda: False, timeout=0.05, what="a moment")
    assert killed, "the bot was never killed: the games ended too soon for this test"
    assert all_over(), (
        "not every game ended: "
        + "; ".join(
            f"{r['game']} {r['status']} v{r['version']} shown {r['shown_version']}"
            for r in rows(db, "SELECT * FROM sessions")
        )
        + f"; {actions} presses; the bot said:\n"
        + "\n".join(
            line for line in clocked_bot.process.output if "session 4" in line or "ERROR" in line
        )[-6000:]
        + "\nrequests:\n"
        + "\n".join(
            str(r) for r in fake_discord.requests if r.message_id == table.id or r.interaction
        )[-4000:]
    )
    await chaos.stop()

    # Every message catches up with its stored final state.
    def caught_up() -> bool:
        found = rows(db, "SELECT shown_version, version FROM sessions")
        return all(row["shown_version"] >= row["version"] for row in found)

    for _ in range(120):
        if caught_up():
            break
        await clocked_bot.advance(1.0)
        with contextlib.suppress(AssertionError):
            await fake_discord.wait_for(caught_up, timeout=0.2, what="the messages to catch up")
    assert caught_up(), "some game message never showed its final state"

    sessions = rows(db, "SELECT * FROM sessions ORDER BY id")
    endings = {
        row["game"]: rows(
            db,
            "SELECT events FROM events WHERE session_id = ? AND version = ?",
            (row["id"], row["version"]),
        )[0]["events"]
        for row in sessions
        if row["status"] != "finished"
    }
    assert endings == {}, endings
    for row in sessions:
        message = fake_discord.message(row["message_id"])
        # Over: nothing to play but a rematch, and its replay (Play again for Weighted Dice).
        offered = message.labels()
        assert not message.deleted and offered in (
            ["Rematch", "Replay"],
            ["Play again", "Replay"],
        ), (
            row["game"],
            message.text(),
        )
        # The newest version landed last: the message never went back to an older state.
        assert message.history[-1].text == message.text()
    assert "game over" in duel_board.text() and "game over" in classic_board.text()
    assert is_finished(board)
    turns = [t for t in (board_turn_in(v.custom_ids()) for v in board.history) if t is not None]
    assert turns == sorted(turns)

    # Every committed move is in the event log exactly once.
    for row in sessions:
        events = rows(
            db, "SELECT version, actor_id, action FROM events WHERE session_id = ?", (row["id"],)
        )
        assert sorted(e["version"] for e in events) == list(range(row["version"] + 1))
        moves = Counter(move_key(json.loads(e["action"]), e["actor_id"]) for e in events)
        repeated = {key: n for key, n in moves.items() if key is not None and n > 1}
        assert repeated == {}, (row["game"], repeated)

    # Lost answers are what players saw; nothing else went wrong on Discord's side.
    fake_discord.take_problems("interaction-failed")
    fake_discord.take_problems("no-answer")  # presses in flight when the process died
    assert chaos.faults, "chaos injected nothing"
    assert clocked_bot.errors() == [], "\n".join(clocked_bot.errors())
    assert not any("Traceback" in line for line in clocked_bot.process.output)


def board_turn_in(custom_ids: list[str]) -> int | None:
    for custom_id in custom_ids:
        parts = custom_id.split(":")
        if len(parts) == 5 and parts[0] == "kb" and parts[3] == "col":
            return int(parts[2])
    return None


def move_key(action: dict[str, Any], actor: int | None) -> tuple[Any, ...] | None:
    """What makes a move unique: one die per turn, one lock-in per player and round, one
    bet per player and round."""
    kind = action.get("type")
    if kind in ("place", "ai_move"):
        return ("turn", action.get("turn"))
    if kind == "lock":
        return ("lock", actor, action.get("round"))
    if kind == "bet":
        return ("bet", actor, action.get("round"))
    if kind == "setup":
        return ("setup", action.get("round"))
    return None
