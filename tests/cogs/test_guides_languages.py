"""The guides in other languages, without Discord: leaderboards, /stats, /history, /rules
and /odds rendered in Spanish (numbers, percentages and command names the Spanish way), and
every card inside Discord's limits in French and in pseudo-localized text (40% longer)."""

from __future__ import annotations

from collections.abc import Iterator

import discord
import pytest
from guides import every_guide, guide_of

from bot import i18n
from bot.ladder.seasons import Season
from bot.ladder.standings import (
    Favourite,
    GameStats,
    HistoryEntry,
    HistoryPlayer,
    LeaderboardPage,
    PlayerStats,
    Ranked,
    SeasonRecord,
    Standing,
)
from bot.model.catalog import GAMES
from bot.play.guild_settings import GuildSettings
from cogs.leaderboard_render import history_embed, leaderboard_embed, stats_embed
from cogs.odds import cog as odds
from cogs.odds import figures as odds_figures
from cogs.odds import render
from cogs.rules import rules_embed

SEASON = Season(1, "knucklebones", 2, "", 1_800_000_000.0)


def standing(user_id: int, name: str, wins: int, losses: int, games: int) -> Standing:
    return Standing(
        user_id=user_id,
        mu=27.0,
        sigma=4.0,
        ordinal=23.46,
        wins=wins,
        losses=losses,
        draws=games - wins - losses,
        games=games,
        streak=3,
        best_streak=4,
        ai_wins=1,
        ai_losses=0,
        ai_draws=0,
        score_total=380,
        scored_games=10,
        display_name=name,
    )


def board(game: str = "knucklebones") -> LeaderboardPage:
    return LeaderboardPage(
        game=game,
        season=SEASON,
        sort="wins",
        page=1,
        pages=2,
        ranked_total=11,
        rows=[Ranked(1, standing(1, "alicia", 7, 2, 10)), Ranked(2, standing(2, "bea", 5, 5, 10))],
        provisional=[standing(3, "carla", 1, 0, 1)],
        provisional_total=4,
        minimum_games=3,
    )


def entry(reason: str = "normal", draw: bool = False) -> HistoryEntry:
    return HistoryEntry(
        result_id=1,
        game="knucklebones",
        guild_id=1,
        channel_id=2,
        message_id=3,
        reason=reason,
        draw=draw,
        vs_ai=False,
        score_line="43–38",
        finished_at=1_800_000_000.0,
        players=[
            HistoryPlayer(0, 1, "win", 1, 43, False, "alicia"),
            HistoryPlayer(1, 2, "loss", 2, 38, False, "bea"),
        ],
    )


def player_stats() -> PlayerStats:
    games = [
        GameStats(
            game=game,
            standing=standing(1, "alicia", 7, 2, 10),
            season=SEASON,
            this_season=SeasonRecord(23.46, 7, 2, 1, 10, 3, 4),
            rank=1,
            ranked_total=11,
            minimum_games=3,
            favourite=Favourite(
                {"diceman": "magic+shield", "dimension_duel": "bluff"}.get(game, "4"), 12
            ),
        )
        for game in GAMES
    ]
    return PlayerStats(user_id=1, games=games, recent=[entry("forfeit")])


def fields(embed: discord.Embed) -> dict[str, str]:
    return {field.name or "": field.value or "" for field in embed.fields}


def test_a_leaderboard_in_spanish() -> None:
    with i18n.use("es"):
        embed = leaderboard_embed(board(), "Empieza una con `/knucklebones desafiar`.")
    assert embed.title == "🏆 Clasificación de Knucklebones — Temporada 2"
    assert embed.description is not None
    assert "Esta temporada empezó el <t:1800000000:D>." in embed.description
    assert "Jugador · Puntuación · V/D/E · Partidas · Racha" in embed.description
    # Spanish numbers: a decimal comma, no grouping under five digits.
    # The rating as players read it (1000 + 30 x 23.46), in Spanish digits.
    assert "` 1` alicia · **1704** · 7/2/1 · 10 · 🔥 V3" in embed.description
    assert fields(embed)["Provisionales (menos de 3 partidas)"].endswith("…y 3 más")
    assert embed.footer.text is not None
    assert embed.footer.text.startswith("Ordenado por victorias · página 1/2 · 11 clasificados")


def test_stats_and_history_in_spanish() -> None:
    with i18n.use("es"):
        stats = stats_embed(player_stats(), "alicia", every_guide())
        history = history_embed(
            [entry(), entry("timeout"), entry(draw=True)], None, "alicia", every_guide()
        )
    assert stats.title == "📊 alicia — estadísticas en este servidor"
    shown = fields(stats)
    assert (
        "Temporada 2: puntuación **1704** · puesto **#1** de 11 · V/D/E 7/2/1"
        in (shown["Knucklebones"])
    )
    assert "victorias **70\xa0%** · 10 partidas" in shown["Knucklebones"]
    assert "Dados favoritos: **Magia + Escudo** (12 rondas)" in shown["Diceman"]
    assert "Función favorita: **Farol** (12 turnos)" in shown["Dimension Duel"]
    assert "Jugada favorita: **4** (12 turnos)" in shown["Knucklebones"]
    assert shown["Último resultado (1)"].startswith("✅ Victoria (rendición) · Knucklebones")
    assert "contra bea" in shown["Último resultado (1)"]
    assert history.title == "📜 Partidas recientes de alicia"
    assert history.description is not None
    lines = history.description.split("\n")
    assert lines[0].startswith("**Knucklebones** · alicia ganó a bea · 43–38")
    assert "alicia ganó a bea por tiempo" in lines[1]
    assert "alicia y bea empataron" in lines[2] and "[partida](" in lines[2]


