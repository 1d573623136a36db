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

from bot.errors import NotYourGame
from bot.games import Deadline, Seat, Step, StepContext
from bot.replies import Guarded
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
            raise NotYourGame(f"This challenge is for <@{opponent}>, not for you.")
        return Step(state=ctx.session.state, events=[event], status="cancelled", deadlines=[])
    if ctx.actor_id == challenger:
        raise NotYourGame("You can't accept your own challenge: wait for your opponent.")
    if ctx.actor_id != opponent:
        raise NotYourGame(f"This challenge is for <@{opponent}>, not for you.")
    step = start(ctx, dict(challenge["options"]))
    step.events.insert(0, {"type": "challenge_accepted"})
    return step


def challenge_message_text(
    game_title: str, challenger_id: int, opponent_id: int, expires_at: float, details: str = ""
) -> str:
    stamp = int(expires_at)
    lines = [
        f"⚔️ <@{challenger_id}> challenges <@{opponent_id}> to **{game_title}**!",
    ]
    if details:
        lines.append(details)
    lines.append(f"<@{opponent_id}>, accept or decline — the challenge expires <t:{stamp}:R>.")
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
                label="Accept" if accept else "Decline",
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
        from bot.app import DiceBot

        client = interaction.client
        assert isinstance(client, DiceBot)
        outcome = await client.sessions.act(
            self.session_id, interaction.user.id, {"type": self.choice}
        )
        # Acknowledge at once; the game's own renderer edits the public message.
        await interaction.response.defer()
        await client.publish(outcome)
        if self.choice == "accept" and outcome.session.is_open:
            await _tell_the_challenger(interaction, outcome.previous.state)


async def _tell_the_challenger(interaction: discord.Interaction, state: dict[str, Any]) -> None:
    """Ping the challenger: the board edit that shows the game started notifies nobody, and
    they may be the one to move first."""
    challenger = state["challenge"]["challenger"]
    try:
        await interaction.followup.send(
            f"<@{challenger}>, {interaction.user.mention} accepted your challenge: the game is on.",
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(challenger)]),
        )
    except discord.HTTPException as error:
        # The game has started and its message says so; a lost ping is not worth failing.
        log.info("could not ping the challenger (HTTP %s)", error.status)


def challenge_view(session_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ChallengeButton(session_id, "accept"))
    view.add_item(ChallengeButton(session_id, "decline"))
    return view
