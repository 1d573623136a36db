"""The bot's commands against Discord's rules for application commands, checked on the body
the sync sends (bot/ui/command_rules.py): the real tree passes in every language, and each
family of rules names what breaks it in one line."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Optional

import discord
import pytest
from discord import app_commands
from pydantic import SecretStr

from bot import i18n
from bot.app import DiceBot, create_bot
from bot.config import Settings
from bot.service.network import Kind, classify
from bot.ui.command_rules import (
    MAX_OPTION_INTEGER,
    CommandRulesBroken,
    check_payload,
    check_tree,
    name_character,
    payload_problems,
    sync_payload,
)

REFUSED = "Discord would refuse the bot's slash commands (nothing was synced): "
DEV_GUILD = discord.Object(id=123_456_789_012_345_678)
STRING, INTEGER, SUB_COMMAND = 3, 4, 1


@pytest.fixture
async def bot(tmp_path: Path) -> AsyncIterator[DiceBot]:
    """The real bot, never connected, with its command tree as set-up builds it: the
    catalogs, the command translator and every cog (``DiceBot.load_commands``)."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=SecretStr("not-used"),
        database_path=tmp_path / "bot.db",
        picture_worker="thread",
    )
    async with create_bot(settings) as made:
        await made.load_commands()
        yield made


def refused(payload: list[dict[str, Any]]) -> str:
    with pytest.raises(CommandRulesBroken) as caught:
        check_payload(payload)
    return str(caught.value)


