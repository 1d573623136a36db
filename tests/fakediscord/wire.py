"""HTTP answers in Discord's wire format."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    # Exactly "application/json": with a charset, discord.py reads the body as text.
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    return web.Response(status=status, body=json.dumps(data).encode(), headers=all_headers)


def no_content() -> web.Response:
    return web.Response(status=204)


def rate_limited(retry_after: float, *, is_global: bool) -> web.Response:
    """A 429 as Discord sends it: ``retry_after`` in the body and a ``Via`` header (without
    it discord.py takes the 429 for a Cloudflare ban and raises at once)."""
    body = {
        "message": "You are being rate limited.",
        "retry_after": retry_after,
        "global": is_global,
    }
    headers = {
        "Via": "1.1 google",
        "Retry-After": str(max(1, round(retry_after))),
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset-After": str(retry_after),
        "X-RateLimit-Scope": "global" if is_global else "user",
    }
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    return json_response(body, 429, headers)
