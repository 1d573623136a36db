"""The Knucklebones picture and texts: what a player sees for a given position."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

from cogs import knucklebones_render as render
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


def picture(view: dict[str, Any]) -> Image.Image:
    png = render.render_board_png(view, PLAYERS)
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


Colour = tuple[int, int, int]


def near(actual: Colour, expected: Colour, tolerance: int = 8) -> bool:
    """Colours match, allowing for the small shifts of the picture's fixed palette."""
    return all(abs(a - e) <= tolerance for a, e in zip(actual, expected, strict=True))


def pixel(image: Image.Image, x: int, y: int) -> Colour:
    value = image.getpixel((x, y))
    assert isinstance(value, tuple)
    return value[0], value[1], value[2]


def die_fill(image: Image.Image, seat: int, column: int, slot: int) -> Colour:
    """The colour of a die's face, sampled between its pips (away from its outline)."""
    left, top, _, _ = render.die_box(seat, column, slot)
    return pixel(image, left + render.DIE * 3 // 8, top + render.DIE // 2 + 1)


def edge(image: Image.Image, seat: int, column: int, slot: int) -> Colour:
    left, top, _, _ = render.die_box(seat, column, slot)
    return pixel(image, left + render.DIE // 2, top + 1)


def test_the_picture_has_every_die_with_doubles_and_triples_coloured() -> None:
    boards = [[[2, 2, 5], [6, 6, 6], []], [[1], [], [3, 4]]]
    image = picture(position(boards))
    assert image.size == (render.WIDTH, render.HEIGHT)
    assert near(die_fill(image, 0, 0, 0), render.DOUBLE_FACE)
    assert near(die_fill(image, 0, 0, 1), render.DOUBLE_FACE)
    assert near(die_fill(image, 0, 0, 2), render.DIE_FACE)
    assert all(near(die_fill(image, 0, 1, slot), render.TRIPLE_FACE) for slot in range(3))
    assert near(die_fill(image, 1, 0, 0), render.DIE_FACE)
    assert near(die_fill(image, 1, 2, 1), render.DIE_FACE)
    # Empty slots show the tray, not a die.
    assert near(die_fill(image, 0, 2, 0), render.TRAY)
    assert near(die_fill(image, 1, 1, 0), render.TRAY)


def test_the_two_grids_face_each_other_across_the_middle() -> None:
    top_first = render.die_box(0, 0, 0)
    top_last = render.die_box(0, 0, 2)
    bottom_first = render.die_box(1, 0, 0)
    bottom_last = render.die_box(1, 0, 2)
    # Seat 0's first die is its lowest; seat 1's first die is its highest.
    assert top_first[1] > top_last[1]
    assert bottom_first[1] < bottom_last[1]
    assert top_first[3] < bottom_first[1]


def test_the_last_placed_die_is_outlined() -> None:
    boards = [[[3], [], []], [[], [5, 1], []]]
    last = {"player": 1, "column": 1, "face": 1, "removed": []}
    image = picture(position(boards, last_move=last))
    assert near(edge(image, 1, 1, 1), render.LAST_PLACED)
    assert near(edge(image, 1, 1, 0), render.DIE_FACE)
    assert near(edge(image, 0, 0, 0), render.DIE_FACE)


def test_the_column_that_lost_dice_is_marked() -> None:
    boards = [[[], [4], []], [[], [3], []]]
    last = {"player": 0, "column": 1, "face": 4, "removed": [4, 4]}
    image = picture(position(boards, current=1, last_move=last))
    left, top, _, _ = render.die_box(1, 1, 0)
    # The tray border of bob's column 2 (drawn 4 px around the slots) is red.
    assert near(pixel(image, left + render.DIE // 2, top - 3), render.REMOVED)
    left, top, _, _ = render.die_box(1, 0, 0)
    assert not near(pixel(image, left + render.DIE // 2, top - 3), render.REMOVED)


def test_long_and_unusual_names_render() -> None:
    players = [
        render.Player(0, 11, "A very long display name that keeps going and going 🎲"),
        render.Player(1, 22, "名前\u200b\u202e"),
    ]
    view = position([[[1], [], []], [[], [], [6]]])
    png = render.render_board_png(view, players)
    assert Image.open(io.BytesIO(png)).size == (render.WIDTH, render.HEIGHT)


def test_a_finished_game_renders_its_winner_panel() -> None:
    boards = [[[1, 1, 1], [2, 2, 2], [3, 3, 3]], [[4], [], []]]
    view = position(boards, finished=True, winners=[0], reason="normal")
    image = picture(view)
    panel_left = render.MARGIN + render.GRID_WIDTH + render.MARGIN
    # Somewhere in the panel the gold "WINNER" headline is drawn.
    band = image.crop((panel_left, render.HEIGHT // 2 - 35, render.WIDTH - 20, render.HEIGHT // 2))
    colours = {pixel(band, x, y) for x in range(band.width) for y in range(band.height)}
    assert any(near(colour, render.WINNER) for colour in colours)


def test_text_grid_lists_dice_in_placement_order_with_column_scores() -> None:
    assert render.text_grid([[4, 4, 2], [5], []], [18, 5, 0]) == (
        " C1  C2  C3\n[4] [5] [ ]\n[4] [ ] [ ]\n[2] [ ] [ ]\n 18   5   0"
    )


def test_last_move_text_says_what_was_knocked_out() -> None:
    view = position(
        [[[], [3, 5, 3], []], [[], [5], []]],
        current=1,
        last_move={"player": 0, "column": 1, "face": 3, "removed": [3, 3]},
    )
    assert render.describe_last_move(view, PLAYERS) == (
        "alice put a **3** in column 2 and knocked out two 3s from bob's column 2."
    )
    quiet = position(
        [[[6], [], []], [[], [], []]],
        current=1,
        last_move={"player": 0, "column": 0, "face": 6, "removed": []},
    )
    assert render.describe_last_move(quiet, PLAYERS) == (
        "alice put a **6** in column 1, knocking nothing out."
    )


def test_end_texts() -> None:
    boards = [[[6], [], []], [[1], [], []]]
    normal = position(boards, finished=True, winners=[0], reason="normal")
    assert render.describe_end(normal, PLAYERS) == "🏆 **alice wins**, 6–1."
    forfeit = position(boards, finished=True, winners=[1], reason="forfeit", ended_by=0)
    assert render.describe_end(forfeit, PLAYERS) == "🏳️ alice forfeited: **bob wins** (6–1)."
    timeout = position(boards, finished=True, winners=[0], reason="timeout", ended_by=1)
    assert render.describe_end(timeout, PLAYERS) == "⌛ bob ran out of time: **alice wins** (6–1)."
    draw = position([[[2], [], []], [[2], [], []]], finished=True, reason="normal")
    assert render.describe_end(draw, PLAYERS) == "🤝 **Draw**, 2–2."


def test_the_embed_has_both_boards_scores_breakdown_and_the_die() -> None:
    boards = [[[4, 4, 2], [5], []], [[1], [], [6, 6]]]
    view = position(boards, current=1, die=3, turn=9)
    clock = render.Clock(turn_due_at=1_800_000_300.0, warned=True)
    rendered = render.render_game(view, PLAYERS, clock)
    embed = rendered.embed
    assert embed.image.url == "attachment://board.png"
    assert "**Turn 9**: bob rolled ⚂ **3**." in (embed.description or "")
    assert "Turn ends <t:1800000300:R>" in (embed.description or "")
    assert "bob is running out of time" in (embed.description or "")
    fields = {field.name: field.value for field in embed.fields}
    assert fields["alice: 23"].startswith("18 + 5 + 0 = 23\n```")
    assert fields["bob: 25 ◀"].startswith("1 + 0 + 24 = 25\n```")
    assert "[6]" in fields["bob: 25 ◀"]
    assert rendered.content == "🎲 <@22>, your turn: you rolled a **3**. Pick a column."
    assert embed.footer.text == "alice went first"
    assert rendered.png.startswith(b"\x89PNG")


def test_the_ai_to_move_is_shown_thinking() -> None:
    players = [PLAYERS[0], render.Player(1, 99, "Dicebot AI (easy)", is_ai=True)]
    view = position([[[1], [], []], [[], [], []]], current=1)
    assert render.build_content(view, players) == "🤖 Dicebot AI (easy) is thinking…"


def test_warning_mentions_the_player_and_the_deadline() -> None:
    text = render.warning_text(PLAYERS[0], 1_800_000_300.4)
    assert text.startswith("⏰ <@11>, your Knucklebones turn runs out <t:1800000300:R>")
