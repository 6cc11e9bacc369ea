"""Word loader on python-docx: the body in order, paragraphs and tables interleaved. Heading
styles build the section path, list paragraphs become list items, tables stay tables. Word
files have no fixed pages, so blocks carry no page number."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import docx
from docx.document import Document
from docx.exceptions import PythonDocxError
from docx.opc.exceptions import OpcError
from docx.oxml.xmlchemy import BaseOxmlElement
from docx.table import Table as DocxTable
from docx.text.paragraph import Paragraph
from lxml import etree

from ingestion.documents import Block, BlockKind, DocumentKind, ImageRef, LoadedDocument
from ingestion.errors import CorruptFileError, EmptyFileError, EncryptedFileError
from ingestion.loaders.archive_limits import ArchiveLimits, EncryptedMemberError, check_archive
from ingestion.loaders.text_cleanup import (
    clean_text,
    document_title,
    image_ref,
    is_ole_container,
    list_item_text,
    table_from_rows,
)

_HEADING_STYLE = re.compile(r"heading ([1-9])", re.IGNORECASE)
_STYLE_LEVEL = re.compile(r"List \w+ ([2-9])$")
_TITLE_LEVEL = 0  # the "Title" style heads the path, above Heading 1


def load_docx(
    path: Path,
    file_name: str,
    with_images: bool = False,
    *,
    limits: ArchiveLimits | None = None,
) -> LoadedDocument:
    """`limits` bound what the package may unpack to (the defaults suit course files)."""
    if is_ole_container(path):
        raise _encrypted(file_name)
    try:
        check_archive(path, file_name, limits)
        document = docx.Document(str(path))
        walk = _Walk(document, with_images)
        walk.run()
        title = document_title(document.core_properties.title or walk.title_text, file_name)
    except EncryptedMemberError as error:
        raise _encrypted(file_name) from error
    except (
        OpcError,
        PythonDocxError,
        zipfile.BadZipFile,
        KeyError,
        ValueError,
        etree.LxmlError,
    ) as error:
        raise CorruptFileError(
            f"{file_name} could not be read as a Word file: it may be damaged or not a .docx "
            "at all."
        ) from error
    if not walk.blocks:
        raise EmptyFileError(f"{file_name} has no text.")
    return LoadedDocument(
        file_name=file_name,
        title=title,
        blocks=walk.blocks,
        kind=DocumentKind.DOCUMENT,
        images=walk.images,
    )


def _encrypted(file_name: str) -> EncryptedFileError:
    return EncryptedFileError(
        f"{file_name} is password-protected or in the old .doc format: save it as a .docx "
        "without a password and send that instead."
    )


class _Walk:
    """One pass over the body, keeping the heading path the current block sits under."""

    def __init__(self, document: Document, with_images: bool) -> None:
        self.document = document
        self.with_images = with_images
        self.blocks: list[Block] = []
        self.images: list[ImageRef] = []
        self.title_text = ""  # the first paragraph in the "Title" style
        self._headings: list[tuple[int, str]] = []  # the path to where the walk is
        self._heading_blocks: list[Block] = []  # used only if the file has nothing else
        self._seen_images: set[str] = set()

    @property
    def section(self) -> tuple[str, ...]:
        return tuple(text for _, text in self._headings)

    def run(self) -> None:
        for item in self.document.iter_inner_content():
            if isinstance(item, Paragraph):
                self._paragraph(item)
                element: BaseOxmlElement = item._p
            else:
                self._table(item)
                element = item._tbl
            if self.with_images:
                self._images(element)
        if not self.blocks:  # headings alone are still some text
            self.blocks = self._heading_blocks

    def _paragraph(self, paragraph: Paragraph) -> None:
        text = clean_text(paragraph.text)
        if not text:
            return
        style = (paragraph.style.name if paragraph.style is not None else None) or ""
        level = _heading_level(style)
        if level is not None:
            heading = " ".join(text.split())
            self._headings = [h for h in self._headings if h[0] < level] + [(level, heading)]
            self._heading_blocks.append(Block(heading, section=self.section))
            if level == _TITLE_LEVEL and not self.title_text:
                self.title_text = heading
            return
        list_level = _list_level(paragraph, style)
        if list_level is None:
            self.blocks.append(Block(text, BlockKind.PARAGRAPH, section=self.section))
        else:
            item = list_item_text(text, list_level)
            self.blocks.append(Block(item, BlockKind.LIST_ITEM, section=self.section))

    def _table(self, table: DocxTable) -> None:
        found = table_from_rows(_cell_texts(table))
        if found is not None:
            self.blocks.append(
                Block(found.render(), BlockKind.TABLE, section=self.section, table=found)
            )

    def _images(self, element: BaseOxmlElement) -> None:
        related = self.document.part.related_parts
        for relationship_id in element.xpath(".//a:blip/@r:embed"):
            if relationship_id in self._seen_images or relationship_id not in related:
                continue
            self._seen_images.add(relationship_id)
            ref = image_ref(related[relationship_id].blob, None, self.section)
            if ref is not None:
                self.images.append(ref)


def _heading_level(style: str) -> int | None:
    if style == "Title":
        return _TITLE_LEVEL
    match = _HEADING_STYLE.fullmatch(style)
    return int(match.group(1)) if match else None


def _list_level(paragraph: Paragraph, style: str) -> int | None:
    """The nesting level (0 at the top) of a list paragraph; None for any other paragraph."""
    # Read by XPath: python-docx types its optional child elements as descriptors.
    numbered = paragraph._p.xpath("./w:pPr/w:numPr")
    levels = paragraph._p.xpath("./w:pPr/w:numPr/w:ilvl/@w:val")
    if levels:
        return int(levels[0])
    if not numbered and "List" not in style:
        return None
    nested = _STYLE_LEVEL.search(style)  # "List Bullet 2" is one level in
    return int(nested.group(1)) - 1 if nested else 0


def _cell_texts(table: DocxTable) -> Iterator[list[str]]:
    """Rows of cell text; a cell merged across columns counts once."""
    for row in table.rows:
        texts = []
        previous = None
        for cell in row.cells:
            if cell._tc is not previous:
                texts.append(cell.text)
            previous = cell._tc
        yield texts
