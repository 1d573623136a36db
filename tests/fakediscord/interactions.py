"""Interactions as the fake sees them: what was sent to the bot, how (and how fast) the bot
answered, and the outcome object that a player's action returns."""

from __future__ import annotations

import asyncio
import enum
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from .errors import BotDidNotAnswer, DiscordError, FakeUsageError
from .models import (
    ACTION_ROW,
    LABEL,
    SELECT_TYPES,
    TEXT_DISPLAY,
    TEXT_INPUT,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeUser,
    walk_components,
)

if TYPE_CHECKING:
    from .faults import CallbackFault
    from .server import FakeDiscord

# Interactions die for webhooks 15 minutes after they are created.
TOKEN_LIFETIME_SECONDS = 15 * 60
SEND_MESSAGES = discord.Permissions(send_messages=True).value
SEND_MESSAGES_IN_THREADS = discord.Permissions(send_messages_in_threads=True).value
USE_EXTERNAL_APPS = discord.Permissions(use_external_apps=True).value


class InteractionType(enum.IntEnum):
    APPLICATION_COMMAND = 2
    COMPONENT = 3
    AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class CallbackType(enum.IntEnum):
    PONG = 1
    MESSAGE = 4
    DEFERRED_MESSAGE = 5
    DEFERRED_UPDATE = 6
    UPDATE_MESSAGE = 7
    AUTOCOMPLETE_RESULT = 8
    MODAL = 9


@dataclass(eq=False)
class FakeModal:
    """A modal the bot opened (callback type 9), waiting for its user to submit it."""

    custom_id: str
    title: str
    components: list[dict[str, Any]]
    opened_by: FakeUser
    interaction: FakeInteraction
    submitted: bool = False

    def inputs(self) -> list[dict[str, Any]]:
        """The fields a user fills in: text inputs and selects, in order."""
        return [
            c
            for c in walk_components(self.components)
            if c.get("type") == TEXT_INPUT or c.get("type") in SELECT_TYPES
        ]

    def field_names(self) -> list[str]:
        return [str(c.get("custom_id")) for c in self.inputs()]

    def __repr__(self) -> str:
        return f"<FakeModal {self.custom_id!r} {self.title!r} fields={self.field_names()}>"


