"""Play on from a finished game: **Rematch**, a series' **Start game N**, Weighted Dice's
**Play again**. One button for every game (``again:<session>:<kind>``); the game's
handler says what the new session is (``follow_up(ctx, action)``), the session service
creates it and links the finished game to it in one transaction
(``SessionService.follow_up``), and the new game's message answers the press through the
publisher (``post_first``), so a lost answer still shows it.

A finished game has one follow-up. A second press, whoever makes it, finds it: the other
player of a rematch still waiting for them accepts it that way (both pressed Rematch: they
both want it), a player of a finished Weighted Dice table joins the new one, anyone else
is told where it is. A press by someone who did not play is refused, changing nothing.
"""

from __future__ import annotations

import contextlib
import logging
import re
from typing import Any

import discord

from bot import i18n
from bot.i18n import _, number
from bot.model.contract import Session, ShowContext
from bot.model.errors import FollowedUp
from bot.model.series import Series, finished_line, follow_up_of, match_over_after
from bot.play.sessions import message_link
from bot.ui.answers import DELIVERY_ERRORS, answer_for
from bot.ui.challenges import is_challenge
from bot.ui.host import GameHost, host_of
from bot.ui.replay import replay_view, with_replay
from bot.ui.replies import Guarded
from game_core.errors import IllegalMove

log = logging.getLogger(__name__)

PLAY_ON_TEMPLATE = r"again:(?P<session_id>[0-9]{1,19}):(?P<kind>rematch|next|lobby)"


def play_on_label(kind: str, game_number: int = 2) -> tuple[str, str]:
    """(label, emoji) of the button."""
    if kind == "next":
        return _("Start game {number}").format(number=number(game_number)), "▶️"
    if kind == "lobby":
        return _("Play again"), "🔁"
    return _("Rematch"), "🔁"


class PlayOnButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=PLAY_ON_TEMPLATE,
):
    """On a finished game's message, for its players."""

    def __init__(self, session_id: int, kind: str, game_number: int = 2) -> None:
        label, emoji = play_on_label(kind, game_number)
        super().__init__(
            discord.ui.Button(
                label=label,
                emoji=emoji,
                style=discord.ButtonStyle.primary,
                custom_id=f"again:{session_id}:{kind}",
            )
        )
        self.session_id = session_id
        self.kind = kind

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> PlayOnButton:
        return cls(int(match["session_id"]), match["kind"])

    async def handle(self, interaction: discord.Interaction) -> None:
        await play_on(interaction, self.session_id, self.kind)


def play_on_view(session_id: int, kind: str, game_number: int = 2) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(PlayOnButton(session_id, kind, game_number))
    return view


def finished_two_player(
    session: Session, series: Series | None, winner: int | None, *, replay: bool = False
) -> tuple[list[str], discord.ui.View | None]:
    """What a finished two-player game shows under its result: the match or series score
    and where the next game is, or the button to play on (the match's next game, or a
    rematch), and with ``replay`` (the game's handler rebuilds a replay) the Replay
    button. ``winner``: the user who won, None for a draw."""
    names = {seat.user_id: seat.display_name for seat in session.seats}
    lines = [line for line in (finished_line(series, winner, names),) if line]
    match_goes_on = series is not None and not match_over_after(series, winner)
    if follow_up_of(session.state) is not None:
        lines.append(
            _("▶️ The next game is on, below.")
            if match_goes_on
            else _("🔁 A rematch was asked for, below.")
        )
        return lines, replay_view(session.id) if replay else None
    if series is not None and match_goes_on:
        view = play_on_view(session.id, "next", series.game + 1)
    else:
        view = play_on_view(session.id, "rematch")
    return lines, with_replay(view, session.id) if replay else view


