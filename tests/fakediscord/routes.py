"""Route templates of the REST endpoints a bot uses, as ``RequestRecord.route`` spells them:
for ``fake.fail``, ``fake.drop``, ``fake.hold``, ``fake.rate_limit`` and ``requests_to``."""

from __future__ import annotations

# Interaction answers and the interaction token's webhook.
CALLBACK = "/interactions/{interaction_id}/{token}/callback"
FOLLOWUP = "/webhooks/{application_id}/{token}"
WEBHOOK_MESSAGE = "/webhooks/{application_id}/{token}/messages/{message_id}"

# Channel endpoints (bot token): sends and DMs, edits and deletes.
CHANNEL = "/channels/{channel_id}"
CHANNEL_MESSAGES = "/channels/{channel_id}/messages"
MESSAGE = "/channels/{channel_id}/messages/{message_id}"
REACTION = "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me"
TYPING = "/channels/{channel_id}/typing"
# Opening a DM channel with a user (before the first DM to them).
DM_CHANNELS = "/users/@me/channels"
# Threads: started from a message, started without one; joining and adding members.
THREAD_FROM_MESSAGE = "/channels/{channel_id}/messages/{message_id}/threads"
THREADS = "/channels/{channel_id}/threads"
THREAD_MEMBER = "/channels/{channel_id}/thread-members/{user_id}"
THREAD_ME = "/channels/{channel_id}/thread-members/@me"

# Any route: for a rule that should match every request (narrow it with ``when=``).
ANY = "*"

# What a bot does while it plays (chaos injects faults only here: never into log-in, the
# gateway URL or the command sync, which would test the fake rather than the bot).
GAMEPLAY: frozenset[tuple[str, str]] = frozenset(
    {
        ("POST", CALLBACK),
        ("POST", FOLLOWUP),
        ("PATCH", WEBHOOK_MESSAGE),
        ("DELETE", WEBHOOK_MESSAGE),
        ("POST", CHANNEL_MESSAGES),
        ("PATCH", MESSAGE),
        ("DELETE", MESSAGE),
        ("PUT", REACTION),
        ("DELETE", REACTION),
        ("POST", DM_CHANNELS),
        ("POST", THREAD_FROM_MESSAGE),
        ("POST", THREADS),
    }
)
