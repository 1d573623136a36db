"""Rematches and match play in the secret duels, end to end on the fake Discord: the
options carry over and Tau alternates in Dimension Duel; Diceman against the AI starts at
once; a Diceman best of 3; a declined Diceman rematch."""

from __future__ import annotations

from duel_support import Duel
from fakediscord import CallbackType, FakeDiscord, FakeMessage, Player

from bot.app import DiceBot


def field_names(board: FakeMessage) -> list[str]:
    return [str(field["name"]) for field in (board.embed or {}).get("fields", [])]


def tau_of(board: FakeMessage, *players: Player) -> Player:
    """Who is Tau, from the players' fields on the game message."""
    for name in field_names(board):
        for player in players:
            if name.startswith(player.name.capitalize()) and "Tau" in name:
                return player
    raise AssertionError(f"no Tau on {field_names(board)}")


async def forfeit(fake: FakeDiscord, command: str, player: Player, board: FakeMessage) -> None:
    await player.slash(f"{command} forfeit")
    await fake.wait_for(lambda: "game over" in board.text(), what="the forfeit on the board")


async def press(player: Player, board: FakeMessage, label: str) -> FakeMessage:
    """Press Rematch or Start game N; returns the new public message."""
    outcome = await player.click(board, label)
    assert outcome.type is CallbackType.MESSAGE and not outcome.ephemeral, outcome.text()
    assert outcome.message is not None
    return outcome.message


async def test_a_duel_match_keeps_its_options_and_tau_alternates(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    challenge = await alice.slash("duel challenge", opponent=bob, mode="classic", hp=10, best_of=3)
    board = challenge.message
    assert board is not None and "🏅 Best of 3" in board.content
    await bob.click(board, "Accept")
    duel = Duel(fake_discord, board, "dd")
    await duel.wait_round(1)
    tau = tau_of(board, alice, bob)
    kaon = bob if tau is alice else alice
    assert board.content.endswith("\n🏅 Best of 3, game 1.")
    await forfeit(fake_discord, "duel", kaon, board)
    assert f"🏅 Best of 3, after game 1: {tau.name.capitalize()} leads 1–0." in board.content
    assert board.labels() == ["Start game 2", "Replay"]

    second = await press(kaon, board, "Start game 2")
    duel = Duel(fake_discord, second, "dd")
    await duel.wait_round(1)
    # The same mode and hit points; last game's Kaon is Tau now and attacks first.
    assert "Mode **classic" in second.text() and "10 HP each" in second.text()
    assert tau_of(second, alice, bob) is kaon
    assert "Roll" in second.labels()
    assert f"game 2: {tau.name.capitalize()} leads 1–0." in second.content
    await fake_discord.wait_for(lambda: board.labels() == ["Replay"], what="the old button to go")
    assert board.content.endswith("▶️ The next game is on, below.")


async def test_a_diceman_rematch_against_the_ai_starts_at_once_unranked(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    board = (await alice.slash("diceman ai")).message
    assert board is not None
    await fake_discord.wait_for(lambda: bool(board.components), what="the Diceman board")
    await forfeit(fake_discord, "diceman", alice, board)
    assert board.labels() == ["Rematch", "Replay"]
    second = await press(alice, board, "Rematch")
    ai = running_bot.user.display_name
    assert second.content.endswith(f"\n🔁 Head-to-head: {ai} leads 1–0.")
    assert "Make your move" in second.labels()
    duel = Duel(fake_discord, second, "dm")
    await duel.dm_controls(alice, 1)  # the new game's secret controls arrive by DM
    row = await running_bot.db.fetch_one(
        "SELECT games, ai_losses FROM ratings WHERE user_id = ? AND game = 'diceman'",
        (alice.id,),
    )
    assert row is not None and (row["games"], row["ai_losses"]) == (0, 1)


async def test_a_diceman_best_of_three_and_a_declined_rematch(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player, bob: Player
) -> None:
    board = (await alice.slash("diceman challenge", opponent=bob, best_of=3)).message
    assert board is not None
    await bob.click(board, "Accept")
    await fake_discord.wait_for(lambda: "Make your move" in board.labels(), what="game 1")
    await forfeit(fake_discord, "diceman", bob, board)
    assert "🏅 Best of 3, after game 1: Alice leads 1–0." in board.content
    second = await press(bob, board, "Start game 2")
    await fake_discord.wait_for(lambda: "Make your move" in second.labels(), what="game 2")
    await forfeit(fake_discord, "diceman", alice, second)
    assert "🏅 Best of 3, after game 2: level at 1–1." in second.content
    third = await press(alice, second, "Start game 3")
    await fake_discord.wait_for(lambda: "Make your move" in third.labels(), what="game 3")
    assert "🏅 Best of 3, game 3: level at 1–1." in third.content
    await forfeit(fake_discord, "diceman", bob, third)
    assert third.content.endswith("\n🏅 **Alice wins the series**, 2–1 (best of 3).")
    assert third.labels() == ["Rematch", "Replay"]

    challenge = await press(bob, third, "Rematch")
    assert f"🔁 {bob.mention} asks {alice.mention} for a **Diceman** rematch!" in (
        challenge.content
    )
    assert "Head-to-head in series: Alice leads 1–0." in challenge.content
    await alice.click(challenge, "Decline")
    assert challenge.content == f"{alice.mention} declined the Diceman rematch from {bob.mention}."
    rows = await running_bot.db.fetch_all("SELECT id FROM results WHERE game = 'diceman'")
    assert len(rows) == 3
