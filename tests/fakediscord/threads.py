"""Threads: starting one (from a message or without), changing, joining and deleting one,
answered the way Discord answers (``rest.py`` routes here; sends, edits and interactions in
a thread are the channel endpoints', with the thread's rules added there).

What Discord checks, and the fake with it:

- a thread lives in a guild text channel: starting one in a DM or in a thread is 400 / 50024;
- starting one needs Create Public Threads (Create Private Threads for a private one) in
  the parent, else 403 / 50013; a message has at most one thread: 400 / 160004;
- a thread's permissions are its parent's (it has no overwrites); a private thread is
  invisible (403 / 50001) to who is not in it unless they may Manage Threads;
- sending in a thread needs Send Messages in Threads, not Send Messages; sending in an
  archived thread unarchives it unless it is locked and the sender may not Manage Threads
  (400 / 50083); editing, deleting or reacting in an archived thread is 400 / 50083;
- changing a thread: its owner may rename, archive or unarchive it and set its archive
  duration; anyone who may send in it may unarchive it; locking, slow mode, unarchiving a
  locked thread and anything else on someone else's thread need Manage Threads; an
  archived thread takes no change but being unarchived (400 / 50083);
- joining or adding a member to an archived thread is 400 / 50083 (membership changes
  send no THREAD_MEMBERS_UPDATE here: not modelled).

The bot hears THREAD_CREATE (``newly_created``), THREAD_UPDATE and THREAD_DELETE with the
guilds intent, and a channel's CHANNEL_DELETE drops its threads (discord.py does the same).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from aiohttp import web

from .errors import (
    INVALID_CHANNEL_TYPE,
    MISSING_PERMISSIONS,
    THREAD_ALREADY_CREATED,
    THREAD_ARCHIVED,
    UNKNOWN_MEMBER,
    DiscordError,
    not_found,
)
from .models import (
    MANAGE_THREADS,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    FakeChannel,
    FakeMessage,
    FakeThread,
)
from .wire import json_response as _json
from .wire import no_content as _no_content

if TYPE_CHECKING:
    from .rest import RestApi

CREATE_PUBLIC_THREADS = discord.Permissions(create_public_threads=True).value
CREATE_PRIVATE_THREADS = discord.Permissions(create_private_threads=True).value
SEND_MESSAGES_IN_THREADS = discord.Permissions(send_messages_in_threads=True).value
MANAGE_CHANNELS = discord.Permissions(manage_channels=True).value
# A parent channel's default (discord.py sends it when the channel names none).
DEFAULT_AUTO_ARCHIVE_MINUTES = 1440
ANNOUNCEMENT_THREAD = 10
THREAD_CREATED_MESSAGE = 18
# What a thread's owner may change without Manage Threads.
OWNER_MAY_CHANGE = frozenset({"name", "archived", "auto_archive_duration"})


def thread_archived() -> DiscordError:
    return DiscordError(400, THREAD_ARCHIVED, "Thread is archived")


def wrong_channel_type() -> DiscordError:
    return DiscordError(400, INVALID_CHANNEL_TYPE, "Cannot execute action on this channel type")


def may_unarchive(thread: FakeThread, permissions: int) -> bool:
    """Whether a message from someone with ``permissions`` unarchives the thread (a locked
    one only for who may Manage Threads)."""
    return not thread.locked or bool(permissions & MANAGE_THREADS)


class ThreadRoutes:
    def __init__(self, rest: RestApi) -> None:
        self.rest = rest
        self.fake = rest.fake

    def _permissions(self, channel: FakeChannel) -> int:
        return channel.bot_permissions().value

    def _require(self, channel: FakeChannel, permissions: int) -> None:
        if self._permissions(channel) & permissions != permissions:
            raise DiscordError(403, MISSING_PERMISSIONS, "Missing Permissions")

    def _parent(self, request: web.Request) -> FakeChannel:
        channel = self.rest._channel(request)
        if channel.guild is None or channel.is_thread:
            raise wrong_channel_type()
        return channel

    def _thread(self, request: web.Request) -> FakeThread:
        channel = self.rest._channel(request)
        if not isinstance(channel, FakeThread):
            # Only a thread's own fields are modelled; other channel edits are not yet.
            raise web.HTTPNotFound()
        return channel

    # -- starting one ---------------------------------------------------------------------

    async def from_message(self, request: web.Request) -> web.Response:
        parent = self._parent(request)
        message = self.rest._channel_message(request, parent)
        self._require(parent, CREATE_PUBLIC_THREADS)
        if message.thread is not None and not message.thread.deleted:
            raise DiscordError(
                400, THREAD_ALREADY_CREATED, "A thread has already been created for this message"
            )
        payload = self.rest.payload_of(request)
        thread = await self.start(
            parent,
            payload,
            thread_type=PUBLIC_THREAD,
            thread_id=message.id,
            starter=message,
        )
        return _json(thread.payload(), 201)

    async def without_message(self, request: web.Request) -> web.Response:
        parent = self._parent(request)
        payload = self.rest.payload_of(request)
        # Discord's default for a thread without a message is a private one.
        kind = payload.get("type")
        thread_type = PRIVATE_THREAD if kind is None else int(kind)
        if thread_type == ANNOUNCEMENT_THREAD:
            # Announcement threads live in announcement channels, which the fake has not.
            raise wrong_channel_type()
        needed = CREATE_PUBLIC_THREADS if thread_type == PUBLIC_THREAD else CREATE_PRIVATE_THREADS
        self._require(parent, needed)
        thread = await self.start(
            parent, payload, thread_type=thread_type, thread_id=self.fake.snowflakes.next()
        )
        if thread_type == PUBLIC_THREAD:
            await self._announce(parent, thread)
        return _json(thread.payload(), 201)

    async def start(
        self,
        parent: FakeChannel,
        payload: dict[str, Any],
        *,
        thread_type: int,
        thread_id: int,
        starter: FakeMessage | None = None,
    ) -> FakeThread:
        """A new thread in ``parent`` owned by the bot (its first member); THREAD_CREATE."""
        guild = parent.guild
        assert guild is not None
        now = self.fake.now()
        duration = payload.get("auto_archive_duration")
        invitable = payload.get("invitable")
        thread = FakeThread(
            self.fake,
            thread_id,
            str(payload["name"]),
            guild=guild,
            parent=parent,
            thread_type=thread_type,
            owner_id=self.fake.bot_user.id,
            created_at=now,
            archive_timestamp=now,
            last_activity=now,
            auto_archive_duration=DEFAULT_AUTO_ARCHIVE_MINUTES if duration is None else duration,
            rate_limit_per_user=int(payload.get("rate_limit_per_user") or 0),
            invitable=True if invitable is None else bool(invitable),
            starter_message=starter,
        )
        thread.join(self.fake.bot_user.id)
        guild.threads[thread.id] = thread
        self.fake.channels[thread.id] = thread
        if starter is not None:
            starter.thread = thread
        data = {**thread.payload(), "newly_created": True}
        if self.fake.check_answers:
            self.fake.check_event("THREAD_CREATE", data)
        await self.fake.gateway.dispatch_guild_event(guild.id, "THREAD_CREATE", data)
        return thread

    async def _announce(self, parent: FakeChannel, thread: FakeThread) -> None:
        """The "started a thread" system message Discord posts in the parent for a public
        thread started without a message."""
        assert parent.guild is not None
        message = self.fake.new_message(
            parent, self.fake.bot_user, message_type=THREAD_CREATED_MESSAGE
        )
        message.content = thread.name
        message.reference = {
            "type": 0,
            "channel_id": str(thread.id),
            "guild_id": str(parent.guild.id),
        }
        await self.fake.store_message(message)

    # -- changing and deleting one --------------------------------------------------------

    async def modify(self, request: web.Request) -> web.Response:
        thread = self._thread(request)
        payload = self.rest.payload_of(request)
        changes = {k: v for k, v in payload.items() if v is not None}
        unarchiving = changes.get("archived") is False
        if thread.archived and not unarchiving:
            raise thread_archived()
        permissions = self._permissions(thread)
        owner = thread.owner_id == self.fake.bot_user.id
        if owner:
            free = OWNER_MAY_CHANGE
        else:
            free = frozenset({"archived"}) if unarchiving else frozenset()
        needs_manage = bool(set(changes) - free) or (unarchiving and thread.locked)
        if needs_manage and not permissions & MANAGE_THREADS:
            raise DiscordError(403, MISSING_PERMISSIONS, "Missing Permissions")
        if unarchiving and not permissions & SEND_MESSAGES_IN_THREADS:
            raise DiscordError(403, MISSING_PERMISSIONS, "Missing Permissions")
        if "name" in changes:
            thread.name = str(changes["name"])
        if "auto_archive_duration" in changes:
            thread.auto_archive_duration = int(changes["auto_archive_duration"])
        if "rate_limit_per_user" in changes:
            thread.rate_limit_per_user = int(changes["rate_limit_per_user"])
        if "invitable" in changes and thread.private:
            thread.invitable = bool(changes["invitable"])
        archived = bool(changes.get("archived", thread.archived))
        locked = bool(changes.get("locked", thread.locked))
        if archived != thread.archived:
            thread.archive_timestamp = self.fake.now()
        thread.archived, thread.locked = archived, locked
        await thread.updated()
        return _json(thread.payload())

    async def delete(self, request: web.Request) -> web.Response:
        channel = self.rest._channel(request)
        guild = channel.guild
        if guild is None:
            # Closing a DM: not modelled.
            raise web.HTTPNotFound()
        self._require(channel, MANAGE_THREADS if channel.is_thread else MANAGE_CHANNELS)
        data = channel.payload()
        await guild.delete_channel(channel)
        return _json(data)

    # -- members --------------------------------------------------------------------------

    async def join(self, request: web.Request) -> web.StreamResponse:
        thread = self._thread_for_members(request)
        if thread.archived:
            raise thread_archived()
        thread.join(self.fake.bot_user.id)
        self.fake.notify()
        return _no_content()

    async def leave(self, request: web.Request) -> web.StreamResponse:
        thread = self._thread_for_members(request)
        if thread.archived:
            raise thread_archived()
        thread.thread_members.pop(self.fake.bot_user.id, None)
        self.fake.notify()
        return _no_content()

    async def add_member(self, request: web.Request) -> web.StreamResponse:
        thread = self._thread_for_members(request)
        if thread.archived:
            raise thread_archived()
        self._require(thread, SEND_MESSAGES_IN_THREADS)
        assert thread.guild is not None
        user_id = _int(request.match_info["user_id"])
        if user_id not in thread.guild.members:
            raise not_found(UNKNOWN_MEMBER, "Member")
        thread.join(user_id)
        self.fake.notify()
        return _no_content()

    async def remove_member(self, request: web.Request) -> web.StreamResponse:
        thread = self._thread_for_members(request)
        if thread.archived:
            raise thread_archived()
        owner_of_private = thread.private and thread.owner_id == self.fake.bot_user.id
        if not owner_of_private:
            self._require(thread, MANAGE_THREADS)
        thread.thread_members.pop(_int(request.match_info["user_id"]), None)
        self.fake.notify()
        return _no_content()

    def _thread_for_members(self, request: web.Request) -> FakeThread:
        channel = self.rest._channel(request)
        if not isinstance(channel, FakeThread):
            raise wrong_channel_type()
        return channel


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        return -1
