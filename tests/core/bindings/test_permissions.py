"""Roles per course from the configured grants and each course's staff, and the
COURSEBOT_COURSE_ROLES setting the grants come from: grants never leak between courses, "*"
covers every course by id, a role *name* counts only for its own course in a chat bound to
it, administering a chat grants nothing, binding an existing course needs a chat admin who
teaches it, and an instructor may do whatever a moderator may."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from config import SettingsError, load_settings
from core.context import Context, Member, Role
from core.courses import CourseRegistry
from core.database import create_engine
from core.errors import PermissionDeniedError
from core.permissions import (
    BIND_NEEDS_ADMIN,
    BIND_NEEDS_INSTRUCTOR,
    CREATE_NEEDS_CONFIGURED,
    CREATE_NEEDS_STAFF,
    REBIND_NEEDS_INSTRUCTOR,
    Action,
    Authority,
    CourseCreation,
    RoleGrants,
    allowed,
    effective_roles,
    require,
)

GRANTS = RoleGrants(
    {
        "calc101": {"instructor": ["telegram:7"], "moderator": ["discord:role:TA"]},
        "phys201": {"moderator": ["telegram:8"]},
        "*": {"instructor": ["telegram:1", "discord:role:Staff"]},
    }
)


def member(
    user: str = "telegram:99",
    *principals: str,
    names: frozenset[str] = frozenset(),
    chat_admin: bool = False,
) -> Member:
    platform = user.partition(":")[0]
    return Member(platform, user, frozenset(principals), chat_admin=chat_admin, role_names=names)


def roles(course: str, who: Member, *, bound_here: bool = True) -> frozenset[Role]:
    return GRANTS.roles(course, who, bound_here=bound_here)


def ctx(roles: frozenset[Role], course: str = "calc101") -> Context:
    return Context(platform="telegram", course_id=course, user_id="telegram:99", roles=roles)


def test_nothing_is_granted_without_a_grant() -> None:
    assert roles("calc101", member()) == set()
    assert RoleGrants().roles("calc101", member(), bound_here=True) == set()


def test_grants_apply_to_their_own_course_only() -> None:
    assert roles("calc101", member("telegram:7")) == {Role.INSTRUCTOR}
    assert roles("phys201", member("telegram:7")) == set()
    assert roles("phys201", member("telegram:8")) == {Role.MODERATOR}
    assert roles("calc101", member("telegram:8")) == set()


def test_any_of_the_principals_may_hold_the_grant_and_case_matters() -> None:
    ta = member("discord:55", "discord:role:TA", "discord:role:everyone")
    assert roles("calc101", ta) == {Role.MODERATOR}
    assert roles("calc101", ta, bound_here=False) == {Role.MODERATOR}  # an id counts anywhere
    assert roles("calc101", member("discord:55", "discord:role:ta")) == set()


def test_role_names_count_for_their_own_course_in_a_chat_bound_to_it_only() -> None:
    named = member("discord:55", names=frozenset({"discord:role:TA", "discord:role:Staff"}))
    assert roles("calc101", named, bound_here=True) == {Role.MODERATOR}
    # Outside the course's own chats, anyone may have made a role of that name.
    assert roles("calc101", named, bound_here=False) == set()
    # A name never counts for "*": it would make its holder staff of every course.
    assert roles("phys201", named, bound_here=True) == set()
    assert not GRANTS.site_staff(named)


def test_wildcard_grant_covers_every_course_by_id() -> None:
    for course in ("calc101", "phys201", "never-configured"):
        assert Role.INSTRUCTOR in roles(course, member("telegram:1"), bound_here=False)
    staff = member("discord:2", "discord:role:Staff")
    assert roles("phys201", staff, bound_here=False) == {Role.INSTRUCTOR}
    assert GRANTS.site_staff(member("telegram:1")) and GRANTS.site_staff(staff)
    assert not GRANTS.site_staff(member("telegram:7"))  # instructor of calc101 only


def test_wildcard_and_course_grants_add_up() -> None:
    grants = RoleGrants({"*": {"moderator": ["u:1"]}, "calc101": {"instructor": ["u:1"]}})
    both = grants.roles("calc101", member("u:1"), bound_here=False)
    assert both == {Role.MODERATOR, Role.INSTRUCTOR}
    assert grants.roles("phys201", member("u:1"), bound_here=False) == {Role.MODERATOR}


def test_chat_admin_is_granted_nothing() -> None:
    assert roles("phys201", member("telegram:99", chat_admin=True)) == set()


# Authority: settings and the course's staff -------------------------------------------


@pytest.fixture
async def courses(migrated_url: str) -> AsyncIterator[CourseRegistry]:
    engine = create_engine(migrated_url)
    yield CourseRegistry(engine)
    await engine.dispose()


async def test_authority_adds_the_courses_staff_and_everyone_is_a_student(
    courses: CourseRegistry,
) -> None:
    authority = Authority(GRANTS, courses)
    await courses.create("calc101", "telegram:5", instructor="telegram:5")
    await courses.grant("calc101", "discord:role:42", Role.MODERATOR, "telegram:5")

    assert await authority.roles(member("telegram:5"), "calc101", bound_here=False) == {
        Role.STUDENT,
        Role.INSTRUCTOR,
    }
    assert await authority.roles(member("telegram:5"), "phys201", bound_here=False) == {
        Role.STUDENT
    }
    ta = member("discord:3", "discord:role:42")
    assert await authority.roles(ta, "calc101", bound_here=False) == {
        Role.STUDENT,
        Role.MODERATOR,
    }
    # A staff grant to a principal matches by id only, never by a role of that name.
    named = member("discord:3", names=frozenset({"discord:role:42"}))
    assert await authority.roles(named, "calc101", bound_here=True) == {Role.STUDENT}
    admin = member("telegram:9", chat_admin=True)
    assert await authority.roles(admin, "calc101", bound_here=True) == {Role.STUDENT}


async def test_binding_needs_a_chat_admin_who_teaches_an_existing_course(
    courses: CourseRegistry,
) -> None:
    authority = Authority(GRANTS, courses)
    await courses.create("calc101", "telegram:5", instructor="telegram:5")

    with pytest.raises(PermissionDeniedError) as refused:
        await authority.check_bind(member("telegram:5"), "calc101", current=None)
    assert str(refused.value) == BIND_NEEDS_ADMIN
    with pytest.raises(PermissionDeniedError) as refused:
        await authority.check_bind(member(chat_admin=True), "calc101", current=None)
    assert str(refused.value) == BIND_NEEDS_INSTRUCTOR.format(course="calc101")
    teacher = member("telegram:5", chat_admin=True)
    assert await authority.check_bind(teacher, "calc101", current=None) is False
    configured = member("telegram:7", chat_admin=True)
    assert await authority.check_bind(configured, "calc101", current=None) is False
    # A role name vouches only where the chat is bound to the course already.
    named = member("discord:3", names=frozenset({"discord:role:TA"}), chat_admin=True)
    grants = RoleGrants({"calc101": {"instructor": ["discord:role:TA"]}})
    by_name = Authority(grants, courses)
    with pytest.raises(PermissionDeniedError):
        await by_name.check_bind(named, "calc101", current=None)
    assert await by_name.check_bind(named, "calc101", current="calc101", here="calc101") is False

    # A new course: any chat admin, who will be its instructor.
    assert await authority.check_bind(member(chat_admin=True), "new101", current=None)


async def test_site_staff_only_creation(courses: CourseRegistry) -> None:
    authority = Authority(GRANTS, courses, CourseCreation.SITE_STAFF)

    with pytest.raises(PermissionDeniedError) as refused:
        await authority.check_bind(member(chat_admin=True), "new101", current=None)
    assert str(refused.value) == CREATE_NEEDS_STAFF.format(course="new101")
    staff = member("telegram:1", chat_admin=True)
    assert await authority.check_bind(staff, "new101", current=None) is True
    assert authority.site_staff(staff) and not authority.site_staff(member(chat_admin=True))


async def test_a_configured_course_is_created_by_its_configured_instructors_only(
    courses: CourseRegistry,
) -> None:
    authority = Authority(GRANTS, courses)

    for outsider in (member(chat_admin=True), member("telegram:8", chat_admin=True)):
        with pytest.raises(PermissionDeniedError) as refused:
            await authority.check_bind(outsider, "calc101", current=None)
        assert str(refused.value) == CREATE_NEEDS_CONFIGURED.format(course="calc101")
    # A role *name* never creates it: anyone may name a role "TA" in a server of their own.
    named = member("discord:3", names=frozenset({"discord:role:TA"}), chat_admin=True)
    with pytest.raises(PermissionDeniedError):
        await authority.check_bind(named, "calc101", current=None)
    assert await authority.check_bind(
        member("telegram:7", chat_admin=True), "calc101", current=None
    )
    assert await authority.check_bind(
        member("telegram:1", chat_admin=True), "phys201", current=None
    )
    # Site-staff-only creation still lets a course's configured instructor create it.
    strict = Authority(GRANTS, courses, CourseCreation.SITE_STAFF)
    assert await strict.check_bind(member("telegram:7", chat_admin=True), "calc101", current=None)


async def test_a_bound_chat_is_moved_only_by_its_courses_instructor_or_site_staff(
    courses: CourseRegistry,
) -> None:
    authority = Authority(GRANTS, courses)
    await courses.create("calc101", "telegram:5", instructor="telegram:5")
    await courses.create("evil", "telegram:66", instructor="telegram:66")

    co_admin = member("telegram:66", chat_admin=True)
    for target in ("evil", "new101"):
        with pytest.raises(PermissionDeniedError) as refused:
            await authority.check_bind(co_admin, target, current="calc101")
        assert str(refused.value) == REBIND_NEEDS_INSTRUCTOR.format(current="calc101")
    with pytest.raises(PermissionDeniedError):
        await authority.check_release(co_admin, "calc101", bound_here=True)
    teacher = member("telegram:5", chat_admin=True)
    assert await authority.check_bind(teacher, "new101", current="calc101") is True
    # Moving a chat to an existing course needs both: its own course's and the target's.
    with pytest.raises(PermissionDeniedError) as refused:
        await authority.check_bind(teacher, "evil", current="calc101")
    assert str(refused.value) == BIND_NEEDS_INSTRUCTOR.format(course="evil")
    site = member("telegram:1", chat_admin=True)
    assert await authority.check_bind(site, "evil", current="calc101") is False
    await authority.check_release(site, "calc101", bound_here=False)


def test_instructor_implies_moderator_but_not_the_reverse() -> None:
    assert effective_roles(ctx(frozenset({Role.INSTRUCTOR}))) == {
        Role.INSTRUCTOR,
        Role.MODERATOR,
        Role.STUDENT,
    }
    assert effective_roles(ctx(frozenset({Role.MODERATOR}))) == {Role.MODERATOR, Role.STUDENT}
    assert effective_roles(ctx(frozenset({Role.STUDENT}))) == {Role.STUDENT}


@pytest.mark.parametrize(
    ("roles", "permitted"),
    [
        ({Role.STUDENT}, set()),
        (
            {Role.STUDENT, Role.MODERATOR},
            {Action.REVIEW_MISTAKES, Action.REVIEW_QUESTIONS, Action.ANSWER_QUESTIONS},
        ),
        ({Role.STUDENT, Role.INSTRUCTOR}, set(Action)),
    ],
)
def test_require_allows_exactly_what_the_roles_permit(
    roles: set[Role], permitted: set[Action]
) -> None:
    context = ctx(frozenset(roles))
    for action in Action:
        assert allowed(context, action) is (action in permitted)
        if action in permitted:
            require(context, action)
        else:
            with pytest.raises(PermissionDeniedError):
                require(context, action)


def test_refusal_is_a_polite_sentence_naming_the_role_and_action() -> None:
    with pytest.raises(PermissionDeniedError) as refused:
        require(ctx(frozenset({Role.MODERATOR})), Action.BIND)
    assert str(refused.value) == "Sorry, only a course instructor can bind this chat to a course."
    assert (refused.value.role, refused.value.action) == ("instructor", Action.BIND.value)


def test_course_roles_setting_is_parsed_from_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "COURSEBOT_COURSE_ROLES",
        '{"calc101": {"instructor": ["telegram:7"], "moderator": ["discord:role:TA", "x"]},'
        ' "*": {"moderator": []}}',
    )
    settings = load_settings(env_file=None)
    assert settings.course_roles == {
        "calc101": {"instructor": ("telegram:7",), "moderator": ("discord:role:TA", "x")},
        "*": {"moderator": ()},
    }
    grants = RoleGrants(settings.course_roles)
    assert grants.roles("calc101", member("x:1", "x"), bound_here=False) == {Role.MODERATOR}


def test_course_roles_setting_defaults_to_no_grants(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings(env_file=None).course_roles == {}
    monkeypatch.setenv("COURSEBOT_COURSE_ROLES", "  ")
    assert load_settings(env_file=None).course_roles == {}


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ('{"calc101": {"instructor": ["telegram:7"]', "Expecting"),
        ('{"calc101": {"owner": ["telegram:7"]}}', "'instructor' or 'moderator'"),
        ('{"calc101": {"instructor": "telegram:7"}}', "valid tuple"),
        ('["telegram:7"]', "valid dictionary"),
    ],
)
def test_malformed_course_roles_is_a_one_line_settings_error(
    monkeypatch: pytest.MonkeyPatch, value: str, reason: str
) -> None:
    monkeypatch.setenv("COURSEBOT_COURSE_ROLES", value)
    with pytest.raises(SettingsError) as error:
        load_settings(env_file=None)
    message = str(error.value)
    assert message.startswith("bad setting COURSEBOT_COURSE_ROLES: ")
    assert reason in message
    assert "\n" not in message
    assert "telegram:7" not in message  # the input is never echoed
