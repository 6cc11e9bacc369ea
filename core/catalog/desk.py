"""The catalog's use cases in chat: `/prereq`, `/courseinfo`, `/cantake`, `/profile`, and
catalog questions asked in plain words ("can I take DAT301m?"), answered exactly from the
tables with their citations. Every reply names the version its facts come from."""

from __future__ import annotations

import re
from collections.abc import Sequence

import structlog

from core.catalog.advisor import Advisor
from core.catalog.cited import Cited
from core.catalog.codes import Kind, Prerequisites, Requirement
from core.catalog.extract import AssessmentFact, CourseFact, OutcomeFact
from core.catalog.graph import Catalog, Course, Eligibility, Outcome
from core.catalog.intent import Asked, CatalogQuestion, asks_catalog, carried_over, read_question
from core.catalog.profile import PROFILE_USAGE, StudentProfile, parse_profile
from core.catalog.rules import CourseRules
from core.catalog.store import CatalogStore
from core.context import Context
from core.course_codes import code_key, is_code
from core.errors import BadInputError
from core.permissions import Action, require
from core.replies import Answer, Notice
from core.visibility import reads_alone

NO_CATALOG = (
    "I found no table of courses (code, name, credits, semester or prerequisites) in this "
    "course's material."
)
NO_PROFILE = (
    "I don't know which courses you passed: tell me with "
    "/profile semester N passed CODE,CODE failed CODE."
)
NO_PROFILE_HERE = (
    "What you can take depends on your record, which I only read where you alone see the "
    "reply: ask me in a direct message (after /profile semester N passed CODE,CODE)."
)
MAX_CANDIDATES = 8

log = structlog.get_logger(__name__)


