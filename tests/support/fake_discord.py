"""Discord without the network, for driving the real discord.py client in tests.

`FakeDiscord` stands in for the HTTP layer: the client's `HTTPClient.request` (REST calls:
messages, threads, command sync) and the webhook adapter behind interaction responses and
follow-ups are replaced by a recorder that keeps every request and answers with plausible
Discord payloads. Interactions are built from the JSON Discord sends (`slash`, `autocomplete`,
`button_press`) and fed to the client's own gateway parser (`interact`, `press`), so they run
through the real command tree and view store. `FakeDiscordServer` is a small REST + gateway
server on 127.0.0.1 for starting a client.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import aiohttp
import discord
from aiohttp import web
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter

EPHEMERAL = 64
DEFERRED_CHANNEL_MESSAGE = 5
AUTOCOMPLETE_RESULT = 8
APPLICATION_COMMAND = 2
APPLICATION_COMMAND_AUTOCOMPLETE = 4
MESSAGE_COMPONENT = 3
BUTTON = 2
DEFERRED_UPDATE_MESSAGE = 6
MANAGE_GUILD = 1 << 5
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC).isoformat()

_snowflakes = itertools.count(1_300_000_000_000_000_000)


def snowflake() -> int:
    return next(_snowflakes)


# Who and where ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Role:
    id: int
    name: str


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    roles: tuple[Role, ...] = ()
    permissions: int = 0  # as Discord resolves them for the interaction's channel

    def user(self) -> dict[str, Any]:
        return user_payload(self.id, self.name)

    def member(self) -> dict[str, Any]:
        return {
            "user": self.user(),
            "roles": [str(role.id) for role in self.roles],
            "joined_at": NOW,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
            "avatar": None,
            "permissions": str(self.permissions),
        }


@dataclass(frozen=True)
class Place:
    """Where an interaction happens: a server channel or thread, or a direct message."""

    channel: dict[str, Any]
    guild_id: int | None = None

    @property
    def channel_id(self) -> int:
        return int(self.channel["id"])


BOT = Person(1_200_000_000_000_000_001, "coursebot")
APPLICATION_ID = BOT.id


def user_payload(user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "discriminator": "0",
        "global_name": name.title(),
        "avatar": None,
        "bot": bot,
    }


def role_payload(role: Role, position: int, permissions: int = 0) -> dict[str, Any]:
    return {
        "id": str(role.id),
        "name": role.name,
        "permissions": str(permissions),
        "position": position,
        "color": 0,
        "hoist": False,
        "managed": False,
        "mentionable": True,
        "flags": 0,
    }


def text_channel(channel_id: int, guild_id: int, name: str) -> dict[str, Any]:
    return {
        "id": str(channel_id),
        "type": 0,
        "guild_id": str(guild_id),
        "name": name,
        "position": 0,
        "permission_overwrites": [],
        "nsfw": False,
        "parent_id": None,
        "topic": None,
        "last_message_id": None,
        "rate_limit_per_user": 0,
    }


def thread_channel(thread_id: int, parent_id: int, guild_id: int, name: str) -> dict[str, Any]:
    return {
        "id": str(thread_id),
        "type": 11,
        "guild_id": str(guild_id),
        "parent_id": str(parent_id),
        "owner_id": str(BOT.id),
        "name": name,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": NOW,
            "locked": False,
        },
    }


def dm_channel(channel_id: int, person: Person) -> dict[str, Any]:
    return {"id": str(channel_id), "type": 1, "recipients": [person.user()]}


def guild_payload(
    guild_id: int, name: str, roles: list[tuple[Role, int]], channels: list[dict[str, Any]]
) -> dict[str, Any]:
    """A server as GUILD_CREATE sends it; `roles` are (role, permissions) pairs."""
    everyone = role_payload(Role(guild_id, "@everyone"), 0)
    return {
        "id": str(guild_id),
        "name": name,
        "owner_id": str(snowflake()),
        "unavailable": False,
        "member_count": 10,
        "roles": [everyone, *(role_payload(r, n + 1, p) for n, (r, p) in enumerate(roles))],
        "channels": channels,
        "threads": [],
        "members": [],
        "emojis": [],
        "stickers": [],
        "features": [],
        "large": False,
        "premium_tier": 0,
        "preferred_locale": "en-US",
    }


def attachment_payload(
    attachment_id: int, filename: str, size: int, content_type: str = "text/markdown"
) -> dict[str, Any]:
    url = f"https://cdn.discordapp.com/attachments/1/{attachment_id}/{filename}"
    return {
        "id": str(attachment_id),
        "filename": filename,
        "size": size,
        "url": url,
        "proxy_url": url,
        "content_type": content_type,
    }


@dataclass(frozen=True)
class File:
    """An attachment option's value."""

    filename: str
    content: bytes
    size: int | None = None  # what Discord reports; the real size when None
    id: int = field(default_factory=snowflake)

    def payload(self) -> dict[str, Any]:
        size = len(self.content) if self.size is None else self.size
        return attachment_payload(self.id, self.filename, size)


