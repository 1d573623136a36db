"""Dimension Duel in a Spanish server: the public message speaks the server's language,
each player's private controls their own client's (French, English)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from duel_support import Duel, duel_lock
from fakediscord import FakeDiscord, FakeGuild, Player

from bot import i18n
from bot.app import DiceBot
from bot.i18n import _


def control_id(message: object, suffix: str) -> str:
    return next(c for c in message.custom_ids() if c.endswith(suffix))  # type: ignore[attr-defined]


@pytest.mark.machine_speed("a whole game, its presses milliseconds apart")
async def test_a_turn_in_a_spanish_server_with_a_french_player(
    guild: FakeGuild,
    make_member: Callable[..., Awaitable[Player]],
    running_bot: DiceBot,
    fake_discord: FakeDiscord,
) -> None:
    guild.locale = "es-ES"
    alice = await make_member("alice")
    bob = await fake_discord.add_member(guild, "bob", locale="fr")
    challenge = await alice.slash("duel challenge", opponent=bob, hp=20)
    assert challenge.message is not None
    duel = Duel(fake_discord, challenge.message, "dd")
    await bob.click(duel.board, control_id(duel.board, ":accept"))
    await duel.wait_round(1)
    assert "Modo **táctico: elecciones secretas** · 20 PV cada uno" in duel.board.text()

    # Each player's controls in their own language: Bob's client is French, Alice's English.
    bob_dm = await duel.dm_controls(bob, 1)
    alice_dm = await duel.dm_controls(alice, 1)
    bob_text, alice_text = bob_dm.text(), alice_dm.text()
    assert "Dimension Duel — tour 1 : tu " in bob_text and "ton choix secret" in bob_text
    assert "Puis appuie sur **Confirmer** : le choix est définitif." in bob_text
    assert "Dimension Duel — turn 1: you " in alice_text
    assert "Then press **Confirm**: a choice is final." in alice_text
    placeholders = {str(s.get("placeholder")) for s in bob_dm.selects()}
    assert "3️⃣ Ta fonction" in placeholders

    tau_is_alice = "1️⃣ Fire a **Tau** or **Kaon ray**" in alice_text
    attacker, defender = (alice, bob) if tau_is_alice else (bob, alice)
    attacker_dm, defender_dm = (alice_dm, bob_dm) if tau_is_alice else (bob_dm, alice_dm)
    await duel_lock(attacker, attacker_dm, "tau", "head", "bluff")
    await duel_lock(defender, defender_dm, "kaon", "torso", "bluff")
    await fake_discord.wait_for(lambda: duel.round() == 2, what="the reveal")

    # The reveal on the public message is in the server's language.
    text = duel.board.text()
    assert "**Revelación del turno 1** — " in text
    assert "1️⃣ Rayo y escudo: rayo Tau contra escudo anti-Kaon, no coinciden: +1 dado para" in text
    assert "2️⃣ Enfoque: Cabeza contra refuerzo en Torso: +1 dado para" in text
    assert "3️⃣ Funciones: " in text and "Farol" in text
    assert "💥 Daño: " in text

    # ... and on to the end of the duel: every turn's DM controls speak each player's
    # language, the result the server's.
    number = 2
    while duel.round() is not None:
        for player in (alice, bob):
            dm = await duel.dm_controls(player, number)
            if player is bob:
                assert "Dimension Duel — tour " in dm.text()
            # Alice always rays or shields Tau, Bob Kaon: no shield ever matches a ray.
            device, region = ("tau", "head") if player is alice else ("kaon", "torso")
            await duel_lock(player, dm, device, region, "bluff")
        await fake_discord.wait_for(
            lambda n=number: duel.round() in (None, n + 1), what=f"the reveal of turn {number}"
        )
        number += 1
        assert number < 60, "the duel should end"
    with i18n.use("es"):
        rematch = i18n.unpseudo(_("Rematch"))
        replay = i18n.unpseudo(_("Replay"))
    assert duel.board.labels() == [rematch, replay]
    assert "**Revelación del turno" in duel.board.text()
    with i18n.use("fr"):
        locked = i18n.unpseudo(_("Locked in"))
    assert any(locked in message.text() for message in bob.dms())
