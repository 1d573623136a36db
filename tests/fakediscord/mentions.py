"""Command mentions (``</knucklebones challenge:123>``) as Discord's clients show them.

Discord's Reference (Message Formatting) writes a slash command mention as
``</NAME:COMMAND_ID>``, a subcommand as ``</NAME SUBCOMMAND:ID>`` or ``</NAME SUBCOMMAND_GROUP
SUBCOMMAND:ID>``: the command's own (default) names and the id of its top-level command. A
client shows it as a clickable ``/name sub`` written with the command's localizations for
the client's language (its ``name_localizations``), which is why a message in one language
can name a command in each reader's. It does so where it renders markdown mentions: the
content, an embed's description and field values, a text display. Elsewhere (an embed's
title, footer, author or field name, a button or select, a picture's alt text) the reader
sees the raw characters, and a mention whose id is no command of the application there, or
whose names are not that command's path down to a subcommand, is plain text too.

``mention_problems`` lists such broken mentions in a message body (the fake records each as a
``command-mention`` problem); ``as_seen`` is a text as a client in one locale shows it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .models import BUTTON, SELECT_TYPES, TEXT_DISPLAY, walk_components

if TYPE_CHECKING:
    from .commands import CommandRegistry

COMMAND_MENTION = re.compile(r"</(?P<path>[^:<>]+):(?P<id>\d+)>")
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2


def _localized(item: dict[str, Any], locale: str | None) -> str:
    names = item.get("name_localizations") or {}
    return str(names.get(locale) or item["name"]) if locale else str(item["name"])


def resolve(
    registry: CommandRegistry, path: str, command_id: int, guild_id: int | None
) -> list[dict[str, Any]] | None:
    """The command and its subcommand group and subcommand a mention names (top-level
    first), or None when it names none of the application's commands in that place."""
    command = registry.by_id(command_id, guild_id)
    words = path.split(" ")
    if command is None or words[0] != command.name:
        return None
    chain: list[dict[str, Any]] = [command.data]
    options = command.data.get("options") or []
    for word in words[1:]:
        found = next(
            (
                option
                for option in options
                if option.get("name") == word
                and option.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)
            ),
            None,
        )
        if found is None:
            return None
        chain.append(found)
        options = found.get("options") or []
    # A command (or group) with subcommands runs only through one of them.
    if any(option.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP) for option in options):
        return None
    return chain


def as_seen(registry: CommandRegistry, text: str, guild_id: int | None, locale: str) -> str:
    """``text`` as a client in ``locale`` shows it: each valid command mention as the
    clickable ``/name sub`` in that language, a broken one as its raw characters."""

    def shown(match: re.Match[str]) -> str:
        chain = resolve(registry, match["path"], int(match["id"]), guild_id)
        if chain is None:
            return match[0]
        return "/" + " ".join(_localized(item, locale) for item in chain)

    return COMMAND_MENTION.sub(shown, text)


def _rendered_and_raw(
    content: str, embeds: list[dict[str, Any]], components: list[dict[str, Any]]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(where, text) pairs of a message body: where Discord renders mentions, and where it
    shows them as raw characters."""
    rendered: list[tuple[str, str]] = [("content", content)] if content else []
    raw: list[tuple[str, str]] = []
    for number, embed in enumerate(embeds):
        if isinstance(embed.get("description"), str):
            rendered.append((f"embed {number} description", embed["description"]))
        if isinstance(embed.get("title"), str):
            raw.append((f"embed {number} title", embed["title"]))
        for part, key in (("footer", "text"), ("author", "name")):
            if isinstance(embed.get(part), dict) and isinstance(embed[part].get(key), str):
                raw.append((f"embed {number} {part}", embed[part][key]))
        for index, embed_field in enumerate(embed.get("fields") or []):
            if isinstance(embed_field.get("value"), str):
                rendered.append((f"embed {number} field {index} value", embed_field["value"]))
            if isinstance(embed_field.get("name"), str):
                raw.append((f"embed {number} field {index} name", embed_field["name"]))
    for component in walk_components(components):
        kind = component.get("type")
        if kind == TEXT_DISPLAY and isinstance(component.get("content"), str):
            rendered.append(("text display", component["content"]))
        elif kind == BUTTON and isinstance(component.get("label"), str):
            raw.append(("button label", component["label"]))
        elif kind in SELECT_TYPES:
            if isinstance(component.get("placeholder"), str):
                raw.append(("select placeholder", component["placeholder"]))
            for option in component.get("options") or []:
                for key in ("label", "description"):
                    if isinstance(option.get(key), str):
                        raw.append((f"select option {key}", option[key]))
    return rendered, raw


def mention_problems(
    registry: CommandRegistry,
    guild_id: int | None,
    content: str,
    embeds: list[dict[str, Any]],
    components: list[dict[str, Any]],
    alt_texts: list[str],
) -> list[str]:
    """Each command mention of a message body a reader would see as raw characters."""
    rendered, raw = _rendered_and_raw(content, embeds, components)
    raw += [("picture alt text", text) for text in alt_texts]
    problems: list[str] = []
    for where, text in rendered:
        for match in COMMAND_MENTION.finditer(text):
            if resolve(registry, match["path"], int(match["id"]), guild_id) is None:
                problems.append(
                    f"{where}: {match[0]} names no registered command there (its id and "
                    f"names must be a command's and its path down to a subcommand)"
                )
    for where, text in raw:
        for match in COMMAND_MENTION.finditer(text):
            problems.append(f"{where}: {match[0]} shows as raw text (Discord renders none here)")
    return problems
