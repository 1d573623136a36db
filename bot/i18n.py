"""Every text players read, in their language: gettext catalogs, Babel formatting.

Why gettext with Babel rather than Project Fluent: the catalogs are plain ``.po`` files
that every translation tool and platform (Weblate, Crowdin, Poedit) reads, Babel extracts
them from the source and checks them, and the same Babel formats numbers and dates per
language, so one well-kept library does both halves.

The language in use is a context variable: an interaction's task sets the player's
language when it starts (ephemeral answers, DMs), and the publisher switches to the
server's language around a public message (``use``). Code that builds a text calls
``_("…")`` (or ``ngettext``) at the moment it builds it; module-level texts are marked
with ``N_("…")`` and translated where they are shown.

``DICEBOT_PSEUDO_LOCALE=1`` turns every translated text into pseudo-text: each literal run
wrapped in ``⟦ ⟧`` and padded 40% longer with ``⁓``, placeholders untouched, so a run of
the end-to-end suite shows any English left (text outside the brackets) and any Discord
length limit a longer language would break. The switch is read where a language is set
(``set_language``, an outermost ``use``) and kept beside it for the task or block, not on
every text: reading the environment cost more than the translation itself (a test may
still switch it, then set the language it speaks).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gettext as gettext_module
import math
import os
import re
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel import Locale as BabelLocale
from babel import numbers as babel_numbers
from babel.lists import format_list
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

LOCALES_DIR = Path(__file__).with_name("locales")
DOMAIN = "dicebot"


@dataclass(frozen=True)
class Language:
    """A language the bot speaks: its catalog code, the Discord locales it serves, its name
    as its speakers write it, and the Babel locale that formats its numbers and dates."""

    code: str
    native_name: str
    discord_locales: tuple[str, ...]
    babel_locale: str


ENGLISH = "en"
LANGUAGES: dict[str, Language] = {
    "en": Language("en", "English", ("en-US", "en-GB"), "en_US"),
    "es": Language("es", "Español", ("es-ES",), "es_ES"),
    # Latin American Spanish: its own catalog (ustedes, Latin America's words and Discord's
    # Latin American wording), named as Discord's own language picker names it.
    "es-419": Language("es-419", "Español, LATAM", ("es-419",), "es_419"),
    "fr": Language("fr", "Français", ("fr",), "fr_FR"),
    "de": Language("de", "Deutsch", ("de",), "de_DE"),
    "pt-BR": Language("pt-BR", "Português (Brasil)", ("pt-BR",), "pt_BR"),
}
SHIPPED = tuple(LANGUAGES)
TRANSLATED = tuple(code for code in SHIPPED if code != ENGLISH)

_DISCORD_TO_LANGUAGE = {
    locale: language.code for language in LANGUAGES.values() for locale in language.discord_locales
}

_current: contextvars.ContextVar[str] = contextvars.ContextVar("dicebot_language", default=ENGLISH)
# The language of the server an interaction came from (its Discord locale): what a game
# started by this interaction speaks in public when the server chose none.
_server: contextvars.ContextVar[str] = contextvars.ContextVar("dicebot_server", default=ENGLISH)

PSEUDO_ENV = "DICEBOT_PSEUDO_LOCALE"
PSEUDO_OPEN, PSEUDO_CLOSE, PSEUDO_PAD = "⟦", "⟧", "⁓"
PSEUDO_GROWTH = 0.4


# Whether the texts built in this context are pseudo-text: read from the environment when
# the context's language was set (None: not set here, so read each time).
_pseudo: contextvars.ContextVar[bool | None] = contextvars.ContextVar(
    "dicebot_pseudo", default=None
)


def _pseudo_from_environment() -> bool:
    return os.environ.get(PSEUDO_ENV, "") == "1"


def pseudo_enabled() -> bool:
    captured = _pseudo.get()
    return _pseudo_from_environment() if captured is None else captured


# ---------------------------------------------------------------------------------------
# Which language
# ---------------------------------------------------------------------------------------


def language_for_locale(locale: object) -> str | None:
    """The shipped language for a Discord locale (``discord.Locale`` or its string, such
    as ``es-419``), or None when the bot does not speak it."""
    if locale is None:
        return None
    value = str(getattr(locale, "value", locale))
    if value in _DISCORD_TO_LANGUAGE:
        return _DISCORD_TO_LANGUAGE[value]
    base = value.split("-")[0].lower()
    return base if base in LANGUAGES else None


def resolve(*candidates: object) -> str:
    """The first candidate (a language code or Discord locale) the bot speaks; English
    when none is."""
    for candidate in candidates:
        if isinstance(candidate, str) and candidate in LANGUAGES:
            return candidate
        language = language_for_locale(candidate)
        if language is not None:
            return language
    return ENGLISH


def current() -> str:
    """The language texts are built in right now."""
    return _current.get()


def set_language(language: str) -> None:
    """Speak ``language`` for the rest of this task (an interaction's own task)."""
    _current.set(language if language in LANGUAGES else ENGLISH)
    _pseudo.set(_pseudo_from_environment())


def set_server_language(language: str) -> None:
    """The interaction's server speaks ``language`` (for the rest of this task)."""
    _server.set(language if language in LANGUAGES else ENGLISH)


def server_language() -> str:
    return _server.get()


class _Speaking(contextlib.AbstractContextManager[None]):
    """``use``'s block: a class rather than a generator, as every render enters one (a
    generator's context manager costs three times as much)."""

    __slots__ = ("_language", "_tokens")

    def __init__(self, language: str) -> None:
        self._language = language if language in LANGUAGES else ENGLISH
        self._tokens: tuple[contextvars.Token[str], contextvars.Token[bool | None]] | None = None

    def __enter__(self) -> None:
        # Inside a block or task that read the switch already, it holds: the environment
        # is read once per interaction (``set_language``) or outermost block.
        pseudo_text = _pseudo.get()
        if pseudo_text is None:
            pseudo_text = _pseudo_from_environment()
        self._tokens = (_current.set(self._language), _pseudo.set(pseudo_text))

    def __exit__(self, *exc_info: object) -> None:
        assert self._tokens is not None
        language, pseudo_text = self._tokens
        _pseudo.reset(pseudo_text)
        _current.reset(language)


def use(language: str) -> contextlib.AbstractContextManager[None]:
    """Speak ``language`` inside the block (a public message, another player's DM)."""
    return _Speaking(language)


# ---------------------------------------------------------------------------------------
# Catalogs
# ---------------------------------------------------------------------------------------


def catalog_files(language: str) -> list[Path]:
    """A language's ``.po`` files: one per area of the bot, merged when loaded."""
    return sorted((LOCALES_DIR / language).glob("*.po"))


def read_catalog(language: str) -> Catalog:
    """Every message of ``language``, its area files merged (Babel's own catalog type),
    counted by the plural rule the files declare (their ``Plural-Forms`` header)."""
    locale = LANGUAGES[language].babel_locale
    merged = Catalog(locale=locale, domain=DOMAIN)
    declared: dict[str, list[str]] = {}
    for path in catalog_files(language):
        with path.open("rb") as handle:
            part = read_po(handle, locale=locale)
        declared.setdefault(part.plural_forms, []).append(path.name)
        for message in part:
            if message.id and message.string and not message.fuzzy:
                merged[message.id] = message
    if len(declared) > 1:
        raise ValueError(f"{language}'s catalogs declare different plural rules: {declared}")
    if declared:
        # The translations hold as many forms as their own header says. A new catalog takes
        # its rule from the installed Babel's CLDR data instead, which can have another count
        # (Babel 2.19 gives Spanish and French a third form, for millions): a form the files
        # lack would then come out in English.
        merged.mime_headers = [("Plural-Forms", next(iter(declared)))]
    return merged


class CatalogTranslations(gettext_module.GNUTranslations):
    """Python's gettext over a Babel catalog, filled straight from it: what Babel's
    ``write_mo`` and ``GNUTranslations`` reading the ``.mo`` back would hold (the
    repository keeps only the ``.po`` sources translators edit), without the round trip,
    which took half of loading the catalogs at every start."""

    def __init__(self, catalog: Catalog) -> None:
        super().__init__()  # no file to parse: the fields _parse would set come next
        self._info: dict[str, str] = {}
        self._charset = "utf-8"
        self.plural = gettext_module.c2py(catalog.plural_expr)
        entries: dict[str | tuple[str, int], str] = {}
        for message in catalog:
            if not message.id or not message.string or message.fuzzy:
                continue
            prefix = f"{message.context}{CONTEXT_SEPARATOR}" if message.context else ""
            if isinstance(message.id, tuple | list):
                singular = prefix + message.id[0]
                for index, text in enumerate(message.string):
                    # As write_mo does: a form left empty reads as the English one.
                    entries[(singular, index)] = text or message.id[min(index, 1)]
            else:
                entries[prefix + message.id] = str(message.string)
        self._catalog = entries

    def has(self, message: str, context: str | None = None) -> bool:
        """Whether the catalog translates ``message`` (in ``context``): a translation the
        same as the English is still one."""
        key = f"{context}{CONTEXT_SEPARATOR}{message}" if context else message
        return key in self._catalog or (key, 0) in self._catalog


# gettext's separator between a message's context and its id (GNUTranslations.CONTEXT).
CONTEXT_SEPARATOR = "\x04"


@cache
def _translations(language: str) -> gettext_module.NullTranslations:
    if language == ENGLISH or language not in LANGUAGES:
        return gettext_module.NullTranslations()
    return CatalogTranslations(read_catalog(language))


def load_all() -> None:
    """Read every catalog now (the command sync needs them all), so no player waits for
    one later."""
    for language in SHIPPED:
        _translations(language)


# ---------------------------------------------------------------------------------------
# Translating
# ---------------------------------------------------------------------------------------


def N_(message: str) -> str:
    """Marks a text for the catalogs where it is defined; ``_`` translates it where shown."""
    return message


def _(message: str) -> str:
    """``message`` in the current language."""
    text = _translations(_current.get()).gettext(message)
    captured = _pseudo.get()
    if captured is None:
        captured = _pseudo_from_environment()
    return pseudo(text) if captured else text


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of ``singular``/``plural`` the current language uses for ``count``."""
    text = _translations(_current.get()).ngettext(singular, plural, count)
    return pseudo(text) if pseudo_enabled() else text


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart from the same English words used
    elsewhere by ``context`` (a command's name, say)."""
    text = _translations(_current.get()).pgettext(context, message)
    return pseudo(text) if pseudo_enabled() else text


def translate_in(language: str, message: str, context: str | None = None) -> str | None:
    """``message`` in ``language``, or None where the catalog has no translation (the
    command translator leaves such a string to Discord's default)."""
    if language == ENGLISH:
        return None
    translations = _translations(language)
    found = translations.pgettext(context, message) if context else translations.gettext(message)
    if found == message and not (
        isinstance(translations, CatalogTranslations) and translations.has(message, context)
    ):
        return None
    return found


# ---------------------------------------------------------------------------------------
# Pseudo-localization
# ---------------------------------------------------------------------------------------

_FORMATTER = string.Formatter()


def pseudo(text: str) -> str:
    """``text`` with each literal run (between placeholders, line by line) wrapped and
    padded 40% longer; ``{placeholders}`` stay as they are so ``.format`` still works."""
    try:
        parts = list(_FORMATTER.parse(text))
    except ValueError:
        return _pseudo_literal(text, escape_braces=False)
    out: list[str] = []
    for literal, field, spec, conversion in parts:
        out.append(_pseudo_literal(literal, escape_braces=True))
        if field is not None:
            out.append(
                "{"
                + field
                + (f"!{conversion}" if conversion else "")
                + (f":{spec}" if spec else "")
                + "}"
            )
    return "".join(out)


def _pseudo_literal(literal: str, *, escape_braces: bool) -> str:
    lines = literal.split("\n")
    wrapped = []
    for line in lines:
        if any(ch.isalpha() for ch in line):
            padding = PSEUDO_PAD * math.ceil(len(line) * PSEUDO_GROWTH)
            line = PSEUDO_OPEN + line + padding + PSEUDO_CLOSE
        if escape_braces:
            line = line.replace("{", "{{").replace("}", "}}")
        wrapped.append(line)
    return "\n".join(wrapped)


def unpseudo(text: str) -> str:
    """The text a pseudo-localized one stands for (what the tests read)."""
    return text.replace(PSEUDO_OPEN, "").replace(PSEUDO_CLOSE, "").replace(PSEUDO_PAD, "")


# ---------------------------------------------------------------------------------------
# Numbers, percentages, lists (dates players read are Discord timestamps, <t:…:D>, which
# each client writes in its own language)
# ---------------------------------------------------------------------------------------


@cache
def _babel_locale(language: str) -> BabelLocale:
    return BabelLocale.parse(LANGUAGES.get(language, LANGUAGES[ENGLISH]).babel_locale)


def number(value: float, digits: int = 0) -> str:
    """``1,234`` in English, ``1.234`` in Spanish, ``1 234`` in French (Babel's CLDR data)."""
    if digits == 0 and type(value) is int and -1000 < value < 1000:
        # Most numbers players read (points, dice, turns) need no grouping and no decimal
        # sign, and every shipped language writes them the same way: skip Babel (~5 us).
        return str(value)
    return _formatted_number(current(), value, digits)


# CLDR's minimumGroupingDigits where it is not 1: Spain's Spanish groups only numbers of
# five digits or more ("1704", "12.345", as the RAE writes them). Babel's format_decimal
# does not apply it, so it is applied here.
MINIMUM_GROUPING_DIGITS: dict[str, int] = {"es": 2}


@functools.lru_cache(maxsize=8192)
def _formatted_number(language: str, value: float, digits: int) -> str:
    grouping = abs(value) >= 10 ** (2 + MINIMUM_GROUPING_DIGITS.get(language, 1))
    pattern = ("#,##0" if grouping else "0") + ("." + "0" * digits if digits else "")
    return babel_numbers.format_decimal(
        value, format=pattern, locale=_babel_locale(language), decimal_quantization=True
    )


def percent(fraction: float, digits: int = 0) -> str:
    """``38%`` in English, ``38 %`` in Spanish and French (each language's own pattern)."""
    return _formatted_percent(current(), fraction, digits)


@functools.lru_cache(maxsize=8192)
def _formatted_percent(language: str, fraction: float, digits: int) -> str:
    locale = _babel_locale(language)
    pattern = locale.percent_formats[None].pattern
    if digits:
        last_zero = pattern.rindex("0")
        pattern = pattern[: last_zero + 1] + "." + "0" * digits + pattern[last_zero + 1 :]
    return babel_numbers.format_percent(
        fraction, format=pattern, locale=locale, decimal_quantization=True
    )


def list_of(items: list[str], style: str = "standard") -> str:
    """``a, b and c`` in English, ``a, b y c`` in Spanish."""
    locale = _babel_locale(current())
    if not pseudo_enabled() or len(items) < 2:
        return format_list(items, style=style, locale=locale)  # type: ignore[arg-type]
    # Pseudo text: the language's connecting words are text too (``and``), wrapped as such.
    slots = [f"\x00{index}\x00" for index in range(len(items))]
    pattern = format_list(slots, style=style, locale=locale)  # type: ignore[arg-type]
    template = pattern.replace("{", "{{").replace("}", "}}")
    template = re.sub("\x00(\\d+)\x00", r"{\1}", template)
    return pseudo(template).format(*items)
