"""The glossary: one word per game term and language, checked against the catalogs.

    python -m tools.glossary            # write docs/glossary.md from bot/locales/glossary.toml
    python -m tools.glossary --check    # exit 1 when the page is stale
    python -m tools.glossary catalogs [--language CODE]   # the catalogs' problems, one a line

``bot/locales/glossary.toml`` says, for each term a player meets often (lobby, house, round,
rematch...), what it means and, per language, the one word the catalogs use for it, that
word's forms, and the variants rejected for it. ``problems`` reads every catalog of a
language and lists each translation that uses a rejected variant, and each translation of an
English text naming a term that does not use the language's word (unless the glossary's
exceptions list that text, saying why). ``tests/foundation/test_glossary.py`` runs it for
every shipped language and keeps ``docs/glossary.md`` current.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

from bot.i18n import DOMAIN, ENGLISH, LANGUAGES, LOCALES_DIR

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = LOCALES_DIR / "glossary.toml"
PAGE = ROOT / "docs" / "glossary.md"

# A placeholder's name is code, not words: "{house}" must not count as the word "house".
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Entry:
    """A term in one language: its word, the forms that count as using it, what not to use
    (and, in English, the phrases where the word means something else)."""

    word: str
    forms: tuple[str, ...]
    avoid: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    button: bool = False


@dataclass(frozen=True)
class Term:
    key: str
    meaning: str
    entries: dict[str, Entry]


@dataclass(frozen=True)
class Exception_:
    """A text whose translation in ``language`` honestly needs another wording for ``term``."""

    term: str
    language: str
    text: str
    why: str


@dataclass(frozen=True)
class Glossary:
    terms: tuple[Term, ...]
    exceptions: tuple[Exception_, ...]
    # Words a language never uses, whatever the term (es-419: Spain-only words, vosotros).
    regional: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)

    def languages(self) -> list[str]:
        """Every language some term names: English first, then by code."""
        seen = {language for term in self.terms for language in term.entries}
        return sorted(seen, key=lambda code: (code != ENGLISH, code))


def load(path: Path = GLOSSARY) -> Glossary:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    raw_exceptions = data.pop("exception", [])
    raw_regional = data.pop("regional", {})
    terms = []
    for key, table in data.items():
        entries = {
            language: Entry(
                word=value["word"],
                forms=tuple(value["forms"]),
                avoid=tuple(value.get("avoid", ())),
                ignore=tuple(value.get("ignore", ())),
                button=bool(value.get("button", False)),
            )
            for language, value in table.items()
            if isinstance(value, dict)
        }
        terms.append(Term(key, table["meaning"], entries))
    exceptions = tuple(
        Exception_(item["term"], item["language"], item["text"], item["why"])
        for item in raw_exceptions
    )
    regional = {
        language: tuple((item["word"], item["why"]) for item in items)
        for language, items in raw_regional.items()
    }
    return Glossary(tuple(terms), exceptions, regional)


# ---------------------------------------------------------------------------------------
# Matching words
# ---------------------------------------------------------------------------------------


def normalized(text: str) -> str:
    """A text as the forms are matched against: placeholders gone, one kind of apostrophe
    and space, command names' underscores read as spaces, lower case."""
    text = _PLACEHOLDER.sub(" ", text)
    text = text.replace("’", "'").replace("_", " ")
    return _SPACES.sub(" ", text).strip().casefold()


@cache
def _pattern(form: str) -> re.Pattern[str]:
    """A whole-word pattern for ``form``: a leading or trailing ``*`` stands for any start
    or ending of the word."""
    body = re.escape(normalized(form.strip("*")))
    start = r"\w*" if form.startswith("*") else ""
    end = r"\w*" if form.endswith("*") else ""
    return re.compile(rf"(?<!\w){start}{body}{end}(?!\w)")


def uses(text: str, forms: Iterable[str]) -> list[str]:
    """The forms ``text`` uses (as whole words)."""
    plain = normalized(text)
    return [form for form in forms if _pattern(form).search(plain)]


def names_term(english: str, entry: Entry) -> bool:
    """Whether the English text uses the term (its ``ignore`` phrases taken out first)."""
    if entry.button:
        return _names_button(english, entry.forms)
    plain = english
    for phrase in entry.ignore:
        plain = re.sub(re.escape(phrase), " ", plain, flags=re.IGNORECASE)
    return bool(uses(plain, entry.forms))


