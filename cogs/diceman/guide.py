"""What the shared commands say about Diceman: ``/help``'s line, ``/rules``' card and this
server's round timer, how ``/stats`` words a player's favourite pair of dice (counted from
the ``choices`` each seat made, one pair per round, in a finished game's summary), and the
word its score lines start with ("Life 12–9")."""

from __future__ import annotations

from bot.i18n import N_, _, ngettext
from bot.model.guide import GameGuide, Picks, RulesCard, ServerTimers

LINE = N_(
    "Each round, pick two of four dice in secret, then the rolls fight it out in "
    "priority order. 20 life each."
)

RULES = RulesCard(
    summary=N_(
        "Two duelists, 20 life each, each owning a **Magic d4**, **Priority d6**, "
        "**Sword d8** and **Shield d10**. Every round both secretly pick exactly two "
        "dice, then both roll; a die you did not pick counts as 0."
    ),
    sections=(
        (
            N_("Phases"),
            N_(
                "The round is fought in phases 6 down to 0; you act in the phase equal to "
                "your Priority roll. When you act with more Priority than your opponent (a "
                "gap of d): your sword first strikes up to d unblockable (and loses that "
                "much), then your shield strikes for up to d, capped by what it would "
                "block of their sword."
            ),
        ),
        (
            N_("Swords and magic"),
            N_(
                "Your sword then hits for its value minus their shield. Magic only fires "
                "if you took no damage that phase; if both act with magic and neither was "
                "hurt, the higher magic deals the difference."
            ),
        ),
        (
            N_("Winning"),
            N_(
                "A phase's damage lands all at once; whoever is at 0 or less is dead and "
                "never acts again. Both dead together is a draw. Life carries over between "
                "rounds."
            ),
        ),
    ),
    house=N_(
        "After **30 rounds** the higher life wins (equal life: a draw), so nobody can "
        "stall forever. Picks are made in secret (by DM, or the **Make your move** "
        "button). Forfeiting, or being the only one out of time, loses the game; if "
        "neither player locks in, the game is abandoned without a result."
    ),
)

# The four dice as /stats names them, in the order a pair is written ("Priority + Sword").
DICE = {
    "magic": N_("Magic"),
    "priority": N_("Priority"),
    "sword": N_("Sword"),
    "shield": N_("Shield"),
}


def dice_words(pick: str) -> str:
    """A counted pair ("priority+sword") in the current language ("Priority + Sword")."""
    order = list(DICE)
    dice = sorted(pick.split("+"), key=lambda d: order.index(d) if d in order else 9)
    return " + ".join(_(DICE[die]) if die in DICE else die.capitalize() for die in dice)


def rounds(count: int) -> str:
    return ngettext("{count} round", "{count} rounds", count)


GUIDE = GameGuide(
    game="diceman",
    fewest=2,
    most=2,
    line=LINE,
    rules=RULES,
    timers=ServerTimers(
        N_("{duration} per round to lock in"), {"duration": "round_timeout_seconds"}
    ),
    # "choices": the summary key DicemanGame.picks_key names (cogs/diceman/game.py).
    picks=Picks(key="choices", head=N_("Favourite dice"), uses=rounds, words=dice_words),
    # DicemanGame.vitals_word: its score lines read "Life 12–9".
    score_word=N_("Life"),
)
