"""The Dimension Duel as a picture: both hit-point bars, the last exchange, functions left.

Drawn only from the engine's ``public_view`` (choices appear once revealed in
``last_turn``, never before), so it can never leak a secret. 400 × 300:

- one card per player, side by side: name, role this turn (Tau attacks, Kaon defends),
  the hit-point bar with its number, and the damage taken in the last exchange;
- the last exchange beneath each card: the ray and where it was focused, or the shield
  and the region reinforced; the function played; the dice rolled and their total;
- the functions each player has left (tactical mode).

Colour is never alone: bars carry their numbers, Tau and Kaon their names, damage a
minus sign, the winner the word "wins".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image

from bot.pictures import draw
from bot.pictures import palette as colours
from bot.pictures import text as pictures_text
from bot.pictures.picture import Picture, clip_alt_text
from cogs.duel_render import (
    DUEL_ROLES,
    FUNCTION_NAMES,
    REGION_NAMES,
    charges_left,
    ray_name,
    shield_name,
)

FILENAME = "duel.png"
WIDTH, HEIGHT = 400, 300
MARGIN = 10
GAP = 8
CARD_WIDTH = (WIDTH - 2 * MARGIN - GAP) // 2
CARD_TOP, CARD_BOTTOM = MARGIN, 106
EXCHANGE_TOP, EXCHANGE_BOTTOM = 114, 236
LEFT_TOP = 244
DIE = 18

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


def _card_box(player: int) -> tuple[int, int, int, int]:
    left = MARGIN + player * (CARD_WIDTH + GAP)
    return left, CARD_TOP, left + CARD_WIDTH, CARD_BOTTOM


def render_duel(view: Mapping[str, Any], names: Sequence[str]) -> Picture:
    """The duel for ``public_view`` and the players' display names (player 0 is Tau)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    result = view.get("result")
    winners = set(result["winners"]) if result else set()
    last = view.get("last_turn")
    for player in (0, 1):
        _draw_card(image, view, names, player, player in winners)
        _draw_exchange(image, view, names, player, last)
    _draw_functions_left(image, view)
    return Picture(
        png=draw.encode(image),
        alt_text=alt_text(view, names),
        filename=FILENAME,
        width=WIDTH,
        height=HEIGHT,
    )


def _role_line(view: Mapping[str, Any], player: int) -> tuple[str, colours.RGB]:
    if view.get("result"):
        return DUEL_ROLES[player], colours.MUTED
    attacking = view["attacker"] == player
    return (
        f"{DUEL_ROLES[player]} · {'attacks' if attacking else 'defends'} on turn {view['turn']}",
        colours.MUTED,
    )


def _draw_card(
    image: Image.Image, view: Mapping[str, Any], names: Sequence[str], player: int, won: bool
) -> None:
    left, top, right, bottom = _card_box(player)
    outline = colours.GOLD if won else None
    draw.paste_box(image, (left, top, right, bottom), 10, CARD, BACKGROUND, outline)
    inner, width = left + 10, right - left - 20
    pictures_text.draw_text(image, (inner, top + 18), names[player], 17, colours.TEXT, CARD,
                            weight="bold", max_width=width)  # fmt: skip
    role, ink = _role_line(view, player)
    if won:
        role, ink = f"★ {DUEL_ROLES[player]} wins", colours.GOLD
    pictures_text.draw_text(image, (inner, top + 40), role, 13, ink, CARD,
                            weight="bold" if won else "regular", max_width=width)  # fmt: skip
    hp, start = max(0, view["hp"][player]), view["start_hp"]
    share = hp / start if start else 0
    fill = colours.GOOD if share > 0.3 else colours.DANGER
    draw.bar(image, (inner, top + 56, right - 10, top + 66), share, fill, colours.RAISED, CARD)
    pictures_text.draw_text(image, (inner, bottom - 14), str(hp), 22, colours.TEXT, CARD,
                            weight="bold", anchor="ls")  # fmt: skip
    hp_width = pictures_text.width(str(hp), 22, "bold")
    pictures_text.draw_text(image, (inner + hp_width + 4, bottom - 14), f"/ {start} HP", 13,
                            colours.MUTED, CARD, anchor="ls")  # fmt: skip
    last = view.get("last_turn")
    if last is not None and last["damage"][player]:
        pictures_text.draw_text(image, (right - 10, bottom - 14), f"−{last['damage'][player]}",
                                20, colours.DANGER, CARD, weight="bold", anchor="rs")  # fmt: skip


