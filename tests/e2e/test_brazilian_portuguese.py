"""Brazilian Portuguese end to end: the command picker of a pt-BR client, a whole
Knucklebones game on a Brazilian server (the board, its buttons, the picture's alt text,
the result), a Brazilian player's own answers and secret-move DMs on an English server, and
a Weighted Dice bet typed the way the Portuguese bet form suggests ("tudo")."""

from __future__ import annotations

import json
import re

import pytest
from duel_support import Duel, diceman_lock, diceman_pick
from fakediscord import CallbackType, FakeDiscord, FakeGuild, FakeMessage, Player
from fakediscord.pseudo import plain
from knucklebones_support import session_for
from test_weighted_dice import DICE_CYCLE
from weighted_support import Table

from bot.app import DiceBot
from bot.model.clock import ManualClock
from cogs.knucklebones.cog import AI_MOVE_DELAY
from cogs.knucklebones.picture import FILENAME as ATTACHMENT_NAME

COLUMN = re.compile(r"Coluna ([1-3])")
MOVER = re.compile(r"🎲 <@(\d+)> tirou [⚀⚁⚂⚃⚄⚅] \*\*[1-6]\*\*: escolha uma coluna\.")


def columns(board: FakeMessage) -> list[dict[str, object]]:
    return [b for b in board.buttons() if COLUMN.fullmatch(str(b.get("label", "")))]


def open_columns(board: FakeMessage) -> list[str]:
    return [str(b["label"]) for b in columns(board) if not b.get("disabled")]


def finished(board: FakeMessage) -> bool:
    return not columns(board) and (" vence, " in board.content or "Empate" in board.content)


def option_named(item: dict[str, object], name: str) -> dict[str, object]:
    options = item.get("options") or []
    assert isinstance(options, list)
    return next(o for o in options if o["name"] == name)


