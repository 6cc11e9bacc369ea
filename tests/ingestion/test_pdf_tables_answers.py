"""PDF tables through the real core: an exam table's row is quoted with its header, and a
curriculum printed to PDF (fpdf2 tables, the shape of the fpt-bit-ai files) feeds the catalog
alone, so `/prereq` answers from it."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fpdf import FPDF
from support.asking import ask
from support.catalog import CURRICULUM_K20
from support.paths import SHARED_DATASETS
from support.pdf_documents import markdown_pdf

from bot.composition import open_core
from bot.console.repl import ConsoleSpeaker, run_chat
from config import Settings
from core.course_bot import CourseBot
from core.material import SourceFile

REAL_CURRICULUM = SHARED_DATASETS / "fpt-bit-ai" / "courses" / "bit-ai" / "Curriculum_k20_k21.md"


@pytest.fixture
async def core(settings: Settings, bundled_model: None) -> AsyncIterator[CourseBot]:
    async with open_core(settings) as opened:
        yield opened


async def chat(bot: CourseBot, course: str, lines: list[str]) -> str:
    pending = list(lines)

    async def read_line(_prompt: str) -> str | None:
        return pending.pop(0) if pending else None

    out = io.StringIO()
    await run_chat(bot, ConsoleSpeaker(course, "alice"), read_line, out)
    return out.getvalue()


def exams_pdf(path: Path) -> Path:
    pdf = FPDF(format="A4")
    pdf.set_font("helvetica", size=11)
    pdf.add_page()
    pdf.multi_cell(0, 6, "Exam schedule. All exams are held in the main lecture hall.")
    pdf.ln(4)
    with pdf.table() as table:
        for cells in (
            ("Exam", "Date", "Time"),
            ("Midterm 1", "Fri Mar 3", "7-9 pm"),
            ("Midterm 2", "Fri Apr 7", "7-9 pm"),
            ("Midterm 3", "Fri May 5", "6-8 pm"),
            ("Final exam", "Mon May 15", "8-11 am"),
        ):
            row = table.row()
            for cell in cells:
                row.cell(cell)
    path.write_bytes(bytes(pdf.output()))
    return path


async def test_a_table_row_is_quoted_with_its_header(core: CourseBot, tmp_path: Path) -> None:
    await core.ingest_files("stat101", [SourceFile.at(exams_pdf(tmp_path / "syllabus.pdf"))])

    answer = await ask(core, "When is Midterm 2?", course="stat101")

    assert answer.grounded
    assert "Exam: Midterm 2; Date: Fri Apr 7; Time: 7-9 pm" in answer.text
    assert "Midterm 3" not in answer.text.split("\n")[0]


async def test_prereq_answers_from_a_pdf_curriculum_alone(core: CourseBot, tmp_path: Path) -> None:
    plan = markdown_pdf(CURRICULUM_K20, tmp_path / "Curriculum_k20_k21.pdf")
    await core.ingest_files("bit-ai", [SourceFile.at(plan)])

    output = await chat(core, "bit-ai", ["/prereq DAT301m", "/courseinfo OJT202"])

    assert "DAT301m (AI Development with TensorFlow): CPV301, DPL302m [1] (BIT_AI_K20D-21A)." in (
        output
    )
    assert "- DPL302m Deep Learning: AIL303m [2]" in output
    # the table runs over two pages: each row is cited with its page and section
    assert "[1] Curriculum_k20_k21.pdf, p. 2, Curriculum details" in output
    assert "[2] Curriculum_k20_k21.pdf, p. 1, Curriculum details" in output
    # OJT202 sits on the table's second page, under the header the first page gave
    assert "OJT202 (On-The-Job Training)\nCredits: 10 [1]" in output


@pytest.mark.skipif(not REAL_CURRICULUM.is_file(), reason="fpt-bit-ai is not present")
async def test_prereq_answers_from_the_real_curriculum_printed_to_pdf(
    core: CourseBot, tmp_path: Path
) -> None:
    text = REAL_CURRICULUM.read_text(encoding="utf-8")
    plan = markdown_pdf(text, tmp_path / "Curriculum_k20_k21.pdf")
    await core.ingest_files("bit-ai", [SourceFile.at(plan)])

    output = await chat(core, "bit-ai", ["/prereq DAT301m", "/prereq HCM202"])

    assert "DAT301m (AI Development with TensorFlow): CPV301, DPL302m [1]" in output
    assert "HCM202 (Ho Chi Minh Ideology): MLN111, MLN122 [1]" in output
