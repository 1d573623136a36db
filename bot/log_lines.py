"""How every process of the bot writes its log lines: text or JSON on stderr, the token
never shown. The bot (``bot.service.logs``) and its helper processes (the pictures') both
install them; only the bot adds the filter that retells discord.py's connection retries.

``LOG_FORMAT=json`` uses python-json-logger: a stdlib ``logging.Formatter``, so every
library's records (discord.py's included) come out as JSON with nothing else to wire.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from bot.config import LogFormat, LogLevel

TEXT_FORMAT = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"
REDACTED = "[token]"
# An interaction's token in a request's path (discord.py logs the URLs of its requests at
# DEBUG): its callback, and the webhook routes a game between friends is shown through.
INTERACTION_TOKEN_IN_PATH = re.compile(r"(/(?:interactions|webhooks)/\d+/)[A-Za-z0-9._\-]{20,}")


class RedactingHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler that replaces the token in everything it writes: the message, its
    arguments, a traceback (an HTTP error's text may hold the Authorization header), a
    stack, and any JSON field; and every interaction token in a request's path. Redacting
    the finished line covers every formatter."""

    def __init__(self, token: str, stream: Any = None) -> None:
        super().__init__(stream)
        self.token = token

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        text = text.replace(self.token, REDACTED) if self.token else text
        # Interaction tokens are credentials too, for 15 minutes each.
        return INTERACTION_TOKEN_IN_PATH.sub(rf"\g<1>{REDACTED}", text)


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


def configure_helper_logging(log_format: LogFormat, log_level: LogLevel) -> None:
    """In a helper process (the pictures'): lines like the bot's own, on the stderr it
    shares with the bot. A helper never sees the token: there is nothing to redact."""
    install(logging.StreamHandler(), log_format, log_level)


def install(
    handler: logging.Handler,
    log_format: LogFormat,
    log_level: LogLevel,
    *filters: logging.Filter,
) -> None:
    """Make ``handler`` the root logger's only one, in the configured format and level."""
    handler.setFormatter(JsonLines() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    for log_filter in filters:
        handler.addFilter(log_filter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(log_level)
    # discord.py's gateway chatter is noise at INFO.
    logging.getLogger("discord").setLevel(max(logging.INFO, root.level))
