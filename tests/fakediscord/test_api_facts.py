"""The facts the fake checks requests against are current with Discord's published
description, and are facts only (no copy of Discord's text)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakediscord.api_schema import FACTS_PATH
from tools.discord_api_facts import DEFAULT_SOURCE, SCHEMA_FACTS, derived_text


def test_the_facts_are_derived_from_discords_current_description() -> None:
    if not DEFAULT_SOURCE.is_file():
        pytest.skip(
            f"Discord's API description is not at hand ({DEFAULT_SOURCE}): the facts file "
            "cannot be compared with it here"
        )
    assert FACTS_PATH.read_text("utf-8") == derived_text(DEFAULT_SOURCE), (
        "tests/fakediscord/discord_api_facts.json is not what Discord's description gives: "
        "run .venv/bin/python tools/discord_api_facts.py and commit the file"
    )


def _schema_keywords(schema: Any, found: set[str]) -> None:
    if isinstance(schema, list):
        for item in schema:
            _schema_keywords(item, found)
    elif isinstance(schema, dict):
        for key, value in schema.items():
            found.add(key)
            if key == "properties":
                for sub in value.values():
                    _schema_keywords(sub, found)
            elif key not in ("enum", "const", "required"):
                _schema_keywords(value, found)


def test_the_facts_hold_no_prose() -> None:
    facts = json.loads(FACTS_PATH.read_text("utf-8"))
    keywords: set[str] = set()
    for schema in facts["components"]["schemas"].values():
        _schema_keywords(schema, keywords)
    for methods in facts["paths"].values():
        for operation in methods.values():
            for place in ("path", "query"):
                for parameter in operation[place].values():
                    _schema_keywords(parameter["schema"], keywords)
            for schema in operation.get("request", {}).get("content", {}).values():
                _schema_keywords(schema, keywords)
            for schema in operation["responses"].values():
                _schema_keywords(schema, keywords)
    assert keywords <= SCHEMA_FACTS
    assert {"maxLength", "required", "enum", "$ref"} <= keywords
