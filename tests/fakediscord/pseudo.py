"""Pseudo-localized runs (``DICEBOT_PSEUDO_LOCALE=1``): the fake keeps what the bot sent
exactly as sent in its request log (tests/pseudo_locale.py inspects that for English left
and Discord's limits are checked on it), and stores messages with the pseudo markers taken
out, so every end-to-end test reads the same English it reads in a normal run."""

from __future__ import annotations

import os
from typing import Any

OPEN, CLOSE, PAD = "⟦", "⟧", "⁓"


def active() -> bool:
    return os.environ.get("DICEBOT_PSEUDO_LOCALE", "") == "1"


def plain(text: str) -> str:
    """The text a pseudo-localized one stands for."""
    return text.replace(OPEN, "").replace(CLOSE, "").replace(PAD, "")


def plain_value(value: Any) -> Any:
    """``value`` (a payload part: str, list, dict) with every string made plain."""
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, list):
        return [plain_value(item) for item in value]
    if isinstance(value, dict):
        return {key: plain_value(item) for key, item in value.items()}
    return value