async def play_on(interaction: discord.Interaction, session_id: int, kind: str) -> None:
    bot = host_of(interaction)
    user = interaction.user
    try:
        made = await bot.sessions.follow_up(
            session_id,
            user.id,
            {"type": kind, "name": user.display_name},
            on_message=None if interaction.message is None else interaction.message.id,
        )
    except FollowedUp as done:
        # The message pressed still shows the button: it is behind.
        bot.publisher.request(session_id, force=True)
        await _second_press(bot, interaction, done.session_id)
        return
    session = made.session
    if made.new.begin is not None:
        # The durable "begin" timer does the same if we stop right here.
        with contextlib.suppress(IllegalMove):
            await bot.sessions.act(session.id, None, made.new.begin)
        session = await bot.sessions.require(session.id)
    handler = bot.sessions.handlers[session.game]
    # The new game's message is public: it speaks the game's language, not the presser's.
    with i18n.use(session.language):
        fields = await handler.render(session, ShowContext(events=list(made.new.events)))
    waiting = session.status == "pending"
    # A challenge or a lobby pings whom it waits for; a game already on pings the other
    # player under it (its first line may name only the player to move).
    fields["allowed_mentions"] = discord.AllowedMentions(
        users=[discord.Object(user_id) for user_id in made.new.ping] if waiting else []
    )
    await bot.publisher.post_first(interaction, session, fields)
    if waiting:
        return
    posted = await bot.sessions.get(session.id) or session
    for user_id in made.new.ping:
        try:
            with i18n.use(posted.language):
                text = _(
                    "▶️ {player}, {other} started the next game of your series: it is on."
                ).format(player=f"<@{user_id}>", other=f"<@{user.id}>")
            await bot.ping_under_game(posted, user_id, text)
        except DELIVERY_ERRORS as error:
            log.info("session %s: the next game's ping was not sent (%s)", session.id, error)


async def _second_press(bot: GameHost, interaction: discord.Interaction, follow_id: int) -> None:
    """A press on a game that already has its follow-up: accept or join it when that is
    what the player can still do there, else say where it is."""
    answer = answer_for(interaction)
    user_id = interaction.user.id
    follow = await bot.sessions.get(follow_id)
    if follow is None:
        await answer.send(_("That game already has its rematch or its next game."))
        return
    if follow.is_open and is_challenge(follow.state):
        challenge = follow.state["challenge"]
        if challenge.get("opponent") == user_id:
            await bot.sessions.act(follow.id, user_id, {"type": "accept"})
            await answer.send(
                with_link(
                    _("✅ You accepted {challenger}'s rematch: the game is on.").format(
                        challenger=f"<@{challenge['challenger']}>"
                    ),
                    follow,
                )
            )
            return
        if challenge.get("challenger") == user_id:
            await answer.send(
                with_link(
                    _(
                        "You already asked for this rematch: it waits for {opponent} to accept."
                    ).format(opponent=f"<@{challenge['opponent']}>"),
                    follow,
                )
            )
            return
    rejoin = getattr(bot.sessions.handlers.get(follow.game), "rejoin_action", None)
    action = None if rejoin is None else rejoin(follow, user_id)
    if action is not None:
        action = {**action, "name": interaction.user.display_name}
        await bot.sessions.act(follow.id, user_id, action)
        await answer.send(with_link(_("✅ You joined the new table."), follow))
        return
    await answer.send(with_link(describe_follow_up(follow), follow))


def with_link(sentence: str, follow: Session) -> str:
    """``sentence`` and the link to the follow-up's message, or, while that message is not
    posted yet, a sentence saying so (each a whole sentence of its own)."""
    link = message_link(follow)
    if link is None and follow.reach == "interaction" and follow.message_id is not None:
        # A game between friends has no server to link in: its message is in this very
        # conversation (a follow-up stays in its game's channel).
        return sentence
    if link is None:
        return f"{sentence} " + _("Its message is on its way.")
    return f"{sentence} {link}"


def describe_follow_up(follow: Session) -> str:
    """Where the follow-up of a game is, for a press that came after it (the link follows)."""
    if is_challenge(follow.state):
        if follow.is_open:
            return _("A rematch of this game is waiting for an answer.")
        if follow.status == "cancelled":
            return _(
                "The rematch of this game was declined, withdrawn or expired: challenge "
                "again with the command."
            )
    if follow.is_open:
        return _("The game after this one has already started.")
    return _("The game after this one has already started, and it is over too.")
