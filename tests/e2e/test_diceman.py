"""Diceman end to end on the fake Discord: whole games by DM, through the ephemeral
fallback when DMs are closed, and against the AI."""

from __future__ import annotations

import json
from typing import Any

import pytest
from duel_support import Duel, confirm_id, diceman_lock, diceman_pick
from fakediscord import FakeDiscord, FakeMessage, Player, routes
from fakediscord.interactions import wait_for_answer
from weighted_support import eventually

from bot.app import DiceBot
from bot.model.clock import ManualClock

ALICE_PICK = ["priority", "sword"]
BOB_PICK = ["magic", "shield"]


async def start_duel(fake: FakeDiscord, challenger: Player, opponent: Player) -> Duel:
    challenge = await challenger.slash("diceman challenge", opponent=opponent)
    assert not challenge.ephemeral
    assert challenge.message is not None
    duel = Duel(fake, challenge.message, "dm")
    await opponent.click(duel.board, "Accept")
    await duel.wait_round(1)
    return duel


async def result_of(bot: DiceBot, session_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    row = await bot.db.fetch_one("SELECT * FROM results WHERE session_id = ?", (session_id,))
    assert row is not None, "the finished game was not recorded"
    players = await bot.db.fetch_all(
        "SELECT * FROM result_players WHERE result_id = ? ORDER BY seat", (row["id"],)
    )
    return dict(row), [dict(p) for p in players]


def field_of(board: FakeMessage, name: str) -> str:
    """The public message's field about one player: their bar and status."""
    for embed_field in (board.embed or {}).get("fields", []):
        if embed_field["name"].startswith(name):
            return str(embed_field["value"])
    raise AssertionError(f"no field for {name} on {board.text()}")


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_whole_game_by_dm(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    duel = await start_duel(fake_discord, alice, bob)
    assert "Round 1" in duel.board.text()
    assert duel.board.labels() == ["Make your move"]

    number = 1
    while True:
        alice_dm = await duel.dm_controls(alice, number)
        bob_dm = await duel.dm_controls(bob, number)
        assert "your secret pick" in alice_dm.text()
        note = await diceman_lock(alice, alice_dm, ALICE_PICK)
        assert "Locked in" in note and "Priority + ⚔️ Sword" in note
        assert alice_dm.buttons() == []  # the DM controls became a "locked in" note
        await fake_discord.wait_for(
            lambda: "🔒 Locked in" in field_of(duel.board, "Alice"),
            what="Alice shown as locked in",
        )
        assert "⏳ Choosing" in field_of(duel.board, "Bob")
        await diceman_lock(bob, bob_dm, BOB_PICK)
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        text = duel.board.text()
        assert f"Round {number} reveal" in text
        assert "**Alice** · ⚡ Priority **" in text and "**Bob** · 🔮 Magic **" in text
        # Each player is named once above what they did, the higher Priority first (Alice
        # rolls it, Bob picks no Priority), and once more in the damage line at most.
        # The reveal: from its heading to its damage line.
        reveal = text[text.index(f"Round {number} reveal") :].split("\n↳")[0]
        assert reveal.index("**Alice** · ") < reveal.index("**Bob** · ")
        assert reveal.count("Alice") == 1 and reveal.count("Bob") == 1
        assert "Phase" not in reveal and "sword 0" not in reveal
        if duel.over():
            break
        # The old controls were retired with the reveal; new ones came in a new DM.
        await fake_discord.wait_for(lambda d=alice_dm: "is over" in d.text(), what="retired DM")
        number += 1
        assert number <= 30

    result, players = await result_of(running_bot, duel.session_id)
    summary = json.loads(result["summary"])
    assert summary["choices"] == [[ALICE_PICK] * number, [BOB_PICK] * number]
    assert summary["rounds"] == number
    life = summary["score_line"].removeprefix("Life ").split("–")
    assert f"**{life[0]}**/20" in field_of(duel.board, "Alice")
    assert f"**{life[1]}**/20" in field_of(duel.board, "Bob")
    winner = next(p for p in players if p["outcome"] == "win")
    winner_name = "Alice" if winner["user_id"] == alice.id else "Bob"
    assert f"**{winner_name} wins!**" in duel.board.text()
    assert duel.board.labels() == ["Rematch", "Replay"]  # over: a rematch, a replay
    loser = bob if winner_name == "Alice" else alice
    champion = alice if winner_name == "Alice" else bob
    await fake_discord.wait_for(
        lambda: "You won" in champion.dms()[-1].text() and "You lost" in loser.dms()[-1].text(),
        what="game-over DMs",
    )
    assert result["reason"] == "normal" and result["vs_ai"] == 0


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_closed_dms_play_through_make_your_move(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    bob.dms_open = False
    duel = await start_duel(fake_discord, alice, bob)
    await duel.wait_text("DMs closed")
    assert "📭 DMs closed: use **Make your move**" in field_of(duel.board, "Bob")
    refused = [r for r in fake_discord.requests if r.error_code == 50007]
    assert refused, "the bot should have tried (and failed) to DM Bob"

    # A dismissed or lost ephemeral is never a dead end: pressing again reopens it.
    first = await duel.open_ephemeral(bob)
    reopened = await duel.open_ephemeral(bob)
    assert first.id != reopened.id and reopened.visible_to == bob.id
    assert reopened.custom_ids() == first.custom_ids()

    number = 1
    controls = reopened
    while True:
        alice_dm = await duel.dm_controls(alice, number)
        note = await diceman_lock(bob, controls, BOB_PICK)
        assert "Locked in" in note
        await diceman_lock(alice, alice_dm, ALICE_PICK)
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        if duel.over():
            break
        number += 1
        controls = await duel.open_ephemeral(bob)
    assert bob.dms() == []
    result, _ = await result_of(running_bot, duel.session_id)
    assert json.loads(result["summary"])["choices"][1] == [BOB_PICK] * number


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_game_against_the_ai(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    started = await alice.slash("diceman ai")
    assert not started.ephemeral and started.message is not None
    duel = Duel(fake_discord, started.message, "dm")
    await duel.wait_round(1)
    number = 1
    while True:
        controls = await duel.dm_controls(alice, number)
        # The AI locks in (in secret) as soon as the round starts.
        assert "🔒 Locked in" in field_of(duel.board, "DiceBot")
        await diceman_lock(alice, controls, ["sword", "shield"])
        await fake_discord.wait_for(
            lambda n=number: duel.over() or duel.round() == n + 1, what="the reveal"
        )
        assert f"Round {number} reveal" in duel.board.text()
        if duel.over():
            break
        number += 1
    result, players = await result_of(running_bot, duel.session_id)
    assert result["vs_ai"] == 1
    assert [p["is_ai"] for p in players] == [0, 1]
    ai_picks = json.loads(result["summary"])["choices"][1]
    assert len(ai_picks) == number and all(len(pair) == 2 for pair in ai_picks)


async def test_forfeit_command(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    nothing = await alice.slash("diceman forfeit")
    assert nothing.ephemeral and "no Diceman game open" in nothing.text()

    duel = await start_duel(fake_discord, alice, bob)
    await duel.dm_controls(bob, 1)
    answer = await alice.slash("diceman forfeit")
    assert answer.ephemeral and "forfeited" in answer.text()
    await duel.wait_text("Alice forfeited. **Bob wins!**")
    result, players = await result_of(running_bot, duel.session_id)
    assert result["reason"] == "forfeit"
    assert [p["outcome"] for p in players] == ["loss", "win"]
    await fake_discord.wait_for(lambda: "You won" in bob.dms()[-1].text(), what="Bob's DM")


async def test_one_open_game_per_player_per_channel(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player, carol: Player
) -> None:
    await start_duel(fake_discord, alice, bob)
    again = await alice.slash("diceman challenge", opponent=carol)
    assert again.ephemeral and "already have a game open" in again.text()
    busy = await carol.slash("diceman challenge", opponent=bob)
    assert busy.ephemeral and "Bob already has a game open" in busy.text()
    yourself = await carol.slash("diceman challenge", opponent=carol)
    assert yourself.ephemeral and "can't challenge yourself" in yourself.text()


async def test_a_lock_in_edits_each_private_message_once(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    """Confirm's own answer turns the controls into the "locked in" note (and, for the
    second player, into the round's reveal): the publisher does not edit that message
    again to the same thing. Only the other player's controls need the publisher."""
    duel = await start_duel(fake_discord, alice, bob)
    alice_dm = await duel.dm_controls(alice, 1)
    bob_dm = await duel.dm_controls(bob, 1)

    def edits_of(message: FakeMessage) -> int:
        return sum(
            1
            for r in fake_discord.requests
            if r.method == "PATCH" and r.path.endswith(f"/messages/{message.id}")
        )

    await diceman_lock(alice, alice_dm, ALICE_PICK)
    await fake_discord.wait_for(
        lambda: "🔒 Locked in" in field_of(duel.board, "Alice"), what="Alice locked in"
    )
    await running_bot.publisher.settled()
    assert "Locked in" in alice_dm.text()
    assert edits_of(alice_dm) == 0

    await diceman_lock(bob, bob_dm, BOB_PICK)
    await fake_discord.wait_for(lambda: duel.over() or duel.round() == 2, what="the reveal")
    await running_bot.publisher.settled()
    assert "is over" in bob_dm.text() and "is over" in alice_dm.text()
    assert edits_of(bob_dm) == 0  # Bob's own answer showed the reveal
    assert edits_of(alice_dm) == 1  # Alice's note became the reveal: one edit


async def test_the_reveal_does_not_wait_for_the_last_lock_ins_answer(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    """While Discord holds Bob's Confirm answer, Alice already sees the reveal and her next
    controls; Bob's own message is his answer's, and his next controls follow it."""
    duel = await start_duel(fake_discord, alice, bob)
    alice_dm = await duel.dm_controls(alice, 1)
    bob_dm = await duel.dm_controls(bob, 1)
    await diceman_lock(alice, alice_dm, ALICE_PICK)
    await diceman_pick(bob, bob_dm, BOB_PICK)
    held = fake_discord.hold(routes.CALLBACK)
    press = await bob.begin_click(bob_dm, confirm_id(bob_dm))
    await held.arrived()
    await fake_discord.wait_for(lambda: duel.round() == 2, what="the reveal, Bob's answer held")
    assert "Round 1 reveal" in duel.board.text()
    await duel.dm_controls(alice, 2)
    await fake_discord.wait_for(lambda: "is over" in alice_dm.text(), what="Alice's DM retired")
    assert "your secret pick" in bob_dm.text()  # Bob's message waits for his answer
    held.release()
    assert "is over" in (await wait_for_answer(press, 5)).text()
    await duel.dm_controls(bob, 2)
    await running_bot.publisher.settled()
    assert "is over" in bob_dm.text()
    assert not any(
        r.method == "PATCH" and r.path.endswith(f"/messages/{bob_dm.id}")
        for r in fake_discord.requests
    )


async def test_a_round_s_new_dm_that_fails_goes_out_later_and_the_old_one_is_retired_once(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    """At the reveal Alice's round-1 controls turn into the reveal and round 2's come in a
    new DM. Discord fails that new DM once (503): it goes out on the retry, and the
    round-1 message, already turned into the reveal, is not edited a second time."""
    duel = await start_duel(fake_discord, alice, bob)
    alice_dm = await duel.dm_controls(alice, 1)
    bob_dm = await duel.dm_controls(bob, 1)
    await diceman_lock(alice, alice_dm, ALICE_PICK)
    await running_bot.publisher.settled()
    failing = fake_discord.fail(
        routes.CHANNEL_MESSAGES,
        method="POST",
        when=lambda record: str(alice_dm.channel.id) in record.path,
    )
    await diceman_lock(bob, bob_dm, BOB_PICK)
    failures = running_bot.publisher.failures
    await fake_discord.wait_for(lambda: failing.hits == 1, what="the failed DM")

    async def publisher_waiting_to_try_again() -> bool:
        return running_bot.publisher.failures > failures

    await eventually(publisher_waiting_to_try_again, "the publisher waiting to try again")
    assert "is over" in alice_dm.text()  # retired before the new DM was tried
    clock.advance(5)  # the publisher's retry
    await duel.wait_round(2)
    await duel.dm_controls(alice, 2)
    await running_bot.publisher.settled()
    edits_of_round_one = [
        record
        for record in fake_discord.requests
        if record.method == "PATCH" and record.path.endswith(f"/messages/{alice_dm.id}")
    ]
    assert len(edits_of_round_one) == 1


async def test_a_dm_discord_fails_at_the_reveal_holds_back_neither_the_reveal_nor_the_other_dm(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    alice: Player,
    bob: Player,
) -> None:
    """Discord fails Alice's round-2 DM (503s) and, separately, the edit that retires her
    round-1 controls. Neither holds back the reveal in public or Bob's round-2 controls;
    Alice's come with the publisher's retry once Discord answers again."""
    for route, method in ((routes.CHANNEL_MESSAGES, "POST"), (routes.MESSAGE, "PATCH")):
        duel = await start_duel(fake_discord, alice, bob)
        alice_dm = await duel.dm_controls(alice, 1)
        bob_dm = await duel.dm_controls(bob, 1)
        await diceman_lock(alice, alice_dm, ALICE_PICK)
        await running_bot.publisher.settled()
        failing = fake_discord.fail(
            route,
            method=method,
            times=None,
            when=lambda record, dm=alice_dm: str(dm.channel.id) in record.path,
        )
        await diceman_lock(bob, bob_dm, BOB_PICK)
        # The publisher's retry waits on the manual clock: all of this comes without it.
        await duel.wait_round(2)
        assert "Round 1 reveal" in duel.board.text()
        await duel.dm_controls(bob, 2)
        assert failing.hits >= 1
        assert not duel.controls_in(alice.last_dm(), 2)

        failing.cancel()
        started = clock.now()

        async def alice_got_round_two(duel: Duel = duel, started: float = started) -> bool:
            # Towards the publisher's retry, a few seconds away (the round's timer, minutes
            # away, stays far off however slow the machine).
            if clock.now() - started < 30:
                clock.advance(0.5)
            return duel.controls_in(alice.last_dm(), 2)

        await eventually(alice_got_round_two, "Alice's round-2 controls on the retry")
        assert "is over" in alice_dm.text()
        await running_bot.publisher.settled()
        await alice.slash("diceman forfeit")
        await duel.wait_over()
