"""The message catalogs: extract every player-facing text, update the .po files, check them.

    python -m tools.i18n update [--area AREA]   # new texts into every language's .po files
    python -m tools.i18n check [--area AREA]    # what is missing or wrong, per file
    python -m tools.i18n stats                  # messages per area and language

Texts are found by Babel's extractor (``_``, ``N_``, ``ngettext``, ``pgettext`` and the
rule engines' ``IllegalMove``) in the bot's source, plus every string the slash commands
show (names, descriptions, options, choices), read from the loaded command tree. Each
source file belongs to one *area*; each area has one ``.po`` file per language under
``bot/locales/<language>/<area>.po``, so translators (and parallel work) touch one small
file at a time. The catalogs test (tests/foundation/test_catalogs.py) runs ``check``.
"""

from __future__ import annotations

import argparse
import asyncio
import fnmatch
import re
import string
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po, write_po

from bot.i18n import DOMAIN, LANGUAGES, LOCALES_DIR, TRANSLATED

ROOT = Path(__file__).resolve().parents[1]

# Which source files make up each area (first match wins). Host-facing texts (the CLI,
# logs, start-up errors) are not player-facing and stay English.
AREAS: dict[str, tuple[str, ...]] = {
    # First, so that each game's guide (cogs/<game>/guide.py: what /help, /rules and /stats
    # say of it) speaks in the guides' catalog, not in its game's.
    "guides": (
        "cogs/*/guide.py",
        "cogs/leaderboard*.py",
        "cogs/texts.py",
        "cogs/odds/*.py",
        "cogs/rules.py",
        "cogs/help.py",
        "bot/ladder/standings.py",
        "bot/model/catalog.py",
    ),
    "knucklebones": ("cogs/knucklebones/*.py", "game_core/knucklebones.py"),
    "weighted": ("cogs/weighted_dice/*.py", "game_core/weighted_dice.py"),
    # The duels' shared flow speaks in Diceman's catalog and their shared texts in Dimension
    # Duel's, where each was first written; Diceman's names and reveal were first written
    # beside those shared texts, so cogs/diceman/render.py is in Dimension Duel's too (its
    # area comes first: a file belongs to the first area it matches).
    "dimension": (
        "cogs/dimension_duel/*.py",
        "cogs/secret_duel/render.py",
        "cogs/diceman/render.py",
        "game_core/dimension_duel.py",
    ),
    "diceman": ("cogs/diceman/*.py", "cogs/secret_duel/*.py", "game_core/diceman.py"),
    "admin": (
        "cogs/admin*.py",
        "cogs/meta.py",
        "bot/ladder/seasons.py",
        "bot/play/guild_settings.py",
    ),
    # Tournaments (issue 31): the event's picture and its cog.
    "tournament": ("cogs/tournament/*.py",),
    "core": ("bot/*.py", "bot/*/*.py", "game_core/*.py"),
}
NOT_PLAYER_FACING = (
    "bot/__main__.py",
    "bot/config.py",
    "bot/log_lines.py",
    "bot/service/*.py",
    "bot/i18n.py",
)
SOURCES = ("bot/*.py", "bot/*/*.py", "cogs/*.py", "cogs/*/*.py", "game_core/*.py")

KEYWORDS = {
    "_": None,
    "N_": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "IllegalMove": None,
}
COMMENT_TAGS = ("Translators:",)

# Contexts the command translator asks with (bot/ui/languages.py: CommandTranslator).
COMMAND_NAME = "command name"
OPTION_NAME = "option name"
COMMAND_NAME_RE = re.compile(r"^[-_\w]{1,32}$")

CATALOG_DATE = datetime(2026, 11, 23, tzinfo=UTC)

# Discord's limits on what a command shows.
DESCRIPTION_LIMIT = 100
CHOICE_LIMIT = 100


@dataclass(frozen=True)
class Found:
    area: str
    message_id: str | tuple[str, str]
    context: str | None
    location: tuple[str, int]
    comments: tuple[str, ...] = ()


def area_of(relative: str) -> str | None:
    if any(fnmatch.fnmatch(relative, pattern) for pattern in NOT_PLAYER_FACING):
        return None
    for area, patterns in AREAS.items():
        if any(fnmatch.fnmatch(relative, pattern) for pattern in patterns):
            return area
    return None


def source_files() -> Iterator[tuple[str, Path]]:
    seen: set[Path] = set()
    for pattern in SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            if path in seen:
                continue
            seen.add(path)
            yield path.relative_to(ROOT).as_posix(), path


