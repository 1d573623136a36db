"""Every picture, drawn for real game states with names in many scripts: each glyph is
covered by the font that draws it, text and cues meet their contrast, alt text is there."""

from __future__ import annotations

import importlib.util
import io
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot import i18n
from bot.model.contract import stopped_text
from bot.pictures import contrast, text
from bot.pictures import palette as colours
from bot.pictures.picture import ALT_TEXT_LIMIT, DESKTOP_BOX, Picture, shown_scale
from cogs.admin import CANCEL_REASON
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

# Accented Latin, Cyrillic, CJK (Chinese, Japanese, Korean), emoji with joiners, skin tones
# and flags, right-to-left, an Indic conjunct, Thai, and nickname "fancy letters".
NAMES = [
    "José Ñúñez",
    "Дмитрий",
    "田中太郎",
    "さくら",
    "김민준",
    "👩‍👩‍👧 fam 🇫🇷",
    "Zoë 👍🏽 🎲",
    "أحمد",
    "שרה",
    "अर्जुन",
    "สมชาย",
    "𝓙𝓸𝓼𝓮 ✨",
]
PAIRS = [(NAMES[i], NAMES[(i + 1) % len(NAMES)]) for i in range(0, len(NAMES), 2)]


def drawn_pictures() -> list[tuple[str, Picture, list[text.Drawn]]]:
    """Every screenshot state, with each pair of names and a full table of names."""
    found = []
    kb_views = [screenshots._knucklebones(9, 7), screenshots._knucklebones_finished(11)]
    duel_views = [screenshots._duel(turns, 1) for turns in (0, 3, 40)]
    table_views = [screenshots._weighted(stage, 4) for stage in ("setup", "betting", "finished")]
    for first, second in PAIRS:
        for view in kb_views:
            with text.record() as drawn:
                found.append(
                    (
                        "knucklebones",
                        knucklebones_picture.render_board(view, (first, second)),
                        drawn,
                    )
                )
        for view in duel_views:
            with text.record() as drawn:
                found.append(("duel", duel_picture.render_duel(view, (first, second)), drawn))
    for offset in (0, 4):
        names = (NAMES[offset:] + NAMES[:offset])[:8]
        for view in table_views:
            with text.record() as drawn:
                found.append(("weighted", weighted_picture.render_table(view, names), drawn))
    with text.record() as drawn:
        found.append(
            ("odds", odds_picture.render_diceman_picture(odds_figures.diceman_figures()), drawn)
        )
    return found


@pytest.fixture(scope="module")
def pictures() -> list[tuple[str, Picture, list[text.Drawn]]]:
    return drawn_pictures()


def test_every_glyph_is_covered_by_the_font_that_draws_it(pictures: list[Any]) -> None:
    runs = 0
    for game, _, drawn in pictures:
        for piece in drawn:
            for run in piece.runs:
                runs += 1
                missing = [
                    f"U+{ord(c):04X}"
                    for c in run.text
                    if ord(c) not in run.face.coverage and not 0xFE00 <= ord(c) <= 0xFE0F
                ]
                assert not missing, (game, piece.text, run.face.name, missing)
                assert text.REPLACEMENT not in run.text, (game, piece.text)
    assert runs > 500


def test_every_name_is_drawn_in_full_or_shortened_with_an_ellipsis(pictures: list[Any]) -> None:
    shown = {piece.text for _, _, drawn in pictures for piece in drawn}
    for name in NAMES:
        assert any(s == name or (s.endswith("…") and name.startswith(s[:-1])) for s in shown), name


def test_names_in_each_script_use_the_font_made_for_it() -> None:
    def fonts(name: str) -> set[str]:
        return {run.face.name for run in text.line(name, 20, "bold").runs}

    assert fonts("José Ñúñez") == {"NotoSans-Bold.ttf"}
    assert fonts("Дмитрий") == {"NotoSans-Bold.ttf"}
    assert fonts("田中太郎") == {"DroidSansFallback.ttf"}
    assert fonts("김민준") == {"DroidSansFallback.ttf"}
    assert fonts("أحمد") == {"NotoSansArabic-Regular.ttf"}
    assert fonts("अर्जुन") == {"NotoSansDevanagari-Regular.ttf"}
    assert fonts("👩‍👩‍👧") == {"NotoColorEmoji-32px.ttf"}
    # A family (three people joined by zero-width joiners) is one cluster, one picture.
    assert text.clusters("👩‍👩‍👧🇫🇷👍🏽") == ["👩‍👩‍👧", "🇫🇷", "👍🏽"]


def test_right_to_left_names_read_right_to_left() -> None:
    # "أحمد 🙂": the Arabic comes first in memory and is shown on the right of the emoji.
    shown = [run.face.name for run in text.line("أحمد 🙂", 20).runs]
    assert shown[0] == "NotoColorEmoji-32px.ttf" and shown[-1] == "NotoSansArabic-Regular.ttf"


def test_a_character_no_font_has_shows_as_a_replacement_not_a_box() -> None:
    runs = text.runs("a\U00013000b", "regular")  # an Egyptian hieroglyph
    assert "".join(run.text for run in runs) == "a\ufffdb"