async def test_a_brazilian_client_finds_the_commands_under_portuguese_names(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    def pt(command: str, *path: str) -> tuple[str, str]:
        found = fake_discord.commands.find(command, guild)
        assert found is not None, command
        item: dict[str, object] = found.data
        for name in path:
            item = option_named(item, name)
        names = item["name_localizations"]
        descriptions = item["description_localizations"]
        assert isinstance(names, dict) and isinstance(descriptions, dict)
        return names["pt-BR"], descriptions["pt-BR"]

    assert pt("knucklebones", "challenge") == (
        "desafiar",
        "Desafie alguém no Knucklebones.",
    )
    assert pt("knucklebones", "challenge", "opponent")[0] == "adversário"
    assert pt("leaderboard") == ("ranking", "O ranking deste servidor em um jogo.")
    assert pt("weighted", "new", "points")[0] == "pontos"
    assert pt("dicebot", "settings")[0] == "configurações"
    # A Brazilian server's admin finds the language by its own name.
    settings = fake_discord.commands.find("dicebot", guild)
    assert settings is not None
    language = option_named(option_named(settings.data, "settings"), "language")
    choices = language["choices"]
    assert isinstance(choices, list)
    assert {"name": "Português (Brasil)", "value": "pt-BR"}.items() <= next(
        c for c in choices if c["value"] == "pt-BR"
    ).items()


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_whole_knucklebones_game_on_a_brazilian_server(
    running_bot: DiceBot, fake_discord: FakeDiscord, clock: ManualClock, guild: FakeGuild
) -> None:
    guild.locale = "pt-BR"  # the server's language in its Discord settings
    ana = await fake_discord.add_member(guild, "ana", locale="pt-BR")
    started = await ana.slash("knucklebones ai", difficulty="hard", first="me")
    board = started.message
    assert started.type is CallbackType.MESSAGE and board is not None
    match = MOVER.match(board.content)
    assert match is not None and int(match[1]) == ana.id, board.content
    assert [b["label"] for b in columns(board)] == ["Coluna 1", "Coluna 2", "Coluna 3"]
    alt = board.attachment(ATTACHMENT_NAME).description or ""
    # pt-BR counts 0 with the singular (CLDR's "one" is 0 and 1).
    assert alt.startswith("Tabuleiro de Knucklebones, turno 1. Ana (grade de cima), 0 ponto.")
    assert alt.endswith("Ana vai colocar um " + board.content.split("**")[1] + ".")

    moves = 0
    while not finished(board):
        pressed = await ana.click(board, open_columns(board)[0])
        assert pressed.type is CallbackType.UPDATE_MESSAGE, pressed.text()
        moves += 1
        if finished(board):
            break
        assert "(difícil) tirou" in board.content and "e está pensando…" in board.content
        assert "Última jogada: Ana colocou um " in board.content, board.content
        clock.advance(AI_MOVE_DELAY + 0.3)
        await fake_discord.wait_for(
            lambda: finished(board) or bool(open_columns(board)), what="the AI's move to show"
        )
    assert moves >= 5

    session = await session_for(running_bot, board)
    assert session.language == "pt-BR"
    first_line = board.content.splitlines()[0]
    alt = board.attachment(ATTACHMENT_NAME).description or ""
    assert alt.startswith("Tabuleiro de Knucklebones, turno ")
    if first_line.startswith("🤝"):
        assert first_line.startswith("🤝 Empate, ")
        assert alt.endswith("A partida terminou empatada.")
    else:
        bot_name = running_bot.user.display_name if running_bot.user else ""
        winner = next(name for name in ("Ana", bot_name) if f"**{name}** vence, " in first_line)
        assert first_line.startswith(f"🏆 **{winner}** vence, "), first_line
        assert "Última jogada: " in first_line
        assert alt.endswith(f"{winner} vence.")


async def test_a_brazilian_player_on_an_english_server_reads_her_own_answers_and_dms(
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    bia = await fake_discord.add_member(guild, "Bia", locale="pt-BR")
    nothing = await bia.slash("knucklebones forfeit")
    assert nothing.ephemeral
    assert nothing.text() == "Você não tem nenhuma partida de Knucklebones aberta neste canal."

    challenge = await alice.slash("knucklebones challenge", opponent=bob, first="me")
    assert challenge.message is not None
    refused = await bia.click(challenge.message, "Accept")  # the server's language
    assert refused.ephemeral
    assert refused.text() == f"Este desafio é para {bob.mention}, não para você."

    busy = await bia.slash("diceman challenge", opponent=alice)
    assert busy.ephemeral
    assert busy.text() == (
        "Alice já tem uma partida aberta neste canal (Knucklebones). Essa partida precisa "
        "terminar (ou alguém desistir) antes; senão, jogue em outro canal."
    )

    # Her Diceman duel: the public message speaks English, her controls Portuguese.
    duel_challenge = await bia.slash("diceman challenge", opponent=carol)
    board = duel_challenge.message
    assert board is not None and "challenges" in board.text()
    accept = next(c for c in board.custom_ids() if c.startswith("challenge:") and "accept" in c)
    await carol.click(board, accept)
    duel = Duel(fake_discord, board, "dm")
    await duel.wait_round(1)
    controls = await duel.dm_controls(bia, 1)
    assert "Diceman — rodada 1: sua escolha secreta" in controls.text()
    assert "Escolha **exatamente dois** dados no menu" in controls.text()
    assert [s.get("placeholder") for s in controls.selects()] == ["Escolha dois dados"]
    await diceman_pick(bia, controls, ["priority", "sword"])
    controls = bia.last_dm() or controls
    assert "Confirmar Prioridade + Espada" in controls.labels()
    note = await diceman_lock(bia, controls, ["priority", "sword"])
    assert "Confirmado — Diceman, rodada 1" in note and "Sua escolha:" in note
    assert "Make your move" in board.labels()


@pytest.mark.machine_speed("a table of five, its presses milliseconds apart")
async def test_a_brazilian_bettor_goes_all_in_by_typing_tudo(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    guild.locale = "pt-BR"
    players = [await fake_discord.add_member(guild, name, locale="pt-BR") for name in "abcde"]
    table = Table(fake_discord, running_bot, players, language="pt-BR")
    await table.open()
    assert f"Mesa nº {table.session_id}" in table.text()
    engine = await table.engine()
    house = engine.house
    order = sorted((s for s in range(5) if s != house), key=lambda seat: (seat - house) % 5)
    rollers = (players[order[0]], players[order[1]])
    confirmed = await table.setup_round(players[house], rollers, DICE_CYCLE[0])
    assert confirmed is not None
    bettor = players[order[2]]
    # The form's hint suggests "tudo" for every point; a Brazilian types it.
    opened = await table.open_bet(bettor, side=0)
    assert opened.modal is not None
    form = plain(json.dumps(opened.modal.components, ensure_ascii=False))
    roller = rollers[0].name.title()
    assert "ou “tudo”" in form
    assert plain(opened.modal.title) == f"Apostar em {roller} (d{DICE_CYCLE[0][0]})"
    answer = await bettor.submit_modal(opened, amount="tudo")
    assert answer.ephemeral
    points = engine.scores[order[2]]
    assert answer.text().startswith(
        f"✅ Você apostou **{points}** em **{roller}**. Apostas não podem ser mudadas."
    ), answer.text()
