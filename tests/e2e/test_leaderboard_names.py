"""Leaderboards, /stats and /history as a player reads them: stored names rather than
mentions (a member who left still reads as themselves), names shown as written, counts in
plain words, and no rating formula in a footer."""

from __future__ import annotations

from fakediscord import FakeGuild, FakeMessage, Player
from leaderboard_support import finish_game

from bot.app import DiceBot

KB = "knucklebones"
# A member who played here and has since left: Discord would show "<@id>" as an unknown
# user; the board names them as they played.
GONE = 4_242_424_242


def description_lines(message: FakeMessage | None) -> list[str]:
    assert message is not None and message.embed is not None
    return str(message.embed.get("description", "")).splitlines()


async def test_rows_show_stored_names_escaped_never_a_mention(
    running_bot: DiceBot, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    channel = guild.default_channel.id
    names = {alice.id: "**bold**__ @everyone", GONE: "Gone Player", bob.id: "Bob"}
    for _ in range(3):
        await finish_game(running_bot, game=KB, guild_id=guild.id, channel_id=channel,
                          players=[alice.id, GONE], ranks=[1, 2], names=names)  # fmt: skip
    await finish_game(running_bot, game=KB, guild_id=guild.id, channel_id=channel,
                      players=[bob.id, GONE], ranks=[1, 2], names=names)  # fmt: skip

    board = await bob.slash("leaderboard", game=KB)
    rows = [line for line in description_lines(board.message) if line.startswith("`")][1:]
    # The nickname's markup stays characters and its @everyone pings nobody.
    assert rows[0].startswith("` 1` \\*\\*bold\\*\\*\\_\\_ @\u200beveryone · ")
    assert rows[0].endswith("3/0/0 · 3 · 🔥 W3")
    assert rows[1].startswith("` 2` Gone Player · ") and rows[1].endswith("0/4/0 · 4 · L4")
    assert "<@" not in board.text()
    provisional = board.message.embed["fields"][0]["value"]  # type: ignore[index,union-attr]
    assert provisional.startswith("Bob · ") and provisional.endswith("1 of 3")

    history = await bob.slash("history")
    lines = description_lines(history.message)
    assert lines[0].startswith("**Knucklebones** · Bob beat Gone Player · ")
    assert lines[1].startswith("**Knucklebones** · \\*\\*bold\\*\\*\\_\\_ @\u200beveryone beat ")
    assert "<@" not in history.text()


async def test_stats_count_in_words_and_explain_the_rating_without_symbols(
    running_bot: DiceBot, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    await finish_game(running_bot, game=KB, guild_id=guild.id,
                      channel_id=guild.default_channel.id, players=[alice.id, bob.id],
                      ranks=[1, 2])  # fmt: skip
    stats = await alice.slash("stats")
    embed = stats.message.embed if stats.message else None
    assert embed is not None
    knucklebones = next(f["value"] for f in embed["fields"] if f["name"] == "Knucklebones")
    assert "· 1 game" in knucklebones and "1 games" not in knucklebones
    assert "Streak W1 ·" in knucklebones and "🔥" not in knucklebones
    footer = embed["footer"]["text"]
    assert footer == (
        "Rating: a cautious estimate of skill, starting at 1,000, that firms up as you play; "
        "it starts fresh each season. Records and streaks are all time."
    )
    # alice won her first game: 1,103, a whole number on the scale the footer names.
    assert "rating **1,103**" in knucklebones

    nobody = await alice.slash("stats", user=bob)
    assert nobody.message is not None
    assert "<@" not in nobody.text()
