"""What the shared commands say about Dimension Duel: ``/help``'s line, ``/rules``' card and
this server's round timer, how ``/stats`` words a player's favourite function (counted from
the ``functions`` each seat played, per turn, in a finished game's summary), and the word its
score lines start with ("HP 52–0")."""

from __future__ import annotations

from bot.i18n import N_, _, ngettext
from bot.model.guide import GameGuide, Picks, RulesCard, ServerTimers

LINE = N_(
    "Tau against Kaon: rays and shields, a region to aim at or guard, and "
    "once-per-game functions, chosen in secret."
)

RULES = RulesCard(
    summary=N_(
        "**Tau** against **Kaon**, 75 hit points each. Tau attacks first and the roles "
        "swap every turn; all dice are d6."
    ),
    sections=(
        (
            N_("A turn"),
            N_(
                "1. The attacker picks a Tau or Kaon ray, the defender an anti-Tau or "
                "anti-Kaon shield: a mismatch gives the attacker a die.\n"
                "2. The attacker aims at Head, Torso or Extremities, the defender guards "
                "one: a miss gives another die.\n"
                "3. Both pick a function, then everyone rolls their dice as damage."
            ),
        ),
        (
            N_("Functions"),
            N_(
                "**Bluff** does nothing · **Disruptor** cancels all damage · **Delayed "
                "Attack** gives you a die · **Deflector** makes each player take their "
                "own dice · **Intensifier** doubles all damage (two: ×4) · **Particle "
                "Changer** flips your own or your opponent's ray/shield choice."
            ),
        ),
        (
            N_("Winning"),
            N_("At 0 hit points or less you are out; both out in the same turn is a draw."),
        ),
    ),
    house=N_(
        "**Tactical** mode (the default) lets both players choose everything in secret, "
        "and each special function works **once per game** (Bluff is unlimited). "
        "**Classic** mode rolls a d6 for every choice. An Intensifier really doubles "
        "damage. Forfeiting, or being the only one out of time, loses the game; if "
        "neither player moves, the game is abandoned without a result."
    ),
)

# The functions as /stats names them (a Particle Changer by whose choice it flipped).
FUNCTIONS = {
    "bluff": N_("Bluff"),
    "disruptor": N_("Disruptor"),
    "delayed_attack": N_("Delayed Attack"),
    "deflector": N_("Deflector"),
    "intensifier": N_("Intensifier"),
    "changer_self": N_("Particle Changer (self)"),
    "changer_opponent": N_("Particle Changer (opponent)"),
}


def function_words(pick: str) -> str:
    """A counted function ("changer_self") in the current language."""
    name = FUNCTIONS.get(pick)
    return _(name) if name is not None else pick.replace("_", " ").capitalize()


def turns(count: int) -> str:
    return ngettext("{count} turn", "{count} turns", count)


GUIDE = GameGuide(
    game="dimension_duel",
    fewest=2,
    most=2,
    line=LINE,
    rules=RULES,
    timers=ServerTimers(
        N_("{duration} per round to lock in"), {"duration": "round_timeout_seconds"}
    ),
    # "functions": the summary key DimensionDuelGame.picks_key names
    # (cogs/dimension_duel/game.py).
    picks=Picks(key="functions", head=N_("Favourite function"), uses=turns, words=function_words),
    # DimensionDuelGame.vitals_word: its score lines read "HP 52–0".
    score_word=N_("HP"),
)
