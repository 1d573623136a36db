"""Every picture's text fits, in every shipped language, with the longest names.

Each picture (the four games' and the /odds table) is drawn for real game states in every
language of ``bot.i18n.LANGUAGES`` (a language added there is checked with no change here)
with the longest names a player can have, and every line of text is measured as drawn,
with the fonts it is drawn with, against the slot its picture gave it
(``bot.pictures.text.Drawn``). Nothing may leave its slot or the picture, overlap another
text, be drawn under 14 px at the size Discord shows the picture on a desktop, or lose any
of its words or numbers; a name is cut only past 16 visible characters, and its alt text
always has it whole.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot import i18n
from bot.model.contract import STOPPED_BY_ADMIN, stopped_text
from bot.pictures import text
from bot.pictures.picture import MIN_TEXT_PX, Picture, shown_scale
from cogs.dimension_duel import picture as duel_picture
from cogs.knucklebones import picture as knucklebones_picture
from cogs.odds import figures as odds_figures
from cogs.odds import picture as odds_picture
from cogs.weighted_dice import picture as weighted_picture
from game_core import dimension_duel as dd
from game_core import weighted_dice as wd

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("screenshots", ROOT / "tools" / "screenshots.py")
assert spec is not None and spec.loader is not None
screenshots = importlib.util.module_from_spec(spec)
sys.modules["screenshots"] = screenshots
spec.loader.exec_module(screenshots)

# The longest names: 16 visible characters (what is never cut) of the widest letters of
# Latin, Cyrillic and CJK, of emoji, and of words with spaces; and Discord's longest display
# names (32 characters), which may be cut after their 16th.
LONGEST_NAMES = (
    "W" * 16,
    "Ш" * 16,
    "龍" * 16,
    "🎲" * 16,
    "Sir Reginald Fox",
    "Christopher Alexander Montgomery",
    "W" * 32,
)
PAIRS = [
    (LONGEST_NAMES[i], LONGEST_NAMES[(i + 1) % len(LONGEST_NAMES)])
    for i in range(len(LONGEST_NAMES))
]


def seated(count: int) -> list[str]:
    return [LONGEST_NAMES[index % len(LONGEST_NAMES)] for index in range(count)]


def weighted_game(seats: int, stage: str, seed: int) -> dict[str, Any]:
    """A Weighted Dice table of ``seats`` at its house's setup, with one bet still to come,
    or finished (bets as large as they go, so points reach three digits)."""
    rng = random.Random(seed)
    state, _ = wd.new_game(seats, rng)
    if stage == "setup":
        return wd.public_view(state)
    while True:
        others = [s for s in range(seats) if s != state.house and state.active[s]]
        rollers = rng.sample(others, 2)
        setup = {"type": "setup", "player": state.house, "rollers": rollers,
                 "dice": [rng.choice(wd.DICE), rng.choice(wd.DICE)]}  # fmt: skip
        state, _ = wd.apply(state, setup, rng)
        bettors = wd.to_act(state)
        for index, seat in enumerate(bettors):
            if stage == "betting" and index == len(bettors) - 1 and state.round >= 2:
                return wd.public_view(state)
            # Large bets: three-digit points soon, and a game that ends.
            amount = max(1, state.scores[seat] // (2 if stage == "betting" else 1))
            bet = {"type": "bet", "player": seat, "roller": rng.randint(0, 1), "amount": amount}
            state, _ = wd.apply(state, bet, rng)
            if wd.is_finished(state) or state.phase != "betting":
                break
        if wd.is_finished(state):
            return wd.public_view(state)


def classic_duel(turns: int, seed: int) -> dict[str, Any]:
    """A classic-mode duel after ``turns`` turns (the dice choose every move)."""
    rng = random.Random(seed)
    state, _ = dd.new_game(rng, mode="classic")
    for _turn in range(turns):
        if state.phase == "finished":
            break
        for player in (0, 1):
            state, _ = dd.apply(state, {"type": "roll", "player": player}, rng)
    return dd.public_view(state)


Draw = Callable[[], Picture]


def every_picture() -> Iterator[tuple[str, Draw, Sequence[str]]]:
    """(what, how to draw it, the names it shows) for every picture and state."""
    stopped = stopped_text(STOPPED_BY_ADMIN)
    boards = [screenshots._knucklebones(9, 7), screenshots._knucklebones_finished(11)]
    duels = [screenshots._duel(turns, 1) for turns in (0, 3, 40)]
    duels += [classic_duel(turns, seed) for turns, seed in ((1, 5), (4, 6), (60, 7))]
    for names in PAIRS:
        for board in boards:
            yield (
                "knucklebones",
                lambda b=board, n=names: knucklebones_picture.render_board(b, n),
                names,
            )
        yield (
            "knucklebones stopped",
            lambda n=names: knucklebones_picture.render_board(boards[0], n, stopped),
            names,
        )
        for duel in duels:
            yield "duel", lambda d=duel, n=names: duel_picture.render_duel(d, n), names
        yield "duel stopped", lambda n=names: duel_picture.render_duel(duels[1], n, stopped), names
    for seats in (5, 8, 12):
        names = seated(seats)
        for stage in ("setup", "betting", "finished"):
            table = weighted_game(seats, stage, seed=seats)
            yield (
                f"weighted {seats} {stage}",
                lambda t=table, n=names: weighted_picture.render_table(t, n),
                names,
            )
        table = weighted_game(seats, "betting", seed=seats)
        yield (
            f"weighted {seats} stopped",
            lambda t=table, n=names: weighted_picture.render_table(t, n, stopped),
            names,
        )
    figures = odds_figures.diceman_figures()
    yield "odds", lambda: odds_picture.render_diceman_picture(figures), ()


def overlaps(first: text.Drawn, second: text.Drawn) -> bool:
    a, b = first.box, second.box
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def check_picture(
    what: str, picture: Picture, drawn: list[text.Drawn], names: Sequence[str]
) -> None:
    assert drawn, what
    scale = picture.scale
    for piece in drawn:
        where = f"{what}: {piece.wanted!r} as {piece.text!r}"
        left, top, right, bottom = piece.slot
        # Inside its slot and the picture, measured on the ink as drawn.
        assert left <= piece.box[0] and piece.box[2] <= right, f"{where} leaves its slot sideways"
        assert top <= piece.box[1] and piece.box[3] <= bottom, f"{where} leaves its slot's height"
        assert piece.box[0] >= 0 and piece.box[2] <= picture.width, where
        assert piece.box[1] >= 0 and piece.box[3] <= picture.height, where
        # 14 px or more where Discord shows it.
        assert piece.size * scale >= MIN_TEXT_PX, f"{where} is {piece.size * scale:.1f} px"
        if piece.name:
            wanted = text.clusters(" ".join(piece.wanted.split()))
            if piece.cut:
                # Only a name longer than 16 clusters, and then its first 16 are shown.
                assert len(wanted) > text.NAME_CLUSTERS, f"{where} cut at 16 or fewer"
                assert "".join(piece.lines) == text.short_name(piece.wanted).replace(" ", "") or (
                    " ".join(piece.lines) == text.short_name(piece.wanted)
                ), where
        else:
            # Every word and number of any other text is drawn.
            assert not piece.cut, f"{where} lost some of its words"
        # (Any space, a no-break one too, is drawn as a plain space.)
        if not piece.cut:
            assert "".join("".join(piece.lines).split()) == "".join(piece.wanted.split()), where
    for index, piece in enumerate(drawn):
        for other in drawn[index + 1 :]:
            assert not overlaps(piece, other), f"{what}: {piece.text!r} overlaps {other.text!r}"
    # Every name drawn whole or cut after 16 characters, and whole in the alt text.
    drawn_names = {piece.wanted for piece in drawn if piece.name}
    for name in names:
        assert name in picture.alt_text, f"{what}: {name!r} is not whole in the alt text"
    assert drawn_names <= set(names), what


@pytest.mark.parametrize("language", sorted(i18n.LANGUAGES))
def test_every_picture_fits_its_text_in_every_language_with_the_longest_names(
    language: str,
) -> None:
    pictures = 0
    with i18n.use(language):
        for what, make, names in every_picture():
            with text.record() as drawn:
                picture = make()
            check_picture(f"{language} {what}", picture, drawn, names)
            pictures += 1
    assert pictures > 60


def test_the_check_finds_text_that_leaves_its_slot_or_is_too_small() -> None:
    """What the test above relies on: a slot too narrow, a picture Discord shows smaller."""
    from PIL import Image

    image = Image.new("RGB", (300, 100), (0, 0, 0))
    with text.record() as drawn:
        text.draw_text(image, (10, 50), "Turn 12", 14, (255, 255, 255), (0, 0, 0),
                       slot=(10, 30, 40, 70))  # fmt: skip
    cut = Picture(b"png", "alt", "x.png", 300, 100)
    with pytest.raises(AssertionError, match="lost some of its words"):
        check_picture("narrow", cut, drawn, ())
    with text.record() as drawn:
        text.draw_text(image, (10, 50), "Turn 12", 14, (255, 255, 255), (0, 0, 0),
                       slot=(10, 30, 290, 70))  # fmt: skip
    check_picture("roomy", cut, drawn, ())
    shrunk = Picture(b"png", "alt", "x.png", 1100, 100)
    assert shrunk.scale == shown_scale(1100, 100) == 0.5
    with pytest.raises(AssertionError, match=r"is 7\.0 px"):
        check_picture("shown at half", shrunk, drawn, ())


@pytest.mark.parametrize(
    ("name", "room", "shown"),
    [
        ("Sir Reginald Fox", 100, "Sir Reginald Fox"),
        ("🎲" * 16, 200, "🎲" * 16),
        ("👩‍👩‍👧" * 16, 200, "👩‍👩‍👧" * 16),  # a family is one character, joiners and all
        ("Christopher Alexander", 300, "Christopher Alexander"),
        ("Christopher Alexander", 120, "Christopher Alex…"),
        ("e\u0301" * 17, 100, "e\u0301" * 16 + "…"),  # an accent is part of its letter
    ],
)
def test_a_name_is_cut_only_past_16_characters(name: str, room: int, shown: str) -> None:
    # Each room too narrow for the name at its size: smaller, then narrowed, then cut.
    fitted = text.fit_lines(name, 21, MIN_TEXT_PX, room, "bold", 1, name=True)
    assert fitted.lines == (shown,)
    assert fitted.cut == (shown != name)
    assert fitted.size >= MIN_TEXT_PX and fitted.squeeze >= text.NAME_SQUEEZE
    assert text.line(shown, fitted.size, "bold", fitted.squeeze).span <= room


def test_other_words_take_a_second_line_rather_than_lose_a_number() -> None:
    # The Spanish duel card's role, which used to end "defiende en el turno…".
    role = "Kaon · defiende en el turno 12"
    fitted = text.fit_lines(role, 14, 14, 150, "regular", 2)
    assert " ".join(fitted.lines) == role and not fitted.cut and len(fitted.lines) == 2
