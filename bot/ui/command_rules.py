"""Discord's rules for application commands, checked on the bot's own command tree before
it is synced.

Discord takes every command in one bulk PUT and refuses all of it (HTTP 400, code 50035
Invalid Form Body) when any part breaks a rule, so one bad option would leave the bot
with no commands at all. ``check_tree`` builds the body ``CommandTree.sync`` sends, the
way discord.py builds it (each command's translated payload, so every locale the
translator fills in), and checks it against the rules of Discord's documentation
("Application Commands": names, descriptions, options, choices, localizations, the
4000-character total and the command counts). A broken rule raises ``CommandRulesBroken``,
whose message is one line: the command, the option, the locale and the rule.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from discord import app_commands
from discord.abc import Snowflake

# Discord types the bounds of integer and number options as int53 (its OpenAPI schema):
# the largest integer a JavaScript number holds exactly.
MAX_OPTION_INTEGER = 2**53 - 1
NAME_LIMIT = 32
DESCRIPTION_LIMIT = 100
OPTIONS_LIMIT = 25
CHOICES_LIMIT = 25
CHOICE_NAME_LIMIT = 100
CHOICE_VALUE_LIMIT = 100
MAX_STRING_LENGTH = 6000
COMMAND_TEXT_LIMIT = 4000
CHAT_INPUT_COMMANDS_LIMIT = 100
CONTEXT_MENU_COMMANDS_LIMIT = 5

# Command types (the top level) and option types.
CHAT_INPUT, USER, MESSAGE = 1, 2, 3
SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, NUMBER = 1, 2, 3, 4, 10
OPTION_TYPES = range(1, 12)  # SUB_COMMAND .. ATTACHMENT
COMMAND_KINDS = {CHAT_INPUT: "chat input", USER: "user", MESSAGE: "message"}

# Discord's locales (https://discord.com/developers/docs/reference#locales).
LOCALES = frozenset(
    {
        "id",
        "da",
        "de",
        "en-GB",
        "en-US",
        "es-ES",
        "es-419",
        "fr",
        "hr",
        "it",
        "lt",
        "hu",
        "nl",
        "no",
        "pl",
        "pt-BR",
        "ro",
        "fi",
        "sv-SE",
        "vi",
        "tr",
        "cs",
        "el",
        "bg",
        "ru",
        "uk",
        "hi",
        "th",
        "zh-CN",
        "ja",
        "zh-TW",
        "ko",
    }
)

# The characters of ``^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$`` beyond letters and
# numbers: the Devanagari and Thai scripts (Unicode's Scripts.txt), which take in their
# vowel signs and viramas (marks, neither letters nor numbers).
NAME_PUNCTUATION = frozenset("-_'")
SCRIPT_RANGES = (
    (0x0900, 0x0950),  # Devanagari
    (0x0955, 0x0963),
    (0x0966, 0x097F),
    (0xA8E0, 0xA8FF),  # Devanagari Extended
    (0x11B00, 0x11B09),  # Devanagari Extended-A
    (0x0E01, 0x0E3A),  # Thai
    (0x0E40, 0x0E5B),
)


@dataclass(frozen=True)
class Violation:
    """One broken rule: where (the command path, the option, the locale) and what."""

    command: str
    rule: str
    option: str | None = None
    locale: str | None = None

    def line(self) -> str:
        where = [self.command]
        if self.option is not None:
            where.append(f"option {self.option}")
        if self.locale is not None:
            where.append(f"locale {self.locale}")
        return f"{', '.join(where)}: {self.rule}"


class CommandRulesBroken(Exception):
    """The command tree breaks Discord's rules: syncing it would be refused whole."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = tuple(violations)
        more = len(self.violations) - 1
        text = (
            "Discord would refuse the bot's slash commands (nothing was synced): "
            + self.violations[0].line()
        )
        super().__init__(text + (f" (and {more} more)" if more else ""))


# -- the payload, as CommandTree.sync builds it ------------------------------------------------


async def sync_payload(
    tree: app_commands.CommandTree[Any], *, guild: Snowflake | None = None
) -> list[dict[str, Any]]:
    """The body ``tree.sync(guild=guild)`` sends, built as discord.py builds it: its
    commands (``get_commands`` with no type is the list ``sync`` takes), each through the
    tree's translator when it has one."""
    commands = tree.get_commands(guild=guild)
    translator = tree.translator
    if translator:
        return [await command.get_translated_payload(tree, translator) for command in commands]
    return [command.to_dict(tree) for command in commands]


