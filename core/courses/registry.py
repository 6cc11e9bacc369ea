"""Course records in the SQL database: who created a course, who staffs it, who belongs to it.
Every replica and every restart sees the same records."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from core.context import Role
from core.courses.models import CourseMember, CourseRow, CourseStaff
from core.database.upsert import upsert


@dataclass(frozen=True, slots=True)
class Course:
    course_id: str
    title: str
    created_by: str
    created_at: datetime
    open: bool
    invite_code: str | None


@dataclass(frozen=True, slots=True)
class StaffGrant:
    principal: str
    role: Role
    granted_by: str


def _course(row: CourseRow) -> Course:
    return Course(
        row.course_id, row.title, row.created_by, row.created_at, row.open, row.invite_code
    )


class CourseRegistry:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def get(self, course_id: str) -> Course | None:
        query = select(CourseRow).where(CourseRow.course_id == course_id)
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).one_or_none()
        return _course(row) if row else None  # type: ignore[arg-type]

    async def create(
        self, course_id: str, created_by: str, *, instructor: str | None = None, title: str = ""
    ) -> bool:
        """Create the course, its `instructor` (if any) its first staff member, in one
        transaction. False when the course exists already: the first creator wins a race."""
        now = datetime.now(UTC)
        try:
            async with self._engine.begin() as connection:
                await connection.execute(
                    insert(CourseRow).values(
                        course_id=course_id,
                        title=title,
                        created_by=created_by,
                        created_at=now,
                        open=False,
                    )
                )
                if instructor is not None:
                    await connection.execute(
                        insert(CourseStaff).values(
                            course_id=course_id,
                            principal=instructor,
                            role=Role.INSTRUCTOR.value,
                            granted_by=created_by,
                            granted_at=now,
                        )
                    )
        except IntegrityError:
            return False
        return True

    async def ensure(self, course_id: str, created_by: str) -> None:
        """The course exists afterwards (material added from the command line creates it)."""
        if await self.get(course_id) is None:
            await self.create(course_id, created_by)

    async def all(self) -> list[Course]:
        async with self._engine.connect() as connection:
            rows = (await connection.execute(select(CourseRow))).all()
        return sorted((_course(r) for r in rows), key=lambda c: c.course_id)  # type: ignore[arg-type]

    # Staff ----------------------------------------------------------------------------

    async def staff(self, course_id: str) -> list[StaffGrant]:
        query = select(CourseStaff).where(CourseStaff.course_id == course_id)
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return sorted(
            (StaffGrant(r.principal, Role(r.role), r.granted_by) for r in rows),
            key=lambda g: (g.role.value, g.principal),
        )

    async def staff_roles(self, course_id: str, principals: Iterable[str]) -> frozenset[Role]:
        held = list(principals)
        if not held:
            return frozenset()
        query = select(CourseStaff.role).where(
            CourseStaff.course_id == course_id, CourseStaff.principal.in_(held)
        )
        async with self._engine.connect() as connection:
            return frozenset(Role(r) for r in (await connection.execute(query)).scalars())

    async def staffed_courses(self, principals: Iterable[str]) -> set[str]:
        held = list(principals)
        if not held:
            return set()
        query = select(CourseStaff.course_id).where(CourseStaff.principal.in_(held))
        async with self._engine.connect() as connection:
            return set((await connection.execute(query)).scalars())

    async def grant(self, course_id: str, principal: str, role: Role, granted_by: str) -> None:
        values = {
            "course_id": course_id,
            "principal": principal,
            "role": role.value,
            "granted_by": granted_by,
            "granted_at": datetime.now(UTC),
        }
        keys = ("course_id", "principal", "role")
        async with self._engine.begin() as connection:
            await connection.execute(upsert(self._engine.dialect.name, CourseStaff, values, keys))

    async def revoke(self, course_id: str, principal: str, role: Role) -> bool:
        statement = delete(CourseStaff).where(
            CourseStaff.course_id == course_id,
            CourseStaff.principal == principal,
            CourseStaff.role == role.value,
        )
        async with self._engine.begin() as connection:
            return (await connection.execute(statement)).rowcount > 0

    async def transfer(self, course_id: str, instructor: str, by: str) -> None:
        """Hand a course to `instructor`: every earlier staff grant goes, in one transaction."""
        now = datetime.now(UTC)
        async with self._engine.begin() as connection:
            await connection.execute(delete(CourseStaff).where(CourseStaff.course_id == course_id))
            await connection.execute(
                insert(CourseStaff).values(
                    course_id=course_id,
                    principal=instructor,
                    role=Role.INSTRUCTOR.value,
                    granted_by=by,
                    granted_at=now,
                )
            )
            await connection.execute(
                update(CourseRow)
                .where(CourseRow.course_id == course_id)
                .values(created_by=instructor)
            )

    # Members --------------------------------------------------------------------------

    async def join(self, course_id: str, user_id: str, via: str) -> None:
        values = {
            "course_id": course_id,
            "user_id": user_id,
            "via": via,
            "joined_at": datetime.now(UTC),
        }
        module = postgresql if self._engine.dialect.name == "postgresql" else sqlite
        statement = module.insert(CourseMember).values(values).on_conflict_do_nothing()
        async with self._engine.begin() as connection:
            await connection.execute(statement)

    async def is_member(self, course_id: str, user_id: str) -> bool:
        query = select(CourseMember.user_id).where(
            CourseMember.course_id == course_id, CourseMember.user_id == user_id
        )
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).first() is not None

    async def joined_courses(self, user_id: str) -> set[str]:
        query = select(CourseMember.course_id).where(CourseMember.user_id == user_id)
        async with self._engine.connect() as connection:
            return set((await connection.execute(query)).scalars())

    async def set_open(self, course_id: str, is_open: bool) -> None:
        statement = update(CourseRow).where(CourseRow.course_id == course_id).values(open=is_open)
        async with self._engine.begin() as connection:
            await connection.execute(statement)

    async def invite_code(self, course_id: str) -> str:
        """The course's invite code, made on first use."""
        course = await self.get(course_id)
        if course is not None and course.invite_code:
            return course.invite_code
        # Letters, digits, '_' and '-' only, at most 49: a Telegram start link carries it.
        code = f"{course_id.replace('.', '_')[:40]}-{secrets.token_urlsafe(6)}"
        statement = (
            update(CourseRow)
            .where(CourseRow.course_id == course_id, CourseRow.invite_code.is_(None))
            .values(invite_code=code)
        )
        async with self._engine.begin() as connection:
            await connection.execute(statement)
        course = await self.get(course_id)
        return course.invite_code if course and course.invite_code else code

    async def by_invite(self, code: str) -> str | None:
        query = select(CourseRow.course_id).where(CourseRow.invite_code == code)
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).scalar_one_or_none()
