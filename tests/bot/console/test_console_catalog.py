"""The catalog through the console adapter and the real core: a curriculum ingested with
`ingest_files` answers `/prereq`, `/courseinfo`, `/profile` and "can I take …?" in chat."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.catalog import CURRICULUM_K20
from support.programme import PROGRAMME

from bot.composition import open_core
from bot.console.repl import ConsoleSpeaker, run_chat
from config import Settings
from core.course_bot import CourseBot
from core.material import SourceFile


@pytest.fixture
async def bot(settings: Settings, tmp_path: Path) -> AsyncIterator[CourseBot]:
    async with open_core(settings) as core:
        plan = tmp_path / "Curriculum_k20_k21.md"
        plan.write_text(CURRICULUM_K20, encoding="utf-8")
        await core.ingest_files("bit-ai", [SourceFile.at(plan)])
        yield core


async def chat(bot: CourseBot, lines: list[str]) -> str:
    pending = list(lines)

    async def read_line(_prompt: str) -> str | None:
        return pending.pop(0) if pending else None

    out = io.StringIO()
    await run_chat(bot, ConsoleSpeaker("bit-ai", "alice"), read_line, out)
    return out.getvalue()


async def test_prereq_answers_with_the_chain_and_its_citation(bot: CourseBot) -> None:
    output = await chat(bot, ["/prereq DAT301m"])

    assert "DAT301m (AI Development with TensorFlow): CPV301, DPL302m [1] (BIT_AI_K20D-21A)." in (
        output
    )
    assert "- DPL302m Deep Learning: AIL303m [1]" in output
    assert "[1] Curriculum_k20_k21.md, Curriculum details" in output


async def test_profile_then_a_plain_can_i_take_question(bot: CourseBot) -> None:
    output = await chat(
        bot,
        [
            "/profile semester 4 passed MAE101,PFP191 failed MAS291",
            "can I take AIL303m?",
            "/profile semester four",
            "/courseinfo MAE",
        ],
    )

    assert "Saved. Your profile in 'bit-ai': semester 4; passed: MAE101, PFP191" in output
    assert "No: you cannot take AIL303m (Machine Learning) yet; missing MAS291 (failed)" in output
    assert "! The semester is a number" in output
    assert "Credits: 3 [1] (BIT_AI_K20D-21A)" in output


async def test_help_lists_the_catalog_commands(bot: CourseBot) -> None:
    output = await chat(bot, ["/help"])

    assert "/prereq CODE|NAME" in output and "/cantake CODE|NAME" in output
    assert "/profile [semester N]" in output


async def test_the_advisor_through_the_console_reads_what_ingestion_stored(
    settings: Settings, tmp_path: Path
) -> None:
    # The whole way: the pipeline stores groups, outcomes and assessments with each file.
    async with open_core(settings) as core:
        files = []
        for name, text in PROGRAMME.items():
            path = tmp_path / name
            path.write_text(text, encoding="utf-8")
            files.append(SourceFile.at(path))
        await core.ingest_files("bit-ai", files)

        output = await chat(
            core,
            [
                "what courses are in semester 1 and how many credits?",
                "which combo fits if I like dolphins and whales?",
                "what PLOs does MAR301 map to?",
                "how is Bird Watching graded?",
            ],
        )

    assert "Semester 1 of ZOO_K30 has 3 courses, 8 credits in total [1]:" in output
    assert "ZOO_COM1: Topic on Marine Life, through MAR301 Marine Mammals" in output
    assert "has 4 PLO columns, the 4-PLO numbering of K28 (ZOO_K28)" in output
    graded = "BRD301 (Bird Watching) is graded [1]: Song quiz 60% (20', above 0); Final exam 40%"
    assert graded in output
