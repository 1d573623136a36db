"""``/tournament``: the Discord side of a tournament (runtime in ``bot.play.tournaments``,
bracket in ``game_core.tournament``, picture in ``cogs.tournament.picture``, drawn on the
picture worker through ``cogs.tournament.render``).

- ``/tournament new`` posts the event's message (its rules, the players so far, when it
  starts) with **Join**, **Leave** and **Start**, and opens a thread on it where the
  matches are played (the channel itself where threads are not allowed).
- Every change of an event (a sign-up, a start, a match ended, a removal) edits that
  message: the sign-up, then the bracket or the standings as pictures, then the winner;
  and every game of a round without a message yet is posted in the thread, pinging its
  two players. The games are the duels' own challenges: Accept starts the match, and
  everything else (moves, timers, forfeits, the next game of a series) is the game's.
- ``/tournament list``, ``/tournament remove``, ``/tournament cancel`` for the event of
  this channel (or thread).
- An edit Discord fails (or never sees: a process stopped between a change and its edit,
  or another process made the change) is made by the runner's sweep a few seconds later;
  a failing message is tried again less and less often (``retry_delay``).

Nothing is kept in memory but what is being shown: the rows say everything, so a restart or
another process carries on.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.app import DiceBot
from bot.i18n import _, ngettext, number
from bot.model.catalog import game_title
from bot.model.command_mentions import command_mention
from bot.model.contract import ShowContext
from bot.model.errors import StorageUnavailable, UserError
from bot.model.series import BEST_OF_HELP, BestOf
from bot.model.text import escape
from bot.pictures import palette as colours
from bot.pictures import worker as picture_worker
from bot.play.deadlines import MAX_SLEEP_SECONDS, SHARED_POLL_SECONDS
from bot.play.tournament_games import CHANNEL_UNUSABLE
from bot.play.tournaments import (
    DEFAULT_MAX_PLAYERS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    SWEEP_SECONDS,
    TOO_FEW_PLAYERS,
    EventView,
    TournamentNotFound,
    TournamentRunner,
    TournamentService,
    parse_start,
)
from bot.ui.answers import NETWORK_ERRORS, answer_for
from bot.ui.replies import Guarded
from cogs.tournament.render import render_event
from game_core import tournament as core

log = logging.getLogger(__name__)

GameChoice = Literal["knucklebones", "diceman", "dimension_duel"]
FormatChoice = Literal["single_elimination", "swiss"]
# A thread's name is at most 100 characters.
THREAD_NAME_LIMIT = 100
LISTED = 10
# A message whose edits keep failing is tried again after the sweep's interval, doubling
# up to this (game-clock seconds), as the publisher backs off from a game's.
MAX_RETRY_SECONDS = 60.0


def retry_delay(failures: int) -> float:
    """How long after its ``failures``-th failure in a row an event's edit is tried again."""
    return min(MAX_RETRY_SECONDS, SWEEP_SECONDS * 2 ** (failures - 1))


def may_manage(interaction: discord.Interaction) -> bool:
    permissions = interaction.permissions
    return bool(permissions.manage_guild)


# -- the event's message --------------------------------------------------------------------


def event_title(view: EventView) -> str:
    """The event's name, as its host wrote it (or as it was named for them)."""
    return view.tournament.name


def rules_line(view: EventView) -> str:
    row = view.tournament
    game = game_title(row.game)
    count = number(row.best_of)
    if row.format == "swiss":
        if row.best_of == 1:
            return _("{game} · Swiss · one game a pairing").format(game=game)
        return _("{game} · Swiss · best of {count}").format(game=game, count=count)
    if row.best_of == 1:
        return _("{game} · single elimination · one game a pairing").format(game=game)
    return _("{game} · single elimination · best of {count}").format(game=game, count=count)


