"""The command registry: a chat line and a platform's typed options become the same typed
arguments, and a line that does not fit is one clear refusal."""

from __future__ import annotations

import pytest

from core.commands import COMMANDS, Kind, ParsedCommand, command_spec, help_text
from core.context import Role
from core.errors import BadInputError
from core.permissions import holders
from core.reading_profiles import Profile


def args(name: str, line: str) -> dict[str, object]:
    spec = command_spec(name)
    assert spec is not None
    return dict(spec.arguments(ParsedCommand(name, line)).values)


def typed(name: str, **options: object) -> dict[str, object]:
    spec = command_spec(name)
    assert spec is not None
    return dict(spec.arguments(ParsedCommand(name, options=options)).values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "line", "expected"),
    [
        ("quiz", "limits 5 --new", {"topic": "limits", "questions": 5, "new": True}),
        ("quiz", "limits of functions", {"topic": "limits of functions"}),
        ("exercise", "chain rule HARD", {"topic": "chain rule", "difficulty": "hard"}),
        (
            "lesson",
            "derivatives --slides 3-6 --profile ADHD --new",
            {"topic": "derivatives", "slides": "3-6", "profile": "adhd", "new": True},
        ),
        ("lesson", "chain --slides=4-8 rule", {"topic": "chain rule", "slides": "4-8"}),
        ("pick", "2. c", {"question": 2, "option": "C"}),
        ("pick", "7 1 3", {"quiz": 7, "question": 1, "option": "C"}),
        ("card", "12 3 back", {"set": 12, "number": 3, "side": "back"}),
        ("materials", "send #4", {"send": 4}),
        ("materials", "", {}),
        (
            "mistakes",
            '--skill "chain rule" --student telegram:5 --csv',
            {"skill": "chain rule", "student": "telegram:5", "csv": True},
        ),
        ("grant", "Moderator telegram:5", {"role": "moderator", "who": "telegram:5"}),
        ("forget", "--private my notes.md", {"document": "my notes.md", "private": True}),
        ("answer", "x = 2\ny = 3", {"answer": "x = 2\ny = 3"}),
    ],
)
def test_a_chat_line_becomes_typed_arguments(name: str, line: str, expected: dict) -> None:
    assert args(name, line) == expected


@pytest.mark.parametrize(
    ("name", "line", "said"),
    [
        ("ask", "   ", "Please write a question."),
        ("quiz", "limits 50", "Questions must be from 1 to 30."),
        ("lesson", "derivatives --profile comic", "There is no reading profile 'comic'"),
        ("lesson", "derivatives --slides", "--slides needs a value."),
        ("pick", "first one", "Answer with /pick N B"),
        ("grant", "owner telegram:5", "Usage: /grant instructor|moderator USER"),
        ("invite", "maybe", "Usage: /invite, /invite open or /invite closed."),
        ("materials", "everything", "/materials send ID"),
        ("materials", "send", "Send /materials for the list"),
        ("mistakes", "hello", "Usage: /mistakes"),
    ],
)
def test_a_line_that_does_not_fit_is_one_refusal(name: str, line: str, said: str) -> None:
    with pytest.raises(BadInputError) as refused:
        args(name, line)
    assert said in str(refused.value)


def test_typed_options_are_checked_like_a_line() -> None:
    assert typed("quiz", topic="limits", questions=3, new=True) == args("quiz", "limits 3 --new")
    assert typed("lesson", topic="x", profile="Visual") == {"topic": "x", "profile": "visual"}
    with pytest.raises(BadInputError):
        typed("quiz", topic="limits", questions=31)
    with pytest.raises(BadInputError):
        typed("quiz", questions=3)  # the topic is required
    with pytest.raises(BadInputError):
        typed("quiz", topic="limits", colour="red")  # no such option


def test_every_command_is_declared_once_and_usable() -> None:
    names = [name for spec in COMMANDS for name in (spec.name, *spec.aliases)]
    assert len(names) == len(set(names))
    for spec in COMMANDS:
        assert spec.handler is not None and spec.summary
        assert sum(1 for o in spec.options if o.rest) <= 1, spec.name
        assert all(o.kind is not Kind.BOOLEAN or not o.required for o in spec.options)


def test_the_lesson_profiles_are_the_reading_profiles() -> None:
    lesson = command_spec("lesson")
    assert lesson is not None and lesson.option("profile") is not None
    assert lesson.option("profile").choices == tuple(p.value for p in Profile)  # type: ignore[union-attr]


def _usable(help_text: str) -> str:
    """The part of a help text listing what its reader may use (the staff's come after)."""
    return help_text.split("For the course's staff:")[0]


def test_the_help_lists_each_role_its_commands_with_usage() -> None:
    students = help_text(frozenset({Role.STUDENT}), holders)
    assert "/quiz TOPIC [N] [--new] — a multiple-choice quiz on a topic" in students
    assert "/card" not in students and "/ingest" not in _usable(students)
    staff = help_text(frozenset({Role.STUDENT, Role.MODERATOR, Role.INSTRUCTOR}), holders)
    assert "/forget [DOCUMENT] [--private] [--answer ID]" in staff
    assert "For the course's staff:" not in staff
    assert "/good [--answer ID]" in students and "/bad [WHY] [--answer ID]" in students
    assert "/unanswered" not in _usable(students) and "/digest" not in _usable(students)
    moderators = help_text(frozenset({Role.STUDENT, Role.MODERATOR}), holders)
    assert "/reply ID ANSWER" in moderators and "/digest [week|month] [--student U]" in moderators


def test_the_help_names_who_may_use_the_staffs_commands() -> None:
    students = help_text(frozenset({Role.STUDENT}), holders)
    staff_part = students.split("For the course's staff:")[1]
    assert "/unanswered — instructors, moderators: questions the material failed" in staff_part
    assert "/reply — instructors, moderators:" in staff_part
    assert "/digest — instructors, moderators:" in staff_part
    assert "/ingest — instructors: add files" in staff_part
    # Every listed command is in one part or the other, once.
    listed = [spec.name for spec in COMMANDS if spec.listed]
    assert all(students.count(f"\n/{name} ") == 1 for name in listed)
    moderators = help_text(frozenset({Role.STUDENT, Role.MODERATOR}), holders)
    assert "/unanswered — instructors, moderators" not in moderators
    assert "/bind — instructors: bind this chat" in moderators.split("For the course's staff:")[1]
