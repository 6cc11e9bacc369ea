"""Which built-in exercise families a course may offer offline. A family is drawn only on a
subject the course's material teaches, as the study sets decide it (`StudySets.coverage`:
the one place a subject is found taught, only listed by a syllabus, or absent), so words
like "derivatives" draw no calculus drill on a journalism syllabus. A topic no family fits
gets one line naming the few families the course's teaching material does cover, or none."""

from __future__ import annotations

from typing import Protocol

from core.content_kind import ContentKind
from core.context import Context
from core.errors import BadInputError
from core.exercises.families import FAMILIES, Family, family_name, named_in
from core.study.service import Coverage, NotTaughtError, TopicRetriever, not_taught

# Families named in a reply to a topic no family fits.
SUGGESTED = 3
# A family fits the course (is offered, or suggested) when at least MIN_NAMING of the
# SUGGEST_HITS teaching chunks found for its subject name it ("softmax", "chain rule"): one
# passing mention is no subject.
SUGGEST_HITS = 5
MIN_NAMING = 2

NOT_COVERED = "The course material does not cover {topic}; no exercise on it."
NO_GENERATOR = "This course has no exercise generator for '{topic}' offline"


class SubjectCoverage(Protocol):
    """What the fit needs of `core.study.StudySets`."""

    async def coverage(self, ctx: Context, topic: str) -> Coverage: ...


class FamilyFit:
    def __init__(self, subjects: SubjectCoverage, retriever: TopicRetriever) -> None:
        self._subjects = subjects
        self._retriever = retriever

    async def offered(self, ctx: Context, topic: str, families: list[Family]) -> list[Family]:
        """Those of `families` (what `topic` asks for) the course teaches: the topic taught
        (the coverage rule), and each family's subject named in its teaching chunks (a
        course teaching derivatives through backpropagation has the chain rule, not the
        quotient rule). Else `BadInputError` with one line: where a syllabus lists the
        topic without teaching it, or that nothing covers it."""
        found = await self._subjects.coverage(ctx, topic)
        if not found.taught:
            if found.listed:
                raise NotTaughtError(not_taught(topic, found.listed))
            raise BadInputError(NOT_COVERED.format(topic=topic))
        named = [f for f in families if await self._named(ctx, f) >= MIN_NAMING]
        if not named:
            raise BadInputError(NOT_COVERED.format(topic=topic))
        return named

    async def no_family(self, ctx: Context, topic: str) -> str:
        """The one line for a topic no family fits, naming those that fit this course."""
        fitting = [family_name(family) for family in await self.fitting(ctx)]
        if not fitting:
            return f"{NO_GENERATOR.format(topic=topic)}, and its material fits none I have."
        return f"{NO_GENERATOR.format(topic=topic)}; its material fits: {', '.join(fitting)}."

    async def fitting(self, ctx: Context) -> list[Family]:
        """At most SUGGESTED families whose subject the course's teaching chunks name most,
        each confirmed taught by the coverage rule (what /exercise on it would accept)."""
        named: list[tuple[int, Family]] = []
        for family in FAMILIES:
            count = await self._named(ctx, family)
            if count >= MIN_NAMING:
                named.append((count, family))
        chosen: list[Family] = []
        for _count, family in sorted(named, key=lambda pair: -pair[0]):
            if len(chosen) == SUGGESTED:
                break
            if (await self._subjects.coverage(ctx, family_name(family))).taught:
                chosen.append(family)
        return chosen

    async def _named(self, ctx: Context, family: Family) -> int:
        """How many of the teaching chunks found for the family's subject name it."""
        hits = await self._retriever.retrieve(
            ctx, family_name(family), k=SUGGEST_HITS, content=ContentKind.TEACHING
        )
        return sum(
            named_in(family, f"{hit.chunk.section} {hit.chunk.text}")
            for hit in hits
            if hit.chunk.content is ContentKind.TEACHING
        )
