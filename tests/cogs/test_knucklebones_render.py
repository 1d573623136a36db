"""The Knucklebones picture and texts: what a player sees for a given position."""

from __future__ import annotations

import io
import re
from typing import Any

from PIL import Image

from bot.pictures import palette, text
from cogs.knucklebones import picture as picture_module
from cogs.knucklebones import render
from game_core import knucklebones as kb

PLAYERS = [render.Player(0, 11, "alice"), render.Player(1, 22, "bob")]


def position(
    boards: list[list[list[int]]],
    *,
    current: int = 0,
    die: int | None = 4,
    last_move: dict[str, Any] | None = None,
    turn: int = 5,
    finished: bool = False,
    winners: list[int] | None = None,
    reason: str | None = None,
    ended_by: int | None = None,
) -> dict[str, Any]:
    state = kb.KnucklebonesState(
        phase="finished" if finished else "place",
        turn=turn,
        first_player=0,
        current_player=current,
        die=None if finished else die,
        boards=boards,
        last_move=None if last_move is None else kb.LastMove(**last_move),
        winners=winners or [],
        draw=finished and not winners,
        end_reason=reason if finished else None,
        ended_by=ended_by,
    )
    return kb.public_view(state)


def picture(view: dict[str, Any], players: list[render.Player] = PLAYERS) -> Image.Image:
    png = render.render_board(view, players).png
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


Colour = tuple[int, int, int]


def near(actual: Colour, expected: Colour, tolerance: int = 8) -> bool:
    return all(abs(a - e) <= tolerance for a, e in zip(actual, expected, strict=True))


def pixel(image: Image.Image, x: float, y: float) -> Colour:
    value = image.getpixel((round(x), round(y)))
    assert isinstance(value, tuple)
    return value[0], value[1], value[2]


def die_fill(image: Image.Image, seat: int, column: int, slot: int) -> Colour:
    """The colour of a die's face, sampled between its pips (away from its outline)."""
    left, top, right, bottom = picture_module.die_box(seat, column, slot)
    return pixel(image, left + (right - left) * 3 / 8, top + (bottom - top) / 2 + 1)


def ring_pixel(image: Image.Image, seat: int, column: int, slot: int) -> Colour:
    left, top, right, _ = picture_module.die_box(seat, column, slot)
    return pixel(image, (left + right) / 2, top + 1)


def test_the_picture_has_every_die_with_pairs_and_triples_coloured() -> None:
    boards = [[[2, 2, 5], [6, 6, 6], []], [[1], [], [3, 4]]]
    image = picture(position(boards))
    assert image.size == (picture_module.WIDTH, picture_module.HEIGHT)
    assert near(die_fill(image, 0, 0, 0), palette.PAIR)
    assert near(die_fill(image, 0, 0, 1), palette.PAIR)
    assert near(die_fill(image, 0, 0, 2), palette.DIE_FACE)
    assert all(near(die_fill(image, 0, 1, slot), palette.TRIPLE) for slot in range(3))
    assert near(die_fill(image, 1, 0, 0), palette.DIE_FACE)
    assert near(die_fill(image, 1, 2, 1), palette.DIE_FACE)
    # Empty slots show the tray, not a die.
    assert near(die_fill(image, 0, 2, 0), palette.RAISED)
    assert near(die_fill(image, 1, 1, 0), palette.RAISED)


def band_colours(image: Image.Image, seat: int, column: int) -> set[Colour]:
    """The colours of one column's score row in the band between the grids."""
    left, _, right, _ = picture_module.tray_box(seat, column)
    middle = picture_module.BAND_TOP + picture_module.BAND / 2
    top = middle - 18 if seat == 0 else middle + 2
    row = image.crop((left, round(top), right, round(top + 16)))
    return {pixel(row, x, y) for x in range(row.width) for y in range(row.height)}


def test_pairs_and_triples_carry_a_multiplier_chip_beside_the_column_score() -> None:
    boards = [[[2, 2, 5], [6, 6, 6], []], [[1], [], [3, 4]]]
    image = picture(position(boards))
    assert any(near(c, palette.PAIR, 4) for c in band_colours(image, 0, 0))
    assert any(near(c, palette.TRIPLE, 4) for c in band_colours(image, 0, 1))
    for seat, column in ((0, 2), (1, 0), (1, 2)):
        colours = band_colours(image, seat, column)
        assert not any(near(c, palette.PAIR, 4) or near(c, palette.TRIPLE, 4) for c in colours)
    with text.record() as drawn:
        picture(position(boards))
    chips = [(d.text, d.background) for d in drawn if d.text in ("×2", "×3")]
    assert chips == [("×2", palette.PAIR), ("×3", palette.TRIPLE)]
    alt = render.render_board(position(boards), PLAYERS).alt_text
    assert "column 1: 2, 2, 5 (13, a pair)" in alt and "column 2: 6, 6, 6 (54, a triple)" in alt


