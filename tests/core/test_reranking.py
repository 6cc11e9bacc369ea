"""The rerankers: a cross-encoder loaded from a local folder (a tiny random BERT built here,
no hub), and the embedding fallback that rescores stored vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkRecord, SearchHit
from core.reranking import (
    CrossEncoderReranker,
    EmbeddingReranker,
    RerankerUnavailableError,
    best_k,
)

QUESTION = "when is the final exam"
TEXTS = [
    "the final exam is in week fifteen",
    "office hours are on tuesday",
    "late homework loses points",
    "the lab uses python notebooks",
    "attendance is taken in every lecture",
    "the midterm exam counts for twenty percent",
]
WORDS = sorted({w for text in [QUESTION, *TEXTS] for w in text.split()})


def _hit(n: int, text: str, score: float = 0.0) -> SearchHit:
    record = ChunkRecord(f"id-{n}", "c", "d", "f.pdf", text, None, "", "notes", "public", None, n)
    return SearchHit(record, score)


def _tiny_cross_encoder(folder: Path) -> None:
    """A randomly initialised one-layer BERT with one output label and a WordPiece tokenizer
    over the test's own words, saved the way a real cross-encoder folder is."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    # `vocab=`: transformers 5 ignores `vocab_file=` here and maps every word to [UNK].
    tokenizer = transformers.BertTokenizerFast(vocab=str(vocab))
    config = transformers.BertConfig(
        vocab_size=5 + len(WORDS),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=64,
        num_labels=1,
        initializer_range=0.5,  # spread the random scores apart
    )
    torch.manual_seed(7)
    model = transformers.BertForSequenceClassification(config).eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)


def _logits(folder: Path, question: str, texts: list[str]) -> list[float]:
    """The model's raw scores computed with transformers directly, as a reference."""
    import torch
    import transformers

    tokenizer = transformers.BertTokenizerFast.from_pretrained(folder)
    model = transformers.BertForSequenceClassification.from_pretrained(folder).eval()
    batch = tokenizer([question] * len(texts), texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        return model(**batch).logits[:, 0].tolist()


@pytest.fixture(scope="module")
def cross_encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("sentence_transformers")
    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    _tiny_cross_encoder(folder)
    return folder


async def test_cross_encoder_reorders_by_the_models_scores_and_keeps_k(
    cross_encoder_dir: Path,
) -> None:
    reference = _logits(cross_encoder_dir, QUESTION, TEXTS)
    worst_first = sorted(range(len(TEXTS)), key=lambda i: reference[i])
    hits = [_hit(i, TEXTS[i], score=1.0) for i in worst_first]
    reranker = CrossEncoderReranker(cross_encoder_dir)

    first = await reranker.rerank(QUESTION, hits, k=4)
    again = await reranker.rerank(QUESTION, hits, k=4)

    expected = sorted(range(len(TEXTS)), key=lambda i: -reference[i])[:4]
    assert [hit.chunk.chunk_index for hit in first] == expected
    assert first == again
    assert [hit.score for hit in first] == sorted((hit.score for hit in first), reverse=True)
    assert all(hit.score != 1.0 for hit in first)  # the reranker's scores, not the fused ones


async def test_cross_encoder_returns_all_hits_when_k_exceeds_them(cross_encoder_dir: Path) -> None:
    reranker = CrossEncoderReranker(cross_encoder_dir)
    hits = [_hit(i, text) for i, text in enumerate(TEXTS[:3])]

    assert len(await reranker.rerank(QUESTION, hits, k=10)) == 3
    assert await reranker.rerank(QUESTION, [], k=5) == []


def test_cross_encoder_needs_an_existing_folder(tmp_path: Path) -> None:
    with pytest.raises(RerankerUnavailableError, match="no reranker model folder"):
        CrossEncoderReranker(tmp_path / "missing")


async def test_embedding_reranker_uses_stored_vectors_instead_of_embedding_candidates(
    embedder: MiniLMOnnxEmbedder,
) -> None:
    vectors = await embedder.embed(TEXTS)
    stored = [
        SearchHit(_hit(i, text).chunk, 0.0, tuple(vectors[i].tolist()))
        for i, text in enumerate(TEXTS)
    ]
    bare = [_hit(i, text) for i, text in enumerate(TEXTS)]
    reranker = EmbeddingReranker(embedder)

    from_stored = await reranker.rerank(QUESTION, stored, k=3)
    from_text = await reranker.rerank(QUESTION, bare, k=3)

    assert [h.chunk.chunk_index for h in from_stored] == [h.chunk.chunk_index for h in from_text]
    assert from_stored[0].chunk.text == "the final exam is in week fifteen"
    query = (await embedder.embed([QUESTION]))[0]
    assert from_stored[0].score == pytest.approx(float(vectors[0] @ query), abs=1e-5)


def test_best_k_breaks_ties_by_incoming_order() -> None:
    hits = [_hit(i, str(i)) for i in range(4)]

    kept = best_k(hits, np.array([0.5, 0.9, 0.5, 0.1]).tolist(), 3)

    assert [h.chunk.chunk_index for h in kept] == [1, 0, 2]
    assert [h.score for h in kept] == [0.9, 0.5, 0.5]
