"""The duel renderers: bars, durations, and the reveal narration built from real engine
events (the worked examples of the rules)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from cogs.diceman.render import dice_pair, narrate_diceman
from cogs.dimension_duel.render import charges_left, narrate_duel
from cogs.secret_duel.render import describe_seconds, life_bar, score_pair
from game_core import dimension_duel as dd
from game_core.diceman import resolve_round

NAMES = ("Alice", "Bob")


# -- shared -----------------------------------------------------------------------------------


def test_life_bar_scales_and_never_shows_below_zero() -> None:
    assert life_bar(20, 20, width=10) == "`██████████` **20**/20"
    assert life_bar(10, 20, width=10) == "`█████░░░░░` **10**/20"
    assert life_bar(-3, 20, width=10) == "`░░░░░░░░░░` **0**/20"
    # One hit point left still shows a sliver: alive is never drawn as dead.
    assert life_bar(1, 150, width=10) == "`█░░░░░░░░░` **1**/150"


def test_durations_and_score_lines() -> None:
    assert describe_seconds(180) == "3 min"
    assert describe_seconds(90) == "1 min 30 s"
    assert describe_seconds(45) == "45 s"
    assert score_pair("Life", [12, -4]) == "Life 12–0"
    assert dice_pair(["priority", "sword"]) == "⚡ Priority + ⚔️ Sword"


def test_charges_are_listed_in_card_order() -> None:
    charges = {"particle_changer": 1, "deflector": 0, "disruptor": 1, "intensifier": 1}
    assert charges_left(charges) == "Disruptor, Intensifier, Particle Changer"
    # Only Bluff left: each caller has its own sentence for that.
    assert charges_left(dict.fromkeys(dd.CHARGES, 0)) == ""


# -- Diceman ----------------------------------------------------------------------------------


def diceman_reveal(
    rolls: tuple[dict[str, int], dict[str, int]], life: tuple[int, int] = (20, 20)
) -> dict[str, Any]:
    outcome = resolve_round(life, rolls)
    return {
        "round": 1,
        "choices": [sorted(r) for r in rolls],
        "rolls": list(rolls),
        "phases": outcome.events,
        "life": list(outcome.life),
    }


def test_diceman_priority_strike_then_a_blocked_sword_then_a_sword() -> None:
    # Rules example 1: A P4 S6, B S5 H8 -> A 15, B 16.
    lines = narrate_diceman(
        diceman_reveal(({"priority": 4, "sword": 6}, {"sword": 5, "shield": 8})), NAMES
    )
    # Each player once, in the order they act, what they did under their name; the target
    # is the other player, so nobody is named again until the damage line.
    assert lines == [
        "**Round 1 reveal**",
        "**Alice** · ⚡ Priority **4** + ⚔️ Sword **6**",
        "• priority sword strike (lead 4): **4** unblockable; the sword drops to 2",
        "• sword 2 against shield 8: blocked",
        "**Bob** · ⚔️ Sword **5** + 🛡️ Shield **8**",
        # No shield in the way is not worth saying ("against shield 0").
        "• sword 5: **5** damage",
        "↳ Alice −5 → 15 · Bob −4 → 16",
    ]


def test_diceman_names_each_player_at_most_twice_however_long_the_name() -> None:
    long_names = ("Sir Reginald Longname-Smythe", "Christopher Alexander Robin")
    for rolls, life in [
        (({"priority": 4, "sword": 6}, {"sword": 5, "shield": 8}), (20, 20)),
        (({"magic": 4, "sword": 3}, {"sword": 7, "shield": 2}), (20, 20)),
        (({"sword": 8, "shield": 10}, {"priority": 6, "sword": 5}), (3, 20)),
        (({"sword": 3, "magic": 1}, {"sword": 2, "magic": 4}), (2, 2)),
    ]:
        text = "\n".join(narrate_diceman(diceman_reveal(rolls, life), long_names))
        assert [text.count(name) for name in long_names] in ([2, 2], [1, 2], [2, 1])


def test_diceman_the_higher_priority_acts_first_whatever_the_seat() -> None:
    lines = narrate_diceman(
        diceman_reveal(({"sword": 5, "shield": 8}, {"priority": 4, "sword": 6})), NAMES
    )
    assert lines[1] == "**Bob** · ⚡ Priority **4** + ⚔️ Sword **6**"
    assert lines[4] == "**Alice** · ⚔️ Sword **5** + 🛡️ Shield **8**"
    assert lines[-1] == "↳ Alice −4 → 16 · Bob −5 → 15"


def test_diceman_shield_strike_and_magic() -> None:
    # Rules example 2: A P5 H7, B S6 M3 -> A 17, B 15.
    lines = narrate_diceman(
        diceman_reveal(({"priority": 5, "shield": 7}, {"sword": 6, "magic": 3})), NAMES
    )
    assert "• priority shield strike (lead 5, the shield would block 6): **5** unblockable" in lines
    assert lines[-3:] == [
        "• sword 6 against shield 7: blocked",
        "• magic: **3** unblockable",
        "↳ Alice −3 → 17 · Bob −5 → 15",
    ]


def test_diceman_magic_clash_and_fizzle() -> None:
    clash = narrate_diceman(
        diceman_reveal(({"magic": 4, "shield": 5}, {"magic": 1, "shield": 9})), NAMES
    )
    # Both act in phase 0: each one's side of the clash, under their name.
    assert clash[1:] == [
        "**Alice** · 🔮 Magic **4** + 🛡️ Shield **5**",
        "• magic 4 beats magic 1: **3** unblockable",
        "**Bob** · 🔮 Magic **1** + 🛡️ Shield **9**",
        "• acts in the same phase: the damage lands together",
        "• magic 1 loses to magic 4",
        "↳ Bob −3 → 17",
    ]
    even = narrate_diceman(
        diceman_reveal(({"magic": 2, "shield": 5}, {"magic": 2, "shield": 9})), NAMES
    )
    assert even.count("• magic 2 against magic 2: it cancels out") == 2
    fizzle = narrate_diceman(
        diceman_reveal(({"magic": 4, "sword": 3}, {"sword": 7, "shield": 2})), NAMES
    )
    assert "• magic fizzles: hit in this phase" in fizzle


def test_diceman_names_no_sword_strike_without_a_sword() -> None:
    # Alice picked Magic and Shield: she has no sword, so no "sword 0 ... blocked" line.
    lines = narrate_diceman(
        diceman_reveal(({"magic": 2, "shield": 7}, {"sword": 3, "shield": 4})), NAMES
    )
    assert not any("sword 0" in line for line in lines)
    assert "• sword 3 against shield 7: blocked" in lines


def test_diceman_deaths_before_acting_and_draws() -> None:
    # Rules example 5: A (3 life) is struck down in phase 6, before her own phase 0.
    early = narrate_diceman(
        diceman_reveal(({"sword": 8, "shield": 10}, {"priority": 6, "sword": 5}), (3, 20)), NAMES
    )
    assert early[-3:] == [
        "**Alice** · ⚔️ Sword **8** + 🛡️ Shield **10**",
        "• 💀 falls before acting",
        "↳ Alice −5 → 0 💀",
    ]
    # Rules example 7: both at 2 life fall together in phase 0.
    both = narrate_diceman(
        diceman_reveal(({"sword": 3, "magic": 1}, {"sword": 2, "magic": 4}), (2, 2)), NAMES
    )
    assert both[-1] == "↳ Alice −2 → 0 💀 · Bob −3 → 0 💀"


# -- Dimension Duel ---------------------------------------------------------------------------


class ScriptedDice(random.Random):
    """Rolls the given faces in order (the engine's only use of its rng here)."""

    def __init__(self, faces: Sequence[int]) -> None:
        super().__init__(0)
        self._faces: Iterator[int] = iter(faces)

    def randint(self, a: int, b: int) -> int:
        return next(self._faces)


def duel_turn(
    tau: tuple[str, str, str], kaon: tuple[str, str, str], faces: Sequence[int] = ()
) -> list[dict[str, Any]]:
    """Tau attacks in turn 1 with ``tau`` = (ray, focus, function) against ``kaon``."""
    state, _ = dd.new_game(mode="tactical")
    for player, (device, region, function) in enumerate((tau, kaon)):
        action = {
            "type": "choose",
            "player": player,
            "device": device,
            "region": region,
            "function": function,
        }
        state, events = dd.apply(state, action, ScriptedDice(faces))
    return events


def test_duel_deflected_turn_step_by_step() -> None:
    # Rules example 1: Kaon ray vs anti-Tau (+1), Torso vs Head (+1), Kaon deflects.
    lines = narrate_duel(
        duel_turn(("kaon", "torso", "bluff"), ("tau", "head", "deflector"), [3, 5]), NAMES
    )
    assert lines == [
        "**Turn 1 reveal** — Alice (Tau) attacks, Bob (Kaon) defends",
        "1️⃣ Ray and shield: Kaon ray against anti-Tau shield, no match: +1 die to Alice.",
        "2️⃣ Focus: Torso against Head reinforced: +1 die to Alice.",
        "3️⃣ Functions: Alice Bluff · Bob Deflector",
        "• deflector: each player suffers their own dice",
        "4️⃣ Dice: Alice 2 dice (3, 5 = 8) · Bob no dice",
        # Nobody is listed with −0: only the damage that was dealt.
        "💥 Damage: Alice −8 (75 → 67)",
    ]


def test_duel_particle_changers() -> None:
    # Rules example 2: a self flip turns a blocked Tau ray into a Kaon ray.
    flipped = narrate_duel(
        duel_turn(("tau", "head", "changer_self"), ("tau", "head", "bluff"), [6]), NAMES
    )
    assert "• particles changed: now Kaon ray against anti-Tau shield, +1 die to Alice" in (flipped)
    assert "1️⃣ Ray and shield: Tau ray against anti-Tau shield, the shield matches: no die." in (
        flipped
    )
    assert "2️⃣ Focus: Head against Head reinforced, the right place: no die." in flipped
    assert "💥 Damage: Bob −6 (75 → 69)" in flipped
    # Rules example 3: the opponent flips it back.
    cancelled = narrate_duel(
        duel_turn(("tau", "head", "changer_self"), ("tau", "head", "changer_opponent")), NAMES
    )
    assert "• the particle changes cancel out" in cancelled


def test_duel_disruptor_intensifier_and_delayed_attack() -> None:
    disrupted = narrate_duel(
        duel_turn(("kaon", "torso", "intensifier"), ("tau", "head", "disruptor")), NAMES
    )
    assert "• disruptor: all damage negated, nobody rolls" in disrupted
    assert "4️⃣ Dice: Alice 2 dice · Bob no dice — disrupted, nothing rolled" in disrupted
    assert "💥 No damage" in disrupted
    # The card's example turn, as the rules decide it: Kaon loses 8 and Tau loses 12.
    doubled = narrate_duel(
        duel_turn(("tau", "head", "intensifier"), ("kaon", "head", "delayed_attack"), [4, 6]),
        NAMES,
    )
    assert "• delayed attack: +1 die to Bob" in doubled
    assert "• intensified: damage ×2" in doubled
    assert "💥 Damage: Alice −12 (75 → 63) · Bob −8 (75 → 67)" in doubled


def test_duel_classic_turn_shows_the_card_rolls() -> None:
    state, _ = dd.new_game(mode="classic", start_hp=10)
    # Card rolls in order: devices (Tau, Kaon), regions, functions; then damage dice.
    faces = [2, 5, 1, 1, 1, 3, 6, 6]
    state, _ = dd.apply(state, {"type": "roll", "player": 0}, ScriptedDice([]))
    _, events = dd.apply(state, {"type": "roll", "player": 1}, ScriptedDice(faces))
    lines = narrate_duel(events, NAMES)
    assert lines[1:3] == [
        "🎲 Alice's card rolls: 2 → Tau ray, 1 → Head, 1 → Bluff",
        "🎲 Bob's card rolls: 5 → anti-Kaon shield, 1 → Head, 3 → Delayed Attack",
    ]
    # One die needs no sum: "(6)", never "(6 = 6)".
    assert "4️⃣ Dice: Alice 1 die (6) · Bob 1 die (6)" in lines


@pytest.mark.parametrize("hp", [(3, 75), (75, 2)])
def test_duel_death_is_narrated(hp: tuple[int, int]) -> None:
    state, _ = dd.new_game(mode="tactical")
    state = state.model_copy(update={"hp": list(hp)})
    for player, choice in enumerate((("tau", "head", "bluff"), ("kaon", "torso", "bluff"))):
        device, region, function = choice
        state, events = dd.apply(
            state,
            {
                "type": "choose",
                "player": player,
                "device": device,
                "region": region,
                "function": function,
            },
            ScriptedDice([6, 6]),
        )
    lines = narrate_duel(events, NAMES)
    if hp[1] == 2:
        assert lines[-1] == "💀 Bob is pulverized into sub-atomic dust."
    else:
        assert not any("pulverized" in line for line in lines)
