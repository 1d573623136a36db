"""The slash commands on Discord: the process that syncs sends the command tree (checked
against Discord's rules first, ``bot.ui.command_rules``); the others read the commands' ids
back. Either way the ids go to ``CommandIds``, so a text mentions a command as a link every
reader sees in their own language."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord import app_commands

from bot.model.command_mentions import CommandIds
from bot.ui.command_rules import check_payload, sync_payload

log = logging.getLogger(__name__)

# A process that does not sync reads the command ids from Discord: at start, then again
# while some are missing (the process that syncs may not have synced yet), after these
# pauses, the last repeated (a new command in a rolling deploy shows up within minutes).
COMMAND_READ_PAUSES = (1.0, 2.0, 5.0, 15.0, 60.0, 300.0)
COMMAND_READ_ATTEMPTS = 20


class CommandSync:
    """Syncs ``tree`` for ``client`` (globally, or to ``dev_guild_id`` only) and learns the
    commands' ids into ``command_ids``."""

    def __init__(
        self,
        client: discord.Client,
        tree: app_commands.CommandTree[Any],
        command_ids: CommandIds,
        dev_guild_id: int | None,
    ) -> None:
        self.client = client
        self.tree = tree
        self.command_ids = command_ids
        # Where the commands live: the dev guild, or everywhere (None).
        self.guild = discord.Object(id=dev_guild_id) if dev_guild_id is not None else None

    async def sync(self) -> None:
        """Check the commands against Discord's rules (``CommandRulesBroken`` stops the
        bot), then sync them: globally, or to DEV_GUILD_ID only."""
        guild = self.guild
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        # Discord refuses the whole sync for one broken rule: say which, before sending it.
        # The body checked is the body sent (tree.sync would translate all of it again).
        payload = await sync_payload(self.tree, guild=guild)
        check_payload(payload)
        synced = await self._upload(payload, guild)
        self.command_ids.learn(chat_command_ids(synced))
        if guild is not None:
            log.info("synced %d commands to the dev guild", len(synced))
        else:
            log.info("synced %d commands globally", len(synced))

    async def _upload(
        self, payload: list[dict[str, Any]], guild: discord.Object | None
    ) -> list[app_commands.AppCommand]:
        """What ``tree.sync`` does with its body, given the body: one bulk overwrite."""
        if self.client.application_id is None:
            raise app_commands.MissingApplicationID
        try:
            if guild is None:
                data = await self.client.http.bulk_upsert_global_commands(
                    self.client.application_id, payload=payload
                )
            else:
                data = await self.client.http.bulk_upsert_guild_commands(
                    self.client.application_id, guild.id, payload=payload
                )
        except discord.HTTPException as error:
            if error.status == 400 and error.code == 50035:
                commands = self.tree.get_commands(guild=guild)
                raise app_commands.CommandSyncFailure(error, commands) from None
            raise
        return [
            app_commands.AppCommand(data=entry, state=self.client._connection) for entry in data
        ]

    async def read_ids(self) -> None:
        """Learn the commands' ids from Discord (the ones the syncing process registered),
        again after a pause while any command of this tree is missing or the read failed."""
        guild = self.guild
        wanted = {
            command.name
            for command in self.tree.get_commands(type=discord.AppCommandType.chat_input)
        }
        for attempt in range(COMMAND_READ_ATTEMPTS):
            try:
                known = chat_command_ids(await self.tree.fetch_commands(guild=guild))
            except discord.HTTPException as error:
                log.info("could not read the command ids yet (%s)", error)
            else:
                self.command_ids.learn(known)
                missing = wanted - set(known)
                if not missing:
                    log.info("read the ids of %d commands", len(known))
                    return
                log.info("commands not registered yet: %s", ", ".join(sorted(missing)))
            await asyncio.sleep(COMMAND_READ_PAUSES[min(attempt, len(COMMAND_READ_PAUSES) - 1)])
        log.warning("some commands have no id: texts name them without a mention")


def chat_command_ids(commands: list[app_commands.AppCommand]) -> dict[str, int]:
    """The slash commands' ids by name, from a sync's answer or a read."""
    return {
        command.name: command.id
        for command in commands
        if command.type is discord.AppCommandType.chat_input
    }
