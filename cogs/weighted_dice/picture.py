"""The Weighted Dice table as a picture: seats and points toward the target, the house,
the two rollers with their dice and each side's chance, bets as they come in, and the
standings at the end.

Drawn from the engine's ``public_view`` (everything in this game is public) and the
seats' display names. 400 wide (what the desktop shows an embed image at), 300 high for
up to 8 seats and taller for more, one row per seat:

- left, the seats: name, a bar of points toward the target with the number, and what the
  seat does this round in words (house, rolls the d8, bet 10 on Ann, left);
- right, the round: each roller with their die and chance to win, the tie that goes to
  the house, and the bets on each side; at the end, the winner and the final ranks; for a
  game stopped without a result, that it stopped.

The alt text names every seat in full (names are at most 32 characters on Discord; a
longer stored one is shortened at 40, as in the other games). Twelve long names and every
bet do not fit Discord's 1,024 characters in every language: the text then names the
rollers by number in the bets, and then leaves the names out of the round's matchup (each
seat's role says who rolls and who is the house), before anything is cut.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from PIL import Image

from bot.i18n import N_, _, ngettext, number, percent
from bot.pictures import draw
from bot.pictures import palette as colours
from bot.pictures import text as pictures_text
from bot.pictures.picture import ALT_TEXT_LIMIT, Picture, clip_alt_text

FILENAME = "table.png"
WIDTH = 400
MIN_HEIGHT = 300
MARGIN = 10
HEADER = 30
ROW = 24
LIST_WIDTH = 252
PANEL_LEFT = MARGIN + LIST_WIDTH + 8
NAME_WIDTH = 78
BAR_LEFT = MARGIN + 10 + NAME_WIDTH + 6
BAR_WIDTH = 34

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


def render_table(
    view: Mapping[str, Any], names: Sequence[str], stopped: str | None = None
) -> Picture:
    """The table for ``public_view`` and the seats' display names (seat order).
    ``stopped`` is the sentence for a game stopped without a result (``bot.model.contract.
    stopped_text``): the table is drawn as it stood, with nothing more to come."""
    seats = view["n_players"]
    height = height_for(seats)
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
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
    pictures_text.draw_text(image, (MARGIN, MARGIN + 12), heading, 15, colours.TEXT, BACKGROUND,
                            weight="bold", max_width=LIST_WIDTH)  # fmt: skip
    pictures_text.draw_text(image, (WIDTH - MARGIN, MARGIN + 12), _(phase), 13,
                            colours.MUTED, BACKGROUND, anchor="rm",
                            max_width=WIDTH - PANEL_LEFT)  # fmt: skip
    _draw_seats(image, view, names, height, halted)
    if halted:
        _draw_stopped(image, view, height)
    else:
        _draw_round(image, view, names, height)
    return Picture(
        png=draw.encode(image),
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
    rather than by name (the alt text's shorter forms)."""
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
            # Translators: a seat's role in the alt text's shorter form, e.g. "roller 1,
            # d8" (the bets then say "10 on roller 1").
            return _("roller {number}, {die}").format(number=index + 1, die=die), colours.TEXT
        # Translators: a seat's role in the picture, e.g. "rolls d8".
        return _("rolls {die}").format(die=die), colours.TEXT
    bet = next((b for b in view["bets"] if b["player"] == seat), None)
    if bet is not None:
        amount = number(bet["amount"])
        if by_number:
            # Translators: a seat's bet in the alt text's shorter form, e.g. "10 on roller 1".
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
    image: Image.Image,
    view: Mapping[str, Any],
    names: Sequence[str],
    height: int,
    halted: bool = False,
) -> None:
    top = MARGIN + HEADER
    draw.paste_box(image, (MARGIN, top, MARGIN + LIST_WIDTH, height - MARGIN), 10, CARD,
                   BACKGROUND)  # fmt: skip
    target = view["target"]
    for row, seat in enumerate(_seat_order(view)):
        y = top + 6 + row * ROW + ROW / 2
        player = view["players"][seat]
        ink = colours.TEXT if player["active"] else colours.MUTED
        pictures_text.draw_text(image, (MARGIN + 10, y), names[seat], 13, ink, CARD,
                                weight="bold", max_width=NAME_WIDTH)  # fmt: skip
        points = player["points"]
        draw.bar(image, (BAR_LEFT, y - 3, BAR_LEFT + BAR_WIDTH, y + 3), points / target,
                 colours.GOLD, colours.RAISED, CARD)  # fmt: skip
        pictures_text.draw_text(image, (BAR_LEFT + BAR_WIDTH + 5, y), number(points), 13,
                                colours.TEXT, CARD, weight="bold")  # fmt: skip
        role, role_ink = _role(view, names, seat, halted)
        if role:
            role_left = BAR_LEFT + BAR_WIDTH + 32
            pictures_text.draw_text(image, (role_left, y), role, 12, role_ink, CARD,
                                    max_width=MARGIN + LIST_WIDTH - 8 - role_left)  # fmt: skip


