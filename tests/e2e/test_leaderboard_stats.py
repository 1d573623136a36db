"""/stats, /history and /rules end to end on the fake Discord."""

from __future__ import annotations

from fakediscord import CallbackType, FakeGuild, Player
from leaderboard_support import finish_game

from bot.app import DiceBot


def field(message_embed: dict, name: str) -> str:
    for entry in message_embed.get("fields") or []:
        if entry["name"] == name:
            return str(entry["value"])
    names = [entry["name"] for entry in message_embed.get("fields") or []]
    raise AssertionError(f"no field {name!r}: {names}")


async def test_stats_show_record_rank_favourites_and_recent_results(
    running_bot: DiceBot, guild: FakeGuild, alice: Player, bob: Player, carol: Player
) -> None:
    channel = guild.default_channel.id
    ai = running_bot.user.id if running_bot.user else 1
    # Knucklebones: alice beats bob three times with scores 40, 50, 60; loses once to the AI.
    for score in (40, 50, 60):
        await finish_game(
            running_bot,
            game="knucklebones",
            guild_id=guild.id,
            channel_id=channel,
            players=[alice.id, bob.id],
            ranks=[1, 2],
            scores=[score, 20],
            summary={"score_line": f"{score}–20", "first_seat": 0},
            message_id=555_000 + score,
        )
    await finish_game(
        running_bot,
        game="knucklebones",
        guild_id=guild.id,
        channel_id=channel,
        players=[alice.id, ai],
        ranks=[2, 1],
        ai=[ai],
        scores=[10, 30],
        summary={"score_line": "10–30"},
    )
    # Diceman: one game, her favourite pair is Priority + Sword.
    await finish_game(
        running_bot,
        game="diceman",
        guild_id=guild.id,
        channel_id=channel,
        players=[carol.id, alice.id],
        ranks=[1, 2],
        reason="forfeit",
        summary={
            "score_line": "Life 12–9",
            "choices": [
                [["magic", "shield"]],
                [["sword", "priority"], ["priority", "sword"], ["magic", "sword"]],
            ],
        },
    )

    answer = await alice.slash("stats")
    assert answer.type is CallbackType.MESSAGE and not answer.ephemeral
    embed = answer.message.embed if answer.message else None
    assert embed is not None
    assert "Alice" in embed["title"]
    knucklebones = field(embed, "Knucklebones")
    assert "rank **#1** of 2" in knucklebones
    assert "W/L/D **3/0/0** · win rate **100%** · 3 games" in knucklebones
    assert "best win streak **3**" in knucklebones
    assert "vs the AI (not ranked): 0/1/0" in knucklebones
    assert "Average final score: **40.0**" in knucklebones  # (40 + 50 + 60 + 10) / 4
    diceman = field(embed, "Diceman")
    assert "provisional (1 of 3 games to be ranked)" in diceman
    assert "Favourite dice: **Priority + Sword** (2 rounds)" in diceman
    recent = field(embed, "Last 5 results").splitlines()
    # Seat order is carol 12, alice 9: alice's own line reads from her side.
    # Opponents by the name they played under (the AI by the bot's), never a mention.
    assert recent[0].startswith(f"❌ Loss (forfeit) · Diceman · vs player{carol.id} · Life 9–12")
    ai_name = running_bot.user.display_name
    assert recent[1].startswith(f"❌ Loss · Knucklebones · vs {ai_name} · 10–30")
    assert (
        recent[2].startswith(f"✅ Win · Knucklebones · vs player{bob.id}") and "60–20" in recent[2]
    )
    assert "<@" not in field(embed, "Last 5 results")
    link = f"https://discord.com/channels/{guild.id}/{channel}/555060"
    assert f"[game]({link})" in recent[2]

    # Someone else's stats, and someone with none.
    bobs = await alice.slash("stats", user=bob)
    assert bobs.message is not None and bobs.message.embed is not None
    assert "rank **#2** of 2" in field(bobs.message.embed, "Knucklebones")
    carols = await bob.slash("stats", user=carol)
    assert "Diceman" in carols.text() and "Knucklebones" not in carols.text()
    zed = await guild.add_member("zed")
    empty = await alice.slash("stats", user=zed)
    assert "has not finished a game in this server yet" in empty.text()


