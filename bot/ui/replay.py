"""**Replay** a finished game: a private message that steps through it, one move at a time.

A finished game's message carries ``ReplayButton`` (``replay:<session>``). Its press
answers with an ephemeral message of the game's first step; ⏮ ◀ ▶ ⏭ below it
(``rstep:<session>:<step>:<role>``) edit that message in the interaction's answer, so
nothing public changes and nothing is stored. Each step is drawn by the game's own
``render`` from the state its handler rebuilds from the event log
(``async replay(session, log) -> list[ReplayFrame]``), in the viewer's language.

The ids carry only the game and the step: a press is checked against the stored game
each time (the game exists, belongs to the server the press comes from, is finished,
has that step), so a forged or stale id is refused in words and shows nothing. A game
with friends (``FRIENDS_LADDER``: played outside servers) belongs to no server: its players
may replay it anywhere, anyone else only in the channel it was played in (its message's
button, ``/history`` there). A game in
play has no replay: its frames would show choices its players have not revealed yet.
"""

from __future__ import annotations

import re
import weakref
from collections import OrderedDict
from dataclasses import replace
from typing import Any

import discord

from bot import i18n
from bot.i18n import _, number
from bot.model.contract import FRIENDS_LADDER, ReplayFrame, Session, ShowContext
from bot.model.errors import ReplayUnavailable
from bot.model.text import clip
from bot.ui import views
from bot.ui.answers import answer_for
from bot.ui.host import GameHost, host_of
from bot.ui.replies import Guarded

REPLAY_TEMPLATE = r"replay:(?P<session_id>[0-9]{1,19})"
PICK_TEMPLATE = r"replaypick"
STEP_TEMPLATE = (
    r"rstep:(?P<session_id>[0-9]{1,19}):(?P<step>[0-9]{1,4}):(?P<role>first|back|next|last)"
)

# The navigation buttons, in order, and the emoji each shows.
ROLES = (("first", "⏮️"), ("back", "◀️"), ("next", "▶️"), ("last", "⏭️"))


class ReplayButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=REPLAY_TEMPLATE,
):
    """On a finished game's message, for anyone who can see it."""

    def __init__(self, session_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=_("Replay"),
                emoji="🎞️",
                style=discord.ButtonStyle.secondary,
                custom_id=f"replay:{session_id}",
            )
        )
        self.session_id = session_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ReplayButton:
        return cls(int(match["session_id"]))

    async def handle(self, interaction: discord.Interaction) -> None:
        fields = await replay_fields(host_of(interaction), interaction, self.session_id, 1)
        await open_replay(interaction, fields)


class ReplayStepButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=STEP_TEMPLATE,
):
    """⏮ ◀ ▶ ⏭ on a replay: show step ``step`` in the same private message."""

    def __init__(self, session_id: int, step: int, role: str, *, disabled: bool = False) -> None:
        emoji = dict(ROLES)[role]
        super().__init__(
            discord.ui.Button(
                emoji=emoji,
                style=discord.ButtonStyle.secondary,
                custom_id=f"rstep:{session_id}:{step}:{role}",
                disabled=disabled,
            )
        )
        self.session_id = session_id
        self.step = step

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ReplayStepButton:
        return cls(int(match["session_id"]), int(match["step"]), match["role"])

    async def handle(self, interaction: discord.Interaction) -> None:
        bot = host_of(interaction)
        fields = await replay_fields(bot, interaction, self.session_id, self.step)
        with views.released(fields):
            await answer_for(interaction).update(**fields)


