"""Application commands: what the bot registered with its sync PUT, and how a player's
``/name sub option=value`` becomes the ``data`` of an INTERACTION_CREATE."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import FakeUsageError, invalid_form
from .models import (
    ADMINISTRATOR,
    BOT_DM_CONTEXT,
    GUILD_CONTEXT,
    PRIVATE_CHANNEL_CONTEXT,
    FakeChannel,
    FakeGuild,
    FakeRole,
    FakeUser,
)

if TYPE_CHECKING:
    from .server import FakeDiscord

SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, BOOLEAN, USER = 1, 2, 3, 4, 5, 6
CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 7, 8, 9, 10, 11
CHAT_INPUT = 1
OPTION_TYPE_NAMES = {
    STRING: "a string",
    INTEGER: "an integer",
    BOOLEAN: "a bool",
    USER: "a user (Player)",
    CHANNEL: "a channel",
    ROLE: "a role",
    MENTIONABLE: "a user or role",
    NUMBER: "a number",
    ATTACHMENT: "an attachment",
}

# Discord's rules for commands that its API description leaves out (Application Commands
# documentation): the name pattern, lower case, the 4000-character total, choice limits.
# The description itself (api_schema.py) already bounds lengths, counts and int53 values.
NAME_LIMIT = 32
DESCRIPTION_LIMIT = 100
OPTIONS_LIMIT = 25
CHOICES_LIMIT = 25
COMMAND_TEXT_LIMIT = 4000
# `^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$`: Python's re has no \p, so the script
# ranges are spelled out (Unicode's Scripts.txt: Devanagari and its extension, Thai).
NAME_PUNCTUATION = frozenset("-_'")
NAME_SCRIPT_RANGES = ((0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x0E01, 0x0E5B))


def _name_character(char: str) -> bool:
    if char in NAME_PUNCTUATION or unicodedata.category(char)[0] in "LN":
        return True
    return any(low <= ord(char) <= high for low, high in NAME_SCRIPT_RANGES)


def valid_name(name: Any) -> bool:
    """Discord's name pattern, and lower case (where the letter has a lower case)."""
    return (
        isinstance(name, str)
        and 1 <= len(name) <= NAME_LIMIT
        and all(_name_character(char) for char in name)
        and name == name.lower()
    )


# Discord's locales (https://discord.com/developers/docs/reference#locales).
LOCALES = frozenset(
    {
        "id",
        "da",
        "de",
        "en-GB",
        "en-US",
        "es-ES",
        "es-419",
        "fr",
        "hr",
        "it",
        "lt",
        "hu",
        "nl",
        "no",
        "pl",
        "pt-BR",
        "ro",
        "fi",
        "sv-SE",
        "vi",
        "tr",
        "cs",
        "el",
        "bg",
        "ru",
        "uk",
        "hi",
        "th",
        "zh-CN",
        "ja",
        "zh-TW",
        "ko",
    }
)

Where = tuple[str | int, ...]


def _check_name(name: Any, where: Where, what: str) -> None:
    if not valid_name(name):
        raise invalid_form(
            f"{what}: invalid name {name!r} (Discord's pattern, 1-32 characters, lower case)",
            where,
            "APPLICATION_COMMAND_INVALID_NAME",
        )


def _check_localizations(item: dict[str, Any], where: Where, what: str, *, names: bool) -> None:
    """Discord's checks on ``name_localizations``/``description_localizations``: known
    locales, names as valid as the default one, texts of 1-100 characters."""
    for key in ("name_localizations", "description_localizations"):
        localized = item.get(key) or {}
        if not isinstance(localized, dict):
            raise invalid_form(f"{what}: {key} must be an object", (*where, key))
        for locale, text in localized.items():
            place = (*where, key, locale)
            if locale not in LOCALES:
                raise invalid_form(
                    f"{what}: {key} has unknown locale {locale!r}", place, "BASE_TYPE_CHOICES"
                )
            if key == "name_localizations" and names:
                _check_name(text, place, f"{what} ({locale})")
            elif not isinstance(text, str) or not 1 <= len(text) <= DESCRIPTION_LIMIT:
                raise invalid_form(
                    f"{what}: {key}[{locale}] must be 1-100 characters",
                    place,
                    "BASE_TYPE_BAD_LENGTH",
                )


