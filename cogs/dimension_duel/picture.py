"""The Dimension Duel as a picture: both hit-point bars, the last exchange, functions left.

Drawn only from the engine's ``public_view`` (choices appear once revealed in
``last_turn``, never before), so it can never leak a secret. 400 wide, 300 high or a
little more when a long name or a longer language takes a second line:

- one card per player, side by side: name, role this turn (Tau attacks, Kaon defends),
  the hit-point bar with its number, and the damage taken in the last exchange;
- the last exchange beneath each card: the ray and where it was focused, or the shield
  and the region reinforced; the function played; the dice rolled and their total;
- the functions each player has left (tactical mode), up to three lines.

Sent as a message's attachment, which Discord's desktop client shows at up to 550 × 350
(``bot.pictures.picture.DESKTOP_BOX``): at 400 wide and at most 350 high it is shown pixel
for pixel, so every text is 14 px or more as drawn, and a phone, which shows it about 300
px wide, still gets 10 px or more. Both cards (and both exchanges) are laid out together:
a row is as tall as the taller of the two, so they stay side by side.

Colour is never alone: bars carry their numbers, Tau and Kaon their names, damage a
minus sign, the winner the word "wins".

Every word is drawn in the current language (``bot.i18n``), read when the picture is drawn.

Drawn on the palette (``bot.pictures.canvas``): every card, bar, die and line of text is
drawn once (per size) and pasted from then on, and a picture whose inputs did not change
is not drawn again (``remembered``: a player locking in edits the message, not the duel).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from PIL import Image

from bot.i18n import _, number
from bot.pictures import draw
from bot.pictures import palette as colours
from bot.pictures import text as pictures_text
from bot.pictures.canvas import COLOUR_GLYPH_COLOURS, IndexedCanvas, IndexedPalette
from bot.pictures.picture import DESKTOP_BOX, MIN_TEXT_PX, Picture, clip_alt_text, remembered
from cogs.dimension_duel.render import (
    capitalized,
    charges_left,
    function_name,
    ray_name,
    region_name,
    role_name,
    shield_name,
)

FILENAME = "duel.png"
WIDTH, MIN_HEIGHT = 400, 300
MAX_HEIGHT = DESKTOP_BOX["attachment"][1]
MARGIN = 10
GAP = 8
PAD = 10  # inside a card or a panel
CARD_WIDTH = (WIDTH - 2 * MARGIN - GAP) // 2
INNER = CARD_WIDTH - 2 * PAD
CARD_TOP_PAD = 7
# Below a card's words: a gap, the bar (10), a gap and the hit points' line.
HIT_POINTS = 4 + 10 + 14 + 25
DIE = 18

# Text sizes (pixels); a name too wide for its card is drawn smaller, down to MIN_TEXT.
MIN_TEXT = MIN_TEXT_PX
NAME_SIZE = 17
KIT_SIZE = 15
HP_SIZE = 22
DAMAGE_SIZE = 20
WORDS_SIZE = MIN_TEXT

BACKGROUND, CARD = colours.BACKGROUND, colours.SURFACE
PARTICLE = {"tau": colours.TAU, "kaon": colours.KAON}
TEXT_PAIRS = (
    (colours.TEXT, CARD),
    (colours.MUTED, CARD),
    (colours.DANGER, CARD),
    (colours.GOLD, CARD),
    (colours.TAU, CARD),
    (colours.KAON, CARD),
    (colours.MUTED, BACKGROUND),
    (colours.TEXT, BACKGROUND),
)
# Bars carry their number beside them, so the track itself is decoration.
CUES: dict[str, tuple[colours.RGB, colours.RGB]] = {
    "hit points, healthy, on the track": (colours.GOOD, colours.RAISED),
    "hit points, low, on the track": (colours.DANGER, colours.RAISED),
    "winner frame on the background": (colours.GOLD, BACKGROUND),
    "die on the card": (colours.DIE_FACE, CARD),
}
# The picture's palette: its exact colours, a ramp of 16 shades for each text pair (at most
# 7 of 255 levels off what FreeType drew), and the anti-aliased edges of its shapes.
EXACT = (
    BACKGROUND, CARD, colours.RAISED, colours.TEXT, colours.MUTED, colours.DANGER,
    colours.GOLD, colours.TAU, colours.KAON, colours.GOOD, colours.DIE_FACE, colours.PIP,
)  # fmt: skip
RAMP_STEPS = 16


@cache
def _palette() -> IndexedPalette:
    cards = Image.new("RGB", (2 * CARD_WIDTH + 4, 80), BACKGROUND)
    draw.paste_box(cards, (0, 0, CARD_WIDTH, 80), 10, CARD, BACKGROUND, colours.GOLD)
    draw.paste_box(cards, (CARD_WIDTH + 4, 0, 2 * CARD_WIDTH + 4, 80), 10, CARD, BACKGROUND)
    bars = Image.new("RGB", (INNER + 4, 28), CARD)
    draw.bar(bars, (2, 2, INNER + 2, 12), 0.5, colours.GOOD, colours.RAISED, CARD)
    draw.bar(bars, (2, 16, INNER + 2, 26), 0.2, colours.DANGER, colours.RAISED, CARD)
    dice = [draw.die(face, DIE, CARD) for face in range(1, 7)]
    # Two names: room kept for two names' emoji.
    return IndexedPalette(
        EXACT, TEXT_PAIRS, [cards, bars, *dice], RAMP_STEPS, spare=2 * COLOUR_GLYPH_COLOURS
    )


def _die(face: int) -> Image.Image:
    return _palette().sprite(("die", face, DIE, CARD), lambda: draw.die(face, DIE, CARD))


@dataclass(frozen=True)
class Words:
    """One block of words in a card or a panel: its text, size, ink and weight, how many
    lines it may take, and whether it is a player's name."""

    text: str
    size: int
    ink: colours.RGB
    weight: pictures_text.Weight = "regular"
    max_lines: int = 2
    name: bool = False

    def height(self, width: float) -> int:
        """How tall the block is when laid out ``width`` pixels wide."""
        if not self.text.strip():
            return 0
        return self.layout((0, 0, width, 10_000)).bottom

    def layout(self, slot: pictures_text.Box) -> pictures_text.Layout:
        return pictures_text.layout_block(
            slot, self.text, self.size, weight=self.weight, min_size=MIN_TEXT,
            max_lines=self.max_lines, leading=1.2, name=self.name,
        )  # fmt: skip

    def draw(self, image: IndexedCanvas, slot: pictures_text.Box, background: colours.RGB) -> None:
        if self.text.strip():
            image.paste_layout(self.layout(slot), self.ink, background, self.weight)


