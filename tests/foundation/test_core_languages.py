"""The bot's shared texts (errors, challenges, rematches, match play) in Spanish and
French, and within Discord's limits when a language is longer (pseudo-localization)."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Literal

import discord
import pytest
from discord import app_commands

from bot import i18n
from bot.app import STALE_CONTROL, check_options
from bot.model.contract import stop_cause, stopped_challenge_text, stopped_text
from bot.model.errors import (
    DatabaseUnavailable,
    GameOver,
    NotYourGame,
    SessionChanged,
    SessionNotFound,
    WrongMessage,
)
from bot.model.series import Series, challenge_line, finished_line, running_line
from bot.storage.move_writes import already_playing
from bot.ui.challenges import (
    ChallengeButton,
    act_on_challenge,
    challenge_message_text,
    challenge_step,
)
from bot.ui.permissions import missing_permissions
from bot.ui.rematch import describe_follow_up, play_on_label
from bot.ui.replies import DMS_CLOSED_HELP, InvalidOption, known_error_message
from game_core.errors import IllegalMove

ANN, BO = 111, 222


@pytest.fixture(autouse=True)
def _real_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read real translations, also inside a pseudo-localized run."""
    monkeypatch.delenv(i18n.PSEUDO_ENV, raising=False)


NAMES = {ANN: "Ann", BO: "Bo"}


def _forbidden(code: int) -> discord.Forbidden:
    response = SimpleNamespace(status=403, reason="Forbidden")
    return discord.Forbidden(response, {"code": code, "message": "no"})  # type: ignore[arg-type]


def test_errors_are_built_in_the_players_language() -> None:
    with i18n.use("es"):
        assert str(SessionNotFound()) == (
            "Esa partida ya no existe. Empieza una nueva con un comando de barra."
        )
        assert str(NotYourGame()) == "Esta no es tu partida: solo sus jugadores pueden hacer eso."
        assert str(GameOver()) == "Esa partida ya ha terminado."
        assert known_error_message(SessionChanged()) == (
            "La partida cambió mientras tanto, así que esa pulsación no se aplicó. Mira el "
            "mensaje actualizado y vuelve a intentarlo."
        )
        assert str(WrongMessage("https://discord.com/channels/1/2/3")).endswith(
            "La partida está aquí: https://discord.com/channels/1/2/3"
        )
    with i18n.use("fr"):
        assert str(GameOver()) == "Cette partie est déjà terminée."
        assert str(DatabaseUnavailable()).startswith("La base de données des parties est occupée")
    # The language is the one when the error was made, not when it is shown.
    with i18n.use("es"):
        made = GameOver()
    assert known_error_message(made) == "Esa partida ya ha terminado."
    assert str(GameOver()) == "That game is already over."


def test_discord_refusals_and_checks_in_spanish() -> None:
    with i18n.use("es"):
        assert known_error_message(_forbidden(50013)).startswith(
            "Me falta un permiso en este canal. Aquí necesito **Ver canales**"
        )
        assert "`/dicebot comprobar`" in (known_error_message(_forbidden(50013)) or "")
        assert known_error_message(_forbidden(50007)) == i18n._(DMS_CLOSED_HELP)
        assert "**Haz tu jugada**" in i18n._(DMS_CLOSED_HELP)
        assert known_error_message(app_commands.MissingPermissions(["manage_guild"])) == (
            "Necesitas el permiso **Gestionar servidor** para usar este comando."
        )
        assert known_error_message(
            app_commands.BotMissingPermissions(["embed_links", "attach_files"])
        ) == ("Me faltan los permisos **Insertar enlaces** y **Adjuntar archivos** en este canal.")
        assert known_error_message(app_commands.NoPrivateMessage()) == (
            "Este comando funciona en un canal de servidor, no en mensajes directos."
        )
        assert known_error_message(app_commands.CheckFailure()) == (
            "No puedes usar este comando aquí."
        )
        missing = missing_permissions(discord.Permissions.none(), in_thread=True)
        assert missing[0] == "Ver canales" and "Enviar mensajes en hilos" in missing
        assert i18n._(STALE_CONTROL).startswith("Este botón o menú ya no está activo")
    with i18n.use("fr"):
        assert known_error_message(app_commands.MissingPermissions(["manage_guild"])) == (
            "Tu as besoin de la permission **Gérer le serveur** pour utiliser cette commande."
        )