async def check_tree(
    tree: app_commands.CommandTree[Any], *, guild: Snowflake | None = None
) -> None:
    """Raise ``CommandRulesBroken`` if Discord would refuse ``tree.sync(guild=guild)``."""
    check_payload(await sync_payload(tree, guild=guild))


def check_payload(payload: Sequence[Mapping[str, Any]]) -> None:
    """Raise ``CommandRulesBroken`` if Discord would refuse the sync body ``payload``."""
    problems = payload_problems(payload)
    if problems:
        raise CommandRulesBroken(problems)


# -- the rules ------------------------------------------------------------------------------------


def payload_problems(payload: Sequence[Mapping[str, Any]]) -> list[Violation]:
    """Every rule the sync body ``payload`` breaks, in the order of its commands."""
    problems: list[Violation] = []
    for command in payload:
        problems.extend(_command_problems(command))
    problems.extend(_count_problems(payload))
    return problems


def _count_problems(payload: Sequence[Mapping[str, Any]]) -> Iterator[Violation]:
    kinds = Counter(_kind(command) for command in payload)
    for kind, limit in (
        (CHAT_INPUT, CHAT_INPUT_COMMANDS_LIMIT),
        (USER, CONTEXT_MENU_COMMANDS_LIMIT),
        (MESSAGE, CONTEXT_MENU_COMMANDS_LIMIT),
    ):
        if kinds[kind] > limit:
            yield Violation(
                "the command list",
                f"it has {kinds[kind]} {COMMAND_KINDS[kind]} commands; Discord allows at "
                f"most {limit}",
            )
    names = Counter((_kind(command), command.get("name")) for command in payload)
    for (kind, name), count in names.items():
        if count > 1:
            yield Violation(
                _command_path(kind, name),
                f"{count} {COMMAND_KINDS.get(kind, 'other')} commands share this name",
            )


def _kind(command: Mapping[str, Any]) -> int:
    kind = command.get("type", CHAT_INPUT)
    return kind if isinstance(kind, int) else -1


def _command_path(kind: int, name: object) -> str:
    if kind == CHAT_INPUT:
        return f"/{name}"
    return f"{COMMAND_KINDS.get(kind, 'unknown')} command {name!r}"


def _command_problems(command: Mapping[str, Any]) -> Iterator[Violation]:
    kind = _kind(command)
    path = _command_path(kind, command.get("name"))
    if kind not in COMMAND_KINDS:
        yield Violation(path, f"type {command.get('type')!r} is not a command type")
        return
    chat_input = kind == CHAT_INPUT
    yield from _name_and_description(command, path, None, chat_input=chat_input)
    options = _options(command)
    if chat_input:
        yield from _option_list(options, path, level="command")
        yield from _total_problems(command, path)
    elif options:
        yield Violation(path, f"a {COMMAND_KINDS[kind]} command takes no options")


def _name_and_description(
    item: Mapping[str, Any], path: str, option: str | None, *, chat_input: bool
) -> Iterator[Violation]:
    """The rules on an item's name and description, and on their localizations."""
    yield from _name_problems(item.get("name"), path, option, None, chat_input=chat_input)
    description = item.get("description")
    if chat_input:
        yield from _text_problems("description", description, path, option, None)
    elif description:
        yield Violation(path, "description must be empty for a context menu command", option)
    for field in ("name_localizations", "description_localizations"):
        localized = item.get(field) or {}
        if not isinstance(localized, Mapping):
            yield Violation(path, f"{field} must be an object", option)
            continue
        for locale, text in localized.items():
            if locale not in LOCALES:
                yield Violation(
                    path, f"{field} uses a locale Discord does not have", option, locale
                )
                continue
            if field == "name_localizations":
                yield from _name_problems(text, path, option, locale, chat_input=chat_input)
            elif chat_input:
                yield from _text_problems("description", text, path, option, locale)


