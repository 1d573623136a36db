"""Two-player challenges, shared by every duel: Accept / Decline for the challenged player
only, withdrawal by the challenger, and a durable expiry.

A pending challenge is a session in status ``pending`` whose state is the envelope
``{"challenge": {...}}``; accepting it runs the game's ``start`` inside the same
transaction, so the game begins exactly once however many times Accept is pressed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import discord

from bot import i18n
from bot.i18n import N_, _
from bot.model.command_mentions import command_mention
from bot.model.contract import Deadline, NewSession, Outcome, Seat, Session, Step, StepContext
from bot.model.errors import NotYourGame, StaleControl, UserError
from bot.model.series import Series, match_over_after, with_series
from bot.ui.answers import answer_for
from bot.ui.host import GameHost, host_of
from bot.ui.replies import Guarded
from game_core.errors import IllegalMove

CHALLENGE_ACTIONS = frozenset({"accept", "decline", "expire"})

log = logging.getLogger(__name__)

StartGame = Callable[[StepContext, dict[str, Any]], Step]


def challenge_state(
    challenger: Seat, opponent: Seat, options: dict[str, Any], expires_at: float
) -> dict[str, Any]:
    return {
        "challenge": {
            "challenger": challenger.user_id,
            "opponent": opponent.user_id,
            "options": options,
            "expires_at": expires_at,
        }
    }


def challenge_deadlines(expires_at: float) -> list[Deadline]:
    return [Deadline(kind="challenge_expiry", due_at=expires_at, action={"type": "expire"})]


def is_challenge(state: dict[str, Any]) -> bool:
    return "challenge" in state


def challenge_step(ctx: StepContext, action: dict[str, Any], start: StartGame) -> Step:
    """Apply accept / decline / expire to a pending challenge."""
    challenge = ctx.session.state.get("challenge")
    kind = action.get("type")
    if challenge is None or kind not in CHALLENGE_ACTIONS:
        raise IllegalMove("That challenge has already been answered.")
    opponent, challenger = challenge["opponent"], challenge["challenger"]
    if kind == "expire":
        if ctx.actor_id is not None:
            raise IllegalMove("Only the timer can expire a challenge.")
        return Step(
            state=ctx.session.state,
            events=[{"type": "challenge_expired"}],
            status="cancelled",
            deadlines=[],
        )
    if kind == "decline":
        if ctx.actor_id == opponent:
            event = {"type": "challenge_declined"}
        elif ctx.actor_id == challenger:
            event = {"type": "challenge_withdrawn"}
        else:
            raise NotYourGame(
                _("This challenge is for {opponent}, not for you.").format(
                    opponent=f"<@{opponent}>"
                )
            )
        return Step(state=ctx.session.state, events=[event], status="cancelled", deadlines=[])
    if ctx.actor_id == challenger:
        raise NotYourGame(_("You can't accept your own challenge: wait for your opponent."))
    if ctx.actor_id != opponent:
        raise NotYourGame(
            _("This challenge is for {opponent}, not for you.").format(opponent=f"<@{opponent}>")
        )
    step = start(ctx, dict(challenge["options"]))
    step.events.insert(0, {"type": "challenge_accepted"})
    return step


def refuse_unfinished(previous: Session) -> None:
    """Only a game that ended with a result is played on from (a forged or stale press on
    a game still going, or one stopped without a result, changes nothing)."""
    if previous.is_open:
        raise UserError(_("This game is not over yet: finish it first."))
    if previous.status != "finished" or is_challenge(previous.state):
        raise UserError(_("This game ended without a result: start a new one with a command."))


def refuse_next_game(series: Series, winner: int | None) -> None:
    """Start game N is for a match that goes on."""
    if not series.is_match:
        raise UserError(_("This game is not part of a series: press **Rematch** to play again."))
    if match_over_after(series, winner):
        raise UserError(_("This series is over: press **Rematch** for a new one."))


def rematch_challenge(
    ctx: StepContext, action: dict[str, Any], options: dict[str, Any], series: Series
) -> NewSession:
    """A rematch between two players: the one who pressed Rematch on the finished game
    (``ctx``) challenges the other, exactly as with the command (same expiry, same
    answers), with the previous game's options and the chain's series."""
    assert ctx.seat is not None
    me = ctx.session.user_of(ctx.seat)
    other = ctx.session.user_of(1 - ctx.seat)
    name = str(action.get("name") or "") or me.display_name
    challenger = Seat(seat=0, user_id=me.user_id, display_name=name)
    opponent = Seat(seat=1, user_id=other.user_id, display_name=other.display_name)
    expires_at = ctx.now + ctx.guild_settings.challenge_expiry_seconds
    return NewSession(
        seats=[challenger, opponent],
        state=with_series(challenge_state(challenger, opponent, options, expires_at), series),
        status="pending",
        deadlines=challenge_deadlines(expires_at),
        ping=[opponent.user_id],
    )


ANSWERED_ALREADY = N_(
    "That challenge has been answered already: the game is on, on the same message."
)


def refuse_answered_challenge(ctx: StepContext, action: dict[str, Any]) -> None:
    """In a started game, an Accept or Decline from a player comes from a message that is
    behind (or a double press): say so rather than "not a move"."""
    if ctx.actor_id is not None and action.get("type") in CHALLENGE_ACTIONS:
        raise StaleControl(_(ANSWERED_ALREADY))


async def act_on_challenge(
    bot: GameHost, session: Session, user_id: int, kind: str, command: str
) -> Outcome:
    """Withdraw or decline a challenge from a command. If it was accepted a moment ago,
    say so: the player asked to call off a challenge, not to lose a game."""
    try:
        return await bot.sessions.act(session.id, user_id, {"type": kind})
    except StaleControl as error:
        raise UserError(
            _(
                "The challenge was accepted a moment ago, so the game is on. Use {command} "
                "again if you want to give the game up."
            ).format(command=command_mention(command, "forfeit"))
        ) from error


def challenge_message_text(
    game_title: str,
    challenger_id: int,
    opponent_id: int,
    expires_at: float,
    details: str = "",
    *,
    rematch: bool = False,
) -> str:
    """The public message of a pending challenge. ``game_title`` is shown as given (the
    caller passes it through ``_()``)."""
    stamp = int(expires_at)
    challenger, opponent = f"<@{challenger_id}>", f"<@{opponent_id}>"
    if rematch:
        heading = _("🔁 {challenger} asks {opponent} for a **{game}** rematch!")
    else:
        heading = _("⚔️ {challenger} challenges {opponent} to **{game}**!")
    lines = [heading.format(challenger=challenger, opponent=opponent, game=game_title)]
    if details:
        lines.append(details)
    lines.append(
        # Translators: {when} is Discord's relative time, shown as "in 5 minutes".
        _("{opponent}, accept or decline — the challenge expires {when}.").format(
            opponent=opponent, when=f"<t:{stamp}:R>"
        )
    )
    return "\n".join(lines)


class ChallengeButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"challenge:(?P<session_id>[0-9]{1,19}):(?P<choice>accept|decline)",
):
    def __init__(self, session_id: int, choice: str) -> None:
        accept = choice == "accept"
        super().__init__(
            discord.ui.Button(
                label=_("Accept") if accept else _("Decline"),
                style=discord.ButtonStyle.success if accept else discord.ButtonStyle.danger,
                custom_id=f"challenge:{session_id}:{choice}",
            )
        )
        self.session_id = session_id
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ChallengeButton:
        return cls(int(match["session_id"]), match["choice"])

    async def handle(self, interaction: discord.Interaction) -> None:
        client = host_of(interaction)
        async with client.publisher.answering(self.session_id) as show:
            outcome = await client.sessions.act(
                self.session_id,
                interaction.user.id,
                {"type": self.choice},
                on_message=None if interaction.message is None else interaction.message.id,
            )
            # The answer turns the challenge into the game (or its refusal) in place.
            await show(answer_for(interaction), outcome.session, outcome.events)


async def ping_challenger(bot: GameHost, outcome: Outcome) -> None:
    """After an Accept, ping the challenger under the game: the edit that shows the game
    started notifies nobody, and they may be the one to move first."""
    if not any(event.get("type") == "challenge_accepted" for event in outcome.events):
        return
    challenge = outcome.previous.state.get("challenge") or {}
    challenger, opponent = challenge.get("challenger"), challenge.get("opponent")
    if not isinstance(challenger, int):
        return
    # A public reply under the game: the game's language, not the accepting player's.
    with i18n.use(outcome.session.language):
        text = _("{challenger}, {opponent} accepted your challenge: the game is on.").format(
            challenger=f"<@{challenger}>", opponent=f"<@{opponent}>"
        )
    await bot.ping_under_game(outcome.session, challenger, text)


def challenge_view(session_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ChallengeButton(session_id, "accept"))
    view.add_item(ChallengeButton(session_id, "decline"))
    return view
