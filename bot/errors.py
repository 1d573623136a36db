"""Errors a player may see. Each message says what is wrong and what to do; none leaks a
secret. Anything else that goes wrong is logged with a reference id instead."""

from __future__ import annotations


class UserError(Exception):
    """A problem the player can fix; shown to them as an ephemeral message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class SessionNotFound(UserError):
    def __init__(self) -> None:
        super().__init__("That game no longer exists. Start a new one with a slash command.")


class NotYourGame(UserError):
    def __init__(
        self, message: str = "This is not your game: only its players can do that."
    ) -> None:
        super().__init__(message)


class SessionChanged(UserError):
    """The game moved on between the moment the player saw it and their press."""

    def __init__(self) -> None:
        super().__init__(
            "The game changed meanwhile, so that press was not applied. Look at the updated "
            "message and try again."
        )


class GameOver(UserError):
    def __init__(self) -> None:
        super().__init__("That game is already over.")


class AlreadyPlaying(UserError):
    pass


class DatabaseUnavailable(UserError):
    def __init__(self) -> None:
        super().__init__(
            "The game database is busy or unavailable right now, so nothing was changed. "
            "Please try again in a moment."
        )


class StaleControl(UserError):
    """A press on controls for a turn or round that is over: the message it is on is
    behind, so the publisher is asked to bring it up to date."""


class WrongMessage(UserError):
    """A game's control pressed on a message that is not that game's message (a forged or
    copied custom_id): nothing is applied."""

    def __init__(self, link: str | None = None) -> None:
        where = f" The game is here: {link}" if link else ""
        super().__init__(
            "That button does not belong to this message, so nothing was done. Use the "
            f"buttons on the game's own message.{where}"
        )


class FollowedUp(UserError):
    """A finished game that already has its follow-up (a rematch, the next game, a new
    table): ``session_id`` is that one."""

    def __init__(self, session_id: int) -> None:
        super().__init__("That game has already been followed up.")
        self.session_id = session_id
