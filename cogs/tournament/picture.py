"""A tournament as pictures: the single-elimination bracket, or the Swiss standings, with
alt text that says the same in words.

Drawn from the pure ``game_core.tournament.Tournament`` and the players' display names,
on the picture worker like the games' pictures (the cog hands it ``cogs.tournament.render.
render_event``, which calls ``render_event`` here). Every picture is at most 550 × 350,
the box Discord's desktop client shows an attachment in without scaling it
(``bot.pictures.picture.DESKTOP_BOX``), so every text, drawn at 14 px or more, is read at
that size.

A whole event does not fit one such picture at 14 px from 9 players on, so an event is a
few pictures, sent together (a message takes up to 10 attachments):

- The bracket in pages of at most three rounds and eight players in its first column:
  up to 8 players, one page; 16, the two halves' first three rounds and the final; 32, the
  four quarters' first three rounds and the last two rounds. A page draws each match as a
  card of two rows joined to the match its winner goes on to. The winner is marked by a
  "✓" and bright ink, the loser dimmed, with a sign for how a match ended without being
  played out (⏱ lost on time, ⚑ forfeited, ✕ withdrew), keyed under the bracket (names
  are never bold: 16 wide letters fit). A bye says "bye"; a place not decided yet shows
  "—"; the current round's heading has a "●".
- The Swiss standings in pages of eleven rows: place, name, points, Buchholz, wins (a bye
  counts as one) and losses, and what the player does this round; under them, the
  tie-breaks in order. The winner's place has a "★".

A name gets 140 px in the bracket (16 Latin, Cyrillic or CJK letters, narrowed: a longer
name, or one of many emoji, is shortened with "…") and 190 px in the standings; the alt
text always has it whole (up to 40 characters, as the games' alt texts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.i18n import _, ngettext, number
from bot.pictures import draw
from bot.pictures import palette as colours
from bot.pictures import text as pictures_text
from bot.pictures.picture import ALT_TEXT_LIMIT, MIN_TEXT_PX, Picture, clip_alt_text
from game_core.tournament import Format, Pairing, Standing, TieBreak, Tournament, tie_breaks

WIDTH = 550
MAX_HEIGHT = 350
MARGIN = 8
HEADER = 42  # two lines: the event's name and state, then its format and the page
TITLE_SIZE = 15
WORDS_SIZE = MIN_TEXT_PX
LINE = 20  # one line of 14 px text with its ascenders and descenders

# The bracket: up to three round columns; a match is a card of two rows.
COLUMN_GAP = 10
COLUMN_WIDTH = (WIDTH - 2 * MARGIN - 2 * COLUMN_GAP) // 3  # 171
COLUMN_HEAD = 22
CARD_PAD = 4
MARK_WIDTH = 18  # "✓", "⏱", "⚑", "✕" at 14 px
NAME_WIDTH = COLUMN_WIDTH - 2 * CARD_PAD - MARK_WIDTH - 3  # 142
CARD_HEIGHT = 2 * LINE + 4
PITCH = CARD_HEIGHT + 8  # from one first-column card to the next
KEY = 24
PAGE_ROUNDS = 3
PAGE_MATCHES = 1 << (PAGE_ROUNDS - 1)  # first-column matches on a page: 4 (8 players)

# The standings: one row per player.
ROWS_PER_PAGE = 11
PLACE_LEFT = MARGIN + 8
PLACE_WIDTH = 34
NAME_LEFT = PLACE_LEFT + PLACE_WIDTH + 4
STANDINGS_NAME_WIDTH = 190
POINTS_LEFT = NAME_LEFT + STANDINGS_NAME_WIDTH + 6
POINTS_WIDTH = 50
BUCHHOLZ_LEFT = POINTS_LEFT + POINTS_WIDTH + 4
BUCHHOLZ_WIDTH = 62
RECORD_LEFT = BUCHHOLZ_LEFT + BUCHHOLZ_WIDTH + 4
RECORD_WIDTH = 52
STATUS_LEFT = RECORD_LEFT + RECORD_WIDTH + 4
STATUS_RIGHT = WIDTH - MARGIN - 8
FOOTER = 42  # the tie-breaks, in two lines where a language needs them

BACKGROUND, CARD = colours.BACKGROUND, colours.SURFACE
TEXT_PAIRS = (
    (colours.TEXT, CARD),
    (colours.MUTED, CARD),
    (colours.GOLD, CARD),
    (colours.DANGER, CARD),
    (colours.TEXT, BACKGROUND),
    (colours.MUTED, BACKGROUND),
    (colours.GOLD, BACKGROUND),
    (colours.ACCENT, BACKGROUND),
)
CUES: dict[str, tuple[colours.RGB, colours.RGB]] = {
    "the lines joining a match to the next": (colours.OUTLINE, BACKGROUND),
}
# How a lost match ended, when not played to the end: the sign beside the loser.
LOSS_SIGNS = {"timeout": "⏱", "forfeit": "⚑", "withdrawal": "✕"}
WON = "✓"
UNDECIDED = "—"
# How long a name may be in the alt text (as the games': Discord's are at most 32).
ALT_NAME_LIMIT = 40


# -- words --------------------------------------------------------------------------------


def round_name(round_number: int, total_rounds: int) -> str:
    """A bracket round's name: the last three by what they decide, the others by number."""
    left = total_rounds - round_number
    if left == 0:
        # Translators: the last match of a single-elimination bracket.
        return _("Final")
    if left == 1:
        return _("Semifinals")
    if left == 2:
        return _("Quarterfinals")
    # Translators: a tournament round's heading in the bracket, e.g. "Round 2".
    return _("Round {round}").format(round=number(round_number))


