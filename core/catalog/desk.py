"""The catalog's use cases in chat: `/prereq`, `/courseinfo`, `/cantake`, `/profile`, and
catalog questions asked in plain words ("can I take DAT301m?"), answered exactly from the
tables with their citations. Every reply names the version its facts come from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import structlog

from core.catalog.codes import Kind, Prerequisites, Requirement
from core.catalog.extract import CourseFact
from core.catalog.graph import Catalog, Course, Eligibility, Outcome
from core.catalog.intent import Asked, CatalogQuestion, asks_catalog, carried_over, read_question
from core.catalog.profile import PROFILE_USAGE, StudentProfile, parse_profile
from core.catalog.store import CatalogStore
from core.context import Context
from core.course_codes import code_key, is_code
from core.errors import BadInputError
from core.replies import Answer, Citation, Notice
from core.visibility import reads_alone

NO_CATALOG = (
    "I found no table of courses (code, name, credits, semester or prerequisites) in this "
    "course's material."
)
NO_PROFILE = (
    "I don't know which courses you passed: tell me with "
    "/profile semester N passed CODE,CODE failed CODE."
)
MAX_CANDIDATES = 8

log = structlog.get_logger(__name__)


@dataclass(slots=True)
class _Cited:
    """Citations in order of first use; `mark` gives a fact's `[n]`."""

    citations: list[Citation] = field(default_factory=list)

    def mark(self, fact: CourseFact | None) -> str:
        if fact is None:
            return ""
        citation = Citation(
            file_name=fact.file_name,
            page=fact.page,
            section=fact.section or None,
            document_id=fact.document_id,
        )
        if citation not in self.citations:
            self.citations.append(citation)
        return f" [{self.citations.index(citation) + 1}]"

    def answer(self, lines: Sequence[str]) -> Answer:
        return Answer(text="\n".join(lines), citations=tuple(self.citations))


