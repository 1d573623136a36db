"""The fake refuses what Discord refuses: one test per family of rules, each sending a body
that breaks one rule and checking Discord's answer (400, code 50035, ``errors`` naming the
field) and that the refusal is recorded as a problem, which fails any test that leaves it.

Requests go straight over HTTP, as a client that skips discord.py's own checks would."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from fakediscord import FakeDiscord, FakeGuild, Player
from fakediscord.api_schema import check_request, match_route
from fakediscord.interactions import InteractionType
from fakediscord.probe import ProbeBot

Path = tuple[str | int, ...]


async def send(
    fake: FakeDiscord,
    method: str,
    path: str,
    body: Any = None,
    *,
    query: str = "",
    multipart: bool = False,
) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bot {fake.token}"}
    url = f"{fake.api_base}{path}{query}"
    async with aiohttp.ClientSession() as session:
        if multipart:
            form = aiohttp.FormData()
            form.add_field("payload_json", json.dumps(body), content_type="application/json")
            form.add_field("files[0]", b"\x89PNG", filename="board.png", content_type="image/png")
            request = session.request(method, url, data=form, headers=headers)
        elif body is None:
            request = session.request(method, url, headers=headers)
        else:
            request = session.request(method, url, json=body, headers=headers)
        async with request as response:
            text = await response.text()
            return response.status, json.loads(text) if text else {}


def field_errors(answer: dict[str, Any], where: Path) -> list[dict[str, str]]:
    """The ``_errors`` Discord lists at one field's path (KeyError if none are there)."""
    node: Any = answer["errors"]
    for part in where:
        node = node[str(part)]
    errors: list[dict[str, str]] = node["_errors"]
    return errors


def refused(fake: FakeDiscord, status: int, answer: dict[str, Any], where: Path) -> str:
    """Asserts Discord's Invalid Form Body at ``where`` and takes the recorded problem;
    returns the error's code."""
    assert status == 400, answer
    assert answer["code"] == 50035 and answer["message"] == "Invalid Form Body"
    errors = field_errors(answer, where)
    assert errors and errors[0]["code"] and errors[0]["message"]
    problems = fake.take_problems("invalid-body")
    assert len(problems) == 1, problems
    return errors[0]["code"]


def button(custom_id: str, label: str = "Go") -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id}


def row(*children: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(children)}


def select(custom_id: str, count: int) -> dict[str, Any]:
    options = [{"label": f"o{i}", "value": f"v{i}"} for i in range(count)]
    return {"type": 3, "custom_id": custom_id, "options": options}


def command(**fields: Any) -> dict[str, Any]:
    return {"name": "game", "description": "Play a game.", "type": 1, **fields}


def int_option(name: str = "table", **fields: Any) -> dict[str, Any]:
    return {"type": 4, "name": name, "description": "A number.", **fields}


# -- routes, parameters and the description's schemas --------------------------------------


async def test_a_route_discord_does_not_have_is_404_and_a_problem(
    fake_discord: FakeDiscord,
) -> None:
    status, answer = await send(fake_discord, "GET", "/channels/1/not-a-route")
    assert (status, answer["code"]) == (404, 0)
    assert fake_discord.take_problems("unknown-route")