def format_name(tournament: Tournament) -> str:
    """The event's format and match length: "Swiss · best of 3" (one message each, so the
    format's name agrees with the rest in every language)."""
    games = number(tournament.best_of)
    if tournament.format is Format.SINGLE_ELIMINATION:
        if tournament.best_of == 1:
            # Translators: a tournament's format, its matches one game each.
            return _("Single elimination · one game a match")
        # Translators: a tournament's format and how long a match is: "best of 3".
        return _("Single elimination · best of {games}").format(games=games)
    if tournament.best_of == 1:
        return _("Swiss · one game a match")
    return _("Swiss · best of {games}").format(games=games)


def progress(tournament: Tournament) -> str:
    """Where the event stands: "Round 2 of 5", or "Finished"."""
    if tournament.finished:
        # Translators: a tournament that is over (the picture's top right, short).
        return _("Finished")
    # Translators: where a tournament stands, e.g. "Round 2 of 5" (short).
    return _("Round {round} of {total}").format(
        round=number(tournament.round_number), total=number(tournament.total_rounds)
    )


def tie_break_text(format: Format) -> str:
    """The standings' order in one sentence, as ``game_core.tournament.tie_breaks`` has it
    (one whole sentence per order: a test fails if the core's order has no sentence)."""
    sentences = {
        (TieBreak.SCORE, TieBreak.BUCHHOLZ, TieBreak.HEAD_TO_HEAD, TieBreak.SEED): _(
            "Ranking: points, then Buchholz (the opponents' points), then head-to-head, then seed."
        ),
        (TieBreak.ROUND_REACHED, TieBreak.MATCHES_WON, TieBreak.SEED): _(
            "Ranking: the round reached, then matches won, then seed."
        ),
    }
    return sentences[tuple(tie_breaks(format))]


def _alt_name(name: str) -> str:
    return name if len(name) <= ALT_NAME_LIMIT else name[: ALT_NAME_LIMIT - 1] + "…"


def _name(names: Mapping[int, str], player: int | None) -> str:
    if player is None:
        return UNDECIDED
    # The runtime passes every player's display name: a missing one is its bug.
    return names[player]


# -- pages --------------------------------------------------------------------------------


@dataclass(frozen=True)
class BracketPage:
    """Part of a bracket: ``rounds`` rounds from ``first_round``, whose first column holds
    that round's matches (tables) ``first_table`` to ``first_table + matches - 1``."""

    first_round: int
    rounds: int
    first_table: int
    matches: int

    def tables(self, column: int) -> range:
        start = (self.first_table - 1 >> column) + 1
        return range(start, start + max(1, self.matches >> column))


