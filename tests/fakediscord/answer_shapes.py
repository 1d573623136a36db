"""The fake's answers checked against Discord's description of them (the fake's own tests).

With ``FakeDiscord(check_answers=True)`` every JSON answer the REST layer gives with a 2xx
status is validated against the response schema of its Discord route
(``api_schema.check_response``), and the objects the gateway sends (MESSAGE_CREATE and
MESSAGE_UPDATE, THREAD_CREATE and THREAD_UPDATE, INTERACTION_CREATE's message, user and
member) against the schemas of the same objects in REST answers. Each violation is an
``answer-shape`` problem naming the route (or event) and the field, so a test that leaves
one fails.

Where real Discord is known to answer otherwise than its description, the fake follows
Discord and the checker lets the difference pass: ``EXCEPTIONS``, each with its source.

JSON Schema validation costs about 3 ms for a message, so an answer whose shape was
already found valid is not validated again: its fingerprint (``_fingerprint``: keys and
types, and of each value only what can change a verdict) is remembered once it passed.
"""

from __future__ import annotations

import bisect
import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from . import api_schema


@dataclass(frozen=True)
class ShapeException:
    """A violation of the description that real Discord commits too."""

    # Discord's route template ("GET /users/@me"), a gateway event ("MESSAGE_CREATE"), or "*".
    route: str
    # The field, as a dotted path from the body's root with ``*`` wildcards.
    where: str
    # The violation's code (``BASE_TYPE_REQUIRED``, ...).
    code: str
    why: str
    source: str

    def covers(self, route: str, violation: api_schema.Violation) -> bool:
        place = ".".join(str(part) for part in violation.where)
        return (
            fnmatch.fnmatchcase(route, self.route)
            and fnmatch.fnmatchcase(place, self.where)
            and violation.code == self.code
        )


EXCEPTIONS: tuple[ShapeException, ...] = ()

# Gateway objects without a schema of their own: the REST schema of the same object.
_SCHEMAS = "/components/schemas/"
MESSAGE_SCHEMA = _SCHEMAS + "MessageResponse"
USER_SCHEMA = _SCHEMAS + "UserResponse"
MEMBER_SCHEMA = _SCHEMAS + "GuildMemberResponse"
THREAD_SCHEMA = _SCHEMAS + "ThreadResponse"


# -- what was already found valid ---------------------------------------------------------

# Remembered fingerprints of valid shapes (per process: a verdict depends on the
# description alone).
_valid: set[tuple[str, Any]] = set()
VALID_LIMIT = 100_000


@dataclass(frozen=True)
class _Vocabulary:
    """What in a value can change a verdict: the strings and integers the description
    names (``enum``, ``const``), its length and number bounds and its patterns."""

    words: frozenset[str]
    numbers: frozenset[int]
    lengths: tuple[int, ...]
    bounds: tuple[int, ...]
    patterns: tuple[re.Pattern[str], ...]


@cache
def _vocabulary() -> _Vocabulary:
    words: set[str] = set()
    numbers: set[int] = set()
    lengths: set[int] = set()
    bounds: set[int] = set()
    patterns: set[str] = set()

    def named(value: Any) -> None:
        if isinstance(value, str):
            words.add(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            numbers.add(value)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for value in node.get("enum") or []:
                named(value)
            if "const" in node:
                named(node["const"])
            for key in ("maxLength", "minLength"):
                if isinstance(node.get(key), int):
                    lengths.add(node[key])
            for key in ("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"):
                if isinstance(node.get(key), int):
                    bounds.add(node[key])
            if isinstance(node.get("pattern"), str):
                patterns.add(node["pattern"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(api_schema.facts())
    return _Vocabulary(
        frozenset(words),
        frozenset(numbers),
        tuple(sorted(lengths)),
        tuple(sorted(bounds)),
        tuple(re.compile(p) for p in sorted(patterns)),
    )


def _place(bounds: tuple[int, ...], value: int) -> tuple[int, int]:
    """Where ``value`` falls among ``bounds``: equal places for values no bound separates
    (a value on a bound has a place of its own)."""
    return bisect.bisect_left(bounds, value), bisect.bisect_right(bounds, value)


def _fingerprint(value: Any, vocabulary: _Vocabulary, seen: dict[Any, int]) -> Any:
    """``value`` with only what can change its verdict: its keys and types, the words
    and numbers the description names; for any other string or integer which earlier
    one of the body it repeats (ids, ``uniqueItems``) and its place among the bounds
    (its length's, for a string), and the patterns a string matches."""
    if isinstance(value, dict):
        return (
            "{",
            *((key, _fingerprint(item, vocabulary, seen)) for key, item in value.items()),
        )
    if isinstance(value, list):
        return ("[", *(_fingerprint(item, vocabulary, seen) for item in value))
    if isinstance(value, str):
        if value in vocabulary.words:
            return ("s", value)
        return (
            "S",
            seen.setdefault(value, len(seen)),
            _place(vocabulary.lengths, len(value)),
            tuple(bool(p.search(value)) for p in vocabulary.patterns),
        )
    if isinstance(value, bool) or value is None:
        return ("b", value)
    if isinstance(value, int):
        if value in vocabulary.numbers:
            return ("i", value)
        return ("I", seen.setdefault(value, len(seen)), _place(vocabulary.bounds, value))
    return ("f", type(value).__name__, value)


def _checked(
    key: str, body: Any, check: Callable[..., list[api_schema.Violation]], *args: Any
) -> list[api_schema.Violation]:
    """``check(*args)``'s violations, or none without calling it for a shape (of ``body``,
    under ``key``) already found valid."""
    fingerprint = (key, _fingerprint(body, _vocabulary(), {}))
    if fingerprint in _valid:
        return []
    violations = check(*args)
    if not violations:
        if len(_valid) >= VALID_LIMIT:
            _valid.clear()
        _valid.add(fingerprint)
    return violations


def _kept(route: str, violations: list[api_schema.Violation]) -> list[str]:
    return [
        f"{route}: {violation}"
        for violation in violations
        if not any(exception.covers(route, violation) for exception in EXCEPTIONS)
    ]


def answer_problems(method: str, path: str, status: int, body: Any) -> list[str]:
    """What in one REST answer does not have Discord's shape (one line per field)."""
    if not 200 <= status < 300 or body is None:
        return []
    matched = api_schema.match_route(path)
    if matched is None:
        return []  # an unknown route is a problem of its own
    route = f"{method.upper()} {matched[0]} {status}"
    violations = _checked(route, body, api_schema.check_response, matched[0], method, status, body)
    return _kept(route, violations)


def event_problems(event: str, data: dict[str, Any]) -> list[str]:
    """What in a gateway event's objects does not have the shape of the same objects in
    REST answers."""
    parts: list[tuple[str, dict[str, Any], tuple[str, ...]]]
    if event in ("MESSAGE_CREATE", "MESSAGE_UPDATE"):
        parts = [(MESSAGE_SCHEMA, data, ())]
    elif event in ("THREAD_CREATE", "THREAD_UPDATE"):
        parts = [(THREAD_SCHEMA, data, ())]
    elif event == "INTERACTION_CREATE":
        parts = [
            (schema, data[key], (key,))
            for key, schema in (
                ("message", MESSAGE_SCHEMA),
                ("user", USER_SCHEMA),
                ("member", MEMBER_SCHEMA),
            )
            if isinstance(data.get(key), dict)
        ]
    else:
        return []
    found: list[api_schema.Violation] = []
    for schema, part, prefix in parts:
        found += _checked(schema, part, api_schema.check_schema, schema, part, prefix)
    return _kept(event, found)
