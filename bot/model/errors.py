"""Errors a player may see. Each message says what is wrong and what to do; none leaks a
secret. Anything else that goes wrong is logged with a reference id instead.

Messages are translated when the error is made: that is in the task answering the player
(their language is the current one), so a subclass calls ``_()`` in its ``__init__``."""

from __future__ import annotations

import re

from bot.i18n import _

# A message link as ``bot.play.sessions.message_link`` makes it.
MESSAGE_LINK = re.compile(
    r"https://discord\.com/channels/(?P<guild>[0-9]+)/(?P<channel>[0-9]+)/(?P<message>[0-9]+)"
)


class UserError(Exception):
    """A problem the player can fix; shown to them as an ephemeral message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class SessionNotFound(UserError):
    def __init__(self) -> None:
        super().__init__(_("That game no longer exists. Start a new one with a slash command."))


class NotYourGame(UserError):
    def __init__(self, message: str | None = None) -> None:
        super().__init__(
            message
            if message is not None
            else _("This is not your game: only its players can do that.")
        )


class SessionChanged(UserError):
    """The game moved on between the moment the player saw it and their press."""

    def __init__(self) -> None:
        super().__init__(
            _(
                "The game changed meanwhile, so that press was not applied. Look at the "
                "updated message and try again."
            )
        )


class GameOver(UserError):
    def __init__(self) -> None:
        super().__init__(_("That game is already over."))


class AlreadyPlaying(UserError):
    pass


class DatabaseUnavailable(UserError):
    def __init__(self) -> None:
        super().__init__(
            _(
                "The game database is busy or unavailable right now, so nothing was changed. "
                "Please try again in a moment."
            )
        )


class StaleControl(UserError):
    """A press on controls for a turn or round that is over: the message it is on is
    behind, so the publisher is asked to bring it up to date."""


class WrongMessage(UserError):
    """A game's control pressed on a message that is not that game's message (a forged or
    copied custom_id): nothing is applied. ``link`` leads to the game's message; answer
    with ``text_for(guild_id)``, which gives it only to a press from the game's server (a
    forged press from another server learns nothing about a game it cannot see)."""

    def __init__(self, link: str | None = None) -> None:
        self.unlinked = _(
            "That button does not belong to this message, so nothing was done. Use the "
            "buttons on the game's own message."
        )
        match = None if link is None else MESSAGE_LINK.fullmatch(link)
        self.guild_id = None if match is None else int(match["guild"])
        if link:
            text = _(
                "That button does not belong to this message, so nothing was done. Use the "
                "buttons on the game's own message. The game is here: {link}"
            ).format(link=link)
        else:
            text = self.unlinked
        super().__init__(text)

    def text_for(self, guild_id: int | None) -> str:
        """The refusal for a press made in ``guild_id`` (None: in a DM)."""
        if self.guild_id is not None and self.guild_id == guild_id:
            return self.message
        return self.unlinked


class FollowedUp(UserError):
    """A finished game that already has its follow-up (a rematch, the next game, a new
    table): ``session_id`` is that one."""

    def __init__(self, session_id: int) -> None:
        super().__init__(_("That game already has its rematch or its next game."))
        self.session_id = session_id


class ReplayUnavailable(UserError):
    """A replay that cannot be shown: the game is gone, in another server, still in play
    (its hidden choices would show), or its log does not rebuild it."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(
            message
            if message is not None
            else _("This game's replay could not be rebuilt from its record, sorry.")
        )


class StorageUnavailable(Exception):
    """The database is locked for too long, unreachable, gone, or unwritable (raised by
    bot.storage's adapters; here so that the layers above storage, the cogs included,
    can catch it without importing storage)."""