def bracket_pages(total_rounds: int) -> list[BracketPage]:
    """The pages of a bracket of ``total_rounds`` rounds, first rounds first."""
    pages = []
    first = 1
    while first <= total_rounds:
        rounds = min(PAGE_ROUNDS, total_rounds - first + 1)
        in_round = 1 << (total_rounds - first)
        per_page = 1 << (rounds - 1)
        for table in range(1, in_round + 1, per_page):
            pages.append(BracketPage(first, rounds, table, per_page))
        first += rounds
    return pages


def render_event(tournament: Tournament, names: Mapping[int, str], title: str) -> list[Picture]:
    """The event's pictures: the bracket's pages, or the Swiss standings' pages.
    ``names``: each player's display name by id; ``title``: the event's name."""
    if tournament.format is Format.SINGLE_ELIMINATION:
        return render_bracket(tournament, names, title)
    return render_standings(tournament, names, title)


def _header(
    image: Image.Image,
    tournament: Tournament,
    names: Mapping[int, str],
    title: str,
    page: int,
    pages: int,
) -> None:
    right_room = 200
    state_slot = (WIDTH - MARGIN - right_room, MARGIN, WIDTH - MARGIN, MARGIN + LINE)
    winner = tournament.winner
    if winner is not None:
        # The winner's name after a star: marked by more than its gold.
        star_room = 20
        name_slot = (state_slot[0] + star_room, MARGIN, WIDTH - MARGIN, MARGIN + LINE)
        width = pictures_text.draw_text(
            image, (WIDTH - MARGIN, MARGIN + 11), _name(names, winner), TITLE_SIZE,
            colours.GOLD, BACKGROUND, weight="bold", anchor="rm", slot=name_slot, name=True,
            min_size=MIN_TEXT_PX,
        )  # fmt: skip
        star_right = WIDTH - MARGIN - width - 4
        pictures_text.draw_text(
            image, (star_right, MARGIN + 11), "★", TITLE_SIZE, colours.GOLD, BACKGROUND,
            weight="bold", anchor="rm", slot=(star_right - star_room, MARGIN, star_right,
                                              MARGIN + LINE),
        )  # fmt: skip
    else:
        pictures_text.draw_text(
            image, (WIDTH - MARGIN, MARGIN + 11), progress(tournament), WORDS_SIZE,
            colours.TEXT, BACKGROUND, anchor="rm", slot=state_slot,
        )  # fmt: skip
    title_slot = (MARGIN, MARGIN, state_slot[0] - 8, MARGIN + LINE)
    pictures_text.draw_text(
        image, (MARGIN, MARGIN + 11), title, TITLE_SIZE, colours.TEXT, BACKGROUND,
        weight="bold", slot=title_slot, name=True, min_size=MIN_TEXT_PX,
    )  # fmt: skip
    second = MARGIN + LINE + 2
    page_room = 150 if pages > 1 else 0
    pictures_text.draw_text(
        image, (MARGIN, second + 10), format_name(tournament), WORDS_SIZE, colours.MUTED,
        BACKGROUND, slot=(MARGIN, second, WIDTH - MARGIN - page_room - 8, second + LINE),
    )  # fmt: skip
    if pages > 1:
        # Translators: which of an event's pictures this is, e.g. "part 2 of 5" (short).
        part = _("part {page} of {pages}").format(page=number(page), pages=number(pages))
        pictures_text.draw_text(
            image, (WIDTH - MARGIN, second + 10), part, WORDS_SIZE, colours.MUTED, BACKGROUND,
            anchor="rm", slot=(WIDTH - MARGIN - page_room, second, WIDTH - MARGIN, second + LINE),
        )  # fmt: skip


# -- the bracket --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Match:
    """A bracket match as the picture shows it: known pairings as they are; a later one
    with each side known (a player, or None for nobody) or not yet (``known`` False)."""

    round: int
    table: int
    sides: tuple[int | None, int | None]
    known: tuple[bool, bool]
    pairing: Pairing | None


