"""The Bot: builds the runtime, loads the cogs, routes components and fires deadlines."""

from __future__ import annotations

import asyncio
import gc
import importlib
import importlib.util
import logging
import pkgutil
import re
import time
import weakref
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

import cogs
from bot import i18n
from bot.config import Settings
from bot.i18n import N_, _, pgettext
from bot.model.clock import Clock
from bot.model.command_mentions import CommandIds, bind_command_ids
from bot.model.contract import Session
from bot.model.guide import GuideBook
from bot.pictures import worker as picture_worker
from bot.play.deadlines import MAX_SLEEP_SECONDS, SHARED_POLL_SECONDS, DeadlineRunner
from bot.play.guild_settings import GuildSettings
from bot.play.sessions import SeedSource, SessionService
from bot.play.tokens import InteractionTokens
from bot.storage import StorageUnavailable, database_for
from bot.storage.publication import PublicationStore
from bot.ui.answers import Watchdogs, answer_for, press_on_interaction_game
from bot.ui.challenges import ChallengeButton
from bot.ui.command_sync import CommandSync
from bot.ui.identify import IdentifyGate
from bot.ui.landing import Landings
from bot.ui.languages import CommandTranslator, LanguageBook, enter_interaction
from bot.ui.publishing import Publisher
from bot.ui.rematch import PlayOnButton
from bot.ui.replay import ReplayButton, ReplayPick, ReplayStepButton
from bot.ui.replies import DM_CLOSED, InvalidOption, report_error
from bot.ui.token_delivery import TokenDelivery

log = logging.getLogger(__name__)

STALE_CONTROL = N_(
    "This button or menu is no longer active (the game it belonged to has ended or moved on). "
    "Start a new game with a slash command, or use the buttons on the latest message."
)

ModalHandler = Callable[[discord.Interaction, "re.Match[str]"], Awaitable[None]]

# Task names discord.py gives the work it does for one interaction; shutdown waits for them.
HANDLER_TASK_PREFIXES = (
    "CommandTree-invoker",
    "discord-ui-dynamic-item-",
    "discord-ui-view-dispatch-",
    "discord-ui-modal-dispatch-",
    "discord.py: on_interaction",
)
SHUTDOWN_GRACE_SECONDS = 5.0
DM_CHANNEL_CACHE_SIZE = 10_000
# At start-up, how long the timers wait for the command sync (their texts mention commands;
# it comes once the servers have arrived) before starting without it: a slow READY or a
# sync held up by a rate limit must not hold up the games for longer.
TIMERS_WAIT_FOR_SYNC_SECONDS = 10.0
# Discord's global limit is 50 requests a second per bot token, interaction endpoints aside
# (documented). The bot keeps to 45 in any 1.25 s: a request Discord counts up to a quarter
# of a second later or sooner than it went out never makes 51 in one of its seconds.
GLOBAL_REQUESTS = 45
GLOBAL_WINDOW_SECONDS = 1.25
# The interaction endpoints: an interaction's callback, and its token's follow-ups.
INTERACTION_PATHS = ("/interactions/", "/webhooks/")