def extract_source() -> Iterator[Found]:
    for relative, path in source_files():
        area = area_of(relative)
        if area is None:
            continue
        for line, message, comments, context in extract_from_file(
            "python",
            str(path),
            keywords=KEYWORDS,
            comment_tags=COMMENT_TAGS,
            strip_comment_tags=True,
        ):
            if isinstance(message, tuple):
                if any(part is None for part in message):
                    continue
                message_id: str | tuple[str, str] = (message[0], message[1])
                if len(message) > 2:
                    message_id = message[0]
            else:
                message_id = message
            if not message_id:
                continue
            yield Found(area, message_id, context, (relative, line), tuple(comments))


def extract_commands() -> Iterator[Found]:
    """Every string the slash commands show, read from the loaded command tree."""
    from discord import app_commands

    for command, module in asyncio.run(_load_tree()):
        relative = module.replace(".", "/") + ".py"
        area = area_of(relative) or "core"
        where = (relative, 0)
        yield Found(area, command.name, COMMAND_NAME, where)
        yield Found(area, command.description, None, where)
        if isinstance(command, app_commands.Command):
            for parameter in command.parameters:
                yield Found(area, parameter.display_name, OPTION_NAME, where)
                yield Found(area, parameter.description, None, where)
                for choice in parameter.choices:
                    yield Found(area, choice.name, None, where)


async def _load_tree() -> list[tuple[object, str]]:
    from discord import app_commands

    from bot.app import create_bot, discover_cogs
    from bot.config import Settings

    settings = Settings(discord_token="extract-only", database_path=":memory:")
    bot = create_bot(settings)
    for name in discover_cogs():
        await bot.load_extension(name)
    found: list[tuple[object, str]] = []
    for command in bot.tree.walk_commands():
        callback = getattr(command, "callback", None)
        module = getattr(callback, "__module__", None)
        if module is None and isinstance(command, app_commands.Group):
            module = _group_module(command)
        found.append((command, module or "bot.app"))
    return found


def _group_module(group: object) -> str | None:
    from discord import app_commands

    for child in getattr(group, "commands", []):
        if isinstance(child, app_commands.Command):
            return child.callback.__module__
        if isinstance(child, app_commands.Group):
            found = _group_module(child)
            if found:
                return found
    return None


def templates(found: Iterable[Found] | None = None) -> dict[str, Catalog]:
    """One template catalog per area: every message the area's source shows."""
    if found is None:
        found = [*extract_source(), *extract_commands()]
    found = list(found)
    areas: dict[str, Catalog] = {area: Catalog(domain=DOMAIN) for area in AREAS}
    shown_in: dict[tuple[str | None, str], list[str]] = {}
    for item in found:
        shown_in.setdefault((item.context, _key(item.message_id)), []).append(item.area)
    # A text shown in two areas lives in one: the one whose catalog already holds it, so
    # that moving a source file never moves translations between catalogs; a new text in
    # the first area it is seen in.
    kept = _current_areas()
    owner = {key: kept[key] if kept.get(key) in seen else seen[0] for key, seen in shown_in.items()}
    for item in found:
        key = (item.context, _key(item.message_id))
        area = owner[key]
        catalog = areas[area]
        existing = catalog.get(item.message_id, context=item.context)
        if existing is not None:
            existing.locations.append(item.location)
            continue
        catalog.add(
            item.message_id,
            locations=[item.location],
            auto_comments=item.comments,
            context=item.context,
            flags=("python-brace-format",) if "{" in _key(item.message_id) else (),
        )
    return areas


def _current_areas() -> dict[tuple[str | None, str], str]:
    """Which area's catalog holds each text today (read from the first translated language)."""
    held: dict[tuple[str | None, str], str] = {}
    if not TRANSLATED:
        return held
    language = TRANSLATED[0]
    for area in AREAS:
        path = po_path(language, area)
        if path.exists():
            for message in read(path, language):
                if message.id:
                    held.setdefault((message.context, _key(message.id)), area)
    return held


def _key(message_id: str | tuple[str, str]) -> str:
    return message_id if isinstance(message_id, str) else message_id[0]


def po_path(language: str, area: str) -> Path:
    return LOCALES_DIR / language / f"{area}.po"


def read(path: Path, language: str) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=LANGUAGES[language].babel_locale, domain=DOMAIN)


