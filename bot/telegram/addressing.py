"""Whether a group message is meant for the bot: it mentions the bot or replies to one of the
bot's messages (commands are routed by the command handlers). In a direct message every
message is."""

from __future__ import annotations

import re

from telegram import Message, MessageEntity, User


def addressed_to(message: Message, me: User) -> bool:
    replied = message.reply_to_message
    if replied is not None and replied.from_user is not None and replied.from_user.id == me.id:
        return True
    return mentions(message, me)


def mentions(message: Message, me: User) -> bool:
    kinds: list[str | None] = [MessageEntity.MENTION, MessageEntity.TEXT_MENTION]
    for entity, text in message.parse_entities(kinds).items():
        if entity.type == MessageEntity.TEXT_MENTION:
            if entity.user is not None and entity.user.id == me.id:
                return True
        elif me.username and text[1:].lower() == me.username.lower():
            return True
    return False


def for_another_bot(command_text: str, me: User) -> bool:
    """Whether a command names another bot ("/help@other_bot"), as commands in groups may."""
    head = command_text.split(maxsplit=1)[0] if command_text.strip() else ""
    addressee = head.partition("@")[2]
    return bool(addressee) and addressee.lower() != (me.username or "").lower()


def without_mention(text: str, me: User) -> str:
    """The message without "@bot", so the core sees only the question."""
    if not me.username:
        return text.strip()
    return re.sub(rf"@{re.escape(me.username)}\b", " ", text, flags=re.IGNORECASE).strip()
