"""The PowerPoint loader on decks built here with python-pptx."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from pptx import Presentation
from pptx.util import Inches

from ingestion.documents import BlockKind, DocumentKind, Table
from ingestion.errors import CorruptFileError, EmptyFileError, EncryptedFileError
from ingestion.loaders.pptx import load_pptx

TITLE_AND_CONTENT, TITLE_ONLY, BLANK = 1, 5, 6


def _png(path: Path, size: tuple[int, int]) -> Path:
    Image.new("RGB", size, "teal").save(path)
    return path


def _deck(tmp_path: Path) -> Path:
    """Three slides: bullets with levels and a text box; a table, a picture and notes; a
    slide without a title whose text sits in a group."""
    deck = Presentation()
    deck.core_properties.title = "Calculus I - Week 2"

    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_AND_CONTENT])
    slide.shapes.title.text = "Limits"
    body = slide.placeholders[1].text_frame
    body.text = "A limit describes behaviour near a point"
    nested = body.add_paragraph()
    nested.text = "Left and right limits must agree"
    nested.level = 1
    # added first but placed lower: reading order follows the page, not the file
    footnote = slide.shapes.add_textbox(Inches(1), Inches(6.5), Inches(6), Inches(0.5))
    footnote.text_frame.text = "See chapter 2.1 for proofs."
    remark = slide.shapes.add_textbox(Inches(6), Inches(1.2), Inches(3), Inches(0.5))
    remark.text_frame.text = "Remember: x never equals a."

    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Derivative Rules"
    grid = slide.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(1.5)).table
    for row, cells in enumerate(
        [("Function", "Derivative"), ("x^n", "n x^(n-1)"), ("ln(x)", "1/x")]
    ):
        for column, text in enumerate(cells):
            grid.cell(row, column).text = text
    slide.shapes.add_picture(str(_png(tmp_path / "graph.png", (120, 90))), Inches(7), Inches(4))
    slide.shapes.add_picture(str(_png(tmp_path / "dot.png", (8, 8))), Inches(9), Inches(7))
    slide.notes_slide.notes_text_frame.text = "Stress the chain rule.\nAsk for examples."

    slide = deck.slides.add_slide(deck.slide_layouts[BLANK])
    group = slide.shapes.add_group_shape()
    group.shapes.add_textbox(
        Inches(1), Inches(1), Inches(4), Inches(1)
    ).text_frame.text = "Questions?"

    path = tmp_path / "week-2.pptx"
    deck.save(str(path))
    return path


def test_a_deck_is_slides_with_one_page_per_slide(tmp_path: Path) -> None:
    document = load_pptx(_deck(tmp_path), "Week 2.pptx")

    assert document.kind is DocumentKind.SLIDES
    assert document.page_count == 3
    assert document.file_name == "Week 2.pptx"
    assert document.title == "Calculus I - Week 2"
    assert {block.page for block in document.blocks} == {1, 2, 3}


def test_the_slide_title_is_the_section_or_slide_n_without_one(tmp_path: Path) -> None:
    document = load_pptx(_deck(tmp_path), "week-2.pptx")

    sections = {block.page: block.section for block in document.blocks}
    assert sections == {1: ("Limits",), 2: ("Derivative Rules",), 3: ("Slide 3",)}
    assert not any(block.text == "Limits" for block in document.blocks)


def test_shapes_are_read_top_to_bottom_whatever_order_they_were_added_in(
    tmp_path: Path,
) -> None:
    document = load_pptx(_deck(tmp_path), "week-2.pptx")

    slide_1 = [block.text for block in document.blocks if block.page == 1]
    assert slide_1[0] == "Remember: x never equals a."  # 1.2 in from the top, above the body
    assert slide_1[-1] == "See chapter 2.1 for proofs."  # added first, sits at the bottom


def test_bullets_are_list_items_indented_by_level_and_text_boxes_paragraphs(
    tmp_path: Path,
) -> None:
    document = load_pptx(_deck(tmp_path), "week-2.pptx")

    slide_1 = [(block.kind, block.text) for block in document.blocks if block.page == 1]
    assert slide_1 == [
        (BlockKind.PARAGRAPH, "Remember: x never equals a."),
        (BlockKind.LIST_ITEM, "- A limit describes behaviour near a point"),
        (BlockKind.LIST_ITEM, "  - Left and right limits must agree"),
        (BlockKind.PARAGRAPH, "See chapter 2.1 for proofs."),
    ]


def test_a_table_keeps_its_cells_with_the_first_row_as_header(tmp_path: Path) -> None:
    document = load_pptx(_deck(tmp_path), "week-2.pptx")

    table = next(block for block in document.blocks if block.kind is BlockKind.TABLE)
    assert table.page == 2
    assert table.table == Table(
        header=("Function", "Derivative"), rows=(("x^n", "n x^(n-1)"), ("ln(x)", "1/x"))
    )
    assert table.text == table.table.render()


def test_speaker_notes_are_a_notes_block_of_their_slide(tmp_path: Path) -> None:
    document = load_pptx(_deck(tmp_path), "week-2.pptx")

    notes = [block for block in document.blocks if block.kind is BlockKind.NOTES]
    assert [(n.page, n.section, n.text) for n in notes] == [
        (2, ("Derivative Rules",), "Stress the chain rule.\nAsk for examples.")
    ]


def test_text_inside_a_group_is_read(tmp_path: Path) -> None:
    document = load_pptx(_deck(tmp_path), "week-2.pptx")

    assert [block.text for block in document.blocks if block.page == 3] == ["Questions?"]


def test_pictures_become_images_only_when_asked_and_icons_are_skipped(tmp_path: Path) -> None:
    path = _deck(tmp_path)

    assert load_pptx(path, "week-2.pptx").images == []
    images = load_pptx(path, "week-2.pptx", with_images=True).images

    assert [(image.page, image.section, image.media_type) for image in images] == [
        (2, ("Derivative Rules",), "image/png")
    ]
    with Image.open(io.BytesIO(images[0].data)) as decoded:
        assert decoded.size == (120, 90)


def test_garbage_bytes_are_a_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "slides.pptx"
    path.write_bytes(b"definitely not a zip archive" * 10)

    with pytest.raises(CorruptFileError, match=r"slides\.pptx"):
        load_pptx(path, "slides.pptx")


def test_a_truncated_deck_is_a_corrupt_file(tmp_path: Path) -> None:
    data = _deck(tmp_path).read_bytes()
    path = tmp_path / "cut.pptx"
    path.write_bytes(data[: len(data) // 2])

    with pytest.raises(CorruptFileError):
        load_pptx(path, "cut.pptx")


def test_a_word_file_named_pptx_is_a_corrupt_file(tmp_path: Path) -> None:
    import docx

    path = tmp_path / "renamed.pptx"
    docx.Document().save(str(path))

    with pytest.raises(CorruptFileError):
        load_pptx(path, "renamed.pptx")


def test_an_ole_container_is_reported_as_password_protected(tmp_path: Path) -> None:
    path = tmp_path / "locked.pptx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))

    with pytest.raises(EncryptedFileError, match="password-protected"):
        load_pptx(path, "locked.pptx")


def test_a_deck_without_text_is_empty(tmp_path: Path) -> None:
    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[BLANK])
    path = tmp_path / "blank.pptx"
    deck.save(str(path))

    with pytest.raises(EmptyFileError):
        load_pptx(path, "blank.pptx")
