"""Weighted Dice messages: the lobby, the public table and the house's setup panel.

Pure functions from stored data to text and embeds (no Discord calls, no database), so
they are unit-tested directly and re-render the same after a restart. Everything in this
game is public.

The running table is one status line, the table picture (``table_picture``: seats,
points, roles, the rollers' chances and every bet, with the same as alt text), an embed
with what only words say (what to do now, what the last round did and why), and the
buttons. The seats, bets and standings are never repeated as text beside the picture.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import discord

from bot.games import Seat
from bot.pictures import palette
from bot.pictures.picture import Picture
from bot.text import escape
from cogs import weighted_picture
from cogs.weighted_state import Draft, LobbyState, TableOptions, TableState
from game_core.analysis.weighted_lengths import GameLength, lengths
from game_core.base import Event
from game_core.weighted_dice import (
    FLOOR_POINTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    TARGET_POINTS,
    RoundSummary,
    ScoreChange,
    WeightedDiceState,
    public_view,
    result,
    win_probabilities,
)

COLOUR = discord.Colour(palette.EMBED_RUNNING)
COLOUR_FINISHED = discord.Colour(palette.EMBED_FINISHED)
COLOUR_CANCELLED = discord.Colour(palette.EMBED_CANCELLED)
NAME_LIMIT = 24
FIELD_LIMIT = 1024
DESCRIPTION_LIMIT = 4096

Names = Mapping[int, str]


@dataclass(frozen=True)
class Rendered:
    """What a message shows; the cog adds the picture and the components."""

    embed: discord.Embed
    content: str | None = None


def seat_names(seats: Sequence[Seat]) -> dict[int, str]:
    """Seat → a display name safe inside markdown, short enough for every limit."""
    return {
        seat.seat: escape(seat.display_name.strip() or f"Player {seat.seat + 1}", NAME_LIMIT)
        for seat in seats
    }


def picture_names(seats: Sequence[Seat]) -> list[str]:
    """Seat -> the display name as the picture draws it (raw: markdown means nothing in a
    picture), in seat order."""
    ordered = sorted(seats, key=lambda seat: seat.seat)
    return [seat.display_name.strip() or f"Player {seat.seat + 1}" for seat in ordered]


def table_picture(table: TableState, seats: Sequence[Seat]) -> Picture:
    """The table as a picture (``cogs.weighted_picture``), alt text included."""
    return weighted_picture.render_table(public_view(table.engine), picture_names(seats))


def die(sides: int) -> str:
    return f"d{sides}"


def chance(value: Fraction) -> str:
    """An exact probability and its rounded percentage, e.g. ``73/80 (91.3%)``."""
    return f"{value.numerator}/{value.denominator} ({float(value):.1%})"


def odds_line(names: Names, rollers: Sequence[int], dice: Sequence[int]) -> str:
    first, second, tie = win_probabilities(dice[0], dice[1])
    return (
        f"Chances: **{names[rollers[0]]}** wins {chance(first)} · "
        f"**{names[rollers[1]]}** wins {chance(second)} · tie (the house wins) {chance(tie)}"
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _names_list(names: Sequence[str]) -> str:
    """``**A**``, ``**A** and **B**``, ``**A**, **B** and **C**``."""
    bold = [f"**{name}**" for name in names]
    return bold[0] if len(bold) == 1 else ", ".join(bold[:-1]) + f" and {bold[-1]}"


def _timestamp(at: float | None) -> str:
    return "soon" if at is None else f"<t:{int(at)}:R>"


# -- the table's options ----------------------------------------------------------------------


def length_text(length: GameLength) -> str:
    """ "about 10 rounds (most games 6 to 16)": the lab's estimate for this table."""
    low, high = round(length.p10), round(length.p90)
    spread = f" (most games {low} to {high})" if high > low else ""
    return f"about **{length.rounds}** round{'s' if length.rounds != 1 else ''}{spread}"


def times_text(options: TableOptions) -> str:
    return (
        f"Bets stay open **{options.betting_window_seconds} s** a round; the house has "
        f"**{options.house_setup_seconds} s** to set up."
    )


