"""Each game's guide (``cogs/<game>/guide.py``) against what it describes: every game of the
catalog has one, a bot registers them in the catalog's order, the summary key its picks are
counted from and the word its score lines start with are the ones its moves write, and its
timers name real server settings."""

from __future__ import annotations

import pytest
from guides import every_guide, guide_of

from bot.model.catalog import GAMES
from bot.model.guide import GameGuide, GuideBook
from bot.play.guild_settings import GuildSettings
from cogs.diceman.game import DicemanGame
from cogs.dimension_duel.game import DimensionDuelGame


def test_every_game_of_the_catalog_has_a_guide_in_the_catalogs_order() -> None:
    assert [guide.game for guide in every_guide()] == list(GAMES)
    shuffled = GuideBook(reversed(list(every_guide())))
    assert [guide.game for guide in shuffled] == list(GAMES)


def test_a_guide_for_a_game_outside_the_catalog_is_refused() -> None:
    stray = GameGuide(
        game="chess",
        fewest=2,
        most=2,
        line="",
        rules=guide_of("diceman").rules,
        timers=guide_of("diceman").timers,
    )
    with pytest.raises(ValueError, match="chess"):
        GuideBook([stray])


def test_picks_are_counted_under_the_key_the_duels_write_them() -> None:
    book = every_guide()
    assert book.picks_key("diceman") == DicemanGame.picks_key
    assert book.picks_key("dimension_duel") == DimensionDuelGame.picks_key
    assert book.picks_key("knucklebones") is None and book.picks_key("weighted_dice") is None
    assert GuideBook().picks_key("diceman") is None  # not loaded: nothing counted


def test_the_score_word_is_the_one_the_duels_store() -> None:
    assert guide_of("diceman").score_word == DicemanGame.vitals_word
    assert guide_of("dimension_duel").score_word == DimensionDuelGame.vitals_word


@pytest.mark.parametrize("game", GAMES)
def test_the_timers_name_server_settings(game: str) -> None:
    assert set(guide_of(game).timers.settings.values()) <= set(GuildSettings.model_fields)