class ReplayPick(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=PICK_TEMPLATE,
):
    """Under ``/history``: pick one of the games listed to replay it in private."""

    def __init__(self, options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id="replaypick",
                placeholder=_("🎞️ Replay one of these games…"),
                options=options or [discord.SelectOption(label="-", value="0")],
                min_values=1,
                max_values=1,
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ReplayPick:
        return cls()

    async def handle(self, interaction: discord.Interaction) -> None:
        # The raw payload (discord.py types it as a union of TypedDicts).
        data: dict[str, Any] = dict(interaction.data or {})  # type: ignore[arg-type]
        values = data.get("values") or []
        # A modified client may send anything as the value: only a game id is looked up.
        if len(values) != 1 or not re.fullmatch("[0-9]{1,19}", str(values[0])):
            raise no_such_game(interaction.guild_id)
        session_id = int(values[0])
        fields = await replay_fields(host_of(interaction), interaction, session_id, 1)
        await open_replay(interaction, fields)


def pick_view(choices: list[tuple[int, str, str]]) -> discord.ui.View | None:
    """The ``/history`` picker: one option per (session id, label, description), at most
    Discord's 25; None when there is nothing to replay."""
    options = [
        discord.SelectOption(
            label=clip(label, 100), value=str(session_id), description=clip(text, 100) or None
        )
        for session_id, label, text in choices[:25]
    ]
    if not options:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(ReplayPick(options))
    return view


def replay_view(session_id: int) -> discord.ui.View:
    """A view holding only the Replay button (a finished game with nothing else to offer)."""
    view = discord.ui.View(timeout=None)
    view.add_item(ReplayButton(session_id))
    return view


def with_replay(view: discord.ui.View | None, session_id: int) -> discord.ui.View:
    """``view`` (or a new one) with the Replay button added after its own buttons."""
    if view is None:
        return replay_view(session_id)
    view.add_item(ReplayButton(session_id))
    return view


def navigator(session_id: int, step: int, total: int) -> discord.ui.View:
    """⏮ ◀ ▶ ⏭ for step ``step`` of ``total``; the ones leading nowhere are disabled."""
    view = discord.ui.View(timeout=None)
    targets = {"first": 1, "back": max(1, step - 1), "next": min(total, step + 1), "last": total}
    for role, _emoji in ROLES:
        stays = (role in ("first", "back") and step <= 1) or (
            role in ("next", "last") and step >= total
        )
        view.add_item(ReplayStepButton(session_id, targets[role], role, disabled=stays))
    return view


def no_such_game(guild_id: int | None) -> ReplayUnavailable:
    """The refusal of a game that is not there to replay (or not to be seen from here)."""
    if guild_id is None:
        return ReplayUnavailable(_("There is no such game to replay here."))
    return ReplayUnavailable(_("There is no such game in this server to replay."))


def may_replay(
    session: Session, *, guild_id: int | None, channel_id: int | None, user_id: int
) -> bool:
    """Whether a press from ``user_id`` in that server and channel may see the game: a
    server's game only in its server; a game with friends by its players anywhere, and by
    anyone in the channel it was played in."""
    if session.guild_id == FRIENDS_LADDER:
        return session.seat_of(user_id) is not None or channel_id == session.channel_id
    return guild_id is not None and session.guild_id == guild_id


async def replayable(
    bot: GameHost,
    session_id: int,
    *,
    guild_id: int | None,
    channel_id: int | None,
    user_id: int,
) -> Session:
    """The finished game ``session_id`` if a press from ``user_id`` in that server and
    channel may replay it (``may_replay``), or a refusal in words."""
    session = await bot.sessions.get(session_id)
    if session is None or not may_replay(
        session, guild_id=guild_id, channel_id=channel_id, user_id=user_id
    ):
        raise no_such_game(guild_id)
    if session.status == "cancelled":
        raise ReplayUnavailable(_("This game ended without a result, so it has no replay."))
    if session.status != "finished":
        raise ReplayUnavailable(
            _("Only a finished game can be replayed: follow this one on its message.")
        )
    return session


# Each bot's frames of the games replayed lately, by (session, version). A finished
# game's log never changes, so a version's frames are the same every time: each step
# press would otherwise rebuild the whole game (a duel against the AI runs its AI again,
# ~20 ms a round). Only a speed-up: any process rebuilds what it does not hold.
FRAMES_KEPT = 32
_kept: weakref.WeakKeyDictionary[GameHost, OrderedDict[tuple[int, int], list[ReplayFrame]]] = (
    weakref.WeakKeyDictionary()
)


async def frames_of(bot: GameHost, session: Session) -> list[ReplayFrame]:
    key = (session.id, session.version)
    frames_kept = _kept.setdefault(bot, OrderedDict())
    kept = frames_kept.get(key)
    if kept is not None:
        frames_kept.move_to_end(key)
        return kept
    handler = bot.sessions.handlers.get(session.game)
    rebuild = getattr(handler, "replay", None)
    if rebuild is None:
        raise ReplayUnavailable()
    frames: list[ReplayFrame] = await rebuild(session, await bot.sessions.event_log(session.id))
    if not frames:
        raise ReplayUnavailable()
    frames_kept[key] = frames
    while len(frames_kept) > FRAMES_KEPT:
        frames_kept.popitem(last=False)
    return frames


async def replay_fields(
    bot: GameHost, interaction: discord.Interaction, session_id: int, step: int
) -> dict[str, Any]:
    """The private message showing step ``step`` of the game, in the viewer's language."""
    session = await replayable(
        bot,
        session_id,
        guild_id=interaction.guild_id,
        channel_id=interaction.channel_id,
        user_id=interaction.user.id,
    )
    frames = await frames_of(bot, session)
    total = len(frames)
    if not 1 <= step <= total:
        raise ReplayUnavailable(
            _("That replay has no step {step}: it has {total}.").format(
                step=number(step), total=number(total)
            )
        )
    frame = frames[step - 1]
    # The game's own message as it stood, in the viewer's language (the handler's render
    # speaks the session's language: the copy speaks the viewer's).
    shown = replace(
        session,
        state=frame.state,
        status=frame.status,
        language=i18n.current(),
        seats=session.seats if frame.seats is None else frame.seats,
    )
    handler = bot.sessions.handlers[session.game]
    fields = await handler.render(shown, ShowContext(events=list(frame.events)))
    # The game's own buttons are not shown: the replay's take their place.
    views.release(fields.get("view"))
    header = _("🎞️ Replay: step {step} of {total}").format(step=number(step), total=number(total))
    content = fields.get("content")
    return {
        "content": header if not content else f"{header}\n{content}",
        "embed": fields.get("embed"),
        "attachments": list(fields.get("attachments") or []),
        "view": navigator(session.id, step, total),
        "allowed_mentions": discord.AllowedMentions.none(),
    }


async def open_replay(interaction: discord.Interaction, fields: dict[str, Any]) -> None:
    """Answer the Replay press with the replay's own ephemeral message."""
    files = fields.pop("attachments")
    view = fields["view"]
    try:
        await answer_for(interaction).send(ephemeral=True, files=files, **fields)
    finally:
        # discord.py keeps an ephemeral message's view with a 15-minute timeout; its step
        # buttons are DynamicItems, found by their ids, so nothing needs it kept.
        view.stop()
        view.clear_items()
