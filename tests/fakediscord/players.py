"""Players: the test-facing API that reads like what people do in Discord."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import mentions
from .errors import FakeUsageError
from .faults import CallbackFault
from .interactions import (
    FakeInteraction,
    FakeModal,
    InteractionOutcome,
    InteractionType,
    modal_submission,
    select_values,
    wait_for_answer,
)
from .models import (
    BUTTON,
    LINK_BUTTON_STYLE,
    PREMIUM_BUTTON_STYLE,
    SELECT_TYPES,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeUser,
    walk_components,
)

if TYPE_CHECKING:
    from .server import FakeDiscord


class Player:
    """A person in Discord. Made by ``guild.add_member(...)`` (or ``fake.add_user``).

    Every action waits for the bot's first answer and returns an
    :class:`InteractionOutcome`; the ``begin_*`` variants return the
    :class:`FakeInteraction` at once (for concurrency and benchmarks).
    """

    def __init__(self, fake: FakeDiscord, user: FakeUser, home: FakeGuild | None) -> None:
        self.fake = fake
        self.user = user
        # The guild whose first channel ``slash`` uses when no channel is given.
        self.home = home

    # -- who -----------------------------------------------------------------------------

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def name(self) -> str:
        return self.user.name

    @property
    def mention(self) -> str:
        return self.user.mention

    @property
    def dms_open(self) -> bool:
        return self.user.dms_open

    @dms_open.setter
    def dms_open(self, value: bool) -> None:
        self.user.dms_open = value

    @property
    def installed(self) -> bool:
        """They installed the app to their account (its user-installable commands follow
        them to every server, DM and group DM)."""
        return self.user.app_installed

    def install_app(self) -> None:
        """Install the app to their account, as with the app's user-install link."""
        self.user.app_installed = True

    def uninstall_app(self) -> None:
        self.user.app_installed = False

    # -- what they see -------------------------------------------------------------------

    def reads(self, message: FakeMessage) -> str:
        """The message's text as this player's client shows it: each command mention as
        the clickable ``/name sub`` in their client's language (``mentions.as_seen``)."""
        guild = message.channel.guild
        return mentions.as_seen(
            self.fake.commands,
            message.text(),
            guild.id if guild is not None else None,
            self.user.locale,
        )

    @property
    def dm_channel(self) -> FakeChannel | None:
        """Their DM channel with the bot, once the bot opened one."""
        return self.fake.dm_channels.get(self.id)

    def open_dm(self) -> FakeChannel:
        """Open (or get) their DM channel with the bot, as a user does to DM the bot; pass
        it as ``channel=`` to use a command in DMs."""
        return self.fake.dm_channel_for(self.user)

    def dms(self) -> list[FakeMessage]:
        """The messages in their DM channel with the bot, oldest first."""
        channel = self.dm_channel
        return [] if channel is None else channel.messages(self)

    def last_dm(self) -> FakeMessage | None:
        channel = self.dm_channel
        return None if channel is None else channel.last_message(self)

    def ephemerals(self, channel: FakeChannel | None = None) -> list[FakeMessage]:
        """The ephemeral messages shown to this player (only they can see them)."""
        channels = [channel] if channel is not None else list(self.fake.channels.values())
        found = [
            m
            for c in channels
            for m in c.all_messages.values()
            if m.visible_to == self.id and not m.deleted
        ]
        return sorted(found, key=lambda m: m.id)

    def last_ephemeral(self) -> FakeMessage | None:
        messages = self.ephemerals()
        return messages[-1] if messages else None

    @property
    def open_modal(self) -> FakeModal | None:
        """The last modal the bot opened for this player that is not yet submitted."""
        for interaction in reversed(self.fake.interactions_by_user.get(self.id, [])):
            if interaction.modal is not None:
                return None if interaction.modal.submitted else interaction.modal
        return None

    # -- actions -------------------------------------------------------------------------

    async def slash(
        self,
        command: str,
        *,
        channel: FakeChannel | None = None,
        options: dict[str, Any] | None = None,
        force: bool = False,
        timeout: float | None = None,  # noqa: ASYNC109
        fault: CallbackFault | str | None = None,
        modified_client: bool = False,
        **values: Any,
    ) -> InteractionOutcome:
        """Run ``/command [group] [sub]`` with options, e.g.
        ``await alice.slash("knucklebones challenge", opponent=bob)``. ``options`` takes
        names that are not Python identifiers. The command, its options and their types
        come from what the bot registered; anything else fails the test clearly.
        ``fault`` makes the bot's answer fail (see CallbackFault); the outcome then says
        ``lost`` when the player saw "This interaction failed". ``modified_client`` sends
        option values outside their choices, range or length, as only a modified client
        can (the API accepts them)."""
        interaction = await self.begin_slash(
            command,
            channel=channel,
            options=options,
            force=force,
            fault=fault,
            modified_client=modified_client,
            **values,
        )
        return await wait_for_answer(interaction, timeout or self.fake.answer_timeout)

    async def begin_slash(
        self,
        command: str,
        *,
        channel: FakeChannel | None = None,
        options: dict[str, Any] | None = None,
        force: bool = False,
        fault: CallbackFault | str | None = None,
        modified_client: bool = False,
        **values: Any,
    ) -> FakeInteraction:
        channel = channel or self._default_channel()
        guild = channel.guild
        self._check_can_use(channel)
        registered, data, owners = self.fake.commands.invocation(
            command,
            {**(options or {}), **values},
            user=self.user,
            guild=guild,
            channel=channel,
            force=force,
            modified_client=modified_client,
        )
        return await self.fake.send_interaction(
            InteractionType.APPLICATION_COMMAND,
            user=self.user,
            channel=channel,
            data=data,
            description=f"{self.name}'s /{command.strip().lstrip('/')}",
            command_name=registered.name,
            fault=fault,
            owners=owners,
        )

    async def click(
        self,
        message: FakeMessage,
        button: str | dict[str, Any],
        *,
        timeout: float | None = None,  # noqa: ASYNC109
        fault: CallbackFault | str | None = None,
    ) -> InteractionOutcome:
        """Press the button labelled ``button`` (or with that custom_id, or emoji) on the
        message as the fake holds it now. Fails if it is not there, or disabled."""
        interaction = await self.begin_click(message, button, fault=fault)
        return await wait_for_answer(interaction, timeout or self.fake.answer_timeout)

    async def begin_click(
        self,
        message: FakeMessage,
        button: str | dict[str, Any],
        *,
        fault: CallbackFault | str | None = None,
    ) -> FakeInteraction:
        message = self._visible(message)
        component = self._find(message, button, kinds={BUTTON}, what="button")
        if component.get("style") in (LINK_BUTTON_STYLE, PREMIUM_BUTTON_STYLE):
            raise FakeUsageError(
                f"{_describe(component)} is a link button: it sends no interaction"
            )
        data: dict[str, Any] = {"custom_id": component["custom_id"], "component_type": BUTTON}
        if "id" in component:
            data["id"] = component["id"]
        return await self._component_interaction(
            message, data, f"{self.name} clicking {_describe(component)}", fault
        )

    async def select(
        self,
        message: FakeMessage,
        values: Sequence[Any],
        *,
        select: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
        fault: CallbackFault | str | None = None,
    ) -> InteractionOutcome:
        """Choose ``values`` in a select menu on the message (option values or labels; for a
        user select, players). With several selects, name one by custom_id or placeholder."""
        interaction = await self.begin_select(message, values, select=select, fault=fault)
        return await wait_for_answer(interaction, timeout or self.fake.answer_timeout)

    async def begin_select(
        self,
        message: FakeMessage,
        values: Sequence[Any],
        *,
        select: str | None = None,
        fault: CallbackFault | str | None = None,
    ) -> FakeInteraction:
        message = self._visible(message)
        component = self._find(message, select, kinds=set(SELECT_TYPES), what="select menu")
        resolved: dict[str, Any] = {}
        chosen = select_values(component, list(values), resolved)
        guild = message.channel.guild
        if guild is not None:
            # A user select in a guild resolves members too, as Discord sends them.
            for user_id in resolved.get("users", {}):
                member = guild.members.get(int(user_id))
                if member is not None:
                    data_member = member.payload(with_user=False)
                    data_member["permissions"] = str(
                        guild.permissions_of(member.user.id, message.channel)
                    )
                    resolved.setdefault("members", {})[user_id] = data_member
        data: dict[str, Any] = {
            "custom_id": component["custom_id"],
            "component_type": component["type"],
            "values": chosen,
        }
        if resolved:
            data["resolved"] = resolved
        return await self._component_interaction(
            message, data, f"{self.name} choosing {chosen} in {_describe(component)}", fault
        )

    async def submit_modal(
        self,
        modal: FakeModal | InteractionOutcome | None = None,
        values: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,  # noqa: ASYNC109
        fault: CallbackFault | str | None = None,
        **fields: Any,
    ) -> InteractionOutcome:
        """Fill in and submit a modal the bot opened for this player (default: the last one
        still open). Fields are keyed by custom_id or label."""
        interaction = await self.begin_submit_modal(modal, values, fault=fault, **fields)
        return await wait_for_answer(interaction, timeout or self.fake.answer_timeout)

    async def begin_submit_modal(
        self,
        modal: FakeModal | InteractionOutcome | None = None,
        values: dict[str, Any] | None = None,
        *,
        fault: CallbackFault | str | None = None,
        **fields: Any,
    ) -> FakeInteraction:
        if isinstance(modal, InteractionOutcome):
            if modal.modal is None:
                raise FakeUsageError(f"the bot answered with {modal.type.name}, not a modal")
            modal = modal.modal
        modal = modal or self.open_modal
        if modal is None:
            raise FakeUsageError(f"the bot has no modal open for {self.name}")
        if modal.opened_by.id != self.id:
            raise FakeUsageError(
                f"that modal was opened for {modal.opened_by.name}, not {self.name}"
            )
        if modal.submitted:
            raise FakeUsageError(f"the modal {modal.custom_id!r} was already submitted")
        components, resolved = modal_submission(modal, {**(values or {}), **fields})
        modal.submitted = True
        opener = modal.interaction
        data: dict[str, Any] = {"custom_id": modal.custom_id, "components": components}
        if resolved:
            data["resolved"] = resolved
        return await self.fake.send_interaction(
            InteractionType.MODAL_SUBMIT,
            user=self.user,
            channel=opener.channel,
            data=data,
            description=f"{self.name} submitting the modal {modal.title!r}",
            source_message=opener.source_message,
            custom_id=modal.custom_id,
            fault=fault,
            trigger=opener,
        )

    async def say(self, channel: FakeChannel, content: str) -> FakeMessage:
        """Post a plain message (a MESSAGE_CREATE reaches the bot if it has the intent)."""
        return await self.fake.post_user_message(self.user, channel, content)

    # -- helpers -------------------------------------------------------------------------

    def _default_channel(self) -> FakeChannel:
        if self.home is None:
            raise FakeUsageError(f"{self.name} is in no guild: pass channel=")
        return self.home.default_channel

    def _check_can_use(self, channel: FakeChannel) -> None:
        if channel.deleted:
            raise FakeUsageError(f"{channel!r} was deleted: nobody can use it")
        if channel.guild is None:
            if not channel.has_user(self.id):
                if channel.is_private_channel:
                    raise FakeUsageError(f"{self.name} is not one of the users of {channel!r}")
                raise FakeUsageError(f"{self.name} cannot use someone else's DM channel")
            return
        if self.id not in channel.guild.members:
            raise FakeUsageError(f"{self.name} is not a member of {channel.guild.name!r}")
        if not channel.guild.permissions_of(self.id, channel) & VIEW_CHANNEL:
            raise FakeUsageError(f"{self.name} cannot see #{channel.name}")

    def _visible(self, message: FakeMessage) -> FakeMessage:
        # Always act on the message as the fake holds it now, never on a stale copy.
        current = message.channel.all_messages.get(message.id)
        if current is None or current.deleted:
            raise FakeUsageError(f"message {message.id} was deleted: nobody can press on it")
        if current.visible_to is not None and current.visible_to != self.id:
            raise FakeUsageError(
                f"{self.name} cannot see an ephemeral message shown to someone else"
            )
        self._check_can_use(current.channel)
        return current

    def _find(
        self,
        message: FakeMessage,
        target: str | dict[str, Any] | None,
        *,
        kinds: set[int],
        what: str,
    ) -> dict[str, Any]:
        candidates = [c for c in walk_components(message.components) if c.get("type") in kinds]
        if isinstance(target, dict):
            target = target.get("custom_id") or target.get("label")
        if target is None:
            matches = candidates
        else:
            matches = [
                c
                for c in candidates
                if target
                in (c.get("custom_id"), c.get("label"), c.get("placeholder"), _emoji_name(c))
            ]
        if not matches:
            present = [_describe(c) for c in candidates] or "none"
            raise FakeUsageError(
                f"{self.name} cannot find {what} {target!r} on message {message.id}; "
                f"the {what}s there now: {present}"
            )
        if len(matches) > 1:
            raise FakeUsageError(
                f"{what} {target!r} is ambiguous on message {message.id}: "
                f"{[c.get('custom_id') for c in matches]}; name it by custom_id"
            )
        component = matches[0]
        if component.get("disabled"):
            raise FakeUsageError(f"{_describe(component)} is disabled: it cannot be used")
        return component

    async def _component_interaction(
        self,
        message: FakeMessage,
        data: dict[str, Any],
        description: str,
        fault: CallbackFault | str | None,
    ) -> FakeInteraction:
        return await self.fake.send_interaction(
            InteractionType.COMPONENT,
            user=self.user,
            channel=message.channel,
            data=data,
            description=description,
            source_message=message,
            custom_id=str(data["custom_id"]),
            fault=fault,
        )

    def __repr__(self) -> str:
        return f"<Player {self.name} {self.id}>"


def _emoji_name(component: dict[str, Any]) -> str | None:
    emoji = component.get("emoji")
    return None if not isinstance(emoji, dict) else emoji.get("name")


def _describe(component: dict[str, Any]) -> str:
    label = component.get("label") or component.get("placeholder") or _emoji_name(component)
    return f"{label!r} ({component.get('custom_id')})"
