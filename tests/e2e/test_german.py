"""German (de), end to end: a whole Knucklebones game against the AI on a server whose
Discord language is German (the board, its buttons, the picture's alt text, the result), a
German client's own answers and command picker on an English server, and a server that
picks German for its game messages; a German player's Diceman controls by DM, and a
Weighted Dice bet typed the way the German bet form suggests ("alles")."""

from __future__ import annotations

import json
import re
from typing import Any

import discord
import pytest
from duel_support import Duel, diceman_lock, diceman_pick
from fakediscord import CallbackType, FakeDiscord, FakeGuild, FakeMessage, Player
from fakediscord.pseudo import plain
from knucklebones_support import session_for, stored_result
from test_weighted_dice import DICE_CYCLE
from weighted_support import Table

from bot.app import DiceBot
from bot.model.clock import ManualClock
from cogs.knucklebones.cog import AI_MOVE_DELAY
from cogs.knucklebones.picture import FILENAME as ATTACHMENT_NAME

COLUMN = re.compile(r"Spalte ([1-3])")
MOVER = re.compile(r"🎲 <@(\d+)> hat [⚀⚁⚂⚃⚄⚅] \*\*([1-6])\*\* gewürfelt: Wähl eine Spalte\.")


def columns(board: FakeMessage) -> list[dict[str, object]]:
    return [b for b in board.buttons() if COLUMN.fullmatch(str(b.get("label", "")))]


def open_columns(board: FakeMessage) -> list[str]:
    return [str(b["label"]) for b in columns(board) if not b.get("disabled")]


def finished(board: FakeMessage) -> bool:
    return not columns(board) and (
        " gewinnt, " in board.content or "Unentschieden" in board.content
    )


async def let_the_ai_move(fake: FakeDiscord, clock: ManualClock, board: FakeMessage) -> None:
    clock.advance(AI_MOVE_DELAY + 0.3)
    await fake.wait_for(
        lambda: finished(board) or bool(open_columns(board)), what="the AI's move to show"
    )


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_whole_knucklebones_game_in_german(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    guild: FakeGuild,
) -> None:
    guild.locale = "de"  # the server's language in its Discord settings: the game's
    jonas = await fake_discord.add_member(guild, "jonas", locale="de")
    started = await jonas.slash("knucklebones ai", difficulty="hard", first="me")
    board = started.message
    assert started.type is CallbackType.MESSAGE and board is not None
    match = MOVER.match(board.content)
    assert match is not None and int(match[1]) == jonas.id, board.content
    assert [b["label"] for b in columns(board)] == ["Spalte 1", "Spalte 2", "Spalte 3"]
    alt = board.attachment(ATTACHMENT_NAME).description or ""
    # Plural forms: nobody has a point yet ("0 Punkte"), and the rolled face as a number.
    assert alt.startswith("Knucklebones-Brett, Zug 1. Jonas (oberes Raster), 0 Punkte.")
    assert alt.endswith(f"Jonas ist am Zug und legt eine {match[2]}.")

    # An English client in the same channel is answered in English.
    english = await fake_discord.add_member(guild, "emma", locale="en-US")
    nothing = await english.slash("knucklebones forfeit")
    assert nothing.ephemeral
    assert nothing.text() == "You have no Knucklebones game open in this channel."

    moves = 0
    while not finished(board):
        pressed = await jonas.click(board, open_columns(board)[0])
        assert pressed.type is CallbackType.UPDATE_MESSAGE, pressed.text()
        moves += 1
        if finished(board):
            break
        assert "🤖 **" in board.content and "(schwer) hat" in board.content, board.content
        assert "gewürfelt und denkt nach …" in board.content
        assert "Letzter Zug: Jonas hat eine " in board.content
        await let_the_ai_move(fake_discord, clock, board)
    assert moves >= 5

    session = await session_for(running_bot, board)
    assert session.language == "de"
    result, _ = await stored_result(running_bot, session.id)
    scores = result["summary"]["scores"]
    first_line = board.content.splitlines()[0]
    alt = board.attachment(ATTACHMENT_NAME).description or ""
    assert alt.startswith("Knucklebones-Brett, Zug ")
    if scores[0] == scores[1]:
        assert first_line.startswith(f"🤝 Unentschieden, {scores[0]}–{scores[1]}.")
        assert alt.endswith("Die Partie endet unentschieden.")
    else:
        bot_name = running_bot.user.display_name if running_bot.user else ""
        winner = "Jonas" if scores[0] > scores[1] else bot_name
        high, low = max(scores), min(scores)
        assert first_line.startswith(f"🏆 **{winner}** gewinnt, {high}–{low}."), first_line
        assert "Letzter Zug: " in first_line
        assert alt.endswith(f"{winner} gewinnt.")


