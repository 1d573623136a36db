"""A slash command named in a text for a player to use: a command mention.

``</knucklebones challenge:123>`` is what Discord shows as a clickable command, written in
each reader's own client language (``/knucklebones desafiar`` for a Spanish client,
``/knucklebones défier`` for a French one), whatever language the message itself speaks: a
public message speaks the server's language, but the command picker lists commands in the
reader's. A mention needs the id Discord gave the top-level command, which only the sync
(or a read of the commands) tells; until then, and wherever Discord shows no mention (a
picture, its alt text, an embed's title, footer or field name, a button), the command is
written out in the current language (``command_name``).

Where the ids come from: the process that syncs the commands learns them from the sync's
answer; every other process reads them from Discord at start (``bot.app``), so any process
that renders a text knows them, after a restart too (Discord keeps a command's id when a
sync overwrites it with the same name).

Why a context variable, like the language (``bot.i18n``): the texts are built deep inside
moves and renders that know nothing of the bot, and several bots run in one test process,
each against its own fake Discord handing out its own ids. The bot binds its ids to the
task that sets it up (the publisher and the timers start from there), to the one that
connects it to the gateway (every event's task starts from there) and to each
interaction's task (``bot.ui.languages.enter_interaction``); the ids object is shared, so
ids learned later reach every task already bound to it.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping

from bot.i18n import pgettext

# The context the command translator asks names in (bot.ui.languages): the catalogs' entries
# for the command tree's own names. A variable, so the extractor leaves these look-ups alone.
COMMAND_NAME = "command name"


class CommandIds:
    """The ids Discord gave this application's top-level slash commands, by name."""

    def __init__(self, ids: Mapping[str, int] | None = None) -> None:
        self._ids: dict[str, int] = dict(ids or {})

    def learn(self, ids: Mapping[str, int]) -> None:
        """What the sync answered or a read returned: every command Discord has now."""
        self._ids = dict(ids)

    def id_of(self, name: str) -> int | None:
        return self._ids.get(name)

    def names(self) -> frozenset[str]:
        return frozenset(self._ids)


_bound: contextvars.ContextVar[CommandIds | None] = contextvars.ContextVar(
    "dicebot_command_ids", default=None
)


def bind_command_ids(ids: CommandIds) -> None:
    """Mention commands with ``ids`` for the rest of this task (and the tasks it starts)."""
    _bound.set(ids)


def bound_command_ids() -> CommandIds | None:
    return _bound.get()


@contextlib.contextmanager
def using_command_ids(ids: CommandIds | None) -> Iterator[None]:
    """Mention commands with ``ids`` inside the block only (None: as before any sync)."""
    token = _bound.set(ids)
    try:
        yield
    finally:
        _bound.reset(token)


def command_name(*names: str) -> str:
    """``/knucklebones desafiar``: the command as the current language's picker lists it,
    as plain text (for where Discord shows no mention: pictures, alt text, embed titles,
    footers and field names)."""
    return "/" + " ".join(pgettext(COMMAND_NAME, name) for name in names)


def command_mention(*names: str) -> str:
    """The command ``names`` (its English path: ``"knucklebones", "challenge"``) as a
    clickable mention that every reader sees in their own language; before its id is
    known, its name in the current language, in backticks."""
    ids = _bound.get()
    command_id = ids.id_of(names[0]) if ids is not None else None
    if command_id is None:
        return f"`{command_name(*names)}`"
    return f"</{' '.join(names)}:{command_id}>"
