"""The moderators' `/mistakes` report through the real core: quiz mistakes are counted by
skill beside the mistakes of guided exercises, and the CSV names where each came from."""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.asking import replies
from support.paths import SAMPLE_COURSE

from bot.composition import Assembly, open_assembly
from config import Settings
from core.commands import ParsedCommand
from core.material import SourceFile
from core.replies import DocumentReply, Notice, QuizReply, StepPrompt

COURSE = "sample"
MODERATOR = "mod"


@pytest.fixture
async def assembly(tmp_path: Path, embedder: object) -> AsyncIterator[Assembly]:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        course_roles={COURSE: {"moderator": [MODERATOR]}},
    )
    async with open_assembly(settings) as opened:
        files = [
            SAMPLE_COURSE / "lecture-02-derivatives.pdf",
            SAMPLE_COURSE / "exercises" / "derivative-product-rule.exercise.yaml",
        ]
        report = await opened.bot.ingest_files(COURSE, [SourceFile.at(f) for f in files])
        assert not report.failed
        yield opened


def command(name: str, argument: str = "") -> dict[str, object]:
    return {"command": ParsedCommand(name, argument)}


async def test_quiz_mistakes_show_by_skill_beside_exercise_mistakes(assembly: Assembly) -> None:
    bot = assembly.bot
    *_, step = await replies(bot, "", "ana", **command("practice", "derivative-product-rule"))
    assert isinstance(step, StepPrompt)
    [graded] = await replies(bot, "", "ana", **command("answer", "x^2"))  # power-rule, wrong
    assert isinstance(graded, Notice) and graded.text.startswith("✗")
    [quiz] = await replies(bot, "", "ana", **command("quiz", "derivatives 3"))
    assert isinstance(quiz, QuizReply) and quiz.grounded
    question = quiz.questions[0]
    wrong = "ABCD"[(question.correct + 1) % 4]
    [feedback] = await replies(bot, "", "ana", **command("pick", f"{quiz.quiz_id} 1 {wrong}"))
    assert isinstance(feedback, Notice) and feedback.text.startswith("✗")

    report, chart, export = await replies(bot, "", MODERATOR, **command("mistakes", "--csv"))
    assert isinstance(report, Notice) and isinstance(chart, DocumentReply)
    assert isinstance(export, DocumentReply)
    rows = list(csv.DictReader(io.StringIO(export.content.decode())))
    by_source = {row["exercise_id"]: row for row in rows}
    assert set(by_source) == {"derivative-product-rule", f"quiz-{quiz.quiz_id}"}
    quiz_row = by_source[f"quiz-{quiz.quiz_id}"]
    assert quiz_row["answer"] == question.options["ABCD".index(wrong)]
    # Each skill is a line of the report with its count: the exercise's (power-rule) and the
    # quiz question's (which may be the same skill).
    counts = Counter(["power-rule", quiz_row["skill"]])
    for skill, count in counts.items():
        assert f"  {skill}: {count}" in report.text
