"""Weighted Dice messages: the lobby, the public table, the house's setup panel and the
answers to the presses (the round the house set, a bet's receipt).

Pure functions from stored data to text and embeds (no Discord calls, no database), so
they are unit-tested directly and re-render the same after a restart. Nothing in this game
is a private message: the house's panel and the receipts are ephemeral answers. What a
round did and why (and why a game stopped) is told by ``cogs.weighted_dice.story``.

The running table is one status line, the table picture (``table_picture``: seats,
points, roles, the rollers' chances and every bet, with the same as alt text), an embed
with what only words say (what to do now, what the last round did and why), and the
buttons. The seats, bets and standings are never repeated as text beside the picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import discord

from bot import i18n
from bot.i18n import _, ngettext, number, percent
from bot.model.contract import Outcome, Seat, Session
from bot.model.text import escape
from bot.pictures import palette
from bot.pictures.picture import Picture
from cogs.weighted_dice.state import Draft, LobbyState, TableOptions, TableState, load_state
from cogs.weighted_dice.story import Names, die, names_list, notice_text, roll_off_text, round_text
from game_core.analysis.weighted_lengths import GameLength, lengths
from game_core.weighted_dice import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    TARGET_POINTS,
    WeightedDiceState,
    public_view,
    result,
    win_probabilities,
)

COLOUR = discord.Colour(palette.EMBED_RUNNING)
COLOUR_FINISHED = discord.Colour(palette.EMBED_FINISHED)
COLOUR_CANCELLED = discord.Colour(palette.EMBED_CANCELLED)
FIELD_LIMIT = 1024
DESCRIPTION_LIMIT = 4096
TITLE_LIMIT = 256
FOOTER_LIMIT = 2048
# How long a name may be where plain text shows it (a button's label unless told);
# Discord's own names are 32 characters at most.
BUTTON_NAME_LIMIT = 40


@dataclass(frozen=True)
class Rendered:
    """What a message shows; the cog adds the picture and the components."""

    embed: discord.Embed
    content: str | None = None


def player_name(seat: int) -> str:
    """The name shown for a seat whose player has no display name."""
    return _("Player {number}").format(number=number(seat + 1))


def seat_names(seats: Sequence[Seat]) -> dict[int, str]:
    """Seat → the display name as written (Discord's are at most 32 characters; a longer
    stored one is shortened at ``bot.model.text.NAME_LIMIT``), safe inside markdown."""
    return {
        seat.seat: escape(seat.display_name.strip() or player_name(seat.seat)) for seat in seats
    }


def picture_names(seats: Sequence[Seat]) -> list[str]:
    """Seat -> the display name as the picture draws it (raw: markdown means nothing in a
    picture), in seat order."""
    ordered = sorted(seats, key=lambda seat: seat.seat)
    return [seat.display_name.strip() or player_name(seat.seat) for seat in ordered]


def raw_name(session: Session, seat: int, limit: int = BUTTON_NAME_LIMIT) -> str:
    """A display name for places that show plain text (buttons, options, modal titles)."""
    name = session.user_of(seat).display_name.strip() or player_name(seat)
    return name if len(name) <= limit else name[: limit - 1] + "…"


def table_picture(
    table: TableState,
    seats: Sequence[Seat],
    language: str | None = None,
    stopped: str | None = None,
) -> Picture:
    """The table as a picture (``cogs.weighted_dice.picture``), alt text included, in
    ``language`` (the caller's current one by default). The picture thread does not see
    the caller's language, so the cog passes it along. ``stopped``: the sentence for a
    game stopped without a result (drawn as it stood, nothing more to come)."""
    # Drawn in the picture helper: the bot's process does not load Pillow unless it draws
    # itself (PICTURE_WORKER=thread).
    from cogs.weighted_dice import picture as weighted_picture

    with i18n.use(language or i18n.current()):
        return weighted_picture.render_table(
            public_view(table.engine), picture_names(seats), stopped
        )


def chance(value: Fraction) -> str:
    """An exact probability and its rounded percentage, e.g. ``73/80 (91.3%)``."""
    # Translators: an exact chance and its percentage, e.g. "73/80 (91.3%)".
    return _("{numerator}/{denominator} ({percent})").format(
        numerator=number(value.numerator),
        denominator=number(value.denominator),
        percent=percent(float(value), 1),
    )


def odds_line(names: Names, rollers: Sequence[int], dice: Sequence[int]) -> str:
    first, second, tie = win_probabilities(dice[0], dice[1])
    return _(
        "Chances: **{first}** wins {first_chance} · **{second}** wins {second_chance} · "
        "tie (the house wins) {tie_chance}"
    ).format(
        first=names[rollers[0]],
        first_chance=chance(first),
        second=names[rollers[1]],
        second_chance=chance(second),
        tie_chance=chance(tie),
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _names_list(names: Sequence[str]) -> str:
    """``**A**``, ``**A** and **B**``, ``**A**, **B** and **C**``."""
    return names_list([f"**{name}**" for name in names])


def _timestamp(at: float) -> str:
    """A Discord timestamp ("in 2 minutes", in each reader's own language)."""
    return f"<t:{int(at)}:R>"


# -- the table's options ----------------------------------------------------------------------


def length_text(length: GameLength, players: int) -> str:
    """ "With 7 players a game lasts about 10 rounds (most games 6 to 16).": the lab's
    estimate for this table, one sentence."""
    low, high = round(length.p10), round(length.p90)
    rounds = length.rounds
    if high > low:
        return ngettext(
            "With {players} players a game lasts about **{rounds}** round (most games {low} "
            "to {high}).",
            "With {players} players a game lasts about **{rounds}** rounds (most games {low} "
            "to {high}).",
            rounds,
        ).format(players=number(players), rounds=number(rounds), low=number(low), high=number(high))
    return ngettext(
        "With {players} players a game lasts about **{rounds}** round.",
        "With {players} players a game lasts about **{rounds}** rounds.",
        rounds,
    ).format(players=number(players), rounds=number(rounds))


def times_text(options: TableOptions) -> str:
    return _(
        "Bets stay open **{betting} s** a round; the house has **{setup} s** to set up."
    ).format(
        betting=number(options.betting_window_seconds),
        setup=number(options.house_setup_seconds),
    )


def lobby_rules_text(options: TableOptions | None, seated: int) -> str:
    """The lobby's target, how long the game should last with the players seated so far
    (five at least: a game needs them), and the table's times."""
    if options is None:  # a lobby opened before tables had options
        return _("First to {target} points wins.").format(target=number(TARGET_POINTS))
    players = max(MIN_PLAYERS, seated)
    target = options.target_for(players)
    if not options.short:
        if target == TARGET_POINTS:
            # Translators: 150 points, the game's standard target (its rules card's).
            rules = _("First to **{target}** points wins (the standard game).")
        else:
            rules = _("First to **{target}** points wins.")
    elif target == TARGET_POINTS:
        rules = _(
            "**Short game**: with {players} players the standard {target} points already "
            "make a short game, so first to **{target}** wins."
        )
    else:
        rules = _(
            "**Short game**: first to **{target}** points with {players} players; the target "
            "follows the table size until the game starts."
        )
    rules = rules.format(target=number(target), players=number(players))
    return f"{rules} {length_text(options.length(players), players)}\n{times_text(options)}"


def table_rules_text(options: TableOptions | None, state: WeightedDiceState) -> str:
    """The table's footer line: the target, the expected length and the times."""
    if options is not None and options.short:
        text = _("first to {target} points wins (short game)")
    else:
        text = _("first to {target} points wins")
    text = text.format(target=number(state.target))
    if options is None:
        return text
    length = lengths().length(state.n_players, state.target)
    parts = [
        text,
        ngettext(
            "about {rounds} round with {players} players",
            "about {rounds} rounds with {players} players",
            length.rounds,
        ).format(rounds=number(length.rounds), players=number(state.n_players)),
        # Translators: the betting window in the table's footer, e.g. "bets 30 s".
        _("bets {seconds} s").format(seconds=number(options.betting_window_seconds)),
        # Translators: the house's setup time in the table's footer, e.g. "house 60 s".
        _("house {seconds} s").format(seconds=number(options.house_setup_seconds)),
    ]
    return " · ".join(parts)


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
    host = next((f"**{names[s.seat]}**" for s in seats if s.user_id == lobby.host), None)
    # A host no longer seated (the lobby is closing) is named by a mention.
    host = host or f"<@{lobby.host}>"
    lines = [
        (
            _("`{number}.` **{name}** — host")
            if s.user_id == lobby.host
            else _("`{number}.` **{name}**")
        ).format(number=number(s.seat + 1), name=names[s.seat])
        for s in seats
    ]
    if lobby.closed == "expired":
        description = _("⌛ This lobby expired before the game started.")
    elif lobby.closed == "host_left":
        description = _("🚪 The host left, so this lobby closed.")
    elif cancelled:
        description = note or _("🛑 This lobby was closed.")
    else:
        missing = MIN_PLAYERS - len(seats)
        status = (
            ngettext(
                "Waiting for **{count}** more player to start.",
                "Waiting for **{count}** more players to start.",
                missing,
            ).format(count=number(missing))
            if missing > 0
            else _("Ready: {host} can press **Start**.").format(host=host)
        )
        # Whole sentences, each its own catalog text.
        opened = _(
            "{host} opened a Weighted Dice table: one player is the house, two roll, everyone "
            "else bets on a roller."
        ).format(host=host)
        join = _("Press **Join** to take a seat ({low} to {high} players).").format(
            low=number(MIN_PLAYERS), high=number(MAX_PLAYERS)
        )
        closes = _("The lobby closes {when} if not started.").format(
            when=_timestamp(lobby.expires_at)
        )
        rules = lobby_rules_text(lobby.options, len(seats))
        description = f"{opened} {rules}\n{join} {status}\n{closes}"
    closed = cancelled or lobby.closed is not None
    embed = discord.Embed(
        title=_("🎲 Weighted Dice — lobby"),
        description=_clip(description, DESCRIPTION_LIMIT),
        colour=COLOUR_CANCELLED if closed else COLOUR,
    )
    embed.add_field(
        name=_("Players ({count}/{limit})").format(
            count=number(len(seats)), limit=number(MAX_PLAYERS)
        ),
        value=_clip("\n".join(lines) or _("nobody yet"), FIELD_LIMIT),
        inline=False,
    )
    embed.set_footer(text=_("Table #{table}").format(table=session_id))
    return Rendered(embed)


def invitation(lobby: LobbyState, session: Session) -> str | None:
    """A Play again lobby's line for the invited players who have not joined yet."""
    waiting = [user for user in lobby.invited if session.seat_of(user) is None]
    if not waiting:
        return None
    mentions = " ".join(f"<@{user}>" for user in waiting)
    return _("🔁 Play again: {mentions}, press **Join** to take your seat.").format(
        mentions=mentions
    )


# -- the table ------------------------------------------------------------------------------


def _phase_text(table: TableState, names: Names) -> str:
    """What to do now. The betting rules are spelled out while nobody has seen a round
    scored yet; after that, one line."""
    state = table.engine
    house = names[state.house]
    due = table.deadline_at
    if state.phase == "setup":
        pick = _(
            "🏠 **{house}** is the house: press **Set up round** to pick two rollers and a die "
            "for each."
        ).format(house=house)
        if due is None:
            return pick
        return (
            pick + " " + _("If not done {when}, I'll pick at random.").format(when=_timestamp(due))
        )
    lines = [odds_line(names, state.rollers, state.dice)]
    if state.rounds_played == 0:
        lines.append(
            _(
                "**Place your bets**: press **Bet on …** and type an amount (1 to your "
                "points), or use a quick bet. Bets are public and final; the house and the "
                "rollers don't bet."
            )
        )
    if due is None:
        lines.append(_("Betting closes as soon as everyone has bet."))
    else:
        lines.append(
            _("Betting closes {when}, or as soon as everyone has bet.").format(when=_timestamp(due))
        )
    return "\n".join(lines)


def status_line(
    table: TableState, seats: Sequence[Seat], *, cancelled: bool = False, note: str | None = None
) -> str:
    """The one line above the picture: the round and what is happening, or the result
    naming the winners (or why the game stopped)."""
    state = table.engine
    names = seat_names(seats)
    if cancelled:
        return note or _("🛑 This game was stopped; no result was recorded.")
    if state.phase == "finished":
        outcome = result(state)
        assert outcome is not None
        best = state.scores[outcome.winners[0]]
        winners = _names_list([names[seat] for seat in outcome.winners])
        rounds = state.rounds_played
        if len(outcome.winners) == 1:
            text = ngettext(
                "🏆 {winners} wins Weighted Dice with {points} points after {rounds} round.",
                "🏆 {winners} wins Weighted Dice with {points} points after {rounds} rounds.",
                rounds,
            )
        else:
            text = ngettext(
                "🏆 {winners} share the win of Weighted Dice with {points} points after "
                "{rounds} round.",
                "🏆 {winners} share the win of Weighted Dice with {points} points after "
                "{rounds} rounds.",
                rounds,
            )
        return text.format(winners=winners, points=number(best), rounds=number(rounds))
    if state.phase == "setup":
        return _(
            "🎲 **Weighted Dice**, round {round}: **{house}**, the house, picks the rollers."
        ).format(round=number(state.round), house=names[state.house])
    first, second = state.rollers
    return _(
        "🎲 **Weighted Dice**, round {round}: **{first}** ({first_die}) against **{second}** "
        "({second_die}): place your bets."
    ).format(
        round=number(state.round),
        first=names[first],
        first_die=die(state.dice[0]),
        second=names[second],
        second_die=die(state.dice[1]),
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
        title = _("🎲 Weighted Dice — stopped")
    elif finished:
        title = _("🎲 Weighted Dice — final standings")
        outcome = result(state)
        if outcome is not None and outcome.reason != "normal":
            blocks.append(
                _("The game ended early: fewer than {players} players remain at the table.").format(
                    players=number(MIN_PLAYERS)
                )
            )
    else:
        title = _("🎲 Weighted Dice — round {round}").format(round=number(state.round))
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
    embed = discord.Embed(title=_clip(title, TITLE_LIMIT), description=description, colour=colour)
    parts = [_("Table #{table}").format(table=session_id), table_rules_text(table.options, state)]
    if not finished and not cancelled:
        parts.append(_("rounds played: {rounds}").format(rounds=number(state.rounds_played)))
    embed.set_footer(text=_clip(" · ".join(parts), FOOTER_LIMIT))
    return Rendered(embed, status_line(table, seats, cancelled=cancelled, note=note))


# -- the house's setup panel ------------------------------------------------------------------


def setup_panel_text(state: WeightedDiceState, names: Names, draft: Draft) -> str:
    lines = [
        _(
            "🏠 You are the house for round {round}. Pick two rollers (not yourself) and a die "
            "for each, then press **Confirm**. Both may get the same die."
        ).format(round=number(state.round)),
    ]
    r0 = names[draft.r0] if draft.r0 is not None else "?"
    r1 = names[draft.r1] if draft.r1 is not None else "?"
    d0 = die(draft.d0) if draft.d0 is not None else "?"
    d1 = die(draft.d1) if draft.d1 is not None else "?"
    lines.append(
        _("So far: **{first}** ({first_die}) vs **{second}** ({second_die})").format(
            first=r0, first_die=d0, second=r1, second_die=d1
        )
    )
    if draft.r0 is not None and draft.r0 == draft.r1:
        lines.append(_("⚠️ Pick two different players."))
    if draft.complete and draft.r0 != draft.r1:
        assert draft.r0 is not None and draft.r1 is not None
        assert draft.d0 is not None and draft.d1 is not None
        lines.append(odds_line(names, [draft.r0, draft.r1], [draft.d0, draft.d1]))
    return "\n".join(lines)


def setup_receipt(seats: Sequence[Seat], round_number: int, draft: Draft) -> str:
    """What the house's panel becomes once the round is set (the table shows the rest)."""
    names = seat_names(seats)
    assert draft.r0 is not None and draft.r1 is not None
    assert draft.d0 is not None and draft.d1 is not None
    return _(
        "✅ Round {round} is set: **{first}** ({first_die}) vs **{second}** "
        "({second_die}). Betting is open on the table."
    ).format(
        round=number(round_number),
        first=names[draft.r0],
        first_die=die(draft.d0),
        second=names[draft.r1],
        second_die=die(draft.d1),
    )


# -- a bet's receipt --------------------------------------------------------------------------


def bet_receipt(outcome: Outcome) -> str:
    """The private answer to a bet: what was bet on whom, and the totals it left."""
    names = seat_names(outcome.session.seats)
    bet = next(event for event in outcome.events if event["type"] == "bet")
    totals = bet["totals"]
    previous = load_state(outcome.previous.state)
    assert isinstance(previous, TableState)
    rollers = previous.engine.rollers
    lines = [
        _("✅ You bet **{amount}** on **{roller}**. Bets are final.").format(
            amount=number(bet["amount"]), roller=names[bet["roller_seat"]]
        ),
        _("Totals now: {first} {first_total} · {second} {second_total}.").format(
            first=names[rollers[0]],
            first_total=number(totals[0]),
            second=names[rollers[1]],
            second_total=number(totals[1]),
        ),
    ]
    if any(event["type"] == "betting_closed" for event in outcome.events):
        lines.append(_("Everyone has bet, so the dice were rolled: see the table."))
    return "\n".join(lines)
