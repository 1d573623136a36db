"""``/knucklebones``: the Discord side of Knucklebones (rules in ``game_core.knucklebones``).

The session state is a ``Table``: the engine's state plus what the bot adds (the AI level,
the current turn's deadline, whether its warning went out, per-seat column picks for the
stats). Seat 0 is the challenger (or the human facing the AI), seat 1 the opponent.

Actions the handler's ``step`` accepts:

- ``{"type": "place", "column": 0-2, "turn": n}`` from a player's button press; ``turn`` is
  the board the press was made on, so an outdated board or a double press moves nothing.
- ``{"type": "forfeit"}`` from either player (the ``/knucklebones forfeit`` command).
- System actions, fired by durable deadlines: ``{"type": "ai_move", "turn": n}`` (the AI
  plays ~0.7 s after its turn begins), ``{"type": "warn", "turn": n}`` and
  ``{"type": "timeout", "turn": n}``.
- While the session is a pending challenge, the shared challenge actions.
"""

from __future__ import annotations

import logging
import random
import re
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands
from pydantic import BaseModel, Field

from bot import i18n
from bot.app import DiceBot
from bot.i18n import N_, _, ngettext, number
from bot.model.contract import (
    Deadline,
    MessageFields,
    NewSession,
    Outcome,
    PrivateControls,
    Seat,
    Session,
    ShowContext,
    Step,
    StepContext,
    cancel_reason,
    stopped_text,
)
from bot.model.errors import NotYourGame, StaleControl, UserError
from bot.model.series import (
    BEST_OF_HELP,
    BestOf,
    Series,
    challenge_line,
    is_rematch,
    keep_series,
    load_series,
    match_over_after,
    new_match,
    next_in_match,
    rematch_after,
    running_line,
    series_of,
    with_series,
)
from bot.model.text import escape
from bot.pictures import worker as picture_worker
from bot.play.guild_settings import GuildSettings
from bot.ui.answers import answer_for
from bot.ui.challenges import (
    act_on_challenge,
    challenge_deadlines,
    challenge_message_text,
    challenge_state,
    challenge_step,
    challenge_view,
    is_challenge,
    ping_challenger,
    refuse_answered_challenge,
    refuse_next_game,
    refuse_unfinished,
    rematch_challenge,
)
from bot.ui.rematch import finished_two_player, play_on_label
from bot.ui.replies import Guarded
from cogs.knucklebones import render
from game_core import knucklebones as kb
from game_core.ai import knucklebones as kb_ai
from game_core.base import Event
from game_core.errors import IllegalMove

log = logging.getLogger(__name__)

GAME = "knucklebones"
# The game's name: a proper name in every language, still shown through ``_``.
TITLE = N_("Knucklebones")
# The AI's move is a durable deadline this far ahead: quick enough to feel like an
# answer, slow enough that the player sees their own move land first.
AI_MOVE_DELAY = 0.7
# The turn warning goes out this long before the timeout (capped to a fifth of the turn,
# so a short turn still leaves the warned player most of their time).
WARNING_LEAD_SECONDS = 60.0
WARNING_LEAD_FRACTION = 0.2

# Why a game stopped when the cancel gave no reason.
STOPPED_BEFORE_THE_END = N_("stopped before the end")

FirstChoice = Literal["random", "me", "them"]
AiLevel = Literal["easy", "medium", "hard"]

BOARD_MOVED_ON = N_(
    "That board has moved on (it is turn {turn} now), so your press was not applied. "
    "Use the buttons on the updated board."
)


class Table(BaseModel):
    """A running or finished game as stored in the session row."""

    engine: kb.KnucklebonesState
    first_choice: FirstChoice = "random"
    ai_level: AiLevel | None = None
    ai_seat: int | None = None
    # When the current (human) turn times out; None on the AI's turn and at the end.
    turn_due_at: float | None = None
    warned_turn: int | None = None
    # For /stats: how often each seat used each column, and how many dice it knocked out.
    column_picks: list[list[int]] = Field(default_factory=lambda: [[0, 0, 0], [0, 0, 0]])
    knocked_out: list[int] = Field(default_factory=lambda: [0, 0])

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def first_seat_for(choice: str) -> int | None:
    """``first`` as the command says it (from seat 0's point of view) -> the engine's seat."""
    if choice == "me":
        return 0
    if choice == "them":
        return 1
    if choice == "random":
        return None
    raise IllegalMove("Who moves first must be random, me or them.")