def test_rule_refusals_are_translated_from_their_english_template() -> None:
    ctx = SimpleNamespace(session=SimpleNamespace(state={}), actor_id=ANN)
    with pytest.raises(IllegalMove) as caught:
        challenge_step(ctx, {"type": "accept"}, lambda *_: None)  # type: ignore[arg-type]
    assert caught.value.template == "That challenge has already been answered."
    with i18n.use("es"):
        assert known_error_message(caught.value) == "Ese desafío ya tiene respuesta."
    with i18n.use("fr"):
        assert known_error_message(caught.value) == "Ce défi a déjà reçu une réponse."
    state = {"challenge": {"challenger": ANN, "opponent": BO, "options": {}}}
    ctx = SimpleNamespace(session=SimpleNamespace(state=state), actor_id=ANN)
    with i18n.use("es"), pytest.raises(NotYourGame) as refused:
        challenge_step(ctx, {"type": "accept"}, lambda *_: None)  # type: ignore[arg-type]
    assert str(refused.value) == "No puedes aceptar tu propio desafío: espera a tu rival."


async def test_a_late_withdrawal_names_the_command_in_the_players_language() -> None:
    from bot.model.errors import StaleControl, UserError

    class Sessions:
        async def act(self, *args: object) -> None:
            raise StaleControl("accepted")

    bot = SimpleNamespace(sessions=Sessions())
    with i18n.use("es"), pytest.raises(UserError) as caught:
        await act_on_challenge(bot, SimpleNamespace(id=1), ANN, "decline", "knucklebones")  # type: ignore[arg-type]
    assert str(caught.value) == (
        "El desafío se aceptó hace un momento, así que la partida está en marcha. Usa "
        "`/knucklebones rendirse` otra vez si quieres rendirte."
    )


def test_challenges_and_rematches_in_spanish() -> None:
    with i18n.use("es"):
        text = challenge_message_text("Knucklebones", ANN, BO, 1_800_000_000.0)
        assert text == (
            f"⚔️ ¡<@{ANN}> desafía a <@{BO}> a **Knucklebones**!\n"
            f"<@{BO}>, acepta o rechaza: el desafío caduca <t:1800000000:R>."
        )
        again = challenge_message_text("Diceman", ANN, BO, 1_800_000_000.0, rematch=True)
        assert again.startswith(f"🔁 ¡<@{ANN}> le pide a <@{BO}> la revancha de **Diceman**!")
        accept = ChallengeButton(5, "accept").item
        decline = ChallengeButton(5, "decline").item
        assert (accept.label, decline.label) == ("Aceptar", "Rechazar")
        assert play_on_label("next", 3) == ("Empezar partida 3", "▶️")
        assert play_on_label("rematch")[0] == "Revancha"
        assert play_on_label("lobby")[0] == "Jugar otra vez"
        follow = SimpleNamespace(state={"challenge": {}}, is_open=True, status="pending")
        assert describe_follow_up(follow) == (  # type: ignore[arg-type]
            "Una revancha de esta partida espera respuesta."
        )
        assert already_playing("Bo", False, "knucklebones").startswith(
            "Bo ya tiene una partida abierta en este canal ("
        )
        assert already_playing("Bo", True, None).startswith(
            "Ya tienes otra partida abierta en este canal."
        )
        # Each cause of a stopped game is a whole sentence of its own (issue 29: "Esta partida
        # fue terminó porque se eliminó su canal" came from a fragment slotted into another).
        events = [{"type": "cancelled", "reason": "ended because its channel was deleted"}]
        assert stopped_text(stop_cause(events)) == (
            "La partida terminó porque se eliminó su canal; no cuenta ningún resultado."
        )
        admin = [{"type": "cancelled", "reason": "stopped by an admin"}]
        assert (
            stopped_challenge_text(stop_cause(admin), rematch=False).format(
                game="Diceman", challenger="<@1>", opponent="<@2>"
            )
            == "Un administrador detuvo el desafío de Diceman de <@1> a <@2>."
        )


