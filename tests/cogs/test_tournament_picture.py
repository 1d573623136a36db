"""The tournament's pictures (cogs/tournament/picture.py): the bracket's pages and the Swiss
standings, drawn for real events with names in many scripts in every shipped language:
sizes Discord shows pixel for pixel, text that fits its slot at 14 px or more, contrast,
the winner marked by more than colour, and alt text that says the same."""

from __future__ import annotations

import io
import pickle
import random
from collections.abc import Iterator

import pytest
import test_picture_text_fits as fits
from PIL import Image

from bot import i18n
from bot.pictures import contrast, text, worker
from bot.pictures.picture import ALT_TEXT_LIMIT, DESKTOP_BOX, MIN_TEXT_PX, Picture
from cogs.tournament import picture as tp
from game_core.tournament import (
    Format,
    Tournament,
    advance_round,
    bracket_size,
    record_result,
    start_tournament,
    withdraw,
)

# Scripts and emoji of every kind, and the widest names that are never cut in the bracket.
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
    "W" * 16,
    "Ш" * 16,
    "龍" * 16,
    "Sir Reginald Fox",
    "Christopher Alexander Montgomery",
]
TITLE = "Spring Cup 🎲"


def names_for(count: int) -> dict[int, str]:
    """Distinct names for players 1..count: the list, then its names cut to ten characters
    with a number (16 wide letters and a number would be wider than 16 letters)."""
    return {
        player: NAMES[player - 1]
        if player <= len(NAMES)
        else f"{NAMES[(player - 1) % len(NAMES)][:10]} {player}"
        for player in range(1, count + 1)
    }


def event(fmt: Format, players: int, rounds: int, seed: int, best_of: int = 1) -> Tournament:
    """An event after ``rounds`` rounds of random results, with every way a match can end."""
    rng = random.Random(seed)
    tournament = start_tournament(
        fmt, list(range(1, players + 1)), best_of=best_of, swiss_rounds=None, rng_seed=seed
    )
    for played in range(rounds):
        for pairing in tournament.pending_pairings():
            roll = rng.random()
            winner = rng.choice(pairing.players)
            if roll < 0.1:
                tournament = withdraw(tournament, next(p for p in pairing.players if p != winner))
            elif roll < 0.2:
                tournament = record_result(tournament, pairing.table, winner, outcome="timeout")
            elif roll < 0.3:
                tournament = record_result(tournament, pairing.table, winner, outcome="forfeit")
            else:
                score = (2, 1) if winner == pairing.first else (1, 2)
                tournament = record_result(
                    tournament, pairing.table, winner, score=score if best_of == 3 else None
                )
        if tournament.finished or played == rounds - 1:
            break
        tournament = advance_round(tournament)
    return tournament


def events() -> Iterator[tuple[str, Tournament]]:
    yield "6 players at the start", event(Format.SINGLE_ELIMINATION, 6, 0, 1)
    yield "8 players finished", event(Format.SINGLE_ELIMINATION, 8, 3, 2, best_of=3)
    yield "13 players, round 2", event(Format.SINGLE_ELIMINATION, 13, 2, 3)
    yield "32 players, round 3", event(Format.SINGLE_ELIMINATION, 32, 3, 4)
    yield "32 players finished", event(Format.SINGLE_ELIMINATION, 32, 5, 5)
    yield "Swiss 7, round 2", event(Format.SWISS, 7, 2, 6)
    yield "Swiss 12 finished", event(Format.SWISS, 12, 4, 7, best_of=3)
    yield "Swiss 32 finished", event(Format.SWISS, 32, 5, 8)


def drawn(tournament: Tournament, names: dict[int, str]) -> list[tuple[Picture, list[text.Drawn]]]:
    """Each picture of the event with the text drawn on it (pages drawn one at a time)."""
    with text.record() as pieces:
        pictures = tp.render_event(tournament, names, TITLE)
    # Split the record by picture: each page starts again with the event's title.
    starts = [index for index, piece in enumerate(pieces) if piece.wanted == TITLE]
    assert len(starts) == len(pictures)
    bounds = [*starts, len(pieces)]
    return [
        (picture, pieces[bounds[index] : bounds[index + 1]])
        for index, picture in enumerate(pictures)
    ]


