"""Qdrant Edge behind the part of `AsyncQdrantClient` that `ChunkIndex` calls.

Qdrant Edge is the Qdrant engine in-process: filters and scores run in Rust over payload
indexes, where qdrant-client's local mode does both in Python. Each collection is one Edge shard
in its own directory under the root. Edge has no collection metadata of its own to ask for, so
the parameters a collection was created with, and the JSON metadata a server keeps with a
collection (`update_collection(metadata=...)`, merged key by key), are kept next to its
segments.

qdrant-edge 0.9.0 holds the GIL inside every call, so a call in a worker thread still pauses
the event loop: big upserts go in slices with the loop free in between, and the segment
optimizer (seconds for 10,000 points) is never run from here."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import methodcaller
from pathlib import Path
from typing import Any, TypeVar

import qdrant_edge as edge
from qdrant_client import models
from qdrant_client.http.models import QueryResponse

from core.index import edge_models as tr

T = TypeVar("T")

PARAMS_FILE = "coursebot-collection.json"
METADATA_FILE = "coursebot-metadata.json"
# About 10 ms of Edge work per slice: the longest the event loop waits on an upsert.
UPSERT_SLICE = 256
# A collection name becomes a directory name: no separators, no "." or "..".
_COLLECTION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def _completed() -> models.UpdateResult:
    return models.UpdateResult(operation_id=None, status=models.UpdateStatus.COMPLETED)


@dataclass(frozen=True, slots=True)
class EdgeCollectionConfig:
    params: models.CollectionParams
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class EdgeCollectionInfo:
    """What `get_collection` can truthfully report: creation parameters, counts, indexes."""

    config: EdgeCollectionConfig
    points_count: int
    segments_count: int
    payload_schema: dict[str, models.PayloadIndexInfo]


class EdgeQdrantClient:
    """One Edge shard per collection under `root`; shards open on first use."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._shards: dict[str, edge.EdgeShard] = {}
        # An Edge shard can be opened once per process: opening is serialised.
        self._opening = asyncio.Lock()
        self._writing_metadata = asyncio.Lock()
        self._closed = False

    # --- collections -------------------------------------------------------------------------

    async def collection_exists(self, collection_name: str) -> bool:
        return (self._directory(collection_name) / PARAMS_FILE).is_file()

    async def create_collection(
        self,
        collection_name: str,
        vectors_config: models.VectorParams | Mapping[str, models.VectorParams] | None = None,
        sparse_vectors_config: Mapping[str, models.SparseVectorParams] | None = None,
    ) -> bool:
        config = tr.edge_config(vectors_config, sparse_vectors_config)
        params = models.CollectionParams(
            vectors=dict(vectors_config) if isinstance(vectors_config, Mapping) else vectors_config,
            sparse_vectors=dict(sparse_vectors_config) if sparse_vectors_config else None,
        )
        directory = self._directory(collection_name)
        async with self._opening:
            self._check_open()
            if (directory / PARAMS_FILE).is_file():
                raise ValueError(f"Collection {collection_name} already exists")
            shard = await asyncio.to_thread(edge.EdgeShard.create, str(directory), config)
            self._shards[collection_name] = shard
            # Written last: a collection exists once its shard does.
            staged = directory / f"{PARAMS_FILE}.tmp"
            staged.write_text(params.model_dump_json(exclude_none=True))
            staged.replace(directory / PARAMS_FILE)
        return True

    async def get_collection(self, collection_name: str) -> EdgeCollectionInfo:
        shard = await self._shard(collection_name)
        params_file = self._directory(collection_name) / PARAMS_FILE
        params = models.CollectionParams.model_validate_json(params_file.read_text())
        info = await asyncio.to_thread(shard.info)
        return EdgeCollectionInfo(
            config=EdgeCollectionConfig(params=params, metadata=self._metadata(collection_name)),
            points_count=info.points_count,
            segments_count=info.segments_count,
            payload_schema=tr.payload_indexes(info.payload_schema),
        )

    async def update_collection(
        self, collection_name: str, metadata: Mapping[str, Any] | None = None
    ) -> bool:
        """Only the metadata can change here; like a server, its keys are merged into the
        stored ones."""
        await self._shard(collection_name)
        if metadata is None:
            return False
        async with self._writing_metadata:
            merged = {**(self._metadata(collection_name) or {}), **metadata}
            directory = self._directory(collection_name)
            staged = directory / f"{METADATA_FILE}.tmp"
            staged.write_text(json.dumps(merged, ensure_ascii=False))
            staged.replace(directory / METADATA_FILE)
        return True

    def _metadata(self, collection_name: str) -> dict[str, Any] | None:
        path = self._directory(collection_name) / METADATA_FILE
        return json.loads(path.read_text()) if path.is_file() else None

    async def create_payload_index(
        self,
        collection_name: str,
        field_name: str,
        field_schema: models.PayloadSchemaType | None = None,
        wait: bool = True,
    ) -> models.UpdateResult:
        operation = edge.UpdateOperation.create_field_index(
            field_name, tr.payload_schema(field_schema)
        )
        await self._run(collection_name, lambda shard: shard.update(operation))
        return _completed()

    # --- reads -------------------------------------------------------------------------------

    async def count(
        self,
        collection_name: str,
        count_filter: models.Filter | None = None,
        exact: bool = True,
    ) -> models.CountResult:
        request = edge.CountRequest(exact=exact, filter=tr.optional_filter(count_filter))
        return models.CountResult(
            count=await self._run(collection_name, lambda shard: shard.count(request))
        )

    async def query_points(
        self,
        collection_name: str,
        query: Any = None,
        using: str | None = None,
        prefetch: models.Prefetch | Sequence[models.Prefetch] | None = None,
        query_filter: models.Filter | None = None,
        limit: int = 10,
        offset: int | None = None,
        with_payload: Any = True,
        with_vectors: Any = False,
        score_threshold: float | None = None,
    ) -> QueryResponse:
        stages = [prefetch] if isinstance(prefetch, models.Prefetch) else list(prefetch or ())
        request = edge.QueryRequest(
            limit=limit,
            offset=offset,
            query=tr.scoring_query(query, using),
            prefetches=[tr.prefetch(stage) for stage in stages] or None,
            filter=tr.optional_filter(query_filter),
            score_threshold=score_threshold,
            with_payload=tr.with_payload(with_payload),
            with_vector=tr.with_vectors(with_vectors),
        )
        points = await self._run(collection_name, lambda shard: shard.query(request))
        return QueryResponse(points=tr.scored_points(points))

    async def scroll(
        self,
        collection_name: str,
        scroll_filter: models.Filter | None = None,
        limit: int = 10,
        offset: models.ExtendedPointId | None = None,
        with_payload: Any = True,
        with_vectors: Any = False,
    ) -> tuple[list[models.Record], models.ExtendedPointId | None]:
        request = edge.ScrollRequest(
            offset=tr.point_id(offset) if offset is not None else None,
            limit=limit,
            filter=tr.optional_filter(scroll_filter),
            with_payload=tr.with_payload(with_payload),
            with_vector=tr.with_vectors(with_vectors),
        )
        points, next_offset = await self._run(collection_name, lambda shard: shard.scroll(request))
        return tr.records(points), tr.next_offset(next_offset)

    # --- writes ------------------------------------------------------------------------------
    # Edge applies an update before returning, so `wait` is always honoured.

    async def upsert(
        self,
        collection_name: str,
        points: Sequence[models.PointStruct],
        wait: bool = True,
    ) -> models.UpdateResult:
        if not isinstance(points, Sequence):
            raise tr.UntranslatableModelError("points", points)
        # Slices are applied one by one, unlike a server's single batch; ChunkIndex tolerates a
        # partial write since every chunk carries its document's generation.
        for start in range(0, len(points), UPSERT_SLICE):
            operation = edge.UpdateOperation.upsert_points(
                [tr.point(p) for p in points[start : start + UPSERT_SLICE]]
            )
            await self._run(collection_name, methodcaller("update", operation))
        return _completed()

    async def delete(
        self,
        collection_name: str,
        points_selector: models.PointIdsList | models.FilterSelector,
        wait: bool = True,
    ) -> models.UpdateResult:
        if isinstance(points_selector, models.PointIdsList) and points_selector.shard_key is None:
            ids = [tr.point_id(i) for i in points_selector.points]
            operation = edge.UpdateOperation.delete_points(ids)
        elif (
            isinstance(points_selector, models.FilterSelector) and points_selector.shard_key is None
        ):
            selector = tr.filter_(points_selector.filter)
            operation = edge.UpdateOperation.delete_points_by_filter(selector)
        else:
            raise tr.UntranslatableModelError("points_selector", points_selector)
        await self._run(collection_name, lambda shard: shard.update(operation))
        return _completed()

    # --- lifecycle ---------------------------------------------------------------------------

    async def close(self) -> None:
        """Flush and close every open shard; the client is unusable afterwards."""
        async with self._opening:
            self._closed = True
            shards, self._shards = list(self._shards.values()), {}
            for shard in shards:
                await asyncio.to_thread(_flush_and_close, shard)

    def _directory(self, collection_name: str) -> Path:
        if not _COLLECTION_NAME.fullmatch(collection_name):
            raise ValueError(f"unusable collection name for Qdrant Edge: {collection_name!r}")
        return self.root / collection_name

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the Qdrant Edge client is closed")

    async def _shard(self, collection_name: str) -> edge.EdgeShard:
        shard = self._shards.get(collection_name)
        if shard is not None:
            return shard
        directory = self._directory(collection_name)
        async with self._opening:
            self._check_open()
            if collection_name not in self._shards:
                if not (directory / PARAMS_FILE).is_file():
                    raise ValueError(f"Collection {collection_name} not found")
                loaded = await asyncio.to_thread(_load, directory)
                self._shards[collection_name] = loaded
            return self._shards[collection_name]

    async def _run(self, collection_name: str, call: Callable[[edge.EdgeShard], T]) -> T:
        shard = await self._shard(collection_name)
        return await asyncio.to_thread(call, shard)


class IndexInUseError(RuntimeError):
    """Another process has the shard open: Edge, like local mode, serves one process."""


def _load(directory: Path) -> edge.EdgeShard:
    try:
        return edge.EdgeShard.load(str(directory))
    except Exception as error:
        # Edge reports a held lock only through this text (no error type of its own).
        if "WouldBlock" in str(error):
            raise IndexInUseError(
                f"the index in {directory} is open in another coursebot process; stop that "
                "process first, or share a Qdrant server between them (COURSEBOT_QDRANT_URL)"
            ) from None
        raise


def _flush_and_close(shard: edge.EdgeShard) -> None:
    shard.flush()
    shard.close()