def test_match_play_lines_in_spanish_and_french() -> None:
    match = Series(players=(ANN, BO), best_of=3, game=2, match_wins=(1, 0))
    with i18n.use("es"):
        assert running_line(match, NAMES) == "🏅 Al mejor de 3, partida 2: Ann va ganando 1–0."
        assert finished_line(match, BO, NAMES) == (
            "🏅 Al mejor de 3, tras la partida 2: empate a 1–1."
        )
        assert finished_line(match, ANN, NAMES) == "🏅 **Ann gana la serie**, 2–0 (al mejor de 3)."
        first = Series(players=(ANN, BO), best_of=5)
        assert challenge_line(first, NAMES) == (
            "🏅 Al mejor de 5: quien gane 3 partidas se lleva la serie (un empate no cuenta "
            "para nadie)."
        )
    chain = Series(players=(ANN, BO), rematches=2, chain_wins=(2, 1), chain_draws=2)
    with i18n.use("fr"):
        assert running_line(chain, NAMES) == "🔁 Face-à-face : Ann mène 2–1, avec 2 égalités."
        assert finished_line(match, ANN, NAMES) == (
            "🏅 **Ann remporte le match**, 2–0 (au meilleur des 3 parties)."
        )


def _english_left(text: str, *names: str) -> str:
    """The letters of ``text`` outside pseudo-brackets, mentions, timestamps and links."""
    for name in names:
        text = text.replace(name, "")
    text = re.sub(r"⟦[^⟧]*⟧|<[@t][^>]*>|https://\S+", "", text)
    return "".join(ch for ch in text if ch.isascii() and ch.isalpha())


def _command() -> app_commands.Command[object, ..., None]:
    @app_commands.command(name="duel", description="A duel")
    async def duel(
        interaction: discord.Interaction,
        hp: app_commands.Range[int, 10, 150] = 50,
        mode: Literal["tactical", "classic"] = "tactical",
    ) -> None:
        return None

    return duel  # type: ignore[return-value]


def test_option_refusals_name_the_option_as_the_command_picker_shows_it() -> None:
    command = _command()
    with i18n.use("es"), pytest.raises(InvalidOption) as caught:
        check_options(command, SimpleNamespace(hp=500, mode=None))  # type: ignore[arg-type]
    assert str(caught.value) == "`pv` debe estar entre 10 y 150."
    with i18n.use("es"), pytest.raises(InvalidOption) as caught:
        check_options(command, SimpleNamespace(hp=None, mode="chaotic"))  # type: ignore[arg-type]
    assert str(caught.value).startswith("`modo` debe ser una de estas opciones: `")
    with pytest.raises(InvalidOption) as caught:
        check_options(command, SimpleNamespace(hp=9, mode=None))  # type: ignore[arg-type]
    assert str(caught.value) == "`hp` must be between 10 and 150."


def test_longer_languages_stay_inside_discords_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pseudo-localization makes every text 40% longer: buttons, the challenge message
    and the longest errors still fit, and no English is left outside the brackets."""
    monkeypatch.setenv(i18n.PSEUDO_ENV, "1")
    long_name = "W" * 32
    names = {ANN: long_name, BO: long_name}
    labels = [
        ChallengeButton(5, "accept").item.label,
        ChallengeButton(5, "decline").item.label,
        play_on_label("next", 5)[0],
        play_on_label("lobby")[0],
    ]
    assert all(label is not None and len(label) <= 80 for label in labels)
    assert all(i18n.PSEUDO_OPEN in (label or "") for label in labels)
    series = Series(players=(ANN, BO), best_of=5, rematches=3, chain_wins=(2, 1), chain_draws=1)
    title = i18n._("Dimension Duel")
    text = challenge_message_text(
        title, ANN, BO, 1_800_000_000.0, challenge_line(series, names), rematch=True
    )
    assert len(text) <= 2000
    assert _english_left(text, long_name) == ""
    errors = [
        known_error_message(_forbidden(50013)),
        known_error_message(_forbidden(50007)),
        str(WrongMessage("https://discord.com/channels/1/2/3")),
        already_playing(long_name, False, None),
    ]
    assert all(error is not None and len(error) <= 2000 for error in errors)
    assert all(_english_left(error or "", long_name) == "" for error in errors)
    # In French too (the longest of the shipped languages here).
    monkeypatch.delenv(i18n.PSEUDO_ENV)
    with i18n.use("fr"):
        finished = finished_line(series, ANN, names)
        assert len(finished) <= 1024
        assert all(len(label or "") <= 80 for label in [play_on_label("next", 5)[0]])
