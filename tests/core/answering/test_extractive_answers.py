"""With no LLM configured: quoted answers with citations, and abstention below a threshold;
each quote a whole unit (a table row with its headers, a list item, a sentence joined over PDF
line breaks), never a bare heading, each once, within about 600 characters."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import numpy as np
import pytest
from support.asking import ask
from support.material import Passage, add_passages
from support.paths import SAMPLE_COURSE

from bot.composition import open_assembly
from config import Settings
from core.answering.answerability import FEATURES, Answerability
from core.answering.extractive import MAX_ANSWER_CHARS, ExtractiveAnswerer
from core.course_bot import CourseBot
from core.index import SearchHit
from core.index.payload import ChunkRecord
from core.prompts import ABSTENTION, RELATED_NOT_STATING
from core.replies import Answer
from ingestion.pipeline import discover


@pytest.fixture
async def bot(settings: Settings, embedder) -> AsyncIterator[CourseBot]:
    async with open_assembly(settings) as assembly:
        core = assembly.bot
        await add_passages(
            assembly.index,
            embedder,
            [
                Passage(
                    "Office hours are on Tuesday and Thursday. The final exam is on 14 December "
                    "at 09:00 in Hall A. Bring a photo ID.",
                    section="Exams",
                ),
                Passage(
                    "The resit exam is on 11 January at 09:00 in Room B110 "
                    "for documented absences.",
                    section="Resits",
                ),
                Passage("Late homework loses 10% of its score per day.", section="Late work"),
            ],
        )
        yield core


async def test_quotes_the_best_supported_sentence_with_its_citation(bot: CourseBot) -> None:
    answer = await ask(bot, "When is the final exam?")
    assert answer.quoted and answer.grounded
    # The sentence opens the first quote; the passage's next sentence reads on in it.
    assert answer.text.startswith("“The final exam is on 14 December at 09:00 in Hall A.")
    assert answer.text.splitlines()[0].endswith("[1]")
    assert "Office hours" not in answer.text
    assert answer.citations[0].section == "Exams"
    assert answer.support is not None and answer.support >= 0.35


async def test_abstains_when_nothing_in_the_material_matches(bot: CourseBot) -> None:
    answer = await ask(bot, "What is the capital of Mongolia?")
    assert not answer.grounded
    assert answer.text == ABSTENTION
    assert answer.support is not None and answer.support < 0.35


async def test_follow_up_without_llm_is_read_with_the_previous_question(bot: CourseBot) -> None:
    await ask(bot, "When is the final exam?")
    follow_up = await ask(bot, "and the resit?")
    assert "11 January" in follow_up.text
    assert follow_up.citations[0].section == "Resits"


# --- the quoting rules, on passages handed straight to the answerer ---------------------------


def passage(text: str, name: str = "syllabus", section: str = "") -> SearchHit:
    chunk = ChunkRecord(
        id=name,
        course_id="c",
        document_id=f"c/{name}.pdf",
        file_name=f"{name}.pdf",
        text=text,
        page=1,
        section=section,
        kind="syllabus",
        visibility="public",
        owner_id=None,
        chunk_index=0,
    )
    return SearchHit(chunk=chunk, score=1.0)


GRADING = passage(
    "| Component | Weight | Details |\n"
    "| Homework | 20% | 10 weekly sets; the lowest score is dropped |\n"
    "| Midterm exam | 30% | Thursday 2026-10-15, Hall A |\n"
    "| Final exam | 40% | Monday 2026-12-14, 09:00-12:00, Hall A |",
    section="Grading Policy",
)


async def answer(question: str, *hits: SearchHit) -> Answer:
    return await ExtractiveAnswerer().answer(question, list(hits))


async def test_a_table_row_is_quoted_whole_with_its_column_headers() -> None:
    reply = await answer("How much is homework worth?", GRADING)
    first = reply.text.splitlines()[0]
    assert first.startswith(
        "“Component: Homework; Weight: 20%; Details: 10 weekly sets; the lowest score is dropped | "
    )


async def test_a_row_and_the_rows_read_with_it_are_one_quote_naming_the_columns_once() -> None:
    reply = await answer("How much is homework worth?", GRADING)
    assert reply.text.splitlines()[0] == (
        "“Component: Homework; Weight: 20%; Details: 10 weekly sets; the lowest score is "
        "dropped | Midterm exam; 30%; Thursday 2026-10-15, Hall A | Final exam; 40%; Monday "
        "2026-12-14, 09:00-12:00, Hall A” [1]"
    )


async def test_the_row_the_question_names_comes_first() -> None:
    reply = await answer("When is the final exam?", GRADING)
    assert reply.text.splitlines()[0].startswith("“Component: Final exam; Weight: 40%")


async def test_a_row_is_followed_by_its_table_not_by_the_text_after_it() -> None:
    graded = passage(f"{GRADING.chunk.text}\n\nLetter grades: A 90-100%, B 80-89%, C 70-79%.")
    reply = await answer("When is the final exam?", graded)
    assert reply.text.startswith("“Component: Final exam; Weight: 40%")
    assert "Letter grades" not in reply.text


async def test_a_quote_holding_the_date_asked_for_is_shown_first() -> None:
    undated = passage(
        "The final exam is cumulative and covers weeks 1-12 of the course.", name="schedule"
    )
    dated = passage("Exams are held on 14 December in Hall A.", name="exams")
    reply = await answer("When is the final exam?", undated, dated)
    first, second = reply.text.splitlines()
    assert first == "“Exams are held on 14 December in Hall A.” [1]"
    assert second.startswith("“The final exam is cumulative") and second.endswith("[2]")


async def test_words_that_begin_like_a_month_are_not_dates() -> None:
    """ "marketing" is not March, "may" the verb is not May: the dated line comes first."""
    plan = passage(
        "The marketing project is due in teams of three and may be handed in as one project."
        "\n\nThe project is due on 4 May.",
    )
    reply = await answer("When is the marketing project due?", plan)
    assert reply.text.splitlines()[0].startswith("“The project is due on 4 May.")


async def test_a_day_asked_in_words_finds_the_row_writing_it_in_figures() -> None:
    """ "May 1st" in the question is "5/01" in the schedule, not the row of 5/10."""
    schedule = passage(
        "| Date | Topic |\n"
        "| 4/24 | Review of chapters 1-4 |\n"
        "| 5/01 | Guest lecture on ethics |\n"
        "| 5/10 | Guest lecture on methods |",
        section="Course Schedule",
    )
    reply = await answer("What is the guest lecture on May 1st about?", schedule)
    assert reply.text.splitlines()[0].startswith("“Date: 5/01; Topic: Guest lecture on ethics")


async def test_a_sentence_introducing_a_formula_is_quoted_with_it() -> None:
    """ "... is given by:" bare says nothing: the formula after it is in the same quote even
    when other quotes would fill the answer."""
    defined = passage(
        "The squared error of one example is given by:\n\n$$ l = (y - \\hat{y})^2 $$",
        name="loss",
    )
    others = [
        passage(
            f"Remark {n}: the squared error of one example is a common loss, used for "
            "regression problems of many different kinds and sizes, with a constant that "
            "makes no difference.",
            name=f"remark{n}",
        )
        for n in range(3)
    ]
    reply = await answer("What is the squared error of one example?", defined, *others)
    assert "given by: $$ l = (y - \\hat{y})^2 $$”" in reply.text


async def test_a_weak_fourth_quote_saying_nothing_new_is_left_out() -> None:
    """Three quotes hold every key term of the question: a fourth scoring well below the
    best and holding none of them anew is more to read, not more answer."""
    due = passage("Lab reports are due every Friday by noon on the course site.", name="due")
    rules = [
        passage(text, name=name)
        for text, name in (
            ("Late lab reports lose ten points a day.", "late"),
            ("Lab reports must be typed.", "typed"),
            ("Lab reports are stapled.", "stapled"),
        )
    ]
    reply = await answer("When are lab reports due?", due, *rules)
    lines = reply.text.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("“Lab reports are due every Friday")


async def test_what_is_x_quotes_the_sentence_defining_x_first() -> None:
    """Textbooks set the term they define in emphasis; a sentence only using it is no answer
    to "What is X?" and comes after it."""
    using = passage(
        "The values stored by the forward pass are reused in backpropagation.",
        name="order",
    )
    defining = passage(
        "*Backpropagation* refers to the method of calculating the gradient of the "
        "parameters of a neural network.",
        name="definition",
    )
    reply = await answer("What is backpropagation?", using, defining)
    assert reply.text.splitlines()[0].startswith("“*Backpropagation* refers to the method")


async def test_a_sentence_before_a_displayed_formula_is_quoted_with_it() -> None:
    """ "... the output shape is" with no ":" still states the formula after it."""
    stated = passage(
        "With stride s and kernel size k, the output shape is\n\n$$ (n - k + s) / s $$",
        name="shape",
    )
    others = [
        passage(
            f"Remark {n}: the output shape of a strided convolution depends on the stride, "
            "the kernel size and the padding, which together decide how far the window "
            "moves at each step and how many places it fits in the input, as the examples "
            "of this section show for some sizes.",
            name=f"remark{n}",
        )
        for n in range(3)
    ]
    reply = await answer("What is the output shape with a stride?", stated, *others)
    assert "the output shape is $$ (n - k + s) / s $$”" in reply.text


async def test_a_list_item_is_quoted_whole() -> None:
    items = passage(
        "- Late homework loses 10% of its score per day (each started\n"
        "24-hour period counts as a day).\n"
        "- Every student has one free 48-hour extension per term."
    )
    reply = await answer("How much does late homework lose?", items)
    assert reply.text.splitlines()[0].startswith(
        "“Late homework loses 10% of its score per day (each started 24-hour period counts "
        "as a day). | "
    )


async def test_a_sentence_wrapped_over_pdf_lines_is_quoted_whole() -> None:
    wrapped = passage(
        "Students with documented absences may take the make-up exam, which is held\n"
        "on January 11 in Room B110. Documentation must reach the instructor within\n"
        "five working days."
    )
    reply = await answer("When is the make-up exam held?", wrapped)
    assert reply.text.startswith(
        "“Students with documented absences may take the make-up exam, which is held on "
        "January 11 in Room B110."
    )


async def test_a_matching_heading_is_never_quoted_bare() -> None:
    hours = passage(
        "Section 3: Textbook\n\nNo textbook is required.\n\n"
        "Section 4: Office Hours\n\nTuesday and Thursday, 14:00-15:30, Room B214."
    )
    reply = await answer("What are the office hours?", hours)
    assert "Tuesday and Thursday, 14:00-15:30, Room B214." in reply.text
    assert "“Section 4: Office Hours” " not in reply.text


async def test_the_same_row_in_two_passages_is_quoted_once() -> None:
    again = passage(GRADING.chunk.text, name="syllabus-copy", section="Grading Policy")
    reply = await answer("What is the final exam worth?", GRADING, again)
    assert reply.text.count("Final exam; Weight: 40%") == 1
    assert "[2]" not in reply.text


async def test_two_passages_of_one_section_share_one_citation_number() -> None:
    first = passage("The chain rule: (f(g(x)))' = f'(g(x)) g'(x).", section="Chain rule")
    second = passage("The chain rule gives d/dx e^(2x) = 2 e^(2x).", section="Chain rule")
    reply = await answer("What is the chain rule?", first, second)
    assert len(reply.text.splitlines()) == 2 and "[2]" not in reply.text
    assert [c.section for c in reply.citations] == ["Chain rule"]


async def test_an_answer_is_at_most_about_600_characters() -> None:
    long_rows = "\n".join(
        f"| Exam {n} | 10% | held on Monday of week {n} in Hall A, bring a calculator and an ID |"
        for n in range(1, 30)
    )
    reply = await answer(
        "When is the exam held?", passage(f"| Item | Weight | Details |\n{long_rows}")
    )
    assert reply.grounded
    assert len(reply.text) <= MAX_ANSWER_CHARS


async def test_weak_support_gets_the_fixed_not_covered_sentence() -> None:
    reply = await answer("What is the capital of Mongolia?", GRADING)
    assert not reply.grounded and reply.text == ABSTENTION


@pytest.fixture
async def sample_bot(settings: Settings) -> AsyncIterator[CourseBot]:
    async with open_assembly(settings) as assembly:
        await assembly.bot.ingest_files("sample", discover([SAMPLE_COURSE])[0], by="teacher")
        yield assembly.bot


async def test_the_demo_questions_show_the_fact_on_the_sample_course(sample_bot: CourseBot) -> None:
    exam = await ask(sample_bot, "When is the final exam and where is it held?", course="sample")
    assert exam.text.startswith(
        "“Component: Final exam; Weight: 40%; Details: Monday 2026-12-14, 09:00-12:00, Hall A"
    )
    final = await ask(sample_bot, "When is the final exam?", course="sample")
    assert final.text.startswith("“Component: Final exam; Weight: 40%; Details: Monday 2026-12-14")
    graded = await ask(sample_bot, "How is the course graded?", course="sample")
    # The whole weights table, in its order, first.
    weights = [line.split(";")[0] for line in graded.text.splitlines()[:4]]
    assert weights == [
        "“Component: Homework",
        "“Component: Quizzes",
        "“Component: Midterm exam",
        "“Component: Final exam",
    ]


async def test_how_much_asks_for_a_quantity_and_is_no_key_term_of_its_own(
    sample_bot: CourseBot,
) -> None:
    worth = await ask(sample_bot, "How much is homework worth?", course="sample")
    assert worth.text.startswith("“Component: Homework; Weight: 20%")


async def test_a_question_is_answered_from_teaching_not_from_an_exercises_steps(
    sample_bot: CourseBot,
) -> None:
    """The drill's step prompts ("Differentiate f(x) = 2 x^3 ...") are problems, not facts."""
    derivative = await ask(sample_bot, "What is the derivative of x^3?", course="sample")
    assert "Power rule: (x^n)' = n x^(n-1)." in derivative.text
    assert all(not c.file_name.endswith(".exercise.yaml") for c in derivative.citations)
    asked = await ask(sample_bot, "Is there an exercise on the product rule?", course="sample")
    assert asked.text.startswith("“Guided exercise 'derivative-product-rule'")


