"""One course-code vocabulary for the catalog, the document identities and ingestion: what the
documents read as a code, the catalog resolves too, however a student types it."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.catalog import Catalog, CourseFact
from core.catalog.graph import Outcome
from core.course_codes import (
    code_key,
    codes_in,
    document_codes_in,
    first_intake,
    in_family,
    intakes_in,
    is_family,
    looks_like_code_cell,
)
from ingestion.catalog import course_facts
from ingestion.document_identity import identify
from ingestion.loaders.markdown import load_markdown

# Codes the way syllabi write them: capitals, maybe a space or hyphen, three or four digits,
# maybe a suffix letter.
letters = st.text(alphabet=string.ascii_uppercase, min_size=2, max_size=5)
codes = st.builds(
    lambda head, joint, digits, suffix: f"{head}{joint}{digits}{suffix}",
    letters,
    st.sampled_from(["", " ", "-"]),
    st.text(alphabet=string.digits, min_size=3, max_size=4),
    st.sampled_from(["", "m", "c", "G"]),
)
words = st.sampled_from(
    ["prerequisites of", "and", "or", "is", "the", "K19", "Fall", "(", ")", ",", "CS", "101",
     "AIL30x", "MATH", "AI17_COM_1", "x", "-", "2022"]
)  # fmt: skip
texts = st.lists(st.one_of(codes, words), min_size=1, max_size=8).map(" ".join)


def fact(code: str) -> CourseFact:
    return CourseFact(code=code, name="", file_name="f.md", document_id="d", credits=3)


@settings(max_examples=300, deadline=None)
@given(texts)
@example("prerequisites of CS 101")
@example("MKTG-497G, MATH1010 and AIL30x")
def test_whatever_the_documents_read_as_a_code_the_catalog_resolves(text: str) -> None:
    for code in (*codes_in(text), *document_codes_in(text)):
        catalog = Catalog([fact(code.written)])
        course = catalog.get(code.written)
        assert course is not None and code_key(course.code) == code.key
        assert looks_like_code_cell(code.written)
        for typed in {code.written, code.written.lower(), code.key}:
            resolution = catalog.resolve(typed)
            assert resolution.outcome is Outcome.FOUND, (code, typed)
        assert course in catalog.mentioned(text), (code, text)
        assert course in catalog.mentioned(text.lower()), (code, text)


@settings(max_examples=60, deadline=None)
@given(codes)
@example("CS 101")
@example("MKTG-497G")
@example("MATH1010")
def test_a_syllabus_code_is_one_key_for_its_identity_and_its_catalog_row(
    tmp_path_factory: pytest.TempPathFactory, code: str
) -> None:
    folder = tmp_path_factory.mktemp("syllabus")
    path = folder / "syllabus.md"
    path.write_text(
        f"# Syllabus: {code}\n\n| Course Code: | {code} |\n|---|---|\n| Credits: | 3 |\n",
        encoding="utf-8",
    )
    document = load_markdown(Path(path), path.name)
    identity = identify(document)
    catalog = Catalog(course_facts(document, "doc-1"))
    assert code_key(code) in identity.codes
    assert [c.code for c in catalog.courses()] == [code]
    assert catalog.resolve(code_key(code)).outcome is Outcome.FOUND


def test_codes_are_read_with_a_space_a_hyphen_or_four_digits() -> None:
    found = codes_in("CS 101, MKTG-497G and MATH1010 after DAT301m")
    assert [c.key for c in found] == ["cs101", "mktg497g", "math1010", "dat301m"]
    assert [c.written for c in found][:2] == ["CS 101", "MKTG-497G"]


def test_the_material_is_read_in_capitals_and_a_student_in_any_case() -> None:
    assert codes_in("Syllabus Fall 2022") == []
    assert [c.key for c in codes_in("prerequisites of cs 101?", typed=True)] == ["cs101"]


def test_joining_words_and_plain_numbers_are_no_codes() -> None:
    assert [c.key for c in codes_in("MAE101 OR 102 AND 103")] == ["mae101"]
    assert codes_in("is 100 worth it in 2022", typed=True) == []


def test_a_family_is_a_code_and_matches_its_courses_only() -> None:
    assert is_family("AIL30x") and is_family("ail30X") and not is_family("DAT301m")
    assert in_family("AIL30x", "AIL303m") and in_family("CS 101", "cs-101")
    assert not in_family("AIL30x", "AIL313m")
    assert [c.family for c in codes_in("AIL30x or DAT301m")] == [True, False]


def test_document_codes_are_whole_tokens_with_a_digit() -> None:
    found = document_codes_in("Pathway AI17_COM_1 of BIT_AI_K20D-21A, an e-mail")
    assert [c.key for c in found] == ["ai17 com 1", "bit ai k20d 21a"]


def test_intakes_are_read_alike_everywhere() -> None:
    assert [i.numbers for i in intakes_in("BIT_AI_K20D-21A")] == [(20, 21)]
    assert [i.numbers for i in intakes_in("K19-K20 or k18 k19, K17")] == [(19, 20), (18, 19), (17,)]
    assert first_intake("I'm K18, which semester?") == 18
    assert first_intake("Curriculum_k20_k21.md") == 20
    # A bare cohort is an intake only in a curriculum's own code or title.
    assert intakes_in("20D-21A") == []
    assert [i.numbers for i in intakes_in("20D-21A", bare_cohorts=True)] == [(20, 21)]
    assert first_intake("19 students, 2021") is None
