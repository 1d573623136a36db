"""Weighted Dice in Discord: a public betting table for 5 to 12 players.

Flow. ``/weighted new`` posts a lobby (Join / Leave / Start); the host starts it from five
players. The engine (``game_core.weighted_dice``) holds the d20 roll-off for the first
house; from then on one public table message shows seats, points, the house and the round.
The house presses **Set up round** and gets an ephemeral panel (two roller selects, two die
selects, Confirm); betting opens with **Bet on …** buttons (a modal for the amount) and
quick-amount buttons; the engine rolls and scores when everyone has bet or the window
closes, then passes the house. ``/weighted leave`` and ``/weighted end`` do what they say.

The package. This module is the extension: the slash commands and the game's handler
(``bot.model.contract.GameHandler``), which the session service calls. What a move does
inside its transaction is ``cogs.weighted_dice.moves``; the buttons, selects and the bet
form, with what their presses do, are ``cogs.weighted_dice.controls``; the texts are
``render`` and ``story``, the table picture ``picture``, the stored state ``state``.

Durability. The cog keeps no game state in memory: the session row holds the lobby or the
table (``cogs.weighted_dice.state``), the house-setup and betting timers are durable deadlines,
and every control is a DynamicItem whose custom_id carries what it needs (the house's
half-made setup lives in its panel's custom_ids), so a restart at any point continues.

Public updates. A button or modal answer is an ephemeral reply or a deferred update; the
table itself is shown by the bot's publisher, which renders the newest stored state after
every commit. Joins and bets come in bursts: ``gather_after`` asks the publisher to wait a
moment first, so a burst lands in one edit, never one per bet.

Dice. ``WeightedDice.dice_source(ctx)`` returns the ``random.Random`` the engine rolls with;
it is the session's seeded ``ctx.rng``. Tests that must reproduce given rolls (RULES.md's
worked examples) replace this attribute on the loaded cog with a scripted source; the
production path has no other branch.

custom_ids: prefix ``wd:``, listed in ``cogs.weighted_dice.controls``.

Results: a finished game records ``GameResult`` with the summary keys ``score_line``
(the top three, e.g. ``"Ann 152 · Bo 98 · Cy 60"``), ``scores`` (points per seat),
``rounds`` (rounds scored) and ``first_seat`` (the first house, from the roll-off).
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.app import DiceBot
from bot.i18n import _, current, ngettext, number, pgettext
from bot.model.contract import (
    Deadline,
    LoggedMove,
    MessageFields,
    NewSession,
    Outcome,
    PrivateControls,
    ReplayFrame,
    Seat,
    Session,
    ShowContext,
    Step,
    StepContext,
)
from bot.model.errors import NotYourGame, UserError
from bot.model.series import follow_up_of
from bot.pictures import worker as picture_worker
from bot.ui.answers import answer_for
from bot.ui.command_rules import MAX_OPTION_INTEGER
from bot.ui.rematch import play_on_view
from bot.ui.replay import replay_view, with_replay
from cogs.weighted_dice import moves, replay
from cogs.weighted_dice.controls import (
    BET_MODAL_PATTERN,
    COMPONENTS,
    lobby_view,
    submit_bet_modal,
    table_view,
)
from cogs.weighted_dice.guide import GUIDE
from cogs.weighted_dice.moves import DiceSource, session_dice
from cogs.weighted_dice.render import Rendered, invitation, lobby_embed, table_embed, table_picture
from cogs.weighted_dice.state import (
    BETTING_WINDOW_BOUNDS,
    GAME,
    HOUSE_SETUP_BOUNDS,
    SHORT_GAME,
    LobbyState,
    TableOptions,
    TableState,
    load_state,
)
from cogs.weighted_dice.story import stop_note, stopped_sentence
from game_core import weighted_dice as wd
from game_core.analysis.weighted_lengths import OFFERED_TARGETS

log = logging.getLogger(__name__)

# How long the table waits after a bet or a join before it is re-rendered, so that a
# burst lands in one edit (see ``gather_after``).
COALESCE_DELAY_SECONDS = 0.3

# The points to win a host can choose: the short game (its target is set by the table size
# when the game starts) and the fixed targets the lab has lengths for.
POINTS_CHOICES = [
    app_commands.Choice(
        name="short game: about 10-12 rounds, points set by the table size", value=SHORT_GAME
    ),
    *(
        app_commands.Choice(
            name=f"{target} points" + (" (standard game)" if target == wd.TARGET_POINTS else ""),
            value=target,
        )
        for target in OFFERED_TARGETS
    ),
]


# -- the cog --------------------------------------------------------------------------------------


@app_commands.guild_only()
class WeightedDice(
    commands.GroupCog,
    group_name="weighted",
    group_description="Weighted Dice: a betting table for 5 to 12 players.",
):
    game = GAME
    private_messages = False  # the house's panel is an ephemeral answer, not a tracked DM

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        # The rng the engine rolls with, per transaction (see the module docstring).
        self.dice_source: DiceSource = session_dice
        # Seconds a bet or a join waits before the table is re-rendered, so that a burst
        # lands in one edit (see ``gather_after``).
        self.coalesce_delay = COALESCE_DELAY_SECONDS
        # Table session id -> this round's "you are the house" ping, deleted when the next
        # round pings. Memory only: after a restart one old ping may stay behind.
        self._house_pings: dict[int, int] = {}
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.sessions.register(self)
        self.bot.guides.register(GUIDE)
        self.bot.register_components(*COMPONENTS)
        self.bot.register_modal(BET_MODAL_PATTERN, submit_bet_modal)

    # -- slash commands ----------------------------------------------------------------------

    @app_commands.command(
        name="new",
        description="Open a Weighted Dice table (5 to 12 players).",
        extras={"public": True},
    )
    @app_commands.describe(
        points="Points to win: the standard 150, or a short game of about 10-12 rounds.",
        betting_window=f"Seconds betting stays open each round ({BETTING_WINDOW_BOUNDS[0]}-"
        f"{BETTING_WINDOW_BOUNDS[1]}; default: this server's setting).",
        house_setup=f"Seconds the house has to set up a round ({HOUSE_SETUP_BOUNDS[0]}-"
        f"{HOUSE_SETUP_BOUNDS[1]}; default: this server's setting).",
    )
    @app_commands.choices(points=POINTS_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction,
        points: int | None = None,
        betting_window: app_commands.Range[int, BETTING_WINDOW_BOUNDS[0], BETTING_WINDOW_BOUNDS[1]]
        | None = None,
        house_setup: app_commands.Range[int, HOUSE_SETUP_BOUNDS[0], HOUSE_SETUP_BOUNDS[1]]
        | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        settings = await self.bot.sessions.guild_settings(interaction.guild_id)
        # Checked before anything is stored: a refused option opens no table.
        options = TableOptions.chosen(
            settings, points=points, betting_window=betting_window, house_setup=house_setup
        )
        expires_at = self.bot.clock.now() + settings.lobby_expiry_seconds
        host = Seat(seat=0, user_id=interaction.user.id, display_name=interaction.user.display_name)
        lobby = LobbyState(host=interaction.user.id, expires_at=expires_at, options=options)
        session = await self.bot.sessions.create(
            game=GAME,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            created_by=interaction.user.id,
            seats=[host],
            state=lobby.model_dump(mode="json"),
            status="pending",
            deadlines=[
                Deadline(kind="lobby_expiry", due_at=expires_at, action={"type": "lobby_expire"})
            ],
            events=[{"type": "lobby_opened", "host": interaction.user.id}],
        )
        # The lobby is public: it speaks the game's language, not the host's.
        with i18n.use(session.language):
            fields = self.table_fields(session)
        await self.bot.publisher.post_first(interaction, session, fields)

    @app_commands.command(name="leave", description="Leave your Weighted Dice table here.")
    async def leave(self, interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        session = await self.bot.sessions.open_session_for(
            interaction.user.id, interaction.channel_id, GAME, include_left=True
        )
        if session is None:
            raise UserError(_("You are not at a Weighted Dice table in this channel."))
        outcome = await self.bot.sessions.act(session.id, interaction.user.id, {"type": "leave"})
        if outcome.session.status == "cancelled":
            text = _("You left, and as the host your lobby closed with you.")
        elif isinstance(load_state(outcome.previous.state), LobbyState):
            text = _("You left the lobby.")
        else:
            seat = outcome.previous.seat_of(interaction.user.id)
            table = load_state(outcome.session.state)
            assert isinstance(table, TableState) and seat is not None
            points = table.engine.scores[seat]
            text = ngettext(
                "You left the table. Your {points} point stays in the standings; you no "
                "longer bet, roll or host.",
                "You left the table. Your {points} points stay in the standings; you no "
                "longer bet, roll or host.",
                points,
            ).format(points=number(points))
        await answer_for(interaction).send(text)

    @app_commands.command(
        name="end", description="Stop a Weighted Dice game (its host or a server manager)."
    )
    @app_commands.describe(
        table="The table number (shown under the table); needed only if several are open here."
    )
    async def end(
        self,
        interaction: discord.Interaction,
        # A table number is a session id a person types: Discord bounds the option at
        # 2**53 - 1, more than the ids will ever reach.
        table: app_commands.Range[int, 1, MAX_OPTION_INTEGER] | None = None,
    ) -> None:
        session = await self._table_to_end(interaction, table)
        host = load_state(session.state).host
        manager = interaction.permissions.manage_guild
        if interaction.user.id != host and not manager:
            raise NotYourGame(
                _(
                    "Only the host ({host}) or someone with **Manage Server** can end this game."
                ).format(host=f"<@{host}>")
            )
        outcome = await self.bot.sessions.cancel(
            session.id, interaction.user.id, f"ended by {interaction.user.id}"
        )
        await answer_for(interaction).send(
            _("Stopped table #{table}; no result was recorded.").format(table=outcome.session.id)
        )

    async def _table_to_end(self, interaction: discord.Interaction, table: int | None) -> Session:
        assert interaction.channel_id is not None
        if table is not None:
            session = await self.bot.sessions.get(table)
            if session is None or session.game != GAME or session.guild_id != interaction.guild_id:
                raise UserError(
                    _("There is no Weighted Dice table #{table} in this server.").format(
                        table=table
                    )
                )
            if not session.is_open:
                raise UserError(_("Table #{table} is already over.").format(table=table))
            return session
        own = await self.bot.sessions.open_session_for(
            interaction.user.id, interaction.channel_id, GAME, include_left=True
        )
        if own is not None:
            return own
        tables = await self.bot.sessions.open_in_channel(interaction.channel_id, game=GAME)
        if not tables:
            raise UserError(_("No Weighted Dice table is open in this channel."))
        if len(tables) > 1:
            listed = ", ".join(f"#{table_id}" for table_id in tables)
            raise UserError(
                _("Several tables are open here ({tables}): give the `{option}` number.").format(
                    tables=listed, option=pgettext("option name", "table")
                )
            )
        return await self.bot.sessions.require(tables[0])

    # -- the game handler (its moves run inside the session's transaction) -------------------

    def step(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        return moves.step(ctx, action, self.dice_source)

    async def replay(self, session: Session, log: list[LoggedMove]) -> list[ReplayFrame]:
        """The finished table step by step, rebuilt from its event log (bot.ui.replay)."""
        settings = await self.bot.sessions.guild_settings(session.guild_id)
        return replay.frames(session, log, settings, self.dice_source)

    def follow_up(self, ctx: StepContext, action: dict[str, Any]) -> NewSession:
        return moves.follow_up(ctx, action)

    def rejoin_action(self, follow: Session, user_id: int) -> dict[str, Any] | None:
        return moves.rejoin_action(follow, user_id)

    # -- what players see (shown by the publisher) -------------------------------------------

    async def render(self, session: Session, context: ShowContext) -> MessageFields:
        fields = self.table_fields(session, note=stop_note(context.events))
        state = load_state(session.state)
        if isinstance(state, TableState):
            # The table picture, drawn off the event loop. A plain attachment rather than
            # the embed's image: an embed shows at most 300 px of height, and a table of
            # more than eight seats is taller (up to 348 px for twelve); as an attachment
            # every size shows whole, above the embed, like every game's picture.
            # The picture thread does not see this task's language: it is passed along.
            picture = await picture_worker.draw(
                table_picture,
                state,
                session.seats,
                current(),
                stopped_sentence(session, context.events),
            )
            fields["attachments"] = [picture.file()]
        return fields

    def private_controls(self, session: Session, seat: int) -> PrivateControls | None:
        return None  # the house's panel is an ephemeral answer, not a tracked message

    def private_after(self, session: Session, seat: int, key: str) -> MessageFields:
        return {}

    def gather_after(self, outcome: Outcome) -> float:
        """Joins and bets come in bursts: wait a moment so one edit shows several. A bet
        that closed the window shows the rolls at once."""
        kinds = {event.get("type") for event in outcome.events}
        if "betting_closed" in kinds:
            return 0.0
        if kinds & {"joined", "bet"}:
            return self.coalesce_delay
        return 0.0

    async def notify(self, outcome: Outcome) -> None:
        await self.announce_house(outcome)

    async def announce_house(self, outcome: Outcome) -> None:
        """Ping the house when a round starts: the table edit that names them notifies
        nobody, and they have a minute to set up. The previous round's ping is deleted so
        a long game leaves one, not dozens."""
        started = next((e for e in outcome.events if e.get("type") == "round_started"), None)
        session = outcome.session
        over = session.status != "active"
        if started is None and not over:
            return
        previous = self._house_pings.pop(session.id, None)
        if previous is not None:
            await self.bot.delete_message_quietly(session.channel_id, previous)
        if over or started is None:
            return
        house = session.user_of(int(started["house"]))
        try:
            sent = await self.bot.ping_under_game(
                session,
                house.user_id,
                _(
                    "🎲 Round {round}: {house}, you are the house. Press **Set up round** on the "
                    "table to pick the rollers and their dice."
                ).format(round=number(int(started["round"])), house=f"<@{house.user_id}>"),
            )
        except discord.HTTPException as error:
            # The table names the house too; a lost ping is not worth failing the round.
            log.info("could not ping the house of table %s (HTTP %s)", session.id, error.status)
            return
        if sent is not None:
            self._house_pings[session.id] = sent.id

    def table_fields(self, session: Session, note: str | None = None) -> dict[str, Any]:
        state = load_state(session.state)
        cancelled = session.status == "cancelled"
        rendered: Rendered
        view: discord.ui.View | None = None
        content: str | None
        if isinstance(state, LobbyState):
            rendered = lobby_embed(state, session.seats, session.id, cancelled=cancelled, note=note)
            content = rendered.content
            if session.status == "pending":
                view = lobby_view(session)
                content = invitation(state, session) or content
        else:
            rendered = table_embed(state, session.seats, session.id, cancelled=cancelled, note=note)
            content = rendered.content
            if session.status == "active":
                view = table_view(session, state.engine)
            elif session.status == "finished":
                if follow_up_of(session.state) is None:
                    view = with_replay(play_on_view(session.id, "lobby"), session.id)
                else:
                    view = replay_view(session.id)
                    content = f"{content}\n" + _("🔁 A new table is open, below.")
        return {
            "content": content,
            "embed": rendered.embed,
            "view": view,
            "allowed_mentions": discord.AllowedMentions.none(),
        }


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(WeightedDice(bot))