def _column_left(player: int) -> int:
    return MARGIN + player * (CARD_WIDTH + GAP)


def _rows(blocks: Sequence[Sequence[Words | None]]) -> list[int]:
    """Each row's height: the taller of the two players' blocks in it."""
    return [
        max((block.height(INNER) if block is not None else 0) for block in row) for row in blocks
    ]


@remembered()
def render_duel(
    view: Mapping[str, Any], names: Sequence[str], stopped: str | None = None
) -> Picture:
    """The duel for ``public_view`` and the players' display names (player 0 is Tau).
    ``stopped`` is the sentence for a game stopped without a result (``bot.model.contract.
    stopped_text``): the duel is drawn as it stood, with no turn to come."""
    result = view.get("result")
    winners = set(result["winners"]) if result else set()
    last = view.get("last_turn")
    halted = stopped is not None and not result
    card_rows: list[list[Words | None]] = [
        [Words(names[player], NAME_SIZE, colours.TEXT, "bold", name=True) for player in (0, 1)],
        [_role_words(view, player, player in winners, halted) for player in (0, 1)],
    ]
    exchange_rows = _exchange_rows(view, last, halted)
    left_words = [_functions_left(view, player) for player in (0, 1)]
    card_heights = _rows(card_rows)
    exchange_heights = _rows(exchange_rows)
    # The card: its words, then the bar and the hit points (HIT_POINTS), with a gap.
    card_bottom = MARGIN + CARD_TOP_PAD + sum(card_heights) + HIT_POINTS + 6
    exchange_top = card_bottom + GAP
    dice_row = 0 if last is None else DIE + 4
    exchange_bottom = exchange_top + CARD_TOP_PAD + sum(exchange_heights) + dice_row + 6
    left_top = exchange_bottom + 4
    # The functions left take what room is left under Discord's 350 px, up to four lines:
    # a longer text loses its end (the picture is never shown smaller for it).
    for lines in range(4, 0, -1):
        left_words = [replace(words, max_lines=lines) for words in left_words]
        left_height = max(words.height(CARD_WIDTH - 8) for words in left_words)
        if left_top + left_height + 6 <= MAX_HEIGHT:
            break
    height = min(MAX_HEIGHT, max(MIN_HEIGHT, left_top + left_height + 6))
    palette = _palette()
    image = IndexedCanvas(palette, Image.new("P", (WIDTH, height), palette.index_of(BACKGROUND)))
    for player in (0, 1):
        left = _column_left(player)
        right = left + CARD_WIDTH
        inner = left + PAD
        won = player in winners
        image.box((left, MARGIN, right, card_bottom), 10, CARD, BACKGROUND,
                  colours.GOLD if won else None)  # fmt: skip
        y = MARGIN + CARD_TOP_PAD
        for row, row_height in zip(card_rows, card_heights, strict=True):
            words = row[player]
            if words is not None:
                words.draw(image, (inner, y, inner + INNER, y + row_height), CARD)
            y += row_height
        _draw_hit_points(image, view, player, inner, right - PAD, y + 4, last)
        image.box((left, exchange_top, right, exchange_bottom), 10, CARD, BACKGROUND)
        y = exchange_top + CARD_TOP_PAD
        for row, row_height in zip(exchange_rows, exchange_heights, strict=True):
            words = row[player]
            if words is not None:
                words.draw(image, (inner, y, inner + INNER, y + row_height), CARD)
            y += row_height
        if last is not None:
            _draw_dice(image, last, player, inner, y + 2, inner + INNER)
        left_words[player].draw(
            image, (left + 4, left_top, left + CARD_WIDTH - 4, height - 2), BACKGROUND
        )
    return Picture(
        png=image.png(),
        alt_text=alt_text(view, names, stopped),
        filename=FILENAME,
        width=WIDTH,
        height=height,
    )


