from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from ingestion.documents import BlockKind
from ingestion.errors import CorruptFileError, UnsupportedFileError
from ingestion.loaders import loader_for
from ingestion.loaders.markdown import load_markdown
from ingestion.loaders.pdf import load_pdf
from ingestion.loaders.plain_text import load_text


def test_markdown_syllabus_keeps_headings_lists_and_tables(sample_course: Path) -> None:
    document = load_markdown(sample_course / "syllabus.md", "syllabus.md")
    assert document.title == "MATH 101 — Calculus I: Course Syllabus"
    grading = [b for b in document.blocks if b.section[-1:] == ("Grading Policy",)]
    table = next(b for b in grading if b.kind is BlockKind.TABLE)
    assert table.table is not None and table.table.header[:2] == ("Component", "Weight")
    assert table.text.splitlines()[0].startswith("| Component | Weight |")
    late = [b for b in document.blocks if b.section[-1:] == ("Late-Work Policy",)]
    assert late and all(b.kind is BlockKind.LIST_ITEM for b in late)
    assert any("10% of its score per day" in b.text for b in late)  # bold markers removed


def test_markdown_nested_headings_build_the_section_path(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# A\n\ntop\n\n## B\n\nunder b\n\n### C\n\nunder c\n\n## D\n\nunder d\n")
    sections = {b.text: b.section for b in load_markdown(path, "notes.md").blocks}
    assert sections == {
        "top": ("A",),
        "under b": ("A", "B"),
        "under c": ("A", "B", "C"),
        "under d": ("A", "D"),
    }


def test_a_display_formula_is_one_block_with_its_signs(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "# Loss\n\nThe loss is\n\n$$\nL = a\n+ b\n- c\n$$\n\n"
        "and in brackets\n\n\\[\nM = x\n- y\n\\]\n\nwith $d$ and \\(e\\) inline.\n"
    )
    blocks = load_markdown(path, "notes.md").blocks
    assert [(b.text, b.kind) for b in blocks] == [
        ("The loss is", BlockKind.PARAGRAPH),
        ("$$ L = a + b - c $$", BlockKind.PARAGRAPH),
        ("and in brackets", BlockKind.PARAGRAPH),
        ("\\[ M = x - y \\]", BlockKind.PARAGRAPH),
        ("with $d$ and \\(e\\) inline.", BlockKind.PARAGRAPH),
    ]


def test_plain_text_splits_paragraphs_at_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "announcement.txt"
    path.write_text("\ufeffFirst paragraph\nstill first.\n\n\nSecond one.\n", encoding="utf-8")
    document = load_text(path, "announcement.txt")
    assert [b.text for b in document.blocks] == ["First paragraph\nstill first.", "Second one."]


def test_binary_content_in_a_text_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "fake.txt"
    path.write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(CorruptFileError, match="binary"):
        load_text(path, "fake.txt")


def test_loader_for_refuses_unknown_types() -> None:
    with pytest.raises(UnsupportedFileError, match=r"'\.exe' is not a supported type"):
        loader_for("setup.exe")
    upper, lower = loader_for("Slides.PDF"), loader_for("x.pdf")
    assert isinstance(upper, partial) and isinstance(lower, partial)
    assert upper.func is lower.func is load_pdf


@pytest.mark.parametrize("name", ["notes.md", "notes.txt"])
def test_a_latin_1_file_is_refused_with_a_hint_to_re_save_it_as_utf_8(
    tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    path.write_bytes("# Übung\n\nDie Prüfung ist am Montag, café.\n".encode("latin-1"))
    with pytest.raises(CorruptFileError) as refused:
        loader_for(name)(path, name, False)
    assert "is not UTF-8 text (it looks like Latin-1/Windows-1252): re-save it as UTF-8" in str(
        refused.value
    )