def test_the_two_grids_face_each_other_across_the_middle() -> None:
    top_first = picture_module.die_box(0, 0, 0)
    top_last = picture_module.die_box(0, 0, 2)
    bottom_first = picture_module.die_box(1, 0, 0)
    bottom_last = picture_module.die_box(1, 0, 2)
    # Seat 0's first die is its lowest; seat 1's first die is its highest.
    assert top_first[1] > top_last[1]
    assert bottom_first[1] < bottom_last[1]
    assert top_first[3] < bottom_first[1]


def test_the_last_placed_die_has_a_ring() -> None:
    boards = [[[3], [], []], [[], [5, 1], []]]
    last = {"player": 1, "column": 1, "face": 1, "removed": []}
    image = picture(position(boards, last_move=last))
    assert near(ring_pixel(image, 1, 1, 1), palette.ACCENT, 16)
    assert near(ring_pixel(image, 1, 1, 0), palette.DIE_FACE)
    assert near(ring_pixel(image, 0, 0, 0), palette.DIE_FACE)


def test_the_column_that_lost_dice_is_framed_and_shows_crossed_out_ghosts() -> None:
    boards = [[[], [4], []], [[], [3], []]]
    last = {"player": 0, "column": 1, "face": 4, "removed": [4, 4]}
    image = picture(position(boards, current=1, last_move=last))
    left, top, right, _ = picture_module.tray_box(1, 1)
    assert near(pixel(image, (left + right) / 2, top - 1), palette.DANGER, 24)
    left, top, right, _ = picture_module.tray_box(1, 0)
    assert not near(pixel(image, (left + right) / 2, top - 1), palette.DANGER, 60)
    # Two ghosts in the freed slots: the centre of a ghost is on its red cross.
    for slot in (1, 2):
        x0, y0, x1, y1 = picture_module.die_box(1, 1, slot)
        assert near(pixel(image, (x0 + x1) / 2, (y0 + y1) / 2), palette.DANGER, 40)
    x0, y0, x1, y1 = picture_module.die_box(1, 1, 0)
    assert near(die_fill(image, 1, 1, 0), palette.DIE_FACE)


def test_long_and_unusual_names_render_shortened() -> None:
    players = [
        render.Player(0, 11, "A very long display name that keeps going and going 🎲"),
        render.Player(1, 22, "名前\u200b\u202e"),
    ]
    view = position([[[1], [], []], [[], [], [6]]])
    with text.record() as drawn:
        image = picture(view, players)
    assert image.size == (picture_module.WIDTH, picture_module.HEIGHT)
    shown = [d.text for d in drawn if d.size == picture_module.NAME_SIZE]
    assert shown[0].startswith("A very long") and shown[0].endswith("…")
    assert all(d.box[2] <= picture_module.CARD_RIGHT for d in drawn)


def test_a_finished_game_says_who_won_in_words_and_gold() -> None:
    boards = [[[1, 1, 1], [2, 2, 2], [3, 3, 3]], [[4], [], []]]
    view = position(boards, finished=True, winners=[0], reason="normal")
    with text.record() as drawn:
        picture(view)
    wins = [d for d in drawn if "wins" in d.text]
    assert [(d.text, d.ink) for d in wins] == [("★ wins", palette.GOLD)]
    assert render.render_board(view, PLAYERS).alt_text.endswith("alice wins.")


def test_the_player_to_move_is_marked_with_words_and_the_die() -> None:
    view = position([[[1], [], []], [[], [], []]], current=1, die=6)
    with text.record() as drawn:
        picture(view)
    to_place = [d for d in drawn if d.text == "▶ to place"]
    assert len(to_place) == 1
    assert to_place[0].box[1] >= picture_module.CARDS[1][1]  # in bob's card, the bottom one
    assert render.render_board(view, PLAYERS).alt_text.endswith("bob to place a 6.")


def test_status_line_is_one_line_with_the_turn_the_die_and_the_last_move() -> None:
    view = position(
        [[[], [3, 5, 3], []], [[], [5], []]],
        current=1,
        die=2,
        last_move={"player": 0, "column": 1, "face": 3, "removed": [3, 3]},
    )
    line = render.status_line(view, PLAYERS, render.Clock(turn_due_at=1_800_000_300.0))
    assert line == (
        "🎲 <@22> rolled ⚁ **2**: pick a column. Last move: alice put a 3 in column 2, "
        "knocking out two 3s. ⏳ <t:1800000300:R>"
    )
    assert "\n" not in line


def test_status_line_names_the_winner_and_escapes_markdown() -> None:
    players = [render.Player(0, 11, "**bold**__"), render.Player(1, 22, "bob")]
    view = position([[[6], [], []], [[1], [], []]], finished=True, winners=[0], reason="normal")
    assert render.status_line(view, players, render.Clock()).startswith(
        "🏆 **\\*\\*bold\\*\\*\\_\\_** wins, 6–1."
    )


