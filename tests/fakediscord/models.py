"""What the fake Discord holds: users, guilds, channels and messages, and their JSON shapes."""

from __future__ import annotations

import itertools
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import discord

from .errors import FakeUsageError

if TYPE_CHECKING:
    from .interactions import FakeInteraction
    from .server import FakeDiscord

ALL_PERMISSIONS = discord.Permissions.all().value
ADMINISTRATOR = discord.Permissions(administrator=True).value
VIEW_CHANNEL = discord.Permissions(view_channel=True).value
MANAGE_MESSAGES = discord.Permissions(manage_messages=True).value
MANAGE_THREADS = discord.Permissions(manage_threads=True).value

# Channel types (Discord API).
GUILD_TEXT = 0
DM = 1
GROUP_DM = 3
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12

# What @everyone may do in a new server (the parts that matter to a text bot).
DEFAULT_EVERYONE_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    add_reactions=True,
    use_external_emojis=True,
    use_application_commands=True,
    create_instant_invite=True,
    change_nickname=True,
    # On for @everyone in a new server: members may use the apps they installed themselves.
    use_external_apps=True,
)

# Interaction contexts (Interactions reference, "Interaction Context Types").
GUILD_CONTEXT = 0
BOT_DM_CONTEXT = 1
PRIVATE_CHANNEL_CONTEXT = 2

# What Discord gives an app in a DM or group DM between users (``app_permissions``;
# Interactions reference, the Interaction Structure's note on it).
PRIVATE_CHANNEL_APP_PERMISSIONS = discord.Permissions(
    attach_files=True, embed_links=True, mention_everyone=True
)
# Always in ``app_permissions`` where the app has no bot (discord-api-docs issue 5316).
APP_ALWAYS_PERMISSIONS = discord.Permissions(attach_files=True, embed_links=True)

# What the bot's own role gets from its invite link.
DEFAULT_BOT_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    add_reactions=True,
    use_external_emojis=True,
)

# A user mention in message content, as Discord parses it.
USER_MENTION = re.compile(r"<@!?(\d{15,25})>")

EPHEMERAL_FLAG = 1 << 6
LOADING_FLAG = 1 << 7
COMPONENTS_V2_FLAG = 1 << 15

# Component types (Discord API).
ACTION_ROW = 1
BUTTON = 2
STRING_SELECT = 3
TEXT_INPUT = 4
USER_SELECT = 5
ROLE_SELECT = 6
MENTIONABLE_SELECT = 7
CHANNEL_SELECT = 8
SECTION = 9
TEXT_DISPLAY = 10
CONTAINER = 17
LABEL = 18
SELECT_TYPES = frozenset(
    {STRING_SELECT, USER_SELECT, ROLE_SELECT, MENTIONABLE_SELECT, CHANNEL_SELECT}
)
LINK_BUTTON_STYLE = 5
PREMIUM_BUTTON_STYLE = 6


def iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=UTC).isoformat()


def as_permission_value(permissions: discord.Permissions | int | None) -> int:
    if permissions is None:
        return 0
    if isinstance(permissions, discord.Permissions):
        return permissions.value
    return int(permissions)


@dataclass(eq=False)
class FakeUser:
    """A Discord account: a player, or the bot itself."""

    id: int
    name: str
    bot: bool = False
    dms_open: bool = True
    # The language of the user's Discord client (an interaction's ``locale``).
    locale: str = "en-US"
    # The user installed the app to their account (``player.install_app()``).
    app_installed: bool = False

    def payload(self) -> dict[str, Any]:
        """A user object as Discord sends it (message authors, members, interactions): the
        unset profile fields are null, ``bot`` is there for bots only."""
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.name,
            "global_name": None if self.bot else self.name.title(),
            "discriminator": "0",
            "avatar": None,
            "avatar_decoration_data": None,
            "banner": None,
            "accent_color": None,
            "public_flags": 0,
            "flags": 0,
            "collectibles": None,
            "primary_guild": None,
        }
        if self.bot:
            data["bot"] = True
        return data

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def __repr__(self) -> str:
        return f"<FakeUser {self.name} {self.id}>"


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }


