"""What happened at a Weighted Dice table, in words: a scored round (the rolls, the winner
and why each player's points moved), the roll-off that named the first house, the notices
(a player left, a void round, the house passing or timing out), and why a game stopped
without a result. Also how a die is named and how names are listed, which every text of
the game (and the table picture) uses.

Pure functions from stored events to text, like ``cogs.weighted_dice.render`` (which
places these texts in the table's messages): unit-tested directly, the same after a
restart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from bot.i18n import N_, _, ngettext, number
from bot.model.contract import (
    CHANNEL_DELETED,
    MESSAGE_REFUSED,
    STOPPED_BY_ADMIN,
    Session,
    stop_cause,
    stopped_text,
)
from game_core.base import Event
from game_core.weighted_dice import FLOOR_POINTS, RoundSummary, ScoreChange

# Seat -> the name a text shows for it.
Names = Mapping[int, str]


def die(sides: int) -> str:
    # Translators: a die by its number of faces (d4, d6, d8, d10, d12, d20).
    return _("d{sides}").format(sides=sides)


def names_list(names: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    if len(names) == 1:
        return names[0]
    # Translators: joins the last name of a list to the others: "Ann, Bo and Cy".
    return _("{others} and {last}").format(others=", ".join(names[:-1]), last=names[-1])


# -- a scored round, the roll-off and the notices ---------------------------------------------


def change_text(change: ScoreChange, summary: RoundSummary, names: Names) -> str:
    """Why one player's points moved in a scored round."""
    gain = change.after - change.before
    fields = {
        "gain": number(abs(gain)),
        "amount": number(change.amount or 0),
        "pot": number(change.pot or 0),
        "roll": number(change.roll or 0),
        "floor": number(FLOOR_POINTS),
        "backed": names[summary.rollers[change.side]] if change.side is not None else "",
        # The roller who lost (when one did): whose backers' bets a winner takes.
        "other": names[summary.rollers[1 - summary.winner]] if summary.winner is not None else "",
    }
    match change.reason:
        case "won_bet":
            # A bet is never taken up front: a winning backer gains as much as they bet,
            # plus everything bet on the loser.
            text = _(
                "won {gain} (bet {amount} on {backed}: {amount} for backing the winner + the "
                "{pot} bet on {other})"
            )
        case "won_bet_half":
            text = _(
                "won {gain} (bet {amount} on {backed}; nobody backed {other}, so half the bet)"
            )
        case "lost_bet" if change.floored:
            text = _("lost {gain} (bet {amount} on {backed}, floored at {floor})")
        case "lost_bet":
            text = _("lost {gain} (bet {amount} on {backed})")
        case "lost_bet_tie" if change.floored:
            text = _(
                "lost {gain} (bet {amount} on {backed}; the house takes the tie, floored at "
                "{floor})"
            )
        case "lost_bet_tie":
            text = _("lost {gain} (bet {amount} on {backed}; the house takes the tie)")
        case "roller_won":
            text = _("roller bonus +{gain} (rolled {roll} + the {pot} bet on {other})")
        case "house_tie":
            text = _("house takes the tie: +{gain} (every bet)")
        case "house_rigged":
            # Translators: a tie nobody bet on sets the house's points to the floor (5).
            text = _("house set to {floor} (a tie nobody bet on)")
        case "roller_lost" if summary.winner is None:
            text = _("rolled the tie, unchanged")
        case "roller_lost":
            text = _("lost the roll, unchanged")
        case "house":
            text = _("the house, unchanged")
        case "no_bet":
            text = _("no bet, unchanged")
        case _:
            text = _("unchanged")
    return text.format(**fields)


UNCHANGED_WHY = {
    # Translators: why a roller's points did not move in a round.
    "roller_lost": N_("lost the roll"),
    # Translators: why the house's points did not move in a round.
    "house": N_("the house"),
    # Translators: why a player's points did not move in a round.
    "no_bet": N_("no bet"),
}


def unchanged_why(change: ScoreChange, summary: RoundSummary) -> str:
    if change.reason == "roller_lost" and summary.winner is None:
        return _("rolled the tie")
    why = UNCHANGED_WHY.get(change.reason)
    return _(why) if why else ""


