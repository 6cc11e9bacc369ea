"""PDF loader on pypdfium2: text per page in reading order, split into paragraphs by line
spacing, sections from slide titles (a deck of landscape pages) or headings
(`ingestion.loaders.pdf_headings`: typography, numbering and the PDF's outline).

pdfium gives text line by line with no blank lines between paragraphs, so breaks are found
from each line's box: a gap wider than the spacing inside the document's paragraphs, a short
line ending a sentence, or a bullet. Running headers and footers (page numbers, a deck's footer)
are dropped so they don't end up in every chunk."""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import structlog

from ingestion.documents import Block, BlockKind, DocumentKind, ImageRef, LoadedDocument
from ingestion.errors import CorruptFileError, EmptyFileError, EncryptedFileError
from ingestion.file_limits import check_count
from ingestion.loaders.ocr import TesseractOcr
from ingestion.loaders.pdf_headings import (
    Candidate,
    Heading,
    HeadingRules,
    HeadingTrail,
    LineStyle,
    OutlineEntry,
    line_style,
    read_outline,
    same_type,
)
from ingestion.loaders.pdf_tables import PageTable, carry_headers, find_tables
from ingestion.loaders.text_cleanup import (
    MIN_IMAGE_SIDE,
    clean_text,
    contents_page,
    document_title,
    image_ref,
    list_item_text,
    png_bytes,
    starts_with_bullet,
)

log = structlog.get_logger(__name__)

# Headers and footers sit in this share of the page height at the top or bottom.
MARGIN_ZONE = 0.08
# A gap this much (in line heights) over the spacing inside a paragraph starts a new one.
PARAGRAPH_GAP = 0.15
MIN_PARAGRAPH_GAP = 0.2
# A line ending this far (share of the text width) short of the right edge ends a paragraph.
SHORT_LINE = 0.15
# A page with this many dot-leader entries or more holds a table of contents.
MIN_CONTENTS_ENTRIES = 3

_PDFIUM_SOFT_HYPHEN = re.compile(r"[\ufffe\x02](?=[^\W\d_])")
_PAGE_NUMBER = re.compile(r"[-–\s]*(page\s*)?\d{1,4}(\s*(of|/)\s*\d{1,4})?[-–\s]*", re.IGNORECASE)
_NUMBERED_ITEM = re.compile(r"^\(?(\d{1,2}|[a-z])[.)]\s+\S")


@dataclass(frozen=True, slots=True)
class _Line:
    text: str  # cleaned
    box: tuple[float, float, float, float] | None  # left, bottom, right, top (PDF points)
    bold: bool = False
    # For a table of contents entry ("Grading ...... 4", its dots cleaned away), the page it
    # points at (0: none given): never a heading.
    contents_page: int | None = None
    size: float = 0.0  # font size in points (0: unknown)
    columns: bool = False  # wide gaps part it, as a table row's cells
    # A table in the page's flow, standing for the lines it covered.
    table: PageTable | None = None
    italic: bool = False

    @property
    def style(self) -> LineStyle:
        return LineStyle(self.size, self.bold, self.columns, self.italic)

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1] if self.box else 0.0


@dataclass(slots=True)
class _Page:
    number: int
    width: float
    height: float
    lines: list[_Line]
    images: list[bytes] = field(default_factory=list)
    tables: list[PageTable] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Layout:
    """Document-wide measures the paragraph and heading rules compare against."""

    gap_threshold: float  # in line heights


