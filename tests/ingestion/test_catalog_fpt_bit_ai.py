"""The catalog over the real fpt-bit-ai programme (64 files, three curriculum versions),
ingested by the pipeline: the dataset's prerequisite and "can I take" questions
(`questions.jsonl`) answered exactly from the tables. Skipped when the dataset is absent."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from qdrant_client import AsyncQdrantClient
from support.embedders import HashEmbedder
from support.paths import SHARED_DATASETS

from core.catalog import Catalog, CatalogDesk, CatalogStore
from core.context import Audience, Context
from core.database import create_engine, migrate
from core.index import ChunkIndex, SparseEncoder
from ingestion import FileStatus, Ingestor, discover

FOLDER = SHARED_DATASETS / "fpt-bit-ai" / "courses" / "bit-ai"
COURSE = "bit-ai"
CURRENT = "BIT_AI_K20D-21A"

pytestmark = pytest.mark.skipif(not FOLDER.is_dir(), reason="fpt-bit-ai is not present")


async def _ingest(url: str) -> None:
    await migrate(url)
    engine = create_engine(url)
    embedder = HashEmbedder()
    index = ChunkIndex(AsyncQdrantClient(location=":memory:"), "c", embedder.dimensions, False)
    await index.ensure()
    ingestor = Ingestor(
        index=index,
        embedder=embedder,
        sparse=SparseEncoder(),
        max_bytes=50 << 20,
        catalog=CatalogStore(engine),
    )
    try:
        sources, _ = discover([FOLDER])
        report = await ingestor.ingest(sources, COURSE)
        assert not [r for r in report.results if r.status is FileStatus.FAILED]
    finally:
        await index.close()
        await engine.dispose()


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The programme ingested once (the pipeline, a fast stand-in embedder) into SQLite."""
    path = tmp_path_factory.mktemp("fpt") / "catalog.db"
    asyncio.run(_ingest(f"sqlite:///{path}"))
    return path


@pytest.fixture
async def desk(ingested: Path, tmp_path: Path) -> AsyncIterator[CatalogDesk]:
    # A copy per test: profiles written by one test never reach another.
    path = tmp_path / "catalog.db"
    shutil.copyfile(ingested, path)
    engine = create_engine(f"sqlite:///{path}")
    yield CatalogDesk(CatalogStore(engine))
    await engine.dispose()


def student(user: str = "console:alice") -> Context:
    """A student asking in a direct message: the stored profile answers there only."""
    return Context(platform="console", course_id=COURSE, user_id=user, audience=Audience.PRIVATE)


async def catalog_of(desk: CatalogDesk) -> Catalog:
    return await desk.catalog(student())


async def test_the_three_curricula_and_the_syllabi_are_extracted(desk: CatalogDesk) -> None:
    catalog = await catalog_of(desk)
    plans = {f.version.label for c in catalog.courses() for f in c.facts if f.in_plan}

    assert plans == {"BIT_AI_K18D-19A", "BIT_AI_K19D-20A", CURRENT}
    dat = catalog.get("DAT301m")
    assert {f.file_name for f in dat.facts} == {
        "DAT301m.MD",
        "Curriculum_k20_k21.md",
        "Curriculum_k19_k20.MD",
        "Curriculum_k18_k19.md",
    }
    assert catalog.plan_row(dat).version.label == CURRENT


async def test_dat301m_needs_cpv301_and_dpl302m(desk: CatalogDesk) -> None:
    catalog = await catalog_of(desk)
    assert catalog.get("DAT301m").requirement().codes() == ["CPV301", "DPL302m"]

    answer = await desk.answer(student(), "what do I need to pass before I can take DAT301m?")

    assert answer is not None
    first = answer.text.splitlines()[0]
    assert first == f"DAT301m (AI Development with TensorFlow): CPV301, DPL302m [1] ({CURRENT})."
    assert answer.citations[0].file_name == "Curriculum_k20_k21.md"
    assert answer.citations[0].section == "Curriculum details"


async def test_mae101_leads_through_mai391_and_mas291_to_machine_learning(
    desk: CatalogDesk,
) -> None:
    catalog = await catalog_of(desk)
    assert {c.code for c in catalog.unlocks(catalog.get("MAE101"))} == {"MAI391", "MAS291"}
    assert catalog.get("MAS291").requirement().render() == "MAE101 or MAC101"

    answer = await desk.answer(
        student(),
        "I still haven't passed MAE101. What's the chain of courses from it up to "
        "Machine Learning?",
    )

    assert answer is not None
    assert "So: MAE101 -> MAS291, MAI391 -> AIL303m." in answer.text
    assert "- AIL303m (Machine Learning) requires MAS291, MAI391, PFP191 [1]" in answer.text