@pytest.mark.parametrize("language", sorted(i18n.LANGUAGES))
def test_every_page_fits_its_text_in_every_language(language: str) -> None:
    checked = 0
    with i18n.use(language):
        for what, tournament in events():
            names = names_for(len(tournament.players))
            for index, (picture, pieces) in enumerate(drawn(tournament, names)):
                shown = sorted({piece.wanted for piece in pieces if piece.name} - {TITLE})
                # In the slot, in the picture, 14 px or more as shown, nothing overlapping,
                # no word lost, names cut only past 16 characters and whole in the alt text.
                fits.check_picture(f"{language} {what} {index}", picture, pieces, [TITLE, *shown])
                for piece in pieces:
                    assert contrast.ratio(piece.ink, piece.background) >= 4.5, piece.text
                    assert piece.found_under == {piece.background}, (what, piece.text)
                checked += 1
    assert checked == 1 + 1 + 3 + 5 + 5 + 1 + 2 + 3


def test_pictures_are_shown_pixel_for_pixel_and_pages_cover_the_bracket() -> None:
    for _what, tournament in events():
        for picture in tp.render_event(tournament, names_for(len(tournament.players)), TITLE):
            box_width, box_height = DESKTOP_BOX[picture.shown]
            assert picture.width <= box_width and picture.height <= box_height
            assert picture.scale == 1.0 and picture.width > picture.height
            image = Image.open(io.BytesIO(picture.png))
            assert image.format == "PNG" and image.size == (picture.width, picture.height)
            assert 20 < len(picture.alt_text) <= ALT_TEXT_LIMIT
    for players, pages in ((2, 1), (4, 1), (6, 1), (8, 1), (9, 3), (16, 3), (17, 5), (32, 5)):
        rounds = bracket_size(players).bit_length() - 1
        found = tp.bracket_pages(rounds)
        assert len(found) == pages
        # Every match of the bracket on exactly one page.
        shown = [
            (page.first_round + column, table)
            for page in found
            for column in range(page.rounds)
            for table in page.tables(column)
        ]
        every = [(r, t) for r in range(1, rounds + 1) for t in range(1, (1 << (rounds - r)) + 1)]
        assert sorted(shown) == every
    # Eleven rows a page of standings: 32 players, three pictures.
    assert [p.height <= 350 for p in tp.render_event(event(Format.SWISS, 32, 1, 1), names_for(32),
                                                      TITLE)] == [True] * 3  # fmt: skip


def test_the_six_player_bracket_in_pictures_and_words() -> None:
    tournament = start_tournament(
        Format.SINGLE_ELIMINATION, [1, 2, 3, 4, 5, 6], best_of=1, swiss_rounds=None, rng_seed=0
    )
    names = {1: "Ann", 2: "Bo", 3: "Cy", 4: "Dee", 5: "Eve", 6: "Flo"}
    tournament = record_result(tournament, 2, 5, outcome="timeout")
    with text.record() as pieces:
        [picture] = tp.render_event(tournament, names, "Cup")
    said = [piece.text for piece in pieces]
    assert "● Quarterfinals" in said and "Semifinals" in said and "Final" in said
    assert said.count("bye") == 2 and said.count("✓") == 3  # two byes and Eve's win
    assert "⏱" in said  # Dee lost on time
    # Eve moved on at once: she is in the semifinal beside Ann, who had a bye.
    assert said.index("Ann") < said.index("Eve")
    assert picture.alt_text == (
        "Cup: Single elimination · one game a match, Round 1 of 3. Quarterfinals: Ann has a "
        "bye; Eve beat Dee on time; Bo has a bye; Cy against Flo, to play. Semifinals: Ann "
        "against Eve, to play; Bo waits for an opponent."
    )


