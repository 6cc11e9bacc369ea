"""A message that mentions the bot in a server channel is a question (or, during an
exercise, an answer) about the channel's course. Discord delivers the text of such messages
without the privileged message content intent, so the bot asks for none; nor does it need it
for a direct message, where a reply to one of the bot's messages (a listed question group,
which the reply answers) is taken too."""

from __future__ import annotations

import re

import discord

from bot.discord.delivery import post
from bot.discord.members import message_member, place_of
from bot.discord.render import render_all
from core.course_bot import CourseBot
from core.requests import Request


def mention_pattern(user_id: int) -> re.Pattern[str]:
    return re.compile(rf"<@!?{user_id}>")


def question_text(content: str, bot_id: int) -> str:
    """The message without the bot's mention(s)."""
    return " ".join(mention_pattern(bot_id).sub(" ", content).split())


def is_question(message: discord.Message, me: discord.abc.User | None) -> bool:
    """A server message from a person that mentions the bot by name (not @everyone)."""
    return (
        me is not None
        and message.guild is not None
        and not message.author.bot
        and any(user.id == me.id for user in message.mentions)
    )


def is_direct_reply(message: discord.Message) -> bool:
    """A person's direct message to the bot that replies to one of its messages."""
    return message.guild is None and not message.author.bot and replied_to(message) is not None


def replied_to(message: discord.Message) -> str | None:
    reference = message.reference
    if reference is None or reference.message_id is None:
        return None
    return str(reference.message_id)


class MentionAnswers:
    def __init__(self, core: CourseBot) -> None:
        self.core = core

    async def on_message(self, message: discord.Message, me: discord.abc.User | None) -> None:
        if me is None or not (is_question(message, me) or is_direct_reply(message)):
            return
        guild_id = message.guild.id if message.guild else None
        request = Request(
            member=message_member(message),
            # A reply to a message is seen by the whole channel: nothing can be whispered.
            place=place_of(message.channel, guild_id, whisper=False),
            message_id=f"discord:{message.id}",
            text=question_text(message.content, me.id),
            replying_to=replied_to(message),
        )
        async with message.channel.typing():
            response = await self.core.handle(request)
        await post(message.channel, render_all(response.replies), reference=message)
