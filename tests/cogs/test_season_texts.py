"""Season texts without Discord: names shown as written (never as markup or a ping), the
leaderboard heading of a running and of a closed season, the admin's confirmation."""

from __future__ import annotations

from bot.ladder.seasons import Season
from cogs.admin_render import confirmation_text, season_dates, season_text
from cogs.leaderboard_render import season_heading

HOSTILE = Season(1, "knucklebones", 2, "**Cup** @everyone", 1_800_000_000.0)


def test_a_season_name_is_shown_as_written() -> None:
    assert season_text(HOSTILE) == "Season 2 · \\*\\*Cup\\*\\* @\u200beveryone"
    assert season_text(Season(1, "diceman", 1, "", None)) == "Season 1"
    assert season_text(Season(1, "diceman", 3, "夏 🌻", 0.0)) == "Season 3 · 夏 🌻"


def test_headings_say_since_when_or_that_the_standings_are_final() -> None:
    assert season_heading(HOSTILE) == "This season started <t:1800000000:D>."
    closed = Season(1, "knucklebones", 1, "", 1_700_000_000.0, 1_800_000_000.0, 7, 3)
    assert season_heading(closed) == (
        "**Final standings** of a closed season (<t:1700000000:D> – <t:1800000000:D>): "
        "they never change."
    )
    assert season_dates(closed) == "<t:1700000000:D> – <t:1800000000:D>"
    assert season_dates(Season(1, "diceman", 1, "", None)) == "no games yet"


def test_the_confirmation_names_each_season_it_closes_and_what_happens() -> None:
    text = confirmation_text([(HOSTILE, 1)], "Next @here", 300)
    assert "• **Knucklebones**: Season 2 · \\*\\*Cup\\*\\* @\u200beveryone (1 player) → " in text
    assert "**Season 3 · Next @\u200bhere**" in text
    assert "count in the new season when they finish" in text
    assert text.endswith("This confirmation expires in 5 min.")
