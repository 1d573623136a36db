"""Knucklebones in Spanish, end to end: a whole game against the AI on a server whose
Discord language is Spanish (the board, its buttons, the picture's alt text, the result),
while a player whose client is in French gets their own answers in French."""

from __future__ import annotations

import re

import pytest
from fakediscord import CallbackType, FakeDiscord, FakeGuild, FakeMessage, Player
from knucklebones_support import session_for, stored_result

from bot.app import DiceBot
from bot.model.clock import ManualClock
from cogs.knucklebones.cog import AI_MOVE_DELAY
from cogs.knucklebones.picture import FILENAME as ATTACHMENT_NAME

COLUMN = re.compile(r"Columna ([1-3])")
MOVER = re.compile(r"🎲 <@(\d+)> sacó [⚀⚁⚂⚃⚄⚅] \*\*[1-6]\*\*: elige una columna\.")


@pytest.fixture
async def guild(fake_discord: FakeDiscord) -> FakeGuild:
    """The server speaks Spanish in its Discord settings (the game's public language)."""
    return await fake_discord.create_guild("Sala de dados", locale="es-ES")


@pytest.fixture
async def ana(fake_discord: FakeDiscord, guild: FakeGuild) -> Player:
    return await fake_discord.add_member(guild, "ana", locale="es-ES")


@pytest.fixture
async def chloe(fake_discord: FakeDiscord, guild: FakeGuild) -> Player:
    """Her Discord client is in French."""
    return await fake_discord.add_member(guild, "chloe", locale="fr")


def columns(board: FakeMessage) -> list[dict[str, object]]:
    return [b for b in board.buttons() if COLUMN.fullmatch(str(b.get("label", "")))]


def open_columns(board: FakeMessage) -> list[str]:
    return [str(b["label"]) for b in columns(board) if not b.get("disabled")]


def finished(board: FakeMessage) -> bool:
    return not columns(board) and (" gana, " in board.content or "Empate" in board.content)


async def let_the_ai_move(fake: FakeDiscord, clock: ManualClock, board: FakeMessage) -> None:
    clock.advance(AI_MOVE_DELAY + 0.3)
    await fake.wait_for(
        lambda: finished(board) or bool(open_columns(board)), what="the AI's move to show"
    )


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_whole_game_in_spanish_with_a_french_onlooker(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    clock: ManualClock,
    ana: Player,
    chloe: Player,
) -> None:
    started = await ana.slash("knucklebones ai", difficulty="hard", first="me")
    board = started.message
    assert started.type is CallbackType.MESSAGE and board is not None
    match = MOVER.match(board.content)
    assert match is not None and int(match[1]) == ana.id, board.content
    assert [b["label"] for b in columns(board)] == ["Columna 1", "Columna 2", "Columna 3"]
    alt = board.attachment(ATTACHMENT_NAME).description or ""
    assert alt.startswith("Tablero de Knucklebones, turno 1. Ana (cuadrícula de arriba), 0 puntos.")
    assert alt.endswith("Le toca a Ana colocar un " + board.content.split("**")[1] + ".")

    # Chloe, whose client is in French, is answered in French.
    nothing = await chloe.slash("knucklebones forfeit")
    assert nothing.ephemeral
    assert nothing.text() == "Tu n'as aucune partie de Knucklebones en cours dans ce salon."

    # Ana plays to the end; the AI answers in Spanish.
    moves = 0
    while not finished(board):
        pressed = await ana.click(board, open_columns(board)[0])
        assert pressed.type is CallbackType.UPDATE_MESSAGE, pressed.text()
        moves += 1
        if finished(board):
            break
        assert "🤖 **" in board.content and "(difícil) sacó" in board.content, board.content
        assert "y está pensando…" in board.content
        assert "Última jugada: Ana puso un " in board.content
        await let_the_ai_move(fake_discord, clock, board)
    assert moves >= 5
    bot_name = running_bot.user.display_name if running_bot.user else ""

    session = await session_for(running_bot, board)
    assert session.language == "es"
    result, _ = await stored_result(running_bot, session.id)
    scores = result["summary"]["scores"]
    first_line = board.content.splitlines()[0]
    alt = board.attachment(ATTACHMENT_NAME).description or ""
    assert alt.startswith("Tablero de Knucklebones, turno ")
    if scores[0] == scores[1]:
        assert first_line.startswith(f"🤝 Empate, {scores[0]}–{scores[1]}.")
        assert alt.endswith("La partida termina en empate.")
    else:
        winner = "Ana" if scores[0] > scores[1] else bot_name
        high, low = max(scores), min(scores)
        assert first_line.startswith(f"🏆 **{winner}** gana, {high}–{low}."), first_line
        assert "Última jugada: " in first_line
        assert alt.endswith(f"{winner} gana.")


async def test_a_press_on_someone_elses_board_is_answered_in_the_pressers_language(
    running_bot: DiceBot, ana: Player, chloe: Player
) -> None:
    board = (await ana.slash("knucklebones ai", difficulty="easy", first="me")).message
    assert board is not None
    outsider = await chloe.click(board, "Columna 1")
    assert outsider.ephemeral
    bot_name = running_bot.user.display_name if running_bot.user else ""
    knucklebones = running_bot.command_ids.id_of("knucklebones")
    assert outsider.text() == (
        f"Ce n'est pas ta partie : elle oppose Ana et {bot_name}. Lance la tienne avec "
        f"</knucklebones challenge:{knucklebones}> ou </knucklebones ai:{knucklebones}>."
    )
    # Her client shows the two mentions as the commands her picker lists.
    assert outsider.message is not None
    assert chloe.reads(outsider.message).endswith(
        "Lance la tienne avec /knucklebones défier ou /knucklebones ia."
    )


async def test_a_forfeit_is_announced_in_the_servers_language(
    running_bot: DiceBot, chloe: Player
) -> None:
    """Chloe's client is in French, but the forfeit's announcement is public: Spanish."""
    board = (await chloe.slash("knucklebones ai", difficulty="easy", first="me")).message
    assert board is not None
    forfeit = await chloe.slash("knucklebones forfeit")
    assert not forfeit.ephemeral
    bot_name = running_bot.user.display_name if running_bot.user else ""
    assert forfeit.text().startswith(f"🏳️ Chloe se rindió: **{bot_name}** gana, ")
