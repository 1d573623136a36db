"""``/knucklebones``: the Discord side of Knucklebones (rules in ``game_core.knucklebones``).

The extension: the slash commands (challenge, ai, forfeit) and the session handler, which
hands each move to ``moves`` (what runs in the move's transaction), draws the message with
``render`` and the board's buttons from ``controls``, and pings a player whose turn runs out.
discord.py loads a fresh copy of this module per bot; ``AI_MOVE_DELAY`` is that bot's.
"""

from __future__ import annotations

import random
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.app import DiceBot
from bot.i18n import N_, _
from bot.model.command_mentions import command_mention
from bot.model.contract import (
    FRIENDS_LADDER,
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
    stop_cause,
    stopped_text,
)
from bot.model.errors import UserError
from bot.model.series import (
    BEST_OF_HELP,
    BestOf,
    challenge_line,
    is_rematch,
    load_series,
    new_match,
    running_line,
    with_series,
)
from bot.model.text import escape
from bot.pictures import worker as picture_worker
from bot.ui.answers import answer_for
from bot.ui.challenges import (
    act_on_challenge,
    challenge_deadlines,
    challenge_message_text,
    challenge_state,
    challenge_view,
    is_challenge,
    ping_challenger,
)
from bot.ui.delivery import Opponent, check_public_answers, reach_of
from bot.ui.rematch import finished_two_player
from cogs.knucklebones import moves, render, replay
from cogs.knucklebones.controls import ColumnButton, board_view
from cogs.knucklebones.guide import GUIDE
from cogs.knucklebones.moves import AiLevel, FirstChoice, Table, first_seat_for, winner_of
from game_core import knucklebones as kb
from game_core.base import Event

GAME = "knucklebones"
# The game's name: a proper name in every language, still shown through ``_``.
TITLE = N_("Knucklebones")
# This bot's pause before the AI moves (see ``moves.AI_MOVE_DELAY``): every move reads it
# here when it runs, so a bench can set it on the loaded extension.
AI_MOVE_DELAY = moves.AI_MOVE_DELAY


def players_of(session: Session) -> list[render.Player]:
    return [
        render.Player(
            seat=seat.seat, user_id=seat.user_id, name=seat.display_name, is_ai=seat.is_ai
        )
        for seat in sorted(session.seats, key=lambda seat: seat.seat)
    ]


# ---------------------------------------------------------------------------------------
# The cog: slash commands, and the session handler (step + publish)
# ---------------------------------------------------------------------------------------