_DRILL = passage(
    "Guided exercise 'chain-drill': The chain rule\nStep 1: Differentiate sin(3x).",
    name="chain-drill.exercise",
)
EXERCISE = replace(_DRILL, chunk=replace(_DRILL.chunk, kind="guided_exercise"))


async def test_an_exercise_alone_is_still_quoted_so_the_student_learns_it_exists() -> None:
    lecture = passage("Office hours are on Tuesday.", name="lecture")
    only = await answer("How do I differentiate sin(3x)?", EXERCISE, lecture)
    assert only.grounded and "Step 1: Differentiate sin(3x)." in only.text
    assert [c.file_name for c in only.citations] == ["chain-drill.exercise.pdf"]


async def test_of_two_sentences_with_the_same_words_the_one_closer_in_meaning_comes_first() -> None:
    """Retrieval's unit scores (late chunking) break what the words alone cannot: both
    sentences hold "office" and "hours"; the stored units say which one answers."""
    text = "Office hours may move in exam weeks.\n\nOffice hours are held in the maths building."
    moved, held = text.split("\n\n")
    plain = passage(text)
    scored = replace(plain, unit_scores=((held, 0.71), (moved, 0.42)))
    # Not "When ...": the time in one of them would put it first on its own; nor "What
    # are ...?": "Office hours are ..." would then read as their definition.
    asked = "Tell me about the office hours."
    assert (await answer(asked, plain)).text.startswith(f"“{moved}")
    assert (await answer(asked, scored)).text.startswith(f"“{held}")


