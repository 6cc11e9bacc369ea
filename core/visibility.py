"""What may be shown where, and to whom: the one visibility policy.

Every service asks here, for every kind of thing it shows: retrieved chunks (`whose_notes`,
which `core.index.tenant` turns into the search filter), generated material (`made_as`
when it is stored, `access` and `visible_to_owner` when it is read, listed or sent again),
replies (`response_private`), confidential commands, the asker's profile and uploads of
notes (`reads_alone`), and the instructor loop: who may rate an answer (`may_rate`), where a
student is told the staff's answer to their question (`tells_answer_here`) and when a digest
names a student (`digest_names`).

The rule, once: a student's private notes, and whatever was made where they could be read,
are the student's alone, and shown only where the student alone reads along (a private
audience: a direct message, an ephemeral reply, a terminal). Course material and what was
made from it alone are the course's. Nothing is ever shown in another course. A student's
questions and votes are shown to that course's staff only, and only where the staff member
alone reads along (the commands showing them are confidential), never in a group; a digest
names no student unless a moderator asks for one student where they alone read it. A stored
material carries its visibility and owner as columns (`MaterialStore`); nothing here reads
a JSON blob to guess them."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Protocol

from core.context import Audience, Context
from core.replies import (
    Answer,
    DocumentReply,
    ExerciseSheet,
    FlashcardsReply,
    FlashcardTurn,
    QuizReply,
    Reply,
)

# Where the adapter did not say (or a stored record predates saying): the side on which
# nobody's notes are shown.
UNSURE = Audience.SHARED


class Visibility(StrEnum):
    """Who a chunk or a generated material is for: the course, or its owner alone."""

    PUBLIC = "public"
    PRIVATE = "private"


class Access(StrEnum):
    """What a request may do with one stored material."""

    NONE = "none"  # not this person's, or not this course's: reads as no such thing
    ELSEWHERE = "elsewhere"  # theirs, but shown only where they alone read along
    HERE = "here"  # may be shown in this audience


class Stored(Protocol):
    """What the policy reads of a stored material (`GeneratedMaterial`)."""

    @property
    def course_id(self) -> str: ...

    @property
    def owner_id(self) -> str: ...

    @property
    def visibility(self) -> Visibility: ...


# Chunks -------------------------------------------------------------------------------------


def chunk_visibility(owner_id: str | None) -> Visibility:
    """A chunk with an owner is that owner's private note; without one it is course material."""
    return Visibility.PRIVATE if owner_id else Visibility.PUBLIC


def is_private(visibility: str | None) -> bool:
    return visibility == Visibility.PRIVATE.value


def whose_notes(ctx: Context) -> str | None:
    """Whose private notes a search for `ctx` may read besides the course's material: the
    asker's where they alone read the reply, nobody's in a shared audience."""
    return ctx.user_id if reads_alone(ctx) else None


# Where the asker alone reads ------------------------------------------------------------------


def reads_alone(ctx: Context, *, whisper: bool = False) -> bool:
    """Whether only the asker will read the reply: a private audience, or a shared place
    whose platform shows this reply to the asker alone (`whisper`, a Discord ephemeral).
    Confidential commands, the asker's profile and uploads of notes need it."""
    return ctx.audience is Audience.PRIVATE or whisper


# Generated material ---------------------------------------------------------------------------


def made_as(
    ctx: Context, *, cites_notes: bool = False, revises: Visibility | None = None
) -> Visibility:
    """The visibility of material made for `ctx`: private when made where the asker's notes
    could be read (the generator read them, and may copy one under a public passage's
    number), when it cites a note, or when it revises a private version; else the course's."""
    private = reads_alone(ctx) or cites_notes or revises is Visibility.PRIVATE
    return Visibility.PRIVATE if private else Visibility.PUBLIC


def visible_to_owner(ctx: Context) -> frozenset[Visibility]:
    """Which of the asker's own materials this audience may show (a store filter)."""
    if reads_alone(ctx):
        return frozenset(Visibility)
    return frozenset({Visibility.PUBLIC})


def access(ctx: Context, material: Stored, *, classmates: bool = False) -> Access:
    """What `ctx` may do with a stored material. Another course's is nobody's here. A
    private one is its owner's alone, shown only where they alone read along. A public one
    is its owner's (`/materials`, a lesson and its edits, a written exercise), or, with
    `classmates`, anyone's in the course (a quiz or a deck posted to the class, answered
    with its buttons or polls)."""
    if material.course_id != ctx.course_id:
        return Access.NONE
    own = material.owner_id == ctx.user_id
    if material.visibility is Visibility.PRIVATE:
        if not own:
            return Access.NONE
        return Access.HERE if reads_alone(ctx) else Access.ELSEWHERE
    return Access.HERE if own or classmates else Access.NONE


# Replies ------------------------------------------------------------------------------------


def shows_notes(reply: Reply) -> bool:
    """Whether `reply` shows the asker's private notes: a citation of them, or a file made
    from them."""
    if isinstance(reply, DocumentReply):
        return reply.private
    if isinstance(reply, Answer):
        return any(c.private for c in reply.citations)
    if isinstance(reply, ExerciseSheet):
        return any(c.private for c in reply.sources)
    if isinstance(reply, QuizReply):
        return any(q.source is not None and q.source.private for q in reply.questions)
    if isinstance(reply, FlashcardsReply):
        return any(c.source is not None and c.source.private for c in reply.cards)
    if isinstance(reply, FlashcardTurn):
        return reply.source is not None and reply.source.private
    return False


def response_private(replies: Iterable[Reply], *, command_private: bool = False) -> bool:
    """Whether a response is for the asker alone (ephemeral on Discord): its command's own
    flag, or any reply showing the asker's notes, whichever command gave it."""
    return command_private or any(shows_notes(r) for r in replies)


# The instructor loop -------------------------------------------------------------------------


class Rated(Protocol):
    """What the policy reads of an answer given (`core.feedback.store.Asked`)."""

    @property
    def course_id(self) -> str: ...

    @property
    def asker_id(self) -> str: ...

    @property
    def audience(self) -> str: ...


def may_rate(ctx: Context, answer: Rated) -> bool:
    """Whether `ctx` may vote on `answer`: someone of its course, and for an answer given
    where its asker alone read it, the asker alone (a forged button names any number)."""
    if answer.course_id != ctx.course_id:
        return False
    return answer.audience != Audience.PRIVATE.value or answer.asker_id == ctx.user_id


def tells_answer_here(ctx: Context) -> bool:
    """Whether a student's own question and the staff's answer to it may be shown to them in
    this audience (the rest of a group must not learn what they asked)."""
    return reads_alone(ctx)


def digest_names(ctx: Context, student: str | None, *, whisper: bool = False) -> bool:
    """Whether a digest may name `student`: only when one student is asked for, where the
    (moderator) asking alone reads the reply. Otherwise it names nobody."""
    return bool(student) and reads_alone(ctx, whisper=whisper)