class CatalogDesk:
    def __init__(self, store: CatalogStore) -> None:
        self._store = store

    async def catalog(self, ctx: Context) -> Catalog:
        return Catalog(await self._store.facts(ctx.course_id))

    # Commands ---------------------------------------------------------------------------------

    async def prereq(self, ctx: Context, argument: str) -> Answer:
        catalog, course = await self._course(ctx, argument, "/prereq CODE")
        cited = _Cited()
        lines = [
            *self._chain_lines(catalog, course, cited),
            *self._unlock_lines(catalog, course, cited),
        ]
        return cited.answer(lines)

    async def courseinfo(self, ctx: Context, argument: str) -> Answer:
        catalog, course = await self._course(ctx, argument, "/courseinfo CODE")
        cited = _Cited()
        return cited.answer(self._info_lines(catalog, course, cited, credits=True, semester=True))

    async def cantake(self, ctx: Context, argument: str) -> Answer:
        catalog, course = await self._course(ctx, argument, "/cantake CODE")
        profile = await self._store.profile(ctx.course_id, ctx.user_id)
        cited = _Cited()
        return cited.answer(self._can_take_lines(catalog, course, profile, cited))

    async def profile(self, ctx: Context, argument: str) -> Notice:
        catalog = await self.catalog(ctx)
        change = parse_profile(argument, lambda typed: _canonical(catalog, typed))
        stored = await self._store.profile(ctx.course_id, ctx.user_id) or StudentProfile()
        if change.shows_only:
            return Notice(self._profile_text(catalog, stored, ctx.course_id))
        updated = change.applied_to(stored)
        await self._store.save_profile(ctx.course_id, ctx.user_id, updated)
        if updated.empty:
            return Notice(f"Your profile in '{ctx.course_id}' is cleared.")
        return Notice("Saved. " + self._profile_text(catalog, updated, ctx.course_id))

    # Questions in plain words -----------------------------------------------------------------

    async def answer(
        self, ctx: Context, question: str, earlier: Sequence[str] = ()
    ) -> Answer | None:
        """The catalog's answer when the question names a course and asks what the catalog
        knows (or is an elided follow-up, "and for DAT301m?", of one that asked: `earlier`
        holds the conversation's questions before it); None sends it on to retrieval. The
        database is read only when the words ask."""
        if not (asks_catalog(question) or carried_over(question, earlier)):
            return None
        try:
            catalog = await self.catalog(ctx)
            asked = read_question(question, catalog, earlier) if len(catalog) else None
            profile = None
            # A profile holds failed courses: it answers only where the asker alone reads the
            # reply (a group gets the requirements; /cantake replies privately).
            wants_profile = asked is not None and asked.asked & {Asked.CAN_TAKE, Asked.BLOCKED}
            if wants_profile and reads_alone(ctx):
                profile = await self._store.profile(ctx.course_id, ctx.user_id)
        except Exception as error:
            # The material can still answer while the database is down: retrieval needs none.
            log.warning("catalog unavailable, answering from retrieval", error=type(error).__name__)
            return None
        if asked is None:
            return None
        if asked.intake is not None:
            # "I'm K18, ...": that intake's curriculum answers, or the reply says there is none;
            # another intake's plan is never passed off as it.
            of_intake = catalog.for_intake(asked.intake)
            if of_intake is None:
                return Answer(text=_no_curriculum(catalog, asked.intake))
            catalog = of_intake
            asked = read_question(question, catalog, earlier) or asked
        cited = _Cited()
        return cited.answer(self._question_lines(catalog, asked, profile, cited))

    def _question_lines(
        self,
        catalog: Catalog,
        asked: CatalogQuestion,
        profile: StudentProfile | None,
        cited: _Cited,
    ) -> list[str]:
        courses = asked.courses
        if Asked.BLOCKED in asked.asked:
            semester = asked.semester or (profile.semester if profile else None)
            return self._blocked_lines(catalog, courses, semester, cited)
        if Asked.CAN_TAKE in asked.asked:
            # "Can I take X before doing Y?": X is the course asked about.
            return self._can_take_lines(catalog, courses[0], profile, cited)
        if Asked.PREREQUISITES in asked.asked and len(courses) == 2:
            between = self._between_lines(catalog, courses[0], courses[1], cited)
            if between:
                return between
        lines = []
        for course in courses:
            if Asked.PREREQUISITES in asked.asked:
                lines.extend(self._chain_lines(catalog, course, cited))
            if Asked.UNLOCKS in asked.asked:
                lines.extend(self._unlock_lines(catalog, course, cited))
            if asked.asked & {Asked.CREDITS, Asked.SEMESTER}:
                lines.extend(
                    self._info_lines(
                        catalog,
                        course,
                        cited,
                        credits=Asked.CREDITS in asked.asked,
                        semester=Asked.SEMESTER in asked.asked,
                        prerequisites=False,
                        intake=asked.intake,
                    )
                )
        return lines

    # The words of each answer -------------------------------------------------------------------

    async def _course(self, ctx: Context, argument: str, usage: str) -> tuple[Catalog, Course]:
        if not argument.strip():
            raise BadInputError(f"Which course? Usage: {usage} (a code, a code prefix or a name).")
        catalog = await self.catalog(ctx)
        if not len(catalog):
            raise BadInputError(NO_CATALOG)
        return catalog, _resolved(catalog, argument)

    def _chain_lines(self, catalog: Catalog, course: Course, cited: _Cited) -> list[str]:
        prerequisites, source = course.prerequisites()
        head = f"{_title(course)}: {_needs(prerequisites)}{cited.mark(source)}{_version(source)}."
        lines = [head, *_notes(prerequisites)]
        chain = catalog.chain(course)
        if any(depth > 1 for depth, *_ in chain) or any(c is None for _, _, c, _ in chain):
            lines.append("The whole chain:")
            for depth, code, target, repeated in chain:
                indent = "  " * depth
                if target is None:
                    lines.append(f"{indent}- {code} (not in the catalog)")
                    continue
                shown = code if code == target.code else f"{code}: {target.code}"
                if repeated:
                    lines.append(f"{indent}- {shown} (above)")
                    continue
                needs, fact = target.prerequisites()
                lines.append(f"{indent}- {shown} {target.name}: {_needs(needs)}{cited.mark(fact)}")
        return lines

    def _unlock_lines(self, catalog: Catalog, course: Course, cited: _Cited) -> list[str]:
        unlocked = _in_plan_order(catalog, catalog.unlocks(course))
        plan = catalog.current_plan()
        inside = [c for c in unlocked if catalog.in_plan(c, plan)]
        outside = [c for c in unlocked if not catalog.in_plan(c, plan)]
        plan_name = _plan_label(catalog, plan)
        lines = []
        if not unlocked:
            return [f"No course in the catalog requires {course.code}."]
        if plan is not None:
            listed = "; ".join(_unlocked(c, cited) for c in inside) or "nothing"
            lines.append(f"{course.code} unlocks, in the current curriculum {plan_name}: {listed}.")
        if outside:
            also = "; ".join(_unlocked(c, cited) for c in outside)
            lead = "Outside it, also required by" if plan is not None else f"{course.code} unlocks"
            lines.append(f"{lead}: {also}.")
        later = [
            c.code
            for c in _in_plan_order(catalog, catalog.unlocks_later(course))
            if plan is None or catalog.in_plan(c, plan)
        ]
        if later:
            lines.append(f"Further down the chain: {', '.join(later)}.")
        return lines

    def _info_lines(
        self,
        catalog: Catalog,
        course: Course,
        cited: _Cited,
        *,
        credits: bool,
        semester: bool,
        prerequisites: bool = True,
        intake: int | None = None,
    ) -> list[str]:
        lines = [_title(course)]
        if credits:
            fact = course.newest("credits")
            value = (
                f"{_number(fact.credits)}{cited.mark(fact)}{_version(fact)}"
                if fact
                else "not stated"
            )
            lines.append(f"Credits: {value}")
        if semester:
            lines.append(f"Semester: {self._semester(catalog, course, cited, intake)}")
        if prerequisites:
            needs, fact = course.prerequisites()
            lines.append(f"Prerequisites: {_needs(needs)}{cited.mark(fact)}{_version(fact)}")
            lines.extend(_notes(needs))
            unlocked = catalog.unlocks(course)
            if unlocked:
                lines.append(f"Unlocks: {', '.join(c.code for c in unlocked)}")
            sources = ", ".join(dict.fromkeys(f.file_name for f in course.facts))
            lines.append(f"Stated in: {sources}")
        return lines

    def _semester(self, catalog: Catalog, course: Course, cited: _Cited, intake: int | None) -> str:
        row = catalog.plan_row(course, intake) or catalog.plan_row(course)
        if row is None or row.semester is None:
            if intake is not None and catalog.current_plan(intake) is not None:
                return f"not in {_plan_label(catalog, catalog.current_plan(intake))}"
            return "not stated in any curriculum"
        text = f"{row.semester} in {row.version.label or row.file_name}{cited.mark(row)}"
        current = catalog.current_plan(intake)
        if row.document_id != current and current is not None:
            text += f" (it is not in {_plan_label(catalog, current)})"
        others = sorted(
            {
                (f.semester, f.version.label)
                for f in course.facts
                if f.in_plan and f.semester is not None
            }
            - {(row.semester, row.version.label)}
        )
        differing = [f"{s} in {label}" for s, label in others if s != row.semester]
        if differing:
            text += f"; other versions: {', '.join(differing)}"
        return text

    def _can_take_lines(
        self,
        catalog: Catalog,
        course: Course,
        profile: StudentProfile | None,
        cited: _Cited,
    ) -> list[str]:
        if profile is None or profile.empty:
            needs, fact = course.prerequisites()
            return [
                f"{_title(course)} requires: {_needs(needs)}{cited.mark(fact)}{_version(fact)}.",
                *_notes(needs),
                NO_PROFILE,
            ]
        eligibility = catalog.eligibility(course, profile.passed)
        needs, fact = eligibility.prerequisites, eligibility.source
        if eligibility.allowed:
            verdict = f"Yes: you can take {_title(course)}"
            reason = (
                f"you passed what it requires: {_needs(needs)}{cited.mark(fact)}{_version(fact)}."
                if needs.requirement is not None
                else f"{_needs(needs)}{cited.mark(fact)}{_version(fact)}."
            )
            lines = [f"{verdict}; {reason}"]
            if not needs.exact:
                lines.append("The table states more than courses, which I cannot check: see below.")
        else:
            missing = ", ".join(_missing_text(m, profile) for m in eligibility.missing)
            lines = [
                f"No: you cannot take {_title(course)} yet; missing {missing}.",
                f"It requires {_needs(needs)}{cited.mark(fact)}{_version(fact)}.",
            ]
            lines.extend(self._missing_chain(catalog, eligibility, profile, cited))
        lines.extend(_notes(needs))
        row = catalog.plan_row(course)
        if row is not None and row.semester is not None:
            plan = row.version.label or row.file_name
            when = f"It is in semester {row.semester} of {plan}{cited.mark(row)}"
            mine = f"; your profile says semester {profile.semester}" if profile.semester else ""
            lines.append(f"{when}{mine}.")
        return lines

    def _missing_chain(
        self,
        catalog: Catalog,
        eligibility: Eligibility,
        profile: StudentProfile,
        cited: _Cited,
    ) -> list[str]:
        lines: list[str] = []
        seen: set[str] = set()

        def walk(requirements: Sequence[Requirement], depth: int) -> None:
            for code in dict.fromkeys(c for r in requirements for c in r.codes()):
                for target in catalog.matching(code):
                    if target.code in seen or target.code in profile.passed:
                        continue
                    seen.add(target.code)
                    below = catalog.eligibility(target, profile.passed)
                    if below.allowed:
                        continue
                    missing = ", ".join(_missing_text(m, profile) for m in below.missing)
                    lines.append(
                        f"{'  ' * depth}- {target.code} needs {_needs(below.prerequisites)}"
                        f"{cited.mark(below.source)}: missing {missing}"
                    )
                    walk(below.missing, depth + 1)

        walk(eligibility.missing, 0)
        return (["Down the chain:", *lines]) if lines else []

    def _blocked_lines(
        self,
        catalog: Catalog,
        failed: Sequence[Course],
        semester: int | None,
        cited: _Cited,
    ) -> list[str]:
        plan = catalog.current_plan()
        blocked = [
            c
            for c in _in_plan_order(catalog, catalog.blocked_by([c.code for c in failed]))
            if catalog.in_plan(c, plan) or plan is None
        ]
        if semester is not None:
            blocked = [
                c for c in blocked if (row := catalog.plan_row(c)) and row.semester == semester
            ]
        codes = ", ".join(c.code for c in failed)
        where = f"semester {semester} of " if semester is not None else ""
        plan_name = _plan_label(catalog, plan) if plan else "the catalog"
        if not blocked:
            return [f"Failing {codes} blocks nothing in {where}{plan_name}."]
        lines = [f"With {codes} not passed, you cannot take these courses in {where}{plan_name}:"]
        for course in blocked:
            needs, fact = course.prerequisites()
            lines.append(f"- {_title(course)}: requires {_needs(needs)}{cited.mark(fact)}")
        if semester is not None and plan is not None:
            others = sorted(
                c.code
                for c in catalog.courses()
                if c not in blocked
                and c not in failed
                and (row := catalog.plan_row(c)) is not None
                and row.document_id == plan
                and row.semester == semester
            )
            if others:
                listed = ", ".join(others)
                lines.append(f"The other semester-{semester} courses ({listed}) don't need it.")
        return lines

    def _between_lines(
        self, catalog: Catalog, first: Course, second: Course, cited: _Cited
    ) -> list[str]:
        """The chain from a lower course up to a higher one, when one leads to the other."""
        for low, high in ((first, second), (second, first)):
            ancestors = {c.code for c in catalog.ancestors(high)}
            if low.code not in ancestors:
                continue
            steps = [
                c
                for c in catalog.ancestors(high)
                if low.code in {a.code for a in catalog.ancestors(c)}
            ]
            lines = [f"From {low.code} up to {_title(high)}:"]
            for course in [*steps, high]:
                needs, fact = course.prerequisites()
                lines.append(f"- {_title(course)} requires {_needs(needs)}{cited.mark(fact)}")
            middle = [", ".join(c.code for c in steps)] if steps else []
            lines.append(f"So: {' -> '.join([low.code, *middle, high.code])}.")
            return lines
        return []

    def _profile_text(self, catalog: Catalog, profile: StudentProfile, course_id: str) -> str:
        if profile.empty:
            return f"You have no profile in '{course_id}' yet. {PROFILE_USAGE}"
        parts = [
            f"semester {profile.semester}" if profile.semester is not None else "semester not set",
            f"passed: {', '.join(profile.passed) or 'none'}",
            f"failed: {', '.join(profile.failed) or 'none'}",
        ]
        text = f"Your profile in '{course_id}': {'; '.join(parts)}."
        if profile.failed and len(catalog):
            plan = catalog.current_plan()
            blocked = [
                c.code
                for c in _in_plan_order(catalog, catalog.blocked_by(profile.failed))
                if plan is None or catalog.in_plan(c, plan)
            ]
            if blocked:
                failed = ", ".join(profile.failed)
                text += f" Until you pass {failed}, these stay closed: {', '.join(blocked)}."
        return text


