"""PowerPoint loader on python-pptx: one page per slide, the slide title as its section, body
text in reading order (top to bottom, then left to right, groups included), bullets as list
items, tables as tables and the speaker notes as a notes block."""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from lxml import etree
from pptx import Presentation
from pptx.enum.shapes import PP_PLACEHOLDER
from pptx.exc import PythonPptxError
from pptx.oxml.ns import qn
from pptx.shapes.autoshape import Shape
from pptx.shapes.base import BaseShape
from pptx.shapes.graphfrm import GraphicFrame
from pptx.shapes.group import GroupShape
from pptx.shapes.picture import Picture
from pptx.slide import Slide
from pptx.text.text import _Paragraph

from ingestion.documents import Block, BlockKind, DocumentKind, ImageRef, LoadedDocument
from ingestion.errors import CorruptFileError, EmptyFileError, EncryptedFileError
from ingestion.file_limits import check_count
from ingestion.loaders.archive_limits import ArchiveLimits, EncryptedMemberError, check_archive
from ingestion.loaders.text_cleanup import (
    clean_text,
    document_title,
    image_ref,
    is_ole_container,
    list_item_text,
    table_from_rows,
)

# Placeholders whose paragraphs are bullets unless a paragraph turns them off.
_BULLETED_PLACEHOLDERS = frozenset({PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT})
# Placeholders repeating the same thing on every slide.
_FURNITURE = frozenset({PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.FOOTER, PP_PLACEHOLDER.SLIDE_NUMBER})
_BULLET_TAGS = frozenset({qn("a:buChar"), qn("a:buAutoNum"), qn("a:buBlip")})


def load_pptx(
    path: Path,
    file_name: str,
    with_images: bool = False,
    *,
    limits: ArchiveLimits | None = None,
    max_slides: int | None = None,
) -> LoadedDocument:
    """`limits` bound what the package may unpack to (the defaults suit course files);
    `max_slides`: a deck with more slides is refused before any slide is read."""
    if is_ole_container(path):
        raise _encrypted(file_name)
    try:
        check_archive(path, file_name, limits)
        presentation = Presentation(str(path))
        check_count(file_name, len(presentation.slides), max_slides, "slides")
        blocks: list[Block] = []
        images: list[ImageRef] = []
        for number, slide in enumerate(presentation.slides, start=1):
            blocks.extend(_slide_blocks(slide, number))
            if with_images:
                images.extend(_slide_images(slide, number))
        title = document_title(presentation.core_properties.title, file_name)
        slide_count = len(presentation.slides)
    except EncryptedMemberError as error:
        raise _encrypted(file_name) from error
    except (PythonPptxError, zipfile.BadZipFile, KeyError, ValueError, etree.LxmlError) as error:
        raise CorruptFileError(
            f"{file_name} could not be read as a PowerPoint file: it may be damaged or not a "
            ".pptx at all."
        ) from error
    if not blocks:
        raise EmptyFileError(f"{file_name} has no text on any slide.")
    return LoadedDocument(
        file_name=file_name,
        title=title,
        blocks=blocks,
        kind=DocumentKind.SLIDES,
        page_count=slide_count,
        images=_unique(images),
    )


def _encrypted(file_name: str) -> EncryptedFileError:
    return EncryptedFileError(
        f"{file_name} is password-protected or in the old .ppt format: save it as a .pptx "
        "without a password and send that instead."
    )


def _slide_title(slide: Slide) -> str | None:
    title = slide.shapes.title
    if title is None or not title.has_text_frame:
        return None
    return " ".join(clean_text(title.text_frame.text).split()) or None


def _slide_blocks(slide: Slide, number: int) -> list[Block]:
    title = _slide_title(slide)
    section = (title or f"Slide {number}",)
    blocks = []
    for shape in _body_shapes(slide):
        # Text frames belong to Shapes (placeholders too), tables to GraphicFrames.
        if isinstance(shape, Shape) and shape.has_text_frame:
            bulleted = _placeholder_type(shape) in _BULLETED_PLACEHOLDERS
            for paragraph in shape.text_frame.paragraphs:
                block = _paragraph_block(paragraph, bulleted, number, section)
                if block is not None:
                    blocks.append(block)
        elif isinstance(shape, GraphicFrame) and shape.has_table:
            rows = ([cell.text for cell in row.cells] for row in shape.table.rows)
            table = table_from_rows(rows)
            if table is not None:
                blocks.append(Block(table.render(), BlockKind.TABLE, number, section, table=table))
    if not blocks and title:  # a title-only slide still says something
        blocks.append(Block(title, BlockKind.PARAGRAPH, number, section))
    notes = _notes(slide)
    if notes:
        blocks.append(Block(notes, BlockKind.NOTES, number, section))
    return blocks


def _paragraph_block(
    paragraph: _Paragraph, bulleted: bool, number: int, section: tuple[str, ...]
) -> Block | None:
    text = clean_text(paragraph.text)
    if not text:
        return None
    properties = paragraph._p.pPr
    if properties is not None:
        if properties.find(qn("a:buNone")) is not None:
            bulleted = False
        elif any(child.tag in _BULLET_TAGS for child in properties):
            bulleted = True
    if bulleted or paragraph.level > 0:
        return Block(list_item_text(text, paragraph.level), BlockKind.LIST_ITEM, number, section)
    return Block(text, BlockKind.PARAGRAPH, number, section)


def _body_shapes(slide: Slide) -> Iterator[BaseShape]:
    """Every shape but the title and the footer placeholders, in reading order."""
    title = slide.shapes.title
    skipped = {title.shape_id} if title is not None else set()
    for shape in _in_reading_order(slide.shapes):
        if shape.shape_id not in skipped and _placeholder_type(shape) not in _FURNITURE:
            yield shape


def _in_reading_order(shapes: Iterable[BaseShape]) -> Iterator[BaseShape]:
    """Top to bottom, then left to right; a group's shapes stay together, in their own order."""
    for shape in sorted(shapes, key=lambda s: (s.top or 0, s.left or 0)):
        if isinstance(shape, GroupShape):
            yield from _in_reading_order(shape.shapes)
        else:
            yield shape


def _placeholder_type(shape: BaseShape) -> PP_PLACEHOLDER | None:
    if not shape.is_placeholder:
        return None
    return shape.placeholder_format.type


def _notes(slide: Slide) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    return clean_text(frame.text) if frame is not None else ""


def _slide_images(slide: Slide, number: int) -> Iterator[ImageRef]:
    section = (_slide_title(slide) or f"Slide {number}",)
    for shape in _in_reading_order(slide.shapes):
        if not isinstance(shape, Picture):
            continue
        try:
            data = shape.image.blob
        except (KeyError, ValueError, AttributeError):  # a linked picture, not in the file
            continue
        ref = image_ref(data, number, section)
        if ref is not None:
            yield ref


def _unique(images: list[ImageRef]) -> list[ImageRef]:
    """Each picture once: a logo on every slide is captioned once."""
    seen: set[bytes] = set()
    unique = []
    for image in images:
        if image.data not in seen:
            seen.add(image.data)
            unique.append(image)
    return unique
