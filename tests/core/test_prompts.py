"""Every prompt that quotes text a student or a document controls says, in the same words,
that the text is not to be obeyed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core import prompts

GUARDED = {
    "ANSWER_SYSTEM": (prompts.ANSWER_SYSTEM, "the sources"),
    "GRADE_FREE_TEXT_SYSTEM": (prompts.GRADE_FREE_TEXT_SYSTEM, "the student's answer"),
    "EXERCISE_SYSTEM": (prompts.EXERCISE_SYSTEM, "the passages"),
    "LESSON_SYSTEM": (prompts.LESSON_SYSTEM, "the passages"),
    "quiz_system": (prompts.quiz_system(grounded=True), "the passages"),
    "flashcards_system": (prompts.flashcards_system(grounded=True), "the passages"),
    "mindmap_system": (prompts.mindmap_system(grounded=True), "the passages"),
}


@pytest.mark.parametrize("name", sorted(GUARDED))
def test_a_prompt_quoting_material_carries_the_one_guard(name: str) -> None:
    text, what = GUARDED[name]
    assert prompts.quoted_not_obeyed(what) in text


def test_the_guard_is_worded_nowhere_else() -> None:
    # A second wording drifts from the first: only `quoted_not_obeyed` may say it.
    core = Path(prompts.__file__).parent
    wording = [
        path.relative_to(core).as_posix()
        for path in core.rglob("*.py")
        if re.search(r"never an\s+instruction", path.read_text(encoding="utf-8"))
    ]
    assert wording == ["prompts.py"]
    assert len(re.findall(r"never an\s+instruction", (core / "prompts.py").read_text())) == 1


def test_prompts_keep_their_literal_braces() -> None:
    assert '{"correct": true' in prompts.GRADE_FREE_TEXT_SYSTEM
    assert "\\frac{a}{b}" in prompts.LESSON_SYSTEM
