"""The programme advisor: answers about the programme as a whole, read from its tables and
cited, in the current curriculum unless the question names an intake: a semester's courses
with their count and credits, the credits to graduate, the combos (groups of courses) and
which fits an interest, the learning outcomes and the courses serving them, what a student
may take next, and how soon a course can be taken under the course's own rule for taking
courses ahead (`CourseRules`, named as the course's rule, never the documents').

Nothing here knows a programme: groups are the headings of course lists, outcomes are what
the outcome tables state, and a syllabus's outcome map is read against the curriculum list
with as many outcomes as the map has columns. Where the tables hold nothing for a question,
an answer is empty: the question goes on to the material's passages, which may still say."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.catalog.cited import Cited
from core.catalog.extract import CourseFact, OutcomeFact, OutcomeKind, is_outcome_code
from core.catalog.graph import Catalog, Course, satisfied
from core.catalog.profile import StudentProfile
from core.catalog.rules import CourseRules
from core.course_codes import code_key, intakes_in
from core.text import fold

# Words that say nothing of an interest ("which combo fits if I want to do ...").
# fmt: off
_PLAIN = frozenset({
    "a", "an", "and", "any", "are", "as", "at", "be", "can", "combo", "combos", "course",
    "courses", "do", "does", "for", "from", "have", "how", "i", "if", "im", "in", "into", "is",
    "it", "its", "like", "me", "my", "of", "on", "one", "or", "pick", "should", "so", "some",
    "stuff", "subject", "subjects", "that", "the", "there", "this", "to", "want", "what",
    "which", "with", "would", "you", "your", "about", "fit", "fits", "suit", "suits", "best",
    "good", "choose", "interested", "interest", "option", "options", "specialisation",
    "specialization", "pathway", "pathways", "elective", "electives", "kinda", "really", "also",
    "lot", "lots", "more", "most",
})
# fmt: on
_WORD = re.compile(r"[a-z][a-z0-9]+")
_FIT = re.compile(
    r"\b(?:fits?|suits?|best|recommend\w*|into|interested|want|like|is there|are there|any)\b"
)
_COUNT = re.compile(r"\bhow many\b|\bnumber of\b|\bchang\w*|\bsame\b|\bdiffer\w*")
_SERVING = re.compile(
    r"\b(?:which|what) (?:courses|subjects|syllabi|classes)\b|\bcourses? (?:are )?mapped\b"
    r"|\bserves?\b.*\?$"
)
MAX_LISTED = 12


def _stems(text: str) -> set[str]:
    """A text's words, cut to five letters so "genomes" meets "genome", "trading" "trade"."""
    return {w[:5] for w in _WORD.findall(fold(text)) if w not in _PLAIN and len(w) >= 3}


def _credits(value: float | None) -> str:
    if value is None:
        return "credits not stated"
    number = str(int(value)) if value == int(value) else f"{value:g}"
    return f"{number} credit{'s' if value != 1 else ''}"


def _total(rows: Sequence[CourseFact]) -> str:
    total = sum(r.credits or 0 for r in rows)
    return str(int(total)) if total == int(total) else f"{total:g}"


def _label(row: CourseFact | OutcomeFact) -> str:
    return row.version.label or row.file_name


def _intakes(row: CourseFact | OutcomeFact) -> str:
    """A curriculum as students name it ("K20-K21 (BIT_AI_K20D-21A)"), else its label."""
    found = [n for i in intakes_in(_label(row), bare_cohorts=True) for n in i.numbers]
    if not found:
        return _label(row)
    named = "-".join(f"K{n}" for n in dict.fromkeys(found))
    return f"{named} ({_label(row)})"


@dataclass(frozen=True, slots=True)
class _Slot:
    """Where a group's course sits: its list's document and that document's semester, and
    the plan's row standing for the slot (the document's code: AI17_COM_4 ~ AI17_COM*4)."""

    fact: CourseFact
    plan_row: CourseFact | None


