"""Translation between qdrant-client's models and Qdrant Edge's, for `EdgeQdrantClient`.

Only what coursebot sends is translated. Anything else, including a field this module does not
read on a model it does, raises `UntranslatableModelError` instead of being dropped: a filter
condition lost on the way would widen a tenant-scoped search to other students' notes."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any, cast

import numpy as np
import qdrant_edge as edge
from pydantic import BaseModel
from qdrant_client import models

# The k of qdrant-client's local mode and of the server for a plain FusionQuery(RRF).
RRF_K = 2
# qdrant-client's default when a Prefetch gives no limit.
PREFETCH_LIMIT = 10

_DISTANCES = {
    models.Distance.COSINE: edge.Distance.Cosine,
    models.Distance.EUCLID: edge.Distance.Euclid,
    models.Distance.DOT: edge.Distance.Dot,
    models.Distance.MANHATTAN: edge.Distance.Manhattan,
}
_SCHEMAS = {
    models.PayloadSchemaType.KEYWORD: edge.PayloadSchemaType.Keyword,
    models.PayloadSchemaType.INTEGER: edge.PayloadSchemaType.Integer,
    models.PayloadSchemaType.FLOAT: edge.PayloadSchemaType.Float,
    models.PayloadSchemaType.GEO: edge.PayloadSchemaType.Geo,
    models.PayloadSchemaType.TEXT: edge.PayloadSchemaType.Text,
    models.PayloadSchemaType.BOOL: edge.PayloadSchemaType.Bool,
    models.PayloadSchemaType.DATETIME: edge.PayloadSchemaType.Datetime,
    models.PayloadSchemaType.UUID: edge.PayloadSchemaType.Uuid,
}


class UntranslatableModelError(TypeError):
    """A qdrant-client model, or a field of one, that the Qdrant Edge client cannot translate."""

    def __init__(self, what: str, value: object) -> None:
        shown = repr(value) if len(repr(value)) <= 120 else type(value).__name__
        super().__init__(f"the Qdrant Edge client does not translate {what}: {shown}")


def _only(model: BaseModel, translated: set[str]) -> None:
    """Refuse a model that sets a field the caller would otherwise ignore."""
    for name in type(model).model_fields:
        if name not in translated and getattr(model, name) is not None:
            raise UntranslatableModelError(f"{type(model).__name__}.{name}", getattr(model, name))


def _listed(value: Any) -> list[Any] | None:
    """qdrant-client accepts one condition or a list where a list is meant."""
    if value is None:
        return None
    return list(value) if isinstance(value, list) else [value]


# --- collection ------------------------------------------------------------------------------


def edge_config(
    vectors: models.VectorParams | Mapping[str, models.VectorParams] | None,
    sparse_vectors: Mapping[str, models.SparseVectorParams] | None,
) -> edge.EdgeConfig:
    if isinstance(vectors, models.VectorParams):
        dense: edge.EdgeVectorParams | dict[str, edge.EdgeVectorParams] | None = _vector_params(
            vectors
        )
    elif isinstance(vectors, Mapping):
        dense = {name: _vector_params(params) for name, params in vectors.items()}
    elif vectors is None:
        dense = None
    else:
        raise UntranslatableModelError("vectors_config", vectors)
    sparse = {name: _sparse_params(params) for name, params in (sparse_vectors or {}).items()}
    return edge.EdgeConfig(vectors=dense, sparse_vectors=sparse or None)


def _vector_params(params: models.VectorParams) -> edge.EdgeVectorParams:
    _only(params, {"size", "distance", "multivector_config"})
    multivector = None
    if params.multivector_config is not None:
        if params.multivector_config.comparator != models.MultiVectorComparator.MAX_SIM:
            raise UntranslatableModelError("multivector comparator", params.multivector_config)
        multivector = edge.MultiVectorConfig(comparator=edge.MultiVectorComparator.MaxSim)
    return edge.EdgeVectorParams(
        size=params.size, distance=_DISTANCES[params.distance], multivector_config=multivector
    )


def _sparse_params(params: models.SparseVectorParams) -> edge.EdgeSparseVectorParams:
    _only(params, {"modifier"})
    idf = params.modifier == models.Modifier.IDF
    return edge.EdgeSparseVectorParams(modifier=edge.Modifier.Idf if idf else None)


def payload_schema(schema: object) -> edge.PayloadSchemaType:
    if isinstance(schema, models.PayloadSchemaType):
        return _SCHEMAS[schema]
    raise UntranslatableModelError("payload index schema", schema)


def payload_indexes(
    indexes: Mapping[str, edge.PayloadIndexInfo],
) -> dict[str, models.PayloadIndexInfo]:
    types = {edge_type: schema for schema, edge_type in _SCHEMAS.items()}
    return {
        name: models.PayloadIndexInfo(data_type=types[info.data_type], points=info.points)
        for name, info in indexes.items()
    }


# --- filters ---------------------------------------------------------------------------------


def optional_filter(query_filter: models.Filter | None) -> edge.Filter | None:
    return None if query_filter is None else filter_(query_filter)


def filter_(query_filter: models.Filter) -> edge.Filter:
    if not isinstance(query_filter, models.Filter):
        raise UntranslatableModelError("filter", query_filter)
    min_should = query_filter.min_should
    return edge.Filter(
        must=_conditions(query_filter.must),
        should=_conditions(query_filter.should),
        must_not=_conditions(query_filter.must_not),
        min_should=(
            edge.MinShould(
                [_condition(c) for c in min_should.conditions], min_count=min_should.min_count
            )
            if min_should is not None
            else None
        ),
    )


def _conditions(conditions: Any) -> list[edge.ConditionType] | None:
    listed = _listed(conditions)
    return None if listed is None else [_condition(c) for c in listed]


def _condition(condition: object) -> edge.ConditionType:
    if isinstance(condition, models.FieldCondition):
        return _field_condition(condition)
    if isinstance(condition, models.Filter):
        return filter_(condition)
    if isinstance(condition, models.HasIdCondition):
        return edge.HasIdCondition({point_id(i) for i in condition.has_id})
    if isinstance(condition, models.IsEmptyCondition):
        return edge.IsEmptyCondition(condition.is_empty.key)
    if isinstance(condition, models.IsNullCondition):
        return edge.IsNullCondition(condition.is_null.key)
    raise UntranslatableModelError("filter condition", condition)


def _field_condition(condition: models.FieldCondition) -> edge.FieldCondition:
    _only(condition, {"key", "match", "range", "is_empty", "is_null"})
    return edge.FieldCondition(
        key=condition.key,
        match=_match(condition.match),
        range=_range(condition.range),
        is_empty=condition.is_empty,
        is_null=condition.is_null,
    )


def _match(match: object) -> edge.MatchType | None:
    if match is None:
        return None
    if isinstance(match, models.MatchValue):
        return edge.MatchValue(match.value)
    if isinstance(match, models.MatchAny):
        return edge.MatchAny(match.any)
    if isinstance(match, models.MatchExcept):
        return edge.MatchExcept(match.except_)
    raise UntranslatableModelError("match", match)


def _range(bounds: object) -> edge.RangeFloat | None:
    if bounds is None:
        return None
    if isinstance(bounds, models.Range):  # a DatetimeRange is not one
        return edge.RangeFloat(gte=bounds.gte, gt=bounds.gt, lte=bounds.lte, lt=bounds.lt)
    raise UntranslatableModelError("range", bounds)


# --- queries ---------------------------------------------------------------------------------


def scoring_query(query: object, using: str | None) -> edge.ScoringQueryType | None:
    """A query_points/Prefetch `query` (with its `using`) as an Edge scoring query."""
    if query is None:
        return None
    if isinstance(query, models.FusionQuery):
        # Edge's stubs type Fusion's variants as classes of their own; they are Fusions.
        if query.fusion == models.Fusion.RRF:
            return cast(edge.Fusion, edge.Fusion.Rrf(k=RRF_K))
        if query.fusion == models.Fusion.DBSF:
            return cast(edge.Fusion, edge.Fusion.Dbsf())
        raise UntranslatableModelError("fusion", query.fusion)
    if isinstance(query, models.NearestQuery):
        _only(query, {"nearest"})
        query = query.nearest
    return edge.Query.Nearest(_vector(query, "query"), using=using)


def prefetch(stage: models.Prefetch) -> edge.Prefetch:
    _only(stage, {"prefetch", "query", "using", "filter", "score_threshold", "limit"})
    inner = _listed(stage.prefetch)
    return edge.Prefetch(
        limit=stage.limit if stage.limit is not None else PREFETCH_LIMIT,
        query=scoring_query(stage.query, stage.using),
        prefetches=[prefetch(p) for p in inner] if inner else None,
        filter=optional_filter(stage.filter),
        score_threshold=stage.score_threshold,
    )


def with_payload(selector: object) -> edge.WithPayloadType:
    if isinstance(selector, bool):
        return selector
    if isinstance(selector, models.PayloadSelectorInclude):
        return edge.PayloadSelector.Include(list(selector.include))
    if isinstance(selector, models.PayloadSelectorExclude):
        return edge.PayloadSelector.Exclude(list(selector.exclude))
    if isinstance(selector, list) and all(isinstance(key, str) for key in selector):
        return list(selector)
    raise UntranslatableModelError("with_payload", selector)


def with_vectors(selector: object) -> edge.WithVectorType:
    if isinstance(selector, bool):
        return selector
    if isinstance(selector, list) and all(isinstance(name, str) for name in selector):
        return list(selector)
    raise UntranslatableModelError("with_vectors", selector)


# --- points ----------------------------------------------------------------------------------


def point_id(value: object) -> int | str | uuid.UUID:
    # bool is an int to Python, not a point id to Qdrant.
    if isinstance(value, int | str | uuid.UUID) and not isinstance(value, bool):
        return value
    raise UntranslatableModelError("point id", value)


def point(source: models.PointStruct) -> edge.Point:
    _only(source, {"id", "vector", "payload"})
    vector = source.vector
    if isinstance(vector, dict):
        named: edge.Vector = {name: _vector(v, f"vector '{name}'") for name, v in vector.items()}
    else:
        named = _vector(vector, "vector")  # type: ignore[assignment]
    return edge.Point(id=point_id(source.id), vector=named, payload=source.payload)


def _vector(value: object, what: str) -> list[float] | list[list[float]] | edge.SparseVector:
    """A dense vector or multivector (lists or numpy arrays of numbers) or a SparseVector;
    nothing else."""
    if isinstance(value, models.SparseVector):
        return edge.SparseVector(indices=list(value.indices), values=list(value.values))
    # A str or int here would be a point id to search by, which is not translated.
    if isinstance(value, list | np.ndarray):
        # One numpy pass: a per-element check costs ~1 ms on a 384-d query.
        dense = np.asarray(value)
        if dense.ndim in (1, 2) and dense.size and dense.dtype.kind in "fiu":
            return dense.astype(np.float32).tolist()
    raise UntranslatableModelError(what, value)


# --- results ---------------------------------------------------------------------------------


def _point_id_out(value: Any) -> int | str:
    # Edge hands UUID ids back as uuid.UUID; qdrant-client uses their string form.
    return str(value) if isinstance(value, uuid.UUID) else value


def _vectors_out(vector: Any) -> Any:
    if isinstance(vector, dict):
        return {name: _vector_out(v) for name, v in vector.items()}
    return vector


def _vector_out(value: Any) -> Any:
    if isinstance(value, edge.SparseVector):
        return models.SparseVector(indices=list(value.indices), values=list(value.values))
    return value


# Results are built with model_construct: Edge's typed values need no validation, which would
# cost ~1.5 ms per search of 40 hits with their vectors.


def scored_points(points: Iterable[edge.ScoredPoint]) -> list[models.ScoredPoint]:
    return [
        models.ScoredPoint.model_construct(
            id=_point_id_out(p.id),
            version=p.version,
            score=p.score,
            payload=p.payload,
            vector=_vectors_out(p.vector),
            order_value=p.order_value,
        )
        for p in points
    ]


def records(points: Iterable[edge.Record]) -> list[models.Record]:
    return [
        models.Record.model_construct(
            id=_point_id_out(p.id),
            payload=p.payload,
            vector=_vectors_out(p.vector),
            order_value=p.order_value,
        )
        for p in points
    ]


def next_offset(offset: Any) -> int | str | None:
    return None if offset is None else _point_id_out(offset)