def warning_lead(timeout_seconds: float) -> float:
    return min(WARNING_LEAD_SECONDS, timeout_seconds * WARNING_LEAD_FRACTION)


def schedule_turn(table: Table, now: float, settings: GuildSettings) -> list[Deadline]:
    """Set the turn's timing on ``table`` (in place) and return the timers it needs."""
    engine = table.engine
    table.warned_turn = None
    if engine.phase == "finished":
        table.turn_due_at = None
        return []
    turn = engine.turn
    if engine.current_player == table.ai_seat:
        table.turn_due_at = None
        return [
            Deadline("ai_move", now + AI_MOVE_DELAY, {"type": "ai_move", "turn": turn}),
        ]
    timeout = float(settings.turn_timeout_seconds)
    due = now + timeout
    table.turn_due_at = due
    return [
        Deadline("turn_warning", due - warning_lead(timeout), {"type": "warn", "turn": turn}),
        Deadline("turn_timeout", due, {"type": "timeout", "turn": turn}),
    ]


def open_table(
    rng: random.Random,
    now: float,
    settings: GuildSettings,
    *,
    first_choice: str,
    ai_level: AiLevel | None = None,
    ai_seat: int | None = None,
) -> tuple[Table, list[Event], list[Deadline]]:
    engine, events = kb.new_game(rng, first_seat_for(first_choice))
    table = Table(
        engine=engine,
        first_choice=first_choice,  # type: ignore[arg-type]
        ai_level=ai_level,
        ai_seat=ai_seat,
    )
    deadlines = schedule_turn(table, now, settings)
    return table, events, deadlines


def summary_of(table: Table) -> dict[str, Any]:
    """What /stats and /history show for a finished game (keys documented in the report)."""
    view = kb.public_view(table.engine)
    return {
        "score_line": render.score_line(view["scores"]),
        "first_seat": table.engine.first_player,
        "scores": list(view["scores"]),
        "turns": table.engine.turn,
        "column_picks": [list(picks) for picks in table.column_picks],
        "knocked_out": list(table.knocked_out),
        "ai_level": table.ai_level,
    }


def two_names(session: Session) -> dict[str, str]:
    """The two players' names (escaped), seat 0 first, for a sentence naming both."""
    first, second = (escape(session.user_of(seat).display_name) for seat in (0, 1))
    return {"player": first, "opponent": second}


def players_of(session: Session) -> list[render.Player]:
    return [
        render.Player(
            seat=seat.seat, user_id=seat.user_id, name=seat.display_name, is_ai=seat.is_ai
        )
        for seat in sorted(session.seats, key=lambda seat: seat.seat)
    ]


# ---------------------------------------------------------------------------------------
# The session handler's step (pure: state, action, injected rng and time)
# ---------------------------------------------------------------------------------------


def step_action(ctx: StepContext, action: dict[str, Any]) -> Step:
    """The handler's ``step``: one action on a Knucklebones session (see the module doc).
    A game of a match or a rematch chain keeps its series for its whole life."""
    step = _step(ctx, action)
    keep_series(ctx.session.state, step.state)
    return step


def _step(ctx: StepContext, action: dict[str, Any]) -> Step:
    if is_challenge(ctx.session.state):
        return challenge_step(ctx, action, _start_from_challenge)
    refuse_answered_challenge(ctx, action)
    table = Table.model_validate(ctx.session.state)
    kind = action.get("type")
    if kind == "place":
        return _place(ctx, table, action)
    if kind == "forfeit":
        return _forfeit(ctx, table)
    if ctx.actor_id is not None:
        raise IllegalMove("That is not something a player can do in Knucklebones.")
    if action.get("turn") != table.engine.turn:
        raise IllegalMove("That timer belongs to an earlier turn.")
    if kind == "ai_move":
        return _ai_move(ctx, table)
    if kind == "warn":
        return _warn(ctx, table)
    if kind == "timeout":
        engine, events = kb.apply(
            table.engine, kb.Timeout(player=table.engine.current_player), ctx.rng
        )
        return _finish(table, engine, events)
    raise IllegalMove("That is not a Knucklebones move.")