@dataclass(eq=False)
class FakeInteraction:
    fake: FakeDiscord
    id: int
    token: str
    type: InteractionType
    user: FakeUser
    channel: FakeChannel
    guild: FakeGuild | None
    application_id: int
    # The fake's clock when the interaction was created (token expiry follows this clock).
    created_at: float
    # What a player did, for failure messages: "/ping", "alice clicks 'Accept'", ...
    description: str
    # The message whose component was used (components, and modals opened from them).
    source_message: FakeMessage | None = None
    # For a modal submit: the interaction whose answer opened the modal.
    trigger: FakeInteraction | None = None
    command_name: str | None = None
    custom_id: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    # Real time (perf_counter) when INTERACTION_CREATE left the fake, and when the first
    # callback arrived.
    sent_at: float | None = None
    answered_at: float | None = None
    callback_type: CallbackType | None = None
    late: bool = False
    expect_answer: bool = True
    # The message shown as the answer: the new one (types 4, 5) or the edited one (6, 7).
    response_message: FakeMessage | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    modal: FakeModal | None = None
    # Every callback attempt, accepted or not, as (callback type, HTTP status).
    callback_attempts: list[tuple[int, int]] = field(default_factory=list)
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    # The shard whose connection received INTERACTION_CREATE.
    shard_id: int | None = None
    # Faults a player's action asked for (``click(..., fault=...)``), used up in order by
    # the bot's callback attempts.
    planned_faults: list[tuple[CallbackFault, str]] = field(default_factory=list)
    # Kinds of the injected faults that hit this interaction's callback attempts.
    faults: list[str] = field(default_factory=list)
    # The player saw "This interaction failed": killed by an injected 10062, or no answer
    # landed within the window after an injected fault. Every later callback gets 10062.
    lost: bool = False
    failure: str | None = None
    # Discord applied the first answer but the bot never heard back (an injected drop), so
    # a second callback from the bot is its recovery, not a double answer.
    answer_unconfirmed: bool = False
    _deadline_timer: asyncio.TimerHandle | None = field(default=None, repr=False)
    # ``authorizing_integration_owners`` as sent (see the property of that name).
    owners: dict[str, str] = field(default_factory=dict)

    @property
    def latency(self) -> float | None:
        """Seconds from INTERACTION_CREATE to the bot's first callback."""
        if self.sent_at is None or self.answered_at is None:
            return None
        return self.answered_at - self.sent_at

    def token_expired(self) -> bool:
        return self.fake.now() - self.created_at > TOKEN_LIFETIME_SECONDS

    @property
    def dead(self) -> bool:
        """Discord no longer takes a callback for it (every attempt gets 404 / 10062)."""
        return self.late or self.lost

    # -- injected faults ----------------------------------------------------------------

    def fault_hit(self, kind: str, error: DiscordError | None = None) -> None:
        """An injected fault hit a callback attempt. A 10062 kills the interaction; after
        any other fault it can still be answered until the window closes."""
        self.faults.append(kind)
        if kind == "unknown-interaction":
            assert error is not None
            self.mark_lost(f"the callback got {error.status} / {error.code} {error.message}")
        elif kind == "applied-then-dropped":
            self.answer_unconfirmed = True
        else:
            self.watch_deadline()

    def watch_deadline(self) -> None:
        """Mark the interaction lost if no answer lands before its window closes."""
        if self._deadline_timer is not None or self.callback_type is not None or self.dead:
            return
        assert self.sent_at is not None
        remaining = self.fake.callback_deadline - (time.perf_counter() - self.sent_at)
        loop = asyncio.get_running_loop()
        self._deadline_timer = loop.call_later(max(remaining, 0.0), self._deadline_passed)
        self.fake.timers.add(self._deadline_timer)

    def _deadline_passed(self) -> None:
        self.fake.timers.discard(self._deadline_timer)  # type: ignore[arg-type]
        self._deadline_timer = None
        if self.callback_type is None:
            self.mark_lost(
                f"no answer landed within {self.fake.callback_deadline:.1f} s after the "
                f"injected fault(s) {self.faults}"
            )

    def mark_lost(self, reason: str) -> None:
        if self.lost or self.callback_type is not None:
            return
        self.lost = True
        self.failure = reason
        self.answered.set()
        self.stop_watching()
        self.fake.record_problem(
            "interaction-failed",
            f"{self.description}: {reason} (the player saw 'This interaction failed')",
        )
        self.fake.notify()

    def stop_watching(self) -> None:
        if self._deadline_timer is not None:
            self._deadline_timer.cancel()
            self.fake.timers.discard(self._deadline_timer)
            self._deadline_timer = None

    @property
    def authorizing_integration_owners(self) -> dict[str, str]:
        """For each installation that authorized it (Interactions reference, "Authorizing
        Integration Owners Object"): GUILD_INSTALL ("0") to the guild's id, or "0" in the
        bot's DMs; USER_INSTALL ("1") to the id of the user who installed the app. A
        press or a modal carries the owners of the interaction that made its message."""
        if self.owners:
            return self.owners
        return {"0": str(self.guild.id) if self.guild is not None else "0"}

    @property
    def answers_ephemeral_only(self) -> bool:
        """In a server, an app that only a user's install authorizes (always so in a server
        without the bot) acts with that user's permissions: where they may not send
        messages or use external apps, Discord makes every answer and follow-up ephemeral
        (Application resource, "User Context")."""
        channel = self.channel
        if channel.guild is None or not self.user_installed_only:
            return False
        send = SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES
        needed = send | USE_EXTERNAL_APPS
        return channel.guild.permissions_of(self.user.id, channel) & needed != needed

    @property
    def user_installed_only(self) -> bool:
        """Authorized by a user's install alone (the app is not installed where it is
        used): Discord then allows the token five follow-ups."""
        return set(self.authorizing_integration_owners) == {"1"}

    def metadata(self, message: FakeMessage | None = None) -> dict[str, Any]:
        """``interaction_metadata`` on a message this interaction created (``message``; the
        answer itself when None): the fields Discord sends for the interaction's type."""
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": int(self.type),
            "user": self.user.payload(),
            "authorizing_integration_owners": self.authorizing_integration_owners,
        }
        original = self.response_message
        if message is not None and original is not None and message is not original:
            # On follow-ups only: the answer they follow.
            data["original_response_message_id"] = str(original.id)
        if self.type is InteractionType.COMPONENT and self.source_message is not None:
            data["interacted_message_id"] = str(self.source_message.id)
        if self.type is InteractionType.MODAL_SUBMIT and self.trigger is not None:
            data["triggering_interaction_metadata"] = self.trigger.metadata()
        return data

    def command_path(self) -> str | None:
        """The command's full name as Discord writes it ("knucklebones challenge")."""
        if self.type is not InteractionType.APPLICATION_COMMAND:
            return None
        data = self.payload.get("data") or {}
        words = [str(data.get("name") or self.command_name or "")]
        options = data.get("options") or []
        while options and options[0].get("type") in (1, 2):
            words.append(str(options[0]["name"]))
            options = options[0].get("options") or []
        return " ".join(words)

    def legacy_object(self) -> dict[str, Any] | None:
        """The older ``interaction`` object Discord still puts on the messages answering an
        application command (deprecated for ``interaction_metadata``)."""
        name = self.command_path()
        if name is None:
            return None
        return {
            "id": str(self.id),
            "type": int(self.type),
            "name": name,
            "user": self.user.payload(),
        }

    def __repr__(self) -> str:
        return f"<FakeInteraction {self.id} {self.description!r} callback={self.callback_type}>"