def assessment(code: str, final: str, named: bool) -> SearchHit:
    hit = passage(
        "| Category | Weight | Completion Criteria |\n"
        f"| Progress test | 20.0% | >0 |\n| Final exam | {final} | 4 |",
        name=code,
        section="Assignments and assessments",
    )
    chunk = replace(hit.chunk, title=f"Syllabus: {code}")
    return replace(hit, chunk=chunk, named=named, named_by=(code,) if named else ())


async def test_the_named_course_is_quoted_and_another_courses_rule_never_passes_for_it() -> None:
    other = assessment("SWE201c", "40.0%", named=False)
    own = assessment("DBI202", "30.0%", named=True)

    reply = await answer("DBI202 final exam weight", other, own)

    assert "30%" in reply.text and "40%" not in reply.text
    assert {c.file_name for c in reply.citations} == {"DBI202.pdf"}


async def test_a_quote_from_another_course_than_the_named_one_is_labelled_with_it() -> None:
    other = assessment("SWE201c", "40.0%", named=False)
    own = replace(passage("Attend 80% of the slots.", name="DBI202"), named=True)

    reply = await answer("final exam weight DBI202", own, other)

    quoted = [line for line in reply.text.splitlines() if "40%" in line]
    assert quoted and all("(SWE201c)" in line for line in quoted), reply.text