def _start_from_challenge(ctx: StepContext, options: dict[str, Any]) -> Step:
    table, events, deadlines = open_table(
        ctx.rng,
        ctx.now,
        ctx.guild_settings,
        first_choice=str(options.get("first", "random")),
    )
    return Step(state=table.dump(), events=events, status="active", deadlines=deadlines)


def _place(ctx: StepContext, table: Table, action: dict[str, Any]) -> Step:
    seat = ctx.seat
    if seat is None:
        raise NotYourGame(
            _(
                "This is not your game: it is between {player} and {opponent}. Start your "
                "own with `/knucklebones challenge` or `/knucklebones ai`."
            ).format(**two_names(ctx.session))
        )
    engine = table.engine
    if action.get("turn") != engine.turn or engine.phase == "finished":
        raise StaleControl(_(BOARD_MOVED_ON).format(turn=number(engine.turn)))
    if seat != engine.current_player:
        mover = escape(ctx.session.user_of(engine.current_player).display_name)
        raise NotYourGame(
            _("It is not your turn: {player} is placing a die right now.").format(player=mover)
        )
    column = action.get("column")
    if not kb.is_int(column) or column not in (0, 1, 2):
        raise IllegalMove("Choose one of your three columns (1, 2 or 3).")
    return _apply_place(ctx, table, seat, column)


def _ai_move(ctx: StepContext, table: Table) -> Step:
    engine = table.engine
    seat = engine.current_player
    if seat != table.ai_seat or table.ai_level is None or engine.die is None:
        raise IllegalMove("It is not the AI's turn.")
    column = kb_ai.choose_for_state(engine, seat, table.ai_level, ctx.rng)
    return _apply_place(ctx, table, seat, column)


def _apply_place(ctx: StepContext, table: Table, seat: int, column: int) -> Step:
    engine, events = kb.apply(table.engine, kb.place_action(seat, column), ctx.rng)
    table.column_picks[seat][column] += 1
    for event in events:
        if event.get("type") == "placed":
            table.knocked_out[seat] += int(event.get("removed", 0))
    if engine.phase == "finished":
        return _finish(table, engine, events)
    table.engine = engine
    deadlines = schedule_turn(table, ctx.now, ctx.guild_settings)
    return Step(state=table.dump(), events=events, status="active", deadlines=deadlines)


def _forfeit(ctx: StepContext, table: Table) -> Step:
    seat = ctx.seat
    if seat is None:
        raise NotYourGame()
    engine, events = kb.apply(table.engine, kb.Forfeit(player=seat), ctx.rng)
    return _finish(table, engine, events)


def _warn(ctx: StepContext, table: Table) -> Step:
    due = table.turn_due_at
    if table.warned_turn == table.engine.turn or due is None:
        raise IllegalMove("This turn's warning already went out.")
    if ctx.now >= due:
        # Both timers passed (the bot was down): the timeout speaks for itself.
        raise IllegalMove("Too late to warn: the turn has already timed out.")
    table.warned_turn = table.engine.turn
    event: Event = {
        "type": "turn_warning",
        "player": table.engine.current_player,
        "turn": table.engine.turn,
        "due_at": due,
    }
    return Step(state=table.dump(), events=[event], status="active", deadlines=None)


def _finish(table: Table, engine: kb.KnucklebonesState, events: list[Event]) -> Step:
    table.engine = engine
    table.turn_due_at = None
    result = kb.result(engine)
    assert result is not None
    return Step(
        state=table.dump(),
        events=events,
        status="finished",
        deadlines=[],
        result=result,
        summary=summary_of(table),
    )


# ---------------------------------------------------------------------------------------
# Playing on: a rematch, or a match's next game (SessionService.follow_up)
# ---------------------------------------------------------------------------------------


def winner_of(session: Session, table: Table) -> int | None:
    """The user who won a finished game (None: a draw)."""
    result = kb.result(table.engine)
    if result is None or result.draw or not result.winners:
        return None
    return session.user_of(result.winners[0]).user_id


