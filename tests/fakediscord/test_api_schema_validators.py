"""The fake asks ``jsonschema-rs`` first whether a request body is one Discord accepts and
``jsonschema`` only for the bodies it finds invalid (``api_schema.check_schema``): the two
must give the same verdict on every body, or the fast one would let through what the
reference refuses. Checked on bodies of the kinds the bot sends, and on thousands of their
mutations (a field given another value or type, removed, or an unknown one added), and in
the fake itself, which cross-checks a sample of what it accepts."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakediscord import api_schema

ROW = {
    "type": 1,
    "components": [
        {"type": 2, "style": 1, "label": "Column 1", "custom_id": "kb:12:3:col:0"},
        {
            "type": 2,
            "style": 4,
            "label": "Forfeit",
            "custom_id": "kb:12:ff",
            "emoji": {"name": "🏳️"},
        },
        {"type": 2, "style": 5, "label": "Rules", "url": "https://example.com/rules"},
    ],
}
SELECT_ROW = {
    "type": 1,
    "components": [
        {
            "type": 3,
            "custom_id": "dm:5:1:draft",
            "placeholder": "Choose your die",
            "min_values": 1,
            "max_values": 1,
            "options": [
                {"label": "Magic", "value": "magic", "description": "Beats the sword"},
                {"label": "Shield", "value": "shield", "default": True},
            ],
        }
    ],
}
EMBED = {
    "title": "Diceman — round 2",
    "description": "**Ana** 🎲 vs **Дмитрий**",
    "color": 0x5865F2,
    "fields": [{"name": "Score", "value": "1–0", "inline": True}],
    "footer": {"text": "Bets are final."},
    "image": {"url": "attachment://board.png"},
}
MESSAGE = {
    "content": "<@123456789012345678> to place ⚄",
    "embeds": [EMBED],
    "components": [ROW, SELECT_ROW],
    "attachments": [{"id": 0, "filename": "board.png", "description": "The board"}],
    "allowed_mentions": {"parse": [], "users": ["123456789012345678"]},
    "flags": 0,
}
MODAL = {
    "custom_id": "wd:9:custom",
    "title": "Your bet",
    "components": [
        {
            "type": 1,
            "components": [
                {
                    "type": 4,
                    "custom_id": "amount",
                    "style": 1,
                    "label": "Amount",
                    "min_length": 1,
                    "max_length": 4,
                    "required": True,
                }
            ],
        }
    ],
}
COMMAND = {
    "name": "knucklebones",
    "description": "Play Knucklebones",
    "type": 1,
    "name_localizations": {"es-ES": "knucklebones", "fr": "osselets"},
    "description_localizations": {"fr": "Jouer aux osselets"},
    "contexts": [0],
    "integration_types": [0],
    "options": [
        {
            "type": 1,
            "name": "challenge",
            "description": "Challenge a player",
            "options": [
                {"type": 6, "name": "opponent", "description": "Who", "required": True},
                {
                    "type": 4,
                    "name": "best_of",
                    "description": "Games",
                    "min_value": 1,
                    "max_value": 7,
                    "choices": [{"name": "one", "value": 1}, {"name": "three", "value": 3}],
                },
            ],
        }
    ],
}

# (route template, method, a body the bot could send)
BODIES: list[tuple[str, str, Any]] = [
    ("/channels/{channel_id}/messages", "POST", MESSAGE),
    ("/channels/{channel_id}/messages/{message_id}", "PATCH", MESSAGE),
    (
        "/interactions/{interaction_id}/{interaction_token}/callback",
        "POST",
        {"type": 4, "data": {**MESSAGE, "flags": 64}},
    ),
    (
        "/interactions/{interaction_id}/{interaction_token}/callback",
        "POST",
        {"type": 7, "data": MESSAGE},
    ),
    (
        "/interactions/{interaction_id}/{interaction_token}/callback",
        "POST",
        {"type": 9, "data": MODAL},
    ),
    ("/interactions/{interaction_id}/{interaction_token}/callback", "POST", {"type": 6}),
    ("/applications/{application_id}/guilds/{guild_id}/commands", "PUT", [COMMAND]),
]


def _pointer(template: str, method: str) -> str:
    escaped = api_schema._escape(template)
    return f"/paths/{escaped}/{method}/request/content/application~1json"


def _verdicts(pointer: str, body: Any) -> tuple[bool, bool]:
    fast = api_schema._fast_validator(pointer).is_valid(body)
    reference = api_schema._validator(pointer).is_valid(body)
    return fast, reference


@pytest.mark.parametrize(("template", "method", "body"), BODIES)
def test_the_bodies_the_bot_sends_are_valid_to_both(template: str, method: str, body: Any) -> None:
    assert _verdicts(_pointer(template, method), body) == (True, True)


def _places(node: Any, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every place in a body (the root included)."""
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _places(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _places(value, (*path, index))
    return found


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**65), max_value=2**65),
    st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 25, 64, 100, 4000, 6001]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.sampled_from(["", "x" * 46, "x" * 101, "x" * 2001, "x" * 4097, "123456789012345678", "🎲"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, Any]:
    template, method, body = draw(st.sampled_from(BODIES))
    body = copy.deepcopy(body)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        places = _places(body)
        path = draw(st.sampled_from(places))
        kind = draw(st.sampled_from(["replace", "remove", "add"]))
        if not path:
            if kind == "replace":
                body = draw(VALUES)
            continue
        parent = body
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        if kind == "replace":
            parent[last] = draw(VALUES)
        elif kind == "remove":
            del parent[last]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["type", "style", "extra", "custom_id", "label"]))] = draw(
                VALUES
            )
        else:
            parent.append(draw(VALUES))
    return _pointer(template, method), body


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_both_validators_give_the_same_verdict_on_any_body(case: tuple[str, Any]) -> None:
    pointer, body = case
    fast, reference = _verdicts(pointer, body)
    assert fast == reference, f"jsonschema-rs {fast}, jsonschema {reference}: {body!r}"


def test_a_disagreement_is_reported_and_the_reference_decides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Were the fast validator to accept what the reference refuses, the check would still
    refuse it (when cross-checked) and say the two disagree."""
    template, method, body = BODIES[0]
    pointer = _pointer(template, method)
    bad = copy.deepcopy(body)
    bad["components"][0]["components"][0]["custom_id"] = "x" * 101

    class AcceptsAll:
        def is_valid(self, value: Any) -> bool:
            return True

    monkeypatch.setattr(api_schema, "_fast_validator", lambda _pointer: AcceptsAll())
    monkeypatch.setattr(api_schema, "_cross_check_due", lambda _pointer: True)
    api_schema.take_disagreements()
    violations = api_schema.check_schema(pointer, bad)
    assert [v.where for v in violations] == [("components", 0, "components", 0, "custom_id")]
    taken = api_schema.take_disagreements()
    assert len(taken) == 1 and taken[0].startswith("jsonschema-rs accepts what jsonschema refuses")