async def test_a_course_named_by_its_name_is_labelled_with_its_code_not_by_its_code() -> None:
    # The made-up programme's MAR301, "Marine Mammals" (tests/support/programme.py).
    text = "| Category | Weight |\n| Field report | 20.0% |\n| Final exam | 50.0% |"
    hit = replace(passage(text, name="MAR301"), named=True)
    hit = replace(hit, chunk=replace(hit.chunk, title="Syllabus: MAR301"))

    by_name = await answer(
        "final exam weight of marine mammals", replace(hit, named_by=("marine mammals",))
    )
    by_code = await answer("final exam weight of MAR301", replace(hit, named_by=("MAR301",)))

    assert "50%" in by_name.text and "(MAR301)" in by_name.text, by_name.text
    assert "50%" in by_code.text and "(MAR301)" not in by_code.text, by_code.text
    # A document without a code: its title would only repeat the name asked.
    untitled = replace(hit, chunk=replace(hit.chunk, title="Marine Mammals", file_name="mm.pdf"))
    by_title = await answer(
        "final exam weight of marine mammals", replace(untitled, named_by=("marine mammals",))
    )
    assert "50%" in by_title.text and "(" not in by_title.text.split("”")[1], by_title.text


async def test_quotes_of_several_documents_each_say_which_course_they_are_from() -> None:
    first = assessment("TMG301", "40.0%", named=True)
    second = assessment("SEG301", "35.0%", named=True)

    reply = await answer("final exam weight in TMG301 and in SEG301?", first, second)

    assert "(TMG301)" in reply.text and "(SEG301)" in reply.text, reply.text