async def test_dimension_duel_favourite_function(
    running_bot: DiceBot, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    await finish_game(
        running_bot,
        game="dimension_duel",
        guild_id=guild.id,
        channel_id=guild.default_channel.id,
        players=[alice.id, bob.id],
        ranks=[1, 1],
        draw=True,
        summary={"functions": [["changer_self", "bluff", "changer_self"], ["deflector"]]},
    )
    answer = await alice.slash("stats")
    assert answer.message is not None and answer.message.embed is not None
    duel = field(answer.message.embed, "Dimension Duel")
    assert "Favourite function: **Particle Changer (self)** (2 turns)" in duel
    assert "W/L/D **0/0/1**" in duel


async def test_history_lists_recent_games_with_links_and_filters(
    running_bot: DiceBot, guild: FakeGuild, alice: Player, bob: Player, carol: Player
) -> None:
    channel = guild.default_channel.id
    await finish_game(
        running_bot,
        game="knucklebones",
        guild_id=guild.id,
        channel_id=channel,
        players=[alice.id, bob.id],
        ranks=[1, 2],
        summary={"score_line": "45–30"},
        message_id=777,
    )
    running_bot.clock.advance(60)  # type: ignore[attr-defined]
    await finish_game(
        running_bot,
        game="weighted_dice",
        guild_id=guild.id,
        channel_id=channel,
        players=[carol.id, bob.id, alice.id, 11, 12],
        ranks=[1, 1, 3, 4, 5],
        summary={"score_line": "Carol 150 · Bob 150 · Alice 80"},
    )
    running_bot.clock.advance(60)  # type: ignore[attr-defined]
    await finish_game(
        running_bot,
        game="diceman",
        guild_id=guild.id,
        channel_id=channel,
        players=[bob.id, carol.id],
        ranks=[1, 1],
        draw=True,
        summary={"score_line": "Life 0–0"},
    )

    everything = await alice.slash("history")
    assert everything.type is CallbackType.MESSAGE
    lines = (everything.message.embed or {}).get("description", "").splitlines()  # type: ignore[union-attr]
    assert len(lines) == 3
    assert lines[0].startswith("**Diceman** · ") and "drew" in lines[0]
    assert lines[1].startswith("**Weighted Dice** · 🏆 ") and "(5 players)" in lines[1]
    assert f"player{carol.id}, player{bob.id}" in lines[1]
    assert lines[2].startswith(f"**Knucklebones** · player{alice.id} beat player{bob.id} · 45–30")
    assert f"(https://discord.com/channels/{guild.id}/{channel}/777)" in lines[2]

    only_kb = await alice.slash("history", game="knucklebones")
    assert "Recent Knucklebones games" in only_kb.text()
    assert "Weighted Dice" not in only_kb.text().split("\n", 1)[1]

    alices = await bob.slash("history", user=alice)
    text = alices.text()
    assert "Diceman" not in text and "Weighted Dice" in text and "Knucklebones" in text

    none = await alice.slash("history", game="dimension_duel")
    assert "No finished games match" in none.text()


async def test_rules_are_ephemeral_with_house_decisions_and_server_timers(
    running_bot: DiceBot, guild: FakeGuild, alice: Player
) -> None:
    answer = await alice.slash("rules", game="diceman")
    assert answer.type is CallbackType.MESSAGE and answer.ephemeral
    text = answer.text()
    assert "Diceman — rules" in text
    assert "30 rounds" in text  # the house decision
    assert "On this server: 3 min per round to lock in" in text
    assert "/diceman challenge" in text

    for game, phrase in (
        ("knucklebones", "face × copies × copies"),
        ("weighted_dice", "never drop below 5"),
        ("dimension_duel", "once per game"),
    ):
        card = await alice.slash("rules", game=game)
        assert card.ephemeral and phrase in card.text(), game


async def test_history_score_lines_read_in_the_order_the_sentence_names_the_players(
    running_bot: DiceBot, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    # Seat order alice, bob; bob won 43 to 38, and Diceman life 4 to 11 for bob.
    for game, line in (("knucklebones", "38–43"), ("diceman", "Life 4–11")):
        await finish_game(
            running_bot,
            game=game,
            guild_id=guild.id,
            channel_id=guild.default_channel.id,
            players=[alice.id, bob.id],
            ranks=[2, 1],
            summary={"score_line": line},
        )
    shown = await alice.slash("history")
    text = shown.text()
    assert f"player{bob.id} beat player{alice.id} · 43–38" in text
    assert f"player{bob.id} beat player{alice.id} · Life 11–4" in text
    assert "38–43" not in text and "Life 4–11" not in text
