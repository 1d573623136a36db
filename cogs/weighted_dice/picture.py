"""The Weighted Dice table as a picture: seats and points toward the target, the house,
the two rollers with their dice and each side's chance, bets as they come in, and the
standings at the end.

Drawn from the engine's ``public_view`` (everything in this game is public) and the
seats' display names. 550 wide, 320 high for up to 9 seats and taller for more (348 for
twelve), one row per seat. Sent as a message's attachment, which Discord's desktop client
shows at up to 550 × 350 (``bot.pictures.picture.DESKTOP_BOX``): every size is shown pixel
for pixel, so every text is drawn at 14 px or more. A name gets 190 px, room for 16 wide
letters (more when narrowed, ``bot.pictures.text.fit_lines``), and is drawn once, in its
seat's row; the round names the rollers by number ("roller 1, d8", "10 on roller 1"):

- left, the seats: name, a bar of points toward the target with the number, and what the
  seat does this round in words (house, roller 1 with the d8, bet 10 on roller 1, left);
- right, the round: each roller by number with their die and chance to win, the bets on
  each, the tie that goes to the house; at the house's setup, the house; at the end, the
  winners and the final ranks; for a game stopped without a result, that it stopped.

The alt text names every seat in full (names are at most 32 characters on Discord; a
longer stored one is shortened at 40, as in the other games). Twelve long names and every
bet do not fit Discord's 1,024 characters in every language: the text then names the
rollers by number in the bets, and then leaves the names out of the round's matchup (each
seat's role says who rolls and who is the house), before anything is cut.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

from PIL import Image

from bot.i18n import N_, _, ngettext, number, percent
from bot.pictures import draw
from bot.pictures import palette as colours
from bot.pictures import text as pictures_text
from bot.pictures.canvas import IndexedCanvas, IndexedPalette
from bot.pictures.picture import (
    ALT_TEXT_LIMIT,
    MIN_TEXT_PX,
    Picture,
    clip_alt_text,
    remembered,
)
from cogs.weighted_dice.story import names_list

FILENAME = "table.png"
WIDTH = 550
MIN_HEIGHT = 320
MARGIN = 10
HEADER = 30
ROW = 24
PAD = 8  # inside the seats' card and the round's panel
# A seat's row, left to right: the name (16 wide letters at 14 px, or 16 emoji narrowed),
# the points bar and number, the role ("150 on roller 2" at 14 px in every language).
NAME_LEFT = MARGIN + PAD
NAME_WIDTH = 190
BAR_LEFT = NAME_LEFT + NAME_WIDTH + 5
BAR_WIDTH = 22
POINTS_LEFT = BAR_LEFT + BAR_WIDTH + 5
POINTS_WIDTH = 30
ROLE_LEFT = POINTS_LEFT + POINTS_WIDTH + 5
ROLE_WIDTH = 122
LIST_WIDTH = ROLE_LEFT + ROLE_WIDTH + 6 - MARGIN
PANEL_LEFT = MARGIN + LIST_WIDTH + 8
PANEL_INNER = WIDTH - MARGIN - PANEL_LEFT - 2 * PAD  # 113: "Roller 1 wins", a name's half

# Text sizes (pixels); a name too wide for its room is drawn smaller, down to MIN_TEXT.
MIN_TEXT = MIN_TEXT_PX
HEADING_SIZE = 15
WORDS_SIZE = MIN_TEXT
CHANCE_SIZE = 22
WINNER_SIZE = 15

BACKGROUND, CARD = colours.BACKGROUND, colours.SURFACE
TEXT_PAIRS = (
    (colours.TEXT, CARD),
    (colours.MUTED, CARD),
    (colours.GOLD, CARD),
    (colours.ACCENT, CARD),
    (colours.GOOD, CARD),
    (colours.TEXT, BACKGROUND),
    (colours.MUTED, BACKGROUND),
    (colours.INK_ON_LIGHT, colours.DIE_FACE),
)
# Bars carry their number beside them, so the track itself is decoration.
CUES: dict[str, tuple[colours.RGB, colours.RGB]] = {
    "points bar on its track": (colours.GOLD, colours.RAISED),
    "a roller's die on the card": (colours.DIE_FACE, CARD),
    "the house's frame on the card": (colours.ACCENT, CARD),
}
# Translators: a player's final place in the picture's standings (short: a narrow column).
MEDALS = {1: N_("1st"), 2: N_("2nd"), 3: N_("3rd")}
# Translators: what the round is doing now, at the picture's top right (short).
PHASES = {
    "setup": N_("the house picks"),
    "betting": N_("bets open"),
    "finished": N_("game over"),
    # Translators: at the picture's top right, a game stopped without a result (short).
    "stopped": N_("stopped"),
}
# How long a name may be in the alt text (as the other games: Discord's are at most 32).
ALT_NAME_LIMIT = 40


def height_for(seats: int) -> int:
    return max(MIN_HEIGHT, MARGIN + HEADER + seats * ROW + 2 * MARGIN)


def _chance(text: str) -> str:
    share = float(Fraction(text))
    return percent(share) if share >= 0.01 or share == 0 else "<" + percent(0.01)


def _die(sides: int) -> str:
    # Translators: a die by its number of faces (d4, d6, d8, d10, d12, d20).
    return _("d{sides}").format(sides=sides)


def _rank(rank: int) -> str:
    if rank in MEDALS:
        return _(MEDALS[rank])
    # Translators: a final place from 4 on ("4th", "12th"); short: a narrow column.
    return _("{rank}th").format(rank=number(rank))


# The picture's palette: its exact colours, a ramp for each text pair, and the anti-aliased
# edges of its shapes (the cards, a points bar, a die's chip).
EXACT = (
    BACKGROUND, CARD, colours.RAISED, colours.TEXT, colours.MUTED, colours.GOLD,
    colours.ACCENT, colours.GOOD, colours.DIE_FACE, colours.INK_ON_LIGHT,
)  # fmt: skip
CHIP = (34, 24)  # a roller's die: its name on a die-coloured chip
# Text edges in 16 shades of each ink on its background: at most 7 of 255 levels off what
# FreeType drew (8 shades: 16 off), 112 colours in all.
RAMP_STEPS = 16


def _base_rgb(height: int) -> Image.Image:
    """What every table of this height shows whatever the game: the seats' card and the
    round's panel on the background."""
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw.paste_box(image, (MARGIN, MARGIN + HEADER, MARGIN + LIST_WIDTH, height - MARGIN), 10,
                   CARD, BACKGROUND)  # fmt: skip
    draw.paste_box(image, (PANEL_LEFT, MARGIN + HEADER, WIDTH - MARGIN, height - MARGIN), 10,
                   CARD, BACKGROUND)  # fmt: skip
    return image


