"""The GameHandler of a secret duel (``SecretDuelHandler``, registered with
``bot.play.sessions``): its moves (``cogs.secret_duel.moves``), its public message
(``cogs.secret_duel.messages``) with the game's picture, each player's private controls and
what they turn into, and the "time is running out" DMs.

Secrecy: a player's own choice is shown only in their DM or their ephemeral message (the
"locked in" note); once the round is revealed, their DM shows the reveal. Nothing here logs
a choice.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Generic

import discord

from bot import i18n
from bot.i18n import _, number
from bot.model.contract import (
    LoggedMove,
    MessageFields,
    NewSession,
    Outcome,
    PrivateControls,
    ReplayFrame,
    Session,
    ShowContext,
    Step,
    StepContext,
    stop_cause,
)
from bot.model.text import clip
from bot.pictures import worker as picture_worker
from bot.pictures.picture import Picture
from bot.play.sessions import message_link
from bot.ui.challenges import is_challenge, ping_challenger
from bot.ui.host import GameHost
from cogs.secret_duel.game import SecretDuelGame, StateT
from cogs.secret_duel.messages import COLOUR_FINISHED, COLOUR_RUNNING, PublicMessage
from cogs.secret_duel.moves import SecretDuelMoves
from cogs.secret_duel.render import display_names, shown_names
from cogs.secret_duel.replay import SecretDuelReplay
from cogs.secret_duel.state import UiState, round_key, round_of_key
from game_core.base import Event

log = logging.getLogger(__name__)

# Endings that come with a reveal of the final round (not a forfeit or a timeout).
REVEALED_ENDS = ("normal", "round_cap")


class SecretDuelHandler(Generic[StateT]):
    """The GameHandler of one secret duel (registered with ``bot.play.sessions``)."""

    def __init__(self, bot: GameHost, rules: SecretDuelGame[StateT]) -> None:
        self.bot = bot
        self.rules = rules
        self.game = rules.game
        self.private_messages = True  # each player's choices, in a DM
        self.moves = SecretDuelMoves(rules)
        self.public = PublicMessage(self.moves)

    # -- the moves (inside the session's transaction) ---------------------------------------

    def step(self, ctx: StepContext, action: dict[str, Any]) -> Step:
        return self.moves.step(ctx, action)

    def follow_up(self, ctx: StepContext, action: dict[str, Any]) -> NewSession:
        return self.moves.follow_up(ctx, action)

    async def replay(self, session: Session, log: list[LoggedMove]) -> list[ReplayFrame]:
        """The finished game step by step, rebuilt from its event log (bot.ui.replay)."""
        settings = await self.bot.sessions.guild_settings(session.guild_id)
        return SecretDuelReplay(self.moves).frames(session, log, settings)

    def parse(self, session: Session) -> tuple[StateT, UiState] | None:
        """The engine state and ui of a started game; None while pending or setting up."""
        return self.moves.parse(session)

    def check_round(self, state: StateT, requested: object, *, by_dm: bool = True) -> int:
        """The current round, if ``requested`` is it; StaleControl / IllegalMove if not."""
        return self.moves.check_round(state, requested, by_dm=by_dm)

    def already_locked_text(self) -> str:
        """The English template of "already locked in" (an IllegalMove's message id)."""
        return self.moves.already_locked_text()

    # -- what players see (shown by the publisher) -----------------------------------------

    async def render(self, session: Session, context: ShowContext) -> MessageFields:
        parsed = None if is_challenge(session.state) else self.parse(session)
        if parsed is None:
            return self.public.render_unstarted(session, context.events)
        picture = None
        if self.rules.has_picture:
            view = self.rules.public_view(parsed[0])
            picture = await picture_worker.draw(
                self.rules.picture,
                view,
                display_names(session),
                self.public.stopped_sentence(session, parsed[1], context.events),
            )
        return self.public.render_public(
            session,
            cancelled_because=stop_cause(context.events),
            dm_closed=context.dm_closed,
            picture=picture,
        )

    def render_public(
        self,
        session: Session,
        *,
        cancelled_because: str | None = None,
        dm_closed: frozenset[int] = frozenset(),
        picture: Picture | None = None,
    ) -> dict[str, Any]:
        """The public message of a started game (``PublicMessage.render_public``)."""
        return self.public.render_public(
            session, cancelled_because=cancelled_because, dm_closed=dm_closed, picture=picture
        )

    # -- each player's private messages -----------------------------------------------------

    def private_controls(self, session: Session, seat: int) -> PrivateControls | None:
        """This round's secret controls, for a player who still has to lock in."""
        parsed = self.parse(session)
        if parsed is None or not session.is_open:
            return None
        state, ui = parsed
        if self.rules.is_finished(state) or not self.rules.is_secret(state):
            return None
        if seat not in self.rules.waiting_for(state):
            return None

        def render() -> MessageFields:
            embed, view = self.rules.controls(session, seat, state, "", ui)
            return {"embed": embed, "view": view}

        return PrivateControls(key=round_key(self.rules.round_of(state)), render=render)

    def private_after(self, session: Session, seat: int, key: str) -> MessageFields:
        """What a player's controls for round ``key`` become: their locked-in choice while
        the round goes on, the round's reveal once it is over, the result at the end."""
        parsed = self.parse(session)
        if parsed is None:
            return {
                "embed": discord.Embed(
                    title=_("{game} — game over").format(game=self.rules.shown_title()),
                    colour=COLOUR_FINISHED,
                ),
                "view": None,
            }
        state, ui = parsed
        round_no = round_of_key(key)
        if session.is_open and round_no == self.rules.round_of(state):
            return {"embed": self.render_locked(session, state, seat), "view": None}
        final = not session.is_open
        embed = self.render_dm_retired(session, state, ui, seat, round_no, final=final)
        return {"embed": embed, "view": None}

    def gather_after(self, outcome: Outcome) -> float:
        return 0.0  # every move is shown at once

    async def notify(self, outcome: Outcome) -> None:
        await ping_challenger(self.bot, outcome)
        if any(event.get("type") == "round_warning" for event in outcome.events):
            await self._send_warnings(outcome.session, outcome)

    async def _send_warnings(self, session: Session, outcome: Outcome) -> None:
        seats: list[int] = next(
            (e.get("seats", []) for e in outcome.events if e.get("type") == "round_warning"), []
        )
        parsed = self.parse(session)
        if parsed is None:
            return
        state, ui = parsed
        if session.reach == "interaction":
            await self._ping_warnings(session, state, ui, seats)
            return
        # Each warning speaks its player's language (the one their client last reported).
        await self.bot.languages.load(seat.user_id for seat in session.seats if not seat.is_ai)
        for seat in session.seats:
            if seat.is_ai or seat.seat not in seats:
                continue
            with i18n.use(self.bot.languages.of(seat.user_id)):
                text = self.warning_text(session, state, ui)
            try:
                await self.bot.send_dm(seat.user_id, content=text)
            except discord.HTTPException as error:
                log.info("could not send a duel warning DM (HTTP %s)", error.status)

    async def _ping_warnings(
        self, session: Session, state: StateT, ui: UiState, seats: list[int]
    ) -> None:
        """A game reached only through interactions warns under its message (through its
        kept token, pinging only the player), never by DM: its players need not share a
        server with the bot. In the game's language: the reply is public."""
        deadline = f"<t:{int(ui.deadline_at)}:R>"
        for seat in session.seats:
            if seat.is_ai or seat.seat not in seats:
                continue
            if self.rules.is_secret(state):
                template = _(
                    "⏰ {player}, time is running out in this **{game}** game: press **Make "
                    "your move** and lock in {deadline}, or you forfeit."
                )
            else:
                template = _(
                    "⏰ {player}, time is running out in this **{game}** game: press **Roll** "
                    "{deadline}, or you forfeit."
                )
            text = template.format(
                player=f"<@{seat.user_id}>", game=self.rules.shown_title(), deadline=deadline
            )
            try:
                await self.bot.ping_under_game(session, seat.user_id, text)
            except discord.HTTPException as error:
                log.info("could not send a duel warning (HTTP %s)", error.status)

    def warning_text(self, session: Session, state: StateT, ui: UiState) -> str:
        """The "time is running out" DM, in the current language."""
        if self.rules.is_secret(state):
            template = _(self.rules.round_texts.warning)
        else:
            template = _(
                "⏰ Time is running out in your **{game}** game in {channel}: press "
                "**Roll** on the game message {deadline} or you forfeit. {link}"
            )
        return template.format(
            game=self.rules.shown_title(),
            channel=f"<#{session.channel_id}>",
            deadline=f"<t:{int(ui.deadline_at)}:R>",
            link=message_link(session) or "",
        ).strip()

    # -- the private notes ---------------------------------------------------------------------

    def render_locked(self, session: Session, state: StateT, seat: int) -> discord.Embed:
        """A player's own "locked in" note (their DM or ephemeral): it names their choice."""
        own = self.rules.private_view(state, seat).get("your_choice")
        title = _(self.rules.round_texts.locked_title).format(
            game=self.rules.shown_title(), round=number(self.rules.round_of(state))
        )
        embed = discord.Embed(title=clip(f"🔒 {title}", 256), colour=COLOUR_RUNNING)
        lines = []
        shown = None if own is None else self.rules.choice_text(own)
        if shown is not None:
            lines.append(_("Your choice: {choice}").format(choice=shown))
        lines.append(_("A choice is final. The reveal comes as soon as your opponent locks in."))
        link = message_link(session)
        if link:
            lines.append(_("Game message: {link}").format(link=link))
        embed.description = "\n".join(lines)
        return embed

    def render_dm_retired(
        self, session: Session, state: StateT, ui: UiState, seat: int, round_no: int, *, final: bool
    ) -> discord.Embed:
        """What a player's DM controls turn into once their round (or the game) is over:
        the reveal of that round (public by now) and a link to the game message."""
        link = message_link(session)
        result = self.rules.result(state) if final else None
        # The last reveal belongs to the DMed round unless the game ended without one.
        reveal_round = ui.reveal and (
            not final or (result is not None and result.reason in REVEALED_ENDS)
        )
        lines: list[str] = []
        if reveal_round:
            own = revealed_choice(ui.reveal, seat)
            shown = None if own is None else self.rules.choice_text(own)
            if shown is not None:
                lines.append("🔒 " + _("Locked in: {choice}").format(choice=shown))
            lines.extend(self.rules.narrate(ui.reveal, shown_names(session)))
        game = self.rules.shown_title()
        if final:
            if result is None:
                headline = _("The game has ended.")
            elif result.draw:
                headline = "🤝 " + _("The game ended in a draw.")
            elif seat in result.winners:
                headline = "🏆 " + _("You won!")
            else:
                headline = _("You lost this one.")
            title = _("{game} — game over").format(game=game)
            lines.append("")
            lines.append(headline)
        else:
            title = _(self.rules.round_texts.over_title).format(game=game, round=number(round_no))
            lines.append("")
            if session.reach == "interaction":
                # No DMs between friends: the next controls are the button's.
                lines.append(_("Your next choice: press **Make your move** on the game message."))
            else:
                lines.append(_(self.rules.round_texts.next_controls))
        embed = discord.Embed(
            title=clip(title, 256),
            description="\n".join(lines).strip()[:4096],
            colour=COLOUR_FINISHED if final else COLOUR_RUNNING,
        )
        if link:
            embed.add_field(name=_("Game message"), value=link, inline=False)
        return embed


def revealed_choice(reveal: Sequence[Event], seat: int) -> Any | None:
    """What ``seat`` locked in, as the reveal showed it (both games' reveal event lists
    the choices per seat)."""
    summary = next((event for event in reveal if event.get("type") == "reveal"), None)
    choices = None if summary is None else summary.get("choices")
    if not isinstance(choices, list) or not 0 <= seat < len(choices):
        return None
    return choices[seat]