def slash(
    name: str,
    person: Person,
    place: Place,
    *,
    kind: int = APPLICATION_COMMAND,
    focused: str | None = None,
    **options: str | bool | int | File | Person | Role,
) -> dict[str, Any]:
    """An INTERACTION_CREATE payload for `/name option:value …` (an autocomplete request for
    the `focused` option when `kind` is 4)."""
    resolved: dict[str, dict[str, Any]] = {}
    data_options = []
    for option_name, value in options.items():
        option: dict[str, Any] = {"name": option_name}
        match value:
            case bool():
                option.update(type=5, value=value)
            case int():
                option.update(type=4, value=value)
            case str():
                option.update(type=3, value=value)
            case File():
                option.update(type=11, value=str(value.id))
                resolved.setdefault("attachments", {})[str(value.id)] = value.payload()
            case Role():  # a mentionable option naming a role
                option.update(type=9, value=str(value.id))
                resolved.setdefault("roles", {})[str(value.id)] = role_payload(value, 1)
            case Person():
                option.update(type=6, value=str(value.id))
                resolved.setdefault("users", {})[str(value.id)] = value.user()
                if place.guild_id is not None:
                    member = value.member()
                    del member["user"]
                    resolved.setdefault("members", {})[str(value.id)] = member
        if option_name == focused:
            option["focused"] = True
        data_options.append(option)
    payload: dict[str, Any] = {
        "id": str(snowflake()),
        "application_id": str(APPLICATION_ID),
        "type": kind,
        "token": f"token-{snowflake()}",
        "version": 1,
        "data": {
            "id": str(snowflake()),
            "name": name,
            "type": 1,
            "options": data_options,
            "resolved": resolved,
        },
        "channel": place.channel,
        "channel_id": str(place.channel_id),
        "app_permissions": str(discord.Permissions.all().value),
        "locale": "en-US",
        "entitlements": [],
        "authorizing_integration_owners": {"0": str(place.guild_id or person.id)},
        "attachment_size_limit": 25 * 1024 * 1024,
    }
    if place.guild_id is not None:
        payload.update(guild_id=str(place.guild_id), member=person.member(), context=0)
        payload["guild_locale"] = "en-US"
    else:
        payload.update(user=person.user(), context=1)
    return payload


def button_press(
    custom_id: str, person: Person, place: Place, message: dict[str, Any]
) -> dict[str, Any]:
    """An INTERACTION_CREATE for a press of the button `custom_id` on `message` (a message
    payload with its components, as `FakeDiscord.message_of` gives)."""
    payload = slash("", person, place, kind=MESSAGE_COMPONENT)
    payload["data"] = {"custom_id": custom_id, "component_type": BUTTON}
    payload["message"] = message
    return payload


def custom_ids(sent: Request | dict[str, Any]) -> list[str]:
    """The custom ids of the buttons a sent message (or message payload) carries."""
    data = sent.data if isinstance(sent, Request) else sent
    return [
        component["custom_id"]
        for row in data.get("components") or []
        for component in row.get("components", [])
        if "custom_id" in component
    ]


def message_payload(
    person: Person, place: Place, content: str, *, mentions: tuple[Person, ...] = ()
) -> dict[str, Any]:
    """A MESSAGE_CREATE payload."""
    payload: dict[str, Any] = {
        "id": str(snowflake()),
        "channel_id": str(place.channel_id),
        "author": user_payload(person.id, person.name, bot=person is BOT),
        "content": content,
        "timestamp": NOW,
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [m.user() for m in mentions],
        "mention_roles": [],
        "attachments": [],
        "embeds": [],
        "pinned": False,
        "type": 0,
        "flags": 0,
    }
    if place.guild_id is not None:
        member = person.member()
        del member["user"]
        payload.update(guild_id=str(place.guild_id), member=member)
    return payload