@cache
def _palette() -> IndexedPalette:
    bar = Image.new("RGB", (BAR_WIDTH + 4, 10), CARD)
    draw.bar(bar, (2, 2, 2 + BAR_WIDTH, 8), 0.5, colours.GOLD, colours.RAISED, CARD)
    chip = draw.rounded_box(CHIP, 6, colours.DIE_FACE, CARD)
    return IndexedPalette(EXACT, TEXT_PAIRS, [_base_rgb(MIN_HEIGHT), bar, chip], RAMP_STEPS)


@lru_cache(maxsize=8)
def _base(height: int) -> Image.Image:
    """The base of a table this high, on the palette: drawn once per height."""
    return _palette().index(_base_rgb(height))


@remembered()
def render_table(
    view: Mapping[str, Any], names: Sequence[str], stopped: str | None = None
) -> Picture:
    """The table for ``public_view`` and the seats' display names (seat order).
    ``stopped`` is the sentence for a game stopped without a result (``bot.model.contract.
    stopped_text``): the table is drawn as it stood, with nothing more to come.

    Drawn on the palette (``bot.pictures.canvas``): the cards once per height, every
    shape and line of text once, then pasted."""
    seats = view["n_players"]
    height = height_for(seats)
    image = IndexedCanvas(_palette(), _base(height))
    finished = view["phase"] == "finished"
    halted = stopped is not None and not finished
    heading = (
        _("Final standings")
        if finished
        else _("Round {round} · first to {target} points").format(
            round=number(view["round"]), target=number(view["target"])
        )
    )
    phase = PHASES["stopped" if halted else view["phase"]]
    header = (MARGIN, MARGIN, PANEL_LEFT - 8, MARGIN + HEADER - 4)
    image.text((MARGIN, MARGIN + 12), heading, HEADING_SIZE, colours.TEXT, BACKGROUND,
               weight="bold", slot=header, min_size=MIN_TEXT)  # fmt: skip
    corner = (PANEL_LEFT, MARGIN, WIDTH - MARGIN, MARGIN + HEADER - 4)
    image.text((WIDTH - MARGIN, MARGIN + 12), _(phase), WORDS_SIZE, colours.MUTED, BACKGROUND,
               anchor="rm", slot=corner)  # fmt: skip
    _draw_seats(image, view, names, height, halted)
    if halted:
        _draw_stopped(image, view, height)
    else:
        _draw_round(image, view, names, height)
    return Picture(
        png=image.png(),
        alt_text=alt_text(view, names, stopped),
        filename=FILENAME,
        width=WIDTH,
        height=height,
    )


