"""Plain-text rendering of core replies for a terminal."""

from __future__ import annotations

from bot.common import wording
from core.material import IngestReport
from core.replies import (
    Answer,
    DocumentReply,
    ErrorReply,
    ExerciseSheet,
    FlashcardsReply,
    FlashcardTurn,
    IngestSummary,
    Notice,
    QuizReply,
    Reply,
    SourceList,
    StepPrompt,
    VoteReasons,
)


def render(reply: Reply) -> str:
    match reply:
        case Answer():
            return _answer(reply)
        case Notice(text=text, title=title):
            return f"{title}\n{text}" if title else text
        case SourceList():
            lines = [wording.sources_heading(reply)]
            lines.extend(f"  {wording.source_line(entry)}" for entry in reply.entries)
            return "\n".join(lines)
        case DocumentReply(file_name=name, content=content, caption=caption):
            return f"{caption}\n[file {name}, {len(content)} bytes]".strip()
        case IngestSummary(report=report):
            return render_ingest_report(report)
        case StepPrompt():
            feedback = f"{reply.feedback}\n" if reply.feedback else ""
            return f"{feedback}{wording.step_heading(reply)}\n{reply.prompt}"
        case ExerciseSheet():
            # A terminal cannot hide text: the solution waits for /solution.
            lines = [wording.sheet_heading(reply), reply.statement, *wording.sheet_notes(reply)]
            return "\n".join([*lines, wording.SOLUTION_COMMAND])
        case QuizReply():
            lines = [wording.quiz_heading(reply), *([reply.note] if reply.note else [])]
            for question in reply.questions:
                lines.extend(["", *wording.question_lines(question)])
            return "\n".join([*lines, "", wording.QUIZ_HOW])
        case FlashcardTurn():
            return "\n".join(wording.card_lines(reply))
        case FlashcardsReply():
            lines = [wording.flashcards_heading(reply), *([reply.note] if reply.note else [])]
            for number, card in enumerate(reply.cards, 1):
                source = f" ({wording.shown_name(card.source.label())})" if card.source else ""
                lines.append(f"{number}. {card.front}\n   → {card.back}{source}")
            return "\n".join(lines)
        case VoteReasons(text=text, reasons=reasons):
            return f"{text} " + ", ".join(f"/bad {label}" for _key, label in reasons)
        case ErrorReply(text=text):
            return f"! {text}"
    raise TypeError(f"no console rendering for {type(reply).__name__}")


def _answer(answer: Answer) -> str:
    lines = [*wording.answer_preface(answer), answer.text]
    if answer.citations:
        lines.extend(["", wording.SOURCES_HEADING])
        lines.extend(f"  {line}" for line in wording.citation_lines(answer))
    pages = wording.pictured_pages(answer)
    if pages:
        lines.append("")
        lines.extend(f"  {wording.page_command_line(n, c)}" for n, c in pages)
    return "\n".join(lines)


def render_ingest_report(report: IngestReport) -> str:
    return (
        "\n".join(f"  {line}" for line in wording.ingest_report_lines(report)[:-1])
        + ("\n" if report.results else "")
        + wording.ingest_summary(report)
    )