def _role_words(view: Mapping[str, Any], player: int, won: bool, halted: bool) -> Words:
    if won:
        # Translators: picture, the winner's card ("Tau" or "Kaon").
        return Words(_("★ {side} wins").format(side=role_name(player)), WORDS_SIZE,
                     colours.GOLD, "bold")  # fmt: skip
    line, ink = _role_line(view, player, halted)
    return Words(line, WORDS_SIZE, ink)


def _role_line(
    view: Mapping[str, Any], player: int, halted: bool = False
) -> tuple[str, colours.RGB]:
    if view.get("result"):
        return role_name(player), colours.MUTED
    if halted:
        # Translators: picture, a player's side in a game stopped without a result,
        # such as "Tau · stopped".
        return _("{side} · stopped").format(side=role_name(player)), colours.MUTED
    turn = number(view["turn"])
    if view["attacker"] == player:
        # Translators: picture, a player's side and role, such as "Tau · attacks on turn 3".
        line = _("{side} · attacks on turn {turn}").format(side=role_name(player), turn=turn)
    else:
        line = _("{side} · defends on turn {turn}").format(side=role_name(player), turn=turn)
    return line, colours.MUTED


def _draw_hit_points(
    image: IndexedCanvas,
    view: Mapping[str, Any],
    player: int,
    inner: int,
    right: int,
    top: int,
    last: Mapping[str, Any] | None,
) -> None:
    """The bar, then the hit points left out of the start ("52 / 75 HP") and the damage
    taken in the last exchange on the right ("−8")."""
    hp, start = max(0, view["hp"][player]), view["start_hp"]
    share = hp / start if start else 0
    fill = colours.GOOD if share > 0.3 else colours.DANGER
    image.bar((inner, top, right, top + 10), share, fill, colours.RAISED, CARD)
    line_top = top + 14
    baseline = line_top + 20
    slot = (inner, line_top, right, line_top + 25)
    lost_left = right
    if last is not None and last["damage"][player]:
        lost = f"−{number(last['damage'][player])}"
        lost_left = right - pictures_text.line(lost, DAMAGE_SIZE, "bold").span - 6
        image.text((right, baseline), lost, DAMAGE_SIZE, colours.DANGER, CARD, weight="bold",
                   anchor="rs", slot=slot)  # fmt: skip
    shown = number(hp)
    hp_slot = (inner, line_top, lost_left, line_top + 25)
    hp_width = image.text((inner, baseline), shown, HP_SIZE, colours.TEXT, CARD, weight="bold",
                          anchor="ls", slot=hp_slot)  # fmt: skip
    # Translators: picture, after a player's hit points ("52 / 75 HP"); HP is hit points.
    out_of = _("/ {start} HP").format(start=number(start))
    after = inner + hp_width + 4
    out_slot = (after, line_top, lost_left, line_top + 25)
    image.text((after, baseline), out_of, WORDS_SIZE, colours.MUTED, CARD, anchor="ls",
               slot=out_slot)  # fmt: skip


