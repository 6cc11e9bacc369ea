"""The catalog's rows on SQLite and PostgreSQL: a document's facts are replaced or removed
with it (nothing stale), and a student's profile is kept per user and course."""

from __future__ import annotations

from dataclasses import replace

from support.catalog import COURSE

from core.catalog import CatalogStore, CourseFact, StudentProfile


def fact(code: str, document_id: str = "d1", **changes: object) -> CourseFact:
    base = CourseFact(code=code, name=f"{code} name", file_name="plan.md", document_id=document_id)
    return replace(base, **changes)


async def test_facts_round_trip_in_reading_order(store: CatalogStore, all_facts) -> None:
    mine = [f for f in all_facts if f.file_name == "Curriculum_k20_k21.md"]
    await store.replace_document(COURSE, mine[0].document_id, mine)

    assert await store.facts(COURSE) == mine
    assert await store.facts("other-course") == []


async def test_replacing_a_document_leaves_none_of_its_old_rows(store: CatalogStore) -> None:
    await store.replace_document(COURSE, "d1", [fact("A101"), fact("B101")])
    await store.replace_document(COURSE, "d2", [fact("C101", "d2")])

    await store.replace_document(COURSE, "d1", [fact("A101", credits=4.0)])

    assert {(f.code, f.credits) for f in await store.facts(COURSE)} == {
        ("A101", 4.0), ("C101", None),
    }  # fmt: skip
    await store.forget_document(COURSE, "d1")
    assert [f.code for f in await store.facts(COURSE)] == ["C101"]


async def test_profiles_are_per_user_and_course(store: CatalogStore) -> None:
    profile = StudentProfile(4, ("MAE101", "CSI106"), ("MAS291",))
    await store.save_profile(COURSE, "console:alice", profile)
    await store.save_profile(COURSE, "console:alice", replace(profile, semester=5))

    assert await store.profile(COURSE, "console:alice") == replace(profile, semester=5)
    assert await store.profile(COURSE, "console:bob") is None
    assert await store.profile("other", "console:alice") is None
    await store.save_profile(COURSE, "console:alice", StudentProfile())
    assert await store.profile(COURSE, "console:alice") is None