async def test_machine_learning_unlocks_four_courses_of_the_current_curriculum(
    desk: CatalogDesk,
) -> None:
    catalog = await catalog_of(desk)
    ml = catalog.get("AIL303m")
    plan = catalog.current_plan()
    inside = {c.code for c in catalog.unlocks(ml) if catalog.in_plan(c, plan)}

    # NLP301c asks for "AIL30x and (PRP201c or PFP191)": the family holds AIL303m.
    assert inside == {"DPL302m", "NLP301c", "AID301c", "REL301m"}
    answer = await desk.prereq(student(), "machine learning")
    assert f"AIL303m unlocks, in the current curriculum {CURRENT}: DPL302m (Deep Learning)" in (
        answer.text
    )


def _in_the_semester_asked(text: str) -> list[str]:
    """The blocked courses listed first: those of the semester the question asks about."""
    lines = text.splitlines()[1:]
    end = next((n for n, line in enumerate(lines) if not line.startswith("- ")), len(lines))
    return lines[:end]


async def test_failing_csd203_blocks_cpv301_in_semester_4(desk: CatalogDesk) -> None:
    answer = await desk.answer(
        student(), "I failed CSD203 last semester. Which of my semester 4 courses can't I take now?"
    )

    assert answer is not None
    assert _in_the_semester_asked(answer.text) == [
        "- CPV301 (Computer Vision), semester 4, 3 credits: requires PFP191, CSD203 [1]"
    ]
    assert "(AIL303m, DAP391m, SSG105, SWE201c) don't need it" in answer.text
    assert "Further on, also closed:\n- DAT301m" in answer.text


async def test_failing_mln122_blocks_three_semester_9_courses(desk: CatalogDesk) -> None:
    answer = await desk.answer(
        student(), "I failed MLN122 in semester 8. What does that block in semester 9?"
    )

    assert answer is not None
    blocked = [line.split(" ")[1] for line in _in_the_semester_asked(answer.text)]
    assert blocked == ["HCM202", "MLN131", "VNR202"]
    assert "(AI17_GRA_ELE) don't need it" in answer.text


async def test_can_i_take_against_a_stored_profile(desk: CatalogDesk) -> None:
    await desk.profile(student(), "semester 4 passed MAE101,CSI106,PFP191 failed MAS291")

    no = await desk.answer(student(), "can I take Machine Learning?")
    yes = await desk.cantake(student(), "CSD203")

    assert no is not None
    assert no.text.startswith(
        "No: you cannot take AIL303m (Machine Learning) yet; missing MAS291 (failed), MAI391."
    )
    assert yes.text.startswith("Yes: you can take CSD203")


async def test_swe201c_does_not_need_pro192_in_this_programme(desk: CatalogDesk) -> None:
    await desk.profile(student(), "passed MAE101")

    answer = await desk.cantake(student(), "Introduction to Software Engineering")

    assert answer.text.startswith("Yes: you can take SWE201c")
    assert "not applied to the BIT_AI and BA programs" in answer.text


async def test_reinforcement_learning_semester_and_credits_name_the_version(
    desk: CatalogDesk,
) -> None:
    answer = await desk.answer(
        student(),
        "what's the course code for reinforcement learning and which semester do K20 students "
        "take it? how many credits?",
    )

    assert answer is not None
    assert answer.text.splitlines()[:3] == [
        "REL301m (Reinforcement Learning)",
        f"Credits: 3 [1] ({CURRENT})",
        f"Semester: 8 in {CURRENT} [1]",
    ]


async def test_aip491_needs_ojt202_and_states_its_credit_rules(desk: CatalogDesk) -> None:
    await desk.profile(student(), "passed DPL302m, PMG201c")

    question = "can i start the AI capstone project AIP491 before doing my OJT?"
    answer = await desk.answer(student(), question)

    assert answer is not None
    assert answer.text.startswith(
        "No: you cannot take AIP491 (AI Capstone Project) yet; missing OJT202."
    )
    assert "Pass 80% of total credits" in answer.text
