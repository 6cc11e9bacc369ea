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


def test_front_matter_is_no_content_and_its_title_names_the_document(tmp_path: Path) -> None:
    path = tmp_path / "week-1.md"
    path.write_text(
        "---\nlayout: page\ntitle: Gradient Descent\npermalink: /gd/\n---\n\n"
        "Opening words.\n\n## Step size\n\nToo large diverges.\n"
    )
    document = load_markdown(path, "week-1.md")
    assert document.title == "Gradient Descent"
    assert [(b.text, b.section) for b in document.blocks] == [
        ("Opening words.", ()),
        ("Too large diverges.", ("Step size",)),
    ]


def test_front_matter_without_a_title_leaves_the_title_to_the_headings(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("---\nlayout: page\nmathjax: true\n---\n\nIntro.\n\n## Notes\n\nbody\n")
    document = load_markdown(path, "notes.md")
    assert document.title == "Notes"
    assert [(b.text, b.section) for b in document.blocks] == [
        ("Intro.", ()),
        ("body", ("Notes",)),
    ]


def test_a_first_heading_among_equals_is_a_section_not_the_title(tmp_path: Path) -> None:
    path = tmp_path / "lecture-3.md"
    path.write_text("## Introduction\n\nwhy\n\n## Method\n\nhow\n")
    document = load_markdown(path, "lecture-3.md")
    assert document.title == "lecture-3"
    assert [b.section for b in document.blocks] == [("Introduction",), ("Method",)]


@pytest.mark.parametrize(
    "opening",
    [
        "---\ntitle: [unclosed\n---\n",  # not YAML
        "---\njust a line of prose\n---\n",  # YAML, but no mapping
    ],
)
def test_a_block_that_is_no_front_matter_is_read_as_text(tmp_path: Path, opening: str) -> None:
    path = tmp_path / "odd.md"
    path.write_text(opening + "\nbody\n")
    document = load_markdown(path, "odd.md")
    shown = " ".join(
        [b.text for b in document.blocks] + [" ".join(b.section) for b in document.blocks]
    )
    assert opening.splitlines()[1] in shown
    assert document.blocks[-1].text == "body"


def test_directive_lines_opening_or_closing_a_paragraph_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "chapter.md"
    path.write_text(
        "# Pooling\n:label:`sec_pooling`\n\n"
        "![A pooling window.](../img/pool.svg)\n:label:`fig_pool`\n:width:`300px`\n\n"
        ":begin_tab:`pytorch`\nThe layer keeps the maximum.\n:end_tab:\n\n"
        "The window in\n:numref:`fig_pool`\nmoves by its stride.\n\n"
        ":cite:`LeCun.1998` used average pooling.\n"
    )
    document = load_markdown(path, "chapter.md")
    assert document.title == "Pooling"
    assert [b.text for b in document.blocks] == [
        "![A pooling window.](../img/pool.svg)",
        "The layer keeps the maximum.",
        # inside a sentence a role is a reference, part of what it says
        "The window in :numref:`fig_pool` moves by its stride.",
        ":cite:`LeCun.1998` used average pooling.",
    ]


def test_inline_html_tags_are_no_text_but_the_text_between_them_is(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "# Gradients\n\nThe numerical way is slow.\n\n<a name='analytic'></a>\n\n"
        "The <b>analytic</b> gradient is exact.<br/>\n"
    )
    document = load_markdown(path, "notes.md")
    assert [b.text for b in document.blocks] == [
        "The numerical way is slow.",
        "The analytic gradient is exact.",
    ]


def test_a_paragraph_all_in_bold_heads_the_text_below_it(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "# Nearest Neighbor\n\n## Classifier\n\n**Pros and Cons.**\n\nIt is simple.\n\n"
        "**Also** it is slow to test.\n\n## Next\n\nValidation sets.\n"
    )
    blocks = load_markdown(path, "notes.md").blocks
    assert [(b.text, b.section[-1]) for b in blocks] == [
        ("It is simple.", "Pros and Cons"),
        # bold opening a sentence is emphasis, not a heading
        ("Also it is slow to test.", "Pros and Cons"),
        ("Validation sets.", "Next"),
    ]


def test_bold_highlights_leave_headings_and_prose_but_parentheses_in_prose_stay(
    tmp_path: Path,
) -> None:
    path = tmp_path / "chapter.md"
    path.write_text(
        "# Dropout\n\n## [**Concise Implementation**]\n\n"
        "We [**train the model**] with [a **bold** link](x.md)"
        " and a way (**numerical gradient**).\n\n"
        "## (**Vanishing Gradients**)\n\nThey shrink.\n"
    )
    blocks = load_markdown(path, "chapter.md").blocks
    assert [(b.text, b.section) for b in blocks] == [
        (
            "We train the model with [a bold link](x.md) and a way (numerical gradient).",
            ("Dropout", "Concise Implementation"),
        ),
        ("They shrink.", ("Dropout", "Vanishing Gradients")),
    ]