def _seat_order(view: Mapping[str, Any]) -> list[int]:
    result = view.get("result")
    seats = list(range(view["n_players"]))
    if result:
        ranks = result["ranks"]
        return sorted(seats, key=lambda seat: (ranks[seat], seat))
    return seats


def _role(
    view: Mapping[str, Any],
    names: Sequence[str],
    seat: int,
    halted: bool = False,
    by_number: bool = False,
) -> tuple[str, colours.RGB]:
    """What a seat does this round, in words (and its colour). ``halted``: the game was
    stopped, so nobody is still to bet. ``by_number``: rollers as "roller 1" / "roller 2"
    rather than by name (the picture, which draws each name once, and the alt text's
    shorter forms)."""
    player = view["players"][seat]
    if not player["active"]:
        # Translators: a seat's role in the picture: the player left the game.
        return _("left"), colours.MUTED
    if view["phase"] == "finished":
        rank = view["result"]["ranks"][seat]
        return _rank(rank), colours.GOLD if rank == 1 else colours.MUTED
    if seat == view["house"]:
        # Translators: a seat's role in the picture: this player is the house.
        return _("house"), colours.ACCENT
    if seat in view["rollers"]:
        index = view["rollers"].index(seat)
        die = _die(view["dice"][index])
        if by_number:
            # Translators: a seat's role in the picture and the alt text's shorter form,
            # e.g. "roller 1, d8" (the bets then say "10 on roller 1"); the picture's column
            # is about 120 pixels wide.
            return _("roller {number}, {die}").format(number=index + 1, die=die), colours.TEXT
        # Translators: a seat's role in the picture, e.g. "rolls d8".
        return _("rolls {die}").format(die=die), colours.TEXT
    bet = next((b for b in view["bets"] if b["player"] == seat), None)
    if bet is not None:
        amount = number(bet["amount"])
        if by_number:
            # Translators: a seat's bet in the picture and the alt text's shorter form, e.g.
            # "10 on roller 1" (about 120 pixels in the picture: "150 on roller 2" must fit).
            return _("{amount} on roller {number}").format(
                amount=amount, number=bet["roller"] + 1
            ), colours.GOOD
        backed = names[view["rollers"][bet["roller"]]]
        # Translators: a seat's bet in the picture, e.g. "10 on Ann".
        return _("{amount} on {roller}").format(amount=amount, roller=backed), colours.GOOD
    if seat in view["to_act"] and not halted:
        # Translators: a seat's role in the picture: this player has not bet yet.
        return _("to bet…"), colours.MUTED
    return "", colours.MUTED


