"""Numbers as each language writes them: Spain's Spanish leaves four-digit numbers ungrouped
(CLDR's minimumGroupingDigits 2, the RAE's rule), which Babel alone does not apply."""

from __future__ import annotations

import pytest

from bot import i18n


@pytest.mark.parametrize(
    ("language", "four_digits", "five_digits"),
    [
        ("en", "1,704", "12,345"),
        ("es", "1704", "12.345"),
        ("fr", "1\u202f704", "12\u202f345"),
        ("de", "1.704", "12.345"),
    ],
)
def test_a_rating_reads_as_its_language_writes_it(
    language: str, four_digits: str, five_digits: str
) -> None:
    with i18n.use(language):
        shown = (i18n.number(1704), i18n.number(12345))
    assert [text.replace("\xa0", "\u202f") for text in shown] == [four_digits, five_digits]


def test_spanish_groups_from_five_digits_with_decimals_too() -> None:
    with i18n.use("es"):
        assert i18n.number(1234.5, 1) == "1234,5"
        assert i18n.number(-9999) == "-9999"
        assert i18n.number(-10000) == "-10.000"
