"""Who sent a message, as the core's `Member`. Whether they administer the group is looked up
(one getChatMember call) only for the commands that need a role; the core decides the rest."""

from __future__ import annotations

from telegram import Bot, Message, User
from telegram.constants import ChatMemberStatus, ChatType

from core.context import Member

PLATFORM = "telegram"
_ADMIN = frozenset({ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER})


def principal(user: User) -> str:
    """The id settings name a Telegram user by (COURSEBOT_COURSE_ROLES: "telegram:42")."""
    return f"{PLATFORM}:{user.id}"


async def member_for(bot: Bot, message: Message, *, needs_role: bool = False) -> Member:
    user = _sender(message)
    admin = needs_role and await is_chat_admin(bot, message)
    return Member(
        platform=PLATFORM,
        user_id=principal(user),
        chat_admin=admin,
        locale=user.language_code or "en",
    )


async def is_chat_admin(bot: Bot, message: Message) -> bool:
    """Whether the sender administers the group the message was sent in (never in a DM)."""
    chat = message.chat
    if chat.type == ChatType.PRIVATE:
        return False
    if message.sender_chat is not None and message.sender_chat.id == chat.id:
        return True  # an anonymous administrator posts as the group itself
    member = await bot.get_chat_member(chat.id, _sender(message).id)
    return member.status in _ADMIN


def _sender(message: Message) -> User:
    if message.from_user is None:  # handlers only accept messages from users
        raise ValueError("a message without a sender")
    return message.from_user
