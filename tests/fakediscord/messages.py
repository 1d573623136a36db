"""Message bodies: reading JSON or multipart requests, Discord's validation rules, and
applying a create/edit payload to a FakeMessage (attachments included)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from aiohttp import web

from . import mentions, pseudo
from .errors import CANNOT_SEND_EMPTY, DiscordError, invalid_form
from .models import (
    ACTION_ROW,
    BUTTON,
    COMPONENTS_V2_FLAG,
    EPHEMERAL_FLAG,
    LINK_BUTTON_STYLE,
    PREMIUM_BUTTON_STYLE,
    SELECT_TYPES,
    STRING_SELECT,
    TEXT_INPUT,
    FakeAttachment,
    FakeChannel,
    FakeMessage,
    png_size,
    walk_components,
)

if TYPE_CHECKING:
    from .server import FakeDiscord

FILE_FIELD = re.compile(r"^files\[(\d+)\]$")
# Flags a bot may set on a message it sends: suppress embeds, ephemeral, silent, IS_COMPONENTS_V2.
SETTABLE_FLAGS = (1 << 2) | EPHEMERAL_FLAG | (1 << 12) | COMPONENTS_V2_FLAG


@dataclass
class UploadedFile:
    index: int
    filename: str
    content: bytes
    content_type: str


# The parts of a Content-Type and a part's Content-Disposition the fake reads. aiohttp's
# own readers (``request.content_type``, ``BodyPartReader``) parse every header through
# the email package, which made the fake spend half its time on a board's upload.
_BOUNDARY = re.compile(r'boundary="?([^";]+)"?', re.IGNORECASE)
_DISPOSITION = re.compile(r'\b(name|filename)(\*?)=(?:"([^"]*)"|([^";\s]*))', re.IGNORECASE)


def media_type(request: web.Request) -> str:
    """The request's media type (``application/json``), without its parameters."""
    return request.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()


def _disposition(value: str) -> dict[str, str]:
    """``name`` and ``filename`` of a Content-Disposition (``filename*``, RFC 5987, wins)."""
    found: dict[str, str] = {}
    for key, star, quoted, bare in _DISPOSITION.findall(value):
        text = quoted or bare
        if star:  # filename*=utf-8''name%20in%20UTF-8
            found[key.lower()] = unquote(text.split("'", 2)[-1])
        else:
            found.setdefault(key.lower(), text)
    return found


def multipart_parts(body: bytes, boundary: bytes) -> list[tuple[dict[str, str], bytes]]:
    """The parts of a multipart body: (headers with lower-case names, content)."""
    pieces = (b"\r\n" + body).split(b"\r\n--" + boundary)
    if len(pieces) < 2 or not pieces[-1].startswith(b"--"):
        raise invalid_form("a multipart body without its closing boundary")
    parts = []
    for piece in pieces[1:-1]:
        head, separator, content = piece.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        if not separator:
            raise invalid_form("a multipart part without headers")
        headers = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            name, colon, value = line.partition(":")
            if colon:
                headers[name.strip().lower()] = value.strip()
        parts.append((headers, content))
    return parts


async def read_body(request: web.Request) -> tuple[Any, list[UploadedFile]]:
    """The JSON payload and the uploaded files (multipart: ``payload_json`` + ``files[n]``)."""
    if media_type(request) == "multipart/form-data":
        boundary = _BOUNDARY.search(request.headers.get("Content-Type", ""))
        if boundary is None:
            raise invalid_form("a multipart body without a boundary")
        payload: Any = None
        files: list[UploadedFile] = []
        for headers, content in multipart_parts(await request.read(), boundary[1].encode()):
            disposition = _disposition(headers.get("content-disposition", ""))
            name = disposition.get("name", "")
            if name == "payload_json":
                payload = json.loads(content)
                continue
            match = FILE_FIELD.match(name)
            if match is None:
                raise invalid_form(f"unexpected multipart field {name!r}")
            files.append(
                UploadedFile(
                    index=int(match.group(1)),
                    filename=disposition.get("filename") or f"file{match.group(1)}",
                    content=content,
                    content_type=headers.get("content-type", "application/octet-stream"),
                )
            )
        return payload, files
    raw = await request.read()
    if not raw:
        return None, []
    return json.loads(raw), []


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


Where = tuple[str | int, ...]
MAX_LENGTH = "BASE_TYPE_MAX_LENGTH"
BAD_LENGTH = "BASE_TYPE_BAD_LENGTH"