def _exchange_rows(
    view: Mapping[str, Any], last: Mapping[str, Any] | None, halted: bool
) -> list[list[Words | None]]:
    """The last exchange in both panels, row by row: the turn and what each did, the ray
    or shield, where, the function (the dice follow); or one line before any exchange."""
    if last is None:
        if halted:
            # Translators: picture, a game stopped before its first exchange.
            return [[Words(_("no exchange"), WORDS_SIZE, colours.MUTED, max_lines=3)] * 2]
        return [
            [
                Words(_("Turn 1: Tau attacks first"), WORDS_SIZE, colours.MUTED, max_lines=3),
                Words(_("no exchange yet"), WORDS_SIZE, colours.MUTED, max_lines=3),
            ]
        ]
    rows: list[list[Words | None]] = [[], [], [], []]
    turn = number(last["turn"])
    for player in (0, 1):
        choice = last["choices"][player]
        attacking = last["attacker"] == player
        device = last["ray"] if attacking else last["shield"]
        # Translators: picture, what a player did in the last turn: "Turn 3: attack".
        heading = (
            _("Turn {turn}: attack").format(turn=turn)
            if attacking
            else _("Turn {turn}: defence").format(turn=turn)
        )
        kit = capitalized(ray_name(device) if attacking else shield_name(device))
        region = region_name(choice["region"])
        # Translators: picture, the region an attacker focused on / a defender reinforced.
        where = (
            _("Focus: {region}").format(region=region)
            if attacking
            else _("Reinforced: {region}").format(region=region)
        )
        rows[0].append(Words(heading, WORDS_SIZE, colours.MUTED, "bold"))
        rows[1].append(Words(kit, KIT_SIZE, PARTICLE[device], "bold"))
        rows[2].append(Words(where, WORDS_SIZE, colours.TEXT))
        rows[3].append(Words(function_name(choice["function"]), WORDS_SIZE, colours.TEXT))
    return rows