@dataclass(eq=False)
class InteractionOutcome:
    """What a player saw after acting: the bot's first answer to the interaction.

    ``message`` is the answer's message (a new one for types 4 and 5, the edited one for
    6 and 7) and stays current, since the fake edits messages in place.
    """

    interaction: FakeInteraction

    @property
    def lost(self) -> bool:
        """The answer was lost to an injected fault: the player saw "This interaction
        failed" (see ``failure``), and ``type``/``message`` do not exist."""
        return self.interaction.lost

    @property
    def failure(self) -> str | None:
        return self.interaction.failure

    @property
    def type(self) -> CallbackType:
        if self.interaction.lost:
            raise AssertionError(
                f"the answer to {self.interaction.description} was lost "
                f"({self.interaction.failure}): it has no callback type; check outcome.lost"
            )
        assert self.interaction.callback_type is not None
        return self.interaction.callback_type

    @property
    def message(self) -> FakeMessage | None:
        return self.interaction.response_message

    @property
    def modal(self) -> FakeModal | None:
        return self.interaction.modal

    @property
    def ephemeral(self) -> bool:
        message = self.interaction.response_message
        return message is not None and message.ephemeral

    @property
    def latency(self) -> float:
        latency = self.interaction.latency
        assert latency is not None
        return latency

    @property
    def followups(self) -> list[FakeMessage]:
        return self.interaction.followups

    def text(self) -> str:
        """The text of the answer message ("" when the answer has no message, e.g. a modal)."""
        message = self.message
        return "" if message is None else message.text()

    async def followup(self, number: int = 1, *, timeout: float = 5.0) -> FakeMessage:  # noqa: ASYNC109
        """Wait for the ``number``-th follow-up message (1 is the first)."""
        await self.interaction.fake.wait_for(
            lambda: len(self.interaction.followups) >= number,
            timeout=timeout,
            what=f"follow-up #{number} to {self.interaction.description}",
        )
        return self.interaction.followups[number - 1]

    async def final_message(self, *, timeout: float = 5.0) -> FakeMessage:  # noqa: ASYNC109
        """For a deferred answer (type 5), wait until the bot filled in the message."""
        await self.interaction.fake.wait_for(
            lambda: self.message is not None and not self.message.loading,
            timeout=timeout,
            what=f"the deferred answer to {self.interaction.description} to be filled in",
        )
        assert self.message is not None
        return self.message

    def __repr__(self) -> str:
        if self.lost:
            return f"<InteractionOutcome {self.interaction.description!r} LOST: {self.failure}>"
        return (
            f"<InteractionOutcome {self.interaction.description!r} type={self.type.name} "
            f"ephemeral={self.ephemeral} text={self.text()[:80]!r}>"
        )


