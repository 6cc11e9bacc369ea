"""Who may do what, attacked over the real client library: each test drives real interactions
from someone trying to get more than they should, and shows the core refusing it.

Private notes in a channel (never searched, never listed) are attacked in test_uploads.py and
test_mentions.py; a replayed exercise answer in test_practice.py."""

from __future__ import annotations

from support.fake_discord import (
    ADA,
    ALICE,
    APPLICATION_COMMAND_AUTOCOMPLETE,
    BOB,
    COURSE,
    ELSEWHERE,
    IN_COURSE,
    IN_RIVAL,
    MALLORY,
    MANAGE_GUILD,
    MO,
    TA,
    TESS,
    Person,
    direct,
    interact,
    slash,
)

from bot.discord.members import role_key, user_key
from core.answering import QuestionAnswering
from core.courses.access import NO_DM_COURSE, NOT_YOURS, UNBOUND_CHAT
from core.permissions import BIND_NEEDS_INSTRUCTOR

FINAL_EXAM = "When is the final exam and where is it held?"
# The administrator of a server that has nothing to do with the course.
EVE = Person(1_000_000_000_000_000_067, "eve", permissions=MANAGE_GUILD)
NO_MISTAKES = "Sorry, only a course moderator can review the class's mistakes."
NO_STAFF = "Sorry, only a course instructor can grant or revoke course roles."


async def course_choices(app, person: Person, current: str = "") -> list[str]:
    payload = slash(
        "course",
        person,
        direct(person),
        kind=APPLICATION_COMMAND_AUTOCOMPLETE,
        focused="course",
        course=current,
    )
    start = len(app.fake.requests)
    await interact(app.client, payload)
    [result] = app.fake.requests[start:]
    return [choice["value"] for choice in result.payload["data"]["choices"]]


# (a) An admin of an unrelated server binds an existing course ------------------------------


async def test_an_unrelated_server_admin_cannot_bind_an_existing_course(app) -> None:
    for scope in ("channel", "server"):
        refused = await app.run("bind", EVE, IN_RIVAL, course=COURSE, scope=scope)
        assert refused[-1].ephemeral, scope
        assert refused[-1].content == BIND_NEEDS_INSTRUCTOR.format(course=COURSE), scope
    # Nothing was bound: the course's material is not reachable from there.
    asked = await app.run("ask", EVE, IN_RIVAL, question=FINAL_EXAM)
    assert asked[-1].content == UNBOUND_CHAT
    assert "Hall A" not in asked[-1].content


# (b) A role named like the course's on another server ------------------------------------


async def test_a_same_named_role_on_another_server_gives_no_instructor_rights(app) -> None:
    # Mallory holds a "Teacher" role in her own server, and administers it.
    refused = await app.run("bind", MALLORY, IN_RIVAL, course=COURSE, scope="server")
    assert refused[-1].content == BIND_NEEDS_INSTRUCTOR.format(course=COURSE)
    asked = await app.run("ask", MALLORY, IN_RIVAL, question=FINAL_EXAM)
    assert asked[-1].content == UNBOUND_CHAT
    # Nor in her direct messages, where a server's role names mean nothing.
    chosen = await app.run("course", MALLORY, direct(MALLORY), course=COURSE)
    assert chosen[-1].content == NOT_YOURS.format(course=COURSE)


async def test_the_role_name_counts_in_the_courses_bound_server_only(app) -> None:
    staff = await app.run("staff", TESS, IN_COURSE)  # "Teacher" where calc101 is bound
    assert staff[-1].ephemeral
    assert staff[-1].content != NO_STAFF
    code = await app.run("invite", TESS, IN_COURSE)
    assert code[-1].content.startswith(f"Students join '{COURSE}' by sending me")
    # The same Tess in a direct message (her DM course is calc101 now) has no server roles.
    in_dm = await app.run("staff", TESS, direct(TESS))
    assert in_dm[-1].content == NO_STAFF


# (e) Direct messages about a course one never joined -------------------------------------


async def test_a_course_never_joined_cannot_be_chosen(app) -> None:
    refused = await app.run("course", BOB, direct(BOB), course=COURSE)
    assert refused[-1].ephemeral
    assert refused[-1].content == NOT_YOURS.format(course=COURSE)
    asked = await app.run("ask", BOB, direct(BOB), question=FINAL_EXAM)
    assert asked[-1].content == NO_DM_COURSE


async def test_an_invite_code_lets_a_student_in(app) -> None:
    shared = await app.run("invite", TESS, IN_COURSE)
    # As Discord shows it: the message escapes markdown, so a `_` in the code reads `\_`.
    code = shared[-1].content.rsplit(" ", 1)[-1].replace("\\_", "_")
    joined = await app.run("course", BOB, direct(BOB), course=f"join {code}")
    assert joined[-1].content.startswith(f"Welcome to '{COURSE}'.")
    asked = await app.run("ask", BOB, direct(BOB), question=FINAL_EXAM)
    assert "Hall A" in asked[-1].content
    bad = await app.run("course", ALICE, direct(ALICE), course="join not-a-code")
    assert bad[-1].content.startswith("That invite code is not valid.")


