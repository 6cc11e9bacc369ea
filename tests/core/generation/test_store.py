"""The store of generated material, on SQLite and PostgreSQL: a set is found again by its
key (normalised topic, visibility, parameters in any order), replaced by `--new`, listed per
owner and filtered by visibility; a background job saves one set, found by its id."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from core.generation import (
    MaterialKey,
    MaterialKind,
    MaterialStore,
    NewMaterial,
    normalise_topic,
    parameters_hash,
)
from core.visibility import Visibility

CONTENT = {"exercises": [{"question": r"Compute \frac{d}{dx} x^2 — «dérivée»", "answer": "2x"}]}
CHUNKS = [{"chunk_id": "c-17", "citation": "week3.pdf p. 4"}, "c-18"]


KEY: dict[str, Any] = {
    "course_id": "calc1",
    "owner_id": "telegram:42",
    "kind": MaterialKind.EXERCISE,
    "topic": "Chain rule",
    "visibility": Visibility.PUBLIC,
    "parameters": {"count": 3, "difficulty": "easy"},
}


def _key(**overrides: Any) -> MaterialKey:
    return MaterialKey(**(KEY | {k: v for k, v in overrides.items() if k in KEY}))


def _set(**overrides: Any) -> NewMaterial:
    values: dict[str, Any] = {
        "content": CONTENT,
        "source_chunks": CHUNKS,
        "model": "llama3.1:8b",
        "grounded": True,
    }
    rest = {k: v for k, v in overrides.items() if k not in KEY}
    return NewMaterial(_key(**overrides), **(values | rest))


def test_topics_are_normalised() -> None:
    assert normalise_topic("  Dérivées   PARTIELLES\t") == "derivees partielles"
    assert normalise_topic("Straße") == normalise_topic("STRASSE") == "strasse"
    assert normalise_topic("İntegral") == "integral"


def test_parameters_hash_ignores_key_order_only() -> None:
    assert parameters_hash({"a": 1, "b": [1, 2]}) == parameters_hash({"b": [1, 2], "a": 1})
    assert parameters_hash({"a": 1}) != parameters_hash({"a": 2})
    with pytest.raises(ValueError, match="JSON"):
        parameters_hash({"when": datetime.now(UTC)})


async def test_a_saved_set_is_found_again_by_its_key(store: MaterialStore) -> None:
    material_id = await store.save(_set(seed=7))

    found = await store.latest(
        _key(topic="  CHAIN   rule ", parameters={"difficulty": "easy", "count": 3})
    )

    assert found is not None and found.id == material_id
    assert found == await store.get(material_id)
    assert found.kind is MaterialKind.EXERCISE
    assert found.topic == "chain rule"
    assert found.visibility is Visibility.PUBLIC
    assert found.parameters == {"count": 3, "difficulty": "easy"}
    assert found.seed == 7
    assert found.content == CONTENT
    assert found.source_chunks == CHUNKS
    assert (found.model, found.grounded) == ("llama3.1:8b", True)
    assert found.created_at.tzinfo is not None


@pytest.mark.parametrize(
    "other",
    [
        {"course_id": "calc2"},
        {"owner_id": "telegram:43"},
        {"kind": "quiz"},
        {"topic": "Product rule"},
        {"parameters": {"count": 5, "difficulty": "easy"}},
        {"visibility": Visibility.PRIVATE},
    ],
)
async def test_every_part_of_the_key_tells_sets_apart(
    store: MaterialStore, other: dict[str, Any]
) -> None:
    first = await store.save(_set())
    second = await store.save(_set(**other))

    assert first != second
    found = await store.latest(_key(**other))
    assert found is not None and found.id == second


async def test_saving_a_set_that_exists_keeps_the_first(store: MaterialStore) -> None:
    first = await store.save(_set(content={"v": 1}))

    again = await store.save(_set(content={"v": 2}, topic="chain RULE"))

    assert again == first
    stored = await store.get(first)
    assert stored is not None and stored.content == {"v": 1}


async def test_replace_stores_a_new_set_in_place_of_the_old(store: MaterialStore) -> None:
    old = await store.save(_set(content={"v": 1}))

    new = await store.replace(_set(content={"v": 2}, seed=99, grounded=False))

    assert new != old
    assert await store.get(old) is None
    found = await store.latest(_key(topic="chain rule"))
    assert found is not None
    assert (found.id, found.content, found.seed, found.grounded) == (new, {"v": 2}, 99, False)


async def test_replace_without_a_set_just_stores(store: MaterialStore) -> None:
    material_id = await store.replace(_set())

    assert (await store.get(material_id)) is not None


async def test_replaces_racing_leave_one_set(store: MaterialStore) -> None:
    ids = await asyncio.gather(*(store.replace(_set(content={"v": i})) for i in range(5)))

    sets = await store.list("calc1", "telegram:42")
    assert len(sets) == 1 and sets[0].id in ids


async def test_a_job_saves_one_set_however_often_it_saves(store: MaterialStore) -> None:
    assert await store.saved_by("job-1") is None
    first = await store.save(_set(job="job-1"))

    # The job run again, under another key (a --new edit, a new request id): its set.
    again = await store.save(_set(job="job-1", topic="Product rule", content={"v": 2}))
    replaced = await store.replace(_set(job="job-1", content={"v": 3}))

    assert again == replaced == first
    saved = await store.saved_by("job-1")
    assert saved is not None and saved.id == first and saved.content == CONTENT
    assert [m.id for m in await store.list("calc1", "telegram:42")] == [first]
    # Sets saved outside jobs never meet: they carry no job.
    other = await store.save(_set(topic="Limits"))
    assert other != first and await store.save(_set(topic="Series")) != other


async def test_list_is_one_owners_sets_in_a_course_newest_first(store: MaterialStore) -> None:
    first = await store.save(_set(topic="limits"))
    second = await store.save(_set(topic="series", kind="flashcards"))
    await store.save(_set(topic="limits", owner_id="telegram:43"))
    await store.save(_set(topic="limits", course_id="calc2"))

    assert [m.id for m in await store.list("calc1", "telegram:42")] == [second, first]
    assert [m.id for m in await store.list("calc1", "telegram:42", kind="flashcards")] == [second]
    assert await store.list("calc1", "nobody") == []


async def test_list_filters_by_visibility_in_the_query(store: MaterialStore) -> None:
    public = await store.save(_set(topic="limits"))
    private = await store.save(_set(topic="limits", visibility=Visibility.PRIVATE))

    def ids(rows: list[Any]) -> list[int]:
        return [m.id for m in rows]

    everything = await store.list("calc1", "telegram:42", visibility=set(Visibility))
    assert ids(everything) == [private, public]
    only_public = await store.list("calc1", "telegram:42", visibility={Visibility.PUBLIC})
    assert ids(only_public) == [public]
    assert ids(await store.list("calc1", "telegram:42", visibility=())) == []
    stored = await store.get(private)
    assert stored is not None and stored.visibility is Visibility.PRIVATE


async def test_delete_and_unknown_ids(store: MaterialStore) -> None:
    material_id = await store.save(_set())

    assert await store.delete(material_id)
    assert not await store.delete(material_id)
    assert await store.get(material_id) is None


async def test_unknown_kinds_are_refused(store: MaterialStore) -> None:
    with pytest.raises(ValueError, match="essay"):
        await store.save(_set(kind="essay"))
    with pytest.raises(ValueError, match="essay"):
        await store.latest(_key(kind="essay", topic="x", parameters={}))