def lobby_rules_text(options: TableOptions | None, seated: int) -> str:
    """The lobby's target, how long the game should last with the players seated so far
    (five at least: a game needs them), and the table's times."""
    if options is None:  # a lobby opened before tables had options
        return f"First to {TARGET_POINTS} points wins."
    players = max(MIN_PLAYERS, seated)
    target = options.target_for(players)
    length = length_text(options.length(players))
    if not options.short:
        card = " (the card)" if target == TARGET_POINTS else ""
        rules = f"First to **{target}** points wins{card}: {length} with {players} players."
    elif target == TARGET_POINTS:
        rules = (
            f"**Short game**: with {players} players the card's {target} points already "
            f"ends in {length}, so first to **{target}** wins."
        )
    else:
        rules = (
            f"**Short game**: first to **{target}** points with {players} players, {length}; "
            "the target follows the table size until the game starts."
        )
    return f"{rules}\n{times_text(options)}"


def table_rules_text(options: TableOptions | None, state: WeightedDiceState) -> str:
    """The table's footer line: the target, the expected length and the times."""
    short = " (short game)" if options is not None and options.short else ""
    text = f"first to {state.target} points wins{short}"
    if options is None:
        return text
    length = lengths().length(state.n_players, state.target)
    return (
        f"{text} · about {length.rounds} rounds with {state.n_players} players · "
        f"bets {options.betting_window_seconds} s · house {options.house_setup_seconds} s"
    )


# -- the lobby ------------------------------------------------------------------------------


def lobby_embed(
    lobby: LobbyState,
    seats: Sequence[Seat],
    session_id: int,
    *,
    cancelled: bool = False,
    note: str | None = None,
) -> Rendered:
    names = seat_names(seats)
    host = next((names[s.seat] for s in seats if s.user_id == lobby.host), "the host")
    lines = [
        f"`{s.seat + 1}.` **{names[s.seat]}**" + (" — host" if s.user_id == lobby.host else "")
        for s in seats
    ]
    if lobby.closed == "expired":
        description = "⌛ This lobby expired before the game started."
    elif lobby.closed == "host_left":
        description = "🚪 The host left, so this lobby closed."
    elif cancelled:
        description = note or "🛑 This lobby was closed."
    else:
        missing = MIN_PLAYERS - len(seats)
        status = (
            f"Waiting for **{missing}** more player{'s' if missing != 1 else ''} to start."
            if missing > 0
            else f"Ready: **{host}** can press **Start**."
        )
        description = (
            f"**{host}** opened a Weighted Dice table: one player is the house, two roll, "
            f"everyone else bets on a roller. {lobby_rules_text(lobby.options, len(seats))}\n"
            f"Press **Join** to take a seat ({MIN_PLAYERS} to {MAX_PLAYERS} players). "
            f"{status}\nThe lobby closes {_timestamp(lobby.expires_at)} if not started."
        )
    closed = cancelled or lobby.closed is not None
    embed = discord.Embed(
        title="🎲 Weighted Dice — lobby",
        description=description,
        colour=COLOUR_CANCELLED if closed else COLOUR,
    )
    embed.add_field(
        name=f"Players ({len(seats)}/{MAX_PLAYERS})",
        value=_clip("\n".join(lines) or "nobody yet", FIELD_LIMIT),
        inline=False,
    )
    embed.set_footer(text=f"Table #{session_id}")
    return Rendered(embed)


# -- the table ------------------------------------------------------------------------------


def change_text(change: ScoreChange, summary: RoundSummary, names: Names) -> str:
    """Why one player's points moved in a scored round."""
    gain = change.after - change.before
    backed = names[summary.rollers[change.side]] if change.side is not None else ""
    # The roller who lost (when one did): whose backers' bets a winner takes.
    other = names[summary.rollers[1 - summary.winner]] if summary.winner is not None else ""
    floored = f", floored at {FLOOR_POINTS}" if change.floored else ""
    match change.reason:
        case "won_bet":
            # A bet is never taken up front: a winning backer gains as much as they bet,
            # plus everything bet on the loser.
            return (
                f"won {gain} (bet {change.amount} on {backed}: {change.amount} for backing "
                f"the winner + the {change.pot} bet on {other})"
            )
        case "won_bet_half":
            return (
                f"won {gain} (bet {change.amount} on {backed}; nobody backed {other}, so half "
                "the bet)"
            )
        case "lost_bet":
            return f"lost {-gain} (bet {change.amount} on {backed}{floored})"
        case "lost_bet_tie":
            return (
                f"lost {-gain} (bet {change.amount} on {backed}; the house takes the tie{floored})"
            )
        case "roller_won":
            return f"roller bonus +{gain} (rolled {change.roll} + the {change.pot} bet on {other})"
        case "house_tie":
            return f"house takes the tie: +{gain} (every bet)"
        case "house_rigged":
            return f"house rigged to {FLOOR_POINTS} (a tie nobody bet on)"
        case _:
            return f"{unchanged_why(change, summary)}, unchanged"


