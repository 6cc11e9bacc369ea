"""Which lines of a PDF are headings, and the heading path each block stands under.

A heading is told by the page's own typography, compared with the document's body text: a
larger font, a bold one, or a numbered or ALL CAPS line with space above it; the PDF's outline
(bookmarks), where it has one, names headings and their levels outright. Lines that only look
short and capitalised are refused first: table cells (a line sharing its row with others),
dates and schedule rows, names (a redacted `<NAME>`, "Prof. …"), contact lines and page
furniture. Levels come from the outline, then from the type: a larger size outranks a smaller
one, bold outranks regular at the same size, "1.2" sits under "1"."""

from __future__ import annotations

import ctypes
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from statistics import median

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ingestion.loaders.text_cleanup import starts_with_bullet

MAX_HEADING_CHARS = 80
MAX_HEADING_WORDS = 12
# A line at least this much larger than the body text is set apart by its size alone; a
# bold one by less (plain text a point larger is often just a title page's details).
LARGER_TEXT = 1.25
LARGER_BOLD_TEXT = 1.12
MAX_TITLE_LINES = 3
# A sentence-case line stands apart as a heading only this short ("Course time and location").
MAX_SENTENCE_HEADING_WORDS = 6
# Characters sampled along a line to read its size and weight (pdfium reads them one by one).
STYLE_SAMPLES = 7
# A gap between two characters this many times the font size parts a line's cells.
COLUMN_GAP = 1.5
# pdfium's weight scale: 700 is bold; 0 means the font does not say.
BOLD_WEIGHT = 600
# Type this many points over the body's, though short of LARGER_TEXT, still sets a line
# apart as a bold one does (a 12-point sub-heading over 11-point text).
RAISED_POINTS = 0.75
# A sentence-case label in the body's type ("Academic honesty:") has at most this many words.
MAX_LABEL_WORDS = 2
# A lone italic word is a name or a term more often than a heading.
MIN_ITALIC_WORDS = 2

