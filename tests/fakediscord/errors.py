"""Errors: the JSON bodies Discord answers with, and the exceptions a test sees."""

from __future__ import annotations

from typing import Any

# Discord's JSON error codes that the fake answers with.
UNKNOWN_ROUTE = 0
UNKNOWN_CHANNEL = 10003
UNKNOWN_GUILD = 10004
UNKNOWN_MEMBER = 10007
UNKNOWN_MESSAGE = 10008
UNKNOWN_USER = 10013
UNKNOWN_WEBHOOK = 10015
UNKNOWN_INTERACTION = 10062
UNKNOWN_COMMAND = 10063
UNAUTHORIZED = 40001
ALREADY_ACKNOWLEDGED = 40060
MISSING_ACCESS = 50001
CANNOT_SEND_EMPTY = 50006
CANNOT_DM = 50007
MISSING_PERMISSIONS = 50013
INVALID_CHANNEL_TYPE = 50024
INVALID_WEBHOOK_TOKEN = 50027
INVALID_FORM_BODY = 50035
THREAD_ARCHIVED = 50083
THREAD_ALREADY_CREATED = 160004


class DiscordError(Exception):
    """Raised inside a REST handler; becomes an HTTP error answer with a Discord JSON body."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        errors: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def not_found(code: int, what: str) -> DiscordError:
    return DiscordError(404, code, f"Unknown {what}")


def errors_at(where: tuple[str | int, ...], code: str, message: str) -> dict[str, Any]:
    """Discord's ``errors`` object for one field: its path as nested keys (list indexes as
    strings), ``_errors`` at the leaf, e.g. ``{"embeds": {"0": {"title": {"_errors": ...}}}}``."""
    node: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(where):
        node = {str(part): node}
    return node


def invalid_form(
    reason: str, where: tuple[str | int, ...] = (), code: str = "BASE_TYPE_INVALID"
) -> DiscordError:
    """400 Invalid Form Body: what Discord answers to a payload it rejects, naming the
    field (``where``: keys and indexes from the body's root) and Discord's error code."""
    return DiscordError(400, INVALID_FORM_BODY, "Invalid Form Body", errors_at(where, code, reason))


class FakeUsageError(AssertionError):
    """A test asked for something no real Discord client could do (press a button that is
    not on the message, use a command that was never registered, ...). It is an
    AssertionError so that pytest reports it as a plain test failure."""


class BotDidNotAnswer(AssertionError):
    """The bot gave no first answer to an interaction in time."""