class GlobalPace:
    """Keeps the bot's requests under Discord's global rate limit.

    discord.py paces each route's bucket by its headers, but hears of the global limit
    only from a 429. A restart that finds thousands of timers due sends their edits, pings
    and DMs as fast as the event loop goes, across hundreds of channels: from the 50th in
    a second on, every one got a 429 (bench/restart.py, 544 in a restart of 600 games).
    Hooked on the bot's HTTP session (``install``), before every request it sends, retries
    included: a request waits, in the order they came, while ``limit`` requests went out in
    the last ``window`` seconds. Interaction answers go at once: Discord does not count
    them, and a press must be answered within 3 s."""

    def __init__(
        self,
        *,
        limit: int = GLOBAL_REQUESTS,
        window: float = GLOBAL_WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        # When the requests of the current window went out, oldest first.
        self.sent: deque[float] = deque()
        self._turn = asyncio.Lock()
        # How many requests had to wait (for tests and the log).
        self.held = 0

    def install(self, trace: aiohttp.TraceConfig) -> None:
        trace.on_request_start.append(self._request_starts)

    async def _request_starts(
        self,
        session: aiohttp.ClientSession,
        context: Any,
        params: aiohttp.TraceRequestStartParams,
    ) -> None:
        if not any(part in params.url.path for part in INTERACTION_PATHS):
            await self.wait_turn()

    async def wait_turn(self) -> None:
        """Return when one more request fits in the window (and count it)."""
        async with self._turn:
            waited = False
            while True:
                now = self.clock()
                while self.sent and now - self.sent[0] >= self.window:
                    self.sent.popleft()
                if len(self.sent) < self.limit:
                    break
                waited = True
                await asyncio.sleep(self.sent[0] + self.window - now)
            self.held += waited
            self.sent.append(now)


class DiceTree(app_commands.CommandTree["DiceBot"]):
    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        enter_interaction(interaction)
        # The Discord client keeps options inside their choices and ranges, but the API
        # accepts anything: check every option before a command can act on it.
        command = interaction.command
        if isinstance(command, app_commands.Command):
            check_options(command, interaction.namespace)
        return True

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)


def check_options(
    command: app_commands.Command[Any, ..., Any], given: app_commands.Namespace
) -> None:
    """Raise InvalidOption for a value outside its option's choices, range or length (the
    option and its choices named as the player's command picker shows them)."""
    for parameter in command.parameters:
        value = getattr(given, parameter.display_name, None)
        if value is None:
            continue
        name = "`" + pgettext("option name", parameter.display_name) + "`"
        if parameter.choices and value not in [choice.value for choice in parameter.choices]:
            names = ", ".join(f"`{_(choice.name)}`" for choice in parameter.choices)
            raise InvalidOption(
                _("{option} must be one of {choices}.").format(option=name, choices=names)
            )
        numeric = parameter.type in (
            discord.AppCommandOptionType.integer,
            discord.AppCommandOptionType.number,
        )
        if numeric and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise InvalidOption(_("{option} must be a number.").format(option=name))
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            continue
        # For a string option discord.py keeps its length limits in min/max_value.
        low, high = parameter.min_value, parameter.max_value
        if isinstance(value, str):
            size = len(value)
            if (low is not None and size < low) or (high is not None and size > high):
                raise InvalidOption(
                    _("{option} must be {low} to {high} characters long.").format(
                        option=name, low=low or 0, high=high
                    )
                )
            continue
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvalidOption(
                _("{option} must be between {low} and {high}.").format(
                    option=name, low=low, high=high
                )
            )


def _custom_id(interaction: discord.Interaction) -> str:
    data: dict[str, Any] = dict(interaction.data or {})  # type: ignore[arg-type]
    return str(data.get("custom_id", ""))


