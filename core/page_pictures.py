"""Pictures of the material's pages, kept at ingestion so a citation can show its page.

On disk, under the data dir: `pages/{course}/{document}/` holds one PNG per page
(`p0001.png`) and `pages.json`, the document's record (course, file, owner, visibility, the
pages pictured). A document's pictures are written into a draft folder beside it and swapped
in whole when its chunks are (`commit`), so a reader sees the old set or the new one, never a
mix; they go with their document (`remove`).

Which pictures a request may see is the visibility policy's (`core.visibility.access`): a
document of another course reads as no such page, a student's private notes are hers alone
and shown only where she alone reads along. The store never trusts what a button carried:
it reads the record it wrote."""

from __future__ import annotations

import asyncio
import re
import shutil
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

import structlog
from pydantic import TypeAdapter

from core.context import Context
from core.errors import BadInputError
from core.replies import Answer, Citation, DocumentReply
from core.text import shown_name
from core.visibility import Access, Visibility, access, chunk_visibility

log = structlog.get_logger(__name__)

RECORD = "pages.json"
DRAFT_PREFIX = ".draft-"
_PAGE_FILE = re.compile(r"p(\d{4,6})\.png")
# What `core.courses.ids` and `ingestion.identity` make: anything else names nothing here.
_COURSE_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_DOCUMENT_ID = re.compile(r"[0-9a-f]{16}")

NO_PAGE = "There is no picture of page {page} of '{document}' here."
ONLY_ALONE = (
    "That page is from your private notes: I show it only where you alone read along. "
    "Ask me in a direct message."
)


@dataclass(frozen=True, slots=True)
class PageSet:
    """A document's pictured pages, as its record says. `owner_id` is "" for course
    material (what `core.visibility.Stored` reads)."""

    course_id: str
    document_id: str
    file_name: str
    owner_id: str
    visibility: Visibility
    pages: tuple[int, ...]


# The record as JSON, checked when read.
_RECORD_JSON: TypeAdapter[PageSet] = TypeAdapter(PageSet)


@dataclass(frozen=True, slots=True)
class PageDraft:
    """Pictures of one document being written, not yet shown to anyone."""

    course_id: str
    document_id: str
    folder: Path

    def add(self, page: int, png: bytes) -> int:
        """Write page `page`'s picture; the bytes written."""
        (self.folder / page_file(page)).write_bytes(png)
        return len(png)

    def pages(self) -> tuple[int, ...]:
        found = (_PAGE_FILE.fullmatch(p.name) for p in self.folder.iterdir())
        return tuple(sorted(int(m.group(1)) for m in found if m is not None))


@dataclass(frozen=True, slots=True)
class SeenPages:
    """The pictures `ctx` may see, by file name and page (a lesson's figures: blocking, for
    the renderer's worker thread)."""

    store: PagePictures
    ctx: Context

    def page_png(self, file_name: str, page: int) -> bytes | None:
        return self.store.picture(self.ctx, file_name, page)


def page_file(page: int) -> str:
    return f"p{page:04d}.png"


