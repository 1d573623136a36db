"""The shape of each game's message as a player sees it: one status line, the picture with
its alt text, the buttons, and no text that repeats the picture."""

from __future__ import annotations

import io

from fakediscord import FakeDiscord, FakeMessage, Player
from knucklebones_support import ai_thinking, press_column
from PIL import Image

from bot.app import DiceBot
from bot.model.clock import ManualClock
from bot.pictures.picture import DESKTOP_BOX
from cogs.dimension_duel import picture as duel_picture
from cogs.knucklebones import picture as knucklebones_picture
from cogs.knucklebones.cog import AI_MOVE_DELAY


def picture_of(message: FakeMessage, filename: str) -> tuple[Image.Image, str]:
    attachment = message.attachment(filename)
    return Image.open(io.BytesIO(attachment.content)), attachment.description or ""


def rows_of(message: FakeMessage) -> list[list[str]]:
    return [
        [str(item.get("label")) for item in row.get("components", [])] for row in message.components
    ]


async def test_a_knucklebones_message_is_a_line_a_picture_and_one_row_of_buttons(
    running_bot: DiceBot, fake_discord: FakeDiscord, clock: ManualClock, alice: Player
) -> None:
    board = (await alice.slash("knucklebones ai", first="me")).message
    assert board is not None

    def check_layout() -> None:
        assert "\n" not in board.content and board.embeds == []
        assert [a.filename for a in board.attachments] == ["board.png"]
        image, alt = picture_of(board, "board.png")
        # Shown pixel for pixel on a desktop (at most 550 × 350 for an attachment).
        assert image.size == (knucklebones_picture.WIDTH, knucklebones_picture.HEIGHT)
        assert image.width <= DESKTOP_BOX["attachment"][0]
        assert image.height <= DESKTOP_BOX["attachment"][1]
        assert alt.startswith("Knucklebones board, turn ") and "(top grid)" in alt
        assert rows_of(board) == [["Column 1", "Column 2", "Column 3"]]

    check_layout()
    assert board.content.startswith(f"🎲 {alice.mention} rolled ")
    await press_column(alice, board, 0)
    # While the AI thinks, the same row of buttons stays, greyed out: nothing jumps.
    assert ai_thinking(board)
    check_layout()
    clock.advance(AI_MOVE_DELAY + 0.3)
    await fake_discord.wait_for(lambda: not ai_thinking(board), what="the AI's move")
    check_layout()
    assert f"Last move: {running_bot.user.display_name} put a " in board.content


async def test_a_dimension_duel_message_leaves_bars_and_functions_to_its_picture(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    board = (await alice.slash("duel ai", mode="classic", hp=10)).message
    assert board is not None
    await fake_discord.wait_for(lambda: "Roll" in board.labels(), what="the duel")
    await alice.click(board, "Roll")
    await fake_discord.wait_for(lambda: "Turn 1 reveal" in board.text(), what="the reveal")
    image, alt = picture_of(board, "duel.png")
    assert image.width == duel_picture.WIDTH
    assert duel_picture.MIN_HEIGHT <= image.height <= DESKTOP_BOX["attachment"][1]
    assert alt.startswith("Dimension Duel. ") and "Alice (" in alt and "hit points" in alt
    assert "\n" not in board.content
    text = board.text()
    # The hit points and functions left are the picture's (and its alt text's) alone.
    assert "█" not in text and "/10" not in text and "Functions left" not in text
    assert "💥" in text  # the reveal's narration stays: it says why


async def test_a_finished_duel_names_the_winner_on_its_first_line(
    running_bot: DiceBot, fake_discord: FakeDiscord, alice: Player
) -> None:
    board = (await alice.slash("diceman ai")).message
    assert board is not None
    await fake_discord.wait_for(lambda: bool(board.components), what="the Diceman board")
    await alice.slash("diceman forfeit")
    await fake_discord.wait_for(lambda: "forfeited" in board.content, what="the end")
    ai_name = running_bot.user.display_name
    assert board.content == f"🏳️ Alice forfeited. **{ai_name} wins!** Diceman, Life 20–20."
    assert board.embed is not None and board.embed["title"] == "🎲 Diceman — game over"
    assert "wins" not in str(board.embed.get("description", ""))  # said once, on top
