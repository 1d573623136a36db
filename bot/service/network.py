"""What went wrong between the bot and Discord, in one line a host can act on.

``classify(error)`` sorts a start-up failure into a network problem (worth retrying with
backoff), a problem only the host can fix (exit 2 with the fix), or a bug (exit 1).
"""

from __future__ import annotations

import asyncio
import errno
import re
from dataclasses import dataclass
from enum import Enum

import aiohttp
import discord
import yarl

from bot.storage import StorageUnavailable
from bot.ui.command_rules import CommandRulesBroken

TOKEN_REJECTED = (
    "Discord rejected the bot token (HTTP 401): reset it in the developer portal "
    "(Applications → your bot → Bot → Reset Token) and put the new one in DISCORD_TOKEN"
)
INTENTS_REFUSED = (
    "Discord refused an intent the bot asked for: no privileged intent is needed, so check "
    "that this is the dicebot code and not a modified copy"
)
# Gateway close codes only the host can fix (https://discord.com/developers/docs/topics/
# opcodes-and-status-codes#gateway-gateway-close-event-codes).
_FATAL_CLOSE_CODES = {
    4004: TOKEN_REJECTED,
    4010: "Discord refused the shard settings (invalid shard)",
    4011: "Discord requires sharding for this bot: run it with more shards",
    4012: "Discord refused the gateway version: upgrade discord.py (pip install from the lock)",
    4013: INTENTS_REFUSED,
    4014: INTENTS_REFUSED,
}
_UNREACHABLE = {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN, errno.EHOSTDOWN}


class Kind(Enum):
    NETWORK = "network"  # retry with backoff
    HOST = "host"  # only the host can fix it: exit 2
    BUG = "bug"  # unexpected: exit 1 with the traceback


@dataclass(frozen=True)
class Failure:
    kind: Kind
    text: str


class DiscordTimeout(Exception):
    """Discord accepted the connection but did not answer in time."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"Discord did not answer within {seconds:g} s")
        self.seconds = seconds


def api_host() -> str:
    """The host the bot talks to (discord.com unless discord.py was pointed elsewhere)."""
    url = yarl.URL(discord.http.Route.BASE)
    return f"{url.host}:{url.explicit_port}" if url.explicit_port else str(url.host)


def classify(error: BaseException, *, dev_guild_id: int | None = None) -> Failure:
    network = describe_network_error(error)
    if network is not None:
        return Failure(Kind.NETWORK, network)
    if isinstance(error, discord.LoginFailure):
        return Failure(Kind.HOST, TOKEN_REJECTED)
    if isinstance(error, discord.PrivilegedIntentsRequired):
        return Failure(Kind.HOST, INTENTS_REFUSED)
    if isinstance(error, discord.ConnectionClosed) and error.code in _FATAL_CLOSE_CODES:
        return Failure(Kind.HOST, _FATAL_CLOSE_CODES[error.code])
    if isinstance(error, StorageUnavailable):
        return Failure(
            Kind.HOST, f"the database is unusable (check DATABASE_PATH or DATABASE_URL): {error}"
        )
    if isinstance(error, CommandRulesBroken):
        # Checked before the sync: its one line names the command, the option and the rule.
        return Failure(Kind.HOST, str(error))
    if isinstance(error, discord.Forbidden) and dev_guild_id is not None:
        return Failure(
            Kind.HOST,
            f"Discord refused to sync the commands to DEV_GUILD_ID={dev_guild_id} (HTTP 403, "
            f"code {error.code}): invite the bot to that server first (the invite link is in "
            "the README), or unset DEV_GUILD_ID",
        )
    if isinstance(error, discord.HTTPException):
        return Failure(
            Kind.BUG,
            f"Discord refused a start-up request (HTTP {error.status}, code {error.code}): "
            f"{_one_line(error.text)}",
        )
    return Failure(Kind.BUG, f"unexpected error: {type(error).__name__}: {_one_line(str(error))}")


def describe_network_error(error: BaseException | None) -> str | None:
    """One line for a failure to reach Discord, or None if ``error`` is not one."""
    if error is None:
        return None
    if isinstance(error, DiscordTimeout):
        return f"Discord ({api_host()}) did not answer within {error.seconds:g} s"
    if isinstance(error, aiohttp.ClientConnectorDNSError):
        return (
            f"cannot reach Discord: the name {error.host} does not resolve (DNS): check the "
            "machine's network and DNS settings"
        )
    if isinstance(error, aiohttp.ClientConnectorCertificateError | aiohttp.ClientSSLError):
        return (
            f"cannot reach Discord: the secure connection failed ({_one_line(str(error))}): "
            "check the system clock and any proxy in between"
        )
    if isinstance(error, aiohttp.ClientConnectorError):
        where = f"{error.host}:{error.port}"
        cause = error.os_error
        if isinstance(cause, ConnectionRefusedError):
            return f"cannot reach Discord: {where} refused the connection"
        if cause.errno in _UNREACHABLE:
            return (
                f"cannot reach Discord: no route to {where} ({cause.strerror}): check the "
                "machine's network"
            )
        return f"cannot reach Discord: connecting to {where} failed ({cause.strerror or cause})"
    if isinstance(error, aiohttp.ServerTimeoutError | asyncio.TimeoutError):
        return f"Discord ({api_host()}) did not answer in time"
    if isinstance(error, aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError):
        return f"Discord ({api_host()}) closed the connection before answering"
    if isinstance(error, aiohttp.ClientOSError | aiohttp.ClientConnectionError):
        return f"the connection to Discord ({api_host()}) failed ({_one_line(str(error))})"
    if isinstance(error, discord.DiscordServerError):
        return f"Discord is having trouble (HTTP {error.status}); its status: discordstatus.com"
    if isinstance(error, discord.RateLimited | discord.HTTPException) and _is_rate_limit(error):
        return "Discord is rate-limiting this machine (HTTP 429)"
    if isinstance(error, discord.GatewayNotFound):
        return "Discord's gateway is unavailable"
    if isinstance(error, discord.ConnectionClosed) and error.code not in _FATAL_CLOSE_CODES:
        return f"the gateway closed the connection (code {error.code})"
    if isinstance(error, OSError) and not isinstance(error, discord.DiscordException):
        return f"network error talking to Discord: {error.strerror or error}"
    return None


def _is_rate_limit(error: BaseException) -> bool:
    return isinstance(error, discord.RateLimited) or getattr(error, "status", None) == 429


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()[:300]