class PagePictures:
    """The page pictures of every course under `root`, at most `max_course_bytes` a course
    (a document whose pictures would go over keeps the pages that fit; ingestion goes on)."""

    def __init__(self, root: Path, max_course_bytes: int) -> None:
        self.root = root
        self.max_course_bytes = max_course_bytes

    # Writing (ingestion) ------------------------------------------------------------------

    def draft(self, course_id: str, document_id: str) -> PageDraft:
        folder = self._course(course_id) / f"{DRAFT_PREFIX}{document_id}-{uuid.uuid4().hex[:8]}"
        folder.mkdir(parents=True)
        return PageDraft(course_id, document_id, folder)

    def room(self, course_id: str, replacing: str) -> int:
        """Bytes a course may still take, counting the document `replacing` as gone (its
        new pictures take the place of the old)."""
        course = self._course(course_id)
        if not course.is_dir():
            return self.max_course_bytes
        used = sum(
            _folder_bytes(child)
            for child in course.iterdir()
            if child.is_dir() and child.name != replacing
        )
        return max(self.max_course_bytes - used, 0)

    def commit(self, draft: PageDraft, file_name: str, owner_id: str | None) -> PageSet:
        """Swap the draft in as the document's pictures, replacing any earlier ones."""
        pictures = PageSet(
            course_id=draft.course_id,
            document_id=draft.document_id,
            file_name=file_name,
            owner_id=owner_id or "",
            visibility=chunk_visibility(owner_id),
            pages=draft.pages(),
        )
        (draft.folder / RECORD).write_bytes(_RECORD_JSON.dump_json(pictures))
        target = self._document(draft.course_id, draft.document_id)
        old = target.with_name(f"{DRAFT_PREFIX}old-{uuid.uuid4().hex[:8]}")
        if target.exists():
            target.rename(old)
        draft.folder.rename(target)
        shutil.rmtree(old, ignore_errors=True)
        return pictures

    def discard(self, draft: PageDraft) -> None:
        shutil.rmtree(draft.folder, ignore_errors=True)

    def remove(self, course_id: str, document_id: str) -> None:
        """Remove a document's pictures (none kept is fine)."""
        shutil.rmtree(self._document(course_id, document_id), ignore_errors=True)

    # Reading (what a request may see) ------------------------------------------------------

    async def show(self, ctx: Context, document: str, page: int) -> DocumentReply:
        """Page `page` of `document` (its id, or its file name) as `ctx` may see it: a
        picture, or a `BadInputError` that says nothing of what is not theirs."""
        found = await asyncio.to_thread(self._find, ctx, document)
        refused = BadInputError(NO_PAGE.format(page=page, document=shown_name(document[:80])))
        if found is None:
            raise refused
        verdict = access(ctx, found, classmates=True)
        if verdict is Access.NONE:
            raise refused
        if verdict is Access.ELSEWHERE:
            raise BadInputError(ONLY_ALONE)
        png = await asyncio.to_thread(self._read, found, page)
        if png is None:
            raise refused
        return DocumentReply(
            file_name=f"{Path(found.file_name).stem}-p{page}.png",
            content=png,
            media_type="image/png",
            caption=f"{found.file_name}, p. {page}",
            private=found.visibility is Visibility.PRIVATE,
        )

    async def mark(self, ctx: Context, answer: Answer) -> Answer:
        """`answer` with each citation whose page `ctx` may see pictured marked so (a "Show
        page" action goes with it)."""
        if not any(c.page is not None and c.document_id for c in answer.citations):
            return answer
        marked = await asyncio.to_thread(self._marked, ctx, answer.citations)
        return replace(answer, citations=marked)

    def _marked(self, ctx: Context, citations: tuple[Citation, ...]) -> tuple[Citation, ...]:
        records: dict[str, PageSet | None] = {}
        shown = []
        for citation in citations:
            document = citation.document_id
            if citation.page is not None and document:
                if document not in records:
                    records[document] = self._record(ctx.course_id, document)
                found = records[document]
                pictured = (
                    found is not None
                    and citation.page in found.pages
                    and access(ctx, found, classmates=True) is Access.HERE
                )
                citation = replace(citation, pictured=pictured)
            shown.append(citation)
        return tuple(shown)

    def picture(self, ctx: Context, file_name: str, page: int) -> bytes | None:
        """The picture of page `page` of the file `ctx` knows by that name, or None (a
        lesson's figure: blocking, for the renderer's worker thread)."""
        found = self._find(ctx, file_name)
        if found is None:
            return None
        if access(ctx, found, classmates=True) is not Access.HERE:
            return None
        return self._read(found, page)

    def _read(self, found: PageSet, page: int) -> bytes | None:
        if page not in found.pages:
            return None
        try:
            folder = self._document(found.course_id, found.document_id)
            return (folder / page_file(page)).read_bytes()
        except FileNotFoundError:  # removed meanwhile
            return None

    def _find(self, ctx: Context, document: str) -> PageSet | None:
        """The record `document` names in `ctx`'s course: by id, else by file name (the
        asker's own notes first where the policy lets her see them)."""
        document = document.strip()
        if _DOCUMENT_ID.fullmatch(document):
            found = self._record(ctx.course_id, document)
            if found is not None:
                return found
        course = self._course(ctx.course_id)
        if not course.is_dir():
            return None
        named = [
            record
            for child in sorted(course.iterdir())
            if not child.name.startswith(".")
            and (record := self._record(ctx.course_id, child.name)) is not None
            and record.file_name == document
        ]
        # Her own notes of that name first; one she may not see here is still found, so
        # the refusal can say why.
        seen = sorted(
            (r for r in named if access(ctx, r, classmates=True) is Access.HERE),
            key=lambda r: r.owner_id != ctx.user_id,
        )
        if seen:
            return seen[0]
        return next((r for r in named if r.owner_id == ctx.user_id), None)

    def _record(self, course_id: str, document_id: str) -> PageSet | None:
        if not _DOCUMENT_ID.fullmatch(document_id) or not _COURSE_ID.fullmatch(course_id):
            return None
        try:
            text = (self._document(course_id, document_id) / RECORD).read_bytes()
            record = _RECORD_JSON.validate_json(text)
        except FileNotFoundError:
            return None
        except ValueError:  # pydantic's ValidationError too
            log.warning("page pictures record unreadable", course=course_id, document=document_id)
            return None
        # A record stands for its own folder only.
        if record.course_id != course_id or record.document_id != document_id:
            return None
        return record

    def _course(self, course_id: str) -> Path:
        if not _COURSE_ID.fullmatch(course_id):
            raise ValueError(f"not a course id: {course_id!r}")
        return self.root / course_id

    def _document(self, course_id: str, document_id: str) -> Path:
        if not _DOCUMENT_ID.fullmatch(document_id):
            raise ValueError(f"not a document id: {document_id!r}")
        return self._course(course_id) / document_id


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
