"""A small fake Telegram Bot API server on 127.0.0.1 (aiohttp, in the test's event loop), so
tests drive the real python-telegram-bot `Application` over HTTP: point PTB's `base_url` and
`base_file_url` at `fake.base_url` and `fake.base_file_url`.

It serves queued updates to getUpdates (long polling, woken as soon as an update is pushed),
answers the methods the adapter uses with well-formed Telegram objects, serves uploaded
documents' bytes under the file URL, and records every call (method, parameters, uploaded
files). Like Telegram it refuses HTML it cannot parse, texts over 4,096 characters,
captions over 1,024 and polls over their limits, so a rendering bug fails the round trip.
Votes in the bot's polls and presses of its inline buttons are updates a test pushes
(`poll_answer_update`, `callback_update`); `replay` delivers an update again with its own
update_id, as Telegram does when the bot did not confirm it."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from aiohttp import web

TOKEN = "123456:TEST-fake-token"
BOT_USER: dict[str, Any] = {
    "id": 1000,
    "is_bot": True,
    "first_name": "Coursebot",
    "username": "coursebot_test_bot",
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": False,
}
TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
POLL_QUESTION_LIMIT = 300
POLL_OPTION_LIMIT = 100
POLL_EXPLANATION_LIMIT = 200
CALLBACK_TEXT_LIMIT = 200
# Long polls end after this many seconds at most, so a stopping updater never waits long.
MAX_POLL_S = 1.0

_ALLOWED_TAGS = frozenset(
    [
        "b",
        "strong",
        "i",
        "em",
        "u",
        "ins",
        "s",
        "strike",
        "del",
        "span",
        "tg-spoiler",
        "a",
        "code",
        "pre",
        "blockquote",
        "tg-emoji",
    ]
)
# What ChatMemberAdministrator must say (python-telegram-bot requires every field).
_ADMIN_CAN = [
    "can_manage_chat",
    "can_delete_messages",
    "can_manage_video_chats",
    "can_restrict_members",
    "can_change_info",
    "can_invite_users",
]
_ADMIN_CANNOT = [
    "can_be_edited",
    "is_anonymous",
    "can_promote_members",
    "can_post_stories",
    "can_edit_stories",
    "can_delete_stories",
]
_BARE_AMPERSAND = re.compile(r"&(?!(?:lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);)")
_BARE_LESS_THAN = re.compile(r"<(?!/?[a-zA-Z])")
_TAG = re.compile(r"<[^>]*>")
_MENTION = re.compile(r"@[A-Za-z0-9_]{5,32}")


@dataclass
class Call:
    """One Bot API request as the bot sent it (form fields as text, files as (name, bytes))
    and the result the fake answered, once it has."""

    method: str
    params: dict[str, str]
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    result: Any = None

    def json(self, name: str) -> Any:
        return json.loads(self.params[name])

    @property
    def chat_id(self) -> int | None:
        value = self.params.get("chat_id")
        return int(value) if value is not None else None

    @property
    def text(self) -> str:
        return self.params.get("text", "")


class TelegramRefusal(Exception):
    def __init__(self, description: str, code: int = 400) -> None:
        super().__init__(description)
        self.description = description
        self.code = code


def user(user_id: int, first_name: str, username: str | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {
        "id": user_id,
        "is_bot": False,
        "first_name": first_name,
        "language_code": "en",
    }
    if username:
        found["username"] = username
    return found


def private_chat(of: dict[str, Any]) -> dict[str, Any]:
    return {"id": of["id"], "type": "private", "first_name": of["first_name"]}


def group_chat(chat_id: int, title: str = "Calculus I") -> dict[str, Any]:
    return {"id": chat_id, "type": "supergroup", "title": title}


def visible_text(markup: str) -> str:
    """What Telegram shows for an HTML message: tags gone, entities decoded."""
    return html.unescape(_TAG.sub("", markup))


def html_problem(markup: str) -> str | None:
    """Why Telegram would refuse `markup` in HTML parse mode, or None if it parses."""
    if _BARE_AMPERSAND.search(markup) or _BARE_LESS_THAN.search(markup):
        return "unescaped '&' or '<'"
    checker = _TagChecker()
    checker.feed(markup)
    checker.close()
    if checker.problem is None and checker.open_tags:
        return f"unclosed <{checker.open_tags[-1]}>"
    return checker.problem


class _TagChecker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open_tags: list[str] = []
        self.problem: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _ALLOWED_TAGS:
            self.problem = self.problem or f"unsupported tag <{tag}>"
        self.open_tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open_tags or self.open_tags[-1] != tag:
            self.problem = self.problem or f"unexpected </{tag}>"
            return
        self.open_tags.pop()


class FakeTelegram:
    def __init__(self, token: str = TOKEN) -> None:
        self.token = token
        self.calls: list[Call] = []
        self.chats: dict[int, dict[str, Any]] = {}
        self.users: dict[int, dict[str, Any]] = {}
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}
        self.statuses: dict[tuple[int, int], str] = {}
        self.files: dict[str, tuple[str, bytes, int]] = {}
        # Users who blocked the bot: what is sent to their private chat is refused (403).
        self.blocked: set[int] = set()
        self.webhook: dict[str, str] = {}
        self.url = ""
        self._updates: list[dict[str, Any]] = []
        self._replays: list[dict[str, Any]] = []
        self._next_update_id = 1
        self._next_message_id = 1
        self._changed = asyncio.Condition()
        self._closing = False
        self._runner: web.AppRunner | None = None

    # Lifecycle --------------------------------------------------------------------------

    async def __aenter__(self) -> FakeTelegram:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._api)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(self, *_exc: object) -> None:
        async with self._changed:  # end the long polls still waiting
            self._closing = True
            self._changed.notify_all()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        return f"{self.url}/file/bot"

    # What users do ----------------------------------------------------------------------

    def set_status(self, chat: dict[str, Any], who: dict[str, Any], status: str) -> None:
        """getChatMember's answer for `who` in `chat`: member, administrator or creator."""
        self.statuses[(chat["id"], who["id"])] = status

    def text_update(
        self,
        chat: dict[str, Any],
        sender: dict[str, Any],
        text: str,
        reply_to: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """An update with a text message, its command and @mention entities filled in."""
        message = self._incoming(chat, sender, text=text, entities=_entities(text))
        if reply_to is not None:
            message["reply_to_message"] = reply_to
        return self._update(message)

    def document_update(
        self,
        chat: dict[str, Any],
        sender: dict[str, Any],
        file_name: str,
        content: bytes,
        *,
        caption: str | None = None,
        mime_type: str = "application/octet-stream",
        file_size: int | None = None,
    ) -> dict[str, Any]:
        """An update with a document; `file_size` may claim more than `content` holds."""
        number = len(self.files) + 1
        file_id = f"document-{number}"
        size = len(content) if file_size is None else file_size
        self.files[file_id] = (f"documents/file_{number}", content, size)
        document = {
            "file_id": file_id,
            "file_unique_id": f"unique-{number}",
            "file_name": file_name,
            "mime_type": mime_type,
            "file_size": size,
        }
        extra: dict[str, Any] = {"document": document}
        if caption is not None:
            extra["caption"] = caption
            extra["caption_entities"] = _entities(caption)
        return self._update(self._incoming(chat, sender, **extra))

    def poll_answer_update(
        self, poll_id: str, voter: dict[str, Any], option_ids: list[int]
    ) -> dict[str, Any]:
        """A vote in a non-anonymous poll: the poll and the voter, no chat. An empty
        `option_ids` is a retracted vote."""
        self.users[voter["id"]] = voter
        answer = {
            "poll_id": poll_id,
            "user": voter,
            "option_ids": option_ids,
            # Bot API 9.6: the options' stable ids too, as the poll named them.
            "option_persistent_ids": [f"option-{n}" for n in option_ids],
        }
        return self._next({"poll_answer": answer})

    def callback_update(
        self, message: dict[str, Any], sender: dict[str, Any], data: str
    ) -> dict[str, Any]:
        """A press of an inline button with `data` under the bot's `message`."""
        self.users[sender["id"]] = sender
        query = {
            "id": f"query-{self._next_update_id}",
            "from": sender,
            "chat_instance": f"instance-{message['chat']['id']}",
            "message": message,
            "data": data,
        }
        return self._next({"callback_query": query})

    def polls(self, chat: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The polls the bot sent (to `chat`), oldest first."""
        return [
            message["poll"]
            for (chat_id, _), message in sorted(self.messages.items())
            if "poll" in message and (chat is None or chat_id == chat["id"])
        ]

    async def replay(self, update: dict[str, Any]) -> int:
        """Deliver `update` once more, update_id and all, whatever getUpdates' offset."""
        async with self._changed:
            self._replays.append(update)
            self._changed.notify_all()
        return int(update["update_id"])

    def redelivery(self, update: dict[str, Any]) -> dict[str, Any]:
        """The same message in a new update, as when Telegram delivers it again."""
        return self._update(update["message"])

    async def push(self, update: dict[str, Any]) -> int:
        """Queue `update` for getUpdates; returns its update_id."""
        async with self._changed:
            self._updates.append(update)
            self._changed.notify_all()
        return int(update["update_id"])

    # What the bot did -------------------------------------------------------------------

    def calls_to(self, method: str, chat: dict[str, Any] | None = None) -> list[Call]:
        return [
            call
            for call in self.calls
            if call.method == method and (chat is None or call.chat_id == chat["id"])
        ]

    async def wait_for_calls(self, method: str, count: int, timeout: float = 10.0) -> list[Call]:
        """Wait until at least `count` calls of `method` are recorded, then return them all."""

        def enough() -> bool:
            return len(self.calls_to(method)) >= count

        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(enough), timeout)
            except TimeoutError:
                seen = [c.method for c in self.calls]
                message = f"{count} x {method} not called in {timeout}s: {seen}"
                raise AssertionError(message) from None
        return self.calls_to(method)

    # The Bot API ------------------------------------------------------------------------

    async def _api(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _error(TelegramRefusal("Unauthorized", 401))
        method = request.match_info["method"]
        call = await _read_call(method, request)
        async with self._changed:
            self.calls.append(call)
            self._changed.notify_all()
        handler = self._methods().get(method)
        if handler is None:
            return _error(TelegramRefusal("Not Found: method not found", 404))
        try:
            call.result = await handler(call)
        except TelegramRefusal as refusal:
            return _error(refusal)
        return web.json_response({"ok": True, "result": call.result})

    def _methods(self) -> dict[str, Callable[[Call], Any]]:
        return {
            "getMe": self._get_me,
            "getUpdates": self._get_updates,
            "deleteWebhook": self._set_webhook,
            "setWebhook": self._set_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "setMyCommands": self._true,
            "sendChatAction": self._true,
            "answerCallbackQuery": self._answer_callback_query,
            "sendMessage": self._send_message,
            "editMessageText": self._edit_message_text,
            "sendPhoto": self._send_photo,
            "sendDocument": self._send_document,
            "sendPoll": self._send_poll,
            "getFile": self._get_file,
            "getChatMember": self._get_chat_member,
        }

    async def _true(self, _call: Call) -> bool:
        return True

    async def _answer_callback_query(self, call: Call) -> bool:
        if len(call.params.get("text", "")) > CALLBACK_TEXT_LIMIT:
            raise TelegramRefusal("Bad Request: message is too long")
        return True

    async def _get_me(self, _call: Call) -> dict[str, Any]:
        return BOT_USER

    async def _get_updates(self, call: Call) -> list[dict[str, Any]]:
        offset = int(call.params.get("offset", "0"))
        wait_s = min(float(call.params.get("timeout", "0")), MAX_POLL_S)

        def waiting() -> list[dict[str, Any]]:
            return self._replays + [u for u in self._updates if u["update_id"] >= offset]

        async with self._changed:
            # As Telegram: an offset confirms every update before it, for good (so a replay
            # that moves the bot's offset back brings no confirmed update back).
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._changed.wait_for(lambda: self._closing or waiting()), wait_s
                )
            found, self._replays = waiting(), []
            return found

    async def _set_webhook(self, call: Call) -> bool:
        self.webhook = {k: v for k, v in call.params.items() if k in ("url", "secret_token")}
        return True

    async def _get_webhook_info(self, _call: Call) -> dict[str, Any]:
        return {
            "url": self.webhook.get("url", ""),
            "has_custom_certificate": False,
            "pending_update_count": 0,
        }

    async def _send_message(self, call: Call) -> dict[str, Any]:
        text = _checked(call.text, call.params.get("parse_mode"), TEXT_LIMIT, "message text")
        return self._outgoing(call, text=text, **_markup(call))

    async def _edit_message_text(self, call: Call) -> dict[str, Any]:
        key = (int(call.params["chat_id"]), int(call.params["message_id"]))
        message = self.messages.get(key)
        if message is None:
            raise TelegramRefusal("Bad Request: message to edit not found")
        text = _checked(call.text, call.params.get("parse_mode"), TEXT_LIMIT, "message text")
        markup = _markup(call)
        if message.get("text") == text and message.get("reply_markup") == markup.get(
            "reply_markup"
        ):
            raise TelegramRefusal("Bad Request: message is not modified")
        message["text"] = text
        message.pop("reply_markup", None)
        message.update(markup)
        message["edit_date"] = int(time.time())
        return message

    async def _send_photo(self, call: Call) -> dict[str, Any]:
        _name, content = call.files.get("photo", ("photo", b""))
        sizes = [
            {"file_id": f"photo-{len(self.calls)}", "file_unique_id": f"p{len(self.calls)}",
             "width": 640, "height": 480, "file_size": len(content)}
        ]  # fmt: skip
        return self._outgoing(call, photo=sizes, **self._caption(call))

    async def _send_document(self, call: Call) -> dict[str, Any]:
        name, content = call.files.get("document", ("document", b""))
        document = {
            "file_id": f"sent-{len(self.calls)}",
            "file_unique_id": f"s{len(self.calls)}",
            "file_name": name,
            "file_size": len(content),
        }
        return self._outgoing(call, document=document, **self._caption(call))

    async def _send_poll(self, call: Call) -> dict[str, Any]:
        _poll_checked(call)
        options = [
            {"text": _option_text(option), "voter_count": 0, "persistent_id": f"option-{n}"}
            for n, option in enumerate(call.json("options"))
        ]
        poll = {
            "id": f"poll-{len(self.calls)}",
            "question": call.params["question"],
            "options": options,
            "total_voter_count": 0,
            "is_closed": False,
            "is_anonymous": call.params.get("is_anonymous", "true") == "true",
            "type": call.params.get("type", "regular"),
            "allows_multiple_answers": False,
            "allows_revoting": False,
            "members_only": False,
        }
        if "correct_option_ids" in call.params:
            poll["correct_option_ids"] = call.json("correct_option_ids")
        if "explanation" in call.params:
            poll["explanation"] = call.params["explanation"]
        return self._outgoing(call, poll=poll)

    async def _get_file(self, call: Call) -> dict[str, Any]:
        file_id = call.params["file_id"]
        if file_id not in self.files:
            raise TelegramRefusal("Bad Request: invalid file_id")
        path, _content, size = self.files[file_id]
        return {"file_id": file_id, "file_unique_id": file_id, "file_size": size, "file_path": path}

    async def _get_chat_member(self, call: Call) -> dict[str, Any]:
        chat_id, user_id = int(call.params["chat_id"]), int(call.params["user_id"])
        member_user = self.users.get(user_id) or user(user_id, "Someone")
        status = self.statuses.get((chat_id, user_id), "member")
        if status == "administrator":
            rights = dict.fromkeys(_ADMIN_CAN, True) | dict.fromkeys(_ADMIN_CANNOT, False)
            return {"status": status, "user": member_user, **rights}
        if status == "creator":
            return {"status": status, "user": member_user, "is_anonymous": False}
        return {"status": status, "user": member_user}

    async def _download(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.Response(status=401)
        path = request.match_info["path"]
        self.calls.append(Call("download", {"path": path}))
        for file_path, content, _size in self.files.values():
            if file_path == path:
                return web.Response(body=content)
        return web.Response(status=404)

    # Objects ------------------------------------------------------------------------------

    def _incoming(
        self, chat: dict[str, Any], sender: dict[str, Any], **fields: Any
    ) -> dict[str, Any]:
        self.chats[chat["id"]] = chat
        self.users[sender["id"]] = sender
        message = {
            "message_id": self._message_id(),
            "date": int(time.time()),
            "chat": chat,
            "from": sender,
            **fields,
        }
        self.messages[(chat["id"], message["message_id"])] = message
        return message

    def _outgoing(self, call: Call, **fields: Any) -> dict[str, Any]:
        chat = self.chats.get(call.chat_id or 0)
        if chat is None:
            raise TelegramRefusal("Bad Request: chat not found")
        if chat["type"] == "private" and chat["id"] in self.blocked:
            raise TelegramRefusal("Forbidden: bot was blocked by the user", 403)
        message = {
            "message_id": self._message_id(),
            "date": int(time.time()),
            "chat": chat,
            "from": BOT_USER,
            **fields,
        }
        if "reply_parameters" in call.params:
            replied = self.messages.get((chat["id"], call.json("reply_parameters")["message_id"]))
            if replied is not None:
                message["reply_to_message"] = replied
        self.messages[(chat["id"], message["message_id"])] = message
        return message

    def _caption(self, call: Call) -> dict[str, str]:
        if "caption" not in call.params:
            return {}
        caption = call.params["caption"]
        return {
            "caption": _checked(caption, call.params.get("parse_mode"), CAPTION_LIMIT, "caption")
        }

    def _update(self, message: dict[str, Any]) -> dict[str, Any]:
        return self._next({"message": message})

    def _next(self, content: dict[str, Any]) -> dict[str, Any]:
        update = {"update_id": self._next_update_id, **content}
        self._next_update_id += 1
        return update

    def _message_id(self) -> int:
        self._next_message_id += 1
        return self._next_message_id


async def _read_call(method: str, request: web.Request) -> Call:
    params: dict[str, str] = dict(request.query)
    files: dict[str, tuple[str, bytes]] = {}
    if request.content_type == "application/json":
        body = await request.json()
        params.update({k: v if isinstance(v, str) else json.dumps(v) for k, v in body.items()})
    elif request.can_read_body:
        for name, value in (await request.post()).items():
            if isinstance(value, web.FileField):
                files[name] = (value.filename, value.file.read())
            else:
                params[name] = str(value)
    return Call(method, params, files)


def _checked(text: str, parse_mode: str | None, limit: int, what: str) -> str:
    """The text Telegram would show, or the refusal Telegram would send."""
    shown = text
    if parse_mode == "HTML":
        problem = html_problem(text)
        if problem is not None:
            raise TelegramRefusal(f"Bad Request: can't parse entities: {problem}")
        shown = visible_text(text)
    if not shown.strip():
        raise TelegramRefusal(f"Bad Request: {what} is empty")
    if len(shown) > limit:
        raise TelegramRefusal(f"Bad Request: {what} is too long")
    return shown


def _markup(call: Call) -> dict[str, Any]:
    """The inline keyboard a message carries, as Telegram returns it (checked: each button
    with callback data of 1 to 64 bytes)."""
    if "reply_markup" not in call.params:
        return {}
    markup = call.json("reply_markup")
    for row in markup.get("inline_keyboard", []):
        for button in row:
            data = button.get("callback_data", "")
            if not 1 <= len(data.encode()) <= 64:
                raise TelegramRefusal("Bad Request: BUTTON_DATA_INVALID")
    return {"reply_markup": markup}


def _poll_checked(call: Call) -> None:
    """Telegram's refusals for a poll: empty or long texts, a quiz without its answer."""
    question = call.params.get("question", "")
    if not question.strip() or len(question) > POLL_QUESTION_LIMIT:
        raise TelegramRefusal("Bad Request: poll question length must not exceed 300")
    options = [_option_text(o) for o in call.json("options")]
    if not 2 <= len(options) <= 12 or any(not 1 <= len(o) <= POLL_OPTION_LIMIT for o in options):
        raise TelegramRefusal("Bad Request: poll options length must not exceed 100")
    explanation = call.params.get("explanation", "")
    if len(explanation) > POLL_EXPLANATION_LIMIT or explanation.count("\n") > 2:
        raise TelegramRefusal("Bad Request: explanation is too long")
    if call.params.get("type") == "quiz":
        correct = call.json("correct_option_ids") if "correct_option_ids" in call.params else []
        if len(correct) != 1 or not 0 <= correct[0] < len(options):
            raise TelegramRefusal("Bad Request: wrong correct option ids")


def _option_text(option: str | dict[str, Any]) -> str:
    """A poll option as sent: plain text, or an InputPollOption."""
    return option if isinstance(option, str) else str(option["text"])


def _entities(text: str) -> list[dict[str, Any]]:
    """Entities as Telegram sends them: offsets and lengths in UTF-16 code units."""

    def units(part: str) -> int:
        return len(part.encode("utf-16-le")) // 2

    found = []
    if text.startswith("/"):
        command = text.split(maxsplit=1)[0]
        found.append({"type": "bot_command", "offset": 0, "length": units(command)})
    for match in _MENTION.finditer(text):
        found.append(
            {
                "type": "mention",
                "offset": units(text[: match.start()]),
                "length": units(match.group()),
            }
        )
    return found


def _error(refusal: TelegramRefusal) -> web.Response:
    body = {"ok": False, "error_code": refusal.code, "description": refusal.description}
    return web.json_response(body, status=refusal.code)