# The recorder ------------------------------------------------------------------------------


@dataclass
class Request:
    method: str
    path: str  # the route's template, e.g. /channels/{channel_id}/messages
    url: str
    payload: Any
    files: list[tuple[str, bytes]]
    params: dict[str, Any]
    at: float  # event loop time
    # Shown to the user alone: the flag of the message, or for an edit of the deferred
    # response, the flag it was deferred with (an edit cannot change it).
    ephemeral: bool = False

    @property
    def data(self) -> dict[str, Any]:
        """The message (or callback data) the request carries."""
        if isinstance(self.payload, dict) and "type" in self.payload and "data" in self.payload:
            return self.payload["data"] or {}
        return self.payload if isinstance(self.payload, dict) else {}

    @property
    def flagged_ephemeral(self) -> bool:
        return bool(self.data.get("flags", 0) & EPHEMERAL)

    @property
    def content(self) -> str:
        return self.data.get("content") or ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.data.get("embeds") or []

    @property
    def file_names(self) -> list[str]:
        return [name for name, _ in self.files]

    def is_(self, method: str, path_end: str) -> bool:
        return self.method == method and self.path.endswith(path_end)


DEFER = ("POST", "/callback")
EDIT_ORIGINAL = ("PATCH", "/messages/@original")
DELETE_ORIGINAL = ("DELETE", "/messages/@original")
FOLLOW_UP = ("POST", "/webhooks/{webhook_id}/{webhook_token}")
CHANNEL_MESSAGE = ("POST", "/channels/{channel_id}/messages")
NEW_THREAD = ("POST", "/channels/{channel_id}/threads")