def write(path: Path, catalog: Catalog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        # No line numbers and a fixed date: a .po file changes only when its texts do.
        catalog.creation_date = CATALOG_DATE
        catalog.revision_date = CATALOG_DATE
        catalog.last_translator = "dicebot <translations@dicebot.invalid>"
        catalog.language_team = f"{catalog.locale_identifier} <translations@dicebot.invalid>"
        write_po(
            handle, catalog, width=100, omit_header=False, sort_output=False, include_lineno=False
        )


def update(areas: Iterable[str] | None = None) -> None:
    """Bring every language's area files in line with the source: new texts added empty,
    texts gone from the source dropped, translations kept (a text that moved to another
    area takes its translation with it)."""
    wanted = templates()
    translated = {language: _translations(language) for language in TRANSLATED}
    for area in areas or AREAS:
        template = wanted[area]
        for language in TRANSLATED:
            path = po_path(language, area)
            if path.exists():
                catalog = read(path, language)
            else:
                catalog = Catalog(
                    locale=LANGUAGES[language].babel_locale,
                    domain=DOMAIN,
                    project="dicebot",
                    version="1",
                )
                siblings = [po_path(language, other) for other in AREAS]
                declared = [sibling for sibling in siblings if sibling.exists()]
                if declared:
                    # A new area counts plurals as its language's other files declare, not
                    # as the installed Babel would (Babel 2.19 adds a form for millions to
                    # Spanish, French and Portuguese); bot/i18n.py refuses files that differ.
                    rule = read(declared[0], language).plural_forms
                    catalog.mime_headers = [("Plural-Forms", rule)]
            catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
            catalog.obsolete.clear()
            for message in catalog:
                moved = translated[language].get((message.context, _key(message.id)))
                if message.id and not _has_translation(message.string) and moved is not None:
                    message.string = moved
            write(path, catalog)


def _translations(language: str) -> dict[tuple[str | None, str], str | tuple[str, ...] | list[str]]:
    """Every translated text of a language, whichever area's file holds it today."""
    found: dict[tuple[str | None, str], str | tuple[str, ...] | list[str]] = {}
    for area in AREAS:
        path = po_path(language, area)
        if path.exists():
            for message in read(path, language):
                if message.id and _has_translation(message.string):
                    found.setdefault((message.context, _key(message.id)), message.string)
    return found


def _has_translation(string: object) -> bool:
    if isinstance(string, tuple | list):
        return any(string)
    return bool(string)


# ---------------------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------------------

_FORMATTER = string.Formatter()


def placeholders(text: str) -> list[str]:
    """The ``{name}`` fields of a text, sorted (each once)."""
    try:
        return sorted({field for _, field, _, _ in _FORMATTER.parse(text) if field is not None})
    except ValueError:
        return ["<unbalanced braces>"]


def check(areas: Iterable[str] | None = None) -> list[str]:
    """Every problem in the catalogs, one line each: a message missing or untranslated, a
    fuzzy one, placeholders that differ from English, plural forms the language does not
    use, a command name Discord would refuse."""
    problems: list[str] = []
    wanted = templates()
    for area in areas or AREAS:
        template = wanted[area]
        for language in TRANSLATED:
            path = po_path(language, area)
            if not path.exists():
                if len(template):
                    problems.append(f"{path.relative_to(ROOT)}: missing file")
                continue
            catalog = read(path, language)
            for message in template:
                if not message.id:
                    continue
                problems.extend(_check_message(path, catalog, message, language))
    return problems


def _check_message(path: Path, catalog: Catalog, message: Message, language: str) -> list[str]:
    where = f"{path.relative_to(ROOT)}"
    label = _key(message.id)[:60]
    found = catalog.get(message.id, context=message.context)
    if found is None:
        return [f"{where}: missing {label!r}"]
    if found.fuzzy:
        return [f"{where}: fuzzy {label!r}"]
    problems: list[str] = []
    sources = [message.id] if isinstance(message.id, str) else list(message.id)
    translations = [found.string] if isinstance(found.string, str) else list(found.string)
    if isinstance(message.id, tuple) and len(translations) != catalog.num_plurals:
        problems.append(
            f"{where}: {label!r} has {len(translations)} plural forms, "
            f"{language} uses {catalog.num_plurals}"
        )
    if not all(translations):
        return [*problems, f"{where}: untranslated {label!r}"]
    expected = placeholders(sources[-1])
    for translation in translations:
        if placeholders(translation) != expected:
            problems.append(
                f"{where}: {label!r} placeholders {placeholders(translation)} != {expected}"
            )
    if message.context == COMMAND_NAME or message.context == OPTION_NAME:
        for translation in translations:
            if not COMMAND_NAME_RE.match(translation) or translation != translation.lower():
                problems.append(f"{where}: {label!r} is not a valid command name: {translation!r}")
    elif any(location[1] == 0 for location in message.locations):
        for translation in translations:
            if len(translation) > DESCRIPTION_LIMIT:
                problems.append(f"{where}: {label!r} is longer than {DESCRIPTION_LIMIT}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.i18n", description=__doc__)
    parser.add_argument("action", choices=("update", "check", "stats"))
    parser.add_argument("--area", action="append", choices=tuple(AREAS))
    args = parser.parse_args(argv)
    if args.action == "update":
        update(args.area)
        return 0
    if args.action == "stats":
        for area, template in templates().items():
            print(f"{area:14} {len(template):5} messages")
        return 0
    problems = check(args.area)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
