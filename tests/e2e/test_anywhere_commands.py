"""The commands that make sense anywhere (issue 32), used where the bot is no member: a user
installed the app and asks for /help, /rules or /odds in a DM with a friend, a group DM or a
server that never added the bot. The answers come through the interaction only (the fake
fails the test on any channel route there), speak only of what works there, and the
server-only commands are not offered there at all."""

from __future__ import annotations

import pytest
from fakediscord import (
    BotHarness,
    CallbackType,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUsageError,
    InteractionOutcome,
    Player,
)

from bot.app import DiceBot

ANYWHERE = ("knucklebones", "diceman", "duel", "odds", "rules", "help", "stats", "history")
SERVER_ONLY = ("leaderboard", "dicebot", "weighted", "tournament", "ping")
PLACES = ("dm", "group-dm", "server-without-bot")


@pytest.fixture
async def running_bot(bot_factory: BotHarness) -> DiceBot:
    """The bot with its commands synced globally, as in production: only a global command
    can be installed to a person's account."""
    bot_factory.options["settings"] = {"dev_guild_id": None}
    bot = await bot_factory.start()
    assert isinstance(bot, DiceBot)
    return bot


@pytest.fixture(params=PLACES)
async def place(
    request: pytest.FixtureRequest,
    fake_discord: FakeDiscord,
    server_without_bot: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> tuple[FakeChannel, Player]:
    """Where the player (who installed the app) asks, and who asks."""
    if request.param == "dm":
        channel, player = fake_discord.dm_between(alice, bob), alice
    elif request.param == "group-dm":
        channel, player = fake_discord.group_dm(carol, alice, bob), alice
    else:
        player = await server_without_bot.add_member("erin")
        channel = server_without_bot.default_channel
    player.install_app()
    return channel, player


def synced(fake_discord: FakeDiscord, name: str) -> dict:
    command = fake_discord.commands.find(name, None)
    assert command is not None, name
    return command.data


async def test_what_is_declared_installable_to_users_and_usable_everywhere(
    running_bot: DiceBot, fake_discord: FakeDiscord
) -> None:
    for name in ANYWHERE:
        data = synced(fake_discord, name)
        assert sorted(data["integration_types"]) == [0, 1], name
        assert sorted(data["contexts"]) == [0, 1, 2], name
    for name in SERVER_ONLY:
        data = synced(fake_discord, name)
        assert data.get("integration_types") in (None, [0]), name
        assert data.get("contexts") in (None, [0]), name


async def private_text(outcome: InteractionOutcome) -> str:
    """What only the asker sees: the answer itself, or the private follow-up of a press
    deferred on its message (so its token reaches that message)."""
    if outcome.type is CallbackType.DEFERRED_UPDATE:
        message = await outcome.followup()
    else:
        message = await outcome.final_message()
    assert message.ephemeral
    return message.text()


async def test_help_rules_and_odds_answer_anywhere(
    running_bot: DiceBot, place: tuple[FakeChannel, Player]
) -> None:
    channel, player = place
    help_answer = await player.slash("help", channel=channel)
    assert help_answer.type is CallbackType.MESSAGE and help_answer.ephemeral
    card = help_answer.message
    assert card is not None and card.embed is not None
    shown = player.reads(card)
    assert "play the two-player dice games with a friend" in shown
    assert "/stats and /history as games with friends" in shown
    titles = [field["name"].split(" · ")[0] for field in card.embed["fields"][:-1]]
    assert titles == ["Knucklebones", "Diceman", "Dimension Duel"]
    # Nothing it names is out of reach here: no /dicebot check, no /leaderboard.
    assert "/dicebot" not in shown and "/leaderboard" not in shown and "/weighted" not in shown
    assert "the chances, worked out exactly: /odds diceman" in shown
    assert card.labels() == ["Knucklebones rules", "Diceman rules", "Dimension Duel rules"]

    rules = await player.click(card, "Diceman rules")
    text = await private_text(rules)
    assert "Diceman — rules" in text and "On this server" not in text

    rules = await player.slash("rules", channel=channel, game="knucklebones")
    assert rules.ephemeral
    text = rules.text()
    assert "Knucklebones — rules" in text and "On this server" not in text

    odds = await player.slash("odds knucklebones", channel=channel)
    assert "first player" in (await odds.final_message()).text().lower()
    assert channel.messages() == []  # all of it private


async def test_server_only_commands_are_not_offered_outside_servers(
    running_bot: DiceBot, place: tuple[FakeChannel, Player]
) -> None:
    channel, player = place
    for command in ("leaderboard", "weighted new", "dicebot check"):
        with pytest.raises(FakeUsageError):
            await player.slash(command, channel=channel)
