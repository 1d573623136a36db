"""Weighted Dice in other languages: the table, the lobby, the picture, the controls and
the refusals in Spanish, and the longest texts (French, pseudo-localized) inside
Discord's limits."""

from __future__ import annotations

import asyncio
import random
from fractions import Fraction
from typing import Any

import discord
import pytest

from bot import i18n
from bot.model.contract import Seat, Session
from bot.pictures import text as pictures_text
from bot.pictures import worker as picture_worker
from bot.pictures.picture import ALT_TEXT_LIMIT
from bot.play.guild_settings import GuildSettings
from bot.ui.replies import known_error_message
from cogs.weighted_dice import picture as weighted_picture
from cogs.weighted_dice.controls import BetModal, table_view
from cogs.weighted_dice.render import (
    chance,
    lobby_embed,
    seat_names,
    setup_panel_text,
    table_embed,
    table_picture,
)
from cogs.weighted_dice.setup_panel import setup_panel_view
from cogs.weighted_dice.state import Draft, LobbyState, TableOptions, TableState, parse_amount
from cogs.weighted_dice.story import round_text, stop_note
from game_core import weighted_dice as wd
from game_core.errors import IllegalMove

NAMES = ["Hugo", "Rosa", "Rudi", "Xena", "Yann", "Zora"]
OPTIONS = TableOptions(betting_window_seconds=20, house_setup_seconds=60)


def seats(names: list[str]) -> list[Seat]:
    return [Seat(seat=i, user_id=100 + i, display_name=name) for i, name in enumerate(names)]


def session(table: TableState, names: list[str]) -> Session:
    return Session(
        id=7,
        game="weighted_dice",
        guild_id=1,
        channel_id=2,
        message_id=3,
        status="active",
        state=table.model_dump(mode="json"),
        version=4,
        seed=5,
        created_by=100,
        created_at=0.0,
        updated_at=0.0,
        seats=tuple(seats(names)),
    )


def scored(
    scores: list[int],
    rolls: tuple[int, int],
    bets: list[tuple[int, int, int]],
    *,
    dice: tuple[int, int] = (20, 4),
) -> wd.WeightedDiceState:
    """A state just after one round scored with these rolls (house 0, rollers 1 and 2)."""
    state = wd.WeightedDiceState(
        n_players=len(scores),
        scores=scores,
        active=[True] * len(scores),
        house=0,
        phase="betting",
        rollers=[1, 2],
        dice=list(dice),
        bets=[wd.PlacedBet(player=p, roller=side, amount=a) for p, side, a in bets],
    )
    queue = list(rolls)

    class Rolls(random.Random):
        def randint(self, a: int, b: int) -> int:
            return queue.pop(0)

    return wd.apply(state, wd.CloseBetting(), Rolls())[0]


def betting(names: list[str]) -> TableState:
    """Round 2's betting, two bets in, a notice and round 1's scoring on the table."""
    bets = [(seat, seat % 2, 6) for seat in range(3, len(names))]
    state = scored([20] * len(names), (13, 3), bets)
    state = state.model_copy(
        update={
            "phase": "betting",
            "rollers": [2, 3],
            "dice": [12, 6],
            "bets": [wd.PlacedBet(player=s, roller=s % 2, amount=5) for s in (4, 5)],
            "to_act": list(range(6, len(names))),
        }
    )
    notice = {"type": "player_left", "player": 1, "how": "leave", "points": 21}
    return TableState(
        host=100,
        engine=state,
        first_house=0,
        deadline_at=1_800_000_020.0,
        options=OPTIONS,
        notices=[notice],
    )


def controls(view: discord.ui.View) -> list[Any]:
    """The view's buttons and selects (a DynamicItem wraps its own)."""
    return [getattr(item, "item", item) for item in view.children]


def labels(view: discord.ui.View) -> list[str]:
    return [str(item.label) for item in controls(view) if isinstance(item, discord.ui.Button)]


# -- Spanish --------------------------------------------------------------------------------


def test_the_lobby_in_spanish() -> None:
    lobby = LobbyState(host=100, expires_at=1_800_001_800.0, options=OPTIONS)
    with i18n.use("es"):
        embed = lobby_embed(lobby, seats(NAMES[:3]), 7).embed
    assert embed.title == "🎲 Weighted Dice — sala"
    description = embed.description or ""
    assert description.startswith(
        "**Hugo** abrió una mesa de Weighted Dice: un jugador es la banca, dos lanzan y todos "
        "los demás apuestan por un lanzador. Gana quien llegue primero a **150** puntos (la "
        "partida estándar). Con 5 jugadores, una partida dura unas **35** rondas"
    )
    assert "Las apuestas siguen abiertas **20 s** por ronda" in description
    assert "Faltan **2** jugadores más para empezar." in description
    assert "La sala se cierra <t:1800001800:R> si la partida no ha empezado." in description
    assert embed.fields[0].name == "Jugadores (3/12)"
    assert embed.fields[0].value == "`1.` **Hugo** — anfitrión\n`2.` **Rosa**\n`3.` **Rudi**"
    assert embed.footer.text == "Mesa n.º 7"


