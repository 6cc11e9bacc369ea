"""The slash commands as Discord sees them: names, descriptions, options and autocomplete.
What they do is in `bot.discord.handlers`; the descriptions of the commands every platform
shares come from the core's command table."""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands

from bot.discord.handlers import Handlers
from core.commands import command_spec

# Discord's own wording: /answer exists only here (Telegram takes plain replies), and /bind
# takes a scope.
_DESCRIPTIONS = {
    "answer": "answer the current step of your exercise",
    "bind": "bind this channel or the whole server to a course (instructors, server admins)",
}


def description(name: str) -> str:
    spec = command_spec(name)
    text = _DESCRIPTIONS.get(name) or (spec.summary if spec is not None else name)
    return text[:1].upper() + text[1:]


def add_commands(tree: app_commands.CommandTree, handlers: Handlers) -> None:
    """Register every command on `tree`, each calling into `handlers`."""

    @tree.command(name="ask", description=description("ask"))
    @app_commands.describe(question="your question about the course material")
    async def ask(interaction: discord.Interaction, question: str) -> None:
        await handlers.ask(interaction, question)

    @tree.command(name="practice", description=description("practice"))
    @app_commands.describe(topic="an exercise, or a topic to find one for")
    @app_commands.autocomplete(topic=handlers.topic_choices)
    async def practice(interaction: discord.Interaction, topic: str) -> None:
        await handlers.practice(interaction, topic)

    @tree.command(name="answer", description=description("answer"))
    @app_commands.describe(answer="your answer to the current step")
    async def answer(interaction: discord.Interaction, answer: str) -> None:
        await handlers.answer(interaction, answer)

    @tree.command(name="hint", description=description("hint"))
    async def hint(interaction: discord.Interaction) -> None:
        await handlers.hint(interaction)

    @tree.command(name="skip", description=description("skip"))
    async def skip(interaction: discord.Interaction) -> None:
        await handlers.skip(interaction)

    @tree.command(name="quit", description=description("quit"))
    async def quit_(interaction: discord.Interaction) -> None:
        await handlers.quit(interaction)

    @tree.command(name="status", description=description("status"))
    async def status(interaction: discord.Interaction) -> None:
        await handlers.status(interaction)

    @tree.command(name="notes", description=description("notes"))
    @app_commands.describe(
        file="a document of yours (PDF, Word, PowerPoint, Markdown, text…)",
        file2="another file",
        file3="another file",
    )
    async def notes(
        interaction: discord.Interaction,
        file: discord.Attachment | None = None,
        file2: discord.Attachment | None = None,
        file3: discord.Attachment | None = None,
    ) -> None:
        await handlers.notes(interaction, _present(file, file2, file3))

    @tree.command(name="ingest", description=description("ingest"))
    @app_commands.describe(
        file="course material (PDF, Word, PowerPoint, Markdown, exercise YAML…)",
        file2="another file",
        file3="another file",
        file4="another file",
        file5="another file",
    )
    async def ingest(
        interaction: discord.Interaction,
        file: discord.Attachment | None = None,
        file2: discord.Attachment | None = None,
        file3: discord.Attachment | None = None,
        file4: discord.Attachment | None = None,
        file5: discord.Attachment | None = None,
    ) -> None:
        await handlers.ingest(interaction, _present(file, file2, file3, file4, file5))

    @tree.command(name="sources", description=description("sources"))
    async def sources(interaction: discord.Interaction) -> None:
        await handlers.sources(interaction)

    @tree.command(name="forget", description=description("forget"))
    @app_commands.describe(
        document="the document's file name (see /sources)",
        private="remove one of your private notes instead",
    )
    @app_commands.autocomplete(document=handlers.document_choices)
    async def forget(
        interaction: discord.Interaction, document: str, private: bool = False
    ) -> None:
        await handlers.forget(interaction, document, private)

    @tree.command(name="mistakes", description=description("mistakes"))
    @app_commands.describe(
        skill="only this skill",
        student="only this student's mistakes",
        csv="also send the log as a CSV file",
    )
    async def mistakes(
        interaction: discord.Interaction,
        skill: str | None = None,
        student: discord.User | None = None,
        csv: bool = False,
    ) -> None:
        await handlers.mistakes(interaction, skill, student, csv)

    @tree.command(name="bind", description=description("bind"))
    @app_commands.describe(course="the course id, e.g. calc101", scope="this channel or the server")
    @app_commands.autocomplete(course=handlers.course_choices)
    async def bind(
        interaction: discord.Interaction,
        course: str,
        scope: Literal["channel", "server"] = "channel",
    ) -> None:
        await handlers.bind(interaction, course, scope)

    @tree.command(name="course", description=description("course"))
    @app_commands.describe(course="the course id, e.g. calc101")
    @app_commands.autocomplete(course=handlers.course_choices)
    async def course(interaction: discord.Interaction, course: str) -> None:
        await handlers.choose_course(interaction, course)


def _present(*attachments: discord.Attachment | None) -> list[discord.Attachment]:
    return [attachment for attachment in attachments if attachment is not None]