def _bracket_matches(tournament: Tournament) -> dict[tuple[int, int], _Match]:
    found: dict[tuple[int, int], _Match] = {}
    for pairing in tournament.pairings:
        found[pairing.round, pairing.table] = _Match(
            pairing.round, pairing.table, (pairing.first, pairing.second), (True, True), pairing
        )
    for round_number in range(2, tournament.total_rounds + 1):
        tables = 1 << (tournament.total_rounds - round_number)
        for table in range(1, tables + 1):
            if (round_number, table) in found:
                continue
            sides: list[int | None] = []
            known: list[bool] = []
            for feeder in (2 * table - 1, 2 * table):
                before = found.get((round_number - 1, feeder))
                decided = (
                    before is not None and before.pairing is not None and before.pairing.decided
                )
                sides.append(
                    before.pairing.winner if decided and before and before.pairing else None
                )
                known.append(decided)
            found[round_number, table] = _Match(
                round_number, table, (sides[0], sides[1]), (known[0], known[1]), None
            )
    return found


def bracket_height(page: BracketPage) -> int:
    return MARGIN + HEADER + COLUMN_HEAD + page.matches * PITCH + KEY + MARGIN


def render_bracket(tournament: Tournament, names: Mapping[int, str], title: str) -> list[Picture]:
    pages = bracket_pages(tournament.total_rounds)
    matches = _bracket_matches(tournament)
    pictures = []
    for index, page in enumerate(pages, start=1):
        height = bracket_height(page)
        image = Image.new("RGB", (WIDTH, height), BACKGROUND)
        _header(image, tournament, names, title, index, len(pages))
        _draw_page(image, tournament, matches, names, page)
        pictures.append(
            Picture(
                png=draw.encode(image),
                alt_text=bracket_alt_text(tournament, names, title, page, index, len(pages)),
                filename=f"bracket-{index}.png",
                width=WIDTH,
                height=height,
            )
        )
    return pictures


def _card_top(page: BracketPage, column: int, position: int) -> float:
    """The top of a card: first-column cards one pitch apart, each later card centred
    between the two it is fed by."""
    span = PITCH << column
    top = MARGIN + HEADER + COLUMN_HEAD
    return top + position * span + (span - PITCH) / 2


