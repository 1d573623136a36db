"""Driving a Weighted Dice table on the fake Discord the way players do: slash commands,
button presses, selects and modals. Shared by the tests/e2e/test_weighted_dice*.py files.

``ScriptedDice`` makes given rolls come out (RULES.md's worked examples need exact
rolls): it is installed through the cog's documented ``dice_source`` attribute and only
changes what ``randint`` returns while its script lasts; everything else (and every roll
after the script runs out) comes from the session's own seeded rng.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from fakediscord import FakeDiscord, FakeMessage, InteractionOutcome, Player

from bot import i18n
from bot.app import DiceBot
from bot.i18n import _, unpseudo
from bot.model.contract import Session, StepContext
from cogs.weighted_dice.state import TableState, load_state
from game_core.weighted_dice import WeightedDiceState

WAIT_SECONDS = 5.0


class ScriptedDice(random.Random):
    """A ``random.Random`` whose ``randint`` returns the scripted rolls first."""

    def __init__(self, script: list[int], seed: str) -> None:
        super().__init__(seed)
        self.script = script

    def randint(self, a: int, b: int) -> int:
        if not self.script:
            return super().randint(a, b)
        value = self.script.pop(0)
        if not a <= value <= b:
            raise AssertionError(f"scripted roll {value} does not fit a d{b}")
        return value


def script_dice(bot: DiceBot, rolls: Iterable[int]) -> list[int]:
    """Make the next rolls of every Weighted Dice table ``rolls``; returns the live script
    (empty once every scripted roll was used)."""
    script = list(rolls)
    cog = weighted_cog(bot)

    def source(ctx: StepContext) -> random.Random:
        return ScriptedDice(script, f"{ctx.session.seed}:{ctx.session.version}")

    cog.dice_source = source
    return script


def weighted_cog(bot: Any) -> Any:
    """The loaded cog. Not checked with isinstance: discord.py executes an extension's
    module afresh on every load, so each bot (and each restart) has its own class."""
    cog = bot.get_cog("WeightedDice")
    assert cog is not None and hasattr(cog, "dice_source")
    return cog


async def eventually(
    check: Callable[[], Awaitable[bool]], what: str, limit: float = WAIT_SECONDS
) -> None:
    """Poll an async condition (database reads cannot be awaited inside fake.wait_for)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while not await check():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def pattern_in(text: str) -> Callable[[FakeMessage], bool]:
    return lambda message: re.search(text, message.text()) is not None


