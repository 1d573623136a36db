"""Weighted Dice texts and stored pieces, without Discord: amounts, the setup draft, the
notices kept on the table, what each scoring reason reads like, and Discord's limits."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest

from bot.model.contract import Seat
from bot.pictures import text as pictures_text
from cogs.weighted_dice.render import (
    DESCRIPTION_LIMIT,
    FIELD_LIMIT,
    chance,
    lobby_embed,
    odds_line,
    seat_names,
    setup_panel_text,
    table_embed,
    table_picture,
)
from cogs.weighted_dice.state import (
    Draft,
    LobbyState,
    TableOptions,
    TableState,
    parse_amount,
    with_notices,
)
from cogs.weighted_dice.story import change_text, round_text
from game_core import weighted_dice as wd
from game_core.errors import IllegalMove

NAMES = ["Hugo", "Rosa", "Rudi", "Xena", "Yann", "Zora"]


def seats(names: list[str]) -> list[Seat]:
    return [Seat(seat=i, user_id=100 + i, display_name=name) for i, name in enumerate(names)]


def scored(
    scores: list[int],
    rolls: tuple[int, int],
    bets: list[tuple[int, int, int]],
    *,
    house: int = 0,
    rollers: tuple[int, int] = (1, 2),
    dice: tuple[int, int] = (20, 4),
) -> wd.WeightedDiceState:
    """A state just after one round scored with these rolls (the engine does the work)."""
    state = wd.WeightedDiceState(
        n_players=len(scores),
        scores=scores,
        active=[True] * len(scores),
        house=house,
        phase="betting",
        rollers=list(rollers),
        dice=list(dice),
        bets=[wd.PlacedBet(player=p, roller=side, amount=a) for p, side, a in bets],
    )

    class Rolls(random.Random):
        def randint(self, a: int, b: int) -> int:
            return queue.pop(0)

    queue = list(rolls)
    new, _ = wd.apply(state, wd.CloseBetting(), Rolls())
    return new


# -- stored pieces --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "expected"),
    [("12", 12), (" 7 ", 7), ("+3", 3), ("-3", -3), ("0", 0), ("ALL", 15), ("all in", 15)],
)
def test_amounts_are_parsed_and_left_for_the_engine_to_judge(typed: str, expected: int) -> None:
    assert parse_amount(typed, 15) == expected


@pytest.mark.parametrize("typed", ["ten", "2.5", "1e3", "", "   ", "1 000", "9" * 13])
def test_an_amount_that_is_not_a_whole_number_is_refused_with_the_range(typed: str) -> None:
    with pytest.raises(IllegalMove, match=r"is not a whole number: type an amount from 1 to 15"):
        parse_amount(typed, 15)


def test_the_setup_draft_round_trips_through_its_custom_id_form() -> None:
    draft = Draft().with_choice("r0", "3").with_choice("d1", "12")
    assert draft.encode() == "3.x.x.12"
    groups = dict(zip(("r0", "d0", "r1", "d1"), draft.encode().split("."), strict=True))
    assert Draft.from_groups(groups) == draft
    assert not draft.complete
    full = draft.with_choice("d0", "4").with_choice("r1", "11")
    assert full.complete and full.rollers == [3, 11]


@pytest.mark.parametrize(
    ("field", "value"), [("d0", "7"), ("d1", "100"), ("r0", "-1"), ("r0", "abc"), ("r9", "1")]
)
def test_the_setup_draft_refuses_choices_not_on_the_lists(field: str, value: str) -> None:
    with pytest.raises(IllegalMove):
        Draft().with_choice(field, value)


def test_notices_keep_departures_drop_rotation_and_clear_when_a_round_is_scored() -> None:
    left = {"type": "player_left", "player": 3, "how": "leave", "points": 20}
    rotation = {"type": "house_passed", "from": 0, "to": 1, "reason": "rotation"}
    passed = {"type": "house_passed", "from": 0, "to": 1, "reason": "house_left"}
    notices = with_notices([], [left, {"type": "bet"}])
    assert notices == [left]
    assert with_notices(notices, [{"type": "bet"}]) == [left]
    assert with_notices(notices, [passed, rotation]) == [left, passed]
    assert with_notices(notices, [{"type": "round_scored"}, rotation]) == []
    assert len(with_notices([], [left] * 9)) == 4


# -- texts ----------------------------------------------------------------------------------


def test_chances_are_exact_fractions_with_a_percentage() -> None:
    assert chance(Fraction(7, 8)) == "7/8 (87.5%)"
    names = seat_names(seats(NAMES))
    line = odds_line(names, [1, 2], [20, 4])
    assert "**Rosa** wins 7/8 (87.5%)" in line
    assert "**Rudi** wins 3/40 (7.5%)" in line
    assert "tie (the house wins) 1/20 (5.0%)" in line


def test_every_reason_reads_as_what_happened() -> None:
    names = seat_names(seats(NAMES))
    # Worked example 1, then a Z who has 8 and loses 6 (example 3).
    state = scored([20, 20, 20, 20, 20, 8], (13, 3), [(3, 0, 6), (4, 0, 4), (5, 1, 6)])
    summary = state.last_round
    assert summary is not None
    lines = {c.player: change_text(c, summary, names) for c in summary.changes}
    assert lines[0] == "the house, unchanged"
    assert lines[1] == "roller bonus +19 (rolled 13 + the 6 bet on Rudi)"
    assert lines[2] == "lost the roll, unchanged"
    # A bet is never taken up front: the winner's backer gains their bet and the pot.
    assert lines[3] == "won 12 (bet 6 on Rosa: 6 for backing the winner + the 6 bet on Rudi)"
    assert lines[5] == "lost 3 (bet 6 on Rudi, floored at 5)"
    # The round lists only the points that moved; who stayed the same is one line.
    text = round_text(summary, names)
    assert "20 → **20**" not in text
    assert text.endswith("Unchanged: Hugo (the house), Rudi (lost the roll).")

    half = scored([20] * 6, (2, 5), [(3, 1, 7)]).last_round
    assert half is not None
    texts = [change_text(c, half, names) for c in half.changes]
    assert "won 3 (bet 7 on Rudi; nobody backed Rosa, so half the bet)" in texts
    assert "no bet, unchanged" in texts

    tie = scored([20] * 6, (4, 4), [(3, 0, 6), (4, 1, 4)], dice=(4, 10)).last_round
    assert tie is not None
    texts = [change_text(c, tie, names) for c in tie.changes]
    assert "house takes the tie: +10 (every bet)" in texts
    assert "lost 6 (bet 6 on Rosa; the house takes the tie)" in texts
    assert "rolled the tie, unchanged" in texts
    assert "→ a tie: the house (**Hugo**) wins." in round_text(tie, names)

    rigged = scored([40, 20, 20, 20, 20, 20], (3, 3), []).last_round
    assert rigged is not None
    assert "house set to 5 (a tie nobody bet on)" in round_text(rigged, names)


def test_names_cannot_format_or_mention() -> None:
    full = "Ｗ" * 30 + "-1"  # 32 characters, as long as a Discord display name gets
    names = seat_names(seats(["**bold**", "@everyone", full, "", "Yann", "a" * 100]))
    assert names[0] == r"\*\*bold\*\*"
    assert "@everyone" not in names[1]
    assert names[2] == full  # shown as written
    assert names[3] == "Player 4"
    # A longer stored name (a join kept 100) is shortened, as in the other games.
    assert names[5] == "a" * 39 + "…"


def test_a_full_table_fits_discords_limits() -> None:
    long_names = [f"{'Ω' * 20}-{i:02d}-{'*_~' * 5}" for i in range(12)]
    bets = [(seat, seat % 2, 20) for seat in range(3, 12)]
    state = scored([20] * 12, (20, 1), bets, dice=(20, 20))
    # Next round's betting, with bets and a notice, on top of the last round's 12 lines.
    state = state.model_copy(
        update={
            "phase": "betting",
            "rollers": [2, 3],
            "dice": [12, 6],
            "bets": [wd.PlacedBet(player=s, roller=s % 2, amount=5) for s in range(4, 12)],
        }
    )
    table = TableState(
        host=100,
        engine=state,
        first_house=0,
        deadline_at=1_800_000_020.0,
        notices=[{"type": "player_left", "player": 5, "how": "leave", "points": 200}],
    )
    embed = table_embed(table, seats(long_names), 9_223_372_036_854_775_807).embed
    assert len(embed.description or "") <= DESCRIPTION_LIMIT
    assert all(len(field.value or "") <= FIELD_LIMIT for field in embed.fields)
    assert len(embed) <= 6000
    assert "**Round 1:**" in (embed.description or "")
    # The seats, their points and the bets are the picture's (and its alt text's), never
    # repeated in the embed.
    assert embed.fields == []
    assert "Still to bet" not in (embed.description or "") and "On " not in (
        embed.description or ""
    )
    picture = table_picture(table, seats(long_names))
    assert picture.height > 300  # twelve seats: taller than an embed image shows


def test_the_lobby_says_how_many_are_missing_and_when_it_closes() -> None:
    lobby = LobbyState(host=100, expires_at=1_800_001_800.0)
    text = lobby_embed(lobby, seats(NAMES[:3]), 7).embed.description or ""
    assert "Waiting for **2** more players" in text and "<t:1800001800:R>" in text
    ready = lobby_embed(lobby, seats(NAMES), 7).embed.description or ""
    assert "Ready: **Hugo** can press **Start**" in ready
    expired = lobby.model_copy(update={"closed": "expired"})
    assert "expired" in (lobby_embed(expired, seats(NAMES), 7).embed.description or "")


def test_finished_and_stopped_tables() -> None:
    state = scored([140, 20, 20, 20, 20, 20], (1, 12), [(3, 1, 20)], dice=(4, 12))
    assert state.phase == "setup"
    won = scored([20, 20, 140, 20, 20, 20], (1, 12), [(3, 0, 20)], dice=(4, 12))
    assert won.phase == "finished"
    table = TableState(host=100, engine=won, first_house=0)
    rendered = table_embed(table, seats(NAMES), 3)
    embed = rendered.embed
    assert embed.title == "🎲 Weighted Dice — final standings"
    # The message text names the winner; the standings are the picture's, ranked.
    assert rendered.content == "🏆 **Rudi** wins Weighted Dice with 172 points after 1 round."
    assert embed.fields == []
    alt = table_picture(table, seats(NAMES)).alt_text
    assert "Seats: Rudi 172 (1st);" in alt and "3." not in alt
    stopped_content = table_embed(
        TableState(host=100, engine=state, first_house=0), seats(NAMES), 3, cancelled=True
    ).content
    assert "no result was recorded" in (stopped_content or "")


def test_the_setup_panel_shows_the_choices_so_far_and_the_odds() -> None:
    state, _ = wd.new_game(6, random.Random(1))
    names = seat_names(seats(NAMES))
    empty = setup_panel_text(state, names, Draft())
    assert "So far: **?** (?) vs **?** (?)" in empty
    same = setup_panel_text(state, names, Draft(r0=1, r1=1))
    assert "Pick two different players" in same
    full = setup_panel_text(state, names, Draft(r0=1, d0=20, r1=2, d1=4))
    assert re.search(r"\*\*Rosa\*\* wins 7/8", full)


def test_a_shared_win_names_every_winner_and_a_leaver_cannot_win() -> None:
    state = wd.WeightedDiceState(
        n_players=5,
        scores=[150, 90, 150, 160, 20],
        active=[True, True, True, False, True],
        house=1,
        phase="finished",
        end_reason="normal",
    )
    table = TableState(host=100, engine=state, first_house=0)
    rendered = table_embed(table, seats(NAMES[:5]), 3)
    assert rendered.content == (
        "🏆 **Hugo** and **Rudi** share the win of Weighted Dice with 150 points after 0 rounds."
    )
    # Ranks, never seat numbers, in the standings (the picture and its alt text).
    alt = table_picture(table, seats(NAMES[:5])).alt_text
    assert "Seats: Hugo 150 (1st); Rudi 150 (1st); Xena 160 (left);" in alt


def test_the_table_picture_draws_raw_names_in_seat_order() -> None:
    rng = random.Random(1)
    engine, _ = wd.new_game(5, rng)
    table = TableState(host=1, engine=engine, first_house=engine.house)
    names = ["**bold**__", "Дмитрий", "田中", "Zoë 🎲", ""]
    seats = [
        Seat(seat=index, user_id=100 + index, display_name=name, is_ai=False)
        for index, name in enumerate(names)
    ]
    with pictures_text.record() as drawn:
        picture = table_picture(table, list(reversed(seats)))
    shown = {piece.text for piece in drawn}
    assert {"**bold**__", "Дмитрий", "田中", "Zoë 🎲", "Player 5"} <= shown
    assert picture.alt_text.startswith("Weighted Dice, round 1")


# -- the table's options ------------------------------------------------------------------------

SHORT = TableOptions(target=None, betting_window_seconds=45, house_setup_seconds=90)


def test_the_lobby_shows_the_target_its_length_for_the_players_seated_and_the_times() -> None:
    standard = TableOptions(betting_window_seconds=20, house_setup_seconds=60)
    lobby = LobbyState(host=100, expires_at=1_800_001_800.0, options=standard)
    text = lobby_embed(lobby, seats(NAMES[:2]), 7).embed.description or ""
    # Fewer than five seated: the length of the smallest game that can start.
    assert (
        "First to **150** points wins (the standard game). With 5 players a game lasts about "
        "**35** rounds (most games"
    ) in text
    assert "Bets stay open **20 s** a round; the house has **60 s** to set up." in text
    six = lobby_embed(lobby, seats(NAMES), 7).embed.description or ""
    assert "With 6 players a game lasts about **24** rounds" in six


def test_a_short_game_lobby_follows_the_table_size_until_it_starts() -> None:
    lobby = LobbyState(host=100, expires_at=1_800_001_800.0, options=SHORT)
    five = lobby_embed(lobby, seats(NAMES[:5]), 7).embed.description or ""
    assert (
        "**Short game**: first to **60** points with 5 players; the target follows the table "
        "size until the game starts. With 5 players a game lasts about **10** rounds"
    ) in five
    assert "Bets stay open **45 s** a round; the house has **90 s** to set up." in five
    six = lobby_embed(lobby, seats(NAMES), 7).embed.description or ""
    assert "first to **80** points with 6 players" in six
    twelve = [f"P{i}" for i in range(12)]
    full = lobby_embed(lobby, seats(twelve), 7).embed.description or ""
    assert (
        "with 12 players the standard 150 points already make a short game, so first to "
        "**150** wins. With 12 players a game lasts about **8** rounds"
    ) in full


def test_the_table_footer_names_the_target_its_length_and_the_times() -> None:
    engine, _ = wd.new_game(5, random.Random(1), target=60)
    table = TableState(host=100, engine=engine, first_house=engine.house, options=SHORT)
    footer = table_embed(table, seats(NAMES[:5]), 3).embed.footer.text or ""
    assert footer.startswith(
        "Table #3 · first to 60 points wins (short game) · about 10 rounds with 5 players · "
        "bets 45 s · house 90 s"
    )
    # The picture draws the same target (its bars fill toward it).
    assert "first to 60 points" in table_picture(table, seats(NAMES[:5])).alt_text
    old = TableState(host=100, engine=engine, first_house=engine.house)
    assert "first to 60 points wins · rounds played" in (
        table_embed(old, seats(NAMES[:5]), 3).embed.footer.text or ""
    )
