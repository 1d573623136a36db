"""Dimension Duel end to end on the fake Discord: tactical games by DM and through the
ephemeral fallback, classic games with Roll, and games against the AI."""

from __future__ import annotations

import json
from typing import Any

import pytest
from duel_support import Duel, duel_lock, select_id
from fakediscord import FakeDiscord, FakeMessage, Player

from bot.app import DiceBot

# The attacker fires a Tau ray at the head; the defender guards the wrong way, so every
# turn deals damage and a 10 HP duel ends in a few turns.
ATTACK = ("tau", "head")
DEFEND = ("kaon", "torso")


async def start_duel(
    fake: FakeDiscord, challenger: Player, opponent: Player, **options: Any
) -> Duel:
    challenge = await challenger.slash("duel challenge", opponent=opponent, **options)
    assert not challenge.ephemeral and challenge.message is not None
    duel = Duel(fake, challenge.message, "dd")
    await opponent.click(duel.board, "Accept")
    await duel.wait_round(1)
    return duel


def field_of(board: FakeMessage, name: str) -> tuple[str, str]:
    """(field name, field value) of a player's field on the public message."""
    for embed_field in (board.embed or {}).get("fields", []):
        if embed_field["name"].startswith(name):
            return str(embed_field["name"]), str(embed_field["value"])
    raise AssertionError(f"no field for {name} on {board.text()}")


def attacking(board: FakeMessage, name: str) -> bool:
    return "attacking" in field_of(board, name)[0]