def test_the_winner_is_marked_by_more_than_colour() -> None:
    tournament = event(Format.SINGLE_ELIMINATION, 4, 2, 3)
    assert tournament.finished and tournament.winner is not None
    names = names_for(4)
    with text.record() as pieces:
        [picture] = tp.render_event(tournament, names, TITLE)
    champion = names[tournament.winner]
    stars = [piece for piece in pieces if piece.text == "★"]
    assert stars and stars[0].ink == tp.colours.GOLD
    # The star sits right before the winner's name in the header.
    header_name = next(p for p in pieces if p.wanted == champion and p.box[1] < tp.HEADER)
    assert stars[0].box[2] <= header_name.box[0]
    assert f"{champion} won the event." in picture.alt_text
    swiss = event(Format.SWISS, 5, 3, 4)
    with text.record() as pieces:
        [table] = tp.render_event(swiss, names_for(5), TITLE)
    assert any(piece.text == "★ 1" for piece in pieces)
    assert "Ranking: points, then Buchholz (the opponents' points), then head-to-head, then " \
        "seed." in table.alt_text  # fmt: skip


def test_a_name_too_wide_is_shortened_in_the_bracket_and_whole_in_the_alt_text() -> None:
    names = {1: "🎲" * 16, 2: "Bo", 3: "Cy", 4: "Dee"}
    tournament = start_tournament(
        Format.SINGLE_ELIMINATION, [1, 2, 3, 4], best_of=1, swiss_rounds=None, rng_seed=0
    )
    with text.record() as pieces:
        [picture] = tp.render_event(tournament, names, TITLE)
    drawn_name = next(piece for piece in pieces if piece.wanted == names[1])
    assert drawn_name.cut and drawn_name.text.endswith("…")
    assert drawn_name.size >= MIN_TEXT_PX
    assert names[1] in picture.alt_text
    # The standings have room for it whole.
    swiss = start_tournament(Format.SWISS, [1, 2, 3, 4], best_of=1, swiss_rounds=None, rng_seed=0)
    with text.record() as pieces:
        tp.render_event(swiss, names, TITLE)
    assert not next(piece for piece in pieces if piece.wanted == names[1]).cut


@pytest.mark.parametrize("language", sorted(i18n.TRANSLATED))
def test_the_alt_text_speaks_the_pictures_language(language: str) -> None:
    tournament = event(Format.SWISS, 7, 3, 2)
    names = names_for(7)
    english = tp.render_event(tournament, names, TITLE)[0].alt_text
    with i18n.use(language):
        translated = tp.render_event(tournament, names, TITLE)[0].alt_text
        assert translated != english
        assert tp.tie_break_text(Format.SWISS) in translated
    for name in names.values():
        assert name in translated


def test_a_long_event_keeps_its_alt_text_within_discords_limit() -> None:
    names = {player: "Christopher Alexander Montgomery"[:31] + chr(0x41 + player % 26)
             for player in range(1, 33)}  # fmt: skip
    for tournament in (event(Format.SWISS, 32, 5, 1), event(Format.SINGLE_ELIMINATION, 32, 2, 1)):
        for picture in tp.render_event(tournament, names, "W" * 60):
            assert len(picture.alt_text) <= ALT_TEXT_LIMIT


def test_cue_and_text_contrast() -> None:
    for cue, (colour, against) in tp.CUES.items():
        assert contrast.ratio(colour, against) >= contrast.CUE_MINIMUM, cue
    for ink, background in tp.TEXT_PAIRS:
        assert contrast.ratio(ink, background) >= contrast.TEXT_MINIMUM, (ink, background)


async def test_drawn_on_the_picture_worker_in_the_callers_language() -> None:
    tournament = event(Format.SINGLE_ELIMINATION, 6, 1, 1)
    names = names_for(6)
    # What the helper process is sent: the function, the event and the names, pickled.
    assert pickle.loads(pickle.dumps(tournament)) == tournament
    with i18n.use("de"):
        pictures = await worker.draw(tp.render_event, tournament, names, TITLE)
        assert pictures[0].png == tp.render_event(tournament, names, TITLE)[0].png
    assert "Viertelfinale" in pictures[0].alt_text