class DiceBot(commands.AutoShardedBot):
    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock | None = None,
        seed: int | None = None,
        **client_options: Any,
    ) -> None:
        # Slash commands and components arrive whatever the intents; the bot reads only
        # guilds, channels and roles (GUILDS). Without the message intents Discord sends
        # no MESSAGE_CREATE / UPDATE / DELETE, not even the echo of every edit the bot
        # makes, which discord.py would otherwise parse into a Message each time. A game
        # message someone deleted is noticed at its next edit (404) and posted again.
        intents = discord.Intents.none()
        intents.guilds = True
        shard_count, shard_ids = settings.shard_plan()
        if shard_count is not None:
            # This process runs only its own shards (SHARD_IDS) of SHARD_COUNT.
            client_options.setdefault("shard_count", shard_count)
            client_options.setdefault("shard_ids", shard_ids)
        # Tells when Discord applied an edit, before discord.py returns from it (bot.ui.landing).
        landings = Landings()
        self.pace = GlobalPace()
        self.pace.install(landings.trace)
        client_options.setdefault("http_trace", landings.trace)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            tree_cls=DiceTree,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
            **client_options,
        )
        self.settings = settings
        self.landings = landings
        picture_worker.configure(
            settings.picture_worker, log_format=settings.log_format, log_level=settings.log_level
        )
        self.clock = clock or Clock()
        self.db = database_for(settings)
        # What /help, /rules and /stats say of each game, and where a finished game keeps
        # its picks: each game's cog registers its guide when it loads (bot.model.guide).
        self.guides = GuideBook()
        self.sessions = SessionService(
            self.db,
            self.clock,
            GuildSettings.from_settings(settings),
            SeedSource(seed),
            guides=self.guides,
        )
        self.deadlines = DeadlineRunner(
            self.sessions,
            self.clock,
            # A shared database: other processes add timers this one never hears of.
            poll_seconds=SHARED_POLL_SECONDS if self.db.dialect != "sqlite" else MAX_SLEEP_SECONDS,
        )
        # Set in setup_hook when this process is one of several sharing the shards.
        self.identify_gate: IdentifyGate | None = None
        self.publisher = Publisher(self, PublicationStore(self.db), self.clock)
        self.sessions.on_commit(self.publisher.committed)
        # Each interaction's watchdog (see bot.ui.answers), cancelled at shutdown.
        self._watchdogs = Watchdogs()
        self._component_patterns: list[re.Pattern[str]] = []
        self._modal_routes: list[tuple[re.Pattern[str], ModalHandler]] = []
        self._dm_channels: dict[int, int] = {}
        # One DM channel opened at a time (see send_dm).
        self._dm_opening = asyncio.Lock()
        # One public-message edit per channel at a time (see edit_public_message).
        self._channel_edits: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self.languages = LanguageBook(self.db, self.clock)
        # The kept interaction tokens of games the bot reaches only through interactions.
        self.tokens = InteractionTokens(self.db, self.clock)
        self.token_delivery = TokenDelivery(
            self, self.tokens, lambda session_id: self.publisher.request(session_id)
        )
        # The ids of the slash commands, for the command mentions texts hold
        # (bot.model.command_mentions): from the sync, or read from Discord.
        self.command_ids = CommandIds()
        self.command_sync = CommandSync(self, self.tree, self.command_ids, settings.dev_guild_id)
        self._command_reader: asyncio.Task[None] | None = None
        self._command_sync: asyncio.Task[None] | None = None
        self._timers_start: asyncio.Task[None] | None = None

    # -- start-up -------------------------------------------------------------------------

    async def setup_hook(self) -> None:
        # First: the publisher and the timers started below mention commands with them.
        bind_command_ids(self.command_ids)
        await self.db.open()
        applied = await self.db.migrate()
        if applied:
            log.info("applied database migrations %s", applied)
        # The picture helper (started with the bot) warms up meanwhile, in its own
        # process: not waited for (under a second). A press that finds it still warming
        # waits for it, and the answer's watchdog defers the answer if that takes too long.
        await self.load_commands()
        # Before anything else moves: game messages a crash or an outage left behind.
        await self.publisher.start()
        if self.settings.shard_count is not None:
            self.identify_gate = IdentifyGate(self.db, max_concurrency=await self._concurrency())
        if self.settings.syncs_commands():
            # With several processes, the one that runs shard 0 syncs for all of them, once
            # ready (``_sync_once_ready``); ``connect`` stops the bot if the sync fails, as
            # it did when the sync came first.
            self._command_sync = asyncio.create_task(
                self._sync_once_ready(), name="dicebot-command-sync"
            )
            self._timers_start = asyncio.create_task(
                self._start_timers_after(self._command_sync), name="dicebot-timers-start"
            )
        else:
            self.deadlines.start()
            # The others read the ids it got, in the background: a text mentions a command
            # once its id is known, and names it in backticks until then.
            self._command_reader = asyncio.create_task(
                self.command_sync.read_ids(), name="dicebot-command-ids"
            )

    async def _sync_once_ready(self) -> None:
        """Sync the commands once the servers have arrived (READY). Discord keeps the
        commands of the last sync, so the bot answers them without this one; done before
        READY, its work (the catalogs read, every command translated into each language:
        a fifth of a second of the event loop) held up the servers' arrival and every
        start, for a change that only a new release brings."""
        await self.wait_until_ready()
        # This task wakes before discord.py's on_ready listeners run (the ready line, the
        # health file): let them go first.
        await asyncio.sleep(0)
        i18n.load_all()
        await self.sync_commands()

    async def _start_timers_after(self, sync: asyncio.Task[None]) -> None:
        """Timers due while the bot was down write texts that mention commands: they start
        once the sync has told their ids (or after TIMERS_WAIT_FOR_SYNC_SECONDS)."""
        await asyncio.wait({sync}, timeout=TIMERS_WAIT_FOR_SYNC_SECONDS)
        self.deadlines.start()

    async def connect(self, *, reconnect: bool = True) -> None:
        # Every gateway event's task descends from this one, which is not always the task
        # that ran setup_hook (the service logs in and connects in different tasks).
        bind_command_ids(self.command_ids)
        sync = self._command_sync
        if sync is None:
            await super().connect(reconnect=reconnect)
            return
        gateway = asyncio.create_task(super().connect(reconnect=reconnect), name="dicebot-gateway")
        try:
            await asyncio.wait({gateway, sync}, return_when=asyncio.FIRST_COMPLETED)
            if sync.done() and not sync.cancelled() and not gateway.done():
                # A refused sync stops the start (bot.service says why). Cancelled, it is
                # the bot closing, which ends the gateway too.
                sync.result()
            await gateway
        finally:
            if not gateway.done():
                gateway.cancel()
                await asyncio.wait({gateway})

    async def load_commands(self) -> None:
        """The command translator, the components and every cog: the command tree
        ``sync_commands`` sends, and what answers it. The catalogs load when first used
        (the sync reads them all once the bot is ready)."""
        await self.tree.set_translator(CommandTranslator())
        self.register_components(
            ChallengeButton, PlayOnButton, ReplayButton, ReplayStepButton, ReplayPick
        )
        for name in discover_cogs():
            await self.load_extension(name)

    async def _concurrency(self) -> int:
        try:
            limits = await self.fetch_session_start_limits()
        except (discord.HTTPException, discord.GatewayNotFound) as error:
            log.warning("could not read Discord's identify limit (%s); assuming 1", error)
            return 1
        return max(1, limits.max_concurrency)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        if self.identify_gate is None:
            await super().before_identify_hook(shard_id, initial=initial)
            return
        # Shards split between processes: the identify limit is shared through the
        # database, whichever process identifies.
        try:
            await self.identify_gate.wait_turn(shard_id or 0)
        except StorageUnavailable as error:
            log.warning("identify slot not reserved (database unavailable: %s)", error)
            await super().before_identify_hook(shard_id, initial=initial)

    async def sync_commands(self) -> None:
        """Check the commands against Discord's rules (``CommandRulesBroken`` stops the
        bot), then sync them: globally, or to DEV_GUILD_ID only."""
        await self.command_sync.sync()

    def register_components(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        """Register DynamicItems: they work after restarts, no view kept in memory."""
        self.add_dynamic_items(*items)
        for item in items:
            self._component_patterns.append(item.__discord_ui_compiled_template__)

    def register_modal(self, pattern: str, handler: ModalHandler) -> None:
        """Route modal submissions by custom_id, so a modal opened before a restart still
        lands. The pattern must match the whole custom_id."""
        self._modal_routes.append((re.compile(pattern), handler))

    # -- interactions ---------------------------------------------------------------------

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type in (
            discord.InteractionType.application_command,
            discord.InteractionType.component,
            discord.InteractionType.modal_submit,
        ):
            self._watchdogs.watch(interaction)
        if interaction.type == discord.InteractionType.component:
            custom_id = _custom_id(interaction)
            if not any(p.fullmatch(custom_id) for p in self._component_patterns):
                log.debug("stale or unknown component %r", custom_id[:100])
                await self._answer_stale(interaction)
            elif press_on_interaction_game(interaction):
                self.token_delivery.keep_when_answered(interaction, custom_id)
        elif interaction.type == discord.InteractionType.modal_submit:
            enter_interaction(interaction)
            custom_id = _custom_id(interaction)
            for pattern, handler in self._modal_routes:
                match = pattern.fullmatch(custom_id)
                if match is not None:
                    try:
                        await handler(interaction, match)
                    except Exception as error:
                        await report_error(interaction, error)
                    return
            await self._answer_stale(interaction)

    async def _answer_stale(self, interaction: discord.Interaction) -> None:
        enter_interaction(interaction)
        await answer_for(interaction).send(_(STALE_CONTROL))

    # -- what the gateway tells us about messages we show --------------------------------

    async def on_ready(self) -> None:
        # What is loaded by now (cogs, fonts, command trees, the guild cache) lives as long
        # as the bot: keep it out of the cyclic garbage collector's full passes, which
        # otherwise walk it all and paused the bot for up to 300 ms under load (40 ms
        # after), a move's p99. Objects frozen here are still freed when unreferenced.
        gc.freeze()

    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        # Permissions may be back: retry game messages a missing permission held up.
        self.publisher.permissions_changed(after.guild.id)

    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        self.publisher.permissions_changed(after.guild.id)

    # -- Discord requests the games make --------------------------------------------------

    async def edit_public_message(self, session: Session, **fields: Any) -> None:
        """Edit a game's public message with the bot token (channel endpoint), which keeps
        working after the 15-minute life of an interaction token.

        One edit per channel at a time: Discord takes 5 edits per 5 s in a channel, and
        discord.py, when several requests of one bucket are under way as a window starts,
        trusts the first answer's ``Remaining`` as if the others were not sent and lets
        one more go, which Discord answers 429 (several games in one channel did). One at
        a time its count is exact, and the channel's edits still go as fast as Discord
        allows. Returns once Discord has applied the edit: if it used up the channel's
        edits for now, discord.py's wait for the next window goes on in the background
        (bot.ui.landing), not in the caller."""
        if session.message_id is None:
            return
        if session.reach == "interaction":
            # No channel route where the bot is not a member: the kept token's webhook.
            await self.token_delivery.edit(session, **fields)
            return
        message = self.get_partial_messageable(session.channel_id).get_partial_message(
            session.message_id
        )
        path = f"/channels/{session.channel_id}/messages/{session.message_id}"
        lock = self._channel_edits.get(session.channel_id)
        if lock is None:
            lock = self._channel_edits[session.channel_id] = asyncio.Lock()
        async with lock:
            await self.landings.applied(message.edit(**fields), "PATCH", path)

    async def post_through_token(self, session: Session, **fields: Any) -> discord.Message:
        """Post a game's message afresh through its kept token (a follow-up of that token's
        interaction), for a game reached through interactions whose message was deleted.
        Raises NoLiveToken without one."""
        return await self.token_delivery.post(session, **fields)

    async def ping_under_game(
        self, session: Session, user_id: int, text: str
    ) -> discord.Message | None:
        """Post ``text`` as a reply to the game's public message, notifying ``user_id`` only
        (an edit of the game message notifies nobody). A game reached through interactions
        gets it as a follow-up of its kept token; None when it has no live one."""
        mentions = discord.AllowedMentions(users=[discord.Object(user_id)], replied_user=False)
        if session.reach == "interaction":
            return await self.token_delivery.ping(session, text, mentions)
        channel = self.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        if session.message_id is None:
            return await channel.send(text, allowed_mentions=mentions)
        reference = discord.MessageReference(
            message_id=session.message_id,
            channel_id=session.channel_id,
            guild_id=session.guild_id,
            fail_if_not_exists=False,
        )
        return await channel.send(text, reference=reference, allowed_mentions=mentions)

    async def delete_message_quietly(self, channel_id: int, message_id: int) -> None:
        """Delete one of the bot's reminder messages; already gone or not allowed is fine."""
        channel = self.get_partial_messageable(channel_id)
        try:
            await channel.get_partial_message(message_id).delete()
        except discord.HTTPException as error:
            log.info("could not delete message %s (HTTP %s)", message_id, error.status)

    async def delete_ping_quietly(self, ping: discord.Message) -> None:
        """Delete a ping ``ping_under_game`` sent through a kept token (a follow-up, which
        only the token that sent it may delete); gone already is fine: it stays."""
        try:
            await ping.delete()
        except discord.HTTPException as error:
            log.info("could not delete message %s (HTTP %s)", ping.id, error.status)

    async def send_dm(self, user_id: int, **fields: Any) -> discord.Message | None:
        """DM a user; None when their DMs are closed (403, code 50007).

        The DM channel id is remembered, so a DM costs one request, not three (without the
        members intent users are not cached, and discord.py would fetch the user first).
        """
        try:
            channel_id = self._dm_channels.get(user_id)
            if channel_id is None:
                channel_id = await self._open_dm(user_id)
            channel = self.get_partial_messageable(channel_id, type=discord.ChannelType.private)
            return await channel.send(**fields)
        except discord.Forbidden as error:
            if error.code == DM_CLOSED:
                return None
            raise

    async def _open_dm(self, user_id: int) -> int:
        """The id of the DM channel with ``user_id``, opened (and remembered) if need be.

        One at a time: Discord opens 5 DM channels per 5 s for a whole bot, and discord.py,
        when several requests of one bucket are under way as a window starts, lets one too
        many go (see edit_public_message). A restart whose due timers DM a few dozen
        players it has no channel for yet got 429s (bench/restart.py)."""
        async with self._dm_opening:
            # Another send may have opened it while this one waited its turn.
            channel_id = self._dm_channels.get(user_id)
            if channel_id is None:
                data = await self.http.start_private_message(user_id)
                channel_id = int(data["id"])
                if len(self._dm_channels) >= DM_CHANNEL_CACHE_SIZE:
                    self._dm_channels.pop(next(iter(self._dm_channels)))
                self._dm_channels[user_id] = channel_id
            return channel_id

    # -- shutdown -------------------------------------------------------------------------

    async def close(self) -> None:
        # Order matters: stop the timers, let interactions already being handled finish
        # their transaction and their answer (they need the HTTP session and the
        # database), then close Discord, then the database.
        starting = [
            task
            for task in (self._command_reader, self._command_sync, self._timers_start)
            if task is not None
        ]
        for task in starting:
            task.cancel()
        await asyncio.gather(*starting, return_exceptions=True)
        await self.deadlines.stop()
        self._watchdogs.cancel()
        await self._wait_for_handlers()
        await self.publisher.close()
        await self.token_delivery.settle(SHUTDOWN_GRACE_SECONDS)
        await self.landings.close()
        await self.languages.close()
        await super().close()
        await self.db.close()

    async def _wait_for_handlers(self) -> None:
        current = asyncio.current_task()
        handlers = [
            task
            for task in asyncio.all_tasks()
            if task is not current
            and not task.done()
            and task.get_name().startswith(HANDLER_TASK_PREFIXES)
        ]
        if handlers:
            await asyncio.wait(handlers, timeout=SHUTDOWN_GRACE_SECONDS)


def discover_cogs() -> list[str]:
    """Every extension in ``cogs``: a module with a ``setup`` function, or a game's package
    whose ``cog`` module has one. A package the games share (``secret_duel``) has none.

    A game loads as ``cogs.<game>.cog`` rather than as its package so that, as for a
    single-module extension, discord.py gives each load its own fresh cog module while the
    game's texts and pictures stay ordinary shared imports.
    """
    found = []
    for module in pkgutil.iter_modules(cogs.__path__):
        if module.name.startswith("_"):
            continue
        name = f"cogs.{module.name}.cog" if module.ispkg else f"cogs.{module.name}"
        if importlib.util.find_spec(name) and hasattr(importlib.import_module(name), "setup"):
            found.append(name)
    return sorted(found)


def create_bot(
    settings: Settings,
    *,
    clock: Clock | None = None,
    seed: int | None = None,
    **client_options: Any,
) -> DiceBot:
    """Build the bot without connecting anywhere."""
    return DiceBot(settings, clock=clock, seed=seed, **client_options)
