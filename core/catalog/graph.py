"""The course catalog of one course as a graph: courses merged from their sources (the
newest version that states a field wins, and is named), code and name resolution, the
prerequisite chain, what a course unlocks, and what a student may take.

Built from the stored facts for each request, so every replica and every re-ingestion sees
the same catalog; a programme's few hundred rows build in well under a millisecond."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from core.catalog.codes import Kind, Prerequisites, Requirement, parse_prerequisites
from core.catalog.extract import CourseFact, DocumentVersion
from core.course_codes import (
    PREFIX_LETTERS_TO_ANSWER,
    code_key,
    codes_in,
    document_codes_in,
    in_family,
    is_family,
    prefixes_in,
)
from core.text import fold


@dataclass(frozen=True, slots=True)
class Course:
    """A course and every row stating it, newest version first."""

    code: str
    facts: tuple[CourseFact, ...]

    @property
    def name(self) -> str:
        return next((f.name for f in self.facts if f.name), "")

    def newest(self, field: str) -> CourseFact | None:
        """The newest row stating `field` (an empty prerequisite cell states nothing)."""
        for fact in self.facts:
            value = getattr(fact, field)
            if value is not None and (field != "prerequisites" or value.strip()):
                return fact
        return None

    def prerequisites(self) -> tuple[Prerequisites, CourseFact | None]:
        fact = self.newest("prerequisites")
        return parse_prerequisites(fact.prerequisites or "" if fact else ""), fact

    def requirement(self) -> Requirement | None:
        return self.prerequisites()[0].requirement


class Outcome(StrEnum):
    FOUND = "found"
    AMBIGUOUS = "ambiguous"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Resolution:
    query: str
    outcome: Outcome
    course: Course | None = None
    candidates: tuple[Course, ...] = ()


@dataclass(frozen=True, slots=True)
class Eligibility:
    """Whether the passed courses meet a course's prerequisites: what is missing (each an
    unmet part, an "any" as a whole), what the table says beyond codes."""

    course: Course
    prerequisites: Prerequisites
    source: CourseFact | None
    missing: tuple[Requirement, ...]

    @property
    def allowed(self) -> bool:
        return not self.missing


class Catalog:
    def __init__(self, facts: Iterable[CourseFact]) -> None:
        by_code: dict[str, list[CourseFact]] = {}
        for fact in facts:
            by_code.setdefault(code_key(fact.code), []).append(fact)
        self._courses = {
            key: Course(rows[0].code, tuple(sorted(rows, key=_newest_first)))
            for key, rows in by_code.items()
        }
        plans: dict[str, DocumentVersion] = {}
        for fact in (f for c in self._courses.values() for f in c.facts if f.in_plan):
            plans.setdefault(fact.document_id, fact.version)
        self._plans = sorted(plans.items(), key=lambda item: item[1].key(), reverse=True)

    def __len__(self) -> int:
        return len(self._courses)

    def courses(self) -> list[Course]:
        return list(self._courses.values())

    def get(self, code: str) -> Course | None:
        return self._courses.get(code_key(code))

    # Resolution: the one place a typed code, prefix or name becomes a course ---------------

    def resolve(self, query: str) -> Resolution:
        """Case and accents ignored: an exact code (written "CS 101", "cs-101" or "CS101"); a
        unique code prefix ("MAE" -> MAE101); an exact name, or a unique name containing
        every word typed. Several matches are AMBIGUOUS (with the candidates), none UNKNOWN."""
        wanted = fold(query).strip(" ?.!,;:'\"")
        if not wanted:
            return Resolution(query, Outcome.UNKNOWN)
        exact = self.get(wanted)
        if exact is not None:
            return Resolution(query, Outcome.FOUND, exact)
        if is_family(wanted):
            return _resolution(query, self.matching(wanted))
        if " " not in wanted:
            key = code_key(wanted)
            prefixed = [c for k, c in self._courses.items() if k.startswith(key)]
            if prefixed:
                return _resolution(query, prefixed)
        named = [c for c in self._courses.values() if wanted in _names(c)]
        if named:
            return _resolution(query, named)
        words = wanted.split()
        containing = [
            c for c in self._courses.values()
            if any(all(re.search(rf"\b{re.escape(w)}", n) for w in words) for n in _names(c))
        ]  # fmt: skip
        return _resolution(query, containing)

    def mentioned(self, text: str) -> list[Course]:
        """Courses a sentence names unambiguously, in order: codes (any case, "cs 101"),
        document codes ("AI17_COM_1"), upper-case code prefixes of three letters or more
        ("MAE"), and whole course names."""
        found: list[tuple[int, Course]] = []
        for code in (*codes_in(text, typed=True), *document_codes_in(text)):
            course = self._courses.get(code.key)
            if course is not None:
                found.append((code.start, course))
        for prefix, where in prefixes_in(text, letters=PREFIX_LETTERS_TO_ANSWER):
            # A code prefix only: an upper-case word ("FINAL") is not a course name.
            prefixed = [c for k, c in self._courses.items() if k.startswith(prefix)]
            if len(prefixed) == 1:
                found.append((where, prefixed[0]))
        folded = fold(text)
        taken: list[tuple[int, int]] = []
        names = sorted(
            ((name, c) for c in self._courses.values() for name in _names(c) if len(name) >= 6),
            key=lambda item: -len(item[0]),
        )
        for name, course in names:
            match = re.search(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", folded) or (
                _shortened(name).search(folded) if len(name.split()) >= 3 else None
            )
            if match is None or any(s < match.end() and match.start() < e for s, e in taken):
                continue
            if len({c.code for n, c in names if n == name}) > 1:
                continue  # several courses share the name
            taken.append((match.start(), match.end()))
            found.append((match.start(), course))
        ordered = [course for _, course in sorted(found, key=lambda item: item[0])]
        return list({c.code: c for c in ordered}.values())

    def named_together(self, text: str) -> list[Course]:
        """Courses named by what their names share before a number ("Physical Education"
        for "Physical Education 1", "2" and "3"), when the text names no course itself."""
        folded = fold(text)
        stems: dict[str, dict[str, Course]] = {}
        for course in self._courses.values():
            for name in _names(course):
                stem = _NUMBERED.sub("", name).strip()
                if stem != name and len(stem) >= 6:
                    stems.setdefault(stem, {})[course.code] = course
        found = [
            (match.start(), sorted(courses.values(), key=lambda c: c.code))
            for stem, courses in stems.items()
            if len(courses) > 1
            and (match := re.search(rf"(?<![a-z0-9]){re.escape(stem)}(?![a-z0-9])", folded))
        ]
        if not found:
            return []
        return min(found, key=lambda item: item[0])[1]

    # Versions --------------------------------------------------------------------------------

    def current_plan(self, intake: int | None = None) -> str | None:
        """The document id of the newest programme plan (of `intake` when given)."""
        for document_id, version in self._plans:
            if intake is None or version.intake == intake:
                return document_id
        return None

    def for_intake(self, intake: int) -> Catalog | None:
        """The catalog as students of `intake` read it: their curriculum's rows and the rows
        of no curriculum (a syllabus's), other curricula left out; None when no curriculum
        is of that intake."""
        plan = self.current_plan(intake)
        if plan is None:
            return None
        others = {document_id for document_id, _ in self._plans if document_id != plan}
        return Catalog(
            f for c in self._courses.values() for f in c.facts if f.document_id not in others
        )

    def plan_documents(self) -> list[str]:
        """The curricula's document ids, newest first."""
        return [document_id for document_id, _ in self._plans]

    def plan_labels(self) -> list[str]:
        """The curricula's names, newest first."""
        return [version.label or document_id for document_id, version in self._plans]

    def plan_row(self, course: Course, intake: int | None = None) -> CourseFact | None:
        """The course's row in the newest plan that lists it (of `intake` when given)."""
        for document_id, version in self._plans:
            if intake is not None and version.intake != intake:
                continue
            row = next((f for f in course.facts if f.document_id == document_id), None)
            if row is not None:
                return row
        return None

    def in_plan(self, course: Course, document_id: str | None) -> bool:
        return document_id is not None and any(f.document_id == document_id for f in course.facts)

    # The graph -----------------------------------------------------------------------------

    def matching(self, code: str) -> list[Course]:
        """The catalog's courses a required code stands for (a family: each of its courses)."""
        if not is_family(code):
            course = self.get(code)
            return [course] if course else []
        return [c for c in self._courses.values() if in_family(code, c.code)]

    def chain(self, course: Course) -> list[tuple[int, str, Course | None, bool]]:
        """The prerequisite tree below `course`, depth first: (depth, required code, its
        course when catalogued, already shown above). Each course is expanded once."""
        lines: list[tuple[int, str, Course | None, bool]] = []
        seen = {course.code}

        def walk(requirement: Requirement | None, depth: int) -> None:
            for code in dict.fromkeys(requirement.codes() if requirement else ()):
                targets: list[Course | None] = [*self.matching(code)] or [None]
                for target in targets:
                    repeated = target is not None and target.code in seen
                    lines.append((depth, code, target, repeated))
                    if target is not None and not repeated:
                        seen.add(target.code)
                        walk(target.requirement(), depth + 1)

        walk(course.requirement(), 1)
        return lines

    def ancestors(self, course: Course) -> list[Course]:
        return list({c.code: c for _, _, c, _ in self.chain(course) if c is not None}.values())

    def unlocks(self, course: Course) -> list[Course]:
        """Courses whose prerequisites name `course` (or a family it belongs to)."""
        return [
            other
            for other in self._courses.values()
            if other.code != course.code
            and any(in_family(code, course.code) for code in _codes(other.requirement()))
        ]

    def unlocks_later(self, course: Course) -> list[Course]:
        """Everything that needs `course` somewhere down its chain, beyond `unlocks`."""
        direct = {c.code for c in self.unlocks(course)}
        found: dict[str, Course] = {}
        frontier = self.unlocks(course)
        while frontier:
            following = []
            for step in frontier:
                for other in self.unlocks(step):
                    if (
                        other.code not in found
                        and other.code not in direct
                        and other.code != course.code
                    ):
                        found[other.code] = other
                        following.append(other)
            frontier = following
        return list(found.values())

    def eligibility(self, course: Course, passed: Sequence[str]) -> Eligibility:
        prerequisites, source = course.prerequisites()
        missing = _missing(prerequisites.requirement, passed)
        return Eligibility(course, prerequisites, source, tuple(missing))

    def blocked_by(self, failed: Sequence[str]) -> list[Course]:
        """Courses that cannot be taken while `failed` are not passed, whatever else is:
        their prerequisites have no way round the failed courses, directly or down the
        chain. A required course the catalog does not list counts as available."""
        blocked = {code_key(code) for code in failed}
        changed = True
        while changed:
            changed = False
            for key, course in self._courses.items():
                if key not in blocked and not self._reachable(course.requirement(), blocked):
                    blocked.add(key)
                    changed = True
        failed_keys = {code_key(code) for code in failed}
        return [c for k, c in self._courses.items() if k in blocked and k not in failed_keys]

    def _reachable(self, requirement: Requirement | None, blocked: set[str]) -> bool:
        if requirement is None:
            return True
        if requirement.kind is Kind.COURSE:
            targets = self.matching(requirement.code)
            if not targets:
                return code_key(requirement.code) not in blocked
            return any(code_key(t.code) not in blocked for t in targets)
        results = [self._reachable(part, blocked) for part in requirement.parts]
        return all(results) if requirement.kind is Kind.ALL else any(results)


def _newest_first(fact: CourseFact) -> tuple[object, ...]:
    day, intake = fact.version.key()
    return (-day.toordinal(), -intake, fact.file_name, fact.ordinal)


# A name's number at its end ("Physical Education 3", "Elementary Japanese 1- A1.1").
_NUMBERED = re.compile(r"(?:\s*[-:]?\s*(?:\d+|[ivx]+)\b[\w.\- ]*)$")


def _shortened(name: str) -> re.Pattern[str]:
    """A name typed with its long words cut ("intro to software engineering" for
    "introduction to software engineering"): each word's first five letters or more."""
    words = [re.escape(w[:5]) + (r"\w*" if len(w) > 5 else "") for w in name.split()]
    return re.compile(r"(?<![a-z0-9])" + r"\s+".join(words) + r"(?![a-z0-9])")


def _names(course: Course) -> set[str]:
    return {fold(n) for f in course.facts for n in (f.name, *f.aliases) if n}


def _resolution(query: str, matches: list[Course]) -> Resolution:
    unique = list({c.code: c for c in matches}.values())
    if len(unique) == 1:
        return Resolution(query, Outcome.FOUND, unique[0])
    if not unique:
        return Resolution(query, Outcome.UNKNOWN)
    return Resolution(
        query, Outcome.AMBIGUOUS, candidates=tuple(sorted(unique, key=lambda c: c.code))
    )


def _codes(requirement: Requirement | None) -> list[str]:
    return requirement.codes() if requirement else []


def satisfied(requirement: Requirement | None, passed: Sequence[str]) -> bool:
    if requirement is None:
        return True
    if requirement.kind is Kind.COURSE:
        return any(in_family(requirement.code, code) for code in passed)
    results = [satisfied(part, passed) for part in requirement.parts]
    return all(results) if requirement.kind is Kind.ALL else any(results)


def _missing(requirement: Requirement | None, passed: Sequence[str]) -> list[Requirement]:
    if requirement is None or satisfied(requirement, passed):
        return []
    if requirement.kind is Kind.ALL:
        return [m for part in requirement.parts for m in _missing(part, passed)]
    return [requirement]
