"""The ingestion pipeline: files in, a tenant-scoped index out, one file at a time.

Each file is checked (type, size, emptiness), skipped when unchanged, loaded, chunked,
embedded and swapped into the index. A file that fails is reported with a clear reason and
leaves the index as it was; the other files go on.

Reading runs one file ahead of embedding: a producer task checks, loads and chunks the next
file while the current one is embedded and written (the embedder is most of the time), with
at most PREPARED_AHEAD files waiting in between. Files are written and reported in order.
Pages are pictured in a lane of their own beside both (one file at a time, across runs): a
file's pictures are shown once its chunks are in and they are drawn, before the run ends."""

from __future__ import annotations

import asyncio
import inspect
import tempfile
import threading
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import structlog

from core.catalog import AssessmentFact, CatalogStore, CourseFact, OutcomeFact
from core.embedding.embedder import Embedder
from core.index import ChunkIndex, SparseEncoder
from core.material import (
    FileResult,
    FileStatus,
    IngestProgress,
    IngestReport,
    ProgressCallback,
    SourceFile,
    size_problem,
)
from core.notes_quota import NotesQuota, NotesUsage
from core.outages import FILE_UNAVAILABLE, service_of
from core.page_pictures import PageDraft, PagePictures
from core.visibility import chunk_visibility, is_private
from ingestion.captioning import ImageCaptioner
from ingestion.catalog import course_assessments, course_facts, course_outcomes
from ingestion.chunking import Chunk, chunk_document
from ingestion.document_identity import identify
from ingestion.documents import Block, LoadedDocument
from ingestion.errors import EmptyFileError, FileTooLargeError, IngestError, NotesQuotaError
from ingestion.file_limits import FileLimits, check_count
from ingestion.identity import document_id, file_sha256
from ingestion.indexer import ChunkWriter, DocumentMeta
from ingestion.kinds import infer_kind
from ingestion.loaders import loader_for
from ingestion.loaders.ocr import TesseractOcr
from ingestion.page_pictures import picture_pdf, pictured
from ingestion.slide_pictures import SlideConverter, is_deck

log = structlog.get_logger(__name__)

# Files loaded and chunked, waiting for the embedder (each holds its chunks in memory).
PREPARED_AHEAD = 1
# Decks LibreOffice prints at once (each a process of ~150 MB, mostly waiting to start).
PRINTING_AT_ONCE = 2

# The data types live in the core (the facade passes them along); re-exported here.
__all__ = [
    "FileResult",
    "FileStatus",
    "IngestProgress",
    "IngestReport",
    "Ingestor",
    "ProgressCallback",
    "SourceFile",
    "discover",
]


