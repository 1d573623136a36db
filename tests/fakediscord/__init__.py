"""A fake Discord for end-to-end tests: the real bot, through the real discord.py, against a
small aiohttp server on 127.0.0.1 (gateway websocket + REST). See README.md."""

from . import routes
from .chaos import Chaos, ChaosSettings
from .errors import BotDidNotAnswer, FakeUsageError
from .faults import CallbackFault, FaultRule, HeldRequests, InjectedFault
from .harness import BotHarness, BotStartError
from .interactions import (
    CallbackType,
    FakeInteraction,
    FakeModal,
    InteractionOutcome,
    InteractionType,
    wait_for_answer,
)
from .models import (
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeThread,
    FakeUser,
    MessageVersion,
)
from .players import Player
from .server import FakeDiscord, Problem, RequestRecord

__all__ = [
    "BotDidNotAnswer",
    "BotHarness",
    "BotStartError",
    "CallbackFault",
    "CallbackType",
    "Chaos",
    "ChaosSettings",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeInteraction",
    "FakeMessage",
    "FakeModal",
    "FakeThread",
    "FakeUsageError",
    "FakeUser",
    "FaultRule",
    "HeldRequests",
    "InjectedFault",
    "InteractionOutcome",
    "InteractionType",
    "MessageVersion",
    "Player",
    "Problem",
    "RequestRecord",
    "routes",
    "wait_for_answer",
]
