"""The slash commands as Discord sees them: names, descriptions, options and autocomplete.
What they do is in `bot.discord.handlers`; the descriptions of the commands every platform
shares come from the core's command table."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

import discord
from discord import app_commands

from bot.discord.handlers import Handlers, mistakes_argument, principal_of
from core.commands import command_spec

# Discord's own wording: /bind takes a scope.
_DESCRIPTIONS = {
    "bind": "bind this channel or the whole server to a course (instructors, server admins)",
}

Run = Callable[..., Awaitable[None]]


def description(name: str) -> str:
    spec = command_spec(name)
    text = _DESCRIPTIONS.get(name) or (spec.summary if spec is not None else name)
    return text[:1].upper() + text[1:]


def add_commands(tree: app_commands.CommandTree, handlers: Handlers) -> None:
    """Register every command on `tree`, each handing its options to the core."""
    run = handlers.run

    @tree.command(name="ask", description=description("ask"))
    @app_commands.describe(question="your question about the course material")
    async def ask(interaction: discord.Interaction, question: str) -> None:
        await run(interaction, "ask", question)

    @tree.command(name="practice", description=description("practice"))
    @app_commands.describe(topic="an exercise, or a topic to find one for")
    @app_commands.autocomplete(topic=handlers.topic_choices)
    async def practice(interaction: discord.Interaction, topic: str) -> None:
        await run(interaction, "practice", topic)

    @tree.command(name="exercise", description=description("exercise"))
    @app_commands.describe(topic="the topic to practise", difficulty="medium when left out")
    async def exercise(
        interaction: discord.Interaction,
        topic: str,
        difficulty: Literal["easy", "medium", "hard"] | None = None,
    ) -> None:
        await run(interaction, "exercise", f"{topic} {difficulty or ''}".strip())

    @tree.command(name="lesson", description=description("lesson"))
    @app_commands.describe(
        topic='the topic, or edit N "instruction" to revise slide N of your last lesson',
        slides="how many slides, like 4-8 (3-8 when left out)",
        profile="the reading profile (standard when left out)",
        new="make a new deck instead of the one made before",
    )
    async def lesson(
        interaction: discord.Interaction,
        topic: str,
        slides: str | None = None,
        profile: Literal["standard", "visual", "adhd", "dyslexia"] | None = None,
        new: bool = False,
    ) -> None:
        # The core parses the same words as a typed `/lesson` line.
        words = [topic, f"--slides {slides}" if slides else "", "--new" if new else ""]
        words.append(f"--profile {profile}" if profile else "")
        await run(interaction, "lesson", " ".join(" ".join(words).split()))

    @tree.command(name="flashcards", description=description("flashcards"))
    @app_commands.describe(
        topic="the topic",
        new="make new cards",
        csv="attach a CSV too",
        anki="attach an Anki deck (.apkg) too",
    )
    async def flashcards(
        interaction: discord.Interaction,
        topic: str,
        new: bool = False,
        csv: bool = False,
        anki: bool = False,
    ) -> None:
        flags = " --new" * new + " --csv" * csv + " --anki" * anki
        await run(interaction, "flashcards", f"{topic}{flags}")

    @tree.command(name="quiz", description=description("quiz"))
    @app_commands.describe(topic="the topic", questions="how many", new="make a new quiz")
    async def quiz(
        interaction: discord.Interaction,
        topic: str,
        questions: app_commands.Range[int, 1, 30] | None = None,
        new: bool = False,
    ) -> None:
        count = f" {questions}" if questions else ""
        await run(interaction, "quiz", f"{topic}{count}{' --new' * new}")

    @tree.command(name="pick", description=description("pick"))
    @app_commands.describe(question="the question's number", option="your answer")
    async def pick(
        interaction: discord.Interaction,
        question: app_commands.Range[int, 1, 30],
        option: Literal["A", "B", "C", "D"],
    ) -> None:
        await run(interaction, "pick", f"{question} {option}")

    @tree.command(name="mindmap", description=description("mindmap"))
    @app_commands.describe(topic="the topic", new="make a new one")
    async def mindmap(interaction: discord.Interaction, topic: str, new: bool = False) -> None:
        await run(interaction, "mindmap", f"{topic}{' --new' * new}")

    @tree.command(name="materials", description=description("materials"))
    @app_commands.describe(send="the id of one to send again (leave out for the list)")
    async def materials(
        interaction: discord.Interaction, send: app_commands.Range[int, 1] | None = None
    ) -> None:
        await run(interaction, "materials", f"send {send}" if send is not None else "")

    @tree.command(name="prereq", description=description("prereq"))
    @app_commands.describe(course="a course code, a code prefix or a name")
    async def prereq(interaction: discord.Interaction, course: str) -> None:
        await run(interaction, "prereq", course)

    @tree.command(name="courseinfo", description=description("courseinfo"))
    @app_commands.describe(course="a course code, a code prefix or a name")
    async def courseinfo(interaction: discord.Interaction, course: str) -> None:
        await run(interaction, "courseinfo", course)

    @tree.command(name="cantake", description=description("cantake"))
    @app_commands.describe(course="a course code, a code prefix or a name")
    async def cantake(interaction: discord.Interaction, course: str) -> None:
        await run(interaction, "cantake", course)

    @tree.command(name="profile", description=description("profile"))
    @app_commands.describe(
        details="like: semester 4 passed MAE101,CSI106 failed MAS291 (leave out to see yours)"
    )
    async def profile(interaction: discord.Interaction, details: str | None = None) -> None:
        await run(interaction, "profile", details or "")

    @tree.command(name="answer", description=description("answer"))
    @app_commands.describe(answer="your answer to the current step")
    async def answer(interaction: discord.Interaction, answer: str) -> None:
        await run(interaction, "answer", answer)

    # Commands without options: one registration each, as discord.py needs a function each.
    for name in ("hint", "skip", "quit", "status", "solution", "sources", "staff"):
        tree.add_command(_plain_command(name, run))

    @tree.command(name="notes", description=description("notes"))
    @app_commands.describe(
        file="a document of yours (PDF, Word, PowerPoint, Markdown, text…)",
        file2="another file",
        file3="another file",
    )
    async def notes(
        interaction: discord.Interaction,
        file: discord.Attachment,
        file2: discord.Attachment | None = None,
        file3: discord.Attachment | None = None,
    ) -> None:
        await run(interaction, "notes", attachments=_present(file, file2, file3))

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
        file: discord.Attachment,
        file2: discord.Attachment | None = None,
        file3: discord.Attachment | None = None,
        file4: discord.Attachment | None = None,
        file5: discord.Attachment | None = None,
    ) -> None:
        await run(interaction, "ingest", attachments=_present(file, file2, file3, file4, file5))

    @tree.command(name="forget", description=description("forget"))
    @app_commands.describe(
        document="the document's file name (see /sources)",
        private="remove one of your private notes instead",
    )
    @app_commands.autocomplete(document=handlers.document_choices)
    async def forget(
        interaction: discord.Interaction, document: str, private: bool = False
    ) -> None:
        await run(interaction, "forget", f"--private {document}" if private else document)

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
        await run(interaction, "mistakes", mistakes_argument(skill, student, csv))

    @tree.command(name="bind", description=description("bind"))
    @app_commands.describe(course="the course id, e.g. calc101", scope="this channel or the server")
    @app_commands.autocomplete(course=handlers.course_choices)
    async def bind(
        interaction: discord.Interaction,
        course: str,
        scope: Literal["channel", "server"] = "channel",
    ) -> None:
        await run(interaction, "bind", course, bind=scope)

    @tree.command(name="course", description=description("course"))
    @app_commands.describe(course="the course id, e.g. calc101 (or: join CODE)")
    @app_commands.autocomplete(course=handlers.course_choices)
    async def course(interaction: discord.Interaction, course: str) -> None:
        await run(interaction, "course", course)

    @tree.command(name="grant", description=description("grant"))
    @app_commands.describe(role="the role to give", who="a user or a role of this server")
    async def grant(
        interaction: discord.Interaction,
        role: Literal["instructor", "moderator"],
        who: discord.User | discord.Role,
    ) -> None:
        await run(interaction, "grant", f"{role} {principal_of(who)}")

    @tree.command(name="revoke", description=description("revoke"))
    @app_commands.describe(role="the role to take away", who="a user or a role of this server")
    async def revoke(
        interaction: discord.Interaction,
        role: Literal["instructor", "moderator"],
        who: discord.User | discord.Role,
    ) -> None:
        await run(interaction, "revoke", f"{role} {principal_of(who)}")

    @tree.command(name="transfer", description=description("transfer"))
    @app_commands.describe(who="the course's new instructor")
    async def transfer(interaction: discord.Interaction, who: discord.User) -> None:
        await run(interaction, "transfer", principal_of(who))

    @tree.command(name="invite", description=description("invite"))
    @app_commands.describe(state="open or close the course to anyone; leave out for the code")
    async def invite(
        interaction: discord.Interaction, state: Literal["open", "closed"] | None = None
    ) -> None:
        await run(interaction, "invite", state or "")


def _plain_command(name: str, run: Run) -> app_commands.Command[Any, Any, None]:
    async def callback(interaction: discord.Interaction) -> None:
        await run(interaction, name)

    return app_commands.Command(name=name, description=description(name), callback=callback)


def _present(*attachments: discord.Attachment | None) -> list[discord.Attachment]:
    return [attachment for attachment in attachments if attachment is not None]
