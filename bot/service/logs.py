"""Logging for ``python -m bot``: the lines every process writes (``bot.log_lines``: text or
JSON, the token never shown), and discord.py's connection retries told in one line each
instead of a traceback."""

from __future__ import annotations

import logging
import re
from typing import Any

from bot.config import Settings
from bot.log_lines import RedactingHandler, install
from bot.service.network import describe_network_error

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
    install(handler, settings.log_format, settings.log_level, ConnectionRetriesInOneLine())