def items(item: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A command, its groups, subcommands and options, and their choices."""
    yield item
    for child in [*(item.get("options") or []), *(item.get("choices") or [])]:
        yield from items(child)


# -- the bot's own commands ---------------------------------------------------------------------


@pytest.mark.parametrize("guild", [None, DEV_GUILD], ids=["global", "dev guild"])
async def test_the_bots_commands_keep_discords_rules_in_every_language(
    bot: DiceBot, guild: discord.Object | None
) -> None:
    if guild is not None:
        bot.tree.copy_global_to(guild=guild)  # as sync_commands does with DEV_GUILD_ID
    payload = await sync_payload(bot.tree, guild=guild)
    assert {command["name"] for command in payload} >= {"weighted", "knucklebones", "help"}
    # The check covers every locale at once: the translator filled them all in. Each
    # language the bot speaks besides English is there, in each of its Discord locales.
    translated = {
        locale for code in i18n.TRANSLATED for locale in i18n.LANGUAGES[code].discord_locales
    }
    assert {"es-ES", "es-419", "fr"} <= translated
    for command in payload:
        assert set(command["name_localizations"]) == translated, command["name"]
        assert set(command["description_localizations"]) == translated, command["name"]
    localized = {
        locale
        for command in payload
        for item in items(command)
        for field in ("name_localizations", "description_localizations")
        for locale in item.get(field) or {}
    }
    assert localized == translated
    assert [violation.line() for violation in payload_problems(payload)] == []
    await check_tree(bot.tree, guild=guild)


async def test_the_weighted_end_table_option_is_within_discords_range(bot: DiceBot) -> None:
    weighted = bot.tree.get_command("weighted")
    assert isinstance(weighted, app_commands.Group)
    end = weighted.get_command("end")
    assert isinstance(end, app_commands.Command)
    table = end.get_parameter("table")
    assert table is not None
    assert (table.min_value, table.max_value) == (1, MAX_OPTION_INTEGER) == (1, 2**53 - 1)


async def test_sync_commands_checks_before_it_sends_anything(bot: DiceBot) -> None:
    # Never logged in: a sync would fail on the missing application id. The check goes
    # first, so the refusal is what comes out, and nothing was sent.
    bot.tree.add_command(weighted_end(2**63 - 1), override=True)  # the cog's, before the fix
    with pytest.raises(CommandRulesBroken) as caught:
        await bot.sync_commands()
    assert "/weighted end, option table: max_value 9223372036854775807" in str(caught.value)


def test_a_refused_tree_stops_the_bot_with_its_one_line_as_a_host_problem() -> None:
    error = CommandRulesBroken(payload_problems([command("ping", description="")]))
    failure = classify(error, dev_guild_id=DEV_GUILD.id)
    assert failure.kind is Kind.HOST
    assert (
        failure.text
        == str(error)
        == (REFUSED + "/ping: description must be 1-100 characters long (it has 0)")
    )
    assert "\n" not in failure.text


# -- trees built with discord.py, checked as the sync sends them ------------------------------


def weighted_end(bound: int) -> app_commands.Group:
    """``/weighted end [table]`` as the cog had it, with ``bound`` as the table's maximum."""
    weighted = app_commands.Group(name="weighted", description="Weighted Dice.")

    async def end(interaction: discord.Interaction, table: int | None = None) -> None:
        del interaction, table

    # The bound is a local: the annotation is given as an object, not as text to evaluate.
    end.__annotations__["table"] = Optional[app_commands.Range[int, 1, bound]]  # noqa: UP045
    command = app_commands.Command(
        name="end", description="Stop a Weighted Dice game.", callback=end, parent=weighted
    )
    app_commands.describe(table="The table number.")(command)
    weighted.add_command(command)
    return weighted


def tree_of(
    *commands: app_commands.Group | app_commands.Command[Any, ..., Any],
) -> app_commands.CommandTree[discord.Client]:
    tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(
        discord.Client(intents=discord.Intents.none())
    )
    for item in commands:
        tree.add_command(item)
    return tree


class Catalog(app_commands.Translator):
    """Translations by (English text, locale)."""

    def __init__(self, texts: dict[tuple[str, str], str]) -> None:
        self.texts = texts

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        return self.texts.get((string.message, locale.value))


async def test_the_old_weighted_end_bound_is_named_in_one_line() -> None:
    tree = tree_of(weighted_end(9_223_372_036_854_775_807))
    for guild in (None, DEV_GUILD):
        if guild is not None:
            tree.copy_global_to(guild=guild)
        with pytest.raises(CommandRulesBroken) as caught:
            await check_tree(tree, guild=guild)
        assert str(caught.value) == (
            REFUSED + "/weighted end, option table: max_value 9223372036854775807 is outside "
            "Discord's integer range ±9007199254740991"
        )


async def test_the_int53_bound_is_inclusive() -> None:
    await check_tree(tree_of(weighted_end(MAX_OPTION_INTEGER)))
    with pytest.raises(CommandRulesBroken, match="max_value 9007199254740992 is outside"):
        await check_tree(tree_of(weighted_end(MAX_OPTION_INTEGER + 1)))


async def test_a_translation_breaking_the_name_rules_is_named_with_its_locale() -> None:
    tree = tree_of(weighted_end(10))
    await tree.set_translator(
        Catalog({("table", "fr"): "Table", ("weighted", "es-ES"): "dados cargados"})
    )
    with pytest.raises(CommandRulesBroken) as caught:
        await check_tree(tree)
    problems = [violation.line() for violation in caught.value.violations]
    assert problems == [
        "/weighted, locale es-ES: name 'dados cargados' has ' ': a name may hold only "
        "letters, numbers, - _ ' and the Devanagari and Thai scripts",
        "/weighted end, option table, locale fr: name 'Table' must be lower case",
    ]
    assert str(caught.value) == REFUSED + problems[0] + " (and 1 more)"


async def test_a_translated_description_over_100_characters_is_named() -> None:
    tree = tree_of(weighted_end(10))
    await tree.set_translator(Catalog({("Stop a Weighted Dice game.", "fr"): "x" * 101}))
    with pytest.raises(CommandRulesBroken) as caught:
        await check_tree(tree)
    assert str(caught.value) == (
        REFUSED + "/weighted end, locale fr: description must be 1-100 characters long (it has 101)"
    )


# -- each family of rules, on sync bodies --------------------------------------------------------


def command(name: str = "ping", **fields: Any) -> dict[str, Any]:
    return {"name": name, "description": "Check the bot.", "type": 1, **fields}


def option(name: str = "amount", kind: int = INTEGER, **fields: Any) -> dict[str, Any]:
    return {"name": name, "description": "How much.", "type": kind, **fields}


@pytest.mark.parametrize(
    ("name", "allowed"),
    [
        ("a", True),
        ("7", True),
        ("-", True),
        ("'", True),
        ("é", True),
        ("ж", True),
        ("क", True),  # Devanagari letter
        ("ि", True),  # Devanagari vowel sign: a mark, in the script
        ("ั", True),  # Thai vowel sign: a mark, in the script
        ("٣", True),  # Arabic-Indic digit: a number
        (" ", False),
        ("!", False),
        (".", False),
        ("\u0301", False),  # combining acute: a mark outside both scripts
        ("।", False),  # danda: Devanagari block, but Common script
    ],
)
def test_the_name_pattern(name: str, allowed: bool) -> None:
    assert name_character(name) is allowed


def test_a_name_outside_the_pattern_or_in_capitals() -> None:
    assert refused([command("Ping")]) == REFUSED + "/Ping: name 'Ping' must be lower case"
    assert refused([command("p" * 33)]) == (
        REFUSED + "/" + "p" * 33 + ": name '" + "p" * 33 + "' must be 1-32 characters long "
        "(it has 33)"
    )
    assert refused([command(options=[option("how.much")])]) == (
        REFUSED + "/ping, option how.much: name 'how.much' has '.': a name may hold only "
        "letters, numbers, - _ ' and the Devanagari and Thai scripts"
    )
    # Context menu commands may have capitals and spaces, and no description.
    check_payload([{"name": "Show Stats", "type": 2}, {"name": "Quote It", "type": 3}])


def test_descriptions_are_1_to_100_characters() -> None:
    check_payload([command(description="x" * 100)])
    assert refused([command(options=[option(description="x" * 101)])]) == (
        REFUSED + "/ping, option amount: description must be 1-100 characters long (it has 101)"
    )


def test_at_most_25_options_and_25_choices() -> None:
    options = [option(f"o{index}", required=False) for index in range(26)]
    assert refused([command(options=options)]) == (
        REFUSED + "/ping: it has 26 options; Discord allows at most 25"
    )
    choices = [{"name": f"c{index}", "value": index} for index in range(26)]
    assert refused([command(options=[option(choices=choices)])]) == (
        REFUSED + "/ping, option amount: it has 26 choices; Discord allows at most 25"
    )
    long_value = [{"name": "long", "value": "v" * 101}]
    assert refused([command(options=[option(kind=STRING, choices=long_value)])]) == (
        REFUSED + "/ping, option amount: choice 'long': value must be at most 100 characters "
        "long (it has 101)"
    )


def test_bounds_and_lengths() -> None:
    assert refused([command(options=[option(min_value=-(2**53))])]) == (
        REFUSED + "/ping, option amount: min_value -9007199254740992 is outside Discord's "
        "integer range ±9007199254740991"
    )
    assert refused([command(options=[option(min_value=5, max_value=4)])]) == (
        REFUSED + "/ping, option amount: min_value 5 is greater than max_value 4"
    )
    assert refused([command(options=[option(kind=STRING, max_length=6001)])]) == (
        REFUSED + "/ping, option amount: max_length 6001 is outside Discord's range 1-6000"
    )
    check_payload([command(options=[option(kind=STRING, min_length=0, max_length=6000)])])


def test_an_unknown_locale() -> None:
    assert refused([command(name_localizations={"en": "ping"})]) == (
        REFUSED + "/ping, locale en: name_localizations uses a locale Discord does not have"
    )
    choice = {"name": "all", "value": "all", "name_localizations": {"es": "todo"}}
    assert refused([command(options=[option(kind=STRING, choices=[choice])])]) == (
        REFUSED + "/ping, option amount, locale es: choice 'all': name_localizations uses a "
        "locale Discord does not have"
    )


def test_required_options_come_first_and_subcommands_nest_as_discord_allows() -> None:
    options = [option("first", required=False), option("second", required=True)]
    assert refused([command(options=options)]) == (
        REFUSED + "/ping, option second: it is required but comes after the optional first"
    )
    inner = option("deeper", SUB_COMMAND)
    outer = option("sub", SUB_COMMAND, options=[inner])
    assert refused([command(options=[outer])]) == (
        REFUSED + "/ping sub: a subcommand cannot hold subcommands or subcommand groups"
    )
    assert refused([command(options=[outer | {"options": []}, option()])]) == (
        REFUSED + "/ping: subcommands and groups cannot sit beside ordinary options"
    )


def test_a_command_over_4000_characters_in_one_locale() -> None:
    """Default texts under 4000, French ones over: Discord counts each locale."""
    options = [
        option(
            f"o{index:02}",
            kind=STRING,
            description="d" * 60,
            description_localizations={"fr": "d" * 100},
            choices=[{"name": "c" * 50, "value": "v", "name_localizations": {"fr": "c" * 100}}],
        )
        for index in range(25)
    ]
    payload = [command(options=options)]
    # ping + description, then per option its name, description, choice name and value
    default = 4 + 14 + 25 * (3 + 60 + 50 + 1)
    french = 4 + 14 + 25 * (3 + 100 + 100 + 1)
    assert default <= 4000 < french
    assert refused(payload) == (
        REFUSED + f"/ping, locale fr: its names, descriptions and choices come to {french} "
        "characters; Discord allows at most 4000"
    )


def test_command_counts_and_names() -> None:
    assert refused([command(f"c{index}") for index in range(101)]) == (
        REFUSED + "the command list: it has 101 chat input commands; Discord allows at most 100"
    )
    assert refused([{"name": f"User {index}", "type": 2} for index in range(6)]) == (
        REFUSED + "the command list: it has 6 user commands; Discord allows at most 5"
    )
    assert refused([command(), command()]) == (
        REFUSED + "/ping: 2 chat input commands share this name"
    )
    check_payload([command(), {"name": "ping", "type": 2}])  # one name, two types
