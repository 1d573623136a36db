"""Every catalog is complete: each text the bot shows has a translation in every shipped
language, with the same placeholders as the English, the language's plural forms, and
command names Discord accepts (tools/i18n.py does the checking)."""

from __future__ import annotations

import pytest
from babel.messages.catalog import Catalog

from bot import i18n
from tools import i18n as catalogs


def test_every_message_is_translated_with_the_same_placeholders() -> None:
    problems = catalogs.check()
    assert problems == [], "\n".join(problems[:50])


@pytest.mark.parametrize("language", i18n.TRANSLATED)
def test_each_catalog_uses_its_languages_plural_forms(language: str) -> None:
    expected = Catalog(locale=i18n.LANGUAGES[language].babel_locale)
    for path in i18n.catalog_files(language):
        part = catalogs.read(path, language)
        assert part.num_plurals == expected.num_plurals, path
        assert part.plural_expr == expected.plural_expr, path
        for message in part:
            if message.id and isinstance(message.id, tuple):
                assert len(message.string) == expected.num_plurals, (path, message.id)


@pytest.mark.parametrize("language", i18n.TRANSLATED)
def test_plural_texts_pick_the_languages_form(language: str) -> None:
    with i18n.use(language):
        one = i18n.ngettext("{count} round", "{count} rounds", 1)
        many = i18n.ngettext("{count} round", "{count} rounds", 5)
    assert one != many
    assert "{count}" in one and "{count}" in many


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
