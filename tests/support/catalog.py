"""Course catalogs to test with: two curricula and a syllabus shaped like the fpt-bit-ai
files (a "Curriculum details" table, a "General information" key/value table), a combo's
course lists (codes and names under a heading, the document's semester), and, for the
advisor, outcome tables (PLO lists, a PLO-to-PO map, a syllabus's CLO-to-PLO map), read by
the real Markdown loader. Codes and names are made up where the tests need no real ones."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from core.catalog import AssessmentFact, CatalogStore, CourseFact, OutcomeFact
from core.context import Context
from core.database import create_engine, migrate
from ingestion.catalog import course_assessments, course_facts, course_outcomes
from ingestion.loaders.markdown import load_markdown

COURSE = "bit-ai"

CURRICULUM_K20 = """# Curriculum: 20D-21A

## General information

|        CurriculumCode: | BIT_AI_K20D-21A                |
|-----------------------:|--------------------------------|
|                  Name: | Bachelor Program of IT, AI     |
| DecisionNo MM/dd/yyyy: | 1508/QĐ-ĐHFPT dated 12/31/2025 |

## Curriculum details

Number of subjects: 14 subjects

| SubjectCode  | Subject Name | Semester | NoCredit | PreRequisite |
|--------------|--------------|----------|----------|--------------|
| PFP191 | Programming Fundamentals with Python_Cơ sở lập trình với Python | 1 | 3 | |
| MAE101 | Mathematics for Engineering_Toán cho ngành kỹ thuật | 1 | 3 | None |
| CSD203 | Data Structures and Algorithm with Python_Cấu trúc dữ liệu | 2 | 3 | PFP191 |
| JPD113 | Elementary Japanese 1- A1.1_Tiếng Nhật sơ cấp 1-A1.1 | 2 | 3 | Không |
| MAI391 | Mathematics for Machine Learning_Toán cho học máy | 3 | 3 | MAE101 |
| MAS291 | Statistics & Probability_Xác suất thống kê | 3 | 3 | MAE101 or MAC101 |
| AIL303m | Machine Learning_Học máy | 4 | 3 | MAS291, MAI391, PFP191 |
| CPV301 | Computer Vision_Thị giác máy tính | 4 | 3 | PFP191, CSD203 |
| SWE201c | Introduction to Software Engineering_Nhập môn KTPM | 4 | 3 | PRO192 (not applied to the BIT_AI and BA programs) |
| DPL302m | Deep Learning_Học sâu | 5 | 6 | AIL303m |
| NLP301c | Natural Language Processing_Xử lý ngôn ngữ tự nhiên | 6 | 3 | AIL30x and (PRP201c or PFP191) |
| OJT202 | On-The-Job Training_Đào tạo trong môi trường thực tế | 6 | 10 | Students attained 90% of the total credits prior to the OJT term Students choosing JS combo (Japanese Bridge Engineer) have to pass JPD133 |
| DAT301m | AI Development with TensorFlow_Phát triển UDTTNT với TensorFlow | 7 | 3 | CPV301, DPL302m |
| MLN111 | Philosophy of Marxism – Leninism_Triết học Mác - Lê-nin | 8 | 3 | None |
"""  # noqa: E501

# An older version: DAT301m sat in semester 8, and SSG104 only exists here.
CURRICULUM_K18 = """# Curriculum: K18D-K19A

## General information

|        CurriculumCode: | BIT_AI_K18D-19A |
|-----------------------:|-----------------|
| DecisionNo MM/dd/yyyy: | 972/QĐ-ĐHFPT dated 09/09/2024 |

## Curriculum details

| SubjectCode | Subject Name | Semester | NoCredit | PreRequisite |
|-------------|--------------|----------|----------|--------------|
| SSG104 | Communication and In-Group Working Skills_Kỹ năng giao tiếp | 2 | 3 | None |
| DAT301m | AI Development with TensorFlow_Phát triển UDTTNT | 8 | 3 | CPV301, DPL302m |
"""

SYLLABUS_DAT301M = """# Syllabus: DAT301m

## General information

| Syllabus ID: | 13293 | |
|-----------------------:|------|--|
| Syllabus Name: | AI Development_Phát triển UDTTNT | |
| Syllabus English: | AI Development | |
| Subject Code: | DAT301m | |
| NoCredit: | 3 | |
| Pre-Requisite: | CPV301, DPL302m | |
| DecisionNo MM/dd/yyyy: | 932/QĐ-ĐHFPT dated 08/22/2025 | |

## Materials

| MaterialDescription | Author | Publisher |
|---------------------|--------|-----------|
| Convolutional Neural Networks in TensorFlow | Coursera | coursera.org |
"""

# A combo list: codes and names under the combo's heading, in the semester the document states.
COMBO = """# Pathway: AI17_COM_1

## General information

| Key         | Value              |
|-------------|--------------------|
| Description | Subject 1 of Combo |
| Semester    | 5                  |

## AI17_COM1: Topic on Applied Data Science

| Subject Code | Syllabus Name | Note | IsActive | IsApproved | DecisionNo |
|--------------|---------------|------|----------|------------|------------|
| DSR301m | Applied Data Science with R | | yes | yes | 358/QĐ-ĐHFPT dated 04/03/2024 |

## AI17_COM2.1: Topic on AI Applied research (Available: K18D - K19A)

| Subject Code | Syllabus Name | Note | IsActive | IsApproved | DecisionNo |
|--------------|---------------|------|----------|------------|------------|
| TMG301 | Text Mining | | yes | yes | 765/QĐ-ĐHFPT dated 07/29/2024 |
"""

DOCUMENTS = {
    "Curriculum_k20_k21.md": CURRICULUM_K20,
    "Curriculum_k18_k19.md": CURRICULUM_K18,
    "DAT301m.MD": SYLLABUS_DAT301M,
    "AI17_COM_1.MD": COMBO,
}


def facts_of(tmp_path: Path, file_name: str, text: str) -> list[CourseFact]:
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    return course_facts(load_markdown(path, file_name), f"doc-{file_name}")


def outcomes_of(tmp_path: Path, file_name: str, text: str) -> list[OutcomeFact]:
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    return course_outcomes(load_markdown(path, file_name), f"doc-{file_name}")


def assessments_of(tmp_path: Path, file_name: str, text: str) -> list[AssessmentFact]:
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    return course_assessments(load_markdown(path, file_name), f"doc-{file_name}")


def student(user: str = "console:alice") -> Context:
    return Context(platform="console", course_id=COURSE, user_id=user)


@asynccontextmanager
async def sqlite_catalog(folder: Path) -> AsyncIterator[CatalogStore]:
    """A migrated SQLite catalog in `folder`, its engine disposed on exit."""
    url = f"sqlite:///{folder / 'catalog.db'}"
    await migrate(url)
    engine = create_engine(url)
    yield CatalogStore(engine)
    await engine.dispose()
