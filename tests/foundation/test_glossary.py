"""One vocabulary: every shipped language's catalogs use the glossary's one word for each
game term (bot/locales/glossary.toml) and none of its rejected variants; the glossary itself
has a word for every term in every shipped language, never one word for two terms; and
docs/glossary.md, the page translators read, is what the glossary says."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import i18n
from bot.i18n import _
from bot.model.series import Series, finished_line, new_match, rematch_after
from tools import glossary as glossary_tool

# The terms issue 29 asks every language to settle, as the glossary keys them.
REQUIRED_TERMS = (
    "lobby",
    "table",
    "house",
    "roller",
    "bet",
    "lock_in",
    "forfeit",
    "rematch",
    "series",  # a best-of set of games (the "match")
    "head_to_head",  # a rematch chain's running score (the "series")
    "streak",
    "season",
    "round",
    "turn",
    "ray",
    "shield",
    "function",
)


def said(language: str, english: str) -> str:
    with i18n.use(language):
        return i18n.unpseudo(_(english))


def test_the_glossary_has_every_term_in_every_shipped_language() -> None:
    glossary = glossary_tool.load()
    keys = [term.key for term in glossary.terms]
    assert [key for key in REQUIRED_TERMS if key not in keys] == []
    problems = glossary_tool.own_problems(glossary, i18n.TRANSLATED)
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("language", i18n.TRANSLATED)
def test_each_catalog_uses_the_glossarys_words(language: str) -> None:
    problems = glossary_tool.problems(language)
    assert problems == [], f"{len(problems)} problem(s):\n" + "\n".join(problems[:40])


def test_the_glossary_page_is_current() -> None:
    assert glossary_tool.main(["--check"]) == 0, (
        "run .venv/bin/python -m tools.glossary and commit docs/glossary.md"
    )
    page = glossary_tool.PAGE.read_text(encoding="utf-8")
    assert "| Français | **salle d'attente** |" in page
    assert "salon d'attente" in page  # shown as rejected, so translators see why


def _planted(tmp_path: Path, entries: dict[str, str]) -> Path:
    """A French catalog folder holding ``entries`` (English → French)."""
    folder = tmp_path / "fr"
    folder.mkdir()
    body = ['msgid ""', 'msgstr ""', '"Content-Type: text/plain; charset=UTF-8\\n"', ""]
    for english, french in entries.items():
        body += [f'msgid "{english}"', f'msgstr "{french}"', ""]
    (folder / "weighted.po").write_text("\n".join(body), encoding="utf-8")
    return tmp_path


def test_the_check_finds_a_rejected_variant_and_a_missing_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _planted(
        tmp_path,
        {
            "You left the lobby.": "Tu as quitté le salon d'attente.",
            "Only the timer can close a lobby.": "Seul le minuteur peut fermer la file.",
            "Start": "Lancer",
            "Press **Roll**": "Appuie sur **Lancer**",
            "{house} picks two rollers.": "{house} choisit deux lanceurs.",
        },
    )
    monkeypatch.setattr(glossary_tool, "LOCALES_DIR", root)
    monkeypatch.setattr(glossary_tool, "ROOT", root)
    found = glossary_tool.problems("fr")
    joined = "\n".join(found)
    assert "uses \"salon d'attente\", rejected for 'lobby'" in joined
    assert "'Only the timer can close a lobby.' names 'lobby'" in joined
    assert "'Start' names 'start_button'" in joined
    # The Roll button may say Lancer; a placeholder named {house} is not the word "house".
    assert "Roll" not in joined and "'house'" not in joined
    # Every exception the glossary lists for French is unused in this planted catalog.
    assert "is no longer needed" in joined


def test_the_glossary_refuses_one_word_for_two_terms(tmp_path: Path) -> None:
    path = tmp_path / "glossary.toml"
    path.write_text(
        "[match]\n"
        'meaning = "best of three"\n'
        'en = { word = "match", forms = ["match"] }\n'
        'fr = { word = "série", forms = ["série", "séries"] }\n'
        "[streak]\n"
        'meaning = "wins in a row"\n'
        'en = { word = "streak", forms = ["streak"] }\n'
        'fr = { word = "série", forms = ["série"] }\n',
        encoding="utf-8",
    )
    problems = glossary_tool.own_problems(glossary_tool.load(path), ["fr"])
    assert problems == ["fr: 'match' and 'streak' share ['série']"]


# -- what players read: the vocabulary fixes of issue 29, item 7 --------------------------


@pytest.mark.skipif("fr" not in i18n.LANGUAGES, reason="French is not shipped")
def test_french_players_wait_in_a_salle_dattente_and_press_commencer_to_start() -> None:
    assert said("fr", "🎲 Weighted Dice — lobby") == "🎲 Weighted Dice — salle d'attente"
    assert said("fr", "You left the lobby.") == "Tu as quitté la salle d'attente."
    # Three buttons said "Lancer": the Roll button still does, the two that start a game
    # now say "Commencer", as the rules do.
    assert said("fr", "Roll") == "Lancer"
    assert said("fr", "Start") == "Commencer"
    assert said("fr", "Start game {number}").format(number=2) == "Commencer la partie 2"


@pytest.mark.skipif("es" not in i18n.LANGUAGES, reason="Spanish is not shipped")
def test_spanish_players_read_who_is_ahead_and_one_word_for_each_thing() -> None:
    names = {1: "Ann", 2: "Bo"}
    with i18n.use("es"):
        match = new_match(1, 2, 3)
        assert match is not None
        after_one = i18n.unpseudo(finished_line(match, 1, names))
        second = rematch_after(Series(players=(1, 2)), 1, previous=5)
        after_rematch = i18n.unpseudo(finished_line(second, 1, names))
    # "leads 2–0" is "va ganando": "gana 2–0" reads as a finished result.
    assert "Ann va ganando 1–0" in after_one
    assert "Ann va ganando 2–0" in after_rematch
    assert "gana 1–0" not in after_one.replace("va ganando", "")
    with i18n.use("es"):
        one_result = i18n.unpseudo(
            i18n.ngettext("Last {count} result", "Last {count} results", 1)
        ).format(count=1)
        one_round = i18n.unpseudo(
            i18n.ngettext(
                "about {rounds} round with {players} players",
                "about {rounds} rounds with {players} players",
                1,
            )
        ).format(rounds=1, players=5)
    assert one_result == "Último resultado (1)"
    assert one_round == "alrededor de 1 ronda con 5 jugadores"
    assert "por defecto" in said("es", "Which page of ten (default 1).")