async def wait_for_answer(interaction: FakeInteraction, timeout: float) -> InteractionOutcome:  # noqa: ASYNC109
    """The bot's first answer. An answer lost to an injected fault returns an outcome with
    ``lost`` set as soon as the fake knows it (at the 10062, or when the window closes);
    no answer without an injected fault, or a late one, raises BotDidNotAnswer."""
    try:
        await asyncio.wait_for(interaction.answered.wait(), timeout)
    except TimeoutError:
        raise BotDidNotAnswer(
            f"the bot did not answer {interaction.description} within {timeout:.1f} s "
            f"(a player would see 'This interaction failed'). Recent requests:\n"
            + interaction.fake.describe_recent_requests()
        ) from None
    if interaction.lost:
        return InteractionOutcome(interaction)
    if interaction.late:
        raise BotDidNotAnswer(
            f"the bot answered {interaction.description} after {interaction.latency:.2f} s: "
            f"Discord allows {interaction.fake.callback_deadline:.1f} s and would have "
            "answered 'Unknown interaction' (10062)"
        )
    return InteractionOutcome(interaction)


def modal_submission(
    modal: FakeModal, values: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The ``data.components`` of a modal submit, mirroring the shape the bot sent.

    ``values`` are keyed by custom_id or label. Required inputs must be given (unless they
    carry a pre-filled value), and lengths must fit, because a real client enforces both.
    """
    remaining = dict(values)
    resolved: dict[str, Any] = {}

    def take(component: dict[str, Any], label: str | None) -> Any:
        keys = [component.get("custom_id"), label, component.get("label")]
        for key in keys:
            if key is not None and key in remaining:
                return remaining.pop(key)
        return None

    def mirror(component: dict[str, Any], label: str | None = None) -> dict[str, Any]:
        kind = component.get("type")
        out: dict[str, Any] = {"type": kind}
        if "id" in component:
            out["id"] = component["id"]
        if kind == ACTION_ROW:
            out["components"] = [mirror(child) for child in component.get("components", [])]
        elif kind == LABEL:
            out["component"] = mirror(component["component"], component.get("label"))
        elif kind == TEXT_INPUT:
            given = take(component, label)
            value = (component.get("value") or "") if given is None else str(given)
            name = label or component.get("label") or component.get("custom_id")
            if component.get("required", True) and not value:
                raise FakeUsageError(f"the modal field {name!r} is required: give it a value")
            if value and len(value) < int(component.get("min_length", 0)):
                raise FakeUsageError(
                    f"the modal field {name!r} needs at least {component['min_length']} characters"
                )
            if len(value) > int(component.get("max_length", 4000)):
                raise FakeUsageError(
                    f"the modal field {name!r} allows at most {component['max_length']} characters"
                )
            out["custom_id"] = component["custom_id"]
            out["value"] = value
        elif kind in SELECT_TYPES:
            given = take(component, label)
            chosen = [] if given is None else [given] if isinstance(given, str) else list(given)
            out["custom_id"] = component["custom_id"]
            out["values"] = select_values(component, chosen, resolved)
        elif kind == TEXT_DISPLAY:
            pass
        return out

    components = [mirror(c) for c in modal.components]
    if remaining:
        raise FakeUsageError(
            f"the modal {modal.custom_id!r} has no field(s) {sorted(remaining)}; "
            f"its fields are {modal.field_names()}"
        )
    return components, resolved


def select_values(
    component: dict[str, Any], chosen: list[Any], resolved: dict[str, Any]
) -> list[str]:
    """Check a choice the way a client would (known options, min/max count) and return the
    values as sent on the wire. User selects take players/users; string selects take
    option values (or labels)."""
    minimum = int(component.get("min_values", 1))
    maximum = int(component.get("max_values", 1))
    name = component.get("placeholder") or component.get("custom_id")
    if not minimum <= len(chosen) <= maximum:
        raise FakeUsageError(
            f"the select {name!r} takes between {minimum} and {maximum} values, not {len(chosen)}"
        )
    kind = component.get("type")
    if kind == 3:
        options = component.get("options") or []
        values: list[str] = []
        for choice in chosen:
            match = next(
                (o for o in options if o.get("value") == choice or o.get("label") == choice), None
            )
            if match is None:
                known = [o.get("value") for o in options]
                raise FakeUsageError(f"the select {name!r} has no option {choice!r}: {known}")
            values.append(str(match["value"]))
        return values
    values = []
    for choice in chosen:
        choice_id = getattr(choice, "id", choice)
        values.append(str(choice_id))
        user = getattr(choice, "user", None) or (choice if isinstance(choice, FakeUser) else None)
        if user is not None:
            resolved.setdefault("users", {})[str(user.id)] = user.payload()
    return values
