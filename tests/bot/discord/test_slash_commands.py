"""Slash commands dispatched as real interactions through the bot's command tree, answered
by the real core, with what the client sends to Discord recorded by a fake HTTP layer."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from discord import AppCommandOptionType
from support.fake_discord import (
    ADA,
    ALICE,
    APPLICATION_COMMAND_AUTOCOMPLETE,
    AUTOCOMPLETE_RESULT,
    BOB,
    COURSE,
    COURSE_CHANNEL_ID,
    DEFER,
    DELETE_ORIGINAL,
    EDIT_ORIGINAL,
    ELSEWHERE,
    FOLLOW_UP,
    IN_COURSE,
    MANAGE_GUILD,
    TEACHER,
    TESS,
    File,
    Person,
    Request,
    direct,
    in_thread,
    interact,
    slash,
    snowflake,
    start_interaction,
)

from bot.discord.client import STALE_COMMAND
from bot.discord.commands import description
from bot.discord.delivery import scheduled_poster
from bot.discord.members import user_key
from bot.discord.render import EMBED_DESCRIPTION_LIMIT, MESSAGE_LIMIT
from bot.scheduling import running_schedules
from core.answering import QuestionAnswering
from core.commands import COMMANDS as REGISTRY
from core.commands import Kind
from core.course_bot import INTERNAL_ERROR
from core.courses.access import BIND_IN_DM, NO_DM_COURSE, UNBOUND_CHAT
from core.permissions import BIND_NEEDS_ADMIN, BIND_NEEDS_INSTRUCTOR, REBIND_NEEDS_INSTRUCTOR
from core.reading_profiles import Profile
from core.replies import Answer, Citation

REGISTRY_BY_NAME = {spec.name: spec for spec in REGISTRY}
DISCORD_TYPES = {
    Kind.TEXT: AppCommandOptionType.string,
    Kind.INTEGER: AppCommandOptionType.integer,
    Kind.BOOLEAN: AppCommandOptionType.boolean,
    Kind.USER: AppCommandOptionType.user,
    Kind.PRINCIPAL: AppCommandOptionType.mentionable,
}
FINAL_EXAM = "When is the final exam and where is it held?"
# A server admin who is also a teacher by the course server's role name.
HEAD = Person(1_000_000_000_000_000_007, "head", roles=(TEACHER,), permissions=MANAGE_GUILD)
# A server admin with no role on the course until an instructor grants one.
DEAN = Person(1_000_000_000_000_000_008, "dean", permissions=MANAGE_GUILD)

# Options to run each command with (the registry says which commands there are).
COMMANDS = {
    "help": {},
    "ask": {"question": FINAL_EXAM},
    "practice": {"topic": "derivative-product-rule"},
    "exercise": {"topic": "derivatives", "difficulty": "hard"},
    "lesson": {"topic": "derivatives", "slides": "3-4", "profile": "adhd"},
    "solution": {},
    "flashcards": {"topic": "exam"},
    "quiz": {"topic": "exam", "questions": 2},
    "pick": {"question": 1, "option": "B"},
    "mindmap": {"topic": "exam"},
    "materials": {},
    "prereq": {"course": "DAT301m"},
    "courseinfo": {"course": "DAT301m"},
    "cantake": {"course": "DAT301m"},
    "profile": {},
    "answer": {"answer": "2x"},
    "hint": {},
    "skip": {},
    "quit": {},
    "status": {},
    "notes": {"file": File("notes.md", b"# Notes")},
    "ingest": {"file": File("glossary.md", b"# Glossary")},
    "sources": {},
    "page": {"document": "syllabus.md", "page": 1},
    "forget": {"document": "nothing.md"},
    "mistakes": {},
    "good": {},
    "bad": {"why": "incomplete"},
    "unanswered": {},
    "reply": {"id": 1, "answer": "See the syllabus."},
    "digest": {"period": "month"},
    "bind": {"course": COURSE},
    "unbind": {},
    "course": {"course": COURSE},
    "grant": {"role": "moderator", "who": BOB},
    "revoke": {"role": "moderator", "who": BOB},
    "staff": {},
    "invite": {},
    "transfer": {"who": BOB},
    "schedule": {"what": "reminders on"},
    "schedules": {},
    "unschedule": {"id": 1},
    "advising": {},
}
# Private material, staff matters and refusals are ephemeral from the start (the registry's
# `private`); answers, practice and bindings are for the channel.
PRIVATE = {spec.name for spec in REGISTRY if spec.private}


def kinds(sent: list[Request]) -> list[str]:
    names = {DEFER: "defer", EDIT_ORIGINAL: "edit", DELETE_ORIGINAL: "delete", FOLLOW_UP: "follow"}
    return [next((n for k, n in names.items() if r.is_(*k)), r.path) for r in sent]


def test_every_command_is_registered_with_a_description(app) -> None:
    commands = {command.name: command for command in app.client.tree.get_commands()}
    assert set(commands) == {spec.name for spec in REGISTRY if spec.listed} == set(COMMANDS)
    assert "help" in commands and "card" not in commands  # /card is what buttons send
    assert all(0 < len(c.description) <= 100 for c in commands.values())
    assert commands["ask"].description == "Ask a question about the course"
    assert commands["ask"].description == description("ask")
    completed = {
        (command.name, parameter.name)
        for command in commands.values()
        for parameter in command.parameters
        if parameter.autocomplete
    }
    assert completed == {
        (spec.name, option.name) for spec in REGISTRY for option in spec.options if option.complete
    }
    assert {("practice", "topic"), ("forget", "document"), ("bind", "course")} <= completed


def test_options_are_typed_as_the_registry_declares_them(app) -> None:
    commands = {command.name: command for command in app.client.tree.get_commands()}
    for spec in REGISTRY:
        if not spec.listed:
            continue
        parameters = {p.name: p for p in commands[spec.name].parameters}
        for option in spec.options:
            parameter = parameters[option.name]
            assert parameter.required is option.required, (spec.name, option.name)
            assert [c.value for c in parameter.choices] == list(option.choices)
            assert parameter.type is DISCORD_TYPES[option.kind], (spec.name, option.name)
            if option.low is not None or option.high is not None:
                assert (parameter.min_value, parameter.max_value) == (option.low, option.high)
        files = [p for p in parameters.values() if p.type is AppCommandOptionType.attachment]
        assert len(files) == spec.files, spec.name
    lesson = {p.name: p for p in commands["lesson"].parameters}
    assert [c.value for c in lesson["profile"].choices] == [p.value for p in Profile]


def test_staff_commands_are_hidden_from_members_by_default(app) -> None:
    for command in app.client.tree.get_commands():
        spec = REGISTRY_BY_NAME[command.name]
        if spec.staff:
            assert command.default_permissions is not None, command.name
            assert command.default_permissions.value != 0, command.name
        else:
            assert command.default_permissions is None, command.name
    assert {"grant", "ingest", "mistakes", "bind"} <= {
        c.name for c in app.client.tree.get_commands() if c.default_permissions is not None
    }


def test_the_client_keeps_discord_py_event_handlers(app) -> None:
    # discord.py's Client keeps its own `_handlers` ({"ready": ...}); ours are elsewhere.
    assert "ready" in app.client._handlers


async def test_help_on_discord_lists_the_commands_for_the_asker(app) -> None:
    sent = await app.run("help", ALICE, IN_COURSE)
    assert sent[0].ephemeral
    text = " ".join(r.content + " ".join(e.get("description", "") for e in r.embeds) for r in sent)
    usable, staff = text.split("For the course's staff:")
    assert "/ask QUESTION" in usable and "/ingest" not in usable
    assert "/unanswered — instructors, moderators:" in staff and "/ingest — instructors:" in staff


async def test_every_command_acknowledges_first_with_the_right_visibility(app) -> None:
    for name, options in COMMANDS.items():
        sent = await app.run(name, ALICE, IN_COURSE, **options)
        assert kinds(sent)[0] == "defer", name
        assert sent[0].payload["type"] == 5, name  # "thinking…", answered later
        assert sent[0].ephemeral is (name in PRIVATE), name
        assert kinds(sent).count("defer") == 1, name
        assert len(sent) > 1, f"/{name} acknowledged but never answered"


async def test_the_acknowledgement_comes_before_slow_core_work(app, monkeypatch) -> None:
    release = asyncio.Event()
    asked = asyncio.Event()
    real_ask = QuestionAnswering.ask

    async def slow_ask(answers, ctx, question):
        asked.set()
        await release.wait()  # the core takes as long as the test wants
        return await real_ask(answers, ctx, question)

    monkeypatch.setattr(QuestionAnswering, "ask", slow_ask)
    loop = asyncio.get_running_loop()
    started_at = loop.time()
    task = start_interaction(app.client, slash("ask", ALICE, IN_COURSE, question=FINAL_EXAM))
    await asyncio.wait_for(asked.wait(), 10)

    assert kinds(app.fake.requests) == ["defer"]  # acknowledged while the core still works
    assert app.fake.requests[0].at - started_at < 3.0  # Discord's limit
    release.set()
    await task
    assert kinds(app.fake.requests) == ["defer", "edit"]
    assert "Hall A" in app.fake.requests[1].content


async def test_an_answer_has_its_citations_in_a_sources_embed(app) -> None:
    sent = await app.run("ask", ALICE, IN_COURSE, question=FINAL_EXAM)
    assert kinds(sent) == ["defer", "edit"]
    answer = sent[1]
    assert not answer.ephemeral
    assert "Hall A" in answer.content
    assert "[1]" in answer.content
    [embed] = answer.embeds
    assert embed["title"] == "Sources"
    assert "[1] syllabus.md, " in embed["description"]
    assert answer.payload["allowed_mentions"] == {"parse": []}  # material pings nobody


async def test_a_long_answer_is_split_without_breaking_a_citation(app, monkeypatch) -> None:
    sentences = [
        f"Sentence {n} explains limits and derivatives at some length [{n % 9 + 1}]."
        for n in range(300)
    ]
    citations = tuple(
        Citation(f"lecture-{n:02d}.pdf", page=n, section="Section " + "x" * 150) for n in range(40)
    )

    async def long_answer(_answers, _ctx, _question):
        return Answer(text=" ".join(sentences), citations=citations)

    monkeypatch.setattr(QuestionAnswering, "ask", long_answer)
    sent = await app.run("ask", ALICE, IN_COURSE, question="Tell me everything")

    messages = sent[1:]
    assert kinds(messages)[0] == "edit" and set(kinds(messages)[1:]) == {"follow"}
    assert all(len(m.content) <= MESSAGE_LIMIT for m in messages)
    assert sum(1 for m in messages if m.content) >= 5  # 300 sentences need several messages
    text = " ".join(m.content for m in messages if m.content)
    assert text.split() == " ".join(sentences).split()  # nothing lost, nothing cut mid-word
    descriptions = [e["description"] for m in messages for e in m.embeds]
    assert len(descriptions) >= 2
    assert all(len(d) <= EMBED_DESCRIPTION_LIMIT for d in descriptions)
    lines = [line for d in descriptions for line in d.split("\n")]
    assert lines == [f"[{n}] {c.label()}" for n, c in enumerate(citations, start=1)]
    assert all(len(m.embeds) <= 10 for m in messages)
    assert all(
        sum(len(e["title"]) + len(e["description"]) for e in m.embeds) <= 6000 for m in messages
    )


async def test_an_unbound_channel_gets_a_private_hint(app) -> None:
    sent = await app.run("ask", ALICE, ELSEWHERE, question=FINAL_EXAM)
    # The public "thinking…" is removed and the hint goes to the asker alone.
    assert kinds(sent) == ["defer", "delete", "follow"]
    assert sent[2].ephemeral
    assert sent[2].content == UNBOUND_CHAT


async def test_a_direct_message_without_a_course_asks_for_one(app) -> None:
    sent = await app.run("ask", ALICE, direct(ALICE), question=FINAL_EXAM)
    assert sent[-1].ephemeral
    assert sent[-1].content == NO_DM_COURSE


async def test_course_chooses_what_direct_messages_are_about(app) -> None:
    await app.run("ask", ALICE, IN_COURSE, question=FINAL_EXAM)  # she is in the course now
    chosen = await app.run("course", ALICE, direct(ALICE), course=COURSE)
    assert kinds(chosen) == ["defer", "edit"]
    assert chosen[0].ephemeral
    assert f"now about the course '{COURSE}'" in chosen[1].content
    answered = await app.run("ask", ALICE, direct(ALICE), question=FINAL_EXAM)
    assert "Hall A" in answered[-1].content


async def test_binding_needs_a_server(app) -> None:
    sent = await app.run("bind", ADA, direct(ADA), course=COURSE)
    assert sent[-1].content == BIND_IN_DM


async def test_a_student_cannot_bind_a_channel(app) -> None:
    refused = await app.run("bind", ALICE, ELSEWHERE, course=COURSE)
    assert kinds(refused) == ["defer", "delete", "follow"]
    assert refused[2].ephemeral
    assert refused[2].content == BIND_NEEDS_ADMIN
    still = await app.run("ask", ALICE, ELSEWHERE, question=FINAL_EXAM)
    assert still[-1].content == UNBOUND_CHAT


async def test_a_server_admin_gains_no_role_on_an_existing_course(app) -> None:
    refused = await app.run("bind", ADA, ELSEWHERE, course=COURSE, scope="server")
    assert kinds(refused) == ["defer", "delete", "follow"]
    assert refused[2].ephemeral
    assert refused[2].content == BIND_NEEDS_INSTRUCTOR.format(course=COURSE)
    still = await app.run("ask", ALICE, ELSEWHERE, question=FINAL_EXAM)
    assert still[-1].content == UNBOUND_CHAT


async def test_a_server_admin_binding_a_new_course_creates_and_teaches_it(app) -> None:
    bound = await app.run("bind", ADA, ELSEWHERE, course="physics1", scope="server")
    assert kinds(bound) == ["defer", "edit"]
    assert not bound[1].ephemeral  # the channel learns where it stands
    assert bound[1].content.startswith(
        "This server is now bound to the course 'physics1'. You created it, so you are its "
        "instructor."
    )
    staff = await app.run("staff", ADA, ELSEWHERE)
    assert f"instructor: {user_key(ADA.id)}" in staff[-1].content
    # The course's own channel keeps its more specific binding.
    answered = await app.run("ask", ALICE, IN_COURSE, question=FINAL_EXAM)
    assert "Hall A" in answered[-1].content


async def test_a_teacher_role_named_in_settings_binds_the_server_from_the_course_channel(
    app,
) -> None:
    bound = await app.run("bind", HEAD, IN_COURSE, course=COURSE, scope="server")
    assert bound[-1].content.startswith(f"This server is now bound to the course '{COURSE}'.")
    answered = await app.run("ask", ALICE, ELSEWHERE, question=FINAL_EXAM)
    assert "Hall A" in answered[-1].content


async def test_a_server_admin_without_a_course_role_cannot_move_or_unbind_its_channel(
    app,
) -> None:
    # Issue 28.2 on Discord: Manage Server is no role on the course the channel is bound to.
    for command, options in (("bind", {"course": "evil101"}), ("unbind", {})):
        refused = await app.run(command, DEAN, IN_COURSE, **options)
        assert refused[-1].ephemeral
        assert refused[-1].content == REBIND_NEEDS_INSTRUCTOR.format(current=COURSE)
    answered = await app.run("ask", ALICE, IN_COURSE, question=FINAL_EXAM)
    assert "Hall A" in answered[-1].content
    # Its instructor (a teacher by the server's role name, and a server admin) may.
    unbound = await app.run("unbind", HEAD, IN_COURSE)
    assert unbound[-1].content == f"This channel is no longer bound to the course '{COURSE}'."
    assert (await app.run("ask", ALICE, IN_COURSE, question=FINAL_EXAM))[-1].content == (
        UNBOUND_CHAT
    )


async def test_a_role_name_does_not_count_in_a_channel_bound_to_nothing(app) -> None:
    refused = await app.run("bind", HEAD, ELSEWHERE, course=COURSE)
    assert refused[-1].content == BIND_NEEDS_INSTRUCTOR.format(course=COURSE)


async def test_binding_from_a_thread_binds_its_channel(app) -> None:
    granted = await app.run("grant", TESS, IN_COURSE, role="instructor", who=DEAN)
    assert granted[-1].content.startswith(f"{user_key(DEAN.id)} is now a")
    assert granted[-1].content.endswith(f"instructor of '{COURSE}'.")
    bound = await app.run("bind", DEAN, in_thread(snowflake(), parent=ELSEWHERE), course=COURSE)
    assert bound[-1].content.startswith("This channel is now bound")
    answered = await app.run("ask", ALICE, ELSEWHERE, question=FINAL_EXAM)
    assert "Hall A" in answered[-1].content


async def test_course_names_are_autocompleted(app) -> None:
    await app.run("ask", ALICE, IN_COURSE, question=FINAL_EXAM)
    app.fake.forget()
    payload = slash(
        "bind",
        ALICE,
        ELSEWHERE,
        kind=APPLICATION_COMMAND_AUTOCOMPLETE,
        focused="course",
        course="cal",
    )
    await interact(app.client, payload)
    [result] = app.fake.requests
    assert result.payload == {
        "type": AUTOCOMPLETE_RESULT,
        "data": {"choices": [{"name": COURSE, "value": COURSE}]},
    }


async def test_a_failing_autocomplete_offers_nothing_instead_of_failing(app, monkeypatch) -> None:
    async def broken(_member):
        raise RuntimeError("database down")

    monkeypatch.setattr(app.bot, "course_choices", broken)
    payload = slash(
        "course",
        ALICE,
        direct(ALICE),
        kind=APPLICATION_COMMAND_AUTOCOMPLETE,
        focused="course",
        course="",
    )
    await interact(app.client, payload)
    [result] = app.fake.requests
    assert result.payload == {"type": AUTOCOMPLETE_RESULT, "data": {"choices": []}}


async def test_sources_lists_the_course_documents(app) -> None:
    sent = await app.run("sources", ALICE, IN_COURSE)
    assert sent[0].ephemeral
    assert f"Documents in '{COURSE}':" in sent[-1].content
    assert "syllabus.md (syllabus, 14 chunks)" in sent[-1].content


async def test_documents_are_autocompleted_for_forget(app) -> None:
    payload = slash(
        "forget",
        TESS,
        IN_COURSE,
        kind=APPLICATION_COMMAND_AUTOCOMPLETE,
        focused="document",
        document="syll",
    )
    await interact(app.client, payload)
    [result] = app.fake.requests
    assert result.payload["data"]["choices"] == [{"name": "syllabus.md", "value": "syllabus.md"}]


async def test_only_instructors_forget_documents(app) -> None:
    refused = await app.run("forget", ALICE, IN_COURSE, document="syllabus.md")
    assert refused[-1].ephemeral
    assert refused[-1].content == "Sorry, only a course instructor can remove course material."
    removed = await app.run("forget", TESS, IN_COURSE, document="syllabus.md")
    assert removed[-1].content == f"Removed 'syllabus.md' from '{COURSE}'."
    listed = await app.run("sources", TESS, IN_COURSE)
    assert "syllabus.md" not in listed[-1].content


async def test_an_unexpected_failure_is_reported_politely_and_privately(app, monkeypatch) -> None:
    async def broken(*_args, **_kwargs):
        raise RuntimeError("database exploded")

    monkeypatch.setattr(app.index, "count", broken)
    sent = await app.run("ask", ALICE, IN_COURSE, question=FINAL_EXAM)
    assert kinds(sent) == ["defer", "delete", "follow"]
    assert sent[-1].ephemeral
    assert sent[-1].content == INTERNAL_ERROR
    assert not any("exploded" in r.content or "Traceback" in r.content for r in sent)


async def test_a_command_this_version_does_not_know_gets_a_polite_reply(app) -> None:
    sent = await app.run("frobnicate", ALICE, IN_COURSE)  # a stale command still shown
    [reply] = sent
    assert reply.is_(*DEFER)  # answered at once, as a message of its own
    assert reply.payload["type"] == 4
    assert reply.ephemeral
    assert reply.content == STALE_COMMAND


async def test_a_quiz_scheduled_in_a_channel_is_posted_there_once(app, settings) -> None:
    # The course here is its syllabus (and exercises): a quiz about the course, on its grading.
    sent = await app.run("schedule", TESS, IN_COURSE, what="quiz grading daily 09:00")
    assert "Schedule #1: quiz on grading, daily 09:00." in sent[-1].content
    refused = await app.run("schedule", ALICE, IN_COURSE, what="quiz limits mon 09:00")
    assert "only a course instructor can schedule" in refused[-1].content
    posters = {"discord": scheduled_poster(app.client)}
    async with running_schedules(settings, app.bot, posters=posters, poll_s=60) as runner:
        start = len(app.fake.channel_messages(COURSE_CHANNEL_ID))
        due = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
        await asyncio.gather(runner.fire(1, due), runner.fire(1, due))
        posted = app.fake.channel_messages(COURSE_CHANNEL_ID)[start:]
    # Once (of two replicas firing it), five questions, each with its A–D buttons.
    header, *questions = posted
    assert header.content.startswith("**Quiz: grading (5 questions)**")
    assert len(questions) == 5 and all(m.payload.get("components") for m in questions)
    listing = await app.run("schedules", TESS, IN_COURSE)
    assert "2026-12-07 09:00 UTC done: quiz on grading posted" in listing[-1].content
