"""How replies are worded on every surface (console, Telegram, Discord). Renderers add their
own markup around these plain strings; the words are chosen once, here."""

from __future__ import annotations

from core.material import FileResult, FileStatus, IngestReport
from core.progress import JobProgress, StepProgress
from core.replies import (
    Answer,
    Citation,
    ExerciseSheet,
    FlashcardsReply,
    FlashcardTurn,
    QuizQuestion,
    QuizReply,
    SourceEntry,
    SourceList,
    StepPrompt,
)
from core.text import shown_name

# A citation is never cut across messages, so its label must stay well inside any limit.
MAX_LABEL_CHARS = 300

QUOTED_HEADING = "From the course material (quoted):"
SOURCES_HEADING = "Sources:"

__all__ = ["shown_name"]  # re-exported: renderers show every file name through it


def plural(count: int, word: str) -> str:
    """`1 chunk`, `2 chunks`, `0 pages`: the count with its noun agreeing."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def answer_preface(answer: Answer) -> list[str]:
    """Lines shown before the answer text: why it is less than usual, and that it is quoted."""
    lines = []
    if answer.note:
        lines.append(f"({answer.note})")
    if answer.quoted and answer.grounded:
        lines.append(QUOTED_HEADING)
    return lines


def citation_line(number: int, citation: Citation) -> str:
    label = shown_name(citation.label())
    if len(label) > MAX_LABEL_CHARS:
        label = label[: MAX_LABEL_CHARS - 1] + "…"
    return f"[{number}] {label}"


def citation_lines(answer: Answer) -> list[str]:
    return [citation_line(n, c) for n, c in enumerate(answer.citations, start=1)]


# "Show page" buttons under an answer: the first few pictured pages it cites.
MAX_PAGE_BUTTONS = 3


def pictured_pages(answer: Answer) -> list[tuple[int, Citation]]:
    """(number shown, citation) of the cited pages whose picture the asker may see, each
    page once, at most MAX_PAGE_BUTTONS (the core marks them `pictured`)."""
    found: dict[tuple[str | None, int | None], tuple[int, Citation]] = {}
    for number, citation in enumerate(answer.citations, start=1):
        key = (citation.document_id, citation.page)
        if citation.pictured and citation.page is not None and key not in found:
            found[key] = (number, citation)
    return list(found.values())[:MAX_PAGE_BUTTONS]


def page_button_label(number: int, citation: Citation) -> str:
    return f"Show p. {citation.page} [{number}]"


def page_command_line(number: int, citation: Citation) -> str:
    """How the terminal offers a cited page's picture: the command that saves it."""
    return f"[{number}] /page {citation.document_id} {citation.page} saves a picture of the page"


def sources_heading(sources: SourceList) -> str:
    if not sources.entries:
        return f"The course '{sources.course_id}' has no documents yet."
    return f"Documents in '{sources.course_id}':"


def source_line(entry: SourceEntry) -> str:
    private = ", private" if entry.private else ""
    return f"{shown_name(entry.file_name)} ({entry.kind}, {plural(entry.chunks, 'chunk')}{private})"


SOLUTION_LABEL = "Worked solution (hidden until you open it):"
SOLUTION_COMMAND = "Worked solution: hidden; send /solution to see it."
MODELLED_ON = "Modelled on:"


def sheet_heading(sheet: ExerciseSheet) -> str:
    return f"New exercise: {sheet.title}"


def sheet_notes(sheet: ExerciseSheet) -> list[str]:
    """What the student should know about where the exercise comes from."""
    lines = [f"({sheet.note})"] if sheet.note else []
    if sheet.sources:
        labels = "; ".join(shown_name(c.label()) for c in sheet.sources)
        lines.append(f"{MODELLED_ON} {labels}")
    return lines


LETTERS = "ABCD"
QUIZ_HOW = "Answer with /pick N B: the question's number, then A, B, C or D."
QUIZ_POLLS_HOW = "Answer in each poll below; your score comes after the last one."


def quiz_heading(quiz: QuizReply) -> str:
    return f"Quiz: {quiz.topic} ({plural(len(quiz.questions), 'question')})"


def question_lines(question: QuizQuestion) -> list[str]:
    lines = [f"{question.number}. {question.question}"]
    lines.extend(f"   {LETTERS[i]}) {option}" for i, option in enumerate(question.options))
    if question.source is not None:
        lines.append(f"   ({shown_name(question.source.label())})")
    return lines


def card_lines(card: FlashcardTurn) -> list[str]:
    lines = [f"Card {card.number} of {card.count}", card.front]
    if card.back is not None:
        lines.append(f"→ {card.back}")
        if card.source is not None:
            lines.append(f"({shown_name(card.source.label())})")
    return lines


def flashcards_heading(cards: FlashcardsReply) -> str:
    return f"Flashcards: {cards.topic} ({plural(len(cards.cards), 'card')})"


def step_heading(step: StepPrompt) -> str:
    return f"{step.exercise_title} — step {step.step_number}/{step.step_count}"


def file_result_line(result: FileResult) -> str:
    name = shown_name(result.file_name)
    if result.status is FileStatus.FAILED:
        return f"✗ {name}: {result.error}"
    if result.status is FileStatus.UNCHANGED:
        return f"= {name}: unchanged"
    pages = f", {plural(result.pages, 'page')}" if result.pages else ""
    return f"✓ {name}: {result.status.value}, {plural(result.chunks, 'chunk')}{pages}"


def ingest_summary(report: IngestReport) -> str:
    failed = len(report.failed)
    total = len(report.results)
    summary = f"{total - failed} of {plural(total, 'file')} ingested"
    if failed:
        summary += f"; {failed} failed (the index is unchanged for them)"
    return summary


def ingest_report_lines(report: IngestReport) -> list[str]:
    return [*(file_result_line(r) for r in report.results), ingest_summary(report)]


def progress_text(progress: JobProgress) -> str:
    """One line for a progress message that is edited as the job advances."""
    if isinstance(progress, StepProgress):
        return _steps_text(progress)
    current = f": {shown_name(progress.current)}" if progress.current else ""
    stage = f" ({progress.stage})" if progress.stage else ""
    return (
        f"Ingesting file {min(progress.files_done + 1, progress.files_total)} of "
        f"{progress.files_total}{current}{stage} — {plural(progress.pages, 'page')}, "
        f"{plural(progress.chunks, 'chunk')} so far"
    )


def _steps_text(progress: StepProgress) -> str:
    made = f"your {progress.making} on '{shown_name(progress.topic)}'"
    if progress.finished:
        return f"Ready: {made}."
    return f"Making {made}: {progress.stage} (step {progress.step} of {progress.steps})…"