def _draw_seats(
    image: IndexedCanvas,
    view: Mapping[str, Any],
    names: Sequence[str],
    height: int,
    halted: bool = False,
) -> None:
    """The seats' rows, on the seats' card (in the base)."""
    top = MARGIN + HEADER
    target = view["target"]
    for row, seat in enumerate(_seat_order(view)):
        y = top + 6 + row * ROW + ROW / 2
        row_top, row_bottom = y - ROW / 2, y + ROW / 2
        player = view["players"][seat]
        ink = colours.TEXT if player["active"] else colours.MUTED
        image.text((NAME_LEFT, y), names[seat], WORDS_SIZE, ink, CARD, weight="bold",
                   name=True, slot=(NAME_LEFT, row_top, NAME_LEFT + NAME_WIDTH,
                                    row_bottom))  # fmt: skip
        points = player["points"]
        image.bar((BAR_LEFT, y - 3, BAR_LEFT + BAR_WIDTH, y + 3), points / target,
                  colours.GOLD, colours.RAISED, CARD)  # fmt: skip
        image.text((POINTS_LEFT, y), number(points), WORDS_SIZE, colours.TEXT, CARD,
                   weight="bold", slot=(POINTS_LEFT, row_top, POINTS_LEFT + POINTS_WIDTH,
                                        row_bottom))  # fmt: skip
        role, role_ink = _role(view, names, seat, halted, by_number=True)
        if role:
            image.text((ROLE_LEFT, y), role, WORDS_SIZE, role_ink, CARD,
                       slot=(ROLE_LEFT, row_top, ROLE_LEFT + ROLE_WIDTH, row_bottom))  # fmt: skip


class _Panel:
    """The round's panel on the right (its card is in the base), filled from the top:
    each block of words below the one before, in the panel's width."""

    def __init__(self, image: IndexedCanvas, height: int) -> None:
        self.image = image
        self.left = PANEL_LEFT + PAD
        self.right = self.left + PANEL_INNER
        self.bottom = height - MARGIN - 6
        self.y = float(MARGIN + HEADER + 8)

    def words(
        self,
        text: str,
        size: int,
        ink: colours.RGB,
        *,
        weight: pictures_text.Weight = "regular",
        max_lines: int = 2,
        name: bool = False,
        gap: float = 4,
    ) -> None:
        layout = self.image.block(
            (self.left, self.y, self.right, self.bottom), text, size, ink, CARD,
            weight=weight, min_size=MIN_TEXT, max_lines=max_lines, leading=1.2, name=name,
        )  # fmt: skip
        self.y = layout.bottom + gap

    def space(self, pixels: float) -> None:
        self.y += pixels


