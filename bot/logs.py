"""Logging for ``python -m bot``: text or JSON lines on stderr, the token never shown, and
discord.py's connection retries told in one line each instead of a traceback.

``LOG_FORMAT=json`` uses python-json-logger: a stdlib ``logging.Formatter``, so every
library's records (discord.py's included) come out as JSON with nothing else to wire.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from bot.config import LogFormat, LogLevel, Settings
from bot.network import describe_network_error

TEXT_FORMAT = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"
REDACTED = "[token]"


class RedactingHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler that replaces the token in everything it writes: the message, its
    arguments, a traceback (an HTTP error's text may hold the Authorization header), a
    stack, and any JSON field. Redacting the finished line covers every formatter."""

    def __init__(self, token: str, stream: Any = None) -> None:
        super().__init__(stream)
        self.token = token

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return text.replace(self.token, REDACTED) if self.token else text


class JsonLines(JsonFormatter):
    """One JSON object a line: ``time`` (UTC, ISO 8601), ``level``, ``logger``,
    ``message``, any ``extra`` fields (e.g. ``reference``, the id a player was shown) and
    ``traceback`` when there is one."""

    def __init__(self) -> None:
        super().__init__(
            "%(levelname)s %(name)s %(message)s",
            rename_fields={"levelname": "level", "name": "logger", "exc_info": "traceback"},
            timestamp="time",
        )


# discord.py logs a failed gateway connection as an ERROR with a full traceback, every few
# seconds while the network is down. What a host needs is one line naming the cause.
_SHARD_RETRY = {
    "Failed to connect for shard_id: %s. Retrying...": (
        "cannot open the gateway connection for shard {0} ({reason}): retrying in 5 s"
    ),
    "Attempting a reconnect for shard ID %s in %.2fs": (
        "lost the gateway connection for shard {0} ({reason}): reconnecting in {1:.1f} s"
    ),
    "Attempting a reconnect in %.2fs": (
        "lost the gateway connection ({reason}): reconnecting in {0:.1f} s"
    ),
}


# Said on every start attempt; the bot's own lines already tell what it is doing.
_REPEATED_CHATTER = {"logging in using static token"}


class ConnectionRetriesInOneLine(logging.Filter):
    """Turns discord.py's connection-retry ERRORs into one WARNING line with the cause.

    At DEBUG the traceback is kept: someone debugging wants it.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg in _REPEATED_CHATTER and record.name.startswith("discord."):
            return False
        template = _SHARD_RETRY.get(record.msg) if isinstance(record.msg, str) else None
        if template is None or not record.name.startswith("discord."):
            return True
        error = record.exc_info[1] if record.exc_info else None
        args = record.args if isinstance(record.args, tuple) else ()
        reason = describe_network_error(error) or describe_error(error)
        record.msg = template.format(*args, reason=reason)
        record.args = ()
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
            record.exc_info, record.exc_text = None, None
        return True


def describe_error(error: BaseException | None) -> str:
    """A short, one-line cause for an exception: its type and the first line of its text."""
    if error is None:
        return "no detail"
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    text = re.sub(r"\s+", " ", text)[:200]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def configure_logging(settings: Settings, stream: Any = None) -> None:
    handler = RedactingHandler(settings.discord_token.get_secret_value(), stream)
    _install(handler, settings.log_format, settings.log_level)


def configure_helper_logging(log_format: LogFormat, log_level: LogLevel) -> None:
    """In a helper process (the pictures'): lines like the bot's own, on the stderr it
    shares with the bot. A helper never sees the token: there is nothing to redact."""
    _install(logging.StreamHandler(), log_format, log_level)


def _install(handler: logging.Handler, log_format: LogFormat, log_level: LogLevel) -> None:
    handler.setFormatter(JsonLines() if log_format == "json" else _text_formatter())
    handler.addFilter(ConnectionRetriesInOneLine())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(log_level)
    # discord.py's gateway chatter is noise at INFO.
    logging.getLogger("discord").setLevel(max(logging.INFO, root.level))


def _text_formatter() -> logging.Formatter:
    return logging.Formatter(TEXT_FORMAT)
