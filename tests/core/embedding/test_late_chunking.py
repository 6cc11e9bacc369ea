"""Late chunking: a chunk's units (sentences, list items, blocks) get vectors pooled from the
chunk's own forward pass, and the chunk vector stays what it was."""

from __future__ import annotations

import numpy as np

from core.embedding.embedder import writes_units
from core.embedding.late_chunking import MAX_UNITS, pool_units, unit_spans
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.embedding.ollama_embedder import OllamaEmbedder


def units_of(text: str) -> list[str]:
    return [text[start:end] for start, end in unit_spans(text)]


def test_units_are_sentences_list_items_and_blocks_with_wrapped_lines_kept_together() -> None:
    text = (
        "Course · Syllabus · Grading\nThe final exam counts 40%. Homework is due\n"
        "every Friday!\n\n- Quizzes 10%\n- Labs 30%\n1. Attendance\n\nOffice hours"
    )
    assert units_of(text) == [
        "Course · Syllabus · Grading\nThe final exam counts 40%.",
        "Homework is due\nevery Friday!",
        "- Quizzes 10%",
        "- Labs 30%",
        "1.",  # a list number ends a "sentence": a unit that matches nothing
        "Attendance",
        "Office hours",
    ]
    assert units_of("  \n\n ") == []


def test_a_chunk_of_many_short_lines_has_at_most_max_units() -> None:
    text = " ".join(f"Item {n}." for n in range(MAX_UNITS + 10))
    spans = unit_spans(text)
    assert len(spans) == MAX_UNITS
    assert spans[-1][1] == len(text)  # the rest folded into the last unit


def test_spans_past_the_truncation_have_no_vector_and_a_text_without_units_gets_the_mean() -> None:
    hidden = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], dtype=np.float32)
    offsets = [(0, 0), (0, 3), (4, 7), (0, 0)]  # [CLS] two tokens [SEP]
    units = pool_units(hidden, offsets, [(0, 3), (4, 7), (8, 20)])
    assert np.allclose(units, [[1.0, 0.0], [0.0, 1.0]])
    [mean] = pool_units(hidden, offsets, [])
    assert np.allclose(mean, [np.sqrt(0.5), np.sqrt(0.5)])


def test_vectors_stop_at_the_first_span_without_tokens_so_they_pair_with_the_first_spans() -> None:
    """A reader pairs stored vectors with the text's first spans: a span the tokenizer drops
    whole (a run of characters it removes) must not shift the ones after it."""
    hidden = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], dtype=np.float32)
    offsets = [(0, 0), (0, 3), (8, 11), (0, 0)]  # nothing from 4-7
    units = pool_units(hidden, offsets, [(0, 3), (4, 7), (8, 11)])
    assert np.allclose(units, [[1.0, 0.0]])


async def test_the_bundled_model_gives_unit_vectors_from_the_same_pass(
    embedder: MiniLMOnnxEmbedder,
) -> None:
    texts = [
        "Grading\nThe final exam counts 40%. Homework counts 20%.\n\n- Quizzes 10%\n- Labs 30%",
        "One sentence only",
    ]
    vectors, units = await embedder.embed_with_units(texts)
    assert np.array_equal(vectors, await embedder.embed(texts))  # chunk vectors unchanged
    assert [u.shape for u in units] == [(4, 384), (1, 384)]
    assert np.allclose(np.linalg.norm(units[0], axis=1), 1.0, atol=1e-5)
    assert writes_units(embedder)
    assert not writes_units(OllamaEmbedder.__new__(OllamaEmbedder))


async def test_the_best_unit_is_closer_to_the_question_than_the_whole_chunk(
    embedder: MiniLMOnnxEmbedder,
) -> None:
    """The point of it: one sentence holding the fact is not averaged away by the others."""
    chunk = (
        "Academic honesty is expected in all work. Plagiarism is reported to the dean. "
        "Students with disabilities should contact the accessibility office. "
        "Office hours are on Tuesdays from 2 to 4 pm in room 210. "
        "The library offers workshops on citation styles every month."
    )
    [question] = await embedder.embed(["When are the office hours?"])
    [pooled], [units] = await embedder.embed_with_units([chunk])
    best = int(np.argmax(units @ question))
    assert units_of(chunk)[best].startswith("Office hours")
    assert float(units[best] @ question) > float(pooled @ question) + 0.1
