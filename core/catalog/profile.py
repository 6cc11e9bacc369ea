"""A student's profile on a course (semester, passed and failed courses) and the
`/profile` command's words."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from core.errors import BadInputError

PROFILE_USAGE = (
    "Usage: /profile [semester N] [passed CODE,CODE…] [failed CODE,CODE…], "
    "or /profile clear; /profile alone shows yours."
)
_KEYWORDS = {
    "semester": "semester", "sem": "semester", "passed": "passed", "pass": "passed",
    "failed": "failed", "fail": "failed",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class StudentProfile:
    semester: int | None = None
    passed: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return self.semester is None and not self.passed and not self.failed


@dataclass(frozen=True, slots=True)
class ProfileChange:
    """What a `/profile` line sets; None leaves that part as it was."""

    semester: int | None = None
    passed: tuple[str, ...] | None = None
    failed: tuple[str, ...] | None = None
    clear: bool = False

    @property
    def shows_only(self) -> bool:
        return (
            not self.clear and self.semester is None and self.passed is None and self.failed is None
        )

    def applied_to(self, profile: StudentProfile) -> StudentProfile:
        """The parts given replace their own; a course newly passed is no longer failed and
        the other way round."""
        if self.clear:
            return StudentProfile()
        passed, failed = profile.passed, profile.failed
        if self.passed is not None:
            passed = self.passed
            failed = tuple(c for c in failed if c not in self.passed)
        if self.failed is not None:
            failed = self.failed
            passed = tuple(c for c in passed if c not in self.failed)
        semester = self.semester if self.semester is not None else profile.semester
        return replace(profile, semester=semester, passed=passed, failed=failed)


def parse_profile(argument: str, canonical: Callable[[str], str]) -> ProfileChange:
    """`semester 4 passed MAE101,CSI106 failed MAS291` -> a change. `canonical` turns what
    the student typed into a catalog code, raising BadInputError for what it cannot."""
    words = argument.replace(",", " , ").split()
    if not words:
        return ProfileChange()
    if len(words) == 1 and words[0].lower() in ("clear", "reset"):
        return ProfileChange(clear=True)
    parts: dict[str, list[str]] = {}
    current: str | None = None
    for word in words:
        keyword = _KEYWORDS.get(word.lower().rstrip(":"))
        if keyword is not None:
            if keyword in parts:
                raise BadInputError(f"'{word}' is given twice. {PROFILE_USAGE}")
            current = keyword
            parts[keyword] = []
        elif current is None:
            raise BadInputError(f"I don't understand '{word}'. {PROFILE_USAGE}")
        elif word != ",":
            parts[current].append(word)
    semester = None
    if "semester" in parts:
        values = parts["semester"]
        if len(values) != 1 or not re.fullmatch(r"\d{1,2}", values[0]):
            raise BadInputError(f"The semester is a number, like 'semester 4'. {PROFILE_USAGE}")
        semester = int(values[0])
    codes = {
        key: tuple(dict.fromkeys(canonical(v) for v in parts[key]))
        for key in ("passed", "failed")
        if key in parts
    }
    both = set(codes.get("passed", ())) & set(codes.get("failed", ()))
    if both:
        raise BadInputError(f"{', '.join(sorted(both))} cannot be both passed and failed.")
    return ProfileChange(semester=semester, passed=codes.get("passed"), failed=codes.get("failed"))