def _draw_round(
    image: IndexedCanvas, view: Mapping[str, Any], names: Sequence[str], height: int
) -> None:
    panel = _Panel(image, height)
    if view["phase"] == "finished":
        _draw_winners(panel, view, names)
        return
    if view["phase"] == "setup":
        # Translators: short lines in the picture's narrow panel (about 110 pixels wide):
        # "House", the house's name, then "picks two rollers and their dice" (wrapped, 4
        # lines at most).
        panel.words(_("House"), WORDS_SIZE, colours.MUTED, gap=2)
        panel.words(names[view["house"]], WORDS_SIZE, colours.TEXT, weight="bold", name=True)
        panel.words(_("picks two rollers and their dice"), WORDS_SIZE, colours.MUTED,
                    max_lines=4)  # fmt: skip
        return
    odds = view["odds"]
    totals = view["bet_totals"]
    for side in range(len(view["rollers"])):
        # Translators: above a roller's die and chance in the picture's narrow panel
        # (about 110 pixels wide; longer takes 2 lines): "Roller 1 wins" then "d8 62%", as the
        # tie's "Tie 8%: the house wins" (the seats say "roller 1, d8" beside the name).
        panel.words(_("Roller {number} wins").format(number=number(side + 1)), WORDS_SIZE,
                    colours.MUTED, gap=3)  # fmt: skip
        top = round(panel.y)
        image.box((panel.left, top, panel.left + CHIP[0], top + CHIP[1]), 6, colours.DIE_FACE,
                  CARD)  # fmt: skip
        image.text((panel.left + 17, top + 12), _die(view["dice"][side]), WORDS_SIZE,
                   colours.INK_ON_LIGHT, colours.DIE_FACE, weight="bold", anchor="mm",
                   slot=(panel.left, top, panel.left + 34, top + 24))  # fmt: skip
        image.text((panel.left + 40, top + 12), _chance(odds[side]), CHANCE_SIZE, colours.TEXT,
                   CARD, weight="bold", min_size=MIN_TEXT,
                   slot=(panel.left + 40, top - 3, panel.right, top + 27))  # fmt: skip
        panel.space(28)
        # Translators: the points bet on a roller so far, in the picture: "bets on: 25".
        bets_on = _("bets on: {points}").format(points=number(totals[side]))
        panel.words(bets_on, WORDS_SIZE, colours.GOOD if totals[side] else colours.MUTED, gap=8)
    # Translators: the chance of a tie in the picture, followed by "the house wins".
    tie = _("Tie {chance}:").format(chance=_chance(odds[2]))
    panel.words(tie, WORDS_SIZE, colours.ACCENT, weight="bold", gap=1)
    panel.words(_("the house wins"), WORDS_SIZE, colours.ACCENT, gap=8)
    waiting = len(view["to_act"])
    if waiting:
        words = ngettext("{count} still to bet", "{count} still to bet", waiting).format(
            count=number(waiting)
        )
        panel.words(words, WORDS_SIZE, colours.MUTED)


def _draw_stopped(image: IndexedCanvas, view: Mapping[str, Any], height: int) -> None:
    """The round panel of a game stopped without a result: that it stopped, after how
    many rounds."""
    panel = _Panel(image, height)
    # Translators: the picture's narrow panel (about 110 pixels wide) for a game stopped
    # without a result: "■ Stopped", then "no result counts" (wrapped, 3 lines at most).
    panel.words(_("■ Stopped"), WORDS_SIZE, colours.TEXT, weight="bold")
    panel.words(_("no result counts"), WORDS_SIZE, colours.MUTED, max_lines=3, gap=8)
    played = view["rounds_played"]
    rounds = ngettext("{rounds} round played", "{rounds} rounds played", played).format(
        rounds=number(played)
    )
    panel.words(rounds, WORDS_SIZE, colours.MUTED)


def _draw_winners(panel: _Panel, view: Mapping[str, Any], names: Sequence[str]) -> None:
    result = view["result"]
    winners = result["winners"]
    best = view["players"][winners[0]]["points"]
    label = _("★ Winner") if len(winners) == 1 else _("★ Shared win")
    panel.words(label, WINNER_SIZE, colours.GOLD, weight="bold", gap=6)
    for seat in winners[:4]:
        panel.words(names[seat], WINNER_SIZE, colours.TEXT, weight="bold", name=True)
    panel.space(6)
    points = ngettext("{points} point", "{points} points", best).format(points=number(best))
    panel.words(points, WORDS_SIZE, colours.TEXT)
    played = view["rounds_played"]
    rounds = ngettext("{rounds} round played", "{rounds} rounds played", played).format(
        rounds=number(played)
    )
    panel.words(rounds, WORDS_SIZE, colours.MUTED)


