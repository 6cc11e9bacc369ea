"""Generated material: the structured-output layer every generator goes through
(`core.generation.structured`), Ollama behind it (`core.generation.ollama_model`, imported
only where a model is configured: llama-index is slow to import), and the store that caches
what was generated (`core.generation.store`); `Writing`, how every writer asks its model."""

from core.generation.store import (
    GeneratedMaterial,
    MaterialKey,
    MaterialKind,
    MaterialStore,
    NewMaterial,
    normalise_topic,
    parameters_hash,
)
from core.generation.structured import (
    GenerationError,
    GenerationFailedError,
    GenerationStats,
    GenerationTimeoutError,
    Message,
    Outcome,
    StructuredModel,
    StructuredResult,
    check_reply,
    generate,
)
from core.generation.writing import Writing

__all__ = [
    "GeneratedMaterial",
    "GenerationError",
    "GenerationFailedError",
    "GenerationStats",
    "GenerationTimeoutError",
    "MaterialKey",
    "MaterialKind",
    "MaterialStore",
    "Message",
    "NewMaterial",
    "Outcome",
    "StructuredModel",
    "StructuredResult",
    "Writing",
    "check_reply",
    "generate",
    "normalise_topic",
    "parameters_hash",
]