UNCHANGED_WHY = {
    "roller_lost": "lost the roll",
    "house": "the house",
    "no_bet": "no bet",
}


def unchanged_why(change: ScoreChange, summary: RoundSummary) -> str:
    if change.reason == "roller_lost" and summary.winner is None:
        return "rolled the tie"
    return UNCHANGED_WHY.get(change.reason, "")


def round_text(summary: RoundSummary, names: Names) -> str:
    """The last scored round: the rolls, the winner, then only the points that moved (who
    stayed the same is one short line, not a "20 → 20" each)."""
    first, second = summary.rollers
    rolls = (
        f"**{names[first]}** ({die(summary.dice[0])}) rolled **{summary.rolls[0]}**, "
        f"**{names[second]}** ({die(summary.dice[1])}) rolled **{summary.rolls[1]}**"
    )
    if summary.winner is None:
        verdict = f"a tie: the house (**{names[summary.house]}**) wins"
    else:
        verdict = f"**{names[summary.rollers[summary.winner]]}** wins"
    lines = [f"**Round {summary.round}:** {rolls} → {verdict}."]
    unchanged = []
    for change in summary.changes:
        if change.reason in UNCHANGED_WHY:
            unchanged.append(f"{names[change.player]} ({unchanged_why(change, summary)})")
            continue
        lines.append(
            f"• **{names[change.player]}** {change.before} → **{change.after}**: "
            f"{change_text(change, summary, names)}"
        )
    if unchanged:
        lines.append("Unchanged: " + ", ".join(unchanged) + ".")
    return "\n".join(lines)


def roll_off_text(roll_off: Sequence[Event], names: Names, house: int) -> str:
    lines = []
    for event in roll_off:
        rolls = " · ".join(f"{names[r['player']]} {r['roll']}" for r in event["rolls"])
        label = "Roll-off (d20)" if event["attempt"] == 1 else "Re-roll"
        lines.append(f"{label}: {rolls}")
        tied = event.get("tied") or []
        if tied:
            who = ", ".join(names[seat] for seat in tied)
            lines.append(f"Tie at {event['highest']} between {who}: they roll again.")
    lines.append(f"**{names[house]}** rolled highest and is the first house.")
    return "\n".join(lines)


def notice_text(event: Event, names: Names) -> str | None:
    kind = event.get("type")
    if kind == "player_left":
        return (
            f"🚪 **{names[event['player']]}** left the table and keeps "
            f"{event['points']} points for the standings."
        )
    if kind == "round_void":
        who = "the house" if event["reason"] == "house_left" else "a roller"
        dropped = " and the bets were dropped" if event.get("bets_dropped") else ""
        return f"Round {event['round']} was void: {who} left{dropped}."
    if kind == "house_passed":
        return f"🏠 The house passes to **{names[event['to']]}**."
    if kind == "house_timeout":
        return (
            f"⏱️ **{names[event['house']]}** did not set up round {event['round']} in time, so "
            f"I picked the rollers and dice at random."
        )
    return None


def _phase_text(table: TableState, names: Names) -> str:
    """What to do now. The betting rules are spelled out while nobody has seen a round
    scored yet; after that, one line."""
    state = table.engine
    house = names[state.house]
    if state.phase == "setup":
        return (
            f"🏠 **{house}** is the house: press **Set up round** to pick two rollers and a "
            f"die for each. If not done {_timestamp(table.deadline_at)}, I'll pick at random."
        )
    lines = [odds_line(names, state.rollers, state.dice)]
    if state.rounds_played == 0:
        lines.append(
            "**Place your bets**: press **Bet on …** and type an amount (1 to your points), "
            "or use a quick bet. Bets are public and final; the house and the rollers don't "
            f"bet. Betting closes {_timestamp(table.deadline_at)}, or as soon as everyone "
            "has bet."
        )
    else:
        lines.append(f"Bets close {_timestamp(table.deadline_at)} or when everyone has bet.")
    return "\n".join(lines)


