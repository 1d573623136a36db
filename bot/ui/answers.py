"""The transport of every answer to an interaction: it goes out once and in time, whatever
the database or Discord does. What an answer says is its caller's; what a failed command or
press is told is worded in ``bot.ui.replies``.

Discord gives an interaction 3 s for its first answer. Every answer the bot gives goes
through the interaction's :class:`Answer`, which serialises them, so the watchdog timer set
for every interaction (``Watchdogs``) can safely defer one that has no answer after
``DEFER_AFTER_SECONDS`` — a locked database, a slow render — and the handler's answer then
goes out as the follow-up or the edit of the deferred response, with the same call.

An answer Discord loses (10062 Unknown interaction, a 5xx, a dropped connection) is
logged and dropped, never raised: the move behind it is committed, and the publisher
shows it on the game message. Handlers therefore never need their own error paths for
delivery.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from typing import Any

import aiohttp
import discord

from bot.i18n import N_, _

log = logging.getLogger(__name__)

# A margin under Discord's 3 s for the first answer: late enough that almost every
# interaction is answered directly, early enough that a defer still lands in time when the
# network to Discord is slow and the machine is busy (1.5 s, not 2: seen needed under load).
DEFER_AFTER_SECONDS = 1.5
# One retry of a failed first answer (a 5xx or a dropped connection) while this much of
# the 3 s is left; after that the interaction is dead anyway.
RETRY_WITHIN_SECONDS = 2.5
UNKNOWN_INTERACTION = 10062
ALREADY_ACKNOWLEDGED = 40060

_EXTRAS_KEY = "dicebot.answer"

TOO_SLOW_FOR_A_FORM = N_(
    "That took me too long to open the form: press the button again, it will open at once."
)


def bot_is_member(interaction: discord.Interaction) -> bool:
    """Whether the bot is a member of the server the interaction came from (False in a DM,
    a group DM, or a server that never added the bot, where only its user-installed commands
    reach it)."""
    guild_id = interaction.guild_id
    return guild_id is not None and interaction.client.get_guild(guild_id) is not None


def press_on_interaction_game(interaction: discord.Interaction) -> bool:
    """Whether ``interaction`` is a press where the bot is not a member, on a message an
    interaction made (a game reached only through interactions, issue 32). In the bot's own
    DM, a server game's private controls are messages the bot sent itself: not one."""
    if interaction.type is not discord.InteractionType.component or bot_is_member(interaction):
        return False
    if interaction.guild_id is None and interaction.context.dm_channel:
        message = interaction.message
        return message is not None and message.interaction_metadata is not None
    return True


def answer_for(interaction: discord.Interaction) -> Answer:
    """The one Answer of this interaction (shared by the handler and the watchdog)."""
    existing = interaction.extras.get(_EXTRAS_KEY)
    if isinstance(existing, Answer):
        return existing
    created = Answer(interaction)
    interaction.extras[_EXTRAS_KEY] = created
    return created


# What a request to Discord can fail with besides an HTTP error: the connection.
NETWORK_ERRORS = (aiohttp.ClientError, TimeoutError, OSError)
DELIVERY_ERRORS = (discord.HTTPException, *NETWORK_ERRORS)


def _transient(error: BaseException) -> bool:
    return isinstance(error, (discord.DiscordServerError, *NETWORK_ERRORS))