@dataclass
class Overwrite:
    """A channel permission overwrite: ``kind`` 0 is a role, 1 a member."""

    target_id: int
    kind: int
    allow: int = 0
    deny: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.target_id),
            "type": self.kind,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild: FakeGuild
    role_ids: list[int]
    joined_at: float
    # The server nickname: what the bot sees as the member's display name when set.
    nick: str | None = None

    def payload(self, *, with_user: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(role_id) for role_id in self.role_ids],
            "joined_at": iso(self.joined_at),
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        return data


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    content: bytes
    content_type: str
    url: str
    description: str | None = None
    width: int | None = None
    height: int | None = None

    @property
    def size(self) -> int:
        return len(self.content)

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            data["description"] = self.description
        if self.width is not None:
            data["width"] = self.width
            data["height"] = self.height
        return data


def png_size(content: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG header, as Discord reports them for images."""
    if content[:8] != b"\x89PNG\r\n\x1a\n" or len(content) < 24:
        return None
    width, height = struct.unpack(">II", content[16:24])
    return width, height


def walk_components(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every component in a (possibly nested, Components V2) component tree."""
    for component in components:
        yield component
        children = list(component.get("components") or [])
        for key in ("accessory", "component"):
            child = component.get(key)
            if isinstance(child, dict):
                children.append(child)
        yield from walk_components(children)


def emoji_shape(emoji: dict[str, Any]) -> dict[str, Any]:
    """A component's emoji as Discord answers it: a Unicode emoji is its ``name`` alone (no
    ``id`` key), a custom one has its ``id`` as a string and ``animated``."""
    if emoji.get("id") is None:
        return {"name": emoji.get("name")}
    return {
        "id": str(emoji["id"]),
        "name": emoji.get("name"),
        "animated": bool(emoji.get("animated", False)),
    }


def _component_shape(component: dict[str, Any]) -> dict[str, Any]:
    out = dict(component)
    if isinstance(out.get("emoji"), dict):
        out["emoji"] = emoji_shape(out["emoji"])
    if out.get("type") in SELECT_TYPES:
        # Discord fills in the bounds a body left out.
        out.setdefault("min_values", 1)
        out.setdefault("max_values", 1)
    if isinstance(out.get("options"), list):
        out["options"] = [
            {**o, "emoji": emoji_shape(o["emoji"])} if isinstance(o.get("emoji"), dict) else o
            for o in out["options"]
        ]
    if isinstance(out.get("components"), list):
        out["components"] = components_shape(out["components"])
    for key in ("accessory", "component"):
        if isinstance(out.get(key), dict):
            out[key] = _component_shape(out[key])
    return out


def components_shape(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A message's components as Discord answers them (the stored tree is left as sent).
    Every component has its numeric ``id``: one a test put on a message by hand gets the
    number Discord would give it (1, 2, ... in tree order, skipping those taken)."""
    shaped = [_component_shape(component) for component in components]
    taken = {c["id"] for c in walk_components(shaped) if isinstance(c.get("id"), int)}
    number = 0
    for component in walk_components(shaped):
        if not isinstance(component.get("id"), int):
            number += 1
            while number in taken:
                number += 1
            component["id"] = number
    return shaped


def component_text(components: list[dict[str, Any]]) -> list[str]:
    texts: list[str] = []
    for component in walk_components(components):
        if component.get("type") == TEXT_DISPLAY and component.get("content"):
            texts.append(str(component["content"]))
    return texts


@dataclass(frozen=True)
class MessageVersion:
    """One version of a message as players saw it: the creation, then each edit."""

    # 0 for the message as created, then 1, 2, ... for each edit.
    number: int
    # The fake's clock when it landed.
    at: float
    # Order across all messages of the fake (a later version has a larger one).
    sequence: int
    text: str
    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    attachments: tuple[str, ...]
    flags: int
    # The attachments' alt texts (``description``), in the same order.
    alt_texts: tuple[str | None, ...] = ()

    def custom_ids(self) -> list[str]:
        return [str(c["custom_id"]) for c in walk_components(self.components) if c.get("custom_id")]


_version_sequence = itertools.count(1)


@dataclass(eq=False)
class FakeMessage:
    """A message as the fake holds it. One object per message id, edited in place, so a
    test holding it always sees the current state (``deleted`` tells when it is gone)."""

    id: int
    channel: FakeChannel
    author: FakeUser
    timestamp: float
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    edited_timestamp: float | None = None
    # Set for messages created through an interaction (responses and follow-ups).
    interaction: FakeInteraction | None = None
    # The id of the user who alone can see it, for an ephemeral message.
    visible_to: int | None = None
    deleted: bool = False
    # Who deleted it, when someone other than the bot did (``fake.delete_message``).
    deleted_by: int | None = None
    edit_count: int = 0
    reactions: dict[str, set[int]] = field(default_factory=dict)
    # Every version that landed, oldest first (the creation, then each edit).
    history: list[MessageVersion] = field(default_factory=list)
    # The thread started from this message (it has the message's id), once there is one.
    thread: FakeThread | None = None
    # Discord's ``message_reference`` (a "started a thread" system message points at it).
    reference: dict[str, Any] | None = None
    # The ids of the users Discord notified of this message: those its content mentions,
    # as its ``allowed_mentions`` let through, who can see the channel. Set when it is
    # sent (or a deferred answer is filled in): an edit notifies nobody.
    pinged: frozenset[int] = frozenset()
    # The ``allowed_mentions`` of the body that sent it (or last edited it).
    allowed_mentions: Any = None

    def notify_mentions(self) -> None:
        """Who this message pings now that it is sent: each user its content mentions
        (``<@id>``, ``<@!id>``) who can see the channel, as its ``allowed_mentions``
        (absent: every mention pings) lets through. Nobody for an ephemeral message.
        Roles and @everyone are not modelled."""
        allowed = self.allowed_mentions
        if self.visible_to is not None:
            self.pinged = frozenset()
            return
        mentioned = {int(found) for found in USER_MENTION.findall(self.content)}
        if isinstance(allowed, dict) and "users" not in (allowed.get("parse") or []):
            mentioned &= {int(user_id) for user_id in allowed.get("users") or []}
        self.pinged = frozenset(u for u in mentioned if self.channel.can_see(u))

    def keep_version(self, at: float) -> None:
        # The lists are replaced, never changed in place, on every edit: no copy needed.
        self.history.append(
            MessageVersion(
                number=len(self.history),
                at=at,
                sequence=next(_version_sequence),
                text=self.text(),
                content=self.content,
                embeds=self.embeds,
                components=self.components,
                attachments=tuple(a.filename for a in self.attachments),
                flags=self.flags,
                alt_texts=tuple(a.description for a in self.attachments),
            )
        )

    # -- what a test asks ---------------------------------------------------------------

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL_FLAG)

    @property
    def loading(self) -> bool:
        """A deferred response still showing "Bot is thinking…"."""
        return bool(self.flags & LOADING_FLAG)

    @property
    def embed(self) -> dict[str, Any] | None:
        return self.embeds[0] if self.embeds else None

    def text(self) -> str:
        """Everything a player reads on the message: content, embed texts, text displays."""
        parts = [self.content] if self.content else []
        for embed in self.embeds:
            for key in ("title", "description"):
                if embed.get(key):
                    parts.append(str(embed[key]))
            for embed_field in embed.get("fields") or []:
                parts.append(f"{embed_field.get('name', '')}: {embed_field.get('value', '')}")
            if (embed.get("footer") or {}).get("text"):
                parts.append(str(embed["footer"]["text"]))
            if (embed.get("author") or {}).get("name"):
                parts.append(str(embed["author"]["name"]))
        parts.extend(component_text(self.components))
        return "\n".join(parts)

    def all_components(self) -> list[dict[str, Any]]:
        return list(walk_components(self.components))

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in walk_components(self.components) if c.get("type") == BUTTON]

    def selects(self) -> list[dict[str, Any]]:
        return [c for c in walk_components(self.components) if c.get("type") in SELECT_TYPES]

    def labels(self) -> list[str]:
        """The labels of the buttons, in order (handy in asserts)."""
        return [str(b.get("label") or b.get("custom_id") or "") for b in self.buttons()]

    def custom_ids(self) -> list[str]:
        return [str(c["custom_id"]) for c in walk_components(self.components) if c.get("custom_id")]

    def attachment(self, filename: str) -> FakeAttachment:
        for attachment in self.attachments:
            if attachment.filename == filename:
                return attachment
        names = [a.filename for a in self.attachments]
        raise KeyError(f"message {self.id} has no attachment {filename!r} (it has {names})")

    # -- wire ---------------------------------------------------------------------------

    def payload(self, *, with_guild: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": iso(self.timestamp),
            "edited_timestamp": None
            if self.edited_timestamp is None
            else iso(self.edited_timestamp),
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": components_shape(self.components),
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
            "reactions": [
                {
                    "emoji": {"id": None, "name": emoji},
                    "count": len(users),
                    "me": self.channel.fake.bot_user.id in users,
                    "count_details": {"burst": 0, "normal": len(users)},
                    "me_burst": False,
                    "burst_colors": [],
                }
                for emoji, users in self.reactions.items()
                if users
            ],
        }
        if self.interaction is not None:
            data["webhook_id"] = str(self.interaction.application_id)
            data["application_id"] = str(self.interaction.application_id)
            data["interaction_metadata"] = self.interaction.metadata(self)
            legacy = self.interaction.legacy_object()
            if legacy is not None:
                data["interaction"] = legacy
        if self.thread is not None and not self.thread.deleted:
            data["thread"] = self.thread.payload()
        if self.reference is not None:
            data["message_reference"] = self.reference
        if with_guild and self.channel.guild is not None:
            data["guild_id"] = str(self.channel.guild.id)
        return data

    def __repr__(self) -> str:
        kind = "ephemeral " if self.ephemeral else ""
        return f"<FakeMessage {kind}{self.id} in #{self.channel.name} {self.text()[:60]!r}>"


def _seen_by(message: FakeMessage, viewer: Any) -> bool:
    """Whether ``viewer`` (a Player or user; None: anyone) sees ``message`` in its channel:
    not deleted, and public or an ephemeral shown to them."""
    viewer_id = None if viewer is None else viewer.id
    return not message.deleted and message.visible_to in (None, viewer_id)


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel; a DM channel with the bot (``guild`` is None, ``recipient``
    is set); or a private channel between users, where the bot is no member: a DM between
    two users or a group DM (``guild`` and ``recipient`` None, ``recipients`` set;
    ``fake.dm_between``, ``fake.group_dm``)."""

    fake: FakeDiscord
    id: int
    name: str
    guild: FakeGuild | None = None
    recipient: FakeUser | None = None
    overwrites: dict[int, Overwrite] = field(default_factory=dict)
    position: int = 0
    # Every message ever created here, ephemeral ones included, in creation order.
    all_messages: dict[int, FakeMessage] = field(default_factory=dict)
    # A private channel's users (the bot is never one of them).
    recipients: list[FakeUser] = field(default_factory=list)
    # A group DM (type 3) rather than a DM between two users (type 1).
    group: bool = False
    owner_id: int = 0

    @property
    def is_dm(self) -> bool:
        return self.guild is None

    @property
    def is_private_channel(self) -> bool:
        """A DM or group DM between users: only a user-installed command reaches it."""
        return self.guild is None and self.recipient is None

    @property
    def bot_is_member(self) -> bool:
        """The bot is in this channel: a channel of a server that added it, or its own DM
        with a user. Elsewhere it reaches the channel through interactions only, and every
        channel route there is answered 403 / 50001."""
        if self.guild is not None:
            return self.guild.has_bot
        return self.recipient is not None

    @property
    def context(self) -> int:
        """The interaction context Discord gives an interaction here."""
        if self.guild is not None:
            return GUILD_CONTEXT
        return BOT_DM_CONTEXT if self.recipient is not None else PRIVATE_CHANNEL_CONTEXT

    def can_see(self, user_id: int) -> bool:
        """The user sees this channel: a member who may view it, or one of a DM's users."""
        if self.guild is None:
            return self.has_user(user_id)
        if user_id not in self.guild.members:
            return False
        return bool(self.guild.permissions_of(user_id, self) & VIEW_CHANNEL)

    def has_user(self, user_id: int) -> bool:
        """A user who can see this DM channel: its recipient, or one of a private
        channel's users."""
        if self.recipient is not None:
            return self.recipient.id == user_id
        return any(u.id == user_id for u in self.recipients)

    @property
    def is_thread(self) -> bool:
        return False

    @property
    def type(self) -> int:
        if not self.is_dm:
            return GUILD_TEXT
        return GROUP_DM if self.group else DM

    @property
    def deleted(self) -> bool:
        """A guild channel someone deleted (``guild.delete_channel``); DMs never are."""
        return self.guild is not None and self.id not in self.fake.channels

    def threads(self) -> list[FakeThread]:
        """The threads started in this channel (archived ones included), oldest first."""
        if self.guild is None:
            return []
        return [t for t in self.guild.threads.values() if t.parent is self]

    def thread(self, name: str) -> FakeThread:
        """The newest thread of that name in this channel."""
        for thread in reversed(self.threads()):
            if thread.name == name:
                return thread
        names = [t.name for t in self.threads()]
        raise KeyError(f"#{self.name} has no thread {name!r} (it has {names})")

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    # -- what a test asks ---------------------------------------------------------------

    def messages(self, viewer: Any = None) -> list[FakeMessage]:
        """The messages a user sees here, oldest first: the public ones, plus the ephemeral
        ones shown to ``viewer`` (a Player or user) when given. Deleted ones are left out."""
        return [m for m in self.all_messages.values() if _seen_by(m, viewer)]

    def last_message(self, viewer: Any = None) -> FakeMessage | None:
        """The newest of ``messages(viewer)``, found from the end: a bench's players ask
        for it on every change the fake sees, in channels that keep every message."""
        return next((m for m in reversed(self.all_messages.values()) if _seen_by(m, viewer)), None)

    def message(self, message_id: int) -> FakeMessage:
        return self.all_messages[message_id]

    def bot_permissions(self) -> discord.Permissions:
        """What the bot may do here, computed the way Discord does (nothing where it is no
        member: a private channel, a server that did not add it)."""
        if not self.bot_is_member:
            return discord.Permissions.none()
        if self.guild is None:
            return discord.Permissions(
                view_channel=True,
                send_messages=True,
                embed_links=True,
                attach_files=True,
                read_message_history=True,
                add_reactions=True,
            )
        return discord.Permissions(self.guild.permissions_of(self.fake.bot_user.id, self))

    async def set_bot_permissions(
        self,
        *,
        allow: discord.Permissions | int | None = None,
        deny: discord.Permissions | int | None = None,
    ) -> None:
        """Give the bot a member overwrite here (e.g. ``deny=Permissions(send_messages=True)``)
        and tell a connected bot with CHANNEL_UPDATE, as Discord does. With neither
        ``allow`` nor ``deny`` the overwrite is removed: the bot's role decides again."""
        bot_id = self.fake.bot_user.id
        if allow is None and deny is None:
            self.overwrites.pop(bot_id, None)
        else:
            self.overwrites[bot_id] = Overwrite(
                bot_id, 1, as_permission_value(allow), as_permission_value(deny)
            )
        await self.overwrites_changed()

    async def restore_bot_permissions(self) -> None:
        """Remove the bot's overwrite here (CHANNEL_UPDATE)."""
        await self.set_bot_permissions()

    async def overwrites_changed(self) -> None:
        if self.guild is not None:
            await self.fake.gateway.dispatch_guild_event(
                self.guild.id, "CHANNEL_UPDATE", self.payload()
            )
            self.fake.notify()

    # -- wire ---------------------------------------------------------------------------

    def app_permissions(self, user: FakeUser) -> discord.Permissions:
        """An interaction's ``app_permissions`` here, for an interaction by ``user``: the
        bot's where it is a member (in its DM with Mention Everyone and Use External
        Emojis too, as Discord documents); in a private channel what Discord gives every
        app there; in a server without the bot the user's own permissions (an app installed to
        a user acts with them: discord-api-docs issue 7251) plus Attach Files and Embed
        Links (issue 5316)."""
        if self.bot_is_member and self.guild is None:
            # The bot's DM: what Discord gives an app in any DM, and external emojis.
            dm_extra = discord.Permissions(use_external_emojis=True)
            return self.bot_permissions() | PRIVATE_CHANNEL_APP_PERMISSIONS | dm_extra
        if self.bot_is_member:
            return self.bot_permissions()
        if self.guild is None:
            return PRIVATE_CHANNEL_APP_PERMISSIONS
        own = self.guild.permissions_of(user.id, self)
        return discord.Permissions(own | APP_ALWAYS_PERMISSIONS.value)

    def payload(self) -> dict[str, Any]:
        last_id = next(reversed(self.all_messages), None)
        if self.is_private_channel:
            data: dict[str, Any] = {
                "id": str(self.id),
                "type": self.type,
                "last_message_id": None if last_id is None else str(last_id),
                "flags": 0,
                # Both users of a DM between users (discord.js pull request 11443).
                "recipients": [u.payload() for u in self.recipients],
            }
            if self.group:
                data.update({"name": self.name, "icon": None, "owner_id": str(self.owner_id)})
            return data
        if self.recipient is not None:
            return {
                "id": str(self.id),
                "type": 1,
                "recipients": [self.recipient.payload()],
                "last_message_id": None if last_id is None else str(last_id),
                "flags": 0,
            }
        assert self.guild is not None
        return {
            "id": str(self.id),
            "type": 0,
            "guild_id": str(self.guild.id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [o.payload() for o in self.overwrites.values()],
            "nsfw": False,
            "topic": None,
            "parent_id": None,
            "rate_limit_per_user": 0,
            "last_message_id": None if last_id is None else str(last_id),
            "flags": 0,
        }

    def __repr__(self) -> str:
        if self.is_private_channel:
            kind = "group DM" if self.group else "DM"
            return f"<FakeChannel {kind} {self.name!r} {self.id}>"
        return f"<FakeChannel #{self.name} {self.id}>"


@dataclass(eq=False)
class FakeThread(FakeChannel):
    """A thread (a channel of type 11, public, or 12, private) in a guild text channel, as
    Discord keeps one: its permissions are its parent's (a private one's only for its
    members and those who may Manage Threads), it has no overwrites of its own. A thread
    started from a message has that message's id."""

    parent: FakeChannel | None = None
    thread_type: int = PUBLIC_THREAD
    owner_id: int = 0
    # The fake's clock when it was created, and when its archive state last changed.
    created_at: float = 0.0
    archive_timestamp: float = 0.0
    # Minutes without a message before Discord archives it (60, 1440, 4320 or 10080).
    auto_archive_duration: int = 1440
    rate_limit_per_user: int = 0
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    # Who is in it (user id -> the fake's clock when they joined): its creator, whoever
    # sent a message in it or was added.
    thread_members: dict[int, float] = field(default_factory=dict)
    # Messages sent in it (Discord's message_count and total_message_sent).
    message_count: int = 0
    total_message_sent: int = 0
    # The fake's clock at the last message (for auto-archiving, ``fake.archive_idle_threads``).
    last_activity: float = 0.0
    # The message it was started from (None for one started without a message).
    starter_message: FakeMessage | None = None

    @property
    def is_thread(self) -> bool:
        return True

    @property
    def type(self) -> int:
        return self.thread_type

    @property
    def private(self) -> bool:
        return self.thread_type == PRIVATE_THREAD

    def members(self) -> list[int]:
        """The ids of the users in the thread, in the order they joined."""
        return list(self.thread_members)

    def join(self, user_id: int) -> None:
        self.thread_members.setdefault(user_id, self.fake.now())

    def counted(self, message: FakeMessage) -> None:
        """A public message was sent here: Discord counts it and the thread is active."""
        self.message_count += 1
        self.total_message_sent += 1
        self.last_activity = self.fake.now()

    def idle_for(self) -> float:
        """Seconds on the fake's clock since the thread's last activity."""
        return self.fake.now() - max(self.last_activity, self.archive_timestamp)

    async def archive(self, *, locked: bool = False) -> None:
        """Archive it (``locked``: only those who may Manage Threads can unarchive it), as
        a moderator or Discord's auto-archive does; THREAD_UPDATE."""
        await self.set_state(archived=True, locked=locked)

    async def unarchive(self) -> None:
        await self.set_state(archived=False, locked=False)

    async def set_state(self, *, archived: bool, locked: bool) -> None:
        if archived != self.archived:
            self.archive_timestamp = self.fake.now()
        self.archived = archived
        self.locked = locked
        await self.updated()

    async def updated(self) -> None:
        """Tell a connected bot (THREAD_UPDATE), as Discord does after every change."""
        assert self.guild is not None
        data = self.payload()
        if self.fake.check_answers:
            self.fake.check_event("THREAD_UPDATE", data)
        await self.fake.gateway.dispatch_guild_event(self.guild.id, "THREAD_UPDATE", data)
        self.fake.notify()

    async def overwrites_changed(self) -> None:
        # A thread has no overwrites: its parent's decide.
        assert self.parent is not None
        await self.parent.overwrites_changed()

    def payload(self) -> dict[str, Any]:
        assert self.guild is not None and self.parent is not None
        public = [m for m in self.all_messages.values() if m.visible_to is None]
        metadata: dict[str, Any] = {
            "archived": self.archived,
            "archive_timestamp": iso(self.archive_timestamp),
            "auto_archive_duration": self.auto_archive_duration,
            "locked": self.locked,
            "create_timestamp": iso(self.created_at),
        }
        if self.private:
            # Discord gives ``invitable`` for private threads only.
            metadata["invitable"] = self.invitable
        return {
            "id": str(self.id),
            "type": self.thread_type,
            "guild_id": str(self.guild.id),
            "parent_id": str(self.parent.id),
            "owner_id": str(self.owner_id),
            "name": self.name,
            "last_message_id": str(public[-1].id) if public else None,
            "rate_limit_per_user": self.rate_limit_per_user,
            "flags": 0,
            "message_count": self.message_count,
            # Discord stops counting at 50.
            "member_count": min(len(self.thread_members), 50),
            "total_message_sent": self.total_message_sent,
            "thread_metadata": metadata,
        }

    def __repr__(self) -> str:
        parent = "?" if self.parent is None else self.parent.name
        return f"<FakeThread #{parent} > {self.name!r} {self.id}>"


@dataclass(eq=False)
class FakeGuild:
    fake: FakeDiscord
    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    # Threads, archived ones included (a deleted one is removed).
    threads: dict[int, FakeThread] = field(default_factory=dict)
    # The role that carries the bot's invite permissions.
    bot_role_id: int = 0
    # The server's language in its Discord settings (``preferred_locale``, ``guild_locale``).
    locale: str = "en-US"
    # The server added the bot (``create_guild(..., with_bot=False)``: it did not; its
    # members reach the app only through the commands they installed themselves).
    has_bot: bool = True

    # -- building ----------------------------------------------------------------------

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    @property
    def bot_role(self) -> FakeRole:
        """The role that carries the bot's invite permissions."""
        if not self.has_bot:
            raise FakeUsageError(f"{self.name!r} did not add the bot: it has no bot role")
        return self.roles[self.bot_role_id]

    async def set_role_permissions(
        self, role: FakeRole, permissions: discord.Permissions | int
    ) -> None:
        """Change a role's permissions (say ``guild.bot_role``, or ``guild.everyone``) and
        tell a connected bot with GUILD_ROLE_UPDATE, as Discord does."""
        role.permissions = as_permission_value(permissions)
        await self.fake.gateway.dispatch_guild_event(
            self.id, "GUILD_ROLE_UPDATE", {"guild_id": str(self.id), "role": role.payload()}
        )
        self.fake.notify()

    async def set_bot_role_permissions(self, permissions: discord.Permissions | int) -> None:
        await self.set_role_permissions(self.bot_role, permissions)

    @property
    def default_channel(self) -> FakeChannel:
        """The first channel: where ``slash`` runs unless told otherwise."""
        return next(iter(self.channels.values()))

    def channel(self, name: str) -> FakeChannel:
        for channel in self.channels.values():
            if channel.name == name:
                return channel
        raise KeyError(f"guild {self.name!r} has no channel #{name}")

    async def add_channel(
        self,
        name: str,
        *,
        bot_allow: discord.Permissions | int | None = None,
        bot_deny: discord.Permissions | int | None = None,
    ) -> FakeChannel:
        """Add a text channel; ``bot_deny`` takes permissions from the bot there."""
        channel = FakeChannel(
            self.fake, self.fake.snowflakes.next(), name, guild=self, position=len(self.channels)
        )
        if bot_allow is not None or bot_deny is not None:
            bot_id = self.fake.bot_user.id
            channel.overwrites[bot_id] = Overwrite(
                bot_id, 1, as_permission_value(bot_allow), as_permission_value(bot_deny)
            )
        self.channels[channel.id] = channel
        self.fake.channels[channel.id] = channel
        await self.fake.gateway.dispatch_guild_event(self.id, "CHANNEL_CREATE", channel.payload())
        return channel

    async def add_member(
        self,
        name: str,
        *,
        dms_open: bool = True,
        permissions: discord.Permissions | int | None = None,
        nick: str | None = None,
    ) -> Any:
        """Add a member and return their Player. ``permissions`` are granted on top of
        @everyone's (e.g. ``discord.Permissions(manage_guild=True)`` for an admin);
        ``nick`` is their server nickname (their display name to the bot)."""
        return await self.fake.add_member(
            self, name, dms_open=dms_open, permissions=permissions, nick=nick
        )

    def thread(self, name: str) -> FakeThread:
        """The newest thread of that name in any channel."""
        for thread in reversed(self.threads.values()):
            if thread.name == name:
                return thread
        names = [t.name for t in self.threads.values()]
        raise KeyError(f"guild {self.name!r} has no thread {name!r} (it has {names})")

    async def delete_channel(self, channel: FakeChannel) -> None:
        """Someone deletes a channel or a thread. A channel takes its threads with it:
        Discord sends CHANNEL_DELETE alone (discord.py drops the channel's threads itself),
        a thread THREAD_DELETE. Later requests there get 404 / 10003."""
        if channel.guild is not self or channel.deleted:
            raise FakeUsageError(f"{channel!r} is not a channel of {self.name!r}")
        if isinstance(channel, FakeThread):
            await self.fake.thread_deleted(channel)
            return
        del self.channels[channel.id]
        del self.fake.channels[channel.id]
        for thread in channel.threads():
            self.threads.pop(thread.id, None)
            self.fake.channels.pop(thread.id, None)
        await self.fake.gateway.dispatch_guild_event(self.id, "CHANNEL_DELETE", channel.payload())
        self.fake.notify()

    # -- permissions --------------------------------------------------------------------

    def permissions_of(self, user_id: int, channel: FakeChannel | None = None) -> int:
        """Discord's permission algorithm: base from roles, then channel overwrites. In a
        thread, its parent's; a private thread is invisible to who is not in it, unless
        they may Manage Threads."""
        if isinstance(channel, FakeThread):
            assert channel.parent is not None
            value = self.permissions_of(user_id, channel.parent)
            if (
                channel.private
                and user_id not in channel.thread_members
                and not value & MANAGE_THREADS
            ):
                return 0
            return value
        if user_id == self.fake.bot_user.id and not self.has_bot:
            return 0
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.members.get(user_id)
        role_ids = [] if member is None else member.role_ids
        value = self.everyone.permissions
        for role_id in role_ids:
            role = self.roles.get(role_id)
            if role is not None:
                value |= role.permissions
        if value & ADMINISTRATOR:
            return ALL_PERMISSIONS
        if channel is None:
            return value
        everyone_overwrite = channel.overwrites.get(self.id)
        if everyone_overwrite is not None:
            value = (value & ~everyone_overwrite.deny) | everyone_overwrite.allow
        allow = deny = 0
        for role_id in role_ids:
            overwrite = channel.overwrites.get(role_id)
            if overwrite is not None and overwrite.kind == 0:
                allow |= overwrite.allow
                deny |= overwrite.deny
        value = (value & ~deny) | allow
        member_overwrite = channel.overwrites.get(user_id)
        if member_overwrite is not None and member_overwrite.kind == 1:
            value = (value & ~member_overwrite.deny) | member_overwrite.allow
        if not value & VIEW_CHANNEL:
            return 0
        return value

    # -- wire ---------------------------------------------------------------------------

    def payload(self, *, with_all_members: bool, joining: bool = False) -> dict[str, Any]:
        """GUILD_CREATE. Without the members intent Discord sends only the bot's member.
        ``joining``: the bot was just added, and Discord leaves ``unavailable`` out (a
        guild coming back after READY says ``unavailable: false``), which is how
        discord.py tells ``on_guild_join`` from ``on_guild_available``."""
        bot_id = self.fake.bot_user.id
        members = [
            m.payload() for m in self.members.values() if with_all_members or m.user.id == bot_id
        ]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "home_header": None,
            "owner_id": str(self.owner_id),
            # What Discord answers since voice regions moved to channels.
            "region": "deprecated",
            "afk_channel_id": None,
            "afk_timeout": 300,
            "widget_enabled": False,
            "widget_channel_id": None,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw": False,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": self.locale,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "max_presences": None,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "max_stage_video_channel_users": 50,
            "vanity_url_code": None,
            "features": [],
            "incidents_data": None,
            "emojis": [],
            "stickers": [],
            "roles": [r.payload() for r in self.roles.values()],
            "channels": [c.payload() for c in self.channels.values()],
            # The active threads (discord.py caches them: ``guild.get_thread``).
            "threads": [t.payload() for t in self.threads.values() if not t.archived],
            "members": members,
            "member_count": len(self.members),
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "large": False,
            **({} if joining else {"unavailable": False}),
            "lazy": True,
            "joined_at": iso(self.fake.now()),
            "application_id": None,
        }

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name} {self.id}>"