def status_line(
    table: TableState, seats: Sequence[Seat], *, cancelled: bool = False, note: str | None = None
) -> str:
    """The one line above the picture: the round and what is happening, or the result
    naming the winners (or why the game stopped)."""
    state = table.engine
    names = seat_names(seats)
    if cancelled:
        return note or "🛑 This game was stopped; no result was recorded."
    if state.phase == "finished":
        outcome = result(state)
        assert outcome is not None
        best = state.scores[outcome.winners[0]]
        winners = _names_list([names[seat] for seat in outcome.winners])
        verb = "wins" if len(outcome.winners) == 1 else "share the win of"
        rounds = f"{state.rounds_played} round{'s' if state.rounds_played != 1 else ''}"
        return f"🏆 {winners} {verb} Weighted Dice with {best} points after {rounds}."
    if state.phase == "setup":
        return (
            f"🎲 **Weighted Dice**, round {state.round}: **{names[state.house]}**, the house, "
            "picks the rollers."
        )
    first, second = state.rollers
    return (
        f"🎲 **Weighted Dice**, round {state.round}: **{names[first]}** ({die(state.dice[0])}) "
        f"against **{names[second]}** ({die(state.dice[1])}): place your bets."
    )


def table_embed(
    table: TableState,
    seats: Sequence[Seat],
    session_id: int,
    *,
    cancelled: bool = False,
    note: str | None = None,
) -> Rendered:
    state = table.engine
    names = seat_names(seats)
    blocks: list[str] = []
    finished = state.phase == "finished"
    if cancelled:
        title = "🎲 Weighted Dice — stopped"
    elif finished:
        title = "🎲 Weighted Dice — final standings"
        outcome = result(state)
        if outcome is not None and outcome.reason != "normal":
            blocks.append(
                f"The game ended early: fewer than {MIN_PLAYERS} players remain at the table."
            )
    else:
        title = f"🎲 Weighted Dice — round {state.round}"
        blocks.append(_phase_text(table, names))
    notices = [text for text in (notice_text(e, names) for e in table.notices) if text]
    if notices and not cancelled and not finished:
        blocks.append("\n".join(notices))
    if state.last_round is not None:
        blocks.append(round_text(state.last_round, names))
    elif table.roll_off and not cancelled and state.phase == "setup" and state.round == 1:
        # The roll-off explains who the first house is, until that house has set up.
        blocks.append(roll_off_text(table.roll_off, names, table.first_house))
    description = _clip("\n\n".join(blocks), DESCRIPTION_LIMIT) or None
    colour = COLOUR_CANCELLED if cancelled else COLOUR_FINISHED if finished else COLOUR
    embed = discord.Embed(title=title, description=description, colour=colour)
    footer = f"Table #{session_id} · " + table_rules_text(table.options, state)
    if not finished and not cancelled:
        footer += f" · rounds played: {state.rounds_played}"
    embed.set_footer(text=footer)
    return Rendered(embed, status_line(table, seats, cancelled=cancelled, note=note))


# -- the house's setup panel ------------------------------------------------------------------


def setup_panel_text(state: WeightedDiceState, names: Names, draft: Draft) -> str:
    lines = [
        f"🏠 You are the house for round {state.round}. Pick two rollers (not yourself) and a "
        "die for each, then press **Confirm**. Both may get the same die.",
    ]
    r0 = names[draft.r0] if draft.r0 is not None else "?"
    r1 = names[draft.r1] if draft.r1 is not None else "?"
    d0 = die(draft.d0) if draft.d0 is not None else "?"
    d1 = die(draft.d1) if draft.d1 is not None else "?"
    lines.append(f"So far: **{r0}** ({d0}) vs **{r1}** ({d1})")
    if draft.r0 is not None and draft.r0 == draft.r1:
        lines.append("⚠️ Pick two different players.")
    if draft.complete and draft.r0 != draft.r1:
        assert draft.r0 is not None and draft.r1 is not None
        assert draft.d0 is not None and draft.d1 is not None
        lines.append(odds_line(names, [draft.r0, draft.r1], [draft.d0, draft.d1]))
    return "\n".join(lines)
