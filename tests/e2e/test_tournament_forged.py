"""A tournament's sign-up buttons refuse forged and stale ids in words and change nothing:
a Join copied into another server, an event that does not exist, a Start by a player who
is not the host, a Join after the start."""

from __future__ import annotations

import discord
from fakediscord import FakeDiscord, FakeGuild, Player

from bot.app import DiceBot

MANAGER = discord.Permissions(manage_guild=True)


def button(custom_id: str, label: str) -> dict[str, object]:
    """An action row with one button, as a forged or copied message holds it."""
    return {
        "type": 1,
        "components": [{"type": 2, "style": 1, "label": label, "custom_id": custom_id}],
    }


async def signed_up(bot: DiceBot, event_id: int) -> list[int]:
    cog = bot.get_cog("TournamentCog")
    assert cog is not None
    view = await cog.service.view(event_id)  # type: ignore[attr-defined]
    return sorted(player.user_id for player in view.players)


async def test_forged_and_stale_sign_up_ids_are_refused_and_change_nothing(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    host = await guild.add_member("host", permissions=MANAGER)
    made = await host.slash("tournament new", game="knucklebones", name="Cup")
    event = made.message
    assert event is not None
    joined = await alice.click(event, "Join")
    assert joined.ephemeral and "You are in" in joined.text()
    event_id = int(str(event.components[0]["components"][0]["custom_id"]).split(":")[1])
    assert await signed_up(running_bot, event_id) == [alice.id]
    content = event.content

    # A Join copied into another server's message signs nobody up to this one.
    other = await fake_discord.create_guild("Other")
    stranger = await fake_discord.add_member(other, "stranger")
    copied = await fake_discord.seed_bot_message(
        other.default_channel,
        content="copied",
        components=[button(f"tourney:{event_id}:join", "Join")],
    )
    refused = await stranger.click(copied, "Join")
    assert refused.ephemeral and "That tournament no longer exists" in refused.text()
    assert copied.content == "copied"

    # An event that does not exist, on the event's own message.
    own = event.components
    event.components = [button(f"tourney:{event_id + 1000}:join", "Forged")]
    refused = await alice.click(event, "Forged")
    assert refused.ephemeral and "That tournament no longer exists" in refused.text()
    event.components = own

    # Start by someone who is not the host (nor a manager).
    refused = await alice.click(event, "Start")
    assert refused.ephemeral and "host" in refused.text()

    assert await signed_up(running_bot, event_id) == [alice.id]
    assert event.content == content