def load_pdf(
    path: Path,
    file_name: str,
    with_images: bool = False,
    *,
    max_pages: int | None = None,
    ocr: TesseractOcr | None = None,
) -> LoadedDocument:
    """`max_pages`: a PDF with more pages is refused from its page count, before any text is
    read (None: no limit). `ocr` reads the pages without a text layer (None: they stay
    empty, and a PDF that is all scans is refused)."""
    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as error:
        if error.err_code == pdfium_c.FPDF_ERR_PASSWORD:
            raise EncryptedFileError(
                f"{file_name} is password-protected: save a copy without the password and "
                "send that instead."
            ) from error
        if error.err_code == pdfium_c.FPDF_ERR_SECURITY:
            raise EncryptedFileError(
                f"{file_name} is encrypted in a way that can't be opened: save a copy without "
                "protection and send that instead."
            ) from error
        raise CorruptFileError(
            f"{file_name} could not be read as a PDF: it may be damaged or not a PDF at all."
        ) from error
    try:
        check_count(file_name, len(pdf), max_pages, "pages")
        title = document_title(pdf.get_metadata_dict().get("Title"), file_name)
        outline = read_outline(pdf)
        pages = list(_read_pages(pdf, file_name, with_images))
        if ocr is not None:
            _read_scanned(pdf, pages, file_name, ocr)
    finally:
        pdf.close()

    if not pages:
        raise CorruptFileError(f"{file_name} has no page that can be read: it may be damaged.")
    _drop_running_lines(pages)
    _drop_contents(pages)
    slides = all(page.width > page.height for page in pages)
    layout = _measure(pages, slides)
    _place_tables(pages)
    blocks = _slide_blocks(pages, layout) if slides else _document_blocks(pages, layout, outline)
    if not blocks and ocr is not None:
        raise EmptyFileError(
            f"{file_name} has no text that can be read, even with OCR: if it is a scan, it "
            "may be too faint or blurred; a sharper scan may work."
        )
    if not blocks:
        raise EmptyFileError(
            f"{file_name} has no text that can be extracted. If it is a scan, run it through "
            "OCR first and send the result."
        )
    return LoadedDocument(
        file_name=file_name,
        title=title,
        blocks=blocks,
        kind=DocumentKind.SLIDES if slides else DocumentKind.DOCUMENT,
        page_count=len(pages),
        images=_image_refs(pages, blocks) if with_images else [],
    )


def _read_pages(pdf: pdfium.PdfDocument, file_name: str, with_images: bool) -> Iterator[_Page]:
    for index in range(len(pdf)):
        try:
            yield _read_page(pdf, index, file_name, with_images)
        except pdfium.PdfiumError:
            log.warning("skipping a PDF page pdfium can't read", file=file_name, page=index + 1)


def _read_scanned(
    pdf: pdfium.PdfDocument, pages: list[_Page], file_name: str, ocr: TesseractOcr
) -> None:
    """Fill the pages without a text layer with their OCR'd lines; pages with text (the
    rest of a mixed PDF) are read as they are."""
    empty = {page.number: page for page in pages if not page.lines}
    for number, lines in ocr.read_pages(pdf, sorted(empty), file_name).items():
        empty[number].lines = [
            _Line(text, line.box) for line in lines if (text := clean_text(line.text))
        ]


def _read_page(pdf: pdfium.PdfDocument, index: int, file_name: str, with_images: bool) -> _Page:
    page = pdf[index]
    try:
        width, height = page.get_size()
        textpage = page.get_textpage()
        try:
            lines = _page_lines(textpage)
            tables = find_tables(page, textpage)
        finally:
            textpage.close()
        images = _page_images(page, file_name, index + 1) if with_images else []
        return _Page(index + 1, width, height, lines, images, tables)
    finally:
        page.close()


def _page_lines(textpage: pdfium.PdfTextPage) -> list[_Line]:
    text = textpage.get_text_range()
    lines = []
    for match in re.finditer(r"[^\r\n]+", text):
        raw = match.group()
        stripped = raw.strip()
        if not stripped:
            continue
        start = match.start() + len(raw) - len(raw.lstrip())
        end = start + len(stripped) - 1
        line_text = clean_text(_PDFIUM_SOFT_HYPHEN.sub("", stripped).replace("\ufffe", "-\n"))
        if line_text:
            box, style = _line_geometry(textpage, start, end)
            page_ref = contents_page(stripped)
            lines.append(
                _Line(
                    line_text,
                    box,
                    style.bold,
                    page_ref,
                    style.size,
                    style.columns,
                    italic=style.italic,
                )
            )
    return lines


def _line_geometry(
    textpage: pdfium.PdfTextPage, start: int, end: int
) -> tuple[tuple[float, float, float, float] | None, LineStyle]:
    """The box around a line's first and last characters, and its type."""
    first = pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage, start)
    last = pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage, end)
    if first < 0 or last < 0:
        return None, LineStyle()
    left, bottom, _, top = textpage.get_charbox(first, loose=True)
    _, last_bottom, right, last_top = textpage.get_charbox(last, loose=True)
    box = (left, min(bottom, last_bottom), right, max(top, last_top))
    if box[3] - box[1] <= 0:
        return None, LineStyle()
    return box, line_style(textpage, first, last)


