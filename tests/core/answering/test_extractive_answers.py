"""With no LLM configured: quoted answers with citations, and abstention below a threshold."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from support.asking import ask
from support.material import Passage, add_passages

from bot.composition import open_assembly
from config import Settings
from core.course_bot import CourseBot
from core.prompts import ABSTENTION


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
    assert "“The final exam is on 14 December at 09:00 in Hall A.” [1]" in answer.text
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
