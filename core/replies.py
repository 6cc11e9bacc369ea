"""Platform-free replies. Each adapter renders them in its own idiom (embeds, HTML, plain text)."""

from __future__ import annotations

from dataclasses import dataclass

from core.material import IngestReport

# How a section path is stored with a chunk ("Section 10: Assessment > Grading"), and how a
# citation shows the end of it: the part a reader looks for on the page.
SECTION_SEPARATOR = " > "
SHOWN_SEPARATOR = " › "
SHOWN_LEVELS = 2


def section_levels(path: str) -> list[str]:
    """The headings of a stored section path, outermost first."""
    return [part.strip() for part in path.split(SECTION_SEPARATOR) if part.strip()]


def cited_section(path: str) -> str:
    """A section path as citations show it: its last one or two headings."""
    return SHOWN_SEPARATOR.join(section_levels(path)[-SHOWN_LEVELS:])


@dataclass(frozen=True, slots=True)
class Citation:
    """Where a fact comes from: enough for a student to open the right page."""

    file_name: str
    page: int | None = None
    section: str | None = None
    document_id: str | None = None
    private: bool = False
    # A picture of the page is kept and the asker may see it here (`core.page_pictures`):
    # adapters offer to show it.
    pictured: bool = False

    def label(self) -> str:
        parts = [self.file_name]
        if self.page is not None:
            parts.append(f"p. {self.page}")
        if self.section:
            parts.append(cited_section(self.section))
        label = ", ".join(parts)
        return f"{label} (your notes)" if self.private else label


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer to a question. `grounded` is false when the material does not cover it;
    `quoted` is true when the text is quoted from the material rather than written by an LLM;
    `support` is how well the best quoted sentence matched (extractive answers only); `note`
    says why the answer is less than usual (for instance the LLM did not answer in time);
    `evidence` holds the figures the extractive answerer decided on, by name
    (`core.answering.answerability.Evidence`), for the evaluation to record."""

    text: str
    citations: tuple[Citation, ...] = ()
    grounded: bool = True
    quoted: bool = False
    support: float | None = None
    note: str = ""
    evidence: tuple[tuple[str, float], ...] = ()
    # The number the answer was kept under (`core.feedback`): adapters offer 👍 / 👎 on it.
    feedback_id: int | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """Plain information: help text, a confirmation, a status line. `anchor`, when set, is
    what a platform reply to this message means to the core (an adapter that sends it tells
    `CourseBot.remember_sent` the message's id, and passes it back as `Request.replying_to`);
    it is opaque to adapters."""

    text: str
    title: str | None = None
    anchor: str = ""


@dataclass(frozen=True, slots=True)
class SourceEntry:
    document_id: str
    file_name: str
    kind: str
    chunks: int
    private: bool = False


@dataclass(frozen=True, slots=True)
class SourceList:
    course_id: str
    entries: tuple[SourceEntry, ...]


@dataclass(frozen=True, slots=True)
class DocumentReply:
    """A file to send: a CSV export, a chart, a generated worksheet. `private` says the file
    was made from the asker's private notes (a lesson or mind map citing them)."""

    file_name: str
    content: bytes
    media_type: str
    caption: str = ""
    private: bool = False


@dataclass(frozen=True, slots=True)
class StepPrompt:
    """One step of a guided exercise, with feedback on the previous answer if any."""

    exercise_title: str
    step_number: int
    step_count: int
    prompt: str
    feedback: str = ""


@dataclass(frozen=True, slots=True)
class ExerciseSheet:
    """A new exercise as a student reads it before working through it: the statement, the
    sources it was modelled on, and the worked solution, which every adapter keeps hidden
    until asked for (a Telegram spoiler, a Discord spoiler, `/solution` in the console).
    `verified` is true when every answer was recomputed from the exercise's own data."""

    exercise_id: str
    title: str
    statement: str
    solution: str
    sources: tuple[Citation, ...] = ()
    verified: bool = False
    note: str = ""


@dataclass(frozen=True, slots=True)
class QuizQuestion:
    number: int  # from 1
    question: str
    options: tuple[str, ...]
    correct: int  # 0-based; platforms with native quizzes (Telegram polls) grade with it
    explanation: str = ""
    source: Citation | None = None


@dataclass(frozen=True, slots=True)
class QuizReply:
    """A quiz to answer: `quiz_id` names it in the store, so an answer (a poll vote, a
    button, `/pick N B`) finds it again after a restart. `grounded` is false for a fallback
    quiz written without the material; its answers are never logged."""

    quiz_id: int
    topic: str
    questions: tuple[QuizQuestion, ...]
    grounded: bool = True
    note: str = ""


@dataclass(frozen=True, slots=True)
class FlashcardView:
    front: str
    back: str
    source: Citation | None = None


@dataclass(frozen=True, slots=True)
class FlashcardsReply:
    """Flashcards; adapters keep each back hidden until asked (spoilers)."""

    set_id: int
    topic: str
    cards: tuple[FlashcardView, ...]
    grounded: bool = True
    note: str = ""


@dataclass(frozen=True, slots=True)
class FlashcardTurn:
    """One card of a set, for platforms that show cards one at a time with buttons (show
    the answer, next): `back` is None until the card is turned."""

    set_id: int
    number: int  # from 1
    count: int
    front: str
    back: str | None = None
    source: Citation | None = None


# Why an answer was not helpful, in one tap: (key a button carries, what is stored).
VOTE_REASONS: tuple[tuple[str, str], ...] = (
    ("wrong", "wrong"),
    ("incomplete", "incomplete"),
    ("course", "wrong course"),
    ("asked", "not what I asked"),
)


def vote_reason(key: str | None) -> str:
    """The stored words of a reason a button names ("" for none or an unknown key)."""
    return dict(VOTE_REASONS).get(key or "", "")


@dataclass(frozen=True, slots=True)
class VoteReasons:
    """A 👎 noted: why, in one tap? `reasons` are (key, label) pairs; a button with a key
    sends `/bad --answer ANSWER_ID LABEL`. For the voter alone."""

    answer_id: int
    text: str
    reasons: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class ErrorReply:
    """An error the user caused, already worded for them."""

    text: str


@dataclass(frozen=True, slots=True)
class IngestSummary:
    """What became of each file sent for ingestion."""

    report: IngestReport


Reply = (
    Answer
    | Notice
    | SourceList
    | DocumentReply
    | StepPrompt
    | ExerciseSheet
    | QuizReply
    | FlashcardsReply
    | FlashcardTurn
    | IngestSummary
    | VoteReasons
    | ErrorReply
)


REPLY_TYPES = (
    Answer, Notice, SourceList, DocumentReply, StepPrompt, ExerciseSheet, QuizReply,
    FlashcardsReply, FlashcardTurn, IngestSummary, VoteReasons, ErrorReply,
)  # fmt: skip
