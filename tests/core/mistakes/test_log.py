"""The mistake log's contract on SQLite and PostgreSQL: one row per message however often it
is replayed, and the moderator views (by skill, step, student, latest, CSV export)."""

from __future__ import annotations

import asyncio
import csv
import io
from datetime import UTC, datetime, timedelta, timezone

import pytest

from core.mistakes import MistakeEntry, MistakeLog
from core.mistakes.log import CSV_COLUMNS, MAX_TEXT_CHARS

START = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def mistake(
    minute: int,
    *,
    course: str = "math101",
    student: str = "alice",
    exercise: str = "ex1",
    step: int = 0,
    skill: str = "chain rule",
    answer: str = "",
    detail: str = "",
    key: str | None = None,
) -> MistakeEntry:
    return MistakeEntry(
        course_id=course,
        student_id=student,
        exercise_id=exercise,
        step_index=step,
        skill=skill,
        answer=answer or f"answer at {minute}",
        detail=detail,
        platform="console",
        idempotency_key=key,
        created_at=START + timedelta(minutes=minute),
    )


async def record_all(log: MistakeLog, entries: list[MistakeEntry]) -> None:
    for entry in entries:
        assert await log.record(entry)


async def test_replayed_idempotency_key_is_recorded_once(mistake_log: MistakeLog) -> None:
    first = mistake(1, key="telegram:42:1001")
    replay = mistake(5, key="telegram:42:1001", answer="different")

    assert await mistake_log.record(first) is True
    assert await mistake_log.record(replay) is False

    [stored] = await mistake_log.latest("math101")
    assert stored.answer == first.answer and stored.idempotency_key == "telegram:42:1001"


async def test_concurrent_replays_record_exactly_one_row(mistake_log: MistakeLog) -> None:
    results = await asyncio.gather(
        *(mistake_log.record(mistake(i, key="discord:7:99")) for i in range(5))
    )

    assert sorted(results) == [False, False, False, False, True]
    assert len(await mistake_log.latest("math101")) == 1


async def test_entries_without_a_key_are_never_deduplicated(mistake_log: MistakeLog) -> None:
    assert await mistake_log.record(mistake(1))
    assert await mistake_log.record(mistake(1))

    assert len(await mistake_log.latest("math101")) == 2


async def test_entries_round_trip_with_aware_utc_timestamps(mistake_log: MistakeLog) -> None:
    local = datetime(2025, 3, 1, 11, 30, tzinfo=timezone(timedelta(hours=2)))
    entry = MistakeEntry(
        "math101", "alice", "ex1", 2, "limits", "∞ − ∞ = 0", "indeterminate form", "discord",
        "k", local,
    )  # fmt: skip
    await mistake_log.record(entry)

    [stored] = await mistake_log.latest("math101")

    assert stored.created_at == datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
    assert stored.created_at.tzinfo == UTC
    assert stored.id is not None
    assert (stored.answer, stored.detail, stored.platform, stored.step_index) == (
        "∞ − ∞ = 0",
        "indeterminate form",
        "discord",
        2,
    )


async def test_long_answers_and_details_are_cut(mistake_log: MistakeLog) -> None:
    await mistake_log.record(mistake(1, answer="x" * 10_000, detail="y" * 10_000))

    [stored] = await mistake_log.latest("math101")

    assert len(stored.answer) == len(stored.detail) == MAX_TEXT_CHARS


async def test_by_skill_counts_most_frequent_first_with_newest_examples(
    mistake_log: MistakeLog,
) -> None:
    await record_all(
        mistake_log,
        [
            mistake(1, skill="chain rule", student="alice"),
            mistake(4, skill="chain rule", student="bob"),
            mistake(2, skill="chain rule", student="alice"),
            mistake(3, skill="chain rule", student="carol"),
            mistake(5, skill="limits", student="bob"),
            mistake(9, skill="chain rule", course="other101"),
        ],
    )

    counts = await mistake_log.by_skill("math101")

    assert [(c.skill, c.count, c.students) for c in counts] == [
        ("chain rule", 4, 3),
        ("limits", 1, 1),
    ]
    chain = counts[0]
    assert [e.answer for e in chain.examples] == ["answer at 4", "answer at 3", "answer at 2"]
    assert chain.last_at == START + timedelta(minutes=4)
    assert [e.answer for e in counts[1].examples] == ["answer at 5"]


async def test_by_skill_filters_by_student(mistake_log: MistakeLog) -> None:
    await record_all(
        mistake_log,
        [
            mistake(1, skill="chain rule", student="alice"),
            mistake(2, skill="limits", student="bob"),
            mistake(3, skill="limits", student="bob"),
        ],
    )

    counts = await mistake_log.by_skill("math101", student="bob")

    assert [(c.skill, c.count) for c in counts] == [("limits", 2)]
    assert all(e.student_id == "bob" for e in counts[0].examples)
    assert await mistake_log.by_skill("math101", student="nobody") == []


