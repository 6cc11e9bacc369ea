"""Files the bot sends are saved by the console where the user can open them, never over an
existing file, and the path is printed."""

from __future__ import annotations

import io
from pathlib import Path

from bot.console.files import safe_file_name, save_document
from bot.console.repl import write
from core.replies import DocumentReply
from core.requests import Response

CHART = DocumentReply("mistakes-by-skill.png", b"\x89PNG fake", "image/png", "Mistakes, calc")


def test_a_document_is_saved_and_its_path_printed(tmp_path: Path) -> None:
    out = io.StringIO()
    write(Response.of(CHART), out, tmp_path / "coursebot-files")
    saved = tmp_path / "coursebot-files" / "mistakes-by-skill.png"
    assert saved.read_bytes() == b"\x89PNG fake"
    assert out.getvalue() == f"Mistakes, calc\nsaved mistakes-by-skill.png to {saved}\n"


def test_the_default_folder_is_under_the_current_directory(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    write(Response.of(CHART), out)
    assert "saved mistakes-by-skill.png to ./coursebot-files/mistakes-by-skill.png" in (
        out.getvalue()
    )
    assert (tmp_path / "coursebot-files" / "mistakes-by-skill.png").exists()


def test_an_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    first = save_document(CHART, tmp_path)
    second = save_document(DocumentReply("mistakes-by-skill.png", b"new", "image/png"), tmp_path)
    third = save_document(DocumentReply("mistakes-by-skill.png", b"newer", "image/png"), tmp_path)
    assert [p.name for p in (first, second, third)] == [
        "mistakes-by-skill.png",
        "mistakes-by-skill-2.png",
        "mistakes-by-skill-3.png",
    ]
    assert first.read_bytes() == b"\x89PNG fake"
    assert third.read_bytes() == b"newer"


def test_a_name_cannot_leave_the_folder_or_carry_control_characters() -> None:
    assert safe_file_name("../../etc/passwd") == "passwd"
    assert safe_file_name("..\\\\evil\nname.csv") == "evilname.csv"
    assert safe_file_name("..") == "file"


def test_a_folder_that_cannot_be_written_is_one_error_line(tmp_path: Path) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("x")
    out = io.StringIO()
    write(Response.of(CHART), out, blocker)
    assert out.getvalue().splitlines()[-1].startswith("! Could not save mistakes-by-skill.png")