def discover(paths: Sequence[Path]) -> tuple[list[SourceFile], list[FileResult]]:
    """Files named directly, and every supported file below named folders (hidden ones
    skipped). Unsupported files inside folders are reported, not silently dropped."""
    found: list[SourceFile] = []
    problems: list[FileResult] = []
    for path in paths:
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                hidden = any(part.startswith(".") for part in child.relative_to(path).parts)
                if child.is_file() and not hidden:
                    found.append(SourceFile.at(child))
        elif path.is_file():
            found.append(SourceFile.at(path))
        else:
            problems.append(FileResult(str(path), FileStatus.FAILED, error="no such file"))
    return found, problems


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A file read and chunked, ready to embed."""

    source: SourceFile
    meta: DocumentMeta
    chunks: list[Chunk]
    pages: int
    replaces: bool
    facts: list[CourseFact] = field(default_factory=list)
    outcomes: list[OutcomeFact] = field(default_factory=list)
    assessments: list[AssessmentFact] = field(default_factory=list)
    # Its pages' pictures being drawn, shown once its chunks are in (`PagePictures.commit`).
    pictures: asyncio.Task[PageDraft | None] | None = None


class Ingestor:
    def __init__(
        self,
        *,
        index: ChunkIndex,
        embedder: Embedder,
        sparse: SparseEncoder,
        max_bytes: int,
        captioner: ImageCaptioner | None = None,
        catalog: CatalogStore | None = None,
        limits: FileLimits | None = None,
        notes_quota: NotesQuota | None = None,
        ocr: TesseractOcr | None = None,
        pictures: PagePictures | None = None,
        slides: SlideConverter | None = None,
    ) -> None:
        """`limits` bound each file (the defaults when None); `notes_quota` bounds each
        student's private notes (the defaults when None); `ocr` reads scanned PDF pages
        (None: a PDF that is all scans is refused); `pictures` keeps a picture of each PDF
        page (none are kept when None); `slides` prints decks to PDF so their slides are pictured
        too (None: decks get no pictures)."""
        self.index = index
        self.embedder = embedder
        self.writer = ChunkWriter(index, embedder, sparse)
        self.max_bytes = max_bytes
        self.captioner = captioner
        self.catalog = catalog
        self.limits = limits or FileLimits()
        self.notes_quota = notes_quota or NotesQuota()
        self.ocr = ocr
        self.pictures = pictures
        self.slides = slides
        self._told_about_images = False
        self._told_about_slides = False
        # pdfium is not thread-safe: one call into it at a time, across this ingestor's runs.
        self._pdfium = threading.Lock()
        # One file's pages pictured at a time: the course's room is read with the last
        # file's pictures on disk, and drawing takes one core at most.
        self._drawing = asyncio.Semaphore(1)
        self._printing = asyncio.Semaphore(PRINTING_AT_ONCE)

    async def ingest(
        self,
        sources: Sequence[SourceFile],
        course_id: str,
        *,
        owner_id: str | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> IngestReport:
        report = IngestReport()
        progress = IngestProgress(files_done=0, files_total=len(sources), pages=0, chunks=0)

        async def tell(**changes: object) -> None:
            nonlocal progress
            progress = replace(progress, **changes)  # type: ignore[arg-type]
            if on_progress is not None:
                outcome = on_progress(progress)
                if inspect.isawaitable(outcome):
                    await outcome

        # Bounded: the producer stops reading when PREPARED_AHEAD files wait for the embedder.
        prepared: asyncio.Queue[_Prepared | FileResult] = asyncio.Queue(PREPARED_AHEAD)

        # Read before the producer starts: a failure here ends the run instead of the producer.
        notes = await self._notes(owner_id) if owner_id is not None else None

        drawing: list[asyncio.Task[PageDraft | None]] = []
        showing: list[asyncio.Task[None]] = []

        async def produce() -> None:
            queued: dict[str, str] = {}
            for source in sources:
                item = await self._prepare(source, course_id, owner_id, queued, notes)
                if isinstance(item, _Prepared) and item.pictures is not None:
                    drawing.append(item.pictures)
                await prepared.put(item)

        producer = asyncio.create_task(produce())
        try:
            for number, source in enumerate(sources, start=1):
                await tell(current=source.file_name, stage="reading")
                item = await prepared.get()
                if isinstance(item, _Prepared):
                    result = await self._write(item, course_id, lambda: progress, tell)
                    if item.pictures is not None:
                        showing.append(asyncio.create_task(self._settle_pictures(item, result)))
                else:
                    result = item
                report.results.append(result)
                await tell(
                    files_done=number,
                    pages=report.pages,
                    chunks=report.chunks,
                    stage=result.status.value,
                )
                log.info(
                    "ingested file",
                    course=course_id,
                    file=source.file_name,
                    status=result.status.value,
                    chunks=result.chunks,
                    error=result.error or None,
                )
            await producer
            await asyncio.gather(*showing)
        finally:
            # Only still running when the loop above failed (or was cancelled).
            producer.cancel()
            for task in (*drawing, *showing):
                task.cancel()
        return report

    def type_error(self, file_name: str) -> str | None:
        """Why a file of this name cannot be ingested (its type), or None when it can."""
        try:
            loader_for(file_name)
        except IngestError as error:
            return str(error)
        return None

    async def forget(self, course_id: str, document: str, owner_id: str | None = None) -> bool:
        """Remove a document by id or file name; False when the course has no such document."""
        for summary in await self.index.documents_in_course(course_id, owner_id):
            if document in (summary.document_id, summary.file_name):
                if self.catalog is not None:
                    await self.catalog.forget_document(course_id, summary.document_id)
                await self.index.delete_document(course_id, summary.document_id)
                if self.pictures is not None:
                    await asyncio.to_thread(self.pictures.remove, course_id, summary.document_id)
                return True
        return False

    async def _notes(self, owner_id: str) -> dict[str, NotesUsage]:
        """What a student's private notes hold now, by document id."""
        return {
            summary.document_id: NotesUsage(1, summary.pages, summary.file_bytes)
            for summary in await self.index.notes_of(owner_id)
        }

    def _check_quota(
        self, notes: dict[str, NotesUsage] | None, doc_id: str, adding: NotesUsage
    ) -> None:
        """Refuse a notes file that takes its owner over the quota; a file sent again counts
        instead of its earlier version."""
        if notes is None:
            return
        used = sum((usage for doc, usage in notes.items() if doc != doc_id), NotesUsage())
        refusal = self.notes_quota.refusal(used, adding)
        if refusal is not None:
            raise NotesQuotaError(refusal)

    async def _prepare(
        self,
        source: SourceFile,
        course_id: str,
        owner_id: str | None,
        queued: dict[str, str],
        notes: dict[str, NotesUsage] | None = None,
    ) -> _Prepared | FileResult:
        """Check, load and chunk a file: a result when there is nothing to embed (unchanged
        or failed). `queued` holds the documents of this run already prepared (id -> hash):
        the index does not know them yet; `notes` (private notes only) what the owner keeps,
        this run's files included."""
        try:
            loader = loader_for(source.file_name, self.limits, self.ocr)
            size = source.path.stat().st_size
            if size == 0:
                raise EmptyFileError("the file is empty")
            too_large = size_problem(size, self.max_bytes)
            if too_large is not None:
                raise FileTooLargeError(too_large)
            file_hash = await asyncio.to_thread(file_sha256, source.path)
            doc_id = document_id(course_id, source.file_name, owner_id)
            previous = queued.get(doc_id) or await self.index.document_hash(course_id, doc_id)
            if previous == file_hash:
                return FileResult(source.file_name, FileStatus.UNCHANGED)
            self._check_quota(notes, doc_id, NotesUsage(files=1, bytes=size))

            with_images = self.captioner is not None
            document = await asyncio.to_thread(
                self._load, loader, source.path, source.file_name, with_images
            )
            adding = NotesUsage(1, document.page_count, size)
            self._check_quota(notes, doc_id, adding)
            self._note_images_skipped(document)
            blocks = document.blocks + await self._captions(document)
            document.blocks = blocks
            # Loading, chunking and (in the writer) sparse encoding run in worker threads:
            # the event loop keeps serving chats while a large file is ingested.
            chunks = await asyncio.to_thread(
                chunk_document,
                document,
                course_id,
                self.embedder.count_tokens,
                self.embedder.max_tokens,
            )
            if not chunks:
                raise EmptyFileError("no text could be found in the file")
            check_count(source.file_name, len(chunks), self.limits.max_chunks, "passages")
            meta = DocumentMeta(
                course_id=course_id,
                document_id=doc_id,
                file_name=source.file_name,
                title=document.title,
                kind=infer_kind(
                    source.file_name, document.kind, private=is_private(chunk_visibility(owner_id))
                ),
                file_hash=file_hash,
                owner_id=owner_id,
                exercise_id=document.exercise_id,
                exercise_source=document.exercise_source,
                attributes=document.attributes,
                identity=identify(document),
                pages=document.page_count,
                file_bytes=size,
            )
            queued[doc_id] = file_hash
            if notes is not None:
                notes[doc_id] = adding
            # The shared catalog is made of course material only, never of private notes.
            facts = course_facts(document, doc_id) if owner_id is None else []
            outcomes = course_outcomes(document, doc_id) if owner_id is None else []
            graded = course_assessments(document, doc_id) if owner_id is None else []
            pictures = self._start_pictures(source, course_id, doc_id, document.page_count)
            return _Prepared(
                source, meta, chunks, document.page_count, previous is not None, facts,
                outcomes, graded, pictures,
            )  # fmt: skip
        except Exception as error:
            return _failure(source, course_id, error)

    def _load(
        self, loader: Callable[[Path, str, bool], LoadedDocument], path: Path, name: str,
        with_images: bool,
    ) -> LoadedDocument:  # fmt: skip
        """Load a file; a PDF while holding the pdfium lock (the pictures are drawn under it)."""
        if not pictured(name):
            return loader(path, name, with_images)
        with self._pdfium:
            return loader(path, name, with_images)

    def _start_pictures(
        self, source: SourceFile, course_id: str, doc_id: str, pages: int
    ) -> asyncio.Task[PageDraft | None] | None:
        """Start drawing the file's `pages` pages, or None when they are not pictured."""
        store = self.pictures
        if store is None:
            return None
        deck = is_deck(source.file_name)
        if not pictured(source.file_name) and not deck:
            return None
        if deck and self.slides is None:
            if not self._told_about_slides:
                self._told_about_slides = True
                log.info("slides (PPTX) are not pictured: LibreOffice (soffice) is not installed")
            return None
        return asyncio.create_task(self._picture(store, source, course_id, doc_id, pages))

    async def _picture(
        self, store: PagePictures, source: SourceFile, course_id: str, doc_id: str, pages: int
    ) -> PageDraft | None:
        """Pictures of the file's pages, as a draft shown once its chunks are in. Never
        fails the file: what cannot be pictured is logged and left out."""
        draft = None
        try:
            with tempfile.TemporaryDirectory(prefix="coursebot-slides-") as work:
                pdf, expected = source.path, None
                if self.slides is not None and is_deck(source.file_name):
                    # Printing is mostly LibreOffice starting: decks print side by side.
                    async with self._printing:
                        pdf = await asyncio.to_thread(self.slides.print_pdf, pdf, Path(work))
                    expected = pages  # page N must be slide N, as the chunks cite it
                async with self._drawing:
                    room = await asyncio.to_thread(store.room, course_id, doc_id)
                    draft = await asyncio.to_thread(store.draft, course_id, doc_id)
                    await asyncio.to_thread(
                        picture_pdf, pdf, draft, room, lock=self._pdfium,
                        file_name=source.file_name, pages=expected,
                    )  # fmt: skip
            return draft
        except asyncio.CancelledError:
            if draft is not None:
                store.discard(draft)
            raise
        except Exception as error:
            log.warning("pages not pictured", file=source.file_name, error=str(error))
            if draft is not None:
                await asyncio.to_thread(store.discard, draft)
            return None

    async def _write(
        self,
        prepared: _Prepared,
        course_id: str,
        progress: Callable[[], IngestProgress],
        tell: Callable[..., Awaitable[None]],
    ) -> FileResult:
        """Embed a prepared file and swap it into the index."""
        source = prepared.source
        try:
            await tell(stage="embedding")
            chunks_before = progress().chunks

            async def embedded(count: int) -> None:
                await tell(chunks=chunks_before + count, stage="embedding")

            if self.catalog is not None:
                # Before the chunks: a failure here leaves the file to be ingested again.
                meta = prepared.meta
                await self.catalog.replace_document(
                    meta.course_id, meta.document_id, prepared.facts, prepared.outcomes,
                    prepared.assessments,
                )  # fmt: skip
            await self.writer.replace(prepared.meta, prepared.chunks, uuid.uuid4().hex, embedded)
            status = FileStatus.REPLACED if prepared.replaces else FileStatus.ADDED
            return FileResult(source.file_name, status, len(prepared.chunks), prepared.pages)
        except Exception as error:
            return _failure(source, course_id, error)

    async def _settle_pictures(self, prepared: _Prepared, result: FileResult) -> None:
        """Once drawn, the new pages' pictures in place of the old ones (of an earlier version
        too) where the file's chunks went in; dropped where they did not."""
        store, meta = self.pictures, prepared.meta
        draft = await prepared.pictures if prepared.pictures is not None else None
        if draft is None or store is None:
            return
        if result.status not in (FileStatus.ADDED, FileStatus.REPLACED):
            await asyncio.to_thread(store.discard, draft)
            return
        try:
            await asyncio.to_thread(store.commit, draft, meta.file_name, meta.owner_id)
        except Exception as error:
            log.warning("pages not pictured", file=meta.file_name, error=str(error))
            await asyncio.to_thread(store.discard, draft)

    async def _captions(self, document: LoadedDocument) -> list[Block]:
        if self.captioner is None:
            return []
        blocks = []
        for image in document.images:
            try:
                text = await self.captioner.caption(image)
            except Exception as error:  # one bad image must not fail the document
                log.warning("image caption failed", file=document.file_name, error=str(error))
                continue
            if text:
                blocks.append(Block(f"[Image] {text}", page=image.page, section=image.section))
        return blocks

    def _note_images_skipped(self, document: LoadedDocument) -> None:
        if self.captioner is None and not self._told_about_images:
            self._told_about_images = True
            log.info("images are not indexed: no Ollama vision model is configured")


def _failure(source: SourceFile, course_id: str, error: Exception) -> FileResult:
    """A file's failure as its result: an IngestError says why, a service that went away
    says which (the file is fine: sent again later it goes in); anything else is logged."""
    if isinstance(error, IngestError):
        return FileResult(source.file_name, FileStatus.FAILED, error=str(error))
    service = service_of(error)
    if service is not None:
        log.warning("ingestion met an outage", file=source.file_name, service=service)
        return FileResult(
            source.file_name, FileStatus.FAILED, error=FILE_UNAVAILABLE.format(service=service)
        )
    log.error("ingestion failed", file=source.file_name, course=course_id, exc_info=error)
    return FileResult(
        source.file_name,
        FileStatus.FAILED,
        error="it could not be processed (the error was logged)",
    )