def _page_images(page: pdfium.PdfPage, file_name: str, number: int) -> list[bytes]:
    """Encoded images on a page (JPEG as stored, anything else as PNG); icons are skipped."""
    found = []
    for image in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]):
        try:
            if min(image.get_px_size()) < MIN_IMAGE_SIDE:
                continue
            if image.get_filters(skip_simple=True) == ["DCTDecode"]:
                found.append(bytes(image.get_data(decode_simple=True)))
            else:
                found.append(png_bytes(image.get_bitmap(render=False).to_pil()))
        except Exception:  # one image that pdfium or Pillow can't decode never fails the file
            log.debug(
                "skipping a PDF image that could not be extracted", file=file_name, page=number
            )
    return found


def _in_margin(line: _Line, page: _Page) -> bool:
    if line.box is None or page.height <= 0:
        return False
    middle = (line.box[1] + line.box[3]) / 2
    return middle < page.height * MARGIN_ZONE or middle > page.height * (1 - MARGIN_ZONE)


def _drop_running_lines(pages: list[_Page]) -> None:
    """Drop page numbers and lines repeated in the top or bottom margin of most pages."""

    def key(line: _Line) -> str:
        return re.sub(r"\d+", "#", line.text.lower())

    counts = Counter(
        text
        for page in pages
        for text in {key(line) for line in page.lines if _in_margin(line, page)}
    )
    repeated = max(2, math.ceil(len(pages) / 2))
    for page in pages:
        page.lines = [
            line
            for line in page.lines
            if not _in_margin(line, page)
            or not (_PAGE_NUMBER.fullmatch(line.text) or counts[key(line)] >= repeated)
        ]


def _drop_contents(pages: list[_Page]) -> None:
    """Drop a table of contents: MIN_CONTENTS_ENTRIES entries or more on a page, pointing
    at pages of this document in order. It repeats the headings, and quoted it answered
    questions with "Section 10: Academic Assessment (Grading) 3". A list of points with dot
    leaders ("Homework ...... 100") names no page of the document and stays."""
    for page in pages:
        entries = [line.contents_page for line in page.lines if line.contents_page is not None]
        named = [number for number in entries if number]
        if (
            len(entries) >= MIN_CONTENTS_ENTRIES
            and named == sorted(named)
            and all(number <= len(pages) for number in named)
        ):
            page.lines = [line for line in page.lines if line.contents_page is None]


def _place_tables(pages: list[_Page]) -> None:
    """Each table takes the place of the lines inside it, where its first line was."""
    carry_headers([page.tables for page in pages], [page.height for page in pages])
    for page in pages:
        placed: list[_Line] = []
        waiting = list(page.tables)
        for line in page.lines:
            inside = next((t for t in page.tables if _inside(line, t)), None)
            if inside is None:
                placed.append(line)
            elif inside in waiting:
                waiting.remove(inside)
                placed.append(_Line(inside.table.render(), inside.box, table=inside))
        for table in waiting:  # no line of text inside it: by its height on the page
            below = [n for n, line in enumerate(placed) if line.box and line.box[3] < table.box[3]]
            at = below[0] if below else len(placed)
            placed.insert(at, _Line(table.table.render(), table.box, table=table))
        page.lines = placed


def _inside(line: _Line, table: PageTable) -> bool:
    if line.box is None:
        return False
    left, bottom, right, top = table.box
    middle_x = (line.box[0] + line.box[2]) / 2
    middle_y = (line.box[1] + line.box[3]) / 2
    return left <= middle_x <= right and bottom <= middle_y <= top


def _table_block(line: _Line, page: int, section: tuple[str, ...]) -> Block:
    assert line.table is not None
    table = line.table.table
    return Block(line.text, BlockKind.TABLE, page=page, section=section, table=table)


def _measure(pages: list[_Page], slides: bool) -> _Layout:
    """Line spacing inside a paragraph.

    In a document most pairs of lines sit in the same paragraph, so the commonest spacing is
    the spacing inside one. On slides most lines are bullets of their own and only a few wrap:
    there the tightest spacing is the one inside a paragraph."""
    ratios = []
    for page in pages:
        for previous, line in zip(page.lines, page.lines[1:], strict=False):
            ratio = _gap_ratio(previous, line)
            if ratio is not None and -0.3 <= ratio <= 3 and not _same_row(previous, line):
                ratios.append(ratio)
    ratios.sort()
    if len(ratios) < 3:
        inside = 0.0
    elif slides:
        inside = ratios[int(0.05 * (len(ratios) - 1))]
    else:
        buckets = Counter(round(ratio / 0.05) for ratio in ratios)
        inside = max(buckets, key=lambda bucket: (buckets[bucket], -bucket)) * 0.05
    return _Layout(gap_threshold=max(inside + PARAGRAPH_GAP, MIN_PARAGRAPH_GAP))