def _no_curriculum(catalog: Catalog, intake: int) -> str:
    listed = ", ".join(catalog.plan_labels()) or "none"
    return f"The material has no curriculum for K{intake} students (its curricula: {listed})."


def _resolved(catalog: Catalog, argument: str) -> Course:
    resolution = catalog.resolve(argument)
    if resolution.outcome is Outcome.FOUND and resolution.course is not None:
        return resolution.course
    typed = argument.strip()
    if resolution.outcome is Outcome.AMBIGUOUS:
        shown = ", ".join(_title(c) for c in resolution.candidates[:MAX_CANDIDATES])
        more = "…" if len(resolution.candidates) > MAX_CANDIDATES else ""
        raise BadInputError(f"'{typed}' could be {shown}{more}: which one?")
    raise BadInputError(f"There is no course '{typed}' in the catalog.")


def _canonical(catalog: Catalog, typed: str) -> str:
    """A code the student typed for their profile, as the catalog writes it; a well-formed
    code the catalog does not list (MAC101) is kept as typed."""
    resolution = catalog.resolve(typed)
    if resolution.outcome is Outcome.FOUND and resolution.course is not None:
        return resolution.course.code
    if is_code(typed):
        return typed
    if resolution.outcome is Outcome.AMBIGUOUS:
        shown = ", ".join(c.code for c in resolution.candidates[:MAX_CANDIDATES])
        raise BadInputError(f"'{typed}' could be {shown}: which one? {PROFILE_USAGE}")
    raise BadInputError(f"'{typed}' is not a course code I know. {PROFILE_USAGE}")


