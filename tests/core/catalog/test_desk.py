"""The catalog in chat: `/prereq`, `/courseinfo`, `/profile`, `/cantake`, and questions in
plain words answered exactly from the tables, with citations (file and section)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.catalog import COURSE, facts_of, sqlite_catalog, student

from core.catalog import CatalogDesk, CatalogStore
from core.context import Audience, Context
from core.errors import BadInputError


def in_private(ctx: Context) -> Context:
    """The context of a direct message, where only the asker reads the reply."""
    return replace(ctx, audience=Audience.PRIVATE)


def cited_files(answer) -> set[str]:
    return {c.file_name for c in answer.citations}


async def test_prereq_gives_the_chain_and_what_it_unlocks(desk: CatalogDesk) -> None:
    answer = await desk.prereq(student(), "cpv301")

    assert answer.text.startswith("CPV301 (Computer Vision): PFP191, CSD203 [1] (BIT_AI_K20D-21A).")
    assert "- CSD203 Data Structures and Algorithm with Python: PFP191 [1]" in answer.text
    assert "CPV301 unlocks, in the current curriculum BIT_AI_K20D-21A: DAT301m" in answer.text
    assert answer.citations[0].file_name == "Curriculum_k20_k21.md"
    assert answer.citations[0].section == "Curriculum details"


async def test_courseinfo_names_the_version_of_each_fact(desk: CatalogDesk) -> None:
    answer = await desk.courseinfo(student(), "AI Development")

    assert "DAT301m (AI Development with TensorFlow)" in answer.text
    assert "Credits: 3 [1] (BIT_AI_K20D-21A)" in answer.text
    assert "Semester: 7 in BIT_AI_K20D-21A [1]; other versions: 8 in BIT_AI_K18D-19A" in answer.text
    assert "Stated in: Curriculum_k20_k21.md, DAT301m.MD, Curriculum_k18_k19.md" in answer.text


async def test_ambiguous_and_unknown_courses_are_one_line(desk: CatalogDesk) -> None:
    with pytest.raises(BadInputError, match=r"'MA' could be MAE101 .*MAI391 .*MAS291"):
        await desk.prereq(student(), "MA")
    with pytest.raises(BadInputError, match=r"There is no course 'XYZ999' in the catalog\."):
        await desk.courseinfo(student(), "XYZ999")
    with pytest.raises(BadInputError, match="Which course"):
        await desk.cantake(student(), " ")


async def test_profile_is_stored_and_shown_with_what_failing_blocks(desk: CatalogDesk) -> None:
    saved = await desk.profile(student(), "semester 4 passed mae101, CSI106 failed MAS")

    assert "semester 4; passed: MAE101, CSI106; failed: MAS291" in saved.text
    assert "Until you pass MAS291, these stay closed: AIL303m, DPL302m, NLP301c, DAT301m" in (
        saved.text
    )
    assert (await desk.profile(student(), "")).text == saved.text.removeprefix("Saved. ")
    assert "no profile" in (await desk.profile(student("console:bob"), "")).text


async def test_profile_refuses_an_ambiguous_or_unknown_code(desk: CatalogDesk) -> None:
    with pytest.raises(BadInputError, match="'MA' could be MAE101, MAI391, MAS291"):
        await desk.profile(student(), "passed MA")
    with pytest.raises(BadInputError, match="'hello' is not a course code I know"):
        await desk.profile(student(), "passed hello")


async def test_can_take_says_no_with_what_is_missing_down_the_chain(desk: CatalogDesk) -> None:
    await desk.profile(student(), "semester 4 passed MAE101,PFP191,CSD203,CPV301 failed MAS291")

    answer = await desk.cantake(student(), "DAT301m")

    assert answer.text.startswith(
        "No: you cannot take DAT301m (AI Development with TensorFlow) yet; missing DPL302m."
    )
    assert "- DPL302m needs AIL303m [1]: missing AIL303m" in answer.text
    assert "  - AIL303m needs MAS291, MAI391, PFP191 [1]: missing MAS291 (failed), MAI391" in (
        answer.text
    )
    assert "It is in semester 7 of BIT_AI_K20D-21A [1]; your profile says semester 4." in (
        answer.text
    )
    assert cited_files(answer) == {"Curriculum_k20_k21.md"}


async def test_can_take_says_yes_when_the_prerequisites_are_passed(desk: CatalogDesk) -> None:
    await desk.profile(student(), "passed CPV301, DPL302m")

    answer = await desk.cantake(student(), "dat301m")

    assert answer.text.startswith("Yes: you can take DAT301m (AI Development with TensorFlow)")
    assert "you passed what it requires: CPV301, DPL302m [1] (BIT_AI_K20D-21A)" in answer.text


async def test_a_waived_prerequisite_does_not_stop_anyone(desk: CatalogDesk) -> None:
    await desk.profile(student(), "passed MAE101")

    answer = await desk.cantake(student(), "SWE201c")

    assert answer.text.startswith("Yes: you can take SWE201c")
    assert "PRO192 is listed but marked “not applied to the BIT_AI and BA programs”" in (
        answer.text
    )


async def test_without_a_profile_can_take_states_the_requirements(desk: CatalogDesk) -> None:
    answer = await desk.answer(student("console:carol"), "can I take DAT301m?")

    assert answer is not None
    assert "DAT301m (AI Development with TensorFlow) requires: CPV301, DPL302m [1]" in answer.text
    assert "/profile" in answer.text


async def test_the_natural_can_i_take_question_uses_the_profile(desk: CatalogDesk) -> None:
    await desk.profile(student(), "passed PFP191")

    answer = await desk.answer(in_private(student()), "Can I take Computer Vision next term?")

    assert answer is not None and answer.text.startswith("No: you cannot take CPV301")
    assert "missing CSD203" in answer.text


async def test_in_a_group_the_question_never_shows_the_askers_profile(desk: CatalogDesk) -> None:
    await desk.profile(student(), "passed PFP191 failed CSD203")

    answer = await desk.answer(student(), "Can I take Computer Vision next term?")

    assert answer is not None
    assert "CSD203" in answer.text  # the requirement, from the table
    assert "(failed)" not in answer.text and "No: you cannot" not in answer.text
    assert "/profile" in answer.text


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "what do I need to pass before I can take DAT301m?",
            "DAT301m (AI Development with TensorFlow): CPV301, DPL302m [1]",
        ),
        ("How many credits is Deep Learning?", "Credits: 6 [1] (BIT_AI_K20D-21A)"),
        ("which semester is MAI391 in?", "Semester: 3 in BIT_AI_K20D-21A [1]"),
        ("I'm K18, which semester do I take dat301m?", "Semester: 8 in BIT_AI_K18D-19A [1]"),
        (
            "What does MAE101 unlock?",
            "MAE101 unlocks, in the current curriculum BIT_AI_K20D-21A: MAI391",
        ),
        (
            "What's the chain from MAE101 up to Machine Learning?",
            "So: MAE101 -> MAS291, MAI391 -> AIL303m.",
        ),
    ],
)
async def test_catalog_questions_are_answered_from_the_catalog(
    desk: CatalogDesk, question: str, expected: str
) -> None:
    answer = await desk.answer(student(), question)

    assert answer is not None and expected in answer.text, answer and answer.text
    assert answer.citations and answer.grounded and not answer.quoted


async def test_a_failed_course_blocks_its_semester_courses(desk: CatalogDesk) -> None:
    answer = await desk.answer(
        student(), "I failed CSD203 last semester. Which of my semester 4 courses can't I take?"
    )

    assert answer is not None
    assert "- CPV301 (Computer Vision), semester 4, 3 credits: requires PFP191, CSD203 [1]" in (
        answer.text
    )
    assert "The other semester-4 courses (AIL303m, SWE201c) don't need it." in answer.text
    # Later semesters come after the one asked about, never mixed into it.
    assert answer.text.index("Further on, also closed:") < answer.text.index("- DAT301m")


@pytest.mark.parametrize(
    "question",
    [
        "When is the final exam?",
        "how is DAT301m graded?",  # names a course; its syllabus here has no assessment table
        "what are the prerequisites of the course?",  # asks, but names no course
        # The programme's asks where its tables hold nothing: the passages may still say.
        "What are the learning outcomes of this course?",
        "which PLO is about startups?",
    ],
)
async def test_other_questions_go_on_to_retrieval(desk: CatalogDesk, question: str) -> None:
    assert await desk.answer(student(), question) is None


async def test_an_empty_catalog_answers_nothing_and_commands_say_why(
    sqlite_store,
) -> None:
    empty = CatalogDesk(sqlite_store)
    assert await empty.answer(student(), "can I take DAT301m?") is None
    with pytest.raises(BadInputError, match="no table of courses"):
        await empty.prereq(student(), "DAT301m")


class _DatabaseDown(CatalogStore):
    def __init__(self) -> None:
        pass

    async def facts(self, course_id: str) -> list:
        raise ConnectionRefusedError("database down")


async def test_while_the_database_is_down_questions_go_on_to_retrieval() -> None:
    assert await CatalogDesk(_DatabaseDown()).answer(student(), "can I take DAT301m?") is None


SYLLABUS_CS_201 = """# Syllabus: CS 201

