"""What every message the bot sends must look like, checked on every end-to-end test.

The ``fake_discord`` fixture runs these over every body the bot sent (messages, edits,
interaction answers) when a test ends:

- one palette: an embed's colour bar is one of the house colours
  (``bot.pictures.palette.EMBED_*``), or none;
- pictures for everyone: every PNG the bot attaches has alt text (its description) of 1
  to 1,024 characters, so a screen reader reads what the picture shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.pictures import palette
from bot.pictures.picture import ALT_TEXT_LIMIT

HOUSE_COLOURS = frozenset(
    getattr(palette, name) for name in dir(palette) if name.startswith("EMBED_")
)


def _message_bodies(body: Any) -> Iterator[dict[str, Any]]:
    """The message payloads in a request body (an interaction answer nests its own)."""
    if not isinstance(body, dict):
        return
    yield body
    data = body.get("data")
    if isinstance(data, dict):
        yield data


def problems_in(body: Any) -> list[str]:
    found = []
    for message in _message_bodies(body):
        for embed in message.get("embeds") or []:
            colour = embed.get("color") if isinstance(embed, dict) else None
            if colour is not None and colour not in HOUSE_COLOURS:
                title = embed.get("title")
                found.append(f"embed {title!r} has colour {colour:#08x}, not a house colour")
        for attachment in message.get("attachments") or []:
            if not isinstance(attachment, dict):
                continue
            name = str(attachment.get("filename", ""))
            if not name.lower().endswith(".png"):
                continue  # an attachment kept by id, or not a picture
            alt = attachment.get("description") or ""
            if not 1 <= len(alt) <= ALT_TEXT_LIMIT:
                found.append(f"picture {name} has no usable alt text ({len(alt)} characters)")
    return found


def presentation_problems(bodies: list[Any]) -> list[str]:
    """Every problem in ``bodies`` (request bodies the bot sent), each named once."""
    seen: dict[str, None] = {}
    for body in bodies:
        for problem in problems_in(body):
            seen.setdefault(problem)
    return list(seen)
