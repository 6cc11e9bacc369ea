from __future__ import annotations

import numpy as np
import ollama
from support.fake_ollama import running_fake_ollama

from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.embedding.ollama_embedder import OllamaEmbedder


async def test_bundled_model_ranks_a_paraphrase_above_an_unrelated_sentence(
    embedder: MiniLMOnnxEmbedder,
) -> None:
    question, answer, unrelated = await embedder.embed(
        ["When is the final exam?", "The final exam takes place on 14 December.", "Cats purr."]
    )
    assert np.allclose([np.linalg.norm(question)], [1.0], atol=1e-5)
    assert question @ answer > 0.6 > 0.2 > question @ unrelated


def test_token_count_is_the_models_word_pieces(embedder: MiniLMOnnxEmbedder) -> None:
    assert embedder.count_tokens("hello world") == 4  # [CLS] hello world [SEP]


async def test_ollama_embedder_learns_the_size_and_normalises() -> None:
    with running_fake_ollama() as fake:
        embedder = await OllamaEmbedder.connect(
            ollama.AsyncClient(host=fake.url), "nomic-embed-text"
        )
        vectors = await embedder.embed(["a", "b", "a"])
    assert embedder.dimensions == fake.embed_dimensions
    assert vectors.shape == (3, fake.embed_dimensions)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vectors[0], vectors[2])
    assert fake.requests_to("/api/embed")[-1]["model"] == "nomic-embed-text"