# Discord's rules for message bodies that its API description leaves out or words more
# loosely (its "Message" and "Component Reference" documentation): a bot's content is at
# most 2000 characters (the description allows 4000, a Nitro user's limit), embeds hold
# 6000 characters in all, action rows and selects, unique custom_ids, allowed mentions.
CONTENT_LIMIT = 2000
EMBEDS_LIMIT = 10
EMBEDS_TEXT_LIMIT = 6000
ACTION_ROWS_LIMIT = 5
ROW_BUTTONS_LIMIT = 5
V2_COMPONENTS_LIMIT = 40
LABEL_LIMIT = 80
SELECT_OPTIONS_LIMIT = 25


def validate_embeds(embeds: list[dict[str, Any]], where: Where = ()) -> None:
    here: Where = (*where, "embeds")
    if len(embeds) > EMBEDS_LIMIT:
        raise invalid_form("a message has at most 10 embeds", here, MAX_LENGTH)
    total = 0
    for number, embed in enumerate(embeds):
        place: Where = (*here, number)
        limits = {"title": 256, "description": 4096}
        for key, limit in limits.items():
            if _length(embed.get(key)) > limit:
                raise invalid_form(
                    f"embed {key} longer than {limit} characters", (*place, key), MAX_LENGTH
                )
            total += _length(embed.get(key))
        fields = embed.get("fields") or []
        if len(fields) > 25:
            raise invalid_form("an embed has at most 25 fields", (*place, "fields"), MAX_LENGTH)
        for index, embed_field in enumerate(fields):
            name, value = embed_field.get("name"), embed_field.get("value")
            at: Where = (*place, "fields", index)
            if not name or not value:
                raise invalid_form(
                    "embed field name and value must be non-empty", at, "BASE_TYPE_REQUIRED"
                )
            if _length(name) > 256 or _length(value) > 1024:
                raise invalid_form(
                    "embed field name over 256 or value over 1024 characters", at, MAX_LENGTH
                )
            total += _length(name) + _length(value)
        footer = (embed.get("footer") or {}).get("text")
        author = (embed.get("author") or {}).get("name")
        if _length(footer) > 2048 or _length(author) > 256:
            raise invalid_form(
                "embed footer over 2048 or author over 256 characters", place, MAX_LENGTH
            )
        total += _length(footer) + _length(author)
    if total > EMBEDS_TEXT_LIMIT:
        raise invalid_form(
            "embeds of a message hold at most 6000 characters in total", here, MAX_LENGTH
        )


def _component_paths(
    components: list[dict[str, Any]], where: Where
) -> Iterator[tuple[dict[str, Any], Where]]:
    """Every component with its path in the body (children, a section's accessory, a
    label's component)."""
    for index, component in enumerate(components):
        place: Where = (*where, index)
        yield component, place
        yield from _component_paths(component.get("components") or [], (*place, "components"))
        for key in ("accessory", "component"):
            child = component.get(key)
            if isinstance(child, dict):
                yield from _component_paths([child], (*place, key))