def alt_text(view: Mapping[str, Any], names: Sequence[str], stopped: str | None = None) -> str:
    """The table in words: the round, the matchup with its chances, every seat (or the
    final standings; or, for a game stopped without a result, the ``stopped`` sentence and
    every seat as it stood). Every name in full: when that is longer than Discord keeps,
    the rollers are named by number in the bets, then the matchup leaves out the names
    (each seat's role says who rolls and who is the house), and only then is it cut."""
    short = [
        name if len(name) <= ALT_NAME_LIMIT else name[: ALT_NAME_LIMIT - 1] + "…" for name in names
    ]
    text = ""
    for shorter in range(3):
        text = _alt_text(view, short, stopped, shorter)
        if len(text) <= ALT_TEXT_LIMIT:
            return text
    return clip_alt_text(text)


def _alt_text(
    view: Mapping[str, Any], short: Sequence[str], stopped: str | None, shorter: int
) -> str:
    """The alt text in one of its forms: 0 in full, 1 with the bets naming the rollers by
    number, 2 also without names in the matchup or a shared win's winners."""
    parts = []
    halted = stopped is not None and view["phase"] != "finished"
    if view["phase"] == "finished":
        winners = view["result"]["winners"]
        if shorter >= 2 and len(winners) > 1:
            parts.append(
                # Translators: the alt text's shorter form of a shared win; each winner's
                # seat then says "(1st)".
                _("Weighted Dice, final standings: {count} players share the win.").format(
                    count=number(len(winners))
                )
            )
        else:
            parts.append(
                _("Weighted Dice, final standings: {winners} won.").format(
                    winners=names_list([short[s] for s in winners])
                )
            )
    else:
        parts.append(
            _("Weighted Dice, round {round}, first to {target} points.").format(
                round=number(view["round"]), target=number(view["target"])
            )
        )
        if halted:
            assert stopped is not None
            parts.append(stopped)
        elif view["phase"] == "setup":
            if shorter >= 2:
                parts.append(_("The house picks the rollers."))
            else:
                parts.append(
                    _("{house}, the house, picks the rollers.").format(house=short[view["house"]])
                )
        else:
            parts.append(_matchup(view, short, shorter))
    seats = []
    for seat in _seat_order(view):
        role = _role(view, short, seat, halted, by_number=shorter >= 1)[0]
        points = number(view["players"][seat]["points"])
        if role:
            # Translators: one seat in the picture's alt text: "Ann 42 (house)".
            seats.append(
                _("{name} {points} ({role})").format(name=short[seat], points=points, role=role)
            )
        else:
            seats.append(f"{short[seat]} {points}")
    # A heading and a list of "name points (role)" items: no sentence to agree with.
    parts.append(_("Seats:") + " " + "; ".join(seats) + ".")
    return " ".join(parts)


def _matchup(view: Mapping[str, Any], short: Sequence[str], shorter: int) -> str:
    """The round being bet on: each roller's die, chance and the bets on them, the tie."""
    odds = [_chance(o) for o in view["odds"]]
    first, second = view["rollers"]
    fields = {
        "first_die": _die(view["dice"][0]),
        "first_chance": odds[0],
        "first_bets": number(view["bet_totals"][0]),
        "second_die": _die(view["dice"][1]),
        "second_chance": odds[1],
        "second_bets": number(view["bet_totals"][1]),
        "tie_chance": odds[2],
    }
    if shorter >= 2:
        # Translators: the alt text's shorter form of the round (the seats then say who
        # is roller 1, roller 2 and the house).
        return _(
            "Roller 1 rolls a {first_die} ({first_chance} to win, bets {first_bets}) against "
            "roller 2 with a {second_die} ({second_chance}, bets {second_bets}); a tie "
            "({tie_chance}) goes to the house."
        ).format(**fields)
    return _(
        "{first} rolls a {first_die} ({first_chance} to win, bets {first_bets}) "
        "against {second} with a {second_die} ({second_chance}, bets "
        "{second_bets}); a tie ({tie_chance}) goes to the house, {house}."
    ).format(first=short[first], second=short[second], house=short[view["house"]], **fields)
