"""Roles per course from the configured grants, and the COURSEBOT_COURSE_ROLES setting they
come from: grants never leak between courses, "*" covers every course, a chat administrator
is an instructor, and an instructor may do whatever a moderator may."""

from __future__ import annotations

import pytest

from config import SettingsError, load_settings
from core.context import Context, Role
from core.errors import PermissionDeniedError
from core.permissions import Action, RoleGrants, allowed, effective_roles, require

GRANTS = RoleGrants(
    {
        "calc101": {"instructor": ["telegram:7"], "moderator": ["discord:role:TA"]},
        "phys201": {"moderator": ["telegram:8"]},
        "*": {"instructor": ["telegram:1"]},
    }
)


def ctx(roles: frozenset[Role], course: str = "calc101") -> Context:
    return Context(platform="telegram", course_id=course, user_id="telegram:99", roles=roles)


def test_everyone_is_a_student_and_nothing_more_without_a_grant() -> None:
    assert GRANTS.roles("calc101", ["telegram:99"]) == {Role.STUDENT}
    assert RoleGrants().roles("calc101", []) == {Role.STUDENT}


def test_grants_apply_to_their_own_course_only() -> None:
    assert GRANTS.roles("calc101", ["telegram:7"]) == {Role.STUDENT, Role.INSTRUCTOR}
    assert GRANTS.roles("phys201", ["telegram:7"]) == {Role.STUDENT}
    assert GRANTS.roles("phys201", ["telegram:8"]) == {Role.STUDENT, Role.MODERATOR}
    assert GRANTS.roles("calc101", ["telegram:8"]) == {Role.STUDENT}


def test_any_of_the_principals_may_hold_the_grant() -> None:
    principals = ["discord:55", "discord:role:TA", "discord:role:everyone"]
    assert GRANTS.roles("calc101", principals) == {Role.STUDENT, Role.MODERATOR}
    assert GRANTS.roles("calc101", ["discord:role:ta"]) == {Role.STUDENT}


def test_wildcard_grant_covers_every_course() -> None:
    for course in ("calc101", "phys201", "never-configured"):
        assert Role.INSTRUCTOR in GRANTS.roles(course, ["telegram:1"])


def test_wildcard_and_course_grants_add_up() -> None:
    grants = RoleGrants({"*": {"moderator": ["u"]}, "calc101": {"instructor": ["u"]}})
    assert grants.roles("calc101", ["u"]) == {Role.STUDENT, Role.MODERATOR, Role.INSTRUCTOR}
    assert grants.roles("phys201", ["u"]) == {Role.STUDENT, Role.MODERATOR}


def test_chat_admin_is_an_instructor_of_the_course() -> None:
    assert GRANTS.roles("phys201", ["telegram:99"], chat_admin=True) == {
        Role.STUDENT,
        Role.INSTRUCTOR,
    }


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
        ({Role.STUDENT, Role.MODERATOR}, {Action.REVIEW_MISTAKES}),
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
    assert grants.roles("calc101", ["x"]) == {Role.STUDENT, Role.MODERATOR}


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