def follow_up_for(ctx: StepContext, action: dict[str, Any]) -> NewSession:
    """The game a finished one leads to: the match's next game (at once), or a rematch (at
    once against the AI; a challenge the other player accepts otherwise). The player who
    moved second moves first; the AI's level and the match's length carry over."""
    previous = ctx.session
    if ctx.seat is None:
        raise NotYourGame(
            _(
                "Only {player} and {opponent} can play on from this game. Start your own "
                "with `/knucklebones challenge` or `/knucklebones ai`."
            ).format(**two_names(previous))
        )
    refuse_unfinished(previous)
    table = Table.model_validate(previous.state)
    winner = winner_of(previous, table)
    series = series_of(
        (previous.user_of(0).user_id, previous.user_of(1).user_id), load_series(previous.state)
    )
    first_seat = 1 - table.engine.first_player
    kind = action.get("type")
    if kind == "next":
        refuse_next_game(series, winner)
        return _new_table(ctx, table, next_in_match(series, winner, previous.id), first_seat)
    if kind != "rematch":
        raise IllegalMove("That is not something to do with a finished Knucklebones game.")
    if series.is_match and not match_over_after(series, winner):
        # Translators: {button} is the label of the button that starts the match's next
        # game ("Start game 2").
        raise UserError(
            _("The match goes on: press **{button}**.").format(
                button=play_on_label("next", series.game + 1)[0]
            )
        )
    again = rematch_after(series, winner, previous.id)
    if previous.vs_ai:
        return _new_table(ctx, table, again, first_seat)
    first_user = previous.user_of(first_seat).user_id
    options = {"first": "me" if first_user == ctx.actor_id else "them"}
    return rematch_challenge(ctx, action, options, again)


def _new_table(ctx: StepContext, table: Table, series: Series, first_seat: int) -> NewSession:
    """A game that starts at once, with the previous game's seats."""
    new, events, deadlines = open_table(
        ctx.rng,
        ctx.now,
        ctx.guild_settings,
        first_choice="me" if first_seat == 0 else "them",
        ai_level=table.ai_level,
        ai_seat=table.ai_seat,
    )
    players = [seat for seat in ctx.session.seats if not seat.is_ai]
    return NewSession(
        seats=list(ctx.session.seats),
        state=with_series(new.dump(), series),
        status="active",
        deadlines=deadlines,
        events=events,
        ping=[seat.user_id for seat in players if seat.user_id != ctx.actor_id],
    )


# ---------------------------------------------------------------------------------------
# Components
# ---------------------------------------------------------------------------------------

COLUMN_TEMPLATE = r"kb:(?P<session_id>[0-9]{1,19}):(?P<turn>[0-9]{1,6}):col:(?P<column>[0-2])"


def column_custom_id(session_id: int, turn: int, column: int) -> str:
    return f"kb:{session_id}:{turn}:col:{column}"


class ColumnButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=COLUMN_TEMPLATE,
):
    """Column 1/2/3 on the board of the player to move. The custom_id names the board
    (session and turn), so it keeps working after a restart with no view in memory."""

    def __init__(self, session_id: int, turn: int, column: int, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                # Translators: the buttons under the board, one per column.
                label=_("Column {column}").format(column=number(column + 1)),
                style=discord.ButtonStyle.primary,
                custom_id=column_custom_id(session_id, turn, column),
                disabled=disabled,
            )
        )
        self.session_id = session_id
        self.turn = turn
        self.column = column

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ColumnButton:
        return cls(int(match["session_id"]), int(match["turn"]), int(match["column"]))

    async def handle(self, interaction: discord.Interaction) -> None:
        client = interaction.client
        assert isinstance(client, DiceBot)
        async with client.publisher.answering(self.session_id) as show:
            outcome = await client.sessions.act(
                self.session_id,
                interaction.user.id,
                {"type": "place", "column": self.column, "turn": self.turn},
                on_message=None if interaction.message is None else interaction.message.id,
            )
            # The move is committed: the answer edits the board in place; if Discord loses
            # it, the publisher edits the board instead.
            await show(answer_for(interaction), outcome.session, outcome.events)


def board_view(session_id: int, view: dict[str, Any], mover_is_ai: bool) -> discord.ui.View | None:
    """The Column buttons for the player to move, full columns disabled; while the AI
    thinks, all three stay on the board disabled (the message keeps its layout). None once
    the game is over."""
    if view["finished"]:
        return None
    mover = view["current_player"]
    buttons = discord.ui.View(timeout=None)
    for column in range(3):
        full = column not in view["open_columns"][mover]
        buttons.add_item(
            ColumnButton(session_id, view["turn"], column, disabled=full or mover_is_ai)
        )
    return buttons