async def test_a_german_client_on_an_english_server_reads_its_own_answers(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    lena = await fake_discord.add_member(guild, "lena", locale="de")
    challenge = await alice.slash("knucklebones challenge", opponent=bob, first="me")
    board = challenge.message
    assert board is not None
    # The public challenge speaks the server's language (English here).
    assert board.labels() == ["Accept", "Decline"]

    refused = await lena.click(board, "Accept")
    assert refused.ephemeral
    assert refused.text() == f"Diese Herausforderung ist für {bob.mention}, nicht für dich."
    option = await lena.slash("duel ai", modified_client=True, hp=500)
    assert option.ephemeral and option.text() == "`tp` muss zwischen 10 und 150 liegen."

    # Her command picker shows German names: the sync sent them for Discord's `de`.
    knucklebones = fake_discord.commands.find("knucklebones", guild)
    assert knucklebones is not None
    names = {
        o["name"]: (o.get("name_localizations") or {}).get("de")
        for o in knucklebones.data["options"]
    }
    assert names == {"challenge": "herausfordern", "ai": "ki", "forfeit": "aufgeben"}
    odds = fake_discord.commands.find("odds", guild)
    assert odds is not None and odds.data["name_localizations"]["de"] == "chancen"


async def test_a_server_picks_german_for_its_game_messages(
    running_bot: DiceBot, make_member: Any, carol: Player
) -> None:
    admin = await make_member("admin", permissions=discord.Permissions(manage_guild=True))
    answer = await admin.slash("dicebot settings", language="de")
    assert answer.ephemeral
    # The admin's own client is in English: so is their answer; the games now speak German.
    assert "Language of game messages → Deutsch" in answer.text()
    german = await carol.slash("knucklebones ai", first="me")
    assert german.message is not None
    await running_bot.publisher.settled()
    assert [b["label"] for b in german.message.buttons()] == ["Spalte 1", "Spalte 2", "Spalte 3"]
    assert " gewürfelt: Wähl eine Spalte." in german.message.content


async def test_a_german_players_diceman_controls_come_in_german(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, carol: Player
) -> None:
    lena = await fake_discord.add_member(guild, "lena", locale="de")
    challenge = await lena.slash("diceman challenge", opponent=carol)
    board = challenge.message
    assert board is not None and "challenges" in board.text()  # the server speaks English
    accept = next(c for c in board.custom_ids() if c.startswith("challenge:") and "accept" in c)
    await carol.click(board, accept)
    duel = Duel(fake_discord, board, "dm")
    await duel.wait_round(1)
    controls = await duel.dm_controls(lena, 1)
    assert "Diceman — Runde 1: deine geheime Wahl" in controls.text()
    assert "Wähl im Menü **genau zwei** Würfel, dann drück auf **Bestätigen**." in controls.text()
    assert [s.get("placeholder") for s in controls.selects()] == ["Wähl zwei Würfel"]
    await diceman_pick(lena, controls, ["priority", "sword"])
    controls = lena.last_dm() or controls
    assert "Priorität + Schwert bestätigen" in controls.labels()
    note = await diceman_lock(lena, controls, ["priority", "sword"])
    assert "Festgelegt — Diceman, Runde 1" in note and "Deine Wahl:" in note
    assert "Make your move" in board.labels()


@pytest.mark.machine_speed("a table of five, its presses milliseconds apart")
async def test_a_german_bettor_goes_all_in_by_typing_alles(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    guild.locale = "de"
    players = [await fake_discord.add_member(guild, name, locale="de") for name in "abcde"]
    table = Table(fake_discord, running_bot, players, language="de")
    await table.open()
    assert f"Tisch #{table.session_id}" in table.text()
    engine = await table.engine()
    house = engine.house
    order = sorted((s for s in range(5) if s != house), key=lambda seat: (seat - house) % 5)
    rollers = (players[order[0]], players[order[1]])
    confirmed = await table.setup_round(players[house], rollers, DICE_CYCLE[0])
    assert confirmed is not None
    bettor = players[order[2]]
    # The form's hint suggests "alles" for every point; a German player types it.
    opened = await table.open_bet(bettor, side=0)
    assert opened.modal is not None
    form = plain(json.dumps(opened.modal.components, ensure_ascii=False))
    roller = rollers[0].name.title()
    assert "oder „alles“" in form
    assert plain(opened.modal.title) == f"Auf {roller} wetten (d{DICE_CYCLE[0][0]})"
    answer = await bettor.submit_modal(opened, amount="alles")
    assert answer.ephemeral
    points = engine.scores[order[2]]
    assert answer.text().startswith(
        f"✅ Du hast **{points}** auf **{roller}** gewettet. Wetten sind endgültig."
    ), answer.text()