def validate_components(components: list[dict[str, Any]], *, v2: bool, where: Where = ()) -> None:
    here: Where = (*where, "components")
    everything = list(_component_paths(components, here))
    if v2:
        if len(everything) > V2_COMPONENTS_LIMIT:
            raise invalid_form(
                "a Components V2 message has at most 40 components", here, MAX_LENGTH
            )
    else:
        if len(components) > ACTION_ROWS_LIMIT:
            raise invalid_form("a message has at most 5 action rows", here, MAX_LENGTH)
        for index, row in enumerate(components):
            place: Where = (*here, index)
            if row.get("type") != ACTION_ROW:
                raise invalid_form(
                    "top-level components must be action rows (or use V2)",
                    (*place, "type"),
                    "UNION_TYPE_CHOICES",
                )
            children = row.get("components") or []
            if not children:
                raise invalid_form(
                    "an action row cannot be empty", (*place, "components"), BAD_LENGTH
                )
            kinds = {c.get("type") for c in children}
            if kinds & SELECT_TYPES and len(children) > 1:
                raise invalid_form(
                    "a select menu must be alone in its action row",
                    (*place, "components"),
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                )
            if len(children) > ROW_BUTTONS_LIMIT:
                raise invalid_form(
                    "an action row holds at most 5 buttons",
                    (*place, "components"),
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                )
    custom_ids: set[str] = set()
    for component, place in everything:
        kind = component.get("type")
        custom_id = component.get("custom_id")
        if kind == BUTTON:
            style = component.get("style")
            if style == LINK_BUTTON_STYLE:
                if not component.get("url"):
                    raise invalid_form(
                        "a link button needs a url", (*place, "url"), "BASE_TYPE_REQUIRED"
                    )
            elif style != PREMIUM_BUTTON_STYLE and not custom_id:
                raise invalid_form(
                    "a button needs a custom_id", (*place, "custom_id"), "BASE_TYPE_REQUIRED"
                )
            if _length(component.get("label")) > LABEL_LIMIT:
                raise invalid_form(
                    "a button label is at most 80 characters", (*place, "label"), MAX_LENGTH
                )
        if kind in SELECT_TYPES:
            if not custom_id:
                raise invalid_form(
                    "a select menu needs a custom_id", (*place, "custom_id"), "BASE_TYPE_REQUIRED"
                )
            if _length(component.get("placeholder")) > 150:
                raise invalid_form(
                    "a select placeholder is at most 150 characters",
                    (*place, "placeholder"),
                    MAX_LENGTH,
                )
            if kind == STRING_SELECT:
                options = component.get("options") or []
                if not 1 <= len(options) <= SELECT_OPTIONS_LIMIT:
                    raise invalid_form(
                        "a select menu has 1 to 25 options", (*place, "options"), BAD_LENGTH
                    )
                values = [o.get("value") for o in options]
                if len(set(values)) != len(values):
                    raise invalid_form(
                        "select option values must be unique",
                        (*place, "options"),
                        "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                    )
                for number, option in enumerate(options):
                    at: Where = (*place, "options", number)
                    if not 1 <= _length(option.get("label")) <= 100:
                        raise invalid_form(
                            "a select option label is 1 to 100 characters",
                            (*at, "label"),
                            BAD_LENGTH,
                        )
                    if not 1 <= _length(option.get("value")) <= 100:
                        raise invalid_form(
                            "a select option value is 1 to 100 characters",
                            (*at, "value"),
                            BAD_LENGTH,
                        )
                if int(component.get("max_values", 1)) > len(options):
                    raise invalid_form(
                        "max_values is larger than the number of options",
                        (*place, "max_values"),
                        "NUMBER_TYPE_MAX",
                    )
        if kind == TEXT_INPUT:
            low, high = component.get("min_length"), component.get("max_length")
            if low is not None and high is not None and low > high:
                raise invalid_form(
                    "a text input's min_length is above its max_length",
                    (*place, "min_length"),
                    "NUMBER_TYPE_MAX",
                )
            value = component.get("value")
            if value and high is not None and _length(value) > high:
                raise invalid_form(
                    "a text input's value is longer than its max_length",
                    (*place, "value"),
                    MAX_LENGTH,
                )
        if custom_id is not None:
            if not 1 <= _length(custom_id) <= 100:
                raise invalid_form(
                    f"custom_id {custom_id!r} must be 1 to 100 characters",
                    (*place, "custom_id"),
                    BAD_LENGTH,
                )
            if custom_id in custom_ids:
                raise invalid_form(
                    f"component custom_id {custom_id!r} is used twice",
                    (*place, "custom_id"),
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                )
            custom_ids.add(custom_id)


def validate_allowed_mentions(payload: dict[str, Any], where: Where = ()) -> None:
    """``parse`` and an id list must not name the same kind: ``parse: ["users"]`` with
    ``users: [...]`` is refused ("mutually exclusive")."""
    allowed = payload.get("allowed_mentions")
    if not isinstance(allowed, dict):
        return
    parse = allowed.get("parse") or []
    for kind in ("users", "roles"):
        if kind in parse and allowed.get(kind):
            raise invalid_form(
                f"parse: [{kind!r}] and {kind}: [...] are mutually exclusive",
                (*where, "allowed_mentions", kind),
                "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
            )


def _assign_component_ids(components: list[dict[str, Any]]) -> None:
    """Discord numbers components that have no ``id`` (1, 2, ... in tree order)."""
    taken = {c["id"] for c in walk_components(components) if isinstance(c.get("id"), int)}
    next_id = 1
    for component in walk_components(components):
        if not isinstance(component.get("id"), int):
            while next_id in taken:
                next_id += 1
            component["id"] = next_id
            taken.add(next_id)


def apply_payload(
    fake: FakeDiscord,
    message: FakeMessage,
    payload: dict[str, Any] | None,
    files: list[UploadedFile],
    *,
    creating: bool,
    where: Where = (),
) -> None:
    """Validate, then apply a create or edit body to ``message`` (nothing changes when the
    body is rejected). ``where``: the body's place in the request (``("data",)`` in an
    interaction callback), so that a refusal names the field as Discord does."""
    payload = payload or {}
    if not isinstance(payload, dict):
        raise invalid_form("the body must be a JSON object", where, "DICT_TYPE_CONVERT")
    content = payload.get("content", message.content)
    content = "" if content is None else str(content)
    embeds = payload.get("embeds", message.embeds)
    embeds = [dict(e) for e in embeds or []]
    components = payload.get("components", message.components)
    components = json.loads(json.dumps(components or []))
    flags = message.flags
    if "flags" in payload and payload["flags"] is not None:
        requested = int(payload["flags"])
        if creating:
            flags = requested & SETTABLE_FLAGS
        else:
            # Ephemerality cannot change after creation; V2 cannot be turned off.
            keep = flags & (EPHEMERAL_FLAG | COMPONENTS_V2_FLAG)
            flags = keep | (requested & SETTABLE_FLAGS & ~EPHEMERAL_FLAG)
    v2 = bool(flags & COMPONENTS_V2_FLAG)

    if len(content) > CONTENT_LIMIT:
        raise invalid_form(
            "content is longer than 2000 characters", (*where, "content"), MAX_LENGTH
        )
    if v2 and (content or embeds):
        raise invalid_form(
            "a Components V2 message cannot have content or embeds",
            (*where, "content" if content else "embeds"),
            "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
        )
    validate_embeds(embeds, where)
    validate_components(components, v2=v2, where=where)
    validate_allowed_mentions(payload, where)
    attachments = _attachments(fake, message.channel, payload, files, message.attachments)
    if creating and not (content or embeds or components or attachments or payload.get("poll")):
        raise DiscordError(400, CANNOT_SEND_EMPTY, "Cannot send an empty message")
    _resolve_attachment_urls(fake, embeds, attachments)
    _assign_component_ids(components)
    guild = message.channel.guild
    for detail in mentions.mention_problems(
        fake.commands,
        guild.id if guild is not None else None,
        content,
        embeds,
        components,
        [a.description for a in attachments if a.description],
    ):
        # What a reader sees as raw "</name:id>" characters instead of a clickable command.
        fake.record_problem("command-mention", detail)
    if pseudo.active():
        # Checked as sent (limits above, English left at the end of the test); kept plain.
        content = pseudo.plain(content)
        embeds = pseudo.plain_value(embeds)
        components = pseudo.plain_value(components)
        for attachment in attachments:
            if attachment.description:
                attachment.description = pseudo.plain(attachment.description)

    message.content = content
    message.embeds = embeds
    message.components = components
    message.attachments = attachments
    message.flags = flags
    if "allowed_mentions" in payload:
        message.allowed_mentions = payload["allowed_mentions"]


def _attachments(
    fake: FakeDiscord,
    channel: FakeChannel,
    payload: dict[str, Any],
    files: list[UploadedFile],
    existing: list[FakeAttachment],
) -> list[FakeAttachment]:
    uploads = {f.index: f for f in files}
    existing_by_id = {a.id: a for a in existing}
    listed = payload.get("attachments")
    if listed is None:
        return [*existing, *(_new_attachment(fake, channel, f, None) for f in files)]
    result: list[FakeAttachment] = []
    for entry in listed:
        entry_id = int(entry["id"])
        if entry_id in existing_by_id:
            result.append(existing_by_id[entry_id])
        elif entry_id in uploads:
            upload = uploads.pop(entry_id)
            result.append(_new_attachment(fake, channel, upload, entry))
        else:
            raise invalid_form(f"attachment {entry_id} is neither uploaded nor on the message")
    result.extend(_new_attachment(fake, channel, f, None) for f in uploads.values())
    return result


def _new_attachment(
    fake: FakeDiscord, channel: FakeChannel, upload: UploadedFile, entry: dict[str, Any] | None
) -> FakeAttachment:
    attachment_id = fake.snowflakes.next()
    filename = (entry or {}).get("filename") or upload.filename
    size = png_size(upload.content)
    return FakeAttachment(
        id=attachment_id,
        filename=filename,
        content=upload.content,
        content_type=upload.content_type,
        url=f"{fake.base_url}/attachments/{channel.id}/{attachment_id}/{filename}",
        description=(entry or {}).get("description"),
        width=None if size is None else size[0],
        height=None if size is None else size[1],
    )


def _resolve_attachment_urls(
    fake: FakeDiscord, embeds: list[dict[str, Any]], attachments: list[FakeAttachment]
) -> None:
    """``attachment://name`` in an embed becomes the attachment's URL, as Discord does."""
    by_name = {a.filename: a for a in attachments}
    for embed in embeds:
        for key, url_key in (
            ("image", "url"),
            ("thumbnail", "url"),
            ("footer", "icon_url"),
            ("author", "icon_url"),
        ):
            part = embed.get(key)
            if not isinstance(part, dict):
                continue
            url = part.get(url_key)
            if not isinstance(url, str) or not url.startswith("attachment://"):
                continue
            name = url.removeprefix("attachment://")
            attachment = by_name.get(name)
            if attachment is None:
                fake.record_problem(
                    "missing-attachment",
                    f"an embed {key} refers to {url} but the message has no such file "
                    f"(files: {sorted(by_name)}); Discord would show no image",
                )
                continue
            resolved = dict(part)
            resolved[url_key] = attachment.url
            resolved["proxy_" + url_key] = attachment.url
            if key in ("image", "thumbnail") and attachment.width is not None:
                resolved["width"] = attachment.width
                resolved["height"] = attachment.height
            embed[key] = resolved