def test_a_scored_round_and_the_betting_table_in_spanish() -> None:
    state = scored([20, 20, 20, 20, 20, 8], (13, 3), [(3, 0, 6), (4, 0, 4), (5, 1, 6)])
    assert state.last_round is not None
    with i18n.use("es"):
        text = round_text(state.last_round, seat_names(seats(NAMES)))
        table = betting(NAMES)
        rendered = table_embed(table, seats(NAMES), 7)
    assert text.startswith(
        "**Ronda 1:** **Rosa** (d20) sacó **13**, **Rudi** (d4) sacó **3** → gana **Rosa**."
    )
    assert "• **Rosa** 20 → **39**: bonus de lanzador +19 (sacó 13 + los 6 apostados por Rudi)" in (
        text
    )
    assert (
        "• **Xena** 20 → **32**: ganó 12 (apostó 6 por Rosa: 6 por apoyar al ganador + los 6 "
        "apostados por Rudi)"
    ) in text
    assert "• **Zora** 8 → **5**: perdió 3 (apostó 6 por Rudi, con un mínimo de 5)" in text
    assert text.endswith("Sin cambios: Hugo (la banca), Rudi (perdió la tirada).")

    assert rendered.content == (
        "🎲 **Weighted Dice**, ronda 2: **Rudi** (d12) contra **Xena** (d6): hagan sus apuestas."
    )
    assert rendered.embed.title == "🎲 Weighted Dice — ronda 2"
    description = rendered.embed.description or ""
    assert description.startswith(
        "Probabilidades: gana **Rudi** 17/24 (70,8\u00a0%) · gana **Xena** 5/24 (20,8\u00a0%) · "
        "empate (gana la banca) 1/12 (8,3\u00a0%)\n"
        "Las apuestas se cierran <t:1800000020:R>, o en cuanto todos hayan apostado."
    )
    assert "🚪 **Rosa** dejó la mesa y conserva 21 puntos para la clasificación." in description
    assert rendered.embed.footer.text == (
        "Mesa n.º 7 · gana quien llegue a 150 puntos · unas 24 rondas con 6 jugadores · "
        "apuestas 20 s · banca 60 s · rondas jugadas: 1"
    )


def test_the_final_standings_in_spanish() -> None:
    won = scored([20, 20, 140, 20, 20, 20], (1, 12), [(3, 0, 20)], dice=(4, 12))
    table = TableState(host=100, engine=won, first_house=0)
    with i18n.use("es"):
        rendered = table_embed(table, seats(NAMES), 3)
        alt = table_picture(table, seats(NAMES)).alt_text
    assert rendered.embed.title == "🎲 Weighted Dice — clasificación final"
    assert rendered.content == "🏆 **Rudi** gana Weighted Dice con 172 puntos tras 1 ronda."
    assert alt.startswith(
        "Weighted Dice, clasificación final: ganó Rudi. Asientos: Rudi 172 (1.º);"
    )


def test_the_picture_speaks_the_language_it_is_given_on_the_picture_thread() -> None:
    table = betting(NAMES)

    async def drawn_on_the_worker() -> Any:
        # The language is passed along: the picture thread does not see this context.
        with i18n.use("es"):
            return await picture_worker.draw(table_picture, table, seats(NAMES), i18n.current())

    picture = asyncio.run(drawn_on_the_worker())
    # The labels drawn, in the language asked for whatever the caller's context speaks.
    with pictures_text.record() as drawn:
        table_picture(table, seats(NAMES), "es")
    texts = [piece.text for piece in drawn]
    assert picture.alt_text == (
        "Weighted Dice, ronda 2, gana quien llegue a 150 puntos. Rudi lanza un d12 (71\u00a0% "
        "de ganar, apuestas 5) contra Xena con un d6 (21\u00a0%, apuestas 5); un empate "
        "(8\u00a0%) es para la banca, Rosa. Asientos: Hugo 20 (por apostar…); Rosa 45 (banca); "
        "Rudi 20 (lanza d12); Xena 14 (lanza d6); Yann 38 (5 por Rudi); Zora 14 (5 por Xena)."
    )
    for label in (
        "Ronda 2 · meta: 150 puntos",
        "apuestas abiertas",
        "Gana el lanzador 1",
        "apostado: 5",
        "Empate 8 %:",  # the picture draws a plain space
        "gana la banca",
        # The picture names each seat once: the round's sides are rollers by number.
        "lanzador 1, d12",
        "5 por el lanzador 1",
    ):
        assert label in texts, label
    assert "bets open" not in texts


