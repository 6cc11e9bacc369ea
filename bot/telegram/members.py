"""Who sent a message and where, in the core's terms: a `Member` and a `Place`. Whether the
sender administers the group is looked up (one getChatMember call) only when asked for; the
core decides what it means."""

from __future__ import annotations

from telegram import Bot, Chat, Message, User
from telegram.constants import ChatMemberStatus, ChatType

from core.context import Audience, Member
from core.requests import Place

PLATFORM = "telegram"
_ADMIN = frozenset({ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER})


def principal(user_id: int) -> str:
    """The id roles are granted to ("telegram:42"), in settings and by /grant."""
    return f"{PLATFORM}:{user_id}"


def in_group(chat: Chat) -> bool:
    return chat.type != ChatType.PRIVATE


def place_of(chat: Chat) -> Place:
    """A group is read by everyone in it; a direct message by the sender alone."""
    if not in_group(chat):
        return Place(Audience.PRIVATE, chat_id=str(chat.id))
    key = f"chat:{chat.id}"
    return Place(
        Audience.SHARED, chat_id=str(chat.id), lookup=(key,), bind_key=key, name="This group"
    )


def chat_principal(chat_id: int) -> str:
    """The id of a chat that posts in its own name ("telegram:chat:-100..."): an anonymous
    administrator posting as the group, or a channel."""
    return f"{PLATFORM}:chat:{chat_id}"


def author(message: Message) -> str:
    """Who wrote a message, as the core knows them. A message posted as a chat (an anonymous
    administrator, a channel) carries a user shared by every such post on Telegram
    (GroupAnonymousBot, Channel_Bot): it is that chat's, never that user's, or an anonymous
    admin of any group would hold every role granted to an anonymous admin of another."""
    if message.sender_chat is not None:
        return chat_principal(message.sender_chat.id)
    return principal(_sender(message).id)


async def member_for(bot: Bot, message: Message, *, admin_check: bool = False) -> Member:
    return Member(
        platform=PLATFORM,
        user_id=author(message),
        chat_admin=admin_check and await is_chat_admin(bot, message),
        name=message.sender_chat.title or "" if message.sender_chat else _sender(message).full_name,
    )


def member_of(user: User) -> Member:
    """Someone acting without a message of their own (a poll vote, a button press): never a
    chat admin, since nothing they do that way binds a chat."""
    return Member(platform=PLATFORM, user_id=principal(user.id), name=user.full_name)


async def is_chat_admin(bot: Bot, message: Message) -> bool:
    """Whether the sender administers the group the message was sent in (never in a DM)."""
    chat = message.chat
    if chat.type == ChatType.PRIVATE:
        return False
    if message.sender_chat is not None:
        # An anonymous administrator posts as the group itself; a channel is no member.
        return message.sender_chat.id == chat.id
    member = await bot.get_chat_member(chat.id, _sender(message).id)
    return member.status in _ADMIN


def principal_argument(argument: str, message: Message, words_before: int) -> str:
    """A command whose last word names a user (after `words_before` others, as the role of
    `/grant ROLE USER`): as a reply it names the replied-to user; a number is a user id."""
    words = argument.split()
    replied = message.reply_to_message
    if (
        len(words) == words_before
        and replied is not None
        and (replied.sender_chat is not None or replied.from_user is not None)
    ):
        words.append(author(replied))
    elif len(words) == words_before + 1 and words[-1].isdigit():
        words[-1] = principal(int(words[-1]))
    return " ".join(words)


def _sender(message: Message) -> User:
    if message.from_user is None:  # handlers only accept messages from users
        raise ValueError("a message without a sender")
    return message.from_user