def status_line(view: EventView) -> str:
    """The message's content: one line saying where the event stands."""
    row = view.tournament
    title = escape(event_title(view))
    if row.status == "signup":
        if row.starts_at is not None:
            return _("🏆 **{name}**: sign-ups are open; it starts {when}.").format(
                name=title, when=f"<t:{int(row.starts_at)}:R>"
            )
        return _("🏆 **{name}**: sign-ups are open; the host starts it.").format(name=title)
    if row.status == "cancelled":
        if row.cancel_reason == TOO_FEW_PLAYERS:
            return ngettext(
                "🏆 **{name}** is cancelled: it needs at least {count} player.",
                "🏆 **{name}** is cancelled: it needs at least {count} players.",
                MIN_PLAYERS,
            ).format(name=title, count=number(MIN_PLAYERS))
        if row.cancel_reason == CHANNEL_UNUSABLE:
            return _("🏆 **{name}** was cancelled: I can no longer post in its channel.").format(
                name=title
            )
        return _("🏆 **{name}** was cancelled by its host.").format(name=title)
    if row.status == "finished":
        if row.winner_id is None:
            return _("🏆 **{name}** is over.").format(name=title)
        return _("🏆 **{name}** is over: **{winner}** wins the tournament!").format(
            name=title, winner=escape(view.names.get(row.winner_id, "?"))
        )
    return _("🏆 **{name}** is under way.").format(name=title)


def players_text(view: EventView) -> str:
    playing = [p for p in view.players if not p.removed]
    if not playing:
        return _("Nobody has joined yet.")
    return ", ".join(escape(p.display_name) for p in playing)


async def event_fields(view: EventView) -> dict[str, Any]:
    """The event's message as stored: content, embed, pictures, buttons."""
    row = view.tournament
    embed = discord.Embed(colour=colours.EMBED_INFO, description=rules_line(view))
    embed.add_field(
        name=ngettext(
            "{count} player (at most {limit})",
            "{count} players (at most {limit})",
            len([p for p in view.players if not p.removed]),
        ).format(
            count=number(len([p for p in view.players if not p.removed])),
            limit=number(row.max_players),
        ),
        value=players_text(view)[:1024],
        inline=False,
    )
    fields: dict[str, Any] = {
        "content": status_line(view),
        "embed": embed,
        "allowed_mentions": discord.AllowedMentions.none(),
        "attachments": [],
        "view": signup_view(row.id) if row.status == "signup" else None,
    }
    if view.bracket is not None and row.status in ("running", "finished"):
        pictures = await picture_worker.draw(
            render_event, view.bracket, view.names, event_title(view)
        )
        fields["attachments"] = [picture.file() for picture in pictures]
    return fields


class SignupButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tourney:(?P<event>[0-9]{1,19}):(?P<choice>join|leave|start)",
):
    def __init__(self, event: int, choice: str) -> None:
        labels = {"join": _("Join"), "leave": _("Leave"), "start": _("Start")}
        styles = {
            "join": discord.ButtonStyle.success,
            "leave": discord.ButtonStyle.secondary,
            "start": discord.ButtonStyle.primary,
        }
        super().__init__(
            discord.ui.Button(
                label=labels[choice], style=styles[choice], custom_id=f"tourney:{event}:{choice}"
            )
        )
        self.event = event
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SignupButton:
        return cls(int(match["event"]), match["choice"])

    async def handle(self, interaction: discord.Interaction) -> None:
        cog = interaction.client.get_cog("TournamentCog")  # type: ignore[attr-defined]
        assert isinstance(cog, TournamentCog)
        await cog.press(interaction, self.event, self.choice)