# ---------------------------------------------------------------------------------------
# The cog: slash commands, and the session handler (step + publish)
# ---------------------------------------------------------------------------------------


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
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.sessions.register(self)
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
    @app_commands.guild_only()
    async def challenge(
        self,
        interaction: discord.Interaction,
        opponent: discord.Member,
        first: FirstChoice = "random",
        best_of: BestOf = 1,
    ) -> None:
        user = interaction.user
        if opponent.id == user.id:
            raise UserError(
                _("You can't challenge yourself. Play against me with `/knucklebones ai`.")
            )
        if opponent.bot:
            raise UserError(
                _(
                    "{player} is a bot and can't accept challenges. "
                    "Play against me with `/knucklebones ai` instead."
                ).format(player=escape(opponent.display_name))
            )
        first_seat_for(first)  # refuse a bad option now, not when the challenge is accepted
        assert interaction.guild_id is not None and interaction.channel_id is not None
        settings = await self.bot.sessions.guild_settings(interaction.guild_id)
        expires_at = self.bot.clock.now() + settings.challenge_expiry_seconds
        challenger = Seat(seat=0, user_id=user.id, display_name=user.display_name)
        challenged = Seat(seat=1, user_id=opponent.id, display_name=opponent.display_name)
        session = await self.bot.sessions.create(
            game=GAME,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            created_by=user.id,
            seats=[challenger, challenged],
            state=with_series(
                challenge_state(challenger, challenged, {"first": first}, expires_at),
                new_match(user.id, opponent.id, best_of),
            ),
            status="pending",
            deadlines=challenge_deadlines(expires_at),
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
    @app_commands.guild_only()
    async def ai(
        self,
        interaction: discord.Interaction,
        difficulty: AiLevel = "medium",
        first: FirstChoice = "random",
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        assert self.bot.user is not None
        user = interaction.user
        settings = await self.bot.sessions.guild_settings(interaction.guild_id)
        # The opening roll uses a fresh seed from the session service's source, so a test
        # bot built with a seed is repeatable.
        rng = random.Random(self.bot.sessions.seeds.next())
        table, events, deadlines = open_table(
            rng,
            self.bot.clock.now(),
            settings,
            first_choice=first,
            ai_level=difficulty,
            ai_seat=1,
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
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            created_by=user.id,
            seats=seats,
            state=table.dump(),
            status="active",
            deadlines=deadlines,
            events=events,
        )
        fields = await self.render(session, ShowContext(events=events))
        await self.bot.publisher.post_first(interaction, session, fields)

    @app_commands.command(
        name="forfeit", description="Give up your Knucklebones game in this channel."
    )
    @app_commands.guild_only()
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
            await answer.send(self._cancelled_text(outcome.session, outcome.events))
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
                    for line in (first_details(challenge), challenge_line(series, names))
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
                "content": self._cancelled_text(session, events or []),
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
        reason = (cancel_reason(events or []) or _(STOPPED_BEFORE_THE_END)) if cancelled else None
        # The picture thread does not inherit this task's language: it is passed along. A
        # stopped game's board shows it as it stood, with nobody to move.
        picture = await picture_worker.draw(
            render.render_board,
            view,
            players,
            i18n.current(),
            None if reason is None else stopped_text(reason),
        )
        content = render.status_line(view, players, clock, ai_level=table.ai_level)
        buttons: discord.ui.View | None = None
        if reason is not None:
            # Translators: {reason} says how the game ended, e.g. "stopped by an admin".
            content = _("🛑 This Knucklebones game was {reason}; no result counts.").format(
                reason=reason
            )
        elif session.is_open:
            mover_is_ai = view["current_player"] == table.ai_seat
            buttons = board_view(session.id, view, mover_is_ai)
            line = running_line(series, names)
            if line:
                content += "\n" + line
        else:
            lines, buttons = finished_two_player(session, series, winner_of(session, table))
            content = "\n".join([content, *lines])
        return {
            "content": content,
            "embed": None,
            "attachments": [picture.file()],
            "view": buttons,
            "allowed_mentions": discord.AllowedMentions.none(),
        }

    def _cancelled_text(self, session: Session, events: list[Event]) -> str:
        challenge = session.state.get("challenge", {})
        fields = {
            "challenger": f"<@{challenge.get('challenger')}>",
            "opponent": f"<@{challenge.get('opponent')}>",
        }
        kinds = {event.get("type") for event in events}
        rematch = is_rematch(session.state)
        if "challenge_declined" in kinds:
            if rematch:
                return _("❌ {opponent} declined {challenger}'s Knucklebones rematch.").format(
                    **fields
                )
            return _("❌ {opponent} declined {challenger}'s Knucklebones challenge.").format(
                **fields
            )
        if "challenge_withdrawn" in kinds:
            if rematch:
                return _("↩️ {challenger} withdrew the Knucklebones rematch to {opponent}.").format(
                    **fields
                )
            return _("↩️ {challenger} withdrew the Knucklebones challenge to {opponent}.").format(
                **fields
            )
        if "challenge_expired" in kinds:
            minutes = max(1, round((challenge.get("expires_at", 0) - session.created_at) / 60))
            if rematch:
                text = ngettext(
                    "⌛ {challenger}'s Knucklebones rematch to {opponent} expired: it was not "
                    "accepted within {count} minute.",
                    "⌛ {challenger}'s Knucklebones rematch to {opponent} expired: it was not "
                    "accepted within {count} minutes.",
                    minutes,
                )
            else:
                text = ngettext(
                    "⌛ {challenger}'s Knucklebones challenge to {opponent} expired: it was not "
                    "accepted within {count} minute.",
                    "⌛ {challenger}'s Knucklebones challenge to {opponent} expired: it was not "
                    "accepted within {count} minutes.",
                    minutes,
                )
            return text.format(count=number(minutes), **fields)
        reason = cancel_reason(events)
        if reason:
            # Translators: {reason} says how it ended, e.g. "stopped by an admin".
            if rematch:
                text = _(
                    "🛑 The Knucklebones rematch between {challenger} and {opponent} was {reason}."
                )
            else:
                text = _(
                    "🛑 The Knucklebones challenge between {challenger} and {opponent} was "
                    "{reason}."
                )
            return text.format(reason=_(reason), **fields)
        if rematch:
            return _(
                "This Knucklebones rematch between {challenger} and {opponent} is closed."
            ).format(**fields)
        return _(
            "This Knucklebones challenge between {challenger} and {opponent} is closed."
        ).format(**fields)

    def gather_after(self, outcome: Outcome) -> float:
        return 0.0  # every move is shown at once

    # -- the session handler: pings after a commit ----------------------------------------

    async def notify(self, outcome: Outcome) -> None:
        session = outcome.session
        await ping_challenger(self.bot, outcome)
        if outcome.actor_id is not None and outcome.action.get("type") == "place":
            await self.retire_warning(session.id)
        if not session.is_open:
            # A timeout's warning stays: it explains the ending.
            self._warnings.pop(session.id, None)
        if any(event.get("type") == "turn_warning" for event in outcome.events):
            await self._send_warning(session)

    async def _send_warning(self, session: Session) -> None:
        table = Table.model_validate(session.state)
        if table.turn_due_at is None or session.message_id is None:
            return
        player = players_of(session)[table.engine.current_player]
        text = render.warning_text(player, table.turn_due_at)
        sent = await self.bot.ping_under_game(session, player.user_id, text)
        self._warnings[session.id] = (session.channel_id, sent.id)

    async def retire_warning(self, session_id: int) -> None:
        """Delete the turn-warning ping of a session whose player has now moved."""
        warning = self._warnings.pop(session_id, None)
        if warning is not None:
            await self.bot.delete_message_quietly(*warning)

    # -- the session handler: the move ----------------------------------------------------

    def step(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        return step_action(ctx, action)

    def follow_up(self, ctx: StepContext, action: dict[str, Any]) -> NewSession:
        return follow_up_for(ctx, action)


def first_details(challenge: dict[str, Any]) -> str:
    """The challenge message's line about who moves first."""
    first = (challenge.get("options") or {}).get("first", "random")
    if first == "me":
        return _("{player} moves first.").format(player=f"<@{challenge['challenger']}>")
    if first == "them":
        return _("{player} moves first.").format(player=f"<@{challenge['opponent']}>")
    return _("A coin flip decides who moves first.")


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(KnucklebonesCog(bot))
