"""Weighted Dice's **Play again**, end to end on the fake Discord: a finished table opens a
new lobby with the same players invited and the same table options, each presses Join; a
second press joins; someone who did not play is refused; the new table starts as any
other."""

from __future__ import annotations

import re

from fakediscord import CallbackType, FakeDiscord, FakeMessage
from fakediscord.interactions import wait_for_answer
from weighted_support import Table

from bot.app import DiceBot

NAMES = ("ann", "ben", "cat", "dan", "eve")


async def finished_table(running_bot: DiceBot, fake_discord: FakeDiscord, make_member) -> Table:
    """Five players start a table; one leaves, so it ends at once (below five)."""
    players = [await make_member(name) for name in NAMES]
    table = Table(fake_discord, running_bot, players)
    opened = await players[0].slash("weighted new", points=100, betting_window=5)
    assert opened.message is not None
    table.message_id = opened.message.id
    table.session_id = table_number(opened.message)
    await table.join_all()
    await table.start()
    await players[4].slash("weighted leave")
    await table.wait_for_text("fewer than 5 players remain")
    assert table.message.labels() == ["Play again", "Replay"]
    return table


def table_number(message: FakeMessage) -> int:
    match = re.search(r"Table #(\d+)", message.text())
    assert match is not None
    return int(match.group(1))


async def test_play_again_invites_the_same_players_who_each_join(
    running_bot: DiceBot, fake_discord: FakeDiscord, make_member
) -> None:
    table = await finished_table(running_bot, fake_discord, make_member)
    ann, ben, cat, dan, eve = table.players
    zed = await make_member("zed")
    refused = await zed.click(table.message, "Play again")
    assert refused.ephemeral and "Only the players of this table" in refused.text()
    assert table.message.labels() == ["Play again", "Replay"]

    # Ben and cat press at once: one lobby (hosted by whoever came first), the other joins.
    presses = [
        await ben.begin_click(table.message, "Play again"),
        await cat.begin_click(table.message, "Play again"),
    ]
    answers = [await wait_for_answer(press, 5) for press in presses]
    opened = next(answer for answer in answers if answer.type is CallbackType.MESSAGE)
    joined = next(answer for answer in answers if answer is not opened)
    assert joined.ephemeral and joined.text().startswith("✅ You joined the new table.")
    lobby = opened.message
    assert lobby is not None and not opened.ephemeral
    host = ben if presses[0] is opened.interaction else cat
    guest = cat if host is ben else ben
    invited = [p for p in (ann, ben, cat, dan, eve) if p is not host]
    sent = next(
        r for r in fake_discord.requests if "Play again:" in str(r.body) and r.method == "POST"
    )
    assert sorted(sent.body["data"]["allowed_mentions"]["users"]) == sorted(p.id for p in invited)
    await fake_discord.wait_for(
        lambda: guest.mention not in lobby.content, what="the guest's join on the lobby"
    )
    waiting = [p for p in invited if p is not guest]
    assert lobby.content == (
        "🔁 Play again: " + " ".join(p.mention for p in waiting) + ", press **Join** to take "
        "your seat."
    )
    assert lobby.labels() == ["Join", "Leave", "Start"]
    # The table's options carry over.
    assert "First to **100** points wins" in lobby.text() and "**5 s** a round" in lobby.text()
    await fake_discord.wait_for(lambda: table.message.labels() == ["Replay"], what="the old button")
    assert table.message.content.endswith("\n🔁 A new table is open, below.")

    # Each presses Join; the host starts the new game.
    for player in waiting:
        await player.click(lobby, "Join")
    await fake_discord.wait_for(lambda: "Play again" not in lobby.content, what="all seated")
    new_table = Table(fake_discord, running_bot, [host, guest, *waiting])
    new_table.message_id = lobby.id
    new_table.session_id = table_number(lobby)
    await new_table.start()
    engine = await new_table.engine()
    assert engine.n_players == 5 and engine.phase == "setup" and engine.target == 100
