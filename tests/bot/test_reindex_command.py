"""`coursebot reindex`: after the embedder changed, commands refuse the index with one line
naming the command, and after it they work again; the course files are not needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main


def test_a_changed_embedder_is_refused_until_the_course_is_reindexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COURSEBOT_DATA_DIR", str(tmp_path / "data"))
    notes = tmp_path / "exam.md"
    notes.write_text("# Exam\n\nThe final exam takes place on 14 December in room B204.\n")
    monkeypatch.setenv("COURSEBOT_EMBEDDER", "legacy")
    assert main(["ingest", str(notes), "--course", "calc"]) == 0
    notes.unlink()

    monkeypatch.setenv("COURSEBOT_EMBEDDER", "fast")
    capsys.readouterr()
    assert main(["sources", "--course", "calc"]) == 2
    refusal = capsys.readouterr().err.strip()
    assert "\n" not in refusal
    assert "`coursebot reindex --course calc`" in refusal

    assert main(["reindex", "--course", "calc"]) == 0
    assert "reindexed 'calc': 1 chunks" in capsys.readouterr().out
    assert main(["ask", "--course", "calc", "When is the final exam?"]) == 0
    assert "14 December" in capsys.readouterr().out
