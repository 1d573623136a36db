"""Derive ``tests/fakediscord/discord_api_facts.json`` from Discord's OpenAPI description.

The fake Discord checks every request it receives against what real Discord accepts. The
project keeps no copy of Discord's text: this tool reads Discord's published OpenAPI 3.1
description of API v10 (``../shared/discord-api/openapi.json`` beside the project, or any
path given) and writes the facts alone — every route and method, its path and query
parameters, the request schema per media type, the response schema per status, the auth
it takes, and the schemas they refer to, with types, required fields, enums, formats and
length and value limits — without a description, title or example.

Run ``.venv/bin/python tools/discord_api_facts.py [path/to/openapi.json]`` when Discord
publishes a newer description, and commit the file. ``--check`` exits 1 (saying why) when
the committed file is not what the description gives; ``tests/fakediscord/test_api_facts.py``
runs that check where the description is at hand and skips, saying so, where it is not.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT.parent / "shared" / "discord-api" / "openapi.json"
FACTS_PATH = ROOT / "tests" / "fakediscord" / "discord_api_facts.json"

# JSON Schema keywords that state a fact a validator checks; everything else (descriptions,
# titles, examples, vendor extensions) is Discord's prose and stays out.
SCHEMA_FACTS = frozenset(
    {
        "$ref",
        "type",
        "properties",
        "required",
        "items",
        "prefixItems",
        "additionalProperties",
        "enum",
        "const",
        "oneOf",
        "anyOf",
        "allOf",
        "not",
        "format",
        "contentEncoding",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
    }
)
METHODS = ("get", "put", "post", "patch", "delete")


def facts_of_schema(schema: Any) -> Any:
    """A schema with only the keywords a validator checks (recursively)."""
    if isinstance(schema, list):
        return [facts_of_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in SCHEMA_FACTS:
            continue
        if key == "properties":
            kept[key] = {name: facts_of_schema(sub) for name, sub in value.items()}
        elif key in ("enum", "const", "required", "type", "pattern", "format"):
            kept[key] = value
        else:
            kept[key] = facts_of_schema(value)
    return kept


def _resolve(spec: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """An OpenAPI object (parameter, response) that may be a ``$ref`` to components."""
    while "$ref" in item:
        node: Any = spec
        for part in item["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        item = node
    return item


def _parameters(spec: dict[str, Any], raw: list[dict[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for parameter in raw:
        parameter = _resolve(spec, parameter)
        found[parameter["name"]] = {
            "in": parameter["in"],
            "required": bool(parameter.get("required", False)),
            "schema": facts_of_schema(parameter.get("schema", {})),
        }
    return found


def _operation(spec: dict[str, Any], shared: list[dict[str, Any]], op: dict[str, Any]) -> Any:
    parameters = _parameters(spec, shared)
    parameters.update(_parameters(spec, op.get("parameters") or []))
    facts: dict[str, Any] = {
        "operation": op["operationId"],
        "auth": sorted({name for entry in op.get("security") or [] for name in entry}),
        "path": {k: v for k, v in parameters.items() if v["in"] == "path"},
        "query": {k: v for k, v in parameters.items() if v["in"] == "query"},
    }
    body = op.get("requestBody")
    if body is not None:
        body = _resolve(spec, body)
        facts["request"] = {
            "required": bool(body.get("required", False)),
            "content": {
                media: facts_of_schema(entry.get("schema", {}))
                for media, entry in sorted(body.get("content", {}).items())
            },
        }
    responses: dict[str, Any] = {}
    for status, response in sorted(op.get("responses", {}).items()):
        if not status.startswith("2"):
            continue
        response = _resolve(spec, response)
        content = response.get("content", {}).get("application/json")
        responses[status] = None if content is None else facts_of_schema(content.get("schema"))
    facts["responses"] = responses
    return facts


def derive(spec: dict[str, Any], source_bytes: bytes) -> dict[str, Any]:
    """The facts document: ``paths`` (template → method → facts) and ``components.schemas``
    (so every ``#/components/schemas/...`` reference resolves in the document itself)."""
    paths: dict[str, Any] = {}
    for template, item in sorted(spec["paths"].items()):
        shared = item.get("parameters") or []
        paths[template] = {
            method.upper(): _operation(spec, shared, item[method])
            for method in METHODS
            if method in item
        }
    schemas = spec["components"]["schemas"]
    return {
        "source": {
            "what": "Discord's OpenAPI description of its HTTP API (MIT), facts only",
            "openapi": spec["openapi"],
            "api_version": spec["info"]["version"],
            "sha256": hashlib.sha256(source_bytes).hexdigest(),
        },
        "paths": paths,
        "components": {
            "schemas": {name: facts_of_schema(schemas[name]) for name in sorted(schemas)}
        },
    }


def dumps(facts: dict[str, Any]) -> str:
    """One schema or route a line: a newer description diffs route by route."""
    lines = ["{"]
    lines.append(f' "source": {json.dumps(facts["source"], sort_keys=True)},')
    lines.append(' "paths": {')
    entries = [
        f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True, ensure_ascii=False)}"
        for k, v in facts["paths"].items()
    ]
    lines.append(",\n".join(entries))
    lines.append(" },")
    lines.append(' "components": {"schemas": {')
    entries = [
        f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True, ensure_ascii=False)}"
        for k, v in facts["components"]["schemas"].items()
    ]
    lines.append(",\n".join(entries))
    lines.append(" }}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def derived_text(source: Path) -> str:
    raw = source.read_bytes()
    return dumps(derive(json.loads(raw), raw))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--output", type=Path, default=FACTS_PATH)
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the file is not current; write nothing"
    )
    args = parser.parse_args(argv)
    if not args.source.is_file():
        print(f"discord_api_facts: no description at {args.source}", file=sys.stderr)
        return 2
    text = derived_text(args.source)
    if args.check:
        current = args.output.read_text("utf-8") if args.output.is_file() else ""
        if current != text:
            print(
                f"{args.output} is not what {args.source} gives: run "
                "tools/discord_api_facts.py and commit it",
                file=sys.stderr,
            )
            return 1
        print(f"{args.output} is current")
        return 0
    args.output.write_text(text, "utf-8")
    print(f"wrote {args.output} ({len(text) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