def test_last_move_text_says_what_was_knocked_out() -> None:
    view = position(
        [[[], [3, 5, 3], []], [[], [5], []]],
        current=1,
        last_move={"player": 0, "column": 1, "face": 3, "removed": [3, 3]},
    )
    assert render.last_move_text(view, PLAYERS) == (
        "Last move: alice put a 3 in column 2, knocking out two 3s."
    )
    quiet = position(
        [[[6], [], []], [[], [], []]],
        current=1,
        last_move={"player": 0, "column": 0, "face": 6, "removed": []},
    )
    assert render.last_move_text(quiet, PLAYERS) == "Last move: alice put a 6 in column 1."


def test_result_lines_name_the_winner_with_their_score_first() -> None:
    boards = [[[6], [], []], [[1], [], []]]
    normal = position(boards, finished=True, winners=[0], reason="normal")
    assert render.result_line(normal, PLAYERS) == "🏆 **alice** wins, 6–1."
    forfeit = position(boards, finished=True, winners=[1], reason="forfeit", ended_by=0)
    assert render.result_line(forfeit, PLAYERS) == "🏳️ alice forfeited: **bob** wins, 1–6."
    timeout = position(boards, finished=True, winners=[0], reason="timeout", ended_by=1)
    assert render.result_line(timeout, PLAYERS) == "⌛ bob ran out of time: **alice** wins, 6–1."
    draw = position([[[2], [], []], [[2], [], []]], finished=True, reason="normal")
    assert render.result_line(draw, PLAYERS) == "🤝 Draw, 2–2."


def test_the_boards_are_in_the_alt_text_not_in_the_message() -> None:
    boards = [[[4, 4, 2], [5], []], [[1], [], [6, 6]]]
    view = position(boards, current=1, die=3, turn=9)
    alt = render.render_board(view, PLAYERS).alt_text
    assert "alice (top grid), 23 points. column 1: 4, 4, 2 (18, a pair); column 2: 5 (5);" in alt
    assert "bob (bottom grid), 25 points." in alt and "column 3: 6, 6 (24, a pair)" in alt
    assert alt.endswith("bob to place a 3.")
    line = render.status_line(view, PLAYERS, render.Clock(turn_due_at=1_800_000_300.0))
    assert "\n" not in line and "4, 4, 2" not in line and "[4]" not in line


def test_the_ai_to_move_is_shown_thinking_under_the_bots_own_name() -> None:
    players = [PLAYERS[0], render.Player(1, 99, "Dicebot", is_ai=True)]
    view = position([[[1], [], []], [[], [], []]], current=1, die=5)
    line = render.status_line(view, players, render.Clock(), ai_level="hard")
    assert line == "🤖 **Dicebot** (hard) rolled ⚄ **5** and is thinking…"


def test_warning_mentions_the_player_and_the_deadline() -> None:
    text = render.warning_text(PLAYERS[0], 1_800_000_300.4)
    assert text.startswith("⏰ <@11>, your Knucklebones turn runs out <t:1800000300:R>")


def visible(line: str, names: dict[int, str]) -> str:
    """The status line as Discord shows it: mentions as @name, timestamps in words, no
    markdown marks."""
    line = re.sub(r"<@([0-9]+)>", lambda m: "@" + names[int(m[1])], line)
    line = re.sub(r"<t:[0-9]+:R>", "in 4 minutes", line)
    return line.replace("\\", "").replace("**", "")


def test_the_longest_status_line_fits_a_few_phone_lines() -> None:
    """The message is one line, the picture (231 px tall on a phone) and one row of
    buttons: under one phone screen. The line itself, at its longest (32-character names,
    a knock-out of three, the warning), stays within five lines of a 280 px phone."""
    longest = "W" * 32
    players = [render.Player(0, 11, longest), render.Player(1, 22, "M" * 32)]
    view = position(
        [[[], [4, 4, 4], []], [[], [], []]],
        current=1,
        die=4,
        last_move={"player": 0, "column": 1, "face": 4, "removed": [4, 4, 4]},
    )
    line = render.status_line(view, players, render.Clock(1_800_000_300.0, warned=True))
    shown = visible(line, {11: longest, 22: "M" * 32})
    assert "\n" not in line
    assert len(shown) <= 5 * 40, shown
    finished = position(
        [[[6, 6, 6], [6, 6, 6], [6, 6, 6]], [[1], [], []]],
        finished=True,
        winners=[0],
        reason="normal",
        last_move={"player": 0, "column": 2, "face": 6, "removed": [6, 6, 6]},
    )
    end = visible(render.status_line(finished, players, render.Clock()), {})
    assert end.startswith(f"🏆 {longest} wins, 162–1.") and len(end) <= 5 * 40