async def test_course_autocomplete_lists_only_the_users_own_courses(app) -> None:
    await app.run("bind", ADA, ELSEWHERE, course="physics1")  # a second course, Ada's
    assert await course_choices(app, BOB) == []
    await app.run("ask", ALICE, IN_COURSE, question=FINAL_EXAM)
    assert await course_choices(app, ALICE) == [COURSE]
    assert await course_choices(app, ADA) == ["physics1"]
    assert await course_choices(app, ALICE, "phys") == []


# (f) A replayed interaction --------------------------------------------------------------


async def test_a_replayed_interaction_gets_the_same_reply_twice(app, monkeypatch) -> None:
    asked = []
    real_ask = QuestionAnswering.ask

    async def counting(answers, ctx, question):
        asked.append(question)
        return await real_ask(answers, ctx, question)

    monkeypatch.setattr(QuestionAnswering, "ask", counting)
    payload = slash("ask", ALICE, IN_COURSE, question=FINAL_EXAM)
    first = await app.replay(payload)
    again = await app.replay(payload)
    assert [r.method for r in again] == [r.method for r in first] == ["POST", "PATCH"]
    assert "Hall A" in first[-1].content
    assert again[-1].content == first[-1].content
    assert again[-1].embeds == first[-1].embeds
    assert again[-1].ephemeral is first[-1].ephemeral is False
    assert asked == [FINAL_EXAM]  # answered once


# (g) Staff granted and revoked by an instructor ------------------------------------------


async def test_an_instructor_grants_and_revokes_a_moderator(app) -> None:
    assert (await app.run("mistakes", BOB, IN_COURSE))[-1].content == NO_MISTAKES
    himself = await app.run("grant", BOB, IN_COURSE, role="moderator", who=BOB)
    assert himself[-1].content == NO_STAFF  # nobody promotes themselves

    granted = await app.run("grant", TESS, IN_COURSE, role="moderator", who=BOB)
    assert granted[-1].ephemeral
    assert granted[-1].content == f"{user_key(BOB.id)} is now a moderator of '{COURSE}'."
    review = await app.run("mistakes", BOB, IN_COURSE)  # in the channel, ephemerally
    assert all(r.ephemeral for r in review)
    assert review[-1].content == f"No mistakes logged for {COURSE}."  # allowed, and empty

    staff = await app.run("staff", TESS, IN_COURSE)
    assert f"moderator: {user_key(BOB.id)} (granted by {user_key(TESS.id)})" in staff[-1].content
    assert (await app.run("staff", BOB, IN_COURSE))[-1].content == NO_STAFF  # moderators don't

    revoked = await app.run("revoke", TESS, IN_COURSE, role="moderator", who=BOB)
    assert revoked[-1].content == f"{user_key(BOB.id)} is no longer a moderator of '{COURSE}'."
    assert (await app.run("mistakes", BOB, IN_COURSE))[-1].content == NO_MISTAKES
    again = await app.run("revoke", TESS, IN_COURSE, role="moderator", who=BOB)
    assert again[-1].content == f"{user_key(BOB.id)} is not a moderator of '{COURSE}'."


async def test_a_role_granted_by_id_counts_for_everyone_holding_it(app) -> None:
    assert (await app.run("staff", MO, IN_COURSE))[-1].content == NO_STAFF
    granted = await app.run("grant", TESS, IN_COURSE, role="instructor", who=TA)
    assert granted[-1].content.startswith(f"{role_key(TA.id)} is now a")
    staff = await app.run("staff", MO, IN_COURSE)  # Mo holds the TA role
    assert f"{role_key(TA.id)} (granted by {user_key(TESS.id)})" in staff[-1].content


# A flood from one user -------------------------------------------------------------------


async def test_a_flood_from_one_user_does_not_hold_up_another(
    settings, embedder, monkeypatch
) -> None:
    import asyncio
    import time

    from support.fake_discord import FakeDiscord, rival_server, server

    from bot import composition
    from bot.composition import open_assembly
    from bot.discord.client import build_client
    from config import Settings

    monkeypatch.setattr(composition, "embedder", _loaded(embedder))
    limited = settings.model_copy(
        update={"rate_limit": Settings.model_fields["rate_limit"].default}
    )
    async with open_assembly(limited) as assembly:
        client = build_client(assembly.bot, limited)
        fake = FakeDiscord()
        await fake.attach(client, monkeypatch, guilds=[server(), rival_server()])
        try:
            started = time.perf_counter()
            await interact(client, slash("ask", ALICE, IN_COURSE, question=FINAL_EXAM))
            quiet = time.perf_counter() - started
            flood = [
                asyncio.create_task(
                    interact(client, slash("ask", MALLORY, IN_COURSE, question=f"exam {n}?"))
                )
                for n in range(200)
            ]
            await asyncio.sleep(0.05)
            start = len(fake.requests)
            started = time.perf_counter()
            await interact(client, slash("ask", ALICE, IN_COURSE, question=FINAL_EXAM))
            delay = time.perf_counter() - started - quiet
            served = [r for r in fake.requests[start:] if "Hall A" in (r.content or "")]
            assert served, "Alice got no answer during the flood"
            assert delay < 1.0, f"Alice waited {delay:.2f} s more behind Mallory's flood"
            await asyncio.gather(*flood)
            told = [r for r in fake.requests if "sending messages faster" in (r.content or "")]
            assert len(told) == 1  # one polite reply; the rest of the flood is dropped
        finally:
            await client.close()


def _loaded(embedder):
    async def loaded(*_args: object) -> object:
        return embedder

    return loaded
