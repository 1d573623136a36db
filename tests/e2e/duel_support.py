"""Helpers for the Diceman / Dimension Duel end-to-end tests: reading the public message,
finding a player's private controls (DM or ephemeral), locking in, and sorting every
payload the fake received by who could see it (for the secrecy checks)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from fakediscord import FakeDiscord, FakeMessage, Player
from fakediscord.pseudo import plain
from fakediscord.server import RequestRecord

from bot.app import DiceBot
from bot.model.contract import Session

CUSTOM_ID = re.compile(r"(?P<prefix>dm|dd):(?P<session>[0-9]+):(?P<round>[0-9]+):(?P<rest>.*)")
SNOWFLAKE = re.compile(r"[0-9]{15,}")
SESSION_IN_ID = re.compile(r"\b(dm|dd):[0-9]+:")
EPHEMERAL = 1 << 6
# Seconds to wait for the bot to show something (it normally takes milliseconds).
WAIT = 5.0


def parse_custom_id(custom_id: str) -> re.Match[str] | None:
    return CUSTOM_ID.fullmatch(custom_id)


@dataclass
class Duel:
    """One game seen from the test: its public message and its session."""

    fake: FakeDiscord
    board: FakeMessage
    prefix: str  # "dm" or "dd"
    session_id: int = 0

    def round(self) -> int | None:
        """The round / turn the public message's button belongs to (None when over)."""
        for custom_id in self.board.custom_ids():
            match = parse_custom_id(custom_id)
            if match is not None and match["prefix"] == self.prefix:
                self.session_id = int(match["session"])
                return int(match["round"])
        return None

    def over(self) -> bool:
        return "game over" in self.board.text()

    async def wait_round(self, number: int) -> None:
        await self.fake.wait_for(
            lambda: self.round() == number, timeout=WAIT, what=f"round {number} on the board"
        )

    async def wait_text(self, text: str) -> None:
        await self.fake.wait_for(
            lambda: text in self.board.text(), timeout=WAIT, what=f"{text!r} on the board"
        )

    async def wait_over(self) -> None:
        await self.fake.wait_for(self.over, timeout=WAIT, what="the game to end on the board")

    def controls_in(self, message: FakeMessage | None, number: int) -> bool:
        if message is None:
            return False
        for custom_id in message.custom_ids():
            match = parse_custom_id(custom_id)
            if (
                match is not None
                and match["prefix"] == self.prefix
                and int(match["round"]) == number
                and not match["rest"].startswith(("move", "roll"))
            ):
                self.session_id = int(match["session"])
                return True
        return False

    async def dm_controls(self, player: Player, number: int) -> FakeMessage:
        """The DM carrying ``player``'s controls for round ``number``."""
        await self.fake.wait_for(
            lambda: self.controls_in(player.last_dm(), number),
            timeout=WAIT,
            what=f"{player.name}'s DM controls for round {number}",
        )
        message = player.last_dm()
        assert message is not None
        return message

    async def open_ephemeral(self, player: Player) -> FakeMessage:
        """Press **Make your move** and return the ephemeral controls."""
        outcome = await player.click(self.board, "Make your move")
        assert outcome.ephemeral, outcome.text()
        assert outcome.message is not None
        return outcome.message

    async def session(self, bot: DiceBot) -> Session:
        return await bot.sessions.require(self.session_id)


def select_id(message: FakeMessage, part: str) -> str:
    """The custom_id of the select on ``message`` whose id contains ``:part:``."""
    for select in message.selects():
        if f":{part}:" in select["custom_id"]:
            return str(select["custom_id"])
    raise AssertionError(f"no {part!r} select on {message.custom_ids()}")


def confirm_id(message: FakeMessage) -> str:
    for custom_id in message.custom_ids():
        if ":ok:" in custom_id:
            return custom_id
    raise AssertionError(f"no Confirm button on {message.custom_ids()}")


async def diceman_pick(player: Player, message: FakeMessage, dice: list[str]) -> None:
    """Choose two dice in the select (no lock-in)."""
    outcome = await player.select(message, dice, select=select_id(message, "pick"))
    assert not outcome.ephemeral or outcome.message is message, outcome.text()


async def diceman_lock(player: Player, message: FakeMessage, dice: list[str]) -> str:
    """Pick two dice and confirm; returns the answer's text (the "locked in" note)."""
    await diceman_pick(player, message, dice)
    outcome = await player.click(message, confirm_id(message))
    return outcome.text()


async def duel_draft(
    player: Player, message: FakeMessage, device: str, region: str, function: str
) -> None:
    for part, value in (("dev", device), ("reg", region), ("fn", function)):
        await player.select(message, [value], select=select_id(message, part))


async def duel_lock(
    player: Player, message: FakeMessage, device: str, region: str, function: str
) -> str:
    await duel_draft(player, message, device, region, function)
    outcome = await player.click(message, confirm_id(message))
    return outcome.text()


# -- who saw what ---------------------------------------------------------------------------


@dataclass
class Audience:
    """Payloads (request bodies) the fake received, sorted by who could read them."""

    owner: list[str] = field(default_factory=list)  # only the secret's owner
    others: list[str] = field(default_factory=list)  # the channel, the opponent, anyone else


def _interaction_for(fake: FakeDiscord, record: RequestRecord) -> Any:
    parts = record.path.split("/")
    if "/interactions/" in record.path:
        interaction_id = int(parts[parts.index("interactions") + 1])
        return fake.interactions.get(interaction_id)
    if "/webhooks/" in record.path:
        token = parts[parts.index("webhooks") + 2]
        return next((i for i in fake.interactions.values() if i.token == token), None)
    return None


def sort_payloads(fake: FakeDiscord, records: list[RequestRecord], owner: Player) -> Audience:
    """Every body sent in ``records``: ``owner`` alone sees their DM channel, their
    ephemeral messages and updates of their DM/ephemeral messages; everything else counts
    as visible to others (the public channel, the opponent's DMs and answers)."""
    audience = Audience()
    owner_dm = owner.dm_channel
    for record in records:
        if record.body is None or record.method == "GET":
            continue
        # As sent, less the pseudo-localization markers (a pseudo-localized run).
        text = plain(json.dumps(record.body, ensure_ascii=False, sort_keys=True))
        private = False
        if record.path.startswith("/users/@me/channels"):
            private = True  # opening a DM channel carries no content
        elif "/channels/" in record.path:
            channel_id = int(record.path.split("/")[2])
            private = owner_dm is not None and channel_id == owner_dm.id
        else:
            interaction = _interaction_for(fake, record)
            if interaction is not None and interaction.user.id == owner.id:
                data = record.body.get("data") if isinstance(record.body, dict) else None
                flags = int((data or record.body).get("flags") or 0)
                source = interaction.source_message
                private = bool(flags & EPHEMERAL) or (
                    source is not None and (source.channel.is_dm or source.visible_to == owner.id)
                )
                if record.body.get("type") == 6:  # a deferred update shows nothing
                    private = True
        (audience.owner if private else audience.others).append(text)
    return audience


def normalise(text: str) -> str:
    """Ids that differ between two otherwise identical games become placeholders."""
    return SESSION_IN_ID.sub(r"\1:S:", SNOWFLAKE.sub("#", text))
