"""Weighted Dice custom_id pieces: the regex groups every ``wd:`` control's template is made
of, and the interaction payload a press reads its submitted values from.

``cogs.weighted_dice.controls`` (the table's controls) and
``cogs.weighted_dice.setup_panel`` (the house's panel) both build their templates from
these, so the two agree on what a session id or a round number looks like in a custom_id;
the full list of custom_ids is in ``controls``' opening docstring.
"""

from __future__ import annotations

from typing import Any

import discord

SID = r"(?P<sid>[0-9]{1,19})"
ROUND = r"(?P<round>[0-9]{1,4})"
SIDE = r"(?P<side>[01])"


def interaction_data(interaction: discord.Interaction) -> dict[str, Any]:
    """The raw payload data as a plain dict (discord.py types it as a union of TypedDicts)."""
    return dict(interaction.data or {})  # type: ignore[arg-type]