def test_controls_and_the_house_panel_in_spanish() -> None:
    table = betting(NAMES)
    game = session(table, NAMES)
    with i18n.use("es"):
        buttons = labels(table_view(game, table.engine) or discord.ui.View())
        modal = BetModal(7, 2, 0, "Apostar por Rudi (d12)", 20)
        setup_state, _ = wd.new_game(6, random.Random(1))
        draft = Draft(r0=1, d0=20, r1=2, d1=4)
        panel = setup_panel_text(setup_state, seat_names(seats(NAMES)), draft)
        selects = controls(setup_panel_view(game, setup_state, draft))
    assert buttons[:2] == ["Apostar por Rudi", "Apostar por Xena"]
    assert buttons[2:5] == ["5 por Rudi", "10 por Rudi", "Todo por Rudi"]
    label = modal.children[0]
    assert isinstance(label, discord.ui.Label)
    assert label.text == "Cantidad"
    assert label.description == "Un número entero de 1 a 20 (tus puntos), o «todo»."
    assert modal.amount.placeholder == "De 1 a 20"
    assert panel.startswith(
        f"🏠 Eres la banca en la ronda {setup_state.round}. Elige dos lanzadores"
    )
    assert "Por ahora: **Rosa** (d20) contra **Rudi** (d4)" in panel
    placeholders = [item.placeholder for item in selects if isinstance(item, discord.ui.Select)]
    assert placeholders == [
        "Lanzador 1",
        "Dado del lanzador 1",
        "Lanzador 2",
        "Dado del lanzador 2",
    ]
    assert selects[-1].label == "Confirmar"


def test_refusals_in_spanish() -> None:
    settings = GuildSettings()
    with i18n.use("es"):
        with pytest.raises(IllegalMove) as options:
            TableOptions.chosen(settings, points=155, betting_window=4, house_setup=None)
        with pytest.raises(IllegalMove) as typed:
            parse_amount("diez", 15)
        assert parse_amount("TODO", 15) == 15 and parse_amount("tapis", 15) == 15
        options_text = known_error_message(options.value)
        typed_text = known_error_message(typed.value)
        engine_text = known_error_message(
            IllegalMove("You have only {points} points: bet from 1 to {points}.", {"points": 9})
        )
        stopped = stop_note([{"type": "cancelled", "reason": "stopped by an admin"}])
    assert options_text == (
        "No se abrió ninguna mesa: **puntos** debe ser la partida corta o uno de estos valores: "
        "100, 150, 200, 300; **tiempo_apuestas** debe estar entre 5 y 600 segundos."
    )
    assert typed_text == (
        "«diez» no es un número entero: escribe una cantidad de 1 a 15 (tus puntos)."
    )
    assert engine_text == "Solo tienes 9 puntos: apuesta de 1 a 9."
    assert stopped == "🛑 Un admin detuvo esta partida; no se registró ningún resultado."


def test_chances_use_the_languages_own_number_format() -> None:
    with i18n.use("fr"):
        assert chance(Fraction(7, 8)) == "7/8 (87,5\u00a0%)"
    with i18n.use("es"):
        assert chance(Fraction(7, 8)) == "7/8 (87,5\u00a0%)"


# -- Discord's limits with the longest texts ---------------------------------------------------


