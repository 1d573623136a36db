"""Display names are shown as written in every game's text: a nickname made of markdown
(``**bold**__``) or ``@everyone`` neither breaks a message's formatting nor pings anyone.

Every message body the bot sends during a game (contents, embeds; not alt texts, button
labels or select options, which Discord shows as plain text) is checked: the nickname
appears only escaped, and ``@everyone`` only broken by a zero-width space."""

from __future__ import annotations

from typing import Any

from fakediscord import FakeDiscord, Player
from knucklebones_support import press_column, start_duel

from bot.model.clock import ManualClock
from bot.model.text import escape

NICK = "**bold**__ @everyone"
ESCAPED = "\\*\\*bold\\*\\*\\_\\_ @\u200beveryone"


def texts_of(body: Any) -> list[str]:
    """The markdown-rendered strings of a message body (content and embeds)."""
    if not isinstance(body, dict):
        return []
    data = body.get("data") if isinstance(body.get("data"), dict) else body
    found = [data.get("content") or ""]
    for embed in data.get("embeds") or []:
        found += [embed.get("title") or "", embed.get("description") or ""]
        found += [(embed.get("footer") or {}).get("text") or ""]
        for field in embed.get("fields") or []:
            found += [field.get("name") or "", field.get("value") or ""]
    return [text for text in found if text]


def check_names_escaped(fake: FakeDiscord, start: int = 0) -> int:
    """Fails on a body that shows the nickname raw; returns how many showed it escaped."""
    shown = 0
    for record in fake.requests[start:]:
        for text in texts_of(record.body):
            assert "@everyone" not in text, text
            if "bold" in text:
                assert ESCAPED in text and "**bold**" not in text.replace("\\*", ""), text
                shown += 1
    return shown


async def test_knucklebones_shows_a_markdown_nickname_as_written(
    running_bot, fake_discord: FakeDiscord, make_member, bob: Player
) -> None:
    eve: Player = await make_member("eve", nick=NICK)
    board = await start_duel(fake_discord, eve, bob, first="me")
    await press_column(eve, board, 0)  # "Last move: <her name> put a ..."
    assert ESCAPED in board.content
    outsider = await make_member("zed")
    refused = await outsider.click(board, "Column 2")
    assert ESCAPED in refused.text()  # "it is between <her name> and Bob"
    await eve.slash("knucklebones forfeit")
    await fake_discord.wait_for(lambda: "forfeited" in board.content, what="the forfeit")
    assert board.content.startswith(f"🏳️ {ESCAPED} forfeited: **Bob** wins")
    # Alt text is plain text: the picture's description names her as she is.
    assert NICK in (board.attachment("board.png").description or "")
    assert check_names_escaped(fake_discord) >= 3


async def test_the_duels_show_a_markdown_nickname_as_written(
    running_bot, fake_discord: FakeDiscord, make_member
) -> None:
    eve: Player = await make_member("eve", nick=NICK)
    for command, title in (("diceman ai", "Diceman"), ("duel ai", "Dimension Duel")):
        started = await eve.slash(command)
        board = started.message
        assert board is not None
        await fake_discord.wait_for(lambda b=board: bool(b.components), what=f"{title} board")
        game = command.split()[0]
        await eve.slash(f"{game} forfeit")
        await fake_discord.wait_for(
            lambda b=board: "forfeited" in b.content, what=f"the {title} forfeit"
        )
        assert board.content.startswith(f"🏳️ {ESCAPED} forfeited. **")
    assert check_names_escaped(fake_discord) >= 4


async def test_weighted_dice_shows_a_markdown_nickname_as_written(
    running_bot, fake_discord: FakeDiscord, make_member
) -> None:
    eve: Player = await make_member("eve", nick=NICK)
    others = [await make_member(name) for name in ("ann", "ben", "cat", "dan")]
    lobby = (await eve.slash("weighted new")).message
    assert lobby is not None
    for player in others:
        await player.click(lobby, "Join")
    await fake_discord.wait_for(lambda: "Players (5/12)" in lobby.text(), what="five seats")
    assert ESCAPED in lobby.text()
    await eve.click(lobby, "Start")
    await fake_discord.wait_for(lambda: bool(lobby.attachments), what="the table")
    assert NICK in (lobby.attachment("table.png").description or "")
    assert check_names_escaped(fake_discord) >= 2


# Discord display names are at most 32 characters: Weighted Dice shows them whole too.
LONG_NAMES = [
    "@everyone @here hello everyone!!",
    "田中" * 16,
    "**__" * 8,
    "Ｗｉｄｅ" * 8,
    "x" * 31 + "🎲",
]


async def test_weighted_dice_shows_32_character_names_in_full(
    running_bot, fake_discord: FakeDiscord, clock: ManualClock, make_member
) -> None:
    players = [await make_member(f"p{index}", nick=nick) for index, nick in enumerate(LONG_NAMES)]
    lobby = (await players[0].slash("weighted new")).message
    assert lobby is not None
    for player in players[1:]:
        await player.click(lobby, "Join")
    await fake_discord.wait_for(lambda: "Players (5/12)" in lobby.text(), what="five seats")
    await players[0].click(lobby, "Start")
    await fake_discord.wait_for(lambda: bool(lobby.attachments), what="the table")
    shown = [escape(name) for name in LONG_NAMES]
    assert any(
        lobby.content == f"🎲 **Weighted Dice**, round 1: **{name}**, the house, picks the rollers."
        for name in shown
    ), lobby.content
    alt = lobby.attachment("table.png").description or ""
    assert all(name in alt for name in LONG_NAMES), alt
    assert alt.count("…") == alt.count("(to bet…)"), alt  # no name was cut

    # The house takes too long: the bot picks two rollers, and the line names both whole.
    clock.advance(61)
    await fake_discord.wait_for(lambda: "place your bets" in lobby.content, what="betting")
    rollers = [name for name in shown if f"**{name}** (d" in lobby.content]
    assert len(rollers) == 2, lobby.content
    alt = lobby.attachment("table.png").description or ""
    assert all(name in alt for name in LONG_NAMES), alt
    assert alt.count("…") == alt.count("(to bet…)"), alt  # no name was cut
    assert "@everyone" not in lobby.content and len(lobby.content) <= 2000
    check_names_escaped_long(fake_discord)


def check_names_escaped_long(fake: FakeDiscord) -> None:
    """No message text of the game pings: ``@everyone`` and ``@here`` only escaped."""
    for record in fake.requests:
        for text in texts_of(record.body):
            assert "@everyone" not in text and "@here" not in text, text


async def test_a_rematch_chain_names_a_markdown_nickname_as_written(
    running_bot, fake_discord: FakeDiscord, make_member, bob: Player
) -> None:
    eve: Player = await make_member("eve", nick=NICK)
    board = await start_duel(fake_discord, eve, bob, first="me")
    start = len(fake_discord.requests)
    await bob.slash("knucklebones forfeit")
    await fake_discord.wait_for(lambda: "forfeited" in board.content, what="the forfeit")
    refused = await (await make_member("zed")).click(board, "Rematch")
    assert f"Only {ESCAPED} and Bob can play on" in refused.text()
    challenge = (await bob.click(board, "Rematch")).message
    assert challenge is not None
    assert f"Head-to-head: {ESCAPED} leads 1–0." in challenge.content
    await eve.click(challenge, "Accept")
    await fake_discord.wait_for(lambda: "🔁 Head-to-head" in challenge.content, what="the rematch")
    assert f"🔁 Head-to-head: {ESCAPED} leads 1–0." in challenge.content
    assert check_names_escaped(fake_discord, start) >= 3