def _gap_ratio(previous: _Line, line: _Line) -> float | None:
    """The blank space between two lines, in line heights (negative when they overlap)."""
    if previous.box is None or line.box is None:
        return None
    height = min(previous.height, line.height)
    return (previous.box[1] - line.box[3]) / height


def _same_row(previous: _Line, line: _Line) -> bool:
    """pdfium splits a row into pieces when its cells sit far apart (tables, tab stops)."""
    if previous.box is None or line.box is None:
        return False
    height = min(previous.height, line.height)
    return abs(previous.box[3] - line.box[3]) < 0.3 * height and line.box[0] > previous.box[2]


@dataclass(frozen=True, slots=True)
class _Step:
    line: _Line
    joiner: str  # "\n" within a paragraph, " " for another piece of the same row
    gap_before: bool  # white space above, as a heading has
    new_paragraph: bool


def _steps(page: _Page, layout: _Layout) -> Iterator[_Step]:
    boxes = [line.box for line in page.lines if line.box]
    left = min((box[0] for box in boxes), default=0.0)
    right = max((box[2] for box in boxes), default=0.0)
    short_of = right - SHORT_LINE * (right - left)
    previous: _Line | None = None
    for line in page.lines:
        if previous is None:  # the top of a page counts as white space above
            yield _Step(line, "\n", gap_before=True, new_paragraph=True)
            previous = line
            continue
        if _same_row(previous, line):
            yield _Step(line, " ", gap_before=False, new_paragraph=False)
            previous = line
            continue
        ratio = _gap_ratio(previous, line)
        gap = ratio is not None and (ratio > layout.gap_threshold or ratio < -0.5)
        ended = (
            previous.box is not None
            and previous.box[2] < short_of
            and previous.text.endswith((".", "!", "?", ":"))
        )
        listed = starts_with_bullet(line.text) or bool(_NUMBERED_ITEM.match(line.text))
        yield _Step(line, "\n", gap_before=gap, new_paragraph=gap or ended or listed)
        previous = line


