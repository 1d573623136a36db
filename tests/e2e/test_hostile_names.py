"""Display names are shown as written in every game's text: a nickname made of markdown
(``**bold**__``) or ``@everyone`` neither breaks a message's formatting nor pings anyone.

Every message body the bot sends during a game (contents, embeds; not alt texts, button
labels or select options, which Discord shows as plain text) is checked: the nickname
appears only escaped, and ``@everyone`` only broken by a zero-width space."""

from __future__ import annotations

from typing import Any

from fakediscord import FakeDiscord, Player
from knucklebones_support import press_column, start_duel

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
    await press_column(eve, board, 0)  # "Last: <her name> put a ..."
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
    assert f"Series: {ESCAPED} leads 1–0 so far." in challenge.content
    await eve.click(challenge, "Accept")
    await fake_discord.wait_for(lambda: "Rematch." in challenge.content, what="the rematch")
    assert f"🔁 Rematch. Series: {ESCAPED} leads 1–0." in challenge.content
    assert check_names_escaped(fake_discord, start) >= 3
