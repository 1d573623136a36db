"""Which language each text speaks: the player's, the server's, a game's.

- An interaction's own answers (ephemeral replies, errors, modals) speak the language of
  the player's Discord client (``interaction.locale``): ``enter_interaction`` sets it for
  the interaction's task when it starts.
- A game's public message speaks the game's language (``Session.language``), fixed when
  the game starts: the one the server chose with ``/dicebot settings language:``, else its
  Discord language (``interaction.guild_locale``).
- Direct messages speak the player's language as their client last reported it: the
  ``LanguageBook`` remembers it (in memory, and in ``user_languages`` for timers, other
  processes and restarts).
- Slash commands show their names and descriptions in the picker's language through
  ``CommandTranslator`` (discord.py's ``app_commands.Translator``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterable
from typing import Any

import discord
from discord import app_commands

from bot import i18n
from bot.model.clock import Clock
from bot.model.command_mentions import CommandIds, bind_command_ids
from bot.storage import Database, StorageUnavailable
from bot.storage.user_languages import store_language, stored_language, stored_languages

log = logging.getLogger(__name__)

# Remembered players (a bounded dict: the oldest entries go first).
BOOK_SIZE = 50_000


class LanguageBook:
    """Each player's language, as their Discord client last reported it."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock
        self._known: dict[int, str] = {}
        self._saving: set[asyncio.Task[None]] = set()

    def of(self, user_id: int) -> str:
        """The player's language if known here (``load`` first for players not seen)."""
        return self._known.get(user_id, i18n.ENGLISH)

    def saw(self, user_id: int, language: str) -> None:
        """The player's client speaks ``language`` now: remember it, and store it when it
        changed (in the background: an interaction never waits for it)."""
        known = self._known.get(user_id)
        if known == language:
            return
        self._remember(user_id, language)
        if known is None and language == i18n.ENGLISH:
            # First seen here, in the default language: store nothing unless the stored
            # language says otherwise (a read, which never waits for a move's write).
            self._spawn(self._store_if_stored_differs(user_id, language))
        else:
            self._spawn(self._save(user_id, language))

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    async def _store_if_stored_differs(self, user_id: int, language: str) -> None:
        try:
            stored = await stored_language(self._db, user_id)
        except StorageUnavailable:
            return
        if stored is not None and stored != language:
            await self._save(user_id, language)

    async def load(self, user_ids: Iterable[int]) -> None:
        """Read the stored language of players this process has not seen yet."""
        missing = sorted({user_id for user_id in user_ids if user_id not in self._known})
        if not missing:
            return
        try:
            stored = await stored_languages(self._db, missing)
        except StorageUnavailable:
            return  # English this time; the next message asks again
        for user_id in missing:
            # Never seen anywhere: English until their client tells us otherwise.
            language = stored.get(user_id, i18n.ENGLISH)
            self._remember(user_id, language if language in i18n.LANGUAGES else i18n.ENGLISH)

    async def close(self) -> None:
        if self._saving:
            await asyncio.wait(set(self._saving), timeout=2.0)

    def _remember(self, user_id: int, language: str) -> None:
        self._known.pop(user_id, None)
        if len(self._known) >= BOOK_SIZE:
            self._known.pop(next(iter(self._known)))
        self._known[user_id] = language

    async def _save(self, user_id: int, language: str) -> None:
        try:
            await store_language(self._db, user_id, language, now=self._clock.now())
        except StorageUnavailable:
            # Kept in memory; stored at the player's next interaction.
            self._known.pop(user_id, None)
            log.info("could not store a player's language now (database busy)")


async def public_language(bot: object, guild_id: int | None) -> str:
    """The language of a public message that is not a game's (a leaderboard someone
    posted): the server's chosen language, else its Discord language."""
    sessions = getattr(bot, "sessions", None)
    if guild_id is not None and sessions is not None:
        try:
            chosen = (await sessions.guild_settings(guild_id)).language
        except StorageUnavailable:
            chosen = None
        if chosen:
            return str(chosen)
    return i18n.server_language()


def enter_interaction(interaction: discord.Interaction) -> None:
    """Speak the player's language for the rest of this interaction's task, and note the
    server's for a game it may start."""
    language = i18n.resolve(interaction.locale)
    i18n.set_language(language)
    i18n.set_server_language(i18n.resolve(interaction.guild_locale))
    book = getattr(interaction.client, "languages", None)
    if isinstance(book, LanguageBook):
        book.saw(interaction.user.id, language)
    # The commands its texts mention: an interaction's task does not always descend from
    # the one that set the bot up (bot.model.command_mentions).
    command_ids = getattr(interaction.client, "command_ids", None)
    if isinstance(command_ids, CommandIds):
        bind_command_ids(command_ids)


class CommandTranslator(app_commands.Translator):
    """Command names, descriptions, options and choices from the catalogs, so the command
    picker shows them in each player's language (Discord picks by the client's locale)."""

    def __init__(self) -> None:
        # discord.py asks every string in each of Discord's ~30 locales (16,000 questions a
        # sync): only the locales a catalog serves get an answer, found in one look-up. es-ES
        # and es-419 both get Spanish, but en-GB is left to Discord's default (the English
        # names).
        self._served: dict[discord.Locale, str] = {
            locale: language
            for locale in discord.Locale
            if (language := i18n.language_for_locale(locale)) is not None
            and language != i18n.ENGLISH
            and str(locale.value) in i18n.LANGUAGES[language].discord_locales
        }

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        language = self._served.get(locale)
        if language is None:
            return None
        location = context.location
        names = (
            app_commands.TranslationContextLocation.command_name,
            app_commands.TranslationContextLocation.group_name,
        )
        if location in names:
            found = i18n.translate_in(language, string.message, "command name")
        elif location is app_commands.TranslationContextLocation.parameter_name:
            found = i18n.translate_in(language, string.message, "option name")
        else:
            found = i18n.translate_in(language, string.message)
        return found