def _draw_dice(
    image: IndexedCanvas, last: Mapping[str, Any], player: int, left: int, top: int, right: int
) -> None:
    slot = (left, top - 2, right, top + DIE + 2)
    middle = top + DIE / 2
    if last["disrupted"]:
        image.text((left, middle), _("disrupted: no dice"), WORDS_SIZE, colours.MUTED, CARD,
                   slot=slot)  # fmt: skip
        return
    faces: list[int] = last["faces"][player]
    if not faces:
        image.text((left, middle), _("no dice"), WORDS_SIZE, colours.MUTED, CARD, slot=slot)
        return
    total = sum(faces)
    label = f"= {number(total)}" + (
        f" ×{number(last['multiplier'])}" if last["multiplier"] > 1 else ""
    )
    room = right - left - pictures_text.line("… " + label, WORDS_SIZE, "bold").span - 4
    shown = faces[: max(1, room // (DIE + 3))]
    if len(shown) < len(faces):
        label = "… " + label
    x = left
    for face in shown:
        image.paste(_die(face), (x, top))
        x += DIE + 3
    image.text((x + 2, middle), label, WORDS_SIZE, colours.TEXT, CARD, weight="bold",
               slot=(x, top - 2, right, top + DIE + 2))  # fmt: skip


def _functions_left(view: Mapping[str, Any], player: int) -> Words:
    charges = view.get("charges")
    if charges is None:
        words = _("Classic mode: the dice choose every move.")
    elif charges_left(charges[player]):
        # Translators: picture, the special functions a player has left this game.
        words = _("Left: {functions}").format(functions=charges_left(charges[player]))
    else:
        # Translators: picture, a player has no special function left, only Bluff.
        words = _("Left: only Bluff")
    return Words(words, WORDS_SIZE, colours.MUTED, max_lines=4)


def alt_text(view: Mapping[str, Any], names: Sequence[str], stopped: str | None = None) -> str:
    """Hit points, the last exchange and the functions left, in words; whose attack comes
    next, or for a game stopped without a result the ``stopped`` sentence."""
    short = [name if len(name) <= 40 else name[:39] + "…" for name in names]
    parts = [_("Dimension Duel") + "."]
    for player in (0, 1):
        parts.append(
            # Translators: picture alt text, such as "Alice (Tau): 52 of 75 hit points."
            _("{player} ({side}): {hp} of {start} hit points.").format(
                player=short[player],
                side=role_name(player),
                hp=number(max(0, view["hp"][player])),
                start=number(view["start_hp"]),
            )
        )
    last = view.get("last_turn")
    if last is not None:
        attacker, defender = last["attacker"], 1 - last["attacker"]
        attack, defence = last["choices"][attacker], last["choices"][defender]
        parts.append(
            # Translators: picture alt text, the attacker's choices in the last turn.
            _("Turn {turn}: {attacker} attacked: {ray}, focus {region}, {function}.").format(
                turn=number(last["turn"]),
                attacker=short[attacker],
                ray=ray_name(last["ray"]),
                region=region_name(attack["region"]),
                function=function_name(attack["function"]),
            )
        )
        parts.append(
            # Translators: picture alt text, the defender's choices in the last turn.
            _("{defender} defended: {shield}, reinforced {region}, {function}.").format(
                defender=short[defender],
                shield=shield_name(last["shield"]),
                region=region_name(defence["region"]),
                function=function_name(defence["function"]),
            )
        )
        if last["disrupted"]:
            parts.append(_("Disrupted: no dice, no damage."))
        else:
            for player in (attacker, defender):
                faces = last["faces"][player]
                damage = number(last["damage"][player])
                if faces:
                    parts.append(
                        _("{player} rolled {faces}; took {damage} damage.").format(
                            player=short[player], faces=", ".join(map(str, faces)), damage=damage
                        )
                    )
                else:
                    parts.append(
                        _("{player} rolled nothing; took {damage} damage.").format(
                            player=short[player], damage=damage
                        )
                    )
    result = view.get("result")
    if result:
        winners = result["winners"]
        parts.append(
            _("{player} wins.").format(player=short[winners[0]])
            if winners
            else _("Both fell: a draw.")
        )
    elif stopped is not None:
        parts.append(stopped)
    else:
        parts.append(
            _("Turn {turn}: {player} attacks.").format(
                turn=number(view["turn"]), player=short[view["attacker"]]
            )
        )
    charges = view.get("charges")
    if charges is not None:
        for p in (0, 1):
            left = charges_left(charges[p])
            if left:
                parts.append(
                    _("{player} has {functions} left.").format(player=short[p], functions=left)
                )
            else:
                parts.append(_("{player} has only Bluff left.").format(player=short[p]))
    return clip_alt_text(" ".join(parts))