def test_text_contrast_and_backgrounds(pictures: list[Any]) -> None:
    checked = 0
    for game, _, drawn in pictures:
        for piece in drawn:
            assert contrast.ratio(piece.ink, piece.background) >= contrast.TEXT_MINIMUM, (
                game,
                piece.text,
            )
            # The declared background is what is really under the text.
            assert piece.found_under == {piece.background}, (game, piece.text, piece.found_under)
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("module", [knucklebones_picture, duel_picture, weighted_picture])
def test_cue_contrast(module: Any) -> None:
    for cue, (colour, against) in module.CUES.items():
        assert contrast.ratio(colour, against) >= contrast.CUE_MINIMUM, cue
    for ink, background in module.TEXT_PAIRS:
        assert contrast.ratio(ink, background) >= contrast.TEXT_MINIMUM, (ink, background)


def test_the_palette_meets_its_own_promises() -> None:
    for surface in (colours.BACKGROUND, colours.SURFACE):
        for ink in (colours.TEXT, colours.MUTED):
            assert contrast.ratio(ink, surface) >= contrast.TEXT_MINIMUM
    assert contrast.ratio(colours.OUTLINE, colours.RAISED) >= contrast.CUE_MINIMUM


def test_every_picture_has_alt_text_within_discords_limit(pictures: list[Any]) -> None:
    for game, picture, _ in pictures:
        assert 20 < len(picture.alt_text) <= ALT_TEXT_LIMIT, game
        image = Image.open(io.BytesIO(picture.png))
        assert image.format == "PNG" and image.size == (picture.width, picture.height)
        assert picture.file().description == picture.alt_text


def test_pictures_are_shown_pixel_for_pixel_on_a_desktop() -> None:
    # Within the box Discord's desktop client shows them in (550 × 350 for an attachment,
    # 400 × 300 for an embed's image), so a size drawn is the size read; landscape.
    for name, picture in screenshots.pictures().items():
        box_width, box_height = DESKTOP_BOX[picture.shown]
        assert picture.width <= box_width and picture.height <= box_height, name
        assert picture.scale == 1.0 and picture.width > picture.height, name
    assert shown_scale(1100, 700) == 0.5 and shown_scale(800, 300, "embed") == 0.5


def test_the_duel_picture_never_shows_a_choice_before_the_reveal() -> None:
    rng = random.Random(2)
    state, _ = dd.new_game(rng, mode="tactical")
    before = duel_picture.render_duel(dd.public_view(state), ("ann", "bob"))
    choice = {"type": "choose", "player": 0, "device": "kaon", "region": "extremities",
              "function": "intensifier"}  # fmt: skip
    state, _ = dd.apply(state, choice, rng)
    after = duel_picture.render_duel(dd.public_view(state), ("ann", "bob"))
    # A locked-in choice changes nothing in the picture or its alt text.
    assert after.png == before.png and after.alt_text == before.alt_text


def test_a_twelve_seat_table_grows_to_fit_every_seat() -> None:
    rng = random.Random(9)
    state, _ = wd.new_game(12, rng)
    names = [f"Player {n}" for n in range(12)]
    with text.record() as drawn:
        picture = weighted_picture.render_table(wd.public_view(state), names)
    assert picture.height == weighted_picture.height_for(12) > 300
    assert {f"Player {n}" for n in range(12)} <= {piece.text for piece in drawn}
    assert all(piece.box[3] <= picture.height - weighted_picture.MARGIN for piece in drawn)


@pytest.mark.parametrize("language", sorted(i18n.LANGUAGES))
def test_a_stopped_games_picture_says_so_instead_of_whose_turn_it_is(language: str) -> None:
    """After /dicebot cancel or /weighted end, each picture is drawn as the game stood:
    nobody to move, and its alt text says it was stopped, in the game's language."""
    names = ("Ann", "Bob")
    with i18n.use(language):
        stopped = stopped_text(i18n._(CANCEL_REASON))
        board = screenshots._knucklebones(9, 7)
        turn = i18n._("{player} to place a {face}.").format(
            player=names[board["current_player"]], face=i18n.number(board["die"])
        )
        duel = screenshots._duel(3, 1)
        attack = i18n._("Turn {turn}: {player} attacks.").format(
            turn=i18n.number(duel["turn"]), player=names[duel["attacker"]]
        )
        table = screenshots._weighted("setup", 4)
        seats = list(screenshots.TABLE)
        house = i18n._("{house}, the house, picks the rollers.").format(house=seats[table["house"]])
        for running, halted, announced in (
            (
                knucklebones_picture.render_board(board, names),
                knucklebones_picture.render_board(board, names, stopped),
                turn,
            ),
            (
                duel_picture.render_duel(duel, names),
                duel_picture.render_duel(duel, names, stopped),
                attack,
            ),
            (
                weighted_picture.render_table(table, seats),
                weighted_picture.render_table(table, seats, stopped),
                house,
            ),
        ):
            assert announced in running.alt_text
            assert announced not in halted.alt_text and stopped in halted.alt_text
            assert halted.png != running.png
