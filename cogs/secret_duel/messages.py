"""A secret duel's public message: the challenge while it waits for an answer (and what it
says once closed), then the game: one line on top, the last reveal, who has locked in
(never what), the bars or the picture, time left and the buttons; at the end the result.

Built from the engine's ``public_view`` and the revealed events only: a choice shows here
only once both players have locked in and the round is revealed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic

import discord

from bot.i18n import _, list_of, number
from bot.model.command_mentions import command_mention
from bot.model.contract import (
    MessageFields,
    Session,
    stop_cause,
    stopped_challenge_text,
    stopped_text,
)
from bot.model.series import challenge_line, is_rematch, load_series, running_line
from bot.model.text import clip, escape
from bot.pictures import palette
from bot.pictures.picture import Picture
from bot.ui.challenges import challenge_message_text, challenge_view, is_challenge
from bot.ui.rematch import finished_two_player
from cogs.secret_duel.game import StateT
from cogs.secret_duel.moves import SecretDuelMoves
from cogs.secret_duel.render import describe_seconds, life_bar, raw_names, shown_names
from cogs.secret_duel.state import UiState
from game_core.base import Event

CLOSED_CHALLENGE_EVENTS = {
    "challenge_declined": "declined",
    "challenge_withdrawn": "withdrawn",
    "challenge_expired": "expired",
}
COLOUR_RUNNING = discord.Colour(palette.EMBED_RUNNING)
COLOUR_FINISHED = discord.Colour(palette.EMBED_FINISHED)
COLOUR_CANCELLED = discord.Colour(palette.EMBED_CANCELLED)


class PublicMessage(Generic[StateT]):
    """What one secret duel's public message shows, for each state of its session."""

    def __init__(self, moves: SecretDuelMoves[StateT]) -> None:
        self.moves = moves
        self.rules = moves.rules

    def render_unstarted(self, session: Session, events: list[Event]) -> MessageFields:
        """The message of a game that has not begun: its challenge (open, or closed by
        ``events`` or since), or a game against the AI being set up."""
        types = {event.get("type") for event in events}
        closed = next(
            (CLOSED_CHALLENGE_EVENTS[t] for t in types if t in CLOSED_CHALLENGE_EVENTS), None
        )
        if is_challenge(session.state):
            if closed is not None:
                return self.render_closed_challenge(session, closed)
            if not session.is_open:
                return self.render_closed_challenge(session, "closed", stop_cause(events))
            challenge = session.state["challenge"]
            series = challenge_line(load_series(session.state), raw_names(session))
            details = self.rules.challenge_details(challenge.get("options") or {})
            text = challenge_message_text(
                self.rules.shown_title(),
                challenge["challenger"],
                challenge["opponent"],
                challenge["expires_at"],
                f"{details}\n{series}" if series else details,
                rematch=is_rematch(session.state),
            )
            return {"content": text, "embed": None, "view": challenge_view(session.id)}
        # A game against the AI being set up: shown for a moment, if at all.
        return {
            "content": f"{self.rules.emoji} " + _("Setting up the game…"),
            "embed": None,
            "view": None,
        }

    def render_closed_challenge(
        self, session: Session, how: str, cause: str | None = None
    ) -> dict[str, Any]:
        challenge = session.state.get("challenge", {})
        challenger, opponent = challenge.get("challenger"), challenge.get("opponent")
        rematch = is_rematch(session.state)
        if how == "declined":
            template = (
                _("{opponent} declined the {game} rematch from {challenger}.")
                if rematch
                else _("{opponent} declined the {game} challenge from {challenger}.")
            )
        elif how == "withdrawn":
            template = (
                _("{challenger} withdrew the {game} rematch to {opponent}.")
                if rematch
                else _("{challenger} withdrew the {game} challenge to {opponent}.")
            )
        elif how == "expired":
            template = (
                _("The {game} rematch from {challenger} to {opponent} expired without an answer.")
                if rematch
                else _(
                    "The {game} challenge from {challenger} to {opponent} expired without an "
                    "answer."
                )
            )
        else:
            template = stopped_challenge_text(cause, rematch=rematch)
        text = template.format(
            game=self.rules.shown_title(),
            challenger=f"<@{challenger}>",
            opponent=f"<@{opponent}>",
        )
        return {"content": text, "embed": None, "view": None}

    def render_public(
        self,
        session: Session,
        *,
        cancelled_because: str | None = None,
        dm_closed: frozenset[int] = frozenset(),
        picture: Picture | None = None,
    ) -> dict[str, Any]:
        """The public message: one line on top (the players, or the result naming the
        winner), the last reveal and who has locked in (never what) in the embed, the
        picture where the game has one (bars and seat details are then left to it), time
        left, and the buttons. Built from the public view only. ``cancelled_because`` is
        the stored reason a cancel that just happened gave
        (``stop_cause``)."""
        parsed = self.moves.parse(session)
        assert parsed is not None
        state, ui = parsed
        view = self.rules.public_view(state)
        names = shown_names(session)
        values, maximum = self.rules.vitals(view)
        finished = not session.is_open
        round_no = self.rules.round_of(state)
        secret = self.rules.is_secret(state)
        game = self.rules.shown_title()
        subtitle = self.rules.subtitle(view)
        if finished:
            title = _("{game} — game over").format(game=game)
        else:
            title = _(self.rules.round_texts.heading).format(game=game, round=number(round_no))
        title = clip(f"{self.rules.emoji} {title}", 256)
        ended = self.rules.result(state)
        if session.status == "cancelled" or (finished and ended is None):
            colour = COLOUR_CANCELLED
        else:
            colour = COLOUR_FINISHED if finished else COLOUR_RUNNING
        embed = discord.Embed(title=title, colour=colour)
        lines: list[str] = []
        if subtitle:
            lines.append(subtitle)
        if ui.reveal:
            lines.extend(self.rules.narrate(ui.reveal, names))
        if not finished:
            lines.append("")
            lines.append(self._status_line(session, state, ui, names, cancelled_because))
        embed.description = "\n".join(lines).strip()[:4096] or None
        locked = view.get("locked_in", [False, False])
        for seat in (0, 1):
            entry = session.user_of(seat)
            field_lines = []
            if picture is None:
                field_lines.append(life_bar(values[seat], maximum))
                field_lines.extend(self.rules.seat_details(view, seat))
            if not finished:
                if locked[seat]:
                    field_lines.append("🔒 " + _("Locked in") if secret else "🎲 " + _("Rolled"))
                elif secret:
                    field_lines.append("⏳ " + _("Choosing…"))
                else:
                    field_lines.append("⏳ " + _("Press **Roll**"))
                if seat in dm_closed and not locked[seat] and session.reach == "member":
                    field_lines.append("📭 " + _("DMs closed: use **Make your move**"))
            if not field_lines:
                continue
            label = self.rules.seat_label(view, seat)
            bot_tag = " 🤖" if entry.is_ai else ""
            embed.add_field(
                name=f"{escape(entry.display_name, 100)}{bot_tag}{label}",
                value="\n".join(field_lines),
            )
        # A replay's step has no clock (``deadline_at`` 0): its round's time belonged to
        # the game in play.
        if not finished and ui.deadline_at:
            time_left = _(self.rules.round_texts.time_left).format(
                deadline=f"<t:{int(ui.deadline_at)}:R>",
                duration=describe_seconds(ui.timeout_seconds),
            )
            # In the field, not the footer: Discord shows a command mention (which each
            # player's client names in their own language) in a field's value only.
            give_up = _("{forfeit} to give up.").format(
                forfeit=command_mention(self.rules.command, "forfeit")
            )
            embed.add_field(
                name="⏰ " + _("Time is running out") if ui.warned else "⏱️ " + _("Time left"),
                value=f"{time_left}\n{give_up}",
                inline=False,
            )
        if not finished:
            if secret and session.reach == "interaction":
                # Reached only through interactions: no DMs, the button is the way.
                embed.set_footer(
                    text=_("Choices are secret until both lock in: press Make your move to choose.")
                )
            elif secret:
                embed.set_footer(
                    text=_(
                        "Choices are secret until both lock in: choose in your DMs, or press "
                        "Make your move."
                    )
                )
            else:
                embed.set_footer(text=_("The dice choose for you."))
        series = load_series(session.state)
        buttons: discord.ui.View | None = None
        if not finished:
            buttons = self.rules.public_buttons(session.id, round_no, secret)
            content = self.headline(session)
            line = running_line(series, raw_names(session))
            if line:
                content += "\n" + line
        else:
            content = self._status_line(session, state, ui, names, cancelled_because)
            if session.status == "finished" and ended is not None:
                lines, buttons = finished_two_player(
                    session, series, self.moves.winner_of(session, state), replay=True
                )
                content = "\n".join([content, *lines])
        return {
            "content": content,
            "embed": embed,
            "attachments": [] if picture is None else [picture.file()],
            "view": buttons,
            "allowed_mentions": discord.AllowedMentions.none(),
        }

    def stopped_sentence(self, session: Session, ui: UiState, events: list[Event]) -> str | None:
        """What the picture of a game stopped without a result says instead of whose turn
        it is (None for a game that is not stopped)."""
        if session.status != "cancelled":
            return None
        if ui.ended == "abandoned":
            return _(
                "Neither player locked in before the time ran out, so the game is abandoned; "
                "no result counts."
            )
        return stopped_text(stop_cause(events))

    def headline(self, session: Session) -> str:
        a, b = session.user_of(0), session.user_of(1)
        who = [
            f"<@{seat.user_id}>" if not seat.is_ai else f"**{escape(seat.display_name)}**"
            for seat in (a, b)
        ]
        # Translators: the top line of a running duel: "**Diceman**: @ann vs @bob".
        return _("**{game}**: {first} vs {second}").format(
            game=self.rules.shown_title(), first=who[0], second=who[1]
        )

    def _status_line(
        self,
        session: Session,
        state: StateT,
        ui: UiState,
        names: Sequence[str],
        cancelled_because: str | None = None,
    ) -> str:
        """What is happening now in one line; at the end, the result naming the winner
        (the content of the finished message). ``names`` are escaped."""
        title = self.rules.shown_title()
        if ui.ended == "abandoned":
            return "⌛ " + _(
                "{game}: neither player locked in before the time ran out, so the game is "
                "abandoned (no result counts)."
            ).format(game=title)
        result = self.rules.result(state)
        if result is None:
            if session.status == "cancelled":
                return "🛑 " + stopped_text(cancelled_because)
            waiting = self.rules.waiting_for(state)
            if not waiting:
                return _("Revealing…")
            who = list_of([names[s] for s in waiting])
            if self.rules.is_secret(state):
                return _("Waiting for {players} to lock in.").format(players=who)
            return _("Waiting for {players} to press **Roll**.").format(players=who)
        values, _maximum = self.rules.vitals(self.rules.public_view(state))
        if result.draw:
            score = self.rules.score_text(max(0, values[0]), max(0, values[1]))
            if result.reason == "round_cap":
                return "⏹️ " + _(
                    "The round limit was reached with equal life: **a draw**, {score}."
                ).format(score=score)
            return "🤝 " + _("**Draw**: both fell in the same moment. {game}, {score}.").format(
                game=title, score=score
            )
        winner_seat = result.winners[0]
        winner = names[winner_seat]
        loser = names[1 - winner_seat]
        # The winner's score first, as the sentence names them first.
        score = self.rules.score_text(max(0, values[winner_seat]), max(0, values[1 - winner_seat]))
        if result.reason == "forfeit":
            return "🏳️ " + _("{loser} forfeited. **{winner} wins!** {game}, {score}.").format(
                loser=loser, winner=winner, game=title, score=score
            )
        if result.reason == "timeout":
            return "⌛ " + _("{loser} ran out of time. **{winner} wins!** {game}, {score}.").format(
                loser=loser, winner=winner, game=title, score=score
            )
        if result.reason == "round_cap":
            return "⏹️ " + _(
                "The round limit was reached: **{winner} wins** on life, {score}."
            ).format(winner=winner, score=score)
        return "🏆 " + _("**{winner} wins!** {game} against {loser}, {score}.").format(
            winner=winner, game=title, loser=loser, score=score
        )
