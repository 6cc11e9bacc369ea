"""The study commands: `/flashcards TOPIC`, `/quiz TOPIC [N]`, `/mindmap TOPIC` (each with
`--new`) and the answers to a quiz (`/pick N B` in chat; a poll vote or a button names the
quiz too). Parsing and replies live here; the sets come from `StudySets`.

A student's answers to a quiz are kept in the session store under compare-and-set: each
question counts once (a second vote or a replayed update changes nothing), the answer goes
to the digest's quiz-answer outbox and a wrong answer to a grounded question to the mistake
outbox in the same atomic step, and the score is given when the last question is answered."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog

from core.context import Context
from core.errors import BadInputError
from core.feedback.quiz_answers import QuizAnswer, QuizAnswerOutbox
from core.mistakes.outbox import MistakeOutbox
from core.progress import StepReport
from core.replies import (
    DocumentReply,
    FlashcardsReply,
    FlashcardTurn,
    FlashcardView,
    Notice,
    QuizQuestion,
    QuizReply,
    Reply,
)
from core.sessions import SessionStore, session_key
from core.study.export import anki_deck, cards_csv
from core.study.grading import grade_quiz_answer, quiz_mistake
from core.study.models import NOT_FROM_MATERIAL, FlashcardSet, MindMap, Quiz
from core.study.service import Served, StudySets

log = structlog.get_logger(__name__)

LETTERS = "ABCD"
_ANSWERS_TTL = timedelta(days=30)
_MAX_RACES = 20


def _topic(topic: str, command: str, extra: str = "") -> str:
    topic = " ".join(topic.split())
    if not topic:
        raise BadInputError(f"Which topic? Use /{command} TOPIC{extra} [--new].")
    return topic


class StudyDesk:
    def __init__(
        self,
        sets: StudySets,
        *,
        store: SessionStore,
        outbox: MistakeOutbox,
        quiz_answers: QuizAnswerOutbox,
        prefix: str,
    ) -> None:
        self._sets = sets
        self._store = store
        self._outbox = outbox
        self._quiz_answers = quiz_answers
        self._prefix = prefix

    async def flashcards(
        self, ctx: Context, topic: str, *, fresh: bool = False, csv: bool = False,
        anki: bool = False, report: StepReport | None = None, job: str | None = None,
    ) -> list[Reply]:  # fmt: skip
        served = await self._sets.flashcards(
            ctx, _topic(topic, "flashcards"), fresh=fresh, report=report, job=job
        )
        replies: list[Reply] = [_cards_reply(served.material_id, served.value)]
        if csv:
            replies.append(_cards_csv(served.value))
        if anki:
            replies.append(await _cards_anki(ctx.course_id, served.value))
        return replies

    async def quiz(
        self, ctx: Context, topic: str, *, count: int | None = None, fresh: bool = False,
        report: StepReport | None = None, job: str | None = None,
    ) -> list[Reply]:  # fmt: skip
        topic = _topic(topic, "quiz", " [N]")
        served = await self._sets.quiz(ctx, topic, fresh=fresh, count=count, report=report, job=job)
        await self._remember_latest(ctx, served.material_id)
        return [_quiz_reply(served.material_id, served.value)]

    async def mindmap(
        self, ctx: Context, topic: str, *, fresh: bool = False,
        report: StepReport | None = None, job: str | None = None,
    ) -> list[Reply]:  # fmt: skip
        served = await self._sets.mindmap(
            ctx, _topic(topic, "mindmap"), fresh=fresh, report=report, job=job
        )
        return await self._mindmap_replies(served.value)

    async def replies_for(self, ctx: Context, material_id: int) -> list[Reply] | None:
        """A stored set sent again as it was first sent (`/materials send ID`); a quiz sent
        again is the one `/pick` answers. None when the set is not available in this course.
        Whose it is and where it may be shown is the caller's to check (`MaterialsDesk`)."""
        value = await self._sets.load(ctx, material_id)
        if isinstance(value, FlashcardSet):
            return [_cards_reply(material_id, value)]
        if isinstance(value, Quiz):
            await self._remember_latest(ctx, material_id)
            return [_quiz_reply(material_id, value)]
        if isinstance(value, MindMap):
            return await self._mindmap_replies(value)
        return None

    async def _mindmap_replies(self, mindmap: MindMap) -> list[Reply]:
        picture = await self._sets.mindmap_png(mindmap)
        return [
            DocumentReply(
                file_name=f"mindmap-{_slug(mindmap.topic)}.png",
                content=picture,
                media_type="image/png",
                caption=_mindmap_caption(mindmap),
                # The outline below carries no citation flags: the picture says it for both.
                private=any(s.private for s in mindmap.sources()),
            ),
            Notice(mindmap.outline(), title=f"Mind map: {mindmap.topic}"),
        ]

    async def generate(
        self, ctx: Context, kind: str, topic: str, *, fresh: bool, count: int | None
    ) -> Served[Any]:
        """A set for the CLI: kind is flashcards, quiz or mindmap."""
        if kind == "flashcards":
            return await self._sets.flashcards(ctx, topic, fresh=fresh, count=count)
        if kind == "quiz":
            served = await self._sets.quiz(ctx, topic, fresh=fresh, count=count)
            await self._remember_latest(ctx, served.material_id)
            return served
        if kind == "mindmap":
            return await self._sets.mindmap(ctx, topic, fresh=fresh)
        raise BadInputError(f"There is no study set called '{kind}'.")

    async def picture(self, mindmap: MindMap) -> bytes:
        return await self._sets.mindmap_png(mindmap)

    async def card(
        self, ctx: Context, set_id: int, number: int, *, back: bool = False
    ) -> list[Reply]:
        """Card `number` of a flashcard set, turned with `back` (what a "show answer" or
        "next" button asks for, after a restart too)."""
        cards = await self._sets.load(ctx, set_id, shown_here=True)
        if not isinstance(cards, FlashcardSet) or not cards.cards:
            raise BadInputError("Those flashcards are not available to you any more.")
        if not 1 <= number <= len(cards.cards):
            raise BadInputError(f"That set has cards 1 to {len(cards.cards)}.")
        card = cards.cards[number - 1]
        return [
            FlashcardTurn(
                set_id=set_id,
                number=number,
                count=len(cards.cards),
                front=card.front,
                back=card.back if back else None,
                source=card.source.citation() if card.source else None,
            )
        ]

    async def pick(
        self, ctx: Context, quiz_id: int | None, number: int, letter: str
    ) -> list[Reply]:
        """The answer `letter` to question `number` of that quiz (default: the latest)."""
        quiz_id = quiz_id if quiz_id is not None else await self._latest(ctx)
        quiz = await self._sets.load(ctx, quiz_id, shown_here=True)
        if not isinstance(quiz, Quiz):
            raise BadInputError("That quiz is not available to you any more; start one with /quiz.")
        index = number - 1
        if not 0 <= index < len(quiz.items):
            raise BadInputError(f"That quiz has questions 1 to {len(quiz.items)}.")
        return await self.answer(ctx, quiz_id, quiz, index, LETTERS.index(letter.upper()))

    async def answer(
        self, ctx: Context, quiz_id: int, quiz: Quiz, index: int, chosen: int
    ) -> list[Reply]:
        """Record one answer (once per question) and say whether it was right."""
        answers = await self._record(ctx, quiz_id, quiz, index, chosen)
        if answers is None:
            return [Notice(f"You already answered question {index + 1} of this quiz.")]
        return [Notice(_feedback(quiz, index, chosen, answers[str(index)], answers))]

    async def vote(self, ctx: Context, quiz_id: int, number: int, chosen: int) -> list[Reply]:
        """A vote in a native quiz poll on question `number` (from 1), option `chosen` (from
        0): recorded as `/pick` records it, but the platform has already shown whether it was
        right, so the only reply is the score once the last question is answered. A second
        vote, or a quiz no longer available to the voter, gives nothing."""
        quiz = await self._sets.load(ctx, quiz_id)
        if not isinstance(quiz, Quiz) or not 1 <= number <= len(quiz.items):
            log.info("vote on a quiz not available", quiz=quiz_id, user=ctx.user_id)
            return []
        answers = await self._record(ctx, quiz_id, quiz, number - 1, chosen)
        if answers is None or len(answers) < len(quiz.items):
            return []
        return [Notice(_score_line(quiz, answers), title=f"Quiz: {quiz.topic}")]

    async def _record(
        self, ctx: Context, quiz_id: int, quiz: Quiz, index: int, chosen: int
    ) -> dict[str, bool] | None:
        """The student's answers to the quiz, this one included; None (and nothing changed)
        when the question was answered before. The answer goes to the digest's outbox, and a
        wrong answer to a grounded question to the mistake outbox, in the same atomic step."""
        key = self._answers_key(ctx, quiz_id)
        for _ in range(_MAX_RACES):
            stored = await self._store.get(key)
            answers: dict[str, bool] = json.loads(stored.value) if stored else {}
            if str(index) in answers:
                return None
            right = grade_quiz_answer(quiz, chosen, item=index)
            answers[str(index)] = right
            mistake = quiz_mistake(
                ctx, quiz, material_id=quiz_id, item=index, chosen_index=chosen,
                idempotency_key=f"quiz:{quiz_id}:{index}:{ctx.user_id}",
            )  # fmt: skip
            counted = QuizAnswer(
                course_id=ctx.course_id, platform=ctx.platform, student_id=ctx.user_id,
                quiz_id=quiz_id, number=index + 1, topic=quiz.topic,
                question=quiz.items[index].question, correct=right,
                answered_at=datetime.now(UTC),
            )  # fmt: skip
            appends = [
                *self._outbox.appends([mistake] if mistake else []),
                *self._quiz_answers.appends([counted]),
            ]
            version = stored.version if stored else 0
            if await self._store.compare_and_set(
                key, json.dumps(answers), version, _ttl_s(), appends
            ):
                if mistake:
                    self._outbox.flush_soon()
                self._quiz_answers.flush_soon()
                return answers
        raise RuntimeError("quiz answers kept changing while recording one")

    async def _remember_latest(self, ctx: Context, quiz_id: int) -> None:
        """`/pick N B` answers the student's latest quiz in this course."""
        key = self._latest_key(ctx)
        for _ in range(_MAX_RACES):
            stored = await self._store.get(key)
            version = stored.version if stored else 0
            if await self._store.compare_and_set(key, str(quiz_id), version, _ttl_s()):
                return

    async def _latest(self, ctx: Context) -> int:
        stored = await self._store.get(self._latest_key(ctx))
        if stored is None:
            raise BadInputError("You have no quiz open; start one with /quiz TOPIC.")
        return int(stored.value)

    def _latest_key(self, ctx: Context) -> str:
        return session_key(self._prefix, "quiz-latest", ctx.course_id, ctx.user_id)

    def _answers_key(self, ctx: Context, quiz_id: int) -> str:
        return session_key(self._prefix, "quiz-answers", ctx.course_id, ctx.user_id, str(quiz_id))


