"""The Dimension Duel as a picture: both hit-point bars, the last exchange, functions left.

Drawn only from the engine's ``public_view`` (choices appear once revealed in
``last_turn``, never before), so it can never leak a secret. 400 × 300:

- one card per player, side by side: name, role this turn (Tau attacks, Kaon defends),
  the hit-point bar with its number, and the damage taken in the last exchange;
- the last exchange beneath each card: the ray and where it was focused, or the shield
  and the region reinforced; the function played; the dice rolled and their total;
- the functions each player has left (tactical mode), up to three lines (longer languages).

Colour is never alone: bars carry their numbers, Tau and Kaon their names, damage a
minus sign, the winner the word "wins".

Every word is drawn in the current language (``bot.i18n``), read when the picture is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image

from bot.i18n import _, number
from bot.pictures import draw
from bot.pictures import palette as colours
from bot.pictures import text as pictures_text
from bot.pictures.picture import Picture, clip_alt_text
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


def render_duel(
    view: Mapping[str, Any], names: Sequence[str], stopped: str | None = None
) -> Picture:
    """The duel for ``public_view`` and the players' display names (player 0 is Tau).
    ``stopped`` is the sentence for a game stopped without a result (``bot.model.contract.
    stopped_text``): the duel is drawn as it stood, with no turn to come."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    result = view.get("result")
    winners = set(result["winners"]) if result else set()
    last = view.get("last_turn")
    halted = stopped is not None and not result
    for player in (0, 1):
        _draw_card(image, view, names, player, player in winners, halted)
        _draw_exchange(image, view, names, player, last, halted)
    _draw_functions_left(image, view)
    return Picture(
        png=draw.encode(image),
        alt_text=alt_text(view, names, stopped),
        filename=FILENAME,
        width=WIDTH,
        height=HEIGHT,
    )


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


def _draw_card(
    image: Image.Image,
    view: Mapping[str, Any],
    names: Sequence[str],
    player: int,
    won: bool,
    halted: bool = False,
) -> None:
    left, top, right, bottom = _card_box(player)
    outline = colours.GOLD if won else None
    draw.paste_box(image, (left, top, right, bottom), 10, CARD, BACKGROUND, outline)
    inner, width = left + 10, right - left - 20
    pictures_text.draw_text(image, (inner, top + 18), names[player], 17, colours.TEXT, CARD,
                            weight="bold", max_width=width)  # fmt: skip
    role, ink = _role_line(view, player, halted)
    if won:
        # Translators: picture, the winner's card ("Tau" or "Kaon").
        role, ink = _("★ {side} wins").format(side=role_name(player)), colours.GOLD
    pictures_text.draw_text(image, (inner, top + 40), role, 13, ink, CARD,
                            weight="bold" if won else "regular", max_width=width)  # fmt: skip
    hp, start = max(0, view["hp"][player]), view["start_hp"]
    share = hp / start if start else 0
    fill = colours.GOOD if share > 0.3 else colours.DANGER
    draw.bar(image, (inner, top + 56, right - 10, top + 66), share, fill, colours.RAISED, CARD)
    shown = number(hp)
    pictures_text.draw_text(image, (inner, bottom - 14), shown, 22, colours.TEXT, CARD,
                            weight="bold", anchor="ls")  # fmt: skip
    hp_width = pictures_text.width(shown, 22, "bold")
    # Translators: picture, after a player's hit points ("52 / 75 HP"); HP is hit points.
    out_of = _("/ {start} HP").format(start=number(start))
    pictures_text.draw_text(image, (inner + hp_width + 4, bottom - 14), out_of, 13,
                            colours.MUTED, CARD, anchor="ls",
                            max_width=right - 10 - (inner + hp_width + 4))  # fmt: skip
    last = view.get("last_turn")
    if last is not None and last["damage"][player]:
        lost = f"−{number(last['damage'][player])}"
        pictures_text.draw_text(image, (right - 10, bottom - 14), lost, 20, colours.DANGER, CARD,
                                weight="bold", anchor="rs")  # fmt: skip