def _in_plan_order(catalog: Catalog, courses: Sequence[Course]) -> list[Course]:
    """By semester in the newest plan listing them (courses in no plan last), then code."""

    def order(course: Course) -> tuple[int, str]:
        row = catalog.plan_row(course)
        semester = row.semester if row is not None and row.semester is not None else 99
        return (semester, course.code)

    return sorted(courses, key=order)


def _title(course: Course) -> str:
    return f"{course.code} ({course.name})" if course.name else course.code


def _needs(prerequisites: Prerequisites) -> str:
    if prerequisites.requirement is not None:
        return prerequisites.requirement.render()
    if prerequisites.conditions:
        return "no course (see the conditions)"
    return "no prerequisites" if prerequisites.stated else "no prerequisites stated"


def _notes(prerequisites: Prerequisites) -> list[str]:
    notes = [f"  {code} is listed but marked “{note}”." for code, note in prerequisites.waived]
    if prerequisites.conditional:
        notes.append(f"  Required of some students only: {', '.join(prerequisites.conditional)}.")
    notes.extend(f"  The table says: “{text}”" for text in prerequisites.conditions)
    return notes


def _version(fact: CourseFact | None) -> str:
    return f" ({fact.version.label})" if fact is not None and fact.version.label else ""


def _plan_label(catalog: Catalog, document_id: str | None) -> str:
    for course in catalog.courses():
        for fact in course.facts:
            if fact.document_id == document_id:
                return fact.version.label or fact.file_name
    return "the catalog"


def _unlocked(course: Course, cited: _Cited) -> str:
    needs, fact = course.prerequisites()
    return f"{_title(course)}, which needs {_needs(needs)}{cited.mark(fact)}"


def _number(value: float | None) -> str:
    if value is None:
        return "not stated"
    return str(int(value)) if value == int(value) else f"{value:g}"


def _missing_text(requirement: Requirement, profile: StudentProfile) -> str:
    failed = {code_key(c) for c in profile.failed}
    if requirement.kind is Kind.COURSE:
        mark = " (failed)" if code_key(requirement.code) in failed else ""
        return f"{requirement.code}{mark}"
    return (
        f"one of {requirement.render()}" if requirement.kind is Kind.ANY else requirement.render()
    )
