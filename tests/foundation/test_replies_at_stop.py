"""A press still being handled when the bot stops (past the shutdown's grace) fails because
the bot's HTTP session is closed: that is the stop, not a bug. It is logged as a WARNING,
never an ERROR, and no answer is tried through the closed session."""

from __future__ import annotations

import logging
from typing import Any, cast

import discord
import pytest

from bot.ui.replies import report_error


class StoppedClient:
    def is_closed(self) -> bool:
        return True


class Interaction:
    """What report_error reads of an interaction; ``answers`` counts answers tried."""

    def __init__(self) -> None:
        self.id = 1234
        self.guild_id = 42
        self.client = StoppedClient()
        self.extras: dict[str, Any] = {}
        self.answers = 0

    @property
    def response(self) -> Any:
        self.answers += 1
        raise AssertionError("an answer was tried through the closed session")


async def test_an_interaction_cut_short_by_the_stop_is_a_warning_and_no_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    interaction = Interaction()
    with caplog.at_level(logging.DEBUG):
        await report_error(
            cast(discord.Interaction, interaction), RuntimeError("Session is closed")
        )
    assert interaction.answers == 0
    assert [record.levelno for record in caplog.records] == [logging.WARNING]
    assert caplog.records[0].getMessage() == (
        "interaction 1234 was not answered: the bot stopped while handling it (RuntimeError)"
    )
