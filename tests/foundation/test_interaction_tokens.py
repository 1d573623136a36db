"""Games reached only through interactions (issue 32), in storage, on both databases: the
session's reach and its server (none: ``FRIENDS_LADDER``), and the one interaction token kept
per session: the longest-lived wins, only for the game's own message, gone when expired or
when its session is."""

from __future__ import annotations

import io
import logging

from foundation_support import ALICE, BOB, CHANNEL, GAME, GUILD, seats

from bot import i18n
from bot.log_lines import RedactingHandler
from bot.model.clock import ManualClock
from bot.model.contract import FRIENDS_LADDER, Session
from bot.play.sessions import SessionService
from bot.play.tokens import TOKEN_LIFETIME_SECONDS, TOKEN_MARGIN_SECONDS, InteractionTokens
from bot.storage import Database
from bot.storage.publication import PublicationStore

USABLE_FOR = TOKEN_LIFETIME_SECONDS - TOKEN_MARGIN_SECONDS


async def friends_game(service: SessionService, *, reach: str = "interaction") -> Session:
    return await service.create(
        game=GAME,
        guild_id=GUILD,
        # One open game per player per channel: each reach in its own.
        channel_id=CHANNEL if reach == "member" else CHANNEL + 1,
        created_by=ALICE,
        seats=seats(ALICE, BOB),
        state={"n": 0},
        status="active",
        reach=reach,  # type: ignore[arg-type]
    )


async def test_an_interaction_game_belongs_to_no_server_and_speaks_its_creators_language(
    service: SessionService,
) -> None:
    i18n.set_server_language("fr")
    i18n.set_language("de")
    try:
        member = await friends_game(service, reach="member")
        friends = await friends_game(service)
    finally:
        i18n.set_language(i18n.ENGLISH)
        i18n.set_server_language(i18n.ENGLISH)
    assert (member.reach, member.guild_id, member.language) == ("member", GUILD, "fr")
    assert (friends.reach, friends.guild_id, friends.language) == (
        "interaction",
        FRIENDS_LADDER,
        "de",
    )
    stored = await service.require(friends.id)
    assert stored.reach == "interaction" and stored.guild_id == FRIENDS_LADDER


async def test_the_longest_lived_token_is_kept_and_only_while_it_lives(
    service: SessionService, db: Database, clock: ManualClock
) -> None:
    tokens = InteractionTokens(db, clock)
    session = await friends_game(service)
    created = clock.now()
    assert await tokens.keep(session.id, "first-token", created)
    assert await tokens.live(session.id) == "first-token"
    # A newer interaction's token replaces it; an older one arriving late does not.
    assert await tokens.keep(session.id, "newer-token", created + 30)
    assert not await tokens.keep(session.id, "late-older-token", created + 10)
    assert await tokens.live(session.id) == "newer-token"
    clock.advance(30 + USABLE_FOR - 1)
    assert await tokens.live(session.id) == "newer-token"
    clock.advance(1)
    assert await tokens.live(session.id) is None
    # An interaction already too old to use is not kept at all.
    assert not await tokens.keep(session.id, "stale-token", created)
    assert await tokens.sweep() == 1
    rows = await db.fetch_all("SELECT session_id FROM interaction_tokens")
    assert rows == []


async def test_a_press_keeps_its_token_only_on_the_games_message_of_an_interaction_game(
    service: SessionService, db: Database, clock: ManualClock
) -> None:
    tokens = InteractionTokens(db, clock)
    member = await friends_game(service, reach="member")
    friends = await friends_game(service)
    await service.set_message(member.id, 500)
    await service.set_message(friends.id, 600)
    now = clock.now()
    assert not await tokens.keep(member.id, "member-token", now, message_id=500)
    assert not await tokens.keep(friends.id, "ephemeral-token", now, message_id=601)
    assert await tokens.keep(friends.id, "public-token", now, message_id=600)
    assert await tokens.live(member.id) is None
    assert await tokens.live(friends.id) == "public-token"
    # Only the token Discord refused is dropped, not a newer one kept meanwhile.
    await tokens.forget(friends.id, "some-older-token")
    assert await tokens.live(friends.id) == "public-token"
    await tokens.forget(friends.id, "public-token")
    assert await tokens.live(friends.id) is None


async def test_a_sessions_token_goes_with_it(
    service: SessionService, db: Database, clock: ManualClock
) -> None:
    tokens = InteractionTokens(db, clock)
    session = await friends_game(service)
    assert await tokens.keep(session.id, "token", clock.now())
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM sessions WHERE id = ?", (session.id,))
    assert await db.fetch_all("SELECT session_id FROM interaction_tokens") == []


async def test_the_repair_sweep_takes_an_interaction_game_only_while_it_has_a_live_token(
    service: SessionService, db: Database, clock: ManualClock
) -> None:
    """Without a live token nothing can show a game reached through interactions: the sweep
    leaves it to its next press, which keeps a token (then any process repairs it)."""
    store = PublicationStore(db)
    tokens = InteractionTokens(db, clock)
    member = await friends_game(service, reach="member")
    friends = await friends_game(service)
    now = clock.now()
    claim = {"lease_seconds": 60.0, "limit": 10, "settled_before": now}
    assert await store.claim_stale(owner="one", now=now, **claim) == [(member.id, 0)]
    assert await tokens.keep(friends.id, "token", now)
    assert await store.claim_stale(owner="two", now=now, **claim) == [(friends.id, 0)]
    clock.advance(USABLE_FOR)
    later = clock.now()
    claim["settled_before"] = later
    assert await store.claim_stale(owner="three", now=later, **claim) == [(member.id, 0)]


def test_the_log_never_shows_an_interaction_token() -> None:
    """discord.py logs its requests' URLs at DEBUG: an interaction's token in one (its
    callback, a follow-up, an edit through it) is redacted like the bot's own token."""
    token = "aW50ZXJhY3Rpb24.OVCKWgooLpzIMI3FMvPrHgeFbdqFpooHnvu6ok6OmZJXh53t6Y9SyLjL98UCgrOu"
    stream = io.StringIO()
    handler = RedactingHandler("bot-token", stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger("tests.foundation.interaction_tokens")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.debug("PATCH https://discord.com/api/v10/webhooks/123/%s/messages/456 -> 200", token)
    logger.debug("POST /api/v10/interactions/789/%s/callback has returned 204", token)
    written = stream.getvalue()
    assert token not in written
    assert "/webhooks/123/[token]/messages/456" in written
    assert "/interactions/789/[token]/callback" in written