async def result_of(bot: DiceBot, session_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    row = await bot.db.fetch_one("SELECT * FROM results WHERE session_id = ?", (session_id,))
    assert row is not None, "the finished game was not recorded"
    players = await bot.db.fetch_all(
        "SELECT * FROM result_players WHERE result_id = ? ORDER BY seat", (row["id"],)
    )
    return dict(row), [dict(p) for p in players]


def function_options(message: FakeMessage) -> list[str]:
    select = next(s for s in message.selects() if ":fn:" in s["custom_id"])
    return [str(option["value"]) for option in select["options"]]


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_whole_tactical_game_by_dm(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    duel = await start_duel(fake_discord, alice, bob, hp=80)
    text = duel.board.text()
    assert "Turn 1" in text and "80 HP each" in text and "tactical" in text
    tau = alice if "Tau" in field_of(duel.board, "Alice")[0] else bob
    assert attacking(duel.board, tau.name.capitalize())

    used: dict[str, list[str]] = {"alice": [], "bob": []}
    number = 1
    while True:
        for player in (alice, bob):
            dm = await duel.dm_controls(player, number)
            name = player.name.capitalize()
            options = function_options(dm)
            assert "bluff" in options
            for spent in used[player.name]:
                assert spent not in options, f"{spent} has no charge left"
            # Each player spends Intensifier once, then bluffs.
            function = "intensifier" if "intensifier" in options else "bluff"
            device, region = ATTACK if attacking(duel.board, name) else DEFEND
            note = await duel_lock(player, dm, device, region, function)
            assert "Locked in" in note
            if function != "bluff":
                used[player.name].append(function)
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        text = duel.board.text()
        assert f"Turn {number} reveal" in text
        for step in ("1️⃣ Ray and shield", "2️⃣ Focus", "3️⃣ Functions", "4️⃣ Dice", "💥 Damage"):
            assert step in text
        if number == 1:
            assert "intensified: damage ×4" in text
            # Hit points and functions left are in the picture and its alt text only.
            alt = duel.board.attachment("duel.png").description
            assert "has Disruptor, Delayed Attack, Deflector, Particle Changer left" in alt
            assert "Functions left" not in text and "░" not in text
        if duel.over():
            break
        number += 1
        assert number < 40

    assert number > 1, "the duel should have outlived its Intensifier turn"
    assert duel.board.labels() == ["Rematch", "Replay"]  # over: a rematch, a replay
    result, players = await result_of(running_bot, duel.session_id)
    summary = json.loads(result["summary"])
    assert summary["mode"] == "tactical" and summary["first_seat"] == 0
    assert (
        summary["functions"][0][0] == "intensifier" and summary["functions"][1][0] == "intensifier"
    )
    assert all(f == "bluff" for seat in summary["functions"] for f in seat[1:])
    assert summary["score_line"].startswith("HP ")
    tau_seat = next(p for p in players if p["user_id"] == tau.id)
    assert tau_seat["seat"] == 0 and tau_seat["went_first"] == 1


async def test_closed_dms_play_through_make_your_move(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    alice.dms_open = False
    duel = await start_duel(fake_discord, alice, bob, hp=10)
    await duel.wait_text("DMs closed")
    assert "📭 DMs closed" in field_of(duel.board, "Alice")[1]
    number = 1
    while True:
        controls = await duel.open_ephemeral(alice)
        roles = {p: attacking(duel.board, p.name.capitalize()) for p in (alice, bob)}
        device, region = ATTACK if roles[alice] else DEFEND
        assert "Locked in" in await duel_lock(alice, controls, device, region, "bluff")
        device, region = ATTACK if roles[bob] else DEFEND
        await duel_lock(bob, await duel.dm_controls(bob, number), device, region, "bluff")
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        if duel.over():
            break
        number += 1
    assert alice.dms() == []
    result, _ = await result_of(running_bot, duel.session_id)
    assert result["reason"] == "normal"


async def test_a_classic_game_with_roll(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player, carol: Player
) -> None:
    duel = await start_duel(fake_discord, alice, bob, mode="classic", hp=10)
    assert duel.board.labels() == ["Roll"]
    assert "classic" in duel.board.text()
    refused = await carol.click(duel.board, "Roll")
    assert refused.ephemeral and "not your game" in refused.text()
    number = 1
    while True:
        await alice.click(duel.board, "Roll")
        await fake_discord.wait_for(
            lambda: "🎲 Rolled" in field_of(duel.board, "Alice")[1], what="Alice rolled"
        )
        twice = await alice.click(duel.board, "Roll")
        assert twice.ephemeral and "already locked in" in twice.text()
        await bob.click(duel.board, "Roll")
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        text = duel.board.text()
        # Every roll is shown: the card's d6 for each choice, then the damage dice.
        assert "'s card rolls: " in text and "→" in text
        assert "4️⃣ Dice" in text
        if duel.over():
            break
        number += 1
        assert number < 40
    assert alice.dms() == [] and bob.dms() == []  # classic mode has nothing secret
    result, _ = await result_of(running_bot, duel.session_id)
    assert json.loads(result["summary"])["mode"] == "classic"


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_tactical_game_against_the_ai(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    started = await alice.slash("duel ai", hp=10)
    assert started.message is not None
    duel = Duel(fake_discord, started.message, "dd")
    await duel.wait_round(1)
    number = 1
    while True:
        controls = await duel.dm_controls(alice, number)
        assert "🔒 Locked in" in field_of(duel.board, "DiceBot")[1]
        device, region = ATTACK if attacking(duel.board, "Alice") else DEFEND
        await duel_lock(alice, controls, device, region, "bluff")
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        if duel.over():
            break
        number += 1
        assert number < 40
    result, players = await result_of(running_bot, duel.session_id)
    assert result["vs_ai"] == 1
    assert sorted(p["is_ai"] for p in players) == [0, 1]


async def test_a_classic_game_against_the_ai(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    started = await alice.slash("duel ai", mode="classic", hp=10)
    assert started.message is not None
    duel = Duel(fake_discord, started.message, "dd")
    await duel.wait_round(1)
    number = 1
    while not duel.over():
        assert "🎲 Rolled" in field_of(duel.board, "DiceBot")[1]
        await alice.click(duel.board, "Roll")
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        number += 1
        assert number < 40
    result, _ = await result_of(running_bot, duel.session_id)
    assert result["vs_ai"] == 1


async def test_the_select_only_offers_functions_with_charges(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    duel = await start_duel(fake_discord, alice, bob, hp=150)
    for number in (1, 2):
        for player in (alice, bob):
            dm = await duel.dm_controls(player, number)
            attack = attacking(duel.board, player.name.capitalize())
            if number == 1:
                assert function_options(dm) == [
                    "bluff",
                    "disruptor",
                    "delayed_attack",
                    "deflector",
                    "intensifier",
                    "changer_self",
                    "changer_opponent",
                ]
                await duel_lock(player, dm, *(ATTACK if attack else DEFEND), "changer_self")
            else:
                # One Particle Changer charge covers both kinds.
                assert "changer_self" not in function_options(dm)
                assert "changer_opponent" not in function_options(dm)
                placeholder = select_id(dm, "dev")
                assert placeholder.endswith(":___")
        await fake_discord.wait_for(
            lambda n=number: duel.round() == n + 1 or n == 2, what="the next turn"
        )