def _ttl_s() -> int:
    return int(_ANSWERS_TTL.total_seconds())


def _feedback(quiz: Quiz, index: int, chosen: int, right: bool, answers: dict[str, bool]) -> str:
    item = quiz.items[index]
    if right:
        line = f"✓ Question {index + 1}: {LETTERS[chosen]} is right."
    else:
        right_one = f"{LETTERS[item.correct]}) {item.answer}"
        line = f"✗ Question {index + 1}: {LETTERS[chosen]} is not it; the answer is {right_one}."
    if item.source is not None:
        line += f" Source: {item.source.label()}."
    if len(answers) == len(quiz.items):
        line += "\n" + _score_line(quiz, answers)
    return line


def _score_line(quiz: Quiz, answers: dict[str, bool]) -> str:
    return f"Quiz done: {sum(answers.values())} of {len(quiz.items)} right."


def _note(grounded: bool, reason: str) -> str:
    parts = [] if grounded else [f"Written by the language model, {NOT_FROM_MATERIAL}."]
    if reason and reason not in parts[0:1]:
        parts.append(reason)
    return " ".join(parts)


def _quiz_reply(quiz_id: int, quiz: Quiz) -> QuizReply:
    questions = tuple(
        QuizQuestion(
            number=n,
            question=item.question,
            options=tuple(item.options),
            correct=item.correct,
            explanation=item.explanation,
            source=item.source.citation() if item.source else None,
        )
        for n, item in enumerate(quiz.items, 1)
    )
    return QuizReply(
        quiz_id, quiz.topic, questions, quiz.grounded, _note(quiz.grounded, quiz.reason)
    )


