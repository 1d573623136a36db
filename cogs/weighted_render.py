"""Weighted Dice messages: the lobby, the public table and the house's setup panel.

Pure functions from stored data to text and embeds (no Discord calls, no database), so
they are unit-tested directly and re-render the same after a restart. Everything in this
game is public, so the table shows every bet as it lands.

Discord limits that shape the layout: an embed description holds 4,096 characters and a
field 1,024, so the per-player lines (up to 12 of them) of the last round go in the
description and the seat list in a field; names are shortened to keep within both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import discord

from bot.games import Seat
from bot.pictures import palette
from bot.pictures.picture import Picture
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
    bet_totals,
    public_view,
    result,
    to_act,
    win_probabilities,
)

COLOUR = discord.Colour(palette.EMBED_RUNNING)
COLOUR_FINISHED = discord.Colour(palette.EMBED_FINISHED)
COLOUR_CANCELLED = discord.Colour(palette.EMBED_CANCELLED)
NAME_LIMIT = 24
FIELD_LIMIT = 1024
DESCRIPTION_LIMIT = 4096
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}

Names = Mapping[int, str]


@dataclass(frozen=True)
class Rendered:
    """What a message shows; the cog adds the components."""

    embed: discord.Embed
    content: str | None = None


def seat_names(seats: Sequence[Seat]) -> dict[int, str]:
    """Seat → a display name safe inside markdown, short enough for every limit."""
    names = {}
    for seat in seats:
        raw = seat.display_name.strip() or f"Player {seat.seat + 1}"
        if len(raw) > NAME_LIMIT:
            raw = raw[: NAME_LIMIT - 1] + "…"
        names[seat.seat] = discord.utils.escape_markdown(discord.utils.escape_mentions(raw))
    return names


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


def _seat_lines(state: WeightedDiceState, names: Names, *, ranks: Sequence[int] | None) -> str:
    bets = {bet.player: bet for bet in state.bets}
    lines = []
    order = range(state.n_players)
    if ranks is not None:
        order = sorted(order, key=lambda seat: (ranks[seat], seat))  # type: ignore[assignment]
    for seat in order:
        tags = []
        if not state.active[seat]:
            tags.append("left")
        elif state.phase != "finished":
            if seat == state.house:
                tags.append("🏠 house")
            if seat in state.rollers:
                index = state.rollers.index(seat)
                tags.append(f"🎲 rolls the {die(state.dice[index])}")
            if seat in bets:
                bet = bets[seat]
                tags.append(f"bet {bet.amount} on {names[state.rollers[bet.roller]]}")
        place = ""
        if ranks is not None:
            place = MEDALS.get(ranks[seat], f"#{ranks[seat]}") + " "
        suffix = f" ({', '.join(tags)})" if tags else ""
        lines.append(
            f"{place}`{seat + 1:>2}.` **{names[seat]}** — **{state.scores[seat]}**{suffix}"
        )
    return "\n".join(lines)


def change_text(change: ScoreChange, summary: RoundSummary, names: Names) -> str:
    """Why one player's points moved (or did not) in a scored round."""
    gain = change.after - change.before
    backed = names[summary.rollers[change.side]] if change.side is not None else ""
    floored = f", floored at {FLOOR_POINTS}" if change.floored else ""
    match change.reason:
        case "won_bet":
            return (
                f"won {gain} (bet {change.amount} on {backed}: the {change.pot} bet on the "
                f"loser plus the bet back)"
            )
        case "won_bet_half":
            return f"won {gain} (bet {change.amount} on {backed}; nobody backed the loser: half)"
        case "lost_bet":
            return f"lost {-gain} (bet {change.amount} on {backed}{floored})"
        case "lost_bet_tie":
            return (
                f"lost {-gain} (bet {change.amount} on {backed}; the house takes the tie{floored})"
            )
        case "roller_won":
            return f"roller bonus +{gain} (rolled {change.roll} + {change.pot} bet on the loser)"
        case "roller_lost":
            return "rolled, unchanged" if summary.winner is None else "lost the roll, unchanged"
        case "house_tie":
            return f"house takes the tie: +{gain} (every bet)"
        case "house_rigged":
            return f"house rigged to {FLOOR_POINTS} (a tie nobody bet on)"
        case "house":
            return "house, unchanged"
        case _:
            return "no bet"


