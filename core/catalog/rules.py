"""A course's own academic rules: what the institution holds that its documents do not
state, set by the course's instructor (`/advising`), and named in every answer that uses one
as a rule of the course, not of the documents."""

from __future__ import annotations

from dataclasses import dataclass

# Taking ahead more than this many courses in one semester is no rule a course would set.
MAX_AHEAD = 10


@dataclass(frozen=True, slots=True)
class CourseRules:
    # How many courses of the next semester a student may take ahead in a semester; None: not
    # set (no course is taken ahead in an answer), 0: none may be.
    ahead_limit: int | None = None

    def describe(self) -> str:
        if self.ahead_limit is None:
            return "no rule for taking courses ahead is set"
        return (
            f"at most {self.ahead_limit} course{'s' if self.ahead_limit != 1 else ''} of the "
            "next semester may be taken ahead in a semester"
        )