def _cards_reply(set_id: int, cards: FlashcardSet) -> FlashcardsReply:
    views = tuple(
        FlashcardView(c.front, c.back, c.source.citation() if c.source else None)
        for c in cards.cards
    )
    return FlashcardsReply(
        set_id, cards.topic, views, cards.grounded, _note(cards.grounded, cards.reason)
    )


def _cards_csv(cards: FlashcardSet) -> DocumentReply:
    return DocumentReply(
        file_name=f"flashcards-{_slug(cards.topic)}.csv",
        content=cards_csv(cards),
        media_type="text/csv",
        caption=f"{len(cards.cards)} flashcards on {cards.topic} (CSV: front, back, source)",
        private=any(s.private for s in cards.sources()),
    )


async def _cards_anki(course_id: str, cards: FlashcardSet) -> DocumentReply:
    # The deck is named by course and normalised topic, so its ids are too: a re-import
    # of the same topic updates the student's deck.
    deck_name = f"{course_id}::{_slug(cards.topic)}"
    # genanki writes a SQLite file on disk: off the event loop.
    content = await asyncio.to_thread(anki_deck, cards, deck_name, course_id=course_id)
    return DocumentReply(
        file_name=f"flashcards-{_slug(cards.topic)}.apkg",
        content=content,
        media_type="application/apkg",
        caption=f"{len(cards.cards)} flashcards on {cards.topic} (an Anki deck: File → Import)",
        private=any(s.private for s in cards.sources()),
    )


def _mindmap_caption(mindmap: MindMap) -> str:
    sources = sorted({s.file for s in mindmap.sources()})
    cited = f" — from {', '.join(sources)}" if sources else ""
    return f"Mind map: {mindmap.topic}{cited}"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")[:40] or "topic"