class CatalogDesk:
    def __init__(self, store: CatalogStore) -> None:
        self._store = store

    async def catalog(self, ctx: Context) -> Catalog:
        return Catalog(await self._store.facts(ctx.course_id))

    # Commands ---------------------------------------------------------------------------------

    async def prereq(self, ctx: Context, argument: str) -> Answer:
        catalog, course = await self._course(ctx, argument, "/prereq CODE")
        cited = Cited()
        lines = [
            *self._chain_lines(catalog, course, cited),
            *self._unlock_lines(catalog, course, cited),
        ]
        return cited.answer(lines)

    async def courseinfo(self, ctx: Context, argument: str) -> Answer:
        catalog, course = await self._course(ctx, argument, "/courseinfo CODE")
        cited = Cited()
        return cited.answer(self._info_lines(catalog, course, cited, credits=True, semester=True))

    async def cantake(self, ctx: Context, argument: str) -> Answer:
        catalog, course = await self._course(ctx, argument, "/cantake CODE")
        profile = await self._store.profile(ctx.course_id, ctx.user_id)
        cited = Cited()
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

    async def advising(self, ctx: Context, ahead: int | None) -> Notice:
        """`/advising [ahead N]`: the course's own rules, which its documents do not state
        and every answer using them names as the course's."""
        require(ctx, Action.SET_ADVISING)
        rules = await self._store.rules(ctx.course_id)
        if ahead is not None:
            rules = CourseRules(ahead_limit=ahead)
            await self._store.save_rules(ctx.course_id, rules, ctx.user_id)
            return Notice(f"Saved: in '{ctx.course_id}', {rules.describe()}. Answers about "
                          "taking a course early name this as the course's rule.")  # fmt: skip
        return Notice(f"The rules of '{ctx.course_id}': {rules.describe()}. "
                      "Set one with /advising ahead N.")  # fmt: skip

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
            wants_profile = asked is not None and asked.asked & {
                Asked.CAN_TAKE, Asked.BLOCKED, Asked.TAKE_NEXT,
            }  # fmt: skip
            if wants_profile and reads_alone(ctx):
                profile = await self._store.profile(ctx.course_id, ctx.user_id)
            outcomes: list[OutcomeFact] = []
            if asked is not None and Asked.OUTCOMES in asked.asked:
                outcomes = await self._store.outcomes(ctx.course_id)
            rules = CourseRules()
            if asked is not None and Asked.AHEAD in asked.asked:
                rules = await self._store.rules(ctx.course_id)
            graded: list[AssessmentFact] = []
            if asked is not None and asked.asked & {Asked.GRADING, Asked.COMPARE} and asked.courses:
                codes = [f.code for c in asked.courses for f in c.facts]
                graded = await self._store.assessments(ctx.course_id, list(dict.fromkeys(codes)))
        except Exception as error:
            # The material can still answer while the database is down: retrieval needs none.
            log.warning("catalog unavailable, answering from retrieval", error=type(error).__name__)
            return None
        if asked is None:
            return None
        if Asked.VERSIONS in asked.asked and asked.courses:
            # "Was it the same in K18?": every curriculum answers, each named.
            cited = Cited()
            advisor = Advisor(catalog, outcomes, cited, rules=rules)
            placed = advisor.versions(asked.courses, asked.semesters)
            if Asked.GRADING in asked.asked:
                placed.extend(await self._versions_grading(ctx, catalog, advisor, asked, cited))
            return cited.answer(placed)
        if asked.intake is not None:
            # "I'm K18, ...": that intake's curriculum answers, or the reply says there is none;
            # another intake's plan is never passed off as it.
            of_intake = catalog.for_intake(asked.intake)
            if of_intake is None:
                return Answer(text=_no_curriculum(catalog, asked.intake))
            catalog = of_intake
            asked = read_question(question, catalog, earlier) or asked
        cited = Cited()
        if Asked.COMPARE in asked.asked:
            return cited.answer(self._compare_lines(catalog, asked, graded, cited))
        if graded:
            return cited.answer(_grading_lines(asked.courses, graded, cited))
        if Asked.GRADING in asked.asked and not asked.asked & _COURSE_ASKS:
            return None  # no assessment table: the material's passages may still say
        advisor = Advisor(catalog, outcomes, cited, intake=asked.intake, rules=rules)
        lines = self._advice(advisor, asked, question, profile, reads_alone(ctx))
        if lines is None:
            lines = self._question_lines(catalog, asked, profile, cited)
            if Asked.GROUPS in asked.asked and asked.courses:
                # "Do the combo courses X and Y need prereqs?": the courses, then their combos.
                lines.extend(advisor.groups(question, asked.courses))
        return cited.answer(lines) if lines else None

    async def _versions_grading(
        self,
        ctx: Context,
        catalog: Catalog,
        advisor: Advisor,
        asked: CatalogQuestion,
        cited: Cited,
    ) -> list[str]:
        """ "Is it graded differently now?": the grading of each course named and of what took
        a dropped one's place, where their syllabi have an assessment table."""
        courses = list(asked.courses)
        for course in asked.courses:
            for row in advisor.replacements(course):
                found = catalog.get(row.code)
                if found is not None and all(c.code != found.code for c in courses):
                    courses.append(found)
        try:
            codes = [f.code for c in courses for f in c.facts]
            graded = await self._store.assessments(ctx.course_id, list(dict.fromkeys(codes)))
        except Exception as error:
            log.warning("catalog unavailable, versions without grading", error=type(error).__name__)
            return []
        return _tabled_grading(courses, graded, cited)

    def _advice(
        self,
        advisor: Advisor,
        asked: CatalogQuestion,
        question: str,
        profile: StudentProfile | None,
        alone: bool,
    ) -> list[str] | None:
        """The programme advisor's answer, in the order of `core.catalog.intent`'s table;
        None leaves the question to the course answers."""
        wants, courses = asked.asked, asked.courses
        if Asked.BLOCKED in wants:
            return None
        if Asked.AHEAD in wants and courses:
            return advisor.ahead(courses[0])
        if Asked.TAKE_NEXT in wants and not courses:
            if profile is None or profile.empty:
                return [NO_PROFILE if alone else NO_PROFILE_HERE]
            return advisor.take_next(profile)
        if Asked.CAN_TAKE in wants:
            return None if courses else []
        if Asked.OUTCOMES in wants:
            return advisor.outcomes(question, courses)
        if Asked.GROUPS in wants and not (courses and wants & _COURSE_ASKS):
            return advisor.groups(question, courses)
        if courses:
            return None
        if Asked.SEMESTER_COURSES in wants and asked.semester is not None:
            return advisor.semester_courses(asked.semester)
        if Asked.GRADUATION in wants:
            return advisor.graduation()
        return []

    def _question_lines(
        self,
        catalog: Catalog,
        asked: CatalogQuestion,
        profile: StudentProfile | None,
        cited: Cited,
    ) -> list[str]:
        courses = asked.courses
        if Asked.BLOCKED in asked.asked:
            semesters = asked.semesters or (
                (profile.semester,) if profile and profile.semester is not None else ()
            )
            return self._blocked_lines(catalog, courses, semesters, cited)
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
                lines.extend(self._plan_line(catalog, course, cited))
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
        if Asked.CREDITS in asked.asked and len(courses) > 1:
            stated = [f.credits for c in courses if (f := c.newest("credits")) and f.credits]
            if len(stated) == len(courses):
                lines.append(f"In total: {_number(sum(stated))} credits for these {len(courses)} "
                             "courses.")  # fmt: skip
        return lines

    def _compare_lines(
        self,
        catalog: Catalog,
        asked: CatalogQuestion,
        graded: Sequence[AssessmentFact],
        cited: Cited,
    ) -> list[str]:
        """Each course compared, on one line: credits, semester, prerequisites; then each
        one's grading where its syllabus has an assessment table."""
        lines = []
        for course in asked.courses:
            credits = course.newest("credits")
            stated = (
                f"{_number(credits.credits)} credits{cited.mark(credits)}"
                if credits and credits.credits is not None
                else "credits not stated"
            )
            needs, fact = course.prerequisites()
            semester = self._semester(catalog, course, cited, asked.intake)
            lines.append(f"{_title(course)}: {stated}; semester {semester}; "
                         f"prerequisites: {_needs(needs)}{cited.mark(fact)}.")  # fmt: skip
        return lines + _tabled_grading(asked.courses, graded, cited)

    def _plan_line(self, catalog: Catalog, course: Course, cited: Cited) -> list[str]:
        """Where the course sits in the current plan: its semester and credits."""
        row = catalog.plan_row(course)
        if row is None or row.semester is None:
            return []
        return [f"It is a semester-{row.semester} course of {row.version.label or row.file_name}, "
                f"{_number(row.credits)} credits{cited.mark(row)}."]  # fmt: skip

    # The words of each answer -------------------------------------------------------------------

    async def _course(self, ctx: Context, argument: str, usage: str) -> tuple[Catalog, Course]:
        if not argument.strip():
            raise BadInputError(f"Which course? Usage: {usage} (a code, a code prefix or a name).")
        catalog = await self.catalog(ctx)
        if not len(catalog):
            raise BadInputError(NO_CATALOG)
        return catalog, _resolved(catalog, argument)

    def _chain_lines(self, catalog: Catalog, course: Course, cited: Cited) -> list[str]:
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

    def _unlock_lines(self, catalog: Catalog, course: Course, cited: Cited) -> list[str]:
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
        cited: Cited,
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

    def _semester(self, catalog: Catalog, course: Course, cited: Cited, intake: int | None) -> str:
        row = catalog.plan_row(course, intake) or catalog.plan_row(course)
        grouped = next((f for f in course.facts if f.group and f.semester is not None), None)
        if (row is None or row.semester is None) and grouped is not None:
            return (f"{grouped.semester}, as a course of {grouped.group} "
                    f"({grouped.file_name}){cited.mark(grouped)}")  # fmt: skip
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
        cited: Cited,
    ) -> list[str]:
        if profile is None or profile.empty:
            needs, fact = course.prerequisites()
            return [
                f"{_title(course)} requires: {_needs(needs)}{cited.mark(fact)}{_version(fact)}.",
                *_notes(needs),
                *self._plan_line(catalog, course, cited),
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
        cited: Cited,
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
        semesters: Sequence[int],
        cited: Cited,
    ) -> list[str]:
        """What the failed courses close: in the semesters asked about first (the failed
        courses' own semesters are when they were failed, not what is asked), with the
        courses of those semesters that stay open, then further on, then outside the plan."""
        plan = catalog.current_plan()
        plan_name = _plan_label(catalog, plan) if plan else "the catalog"
        codes = ", ".join(c.code for c in failed)
        own = {r.semester for c in failed if (r := catalog.plan_row(c)) is not None}
        # "Failed X in sem 2, is anything later blocked?": sem 2 is when, the whole plan what.
        in_plan = {r.semester for c in catalog.courses() if (r := catalog.plan_row(c))}
        focus = [s for s in semesters if s not in own and s in in_plan]
        blocked = _in_plan_order(catalog, catalog.blocked_by([c.code for c in failed]))
        inside = [c for c in blocked if plan is None or catalog.in_plan(c, plan)]
        outside = [c for c in blocked if c not in inside]
        focused = [c for c in inside if _semester_of(catalog, c) in focus] if focus else inside
        later = [c for c in inside if c not in focused]
        where = f"{_semesters_text(focus)} of " if focus else ""
        lines = []
        if focused:
            lines.append(f"With {codes} not passed, you cannot take these courses in {where}"
                         f"{plan_name}:")  # fmt: skip
            lines.extend(self._blocked_line(catalog, c, cited) for c in focused)
        else:
            lines.append(f"Failing {codes} blocks nothing in {where}{plan_name}.")
        for semester in focus if len(focus) <= 2 and plan is not None else ():
            others = [
                c.code
                for c in _in_plan_order(catalog, catalog.courses())
                if c not in focused and c not in failed and catalog.in_plan(c, plan)
                and _semester_of(catalog, c) == semester
            ]  # fmt: skip
            if others:
                lines.append(f"The other semester-{semester} courses ({', '.join(others)}) "
                             "don't need it.")  # fmt: skip
        if later:
            lead = "Further on, also closed" if focus and focused else "Elsewhere in the plan"
            lines.append(f"{lead}:")
            lines.extend(self._blocked_line(catalog, c, cited) for c in later)
        if outside:
            lines.append(
                "Outside the curriculum (a combo's or another plan's course), also closed:"
            )
            lines.extend(self._blocked_line(catalog, c, cited) for c in outside)
        if not blocked:
            for course in failed:
                row = catalog.plan_row(course)
                if row is not None and row.semester is not None:
                    lines.append(
                        f"No course lists {course.code} as a prerequisite; it is still a "
                        f"semester-{row.semester}, {_number(row.credits)}-credit course of "
                        f"{row.version.label or row.file_name}{cited.mark(row)}, to pass "
                        "before you graduate."
                    )
        return lines

    def _blocked_line(self, catalog: Catalog, course: Course, cited: Cited) -> str:
        needs, fact = course.prerequisites()
        semester = _semester_of(catalog, course)
        credits = course.newest("credits")
        when = f", semester {semester}" if semester is not None else ""
        when += f", {_number(credits.credits)} credits" if credits is not None else ""
        group = next((f.group for f in course.facts if f.group), "")
        where = f", in {group}" if group and semester is None else ""
        return f"- {_title(course)}{when}{where}: requires {_needs(needs)}{cited.mark(fact)}"

    def _between_lines(
        self, catalog: Catalog, first: Course, second: Course, cited: Cited
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


_COURSE_ASKS = frozenset({Asked.PREREQUISITES, Asked.UNLOCKS, Asked.CREDITS, Asked.SEMESTER})


def _grading_lines(
    courses: Sequence[Course], graded: Sequence[AssessmentFact], cited: Cited
) -> list[str]:
    """Each named course's graded parts, weights first; for several, the final exams side by
    side."""
    lines = []
    finals = []
    for course in courses:
        rows = [g for g in graded if code_key(g.course) == code_key(course.code)]
        if not rows:
            lines.append(f"{_title(course)}: the material has no assessment table for it.")
            continue
        parts = "; ".join(_graded_part(row) for row in rows)
        lines.append(f"{_title(course)} is graded{cited.mark(rows[0])}: {parts}.")
        final = [r for r in rows if "final" in r.category.lower()]
        if final:
            finals.append(f"{course.code} {' + '.join(r.weight for r in final)}")
    if len(finals) > 1:
        lines.append(f"Final exam weight: {', '.join(finals)}.")
    return lines


def _tabled_grading(
    courses: Sequence[Course], graded: Sequence[AssessmentFact], cited: Cited
) -> list[str]:
    """The grading of those of `courses` whose syllabus has an assessment table."""
    with_table = {code_key(g.course) for g in graded}
    shown = [c for c in courses if code_key(c.code) in with_table]
    return _grading_lines(shown, graded, cited) if shown else []


def _graded_part(row: AssessmentFact) -> str:
    parts = f" ({row.parts} parts)" if row.parts.isdigit() and int(row.parts) > 1 else ""
    details = []
    if row.duration and len(row.duration) <= 40:
        details.append(row.duration)
    # The completion criterion: "4" and ">= 4" a floor, ">0" a part that must not be zero.
    floor = re.fullmatch(r"(>=?|≥)?\s*(\d+(?:[.,]\d+)?)", row.criterion.strip())
    if floor:
        details.append(f"{'above' if floor.group(1) == '>' else 'at least'} {floor.group(2)}")
    shown = f" ({', '.join(details)})" if details else ""
    return f"{' '.join(row.category.split())}{parts} {row.weight}{shown}"


def _semester_of(catalog: Catalog, course: Course) -> int | None:
    row = catalog.plan_row(course)
    return row.semester if row is not None else None


def _semesters_text(semesters: Sequence[int]) -> str:
    ordered = sorted(set(semesters))
    if len(ordered) > 2 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"semesters {ordered[0]}-{ordered[-1]}"
    if len(ordered) == 1:
        return f"semester {ordered[0]}"
    return "semesters " + ", ".join(map(str, ordered))


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


def _unlocked(course: Course, cited: Cited) -> str:
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
