"""Every catalog is complete: each text the bot shows has a translation in every shipped
language, with the same placeholders as the English, the language's plural forms, and
command names Discord accepts (tools/i18n.py does the checking)."""

from __future__ import annotations

import gettext
import io

import pytest
from babel import Locale as BabelLocale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo

from bot import i18n
from tools import i18n as catalogs


def test_every_message_is_translated_with_the_same_placeholders() -> None:
    problems = catalogs.check()
    assert problems == [], "\n".join(problems[:50])


@pytest.mark.parametrize("language", i18n.TRANSLATED)
def test_each_catalog_uses_its_languages_plural_forms(language: str) -> None:
    """The rule is the one the language's files declare (Babel's own for a language changes
    between releases: tests/foundation/test_plural_forms.py); it must split the counts players
    meet as CLDR's categories for the language do, below the millions where Babel 2.19 adds a
    form, and every plural text has as many forms as it declares."""
    declared = i18n.read_catalog(language)
    rule = gettext.c2py(declared.plural_expr)
    category = BabelLocale.parse(i18n.LANGUAGES[language].babel_locale).plural_form
    forms_by_category: dict[str, set[int]] = {}
    for count in range(10_000):
        forms_by_category.setdefault(category(count), set()).add(rule(count))
    forms = [form for found in forms_by_category.values() for form in found]
    assert len(forms) == len(set(forms)) == len(forms_by_category), forms_by_category
    for path in i18n.catalog_files(language):
        part = catalogs.read(path, language)
        assert part.plural_forms == declared.plural_forms, path
        for message in part:
            if message.id and isinstance(message.id, tuple):
                assert len(message.string) == declared.num_plurals, (path, message.id)


@pytest.mark.parametrize("language", i18n.TRANSLATED)
def test_plural_texts_pick_the_languages_form(language: str) -> None:
    with i18n.use(language):
        one = i18n.ngettext("{count} round", "{count} rounds", 1)
        many = i18n.ngettext("{count} round", "{count} rounds", 5)
    assert one != many
    assert "{count}" in one and "{count}" in many


@pytest.mark.parametrize("language", i18n.TRANSLATED)
def test_a_catalog_reads_as_its_compiled_mo_file_would(language: str) -> None:
    """The bot fills gettext straight from the catalog (``CatalogTranslations``): every
    text, context and plural form as Babel's .mo file read by Python's gettext gives it."""
    catalog = i18n.read_catalog(language)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    compiled = gettext.GNUTranslations(buffer)
    filled = i18n.CatalogTranslations(catalog)
    expected = {key: text for key, text in compiled._catalog.items() if key != ""}  # type: ignore[attr-defined]
    assert filled._catalog == expected  # type: ignore[attr-defined]
    assert len(expected) > 500
    assert all(filled.plural(count) == compiled.plural(count) for count in range(2_000))  # type: ignore[attr-defined]
    assert filled.pgettext("command name", "rules") == compiled.pgettext("command name", "rules")


def test_the_checker_finds_a_changed_placeholder_and_a_bad_command_name() -> None:
    template = Catalog()
    template.add("{name} wins.")
    template.add("challenge", context=catalogs.COMMAND_NAME)
    translated = Catalog(locale="es_ES")
    translated.add("{name} wins.", string="{nombre} gana.")
    translated.add("challenge", string="Desafiar Ya", context=catalogs.COMMAND_NAME)
    path = catalogs.ROOT / "bot" / "locales" / "es" / "x.po"
    problems = [
        problem
        for message in template
        if message.id
        for problem in catalogs._check_message(path, translated, message, "es")
    ]
    assert any("placeholders" in problem for problem in problems)
    assert any("not a valid command name" in problem for problem in problems)
