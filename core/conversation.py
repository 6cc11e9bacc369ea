"""Follow-up questions: the recent turns of a student's conversation, kept in the session
store, are used only to rewrite a follow-up ("and the resit?") into a standalone question.
The answer itself sees this turn's sources alone, so earlier answers never leak into it."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass

import structlog

from core.context import Context
from core.llm import ChatModel, LlmUnavailableError
from core.prompts import REWRITE_SYSTEM, REWRITE_USER
from core.sessions import SessionStore, session_key

log = structlog.get_logger(__name__)

# A follow-up makes sense shortly after the question it follows.
CONVERSATION_TTL_S = 30 * 60
MAX_TURNS = 3
_FOLLOW_UP_START = re.compile(r"^(and|or|but|also|what about|how about|what if)\b", re.I)
_REFERRING = re.compile(r"\b(it|its|that|this|they|them|those|these|same|one)\b", re.I)


@dataclass(frozen=True, slots=True)
class Turn:
    question: str
    answer: str


class ConversationMemory:
    def __init__(self, store: SessionStore, prefix: str, max_turns: int = MAX_TURNS) -> None:
        self.store = store
        self.prefix = prefix
        self.max_turns = max_turns

    def _key(self, ctx: Context) -> str:
        # One conversation per place: turns from a DM (which may quote private notes) never
        # shape a question asked in a group.
        chat = ctx.chat_id or "-"
        return session_key(
            self.prefix, "conversation", ctx.course_id, ctx.user_id, ctx.audience.value, chat
        )

    async def recent(self, ctx: Context) -> list[Turn]:
        stored = await self.store.get(self._key(ctx))
        return [Turn(**turn) for turn in json.loads(stored.value)] if stored else []

    async def remember(self, ctx: Context, turn: Turn) -> None:
        key = self._key(ctx)
        while True:  # compare-and-set: a concurrent turn is never lost
            stored = await self.store.get(key)
            turns = json.loads(stored.value) if stored else []
            turns = [*turns, asdict(turn)][-self.max_turns :]
            version = stored.version if stored else 0
            value = json.dumps(turns)
            if await self.store.compare_and_set(key, value, version, CONVERSATION_TTL_S):
                return


def looks_like_follow_up(question: str) -> bool:
    words = question.split()
    return (
        bool(_FOLLOW_UP_START.match(question.strip()))
        or len(words) <= 3
        or (len(words) <= 8 and bool(_REFERRING.search(question)))
    )


class QuestionRewriter:
    """Standalone questions for retrieval: by the LLM when one is configured, otherwise by
    prefixing a follow-up with the question it follows."""

    def __init__(self, model: ChatModel | None = None) -> None:
        self.model = model

    async def standalone(self, question: str, history: list[Turn]) -> str:
        if not history or not looks_like_follow_up(question):
            return question
        if self.model is not None:
            try:
                rewritten = await self.model.complete(
                    REWRITE_SYSTEM,
                    REWRITE_USER.format(history=_history(history), question=question),
                )
            except LlmUnavailableError:
                log.info("follow-up rewriting fell back to the previous question")
            else:
                if rewritten:
                    return rewritten.splitlines()[0].strip()
        return f"{history[-1].question} {question}"


def _history(turns: list[Turn]) -> str:
    return "\n".join(f"Student: {t.question}\nAssistant: {t.answer[:300]}" for t in turns)