async def test_a_method_a_route_does_not_take_is_405(
    fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    status, answer = await send(fake_discord, "PUT", "/users/@me/channels", {})
    assert (status, answer["code"]) == (405, 0)
    assert fake_discord.take_problems("unknown-route")


async def test_a_path_parameter_that_is_no_snowflake(fake_discord: FakeDiscord) -> None:
    status, answer = await send(
        fake_discord, "POST", "/channels/general/messages", {"content": "x"}
    )
    assert refused(fake_discord, status, answer, ("channel_id",)) == "STRING_TYPE_REGEX"


async def test_a_query_parameter_of_the_wrong_type(
    fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    path = f"/channels/{guild.default_channel.id}/messages"
    status, answer = await send(fake_discord, "GET", path, query="?limit=many")
    assert refused(fake_discord, status, answer, ("limit",)) == "BASE_TYPE_INVALID"


async def test_a_field_of_the_wrong_type(fake_discord: FakeDiscord, guild: FakeGuild) -> None:
    path = f"/channels/{guild.default_channel.id}/messages"
    status, answer = await send(fake_discord, "POST", path, {"content": "x", "tts": "yes"})
    assert refused(fake_discord, status, answer, ("tts",)) == "BASE_TYPE_INVALID"
    assert guild.default_channel.messages() == []


async def test_a_missing_required_field(fake_discord: FakeDiscord, guild: FakeGuild) -> None:
    path = f"/applications/{fake_discord.application_id}/guilds/{guild.id}/commands"
    status, answer = await send(fake_discord, "PUT", path, [{"description": "Nameless."}])
    assert refused(fake_discord, status, answer, (0, "name")) == "BASE_TYPE_REQUIRED"


async def test_a_multipart_requests_payload_json_is_checked(
    fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    path = f"/channels/{guild.default_channel.id}/messages"
    body = {"content": "board", "attachments": [{"id": 0, "description": "d" * 1025}]}
    status, answer = await send(fake_discord, "POST", path, body, multipart=True)
    where = ("attachments", 0, "description")
    assert refused(fake_discord, status, answer, where) == "BASE_TYPE_MAX_LENGTH"
    assert guild.default_channel.messages() == []


async def test_an_interaction_answers_body_is_checked_under_data(
    fake_discord: FakeDiscord,
) -> None:
    body = {"type": 4, "data": {"content": "hi", "components": [row(button("x" * 101))]}}
    status, answer = await send(
        fake_discord, "POST", "/interactions/1/token/callback", body, query="?with_response=1"
    )
    where = ("data", "components", 0, "components", 0, "custom_id")
    assert refused(fake_discord, status, answer, where) == "BASE_TYPE_MAX_LENGTH"


def test_a_union_is_checked_against_its_own_branch() -> None:
    """A button with a bad field is named by that field, not by a select's ``type``."""
    body = {"components": [row(button("ok", label="L" * 81))]}
    _, violations = check_request(
        "POST", "/channels/1/messages", {}, "application/json", body, has_body=True
    )
    assert [(v.where, v.code) for v in violations] == [
        (("components", 0, "components", 0, "label"), "BASE_TYPE_MAX_LENGTH")
    ]


def test_a_literal_segment_wins_over_a_parameter() -> None:
    assert match_route("/webhooks/1/tok/messages/@original") == (
        "/webhooks/{webhook_id}/{webhook_token}/messages/@original",
        {"webhook_id": "1", "webhook_token": "tok"},
    )
    assert match_route("/users/@me/channels") == ("/users/@me/channels", {})


# -- command sync -----------------------------------------------------------------------------


def sync_path(fake: FakeDiscord, guild: FakeGuild) -> str:
    return f"/applications/{fake.application_id}/guilds/{guild.id}/commands"


@pytest.mark.parametrize(
    ("commands", "where", "code"),
    [
        # The bug this check was built for: a bound beyond int53 (2**63 - 1).
        (
            [command(options=[int_option(max_value=2**63 - 1)])],
            (0, "options", 0, "max_value"),
            "NUMBER_TYPE_MAX",
        ),
        ([command(name="Game")], (0, "name"), "APPLICATION_COMMAND_INVALID_NAME"),
        ([command(name="new game")], (0, "name"), "APPLICATION_COMMAND_INVALID_NAME"),
        ([command(description="d" * 101)], (0, "description"), "BASE_TYPE_MAX_LENGTH"),
        (
            [command(options=[int_option(f"o{i}") for i in range(26)])],
            (0, "options"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            [
                command(
                    options=[int_option(choices=[{"name": f"c{i}", "value": i} for i in range(26)])]
                )
            ],
            (0, "options", 0, "choices"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            [command(description_localizations={"en": "Play."})],
            (0, "description_localizations", "en"),
            "BASE_TYPE_CHOICES",
        ),
        (
            [command(name_localizations={"fr": "Jeu"})],
            (0, "name_localizations", "fr"),
            "APPLICATION_COMMAND_INVALID_NAME",
        ),
        (
            [
                command(
                    options=[
                        {
                            "type": 3,
                            "name": "pick",
                            "description": "d" * 100,
                            "choices": [
                                {"name": "c" * 100, "value": f"{i:0>100}"} for i in range(25)
                            ],
                        },
                        *[int_option(f"n{i}", description="d" * 100) for i in range(20)],
                    ]
                )
            ],
            (0,),
            "APPLICATION_COMMAND_TOO_LARGE",
        ),
        (
            [command(options=[int_option("a"), int_option("b", required=True)])],
            (0, "options", 1, "required"),
            "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
        ),
    ],
    ids=[
        "int53-bound",
        "upper-case",
        "space-in-name",
        "description-101",
        "26-options",
        "26-choices",
        "unknown-locale",
        "localized-name-upper-case",
        "over-4000-characters",
        "required-after-optional",
    ],
)
async def test_a_command_sync_discord_would_refuse(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    commands: list[dict[str, Any]],
    where: Path,
    code: str,
) -> None:
    status, answer = await send(fake_discord, "PUT", sync_path(fake_discord, guild), commands)
    assert refused(fake_discord, status, answer, where) == code
    assert fake_discord.commands.in_scope(guild.id) == []


async def test_a_command_in_devanagari_thai_or_with_an_apostrophe_is_accepted(
    fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    commands = [command(name="खेलो"), command(name="เล่น"), command(name="don't-stop")]
    status, answer = await send(fake_discord, "PUT", sync_path(fake_discord, guild), commands)
    assert status == 200, answer
    assert sorted(c.name for c in fake_discord.commands.in_scope(guild.id)) == sorted(
        c["name"] for c in commands
    )


# -- messages: content, embeds, components, mentions ------------------------------------------


@pytest.mark.parametrize(
    ("body", "where", "code"),
    [
        ({"content": "x" * 2001}, ("content",), "BASE_TYPE_MAX_LENGTH"),
        ({"embeds": [{"title": "t"}] * 11}, ("embeds",), "BASE_TYPE_MAX_LENGTH"),
        (
            {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]},
            ("embeds",),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"components": [row(button(f"r{i}")) for i in range(6)]},
            ("components",),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"components": [row(*(button(f"b{i}") for i in range(6)))]},
            ("components", 0, "components"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"components": [row(select("s", 2), button("b"))]},
            ("components", 0, "components"),
            "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
        ),
        (
            {"components": [row(button("same")), row(button("same"))]},
            ("components", 1, "components", 0, "custom_id"),
            "COMPONENT_CUSTOM_ID_DUPLICATED",
        ),
        (
            {"components": [row(button("x" * 101))]},
            ("components", 0, "components", 0, "custom_id"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"components": [row(button("b", label="L" * 81))]},
            ("components", 0, "components", 0, "label"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"components": [row(select("s", 26))]},
            ("components", 0, "components", 0, "options"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"content": "hi", "allowed_mentions": {"parse": ["users"], "users": ["1"]}},
            ("allowed_mentions", "users"),
            "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
        ),
    ],
    ids=[
        "content-2001",
        "11-embeds",
        "embeds-over-6000",
        "6-action-rows",
        "6-buttons-in-a-row",
        "select-not-alone",
        "duplicate-custom-id",
        "custom-id-101",
        "label-81",
        "26-select-options",
        "parse-and-ids-of-one-kind",
    ],
)
async def test_a_message_discord_would_refuse(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    body: dict[str, Any],
    where: Path,
    code: str,
) -> None:
    path = f"/channels/{guild.default_channel.id}/messages"
    status, answer = await send(fake_discord, "POST", path, body)
    assert refused(fake_discord, status, answer, where) == code
    assert guild.default_channel.messages() == []


# -- modals -------------------------------------------------------------------------------


def text_input(custom_id: str, **fields: Any) -> dict[str, Any]:
    return row({"type": 4, "custom_id": custom_id, "style": 1, "label": "Bet", **fields})


@pytest.mark.parametrize(
    ("components", "where", "code"),
    [
        (
            [text_input(f"t{i}") for i in range(6)],
            ("data", "components"),
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            [text_input("bet", min_length=10, max_length=4)],
            ("data", "components", 0, "components", 0, "min_length"),
            "NUMBER_TYPE_MAX",
        ),
        (
            [text_input("bet", max_length=4001)],
            ("data", "components", 0, "components", 0, "max_length"),
            "NUMBER_TYPE_MAX",
        ),
        (
            [text_input("bet", label="L" * 46)],
            ("data", "components", 0, "components", 0, "label"),
            "BASE_TYPE_MAX_LENGTH",
        ),
    ],
    ids=["6-components", "min-above-max", "max-length-4001", "label-46"],
)
async def test_a_modal_discord_would_refuse(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: Player,
    probe: ProbeBot,
    components: list[dict[str, Any]],
    where: Path,
    code: str,
) -> None:
    # A press the probe leaves unanswered: the test answers it, as a bot would.
    interaction = await fake_discord.send_interaction(
        InteractionType.COMPONENT,
        user=alice.user,
        channel=guild.default_channel,
        data={"custom_id": "open", "component_type": 2},
        description="a press that opens a modal",
    )
    interaction.expect_answer = False
    body = {"type": 9, "data": {"custom_id": "bet", "title": "Bet", "components": components}}
    status, answer = await send(
        fake_discord,
        "POST",
        f"/interactions/{interaction.id}/{interaction.token}/callback",
        body,
        query="?with_response=1",
    )
    assert refused(fake_discord, status, answer, where) == code
    assert interaction.modal is None and interaction.callback_type is None