def round_text(summary: RoundSummary, names: Names) -> str:
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
    for change in summary.changes:
        lines.append(
            f"• **{names[change.player]}** {change.before} → **{change.after}**: "
            f"{change_text(change, summary, names)}"
        )
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
    state = table.engine
    house = names[state.house]
    if state.phase == "setup":
        return (
            f"🏠 **{house}** is the house. {house}: press **Set up round** to pick two rollers "
            f"and a die for each. If not done {_timestamp(table.deadline_at)}, I'll pick at "
            f"random."
        )
    first, second = state.rollers
    totals = bet_totals(state)
    lines = [
        f"🎲 **{names[first]}** ({die(state.dice[0])}) vs **{names[second]}** "
        f"({die(state.dice[1])}) — the house is **{house}**.",
        odds_line(names, state.rollers, state.dice),
        "",
        "**Place your bets**: press **Bet on …** and type an amount (1 to your points). "
        "Bets are public and final; the house and the rollers don't bet. "
        f"Betting closes {_timestamp(table.deadline_at)}, or as soon as everyone has bet.",
    ]
    for side, roller in enumerate(state.rollers):
        backers = [bet for bet in state.bets if bet.roller == side]
        who = ", ".join(f"{names[bet.player]} {bet.amount}" for bet in backers)
        lines.append(f"**On {names[roller]}: {totals[side]}**" + (f" — {who}" if who else ""))
    waiting = to_act(state)
    if waiting:
        lines.append("Still to bet: " + ", ".join(names[seat] for seat in waiting))
    return "\n".join(lines)


def _finished_text(state: WeightedDiceState, names: Names) -> str:
    outcome = result(state)
    assert outcome is not None
    winners = [names[seat] for seat in outcome.winners]
    best = state.scores[outcome.winners[0]]
    if len(winners) == 1:
        headline = f"🏆 **{winners[0]}** wins with **{best}** points!"
    else:
        joined = ", ".join(f"**{w}**" for w in winners[:-1]) + f" and **{winners[-1]}**"
        headline = f"🏆 {joined} share the win with **{best}** points!"
    if outcome.reason != "normal":
        headline = (
            f"The game ended early: fewer than {MIN_PLAYERS} players remain at the table.\n"
            + headline
        )
    return headline + f"\nRounds played: {state.rounds_played}."


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
    ranks: Sequence[int] | None = None
    if cancelled:
        title = "🎲 Weighted Dice — stopped"
        blocks.append(note or "🛑 This game was stopped; no result was recorded.")
    elif state.phase == "finished":
        title = "🎲 Weighted Dice — final standings"
        outcome = result(state)
        ranks = outcome.ranks if outcome is not None else None
        blocks.append(_finished_text(state, names))
    else:
        title = f"🎲 Weighted Dice — round {state.round}"
        blocks.append(_phase_text(table, names))
    notices = [text for text in (notice_text(e, names) for e in table.notices) if text]
    if notices and not cancelled and state.phase != "finished":
        blocks.append("\n".join(notices))
    if state.last_round is not None:
        blocks.append(round_text(state.last_round, names))
    elif table.roll_off and not cancelled:
        blocks.append(roll_off_text(table.roll_off, names, table.first_house))
    description = _clip("\n\n".join(blocks), DESCRIPTION_LIMIT)
    colour = COLOUR_CANCELLED if cancelled else COLOUR_FINISHED if ranks is not None else COLOUR
    embed = discord.Embed(title=title, description=description, colour=colour)
    embed.add_field(
        name="Standings" if ranks is not None else "Seats · points",
        value=_clip(_seat_lines(state, names, ranks=ranks), FIELD_LIMIT),
        inline=False,
    )
    footer = f"Table #{session_id} · " + table_rules_text(table.options, state)
    if state.phase != "finished" and not cancelled:
        footer += f" · rounds played: {state.rounds_played}"
    embed.set_footer(text=footer)
    return Rendered(embed)


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