def _draw_exchange(
    image: Image.Image,
    view: Mapping[str, Any],
    names: Sequence[str],
    player: int,
    last: Mapping[str, Any] | None,
) -> None:
    left = _card_box(player)[0]
    right = left + CARD_WIDTH
    draw.paste_box(image, (left, EXCHANGE_TOP, right, EXCHANGE_BOTTOM), 10, CARD, BACKGROUND)
    inner, width = left + 10, CARD_WIDTH - 20
    if last is None:
        line = "Turn 1: Tau attacks first" if player == 0 else "no exchange yet"
        pictures_text.draw_text(image, (inner, EXCHANGE_TOP + 18), line, 13, colours.MUTED,
                                CARD, max_width=width)  # fmt: skip
        return
    choice = last["choices"][player]
    attacking = last["attacker"] == player
    device = last["ray"] if attacking else last["shield"]
    heading = f"Turn {last['turn']}: {'attack' if attacking else 'defence'}"
    pictures_text.draw_text(image, (inner, EXCHANGE_TOP + 16), heading, 13, colours.MUTED, CARD,
                            weight="bold", max_width=width)  # fmt: skip
    kit = ray_name(device) if attacking else shield_name(device)
    pictures_text.draw_text(image, (inner, EXCHANGE_TOP + 36), kit, 15, PARTICLE[device], CARD,
                            weight="bold", max_width=width)  # fmt: skip
    region = REGION_NAMES[choice["region"]]
    where = f"focused on the {region}" if attacking else f"reinforcing the {region}"
    pictures_text.draw_text(image, (inner, EXCHANGE_TOP + 55), where, 13, colours.TEXT, CARD,
                            max_width=width)  # fmt: skip
    function = FUNCTION_NAMES[choice["function"]]
    pictures_text.draw_text(image, (inner, EXCHANGE_TOP + 74), function, 13, colours.TEXT, CARD,
                            max_width=width)  # fmt: skip
    _draw_dice(image, last, player, inner, EXCHANGE_TOP + 92, width)


def _draw_dice(
    image: Image.Image, last: Mapping[str, Any], player: int, left: int, top: int, width: int
) -> None:
    if last["disrupted"]:
        pictures_text.draw_text(image, (left, top + DIE / 2), "disrupted: no dice", 13,
                                colours.MUTED, CARD)  # fmt: skip
        return
    faces: list[int] = last["faces"][player]
    if not faces:
        pictures_text.draw_text(image, (left, top + DIE / 2), "no dice", 13, colours.MUTED, CARD)
        return
    x = left
    shown = faces[: max(1, (width - 50) // (DIE + 3))]
    for face in shown:
        image.paste(draw.die(face, DIE, CARD), (x, top))
        x += DIE + 3
    total = sum(faces)
    label = f"= {total}" + (f" ×{last['multiplier']}" if last["multiplier"] > 1 else "")
    if len(shown) < len(faces):
        label = "… " + label
    pictures_text.draw_text(image, (x + 2, top + DIE / 2), label, 14, colours.TEXT, CARD,
                            weight="bold")  # fmt: skip


def _draw_functions_left(image: Image.Image, view: Mapping[str, Any]) -> None:
    charges = view.get("charges")
    for player in (0, 1):
        left = _card_box(player)[0]
        if charges is None:
            words = "Classic mode: the dice choose every move."
        else:
            words = "Left: " + charges_left(charges[player])
        lines = pictures_text.wrap(words, 12, CARD_WIDTH - 8, max_lines=2)
        for index, shown in enumerate(lines):
            pictures_text.draw_text(image, (left + 4, LEFT_TOP + 10 + 18 * index), shown, 12,
                                    colours.MUTED, BACKGROUND)  # fmt: skip


def alt_text(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """Hit points, the last exchange and the functions left, in words."""
    short = [name if len(name) <= 40 else name[:39] + "…" for name in names]
    parts = ["Dimension Duel."]
    for player in (0, 1):
        parts.append(
            f"{short[player]} ({DUEL_ROLES[player]}): {max(0, view['hp'][player])} of "
            f"{view['start_hp']} hit points."
        )
    last = view.get("last_turn")
    if last is not None:
        attacker, defender = last["attacker"], 1 - last["attacker"]
        attack, defence = last["choices"][attacker], last["choices"][defender]
        parts.append(
            f"Turn {last['turn']}: {short[attacker]} fired a {ray_name(last['ray'])} at the "
            f"{REGION_NAMES[attack['region']]} with {FUNCTION_NAMES[attack['function']]}; "
            f"{short[defender]} held an {shield_name(last['shield'])} on the "
            f"{REGION_NAMES[defence['region']]} with {FUNCTION_NAMES[defence['function']]}."
        )
        if last["disrupted"]:
            parts.append("Disrupted: no dice, no damage.")
        else:
            for player in (attacker, defender):
                faces = last["faces"][player]
                rolled = f"rolled {', '.join(map(str, faces))}" if faces else "rolled nothing"
                parts.append(f"{short[player]} {rolled}; took {last['damage'][player]} damage.")
    result = view.get("result")
    if result:
        winners = result["winners"]
        parts.append(f"{short[winners[0]]} wins." if winners else "Both fell: a draw.")
    else:
        parts.append(f"Turn {view['turn']}: {short[view['attacker']]} attacks.")
    charges = view.get("charges")
    if charges is not None:
        parts.extend(f"{short[p]} has {charges_left(charges[p])} left." for p in (0, 1))
    return clip_alt_text(" ".join(parts))