class Table:
    """One Weighted Dice table: its players (in seat order), its public message, its row."""

    def __init__(
        self,
        fake: FakeDiscord,
        bot: DiceBot,
        players: Sequence[Player],
        *,
        quick_edits: bool = True,
        language: str = "en",
    ) -> None:
        self.fake = fake
        # The language of the table's public message (the server's): what its buttons say.
        self.language = language
        self.players = list(players)
        self.host = self.players[0]
        self.message_id = 0
        self.session_id = 0
        # Most tests need not wait the production pauses between coalesced edits (the burst
        # test keeps them, since they are what it measures).
        self.quick_edits = quick_edits
        self.bind(bot)

    # -- set-up ---------------------------------------------------------------------------

    async def open_lobby(self, **options: Any) -> FakeMessage:
        """``/weighted new`` by the host, with any table options (``points=...``)."""
        outcome = await self.host.slash("weighted new", **options)
        assert outcome.message is not None and not outcome.ephemeral
        self.message_id = outcome.message.id
        table = re.escape(self.label("Table #{table}")).replace(r"\{table\}", r"(\d+)")
        match = re.search(table, outcome.message.text())
        assert match is not None
        self.session_id = int(match.group(1))
        return outcome.message

    async def join_all(self) -> None:
        for player in self.players[1:]:
            await player.click(self.message, self.label("Join"))
        await self.settle()

    async def start(self) -> None:
        await self.host.click(self.message, self.label("Start"))
        await self.settle()

    async def open(self) -> None:
        await self.open_lobby()
        await self.join_all()
        await self.start()

    def label(self, english: str, reader: Player | None = None) -> str:
        """What ``english`` reads as on the table (or, given a ``reader``, in their own
        client's language), as the fake keeps it (without pseudo markers)."""
        language = self.language if reader is None else i18n.resolve(reader.user.locale)
        with i18n.use(language):
            return i18n.unpseudo(_(english))

    def bind(self, bot: DiceBot) -> None:
        """Drive the table through ``bot`` (again after each restart)."""
        self.bot = bot
        if self.quick_edits:
            bot.publisher.min_edit_interval = 0.01
            weighted_cog(bot).coalesce_delay = 0.01

    # -- what players see -----------------------------------------------------------------

    @property
    def message(self) -> FakeMessage:
        return self.host.home.default_channel.message(self.message_id)  # type: ignore[union-attr]

    def text(self) -> str:
        return self.message.text()

    def alt(self) -> str:
        """The table picture's alt text: every seat's points and role, the bets, the
        chances (what the picture shows, in words; the message never repeats it)."""
        return self.message.attachment("table.png").description or ""

    async def settle(self) -> None:
        """Wait until the public table shows what the database holds (the coalesced edits
        have landed), then a moment more for any edit requested after that."""
        for _attempt in range(2):
            await eventually(self._shows_stored_state, "the table to show the stored state")
            await asyncio.sleep(0.02)
        await self.bot.publisher.settled()

    async def _shows_stored_state(self) -> bool:
        await self.bot.publisher.settled()
        session = await self.session()
        if not session.is_open:
            return True
        with i18n.use(session.language):
            expected = weighted_cog(self.bot).table_fields(session)["embed"].to_dict()
        shown = self.message.embed or {}
        # The fake keeps what was sent as plain text (a pseudo-localized run wraps it).
        return all(
            shown.get(key) == unpseudo(expected.get(key) or "")
            or shown.get(key) == expected.get(key)
            for key in ("title", "description")
        )

    async def wait_for_text(self, text: str, what: str | None = None) -> None:
        await self.fake.wait_for(
            lambda: re.search(text, self.text()) is not None,
            timeout=WAIT_SECONDS,
            what=what or f"the table to show {text!r}",
        )

    async def wait_for_control(self, suffix: str) -> None:
        """Wait until the table carries the control ``wd:<session>:<suffix>``."""
        custom_id = f"wd:{self.session_id}:{suffix}"
        await self.fake.wait_for(
            lambda: custom_id in self.message.custom_ids(),
            timeout=WAIT_SECONDS,
            what=f"the table to offer {custom_id}",
        )

    def edits(self) -> int:
        """How many times the bot has edited the public table through the channel endpoint."""
        path = f"/channels/{self.message.channel.id}/messages/{self.message_id}"
        return sum(
            1
            for record in self.fake.requests
            if record.method == "PATCH" and record.path == path and record.status == 200
        )

    # -- the stored game ------------------------------------------------------------------

    async def session(self) -> Session:
        return await self.bot.sessions.require(self.session_id)

    async def engine(self) -> WeightedDiceState:
        state = load_state((await self.session()).state)
        assert isinstance(state, TableState)
        return state.engine

    def player_at(self, seat: int) -> Player:
        return self.players[seat]

    def seat_of(self, player: Player) -> int:
        return self.players.index(player)

    # -- moves ------------------------------------------------------------------------------

    async def setup_round(
        self, house: Player, rollers: tuple[Player, Player], dice: tuple[int, int]
    ) -> InteractionOutcome:
        """The house opens its panel, picks both rollers and dice, and confirms; returns
        the answer to Confirm once betting shows on the table."""
        engine = await self.engine()
        await self.wait_for_control(f"{engine.round}:setup")
        panel = await house.click(self.message, self.label("Set up round"))
        assert panel.ephemeral, panel.text()
        message = panel.message
        assert message is not None
        for index in (0, 1):
            # The house's panel speaks the house player's own language.
            roller = self.label("Roller {number}", house).format(number=index + 1)
            die = self.label("Die for roller {number}", house).format(number=index + 1)
            await house.select(message, [rollers[index].name.title()], select=roller)
            await house.select(message, [f"d{dice[index]}"], select=die)
        outcome = await house.click(message, self.label("Confirm", house))
        await self.wait_for_control(f"{engine.round}:bet:0")
        return outcome

    async def open_bet(self, player: Player, side: int) -> InteractionOutcome:
        """Press "Bet on <roller>"; a modal on success, an ephemeral refusal otherwise."""
        engine = await self.engine()
        await self.wait_for_control(f"{engine.round}:bet:{side}")
        return await player.click(self.message, f"wd:{self.session_id}:{engine.round}:bet:{side}")

    async def bet(self, player: Player, side: int, amount: int | str) -> InteractionOutcome:
        """Press "Bet on <roller>" and submit the amount in the modal."""
        opened = await self.open_bet(player, side)
        assert opened.modal is not None, opened.text()
        return await player.submit_modal(opened, amount=str(amount))

    async def quick_bet(self, player: Player, side: int, amount: str) -> InteractionOutcome:
        engine = await self.engine()
        custom_id = f"wd:{self.session_id}:{engine.round}:quick:{side}:{amount}"
        await self.wait_for_control(f"{engine.round}:quick:{side}:{amount}")
        return await player.click(self.message, custom_id)

    async def snapshot(self) -> tuple[int, dict[str, Any], str, list[str], int]:
        """What must not change when a player is refused: the row's version and state, and
        the table's text, controls and edit count."""
        await self.settle()
        session = await self.session()
        return session.version, session.state, self.text(), self.message.custom_ids(), self.edits()

    async def assert_unchanged(
        self, before: tuple[int, dict[str, Any], str, list[str], int]
    ) -> None:
        assert await self.snapshot() == before
