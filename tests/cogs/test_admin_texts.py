"""The admin texts (/dicebot check, settings, cancel, seasons) in Spanish, and inside
Discord's limits in French and pseudo-localized (every text 40% longer)."""

from __future__ import annotations

from collections.abc import Iterator

import discord
import pytest

from bot import i18n
from bot.ladder.seasons import ClosedSeason, Season, clean_name
from bot.model.catalog import GAMES
from bot.model.errors import UserError
from bot.play.guild_settings import GuildSettings
from bot.ui.replies import DMS_CLOSED_HELP
from cogs.admin_controls import SeasonConfirmButton
from cogs.admin_render import (
    closed_text,
    confirmation_text,
    duration_text,
    permission_check_line,
    season_dates,
    season_text,
    settings_embed,
)

DEFAULTS = GuildSettings()
CHANGED = DEFAULTS.model_copy(update={"challenge_expiry_seconds": 120, "provisional_games": 1})
SPRING = Season(1, "knucklebones", 2, "Copa de primavera", 1_800_000_000.0)
NOTHING = discord.Permissions.none()


def test_the_settings_embed_in_spanish() -> None:
    with i18n.use("es"):
        embed = settings_embed(CHANGED, DEFAULTS, "No ha cambiado nada.")
    assert embed.title == "⚙️ Ajustes de Dicebot en este servidor"
    description = embed.description or ""
    # The option names are the ones the Spanish command picker shows.
    assert "**Tiempo por turno (Knucklebones)**: 300 s (5 min) (`tiempo_turno`, 30–86400)" in (
        description
    )
    assert (
        "**Caducidad de los desafíos**: 120 s (2 min) · *cambiado* (`caducidad_desafío`, 30–86400)"
        in description
    )
    assert "**Umbral de partidas provisionales**: 1 partida · *cambiado*" in description
    assert embed.footer.text is not None
    assert embed.footer.text.startswith("Cambia uno con /dicebot ajustes <opción>:<valor>.")


def test_durations_counts_and_seasons_in_spanish() -> None:
    with i18n.use("es"):
        assert duration_text(5400) == "1 h 30 min"
        assert season_text(SPRING) == "Temporada 2 · Copa de primavera"
        assert season_text(Season(1, "diceman", 1, "", None)) == "Temporada 1"
        assert season_dates(Season(1, "diceman", 1, "", None)) == "aún sin partidas"
        assert season_dates(SPRING) == "desde el <t:1800000000:D>"
        assert SPRING.label == "Temporada 2 · Copa de primavera"


def test_the_season_confirmation_and_its_result_in_spanish() -> None:
    with i18n.use("es"):
        question = confirmation_text([(SPRING, 1)], "Verano", 300)
        buttons = [SeasonConfirmButton(7, choice).item.label for choice in ("yes", "no")]
        started = Season(1, "knucklebones", 3, "Verano", 1_900_000_000.0)
        done = closed_text([ClosedSeason(closed=SPRING, started=started, players=4)])
    assert question.split("\n")[0] == "⚠️ **¿Cerrar la temporada actual y empezar una nueva?**"
    assert (
        "• **Knucklebones**: Temporada 2 · Copa de primavera (1 jugador) → **Temporada 3 · Verano**"
        in question
    )
    # Before the first sync the command is named in the reader's language, in backticks.
    assert (
        "`/clasificación` la muestra si eliges **Knucklebones** y la temporada **2**." in question
    )
    assert question.endswith("Esta confirmación caduca en 5 min.")
    assert buttons == ["Cerrar la temporada", "Mantenerla"]
    assert done.split("\n")[0] == "🏁 **Nueva temporada en marcha.**"
    assert "Temporada 2 · Copa de primavera cerrada con 4 jugadores" in done
    assert "**Temporada 3 · Verano** ha comenzado." in done


def test_the_check_line_and_season_name_errors_in_spanish() -> None:
    with i18n.use("es"):
        fine = permission_check_line(
            discord.Permissions.all(), in_thread=False, application_id=None
        )
        lacking = permission_check_line(NOTHING, in_thread=True, application_id=None)
        with pytest.raises(UserError) as refused:
            clean_name("x" * 41)
    assert fine == "✅ Tengo todos los permisos que necesito en este canal."
    assert lacking.startswith("❌ En este hilo me faltan estos permisos: **")
    assert lacking.endswith("Mientras tanto, juega en otro canal.")
    assert str(refused.value) == (
        "El nombre de una temporada puede tener como máximo 40 caracteres (el tuyo tiene 41): "
        "no se ha cambiado nada."
    )


@pytest.fixture(params=["fr", "es", "pseudo"])
def longest(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """French, Spanish, and pseudo-localized English (every text 40% longer)."""
    if request.param == "pseudo":
        monkeypatch.setenv(i18n.PSEUDO_ENV, "1")
        with i18n.use("en"):
            yield
    else:
        with i18n.use(request.param):
            yield


def test_the_longest_admin_texts_fit_discord_limits(longest: None) -> None:
    # Every setting changed, so every line carries its "changed" mark.
    changed = GuildSettings(
        turn_timeout_seconds=86_399,
        round_timeout_seconds=86_399,
        challenge_expiry_seconds=86_399,
        betting_window_seconds=599,
        house_setup_seconds=3_599,
        lobby_expiry_seconds=86_399,
        provisional_games=100,
    )
    embed = settings_embed(changed, DEFAULTS, "✅ " + "x" * 1000)
    assert len(embed.title or "") <= 256
    assert len(embed.description or "") <= 4096
    assert len(embed.footer.text or "") <= 2048
    assert len(embed) <= 6000

    # Four games, each closing a season with the longest names, into the longest new name.
    name = "W" * 40
    plan = [(Season(1, game, 99_999, name, 1_800_000_000.0), 99_999) for game in GAMES]
    assert len(confirmation_text(plan, name, 300)) <= 2000
    done = [
        ClosedSeason(closed=season, started=Season(1, season.game, 100_000, name, 0.0), players=n)
        for season, n in plan
    ]
    assert len(closed_text(done)) <= 2000
    for choice in ("yes", "no"):
        assert len(SeasonConfirmButton(7, choice).item.label or "") <= 80

    for in_thread in (True, False):
        line = permission_check_line(NOTHING, in_thread=in_thread, application_id=2**63 - 1)
        # /dicebot check's whole answer: that line and the one about closed DMs.
        assert len(line + "\n❌ " + i18n._(DMS_CLOSED_HELP)) <= 2000
