"""/help end to end: what the bot does, the four games in a line each with how to start
them, and buttons that open each game's rules privately (after a restart too)."""

from __future__ import annotations

from fakediscord import BotHarness, CallbackType, FakeDiscord, FakeGuild, Player

GAMES = {
    "Knucklebones": ("/knucklebones challenge", "/knucklebones ai"),
    "Diceman": ("/diceman challenge", "/diceman ai"),
    "Weighted Dice": ("/weighted new",),
    "Dimension Duel": ("/duel challenge", "/duel ai"),
}


async def test_help_names_the_games_how_to_start_them_and_opens_rules_privately(
    bot_factory: BotHarness, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    await bot_factory.start()
    answer = await alice.slash("help")
    assert answer.type is CallbackType.MESSAGE and answer.ephemeral
    card = answer.message
    assert card is not None and card.embed is not None
    assert "four dice games" in card.embed["description"]
    fields = {f["name"]: f["value"] for f in card.embed["fields"]}
    for title, commands in GAMES.items():
        (line,) = [value for name, value in fields.items() if name.startswith(f"{title} · ")]
        assert "\n" not in line  # a line each
        # Clickable command mentions (the path and the id of its top-level command).
        assert all(f"</{command[1:]}:" in line for command in commands), (title, line)
    assert "How to start" in fields and "</dicebot check:" in fields["How to start"]
    shown = alice.reads(card)
    assert "Run /dicebot check once" in shown
    assert "the chances, worked out exactly: /odds diceman, /odds knucklebones" in shown
    assert "best_of: 3" in fields["How to start"] and "**Rematch**" in fields["How to start"]
    assert card.labels() == [f"{title} rules" for title in GAMES]
    assert guild.default_channel.messages() == []  # nothing public

    rules = await alice.click(card, "Knucklebones rules")
    assert rules.type is CallbackType.MESSAGE and rules.ephemeral
    assert "Knucklebones — rules" in rules.text() and "face × copies × copies" in rules.text()
    assert "On this server: 5 min per turn" in rules.text()
    assert bob.ephemerals() == [] and guild.default_channel.messages() == []

    # The card's buttons are dispatched by custom_id: they work after a restart.
    await bot_factory.restart()
    again = await alice.click(card, "Weighted Dice rules")
    assert again.ephemeral and "Weighted Dice — rules" in again.text()


async def test_a_forged_rules_button_gets_the_no_longer_active_answer(
    running_bot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player
) -> None:
    forged = await fake_discord.seed_bot_message(
        guild.default_channel,
        content="help",
        components=[
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 2, "label": "Chess", "custom_id": "help:rules:chess"}
                ],
            }
        ],
    )
    outcome = await alice.click(forged, "Chess")
    assert outcome.ephemeral and "no longer active" in outcome.text()
