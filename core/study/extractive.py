"""Study sets without a language model (the embedded default): flashcards and cloze
multiple-choice questions made from the facts in the retrieved chunks (`core.study.facts`),
and a mind map from the section structure of the documents they come from.

A question's distractors are answers of the same kind from the same course: other rows of
the same table column, other formulas' right sides, other defined terms. Everything is
deterministic for a given input: the correct option's position comes from a hash of the
question, never from a random draw."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from core.content_kind import ContentKind, topic_kind
from core.index import ChunkRecord, SearchHit, SparseEncoder
from core.replies import section_levels
from core.retrieval import GENERAL_KIND
from core.study import checks
from core.study.checks import CountRange, CourseScope, normalise
from core.study.facts import Fact, FactKind, facts_in, leaf_section, named_terms
from core.study.models import (
    OPTIONS_PER_QUESTION,
    Flashcard,
    FlashcardSet,
    MindMap,
    MindNode,
    Quiz,
    QuizItem,
    Source,
)

MAX_EXPLANATION_CHARS = 200
MAX_MINDMAP_NODES = 30
MAX_LEAVES_PER_SECTION = 3
MAX_LEAF_CHARS = 60
# A syllabus's sections (where the slides are, the weekly schedule) join a mind map on a
# teaching topic only when the teaching material has fewer sections than this: "derivatives"
# on the sample course showed "Course Materials" beside the rules.
MIN_TEACHING_SECTIONS = 4
_GENERIC_COLUMNS = frozenset({"details", "detail", "description", "value", "info", "notes"})
_GENERIC_SKILL_SECTION = re.compile(
    r"^(summary|introduction|overview|recap|review|(lecture|chapter|week|unit|part|session)\b.*)$",
    re.IGNORECASE,
)

Material = SearchHit | ChunkRecord


def _chunk(material: Material) -> ChunkRecord:
    return material.chunk if isinstance(material, SearchHit) else material


def glossary(material: Iterable[Material]) -> list[str]:
    """The course's own terms in `material`: those it defines (in words, or by naming a term
    set in emphasis), titles its teaching sections with or sets in emphasis as a name
    (`facts.named_terms`), longest first (a sentence naming "softmax regression" blanks that,
    not "softmax")."""
    terms: dict[str, str] = {}
    for item in material:
        chunk = _chunk(item)
        found = [f.term for f in facts_in(chunk) if f.kind is FactKind.DEFINITION]
        title = leaf_section(chunk.section)
        if chunk.content is ContentKind.TEACHING:
            if _TERM_TITLE.match(title):
                found.append(title)  # "Dropout", "Weight Decay": a teaching section names a term
            found.extend(named_terms(chunk.text))  # "*average pooling*": the text names one
        for term in found:
            if len(term.split()) <= MAX_GLOSSARY_WORDS and not checks.key_problems(term):
                terms.setdefault(normalise(term), term)
    return sorted(terms.values(), key=lambda term: (-len(term), term.casefold()))


MAX_GLOSSARY_WORDS = 4
MAX_CLOZE_CARDS_PER_TERM = 2
# A section title that is a term: one to three words, none saying what the section does.
_TERM_TITLE = re.compile(
    r"^(?!.*\b(?:implementation|scratch|concise|practice|exercises?|summary|discussion|"
    r"defining|model|training|example|examples|introduction|overview|notes?|references?|"
    r"reading|further|additional|setup|data|results?|code|appendix|case|studies|the|a|an|in|"
    r"of|and|to|for|with|from|on)\b)[A-Za-z][\w'-]*(?: [A-Za-z][\w'-]*){0,2}$",
    re.IGNORECASE,
)


def collect_facts(material: Iterable[Material], terms: Sequence[str] = ()) -> list[Fact]:
    """The facts of every chunk, each once (overlapping chunks repeat sentences), taken in
    turns from each chunk in the given order so one long table does not crowd out the rest;
    with `terms` (the course's glossary), sentences naming them as cloze facts too."""
    per_chunk: list[list[Fact]] = []
    seen_chunks: set[str] = set()
    for item in material:
        chunk = _chunk(item)
        if chunk.id in seen_chunks:
            continue
        seen_chunks.add(chunk.id)
        per_chunk.append(facts_in(chunk, terms))
    ordered: list[Fact] = []
    seen: set[tuple[str, str, str]] = set()
    for turn in range(max((len(facts) for facts in per_chunk), default=0)):
        for facts in per_chunk:
            if turn < len(facts):
                fact = facts[turn]
                key = (fact.kind.value, normalise(fact.term), normalise(fact.answer))
                if key not in seen:
                    seen.add(key)
                    ordered.append(fact)
    return ordered


def skill_of(chunk: ChunkRecord, topic: str) -> str:
    """A skill tag: the section's own name ("The Product Rule" -> "product-rule"), or the
    topic where the section says nothing ("Summary", "Lecture 2: ...")."""
    name = leaf_section(chunk.section)
    if not name or _GENERIC_SKILL_SECTION.match(name):
        name = topic
    name = re.sub(r"^(the|a|an)\s+", "", name.strip(), flags=re.IGNORECASE)
    slug = "-".join(re.findall(r"\w+", name.casefold()))
    return slug[:60].strip("-") or "general"


# --- flashcards ----------------------------------------------------------------------------


def card_for(fact: Fact, topic: str) -> Flashcard:
    back = fact.answer
    if fact.kind is FactKind.FORMULA:
        front = f"{fact.term} = ?"
    elif fact.kind is FactKind.TABLE:
        front = _table_cue(fact)
    elif fact.kind is FactKind.CLOZE:
        front, back = f"Complete: “{_blank(fact.answer, fact.term)}”", fact.term
    else:
        front = fact.term
    return Flashcard(
        front=front,
        back=back,
        source=Source.from_chunk(fact.chunk),
        skill=skill_of(fact.chunk, topic),
    )


def build_flashcards(
    topic: str,
    material: Sequence[Material],
    wanted: CountRange,
    *,
    pool: Sequence[Material] = (),
    subject: bool | None = None,
) -> FlashcardSet:
    """Cards on the facts of `material`; on a subject (`subject`; None: as the topic reads,
    `core.content_kind.topic_kind`), only those a teacher would keep of a subject
    (`checks.course_problems`), with sentences naming a term of the course's glossary (of
    `material` and `pool`) as cloze cards."""
    subject = _on_a_subject(topic, subject)
    terms = glossary([*material, *pool]) if subject else []
    scope = CourseScope.of(material, subject=subject, terms=terms)
    cards = []
    backs: dict[str, int] = {}
    for fact in _definitions_first(collect_facts(material, terms)):
        if subject and fact.kind is FactKind.KEY_TERM:
            continue  # a section's name and its first sentence: seldom a definition
        if fact.kind is FactKind.CLOZE:
            # Eleven cards all answered "Softmax classifier" are one card.
            if backs.get(normalise(fact.term), 0) >= MAX_CLOZE_CARDS_PER_TERM:
                continue
            backs[normalise(fact.term)] = backs.get(normalise(fact.term), 0) + 1
        card = card_for(fact, topic)
        problems = [
            *checks.card_problems(card.front, card.back),
            *checks.course_problems(card.front, [card.back], 0, card.source, scope),
        ]
        if not checks.errors(problems):
            cards.append(card)
    cards = checks.dedupe_cards(cards)[: wanted.maximum]
    return FlashcardSet(
        topic=topic,
        cards=tuple(cards),
        reason=checks.shortfall_reason(topic, len(cards), wanted, "cards"),
    )


def teaches(material: Sequence[Material], pool: Sequence[Material] = ()) -> bool:
    """Whether `material` holds something a set on a subject is made of: a definition, a
    formula, a table row or a sentence naming one of the course's terms (of `material` and
    `pool`). A section's name with its first sentence is no such thing (the one paragraph a
    syllabus's objectives hold, read as teaching)."""
    terms = glossary([*material, *pool])
    return any(fact.kind is not FactKind.KEY_TERM for fact in collect_facts(material, terms))


def _on_a_subject(topic: str, subject: bool | None) -> bool:
    return topic_kind(topic) is ContentKind.TEACHING if subject is None else subject


def _definitions_first(facts: list[Fact]) -> list[Fact]:
    """Definitions, formulas and table rows before cloze sentences (stable otherwise): a set
    cut to its maximum keeps what the material states as a fact."""
    return sorted(facts, key=lambda fact: fact.kind is FactKind.CLOZE)


def _tables_first(facts: list[Fact], topic: str) -> list[Fact]:
    """Table rows naming the topic's words first ("grading": the grade-weight table, not
    the course's contact table), then other table rows, then the rest."""
    terms = SparseEncoder()
    wanted = set(terms.terms(topic))

    def rank(fact: Fact) -> tuple[bool, bool]:
        said = set(terms.terms(f"{fact.chunk.section} {fact.sentence}"))
        return fact.kind is not FactKind.TABLE, not wanted & said

    return sorted(facts, key=rank)


# --- quizzes ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Cloze:
    question: str
    answer: str
    # Facts whose `answer_of` would be a wrong option.
    group: str
    answer_of: str  # "term" or "answer": which side of the other facts are the options


def _cloze(fact: Fact) -> _Cloze | None:
    if fact.kind is FactKind.FORMULA:
        return _Cloze(f"Complete: {fact.term} = ____", fact.answer, fact.group, "answer")
    if fact.kind is FactKind.TABLE:
        return _Cloze(_table_question(fact), fact.answer, fact.group, "answer")
    described = _blank(fact.answer, fact.term)
    # A definition that names its own term reads as a sentence with a gap once blanked.
    if fact.kind is FactKind.CLOZE or "____" in described:
        return _Cloze(
            f"Which term completes the sentence: “{described}”?", fact.term, fact.group, "term"
        )
    if fact.kind is FactKind.KEY_TERM:
        question = f"Which topic does this describe: “{described}”?"
    else:
        question = f"Which term does this describe: “{described}”?"
    return _Cloze(question, fact.term, fact.group, "term")


def _blank(text: str, term: str) -> str:
    """`text` with the term (and its plural) blanked out, so the stem does not name it."""
    bare = re.sub(r"^(the|a|an)\s+", "", term.strip(), flags=re.IGNORECASE)
    return re.sub(rf"\b{re.escape(bare)}s?\b", "____", text, flags=re.IGNORECASE)


def _table_cue(fact: Fact) -> str:
    if fact.column.casefold() in _GENERIC_COLUMNS:
        return f"{fact.context}: {fact.term}?"
    return f"{fact.context}: {fact.column} for {fact.term}?"


def _table_question(fact: Fact) -> str:
    if fact.column.casefold() in _GENERIC_COLUMNS:
        return f"{fact.context}: what is listed for {fact.term}?"
    return f"{fact.context}: what is the {fact.column.lower()} for {fact.term}?"


def _side(fact: Fact, answer_of: str) -> str:
    return fact.term if answer_of == "term" else fact.answer


def _distractors(
    fact: Fact,
    cloze: _Cloze,
    pool: Sequence[Fact],
    used: dict[str, int] | None = None,
    terms: Sequence[str] = (),
) -> list[str] | None:
    """Three wrong options of the same kind, near the right one's length (one at least as
    long where the pool allows, so length does not give the answer away), none used as a
    wrong option `checks.MAX_OPTION_REUSE` times already in the quiz (`used`)."""
    used = {} if used is None else used
    taken = {normalise(cloze.answer)}
    other_side = "answer" if cloze.answer_of == "term" else "term"
    own = normalise(_side(fact, other_side))
    candidates: list[str] = []
    # A term's wrong options are the course's other terms (`terms`, its glossary) too.
    glossary = [(None, term) for term in terms] if cloze.answer_of == "term" else []
    others = [
        (other, _side(other, cloze.answer_of)) for other in pool if other.group == cloze.group
    ]
    for other, option in [*others, *glossary]:
        if other is fact:
            continue
        key = normalise(option)
        # The same cue or the same description would make this option right as well.
        if key in taken or (other is not None and normalise(_side(other, other_side)) == own):
            continue
        if len(option) > checks.MAX_OPTION_CHARS or checks.answer_in(option, cloze.question):
            continue
        # A table column's rows are its own options (a grade table has four weights): they
        # may appear up to MAX_OPTION_APPEARANCES times; any other option serves at most
        # MAX_OPTION_REUSE questions as a wrong one.
        table = cloze.group.startswith("table:")
        limit = checks.MAX_OPTION_APPEARANCES if table else checks.MAX_OPTION_REUSE
        reused = used.get(key, 0) >= limit
        if reused or checks.key_problems(option):
            continue  # a cut sentence or an id is as poor a wrong option as a key
        taken.add(key)
        candidates.append(option)
    if len(candidates) < OPTIONS_PER_QUESTION - 1:
        return None
    length = len(cloze.answer)
    ranked = sorted(candidates, key=lambda option: abs(len(option) - length))
    chosen = ranked[: OPTIONS_PER_QUESTION - 1]
    if all(len(option) < length for option in chosen):
        longer = next((option for option in ranked if len(option) >= length), None)
        if longer is not None:
            chosen[-1] = longer
    return chosen


def _position(question: str) -> int:
    digest = hashlib.sha256(question.encode("utf-8")).digest()
    return digest[0] % OPTIONS_PER_QUESTION


def _explanation(fact: Fact, source: Source) -> str:
    said = f"{fact.term}: {fact.answer}" if fact.kind is FactKind.TABLE else fact.sentence
    said = " ".join(said.replace("`", "").split())
    label = source.label()
    room = MAX_EXPLANATION_CHARS - len(label) - 4
    if len(said) > room:
        said = said[: max(room - 1, 0)].rstrip() + "…"
    return f"{said} ({label})"


def item_for(
    fact: Fact,
    pool: Sequence[Fact],
    topic: str,
    scope: CourseScope | None = None,
    used: dict[str, int] | None = None,
    terms: Sequence[str] = (),
) -> QuizItem | None:
    """A cloze question on `fact`, or None when the pool has too few distractors of its
    kind or the question fails a check (warnings included: a generated stem can be better).
    `used` counts each option's appearances in the quiz so far, and is updated."""
    cloze = _cloze(fact)
    if cloze is None:
        return None
    used = {} if used is None else used
    if used.get(normalise(cloze.answer), 0) >= checks.MAX_OPTION_APPEARANCES:
        return None  # this key has been an option often enough in the quiz
    wrong = _distractors(fact, cloze, pool, used, terms)
    if wrong is None:
        return None
    position = _position(cloze.question)
    options = [*wrong]
    options.insert(position, cloze.answer)
    source = Source.from_chunk(fact.chunk)
    if checks.item_problems(cloze.question, options, position):
        return None
    if scope is not None and checks.course_problems(
        cloze.question, options, position, source, scope
    ):
        return None
    for option in options:
        used[normalise(option)] = used.get(normalise(option), 0) + 1
    return QuizItem(
        question=cloze.question,
        options=(options[0], options[1], options[2], options[3]),
        correct=position,
        source=source,
        skill=skill_of(fact.chunk, topic),
        explanation=_explanation(fact, source),
    )


def build_quiz(
    topic: str,
    material: Sequence[Material],
    wanted: CountRange,
    *,
    pool: Sequence[Material] = (),
    subject: bool | None = None,
) -> Quiz:
    """Questions on the facts of `material`; distractors come from those facts and from
    `pool` (more chunks of the same course, for a wider choice of the same kind); on a
    subject (`subject`), only what a teacher would keep of a subject
    (`checks.course_problems`); `subject` None: as the topic reads."""
    subject = _on_a_subject(topic, subject)
    terms = glossary([*material, *pool]) if subject else []
    facts = collect_facts(material, terms)
    # A quiz about the course asks about its tables on the topic (grade weights, dates) first.
    facts = _definitions_first(facts) if subject else _tables_first(facts, topic)
    candidates = facts + [f for f in collect_facts([*material, *pool]) if f not in facts]
    scope = CourseScope.of([*material, *pool], subject=subject, terms=terms)
    used: dict[str, int] = {}
    # On a subject a section's name is no key: "Which topic does this describe" asked for
    # headings ("Weekly Schedule", "Exercises"), not for what the material teaches.
    asked = [f for f in facts if not (subject and f.kind is FactKind.KEY_TERM)]
    items = [
        item
        for fact in asked
        if (item := item_for(fact, candidates, topic, scope, used, terms)) is not None
    ]
    items = checks.rebalance_longest(checks.dedupe_items(items))[: wanted.maximum]
    return Quiz(
        topic=topic,
        items=tuple(items),
        reason=checks.shortfall_reason(topic, len(items), wanted, "questions"),
    )


# --- mind maps -------------------------------------------------------------------------------


@dataclass
class _Node:
    label: str
    source: Source | None = None
    order: tuple[int, int] = (0, 0)
    children: dict[str, _Node] = field(default_factory=dict)
    leaves: list[tuple[str, Source]] = field(default_factory=list)


def _leaf_label(fact: Fact) -> str:
    text = f"{fact.term} = {fact.answer}" if fact.kind is FactKind.FORMULA else fact.term
    text = " ".join(text.split())
    return text if len(text) <= MAX_LEAF_CHARS else text[: MAX_LEAF_CHARS - 1].rstrip() + "…"


def build_mindmap(
    topic: str, material: Sequence[Material], *, max_nodes: int = MAX_MINDMAP_NODES
) -> MindMap:
    """Topic -> documents (best match first) -> their sections in reading order -> a few
    terms of each section; at most `max_nodes` nodes, sections before terms."""
    documents: dict[str, _Node] = {}
    for item in material:
        chunk = _chunk(item)
        document = documents.setdefault(
            chunk.document_id,
            _Node(
                chunk.file_name,
                Source(file=chunk.file_name, document_id=chunk.document_id, private=chunk.private),
            ),
        )
        node = document
        order = (chunk.page or 0, chunk.chunk_index)
        for part in section_levels(chunk.section):
            child = node.children.get(part)
            if child is None:
                child = node.children[part] = _Node(part, Source.from_chunk(chunk), order)
            child.order = min(child.order, order)
            node = child
        known = {normalise(label) for label, _ in node.leaves} | {normalise(node.label)}
        for fact in facts_in(chunk):
            label = _leaf_label(fact)
            formula = fact.kind is FactKind.FORMULA
            if checks.key_problems(fact.term) or (formula and checks.key_problems(fact.answer)):
                continue  # a cut formula ("[2.71") or an id is no leaf to learn
            if normalise(label) not in known and len(node.leaves) < MAX_LEAVES_PER_SECTION:
                known.add(normalise(label))
                node.leaves.append((label, Source.from_chunk(chunk)))
    kept = _about_the_topic(topic, list(documents.values()), material)
    children = _pruned(kept, max_nodes - 1)  # the root is one node
    return MindMap(topic=topic, root=MindNode(label=topic, children=tuple(children)))


def _about_the_topic(
    topic: str, documents: list[_Node], material: Sequence[Material]
) -> list[_Node]:
    """The documents without the syllabi when the teaching material has MIN_TEACHING_SECTIONS
    sections or more and no syllabus section is named by the topic's words: a syllabus
    mentions every topic in its outcomes and schedule, but "grading" is its own."""
    syllabi = {c.document_id for c in map(_chunk, material) if c.kind == GENERAL_KIND}
    if not syllabi:
        return documents
    is_syllabus = [d.source is not None and d.source.document_id in syllabi for d in documents]
    teaching = [d for d, syllabus in zip(documents, is_syllabus, strict=True) if not syllabus]
    if _sections(teaching) < MIN_TEACHING_SECTIONS:
        return documents
    terms = SparseEncoder()
    wanted = set(terms.terms(topic))
    named = any(
        wanted & set(terms.terms(node.label))
        for document, syllabus in zip(documents, is_syllabus, strict=True)
        if syllabus
        for node in _all(document)
        if node is not document
    )
    return documents if named else teaching


def _sections(documents: list[_Node]) -> int:
    return sum(1 for document in documents for node in _all(document) if node is not document)


def _sorted(children: dict[str, _Node]) -> list[_Node]:
    return sorted(children.values(), key=lambda node: node.order)


def _all(node: _Node) -> Iterable[_Node]:
    yield node
    for child in _sorted(node.children):
        yield from _all(child)


def _pruned(documents: list[_Node], budget: int) -> list[MindNode]:
    """The tree cut to `budget` nodes: documents and sections breadth first, then terms in
    turns across the kept sections."""
    kept: set[int] = set()
    level = documents
    while level and budget > 0:
        following: list[_Node] = []
        for node in level[:budget]:
            kept.add(id(node))
            following.extend(_sorted(node.children))
        budget -= min(len(level), budget)
        level = following
    shown: dict[int, int] = {}
    holders = [node for document in documents for node in _all(document) if id(node) in kept]
    for turn in range(MAX_LEAVES_PER_SECTION):
        for holder in holders:
            if turn < len(holder.leaves) and budget > 0:
                shown[id(holder)] = turn + 1
                budget -= 1

    def freeze(node: _Node) -> MindNode:
        sections = [freeze(child) for child in _sorted(node.children) if id(child) in kept]
        leaves = [
            MindNode(label=label, source=source)
            for label, source in node.leaves[: shown.get(id(node), 0)]
        ]
        return MindNode(label=node.label, source=node.source, children=(*sections, *leaves))

    frozen = [freeze(document) for document in documents if id(document) in kept]
    # A document that matched but shows neither sections nor terms only adds noise.
    return [node for node in frozen if node.children] or frozen[:1]
