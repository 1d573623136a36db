"""The pseudo-localized run of the end-to-end suite: no English left in what players see.

With ``DICEBOT_PSEUDO_LOCALE=1`` every text the bot takes from its catalogs comes out as
``⟦Text⁓⁓⟧`` (bot/i18n.py: each literal run wrapped and 40% longer, placeholders left as
they are). The fake Discord checks Discord's limits on the longer texts as sent and keeps
plain copies for the tests to read (tests/fakediscord/pseudo.py). When a test ends, the
``fake_discord`` fixture runs ``pseudo_problems`` over every body the bot sent: any word
outside the brackets is English that skipped the catalogs, unless it is a name (a user,
a server, a channel) or text a player typed (a command option, a modal field).

Every end-to-end test on PostgreSQL runs pseudo-localized (tests/e2e/conftest.py), so
``.ci/run`` makes this run with the English one. ``DICEBOT_PSEUDO_LOCALE=1 python -m pytest
tests/e2e`` runs all of them so; outside tests/e2e the switch also turns the texts that unit
tests compare word for word (a catalog's Spanish, say) into pseudo-text, and those fail.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from fakediscord import FakeDiscord
from fakediscord.pseudo import CLOSE, OPEN

BRACKETED = re.compile(re.escape(OPEN) + "[^" + re.escape(CLOSE) + "]*" + re.escape(CLOSE))
# Markup that names things rather than saying them: mentions, timestamps, custom emoji, links.
MARKUP = re.compile(
    r"<(?:@[!&]?|#|/[^:>]+:)\d+>|<t:-?\d+(?::[tTdDfFR])?>|<a?:\w+:\d+>|https?://\S+"
)
# A run of letters and digits: flagged when it is all letters (a word), not when it has
# digits too (a reference like a8ad7e, a die like d6).
TOKEN = re.compile(r"[^\W_]+")
# Names a test stored in the bot's database itself (seeded results): shown as given.
STORED_NAMES: set[str] = set()

# Request routes whose bodies are not messages players read.
NOT_MESSAGES = ("/commands",)


def _strings(component: Any) -> Iterator[tuple[str, str]]:
    if isinstance(component, list):
        for item in component:
            yield from _strings(item)
        return
    if not isinstance(component, dict):
        return
    for key in ("label", "placeholder", "content"):
        if isinstance(component.get(key), str):
            yield f"component {key}", component[key]
    for option in component.get("options") or []:
        if isinstance(option, dict):
            for key in ("label", "description"):
                if isinstance(option.get(key), str):
                    yield f"select option {key}", option[key]
    for key in ("components", "accessory"):
        if key in component:
            yield from _strings(component[key])


def shown_texts(body: Any) -> Iterator[tuple[str, str]]:
    """Every (where, text) a player reads in a request body the bot sent."""
    if not isinstance(body, dict):
        return
    messages = [body]
    if isinstance(body.get("data"), dict):
        messages.append(body["data"])
    for message in messages:
        if isinstance(message.get("content"), str):
            yield "content", message["content"]
        if isinstance(message.get("title"), str):
            yield "modal title", message["title"]
        for embed in message.get("embeds") or []:
            if not isinstance(embed, dict):
                continue
            for key in ("title", "description"):
                if isinstance(embed.get(key), str):
                    yield f"embed {key}", embed[key]
            for part, key in (("footer", "text"), ("author", "name")):
                if isinstance(embed.get(part), dict) and isinstance(embed[part].get(key), str):
                    yield f"embed {part}", embed[part][key]
            for embed_field in embed.get("fields") or []:
                for key in ("name", "value"):
                    if isinstance(embed_field.get(key), str):
                        yield f"embed field {key}", embed_field[key]
        yield from _strings(message.get("components") or [])
        for attachment in message.get("attachments") or []:
            if isinstance(attachment, dict) and isinstance(attachment.get("description"), str):
                yield "picture alt text", attachment["description"]


def _typed(value: Any) -> Iterator[str]:
    """Strings a player typed: command option values and modal fields."""
    if isinstance(value, dict):
        if value.get("type") in (3, 4) and isinstance(value.get("value"), str):
            yield value["value"]
        for key in ("options", "components", "component"):
            if key in value:
                yield from _typed(value[key])
        if isinstance(value.get("value"), str):
            yield value["value"]
    elif isinstance(value, list):
        for item in value:
            yield from _typed(item)


def known_names(fake: FakeDiscord) -> list[str]:
    """Words the bot shows as given: names of users, servers, channels; typed text."""
    names: set[str] = set(STORED_NAMES)
    for user in fake.users.values():
        names.update((user.name, user.name.title()))
    for guild in fake.guilds.values():
        names.add(guild.name)
        names.update(member.nick for member in guild.members.values() if member.nick)
        names.update(channel.name for channel in guild.channels.values())
    for interaction in fake.interactions.values():
        data = (interaction.payload or {}).get("data") or {}
        names.update(_typed(data))
    return sorted((name for name in names if name), key=len, reverse=True)


def names_pattern(names: list[str]) -> re.Pattern[str] | None:
    """Any of ``names`` as a whole word (longest first)."""
    if not names:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(name) for name in names) + r")(?!\w)")


def english_left(text: str, names: re.Pattern[str] | None) -> list[str]:
    """Words of ``text`` outside the pseudo brackets that are not names."""
    # Escaped markdown and mentions (a backslash, a zero-width space) hide no English.
    outside = MARKUP.sub(" ", BRACKETED.sub(" ", text)).replace("\\", "").replace("\u200b", "")
    if names is not None:
        outside = names.sub(" ", outside)
    return [
        token
        for token in TOKEN.findall(outside)
        if len(token) >= 2 and not any(char.isdigit() for char in token)
    ]


def pseudo_problems(fake: FakeDiscord) -> list[str]:
    """Each text the bot sent with English left in it, named once."""
    names = names_pattern(known_names(fake))
    seen: dict[tuple[str, str], str] = {}
    for record in fake.requests:
        if any(part in record.route for part in NOT_MESSAGES):
            continue
        for where, text in shown_texts(record.body):
            words = english_left(text, names)
            if words:
                shown = text if len(text) <= 160 else text[:157] + "..."
                # One line per English phrase, however many times it was sent.
                seen.setdefault(
                    (where, " ".join(words)), f"{where}: {' '.join(words)!r} in {shown!r}"
                )
    return list(seen.values())
