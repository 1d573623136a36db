"""A tiny discord.py bot for the fake's own fault tests: it records what each of its
calls to Discord returned or raised, so a test can show a fault as the bot experiences it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands


@dataclass
class Attempt:
    """One call the probe made: what it was, and what discord.py raised (None: it worked)."""

    what: str
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def status(self) -> int | None:
        return getattr(self.error, "status", None)

    @property
    def code(self) -> int | None:
        return getattr(self.error, "code", None)


@dataclass
class ProbeLog:
    attempts: list[Attempt] = field(default_factory=list)
    interactions: list[discord.Interaction] = field(default_factory=list)
    # (event name, payload summary) for the gateway events the probe listens to.
    events: list[tuple[str, Any]] = field(default_factory=list)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def of(self, what: str) -> list[Attempt]:
        return [a for a in self.attempts if a.what == what]

    def add(self, attempt: Attempt) -> None:
        self.attempts.append(attempt)
        self._changed.set()

    def saw(self, event: str, detail: Any) -> None:
        self.events.append((event, detail))
        self._changed.set()

    async def wait_for(self, predicate: Callable[[], Any], *, timeout: float = 5.0) -> None:  # noqa: ASYNC109
        """Until ``predicate()`` holds, re-checked whenever the probe logs something."""
        async with asyncio.timeout(timeout):
            while not predicate():
                self._changed.clear()
                await self._changed.wait()


class Counter(discord.ui.View):
    """A message with one button; each press edits the message (callback type 7)."""

    def __init__(self, log: ProbeLog) -> None:
        super().__init__(timeout=None)
        self.log = log

    @discord.ui.button(label="Press", custom_id="probe:press")
    async def press(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        presses = int((interaction.message.content if interaction.message else "0").split()[-1])
        try:
            await interaction.response.edit_message(content=f"presses {presses + 1}")
        except Exception as error:
            self.log.add(Attempt("press", error))
        else:
            self.log.add(Attempt("press"))


def probe_options(options: dict[str, Any]) -> dict[str, Any]:
    return {
        "command_prefix": commands.when_mentioned,
        "intents": discord.Intents.default(),
        "guild_ready_timeout": 0.05,
        **options,
    }


class ProbeEvents:
    """What both probes do: their commands and the gateway events they log.

    ``/answer retries:int=0``: answers "answered"; after a failed answer it tries again up
    to ``retries`` times, then tries a follow-up with the token. ``/board`` posts
    "presses 0" with a Press button that counts up. ``/where`` answers which shards this
    bot runs (for the sharding tests)."""

    log: ProbeLog
    tree: app_commands.CommandTree[Any]

    async def setup_hook(self) -> None:
        self.add_view(Counter(self.log))  # type: ignore[attr-defined]
        install_commands(self.tree, self.log, self)
        await self.tree.sync()

    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        self.log.saw("channel_update", after.permissions_for(after.guild.me))

    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        self.log.saw("role_update", after.permissions)

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        self.log.saw("message_delete", payload.message_id)

    async def on_guild_join(self, guild: discord.Guild) -> None:
        self.log.saw("guild_join", guild.id)

    async def on_thread_create(self, thread: discord.Thread) -> None:
        self.log.saw("thread_create", thread.id)

    async def on_thread_join(self, thread: discord.Thread) -> None:
        # discord.py's name for THREAD_UPDATE of a thread it had not cached (unarchived).
        self.log.saw("thread_join", thread.id)

    async def on_thread_update(self, before: discord.Thread, after: discord.Thread) -> None:
        self.log.saw("thread_update", (after.id, after.archived, after.locked))

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        self.log.saw("thread_delete", payload.thread_id)

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        self.log.saw("channel_delete", channel.id)


class ProbeBot(ProbeEvents, commands.Bot):
    def __init__(self, **options: Any) -> None:
        super().__init__(**probe_options(options))
        self.log = ProbeLog()


class ShardedProbeBot(ProbeEvents, commands.AutoShardedBot):
    """The probe as an AutoShardedBot (``shard_ids=[1], shard_count=2`` and the like)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**probe_options(options))
        self.log = ProbeLog()
        # Set to seconds to pace re-identifies (discord.py's default hook sleeps 5 s).
        self.identify_pause: float | None = None
        self.identify_calls: list[tuple[int | None, bool]] = []

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        self.identify_calls.append((shard_id, initial))
        if self.identify_pause is None:
            await super().before_identify_hook(shard_id, initial=initial)
        elif not initial:
            await asyncio.sleep(self.identify_pause)


def install_commands(tree: app_commands.CommandTree[Any], log: ProbeLog, bot: Any) -> None:
    @tree.command(name="answer", description="Answer, retrying a failed answer")
    async def answer(interaction: discord.Interaction, retries: int = 0) -> None:
        log.interactions.append(interaction)
        for _ in range(retries + 1):
            try:
                await interaction.response.send_message("answered")
            except Exception as error:
                log.add(Attempt("answer", error))
            else:
                log.add(Attempt("answer"))
                return
        try:
            await interaction.followup.send("answered late")
        except Exception as error:
            log.add(Attempt("followup", error))
        else:
            log.add(Attempt("followup"))

    @tree.command(name="board", description="Post a message with a Press button")
    async def board(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("presses 0", view=Counter(log))

    @tree.command(name="where", description="Which shards serve me")
    async def where(interaction: discord.Interaction) -> None:
        shards = sorted(getattr(bot, "shard_ids", None) or [0])
        await interaction.response.send_message(f"shards {shards}")
