"""A command a text tells a player to use: a clickable mention once the sync told its id
(the same in every language: each reader's client names it in theirs), the command's name
in the current language, in backticks, before (bot.model.command_mentions)."""

from __future__ import annotations

import asyncio

import pytest

from bot import i18n
from bot.model.command_mentions import (
    CommandIds,
    bind_command_ids,
    command_mention,
    command_name,
    using_command_ids,
)

IDS = CommandIds({"knucklebones": 1001, "dicebot": 1002})


@pytest.fixture(autouse=True)
def catalogs() -> None:
    i18n.load_all()


def test_before_the_sync_a_command_is_named_in_the_readers_language() -> None:
    with i18n.use("es"):
        assert command_mention("knucklebones", "challenge") == "`/knucklebones desafiar`"
    with i18n.use("fr"):
        assert command_mention("knucklebones", "challenge") == "`/knucklebones défier`"
        assert command_mention("dicebot", "season", "list") == "`/dicebot saison liste`"
    assert command_mention("knucklebones", "challenge") == "`/knucklebones challenge`"


def test_once_the_id_is_known_every_language_gets_the_same_mention() -> None:
    with using_command_ids(IDS):
        for language in ("en", "es", "fr"):
            with i18n.use(language):
                assert command_mention("knucklebones", "challenge") == (
                    "</knucklebones challenge:1001>"
                )
                assert command_mention("dicebot", "season", "list") == (
                    "</dicebot season list:1002>"
                )
        # A command the sync did not return (another version's) keeps its name.
        with i18n.use("es"):
            assert command_mention("weighted", "new") == "`/weighted nueva`"
    # The block is over: as before any sync.
    assert command_mention("knucklebones", "ai") == "`/knucklebones ai`"


def test_a_pseudo_localized_run_mentions_commands_all_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(i18n.PSEUDO_ENV, "1")
    with using_command_ids(IDS):
        assert command_mention("knucklebones", "ai") == "</knucklebones ai:1001>"
    assert i18n.PSEUDO_OPEN in command_mention("knucklebones", "ai")


def test_where_discord_shows_no_mention_the_name_is_plain_text() -> None:
    with using_command_ids(IDS), i18n.use("fr"):
        assert command_name("knucklebones", "forfeit") == "/knucklebones abandonner"


async def test_ids_learned_later_reach_the_tasks_already_started() -> None:
    """The bot binds its ids before it starts the publisher and the timers, and learns
    them at the sync (or a read) afterwards: every task started in between sees them."""
    ids = CommandIds()
    seen: list[str] = []
    learned = asyncio.Event()

    async def publisher() -> None:
        seen.append(command_mention("knucklebones", "ai"))
        await learned.wait()
        seen.append(command_mention("knucklebones", "ai"))

    async def setup() -> None:
        bind_command_ids(ids)
        task = asyncio.create_task(publisher())
        await asyncio.sleep(0)
        ids.learn({"knucklebones": 77})
        learned.set()
        await task

    await asyncio.create_task(setup())
    assert seen == ["`/knucklebones ai`", "</knucklebones ai:77>"]
    # The test's own task never bound them.
    assert command_mention("knucklebones", "ai") == "`/knucklebones ai`"
