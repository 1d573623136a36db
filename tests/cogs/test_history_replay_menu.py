"""/history's replay menu names a game's players in whole names within Discord's 100
characters an option's description allows: a 12-seat Weighted Dice table lists as many as
fit and says how many more, in the reader's language."""

from __future__ import annotations

from bot import i18n
from cogs.leaderboard_render import OPTION_TEXT_LIMIT, names_within

TWELVE = [f"Sir Reginald the {n}th" for n in range(1, 13)]


def test_names_that_fit_are_all_listed() -> None:
    with i18n.use("en"):
        assert names_within(["ana", "bo", "cy"], OPTION_TEXT_LIMIT) == "ana, bo, and cy"


def test_a_full_table_lists_whole_names_and_how_many_more() -> None:
    with i18n.use("en"):
        text = names_within(TWELVE, OPTION_TEXT_LIMIT)
    assert len(text) <= OPTION_TEXT_LIMIT
    listed, _, more = text.rpartition(" and ")
    names = listed.split(", ")
    assert names == TWELVE[: len(names)]
    assert more == f"{12 - len(names)} more"


def test_how_many_more_reads_in_the_readers_language() -> None:
    with i18n.use("fr"):
        text = names_within(TWELVE, OPTION_TEXT_LIMIT)
    assert len(text) <= OPTION_TEXT_LIMIT
    assert text.endswith(" autres")
    assert " et " in text