def signup_view(event: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for choice in ("join", "leave", "start"):
        view.add_item(SignupButton(event, choice))
    return view


# -- the cog --------------------------------------------------------------------------------


class TournamentCog(
    commands.GroupCog,
    group_name="tournament",
    group_description="Run a tournament of duels: sign-up, pairings, bracket.",
):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.service = TournamentService(bot.sessions)
        shared = bot.db.dialect != "sqlite"
        self.runner = TournamentRunner(
            self.service,
            poll_seconds=SHARED_POLL_SECONDS if shared else MAX_SLEEP_SECONDS,
            show=self._swept,
        )
        self.service.on_change(self._changed)
        # Events whose message is being brought up to date, and whether it must look again.
        self._showing: dict[int, bool] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        # Game sessions this process is posting now (the publisher leaves them alone).
        self._posting: set[int] = set()
        # Events whose last edits failed: how many in a row, and when the sweep may try
        # again (game clock).
        self._failures: dict[int, int] = {}
        self._retry_at: dict[int, float] = {}

    async def cog_load(self) -> None:
        self.bot.register_components(SignupButton)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        # Once connected (the database is open by then): start times, and the events a
        # restart or another process left to drive on.
        if self.runner.started:
            return
        self.runner.start()
        # A process that stopped between a change and its edit left the event's message
        # behind, or a game unposted: every open event is shown again.
        try:
            open_events = await self.service.open_events()
        except StorageUnavailable:
            # The sweep shows them once the database answers again.
            log.warning("tournaments: database unavailable at start; the sweep shows them later")
            return
        for tournament_id in open_events:
            self._changed(tournament_id)

    async def cog_unload(self) -> None:
        await self.runner.stop()
        await self.service.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # -- commands -------------------------------------------------------------------------

    @app_commands.command(
        name="new", description="Open a tournament's sign-up here.", extras={"public": True}
    )
    @app_commands.describe(
        game="The duel the tournament plays.",
        format="Single elimination (default) or Swiss.",
        best_of=BEST_OF_HELP,
        max_players="How many players may join (4 to 32; 16 by default).",
        starts_at="Starts by itself at: minutes from now (30), a UTC time (18:30) or a Discord "
        "timestamp.",
        name="The tournament's name.",
        rounds="Swiss only: how many rounds (by default, enough to find a winner).",
    )
    @app_commands.choices(
        game=[
            app_commands.Choice(name="Knucklebones", value="knucklebones"),
            app_commands.Choice(name="Diceman", value="diceman"),
            app_commands.Choice(name="Dimension Duel", value="dimension_duel"),
        ],
        format=[
            app_commands.Choice(name="Single elimination", value="single_elimination"),
            app_commands.Choice(name="Swiss", value="swiss"),
        ],
    )
    @app_commands.guild_only()
    async def new(
        self,
        interaction: discord.Interaction,
        game: str,
        format: str = "single_elimination",
        best_of: BestOf = 1,
        max_players: app_commands.Range[int, 4, 32] = DEFAULT_MAX_PLAYERS,
        starts_at: app_commands.Range[str, 1, 40] | None = None,
        name: app_commands.Range[str, 1, 60] | None = None,
        rounds: app_commands.Range[int, 1, 31] | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        settings = await self.bot.sessions.guild_settings(interaction.guild_id)
        if not may_manage(interaction) and not settings.tournaments_by_anyone:
            raise UserError(
                _(
                    "Only members with the **Manage Server** permission can open a tournament "
                    "here (a server admin can open it to everyone in {command})."
                ).format(command=command_mention("dicebot", "settings"))
            )
        row = await self.service.create(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            host_id=interaction.user.id,
            game=game,
            name=name or "",
            format=core.Format(format),
            best_of=best_of,
            max_players=min(max_players, MAX_PLAYERS),
            starts_at=None if starts_at is None else parse_start(starts_at, self.bot.clock.now()),
            swiss_rounds=rounds,
        )
        view = await self.service.view(row.id)
        with i18n.use(row.language):
            fields = await event_fields(view)
        fields.pop("attachments")  # none before the start; a new message takes ``files``
        message_id = await answer_for(interaction).send(ephemeral=False, **fields)
        if message_id is None:
            message = await self._post_event(row.id, fields)
            message_id = message.id
        await self.service.set_message(row.id, message_id, view.tournament.version)
        await self._open_thread(row.id, interaction.channel_id, message_id, event_title(view))

    @app_commands.command(name="list", description="This server's running and past tournaments.")
    @app_commands.guild_only()
    async def list_events(self, interaction: discord.Interaction) -> None:
        assert interaction.guild_id is not None
        rows = await self.service.list_for_guild(interaction.guild_id, limit=LISTED)
        if not rows:
            await answer_for(interaction).send(
                _("This server has no tournaments yet: open one with {command}.").format(
                    command=command_mention("tournament", "new")
                )
            )
            return
        lines = []
        for row in rows:
            view = EventView(row, [], None, [])
            link = f"https://discord.com/channels/{row.guild_id}/{row.channel_id}/{row.message_id}"
            lines.append(f"{escape(event_title(view))} · {state_word(row.status)} · {link}")
        await answer_for(interaction).send("\n".join(lines))

    @app_commands.command(
        name="remove", description="Take a player out of this channel's tournament."
    )
    @app_commands.describe(player="The player to take out: their opponent goes through.")
    @app_commands.guild_only()
    async def remove(self, interaction: discord.Interaction, player: discord.Member) -> None:
        event = await self._event_here(interaction)
        await self.service.remove(
            event, interaction.user.id, player.id, may_manage=may_manage(interaction)
        )
        await answer_for(interaction).send(
            _("{name} is out of the tournament.").format(name=escape(player.display_name))
        )

    @app_commands.command(name="cancel", description="Cancel this channel's tournament.")
    @app_commands.guild_only()
    async def cancel(self, interaction: discord.Interaction) -> None:
        event = await self._event_here(interaction)
        await self.service.cancel(event, interaction.user.id, may_manage=may_manage(interaction))
        await answer_for(interaction).send(_("The tournament is cancelled."))

    async def _event_here(self, interaction: discord.Interaction) -> int:
        """The open event of this channel, or of the thread its games are played in."""
        assert interaction.guild_id is not None
        for row in await self.service.list_for_guild(interaction.guild_id, limit=LISTED):
            if row.is_open and interaction.channel_id in (row.channel_id, row.thread_id):
                return row.id
        raise UserError(_("There is no tournament running in this channel."))

    # -- the sign-up buttons --------------------------------------------------------------

    async def press(self, interaction: discord.Interaction, event: int, choice: str) -> None:
        user = interaction.user
        answer = answer_for(interaction)
        if (await self.service.get(event)).guild_id != interaction.guild_id:
            # A button copied into another server (a forged id): no such event there.
            raise TournamentNotFound()
        if choice == "join":
            await self.service.join(event, user.id, user.display_name)
            await answer.send(_("You are in: your matches will ping you in the thread."))
        elif choice == "leave":
            await self.service.leave(event, user.id)
            await answer.send(_("You have left the tournament."))
        else:
            row = await self.service.start(event, user.id, may_manage=may_manage(interaction))
            if row.status == "cancelled":
                await answer.send(_("Too few players joined: the tournament is cancelled."))
            else:
                await answer.send(_("The tournament has started."))

    # -- showing --------------------------------------------------------------------------

    def _changed(self, tournament_id: int) -> None:
        if tournament_id in self._showing:
            self._showing[tournament_id] = True  # the running show looks again
            return
        self._showing[tournament_id] = False
        task = asyncio.create_task(self._show(tournament_id), name=f"tournament-{tournament_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def settle(self) -> None:
        """Wait until every change heard so far is shown (tests)."""
        while self._tasks or self.service.games.pending:
            await asyncio.gather(*self._tasks, *self.service.games.pending, return_exceptions=True)

    def _swept(self, tournament_id: int) -> None:
        """The runner's sweep found the event's message behind: show it, unless its last
        edit failed too recently (it backs off)."""
        if self.bot.clock.now() < self._retry_at.get(tournament_id, -1.0):
            return
        self._changed(tournament_id)

    async def _show(self, tournament_id: int) -> None:
        try:
            while True:
                self._showing[tournament_id] = False
                again = False
                try:
                    again = await self._show_once(tournament_id)
                except discord.HTTPException as error:
                    self._failed(tournament_id, f"HTTP {error.status}")
                except NETWORK_ERRORS as error:
                    self._failed(tournament_id, type(error).__name__)
                except StorageUnavailable:
                    self._failed(tournament_id, "database unavailable")
                else:
                    self._shown(tournament_id)
                if not (again or self._showing.get(tournament_id)):
                    return
        finally:
            self._showing.pop(tournament_id, None)

    def _failed(self, tournament_id: int, reason: str) -> None:
        # Once a warning; while it keeps failing, the sweep tries again less and less often.
        failures = self._failures.get(tournament_id, 0) + 1
        self._failures[tournament_id] = failures
        delay = retry_delay(failures)
        self._retry_at[tournament_id] = self.bot.clock.now() + delay
        log.log(
            logging.WARNING if failures == 1 else logging.INFO,
            "tournament %s: its message could not be shown (%s); trying again in %.0f s",
            tournament_id,
            reason,
            delay,
        )

    def _shown(self, tournament_id: int) -> None:
        self._retry_at.pop(tournament_id, None)
        if self._failures.pop(tournament_id, 0):
            log.info("tournament %s: its message is shown again", tournament_id)

    async def _show_once(self, tournament_id: int) -> bool:
        """Show the stored event on its message (and post its games); True if a newer
        version was stored meanwhile (to show next)."""
        view = await self.service.view(tournament_id)
        row = view.tournament
        if row.message_id is None:
            await self._post_games(view)
            return False
        # One process at a time edits the message, never with an older version than one
        # shown or being shown (NEWER: that one shows this change too; BUSY: the sweep
        # comes back once the other process is done).
        if not await self.service.claim_show(tournament_id, row.version):
            return False
        try:
            await self._post_games(view)
            with i18n.use(row.language):
                fields = await event_fields(view)
            message = self.bot.get_partial_messageable(
                row.channel_id, guild_id=row.guild_id
            ).get_partial_message(row.message_id)
            await message.edit(**fields)
        except (discord.HTTPException, *NETWORK_ERRORS):
            await self.service.record_shown(tournament_id, None)  # only ends the claim
            raise
        await self.service.record_shown(tournament_id, row.version)
        return (await self.service.get(tournament_id)).version > row.version

    async def _post_event(self, tournament_id: int, fields: dict[str, Any]) -> discord.Message:
        row = await self.service.get(tournament_id)
        channel = self.bot.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        return await channel.send(**fields)

    async def _open_thread(
        self, tournament_id: int, channel_id: int, message_id: int, title: str
    ) -> None:
        """The event's thread, on its message; where threads are not allowed, the matches
        are played in the channel."""
        row = await self.service.get(tournament_id)
        message = self.bot.get_partial_messageable(
            channel_id, guild_id=row.guild_id
        ).get_partial_message(message_id)
        try:
            thread = await message.create_thread(name=title[:THREAD_NAME_LIMIT])
        except discord.HTTPException as error:
            log.info(
                "tournament %s: no thread (HTTP %s): its matches are played in the channel",
                tournament_id,
                error.status,
            )
            return
        await self.service.set_thread(tournament_id, thread.id)

    async def _post_games(self, view: EventView) -> None:
        """Post every game of the event that has no message yet, pinging its players."""
        for session_id in await self.service.round_games(view.tournament.id):
            session = await self.bot.sessions.get(session_id)
            if session is None or session.message_id is not None or session_id in self._posting:
                continue
            handler = self.bot.sessions.handlers.get(session.game)
            if handler is None:
                continue
            self._posting.add(session_id)
            try:
                async with self.bot.publisher.posting(session_id):
                    fields = await handler.render(session, ShowContext())
                    players = [seat.user_id for seat in session.seats]
                    fields["allowed_mentions"] = discord.AllowedMentions(
                        users=[discord.Object(user) for user in players]
                    )
                    with i18n.use(session.language):
                        intro = _("🏆 {event}: {first} against {second}.").format(
                            event=escape(event_title(view)),
                            first=f"<@{players[0]}>",
                            second=f"<@{players[1]}>",
                        )
                    fields["content"] = f"{intro}\n{fields.get('content') or ''}".strip()
                    channel = self.bot.get_partial_messageable(
                        session.channel_id, guild_id=session.guild_id
                    )
                    fields = {key: value for key, value in fields.items() if value is not None}
                    try:
                        sent = await channel.send(**fields)
                    except discord.HTTPException as error:
                        # The publisher posts it after this block, or ends the game if it
                        # cannot (the service then moves the event to its channel).
                        log.info(
                            "tournament game %s: not posted (HTTP %s)", session_id, error.status
                        )
                        continue
                    await self.bot.sessions.set_message(session_id, sent.id, session.version)
            finally:
                self._posting.discard(session_id)


def state_word(status: str) -> str:
    words = {
        "signup": _("sign-up"),
        "running": _("running"),
        "finished": _("finished"),
        "cancelled": _("cancelled"),
    }
    return words.get(status, status)


async def setup(bot: DiceBot) -> None:
    await bot.add_cog(TournamentCog(bot))