class Advisor:
    def __init__(
        self,
        catalog: Catalog,
        outcomes: Sequence[OutcomeFact],
        cited: Cited,
        *,
        intake: int | None = None,
        rules: CourseRules | None = None,
    ) -> None:
        self._catalog = catalog
        self._outcomes = outcomes
        self._cited = cited
        self._intake = intake
        self._rules = rules or CourseRules()
        self._plan = catalog.current_plan(intake)

    # The plan ------------------------------------------------------------------------------

    def _plan_rows(self) -> list[CourseFact]:
        if self._plan is None:
            return []
        rows = [f for c in self._catalog.courses() for f in c.facts if f.document_id == self._plan]
        return sorted(rows, key=lambda f: f.ordinal)

    def _plan_name(self) -> str:
        rows = self._plan_rows()
        return _label(rows[0]) if rows else "the curriculum"

    def semester_courses(self, semester: int) -> list[str]:
        rows = [r for r in self._plan_rows() if r.semester == semester]
        if self._plan is None:
            return []
        if not rows:
            found = sorted({r.semester for r in self._plan_rows() if r.semester is not None})
            shown = ", ".join(map(str, found))
            return [f"{self._plan_name()} has no semester {semester} (its semesters: {shown})."]
        count = len(rows)
        with_credits = [r for r in rows if r.credits]
        lines = [
            f"Semester {semester} of {self._plan_name()} has {count} course"
            f"{'s' if count != 1 else ''}, {_total(rows)} credits in total"
            f"{self._cited.mark(rows[0])}:"
        ]
        lines.extend(f"- {r.code} {r.name} ({_credits(r.credits)})" for r in rows)
        if len(with_credits) < count:
            none = ", ".join(r.code for r in rows if not r.credits)
            lines.append(f"Without credits: {none}.")
        return lines

    def graduation(self) -> list[str]:
        rows = self._plan_rows()
        if not rows:
            return []
        by_semester: dict[int, list[CourseFact]] = {}
        for row in rows:
            if row.semester is not None:
                by_semester.setdefault(row.semester, []).append(row)
        spread = "; ".join(f"semester {s}: {_total(r)}" for s, r in sorted(by_semester.items()))
        return [
            f"{self._plan_name()} lists {len(rows)} courses, {_total(rows)} credits in total"
            f"{self._cited.mark(rows[0])}.",
            f"By semester: {spread}.",
            "The curriculum table states no other graduation rule; one stated in a course's "
            "row (an internship's credit threshold) is in its prerequisites.",
        ]

    # Groups (combos, specialisations, electives) ----------------------------------------------

    def _slots(self) -> dict[str, list[_Slot]]:
        plan_rows = {_squeezed(r.code): r for r in self._plan_rows()}
        groups: dict[str, list[_Slot]] = {}
        for course in self._catalog.courses():
            for fact in course.facts:
                if fact.group:
                    row = plan_rows.get(_squeezed(_stem(fact.file_name)))
                    groups.setdefault(fact.group, []).append(_Slot(fact, row))
        for slots in groups.values():
            slots.sort(
                key=lambda s: (
                    s.fact.semester if s.fact.semester is not None else 99,
                    s.fact.file_name,
                    s.fact.ordinal,
                )
            )
        return groups

    def groups(self, question: str, courses: Sequence[Course]) -> list[str]:
        slots = self._slots()
        if not slots:
            return []
        if courses:
            return self._membership(slots, courses)
        if _FIT.search(fold(question)):
            fit = self._fit(slots, question)
            if fit:
                return fit
        return self._overview(slots)

    def _where(self, slot: _Slot) -> str:
        fact = slot.fact
        semester = f" (semester {fact.semester})" if fact.semester is not None else ""
        return _stem(fact.file_name) + semester

    def _group_lines(self, group: str, slots: Sequence[_Slot]) -> list[str]:
        """A group's courses by slot, slots offering the same courses merged: "AI17_COM_1,
        AI17_COM_2 (semester 5): DSR301m ..., BDI302c ..."."""
        by_slot: dict[str, list[_Slot]] = {}
        for slot in slots:
            by_slot.setdefault(slot.fact.document_id, []).append(slot)
        merged: dict[tuple[str, ...], list[list[_Slot]]] = {}
        for found in by_slot.values():
            merged.setdefault(tuple(s.fact.code for s in found), []).append(found)
        marks = "".join(dict.fromkeys(self._cited.mark(s.fact) for s in slots))
        lines = [f"{group}{marks}:{self._availability(group)}"]
        for places in merged.values():
            first = places[0]
            where = ", ".join(self._where(p[0]) for p in places)
            listed = ", ".join(f"{s.fact.code} {s.fact.name}" for s in first)
            lines.append(f"- {where}: {listed}")
        return lines

    def _slot_line(self, slots: dict[str, list[_Slot]]) -> list[str]:
        """The plan's rows standing for the groups' slots, with semesters and credits."""
        used = {s.plan_row.code for group in slots.values() for s in group if s.plan_row}
        rows = [r for r in self._plan_rows() if r.code in used]
        if not rows:
            return []
        spread = "; ".join(
            f"{r.code} {r.name} in semester {r.semester} ({_credits(r.credits)})" for r in rows
        )
        return [f"In {self._plan_name()}: {spread}{self._cited.mark(rows[0])}."]

    def _availability(self, group: str) -> str:
        """A heading that names intakes ("Available: K18D - K19A") against the question's."""
        named = [n for found in intakes_in(group) for n in found.numbers]
        if self._intake is None or not named:
            return ""
        low, high = min(named), max(named)
        if low <= self._intake <= high:
            return f" its heading lists K{self._intake} among its intakes."
        return f" its heading limits it to K{low}-K{high}: K{self._intake} is not listed."

    def _membership(self, slots: dict[str, list[_Slot]], courses: Sequence[Course]) -> list[str]:
        lines = []
        shown: set[str] = set()
        for course in courses:
            groups = [
                g for g, group in slots.items() if any(s.fact.code == course.code for s in group)
            ]
            if not groups:
                lists = ", ".join(
                    dict.fromkeys(
                        _stem(s.fact.file_name) for group in slots.values() for s in group
                    )
                )
                lines.append(
                    f"{course.code} {course.name}: in none of the material's combo or group "
                    f"lists ({lists}){self._own_facts(course)}."
                )
                continue
            for group in groups:
                if group not in shown:
                    shown.add(group)
                    lines.extend(self._group_lines(group, slots[group]))
        if shown:
            lines.extend(self._slot_line({g: slots[g] for g in shown}))
        return lines

    def _own_facts(self, course: Course) -> str:
        credits = course.newest("credits")
        _, fact = course.prerequisites()
        parts = []
        if credits is not None:
            parts.append(f"{_credits(credits.credits)}{self._cited.mark(credits)}")
        if fact is not None:
            parts.append(f"prerequisites {fact.prerequisites}{self._cited.mark(fact)}")
        return f" (its own syllabus: {', '.join(parts)})" if parts else ""

    def _fit(self, slots: dict[str, list[_Slot]], question: str) -> list[str]:
        """The groups whose courses' names (counted twice) and descriptions share the most
        words with the question, each with the course that matched and why."""
        wanted = _stems(question)
        scored: dict[tuple[str, str], tuple[int, set[str]]] = {}
        for group, group_slots in slots.items():
            for slot in group_slots:
                course = self._catalog.get(slot.fact.code)
                described = " ".join(f.description for f in (course.facts if course else ()))
                named = wanted & _stems(slot.fact.name)
                shared = named | (wanted & _stems(described))
                if shared:
                    scored[(group, slot.fact.code)] = (2 * len(named) + len(shared), shared)
        if not scored:
            return []
        best = max(score for score, _ in scored.values())
        lines: list[str] = []
        matched: set[str] = set()
        for (group, code), (score, shared) in list(scored.items()):
            if score < best or len(lines) >= 6:
                continue
            group_slots = [s for s in slots[group] if s.fact.code == code]
            matched.add(group)
            course = self._catalog.get(code)
            where = ", ".join(self._where(s) for s in group_slots)
            lines.append(
                f"{group}, through {code} {group_slots[0].fact.name}, in {where}"
                f"{self._cited.mark(group_slots[0].fact)}.{self._availability(group)}"
            )
            reason = _reason(course, shared) if course else ""
            if reason and course is not None:
                fact = next(f for f in course.facts if f.description)
                lines.append(f"  Why: its description says “{reason}”{self._cited.mark(fact)}")
            else:
                lines.append("  Its name matches; the material has no syllabus describing it.")
        return [*lines, *self._slot_line({g: slots[g] for g in matched})]

    def _overview(self, slots: dict[str, list[_Slot]]) -> list[str]:
        lines = self._slot_line(slots)
        for group, group_slots in slots.items():
            lines.extend(self._group_lines(group, group_slots))
        return lines

    # Learning outcomes ----------------------------------------------------------------------

    def _lists(self) -> list[tuple[str, list[OutcomeFact]]]:
        """The curricula's outcome lists (not a syllabus's own), newest plan first: one per
        document and outcome prefix ("PLO", "PO")."""
        lists: dict[tuple[str, str], list[OutcomeFact]] = {}
        for fact in self._outcomes:
            if fact.kind is OutcomeKind.STATED and not fact.course:
                lists.setdefault((fact.document_id, _prefix(fact.code)), []).append(fact)
        # By the documents' own versions: an intake's question reads the others too.
        ranked = sorted(lists.items(), key=lambda item: item[1][0].version.key(), reverse=True)
        return [(prefix, facts) for (_, prefix), facts in ranked]

    def _current_list(self, prefix: str) -> list[OutcomeFact]:
        for found, facts in self._lists():
            if found == prefix and (self._plan is None or facts[0].document_id == self._plan):
                return facts
        return next((facts for found, facts in self._lists() if found == prefix), [])

    def _list_name(self, facts: Sequence[OutcomeFact]) -> str:
        return f"the {len(facts)}-{_prefix(facts[0].code)} list of {_intakes(facts[0])}"

    def _lists_of_size(self, prefix: str, size: int) -> list[list[OutcomeFact]]:
        return [f for p, f in self._lists() if p == prefix and len(f) == size]

    def outcomes(self, question: str, courses: Sequence[Course]) -> list[str]:
        folded = fold(question)
        codes = list(
            dict.fromkeys(
                m.group().replace(" ", "").upper()
                for m in re.finditer(r"\b\w*p?l?o ?\d{1,2}\b", folded)
                if is_outcome_code(m.group().replace(" ", "").upper())
            )
        )
        if not self._outcomes:
            return []
        if courses and not (codes and _SERVING.search(folded)):
            return [line for course in courses for line in self._course_map(course)]
        if codes:
            return [line for code in codes for line in self._about_code(code, folded)]
        if _COUNT.search(folded):
            return self._counts()
        return self._matching(question)

    def _course_map(self, course: Course) -> list[str]:
        rows = [
            o
            for o in self._outcomes
            if o.kind is OutcomeKind.MAPPED and code_key(o.course) == code_key(course.code)
        ]
        if not rows:
            return []
        columns = rows[0].columns
        prefix = _prefix(rows[0].targets[0]) if rows[0].targets else "PLO"
        by_target: dict[str, list[str]] = {}
        for row in rows:
            for target in row.targets:
                by_target.setdefault(target, []).append(row.code)
        matching = self._lists_of_size(prefix, columns)
        scheme = (
            f"the {columns}-{prefix} numbering of {', '.join(_intakes(m[0]) for m in matching)}"
            if matching
            else f"a {columns}-{prefix} numbering no curriculum in the material lists"
        )
        lines = [
            f"{course.code}'s outcome map ({rows[0].section or 'no heading'}) has {columns} "
            f"{prefix} columns, "
            f"{scheme}{self._cited.mark(rows[0])}:"
        ]
        texts = {o.code: o for o in matching[0]} if matching else {}
        for target in sorted(by_target, key=_number_of):
            clos = by_target[target]
            which = (
                f"all {len(rows)} of its outcomes" if len(clos) == len(rows) else ", ".join(clos)
            )
            stated = texts.get(target)
            meaning = f": {_short(stated.text)}{self._cited.mark(stated)}" if stated else ""
            lines.append(f"- {target} ({which}){meaning}")
        return lines

    def _about_code(self, code: str, folded: str) -> list[str]:
        prefix = _prefix(code)
        if _SERVING.search(folded):
            return self._serving(code)
        lines = []
        current = self._current_list(prefix)
        stated = next((o for o in current if _same_code(o.code, code)), None)
        if stated is not None:
            lines.append(
                f"{stated.code} in {self._list_name(current)}: {stated.text}"
                f"{self._cited.mark(stated)}"
            )
            lines.extend(self._mapped_to(stated))
        contributing = self._contributing(code)
        lines.extend(contributing)
        for found, facts in self._lists():
            if found != prefix or (current and facts[0].document_id == current[0].document_id):
                continue
            other = next((o for o in facts if _same_code(o.code, code)), None)
            if other is not None and (stated is None or fold(other.text) != fold(stated.text)):
                lines.append(
                    f"In {self._list_name(facts)}, {other.code} is: {_short(other.text)}"
                    f"{self._cited.mark(other)}"
                )
        if not lines:
            return []
        return lines

    def _mapped_to(self, stated: OutcomeFact) -> list[str]:
        row = next(
            (
                o
                for o in self._outcomes
                if o.kind is OutcomeKind.MAPPED
                and o.document_id == stated.document_id
                and not o.course
                and _same_code(o.code, stated.code)
            ),
            None,
        )
        if row is None or not row.targets:
            return []
        return [
            f"It serves {', '.join(row.targets)} in {_label(row)}'s map{self._cited.mark(row)}."
        ]

    def _contributing(self, code: str) -> list[str]:
        """A higher outcome (a PO): the outcomes the current curriculum's map ticks for it."""
        maps = [
            o
            for o in self._outcomes
            if o.kind is OutcomeKind.MAPPED
            and not o.course
            and any(_same_code(t, code) for t in o.targets)
        ]
        if not maps:
            return []
        document = (
            self._plan if any(o.document_id == self._plan for o in maps) else (maps[0].document_id)
        )
        rows = [o for o in maps if o.document_id == document]
        texts = {
            o.code: o
            for o in self._outcomes
            if o.kind is OutcomeKind.STATED and o.document_id == document
        }
        target = next(t for t in rows[0].targets if _same_code(t, code))
        lines = [
            f"In {_label(rows[0])}'s map, {target} is served by "
            f"{', '.join(r.code for r in rows)}{self._cited.mark(rows[0])}:"
        ]
        for row in rows:
            stated = texts.get(row.code)
            lines.append(f"- {row.code}: {_short(stated.text) if stated else ''}")
        return lines

    def _serving(self, code: str) -> list[str]:
        rows = [
            o
            for o in self._outcomes
            if o.kind is OutcomeKind.MAPPED
            and o.course
            and any(_same_code(t, code) for t in o.targets)
        ]
        if not rows:
            return []
        by_columns: dict[int, list[str]] = {}
        marks: dict[str, str] = {}
        for row in rows:
            by_columns.setdefault(row.columns, [])
            if row.course not in by_columns[row.columns]:
                by_columns[row.columns].append(row.course)
                marks[row.course] = self._cited.mark(row)
        lines = []
        prefix = _prefix(code)
        for columns, found in sorted(by_columns.items()):
            matching = self._lists_of_size(prefix, columns)
            scheme = (
                f"the {columns}-{prefix} numbering of {', '.join(_intakes(m[0]) for m in matching)}"
                if matching
                else f"a {columns}-{prefix} numbering no curriculum lists"
            )
            listed = ", ".join(f"{c}{marks[c]}" for c in sorted(found))
            syllabi = "syllabus" if len(found) == 1 else "syllabi"
            tick = "ticks" if len(found) == 1 else "tick"
            lines.append(
                f"{len(found)} {syllabi} with {columns} {prefix} columns, {scheme}, {tick} "
                f"{code}: {listed}."
            )
            for facts in matching[:1]:
                stated = next((o for o in facts if _same_code(o.code, code)), None)
                if stated is not None:
                    lines.append(
                        f"  {stated.code} there: {_short(stated.text)}{self._cited.mark(stated)}"
                    )
        current = self._current_list(prefix)
        if current and not any(_same_code(o.code, code) for o in current):
            lines.append(
                f"{self._list_name(current)[0].upper()}{self._list_name(current)[1:]} has no "
                f"{code}{self._cited.mark(current[0])}."
            )
        return lines

    def _counts(self) -> list[str]:
        lines = []
        for prefix, facts in self._lists():
            lines.append(
                f"{_intakes(facts[0])} lists {len(facts)} {prefix}s "
                f"({facts[0].code}-{facts[-1].code}){self._cited.mark(facts[0])}."
            )
        schemes: dict[int, set[str]] = {}
        for row in self._outcomes:
            if row.kind is OutcomeKind.MAPPED and row.course:
                schemes.setdefault(row.columns, set()).add(row.course)
        if schemes:
            spread = "; ".join(f"{len(c)} with {n} columns" for n, c in sorted(schemes.items()))
            lines.append(f"The syllabi's outcome maps: {spread}.")
        return lines

    def _matching(self, question: str) -> list[str]:
        """The current list's outcomes sharing the most words with the question, then the
        one doing so in each other curriculum's list ("which number was it in K18?")."""
        wanted = _stems(question) - {"outco", "learn", "progr", "plo", "plos", "new"}
        lines: list[str] = []
        for prefix in ("PLO", "PO"):
            current = self._current_list(prefix)
            best = self._best(current, wanted)
            if not best:
                continue
            for stated in best:
                lines.append(
                    f"{stated.code} in {self._list_name(current)}: {stated.text}"
                    f"{self._cited.mark(stated)}"
                )
                lines.extend(self._mapped_to(stated))
            for found, facts in self._lists():
                if found != prefix or facts[0].document_id == current[0].document_id:
                    continue
                for stated in self._best(facts, wanted)[:1]:
                    lines.append(
                        f"In {self._list_name(facts)}: {stated.code}, {_short(stated.text)}"
                        f"{self._cited.mark(stated)}"
                    )
            break
        return lines

    @staticmethod
    def _best(facts: Sequence[OutcomeFact], wanted: set[str]) -> list[OutcomeFact]:
        scored = [(len(wanted & _stems(o.text)), o) for o in facts]
        best = max((score for score, _ in scored), default=0)
        return [o for score, o in scored if score == best][:2] if best else []

    # Versions of the plan -------------------------------------------------------------------

    def versions(self, courses: Sequence[Course], semesters: Sequence[int]) -> list[str]:
        """Each curriculum's row of each course (semester, credits), newest first; a course
        a newer curriculum dropped, with the courses that newer one has in its semester and
        the older one had not (what took its place)."""
        plans = self._catalog.plan_documents()
        lines: list[str] = []
        for course in courses:
            rows = {f.document_id: f for f in course.facts if f.in_plan}
            listed = []
            for plan in plans:
                row = rows.get(plan)
                if row is not None:
                    listed.append(
                        f"semester {row.semester}, {_credits(row.credits)} in "
                        f"{_intakes(row)}{self._cited.mark(row)}"
                    )
            missing = [self._plan_label(p) for p in plans if p not in rows]
            text = f"{course.code} {course.name}: " + ("; ".join(listed) or "in no curriculum")
            if missing and listed:
                text += f"; not in {', '.join(missing)}"
            lines.append(text + ".")
            if plans and plans[0] not in rows and rows:
                lines.extend(self._replacing(course, rows, plans[0]))
        return lines

    def _plan_label(self, document_id: str) -> str:
        row = next(
            (f for c in self._catalog.courses() for f in c.facts if f.document_id == document_id),
            None,
        )
        return _intakes(row) if row else document_id

    def replacements(self, course: Course) -> list[CourseFact]:
        """The rows of the newest curriculum that took the place of a course it dropped: its
        courses in the dropped course's semester that the older curriculum had not."""
        plans = self._catalog.plan_documents()
        rows = {f.document_id: f for f in course.facts if f.in_plan}
        if not plans or plans[0] in rows or not rows:
            return []
        return self._new_rows(rows, plans[0])

    def _replacing(self, course: Course, rows: dict[str, CourseFact], newest: str) -> list[str]:
        new_rows = self._new_rows(rows, newest)
        if not new_rows:
            return []
        older = next(iter(rows.values()))
        listed = ", ".join(f"{r.code} {r.name} ({_credits(r.credits)})" for r in new_rows)
        return [
            f"In semester {older.semester} of {_intakes(new_rows[0])}, new since "
            f"{_intakes(older)}: {listed}{self._cited.mark(new_rows[0])}."
        ]

    def _new_rows(self, rows: dict[str, CourseFact], newest: str) -> list[CourseFact]:
        older = next(iter(rows.values()))
        old_codes = {
            code_key(c.code)
            for c in self._catalog.courses()
            if any(f.document_id == older.document_id for f in c.facts)
        }
        new_rows = [
            f
            for c in self._catalog.courses()
            for f in c.facts
            if f.document_id == newest
            and f.semester == older.semester
            and code_key(f.code) not in old_codes
        ]
        return new_rows

    # A student's next steps -----------------------------------------------------------------

    def take_next(self, profile: StudentProfile) -> list[str]:
        rows = [r for r in self._plan_rows() if r.semester is not None]
        passed = {code_key(c) for c in profile.passed}
        open_rows: list[CourseFact] = []
        closed: list[CourseFact] = []
        for row in rows:
            if code_key(row.code) in passed:
                continue
            course = self._catalog.get(row.code)
            requirement = course.requirement() if course else None
            (open_rows if satisfied(requirement, profile.passed) else closed).append(row)
        if not open_rows:
            return ["By your profile, every course of the curriculum is passed or still closed."]
        first = min(r.semester for r in open_rows if r.semester is not None)
        now = [r for r in open_rows if r.semester == first]
        lines = [
            f"By your profile, the earliest courses of {self._plan_name()} open to you are in "
            f"semester {first}{self._cited.mark(now[0])}:",
            *(f"- {r.code} {r.name} ({_credits(r.credits)})" for r in now),
        ]
        later = [r for r in open_rows if r not in now][:MAX_LISTED]
        if later:
            lines.append(
                "Also open (later semesters): "
                + ", ".join(f"{r.code} (semester {r.semester})" for r in later)
                + "."
            )
        blocked = [r for r in closed if r.semester is not None and r.semester <= first + 1]
        if blocked:
            lines.append(
                "Not yet (prerequisites missing): " + ", ".join(r.code for r in blocked) + "."
            )
        return lines

    def ahead(self, course: Course) -> list[str]:
        row = self._catalog.plan_row(course, self._intake)
        if row is None or row.semester is None:
            return []
        needs, fact = course.prerequisites()
        lines = [
            f"{course.code} {course.name} is a semester-{row.semester} course of "
            f"{_label(row)} ({_credits(row.credits)}){self._cited.mark(row)}; it requires "
            f"{needs.requirement.render() if needs.requirement else 'no course'}"
            f"{self._cited.mark(fact)}."
        ]
        earliest_now, reasons = self._earliest(course, ahead=0)
        earliest_ahead, _ = self._earliest(course, ahead=1)
        if reasons:
            lines.append("Its prerequisites sit in: " + "; ".join(reasons) + ".")
        limit = self._rules.ahead_limit
        if limit is None:
            lines.append(
                f"Without taking anything ahead: semester {earliest_now}. The documents state "
                f"no rule for taking courses ahead, and this course has none set (its "
                f"instructor can set one with /advising ahead N); where one course of the next "
                f"semester may be taken early, the earliest is semester {earliest_ahead}."
            )
        elif limit == 0:
            lines.append(
                f"This course's rule (not the documents'): no course may be taken ahead, so "
                f"the earliest is semester {earliest_now}."
            )
        else:
            latest_needed = max(self._prerequisite_semesters(course), default=-1)
            chained = (
                " (its prerequisites taken ahead too, each a semester early)"
                if earliest_ahead <= latest_needed
                else ""
            )
            lines.append(
                f"This course's rule (set by its instructor, not stated in the documents): "
                f"{self._rules.describe()}. So the earliest is semester {earliest_ahead}{chained}, "
                f"as one of those {limit} courses, once its prerequisites are passed; it cannot "
                f"go earlier, as only the next semester's courses may be taken ahead."
            )
        return lines

    def _prerequisite_semesters(self, course: Course) -> list[int]:
        requirement = course.requirement()
        return [
            row.semester
            for code in (requirement.codes() if requirement else ())
            for needed in self._catalog.matching(code)
            if (row := self._catalog.plan_row(needed, self._intake)) and row.semester is not None
        ]

    def _earliest(self, course: Course, *, ahead: int) -> tuple[int, list[str]]:
        """The earliest semester a course can be taken: its own, less `ahead`, and after each
        prerequisite's earliest; with the prerequisites' own semesters, for the reply."""
        memo: dict[str, int] = {}
        reasons: list[str] = []

        def earliest(target: Course, depth: int) -> int:
            if target.code in memo:
                return memo[target.code]
            memo[target.code] = 0  # a cycle in the tables ends here
            row = self._catalog.plan_row(target, self._intake)
            own = row.semester if row is not None and row.semester is not None else 0
            start = max(0, own - ahead)
            requirement = target.requirement()
            for code in requirement.codes() if requirement else ():
                for needed in self._catalog.matching(code):
                    start = max(start, earliest(needed, depth + 1) + 1)
                    if depth == 0:
                        needed_row = self._catalog.plan_row(needed, self._intake)
                        if needed_row is not None and needed_row.semester is not None:
                            reasons.append(f"{needed.code} semester {needed_row.semester}")
            memo[target.code] = start
            return start

        return earliest(course, 0), list(dict.fromkeys(reasons))


def _reason(course: Course, shared: set[str]) -> str:
    """The sentence of the course's description holding most of the shared words."""
    description = next((f.description for f in course.facts if f.description), "")
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", description) if s.strip()]
    if not sentences:
        return ""
    best = max(sentences, key=lambda s: len(shared & _stems(s)))
    return _short(best, 300) if shared & _stems(best) else ""


def _short(text: str, limit: int = 220) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _squeezed(code: str) -> str:
    return re.sub(r"[^a-z0-9]", "", fold(code))


def _stem(file_name: str) -> str:
    return file_name.rsplit(".", 1)[0]


def _prefix(code: str) -> str:
    """An outcome's kind from its id: "PLO" for "PLO5", "PO" for "BIT_AI_PO1"."""
    match = re.search(r"([A-Z]*O)\d+[a-z]?$", code.upper())
    return match.group(1) if match else code


def _number_of(code: str) -> tuple[str, int]:
    match = re.search(r"(\d+)[a-z]?$", code)
    return (_prefix(code), int(match.group(1)) if match else 0)


def _same_code(a: str, b: str) -> bool:
    """PO4 is BIT_AI_PO4: the same prefix and number, whatever stands before them."""
    return _number_of(a) == _number_of(b)
