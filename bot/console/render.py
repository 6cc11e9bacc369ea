"""Plain-text rendering of core replies for a terminal."""

from __future__ import annotations

from core.replies import (
    Answer,
    DocumentReply,
    ErrorReply,
    Notice,
    Quiz,
    Reply,
    SourceList,
    StepPrompt,
)
from ingestion.pipeline import FileStatus, IngestReport


def render(reply: Reply) -> str:
    match reply:
        case Answer():
            return _answer(reply)
        case Notice(text=text, title=title):
            return f"{title}\n{text}" if title else text
        case SourceList():
            return _sources(reply)
        case DocumentReply(file_name=name, content=content, caption=caption):
            return f"{caption}\n[file {name}, {len(content)} bytes]".strip()
        case Quiz():
            options = "\n".join(f"  {chr(65 + i)}) {o}" for i, o in enumerate(reply.options))
            return f"{reply.question}\n{options}"
        case StepPrompt():
            head = f"{reply.exercise_title} — step {reply.step_number}/{reply.step_count}"
            feedback = f"{reply.feedback}\n" if reply.feedback else ""
            return f"{feedback}{head}\n{reply.prompt}"
        case ErrorReply(text=text):
            return f"! {text}"
    raise TypeError(f"no console rendering for {type(reply).__name__}")


def _answer(answer: Answer) -> str:
    lines = [answer.text]
    if answer.quoted and answer.grounded:
        lines.insert(0, "From the course material (quoted):")
    if answer.note:
        lines.insert(0, f"({answer.note})")
    if answer.citations:
        lines.append("")
        lines.append("Sources:")
        lines.extend(f"  [{n}] {c.label()}" for n, c in enumerate(answer.citations, start=1))
    return "\n".join(lines)


def _sources(sources: SourceList) -> str:
    if not sources.entries:
        return f"The course '{sources.course_id}' has no documents yet."
    lines = [f"Documents in '{sources.course_id}':"]
    for entry in sources.entries:
        private = ", private" if entry.private else ""
        lines.append(f"  {entry.file_name} ({entry.kind}, {entry.chunks} chunks{private})")
    return "\n".join(lines)


def render_ingest_report(report: IngestReport) -> str:
    lines = []
    for result in report.results:
        if result.status is FileStatus.FAILED:
            lines.append(f"  ✗ {result.file_name}: {result.error}")
        elif result.status is FileStatus.UNCHANGED:
            lines.append(f"  = {result.file_name}: unchanged")
        else:
            pages = f", {result.pages} pages" if result.pages else ""
            lines.append(
                f"  ✓ {result.file_name}: {result.status.value}, {result.chunks} chunks{pages}"
            )
    failed = len(report.failed)
    summary = f"{len(report.results) - failed} of {len(report.results)} files ingested"
    if failed:
        summary += f"; {failed} failed (the index is unchanged for them)"
    return "\n".join([*lines, summary])