def test_rules_in_spanish_name_the_spanish_commands() -> None:
    with i18n.use("es"):
        card = rules_embed(
            guide_of("weighted_dice"), GuildSettings(), "Empieza una con `/weighted nueva`."
        )
        knucklebones = rules_embed(guide_of("knucklebones"), GuildSettings(), "")
    assert card.title == "📖 Weighted Dice — reglas"
    shown = fields(card)
    assert "eligió el anfitrión en `/weighted nueva`" in shown["Empates y final"]
    assert shown["En este servidor"].startswith("la banca tiene ")
    assert "Cómo se juega aquí" in shown  # the bot's own rulings; "la casa" is not the banca
    assert knucklebones.description is not None and "**tus** columnas" in knucklebones.description
    assert fields(knucklebones)["En este servidor"] == "5 min por turno"


def test_odds_in_spanish() -> None:
    with i18n.use("es"):
        pair = odds.weighted_pair_embed(20, 4)
        reading = render.advantage_reading(
            render.SeatFigures(
                "Medium",
                10_000,
                0.5,
                (0.49, 0.51),
                0.48,
                0.02,
                0.548,
                (0.546, 0.55),
                30.8,
                29,
                21,
                43,
            )
        )
        grid = odds.weighted_grid_embed()
    assert pair.title == "Weighted Dice: d20 contra d4"
    assert pair.description is not None
    assert "Gana el d20: **7/8** = 87,5\xa0%" in pair.description
    assert "Empate, la banca se queda con todas las apuestas: **1/20** = 5\xa0%" in pair.description
    assert fields(pair)["Interpretación"].startswith("El d20 es el favorito: gana el 87,5\xa0%")
    assert reading.startswith("En el nivel medio, mover primero es una ventaja real")
    assert "`/weighted nueva` `puntos:partida corta`" in fields(grid)["Cuánto dura una partida"]


def test_the_diceman_picture_is_drawn_and_kept_per_language() -> None:
    odds_figures.DICEMAN_PICTURE.forget()
    english = odds_figures.DICEMAN_PICTURE.get()
    with i18n.use("es"):
        assert not odds_figures.DICEMAN_PICTURE.ready
        spanish = odds_figures.DICEMAN_PICTURE.get()
        assert odds_figures.DICEMAN_PICTURE.get() is spanish
        embed = odds.diceman_embed()
    assert odds_figures.DICEMAN_PICTURE.get() is english
    assert english.alt_text.startswith("Diceman, one round")
    assert spanish.alt_text.startswith("Diceman, una ronda")
    assert "M = Magia d4" in spanish.alt_text
    assert spanish.png != english.png  # the title drawn on it is Spanish
    assert embed.footer.text == "M = Magia d4 · P = Prioridad d6 · Ep = Espada d8 · Ec = Escudo d10"


# -- Discord's limits in a long language -------------------------------------------------------


def check_limits(embed: discord.Embed) -> None:
    title = embed.title or ""
    description = embed.description or ""
    footer = embed.footer.text or ""
    assert len(title) <= 256 and len(description) <= 4096 and len(footer) <= 2048
    total = len(title) + len(description) + len(footer)
    for field in embed.fields:
        assert len(field.name or "") <= 256 and len(field.value or "") <= 1024, field.name
        total += len(field.name or "") + len(field.value or "")
    assert total <= 6000


@pytest.fixture(params=["fr", "pseudo"])
def long_language(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "pseudo":
        monkeypatch.setenv(i18n.PSEUDO_ENV, "1")
    with i18n.use("fr"):
        yield request.param


def test_every_guide_card_fits_discord_in_a_long_language(long_language: str) -> None:
    hint = "Lance une partie avec `/knucklebones défier` ou `/knucklebones ia`."
    embeds = [rules_embed(guide_of(game), GuildSettings(), hint) for game in GAMES]
    embeds += [leaderboard_embed(board(game), hint) for game in GAMES]
    embeds += [
        stats_embed(player_stats(), "x" * 32, every_guide()),
        history_embed([entry()] * 10, "diceman", "y", every_guide()),
    ]
    embeds += [odds.weighted_pair_embed(4, 4), odds.weighted_die_embed(6)]
    embeds += [odds.weighted_grid_embed(), odds.diceman_embed()]
    for embed in embeds:
        check_limits(embed)
    if long_language == "pseudo":
        assert all(i18n.PSEUDO_OPEN in (embed.title or "") for embed in embeds)
    assert render.diceman_alt_text(odds_figures.diceman_figures())