_SPACES = (0x20, 0x09, 0x0D, 0x0A, 0xA0)
_FORCE_BOLD_FLAG = 1 << 18
_ITALIC_FLAG = 1 << 6
_STROKED = (
    pdfium_c.FPDF_TEXTRENDERMODE_FILL_STROKE,
    pdfium_c.FPDF_TEXTRENDERMODE_FILL_STROKE_CLIP,
)
_BOLD_FONT = re.compile(r"bold|black|heavy|demi|semibold|[-,]bd\b|[-,]b$", re.IGNORECASE)
_ITALIC_FONT = re.compile(r"italic|oblique|[-,]it\b|[-,]i$", re.IGNORECASE)
_SMALL_WORDS = frozenset(
    {"a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "nor", "of"}
    | {"on", "or", "per", "the", "to", "vs", "via", "with", "&", "is", "are", "be", "do"}
    | {"how", "what", "when", "where", "who", "why", "your", "you", "our", "this", "it"}
)
# "1.", "1.2", "IV.", "B." before a heading's words.
_NUMBER = re.compile(r"^(?P<number>\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.|[A-Z][.)])\s+")
# Numbered words that head a document's largest parts.
_MAJOR_NUMBER = re.compile(r"^(section|chapter|part)\s+(\d{1,3}|[IVX]{1,5}|[A-Z])\b", re.IGNORECASE)
# "Section 10:", "Unit 3 -", "Part II." before a heading's words.
_NUMBER_WORD = re.compile(
    r"^(section|chapter|unit|part|module|appendix|article)\s+"
    r"(\d{1,3}|[IVX]{1,5}|[A-Z])\b\s*[:.\-–—]?\s*",
    re.IGNORECASE,
)
# "Section 9: What will you learn?": a numbered part with its title, whatever its casing.
_NUMBERED_TITLE = re.compile(
    r"^(section|chapter|part|appendix)\s+(\d{1,3}|[IVX]{1,5})\s*[:.\-–—]\s*\S",
    re.IGNORECASE,
)
_MONTHS = (
    "jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sept?(ember)?"
    "|oct(ober)?|nov(ember)?|dec(ember)?"
)
_DAYS = "mon(day)?|tue(s|sday)?|wed(nesday)?|thu(rs|rsday)?|fri(day)?|sat(urday)?|sun(day)?"
_DATE = re.compile(
    rf"\b({_MONTHS})\.?\s+\d{{1,2}}\b"  # March 7, Sept. 12
    rf"|\b\d{{1,2}}\s+({_MONTHS})\b"  # 7 March
    r"|(?<![\d.])\d{1,2}/\d{1,2}(/\d{2,4})?(?![\d.])"  # 5/15, 5/15/23
    r"|\b\d{4}-\d{2}-\d{2}\b"
    rf"|^\W*({_DAYS})\b[.,]?\s*(\d|$|[-–,/&]|and\b)"  # Monday 5, Tue/Thu
    r"|\b(mon|tues|wednes|thurs|fri|satur|sun)day\b"  # "Introduction due, Thursday"
    r"|\b\d{1,2}(:\d{2})?\s*[ap]\.?m\b",  # 9:05 AM, 1 pm
    re.IGNORECASE,
)
# Redacted names and contact details (<PROF_FULL_NAME>, <TA_EMAIL>).
# A placeholder may be cut by a line break ("<PROF_FULL_NAME" / ">, Ph.D.").
_PLACEHOLDER = re.compile(r"<[A-Z][A-Z0-9_ ]*(>|$)")
# "206A Chenoweth", "W201 South College": a room and its building.
_ROOM = re.compile(r"^([A-Z]\d{2,4}[A-Z]?|\d{3,4}[A-Z]?)\s+[A-Z][a-z]+(\s+[A-Z][a-z]+)?$")
# "(she/her)", a reference's "(2006)", "Page 3": an aside, a citation, page furniture.
_ASIDE = re.compile(r"^\(.*\)$|\((19|20)\d\d\)|^page\b", re.IGNORECASE)
_HONORIFIC = re.compile(r"^(prof|professor|dr|mr|mrs|ms|mx)\b\.?\s", re.IGNORECASE)
_DEGREE = re.compile(r",\s*(ph\.?\s?d|m\.?d|m\.?s|m\.?a|ed\.?d)\.?$", re.IGNORECASE)
_CONTACT = re.compile(r"@|://|www\.|\(\d{3}\)|\d{3}[-.\s]\d{3}[-.\s]\d{4}")
# "Email: x", "Office: 745 LGRT": a field and its value, not a heading.
_FIELD = re.compile(r"^[^:]{1,40}:\s+\S")
_TRAILING_FIGURE = re.compile(r"(?:^|\s)\d[\d,.]*\s*(?P<unit>%|pts?\.?|points?)?$", re.IGNORECASE)
# "35% Laboratory": a grading row with its weight first.
_LEADING_FIGURE = re.compile(r"^\d[\d,.]*\s*(%|pts?\.?|points?)(\s|$)", re.IGNORECASE)
_YEAR = re.compile(r"(19|20)\d\d")
# The title of a table of contents, whose entries are dropped.
_CONTENTS = re.compile(r"^(table of )?contents\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LineStyle:
    """A line's type: `size` is the font size as printed, in points (0: unknown);
    `columns` that a gap of several spaces splits it, as between a table's cells."""

    size: float = 0.0
    bold: bool = False
    columns: bool = False
    italic: bool = False


def line_style(textpage: pdfium.PdfTextPage, first: int, last: int) -> LineStyle:
    """The median size and the majority weight of a few characters spread along the line
    (pdfium char indexes `first`..`last`): one bold word does not make a line bold."""
    count = last - first + 1
    if count <= 0:
        return LineStyle()
    step = max(1, count // STYLE_SAMPLES)
    sizes: list[float] = []
    bold = italic = 0
    for index in range(first, last + 1, step):
        if pdfium_c.FPDFText_GetUnicode(textpage, index) in _SPACES:
            continue
        size = _char_size(textpage, index)
        if size > 0:
            sizes.append(size)
        weight, slanted = _char_face(textpage, index)
        bold += weight
        italic += slanted
    samples = max(len(sizes), 1)
    size = median(sizes) if sizes else 0.0
    columns = count <= MAX_HEADING_CHARS and _widest_gap(textpage, first, last) > COLUMN_GAP * size
    return LineStyle(
        size=size, bold=bold * 2 > samples, columns=columns, italic=italic * 2 > samples
    )


def _widest_gap(textpage: pdfium.PdfTextPage, first: int, last: int) -> float:
    """The widest space between two characters of a line, in points (short lines only:
    headings are short, and every character costs a call)."""
    widest = 0.0
    right: float | None = None
    for index in range(first, last + 1):
        if pdfium_c.FPDFText_GetUnicode(textpage, index) in _SPACES:
            continue
        left, _, char_right, _ = textpage.get_charbox(index)
        if right is not None:
            widest = max(widest, left - right)
        right = char_right
    return widest


def _char_size(textpage: pdfium.PdfTextPage, index: int) -> float:
    """The font size scaled by the text matrix: many PDFs set a 1-point font and scale it."""
    size = pdfium_c.FPDFText_GetFontSize(textpage, index)
    matrix = pdfium_c.FS_MATRIX()
    if pdfium_c.FPDFText_GetMatrix(textpage, index, ctypes.byref(matrix)):
        size *= math.hypot(matrix.c, matrix.d)
    return round(float(size), 1)


def _char_face(textpage: pdfium.PdfTextPage, index: int) -> tuple[bool, bool]:
    """Whether the character is set bold, and whether italic."""
    bold = pdfium_c.FPDFText_GetFontWeight(textpage, index) >= BOLD_WEIGHT
    # a regular font drawn with an outline as well: Word's bold for fonts without a bold face
    text_object = pdfium_c.FPDFText_GetTextObject(textpage, index)
    if text_object and pdfium_c.FPDFTextObj_GetTextRenderMode(text_object) in _STROKED:
        bold = True
    flags = ctypes.c_int(0)
    size = pdfium_c.FPDFText_GetFontInfo(textpage, index, None, 0, ctypes.byref(flags))
    if size <= 0:
        return bold, False
    name = ctypes.create_string_buffer(size)
    pdfium_c.FPDFText_GetFontInfo(textpage, index, name, size, ctypes.byref(flags))
    font = name.value.decode("utf-8", errors="replace").split("+")[-1]
    bold = bold or bool(flags.value & _FORCE_BOLD_FLAG) or bool(_BOLD_FONT.search(font))
    return bold, bool(flags.value & _ITALIC_FLAG) or bool(_ITALIC_FONT.search(font))


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """A bookmark: its title, its depth (0 at the top) and the 1-based page it opens."""

    title: str
    level: int
    page: int | None


def read_outline(pdf: pdfium.PdfDocument) -> list[OutlineEntry]:
    entries = []
    try:
        for bookmark in pdf.get_toc(max_depth=6):
            title = " ".join(bookmark.get_title().split())
            dest = bookmark.get_dest()
            index = dest.get_index() if dest is not None else None
            if title:
                entries.append(
                    OutlineEntry(title, bookmark.level, index + 1 if index is not None else None)
                )
    except pdfium.PdfiumError:  # a damaged outline is no reason to refuse the text
        return []
    return entries


@dataclass(frozen=True, slots=True)
class Candidate:
    """What the heading rules read about one line in its place on the page."""

    text: str
    page: int
    style: LineStyle
    # set apart from the line above: white space, the top of the page, a larger type than
    # the line above's, or the end of a table's rows
    gap_before: bool
    in_row: bool  # shares its row with other pieces: a table cell or a tab-stop column
    indented: bool = False  # starts right of the line straight above: a wrapped cell or item
    furniture: bool = False  # in the page's top or bottom margin
    contents_entry: bool = False  # a table of contents line ("Grading ...... 4")
    # lines up with the line above (the same left edge or the same centre), as the second
    # line of a wrapped heading does
    aligned: bool = True
    # the line straight under it, with no white space between, is set in its type: the two
    # are a passage in that type (a table's cell, a note), unless a heading's type carries on
    runs_on: bool = False


@dataclass(frozen=True, slots=True)
class Heading:
    text: str
    style: LineStyle
    larger: bool  # set larger than the body text
    outline_level: int | None = None  # its depth in the PDF's outline, if it is there
    numbered: bool = False  # "Section 10", "Chapter 2", "Part II": above other headings
    title: bool = False  # the document's title: names the text under it, parent of nothing
    # Whether other headings may stand under it: not when its type heads no other section
    # (a larger "Instructor:" once at the top is no parent of the whole syllabus).
    parent: bool = True
    depth: int | None = None  # 2 for "1.2", 1 for "1." (None: no number)

    def outranks(self, other: Heading) -> bool:
        """Whether `other` stands under this heading (else it closes it)."""
        if self.outline_level is None and not self.parent:
            return False
        if self.outline_level is not None or other.outline_level is not None:
            if other.outline_level is None:
                return True
            return self.outline_level is not None and self.outline_level < other.outline_level
        mine = self.style.size if self.larger else 0.0
        theirs = other.style.size if other.larger else 0.0
        if abs(mine - theirs) > 0.5:
            return mine > theirs
        if self.numbered != other.numbered:
            return self.numbered
        if self.style.bold != other.style.bold:
            return self.style.bold
        return self.depth is not None and other.depth is not None and self.depth < other.depth


@dataclass(slots=True)
class HeadingRules:
    """The document's measures the rules compare a line against."""

    body: LineStyle
    outline: Sequence[OutlineEntry] = ()
    # Lines set alike on several pages (a running title, a table's repeated header row).
    repeated: frozenset[tuple[str, LineStyle]] = frozenset()
    # The size of the document's title: the largest type of the first page, on a line or
    # three there and nowhere after it (0: none).
    title_size: float = 0.0
    # The types (size, bold) of at least two headings: only these head others (None: any).
    parent_types: frozenset[tuple[float, bool]] | None = None
    _outline_keys: dict[str, OutlineEntry] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for entry in self.outline:
            self._outline_keys.setdefault(_key(entry.title), entry)

    @classmethod
    def measure(
        cls, lines: Iterable[tuple[int, str, LineStyle]], outline: Sequence[OutlineEntry] = ()
    ) -> HeadingRules:
        """`lines`: each line's page, text and type. The body text is the size and weight
        most characters are set in."""
        sizes: Counter[float] = Counter()
        weights: Counter[bool] = Counter()
        pages: dict[tuple[str, LineStyle], set[int]] = {}
        first_page: list[float] = []
        later_pages = 0.0
        for page, text, style in lines:
            if style.size > 0:
                sizes[round(style.size * 2) / 2] += len(text)
            weights[style.bold] += len(text)
            if shaped(text):
                pages.setdefault(_look(text, style), set()).add(page)
                if page == 1:
                    first_page.append(style.size)
                else:
                    later_pages = max(later_pages, style.size)
        body_size = max(sizes, key=lambda size: (sizes[size], -size)) if sizes else 0.0
        body_bold = bool(weights) and weights[True] > weights[False]
        repeated = frozenset(look for look, on in pages.items() if len(on) > 1)
        largest = max(first_page, default=0.0)
        title = later_pages > 0 and largest > later_pages + 0.5
        title_size = largest if title and first_page.count(largest) <= MAX_TITLE_LINES else 0.0
        return cls(LineStyle(body_size, body_bold), outline, repeated, title_size)

    def learn(self, lines: Iterable[Candidate]) -> HeadingRules:
        """The same rules, knowing which types head more than one section."""
        types = Counter(
            _type(heading.style) for line in lines if (heading := self.heading(line)) is not None
        )
        return replace(self, parent_types=frozenset(kind for kind, n in types.items() if n > 1))

    def heading(self, line: Candidate, after: Heading | None = None) -> Heading | None:
        """The heading this line is, or None for a line of text. `after`: the heading read
        straight above it, under which white space is no sign of another heading unless the
        line's own type stands out from both the body's and that heading's (a regular
        12-point "Teams:" under a bold "Course policies:")."""
        text = line.text.strip()
        entry = self._outline_entry(text, line.page)
        if entry is not None:
            return Heading(text.rstrip(":").strip(), line.style, False, entry.level)
        if line.contents_entry or line.in_row or line.style.columns:
            return None
        alone = _alone(line, after)
        if after is not None and not (
            self._emphasised(line.style, text) and _face(line.style) != _face(after.style)
        ):
            line = replace(line, gap_before=False)
        if line.indented and not line.gap_before:
            return None
        larger = self._larger(line.style)
        emphasised = self._emphasised(line.style, text)
        # a heading at the very top is set apart by its size, or by bold after the first
        # page (whose top holds the institution's name); any other line there is furniture
        if line.furniture and not (larger or (line.page > 1 and self._bold(line.style))):
            return None
        if not shaped(text) or refused(text) or _look(text, line.style) in self.repeated:
            return None
        if emphasised:
            # a bold phrase inside a paragraph is no heading; a short one standing apart may
            # be written in sentence case ("Course time and location:")
            if not cased(text) and not (
                line.gap_before and (_sentence_heading(text, larger) or _NUMBERED_TITLE.match(text))
            ):
                return None
            if self._faint(line.style) and not alone:
                return None
        elif not self._plain_heading(line, text):
            return None
        number = _NUMBER.match(text)
        return Heading(
            text.rstrip(":").strip(),
            line.style,
            larger,
            numbered=bool(_MAJOR_NUMBER.match(text)),
            depth=number.group("number").rstrip(".").count(".") + 1 if number else None,
            title=line.page == 1 and self.title_size > 0 and line.style.size >= self.title_size,
            parent=self.parent_types is None or _type(line.style) in self.parent_types,
        )

    def _plain_heading(self, line: Candidate, text: str) -> bool:
        """A line in the body's type heads a section when it stands apart with space above
        it, in capitals or Title Case ("Required Texts:", "Section 10: Grading"), as a
        numbered part whatever its casing ("Section 9: What will you learn?"), or as a
        short label ("Academic honesty:")."""
        return line.gap_before and (
            cased(text) or bool(_NUMBERED_TITLE.match(text)) or _label(text)
        )

    def _emphasised(self, style: LineStyle, text: str = "") -> bool:
        """Set apart from the body by its type: larger, bold, a little larger, or italic.
        Italic sets apart a plain phrase only: titles of books and journals, names and
        references are italic too ("American Sociological Review 61:333", "Session")."""
        if self._larger(style) or self._bold(style):
            return True
        if self.body.size > 0 and style.size >= self.body.size + RAISED_POINTS:
            return True
        return style.italic and not self.body.italic and _italic_heading(text)

    def _faint(self, style: LineStyle) -> bool:
        """Set apart only a little: a point or so larger than the body, or italic, neither
        bold nor larger. Table cells and notes are set so too ("These Cells / Intentionally
        Left Blank", "TIME TBD / LOCATION TBD"), so such a line heads a section only alone."""
        return not self._larger(style) and not self._bold(style)

    def continues(self, heading: Heading, line: Candidate) -> bool:
        """A second line of a heading: the same emphasised type straight under it."""
        text = line.text.strip()
        return (
            (heading.style.bold or self._larger(heading.style))
            and not heading.text.endswith(":")
            and not line.gap_before
            and line.aligned
            and not line.in_row
            and not line.style.columns
            and line.style.bold == heading.style.bold
            and abs(line.style.size - heading.style.size) <= 0.5
            and len(heading.text) + len(text) <= 2 * MAX_HEADING_CHARS
            and shaped(text)
            # a sentence-case heading goes on in sentence case ("How do exams relate to
            # each other in" / "this course?")
            and (cased(text) or not cased(heading.text))
            and not refused(text)
            and not _NUMBER.match(text)
            and not _NUMBER_WORD.match(text)
        )

    def _bold(self, style: LineStyle) -> bool:
        return style.bold and not self.body.bold

    def _larger(self, style: LineStyle) -> bool:
        ratio = LARGER_BOLD_TEXT if style.bold else LARGER_TEXT
        return self.body.size > 0 and style.size >= ratio * self.body.size

    def _outline_entry(self, text: str, page: int) -> OutlineEntry | None:
        if not self._outline_keys:
            return None
        entry = self._outline_keys.get(_key(text))
        if entry is None or (entry.page is not None and abs(entry.page - page) > 1):
            return None
        return entry


@dataclass(slots=True)
class HeadingTrail:
    """The headings a line stands under, strongest first. The title block (headings before
    any text, such as a syllabus's course name, term and "Course Syllabus") labels the text
    under it but is no parent of the sections that follow."""

    _stack: list[Heading] = field(default_factory=list)
    _titles: int = 0
    _text_seen: bool = False

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(heading.text for heading in self._stack)

    def enter(self, heading: Heading) -> tuple[str, ...]:
        if self._titles:
            del self._stack[: self._titles]
            self._titles = 0
        self._stack = [entry for entry in self._stack if not entry.title]
        while self._stack and not self._stack[-1].outranks(heading):
            self._stack.pop()
        self._stack.append(heading)
        if not self._text_seen:
            self._titles = len(self._stack)
        return self.path

    def extend(self, text: str) -> tuple[str, ...]:
        """The heading just entered goes on over another line."""
        last = self._stack[-1]
        joined = f"{last.text} {text.strip()}".rstrip(":").strip()
        self._stack[-1] = replace(last, text=joined)
        return self.path

    def text(self) -> None:
        """A line of text was read under the current path."""
        self._text_seen = True


def shaped(text: str) -> bool:
    """Short, one line, words rather than figures, and no closing punctuation."""
    if len(text) > MAX_HEADING_CHARS or text.endswith((".", ",", ";")) or "\n" in text:
        return False
    if starts_with_bullet(text):
        return False
    words = _words(text)
    if not words or len(words) > MAX_HEADING_WORDS:
        return False
    letters = sum(char.isalpha() for char in text)
    # a row of figures or grades is not a heading
    return letters > 2 * sum(char.isdigit() for char in text) and max(map(_letters, words)) >= 3


def _sentence_heading(text: str, larger: bool) -> bool:
    """A label ("Course time and location:") or a larger question ("What will you learn
    along the way?"), not a sentence set in bold."""
    words = _words(text)
    if re.search(r"[.!?]\s+\S", " ".join(words)) or not words[0][:1].isupper():
        return False
    return larger or text.endswith(":") or len(words) <= MAX_SENTENCE_HEADING_WORDS


def _italic_heading(text: str) -> bool:
    """An italic line that reads as a heading: a few words with no figures or commas."""
    words = _words(text)
    return (
        MIN_ITALIC_WORDS <= len(words) <= MAX_SENTENCE_HEADING_WORDS
        and not re.search(r"[\d,;*()]", text)
        and text.rstrip("?:")[-1:].isalpha()
        and not text.endswith(":")
    )


def _alone(line: Candidate, after: Heading | None) -> bool:
    """A line standing alone: space above it (or a heading of another type straight above,
    as an italic sub-heading under "Campus Resources:"), and no more of its type under it."""
    under = after is not None and _face(after.style) != _face(line.style)
    return (line.gap_before or under) and not line.runs_on


def _label(text: str) -> bool:
    """A short sentence-case label closed by a colon ("Academic honesty:"), not a phrase
    that opens a list ("For example:")."""
    words = _words(text)
    return (
        text.endswith(":")
        and 0 < len(words) <= MAX_LABEL_WORDS
        and words[0][:1].isupper()
        and words[0].lower() not in _SMALL_WORDS
    )


def refused(text: str) -> bool:
    """Lines that can look like headings and never are: names, contact details, dates and
    schedule rows, and a field with its value ("Office: 745 LGRT")."""
    if _PLACEHOLDER.search(text) or _CONTACT.search(text) or _DATE.search(text):
        return True
    if _LEADING_FIGURE.match(text) or _ROOM.match(text) or _ASIDE.search(text):
        return True
    if text.count('"') % 2 or text.count("“") != text.count("”") or _unbalanced(text):
        return True  # a piece of a quoted title or an aside cut by a line break
    if _HONORIFIC.match(text) or _DEGREE.search(text) or _CONTENTS.match(text):
        return True
    if _table_row(text) and not _NUMBER_WORD.fullmatch(text):
        return True
    return bool(_FIELD.match(text)) and not _NUMBER_WORD.match(text)


def cased(text: str) -> bool:
    """ALL CAPS, or Title Case (small words aside) after any numbering."""
    if text.isupper():
        return True
    for position, word in enumerate(_words(text)):
        first = next((char for char in word if char.isalnum()), "")
        small = position > 0 and word.lower().strip("()") in _SMALL_WORDS
        if first.isalpha() and not first.isupper() and not small:
            return False
    return True


def _unbalanced(text: str) -> bool:
    """Parentheses left open or closed, numbering such as "11)" or "(a)" aside."""
    text = re.sub(r"^\(?[\dA-Za-z]{1,3}\)\s*", "", text)
    return text.count("(") != text.count(")")


def _words(text: str) -> list[str]:
    text = _NUMBER_WORD.sub("", text, count=1)
    return _NUMBER.sub("", text, count=1).rstrip(":").split()


def _letters(word: str) -> int:
    return sum(char.isalpha() for char in word)


def same_type(one: LineStyle, other: LineStyle) -> bool:
    """Set in the same type: size (to half a point), weight and slant."""
    return _face(one) == _face(other)


def _type(style: LineStyle) -> tuple[float, bool]:
    return round(style.size * 2) / 2, style.bold


def _face(style: LineStyle) -> tuple[float, bool, bool]:
    return round(style.size * 2) / 2, style.bold, style.italic


def _look(text: str, style: LineStyle) -> tuple[str, LineStyle]:
    return _key(text), LineStyle(round(style.size), style.bold)


def _table_row(text: str) -> bool:
    """Ends in a figure, as a row of a grading table does ("Midterm Exams 600", "Quizzes
    15%"); a course code ("CHEM 122") is capitals and a number and is no row."""
    figure = _TRAILING_FIGURE.search(text)
    if figure is None or _YEAR.fullmatch(figure.group().strip()):
        return False
    if figure.group("unit"):
        return True
    before = text[: figure.start()].split()
    return not before or not before[-1].isupper()


def _key(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())
