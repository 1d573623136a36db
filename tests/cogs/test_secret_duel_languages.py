"""Diceman and the secret duels' shared texts in the players' languages: Spanish and French
renders of the public message, the private controls, the notes and the refusals, and the
longest of them (French, pseudo-localized, with the longest names) inside Discord's
limits."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import discord
import pytest
from fakediscord.messages import validate_components, validate_embeds

from bot import i18n
from bot.model.contract import Seat, Session, Step, StepContext
from bot.model.errors import StaleControl
from bot.play.guild_settings import GuildSettings
from bot.ui.challenges import challenge_state
from bot.ui.replies import known_error_message
from cogs.diceman.game import DicemanGame
from cogs.dimension_duel.game import DimensionDuelGame
from cogs.secret_duel.handler import SecretDuelHandler
from game_core.errors import IllegalMove

ALICE, BOB = 11, 22
NOW = 1_800_000_000.0
SETTINGS = GuildSettings(round_timeout_seconds=180)
LONGEST_NAME = "W" * 32  # Discord display names hold at most 32 characters


def handler(game: str = "diceman") -> SecretDuelHandler[Any]:
    rules = DicemanGame() if game == "diceman" else DimensionDuelGame()
    return SecretDuelHandler(None, rules)  # type: ignore[arg-type]


def act(h: SecretDuelHandler[Any], s: Session, actor: int | None, action: dict[str, Any]) -> Step:
    ctx = StepContext(
        session=s,
        actor_id=actor,
        now=NOW,
        rng=random.Random(f"{s.seed}:{s.version}"),
        guild_settings=SETTINGS,
    )
    return h.step(ctx, action)


def advance(s: Session, step: Step) -> Session:
    seats = tuple(step.seats) if step.seats is not None else s.seats
    return replace(s, state=step.state, status=step.status, version=s.version + 1, seats=seats)


def started(names: tuple[str, str] = ("Alice", "Bob"), game: str = "diceman") -> Session:
    challenger, opponent = Seat(0, ALICE, names[0]), Seat(1, BOB, names[1])
    pending = Session(
        id=5,
        game=game,
        guild_id=1,
        channel_id=2,
        message_id=3,
        status="pending",
        state=challenge_state(challenger, opponent, {}, NOW + 300),
        version=1,
        seed=42,
        created_by=ALICE,
        created_at=NOW,
        updated_at=NOW,
        seats=(challenger, opponent),
    )
    return advance(pending, act(handler(game), pending, BOB, {"type": "accept"}))


def lock(h: SecretDuelHandler[Any], s: Session, actor: int, dice: list[str]) -> Session:
    action = {"type": "lock", "round": 1, "choice": {"dice": dice}}
    return advance(s, act(h, s, actor, action))


def within_limits(
    content: str = "",
    embed: discord.Embed | None = None,
    view: discord.ui.View | None = None,
) -> None:
    """What the fake Discord refuses (tests/fakediscord/messages.py), on a render."""
    assert len(content) <= 2000
    if embed is not None:
        validate_embeds([embed.to_dict()])  # type: ignore[list-item]
    if view is not None:
        validate_components(view.to_components(), v2=False)


def test_the_public_message_in_spanish() -> None:
    h, s = handler(), started()
    with i18n.use("es"):
        fields = h.render_public(s)
    embed = fields["embed"]
    assert fields["content"] == "**Diceman**: <@11> contra <@22>"
    assert embed.title == "🎲 Diceman — Ronda 1"
    assert "Ronda 1 de 30 como máximo." in embed.description
    assert "Esperando a Alice y Bob: falta fijar su elección." in embed.description
    assert [f.value.splitlines()[-1] for f in embed.fields[:2]] == ["⏳ Eligiendo…"] * 2
    assert embed.fields[2].name == "⏱️ Tiempo restante"
    assert " por ronda; quien no llegue a tiempo pierde por abandono)" in embed.fields[2].value
    assert embed.footer.text == (
        "Las elecciones son secretas hasta que ambos las fijen: elige por MD o pulsa Haz tu jugada."
    )
    assert [item.item.label for item in fields["view"].children] == ["Haz tu jugada"]


def test_the_private_controls_and_notes_in_spanish_and_french() -> None:
    h, s = handler(), started()
    state, ui = h.parse(s)  # type: ignore[misc]
    with i18n.use("es"):
        embed, view = h.rules.controls(s, 0, state, "ps", ui)
    assert embed.title == "🎲 Diceman — ronda 1: tu elección secreta"
    assert embed.description.startswith("Tú: ")
    assert "Fija tu elección <t:1800000180:R> o perderás por abandono." in embed.description
    assert "Elige **exactamente dos** dados en el menú y pulsa **Confirmar**." in (
        embed.description
    )
    assert "(no queda fijado hasta que confirmes)" in embed.description
    select, confirm = (child.item for child in view.children)  # type: ignore[attr-defined]
    assert select.placeholder == "Elige dos dados"
    assert confirm.label == "Confirmar Prioridad + Espada"

    locked = lock(h, s, ALICE, ["priority", "sword"])
    with i18n.use("fr"):
        note = h.private_after(locked, 0, "round:1")["embed"]
        with pytest.raises(IllegalMove) as error:
            act(h, locked, ALICE, {"type": "lock", "round": 1, "choice": {"dice": ["magic"]}})
        refusal = known_error_message(error.value)
    assert note.title == "🔒 Validé — Diceman, manche 1"
    assert "Un choix est définitif." in note.description
    assert refusal == (
        "Tu as déjà validé ton choix pour cette manche, et il est définitif. Attends ton "
        "adversaire : la révélation arrive dès qu'il valide le sien."
    )


def test_the_end_of_a_game_in_spanish() -> None:
    h, s = handler(), started()
    over = advance(s, act(h, s, BOB, {"type": "forfeit"}))
    with i18n.use("es"):
        fields = h.render_public(over)
        winner_dm = h.private_after(over, 0, "round:1")["embed"]
        loser_dm = h.private_after(over, 1, "round:1")["embed"]
    assert fields["content"].startswith("🏳️ Bob se rindió. **¡Alice gana!** Diceman, Vida 20–20.")
    assert fields["embed"].title == "🎲 Diceman — fin de la partida"
    assert winner_dm.title == "Diceman — fin de la partida"
    assert winner_dm.description.endswith("🏆 ¡Ganaste!")
    assert loser_dm.description.endswith("Esta vez perdiste.")


def test_refusals_in_the_players_language() -> None:
    h, s = handler(), started()
    with i18n.use("es"), pytest.raises(StaleControl) as stale:
        h.check_round(h.parse(s)[0], 0)  # type: ignore[index]
    assert str(stale.value) == (
        "Eso era de la ronda 0, que ya terminó: ahora se juega la ronda 1. Usa tu MD "
        "más reciente o el botón **Haz tu jugada** del mensaje de la partida."
    )
    # The rule engine's own refusals: English templates, shown in the player's language.
    with i18n.use("fr"), pytest.raises(IllegalMove) as illegal:
        act(h, s, ALICE, {"type": "lock", "round": 1, "choice": {"dice": ["magic", "magic"]}})
    with i18n.use("fr"):
        assert known_error_message(illegal.value) == "Choisis deux dés différents."
    # Dimension Duel's "turn" gets sentences of its own (Spanish *turno* is masculine).
    duel = handler("dimension_duel")
    with i18n.use("es"):
        assert duel.rules.round_texts.heading == "{game} — Turn {round}"
        assert i18n._(duel.rules.round_texts.heading).format(game="X", round=2) == "X — Turno 2"
        assert i18n._(duel.already_locked_text()).startswith(
            "Ya fijaste tu elección para este turno"
        )


@pytest.mark.parametrize("language", ["fr", "es", "pseudo"])
def test_the_longest_renders_fit_discord(language: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if language == "pseudo":
        monkeypatch.setenv(i18n.PSEUDO_ENV, "1")
    code = "fr" if language == "pseudo" else language
    h = handler()
    s = started((LONGEST_NAME, LONGEST_NAME + "x"))
    state, ui = h.parse(s)  # type: ignore[misc]
    with i18n.use(code):
        public = h.render_public(s)
        within_limits(public["content"], public["embed"], public["view"])
        controls = h.rules.controls(s, 1, state, "ms", ui)
        within_limits("", *controls)
        locked = lock(h, s, ALICE, ["priority", "sword"])
        within_limits("", h.private_after(locked, 0, "round:1")["embed"])
        revealed = lock(h, locked, BOB, ["magic", "shield"])
        within_limits("", h.private_after(revealed, 0, "round:1")["embed"])
        public = h.render_public(revealed)
        within_limits(public["content"], public["embed"], public["view"])
        over = advance(revealed, act(h, revealed, ALICE, {"type": "forfeit"}))
        public = h.render_public(over)
        within_limits(public["content"], public["embed"])
        within_limits("", h.private_after(over, 1, "round:2")["embed"])
        if language == "pseudo":
            assert i18n.PSEUDO_OPEN in public["content"]
