"""What the shared commands say about Knucklebones: ``/help``'s line, ``/rules``' card and
this server's turn timer, and ``/stats``' line of the average final score. No pick of it is
counted, so ``/stats`` words its favourite plainly."""

from __future__ import annotations

from bot.i18n import N_
from bot.model.guide import GameGuide, RulesCard, ServerTimers

LINE = N_(
    "Roll a d6 and drop it into your 3×3 grid: matching dice multiply, and knock out "
    "the same faces in your opponent's column."
)

RULES = RulesCard(
    summary=N_(
        "Two players, each with a 3×3 grid: three columns of three slots. On your turn "
        "you roll one d6 and put it in one of **your** columns that still has room."
    ),
    sections=(
        (
            N_("Knocking out"),
            N_(
                "Placing a die removes every die of the same face from your opponent's "
                "**same** column."
            ),
        ),
        (
            N_("Scoring"),
            N_(
                "In a column, each face counts face × copies × copies: `4 4 2` is "
                "4×2×2 + 2 = **18**, `5 5 5` is **45**. Your score is your three columns "
                "added."
            ),
        ),
        (
            N_("The end"),
            N_(
                "The game stops the moment someone fills their ninth slot. Higher score "
                "wins; equal scores are a draw."
            ),
        ),
    ),
    house=N_(
        "A coin flip picks who starts, unless the challenge says otherwise, and the "
        "record keeps who went first. Running out of time on your turn, or forfeiting, "
        "loses the game."
    ),
)

GUIDE = GameGuide(
    game="knucklebones",
    fewest=2,
    most=2,
    line=LINE,
    rules=RULES,
    timers=ServerTimers(N_("{duration} per turn"), {"duration": "turn_timeout_seconds"}),
    average_score=N_("Average final score: **{score}**"),
)