| Course Code: | CS 201 |
|---|---|
| Course Title: | Data Structures |
| Credits: | 4 |
| Prerequisites: | CS 101 or MATH-120 |
"""


async def test_a_code_written_with_a_space_is_answered_from_the_catalog(tmp_path: Path) -> None:
    # "CS 201" was no code to the catalog (the documents read it): the row was skipped and
    # the question went on to retrieval.
    facts = facts_of(tmp_path, "cs201.md", SYLLABUS_CS_201)
    async with sqlite_catalog(tmp_path) as store:
        await store.replace_document(COURSE, "doc-cs201", facts)
        desk = CatalogDesk(store)
        for question in ("What are the prerequisites of CS 201?", "prereqs for cs201?"):
            answer = await desk.answer(student(), question)
            assert answer is not None, question
            assert "CS 201 (Data Structures): CS 101 or MATH-120 [1]" in answer.text
        info = await desk.courseinfo(student(), "cs-201")
        assert "Credits: 4" in info.text


async def test_which_courses_require_a_course_lists_what_it_unlocks(desk: CatalogDesk) -> None:
    reverse = await desk.answer(student(), "which courses require MAS291?")
    forward = await desk.answer(student(), "what does MAS291 require?")

    assert reverse is not None and "MAS291 unlocks" in reverse.text
    assert "AIL303m" in reverse.text
    assert forward is not None and "MAS291 (Statistics & Probability): MAE101 or MAC101" in (
        forward.text
    )


async def test_an_exams_admission_is_left_to_the_syllabus(desk: CatalogDesk) -> None:
    assert await desk.answer(student(), "am I allowed to take the DAT301m final?") is None


async def test_an_intake_is_answered_from_its_own_curriculum_or_said_to_have_none(
    desk: CatalogDesk,
) -> None:
    k18 = await desk.answer(student(), "K18 here: which semester is DAT301m in?")
    k17 = await desk.answer(student(), "I'm K17, which semester is DAT301m in?")
    k18_missing = await desk.answer(student(), "K18 student: which semester is MAI391 in?")

    assert k18 is not None and "Semester: 8 in BIT_AI_K18D-19A [1]" in k18.text
    assert "K20" not in k18.text
    assert k17 is not None and "no curriculum for K17" in k17.text
    assert "BIT_AI_K20D-21A" in k17.text and "Semester" not in k17.text
    assert k18_missing is not None and "K20" not in k18_missing.text, k18_missing.text
