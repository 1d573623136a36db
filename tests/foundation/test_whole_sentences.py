"""Whole sentences only: no catalog message has a placeholder filled with another translated
text (tools/sentences.py), in the bot's own source, and the check finds every way a planted
one can be written."""

from __future__ import annotations

from textwrap import dedent

import pytest

from tools.sentences import find_cases


def cases_in(files: dict[str, str]) -> list[str]:
    """The cases found in these source files (path: text), as ``path:line {placeholder}``."""
    sources = [(path, dedent(text).strip() + "\n") for path, text in files.items()]
    return [f"{case.path}:{case.line} {{{case.placeholder}}}" for case in find_cases(sources)]


def test_no_player_facing_text_fills_a_sentence_with_a_translated_fragment() -> None:
    found = [str(case) for case in find_cases()]
    assert found == [], "translated fragments slotted into sentences:\n" + "\n".join(found)


def test_a_translated_text_slotted_right_there_is_found() -> None:
    assert cases_in(
        {
            "cogs/game.py": """
        from bot.i18n import _
        def line():
            return _("This game was {reason}.").format(reason=_("stopped by an admin"))
        """
        }
    ) == ["cogs/game.py:3 {reason}"]


def test_a_marked_constant_translated_where_it_is_shown_is_found() -> None:
    assert cases_in(
        {
            "cogs/game.py": """
        from bot.i18n import N_, _
        REASON = N_("stopped by an admin")
        def line(player):
            reason = _(REASON)
            return _("{player}: the game was {reason}.").format(player=player, reason=reason)
        """
        }
    ) == ["cogs/game.py:5 {reason}"]


def test_a_fragment_from_another_module_and_a_plural_are_found() -> None:
    found = cases_in(
        {
            "cogs/words.py": """
        from bot.i18n import _, ngettext
        def stopped():
            return _("stopped")
        def rounds(count):
            return ngettext("{count} round", "{count} rounds", count).format(count=count)
        """,
            "cogs/game.py": """
        from bot.i18n import _
        from cogs import words
        from cogs.words import rounds
        def line():
            return _("The game was {how} after {rounds}.").format(
                how=words.stopped(), rounds=rounds(3)
            )
        """,
        }
    )
    assert found == ["cogs/game.py:5 {how}", "cogs/game.py:5 {rounds}"]


def test_a_fragment_passed_to_a_function_that_slots_it_is_found_where_it_is_passed() -> None:
    # The shape of the bug issue 29 found: a translated reason handed to a helper whose
    # sentence completes it ("Esta partida fue terminó…").
    found = cases_in(
        {
            "bot/model/contract.py": """
        from bot.i18n import _
        def stopped_text(reason):
            return _("The game was {reason}; no result counts.").format(reason=reason)
        def cancel_reason(stored):
            return _(stored)
        """,
            "cogs/game.py": """
        from bot.model.contract import stopped_text, cancel_reason
        def alt_text(stored):
            return stopped_text(cancel_reason(stored))
        """,
        }
    )
    assert found == ["cogs/game.py:3 {reason}"]


def test_a_sentence_built_from_a_ternary_a_join_or_an_f_string_is_found() -> None:
    found = cases_in(
        {
            "cogs/game.py": """
        from bot.i18n import _
        def line(names, soon):
            when = _("soon") if soon else "<t:1:R>"
            parts = ", ".join(_(name) for name in names)
            left = f"{parts}!"
            return _("Closes {when}; left: {left}.").format(when=when, left=left)
        """
        }
    )
    assert found == ["cogs/game.py:6 {left}", "cogs/game.py:6 {when}"]


@pytest.mark.parametrize(
    "body",
    [
        # Names, numbers and mentions fill sentences.
        '_("{player} wins {score}.").format(player=name, score=number(3))',
        '_("{game}: {player} to move.").format(game=game_title("diceman"), player=f"<@{1}>")',
        # A layout of whole sentences is no sentence.
        '_("{line}\\n{board}").format(line=_("Your turn."), board=_("The board."))',
        # A command quoted by the name its picker shows.
        '_("Use {command}.").format(command=command_text("odds"))',
        '_("Pick {option}.").format(option=pgettext("option name", "best_of"))',
    ],
)
def test_names_numbers_mentions_and_layouts_are_not_cases(body: str) -> None:
    assert (
        cases_in(
            {
                "cogs/game.py": f"""
            from bot.i18n import _, number, pgettext
            from bot.model.catalog import game_title
            from cogs.texts import command_text
            def line(name):
                return {body}
            """
            }
        )
        == []
    )
