"""Discord's published API description, as the fake checks requests (and its own answers)
against it.

``discord_api_facts.json`` beside this file holds the facts of Discord's OpenAPI 3.1
description of API v10 (``tools/discord_api_facts.py`` derives it): every route and method,
their path and query parameters, request and response schemas. A request is checked for:

- a route and method Discord has (else 404 / 0, or 405 / 0 for a method it lacks);
- its path and query parameters against their schemas (query values are strings on the
  wire: booleans as Discord reads them, numbers as digits);
- its JSON body, or a multipart request's ``payload_json``, against the operation's request
  schema, with JSON Schema 2020-12 (``jsonschema``; references resolved in the document).
  Each value is first asked of ``jsonschema-rs``'s validator, which says "valid" in a few
  microseconds where ``jsonschema`` takes about 0.7 ms (a message with components): the fake
  spent most of its CPU there, on the two cores it shares with the bot in every end-to-end
  test and bench. Only a value it finds invalid is checked again by ``jsonschema``, which
  gives the violation Discord's words and place; so the two must agree on every verdict
  (``tests/fakediscord/test_api_schema_validators.py``), and where they would not,
  ``jsonschema`` has the last word on what is refused.

A violation is Discord's answer: 400, code 50035, ``errors`` naming the field as Discord
does (``{"components": {"0": {"custom_id": {"_errors": [...]}}}}``).

Where the description is stricter than Discord, the fake follows Discord, and says so in
``LENIENCIES`` (each with where the fact comes from).
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry
from referencing.jsonschema import DRAFT202012

FACTS_PATH = Path(__file__).with_name("discord_api_facts.json")
DOCUMENT_URI = "urn:discord-api-facts"

# Where Discord accepts more than its description says. Each entry: the schema it widens,
# the widened schema, and the source of the fact.
LENIENCIES: dict[str, tuple[dict[str, Any], str]] = {
    "SnowflakeType": (
        {
            "anyOf": [
                {"type": "string", "pattern": "^(0|[1-9][0-9]*)$"},
                {"type": "integer", "minimum": 0, "maximum": 2**64 - 1},
            ]
        },
        "Discord's Reference, Snowflakes: ids are sent as strings, and Discord accepts an "
        "integer for one in a request body (discord.py sends recipient_id and others as "
        "integers)",
    ),
}

# How Discord reads a boolean in a query string (discord.py sends 1 and 0).
QUERY_TRUE = frozenset({"1", "true", "True"})
QUERY_FALSE = frozenset({"0", "false", "False"})


@dataclass(frozen=True)
class Violation:
    """One field Discord would refuse: where (keys and indexes from the body's root), its
    error code and text as Discord words them."""

    where: tuple[str | int, ...]
    code: str
    message: str

    def __str__(self) -> str:
        place = ".".join(str(part) for part in self.where) or "(body)"
        return f"{place}: {self.code} {self.message}"


def errors_object(violations: Iterable[Violation]) -> dict[str, Any]:
    """Discord's ``errors`` object: the path as nested keys, ``_errors`` at the leaf."""
    root: dict[str, Any] = {}
    for violation in violations:
        node = root
        for part in violation.where:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append(
            {"code": violation.code, "message": violation.message}
        )
    return root


# -- the document ---------------------------------------------------------------------------


@cache
def facts() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(FACTS_PATH.read_text("utf-8"))
    schemas = document["components"]["schemas"]
    for name, (schema, _source) in LENIENCIES.items():
        schemas[name] = copy.deepcopy(schema)
    _discriminate(document, schemas)
    return document


def _target(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = schemas[schema["$ref"].removeprefix("#/components/schemas/")]
    return schema


def _tag(schema: dict[str, Any], schemas: dict[str, Any]) -> tuple[Any, ...] | None:
    """The values a union branch's ``type`` property takes (components, command options and
    interaction callbacks are told apart by it), if it lists them."""
    prop = (_target(schema, schemas).get("properties") or {}).get("type")
    if not isinstance(prop, dict):
        return None
    values = prop.get("enum")
    if isinstance(values, list) and values:
        return tuple(values)
    if "const" in prop:
        return (prop["const"],)
    return None


def _discriminate(node: Any, schemas: dict[str, Any]) -> None:
    """Rewrite each union whose branches are told apart by their ``type`` into "if the type
    is X, then branch X": the same verdict (the tags are distinct), but a body is checked
    against its own branch alone — seven times faster for a message with components, and the
    error names the field of that branch rather than another branch's ``type``."""
    if isinstance(node, list):
        for item in node:
            _discriminate(item, schemas)
        return
    if not isinstance(node, dict):
        return
    for value in node.values():
        _discriminate(value, schemas)
    for keyword in ("oneOf", "anyOf"):
        branches = node.get(keyword)
        if not isinstance(branches, list) or len(branches) < 2:
            continue
        nullable = [b for b in branches if b == {"type": "null"}]
        tagged = [b for b in branches if b not in nullable]
        tags = [_tag(b, schemas) for b in tagged]
        if len(tagged) < 2 or any(t is None for t in tags):
            continue
        values = [v for t in tags if t is not None for v in t]
        if len(set(values)) != len(values):
            continue
        chosen = {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"enum": values}},
            "allOf": [
                {"if": {"properties": {"type": {"enum": list(t)}}}, "then": branch}
                for t, branch in zip(tags, tagged, strict=True)
                if t is not None
            ],
        }
        del node[keyword]
        if nullable:
            node["anyOf"] = [{"type": "null"}, chosen]
        else:
            node.setdefault("allOf", []).append(chosen)


