"""The duels' components: strict, disjoint custom_id templates, drafts carried in them, and
the private controls built from a draft."""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

import discord
import pytest

from bot.model.contract import Seat, Session
from bot.ui.challenges import ChallengeButton
from cogs.diceman import controls as dm_controls
from cogs.diceman import game as dm_game
from cogs.dimension_duel import controls as dd_controls
from cogs.dimension_duel import game as dd_game
from cogs.secret_duel.state import UiState
from game_core import diceman, dimension_duel

MAX_ID = "9" * 19


def templates(*classes: type[Any]) -> list[re.Pattern[str]]:
    return [cls.__discord_ui_compiled_template__ for cls in classes]


def session(game: str) -> Session:
    return Session(
        id=int(MAX_ID),
        game=game,
        guild_id=1,
        channel_id=2,
        message_id=3,
        status="active",
        state={},
        version=1,
        seed=1,
        created_by=11,
        created_at=0.0,
        updated_at=0.0,
        seats=(Seat(0, 11, "Alice"), Seat(1, 22, "Bob")),
    )


def custom_ids(view: discord.ui.View) -> list[str]:
    return [str(getattr(item, "custom_id", "")) for item in view.children]


def test_diceman_drafts_round_trip() -> None:
    for combo in diceman.COMBOS:
        for order in itertools.permutations(combo):
            code = dm_controls.draft_code(order)
            assert dm_controls.draft_dice(code) == list(combo)
    assert dm_controls.draft_dice("_") is None
    assert dm_controls.draft_dice("mm") is None
    assert dm_controls.draft_dice("mx") is None


def test_duel_drafts_round_trip() -> None:
    for device, region, function in itertools.product(
        dimension_duel.DEVICES, dimension_duel.REGIONS, dimension_duel.FUNCTIONS
    ):
        draft = dd_controls.EMPTY_DRAFT
        for field, value in zip(dd_controls.FIELDS, (device, region, function), strict=True):
            draft = dd_controls.with_field(draft, field, value)
        assert dd_controls.decode_draft(draft) == (device, region, function)
    assert dd_controls.decode_draft("___") == (None, None, None)
    assert dd_controls.with_field("t__", "fn", "deflector") == "t_f"
    with pytest.raises(Exception, match="not available"):
        dd_controls.with_field("___", "reg", "elbow")


def test_templates_are_strict_and_disjoint_from_every_other_prefix() -> None:
    ours = templates(*dm_controls.COMPONENTS, *dd_controls.COMPONENTS)
    samples = {
        "dm:1:1:move",
        "dm:1:30:pick:ps",
        "dm:1:30:ok:_",
        f"dd:{MAX_ID}:9999:move",
        "dd:1:2:roll",
        "dd:1:2:fn:tha",
        "dd:1:2:ok:___",
    }
    for custom_id in samples:
        matching = [t for t in ours if t.fullmatch(custom_id)]
        assert len(matching) == 1, custom_id
        assert len(custom_id) <= 100
    for foreign in (
        "kb:1:1:col:2",
        "wd:1:bet:0",
        "challenge:1:accept",
        "lb:1",
        "adm:1",
        "dm:1:1:pick:pp",  # the same die twice
        "dm:1:1:pick:sp",  # not in canonical order: never produced, never accepted
        "dd:1:2:fn:zzz",
        "dd:x:2:roll",
        "dm:1:1:move:extra",
    ):
        assert not any(t.fullmatch(foreign) for t in ours), foreign
    assert not templates(ChallengeButton)[0].fullmatch("dm:1:1:move")


def test_diceman_controls_carry_the_draft() -> None:
    rules = dm_game.DicemanGame()
    state, _ = diceman.new_game(random.Random(1))
    ui = UiState(deadline_at=1_800_000_180.0)
    embed, view = rules.controls(session("diceman"), 0, state, "", ui)
    assert custom_ids(view) == [f"dm:{MAX_ID}:1:pick:_", f"dm:{MAX_ID}:1:ok:_"]
    confirm = view.children[1]
    assert isinstance(confirm, dm_controls.DicemanConfirm) and confirm.item.disabled
    embed, view = rules.controls(session("diceman"), 0, state, "ps", ui)
    assert custom_ids(view) == [f"dm:{MAX_ID}:1:pick:ps", f"dm:{MAX_ID}:1:ok:ps"]
    pick = view.children[0]
    assert isinstance(pick, dm_controls.DicemanPick)
    assert pick.item.min_values == 2 and pick.item.max_values == 2
    assert [o.value for o in pick.item.options if o.default] == ["priority", "sword"]
    assert "Selected: ⚡ Priority + ⚔️ Sword" in (embed.description or "")
    assert rules.choice_from_draft("ps") == {"dice": ["priority", "sword"]}


def test_duel_controls_offer_only_functions_with_charges() -> None:
    rules = dd_game.DimensionDuelGame()
    state, _ = dimension_duel.new_game(mode="tactical")
    state.charges[1]["particle_changer"] = 0
    state.charges[1]["deflector"] = 0
    ui = UiState(deadline_at=1_800_000_180.0)
    embed, view = rules.controls(session("dimension_duel"), 1, state, "k_f", ui)
    # A drafted function without a charge is dropped from the draft.
    assert custom_ids(view)[-1] == f"dd:{MAX_ID}:1:ok:k__"
    selects = [c for c in view.children if isinstance(c, dd_controls.DuelField)]
    functions = [o.value for o in selects[2].item.options]
    assert functions == ["bluff", "disruptor", "delayed_attack", "intensifier"]
    devices = [o.label for o in selects[0].item.options]
    assert devices == ["Anti-Tau shield", "Anti-Kaon shield"]  # Kaon defends on turn 1
    assert "you defend (Kaon)" in (embed.title or "")
    confirm = view.children[-1]
    assert isinstance(confirm, dd_controls.DuelConfirm) and confirm.item.disabled


def test_public_buttons_follow_the_mode() -> None:
    rules = dd_game.DimensionDuelGame()
    assert custom_ids(rules.public_buttons(7, 3, True)) == ["dd:7:3:move"]
    assert custom_ids(rules.public_buttons(7, 3, False)) == ["dd:7:3:roll"]
    assert custom_ids(dm_game.DicemanGame().public_buttons(7, 3, True)) == ["dm:7:3:move"]