def round_text(summary: RoundSummary, names: Names) -> str:
    """The last scored round: the rolls, the winner, then only the points that moved (who
    stayed the same is one short line, not a "20 → 20" each)."""
    first, second = summary.rollers
    fields = {
        "round": number(summary.round),
        "first": names[first],
        "first_die": die(summary.dice[0]),
        "first_roll": number(summary.rolls[0]),
        "second": names[second],
        "second_die": die(summary.dice[1]),
        "second_roll": number(summary.rolls[1]),
    }
    if summary.winner is None:
        line = _(
            "**Round {round}:** **{first}** ({first_die}) rolled **{first_roll}**, **{second}** "
            "({second_die}) rolled **{second_roll}** → a tie: the house (**{house}**) wins."
        ).format(house=names[summary.house], **fields)
    else:
        line = _(
            "**Round {round}:** **{first}** ({first_die}) rolled **{first_roll}**, **{second}** "
            "({second_die}) rolled **{second_roll}** → **{winner}** wins."
        ).format(winner=names[summary.rollers[summary.winner]], **fields)
    lines = [line]
    unchanged = []
    for change in summary.changes:
        if change.reason in UNCHANGED_WHY:
            unchanged.append(
                _("{name} ({why})").format(
                    name=names[change.player], why=unchanged_why(change, summary)
                )
            )
            continue
        lines.append(
            _("• **{name}** {before} → **{after}**: {why}").format(
                name=names[change.player],
                before=number(change.before),
                after=number(change.after),
                why=change_text(change, summary, names),
            )
        )
    if unchanged:
        # A heading and a list of "name (why)" items: no sentence to agree with.
        lines.append(_("Unchanged:") + " " + ", ".join(unchanged) + ".")
    return "\n".join(lines)


def roll_off_text(roll_off: Sequence[Event], names: Names, house: int) -> str:
    lines = []
    for event in roll_off:
        rolls = " · ".join(f"{names[r['player']]} {number(r['roll'])}" for r in event["rolls"])
        if event["attempt"] == 1:
            lines.append(_("Roll-off (d20): {rolls}").format(rolls=rolls))
        else:
            lines.append(_("Re-roll: {rolls}").format(rolls=rolls))
        tied = event.get("tied") or []
        if tied:
            lines.append(
                _("Tie at {roll} between {players}: they roll again.").format(
                    roll=number(event["highest"]),
                    players=", ".join(names[seat] for seat in tied),
                )
            )
    lines.append(_("**{house}** rolled highest and is the first house.").format(house=names[house]))
    return "\n".join(lines)


def notice_text(event: Event, names: Names) -> str | None:
    kind = event.get("type")
    if kind == "player_left":
        return ngettext(
            "🚪 **{player}** left the table and keeps {points} point for the standings.",
            "🚪 **{player}** left the table and keeps {points} points for the standings.",
            int(event["points"]),
        ).format(player=names[event["player"]], points=number(event["points"]))
    if kind == "round_void":
        house_left = event["reason"] == "house_left"
        if event.get("bets_dropped"):
            text = (
                _("Round {round} was void: the house left and the bets were dropped.")
                if house_left
                else _("Round {round} was void: a roller left and the bets were dropped.")
            )
        else:
            text = (
                _("Round {round} was void: the house left.")
                if house_left
                else _("Round {round} was void: a roller left.")
            )
        return text.format(round=number(event["round"]))
    if kind == "house_passed":
        return _("🏠 The house passes to **{player}**.").format(player=names[event["to"]])
    if kind == "house_timeout":
        return _(
            "⏱️ **{house}** did not set up round {round} in time, so I picked the rollers and "
            "dice at random."
        ).format(house=names[event["house"]], round=number(event["round"]))
    return None


# -- a game stopped without a result ----------------------------------------------------------


# Why a game was stopped, as ``SessionService.cancel`` stores it (English, a stored value),
# and the line a stopped table shows for it.
STOP_NOTES = {
    STOPPED_BY_ADMIN: N_("🛑 This game was stopped by an admin; no result was recorded."),
    CHANNEL_DELETED: N_(
        "🛑 This game ended because its channel was deleted; no result was recorded."
    ),
    MESSAGE_REFUSED: N_(
        "🛑 This game ended because its message could not be posted here; no result was recorded."
    ),
}


def stop_note(events: list[Event]) -> str | None:
    """The line a stopped table shows: who stopped it, or why it ended."""
    stored = stop_cause(events)
    if stored is None:
        return None
    stopped_by = re.fullmatch(r"ended by ([0-9]{1,20})", stored)
    if stopped_by is not None:
        return _("🛑 Stopped by {user}; no result was recorded.").format(
            user=f"<@{stopped_by.group(1)}>"
        )
    if stored in STOP_NOTES:
        return _(STOP_NOTES[stored])
    return _("🛑 This game was stopped; no result was recorded.")


def stopped_sentence(session: Session, events: list[Event]) -> str | None:
    """What the picture of a table stopped without a result says instead of what the
    round is doing (None for a table that is not stopped)."""
    if session.status != "cancelled":
        return None
    stored = stop_cause(events) or ""
    ended_by = re.fullmatch(r"ended by ([0-9]{1,20})", stored)
    if ended_by is None:
        return stopped_text(stop_cause(events))
    seat = session.seat_of(int(ended_by.group(1)))
    if seat is None:
        # Translators: a stopped table's picture, read aloud; only its host or someone
        # with Manage Server can end a game.
        return _("A server manager ended the game; no result counts.")
    # Translators: a stopped table's picture, read aloud; {player} is a name as written.
    return _("{player} ended the game; no result counts.").format(
        player=session.user_of(seat).display_name
    )
