"""The `coursebot` command line, run in-process on the embedded default."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COURSEBOT_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_ingest_sources_ask_and_forget_round_trip(
    data_dir: Path, sample_course: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(sample_course), "--course", "sample"]) == 0
    out = capsys.readouterr().out
    assert "✓ syllabus.md: added" in out
    assert "8 of 8 files ingested" in out

    assert main(["ingest", str(sample_course), "--course", "sample"]) == 0
    assert "= syllabus.md: unchanged" in capsys.readouterr().out

    assert main(["sources", "--course", "sample"]) == 0
    listing = capsys.readouterr().out
    assert "lecture-01-limits.pdf (slides" in listing
    assert "syllabus.md (syllabus" in listing

    assert main(["ask", "--course", "sample", "When is the final exam?"]) == 0
    answer = capsys.readouterr().out
    assert "2026-12-14" in answer
    assert "syllabus.md" in answer

    assert main(["forget", "--course", "sample", "worked-exercises.md"]) == 0
    assert "Removed 'worked-exercises.md'" in capsys.readouterr().out
    assert main(["forget", "--course", "sample", "worked-exercises.md"]) == 1
    assert "There is no document 'worked-exercises.md'" in capsys.readouterr().out


def test_ingest_reports_bad_files_and_exits_1(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "rules.md"
    good.write_text("# Rules\n\nBe kind.\n")
    bad = tmp_path / "table.xlsx"
    bad.write_bytes(b"PK")
    code = main(["ingest", str(good), str(bad), str(tmp_path / "missing.pdf"), "--course", "c"])
    out = capsys.readouterr().out
    assert code == 1
    assert "✗ table.xlsx: '.xlsx' is not a supported type" in out
    assert "missing.pdf: no such file" in out
    assert "✓ rules.md: added" in out
    assert "1 of 3 files ingested; 2 failed" in out


def test_private_notes_from_the_cli_belong_to_their_owner(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "my-notes.md"
    notes.write_text("# Notes\n\nThe secret mnemonic is PEMDAS.\n")
    assert main(["ingest", str(notes), "--course", "c", "--private", "--owner", "ana"]) == 0
    capsys.readouterr()
    main(["sources", "--course", "c", "--user", "ana"])
    assert "my-notes.md (notes, 1 chunk, private)" in capsys.readouterr().out
    main(["sources", "--course", "c", "--user", "ben"])
    assert "has no documents yet" in capsys.readouterr().out


def test_private_without_owner_is_a_usage_error(data_dir: Path) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["ingest", "x.md", "--course", "c", "--private"])
    assert caught.value.code == 2


def test_watch_rejects_a_bad_interval(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["watch", "x", "--course", "c", "--every", "soon"])
    assert "'soon' is not an interval like 90s, 15m, 2h or 1d" in capsys.readouterr().err


def test_a_bad_course_id_to_ingest_is_one_line_not_a_traceback(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    syllabus = tmp_path / "syllabus.md"
    syllabus.write_text("# Exams\n\nThe final exam is on 14 December.\n")
    assert main(["ingest", str(syllabus), "--course", "bad id!"]) == 2
    err = capsys.readouterr().err
    assert "coursebot: 'bad id!' is not a course id" in err and "Traceback" not in err


def test_notes_are_quoted_only_to_their_owner_in_private_from_the_terminal(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "alice-notes.md"
    notes.write_text("# Notes\n\nMy study group meets at the Blue Heron cafe on Thursdays.\n")
    syllabus = tmp_path / "syllabus.md"
    syllabus.write_text("# Exams\n\nThe final exam is on 14 December in Hall A.\n")
    assert main(["ingest", str(syllabus), "--course", "c"]) == 0
    assert main(["ingest", str(notes), "--course", "c", "--private", "--owner", "alice"]) == 0
    capsys.readouterr()
    question = "Where does my study group meet?"

    main(["ask", "--course", "c", "--user", "alice", question])
    assert "Blue Heron" in capsys.readouterr().out
    main(["ask", "--course", "c", "--user", "alice", "--group", question])
    assert "Blue Heron" not in capsys.readouterr().out
    main(["ask", "--course", "c", "--user", "bob", question])
    assert "Blue Heron" not in capsys.readouterr().out


def test_course_create_names_the_instructor_and_refuses_a_second_creation(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["course", "create", "calc101", "--instructor", "telegram:42"]) == 0
    assert "telegram:42 is its instructor" in capsys.readouterr().out
    assert main(["course", "create", "calc101", "--instructor", "telegram:43"]) == 1
    assert "exists already" in capsys.readouterr().out
    assert main(["course", "transfer", "calc101", "--instructor", "telegram:43"]) == 0
    assert "now belongs to telegram:43" in capsys.readouterr().out


def test_an_empty_question_asks_for_one_in_words_fit_for_the_command_line(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "--course", "c", ""]) == 1
    out = capsys.readouterr().out
    assert out.strip() == "! Please write a question."


def test_migrations_print_nothing_on_an_ordinary_command(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sources", "--course", "c"]) == 0  # the first run creates the schema
    assert main(["sources", "--course", "c"]) == 0
    err = capsys.readouterr().err
    assert "alembic" not in err
    assert "Context impl" not in err and "transactional DDL" not in err


def test_a_file_name_with_a_newline_keeps_every_listing_on_its_lines(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = tmp_path / "week\n1.md"
    odd.write_text("# Week 1\n\nLimits and continuity.\n")
    assert main(["ingest", str(odd), "--course", "c"]) == 0
    report = capsys.readouterr().out
    assert report.splitlines() == ["  ✓ week\\n1.md: added, 1 chunk", "1 of 1 file ingested"]
    assert main(["sources", "--course", "c"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Documents in 'c':",
        "  week\\n1.md (document, 1 chunk)",
    ]


@pytest.mark.parametrize(
    ("topic", "source"),
    [
        # By the exercise's id: a topic's words draw a built-in family first.
        ("limit-difference-of-squares", "limit-difference-of-squares.exercise.yaml"),
        ("power-rule-drill", "power-rule-drill.exercise.yaml"),
    ],
)
def test_generate_exercise_gives_each_user_a_verified_instance(
    data_dir: Path,
    sample_course: Path,
    capsys: pytest.CaptureFixture[str],
    topic: str,
    source: str,
) -> None:
    import json

    assert main(["ingest", str(sample_course / "exercises"), "--course", "sample"]) == 0
    capsys.readouterr()
    seen = []
    for user in ("ann", "dan", "eve"):
        command = ["generate", "exercise", "--course", "sample", "--topic", topic]
        assert main([*command, "--user", user, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["sources"] == [source]
        # verified: the grader accepted each step's own expected answer.
        assert data["verified"] is True
        assert all(step["prompt"] and step["answer"] for step in data["steps"])
        for step in data["steps"]:
            assert all(step["answer"] not in hint for hint in step["hints"])
        assert data["solution"] and "{{" not in data["solution"]
        seen.append(json.dumps(data["steps"]))
    assert len(set(seen)) == 3  # three users, three different sets of data
    assert main(["generate", "exercise", "--course", "sample", "--topic", "Astronomy"]) == 1
    assert capsys.readouterr().err.strip().count("\n") == 0  # one clear line


def test_generate_lesson_writes_a_pdf_and_prints_the_deck_as_json(
    data_dir: Path, sample_course: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from core.lessons import check_pdf

    lecture = sample_course / "lecture-02-derivatives.pdf"
    assert main(["ingest", str(lecture), "--course", "sample"]) == 0
    capsys.readouterr()
    out = tmp_path / "deck.pdf"
    command = ["generate", "lesson", "--course", "sample", "--topic", "derivatives"]
    assert main([*command, "--profile", "dyslexia", "--slides", "3-6", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("derivatives: dyslexia profile, ") and f"wrote {out}" in printed
    assert out.read_bytes().startswith(b"%PDF") and check_pdf(out.read_bytes(), "dyslexia") == []

    assert main([*command, "--profile", "dyslexia", "--slides", "3-6", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cached"] is True and data["model"] == "extractive" and data["files"] == []
    assert 3 <= len(data["deck"]["slides"]) <= 6 and data["deck"]["profile"] == "dyslexia"
    assert all(slide["citations"] for slide in data["deck"]["slides"])

    assert main([*command, "--slides", "9-2"]) == 1
    assert capsys.readouterr().err.strip().count("\n") == 0  # one clear line


@pytest.mark.parametrize("what", ["exercise", "quiz", "flashcards", "mindmap", "lesson"])
def test_generating_for_an_unknown_course_says_so_in_one_line(
    data_dir: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    assert main(["generate", what, "--course", "nosuch", "--topic", "limits"]) == 1
    assert capsys.readouterr().err.strip() == "coursebot: There is no course 'nosuch'."


def test_a_one_shot_command_says_nothing_of_in_process_sessions(
    data_dir: Path, sample_course: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a long-running command loses sessions on a restart (tests/bot/test_runtime.py
    pins that `watch` says so); `ask` writes a conversation turn and ends."""
    assert main(["ingest", str(sample_course / "syllabus.md"), "--course", "sample"]) == 0
    assert main(["ask", "--course", "sample", "When is the final exam?"]) == 0
    assert main(["ask", "--course", "sample", "and the resit?"]) == 0
    captured = capsys.readouterr()
    assert "2026-12-14" in captured.out
    assert "sessions are kept in this process" not in captured.out + captured.err