def _names_button(english: str, labels: Iterable[str]) -> bool:
    """A button's label counts where the text is the label, shows it in bold, or says to
    press it; anywhere else the same word is ordinary English ("Start your own")."""
    bare = _SPACES.sub(" ", _PLACEHOLDER.sub(" ", english)).strip()
    for label in labels:
        word = re.escape(label)
        if bare == label or re.search(rf"\*\*{word}(?!\w)|\bpress (?:\*\*)?{word}(?!\w)", english):
            return True
    return False


# ---------------------------------------------------------------------------------------
# Reading the catalogs
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Translated:
    """One translated message: where it is, its English forms and its translated forms."""

    path: Path
    context: str | None
    english: tuple[str, ...]
    translations: tuple[str, ...]

    @property
    def label(self) -> str:
        return self.english[0]


def translated(language: str) -> Iterator[Translated]:
    """Every translated message of a language's catalogs (any language with a folder under
    bot/locales, shipped or not yet)."""
    for path in sorted((LOCALES_DIR / language).glob("*.po")):
        with path.open("rb") as handle:
            catalog = read_po(handle, domain=DOMAIN)
        for message in catalog:
            if not message.id or message.fuzzy:
                continue
            english = (message.id,) if isinstance(message.id, str) else tuple(message.id)
            raw = message.string
            forms = (raw,) if isinstance(raw, str) else tuple(raw or ())
            strings = tuple(text for text in forms if text)
            if strings:
                yield Translated(path, message.context, english, strings)


# ---------------------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------------------


def problems(language: str, glossary: Glossary | None = None) -> list[str]:
    """Every place a language's catalogs leave its glossary, one line each."""
    glossary = glossary or load()
    found: list[str] = []
    excepted = {(item.term, item.text) for item in glossary.exceptions if item.language == language}
    used_exceptions: set[tuple[str, str]] = set()
    regional = glossary.regional.get(language, ())
    for message in translated(language):
        where = f"{message.path.relative_to(ROOT)}: {message.label[:70]!r}"
        for text in message.translations:
            for word, why in regional:
                if uses(text, [word]):
                    found.append(f"{where} uses {word!r} ({why}): {text[:90]!r}")
        for term in glossary.terms:
            entry = term.entries.get(language)
            english = term.entries.get(ENGLISH)
            if entry is None or english is None:
                continue
            for text in message.translations:
                for variant in uses(text, entry.avoid):
                    found.append(
                        f"{where} uses {variant!r}, rejected for {term.key!r} "
                        f"(the word is {entry.word!r}): {text[:90]!r}"
                    )
            if not any(names_term(text, english) for text in message.english):
                continue
            if (term.key, message.label) in excepted:
                used_exceptions.add((term.key, message.label))
                continue
            for text in message.translations:
                if not uses(text, entry.forms):
                    found.append(
                        f"{where} names {term.key!r}, but the translation lacks "
                        f"{entry.word!r}: {text[:90]!r}"
                    )
                    break
    for item in glossary.exceptions:
        if item.language == language and (item.term, item.text) not in used_exceptions:
            found.append(
                f"glossary exception for {item.term!r} in {language} is no longer needed "
                f"(no such English text names the term): {item.text[:70]!r}"
            )
    return found


