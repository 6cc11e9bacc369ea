"""Sets made without a model: flashcards and cloze questions from the facts of the chunks,
distractors of the same kind, every item cited and checked, deterministic; a mind map from
the documents' sections. On the sample course, the issue's done-when numbers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from core.context import Context
from core.index import ChunkRecord, SearchHit
from core.retrieval import GENERAL_KIND, Retriever
from core.study import checks
from core.study.checks import FLASHCARD_COUNT, QUIZ_COUNT, CountRange, item_problems
from core.study.extractive import build_flashcards, build_mindmap, build_quiz, skill_of

Chunk = Callable[..., ChunkRecord]
Hits = Callable[..., list[SearchHit]]

GRADING = (
    "| Component | Weight | Details |\n"
    "| Homework | 20% | 10 weekly sets |\n"
    "| Quizzes | 10% | 4 quizzes |\n"
    "| Midterm exam | 30% | Thursday 18:00 |\n"
    "| Final exam | 40% | Monday 09:00 |"
)
RULES = (
    "Power rule: (x^n)' = n x^(n-1).\n\n"
    "Product rule: (fg)' = f'g + fg'. Quotient rule: (f/g)' = (f'g - fg')/g^2.\n\n"
    "Chain rule: (f(g(x)))' = f'(g(x)) g'(x).\n\n"
    "d/dx sin(3x) = 3 cos(3x).\n\nd/dx e^(2x) = 2 e^(2x).\n\n"
    "d/dx (x^2 + 1)^5 = 10x (x^2 + 1)^4.\n\nd/dx sqrt(x) = 1/(2 sqrt(x))."
)


def test_table_cells_become_questions_with_the_columns_other_rows_as_distractors(
    chunk: Chunk, hits: Hits
) -> None:
    material = hits(chunk(GRADING, section="Syllabus > Grading Policy", file_name="syllabus.md"))
    quiz = build_quiz("grading", material, CountRange(1, 20))
    weights = [item for item in quiz.items if "weight" in item.question]
    assert len(weights) == 4
    homework = next(item for item in weights if "Homework" in item.question)
    assert homework.question == "Grading Policy: what is the weight for Homework?"
    assert homework.answer == "20%"
    assert sorted(homework.options) == ["10%", "20%", "30%", "40%"]
    assert homework.source is not None and homework.source.file == "syllabus.md"
    assert homework.source.section == "Syllabus > Grading Policy"
    assert homework.skill == "grading-policy"


def test_definitions_become_term_questions_with_other_terms_as_distractors(
    chunk: Chunk, hits: Hits
) -> None:
    material = hits(chunk(RULES, section="Summary", file_name="lecture-02.pdf", page=9))
    quiz = build_quiz("derivatives", material, QUIZ_COUNT)
    product = next(item for item in quiz.items if "(fg)' = f'g + fg'" in item.question)
    assert product.answer == "Product rule"
    assert set(product.options) == {"Power rule", "Product rule", "Quotient rule", "Chain rule"}
    formula = next(item for item in quiz.items if item.question.startswith("Complete: d/dx sin"))
    assert formula.answer == "3 cos(3x)"
    assert all("rule" not in option for option in formula.options)  # same kind only
    assert quiz.reason == f"the material on 'derivatives' supports {len(quiz.items)} questions"


def test_every_question_passes_the_checks_and_cites_its_chunk(chunk: Chunk, hits: Hits) -> None:
    material = hits(
        chunk(RULES, section="Summary", file_name="lecture-02.pdf", page=9, number=1),
        chunk(GRADING, section="Grading Policy", file_name="syllabus.md", number=2),
    )
    quiz = build_quiz("course", material, QUIZ_COUNT)
    assert len(quiz.items) >= 8
    for item in quiz.items:
        assert item_problems(item.question, item.options, item.correct) == []
        assert item.source is not None and item.source.chunk_id in {
            "lecture-02.pdf#1",
            "syllabus.md#2",
        }
        assert item.explanation.endswith(f"({item.source.label()})")
    assert checks.set_problems(quiz.items) == []
    assert checks.dedupe_items(quiz.items) == list(quiz.items)


def test_too_few_distractors_of_the_kind_means_no_question(chunk: Chunk, hits: Hits) -> None:
    lonely = "| Item | Weight |\n| Homework | 20% |\n| Final | 80% |"
    assert build_quiz("grading", hits(chunk(lonely, section="Grading")), QUIZ_COUNT).items == ()


def test_a_pool_of_more_course_chunks_supplies_distractors(chunk: Chunk, hits: Hits) -> None:
    table = "| Component | Weight |\n| Homework | 20% |\n| Quizzes | 10% |"
    more = "| Component | Weight |\n| Midterm | 30% |\n| Final | 40% |"
    material = hits(chunk(table, section="Grading", file_name="s.md", number=1))
    pool = hits(chunk(more, section="Grading", file_name="s.md", number=2))
    assert build_quiz("grading", material, QUIZ_COUNT).items == ()
    quiz = build_quiz("grading", material, QUIZ_COUNT, pool=pool)
    assert {item.answer for item in quiz.items} == {"20%", "10%"}  # questions on the material only


def test_the_same_input_gives_the_same_sets(chunk: Chunk, hits: Hits) -> None:
    material = hits(chunk(RULES, section="Summary"), chunk(GRADING, section="Grading", number=1))
    assert build_quiz("x", material, QUIZ_COUNT) == build_quiz("x", material, QUIZ_COUNT)
    assert build_flashcards("x", material, FLASHCARD_COUNT) == build_flashcards(
        "x", material, FLASHCARD_COUNT
    )


def test_flashcards_ask_each_fact_once_and_cite_it(chunk: Chunk, hits: Hits) -> None:
    material = hits(
        chunk(RULES, section="Summary", file_name="lecture-02.pdf", page=9),
        # The neighbouring chunk repeats a sentence (small-to-big passages overlap).
        chunk(
            "Power rule: (x^n)' = n x^(n-1).",
            section="Summary",
            file_name="lecture-02.pdf",
            number=1,
        ),
    )
    cards = build_flashcards("derivatives", material, FLASHCARD_COUNT)
    fronts = [card.front for card in cards.cards]
    assert fronts.count("Power rule") == 1
    assert "d/dx sin(3x) = ?" in fronts
    power = next(card for card in cards.cards if card.front == "Power rule")
    assert power.back == "(x^n)' = n x^(n-1)"
    assert power.source is not None and power.source.page == 9
    assert cards.reason == f"the material on 'derivatives' supports {len(cards.cards)} cards"


def test_counts_are_capped_at_the_maximum(chunk: Chunk, hits: Hits) -> None:
    rows = "\n".join(f"| Week {n} | Topic {n} |" for n in range(1, 30))
    material = hits(chunk(f"| Week | Topic |\n{rows}", section="Schedule"))
    assert len(build_flashcards("weeks", material, FLASHCARD_COUNT).cards) == 15
    assert len(build_quiz("weeks", material, CountRange(5, 5)).items) == 5


def test_skills_come_from_the_section_or_the_topic(chunk: Chunk) -> None:
    assert (
        skill_of(chunk("x", section="Lecture 2 > The Product Rule"), "derivatives")
        == "product-rule"
    )
    assert skill_of(chunk("x", section="Summary"), "Chain Rule") == "chain-rule"


def test_a_mind_map_follows_the_documents_sections_in_reading_order(
    chunk: Chunk, hits: Hits
) -> None:
    material = hits(
        chunk(
            "Chain rule: (f(g(x)))' = f'(g(x)) g'(x).",
            section="Rules > Chain",
            file_name="l2.pdf",
            page=6,
            number=6,
        ),
        chunk(
            "Power rule: (x^n)' = n x^(n-1).",
            section="Rules > Power",
            file_name="l2.pdf",
            page=3,
            number=3,
        ),
        chunk(GRADING, section="Grading Policy", file_name="syllabus.md"),
    )
    mindmap = build_mindmap("derivatives", material)
    assert mindmap.root.label == "derivatives"
    lecture, syllabus = mindmap.root.children
    assert lecture.label == "l2.pdf" and syllabus.label == "syllabus.md"
    [rules] = lecture.children
    assert [n.label for n in rules.children] == ["Power", "Chain"]  # by page, not by rank
    assert [n.label for n in rules.children[0].children] == ["Power rule"]
    assert rules.children[0].children[0].source is not None
    assert "  - l2.pdf" in mindmap.outline()


def test_a_mind_map_on_a_teaching_topic_leaves_the_syllabus_out(chunk: Chunk, hits: Hits) -> None:
    """The lecture has sections enough: the syllabus's "Course Materials" are not what
    "derivatives" is about, even where the syllabus ranks first. When a syllabus section is
    the topic ("course materials"), or the lecture says too little, the syllabus stays."""
    lecture = [
        chunk(f"{rule} rule: a formula.", section=f"Rules > {rule}", file_name="l2.pdf", number=n)
        for n, rule in enumerate(["Power", "Product", "Quotient", "Chain"])
    ]
    syllabus = chunk(
        "Slides are posted on the portal.",
        section="Course Materials",
        file_name="syllabus.md",
        kind=GENERAL_KIND,
    )
    on_rules = build_mindmap("derivatives", hits(*lecture, syllabus))
    assert [n.label for n in on_rules.root.children] == ["l2.pdf"]
    assert [n.label for n in build_mindmap("rules", hits(syllabus, *lecture)).root.children] == [
        "l2.pdf"
    ]
    on_the_course = build_mindmap("course materials", hits(syllabus, *lecture))
    assert [n.label for n in on_the_course.root.children] == ["syllabus.md", "l2.pdf"]
    thin = build_mindmap("power", hits(lecture[0], syllabus))
    assert [n.label for n in thin.root.children] == ["l2.pdf", "syllabus.md"]


def test_a_mind_map_stays_within_its_node_budget(chunk: Chunk, hits: Hits) -> None:
    material = hits(
        *(
            chunk(
                f"Term {n}: meaning number {n}.", section=f"Part {n // 5} > Section {n}", number=n
            )
            for n in range(40)
        )
    )
    assert build_mindmap("big", material, max_nodes=30).nodes() <= 30


async def test_the_sample_course_meets_the_done_when_numbers(
    sample_retriever: Retriever, alice: Context, sample_course: Path
) -> None:
    """`coursebot generate quiz --course sample --topic derivatives` without an LLM: at least
    5 questions, 4 distinct options, one correct, cited to a sample-course file, none failing
    the checks; at least 8 flashcards; a mind map."""
    files = {p.name for p in sample_course.rglob("*") if p.is_file()}
    hits = await sample_retriever.retrieve(alice, "derivatives", k=24)
    quiz = build_quiz("derivatives", hits[:10], QUIZ_COUNT, pool=hits)
    assert len(quiz.items) >= 5
    for item in quiz.items:
        assert len({checks.normalise(o) for o in item.options}) == 4
        assert item_problems(item.question, item.options, item.correct) == []
        assert item.source is not None and item.source.file in files
    cards = build_flashcards("derivatives", hits[:10], FLASHCARD_COUNT)
    assert len(cards.cards) >= 8
    assert all(card.source is not None and card.source.file in files for card in cards.cards)
    mindmap = build_mindmap("derivatives", hits)
    assert "lecture-02-derivatives.pdf" in [n.label for n in mindmap.root.children]
    assert mindmap.nodes() > 10


def test_a_definition_naming_its_own_term_is_asked_as_a_sentence_to_complete(
    chunk: Chunk,
) -> None:
    from core.study.extractive import _cloze
    from core.study.facts import Fact, FactKind

    sentence = "Time-to-event modeling is studied in a subfield called survival modeling."
    fact = Fact(
        FactKind.DEFINITION, "survival modeling", sentence, sentence, "Softmax", chunk(sentence)
    )
    cloze = _cloze(fact)
    assert cloze is not None
    # Blanked, the definition is a sentence with a gap, not a description of a term.
    assert cloze.question == (
        "Which term completes the sentence: "
        "“Time-to-event modeling is studied in a subfield called ____.”?"
    )
    kept = Fact(FactKind.DEFINITION, "softmax", "a normalised exponential", "", "S", chunk("x"))
    assert _cloze(kept).question == "Which term does this describe: “a normalised exponential”?"
