"""The programme advisor on a made-up programme (no FPT code in sight): semester listings,
graduation totals, combos (membership, fit with its reason, overview), learning outcomes
(an outcome's text in each version, a course's map read against the list of its width,
the courses serving an outcome, counts), the fastest path under the course's own rule for
taking courses ahead (named as the course's, not the documents'), what to take next, and
names typed with or without Vietnamese accents."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.catalog import (
    COURSE,
    assessments_of,
    facts_of,
    outcomes_of,
    sqlite_catalog,
    student,
)
from support.programme import PROGRAMME

from core.catalog import CatalogDesk, CourseRules
from core.context import Audience, Context, Role
from core.errors import BadInputError, PermissionDeniedError
from core.replies import Answer


@pytest.fixture
async def desk(tmp_path: Path) -> AsyncIterator[CatalogDesk]:
    async with sqlite_catalog(tmp_path) as store:
        for name, text in PROGRAMME.items():
            await store.replace_document(
                COURSE, f"doc-{name}", facts_of(tmp_path, name, text),
                outcomes_of(tmp_path, name, text), assessments_of(tmp_path, name, text),
            )  # fmt: skip
        yield CatalogDesk(store)


async def ask(desk: CatalogDesk, question: str, ctx: Context | None = None) -> str:
    answer = await desk.answer(ctx or student(), question)
    assert answer is not None, question
    assert answer.citations, answer.text
    return answer.text


def instructor() -> Context:
    return Context(platform="console", course_id=COURSE, user_id="console:prof",
                   roles=frozenset({Role.INSTRUCTOR}))  # fmt: skip


async def test_a_semesters_courses_are_listed_with_their_count_and_credits(
    desk: CatalogDesk,
) -> None:
    text = await ask(desk, "what r the subjects in kì 1 and how many credits altogether?")

    assert text.splitlines()[0] == "Semester 1 of ZOO_K30 has 3 courses, 8 credits in total [1]:"
    assert "- BIO101 Animal Biology (3 credits)" in text
    assert "OLD101" not in text  # the older curriculum's course


async def test_an_intakes_semester_comes_from_its_own_curriculum(desk: CatalogDesk) -> None:
    text = await ask(desk, "I'm K28: which courses are in semester 1?")

    assert "Semester 1 of ZOO_K28 has 2 courses, 6 credits" in text and "OLD101" in text


async def test_graduation_totals_the_current_plan(desk: CatalogDesk) -> None:
    text = await ask(desk, "How many credits do I need to graduate?")

    assert text.startswith("ZOO_K30 lists 11 courses, 29 credits in total [1].")
    assert "semester 1: 8" in text


async def test_a_combo_fits_an_interest_by_its_courses_description_with_the_reason(
    desk: CatalogDesk,
) -> None:
    text = await ask(desk, "which combo fits if I like dolphins and whales?")

    assert text.startswith("ZOO_COM1: Topic on Marine Life, through MAR301 Marine Mammals")
    assert "Why: its description says “Whales and dolphins: their anatomy.”" in text
    assert "BRD301" not in text
    assert "ZOO_COM*1 Subject 1 of Combo in semester 3 (3 credits)" in text


async def test_a_course_in_no_combo_is_said_to_be_in_none(desk: CatalogDesk) -> None:
    text = await ask(desk, "is FAR401 one of the combo options?")

    assert "FAR401 Farm Management: in none of the material's combo or group lists" in text


async def test_a_combo_limited_to_other_intakes_says_so(desk: CatalogDesk) -> None:
    text = await ask(desk, "I'm K30, can I pick the combo with Bird Watching?")

    assert "ZOO_COM2: Topic on Wildlife (Available: K28 - K29)" in text
    assert "K30 is not listed" in text


async def test_the_combos_are_listed_by_slot(desk: CatalogDesk) -> None:
    text = await ask(desk, "what combos are there?")

    assert "- ZOO_COM_1 (semester 3): MAR301 Marine Mammals, AQU301 Aquarium Keeping" in text


async def test_what_a_combo_course_covers_is_left_to_retrieval(desk: CatalogDesk) -> None:
    assert await desk.answer(student(), "what does the marine combo course cover?") is None


async def test_an_outcome_is_read_in_the_current_list_and_others_named(
    desk: CatalogDesk,
) -> None:
    text = await ask(desk, "what does PLO2 mean?")

    assert text.startswith("PLO2 in the 3-PLO list of K30 (ZOO_K30): Have a startup mindset")
    assert "It serves ZOO_PO1 in ZOO_K30's map" in text
    assert "In the 4-PLO list of K28 (ZOO_K28), PLO2 is: Use English and Japanese" in text


async def test_an_outcome_is_found_by_its_words(desk: CatalogDesk) -> None:
    assert (await ask(desk, "which PLO is about startups?")).startswith("PLO2 in the 3-PLO")


async def test_an_outcome_found_by_its_words_is_found_in_each_version(desk: CatalogDesk) -> None:
    text = await ask(
        desk, "which learning outcome in K30 is about English and Japanese, which was it in K28?"
    )

    assert text.startswith("PLO3 in the 3-PLO list of K30 (ZOO_K30)")
    assert "In the 4-PLO list of K28 (ZOO_K28): PLO2, Use English and Japanese" in text


async def test_a_dropped_course_is_shown_with_what_took_its_place(desk: CatalogDesk) -> None:
    text = await ask(desk, "K28 had OLD101 in sem 1. What replaced it in K30?")

    assert text.startswith(
        "OLD101 Study Skills: semester 1, 3 credits in K28 (ZOO_K28) [1]; not in K30 (ZOO_K30)."
    )
    assert (
        "In semester 1 of K30 (ZOO_K30), new since K28 (ZOO_K28): SWM*2 Swimming 2 (2 credits)"
        in text
    )


async def test_a_courses_map_is_read_against_the_list_of_its_width(desk: CatalogDesk) -> None:
    # MAR301's map has 4 PLO columns: the older curriculum's numbering, and says so.
    text = await ask(desk, "what PLOs does Marine Mammals map to?")

    assert "has 4 PLO columns, the 4-PLO numbering of K28 (ZOO_K28)" in text
    assert "- PLO1 (all 2 of its outcomes): Know the basics of biology." in text
    assert "- PLO4 (CLO2): Build products for animal welfare." in text


async def test_the_courses_serving_an_outcome_are_grouped_by_numbering(
    desk: CatalogDesk,
) -> None:
    text = await ask(desk, "which courses are mapped to PLO2?")

    assert "1 syllabus with 3 PLO columns, the 3-PLO numbering of K30 (ZOO_K30), ticks PLO2: " in (
        text
    )
    assert "BRD301 [1]" in text
    assert "1 syllabus with 4 PLO columns" not in text  # MAR301 ticks PLO1 and PLO4 only


async def test_the_outcomes_serving_a_programme_objective(desk: CatalogDesk) -> None:
    text = await ask(desk, "Which PLOs contribute to PO2?")

    assert "In ZOO_K30's map, ZOO_PO2 is served by PLO3" in text


async def test_outcome_counts_per_curriculum_and_syllabus_widths(desk: CatalogDesk) -> None:
    text = await ask(desk, "did the number of PLOs change?")

    assert "K30 (ZOO_K30) lists 3 PLOs (PLO1-PLO3)" in text and "K28 (ZOO_K28) lists 4 PLOs" in text
    assert "The syllabi's outcome maps: 1 with 3 columns; 1 with 4 columns." in text


async def test_without_a_rule_the_fastest_path_says_none_is_set(desk: CatalogDesk) -> None:
    text = await ask(desk, "whats the earliest semester i could take VET401 if i study ahead?")

    assert "is a semester-4 course of ZOO_K30 (3 credits)" in text
    assert "Without taking anything ahead: semester 4" in text
    assert "The documents state no rule for taking courses ahead" in text


async def test_the_instructors_rule_gives_the_fastest_path_named_as_the_courses(
    desk: CatalogDesk,
) -> None:
    saved = await desk.advising(instructor(), 2)
    assert "at most 2 courses of the next semester may be taken ahead" in saved.text

    text = await ask(desk, "can i take Advanced Veterinary Practice in sem 3 instead of sem 4?")

    assert "This course's rule (set by its instructor, not stated in the documents)" in text
    assert "So the earliest is semester 3" in text


async def test_the_fastest_path_waits_for_the_prerequisites_chain(desk: CatalogDesk) -> None:
    await desk.advising(instructor(), 1)

    # VET401 (semester 4) needs VET301 (3), which needs BIO201 and CAR201 (2), which need
    # BIO101 (1): each a semester early at most, so 3, with the chain taken early too.
    text = await ask(desk, "what is the earliest I can take VET401?")

    assert "So the earliest is semester 3 (its prerequisites taken ahead too" in text


async def test_only_an_instructor_sets_the_courses_rules(desk: CatalogDesk) -> None:
    with pytest.raises(PermissionDeniedError):
        await desk.advising(student(), 2)
    shown = await desk.advising(instructor(), None)
    assert "no rule for taking courses ahead is set" in shown.text
    assert await desk._store.rules(COURSE) == CourseRules()


async def test_what_to_take_next_reads_the_profile_where_only_the_student_reads(
    desk: CatalogDesk,
) -> None:
    await desk.profile(student(), "semester 1 passed BIO101, MAT101, SWM*1, SWM*2, ORI100")

    alone = Context(platform="console", course_id=COURSE, user_id="console:alice",
                    audience=Audience.PRIVATE)  # fmt: skip
    text = (await desk.answer(alone, "what can I take next?") or Answer("")).text

    assert "open to you are in semester 2" in text
    assert "- BIO201 Animal Anatomy (3 credits)" in text and "- CAR201 Animal Care" in text
    # In a group the record stays unread: the reply says where to ask.
    in_group = await desk.answer(student(), "what can I take next?")
    assert in_group is not None and "BIO201" not in in_group.text
    assert "direct message" in in_group.text


async def test_courses_named_together_are_totalled(desk: CatalogDesk) -> None:
    text = await ask(desk, "how many credits is swimming in total and which semesters?")

    assert "SWM*1 (Swimming 1)" in text and "SWM*2 (Swimming 2)" in text
    assert "In total: 4 credits for these 2 courses." in text


@pytest.mark.parametrize("name", ["Toán đếm động vật", "toan dem dong vat"])
async def test_a_course_is_found_by_its_vietnamese_name_with_or_without_accents(
    desk: CatalogDesk, name: str
) -> None:
    text = await ask(desk, f"{name} có mấy tín chỉ?")

    assert text.startswith("MAT101 (Counting Animals)") and "Credits: 3" in text


async def test_advising_refuses_a_number_out_of_range() -> None:
    from core.commands import command_spec

    spec = command_spec("advising")
    assert spec is not None and spec.role is Role.INSTRUCTOR
    option = spec.options[0]
    with pytest.raises(BadInputError):
        option.accept("99", "misuse")


async def test_a_courses_grading_comes_from_its_assessment_table(desk: CatalogDesk) -> None:
    text = await ask(desk, "how is Marine Mammals graded?")

    assert text == (
        "MAR301 (Marine Mammals) is graded [1]: Field report (2 parts) 20% (45', above 0); "
        "Progress test 30% (30', above 0); Final exam 50% (60', at least 4)."
    )


async def test_two_courses_grading_side_by_side_with_their_finals(desk: CatalogDesk) -> None:
    text = await ask(desk, "MAR301 vs bird watching: which final exam weighs more?")

    assert "MAR301 (Marine Mammals) is graded [1]" in text
    graded = "BRD301 (Bird Watching) is graded [2]: Song quiz 60% (20', above 0); Final exam 40%"
    assert graded in text
    assert text.endswith("Final exam weight: MAR301 50%, BRD301 40%.")


@pytest.mark.parametrize(
    "question",
    [
        "how is VET301 graded?",  # no assessment table: the passages may still say
        "is Marine Mammals fully online, and what is the final exam like?",  # half of it
        "can I sit the final exam of MAR301 without the field trip?",  # the conditions
    ],
)
async def test_grading_the_table_cannot_answer_goes_to_retrieval(
    desk: CatalogDesk, question: str
) -> None:
    assert await desk.answer(student(), question) is None


async def test_an_outcome_the_current_list_lacks_is_said_to_be_missing_from_it(
    desk: CatalogDesk,
) -> None:
    text = await ask(desk, "which courses are mapped to PLO4?")

    assert "1 syllabus with 4 PLO columns, the 4-PLO numbering of K28 (ZOO_K28), ticks PLO4" in text
    assert "The 3-PLO list of K30 (ZOO_K30) has no PLO4" in text


async def test_a_dropped_courses_grading_is_set_beside_what_took_its_place(
    desk: CatalogDesk,
) -> None:
    text = await ask(
        desk,
        "K28 had Study Skills (OLD101) in sem 1. what replaced it in K30, graded differently?",
    )

    assert "OLD101 Study Skills: semester 1, 3 credits in K28 (ZOO_K28)" in text
    assert "MAT101 Counting Animals (3 credits)" in text  # new in semester 1 of K30
    assert "OLD101 (Study Skills) is graded" in text and "Final exam 100% (60', at least 4)" in text
    assert "MAT101 (Counting Animals) is graded" in text and "Field count (3 parts) 45%" in text
    # Asked without grading, the versions alone.
    plain = await ask(desk, "K28 had OLD101 in sem 1. what replaced it in K30?")
    assert "graded" not in plain


async def test_two_courses_compared_side_by_side_and_one_course_is_no_comparison(
    desk: CatalogDesk,
) -> None:
    text = await ask(desk, "whats the difference between marine mammals and bird watching??")

    lines = text.splitlines()
    assert lines[0].startswith("MAR301 (Marine Mammals): 3 credits [1]; semester ")
    assert lines[0].endswith("prerequisites: BIO101 [1].")
    assert lines[1].startswith("BRD301 (Bird Watching): 3 credits [")
    assert (
        "MAR301 (Marine Mammals) is graded" in text and "BRD301 (Bird Watching) is graded" in text
    )
    assert await desk.answer(student(), "is marine mammals the same every year?") is None
    assert await desk.answer(student(), "do MAR301 and BRD301 use the same textbook?") is None


async def test_two_codes_of_two_versions_are_each_placed(desk: CatalogDesk) -> None:
    text = await ask(desk, "is study skills OLD101 or MAT101? my friend in K28 says OLD101")

    assert "OLD101 Study Skills: semester 1, 3 credits in K28 (ZOO_K28)" in text
    assert "MAT101 Counting Animals: semester 1, 3 credits in K30 (ZOO_K30)" in text