def _name_problems(
    name: object, path: str, option: str | None, locale: str | None, *, chat_input: bool
) -> Iterator[Violation]:
    if not isinstance(name, str):
        yield Violation(path, f"name {name!r} is not text", option, locale)
        return
    if not 1 <= len(name) <= NAME_LIMIT:
        yield Violation(
            path,
            f"name {name!r} must be 1-{NAME_LIMIT} characters long (it has {len(name)})",
            option,
            locale,
        )
    if not chat_input:
        return  # user and message commands may use any characters, spaces and capitals
    refused = [char for char in name if not name_character(char)]
    if refused:
        yield Violation(
            path,
            f"name {name!r} has {refused[0]!r}: a name may hold only letters, numbers, "
            "- _ ' and the Devanagari and Thai scripts",
            option,
            locale,
        )
    if name != name.lower():
        yield Violation(path, f"name {name!r} must be lower case", option, locale)


def name_character(char: str) -> bool:
    """Whether Discord's name pattern takes ``char``: a letter or number (Unicode ``L*``
    and ``N*``), ``-``, ``_``, ``'``, or a character of the Devanagari or Thai script."""
    if char in NAME_PUNCTUATION or unicodedata.category(char)[0] in "LN":
        return True
    point = ord(char)
    return any(low <= point <= high for low, high in SCRIPT_RANGES)


def _text_problems(
    what: str,
    text: object,
    path: str,
    option: str | None,
    locale: str | None,
    limit: int = DESCRIPTION_LIMIT,
) -> Iterator[Violation]:
    if not isinstance(text, str):
        yield Violation(path, f"{what} {text!r} is not text", option, locale)
    elif not 1 <= len(text) <= limit:
        yield Violation(
            path, f"{what} must be 1-{limit} characters long (it has {len(text)})", option, locale
        )