async def test_by_exercise_counts_each_step(mistake_log: MistakeLog) -> None:
    await record_all(
        mistake_log,
        [
            mistake(1, exercise="ex1", step=1, student="alice"),
            mistake(2, exercise="ex1", step=1, student="bob"),
            mistake(3, exercise="ex1", step=1, student="bob"),
            mistake(4, exercise="ex1", step=0),
            mistake(5, exercise="ex2", step=0),
            mistake(6, exercise="ex1", step=1, course="other101"),
        ],
    )

    steps = await mistake_log.by_exercise("math101")

    assert [(s.exercise_id, s.step_index, s.count, s.students) for s in steps] == [
        ("ex1", 1, 3, 2),
        ("ex1", 0, 1, 1),
        ("ex2", 0, 1, 1),
    ]
    assert steps[0].last_at == START + timedelta(minutes=3)
    only_ex2 = await mistake_log.by_exercise("math101", exercise="ex2")
    assert [(s.exercise_id, s.step_index) for s in only_ex2] == [("ex2", 0)]


async def test_by_student_counts_and_filters_by_skill(mistake_log: MistakeLog) -> None:
    await record_all(
        mistake_log,
        [
            mistake(1, student="alice", skill="chain rule"),
            mistake(2, student="alice", skill="limits"),
            mistake(3, student="bob", skill="limits"),
            mistake(4, student="bob", skill="limits"),
            mistake(5, student="bob", skill="limits"),
        ],
    )

    everyone = await mistake_log.by_student("math101")
    limits = await mistake_log.by_student("math101", skill="limits")

    assert [(s.student_id, s.count, s.skills) for s in everyone] == [
        ("bob", 3, 1),
        ("alice", 2, 2),
    ]
    assert [(s.student_id, s.count) for s in limits] == [("bob", 3), ("alice", 1)]
    assert everyone[0].last_at == START + timedelta(minutes=5)


async def test_latest_is_newest_first_limited_and_filtered(mistake_log: MistakeLog) -> None:
    await record_all(
        mistake_log,
        [
            mistake(3, student="alice", skill="limits"),
            mistake(1, student="bob", skill="limits"),
            mistake(5, student="alice", skill="chain rule"),
            mistake(4, student="bob", skill="limits"),
            mistake(2, student="alice", skill="limits"),
            mistake(6, student="alice", course="other101"),
        ],
    )

    newest = await mistake_log.latest("math101", limit=3)
    limits = await mistake_log.latest("math101", skill="limits")
    alice_limits = await mistake_log.latest("math101", skill="limits", student="alice")

    assert [e.answer for e in newest] == ["answer at 5", "answer at 4", "answer at 3"]
    assert [e.answer for e in limits] == [f"answer at {m}" for m in (4, 3, 2, 1)]
    assert [e.answer for e in alice_limits] == ["answer at 3", "answer at 2"]
    with pytest.raises(ValueError):
        await mistake_log.latest("math101", limit=0)


async def test_export_csv_has_a_header_and_rows_oldest_first(mistake_log: MistakeLog) -> None:
    await record_all(
        mistake_log,
        [
            mistake(2, student="bob", skill="limits", answer="lim = 1", detail="it is 0"),
            mistake(1, student="alice", skill="chain rule", answer="Ableitung, ä"),
            mistake(3, student="bob", skill="chain rule"),
            mistake(4, course="other101"),
        ],
    )

    everything = await mistake_log.export_csv("math101")
    bob = await mistake_log.export_csv("math101", student="bob", skill="limits")

    rows = list(csv.reader(io.StringIO(everything.decode("utf-8"))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [(r[2], r[5], r[6]) for r in rows[1:]] == [
        ("alice", "chain rule", "Ableitung, ä"),
        ("bob", "limits", "lim = 1"),
        ("bob", "chain rule", "answer at 3"),
    ]
    assert rows[1][0] == "2025-03-01T09:01:00+00:00"
    bob_rows = list(csv.DictReader(io.StringIO(bob.decode("utf-8"))))
    assert [(r["student_id"], r["skill"], r["detail"]) for r in bob_rows] == [
        ("bob", "limits", "it is 0")
    ]


async def test_export_csv_of_an_empty_course_is_the_header_only(mistake_log: MistakeLog) -> None:
    content = await mistake_log.export_csv("empty101")

    assert content.decode("utf-8").splitlines() == [",".join(CSV_COLUMNS)]


@pytest.mark.parametrize(
    ("answer", "exported"),
    [
        ('=HYPERLINK("http://evil")', '\'=HYPERLINK("http://evil")'),
        ("+1+1", "'+1+1"),
        ("-2x", "'-2x"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("2x = 4", "2x = 4"),
    ],
)
async def test_export_csv_defuses_formula_cells(
    mistake_log: MistakeLog, answer: str, exported: str
) -> None:
    await mistake_log.record(mistake(1, answer=answer, student="=cmd|'/c calc'!A0"))

    content = await mistake_log.export_csv("math101")

    [row] = list(csv.DictReader(io.StringIO(content.decode("utf-8"))))
    assert row["answer"] == exported
    assert row["student_id"] == "'=cmd|'/c calc'!A0"


def test_naive_timestamps_and_missing_ids_are_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        MistakeEntry("c", "s", "e", 0, "skill", "a", created_at=datetime(2025, 1, 1))
    with pytest.raises(ValueError, match="skill"):
        MistakeEntry("c", "s", "e", 0, "", "a")
