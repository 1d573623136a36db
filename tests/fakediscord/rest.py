"""The REST API: every endpoint the bot calls, answered the way Discord answers (JSON errors
with Discord's codes, never a 5xx), with every request logged."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import discord
from aiohttp import web

from . import api_schema, pseudo
from .errors import (
    ALREADY_ACKNOWLEDGED,
    CANNOT_DM,
    INVALID_FORM_BODY,
    INVALID_WEBHOOK_TOKEN,
    MISSING_ACCESS,
    MISSING_PERMISSIONS,
    UNKNOWN_CHANNEL,
    UNKNOWN_GUILD,
    UNKNOWN_INTERACTION,
    UNKNOWN_MEMBER,
    UNKNOWN_MESSAGE,
    UNKNOWN_ROUTE,
    UNKNOWN_USER,
    UNKNOWN_WEBHOOK,
    DiscordError,
    invalid_form,
    not_found,
)
from .interactions import CallbackType, FakeInteraction, FakeModal, InteractionType
from .messages import apply_payload, media_type, read_body, validate_components
from .models import (
    DEFAULT_BOT_PERMISSIONS,
    EPHEMERAL_FLAG,
    LOADING_FLAG,
    MANAGE_MESSAGES,
    VIEW_CHANNEL,
    FakeChannel,
    FakeMessage,
    FakeThread,
    FakeUser,
)
from .threads import (
    SEND_MESSAGES_IN_THREADS,
    ThreadRoutes,
    may_unarchive,
    thread_archived,
)
from .wire import json_response as _json
from .wire import no_content as _no_content

if TYPE_CHECKING:
    from .server import FakeDiscord, RequestRecord

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

SEND_MESSAGES = discord.Permissions(send_messages=True).value
ATTACH_FILES = discord.Permissions(attach_files=True).value
READ_HISTORY = discord.Permissions(read_message_history=True).value
ADD_REACTIONS = discord.Permissions(add_reactions=True).value
CHAT_INPUT_COMMAND_MESSAGE = 20
# Discord's documentation (Interactions, "Modal"): at most 5 top-level components.
MODAL_COMPONENTS_LIMIT = 5
# Follow-ups to an interaction of an app installed only by the user (Interactions,
# "Create Followup Message"), and the error past them (JSON error code 40094).
USER_APP_FOLLOWUP_LIMIT = 5
MAX_FOLLOWUP_MESSAGES = 40094


def _request_key(name: str) -> Any:
    # Typed request keys exist from aiohttp 3.12 on; plain strings work (with a warning) before.
    key_type = getattr(web, "RequestKey", None)
    return name if key_type is None else key_type(name, object)


RECORD = _request_key("fake_discord_record")
PAYLOAD = _request_key("fake_discord_payload")
FILES = _request_key("fake_discord_files")


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "true")


class RestApi:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.threads = ThreadRoutes(self)

    # -- plumbing -----------------------------------------------------------------------

    def add_routes(self, app: web.Application) -> None:
        api = "/api/v10"
        routes: list[tuple[str, str, Handler]] = [
            ("GET", "/gateway", self.get_gateway),
            ("GET", "/gateway/bot", self.get_gateway_bot),
            ("GET", "/users/@me", self.get_me),
            ("GET", "/users/{user_id}", self.get_user),
            ("POST", "/users/@me/channels", self.create_dm),
            ("GET", "/oauth2/applications/@me", self.get_application),
            ("GET", "/applications/@me", self.get_application),
            ("GET", "/applications/{application_id}/commands", self.get_commands),
            ("PUT", "/applications/{application_id}/commands", self.put_commands),
            ("GET", "/applications/{application_id}/guilds/{guild_id}/commands", self.get_commands),
            ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", self.put_commands),
            (
                "GET",
                "/applications/{application_id}/guilds/{guild_id}/commands/permissions",
                self.empty_list,
            ),
            ("GET", "/applications/{application_id}/emojis", self.empty_items),
            ("GET", "/applications/{application_id}/entitlements", self.empty_list),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self.callback),
            ("POST", "/webhooks/{application_id}/{token}", self.followup),
            ("GET", "/webhooks/{application_id}/{token}/messages/{message_id}", self.get_wh_msg),
            ("PATCH", "/webhooks/{application_id}/{token}/messages/{message_id}", self.edit_wh_msg),
            ("DELETE", "/webhooks/{application_id}/{token}/messages/{message_id}", self.del_wh_msg),
            ("GET", "/channels/{channel_id}", self.get_channel),
            ("PATCH", "/channels/{channel_id}", self.threads.modify),
            ("DELETE", "/channels/{channel_id}", self.threads.delete),
            ("POST", "/channels/{channel_id}/threads", self.threads.without_message),
            (
                "POST",
                "/channels/{channel_id}/messages/{message_id}/threads",
                self.threads.from_message,
            ),
            ("PUT", "/channels/{channel_id}/thread-members/@me", self.threads.join),
            ("DELETE", "/channels/{channel_id}/thread-members/@me", self.threads.leave),
            ("PUT", "/channels/{channel_id}/thread-members/{user_id}", self.threads.add_member),
            (
                "DELETE",
                "/channels/{channel_id}/thread-members/{user_id}",
                self.threads.remove_member,
            ),
            ("GET", "/channels/{channel_id}/messages", self.list_messages),
            ("POST", "/channels/{channel_id}/messages", self.create_message),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self.get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self.edit_message),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self.delete_message),
            ("POST", "/channels/{channel_id}/typing", self.typing),
            (
                "PUT",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
                self.add_reaction,
            ),
            (
                "DELETE",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
                self.remove_reaction,
            ),
            ("GET", "/guilds/{guild_id}", self.get_guild),
            ("GET", "/guilds/{guild_id}/channels", self.get_guild_channels),
            ("GET", "/guilds/{guild_id}/roles", self.get_guild_roles),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, api + path, handler)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self.download)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.path.startswith("/api/"):
            return await handler(request)
        from .server import RequestRecord

        resource = request.match_info.route.resource
        route = resource.canonical if resource is not None else request.path
        record = RequestRecord(
            method=request.method,
            path=request.path.removeprefix("/api/v10"),
            route=route.removeprefix("/api/v10"),
            query=dict(request.query),
            body=None,
            files=[],
            at=time.perf_counter(),
            params=dict(request.match_info),
            fake=self.fake,
        )
        request[RECORD] = record
        self.fake.requests.append(record)
        try:
            response = await self._handle(request, handler, record)
            self.fake.rate_limits.stamp(record, response)
        finally:
            self.fake.notify()
        return response

    async def _handle(
        self, request: web.Request, handler: Handler, record: RequestRecord
    ) -> web.StreamResponse:
        try:
            payload, files = await read_body(request)
        except DiscordError as error:
            return self._error(record, error)
        except Exception as error:
            return self._crashed(record, error)
        record.body = payload
        record.files = [f.filename for f in files]
        request[PAYLOAD] = payload
        request[FILES] = files
        refusal = self._check_against_discord(request, record)
        if refusal is not None:
            return refusal
        try:
            verdict = await self.fake.faults.intercept(record)
        except Exception as error:
            return self._crashed(record, error)
        if verdict is None:
            return await self._answer(request, handler, record)
        if verdict.error is not None:
            return self._error(record, verdict.error)
        if verdict.response is not None:
            return verdict.response
        # A dropped connection: the bot gets no answer at all (aiohttp raises
        # ServerDisconnectedError in it). ``applied``: Discord did the work first.
        if verdict.applied:
            response = await self._answer(request, handler, record)
        else:
            response = web.Response(status=204)
        record.delivered = False
        transport = request.transport
        if transport is not None:
            transport.close()
        return response

    async def _answer(
        self, request: web.Request, handler: Handler, record: RequestRecord
    ) -> web.StreamResponse:
        """Handle the request as Discord would and record the answer."""
        # Discord's rate limits first (ratelimits.py): a request over its bucket or the
        # global limit is answered 429 and not applied.
        refused = self.fake.rate_limits.admit(record)
        if refused is not None:
            return refused
        try:
            self._check_auth(request, record)
            response = await handler(request)
        except DiscordError as error:
            return self._error(record, error)
        except web.HTTPException as error:
            # An endpoint the fake does not know: answer like Discord, flag it for the test.
            body = {"message": f"{error.status}: {error.reason}", "code": UNKNOWN_ROUTE}
            record.status = error.status
            record.response = body
            self.fake.record_problem(
                "unimplemented-route",
                f"{record.method} {record.path}: the fake does not implement it yet",
            )
            return _json(body, error.status)
        except Exception as error:
            return self._crashed(record, error)
        record.status = response.status
        raw = getattr(response, "body", None)
        if isinstance(raw, bytes) and raw:
            record.response = json.loads(raw)
            if self.fake.check_answers:
                self.fake.check_answer(record)
        return response

    def _check_against_discord(
        self, request: web.Request, record: RequestRecord
    ) -> web.Response | None:
        """Discord's own checks, before anything else: a route and method it has, and
        parameters and a body its API description accepts (tests/fakediscord/api_schema.py)
        plus the rules its documentation states (messages.py, commands.py)."""
        template, violations = api_schema.check_request(
            record.method,
            record.path,
            record.query,
            media_type(request),
            record.body,
            has_body=record.body is not None or bool(record.files),
        )
        for disagreement in api_schema.take_disagreements():
            self.fake.record_problem("schema-validators-disagree", disagreement)
        if template is None:
            known = api_schema.match_route(record.path) is not None
            status, text = (405, "405: Method Not Allowed") if known else (404, "404: Not Found")
            self.fake.record_problem(
                "unknown-route", f"{record.method} {record.path}: Discord has no such endpoint"
            )
            return self._error(record, DiscordError(status, UNKNOWN_ROUTE, text))
        if not violations:
            return None
        return self._error(
            record,
            DiscordError(
                400,
                INVALID_FORM_BODY,
                "Invalid Form Body",
                api_schema.errors_object(violations),
            ),
        )

    def _error(self, record: RequestRecord, error: DiscordError) -> web.Response:
        record.status = error.status
        record.response = error.body()
        if error.code == 50035 and record.fault is None:
            self.fake.record_problem(
                "invalid-body", f"{record.method} {record.path}: {error.errors}"
            )
        return _json(error.body(), error.status)

    def _crashed(self, record: RequestRecord, error: Exception) -> web.Response:
        # A bug in the fake must not look like a Discord outage (discord.py retries a 5xx
        # for 16 s): answer 400 at once and fail the test with the traceback's summary.
        log.error("fake discord crashed on %s %s", record.method, record.path, exc_info=error)
        body = {"message": f"fake discord crashed: {error!r}", "code": UNKNOWN_ROUTE}
        record.status = 400
        record.response = body
        self.fake.record_problem("fake-crashed", f"{record.method} {record.path}: {error!r}")
        return _json(body, 400)

    def _check_auth(self, request: web.Request, record: RequestRecord) -> None:
        if record.route.startswith(("/webhooks/", "/interactions/")):
            return
        if request.headers.get("Authorization") != f"Bot {self.fake.token}":
            raise DiscordError(401, 0, "401: Unauthorized")

    # -- lookups ------------------------------------------------------------------------

    def payload_of(self, request: web.Request) -> dict[str, Any]:
        payload = request[PAYLOAD]
        return payload if isinstance(payload, dict) else {}

    def _channel(self, request: web.Request) -> FakeChannel:
        try:
            channel = self.fake.channels.get(int(request.match_info["channel_id"]))
        except ValueError:
            channel = None
        if channel is None:
            raise not_found(UNKNOWN_CHANNEL, "Channel")
        if not channel.bot_is_member:
            # A DM or group DM between users, or a server that never added the bot: the
            # bot reaches it through interactions only. A bot that tries is a problem
            # (take_problems("missing-access") in a test that does it on purpose).
            self.fake.record_problem(
                "missing-access",
                f"{request.method} {request.path.removeprefix('/api/v10')}: the bot is not a "
                f"member of {channel!r}: Discord answers 403 / 50001 Missing Access",
            )
            raise DiscordError(403, MISSING_ACCESS, "Missing Access")
        if channel.guild is not None and not channel.bot_permissions().value & VIEW_CHANNEL:
            raise DiscordError(403, MISSING_ACCESS, "Missing Access")
        return channel

    def _channel_message(self, request: web.Request, channel: FakeChannel) -> FakeMessage:
        try:
            message = channel.all_messages.get(int(request.match_info["message_id"]))
        except ValueError:
            message = None
        # Ephemeral messages do not exist for the channel endpoints.
        if message is None or message.deleted or message.visible_to is not None:
            raise not_found(UNKNOWN_MESSAGE, "Message")
        return message

    def _webhook_interaction(self, request: web.Request) -> FakeInteraction:
        interaction = self.fake.interactions_by_token.get(request.match_info["token"])
        if interaction is None or request.match_info["application_id"] != str(
            self.fake.application_id
        ):
            raise not_found(UNKNOWN_WEBHOOK, "Webhook")
        if interaction.token_expired():
            self.fake.record_problem(
                "expired-token",
                f"{request.method} {request.path.removeprefix('/api/v10')[:60]}...: the "
                f"interaction token of {interaction.description} is older than 15 minutes",
            )
            raise DiscordError(401, INVALID_WEBHOOK_TOKEN, "Invalid Webhook Token")
        if interaction.callback_type is None:
            raise not_found(UNKNOWN_WEBHOOK, "Webhook")
        return interaction

    def _webhook_message(self, request: web.Request, interaction: FakeInteraction) -> FakeMessage:
        raw_id = request.match_info["message_id"]
        message: FakeMessage | None
        if raw_id == "@original":
            message = interaction.response_message
        else:
            candidates = [*interaction.followups]
            if interaction.response_message is not None:
                candidates.append(interaction.response_message)
            message = next((m for m in candidates if str(m.id) == raw_id), None)
        if message is None or message.deleted:
            raise not_found(UNKNOWN_MESSAGE, "Message")
        return message

    # -- login, gateway, application ----------------------------------------------------

    async def get_gateway(self, request: web.Request) -> web.Response:
        return _json({"url": self.fake.gateway_url})

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        gateway = self.fake.gateway
        return _json(
            {
                "url": self.fake.gateway_url,
                "shards": gateway.shard_count,
                "session_start_limit": {
                    "total": gateway.session_start_total,
                    "remaining": gateway.session_starts_remaining,
                    "reset_after": 14_400_000,
                    "max_concurrency": gateway.max_concurrency,
                },
            }
        )

    async def get_me(self, request: web.Request) -> web.Response:
        return _json(self.fake.bot_user_payload())

    async def get_user(self, request: web.Request) -> web.Response:
        user = self.fake.users.get(_int(request.match_info["user_id"]))
        if user is None:
            raise not_found(UNKNOWN_USER, "User")
        return _json(user.payload())

    async def get_application(self, request: web.Request) -> web.Response:
        # The application's owner: the first human the fake knows (a guild owner), if any.
        owner = next((u for u in self.fake.users.values() if not u.bot), self.fake.bot_user)
        return _json(
            {
                "id": str(self.fake.application_id),
                "name": self.fake.bot_user.name,
                "icon": None,
                "description": "",
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "bot": self.fake.bot_user.payload(),
                "owner": owner.payload(),
                "summary": "",
                "verify_key": "0" * 64,
                "team": None,
                "type": None,
                "flags": 0,
                "flags_new": "0",
                "tags": [],
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "role_connections_verification_url": None,
                "explicit_content_filter": 0,
                "eligible_oauth2_scopes": ["applications.commands", "bot"],
                "approximate_guild_count": len(self.fake.guilds),
                "approximate_user_install_count": sum(
                    1 for u in self.fake.users.values() if u.app_installed
                ),
                # Installable to servers and to users (the portal's Installation page).
                "integration_types_config": {
                    "0": {
                        "oauth2_install_params": {
                            "scopes": ["applications.commands", "bot"],
                            "permissions": str(DEFAULT_BOT_PERMISSIONS.value),
                        }
                    },
                    "1": {
                        "oauth2_install_params": {
                            "scopes": ["applications.commands"],
                            "permissions": "0",
                        }
                    },
                },
                "approximate_user_authorization_count": 0,
            }
        )

    async def get_commands(self, request: web.Request) -> web.Response:
        scope = self._command_scope(request)
        # Discord's "with_localizations" query parameter: without it, the answer leaves
        # the localization dictionaries out.
        full = request.query.get("with_localizations", "") in api_schema.QUERY_TRUE
        return _json(
            [
                c.payload(self.fake.application_id, localizations=full)
                for c in self.fake.commands.in_scope(scope)
            ]
        )

    async def put_commands(self, request: web.Request) -> web.Response:
        scope = self._command_scope(request)
        return _json(self.fake.commands.sync(scope, request[PAYLOAD] or []))

    def _command_scope(self, request: web.Request) -> int | None:
        if request.match_info["application_id"] != str(self.fake.application_id):
            raise DiscordError(403, 50001, "Missing Access")
        if "guild_id" not in request.match_info:
            return None
        guild_id = _int(request.match_info["guild_id"])
        if guild_id not in self.fake.guilds:
            raise DiscordError(403, MISSING_ACCESS, "Missing Access")
        return guild_id

    async def empty_list(self, request: web.Request) -> web.Response:
        return _json([])

    async def empty_items(self, request: web.Request) -> web.Response:
        return _json({"items": []})

    # -- interaction callbacks ----------------------------------------------------------

    async def callback(self, request: web.Request) -> web.StreamResponse:
        arrived = time.perf_counter()
        interaction = self.fake.interactions.get(_int(request.match_info["interaction_id"]))
        if interaction is None or interaction.token != request.match_info["token"]:
            raise not_found(UNKNOWN_INTERACTION, "interaction")
        payload = request[PAYLOAD] or {}
        kind = int(payload.get("type", 0))
        # Everything up to marking the interaction answered runs without an await, so two
        # callbacks racing each other cannot both be accepted.
        if interaction.dead:
            # Past the window (or killed by an injected 10062) the interaction is dead for
            # Discord: every callback gets 10062.
            interaction.callback_attempts.append((kind, 404))
            raise not_found(UNKNOWN_INTERACTION, "interaction")
        if interaction.callback_type is not None:
            interaction.callback_attempts.append((kind, 400))
            if not interaction.answer_unconfirmed:
                # After an injected drop the bot could not know its answer landed: asking
                # again is how it finds out, not a double answer.
                self.fake.record_problem(
                    "already-acknowledged",
                    f"a second callback (type {kind}) to {interaction.description}",
                )
            raise DiscordError(
                400, ALREADY_ACKNOWLEDGED, "Interaction has already been acknowledged."
            )
        assert interaction.sent_at is not None
        if arrived - interaction.sent_at > self.fake.callback_deadline and interaction.faults:
            # Late because of what the test injected: the player saw "This interaction
            # failed", which the test accounts for as an interaction-failed problem.
            interaction.callback_attempts.append((kind, 404))
            interaction.mark_lost(
                f"after the injected fault(s) {interaction.faults} the answer came at "
                f"{arrived - interaction.sent_at:.2f} s"
            )
            raise not_found(UNKNOWN_INTERACTION, "interaction")
        if arrived - interaction.sent_at > self.fake.callback_deadline:
            interaction.late = True
            interaction.answered_at = arrived
            interaction.callback_attempts.append((kind, 404))
            interaction.answered.set()
            self.fake.record_problem(
                "late-answer",
                f"the first answer to {interaction.description} came after "
                f"{arrived - interaction.sent_at:.2f} s (Discord allows "
                f"{self.fake.callback_deadline:.0f} s)",
            )
            raise not_found(UNKNOWN_INTERACTION, "interaction")
        try:
            callback_type = CallbackType(kind)
        except ValueError:
            raise invalid_form(f"unknown interaction callback type {kind}") from None
        message, created = self._apply_callback(interaction, callback_type, payload, request)
        interaction.callback_type = callback_type
        interaction.answered_at = arrived
        interaction.callback_attempts.append((kind, 200))
        interaction.stop_watching()
        interaction.answered.set()
        if created and message is not None:
            await self.fake.store_message(message)
        elif callback_type is CallbackType.UPDATE_MESSAGE and message is not None:
            await self.fake.message_edited(message)
        if not _truthy(request.query.get("with_response")):
            return _no_content()
        return _json(self._callback_body(interaction, callback_type, message))

    def _callback_body(
        self,
        interaction: FakeInteraction,
        callback_type: CallbackType,
        message: FakeMessage | None,
    ) -> dict[str, Any]:
        """The ``with_response`` body: the ``response_message_*`` fields only when the answer
        has a message (a modal has none), the ``resource`` only for the types Discord's
        description gives one (4 and 7, with the message)."""
        answered: dict[str, Any] = {"id": str(interaction.id), "type": int(interaction.type)}
        if message is not None:
            answered["response_message_id"] = str(message.id)
            answered["response_message_loading"] = callback_type is CallbackType.DEFERRED_MESSAGE
            answered["response_message_ephemeral"] = message.ephemeral
        body: dict[str, Any] = {"interaction": answered}
        if message is not None and callback_type in (
            CallbackType.MESSAGE,
            CallbackType.UPDATE_MESSAGE,
        ):
            body["resource"] = {
                "type": int(callback_type),
                "message": message.payload(with_guild=True),
            }
        return body

    def _apply_callback(
        self,
        interaction: FakeInteraction,
        callback_type: CallbackType,
        payload: dict[str, Any],
        request: web.Request,
    ) -> tuple[FakeMessage | None, bool]:
        """Validate and apply a first callback; returns (message, newly created)."""
        data = payload.get("data") or {}
        is_command = interaction.type is InteractionType.APPLICATION_COMMAND
        if callback_type in (CallbackType.MESSAGE, CallbackType.DEFERRED_MESSAGE):
            message = self.fake.new_message(
                interaction.channel,
                self.fake.bot_user,
                message_type=CHAT_INPUT_COMMAND_MESSAGE if is_command else 0,
                interaction=interaction,
            )
            ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL_FLAG)
            # A user's app where the user may not post (or use external apps): Discord
            # shows its answers to them alone (Application resource, "User Context").
            ephemeral = ephemeral or interaction.answers_ephemeral_only
            if callback_type is CallbackType.MESSAGE:
                apply_payload(
                    self.fake, message, data, request[FILES], creating=True, where=("data",)
                )
                if ephemeral:
                    message.flags |= EPHEMERAL_FLAG
            else:
                message.flags = LOADING_FLAG | (EPHEMERAL_FLAG if ephemeral else 0)
            if ephemeral:
                message.visible_to = interaction.user.id
            interaction.response_message = message
            return message, True
        if callback_type in (CallbackType.DEFERRED_UPDATE, CallbackType.UPDATE_MESSAGE):
            source = interaction.source_message
            if source is None:
                raise invalid_form(
                    f"callback type {int(callback_type)} needs an interaction on a message "
                    f"({interaction.description} has none)"
                )
            if callback_type is CallbackType.UPDATE_MESSAGE:
                apply_payload(
                    self.fake, source, data, request[FILES], creating=False, where=("data",)
                )
            interaction.response_message = source
            return source, False
        if callback_type is CallbackType.MODAL:
            if interaction.type is InteractionType.MODAL_SUBMIT:
                raise invalid_form("a modal cannot be answered with another modal")
            components = data.get("components") or []
            title = str(data.get("title") or "")
            if not 1 <= len(title) <= 45 or not data.get("custom_id"):
                raise invalid_form(
                    "a modal needs a custom_id and a 1-45 character title",
                    ("data", "title"),
                    "BASE_TYPE_BAD_LENGTH",
                )
            if not 1 <= len(components) <= MODAL_COMPONENTS_LIMIT:
                raise invalid_form(
                    "a modal has 1 to 5 top-level components",
                    ("data", "components"),
                    "BASE_TYPE_BAD_LENGTH",
                )
            # Custom ids unique, text inputs within their own bounds (a modal's tree).
            validate_components(components, v2=True, where=("data",))
            if pseudo.active():
                title, components = pseudo.plain(title), pseudo.plain_value(components)
            interaction.modal = FakeModal(
                custom_id=str(data["custom_id"]),
                title=title,
                components=components,
                opened_by=interaction.user,
                interaction=interaction,
            )
            return None, False
        raise invalid_form(f"callback type {int(callback_type)} is not valid here")

    # -- follow-ups and @original -------------------------------------------------------

    async def followup(self, request: web.Request) -> web.StreamResponse:
        interaction = self._webhook_interaction(request)
        payload = request[PAYLOAD] or {}
        original = interaction.response_message
        if (
            interaction.callback_type is CallbackType.DEFERRED_MESSAGE
            and original is not None
            and original.loading
        ):
            # After a "thinking" defer, Discord turns the first follow-up into the answer.
            ephemeral = original.flags & EPHEMERAL_FLAG
            apply_payload(self.fake, original, payload, request[FILES], creating=True)
            original.flags = (original.flags & ~(EPHEMERAL_FLAG | LOADING_FLAG)) | ephemeral
            original.notify_mentions()  # the answer, sent at last
            interaction.followups.append(original)
            await self.fake.message_edited(original)
            message = original
        else:
            created = [m for m in interaction.followups if m is not original]
            if interaction.user_installed_only and len(created) >= USER_APP_FOLLOWUP_LIMIT:
                # Interactions reference, Create Followup Message: five for an app the
                # user installed that is not installed where it is used.
                self.fake.record_problem(
                    "followup-limit",
                    f"a follow-up #{len(created) + 1} to {interaction.description}: Discord "
                    f"allows {USER_APP_FOLLOWUP_LIMIT} to a user-installed app's interaction",
                )
                raise DiscordError(
                    400,
                    MAX_FOLLOWUP_MESSAGES,
                    "This interaction has hit the maximum number of follow up messages",
                )
            message = self.fake.new_message(
                interaction.channel, self.fake.bot_user, interaction=interaction
            )
            apply_payload(self.fake, message, payload, request[FILES], creating=True)
            if interaction.answers_ephemeral_only:
                message.flags |= EPHEMERAL_FLAG
            if message.ephemeral:
                message.visible_to = interaction.user.id
            interaction.followups.append(message)
            await self.fake.store_message(message)
        if not _truthy(request.query.get("wait")):
            return _no_content()
        return _json(message.payload(with_guild=True))

    async def get_wh_msg(self, request: web.Request) -> web.Response:
        interaction = self._webhook_interaction(request)
        return _json(self._webhook_message(request, interaction).payload(with_guild=True))

    async def edit_wh_msg(self, request: web.Request) -> web.Response:
        interaction = self._webhook_interaction(request)
        message = self._webhook_message(request, interaction)
        was_loading = message.loading
        apply_payload(self.fake, message, request[PAYLOAD], request[FILES], creating=False)
        message.flags &= ~LOADING_FLAG
        if was_loading:
            message.notify_mentions()  # a deferred answer filled in is its sending
        await self.fake.message_edited(message)
        return _json(message.payload(with_guild=True))

    async def del_wh_msg(self, request: web.Request) -> web.StreamResponse:
        interaction = self._webhook_interaction(request)
        message = self._webhook_message(request, interaction)
        await self.fake.message_deleted(message)
        return _no_content()

    # -- channels and messages ----------------------------------------------------------

    async def get_channel(self, request: web.Request) -> web.Response:
        return _json(self._channel(request).payload())

    async def list_messages(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._require(channel, READ_HISTORY)
        limit = min(max(int(request.query.get("limit", 50)), 1), 100)
        before = request.query.get("before")
        after = request.query.get("after")
        messages = [m for m in channel.messages() if m.visible_to is None]
        if before is not None:
            messages = [m for m in messages if m.id < int(before)]
        if after is not None:
            messages = [m for m in messages if m.id > int(after)]
            messages = messages[:limit]
        messages = sorted(messages, key=lambda m: m.id, reverse=True)[:limit]
        return _json([m.payload() for m in messages])

    async def create_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        if channel.recipient is not None:
            if not self._may_dm(channel.recipient):
                raise DiscordError(403, CANNOT_DM, "Cannot send messages to this user")
        else:
            # In a thread Discord checks Send Messages in Threads instead of Send Messages.
            self._require(channel, SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES)
            if request[FILES]:
                self._require(channel, ATTACH_FILES)
        unarchive = False
        if isinstance(channel, FakeThread) and channel.archived:
            if not may_unarchive(channel, channel.bot_permissions().value):
                raise thread_archived()
            unarchive = True
        message = self.fake.new_message(channel, self.fake.bot_user)
        apply_payload(self.fake, message, request[PAYLOAD], request[FILES], creating=True)
        if message.ephemeral:
            raise invalid_form("only interaction responses can be ephemeral")
        if isinstance(channel, FakeThread) and unarchive:
            # A message in an archived thread brings it back (THREAD_UPDATE first).
            await channel.unarchive()
        await self.fake.store_message(message)
        return _json(message.payload(with_guild=True))

    async def get_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._require(channel, READ_HISTORY)
        return _json(self._channel_message(request, channel).payload(with_guild=True))

    async def edit_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self._channel_message(request, channel)
        if message.author.id != self.fake.bot_user.id:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        self._not_archived(channel)
        if channel.recipient is not None and not self._may_dm(channel.recipient):
            raise DiscordError(403, CANNOT_DM, "Cannot send messages to this user")
        apply_payload(self.fake, message, request[PAYLOAD], request[FILES], creating=False)
        await self.fake.message_edited(message)
        return _json(message.payload(with_guild=True))

    async def delete_message(self, request: web.Request) -> web.StreamResponse:
        channel = self._channel(request)
        message = self._channel_message(request, channel)
        if message.author.id != self.fake.bot_user.id:
            self._require(channel, MANAGE_MESSAGES)
        self._not_archived(channel)
        await self.fake.message_deleted(message)
        return _no_content()

    async def typing(self, request: web.Request) -> web.StreamResponse:
        channel = self._channel(request)
        if channel.guild is not None:
            self._require(channel, SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES)
        return _no_content()

    async def add_reaction(self, request: web.Request) -> web.StreamResponse:
        channel = self._channel(request)
        if channel.guild is not None:
            self._require(channel, ADD_REACTIONS | READ_HISTORY)
        message = self._channel_message(request, channel)
        self._not_archived(channel)
        emoji = unquote(request.match_info["emoji"])
        message.reactions.setdefault(emoji, set()).add(self.fake.bot_user.id)
        return _no_content()

    async def remove_reaction(self, request: web.Request) -> web.StreamResponse:
        channel = self._channel(request)
        message = self._channel_message(request, channel)
        emoji = unquote(request.match_info["emoji"])
        message.reactions.get(emoji, set()).discard(self.fake.bot_user.id)
        return _no_content()

    @staticmethod
    def _not_archived(channel: FakeChannel) -> None:
        if isinstance(channel, FakeThread) and channel.archived:
            raise thread_archived()

    def _require(self, channel: FakeChannel, permissions: int) -> None:
        if channel.bot_permissions().value & permissions != permissions:
            raise DiscordError(403, MISSING_PERMISSIONS, "Missing Permissions")

    def _may_dm(self, user: FakeUser) -> bool:
        """Discord lets a bot DM a user whose DMs are open and who shares a server with it
        or installed the app; anyone else: 403 / 50007 when the message is sent (opening
        the channel works)."""
        if not user.dms_open:
            return False
        return user.app_installed or self.fake.shares_a_server_with_bot(user)

    async def create_dm(self, request: web.Request) -> web.Response:
        payload = request[PAYLOAD] or {}
        user = self.fake.users.get(_int(str(payload.get("recipient_id", "0"))))
        if user is None or user.bot:
            raise not_found(UNKNOWN_USER, "User")
        return _json(self.fake.dm_channel_for(user).payload())

    async def download(self, request: web.Request) -> web.StreamResponse:
        channel = self.fake.channels.get(_int(request.match_info["channel_id"]))
        attachment_id = _int(request.match_info["attachment_id"])
        for message in [] if channel is None else channel.all_messages.values():
            for attachment in message.attachments:
                if attachment.id == attachment_id:
                    return web.Response(
                        body=attachment.content, content_type=attachment.content_type
                    )
        return web.Response(status=404)

    # -- guilds -------------------------------------------------------------------------

    def _guild(self, request: web.Request):  # type: ignore[no-untyped-def]
        guild_id = _int(request.match_info["guild_id"])
        guild = self.fake.guilds.get(guild_id)
        if guild is None and guild_id in self.fake.guilds_without_bot:
            # A server that never added the bot: it exists, the bot has no access.
            self.fake.record_problem(
                "missing-access",
                f"{request.method} {request.path.removeprefix('/api/v10')}: the bot is not in "
                f"{self.fake.guilds_without_bot[guild_id]!r}: Discord answers 403 / 50001",
            )
            raise DiscordError(403, MISSING_ACCESS, "Missing Access")
        if guild is None:
            raise not_found(UNKNOWN_GUILD, "Guild")
        return guild

    async def get_guild(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        data = guild.payload(with_all_members=False)
        for key in ("members", "channels", "threads", "presences", "voice_states"):
            data.pop(key, None)
        if _truthy(request.query.get("with_counts")):
            data["approximate_member_count"] = len(guild.members)
            data["approximate_presence_count"] = 0
        return _json(data)

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        return _json([c.payload() for c in self._guild(request).channels.values()])

    async def get_guild_roles(self, request: web.Request) -> web.Response:
        return _json([r.payload() for r in self._guild(request).roles.values()])

    async def get_member(self, request: web.Request) -> web.Response:
        member = self._guild(request).members.get(_int(request.match_info["user_id"]))
        if member is None:
            raise not_found(UNKNOWN_MEMBER, "Member")
        return _json(member.payload())


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        return -1
