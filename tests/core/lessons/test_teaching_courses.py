"""Extractive decks on the real teaching courses (`../shared/datasets/teaching`: Markdown
lecture notes with LaTeX math, tables, code and d2l's markup), one per topic of each course's
topics.txt and per profile: what a student would find wrong on a slide, checked on the deck.

The passages are the courses' own chunks as ingestion cuts them (the Markdown loader and the
chunker with the bundled embedder's tokenizer), ranked by the words they share with the
topic: retrieval is not what is measured here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index.chunk_index import SearchHit
from core.index.payload import ChunkRecord
from core.lessons import Profile, SlideBounds, build_extractive_deck
from core.lessons.models import Deck, SlideKind
from ingestion.chunking import chunk_document
from ingestion.loaders.markdown import load_markdown

TEACHING = Path(__file__).resolve().parents[4] / "shared/datasets/teaching"
COURSES = ("d2l-dl-basics", "cs231n-notes")
HITS_PER_TOPIC = 16
# Markup a slide must never print: links, images, roles, emphasis marks, raw table rows.
MARKUP = re.compile(r"\]\(|!\[|:(?:label|numref|eqref|cite|eqlabel):|^\||\|\s*$|\*\*|`")

pytestmark = pytest.mark.skipif(
    not TEACHING.is_dir(), reason=f"the teaching dataset is not at {TEACHING}"
)


def _hits(course: str, embedder: MiniLMOnnxEmbedder) -> tuple[list[ChunkRecord], list[str]]:
    folder = TEACHING / course / "courses" / course
    records = []
    for path in sorted(folder.glob("*.md")):
        document = load_markdown(path, path.name)
        for chunk in chunk_document(document, course, embedder.count_tokens, embedder.max_tokens):
            records.append(
                ChunkRecord(
                    id=f"{path.stem}-{chunk.index}", course_id=course, document_id=path.stem,
                    file_name=path.name, text=chunk.passage or chunk.text, page=chunk.page,
                    section=chunk.section, kind="lecture", visibility="public", owner_id=None,
                    chunk_index=chunk.index,
                )
            )  # fmt: skip
    topics = (TEACHING / course / "topics.txt").read_text().splitlines()
    return records, [t.strip() for t in topics if t.strip()]


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in {"and", "the"}}


def _on_topic(records: list[ChunkRecord], topic: str) -> list[SearchHit]:
    wanted = _words(topic)
    scored = [(len(wanted & _words(r.text)) / (len(wanted) or 1), r) for r in records]
    ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: -s[0])[:HITS_PER_TOPIC]
    return [SearchHit(chunk=record, score=score) for score, record in ranked]


@pytest.fixture(scope="module")
def decks(embedder: MiniLMOnnxEmbedder) -> list[Deck]:
    made = []
    for course in COURSES:
        records, topics = _hits(course, embedder)
        for topic in topics:
            for profile in Profile:
                made.append(
                    build_extractive_deck(
                        topic, _on_topic(records, topic), profile=profile,
                        bounds=SlideBounds(3, 8),
                    )
                )  # fmt: skip
    return made


def test_every_topic_of_both_courses_makes_a_deck_for_every_profile(decks: list[Deck]) -> None:
    assert len(decks) == len(Profile) * 24  # 12 topics each


def test_no_bullet_is_cut_short(decks: list[Deck]) -> None:
    cut = [item for d in decks for s in d.slides for item in s.content if item.endswith("…")]
    assert cut == []


def test_no_slide_prints_source_markup(decks: list[Deck]) -> None:
    shown = [
        text
        for d in decks
        for s in d.slides
        for text in [s.title, *s.content]
        if MARKUP.search(re.sub(r"\$[^$]*\$", "", text))
    ]
    assert shown == []


def test_the_recap_states_points_not_titles(decks: list[Deck]) -> None:
    for deck in decks:
        recap = deck.slides[-1]
        assert recap.kind is SlideKind.RECAP
        titles = {s.title for s in deck.slides}
        assert recap.content, deck.topic
        assert not titles & set(recap.content), deck.topic
        points = {i for s in deck.slides[:-1] for i in s.content}
        # Each point is said on a slide of the deck (ADHD: one idea of one).
        assert all(any(p in point for point in points) for p in recap.content) or (
            deck.profile is Profile.ADHD
        ), deck.topic