class FakeDiscord:
    """Records what the client sends to Discord and answers like Discord would."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.downloads: list[str] = []
        self.threads: list[int] = []  # ids of the threads created, in order
        self._guild_of: dict[int, int] = {}  # channel id -> server id
        self._deferred_privately: dict[str, bool] = {}  # interaction token -> ephemeral
        self._cdn: dict[str, bytes] = {}
        self._message_ids: dict[int, str] = {}  # a request's message keeps its id
        # Users whose direct messages are closed to the bot: opening one is refused (403).
        self.closed_dms: set[int] = set()
        self._changed = asyncio.Event()

    async def attach(
        self, client: discord.Client, monkeypatch: Any, guilds: list[dict[str, Any]]
    ) -> None:
        """Put `client` on this fake Discord, logged in as BOT with `guilds` cached (as after
        READY and GUILD_CREATE)."""
        monkeypatch.setattr(client.http, "request", self._rest)
        monkeypatch.setattr(client.http, "get_from_cdn", self._download)
        fake = self

        async def webhook_request(
            _adapter: AsyncWebhookAdapter, route: Route, **kwargs: Any
        ) -> Any:
            return await fake._webhook(route, **kwargs)

        monkeypatch.setattr(AsyncWebhookAdapter, "request", webhook_request)
        await client._async_setup_hook()  # binds the client to the running loop
        state = client._connection
        state.user = discord.ClientUser(state=state, data=user_payload(BOT.id, BOT.name, bot=True))
        state.application_id = APPLICATION_ID
        for guild in guilds:
            state._add_guild_from_data(guild)
            for channel in guild["channels"]:
                self._guild_of[int(channel["id"])] = int(guild["id"])
        # What login runs before connecting (the command sync, the button handlers); the
        # tests look at what comes after it.
        await client.setup_hook()
        self.requests.clear()

    def serve(self, file: File) -> None:
        """Let the client download `file` from Discord's CDN."""
        self._cdn[file.payload()["url"]] = file.content

    # What was sent -----------------------------------------------------------------------

    def sent(self, method: str, path_end: str) -> list[Request]:
        return [r for r in self.requests if r.is_(method, path_end)]

    def responses(self) -> list[Request]:
        """Everything that answered interactions, in order: callbacks, edits, follow-ups."""
        kinds = (DEFER, EDIT_ORIGINAL, DELETE_ORIGINAL, FOLLOW_UP)
        return [r for r in self.requests if any(r.is_(*kind) for kind in kinds)]

    def messages(self) -> list[Request]:
        """Messages a user sees: edits of the deferred response and follow-ups."""
        return [r for r in self.requests if r.is_(*EDIT_ORIGINAL) or r.is_(*FOLLOW_UP)]

    def channel_messages(self, channel_id: int) -> list[Request]:
        return [r for r in self.sent(*CHANNEL_MESSAGE) if r.url.endswith(f"/{channel_id}/messages")]

    def message_of(self, request: Request, channel_id: int) -> dict[str, Any]:
        """The message `request` sent (or edited), as Discord shows it to a client later:
        with its components, ephemeral when it was."""
        message = _sent_message(channel_id, request)
        message["id"] = self._message_ids.setdefault(id(request), message["id"])
        if request.ephemeral:
            message["flags"] = message["flags"] | EPHEMERAL
        return message

    def forget(self) -> None:
        self.requests.clear()
        self.downloads.clear()

    async def wait_for(self, check: Callable[[list[Request]], bool], timeout: float = 10) -> None:
        async def until() -> None:
            while not check(self.requests):
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(until(), timeout)

    # The two transports ------------------------------------------------------------------

    async def _rest(
        self,
        route: Route,
        *,
        files: list[discord.File] | None = None,
        form: list[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> Any:
        payload = kwargs.get("json")
        if payload is None and form:
            payload = _payload_json(form)
        return self._record(route, payload, files, kwargs.get("params"))

    async def _webhook(
        self,
        route: Route,
        *,
        payload: dict[str, Any] | None = None,
        multipart: list[dict[str, Any]] | None = None,
        files: list[discord.File] | None = None,
        params: dict[str, Any] | None = None,
        **_kwargs: Any,
    ) -> Any:
        if payload is None and multipart:
            payload = _payload_json(multipart)
        return self._record(route, payload, files, params)

    async def _download(self, url: str) -> bytes:
        self.downloads.append(url)
        try:
            return self._cdn[url]
        except KeyError:
            raise discord.NotFound(_FakeResponse(404), "Unknown attachment") from None

    def _record(
        self,
        route: Route,
        payload: Any,
        files: list[discord.File] | None,
        params: dict[str, Any] | None,
    ) -> Any:
        request = Request(
            method=route.method,
            path=route.path,
            url=route.url,
            payload=payload,
            files=[(f.filename or "", _read(f)) for f in files or []],
            params=dict(params or {}),
            at=asyncio.get_running_loop().time(),
        )
        token = route.webhook_token or ""
        if request.is_(*DEFER):
            self._deferred_privately[token] = request.flagged_ephemeral
        if request.is_(*EDIT_ORIGINAL):
            request.ephemeral = self._deferred_privately.get(token, False)
        else:
            request.ephemeral = request.flagged_ephemeral
        self.requests.append(request)
        self._changed.set()
        return self._answer(request, route)

    def _answer(self, request: Request, route: Route) -> Any:
        if request.is_(*DEFER):
            kind = request.payload["type"]
            return {
                "interaction": {
                    "id": str(route.webhook_id),
                    "type": APPLICATION_COMMAND,
                    "response_message_loading": kind == DEFERRED_CHANNEL_MESSAGE,
                    "response_message_ephemeral": request.flagged_ephemeral,
                },
                "resource": {"type": kind},
            }
        if request.method == "DELETE" or request.path.endswith("/typing"):
            return None
        if request.is_(*NEW_THREAD):
            self.threads.append(snowflake())
            parent = int(route.channel_id or 0)
            guild_id = self._guild_of.get(parent, 0)
            return thread_channel(self.threads[-1], parent, guild_id, request.payload["name"])
        if request.method == "GET" and request.path == "/users/{user_id}":
            user_id = int(request.url.rsplit("/", 1)[1])
            return user_payload(user_id, f"user-{user_id}")
        if request.path == "/users/@me/channels":  # opening a direct message
            recipient = int(request.payload["recipient_id"])
            if recipient in self.closed_dms:
                raise discord.Forbidden(_FakeResponse(403), "Cannot send messages to this user")
            user = user_payload(recipient, f"user-{recipient}")
            return {"id": str(recipient + 500), "type": 1, "recipients": [user]}
        if request.path.endswith("/commands"):
            return [
                {**command, "id": str(snowflake()), "application_id": str(APPLICATION_ID)}
                for command in request.payload
            ]
        if request.is_(*CHANNEL_MESSAGE) or request.is_(*EDIT_ORIGINAL) or request.is_(*FOLLOW_UP):
            channel_id = route.channel_id or 0
            message = _sent_message(int(channel_id), request)
            # The id the client is told is the one `message_of` shows later (a reply names it).
            message["id"] = self._message_ids.setdefault(id(request), message["id"])
            return message
        raise AssertionError(f"the fake Discord does not know {request.method} {request.path}")


def _payload_json(form: list[dict[str, Any]]) -> Any:
    part = next(p for p in form if p["name"] == "payload_json")
    return json.loads(part["value"])


def _read(file: discord.File) -> bytes:
    file.reset()
    data = file.fp.read()
    file.reset()
    return data


def _sent_message(channel_id: int, request: Request) -> dict[str, Any]:
    data = request.data
    return {
        "id": str(snowflake()),
        "channel_id": str(channel_id),
        "author": user_payload(BOT.id, BOT.name, bot=True),
        "content": data.get("content") or "",
        "timestamp": NOW,
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": [
            attachment_payload(snowflake(), name, len(content)) for name, content in request.files
        ],
        "embeds": data.get("embeds") or [],
        "components": data.get("components") or [],
        "pinned": False,
        "type": 0,
        "flags": data.get("flags", 0),
    }


class _FakeResponse:
    """What discord.py's HTTP errors read from an aiohttp response."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "Not Found"


def start_interaction(client: discord.Client, payload: dict[str, Any]) -> asyncio.Task[None]:
    """Hand an INTERACTION_CREATE to the client's gateway parser, as the gateway would, and
    return the task in which the command tree handles it."""
    before = asyncio.all_tasks()
    client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
    [task] = [t for t in asyncio.all_tasks() - before if t.get_name() == "CommandTree-invoker"]
    return task


async def interact(client: discord.Client, payload: dict[str, Any]) -> None:
    await start_interaction(client, payload)


async def press(client: discord.Client, payload: dict[str, Any]) -> None:
    """Hand a button press to the client's gateway parser and wait for the dynamic item
    that handles it (none: nothing handles that custom id)."""
    before = asyncio.all_tasks()
    client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
    handling = [
        t for t in asyncio.all_tasks() - before if t.get_name().startswith("discord-ui-dynamic")
    ]
    await asyncio.gather(*handling)


async def deliver_message(client: discord.Client, payload: dict[str, Any]) -> None:
    """Hand a MESSAGE_CREATE to the client's gateway parser and wait for `on_message`."""
    before = asyncio.all_tasks()
    client._connection.parse_message_create(payload)  # type: ignore[arg-type]
    handlers = [t for t in asyncio.all_tasks() - before if t.get_name() == "discord.py: on_message"]
    await asyncio.gather(*handlers)


# A REST + gateway server on 127.0.0.1 ------------------------------------------------------


class FakeDiscordServer:
    """Enough of Discord's REST API and gateway for a client to log in, publish its slash
    commands, connect, identify and become ready. JSON responses carry exactly
    `Content-Type: application/json`, which discord.py requires to parse them."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, Any]] = []
        self.identifies: list[dict[str, Any]] = []
        self.identified = asyncio.Event()
        self.heartbeats = 0
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_base(self) -> str:
        return f"{self.url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/gateway"

    def requests_to(self, method: str, path: str) -> list[Any]:
        return [body for m, p, body in self.requests if m == method and p == path]

    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        body = await request.json() if request.can_read_body else None
        self.requests.append((request.method, path, body))
        match request.method, path.split("/")[1:]:
            case "GET", ["users", "@me"]:
                return _json(user_payload(BOT.id, BOT.name, bot=True))
            case "GET", ["oauth2", "applications", "@me"]:
                return _json(_application())
            case "GET", ["gateway", "bot"]:
                limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
                return _json({"url": self.gateway_url, "shards": 1, "session_start_limit": limit})
            case "PUT", ["applications", _, *_, "commands"]:
                return _json(
                    [
                        {**c, "id": str(snowflake()), "application_id": str(APPLICATION_ID)}
                        for c in body
                    ]
                )
        return _json({"message": "404: Not Found", "code": 0}, status=404)

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None})
        async for message in ws:
            if message.type is not aiohttp.WSMsgType.TEXT:
                break
            event = json.loads(message.data)
            if event["op"] == 1:
                self.heartbeats += 1
                await ws.send_json({"op": 11, "d": None, "s": None, "t": None})
            elif event["op"] == 2:
                self.identifies.append(event["d"])
                self.identified.set()
                await ws.send_json(self._ready(event["d"]))
        return ws

    def _ready(self, identify: dict[str, Any]) -> dict[str, Any]:
        ready: dict[str, Any] = {
            "v": 10,
            "user": user_payload(BOT.id, BOT.name, bot=True),
            "guilds": [],
            "session_id": "fake-session",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(APPLICATION_ID), "flags": 0},
        }
        if "shard" in identify:
            ready["shard"] = identify["shard"]
        return {"op": 0, "t": "READY", "s": 1, "d": ready}


def _application() -> dict[str, Any]:
    return {
        "id": str(APPLICATION_ID),
        "name": "coursebot",
        "description": "",
        "icon": None,
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": user_payload(snowflake(), "owner"),
        "verify_key": "0" * 64,
        "flags": 0,
        "team": None,
        "summary": "",
        "rpc_origins": [],
        "interactions_endpoint_url": None,
    }


def _json(data: Any, status: int = 200) -> web.Response:
    # Exactly this header: discord.py parses a body only when it says `application/json`.
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={"Content-Type": "application/json"},
    )


# A small server for the tests ------------------------------------------------------------
# The course channel is bound to COURSE; roles are granted by name (Teacher) and by id (TA)
# through COURSE_ROLES, the way an operator writes COURSEBOT_COURSE_ROLES.

COURSE = "calc101"
GUILD_ID = 1_100_000_000_000_000_001
COURSE_CHANNEL_ID = 1_100_000_000_000_000_010
OTHER_CHANNEL_ID = 1_100_000_000_000_000_011
TEACHER = Role(1_100_000_000_000_000_100, "Teacher")
TA = Role(1_100_000_000_000_000_101, "TA")
COURSE_ROLES = {
    COURSE: {"instructor": [f"discord:role:{TEACHER.name}"], "moderator": [f"discord:role:{TA.id}"]}
}

ALICE = Person(1_000_000_000_000_000_001, "alice")
BOB = Person(1_000_000_000_000_000_002, "bob")
TESS = Person(1_000_000_000_000_000_003, "tess", roles=(TEACHER,))
MO = Person(1_000_000_000_000_000_004, "mo", roles=(TA,))
ADA = Person(1_000_000_000_000_000_005, "ada", permissions=MANAGE_GUILD)

IN_COURSE = Place(text_channel(COURSE_CHANNEL_ID, GUILD_ID, "calc-help"), GUILD_ID)
ELSEWHERE = Place(text_channel(OTHER_CHANNEL_ID, GUILD_ID, "off-topic"), GUILD_ID)


def direct(person: Person) -> Place:
    """A direct message between `person` and the bot."""
    return Place(dm_channel(person.id + 500, person))


def in_thread(thread_id: int, parent: Place = IN_COURSE) -> Place:
    return Place(thread_channel(thread_id, parent.channel_id, GUILD_ID, "practice"), GUILD_ID)


def server() -> dict[str, Any]:
    return guild_payload(
        GUILD_ID,
        "Calculus",
        [(TEACHER, 0), (TA, 0)],
        [IN_COURSE.channel, ELSEWHERE.channel],
    )


# A server of someone else's, unrelated to the course: its own "Teacher" role (the same name
# as the course server's, another id) and an admin who holds it.

RIVAL_GUILD_ID = 1_100_000_000_000_000_201
RIVAL_CHANNEL_ID = 1_100_000_000_000_000_210
RIVAL_TEACHER = Role(1_100_000_000_000_000_300, "Teacher")
MALLORY = Person(
    1_000_000_000_000_000_066, "mallory", roles=(RIVAL_TEACHER,), permissions=MANAGE_GUILD
)
IN_RIVAL = Place(text_channel(RIVAL_CHANNEL_ID, RIVAL_GUILD_ID, "general"), RIVAL_GUILD_ID)


def rival_server() -> dict[str, Any]:
    return guild_payload(RIVAL_GUILD_ID, "Rivals", [(RIVAL_TEACHER, 0)], [IN_RIVAL.channel])
