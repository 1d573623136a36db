"""Helpers for the Diceman / Dimension Duel end-to-end tests: reading the public message,
finding a player's private controls (DM or ephemeral), locking in, and sorting every
payload the fake received by who could see it (for the secrecy checks)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from fakediscord import FakeDiscord, FakeMessage, MessageVersion, Player
from fakediscord.pseudo import plain, plain_value
from fakediscord.server import RequestRecord

from bot import i18n
from bot.app import DiceBot
from bot.model.command_mentions import using_command_ids
from bot.model.contract import Session, ShowContext

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


# -- what was shown, whatever the timing ------------------------------------------------------

LOADING = 1 << 7


def version_mark(fake: FakeDiscord) -> int:
    """The order number of the newest message version that has landed: every version that
    lands later has a larger ``MessageVersion.sequence``."""
    return max(
        (
            version.sequence
            for channel in fake.channels.values()
            for message in channel.all_messages.values()
            for version in message.history
        ),
        default=0,
    )


def state_of(version: MessageVersion) -> str:
    """One state of a message as its readers saw it (text, embeds, controls, attachments and
    their alt texts), whichever way it was sent: an answer, an edit of a deferred answer,
    a channel edit."""
    shown = {
        "text": version.text,
        "embeds": version.embeds,
        "components": version.components,
        "attachments": list(version.attachments),
        "alt_texts": list(version.alt_texts),
        "flags": version.flags & ~LOADING,
    }
    return normalise(plain(json.dumps(shown, ensure_ascii=False, sort_keys=True)))


def _sessions_of(message: FakeMessage) -> set[int]:
    found: set[int] = set()
    for version in message.history:
        for custom_id in version.custom_ids():
            match = parse_custom_id(custom_id)
            if match is not None:
                found.add(int(match["session"]))
    return found


@dataclass(frozen=True)
class Shown:
    """A new state of a message that someone other than the secret's owner could read."""

    where: str  # "channel", "dm" or "ephemeral", with the message's number in the window
    state: str  # ``state_of`` the version


def shown_to_others(duel: Duel, owner: Player, since: int) -> list[Shown]:
    """Every new state that landed after ``since`` (``version_mark``) on a message of this
    game anyone but ``owner`` could read — the game's channel, everyone else's DMs and
    ephemeral messages — in the order they landed, transport aside: a "thinking" state
    and a state already on screen before (shown again) are not new; a message of another
    game (its controls carry another session) is not this game's."""
    fake, channel = duel.fake, duel.board.channel
    landed: list[tuple[int, int, str, str]] = []
    for place in fake.channels.values():
        if place.is_dm and place.recipient is not None and place.recipient.id == owner.id:
            continue
        if not place.is_dm and place is not channel:
            continue
        for message in place.all_messages.values():
            if message.visible_to == owner.id:
                continue
            sessions = _sessions_of(message)
            new_here = message.history[0].sequence > since
            if sessions - {duel.session_id} or (not sessions and not new_here):
                continue
            where = "dm" if place.is_dm else "ephemeral" if message.visible_to else "channel"
            before = [v for v in message.history if v.sequence <= since]
            on_screen = state_of(before[-1]) if before else None
            for version in message.history:
                if version.sequence <= since or version.flags & LOADING:
                    continue
                state = state_of(version)
                if state != on_screen:
                    landed.append((version.sequence, message.id, where, state))
                on_screen = state
    landed.sort()
    numbers: dict[int, int] = {}
    for _, message_id, _, _ in landed:
        numbers.setdefault(message_id, len(numbers))
    return [Shown(f"{where} {numbers[mid]}", state) for _, mid, where, state in landed]


def states_in_order(message: FakeMessage) -> list[str]:
    """The states a message went through, a state shown again in a row counted once."""
    states: list[str] = []
    for version in message.history:
        if version.flags & LOADING:
            continue
        state = state_of(version)
        if not states or states[-1] != state:
            states.append(state)
    return states


async def stored_game_difference(bot: DiceBot, message: FakeMessage) -> str | None:
    """How the message differs from what the game's handler draws from the stored session
    now (its texts, its controls, its picture's alt text); None when it shows it."""
    row = await bot.db.fetch_one("SELECT id FROM sessions WHERE message_id = ?", (message.id,))
    if row is None:
        return "no stored game has this message"
    snapshot = await bot.publisher.store.snapshot(int(row["id"]))
    assert snapshot is not None
    session = snapshot.session
    closed = frozenset(seat for seat, p in snapshot.private.items() if p.closed)
    handler = bot.sessions.handlers[session.game]
    # As the publisher renders: in the game's language, commands as mentions.
    with i18n.use(session.language), using_command_ids(bot.command_ids):
        context = ShowContext(events=snapshot.events, dm_closed=closed)
        fields = await handler.render(session, context)
    expected = FakeMessage(id=0, channel=message.channel, author=message.author, timestamp=0.0)
    expected.content = plain(fields.get("content") or "")
    embed = fields.get("embed")
    expected.embeds = [] if embed is None else [plain_value(embed.to_dict())]
    view = fields.get("view")
    expected.components = [] if view is None else plain_value(view.to_components())
    alt_texts = [plain(f.description or "") for f in fields.get("attachments") or []]
    shown_alt_texts = [a.description or "" for a in message.attachments]
    for what, stored, shown in (
        ("text", expected.text(), message.text()),
        ("controls", expected.custom_ids(), message.custom_ids()),
        ("alt text", alt_texts, shown_alt_texts),
    ):
        if stored != shown:
            return f"its {what} is {shown!r}, the stored game's {stored!r}"
    return None