@pytest.mark.parametrize("pseudo", [False, True], ids=["french", "pseudo"])
def test_the_longest_table_fits_discords_limits(
    pseudo: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if pseudo:
        monkeypatch.setenv(i18n.PSEUDO_ENV, "1")
    names = [f"{'Ω' * 20}-{i:02d}-{'*_~' * 5}" for i in range(12)]
    table = betting(names)
    game = session(table, names)
    lobby = LobbyState(host=100, expires_at=1_800_001_800.0, options=OPTIONS)
    with i18n.use("fr"):
        rendered = table_embed(table, seats(names), 9_223_372_036_854_775_807)
        lobby_rendered = lobby_embed(lobby, seats(names), 9_223_372_036_854_775_807)
        buttons = labels(table_view(game, table.engine) or discord.ui.View())
        modal = BetModal(7, 2, 0, "x" * 60, 9999)
        setup_state, _ = wd.new_game(12, random.Random(1))
        view = setup_panel_view(game, setup_state, Draft(r0=1, d0=20, r1=2, d1=4))
        panel = setup_panel_text(setup_state, seat_names(seats(names)), Draft(r0=1, d0=20, r1=2))
        picture = table_picture(table, seats(names))
    for embed in (rendered.embed, lobby_rendered.embed):
        assert len(embed.title or "") <= 256
        assert len(embed.description or "") <= 4096
        assert len(embed.footer.text or "") <= 2048
        assert all(len(f.name or "") <= 256 and len(f.value or "") <= 1024 for f in embed.fields)
        assert len(embed) <= 6000
    assert len(rendered.content or "") <= 2000 and len(panel) <= 2000
    assert all(len(label) <= 80 for label in buttons)
    assert len(modal.title) <= 45
    label = modal.children[0]
    assert isinstance(label, discord.ui.Label)
    assert len(label.text) <= 45 and len(label.description or "") <= 100
    assert len(modal.amount.placeholder or "") <= 100
    for item in controls(view):
        if isinstance(item, discord.ui.Select):
            assert len(item.placeholder or "") <= 150
            assert all(
                len(o.label) <= 100 and len(o.description or "") <= 100 for o in item.options
            )
    assert len(picture.alt_text) <= 1024
    if not pseudo:
        assert "Parier sur" in buttons[0] and "manche 2" in (rendered.content or "")


# Twelve seats named with 32 wide characters each (the longest a Discord display name gets).
WIDE = ["田" * 30 + f"{seat:02d}" for seat in range(12)]


def twelve_seats(phase: str, **fields: Any) -> dict[str, Any]:
    """The public view of a twelve-seat table with three-digit points everywhere."""
    state = wd.WeightedDiceState(
        n_players=12,
        scores=[299] * 12,
        active=[True] * 12,
        house=0,
        phase=phase,
        target=300,
        round=999,
        rounds_played=998,
        **fields,
    )
    return wd.public_view(state)


def longest_tables() -> list[tuple[str, dict[str, Any], str | None]]:
    """Every state of a twelve-seat table whose alt text names every seat, at its longest:
    the house picking, nine bets of 299 in, a twelve-way shared win, stopped mid-round."""
    bets = [wd.PlacedBet(player=seat, roller=seat % 2, amount=299) for seat in range(3, 12)]
    betting = twelve_seats("betting", rollers=[1, 2], dice=[20, 20], bets=bets)
    stopped = i18n._("{player} ended the game; no result counts.").format(player=WIDE[5])
    return [
        ("setup", twelve_seats("setup"), None),
        ("betting", betting, None),
        ("shared win", twelve_seats("finished", end_reason="normal"), None),
        ("stopped", betting, stopped),
        ("stopped by an admin", betting, i18n._("The game was stopped; no result counts.")),
    ]


@pytest.mark.parametrize("language", ["en", "es", "fr"])
def test_twelve_names_of_32_wide_characters_stay_whole_in_the_alt_text(language: str) -> None:
    with i18n.use(language):
        for state, view, stopped in longest_tables():
            alt = weighted_picture.alt_text(view, WIDE, stopped)
            assert len(alt) <= ALT_TEXT_LIMIT, (state, len(alt))
            # Every name whole, each seat listed: nothing was cut to fit.
            assert all(name in alt for name in WIDE), (state, alt)
            assert alt.endswith("."), (state, alt)


def test_a_table_too_long_for_the_alt_text_names_the_rollers_by_number() -> None:
    bets = [wd.PlacedBet(player=seat, roller=seat % 2, amount=299) for seat in range(3, 12)]
    view = twelve_seats("betting", rollers=[1, 2], dice=[20, 20], bets=bets)
    # Short names: the full form, the bets naming the roller they back.
    with i18n.use("es"):
        short = weighted_picture.alt_text(view, [f"P{seat}" for seat in range(12)])
    assert "P3 299 (299 por P2);" in short and "P1 lanza un d20" in short
    # Twelve names of 32: the bets name the rollers by number, the seats say which is which.
    with i18n.use("es"):
        alt = weighted_picture.alt_text(view, WIDE)
    assert f"{WIDE[1]} lanza un d20" in alt
    assert f"{WIDE[1]} 299 (lanzador 1, d20); {WIDE[2]} 299 (lanzador 2, d20);" in alt
    assert f"{WIDE[3]} 299 (299 por el lanzador 2);" in alt
    # Older stored names of up to 40 (Discord's are 32 now): the matchup leaves the names
    # to the seats too.
    longest = ["W" * 38 + f"{seat:02d}" for seat in range(12)]
    alt = weighted_picture.alt_text(view, longest)
    assert len(alt) <= ALT_TEXT_LIMIT and all(name in alt for name in longest)
    assert alt.startswith(
        "Weighted Dice, round 999, first to 300 points. Roller 1 rolls a d20 (48% to win, "
        "bets 1,196) against roller 2 with a d20 (48%, bets 1,495); a tie (5%) goes to the "
        "house. Seats: "
    )
    assert f"{longest[0]} 299 (house); {longest[1]} 299 (roller 1, d20);" in alt
