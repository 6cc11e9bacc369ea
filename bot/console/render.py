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
            lines = wording.card_lines(reply)
            if reply.back is None:
                lines.append(_turn_command(reply.set_id, reply.number))
            return "\n".join(lines)
        case FlashcardsReply():
            # Fronts only, as the buttons of the chat platforms show them: a back is a spoiler
            # until the student asks for it with the set id printed here.
            heading = f"{wording.flashcards_heading(reply)}, set {reply.set_id}"
            lines = [heading, *([reply.note] if reply.note else [])]
            lines.extend(f"{number}. {card.front}" for number, card in enumerate(reply.cards, 1))
            return "\n".join([*lines, _turn_command(reply.set_id, None)])
        case VoteReasons(text=text, reasons=reasons):
            return f"{text} " + ", ".join(f"/bad {label}" for _key, label in reasons)
        case ErrorReply(text=text):
            return f"! {text}"
    raise TypeError(f"no console rendering for {type(reply).__name__}")


def _turn_command(set_id: int, number: int | None) -> str:
    card = str(number) if number is not None else "N"
    return f"(/card {set_id} {card} back shows the back)"


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
