"""A busy channel under Discord's rate limits: in one channel, at the same moment, a
twelve-seat Weighted Dice table takes its bets, three Knucklebones games move and a Diceman
round is revealed. The bot paces itself under the fake's X-RateLimit-* headers
(fakediscord/ratelimits.py): it receives no 429 at all, and after the last press every
public message shows its stored game within the time the buckets allow."""

from __future__ import annotations

import asyncio
from typing import Any

from duel_support import Duel, confirm_id, diceman_lock, diceman_pick
from fakediscord import (
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    InteractionOutcome,
    Player,
    routes,
)
from fakediscord.interactions import wait_for_answer
from fakediscord.pseudo import plain
from knucklebones_support import (
    board_turn,
    enabled_columns,
    mover_id,
    start_duel,
    wait_for_turn,
)
from weighted_support import Table, script_dice, weighted_cog

from bot import i18n
from bot.app import DiceBot
from bot.model.contract import ShowContext

WEIGHTED = ("ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal", "ida", "jon", "kim", "lea")
KNUCKLEBONES = (("kai", "liv"), ("max", "nia"), ("oli", "pia"))
DICEMAN = ("quin", "rex")
# Knucklebones moves per game during the burst.
MOVES = 3


async def shows_stored_game(bot: DiceBot, message: FakeMessage) -> bool:
    """The message shows what the game's handler draws from the stored session now."""
    row = await bot.db.fetch_one("SELECT id FROM sessions WHERE message_id = ?", (message.id,))
    if row is None:
        return False
    snapshot = await bot.publisher.store.snapshot(int(row["id"]))
    assert snapshot is not None
    session = snapshot.session
    closed = frozenset(seat for seat, p in snapshot.private.items() if p.closed)
    handler = bot.sessions.handlers[session.game]
    with i18n.use(session.language):
        fields = await handler.render(
            session, ShowContext(events=snapshot.events, dm_closed=closed)
        )
    embed = fields.get("embed")
    expected: dict[str, Any] = {} if embed is None else embed.to_dict()
    shown = message.embed or {}
    return plain(fields.get("content") or "") == message.content and all(
        plain(expected.get(key) or "") == (shown.get(key) or "") for key in ("title", "description")
    )


async def test_a_busy_channel_gets_no_429_and_every_message_catches_up(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    channel = guild.default_channel
    names = [*WEIGHTED, *(n for pair in KNUCKLEBONES for n in pair), *DICEMAN]
    people = {name: await guild.add_member(name) for name in names}

    # Twelve seats at one table with the production pace of edits (Table's quick edits
    # off): Ann is the house, Ben and Cat roll, the nine others may bet.
    seated = [people[name] for name in WEIGHTED]
    table = Table(fake_discord, running_bot, seated, quick_edits=False)
    script_dice(running_bot, [20] + [1] * (len(seated) - 1))
    await table.open()
    await table.setup_round(seated[0], (seated[1], seated[2]), (10, 10))
    bettors = seated[3:]
    modals = [await table.open_bet(player, index % 2) for index, player in enumerate(bettors)]

    # Three Knucklebones games, each after its first move.
    boards: list[tuple[FakeMessage, dict[int, Player]]] = []
    for first, second in KNUCKLEBONES:
        board = await start_duel(fake_discord, people[first], people[second])
        players = {people[first].id: people[first], people[second].id: people[second]}
        await players[mover_id(board) or 0].click(board, f"Column {enabled_columns(board)[0] + 1}")
        await wait_for_turn(fake_discord, board, after=1)
        boards.append((board, players))

    # A Diceman round with one player locked in; the other's Confirm is the reveal.
    quin, rex = (people[name] for name in DICEMAN)
    challenge = await quin.slash("diceman challenge", opponent=rex)
    assert challenge.message is not None
    duel = Duel(fake_discord, challenge.message, "dm")
    await rex.click(duel.board, "Accept")
    await duel.wait_round(1)
    await diceman_lock(quin, await duel.dm_controls(quin, 1), ["priority", "sword"])
    rex_controls = await duel.dm_controls(rex, 1)
    await diceman_pick(rex, rex_controls, ["magic", "shield"])
    await table.settle()

    # All at once: nine bets, the reveal, and each Knucklebones game three more moves (a
    # player presses as soon as the board shows their turn).
    async def bets_and_reveal() -> list[InteractionOutcome]:
        started = [
            *(
                player.begin_submit_modal(modal, amount=str(2 + index))
                for index, (player, modal) in enumerate(zip(bettors, modals, strict=True))
            ),
            rex.begin_click(rex_controls, confirm_id(rex_controls)),
        ]
        interactions = await asyncio.gather(*started)
        return list(await asyncio.gather(*(wait_for_answer(i, 5.0) for i in interactions)))

    async def moves(board: FakeMessage, players: dict[int, Player]) -> list[InteractionOutcome]:
        outcomes = []
        for _ in range(MOVES):
            mover = players[mover_id(board) or 0]
            outcomes.append(await mover.click(board, f"Column {enabled_columns(board)[0] + 1}"))
        return outcomes

    bursts = await asyncio.gather(bets_and_reveal(), *(moves(b, p) for b, p in boards))
    answers = [answer for burst in bursts for answer in burst]
    assert not any(answer.lost for answer in answers)
    assert sum("You bet" in answer.text() for answer in bursts[0]) == len(bettors)

    # What the buckets allow: each public message may need two more edits through the
    # channel (one the publisher had under way at the last press, and the newest), paced
    # five per window; the table's bets are gathered first; and the fake's own patience
    # for an answer covers the bot's work (renders, database) on a loaded machine.
    messages = [table.message, *(board for board, _ in boards), duel.board]
    edits = fake_discord.rate_limits.spec("PATCH", routes.MESSAGE)
    allowance = (
        edits.time_for(2 * len(messages))
        + weighted_cog(running_bot).coalesce_delay
        + fake_discord.answer_timeout
    )

    async def caught_up() -> bool:
        return all([await shows_stored_game(running_bot, message) for message in messages])

    await fake_discord.wait_until(
        caught_up, timeout=allowance, what="every public message to show its stored game"
    )
    await duel.wait_round(2)
    assert "Round 1 reveal" in duel.board.text()
    assert all(board_turn(board) == 2 + MOVES for board, _ in boards)
    assert (await table.engine()).rounds_played == 1

    # Not a single 429 reached the bot: it paced itself under the headers.
    assert [r for r in fake_discord.requests if r.status == 429] == []
    assert fake_discord.rate_limited == []
    # Every answer in the channel told the bot its bucket, and it kept to it.
    in_channel = [r for r in fake_discord.requests if r.channel_id == channel.id]
    assert in_channel and all(r.rate_limit is not None for r in in_channel if r.status < 400)