@cache
def _registry() -> Registry:
    return Registry().with_resource(DOCUMENT_URI, DRAFT202012.create_resource(facts()))


@cache
def _validator(pointer: str) -> Draft202012Validator:
    """A validator for the schema at ``pointer`` in the facts document (built once)."""
    return Draft202012Validator({"$ref": f"{DOCUMENT_URI}#{pointer}"}, registry=_registry())


@cache
def _fast_document() -> dict[str, Any]:
    """The facts document with each in-document ``$ref`` made absolute: ``jsonschema-rs``
    resolves a schema's "#/..." against the schema it was given, not against the document
    it came from, so the references name the document (found in ``_fast_registry``)."""
    document = copy.deepcopy(facts())

    def absolute(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref" and isinstance(value, str) and value.startswith("#"):
                    node[key] = DOCUMENT_URI + value
                else:
                    absolute(value)
        elif isinstance(node, list):
            for item in node:
                absolute(item)

    absolute(document)
    return document


@cache
def _fast_registry() -> jsonschema_rs.Registry:
    return jsonschema_rs.Registry([(DOCUMENT_URI, _fast_document())])


@cache
def _fast_validator(pointer: str) -> jsonschema_rs.Draft202012Validator:
    """``jsonschema-rs``'s validator for the schema at ``pointer`` (built once). Given the
    schema itself: a reference to it would carry the route's braces, which its URI parser
    refuses unencoded and its pointer lookup does not decode."""
    schema: Any = _fast_document()
    for token in pointer.strip("/").split("/"):
        schema = schema[token.replace("~1", "/").replace("~0", "~")]
    # Formats are annotations in 2020-12, as ``jsonschema`` (no format checker) reads them.
    return jsonschema_rs.Draft202012Validator(
        schema, registry=_fast_registry(), validate_formats=False
    )


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


@dataclass(frozen=True)
class Route:
    template: str
    pattern: re.Pattern[str]
    names: tuple[str, ...]
    literals: int


@cache
def _routes() -> list[Route]:
    found: list[Route] = []
    for template in facts()["paths"]:
        parts = template.strip("/").split("/")
        regex: list[str] = []
        names: list[str] = []
        literals = 0
        for part in parts:
            if part.startswith("{") and part.endswith("}"):
                names.append(part[1:-1])
                regex.append("([^/]+)")
            else:
                literals += 1
                regex.append(re.escape(part))
        found.append(
            Route(template, re.compile("^/" + "/".join(regex) + "$"), tuple(names), literals)
        )
    # A literal segment ("@me", "@original") wins over a parameter in the same place.
    found.sort(key=lambda route: -route.literals)
    return found


@cache
def _routes_by_depth() -> dict[int, list[Route]]:
    """The routes by their number of segments, each list in ``_routes``'s order: a path is
    tried only against the routes it could match (a parameter is one segment), not all of
    them (a linear scan of Discord's ~125 patterns was most of the fake's routing time)."""
    depths: dict[int, list[Route]] = {}
    for route in _routes():
        depths.setdefault(_depth(route.template), []).append(route)
    return depths


def _depth(path: str) -> int:
    """How many segments a path (or a route template) has."""
    return path.strip("/").count("/") + 1


def match_route(path: str) -> tuple[str, dict[str, str]] | None:
    """Discord's route template for a concrete path, and its parameters."""
    for route in _routes_by_depth().get(_depth(path), ()):
        matched = route.pattern.match(path)
        if matched is not None:
            return route.template, dict(zip(route.names, matched.groups(), strict=True))
    return None


def operation(template: str, method: str) -> dict[str, Any] | None:
    result: dict[str, Any] | None = facts()["paths"].get(template, {}).get(method.upper())
    return result


# -- checking ----------------------------------------------------------------------------


def _discord_error(error: ValidationError) -> tuple[str, str]:
    """Discord's code and words for what the validator found."""
    kind = error.validator
    value = error.validator_value
    if kind in ("maxLength", "maxItems", "maxProperties"):
        return "BASE_TYPE_MAX_LENGTH", f"Must be {value} or fewer in length."
    if kind in ("minLength", "minItems", "minProperties"):
        return "BASE_TYPE_MIN_LENGTH", f"Must be {value} or more in length."
    if kind in ("maximum", "exclusiveMaximum"):
        return "NUMBER_TYPE_MAX", f"int value should be less than or equal to {value}."
    if kind in ("minimum", "exclusiveMinimum"):
        return "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {value}."
    if kind == "required":
        return "BASE_TYPE_REQUIRED", "This field is required"
    if kind in ("enum", "const"):
        return "BASE_TYPE_CHOICES", f"Value must be one of {value!r}."
    if kind == "pattern":
        return "STRING_TYPE_REGEX", f"String value did not match validation regex {value}."
    if kind == "type":
        return "BASE_TYPE_INVALID", f"Value must be of type {value}."
    return "BASE_TYPE_INVALID", f"Invalid value ({error.message[:200]})."


def _violation(error: ValidationError, prefix: Sequence[str | int] = ()) -> Violation:
    where: tuple[str | int, ...] = (*prefix, *error.absolute_path)
    if error.validator == "required":
        # The field that is missing, named as Discord names it: under its own key.
        missing = re.match(r"'([^']+)' is a required property", error.message)
        if missing is not None:
            where = (*where, missing.group(1))
    code, message = _discord_error(error)
    return Violation(where, code, message)


def check_schema(pointer: str, value: Any, prefix: Sequence[str | int] = ()) -> list[Violation]:
    """Every violation of the schema at ``pointer`` (the most relevant one first)."""
    fast_verdict = _fast_validator(pointer).is_valid(value)
    if fast_verdict and not _cross_check_due(pointer):
        return []
    validator = _validator(pointer)
    if validator.is_valid(value):
        if not fast_verdict:
            _disagreed(pointer, "jsonschema-rs refuses what jsonschema accepts", value)
        return []
    if fast_verdict:
        _disagreed(pointer, "jsonschema-rs accepts what jsonschema refuses", value)
    errors = list(validator.iter_errors(value))
    first = best_match(errors)
    found = [_violation(first, prefix)] if first is not None else []
    return found


# The first value each schema finds valid, and every CROSS_CHECK_EVERY-th after it, is
# checked by ``jsonschema`` too: a verdict the two do not share is a problem the fake
# reports (``take_disagreements``), so the fast path cannot quietly let through what the
# reference validator refuses. FAKE_DISCORD_CROSS_CHECK_EVERY=1 checks every value.
CROSS_CHECK_EVERY = max(1, int(os.environ.get("FAKE_DISCORD_CROSS_CHECK_EVERY", "32")))
_valid_seen: dict[str, int] = {}
_disagreements: list[str] = []


def _cross_check_due(pointer: str) -> bool:
    seen = _valid_seen.get(pointer, 0)
    _valid_seen[pointer] = seen + 1
    return seen % CROSS_CHECK_EVERY == 0


def _disagreed(pointer: str, what: str, value: Any) -> None:
    _disagreements.append(f"{what} at {pointer}: {json.dumps(value)[:500]}")


def take_disagreements() -> list[str]:
    """The verdicts the two validators did not share since the last call (and forget them)."""
    taken = list(_disagreements)
    _disagreements.clear()
    return taken


def _query_value(raw: str, schema: dict[str, Any]) -> Any:
    """A query string value as Discord reads it for the parameter's type."""
    kind = schema.get("type")
    if kind == "boolean":
        if raw in QUERY_TRUE:
            return True
        if raw in QUERY_FALSE:
            return False
        return raw
    if kind in ("integer", "number"):
        try:
            return int(raw) if kind == "integer" else float(raw)
        except ValueError:
            return raw
    return raw


def check_request(
    method: str,
    path: str,
    query: dict[str, str],
    media_type: str,
    body: Any,
    *,
    has_body: bool,
) -> tuple[str | None, list[Violation]]:
    """Discord's route template for the request (None: Discord has no such route or
    method) and what Discord would refuse in it."""
    matched = match_route(path)
    if matched is None:
        return None, []
    template, params = matched
    op = operation(template, method)
    if op is None:
        return None, []
    base = f"/paths/{_escape(template)}/{method.upper()}"
    found: list[Violation] = []
    for name, value in params.items():
        spec = op["path"].get(name)
        if spec is not None:
            found += check_schema(f"{base}/path/{_escape(name)}/schema", value, (name,))
    for name, spec in op["query"].items():
        if name in query:
            value = _query_value(query[name], spec["schema"])
            found += check_schema(f"{base}/query/{_escape(name)}/schema", value, (name,))
        elif spec["required"]:
            found.append(Violation((name,), "BASE_TYPE_REQUIRED", "This field is required"))
    request = op.get("request")
    if request is not None and has_body:
        content = request["content"]
        # A multipart body's payload_json is the JSON document (files ride beside it).
        media = "application/json" if "application/json" in content else media_type
        if media in content:
            found += check_schema(f"{base}/request/content/{_escape(media)}", body)
    elif request is not None and request["required"]:
        found.append(Violation((), "BASE_TYPE_REQUIRED", "This field is required"))
    return template, found


def check_response(template: str, method: str, status: int, body: Any) -> list[Violation]:
    """What in one of the fake's answers does not have the shape Discord's description
    gives (for the fake's own tests)."""
    op = operation(template, method)
    if op is None:
        return [Violation((), "UNKNOWN_ROUTE", f"{method} {template} is not Discord's")]
    key = str(status)
    if key not in op["responses"] or op["responses"][key] is None:
        return []
    pointer = f"/paths/{_escape(template)}/{method.upper()}/responses/{key}"
    validator = _validator(pointer)
    return [_violation(error) for error in validator.iter_errors(body)]