@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class KnucklebonesCog(
    commands.GroupCog,
    name="Knucklebones",
    group_name="knucklebones",
    group_description="Knucklebones: place dice, knock out your opponent's matching dice.",
):
    game = GAME
    private_messages = False  # everything in Knucklebones is public

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        # Session id -> (channel id, message id) of the "your turn runs out" ping, deleted
        # once the player moves. Kept in memory only: after a restart an old ping stays.
        self._warnings: dict[int, tuple[int, int]] = {}
        # The same for a game reached only through interactions: the ping itself, a
        # follow-up only its own token may delete (alive until the turn is over: a token is
        # used only with a minute or more to live, and the warning comes at most a minute
        # before the turn's end).
        self._token_warnings: dict[int, discord.Message] = {}
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.sessions.register(self)
        self.bot.guides.register(GUIDE)
        self.bot.register_components(ColumnButton)
        # The board's sprites and fonts take ~0.5 s to draw the first time: do it now on
        # the picture thread, so no player's first move waits for it.
        picture_worker.warm_up(render.warm_up)

    # -- commands -------------------------------------------------------------------------

    @app_commands.command(
        name="challenge", description="Challenge someone to Knucklebones.", extras={"public": True}
    )
    @app_commands.describe(
        opponent="Who you want to play against.",
        first="Who moves first: a coin flip (default), you, or your opponent.",
        best_of=BEST_OF_HELP,
    )
    async def challenge(
        self,
        interaction: discord.Interaction,
        opponent: Opponent,
        first: FirstChoice = "random",
        best_of: BestOf = 1,
    ) -> None:
        user = interaction.user
        if opponent.id == user.id:
            raise UserError(
                _("You can't challenge yourself. Play against me with {ai}.").format(
                    ai=command_mention("knucklebones", "ai")
                )
            )
        if opponent.bot:
            raise UserError(
                _(
                    "{player} is a bot and can't accept challenges. "
                    "Play against me with {ai} instead."
                ).format(
                    player=escape(opponent.display_name), ai=command_mention("knucklebones", "ai")
                )
            )
        first_seat_for(first)  # refuse a bad option now, not when the challenge is accepted
        assert interaction.channel_id is not None
        check_public_answers(interaction)
        reach = reach_of(interaction)
        guild_id = interaction.guild_id if reach == "member" else None
        settings = await self.bot.sessions.guild_settings(guild_id or FRIENDS_LADDER)
        expires_at = self.bot.clock.now() + settings.challenge_expiry_seconds
        challenger = Seat(seat=0, user_id=user.id, display_name=user.display_name)
        challenged = Seat(seat=1, user_id=opponent.id, display_name=opponent.display_name)
        session = await self.bot.sessions.create(
            game=GAME,
            guild_id=guild_id or FRIENDS_LADDER,
            channel_id=interaction.channel_id,
            created_by=user.id,
            seats=[challenger, challenged],
            state=with_series(
                challenge_state(challenger, challenged, {"first": first}, expires_at),
                new_match(user.id, opponent.id, best_of),
            ),
            status="pending",
            deadlines=challenge_deadlines(expires_at),
            reach=reach,
        )
        fields = await self.render(session, ShowContext())
        fields["allowed_mentions"] = discord.AllowedMentions(users=[discord.Object(opponent.id)])
        await self.bot.publisher.post_first(interaction, session, fields)

    @app_commands.command(
        name="ai", description="Play Knucklebones against me right now.", extras={"public": True}
    )
    @app_commands.describe(
        difficulty="How hard I try: easy, medium (default) or hard.",
        first="Who moves first: a coin flip (default), you, or me.",
    )
    async def ai(
        self,
        interaction: discord.Interaction,
        difficulty: AiLevel = "medium",
        first: FirstChoice = "random",
    ) -> None:
        assert interaction.channel_id is not None
        assert self.bot.user is not None
        check_public_answers(interaction)
        user = interaction.user
        reach = reach_of(interaction)
        guild_id = interaction.guild_id if reach == "member" else None
        settings = await self.bot.sessions.guild_settings(guild_id or FRIENDS_LADDER)
        # The opening roll uses a fresh seed from the session service's source, so a test
        # bot built with a seed is repeatable.
        rng = random.Random(self.bot.sessions.seeds.next())
        table, events, deadlines = moves.open_table(
            rng,
            self.bot.clock.now(),
            settings,
            first_choice=first,
            ai_level=difficulty,
            ai_seat=1,
            ai_delay=AI_MOVE_DELAY,
        )
        seats = [
            Seat(seat=0, user_id=user.id, display_name=user.display_name),
            # The AI goes by the bot's own name, in every game.
            Seat(
                seat=1,
                user_id=self.bot.user.id,
                display_name=self.bot.user.display_name,
                is_ai=True,
            ),
        ]
        session = await self.bot.sessions.create(
            game=GAME,
            guild_id=guild_id or FRIENDS_LADDER,
            channel_id=interaction.channel_id,
            created_by=user.id,
            seats=seats,
            state=table.dump(),
            status="active",
            deadlines=deadlines,
            events=events,
            reach=reach,
        )
        fields = await self.render(session, ShowContext(events=events))
        await self.bot.publisher.post_first(interaction, session, fields)

    @app_commands.command(
        name="forfeit", description="Give up your Knucklebones game in this channel."
    )
    async def forfeit(self, interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        user = interaction.user
        session = await self.bot.sessions.open_session_for(user.id, interaction.channel_id, GAME)
        if session is None:
            raise UserError(_("You have no Knucklebones game open in this channel."))
        answer = answer_for(interaction)
        if is_challenge(session.state):
            # Forfeiting a challenge nobody accepted yet withdraws or declines it.
            outcome = await act_on_challenge(self.bot, session, user.id, "decline", "knucklebones")
            await answer.send(render.closed_challenge_text(outcome.session, outcome.events))
            return
        outcome = await self.bot.sessions.act(session.id, user.id, {"type": "forfeit"})
        table = Table.model_validate(outcome.session.state)
        view = kb.public_view(table.engine)
        # A public answer: in the game's language, not the forfeiting player's.
        with i18n.use(outcome.session.language):
            result = render.result_line(view, players_of(outcome.session))
        await answer.send(
            result,
            ephemeral=False,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    # -- the session handler: rendering ---------------------------------------------------

    async def render(self, session: Session, context: ShowContext) -> MessageFields:
        """The public message for the session as stored (content, embed, image, view)."""
        return await self.message_fields(session, context.events)

    def private_controls(self, session: Session, seat: int) -> PrivateControls | None:
        return None  # everything in Knucklebones is public

    def private_after(self, session: Session, seat: int, key: str) -> MessageFields:
        return {}

    async def message_fields(
        self, session: Session, events: list[Event] | None = None
    ) -> dict[str, Any]:
        series = load_series(session.state)
        names = {seat.user_id: seat.display_name for seat in session.seats}
        if is_challenge(session.state):
            if session.is_open:
                challenge = session.state["challenge"]
                details = "\n".join(
                    line
                    for line in (render.first_details(challenge), challenge_line(series, names))
                    if line
                )
                text = challenge_message_text(
                    _(TITLE),
                    challenge["challenger"],
                    challenge["opponent"],
                    challenge["expires_at"],
                    details,
                    rematch=is_rematch(session.state),
                )
                return {"content": text, "embed": None, "view": challenge_view(session.id)}
            return {
                "content": render.closed_challenge_text(session, events or []),
                "embed": None,
                "view": None,
                "attachments": [],
            }
        table = Table.model_validate(session.state)
        view = kb.public_view(table.engine)
        players = players_of(session)
        clock = render.Clock(
            turn_due_at=table.turn_due_at, warned=table.warned_turn == table.engine.turn
        )
        cancelled = session.status == "cancelled"
        stopped = stopped_text(stop_cause(events or [])) if cancelled else None
        # The picture thread does not inherit this task's language: it is passed along. A
        # stopped game's board shows it as it stood, with nobody to move.
        picture = await picture_worker.draw(
            render.render_board,
            view,
            players,
            i18n.current(),
            stopped,
        )
        content = render.status_line(view, players, clock, ai_level=table.ai_level)
        buttons: discord.ui.View | None = None
        if stopped is not None:
            content = "🛑 " + stopped
        elif session.is_open:
            mover_is_ai = view["current_player"] == table.ai_seat
            buttons = board_view(session.id, view, mover_is_ai)
            line = running_line(series, names)
            if line:
                content += "\n" + line
        else:
            lines, buttons = finished_two_player(
                session, series, winner_of(session, table), replay=True
            )
            content = "\n".join([content, *lines])
        return {
            "content": content,
            "embed": None,
            "attachments": [picture.file()],
            "view": buttons,
            "allowed_mentions": discord.AllowedMentions.none(),
        }

    def gather_after(self, outcome: Outcome) -> float:
        return 0.0  # every move is shown at once

    # -- the session handler: pings after a commit ----------------------------------------

    async def notify(self, outcome: Outcome) -> None:
        session = outcome.session
        await ping_challenger(self.bot, outcome)
        if outcome.actor_id is not None and outcome.action.get("type") == "place":
            await self.retire_warning(session)
        if not session.is_open:
            # A timeout's warning stays: it explains the ending.
            self._warnings.pop(session.id, None)
            self._token_warnings.pop(session.id, None)
        if any(event.get("type") == "turn_warning" for event in outcome.events):
            await self._send_warning(session)

    async def _send_warning(self, session: Session) -> None:
        table = Table.model_validate(session.state)
        if table.turn_due_at is None or session.message_id is None:
            return
        player = players_of(session)[table.engine.current_player]
        text = render.warning_text(player, table.turn_due_at)
        sent = await self.bot.ping_under_game(session, player.user_id, text)
        if sent is None:
            return
        if session.reach == "interaction":
            self._token_warnings[session.id] = sent
        else:
            self._warnings[session.id] = (session.channel_id, sent.id)

    async def retire_warning(self, session: Session) -> None:
        """Delete the turn-warning ping of a session whose player has now moved (through
        the token that sent it, for a game reached only through interactions)."""
        warning = self._warnings.pop(session.id, None)
        if warning is not None:
            await self.bot.delete_message_quietly(*warning)
        sent = self._token_warnings.pop(session.id, None)
        if sent is not None:
            await self.bot.delete_ping_quietly(sent)

    # -- the session handler: the move ----------------------------------------------------

    def step(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        return moves.step(ctx, action, ai_delay=AI_MOVE_DELAY)

    def follow_up(self, ctx: StepContext, action: dict[str, Any]) -> NewSession:
        return moves.follow_up(ctx, action, ai_delay=AI_MOVE_DELAY)

    async def replay(self, session: Session, log: list[LoggedMove]) -> list[ReplayFrame]:
        """The finished game step by step, rebuilt from its event log (bot.ui.replay)."""
        return replay.frames(session, log)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(KnucklebonesCog(bot))
