"""A message that mentions the bot in a server channel is a question about the channel's
course. Discord delivers the text of such messages without the privileged message content
intent, so the bot asks for none."""

from __future__ import annotations

import re

import discord

from bot.discord.courses import request_context
from bot.discord.delivery import post
from bot.discord.members import message_member
from bot.discord.render import render_all, uses_private_notes
from core.course_bot import CourseBot
from core.replies import ErrorReply, Notice, Reply

PRIVATE_ANSWER = (
    "The answer draws on your private notes, so I won't post it here: ask with /ask to see it "
    "privately."
)


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


class MentionAnswers:
    def __init__(self, bot: CourseBot) -> None:
        self.bot = bot

    async def on_message(self, message: discord.Message, me: discord.abc.User | None) -> None:
        if me is None or not is_question(message, me):
            return
        guild_id = message.guild.id if message.guild else None
        found = await request_context(
            self.bot, message_member(message), message.channel, guild_id, message.id
        )
        if isinstance(found, ErrorReply):
            replies: list[Reply] = [found]
        else:
            question = question_text(message.content, me.id)
            async with message.channel.typing():
                replies = await self.bot.handle_call(found, self.bot.ask(found, question))
        # Nothing here can be ephemeral: what comes from private notes stays unsaid.
        shown = [Notice(PRIVATE_ANSWER) if uses_private_notes(r) else r for r in replies]
        await post(message.channel, render_all(shown), reference=message)
