"""Everything a figure depends on, recorded with every evaluation run so two JSON reports can
be compared (or a figure reproduced) without guessing how each was made."""

from __future__ import annotations

import platform
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

from config import ModelRole, Settings
from core.retrieval import RetrievalConfig, Retriever

# The distributions whose versions move the figures: the project, the index engines, the
# embedding runtime and the LLM client.
DISTRIBUTIONS = (
    "coursebot",
    "qdrant-edge-py",
    "qdrant-client",
    "onnxruntime",
    "llama-index-core",
    "llama-index-llms-ollama",
)


@dataclass(frozen=True, slots=True)
class RunConfig:
    """`answer_model` None means the extractive answerer (no LLM); `budget` None means the
    answerer reads the top k whole; a version None means the distribution is not installed."""

    variant: str
    retrieval: RetrievalConfig
    k: int
    budget: int | None
    answers: bool
    limit: int | None
    questions: int
    answer_model: str | None
    models: dict[str, str]
    embedder: str
    embedder_identity: str
    # Whether the index searched unit vectors (late chunking) or chunk vectors alone.
    unit_vectors: bool
    reranker_model: str | None
    versions: dict[str, str | None]
    python: str


def package_versions(names: tuple[str, ...] = DISTRIBUTIONS) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for name in names:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def run_config(
    settings: Settings,
    retriever: Retriever,
    *,
    variant: str,
    k: int,
    budget: int | None,
    answers: bool,
    limit: int | None,
    questions: int,
) -> RunConfig:
    models = dict(settings.ollama_models) if settings.ollama_host is not None else {}
    embedder = retriever.embedder
    return RunConfig(
        variant=variant,
        retrieval=retriever.config,
        k=k,
        budget=budget,
        answers=answers,
        limit=limit,
        questions=questions,
        answer_model=models.get(ModelRole.ANSWER),
        models={str(role): model for role, model in models.items()},
        embedder=embedder.name,
        embedder_identity=embedder.identity,
        unit_vectors=retriever.index.units,
        reranker_model=str(settings.reranker_model_path) if settings.reranker_model_path else None,
        versions=package_versions(),
        python=platform.python_version(),
    )