class Answer:
    def __init__(self, interaction: discord.Interaction) -> None:
        self.interaction = interaction
        self.started = time.monotonic()
        self._lock = asyncio.Lock()
        self._state: str | None = None
        self._when_answered: list[Callable[[], None]] = []
        # For a slash command: whether its answer is a public message (decides how a
        # defer looks). Commands set it with ``extras={"public": True}``; a handler may
        # set it before its first await (``/odds share:True``).
        self.public: bool | None = None
        # For a press: whether its first answer was on the message pressed (an update or a
        # deferred update), so that the interaction's token reaches that message.
        self.on_message = False

    @property
    def state(self) -> str | None:
        """How the first answer went: None (not yet), "answered", "deferred_update",
        "deferred_public", "deferred_ephemeral", or "lost"."""
        return self._state

    @state.setter
    def state(self, value: str | None) -> None:
        self._state = value
        if value is not None:
            callbacks, self._when_answered = self._when_answered, []
            for callback in callbacks:
                callback()

    def when_answered(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the first answer is made, deferred or lost (at once if
        it already is)."""
        if self._state is not None:
            callback()
        else:
            self._when_answered.append(callback)

    # -- the first answer, and every later one ---------------------------------------------

    @property
    def lost(self) -> bool:
        return self.state == "lost"

    @property
    def done(self) -> bool:
        return self.state is not None

    async def update(self, **fields: Any) -> bool:
        """Edit the message the component is on (a press's usual answer). False if Discord
        lost it."""
        async with self._lock:
            if self.state is None:
                return (
                    await self._first(self.interaction.response.edit_message, **fields) is not None
                )
            if self.lost:
                return False
            return await self._later(self.interaction.edit_original_response, **fields) is not None

    async def send(
        self, content: str | None = None, *, ephemeral: bool = True, **fields: Any
    ) -> int | None:
        """A new message (ephemeral by default). Returns its id, or None if it was lost."""
        if content is not None:
            fields["content"] = content
        # In a new message an absent part is left out; discord.py would choke on a None
        # view (``view.is_finished()``).
        fields = {key: value for key, value in fields.items() if value is not None}
        async with self._lock:
            if self.state is None and ephemeral and press_on_interaction_game(self.interaction):
                # Where the bot is not a member, a press's token is how the game's message
                # is reached: a private answer goes as a follow-up of a deferred update, so
                # the token's messages include the message pressed.
                await self._first(self.interaction.response.defer)
            if self.state is None:
                callback = await self._first(
                    self.interaction.response.send_message, ephemeral=ephemeral, **fields
                )
                if callback is None:
                    return None
                message_id = getattr(callback, "message_id", None)
                if message_id is None:
                    original = await self._original()
                    message_id = None if original is None else original.id
                return message_id
            if self.lost:
                return None
            if self.state == "deferred_public" and ephemeral:
                # The deferred "thinking" message is public: an ephemeral answer cannot
                # fill it, so it is removed and the answer follows on its own.
                await self._later(self.interaction.delete_original_response)
                self.state = "answered"
            elif self.state == "deferred_ephemeral" and not ephemeral:
                await self._later(self.interaction.delete_original_response)
                self.state = "answered"
            elif self.state in ("deferred_public", "deferred_ephemeral"):
                # The first follow-up fills the deferred message.
                self.state = "answered"
            message = await self._later(
                self.interaction.followup.send, wait=True, ephemeral=ephemeral, **fields
            )
            return message.id if isinstance(message, discord.Message) else None

    async def modal(self, modal: discord.ui.Modal) -> bool:
        """Open a form. A form can only be the first answer: after a defer the player is
        asked to press again."""
        async with self._lock:
            if self.state is None:
                return await self._first(self.interaction.response.send_modal, modal) is not None
        await self.send(_(TOO_SLOW_FOR_A_FORM))
        return False

    async def acknowledge(self) -> bool:
        """Nothing to say: a press whose effect shows elsewhere (the game message)."""
        async with self._lock:
            if self.state is None:
                return await self._first(self.interaction.response.defer) is not None
            return not self.lost

    async def defer(self) -> None:
        """Defer if nothing has answered yet (the watchdog, or a handler about to do slow
        work). Components get an invisible defer; a slash command a "thinking" one,
        public or ephemeral as its answer will be."""
        async with self._lock:
            if self.state is not None:
                return
            interaction = self.interaction
            if interaction.type is discord.InteractionType.application_command:
                public = self.public
                if public is None:
                    command = interaction.command
                    public = bool(command is not None and command.extras.get("public"))
                deferred = await self._first(
                    interaction.response.defer, thinking=True, ephemeral=not public
                )
                if deferred is not None:
                    self.state = "deferred_public" if public else "deferred_ephemeral"
            elif await self._first(interaction.response.defer) is not None:
                self.state = "deferred_update"

    # -- sending ------------------------------------------------------------------------

    async def _first(self, call: Any, *args: Any, **kwargs: Any) -> Any:
        """Make the first answer; its result (never None), or None when it was not made."""
        for attempt in (1, 2):
            try:
                result = await call(*args, **kwargs)
            except discord.InteractionResponded:
                # Answered outside this class (should not happen): treat as answered.
                self.state = "answered"
                return None
            except discord.HTTPException as error:
                if error.code == ALREADY_ACKNOWLEDGED:
                    self.state = "answered"
                    return None
                if attempt == 1 and _transient(error) and self._time_left():
                    continue
                return self._lose(error)
            except NETWORK_ERRORS as error:
                if attempt == 1 and self._time_left():
                    continue
                return self._lose(error)
            else:
                if self.state is None:
                    self.on_message = self._on_message(call)
                    self.state = "answered"
                return True if result is None else result
        return None

    def _on_message(self, call: Any) -> bool:
        """Whether ``call``, a press's first answer, answered on the message pressed."""
        if self.interaction.type is not discord.InteractionType.component:
            return False
        function = getattr(call, "__func__", None)
        return function in (
            discord.InteractionResponse.edit_message,
            discord.InteractionResponse.defer,
        )

    async def _later(self, call: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await call(*args, **kwargs)
        except DELIVERY_ERRORS as error:
            log.info(
                "interaction %s: a follow-up answer failed (%s)",
                self.interaction.id,
                _describe(error),
            )
            return None

    async def _original(self) -> discord.Message | None:
        try:
            return await self.interaction.original_response()
        except DELIVERY_ERRORS as error:
            log.info(
                "interaction %s: could not read back the answer (%s)",
                self.interaction.id,
                _describe(error),
            )
            return None

    def _time_left(self) -> bool:
        return time.monotonic() - self.started < RETRY_WITHIN_SECONDS

    def _lose(self, error: BaseException) -> None:
        self.state = "lost"
        log.info(
            "interaction %s: Discord lost the answer (%s); the game message will show the move",
            self.interaction.id,
            _describe(error),
        )


def _describe(error: BaseException) -> str:
    if isinstance(error, discord.HTTPException):
        return f"HTTP {error.status}, code {error.code}"
    return type(error).__name__


class Watchdogs:
    """Defer every interaction still unanswered after DEFER_AFTER_SECONDS. One loop timer
    per interaction rather than a task: nearly every interaction is answered long before
    it fires, and a timer costs a fraction of a task; a defer, when one is due, is a task."""

    def __init__(self) -> None:
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._defers: set[asyncio.Task[None]] = set()

    def watch(self, interaction: discord.Interaction) -> None:
        loop = asyncio.get_running_loop()
        self._timers[interaction.id] = loop.call_later(DEFER_AFTER_SECONDS, self._due, interaction)
        # Dropped as soon as the interaction is answered: a timer left to run out kept
        # every interaction (and its message, member and answer) alive for 1.5 s, long
        # enough for the garbage collector to move them to its oldest generation, whose
        # full passes then paused the bot for 30-70 ms every 2-3 s under load.
        answer_for(interaction).when_answered(functools.partial(self._answered, interaction.id))

    def _answered(self, interaction_id: int) -> None:
        timer = self._timers.pop(interaction_id, None)
        if timer is not None:
            timer.cancel()

    def _due(self, interaction: discord.Interaction) -> None:
        self._timers.pop(interaction.id, None)
        if answer_for(interaction).done:
            return
        log.info(
            "interaction %s: no answer after %.1f s, deferring", interaction.id, DEFER_AFTER_SECONDS
        )
        task = asyncio.get_running_loop().create_task(
            answer_for(interaction).defer(), name="interaction-defer"
        )
        self._defers.add(task)
        task.add_done_callback(self._defers.discard)

    def cancel(self) -> None:
        """At shutdown: no more defers."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for task in self._defers:
            task.cancel()