def _draw_round(
    image: Image.Image, view: Mapping[str, Any], names: Sequence[str], height: int
) -> None:
    left, right = PANEL_LEFT, WIDTH - MARGIN
    top = MARGIN + HEADER
    draw.paste_box(image, (left, top, right, height - MARGIN), 10, CARD, BACKGROUND)
    inner, width = left + 10, right - left - 20
    if view["phase"] == "finished":
        _draw_winners(image, view, names, inner, top, width)
        return
    if view["phase"] == "setup":
        house = names[view["house"]]
        lines: list[tuple[str, colours.RGB, pictures_text.Weight]]
        # Translators: short lines in the picture's narrow panel: "House", the house's
        # name, then "picks two rollers and their dice" (wrapped, 3 lines at most).
        lines = [(_("House"), colours.MUTED, "regular"), (house, colours.TEXT, "bold")]
        picks = pictures_text.wrap(_("picks two rollers and their dice"), 13, width, max_lines=3)
        lines.extend((words, colours.MUTED, "regular") for words in picks)
        for index, (words, ink, weight) in enumerate(lines):
            pictures_text.draw_text(image, (inner, top + 18 + 20 * index), words, 13, ink, CARD,
                                    weight=weight, max_width=width)  # fmt: skip
        return
    odds = view["odds"]
    totals = view["bet_totals"]
    y = top + 10
    for side, seat in enumerate(view["rollers"]):
        sides = view["dice"][side]
        chip = draw.rounded_box((34, 22), 6, colours.DIE_FACE, CARD)
        image.paste(chip, (inner, y))
        pictures_text.draw_text(image, (inner + 17, y + 11), _die(sides), 13,
                                colours.INK_ON_LIGHT, colours.DIE_FACE, weight="bold",
                                anchor="mm")  # fmt: skip
        pictures_text.draw_text(image, (inner + 42, y + 11), names[seat], 13, colours.TEXT,
                                CARD, weight="bold", max_width=width - 42)  # fmt: skip
        pictures_text.draw_text(image, (inner, y + 38), _chance(odds[side]), 22, colours.TEXT,
                                CARD, weight="bold", anchor="ls")  # fmt: skip
        chance_width = pictures_text.width(_chance(odds[side]), 22, "bold")
        # Translators: after a roller's chance in the picture: "62% to win".
        pictures_text.draw_text(image, (inner + chance_width + 5, y + 38), _("to win"), 12,
                                colours.MUTED, CARD, anchor="ls",
                                max_width=width - chance_width - 5)  # fmt: skip
        # Translators: the points bet on a roller so far, in the picture: "bets on: 25".
        bets_on = _("bets on: {points}").format(points=number(totals[side]))
        pictures_text.draw_text(image, (inner, y + 54), bets_on, 12,
                                colours.GOOD if totals[side] else colours.MUTED, CARD,
                                max_width=width)  # fmt: skip
        y += 72
    # Translators: the chance of a tie in the picture, followed by "the house wins".
    tie = _("Tie {chance}:").format(chance=_chance(odds[2]))
    pictures_text.draw_text(image, (inner, y + 2), tie, 12,
                            colours.ACCENT, CARD, weight="bold", max_width=width)  # fmt: skip
    pictures_text.draw_text(image, (inner, y + 18), _("the house wins"), 12, colours.ACCENT, CARD,
                            max_width=width)  # fmt: skip
    waiting = len(view["to_act"])
    if waiting:
        words = ngettext("{count} still to bet", "{count} still to bet", waiting).format(
            count=number(waiting)
        )
        pictures_text.draw_text(image, (inner, y + 40), words, 12, colours.MUTED, CARD,
                                max_width=width)  # fmt: skip


def _draw_stopped(image: Image.Image, view: Mapping[str, Any], height: int) -> None:
    """The round panel of a game stopped without a result: that it stopped, after how
    many rounds."""
    left, right = PANEL_LEFT, WIDTH - MARGIN
    top = MARGIN + HEADER
    draw.paste_box(image, (left, top, right, height - MARGIN), 10, CARD, BACKGROUND)
    inner, width = left + 10, right - left - 20
    # Translators: the picture's narrow panel for a game stopped without a result:
    # "■ Stopped", then "no result counts" (wrapped, 3 lines at most).
    pictures_text.draw_text(image, (inner, top + 18), _("■ Stopped"), 14, colours.TEXT, CARD,
                            weight="bold", max_width=width)  # fmt: skip
    lines = pictures_text.wrap(_("no result counts"), 13, width, max_lines=3)
    for index, words in enumerate(lines):
        pictures_text.draw_text(image, (inner, top + 40 + 18 * index), words, 13, colours.MUTED,
                                CARD, max_width=width)  # fmt: skip
    played = view["rounds_played"]
    rounds = ngettext("{rounds} round played", "{rounds} rounds played", played).format(
        rounds=number(played)
    )
    pictures_text.draw_text(image, (inner, top + 44 + 18 * len(lines)), rounds, 12,
                            colours.MUTED, CARD, max_width=width)  # fmt: skip


def _draw_winners(
    image: Image.Image,
    view: Mapping[str, Any],
    names: Sequence[str],
    inner: int,
    top: int,
    width: int,
) -> None:
    result = view["result"]
    winners = result["winners"]
    best = view["players"][winners[0]]["points"]
    y = top + 18
    label = _("★ Winner") if len(winners) == 1 else _("★ Shared win")
    pictures_text.draw_text(image, (inner, y), label, 14, colours.GOLD, CARD, weight="bold",
                            max_width=width)  # fmt: skip
    for seat in winners[:4]:
        y += 22
        pictures_text.draw_text(image, (inner, y), names[seat], 15, colours.TEXT, CARD,
                                weight="bold", max_width=width)  # fmt: skip
    y += 24
    points = ngettext("{points} point", "{points} points", best).format(points=number(best))
    pictures_text.draw_text(image, (inner, y), points, 13, colours.TEXT, CARD, max_width=width)
    played = view["rounds_played"]
    rounds = ngettext("{rounds} round played", "{rounds} rounds played", played).format(
        rounds=number(played)
    )
    pictures_text.draw_text(image, (inner, y + 20), rounds, 12, colours.MUTED, CARD,
                            max_width=width)  # fmt: skip


def names_list(names: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    if len(names) == 1:
        return names[0]
    # Translators: joins the last name of a list to the others: "Ann, Bo and Cy".
    return _("{others} and {last}").format(others=", ".join(names[:-1]), last=names[-1])


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