def _draw_exchange(
    image: Image.Image,
    view: Mapping[str, Any],
    names: Sequence[str],
    player: int,
    last: Mapping[str, Any] | None,
    halted: bool = False,
) -> None:
    left = _card_box(player)[0]
    right = left + CARD_WIDTH
    draw.paste_box(image, (left, EXCHANGE_TOP, right, EXCHANGE_BOTTOM), 10, CARD, BACKGROUND)
    inner, width = left + 10, CARD_WIDTH - 20
    if last is None:
        if halted:
            # Translators: picture, a game stopped before its first exchange.
            line = _("no exchange")
        else:
            line = _("Turn 1: Tau attacks first") if player == 0 else _("no exchange yet")
        pictures_text.draw_text(image, (inner, EXCHANGE_TOP + 18), line, 13, colours.MUTED,
                                CARD, max_width=width)  # fmt: skip
        return
    choice = last["choices"][player]
    attacking = last["attacker"] == player
    device = last["ray"] if attacking else last["shield"]
    turn = number(last["turn"])
    # Translators: picture, what a player did in the last turn: "Turn 3: attack".
    heading = (
        _("Turn {turn}: attack").format(turn=turn)
        if attacking
        else _("Turn {turn}: defence").format(turn=turn)
    )
    pictures_text.draw_text(image, (inner, EXCHANGE_TOP + 16), heading, 13, colours.MUTED, CARD,
                            weight="bold", max_width=width)  # fmt: skip
    kit = capitalized(ray_name(device) if attacking else shield_name(device))
    pictures_text.draw_text(image, (inner, EXCHANGE_TOP + 36), kit, 15, PARTICLE[device], CARD,
                            weight="bold", max_width=width)  # fmt: skip
    region = region_name(choice["region"])
    # Translators: picture, the region an attacker focused on / a defender reinforced.
    where = (
        _("Focus: {region}").format(region=region)
        if attacking
        else _("Reinforced: {region}").format(region=region)
    )
    pictures_text.draw_text(image, (inner, EXCHANGE_TOP + 55), where, 13, colours.TEXT, CARD,
                            max_width=width)  # fmt: skip
    function = function_name(choice["function"])
    pictures_text.draw_text(image, (inner, EXCHANGE_TOP + 74), function, 13, colours.TEXT, CARD,
                            max_width=width)  # fmt: skip
    _draw_dice(image, last, player, inner, EXCHANGE_TOP + 92, width)


def _draw_dice(
    image: Image.Image, last: Mapping[str, Any], player: int, left: int, top: int, width: int
) -> None:
    if last["disrupted"]:
        pictures_text.draw_text(image, (left, top + DIE / 2), _("disrupted: no dice"), 13,
                                colours.MUTED, CARD, max_width=width)  # fmt: skip
        return
    faces: list[int] = last["faces"][player]
    if not faces:
        pictures_text.draw_text(image, (left, top + DIE / 2), _("no dice"), 13, colours.MUTED,
                                CARD, max_width=width)  # fmt: skip
        return
    x = left
    shown = faces[: max(1, (width - 50) // (DIE + 3))]
    for face in shown:
        image.paste(draw.die(face, DIE, CARD), (x, top))
        x += DIE + 3
    total = sum(faces)
    label = f"= {number(total)}" + (
        f" ×{number(last['multiplier'])}" if last["multiplier"] > 1 else ""
    )
    if len(shown) < len(faces):
        label = "… " + label
    pictures_text.draw_text(image, (x + 2, top + DIE / 2), label, 14, colours.TEXT, CARD,
                            weight="bold")  # fmt: skip


def _draw_functions_left(image: Image.Image, view: Mapping[str, Any]) -> None:
    charges = view.get("charges")
    for player in (0, 1):
        left = _card_box(player)[0]
        if charges is None:
            words = _("Classic mode: the dice choose every move.")
        elif charges_left(charges[player]):
            # Translators: picture, the special functions a player has left this game.
            words = _("Left: {functions}").format(functions=charges_left(charges[player]))
        else:
            # Translators: picture, a player has no special function left, only Bluff.
            words = _("Left: only Bluff")
        lines = pictures_text.wrap(words, 12, CARD_WIDTH - 8, max_lines=3)
        for index, shown in enumerate(lines):
            pictures_text.draw_text(image, (left + 4, LEFT_TOP + 10 + 18 * index), shown, 12,
                                    colours.MUTED, BACKGROUND)  # fmt: skip


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
