"""Dimension Duel in Spanish and French: the reveal, the private controls, the public
message's lines, the picture's alt text and the engine's refusals, each built in the
language in use; and a long French (and pseudo-localized) render inside Discord's limits."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

import discord
import pytest

from bot import i18n
from bot.model.contract import Seat, Session
from bot.ui.replies import known_error_message
from cogs.dimension_duel import controls as dd_controls
from cogs.dimension_duel import game as dd_game
from cogs.dimension_duel import picture as duel_picture
from cogs.dimension_duel.render import narrate_duel
from cogs.secret_duel.render import describe_seconds
from cogs.secret_duel.state import UiState
from game_core import dimension_duel as dd
from game_core.errors import IllegalMove

NAMES = ("Alice", "Bob")
MAX_ID = "9" * 19


class ScriptedDice(random.Random):
    """Rolls the given faces in order."""

    def __init__(self, faces: Sequence[int]) -> None:
        super().__init__(0)
        self._faces: Iterator[int] = iter(faces)

    def randint(self, a: int, b: int) -> int:
        return next(self._faces)


def play_turn(
    state: dd.DuelState,
    tau: tuple[str, str, str],
    kaon: tuple[str, str, str],
    faces: Sequence[int] = (),
) -> tuple[dd.DuelState, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    for player, (device, region, function) in enumerate((tau, kaon)):
        action = {
            "type": "choose",
            "player": player,
            "device": device,
            "region": region,
            "function": function,
        }
        state, events = dd.apply(state, action, ScriptedDice(faces))
    return state, events


def session() -> Session:
    return Session(
        id=int(MAX_ID),
        game="dimension_duel",
        guild_id=1,
        channel_id=2,
        message_id=3,
        status="active",
        state={},
        version=1,
        seed=1,
        created_by=11,
        created_at=0.0,
        updated_at=0.0,
        seats=(Seat(0, 11, "Alice"), Seat(1, 22, "Bob")),
    )


def test_a_deflected_turn_is_narrated_in_spanish() -> None:
    state, _ = dd.new_game(mode="tactical")
    _, events = play_turn(state, ("kaon", "torso", "bluff"), ("tau", "head", "deflector"), [3, 5])
    with i18n.use("es"):
        lines = narrate_duel(events, NAMES)
    assert lines == [
        "**Revelación del turno 1** — Alice (Tau) ataca, Bob (Kaon) defiende",
        "1️⃣ Rayo y escudo: rayo Kaon contra escudo anti-Tau, no coinciden: +1 dado para Alice.",
        "2️⃣ Enfoque: Torso contra refuerzo en Cabeza: +1 dado para Alice.",
        "3️⃣ Funciones: Alice Farol · Bob Deflector",
        "• deflector: cada jugador sufre sus propios dados",
        "4️⃣ Dados: Alice 2 dados (3, 5 = 8) · Bob sin dados",
        "💥 Daño: Alice −8 (75 → 67)",
    ]
    # English stays the default outside the block.
    assert narrate_duel(events, NAMES)[0].startswith("**Turn 1 reveal**")


def test_a_disrupted_and_intensified_turn_in_french() -> None:
    state, _ = dd.new_game(mode="tactical")
    _, events = play_turn(state, ("kaon", "torso", "intensifier"), ("tau", "head", "disruptor"))
    with i18n.use("fr"):
        lines = narrate_duel(events, NAMES)
        left = dd_game.DimensionDuelGame().seat_details(
            {"charges": [dict.fromkeys(dd.CHARGES, 0)] * 2}, 0
        )
    assert "• disrupteur : tous les dégâts annulés, personne ne lance" in lines
    assert "4️⃣ Dés : Alice 2 dés · Bob aucun dé — disrupteur, rien n'est lancé" in lines
    assert lines[-1] == "💥 Aucun dégât"
    assert left == ["Fonctions restantes : Bluff uniquement"]


def test_the_private_controls_in_spanish() -> None:
    rules = dd_game.DimensionDuelGame()
    state, _ = dd.new_game(mode="tactical")
    with i18n.use("es"):
        embed, view = rules.controls(session(), 1, state, "k__", UiState(deadline_at=1.8e9))
    assert embed.title == "⚛️ Dimension Duel — turno 1: defiendes (Kaon) — tu elección secreta"
    description = embed.description or ""
    assert "1️⃣ Levanta un **escudo anti-Tau** o **anti-Kaon**" in description
    assert "Luego pulsa **Confirmar**: la elección es definitiva." in description
    selects = [c for c in view.children if isinstance(c, dd_controls.DuelField)]
    devices, regions, functions = (select.item for select in selects)
    assert devices.placeholder == "1️⃣ Tu escudo"
    assert [o.label for o in devices.options] == ["Escudo anti-Tau", "Escudo anti-Kaon"]
    assert regions.placeholder == "2️⃣ Refuerza tu escudo en…"
    assert [o.label for o in regions.options] == [
        "Reforzar: Cabeza",
        "Reforzar: Torso",
        "Reforzar: Extremidades",
    ]
    assert functions.options[0].label == "Farol"
    assert functions.options[0].description == "no hace nada (nunca se agota)"
    assert [o.label for o in functions.options][-1] == "Cambiador de Partículas (rival)"
    confirm = view.children[-1]
    assert isinstance(confirm, dd_controls.DuelConfirm)
    assert confirm.item.label == "Confirmar (elige las tres cosas antes)"
    # The custom_ids never change with the language.
    assert confirm.item.custom_id == f"dd:{MAX_ID}:1:ok:k__"


def test_the_public_lines_and_buttons_in_spanish() -> None:
    rules = dd_game.DimensionDuelGame()
    state, _ = dd.new_game(mode="classic", start_hp=30)
    view = dd.public_view(state)
    with i18n.use("es"):
        subtitle = rules.subtitle(view)
        details = rules.challenge_details({"mode": "classic", "hp": 30, "tau": 11})
        seats = [rules.seat_label(view, 0), rules.seat_label(view, 1)]
        roll = rules.public_buttons(7, 1, False).children[0]
        move = rules.public_buttons(7, 1, True).children[0]
        choice = rules.choice_text({"device": "tau", "region": "head", "function": "bluff"})
        wait = describe_seconds(90)
    assert subtitle == (
        "Modo **clásico: los dados eligen** · 30 PV cada uno · Tau ataca en los turnos impares."
    )
    assert details == (
        "Modo **clásico** (los dados lo eligen todo; cada jugador pulsa Tirar), **30 PV** cada "
        "uno. <@11> es Tau y ataca primero."
    )
    assert seats == [" · Tau, ataca", " · Kaon, defiende"]
    assert isinstance(roll, discord.ui.DynamicItem) and roll.item.label == "Tirar"
    assert isinstance(move, discord.ui.DynamicItem) and move.item.label == "Haz tu jugada"
    # The names of what the player picked, nothing slotted around them.
    assert choice == "Tau · Cabeza · Farol"
    assert wait == "1 min 30 s"


def test_the_picture_alt_text_in_spanish() -> None:
    state, _ = dd.new_game(mode="tactical")
    state, _ = play_turn(state, ("kaon", "torso", "bluff"), ("tau", "head", "deflector"), [3, 5])
    with i18n.use("es"):
        picture = duel_picture.render_duel(dd.public_view(state), NAMES)
    assert picture.alt_text.startswith(
        "Dimension Duel. Alice (Tau): 67 de 75 puntos de vida. Bob (Kaon): 75 de 75 puntos de "
        "vida. Turno 1: Alice atacó: rayo Kaon, enfoque Torso, Farol. Bob defendió: escudo "
        "anti-Tau, refuerzo en Cabeza, Deflector."
    )
    assert "Turno 2: ataca Bob." in picture.alt_text
    assert picture.file().description == picture.alt_text


def test_the_engine_refusals_reach_players_in_their_language() -> None:
    with pytest.raises(IllegalMove) as started:
        dd.new_game(mode="tactical", start_hp=500)
    state, _ = dd.new_game(mode="tactical")
    state.charges[0]["deflector"] = 0
    with pytest.raises(IllegalMove) as spent:
        dd.apply(
            state,
            {"type": "choose", "player": 0, "device": "tau", "region": "head",
             "function": "deflector"},
            random.Random(1),
        )  # fmt: skip
    assert str(started.value) == "Starting hit points must be a whole number from 10 to 150."
    with i18n.use("es"):
        assert known_error_message(started.value) == (
            "Los puntos de vida iniciales deben ser un número entero de 10 a 150."
        )
    with i18n.use("fr"):
        assert known_error_message(spent.value) == (
            "Tu as déjà utilisé cette fonction dans cette partie ; choisis-en une autre ou bluffe."
        )


@pytest.mark.parametrize("pseudo", [False, True])
def test_a_long_french_render_stays_inside_discords_limits(
    pseudo: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if pseudo:
        monkeypatch.setenv(i18n.PSEUDO_ENV, "1")
    long_names = ("A" * 32, "B" * 32)
    rules = dd_game.DimensionDuelGame()
    state, _ = dd.new_game(mode="tactical")
    state, events = play_turn(
        state, ("tau", "head", "changer_self"), ("tau", "torso", "delayed_attack"), [6, 6, 6]
    )
    with i18n.use("fr"):
        lines = narrate_duel(events, long_names)
        picture = duel_picture.render_duel(dd.public_view(state), long_names)
        for seat in (0, 1):
            embed, view = rules.controls(session(), seat, state, "___", UiState())
            assert len(embed.title or "") <= 256
            assert len(embed.description or "") <= 4096
            for item in view.children:
                component = getattr(item, "item", item)
                if isinstance(component, discord.ui.Select):
                    assert len(component.placeholder or "") <= 150
                    for option in component.options:
                        assert len(option.label) <= 100
                        assert len(option.description or "") <= 100
                elif isinstance(component, discord.ui.Button):
                    assert len(component.label or "") <= 80
        details = rules.challenge_details({"mode": "tactical", "hp": 150})
    assert len("\n".join(lines)) <= 4096
    assert all(len(line) <= 1024 for line in lines)
    assert len(picture.alt_text) <= 1024
    assert len(details) <= 2000
    if pseudo:
        assert lines[0].startswith("⟦**Révélation du tour")
    else:
        assert lines[0].startswith("**Révélation du tour 1**")