def own_problems(glossary: Glossary, languages: Iterable[str]) -> list[str]:
    """What is wrong with the glossary itself: a term a language has no word for, two terms
    sharing a word in one language (one word, two meanings), an exception naming an unknown
    term."""
    found: list[str] = []
    keys = {term.key for term in glossary.terms}
    for term in glossary.terms:
        if not term.meaning.strip():
            found.append(f"{term.key}: no meaning")
        for language in [ENGLISH, *languages]:
            entry = term.entries.get(language)
            if entry is None:
                found.append(f"{term.key}: no {language} word")
            elif not entry.forms:
                found.append(f"{term.key}: no {language} forms")
            elif not uses(entry.word, entry.forms) and not entry.button:
                found.append(f"{term.key}: {language} forms do not match its word {entry.word!r}")
    for language in glossary.languages():
        for first in glossary.terms:
            for second in glossary.terms:
                if first.key >= second.key:
                    continue
                a, b = first.entries.get(language), second.entries.get(language)
                if a is None or b is None or a.button or b.button:
                    continue
                shared = [form for form in b.forms if uses(form.strip("*"), a.forms)]
                shared += [form for form in a.forms if uses(form.strip("*"), b.forms)]
                if shared:
                    found.append(
                        f"{language}: {first.key!r} and {second.key!r} share {sorted(set(shared))}"
                    )
    for item in glossary.exceptions:
        if item.term not in keys:
            found.append(f"exception names an unknown term {item.term!r}")
        if not item.why.strip():
            found.append(f"exception for {item.term!r} ({item.language}) says no why")
    return found


# ---------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------

_NAMES = {"en": "English", "es-419": "Español (Latinoamérica)"}


def _language_name(code: str) -> str:
    if code in _NAMES:
        return _NAMES[code]
    language = LANGUAGES.get(code)
    return language.native_name if language else code


def _cell(items: Iterable[str]) -> str:
    return ", ".join(item.replace("|", "\\|") for item in items) or "—"


def page(glossary: Glossary | None = None) -> str:
    glossary = glossary or load()
    languages = glossary.languages()
    lines = [
        "# Glossary",
        "",
        "<!-- Written by `python -m tools.glossary` from bot/locales/glossary.toml:"
        " edit that file, not this page. -->",
        "",
        "One word per game term and language. Translators: use the **word** (or one of its",
        "forms) wherever the English text uses the term, and never a rejected variant;",
        "`tests/foundation/test_glossary.py` checks every catalog against this list.",
        "A `*` in a form stands for any ending (`fij*`: fija, fijó, fijado).",
        "",
        "| Term | Meaning | " + " | ".join(_language_name(code) for code in languages) + " |",
        "|---|---|" + "---|" * len(languages),
    ]
    for term in glossary.terms:
        words = [term.entries[code].word if code in term.entries else "—" for code in languages]
        lines.append(f"| [{term.key}](#{term.key}) | {term.meaning} | " + " | ".join(words) + " |")
    for term in glossary.terms:
        lines += ["", f"## {term.key}", "", term.meaning, ""]
        lines += ["| Language | Word | Forms | Rejected |", "|---|---|---|---|"]
        for code in languages:
            entry = term.entries.get(code)
            if entry is None:
                continue
            rejected = entry.avoid
            if code == ENGLISH and entry.ignore:
                rejected = tuple(f"not this term: “{phrase}”" for phrase in entry.ignore)
            if entry.button:
                rejected = ("(a button's label)", *rejected)
            lines.append(
                f"| {_language_name(code)} | **{entry.word}** | {_cell(entry.forms)} "
                f"| {_cell(rejected)} |"
            )
    if glossary.regional:
        lines += ["", "## Words a language never uses", ""]
        lines += ["| Language | Word | Why |", "|---|---|---|"]
        for code, items in glossary.regional.items():
            for word, why in items:
                lines.append(f"| {_language_name(code)} | {word} | {why} |")
    if glossary.exceptions:
        lines += [
            "",
            "## Exceptions",
            "",
            "Texts whose translation uses another wording, and why.",
            "",
        ]
        lines += ["| Term | Language | English text | Why |", "|---|---|---|---|"]
        for item in glossary.exceptions:
            text = item.text.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| {item.term} | {item.language} | {text} | {item.why} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.glossary", description=__doc__)
    parser.add_argument("action", nargs="?", choices=("page", "catalogs"), default="page")
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    parser.add_argument("--language", action="append", help="a language to check")
    args = parser.parse_args(argv)
    if args.action == "catalogs":
        glossary = load()
        codes = args.language or [code for code in LANGUAGES if code != ENGLISH]
        found = own_problems(glossary, codes)
        for code in codes:
            found += problems(code, glossary)
        for problem in found:
            print(problem)
        print(f"{len(found)} problem(s)")
        return 1 if found else 0
    wanted = page()
    if args.check:
        return 0 if PAGE.exists() and PAGE.read_text(encoding="utf-8") == wanted else 1
    PAGE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