# A model that declines every question, and one that declines none.
DECLINES = Answerability(
    np.zeros(len(FEATURES)), np.ones(len(FEATURES)), np.zeros(len(FEATURES)), 5.0, 0.5
)
ANSWERS = replace(DECLINES, bias=-5.0)


async def test_a_decline_says_so_in_one_line_then_shows_the_closest_quotes_as_related() -> None:
    reply = await ExtractiveAnswerer(DECLINES).answer("When is the final exam?", [GRADING])
    lines = reply.text.splitlines()
    assert not reply.grounded
    assert lines[:2] == [ABSTENTION, RELATED_NOT_STATING]
    assert lines[2].startswith("“Component: Final exam; Weight: 40%") and lines[2].endswith("[1]")
    assert len(lines) <= 4 and reply.citations[0].file_name == "syllabus.pdf"


async def test_a_decline_with_nothing_related_is_the_one_line() -> None:
    reply = await ExtractiveAnswerer(DECLINES).answer("What is the capital of Mongolia?", [GRADING])
    assert reply.text == ABSTENTION and not reply.citations


async def test_the_answer_records_the_figures_it_was_decided_on() -> None:
    reply = await ExtractiveAnswerer(ANSWERS).answer("When is the final exam?", [GRADING])
    assert reply.grounded
    assert [name for name, _ in reply.evidence] == list(FEATURES)
    figures = dict(reply.evidence)
    assert figures["asks_type"] == 1.0 and figures["typed_support"] > 0
    assert figures["yes_no"] == 0.0


async def test_a_sentence_and_the_ones_after_it_are_one_quote() -> None:
    """The fact first, and what the passage goes on to say in the same excerpt."""
    policy = passage(
        "Late work loses 10% per day. After three days it is not accepted. "
        "Extensions need a doctor's note.\n\nThe library opens at 8."
    )
    reply = await ExtractiveAnswerer(ANSWERS).answer("What happens to late work?", [policy])
    assert len(reply.text.splitlines()) == 1
    assert reply.text.startswith(
        "“Late work loses 10% per day. After three days it is not accepted. "
        "Extensions need a doctor's note."
    )