def _draw_page(
    image: Image.Image,
    tournament: Tournament,
    matches: Mapping[tuple[int, int], _Match],
    names: Mapping[int, str],
    page: BracketPage,
) -> None:
    lines = ImageDraw.Draw(image)
    for column in range(page.rounds):
        round_number = page.first_round + column
        left = MARGIN + column * (COLUMN_WIDTH + COLUMN_GAP)
        head_top = MARGIN + HEADER
        current = round_number == tournament.round_number and not tournament.finished
        heading = round_name(round_number, tournament.total_rounds)
        head_slot = (left, head_top, left + COLUMN_WIDTH, head_top + LINE)
        if current:
            # The round being played: a dot before its name, not only another colour.
            heading = "● " + heading
        pictures_text.draw_text(
            image, (left, head_top + 10), heading, WORDS_SIZE,
            colours.ACCENT if current else colours.MUTED, BACKGROUND, weight="bold",
            slot=head_slot,
        )  # fmt: skip
        for position, table in enumerate(page.tables(column)):
            top = _card_top(page, column, position)
            match = matches[round_number, table]
            _draw_card(image, match, names, left, top)
            if column + 1 < page.rounds:
                # The line to the match the winner goes on to.
                next_top = _card_top(page, column + 1, position // 2)
                start = (left + COLUMN_WIDTH, round(top + CARD_HEIGHT / 2))
                end_x = left + COLUMN_WIDTH + COLUMN_GAP
                end_y = round(next_top + CARD_HEIGHT / 2)
                middle = left + COLUMN_WIDTH + COLUMN_GAP // 2
                lines.line(
                    [start, (middle, start[1]), (middle, end_y), (end_x, end_y)],
                    fill=colours.OUTLINE,
                    width=2,
                )
    _draw_key(image, bracket_height(page))


def _draw_card(
    image: Image.Image,
    match: _Match,
    names: Mapping[int, str],
    left: int,
    top: float,
) -> None:
    draw.paste_box(image, (left, top, left + COLUMN_WIDTH, top + CARD_HEIGHT), 6, CARD,
                   BACKGROUND)  # fmt: skip
    pairing = match.pairing
    for row in range(2):
        y = top + 2 + row * LINE + LINE / 2
        row_top, row_bottom = round(y - LINE / 2), round(y + LINE / 2)
        player = match.sides[row]
        mark, mark_ink = "", colours.MUTED
        ink = colours.TEXT
        if pairing is not None and pairing.outcome == "bye" and player is None:
            shown = _("bye")
            ink = colours.MUTED
        elif player is None:
            # Nobody yet (a match still to end feeds this place), or nobody at all (a
            # pairing both players left).
            shown = UNDECIDED if not match.known[row] or pairing is None else _("nobody")
            ink = colours.MUTED
        else:
            shown = _name(names, player)
            if pairing is not None and pairing.decided:
                if pairing.outcome == "void":
                    mark, ink = LOSS_SIGNS["withdrawal"], colours.MUTED
                elif pairing.winner == player:
                    mark, mark_ink = WON, colours.GOLD
                else:
                    mark = LOSS_SIGNS.get(pairing.outcome or "", "")
                    ink = colours.MUTED
        mark_left = left + CARD_PAD
        if mark:
            pictures_text.draw_text(
                image, (mark_left + MARK_WIDTH / 2, y), mark, WORDS_SIZE, mark_ink, CARD,
                weight="bold", anchor="mm",
                slot=(mark_left, row_top, mark_left + MARK_WIDTH, row_bottom),
            )  # fmt: skip
        name_left = mark_left + MARK_WIDTH + 3
        pictures_text.draw_text(
            image, (name_left, y), shown, WORDS_SIZE, ink, CARD, name=player is not None,
            slot=(name_left, row_top, name_left + NAME_WIDTH, row_bottom),
        )  # fmt: skip


def key_text() -> str:
    # Translators: the key under a bracket: what each sign beside a name means (one line
    # of about 530 pixels at 14 px).
    return _("✓ won · ⏱ lost on time · ⚑ forfeited · ✕ withdrew")


def _draw_key(image: Image.Image, height: int) -> None:
    top = height - MARGIN - KEY + 4
    pictures_text.draw_text(
        image, (MARGIN, top + LINE / 2), key_text(), WORDS_SIZE, colours.MUTED, BACKGROUND,
        slot=(MARGIN, top, WIDTH - MARGIN, top + LINE),
    )  # fmt: skip


def match_text(match: _Match, names: Mapping[int, str], best_of: int) -> str | None:
    """One match in words, for the alt text; None for a match with no player known yet."""
    short = {player: _alt_name(_name(names, player)) for player in match.sides if player}
    pairing = match.pairing
    first, second = match.sides
    if pairing is None or not pairing.decided:
        if first is None and second is None:
            return None
        if first is None or second is None:
            # Translators: a bracket's match in the alt text whose other place is not
            # decided yet (the match feeding it is still to end).
            waiting = first if first is not None else second
            assert waiting is not None
            return _("{player} waits for an opponent").format(player=short[waiting])
        return _("{first} against {second}, to play").format(
            first=short[first], second=short[second]
        )
    winner = pairing.winner
    loser = pairing.loser()
    if pairing.outcome == "bye" and winner is not None:
        return _("{player} has a bye").format(player=short[winner])
    if pairing.outcome == "void" or winner is None:
        players = [short[p] for p in pairing.players]
        if len(players) == 2:
            return _("{first} and {second} both withdrew").format(
                first=players[0], second=players[1]
            )
        if players:
            return _("{player} withdrew").format(player=players[0])
        return None
    assert loser is not None
    fields = {"winner": short[winner], "loser": short[loser]}
    if pairing.outcome == "timeout":
        return _("{winner} beat {loser} on time").format(**fields)
    if pairing.outcome == "forfeit":
        return _("{winner} won: {loser} forfeited").format(**fields)
    if pairing.outcome == "withdrawal":
        return _("{winner} goes through: {loser} withdrew").format(**fields)
    if pairing.score is not None and best_of > 1:
        games = pairing.score if winner == pairing.first else tuple(reversed(pairing.score))
        return _("{winner} beat {loser} {won}–{lost}").format(
            won=number(games[0]), lost=number(games[1]), **fields
        )
    return _("{winner} beat {loser}").format(**fields)


def _event_sentence(tournament: Tournament, names: Mapping[int, str], title: str) -> str:
    parts = [
        # Translators: the start of a tournament picture's alt text: "Spring Cup:
        # Swiss · best of 3, Round 2 of 5." (the format and progress as the picture has them).
        _("{title}: {format}, {progress}.").format(
            title=title, format=format_name(tournament), progress=progress(tournament)
        )
    ]
    winner = tournament.winner
    if winner is not None:
        parts.append(_("{player} won the event.").format(player=_alt_name(_name(names, winner))))
    return " ".join(parts)


def bracket_alt_text(
    tournament: Tournament,
    names: Mapping[int, str],
    title: str,
    page: BracketPage,
    index: int,
    pages: int,
) -> str:
    matches = _bracket_matches(tournament)
    parts = [_event_sentence(tournament, names, _alt_name(title))]
    if pages > 1:
        parts.append(_("Part {page} of {pages}.").format(page=number(index), pages=number(pages)))
    for column in range(page.rounds):
        round_number = page.first_round + column
        said = [
            text
            for table in page.tables(column)
            if (text := match_text(matches[round_number, table], names, tournament.best_of))
        ]
        if said:
            parts.append(
                _("{round}: {matches}.").format(
                    round=round_name(round_number, tournament.total_rounds),
                    matches="; ".join(said),
                )
            )
    text = " ".join(parts)
    return text if len(text) <= ALT_TEXT_LIMIT else clip_alt_text(text)


# -- the Swiss standings ------------------------------------------------------------------


def standings_height(rows: int) -> int:
    return MARGIN + HEADER + LINE + 4 + rows * LINE + 6 + FOOTER + MARGIN


def _status(tournament: Tournament, standing: Standing) -> tuple[str, colours.RGB]:
    """What a player does this round, in words, and its ink."""
    if standing.withdrawn:
        return "✕ " + _("withdrew"), colours.MUTED
    if tournament.finished:
        return "", colours.MUTED
    pairing = tournament.pairing_of(standing.player_id)
    if pairing is None:
        return "", colours.MUTED
    if pairing.is_bye:
        return _("bye"), colours.MUTED
    if not pairing.decided:
        # Translators: a Swiss standings row: the player's match this round is on.
        return _("playing"), colours.TEXT
    if pairing.winner == standing.player_id:
        return WON + " " + _("won"), colours.GOLD
    return _("lost"), colours.MUTED


def _place(standing: Standing, finished: bool) -> tuple[str, colours.RGB]:
    if finished and standing.place == 1 and not standing.withdrawn:
        return "★ " + number(1), colours.GOLD
    return number(standing.place or 0), colours.MUTED


def render_standings(tournament: Tournament, names: Mapping[int, str], title: str) -> list[Picture]:
    standings = tournament.standings()
    chunks = [
        standings[start : start + ROWS_PER_PAGE]
        for start in range(0, len(standings), ROWS_PER_PAGE)
    ]
    pictures = []
    for index, rows in enumerate(chunks, start=1):
        height = standings_height(len(rows))
        image = Image.new("RGB", (WIDTH, height), BACKGROUND)
        _header(image, tournament, names, title, index, len(chunks))
        _draw_standings(image, tournament, names, rows, height)
        pictures.append(
            Picture(
                png=draw.encode(image),
                alt_text=standings_alt_text(tournament, names, title, rows, index, len(chunks)),
                filename=f"standings-{index}.png",
                width=WIDTH,
                height=height,
            )
        )
    return pictures


def _draw_standings(
    image: Image.Image,
    tournament: Tournament,
    names: Mapping[int, str],
    rows: Sequence[Standing],
    height: int,
) -> None:
    head_top = MARGIN + HEADER
    card_top = head_top + LINE + 4
    card_bottom = card_top + len(rows) * LINE + 6
    headings = [
        # Translators: the Swiss standings' column headings (narrow columns: "#", then
        # about 190, 50, 62, 52 and 90 pixels at 14 px).
        ("#", PLACE_LEFT, PLACE_WIDTH),
        (_("Player"), NAME_LEFT, STANDINGS_NAME_WIDTH),
        (_("Points"), POINTS_LEFT, POINTS_WIDTH),
        (_("Buchholz"), BUCHHOLZ_LEFT, BUCHHOLZ_WIDTH),
        # Translators: a column heading: wins and losses, shown as "3–1".
        (_("W–L"), RECORD_LEFT, RECORD_WIDTH),
        (
            _("This round") if not tournament.finished else "",
            STATUS_LEFT,
            STATUS_RIGHT - STATUS_LEFT,
        ),
    ]
    for heading, left, width in headings:
        pictures_text.draw_text(
            image, (left, head_top + 10), heading, WORDS_SIZE, colours.MUTED, BACKGROUND,
            weight="bold", slot=(left, head_top, left + width, head_top + LINE),
        )  # fmt: skip
    draw.paste_box(image, (MARGIN, card_top, WIDTH - MARGIN, card_bottom), 8, CARD, BACKGROUND)
    for row, standing in enumerate(rows):
        y = card_top + 3 + row * LINE + LINE / 2
        top, bottom = round(y - LINE / 2), round(y + LINE / 2)
        ink = colours.MUTED if standing.withdrawn else colours.TEXT
        place, place_ink = _place(standing, tournament.finished)
        cells: list[tuple[str, int, int, colours.RGB, pictures_text.Weight, bool]] = [
            (place, PLACE_LEFT, PLACE_WIDTH, place_ink, "bold", False),
            (_name(names, standing.player_id), NAME_LEFT, STANDINGS_NAME_WIDTH, ink,
             "bold" if place_ink == colours.GOLD else "regular", True),
            (number(standing.score), POINTS_LEFT, POINTS_WIDTH, ink, "bold", False),
            (number(standing.buchholz or 0), BUCHHOLZ_LEFT, BUCHHOLZ_WIDTH, ink, "regular",
             False),
            (f"{number(standing.wins + standing.byes)}–{number(standing.losses)}", RECORD_LEFT,
             RECORD_WIDTH, ink, "regular", False),
        ]  # fmt: skip
        status, status_ink = _status(tournament, standing)
        cells.append(
            (status, STATUS_LEFT, STATUS_RIGHT - STATUS_LEFT, status_ink, "regular", False)
        )
        for content, left, width, cell_ink, weight, is_name in cells:
            if not content:
                continue
            pictures_text.draw_text(
                image, (left, y), content, WORDS_SIZE, cell_ink, CARD, weight=weight,
                name=is_name, slot=(left, top, left + width, bottom),
            )  # fmt: skip
    footer_top = height - MARGIN - FOOTER + 4
    pictures_text.draw_block(
        image, (MARGIN, footer_top, WIDTH - MARGIN, height - MARGIN),
        tie_break_text(tournament.format), WORDS_SIZE, colours.MUTED, BACKGROUND,
        max_lines=2, leading=1.25,
    )  # fmt: skip


def standing_text(tournament: Tournament, standing: Standing, names: Mapping[int, str]) -> str:
    """One standings row in words, for the alt text."""
    fields = {
        "place": number(standing.place or 0),
        "name": _alt_name(_name(names, standing.player_id)),
        "points": ngettext("{count} point", "{count} points", standing.score).format(
            count=number(standing.score)
        ),
        "buchholz": number(standing.buchholz or 0),
    }
    # Translators: one row of the Swiss standings in the alt text: "1. Ann, 3 points,
    # Buchholz 5".
    text = _("{place}. {name}, {points}, Buchholz {buchholz}").format(**fields)
    status, _ink = _status(tournament, standing)
    if status:
        text += f" ({status.removeprefix(WON + ' ').removeprefix('✕ ')})"
    return text


def standings_alt_text(
    tournament: Tournament,
    names: Mapping[int, str],
    title: str,
    rows: Sequence[Standing],
    index: int,
    pages: int,
) -> str:
    parts = [_event_sentence(tournament, names, _alt_name(title))]
    if pages > 1:
        parts.append(_("Part {page} of {pages}.").format(page=number(index), pages=number(pages)))
    rows_text = "; ".join(standing_text(tournament, standing, names) for standing in rows)
    # A heading and a list of rows: no sentence for the rows to agree with.
    parts.append(_("Standings:") + " " + rows_text + ".")
    parts.append(tie_break_text(tournament.format))
    return clip_alt_text(" ".join(parts))
