"""`section_label_accuracy` on a dataset: each labelled gold span's document is loaded and
chunked as ingestion does (the real loader and chunker; no index, no embedding), and the label
of the chunk holding the span is judged by `core.evaluation.section_labels`.

The cases live in a JSON Lines fixture (tests/fixtures/section_labels/), one object a line:
question_id, span_index, file, page, heading, parent (or null). The span's text comes from
the dataset's questions.jsonl, never from the fixture."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from bot.evaluation.runner import DatasetError, EvalDataset, load_dataset
from core.embedding.minilm_onnx import MAX_TOKENS
from core.embedding.token_counter import TokenCounter
from core.evaluation.section_labels import (
    SectionLabelCase,
    SectionLabelResult,
    block_label_accuracy,
    judge,
    section_label_accuracy,
)
from ingestion.chunking import Chunk, chunk_document, section_label
from ingestion.documents import Block
from ingestion.loaders import loader_for

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "section_labels"
SYLLABUSQA_CASES = FIXTURE / "syllabusqa_dev.jsonl"


@dataclass(frozen=True, slots=True)
class SectionLabelRun:
    """Every case's result with its span's text; the share whose chunk's label names the
    heading, and the share whose block's section does (None without cases)."""

    results: tuple[SectionLabelResult, ...]
    spans: tuple[str, ...]

    @property
    def accuracy(self) -> float | None:
        return section_label_accuracy(self.results)

    @property
    def block_accuracy(self) -> float | None:
        return block_label_accuracy(self.results)


def load_cases(path: Path) -> list[SectionLabelCase]:
    cases: list[SectionLabelCase] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                cases.append(
                    SectionLabelCase(
                        question_id=str(raw["question_id"]),
                        span_index=int(raw["span_index"]),
                        file=str(raw["file"]),
                        page=int(raw["page"]),
                        heading=str(raw["heading"]),
                        parent=str(raw["parent"]) if raw.get("parent") else None,
                    )
                )
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
                raise DatasetError(f"{path}:{number}: not a section label case ({error})") from None
    return cases


def measure_section_labels(
    dataset_root: Path,
    cases: Iterable[SectionLabelCase],
    count_tokens: Callable[[str], int] | None = None,
    max_tokens: int = MAX_TOKENS,
) -> SectionLabelRun:
    """Load and chunk each case's document once (the bundled embedder's token counter and
    input size unless given) and judge every case; DatasetError when a case names a question,
    span or file the dataset lacks."""
    dataset = load_dataset(dataset_root)
    count = count_tokens or TokenCounter()
    resolved = [_resolve(dataset, case) for case in cases]
    documents: dict[Path, _Loaded] = {}
    results: list[SectionLabelResult] = []
    for case, course, path, span in resolved:
        if path not in documents:
            documents[path] = _load(path, course, count, max_tokens)
        loaded = documents[path]
        results.append(
            judge(
                case, span, loaded.chunks, loaded.chunk_labels, loaded.blocks, loaded.block_labels
            )
        )
    return SectionLabelRun(tuple(results), tuple(span for *_, span in resolved))


def _resolve(
    dataset: EvalDataset, case: SectionLabelCase
) -> tuple[SectionLabelCase, str, Path, str]:
    question = next((q for q in dataset.questions if q.id == case.question_id), None)
    if question is None:
        raise DatasetError(f"no question {case.question_id} in {dataset.root}")
    if not 0 <= case.span_index < len(question.gold_spans):
        raise DatasetError(f"question {case.question_id} has no gold span {case.span_index}")
    folder = dataset.courses.get(question.course)
    if folder is None or not (folder / case.file).is_file():
        raise DatasetError(f"no file {case.file} in course {question.course}")
    return case, question.course, folder / case.file, question.gold_spans[case.span_index]


@dataclass(frozen=True, slots=True)
class _Loaded:
    chunks: tuple[Chunk, ...]
    chunk_labels: tuple[str, ...]
    blocks: tuple[Block, ...]
    block_labels: tuple[str, ...]


def _load(path: Path, course: str, count: Callable[[str], int], max_tokens: int) -> _Loaded:
    document = loader_for(path.name)(path, path.name, False)
    chunks = chunk_document(document, course, count, max_tokens)
    return _Loaded(
        chunks=tuple(chunks),
        chunk_labels=tuple(chunk.section for chunk in chunks),
        blocks=tuple(document.blocks),
        block_labels=tuple(
            section_label(block.section, document.title) for block in document.blocks
        ),
    )