def _texts(item: dict[str, Any], locale: str | None) -> list[Any]:
    """The name, description (and a choice's value) of one item as ``locale`` shows it."""
    found = []
    for key in ("name", "description"):
        localized = (item.get(f"{key}_localizations") or {}).get(locale) if locale else None
        found.append(localized if localized is not None else item.get(key))
    if "value" in item:
        found.append(item["value"])
    return found


def command_text_length(command: dict[str, Any], locale: str | None = None) -> int:
    """Discord's count toward its 4000-character limit: the name, description and value
    characters of a command, its options (subcommands and groups too) and their choices,
    as one locale shows them (a missing localization falls back to the default text)."""
    total = sum(len(str(text)) for text in _texts(command, locale) if text is not None)
    for option in command.get("options") or []:
        total += command_text_length(option, locale)
    for choice in command.get("choices") or []:
        total += sum(len(str(text)) for text in _texts(choice, locale) if text is not None)
    return total


def _locales_of(item: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    for key in ("name_localizations", "description_localizations"):
        found.update((item.get(key) or {}).keys())
    for child in [*(item.get("options") or []), *(item.get("choices") or [])]:
        found |= _locales_of(child)
    return found


def validate_command(command: dict[str, Any], index: int = 0) -> None:
    """The checks Discord makes on a command in a sync PUT (400 Invalid Form Body naming
    the field: ``{"3": {"options": {"0": {"name": {"_errors": ...}}}}}``)."""
    where: Where = (index,)
    kind = command.get("type", CHAT_INPUT)
    name = command.get("name")
    if kind == CHAT_INPUT:
        _check_name(name, (*where, "name"), "command")
        if not 1 <= len(command.get("description") or "") <= DESCRIPTION_LIMIT:
            raise invalid_form(
                f"/{name}: description must be 1-100 characters",
                (*where, "description"),
                "BASE_TYPE_BAD_LENGTH",
            )
        _check_localizations(command, where, f"/{name}", names=True)
    _validate_options(command.get("options") or [], where, f"/{name}", depth=0)
    for locale in [None, *sorted(_locales_of(command))]:
        length = command_text_length(command, locale)
        if length > COMMAND_TEXT_LIMIT:
            shown = f" in {locale}" if locale else ""
            raise invalid_form(
                f"/{name}: {length} characters of names, descriptions and values{shown} "
                f"(Discord allows {COMMAND_TEXT_LIMIT})",
                where,
                "APPLICATION_COMMAND_TOO_LARGE",
            )


def _validate_options(options: list[dict[str, Any]], where: Where, what: str, depth: int) -> None:
    if len(options) > OPTIONS_LIMIT:
        raise invalid_form(
            f"{what}: more than 25 options", (*where, "options"), "BASE_TYPE_MAX_LENGTH"
        )
    seen: set[str] = set()
    optional_seen = False
    for index, option in enumerate(options):
        here: Where = (*where, "options", index)
        name = option.get("name")
        _check_name(name, (*here, "name"), what)
        if name in seen:
            raise invalid_form(
                f"{what}: duplicate option {name!r}",
                (*here, "name"),
                "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
            )
        seen.add(str(name))
        if not 1 <= len(option.get("description") or "") <= DESCRIPTION_LIMIT:
            raise invalid_form(
                f"{what} {name}: description must be 1-100 characters",
                (*here, "description"),
                "BASE_TYPE_BAD_LENGTH",
            )
        _check_localizations(option, here, f"{what} {name}", names=True)
        choices = option.get("choices") or []
        for number, choice in enumerate(choices):
            _check_localizations(
                choice, (*here, "choices", number), f"{what} {name} choice", names=False
            )
        kind = option.get("type")
        if kind in (SUB_COMMAND, SUB_COMMAND_GROUP):
            if depth >= 2 or (kind == SUB_COMMAND_GROUP and depth >= 1):
                raise invalid_form(f"{what} {name}: subcommands nested too deep", (*here, "type"))
            _validate_options(option.get("options") or [], here, f"{what} {name}", depth + 1)
            continue
        if option.get("required"):
            if optional_seen:
                raise invalid_form(
                    f"{what}: required option {name!r} after an optional one",
                    (*here, "required"),
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                )
        else:
            optional_seen = True
        if len(choices) > CHOICES_LIMIT:
            raise invalid_form(
                f"{what} {name}: more than 25 choices",
                (*here, "choices"),
                "BASE_TYPE_MAX_LENGTH",
            )


# The keys of a command Discord answers as null when unset (ApplicationCommandResponse).
NULLABLE_COMMAND_KEYS = frozenset(
    {"default_member_permissions", "contexts", "name_localizations", "description_localizations"}
)
# Application integration types (Application resource): where the app is installed.
GUILD_INSTALL = 0
USER_INSTALL = 1


@dataclass(eq=False)
class RegisteredCommand:
    id: int
    guild_id: int | None
    data: dict[str, Any]
    # Discord's "autoincrementing version identifier updated during substantial record
    # changes": a new snowflake when a sync changes the command, the same one otherwise.
    version: int = 0

    @property
    def name(self) -> str:
        return str(self.data["name"])

    def payload(self, application_id: int, *, localizations: bool = True) -> dict[str, Any]:
        """The command as Discord answers a sync or a read (ApplicationCommandResponse):
        its ids and version, the defaults filled in, and a key the body sent as null left
        out unless Discord answers it as null (``default_member_permissions``,
        ``contexts``). ``integration_types`` defaults to guild install (the app's
        configured one) on a global command and is left out of a guild command's.
        ``localizations=False``: a read without ``with_localizations``, which Discord
        answers without the localization dictionaries (at any depth)."""
        out = {
            key: value
            for key, value in self.data.items()
            if value is not None or key in NULLABLE_COMMAND_KEYS
        }
        out.setdefault("type", CHAT_INPUT)
        out.setdefault("options", [])
        permissions = out.get("default_member_permissions")
        out["default_member_permissions"] = None if permissions is None else str(permissions)
        out.setdefault("nsfw", False)
        out["id"] = str(self.id)
        out["application_id"] = str(application_id)
        out["version"] = str(self.version or self.id)
        if self.guild_id is not None:
            out["guild_id"] = str(self.guild_id)
            out.pop("integration_types", None)
        else:
            out.setdefault("integration_types", [GUILD_INSTALL])
        return out if localizations else _without_localizations(out)


LOCALIZATION_KEYS = ("name_localizations", "description_localizations")


def _without_localizations(item: dict[str, Any]) -> dict[str, Any]:
    out = {key: value for key, value in item.items() if key not in LOCALIZATION_KEYS}
    for key in ("options", "choices"):
        if isinstance(out.get(key), list):
            out[key] = [
                _without_localizations(child) if isinstance(child, dict) else child
                for child in out[key]
            ]
    return out


class CommandRegistry:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        # Scope None is global; otherwise a guild id.
        self.scopes: dict[int | None, dict[tuple[str, int], RegisteredCommand]] = {}
        self.sync_count = 0

    def sync(self, guild_id: int | None, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Bulk overwrite, like Discord: ids stay the same for a command kept by name."""
        if not isinstance(commands, list):
            raise invalid_form("expected a list of commands")
        for index, command in enumerate(commands):
            validate_command(command, index)
        names = [(c.get("name"), c.get("type", CHAT_INPUT)) for c in commands]
        if len(set(names)) != len(names):
            raise invalid_form("two commands share a name")
        old = self.scopes.get(guild_id, {})
        new: dict[tuple[str, int], RegisteredCommand] = {}
        for command in commands:
            key = (str(command["name"]), int(command.get("type", CHAT_INPUT)))
            previous = old.get(key)
            if previous is None:
                command_id = self.fake.snowflakes.next()
                version = command_id
            else:
                command_id = previous.id
                same = previous.data == command
                version = previous.version if same else self.fake.snowflakes.next()
            new[key] = RegisteredCommand(command_id, guild_id, command, version)
        self.scopes[guild_id] = new
        self.sync_count += 1
        return [c.payload(self.fake.application_id) for c in new.values()]

    def in_scope(self, guild_id: int | None) -> list[RegisteredCommand]:
        return list(self.scopes.get(guild_id, {}).values())

    def by_id(self, command_id: int, guild_id: int | None) -> RegisteredCommand | None:
        """The command with this id available in a guild (its own or a global one)."""
        scopes: list[int | None] = [None] if guild_id is None else [guild_id, None]
        for scope in scopes:
            for command in self.in_scope(scope):
                if command.id == command_id:
                    return command
        return None

    def id_of(self, name: str, guild_id: int | None = None) -> int:
        """The id Discord gave the chat command ``name`` (for a test's expectations)."""
        for scope in [guild_id, None] if guild_id is not None else [None]:
            command = self.scopes.get(scope, {}).get((name, CHAT_INPUT))
            if command is not None:
                return command.id
        raise FakeUsageError(f"no command /{name} is registered")

    def names(self, guild_id: int | None = None) -> list[str]:
        """Names of the chat commands available in a guild (its own plus global ones)."""
        scopes = [None] if guild_id is None else [guild_id, None]
        found: list[str] = []
        for scope in scopes:
            for command in self.in_scope(scope):
                if command.data.get("type", CHAT_INPUT) == CHAT_INPUT:
                    found.extend(_paths(command.name, command.data.get("options") or []))
        return sorted(set(found))

    def find(self, name: str, guild: FakeGuild | None) -> RegisteredCommand | None:
        scopes: list[int | None] = [None] if guild is None else [guild.id, None]
        for scope in scopes:
            command = self.scopes.get(scope, {}).get((name, CHAT_INPUT))
            if command is not None:
                return command
        return None

    # -- building an invocation ---------------------------------------------------------

    def invocation(
        self,
        path: str,
        values: dict[str, Any],
        *,
        user: FakeUser,
        guild: FakeGuild | None,
        channel: FakeChannel,
        force: bool,
        modified_client: bool = False,
    ) -> tuple[RegisteredCommand, dict[str, Any], dict[str, str]]:
        """The command a player runs, the ``data`` of its interaction and its
        ``authorizing_integration_owners``; a command Discord would not offer the player
        there is a FakeUsageError."""
        words = path.strip().lstrip("/").split()
        if not words:
            raise FakeUsageError("slash() needs a command name")
        command = self.find(words[0], guild)
        where = f"in {guild.name!r}" if guild is not None else "in DMs"
        if command is None:
            raise FakeUsageError(
                f"no command /{words[0]} is registered {where}; the bot registered "
                f"{self.names(guild.id if guild else None) or 'nothing (did it sync?)'}"
            )
        owners = self._authorization(command, user, guild, channel, force)
        spec = command.data.get("options") or []
        nesting: list[dict[str, Any]] = []
        for word in words[1:]:
            sub = next(
                (o for o in spec if o["name"] == word and o["type"] in (1, 2)),
                None,
            )
            if sub is None:
                subs = [o["name"] for o in spec if o["type"] in (1, 2)]
                raise FakeUsageError(f"/{' '.join(words)}: no subcommand {word!r} (known: {subs})")
            nesting.append(sub)
            spec = sub.get("options") or []
        if any(o["type"] in (1, 2) for o in spec):
            subs = [o["name"] for o in spec if o["type"] in (1, 2)]
            raise FakeUsageError(f"/{' '.join(words)} needs a subcommand: one of {subs}")
        resolved: dict[str, Any] = {}
        options = self._leaf_options(
            spec, values, resolved, guild, channel, "/" + " ".join(words), modified_client
        )
        for sub in reversed(nesting):
            options = [{"name": sub["name"], "type": sub["type"], "options": options}]
        data: dict[str, Any] = {
            "id": str(command.id),
            "name": command.name,
            "type": CHAT_INPUT,
            "options": options,
        }
        if command.guild_id is not None:
            data["guild_id"] = str(command.guild_id)
        if resolved:
            data["resolved"] = resolved
        return command, data, owners

    def _authorization(
        self,
        command: RegisteredCommand,
        user: FakeUser,
        guild: FakeGuild | None,
        channel: FakeChannel,
        force: bool,
    ) -> dict[str, str]:
        """Whether Discord offers the command to ``user`` in ``channel``, and through which
        installations (the interaction's ``authorizing_integration_owners``).

        A server's install (GUILD_INSTALL, 0) reaches the servers that added the bot and
        the bot's DMs; a user's install (USER_INSTALL, 1; ``player.install_app()``) reaches
        every place that user is, DMs between users and group DMs (PRIVATE_CHANNEL) only
        through it. Each needs the command to list the installation in its
        ``integration_types`` (a global command; default: the server install) and the
        place in its ``contexts`` (default: server and bot DM, or server alone with
        ``dm_permission`` false; discord-api-docs issue 7108). A guild command is a server
        install's, in its server only (Application Commands reference)."""
        context = channel.context
        if command.guild_id is not None:
            kinds = [GUILD_INSTALL]
            contexts = [GUILD_CONTEXT]
        else:
            kinds = list(command.data.get("integration_types") or [GUILD_INSTALL])
            contexts = command.data.get("contexts")
            if not contexts:
                legacy_dm = command.data.get("dm_permission") is not False
                contexts = [GUILD_CONTEXT, BOT_DM_CONTEXT] if legacy_dm else [GUILD_CONTEXT]
        owners: dict[str, str] = {}
        if context in contexts:
            server_install = (guild is not None and guild.has_bot) or context == BOT_DM_CONTEXT
            if GUILD_INSTALL in kinds and server_install:
                owners[str(GUILD_INSTALL)] = str(guild.id) if guild is not None else "0"
            if USER_INSTALL in kinds and user.app_installed:
                owners[str(USER_INSTALL)] = str(user.id)
        if not owners:
            raise FakeUsageError(self._unavailable(command, user, channel, kinds, contexts))
        if guild is not None and str(GUILD_INSTALL) in owners:
            self._check_permissions(command, user, guild, channel, force)
        return owners

    @staticmethod
    def _unavailable(
        command: RegisteredCommand,
        user: FakeUser,
        channel: FakeChannel,
        kinds: list[int],
        contexts: list[int],
    ) -> str:
        place = {
            GUILD_CONTEXT: "in a server",
            BOT_DM_CONTEXT: "in the bot's DMs",
            PRIVATE_CHANNEL_CONTEXT: "in a DM or group DM between users",
        }[channel.context]
        if command.guild_id is not None:
            why = f"it is a guild command of the server {command.guild_id} alone"
        elif channel.context not in contexts:
            why = f"its contexts are {contexts}"
        elif USER_INSTALL not in kinds:
            why = (
                f"its integration_types are {kinds} (no user install) and the bot is not "
                "installed there"
            )
        elif not user.app_installed:
            why = f"{user.name} did not install the app (player.install_app())"
        else:
            why = "no installation reaches it there"
        return f"Discord does not offer /{command.name} to {user.name} {place} ({channel!r}): {why}"

    def _check_permissions(
        self,
        command: RegisteredCommand,
        user: FakeUser,
        guild: FakeGuild,
        channel: FakeChannel,
        force: bool,
    ) -> None:
        required = command.data.get("default_member_permissions")
        if required is None or force:
            return
        have = guild.permissions_of(user.id, channel)
        if int(required) & ~have and not have & ADMINISTRATOR:
            raise FakeUsageError(
                f"{user.name} cannot see /{command.name}: Discord hides it from members "
                f"without permissions {int(required)} (pass force=True to model a server "
                "that overrode the command's permissions)"
            )

    def _leaf_options(
        self,
        spec: list[dict[str, Any]],
        values: dict[str, Any],
        resolved: dict[str, Any],
        guild: FakeGuild | None,
        channel: FakeChannel,
        where: str,
        modified_client: bool = False,
    ) -> list[dict[str, Any]]:
        by_name = {o["name"]: o for o in spec}
        given = {
            name.replace("_", "-") if name not in by_name else name: v for name, v in values.items()
        }
        unknown = sorted(set(given) - set(by_name))
        if unknown:
            raise FakeUsageError(
                f"{where} has no option(s) {unknown}; its options are {sorted(by_name)}"
            )
        out: list[dict[str, Any]] = []
        for option in spec:
            name = option["name"]
            if name not in given or given[name] is None:
                if option.get("required"):
                    raise FakeUsageError(f"{where}: the option {name!r} is required")
                continue
            checked = option
            if modified_client:
                # A modified client sends what it likes: Discord's API checks the option's
                # type, not its choices, range or length.
                limits = ("choices", "min_value", "max_value", "min_length", "max_length")
                checked = {k: v for k, v in option.items() if k not in limits}
            value = _convert(checked, given[name], resolved, guild, channel, where)
            out.append({"name": name, "type": option["type"], "value": value})
        return out


def _paths(name: str, options: list[dict[str, Any]]) -> list[str]:
    subs = [o for o in options if o.get("type") in (1, 2)]
    if not subs:
        return [name]
    found: list[str] = []
    for sub in subs:
        found.extend(_paths(f"{name} {sub['name']}", sub.get("options") or []))
    return found


def _convert(
    option: dict[str, Any],
    value: Any,
    resolved: dict[str, Any],
    guild: FakeGuild | None,
    channel: FakeChannel,
    where: str,
) -> Any:
    kind = option["type"]
    name = option["name"]

    def wrong() -> FakeUsageError:
        expected = OPTION_TYPE_NAMES.get(kind, f"type {kind}")
        return FakeUsageError(f"{where}: option {name!r} takes {expected}, not {value!r}")

    choices = option.get("choices")
    if choices:
        for choice in choices:
            if value == choice["value"] or (isinstance(value, str) and value == choice["name"]):
                return choice["value"]
        known = [c["value"] for c in choices]
        raise FakeUsageError(f"{where}: option {name!r} must be one of {known}, not {value!r}")
    if kind == STRING:
        if not isinstance(value, str):
            raise wrong()
        if (
            not int(option.get("min_length", 0))
            <= len(value)
            <= int(option.get("max_length", 6000))
        ):
            raise FakeUsageError(f"{where}: option {name!r} has the wrong length")
        return value
    if kind in (INTEGER, NUMBER):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise wrong()
        if kind == INTEGER and not isinstance(value, int):
            raise wrong()
        low, high = option.get("min_value"), option.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise FakeUsageError(
                f"{where}: option {name!r} must be between {low} and {high}, not {value}"
            )
        return value
    if kind == BOOLEAN:
        if not isinstance(value, bool):
            raise wrong()
        return value
    if kind in (USER, MENTIONABLE):
        role = value if isinstance(value, FakeRole) else None
        if role is not None and kind == MENTIONABLE:
            resolved.setdefault("roles", {})[str(role.id)] = role.payload()
            return str(role.id)
        user = getattr(value, "user", value)
        if not isinstance(user, FakeUser):
            raise wrong()
        resolved.setdefault("users", {})[str(user.id)] = user.payload()
        member = guild.members.get(user.id) if guild is not None else None
        if member is not None:
            member_data = member.payload(with_user=False)
            member_data["permissions"] = str(guild.permissions_of(user.id, channel))  # type: ignore[union-attr]
            resolved.setdefault("members", {})[str(user.id)] = member_data
        return str(user.id)
    if kind == CHANNEL:
        if not isinstance(value, FakeChannel):
            raise wrong()
        data = value.payload()
        data["permissions"] = str(value.bot_permissions().value)
        resolved.setdefault("channels", {})[str(value.id)] = data
        return str(value.id)
    if kind == ROLE:
        if not isinstance(value, FakeRole):
            raise wrong()
        resolved.setdefault("roles", {})[str(value.id)] = value.payload()
        return str(value.id)
    raise FakeUsageError(f"{where}: option {name!r} has a type the fake does not support ({kind})")
