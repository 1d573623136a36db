"""End-to-end: the real bot, through the real discord.py, against the fake Discord."""

from __future__ import annotations

from fakediscord import CallbackType, FakeDiscord, Player


async def test_ping_answers_ephemerally(
    running_bot, fake_discord: FakeDiscord, alice: Player
) -> None:
    outcome = await alice.slash("ping")
    assert outcome.type is CallbackType.MESSAGE
    assert outcome.ephemeral
    assert "Pong" in outcome.text()