class _Paragraphs:
    """Collects lines into blocks, flushing one whenever a paragraph or section ends."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self._text: list[str] = []

    def add(self, step: _Step) -> None:
        if self._text:
            self._text.append(step.joiner)
        self._text.append(step.line.text)

    def flush(self, page: int, section: tuple[str, ...]) -> None:
        text = clean_text("".join(self._text))
        self._text = []
        if not text:
            return
        if starts_with_bullet(text):
            text = list_item_text(text[1:].lstrip())
            self.blocks.append(Block(text, BlockKind.LIST_ITEM, page=page, section=section))
        elif _NUMBERED_ITEM.match(text):
            self.blocks.append(Block(text, BlockKind.LIST_ITEM, page=page, section=section))
        else:
            self.blocks.append(Block(text, BlockKind.PARAGRAPH, page=page, section=section))


def _slide_blocks(pages: list[_Page], layout: _Layout) -> list[Block]:
    """Each page a slide: its first line is the title, the rest its body."""
    paragraphs = _Paragraphs()
    for page in pages:
        if not page.lines:
            continue
        section: tuple[str, ...] = (page.lines[0].text,)
        body = _Page(page.number, page.width, page.height, page.lines[1:])
        if page.lines[0].table is not None:  # a slide that opens on a table has no title
            section, body.lines = (), page.lines
        if not body.lines:  # a title-only slide still says something
            body.lines = page.lines
        for step in _steps(body, layout):
            if step.line.table is not None:
                paragraphs.flush(page.number, section)
                paragraphs.blocks.append(_table_block(step.line, page.number, section))
                continue
            if step.new_paragraph:
                paragraphs.flush(page.number, section)
            paragraphs.add(step)
        paragraphs.flush(page.number, section)
    return paragraphs.blocks


def _document_blocks(
    pages: list[_Page], layout: _Layout, outline: list[OutlineEntry]
) -> list[Block]:
    """Pages in order; every block under the nearest heading above it, across pages."""
    rules = HeadingRules.measure(
        ((page.number, line.text, line.style) for page in pages for line in page.lines), outline
    )
    walk = [(page, list(_steps(page, layout))) for page in pages]
    rules = rules.learn(
        _candidate(page, steps, at) for page, steps in walk for at in range(len(steps))
    )
    trail = HeadingTrail()
    paragraphs = _Paragraphs()
    for page, steps in walk:
        heading: Heading | None = None  # the heading just read, to join one wrapped over lines
        for position, step in enumerate(steps):
            if step.line.table is not None:
                paragraphs.flush(page.number, trail.path)
                paragraphs.blocks.append(_table_block(step.line, page.number, trail.path))
                heading = None
                trail.text()
                continue
            candidate = _candidate(page, steps, position)
            if heading is not None and rules.continues(heading, candidate):
                section = trail.extend(step.line.text)
                last = paragraphs.blocks[-1]
                text = f"{last.text}\n{step.line.text}"
                paragraphs.blocks[-1] = Block(text=text, page=last.page, section=section)
                heading = None
                continue
            found = rules.heading(candidate, after=heading)
            if found is not None:
                paragraphs.flush(page.number, trail.path)
                heading = found
                # The heading stays in the text too, as the first line of its section.
                section = trail.enter(found)
                paragraphs.blocks.append(Block(step.line.text, page=page.number, section=section))
                continue
            heading = None
            trail.text()
            if step.new_paragraph:
                paragraphs.flush(page.number, trail.path)
            paragraphs.add(step)
        paragraphs.flush(page.number, trail.path)
    return paragraphs.blocks


def _candidate(page: _Page, steps: list[_Step], position: int) -> Candidate:
    """A line as the heading rules read it: a piece of a row (a table cell) with the
    pieces before and after it on the same row."""
    step = steps[position]
    following = steps[position + 1] if position + 1 < len(steps) else None
    previous = steps[position - 1].line if position > 0 else None
    above = previous.box if previous is not None else None
    box = step.line.box
    line = step.line
    return Candidate(
        text=line.text,
        page=page.number,
        style=line.style,
        gap_before=step.gap_before or (previous is not None and _set_apart(previous, line)),
        in_row=step.joiner == " " or (following is not None and following.joiner == " "),
        indented=box is not None and above is not None and box[0] > above[0] + line.height,
        furniture=_in_margin(line, page),
        contents_entry=line.contents_page is not None,
        aligned=box is None or above is None or _aligned(above, box, line.height),
        runs_on=following is not None
        and following.joiner == "\n"
        and not following.gap_before
        and following.line.table is None
        and same_type(line.style, following.line.style),
    )


def _set_apart(previous: _Line, line: _Line) -> bool:
    """A line stands apart from the one above without white space when it is set larger
    (a heading straight under a paragraph) or when the line above is a table's row."""
    row = previous.table is not None or (previous.columns and not line.columns)
    if row and previous.box is not None and line.box is not None:
        return line.box[0] <= previous.box[0] + line.height  # not a cell's wrapped text
    return previous.size > 0 and line.size >= previous.size + 1


def _aligned(
    above: tuple[float, float, float, float], box: tuple[float, float, float, float], height: float
) -> bool:
    """The same left edge, or the same centre (a centred heading's second line)."""
    same_left = abs(box[0] - above[0]) <= height
    same_centre = abs((box[0] + box[2]) / 2 - (above[0] + above[2]) / 2) <= height
    return same_left or same_centre


def _image_refs(pages: list[_Page], blocks: list[Block]) -> list[ImageRef]:
    """Images in page order, each once (a logo on every page is captioned once), in the
    section of their page's first block (or the last one before, on a page without text)."""
    first_sections: dict[int | None, tuple[str, ...]] = {}
    last_sections: dict[int | None, tuple[str, ...]] = {}
    for block in blocks:
        first_sections.setdefault(block.page, block.section)
        last_sections[block.page] = block.section
    refs = []
    seen: set[bytes] = set()
    carried: tuple[str, ...] = ()
    for page in pages:
        section = first_sections.get(page.number, carried)
        carried = last_sections.get(page.number, carried)
        for data in page.images:
            digest = hashlib.sha256(data).digest()
            if digest in seen:
                continue
            seen.add(digest)
            ref = image_ref(data, page.number, section)
            if ref is not None:
                refs.append(ref)
    return refs
