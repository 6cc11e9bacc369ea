"""Course tables are found by their columns, in curricula and syllabi alike, with the
document's version and the section to cite."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from support.catalog import (
    COMBO,
    CURRICULUM_K18,
    CURRICULUM_K20,
    SYLLABUS_DAT301M,
    facts_of,
    outcomes_of,
)
from support.programme import CURRICULUM_NEW, SYLLABUS_MAR301

from core.catalog import OutcomeKind, SourceTable, extract_facts, extract_outcomes


def test_a_curriculum_table_gives_one_fact_per_row_with_its_version(tmp_path: Path) -> None:
    facts = facts_of(tmp_path, "Curriculum_k20_k21.md", CURRICULUM_K20)

    assert len(facts) == 14
    dat = next(f for f in facts if f.code == "DAT301m")
    assert dat.name == "AI Development with TensorFlow"
    assert "Phát triển UDTTNT với TensorFlow" in dat.aliases
    assert (dat.credits, dat.semester, dat.prerequisites) == (3, 7, "CPV301, DPL302m")
    assert dat.in_plan and dat.section == "Curriculum details"
    assert dat.file_name == "Curriculum_k20_k21.md"
    assert dat.version.label == "BIT_AI_K20D-21A"
    assert dat.version.date == date(2025, 12, 31) and dat.version.intake == 20
    assert next(f for f in facts if f.code == "PFP191").prerequisites == ""


def test_a_syllabus_key_value_table_gives_its_course(tmp_path: Path) -> None:
    [fact] = facts_of(tmp_path, "DAT301m.MD", SYLLABUS_DAT301M)

    assert (fact.code, fact.name, fact.credits) == ("DAT301m", "AI Development", 3)
    assert fact.prerequisites == "CPV301, DPL302m"
    assert fact.semester is None and not fact.in_plan
    assert fact.section == "General information"
    assert fact.version.date == date(2025, 8, 22)
    assert fact.version.label == "decision 932/QĐ-ĐHFPT dated 08/22/2025"


def test_a_list_of_codes_and_names_under_a_heading_gives_that_groups_courses(
    tmp_path: Path,
) -> None:
    facts = facts_of(tmp_path, "AI17_COM_1.MD", COMBO)

    assert [(f.code, f.group, f.semester, f.in_plan) for f in facts] == [
        ("DSR301m", "AI17_COM1: Topic on Applied Data Science", 5, False),
        ("TMG301", "AI17_COM2.1: Topic on AI Applied research (Available: K18D - K19A)", 5, False),
    ]
    assert all(f.credits is None and f.prerequisites is None for f in facts)


def test_a_table_without_a_heading_or_a_name_column_gives_no_course() -> None:
    untitled = SourceTable(header=("Subject Code", "Syllabus Name"), rows=(("DSR301m", "R"),))
    codes_only = SourceTable(header=("Subject Code", "Note"), rows=(("DSR301m", ""),), section="S")

    assert extract_facts([untitled, codes_only], file_name="f.md", document_id="d") == []


def test_outcome_lists_and_maps_are_read_with_their_width(tmp_path: Path) -> None:
    outcomes = outcomes_of(tmp_path, "Curriculum_k30.md", CURRICULUM_NEW)
    stated = {o.code: o.text for o in outcomes if o.kind is OutcomeKind.STATED}
    mapped = {o.code: o.targets for o in outcomes if o.kind is OutcomeKind.MAPPED}

    assert stated["ZOO_PO2"].startswith("Speak English")
    assert stated["PLO2"] == "Have a startup mindset and run a small veterinary business."
    assert mapped == {"PLO1": ("ZOO_PO1",), "PLO2": ("ZOO_PO1",), "PLO3": ("ZOO_PO2",)}

    [first, second] = outcomes_of(tmp_path, "MAR301.md", SYLLABUS_MAR301)
    assert (first.course, first.code, first.targets, first.columns) == (
        "MAR301",
        "CLO1",
        ("PLO1",),
        4,
    )
    assert second.targets == ("PLO1", "PLO4")


def test_a_sessions_table_repeating_its_outcomes_is_no_outcome_list() -> None:
    sessions = SourceTable(
        header=("Session", "Topic", "LO"),
        rows=(("1", "Whales and their songs at sea", "CLO1"), ("2", "Dolphins and sonar", "CLO1")),
        section="Sessions",
    )

    assert extract_outcomes([sessions], file_name="s.md", document_id="d") == []


def test_the_older_curriculum_is_dated_and_numbered_older(tmp_path: Path) -> None:
    old = facts_of(tmp_path, "Curriculum_k18_k19.md", CURRICULUM_K18)[0].version
    new = facts_of(tmp_path, "Curriculum_k20_k21.md", CURRICULUM_K20)[0].version

    assert old.intake == 18 and old.key() < new.key()


def test_detection_is_by_columns_not_file_name_so_a_pdf_table_works() -> None:
    # As a PDF loader hands a table over: other header words, a page, no Markdown.
    table = SourceTable(
        header=("Course code", "Course title", "Credits", "Prerequisites"),
        rows=(("MATH201", "Linear Algebra", "4", "MATH101"), ("", "", "", "")),
        page=3,
        section="Programme structure",
    )

    [fact] = extract_facts([table], file_name="handbook.pdf", document_id="d1")

    assert (fact.code, fact.name, fact.credits, fact.prerequisites) == (
        "MATH201", "Linear Algebra", 4, "MATH101",
    )  # fmt: skip
    assert fact.page == 3 and fact.semester is None
