"""Parsed exercise definitions are cached by course, id and source hash: an unchanged source
is parsed once, a changed one again, off the event loop, and the cache stays bounded."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from support.paths import SAMPLE_COURSE

import core.practice.catalog as catalog
from core.practice import DefinitionCache

SOURCE = (Path(SAMPLE_COURSE) / "exercises" / "limits-basics.exercise.yaml").read_text("utf-8")
EXERCISE = "limits-basics"


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """The thread of every parse."""
    seen: list[threading.Thread] = []
    parse = catalog.parse_exercise

    def counting(text: str, name: str):
        seen.append(threading.current_thread())
        return parse(text, name)

    monkeypatch.setattr(catalog, "parse_exercise", counting)
    return seen


async def test_an_unchanged_source_is_parsed_once_and_reused(
    parses: list[threading.Thread],
) -> None:
    cache = DefinitionCache()
    first = await cache.get("math101", EXERCISE, SOURCE)
    again = await cache.get("math101", EXERCISE, SOURCE)
    assert again is first
    assert len(parses) == 1
    assert (cache.hits, cache.misses) == (1, 1)


async def test_a_changed_source_is_parsed_again(parses: list[threading.Thread]) -> None:
    cache = DefinitionCache()
    old = await cache.get("math101", EXERCISE, SOURCE)
    changed = SOURCE.replace(old.title, "Limits, revised", 1)
    new = await cache.get("math101", EXERCISE, changed)
    assert new.title == "Limits, revised" != old.title
    assert len(parses) == 2


async def test_misses_are_parsed_off_the_event_loop(parses: list[threading.Thread]) -> None:
    await DefinitionCache().get_many("math101", {EXERCISE: SOURCE})
    assert parses and threading.current_thread() not in parses


async def test_the_cache_keeps_only_the_most_recently_used(
    parses: list[threading.Thread],
) -> None:
    cache = DefinitionCache(max_size=2)
    for course in ("a", "b", "a", "c"):  # "b" is the least recently used when "c" arrives
        await cache.get(course, EXERCISE, SOURCE)
    assert len(cache) == 2
    assert len(parses) == 3
    await cache.get("a", EXERCISE, SOURCE)
    assert len(parses) == 3
    await cache.get("b", EXERCISE, SOURCE)
    assert len(parses) == 4
