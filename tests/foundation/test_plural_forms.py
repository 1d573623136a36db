"""A plural text takes its form from the rule its catalog declares (each .po file's
``Plural-Forms`` header), whatever the installed Babel's CLDR data says.

Babel 2.19 gives Spanish, French and Portuguese a third plural form (for exact millions):
built on that rule, a catalog whose translations hold two forms had no third one, and every
count past one came out in English ("cerrada con 4 players"). The fixture below gives the
installed Babel 2.19's rules, so these tests reproduce it on any Babel release."""

from __future__ import annotations

import gettext
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from babel.messages import plurals as babel_plurals

from bot import i18n
from bot.ladder.seasons import ClosedSeason, Season
from cogs.admin_render import closed_text
from tools import i18n as catalogs

# Babel 2.19's rules (babel/messages/plurals.py, drawn from CLDR 47), for the languages the
# bot speaks or may soon: "many" (exact millions) is their middle form.
BABEL_2_19_RULES = {
    "es": (3, "(n == 1 ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2)"),
    "fr": (3, "(n == 0 || n == 1) ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2"),
    "pt": (3, "(n == 0 || n == 1) ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2"),
    "it": (3, "(n == 1 ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2)"),
}
# Counts either side of each rule's boundaries, a million included.
COUNTS = (0, 1, 2, 3, 4, 5, 11, 21, 100, 1_000_000, 2_000_001)
HEADER = re.compile(r'^"Plural-Forms: *nplurals=(\d+); *plural=(.+?);?\\n"$', re.MULTILINE)

SPRING = Season(1, "knucklebones", 2, "Copa de primavera", 1_800_000_000.0)
SUMMER = Season(1, "knucklebones", 3, "Verano", 1_900_000_000.0)


def forget_compiled_catalogs() -> None:
    i18n._translations.cache_clear()


@pytest.fixture
def babel_2_19(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The installed Babel answers with 2.19's plural rules (a no-op on 2.19 itself)."""
    for language, rule in BABEL_2_19_RULES.items():
        monkeypatch.setitem(babel_plurals.PLURALS, language, rule)
    # 2.19 dropped Brazilian Portuguese's own entry: pt_BR falls back to "pt".
    monkeypatch.delitem(babel_plurals.PLURALS, "pt_BR", raising=False)
    assert babel_plurals.get_plural("es_ES").num_plurals == 3
    forget_compiled_catalogs()
    yield
    # Dropped again before the patch is undone: later tests compile with the real Babel.
    forget_compiled_catalogs()


def declared_rule(path: Path) -> tuple[int, Callable[[int], int]]:
    """The number of forms and the rule a .po file's header declares, read from its text
    (not through Babel)."""
    found = HEADER.findall(path.read_text(encoding="utf-8"))
    assert len(found) == 1, f"{path} declares no Plural-Forms header (or several)"
    count, expression = found[0]
    return int(count), gettext.c2py(expression)


def test_a_season_closed_with_four_players_reads_in_spanish_and_french(babel_2_19: None) -> None:
    done = [ClosedSeason(closed=SPRING, started=SUMMER, players=4)]
    with i18n.use("es"):
        spanish = closed_text(done)
    with i18n.use("fr"):
        french = closed_text(done)
    assert "cerrada con 4 jugadores" in spanish
    assert "close avec 4 joueurs" in french


@pytest.mark.parametrize("language", i18n.TRANSLATED)
def test_every_plural_text_takes_the_form_its_catalog_declares(
    babel_2_19: None, language: str
) -> None:
    checked = 0
    for path in i18n.catalog_files(language):
        forms, rule = declared_rule(path)
        for message in catalogs.read(path, language):
            if not isinstance(message.id, tuple) or message.fuzzy or not all(message.string):
                continue
            assert len(message.string) == forms, (path, message.id)
            singular, plural = message.id
            for count in COUNTS:
                with i18n.use(language):
                    shown = i18n.unpseudo(i18n.ngettext(singular, plural, count))
                assert shown == message.string[rule(count)], (path, singular, count)
                checked += 1
    assert checked, f"{language} has no plural text to check"


@pytest.mark.parametrize("language", i18n.TRANSLATED)
def test_a_languages_area_files_declare_one_rule(language: str) -> None:
    rules = {
        path.name: HEADER.findall(path.read_text(encoding="utf-8"))
        for path in i18n.catalog_files(language)
    }
    assert len({str(rule) for rule in rules.values()}) == 1, rules


def test_area_files_that_disagree_are_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Merged into one catalog, two rules cannot both hold: loading says which files differ."""
    for area in ("core", "admin"):
        text = (i18n.LOCALES_DIR / "fr" / f"{area}.po").read_text(encoding="utf-8")
        if area == "admin":
            text = text.replace("plural=(n > 1);", "plural=(n != 1);")
        (tmp_path / "fr").mkdir(exist_ok=True)
        (tmp_path / "fr" / f"{area}.po").write_text(text, encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALES_DIR", tmp_path)
    with pytest.raises(ValueError, match="different plural rules") as refused:
        i18n.read_catalog("fr")
    assert "admin.po" in str(refused.value) and "core.po" in str(refused.value)


def test_a_new_area_file_counts_plurals_as_its_languages_other_files(
    babel_2_19: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``tools.i18n update`` writing a language's file for a new area takes the rule of the
    language's other files, not the installed Babel's (else loading would refuse the mix)."""
    shutil.copytree(i18n.LOCALES_DIR, tmp_path, dirs_exist_ok=True)
    (tmp_path / "es" / "admin.po").unlink()
    monkeypatch.setattr(catalogs, "LOCALES_DIR", tmp_path)
    monkeypatch.setattr(i18n, "LOCALES_DIR", tmp_path)
    catalogs.update(["admin"])
    assert declared_rule(tmp_path / "es" / "admin.po")[0] == 2
    assert HEADER.findall((tmp_path / "es" / "admin.po").read_text(encoding="utf-8")) == [
        ("2", "(n != 1)")
    ]
    written = catalogs.read(tmp_path / "es" / "admin.po", "es")
    plurals = [message.string for message in written if isinstance(message.id, tuple)]
    assert plurals and all(list(forms) == ["", ""] for forms in plurals), plurals
    assert i18n.read_catalog("es").num_plurals == 2
