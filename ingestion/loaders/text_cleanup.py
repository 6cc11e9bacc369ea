"""Rules the loaders share: how extracted text is normalised, which title a document gets,
how a grid of cells becomes a `Table`, which embedded images are worth keeping, and how to
tell a password-protected Office file."""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from ingestion.documents import ImageRef, Table

# Smaller images are icons, bullets and rules: nothing a caption would help with.
MIN_IMAGE_SIDE = 64

BULLET_CHARS = "•●○◦▪■□▫‣⁃∙·➢➤►▶✓✔❖◆◇-–—*§Ø"  # § and Ø: Wingdings bullets
_BULLET_LINE = re.compile(rf"^[{re.escape(BULLET_CHARS)}]\s+\S")

_LINE_BREAKS = str.maketrans({"\r": "\n", "\x0b": "\n", "\x0c": "\n", "\u2028": "\n"})
_INVISIBLE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\u00ad\u200b\u2060\ufeff]")
_PRIVATE_USE_BULLET = re.compile(r"^[\ue000-\uf8ff]")
_PRIVATE_USE = re.compile(r"[\ue000-\uf8ff]")
_SPACES = re.compile(r"[^\S\n]+")
_HYPHENATED = re.compile(r"([^\W\d_])-\n([^\W\d_])")
_BLANK_LINES = re.compile(r"\n{3,}")
# A table of contents' dot leaders ("Grading ........ 4"): only the entry and its page stay.
# Matched on text whose spaces are single already: a run of spaces before a leader would be
# re-scanned from each of its positions (20,000 spaces in a line took 23 s).
_LEADER_MARKS = 8  # fewer is an ellipsis ("jury duty.....")
_DOT_LEADER = re.compile(rf" ?(?:[.…] ?){{{_LEADER_MARKS},}}")
# A contents entry ends with a leader: its last marks (each with at most one space after
# it), looked for in the line's end only.
_LEADER_END = re.compile(rf"(?:[.…] ?){{{_LEADER_MARKS}}}$")
_LEADER_WINDOW = 2 * _LEADER_MARKS
# Titles that editors and converters fill in by themselves ("Microsoft Word - notes.docx").
_GENERATED_TITLE = re.compile(
    r"^(microsoft (word|powerpoint) - |untitled\b|powerpoint presentation$|slide \d+$)"
    r"|\.(docx?|pptx?|odt|odp|rtf|tex|dvi|pdf)$",
    re.IGNORECASE,
)
# Office files protected by a password are not zip packages but OLE compound files (as are
# the legacy .doc and .ppt formats).
_OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def clean_text(text: str) -> str:
    """Normalise extracted text; line breaks are kept, blank lines collapse to one.

    Unicode NFKC (so ligatures like "ﬁ" read "fi"), one space for any run of spaces or tabs,
    no invisible or control characters, no dot leaders, and a word hyphenated at a line end
    joined again."""
    text = text.replace("\r\n", "\n").translate(_LINE_BREAKS)
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(_clean_line(line) for line in _INVISIBLE.sub("", text).split("\n"))
    text = _HYPHENATED.sub(_join_hyphenated, text)
    return _BLANK_LINES.sub("\n\n", text).strip()


def contents_page(text: str) -> int | None:
    """The page a table of contents entry points at ("Grading ........ 4": 4; 0 when its
    dot leader ends the line with no number), or None when `text` is no such entry. Read
    before `clean_text`, which drops the dots."""
    # Read from the end, in bounded steps: a search for a leader anywhere followed by the
    # line's end re-scans a long run of dots from each of its positions.
    line = text.rstrip()
    body = line.rstrip("0123456789")
    page = line[len(body) :]
    body = body.rstrip()
    if len(page) > 4 or not _LEADER_END.search(body[-_LEADER_WINDOW:]):
        return None
    return int(page) if page else 0


def _clean_line(line: str) -> str:
    # Symbol-font glyphs land in the private use area: one opening a line is a bullet.
    line = _PRIVATE_USE.sub("", _PRIVATE_USE_BULLET.sub("•", line.strip()))
    return _DOT_LEADER.sub(" ", _SPACES.sub(" ", line)).strip()


def _join_hyphenated(match: re.Match[str]) -> str:
    before, after = match.group(1), match.group(2)
    return before + after if after.islower() else match.group(0)


def starts_with_bullet(text: str) -> bool:
    """Whether text opens with a bullet glyph (•, ●, -, ...) followed by a space."""
    return bool(_BULLET_LINE.match(text))


def document_title(stored_title: str | None, file_name: str) -> str:
    """The title stored in the file, unless empty or made up by the editor: then the file's
    name without its extension."""
    title = " ".join((stored_title or "").split())
    if title and not _GENERATED_TITLE.search(title):
        return title
    return Path(file_name).stem


def is_ole_container(path: Path) -> bool:
    """Whether the file is an OLE compound file: a password-protected .docx/.pptx, or the
    legacy binary .doc/.ppt format."""
    with path.open("rb") as file:
        return file.read(len(_OLE_SIGNATURE)) == _OLE_SIGNATURE


def list_item_text(text: str, level: int = 0) -> str:
    """A list item as every loader writes it: "- " after two spaces per nesting level."""
    return "  " * level + "- " + text


def table_from_rows(rows: Iterable[Sequence[str]]) -> Table | None:
    """A `Table` whose header is the first non-empty row; None when every cell is empty."""
    cleaned = [tuple(" ".join(clean_text(cell).split()) for cell in row) for row in rows]
    cleaned = [row for row in cleaned if any(row)]
    if not cleaned:
        return None
    return Table(header=cleaned[0], rows=tuple(cleaned[1:]))


def image_ref(data: bytes, page: int | None, section: tuple[str, ...]) -> ImageRef | None:
    """An `ImageRef` for PNG or JPEG data, other formats re-encoded as PNG.

    None when the image is smaller than MIN_IMAGE_SIDE on a side or cannot be decoded (a
    vector format such as EMF, say): one odd image never fails a document."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            if min(image.size) < MIN_IMAGE_SIDE:
                return None
            if image.format == "PNG" or (image.format == "JPEG" and image.mode in ("L", "RGB")):
                media_type = "image/png" if image.format == "PNG" else "image/jpeg"
                return ImageRef(data=data, media_type=media_type, page=page, section=section)
            return ImageRef(
                data=png_bytes(image), media_type="image/png", page=page, section=section
            )
    except (OSError, ValueError, UnidentifiedImageError, Image.DecompressionBombError):
        return None


def png_bytes(image: Image.Image) -> bytes:
    """The image encoded as PNG, in a mode PNG can hold."""
    if image.mode not in ("1", "L", "LA", "P", "RGB", "RGBA"):
        image = image.convert("RGBA" if "A" in image.getbands() else "RGB")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
