"""The catalog as a graph: resolution in one place, the newest version first, the chain,
what a course unlocks and what a failed course blocks."""

from __future__ import annotations

from core.catalog import Catalog, CourseFact, Outcome


def test_codes_resolve_ignoring_case_and_a_unique_prefix_resolves(catalog: Catalog) -> None:
    assert catalog.resolve("dat301M").course.code == "DAT301m"
    assert catalog.resolve("MAE").course.code == "MAE101"
    assert catalog.resolve("AIL30x").course.code == "AIL303m"


def test_an_ambiguous_prefix_lists_its_candidates(catalog: Catalog) -> None:
    resolution = catalog.resolve("MA")
    assert resolution.outcome is Outcome.AMBIGUOUS
    assert [c.code for c in resolution.candidates] == ["MAE101", "MAI391", "MAS291"]


def test_unknown_codes_and_names_say_so(catalog: Catalog) -> None:
    assert catalog.resolve("XYZ999").outcome is Outcome.UNKNOWN
    assert catalog.resolve("Quantum basket weaving").outcome is Outcome.UNKNOWN


def test_names_resolve_in_english_or_vietnamese_without_accents(catalog: Catalog) -> None:
    assert catalog.resolve("Machine Learning").course.code == "AIL303m"
    assert catalog.resolve("toan cho hoc may").course.code == "MAI391"
    assert catalog.resolve("computer vision").course.code == "CPV301"
    assert catalog.resolve("machine").outcome is Outcome.AMBIGUOUS  # two names hold it


def test_the_newest_version_states_the_semester_and_the_old_one_is_kept(
    catalog: Catalog,
) -> None:
    dat = catalog.get("DAT301m")
    assert dat.facts[0].file_name == "Curriculum_k20_k21.md"
    assert {f.file_name for f in dat.facts} == {
        "Curriculum_k20_k21.md", "Curriculum_k18_k19.md", "DAT301m.MD",
    }  # fmt: skip
    assert catalog.plan_row(dat).semester == 7
    assert catalog.plan_row(dat, intake=18).semester == 8
    # A course only the older curriculum lists is still found there.
    assert catalog.plan_row(catalog.get("SSG104")).version.label == "BIT_AI_K18D-19A"


def test_the_chain_goes_down_transitively_each_course_once(catalog: Catalog) -> None:
    chain = catalog.chain(catalog.get("DAT301m"))
    expanded = [code for _, code, course, repeated in chain if course and not repeated]
    assert expanded == [
        "CPV301",
        "PFP191",
        "CSD203",
        "DPL302m",
        "AIL303m",
        "MAS291",
        "MAE101",
        "MAI391",
    ]
    assert (4, "MAC101", None, False) in chain  # named, not catalogued


def test_unlocks_include_family_requirements(catalog: Catalog) -> None:
    assert {c.code for c in catalog.unlocks(catalog.get("AIL303m"))} == {"DPL302m", "NLP301c"}
    assert {c.code for c in catalog.unlocks(catalog.get("MAE101"))} == {"MAI391", "MAS291"}
    assert [c.code for c in catalog.unlocks_later(catalog.get("MAE101"))] == [
        "AIL303m",
        "DPL302m",
        "NLP301c",
        "DAT301m",
    ]


def test_a_failed_course_blocks_only_what_has_no_way_round_it(catalog: Catalog) -> None:
    assert {c.code for c in catalog.blocked_by(["CSD203"])} == {"CPV301", "DAT301m"}
    # MAS291 takes MAE101 or MAC101: failing MAE101 still blocks MAI391, hence AIL303m.
    assert "MAS291" not in {c.code for c in catalog.blocked_by(["MAE101"])}
    assert "AIL303m" in {c.code for c in catalog.blocked_by(["MAE101"])}


def test_eligibility_lists_what_is_missing(catalog: Catalog) -> None:
    missing = catalog.eligibility(catalog.get("AIL303m"), ["MAS291", "PFP191"]).missing
    assert [m.render() for m in missing] == ["MAI391"]
    assert catalog.eligibility(catalog.get("NLP301c"), ["AIL303m", "PFP191"]).allowed
    assert not catalog.eligibility(catalog.get("NLP301c"), ["AIL303m"]).allowed


def test_questions_name_courses_by_code_prefix_or_whole_name(catalog: Catalog) -> None:
    assert [c.code for c in catalog.mentioned("can i take dat301m after Machine Learning?")] == [
        "DAT301m", "AIL303m",
    ]  # fmt: skip
    assert [c.code for c in catalog.mentioned("what does MAE lead to?")] == ["MAE101"]
    assert catalog.mentioned("what is the grading of the course?") == []


def test_a_prerequisite_cycle_in_a_hostile_table_ends_every_walk() -> None:
    facts = [
        CourseFact(code=code, name=code, file_name="f.md", document_id="d", prerequisites=needs)
        for code, needs in (("AAA101", "BBB101"), ("BBB101", "AAA101"))
    ]
    catalog = Catalog(facts)
    course = catalog.get("AAA101")
    assert course is not None

    assert [(depth, code, shown) for depth, code, _, shown in catalog.chain(course)] == [
        (1, "BBB101", False),
        (2, "AAA101", True),  # already shown: not expanded again
    ]
    assert [c.code for c in catalog.blocked_by(["AAA101"])] == ["BBB101"]
    assert catalog.unlocks_later(course) == []