def _options(item: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    options = item.get("options") or []
    return [option for option in options if isinstance(option, Mapping)]


def _option_list(options: list[Mapping[str, Any]], path: str, *, level: str) -> Iterator[Violation]:
    """A command's, a group's or a subcommand's options: their count, nesting and order,
    then each option."""
    if len(options) > OPTIONS_LIMIT:
        yield Violation(
            path, f"it has {len(options)} options; Discord allows at most {OPTIONS_LIMIT}"
        )
    kinds = [option.get("type") for option in options]
    nested = [kind in (SUB_COMMAND, SUB_COMMAND_GROUP) for kind in kinds]
    if level == "group" and not all(kind == SUB_COMMAND for kind in kinds):
        yield Violation(path, "a subcommand group may hold only subcommands")
    elif level == "subcommand" and any(nested):
        yield Violation(path, "a subcommand cannot hold subcommands or subcommand groups")
    elif level == "command" and any(nested) and not all(nested):
        yield Violation(path, "subcommands and groups cannot sit beside ordinary options")
    names = Counter(option.get("name") for option in options)
    for name, count in names.items():
        if count > 1:
            yield Violation(path, f"{count} options share the name {name!r}")
    optional_seen: str | None = None
    for option in options:
        name = option.get("name")
        kind = option.get("type")
        if kind in (SUB_COMMAND, SUB_COMMAND_GROUP):
            inner = f"{path} {name}"
            yield from _name_and_description(option, inner, None, chat_input=True)
            inner_level = "group" if kind == SUB_COMMAND_GROUP else "subcommand"
            yield from _option_list(_options(option), inner, level=inner_level)
            continue
        label = str(name)
        if option.get("required"):
            if optional_seen is not None:
                yield Violation(
                    path, f"it is required but comes after the optional {optional_seen}", label
                )
        elif optional_seen is None:
            optional_seen = label
        yield from _option_problems(option, path, label)


def _option_problems(option: Mapping[str, Any], path: str, label: str) -> Iterator[Violation]:
    kind = option.get("type")
    yield from _name_and_description(option, path, label, chat_input=True)
    if kind not in OPTION_TYPES:
        yield Violation(path, f"type {kind!r} is not an option type", label)
    for key in ("min_value", "max_value"):
        value = option.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            yield Violation(path, f"{key} {value!r} is not a number", label)
        elif abs(value) > MAX_OPTION_INTEGER:
            numbers = "integer" if kind == INTEGER else "number"
            yield Violation(
                path,
                f"{key} {value} is outside Discord's {numbers} range ±{MAX_OPTION_INTEGER}",
                label,
            )
    yield from _bounds_in_order(option, "min_value", "max_value", path, label)
    for key, lowest in (("min_length", 0), ("max_length", 1)):
        value = option.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            yield Violation(path, f"{key} {value!r} is not an integer", label)
        elif not lowest <= value <= MAX_STRING_LENGTH:
            yield Violation(
                path,
                f"{key} {value} is outside Discord's range {lowest}-{MAX_STRING_LENGTH}",
                label,
            )
    yield from _bounds_in_order(option, "min_length", "max_length", path, label)
    choices = [choice for choice in option.get("choices") or [] if isinstance(choice, Mapping)]
    if len(choices) > CHOICES_LIMIT:
        yield Violation(
            path, f"it has {len(choices)} choices; Discord allows at most {CHOICES_LIMIT}", label
        )
    if choices and option.get("autocomplete"):
        yield Violation(path, "an option with choices cannot autocomplete", label)
    for choice in choices:
        yield from _choice_problems(choice, kind, path, label)


def _bounds_in_order(
    option: Mapping[str, Any], low_key: str, high_key: str, path: str, label: str
) -> Iterator[Violation]:
    low, high = option.get(low_key), option.get(high_key)
    numbers = (int, float)
    if isinstance(low, numbers) and isinstance(high, numbers) and low > high:
        yield Violation(path, f"{low_key} {low} is greater than {high_key} {high}", label)


def _choice_problems(
    choice: Mapping[str, Any], kind: object, path: str, label: str
) -> Iterator[Violation]:
    name, value = choice.get("name"), choice.get("value")
    what = f"choice {name!r}"
    yield from _text_problems(f"{what}: name", name, path, label, None, CHOICE_NAME_LIMIT)
    localized = choice.get("name_localizations") or {}
    if not isinstance(localized, Mapping):
        yield Violation(path, f"{what}: name_localizations must be an object", label)
        localized = {}
    for locale, text in localized.items():
        if locale not in LOCALES:
            yield Violation(
                path,
                f"{what}: name_localizations uses a locale Discord does not have",
                label,
                locale,
            )
        else:
            yield from _text_problems(f"{what}: name", text, path, label, locale, CHOICE_NAME_LIMIT)
    if isinstance(value, str) and len(value) > CHOICE_VALUE_LIMIT:
        yield Violation(
            path,
            f"{what}: value must be at most {CHOICE_VALUE_LIMIT} characters long (it has "
            f"{len(value)})",
            label,
        )
    elif kind == INTEGER and isinstance(value, int) and abs(value) > MAX_OPTION_INTEGER:
        yield Violation(
            path,
            f"{what}: value {value} is outside Discord's integer range ±{MAX_OPTION_INTEGER}",
            label,
        )


# -- the 4000 characters --------------------------------------------------------------------


def _total_problems(command: Mapping[str, Any], path: str) -> Iterator[Violation]:
    """Discord counts a command's names, descriptions and choice names and values, with
    its options, groups and subcommands, in each locale: a locale's text where it has one,
    the default text elsewhere."""
    for locale in [None, *sorted(_locales(command))]:
        total = _characters(command, locale)
        if total > COMMAND_TEXT_LIMIT:
            yield Violation(
                path,
                f"its names, descriptions and choices come to {total} characters; Discord "
                f"allows at most {COMMAND_TEXT_LIMIT}",
                locale=locale,
            )


def _locales(item: Mapping[str, Any]) -> set[str]:
    found: set[str] = set()
    for field in ("name_localizations", "description_localizations"):
        localized = item.get(field)
        if isinstance(localized, Mapping):
            found.update(str(locale) for locale in localized)
    for child in [*_options(item), *_choices(item)]:
        found |= _locales(child)
    return found


def _choices(item: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [choice for choice in item.get("choices") or [] if isinstance(choice, Mapping)]


def _characters(item: Mapping[str, Any], locale: str | None) -> int:
    total = len(_localized(item, "name", locale)) + len(_localized(item, "description", locale))
    for choice in _choices(item):
        total += len(_localized(choice, "name", locale)) + len(str(choice.get("value", "")))
    return total + sum(_characters(option, locale) for option in _options(item))


def _localized(item: Mapping[str, Any], field: str, locale: str | None) -> str:
    text = item.get(field)
    localized = item.get(f"{field}_localizations")
    if locale is not None and isinstance(localized, Mapping) and locale in localized:
        text = localized[locale]
    return text if isinstance(text, str) else ""
