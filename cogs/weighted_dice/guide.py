"""What the shared commands say about Weighted Dice: ``/help``'s line, ``/rules``' card
(naming ``/weighted new``, where the host picks the target) and this server's timers of a
round. Nothing of a table is counted as a pick, so ``/stats`` words none."""

from __future__ import annotations

from bot.i18n import N_
from bot.model.guide import GameGuide, RulesCard, ServerTimers

LINE = N_(
    "The house hands two players a die each; everyone else bets on the higher roll. "
    "First to 150 points wins, or play a short game."
)

RULES = RulesCard(
    summary=N_(
        "A betting table for 5 to 12 players, everyone starting at 20 points. A d20 "
        "roll-off picks the first house; the house then passes clockwise every round."
    ),
    sections=(
        (
            N_("A round"),
            N_(
                "The house picks two other players as rollers and hands each a die (d4, "
                "d6, d8, d10, d12 or d20). Everyone else may bet once, 1 to all their "
                "points, on one roller. Bets are final. Then both rollers roll; the "
                "higher roll wins."
            ),
        ),
        (
            N_("Scoring"),
            N_(
                "Backers of the winner gain their bet plus everything bet on the loser "
                "(or half their bet, rounded down, when nobody backed the loser). Backers "
                "of the loser lose their bet but never drop below 5. The winning roller "
                "gains their roll plus the bets on the loser."
            ),
        ),
        (
            N_("Ties and the end"),
            N_(
                "On a tied roll the house wins every bet; with no bets at all the house "
                "is set to 5 points. The game ends after the round in which someone "
                "reaches **150** (or the target the host chose at {weighted_new}, such as "
                "a short game): the highest score wins, and ties share the win."
            ),
        ),
    ),
    house=N_(
        "Players tied on the first d20 re-roll among themselves. Betting closes when "
        "everyone has bet or the betting window runs out. Your points stay in the "
        "standings if you leave."
    ),
)

GUIDE = GameGuide(
    game="weighted_dice",
    fewest=5,
    most=12,
    line=LINE,
    rules=RULES,
    timers=ServerTimers(
        N_("the house has {setup} to set up a round, betting stays open {betting}"),
        {"setup": "house_setup_seconds", "betting": "betting_window_seconds"},
    ),
    commands={"weighted_new": ("weighted", "new")},
)
