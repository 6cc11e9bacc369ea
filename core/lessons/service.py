"""Lessons for one student: `/lesson TOPIC` gives a deck of slides as a PDF, `/lesson edit N
"instruction"` revises one slide as a new version.

The way of one lesson: the topic's teaching passages in the asker's scope (the retriever
applies the tenant filter: the course's public material, plus the asker's own notes in a
private audience only; a syllabus's logistics are left out, and a topic only they speak of
gets one line saying the course lists it without teaching it), kept when they are about the
topic (embedding similarity, or all its words);
then a deck: written by the model when one is configured (`DeckWriter`: schema, repair,
re-ask on a wrong slide count or passage number), otherwise the extractive deck of the top
passages; the profile's content rules (`adapt_deck`); widgets sanitised (a refused one is
left out and said so); the PDF rendered off the event loop and checked against its profile
(`check_pdf`). A deck that fails its checks is re-rendered with Typst when pdflatex made it
(the checks are written against Typst's output), and otherwise sent with a note saying
which check failed, never silently: the checks read the PDF as a machine does, and a deck
that reads well to a student is worth more than no deck.

Storage: each deck is a row of the material store (kind LESSON; course, owner = the
student, normalised topic, visibility, parameters {profile, slides}), its content the deck's JSON
*and* the PDF (base64) with its sanitised widgets. The PDF is kept, not re-rendered, so a
second identical request costs a database read, the student gets back the very file they
saw (a later renderer, or new page images, do not change a stored deck), and a deck can be
re-sent as it was. Its visibility (`core.visibility`: a deck made in a private audience
may quote the student's notes) keeps it from being served, or edited, in a shared one; an
edit made there is a private version. `fresh=True` replaces the
row and drops its edits. An edit is a new row keyed by the first version's id and the
version number: every version stays in the store. A deck or an edit made in a background
job is saved with the job's id: the job run again (its worker died after saving) sends that
deck, and does not make, or edit into, another.

The visual profile shows each slide's cited page as its figure: the picture kept at ingestion
(`core.page_pictures`), as far as the asker may see it here. A slide whose page has no
picture (a Markdown source, a deck's slide, pictures not kept) gets a map of the lesson;
with no pictures kept at all, the caption says so."""

from __future__ import annotations

import asyncio
import base64
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
import pypdfium2 as pdfium
import structlog

from core.content_kind import ContentKind
from core.context import Context
from core.embedding.embedder import Embedder
from core.errors import BadInputError
from core.generation import (
    GeneratedMaterial,
    MaterialKey,
    MaterialKind,
    MaterialStore,
    NewMaterial,
    Writing,
    normalise_topic,
)
from core.generation.worded import model_failures_worded
from core.index import SearchHit
from core.index.chunk_index import GUIDED_EXERCISE_KIND
from core.lessons.checks import check_pdf
from core.lessons.command import LessonEdit, lesson_request, parse_profile
from core.lessons.models import Citation, Deck, Profile, Slide, SlideBounds
from core.lessons.outline import NotEnoughMaterialError, build_extractive_deck, split_passage
from core.lessons.profiles import adapt_deck
from core.lessons.render import Engine, render_deck, resolve_engine
from core.lessons.typst_engine import RenderError
from core.lessons.widgets import RefusedWidget, sanitise_widget, widget_file_name
from core.lessons.writer import DeckWriter
from core.page_pictures import PagePictures, SeenPages
from core.progress import (
    CHECKING_PDF,
    READING,
    REVISING_SLIDE,
    TYPESETTING,
    WRITING_SLIDES,
    StepReport,
    Steps,
)
from core.replies import DocumentReply, Reply
from core.retrieval import MIN_TOPIC_SIMILARITY
from core.visibility import Access, Visibility, access, made_as, visible_to_owner

log = structlog.get_logger(__name__)

SIMILARITY_CHARS = 1500
MODEL_PASSAGES = 8
EDIT_PASSAGES = 6
QUERY_CHARS = 600
LESSON_STEPS = (READING, WRITING_SLIDES, TYPESETTING, CHECKING_PDF)
EDIT_STEPS = (READING, REVISING_SLIDE, TYPESETTING, CHECKING_PDF)
PREVIEW_WIDTH_PX = 1000
# Part of the stored content: bump it when stored decks would no longer read back.
FORMAT_VERSION = 1
EXTRACTIVE = "extractive"
NEEDS_MODEL = (
    "Editing a slide by instruction needs a language model; without one I can only "
    '"shorten" a slide or "add a warning about X" to it.'
)
LISTED_ONLY = (
    "The course material lists '{topic}' but does not teach it yet (only a syllabus or "
    "schedule speaks of it): ask your instructor to upload the lecture notes."
)
LAYOUT_FAILED = (
    "I could not lay this lesson out on its slides. Try a narrower topic, fewer slides "
    "(--slides) or another profile."
)
NO_PAGES_NOTE = (
    "The figures map where each slide is in the lesson: pictures of the course's pages are "
    "not kept here, so the cited pages cannot be shown."
)

_WORD = re.compile(r"[^\W_]+")
_STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "in", "is", "it"}
    | {"of", "on", "or", "the", "to", "what", "when", "which", "with", "this", "that", "about"}
)
_SHORTEN = re.compile(r"\b(shorten|shorter|condense|trim|cut|fewer|brief|concise)\w*", re.I)
_KEEP = re.compile(r"\b(\d+)\s*(?:bullets?|points?|items?|lines?)\b", re.I)
_WARNING = re.compile(
    r"\b(?:warning|warn|caution|caveat)\s+(?:\w+\s+)?(?:about|on|against|regarding|of)\s+(.+)",
    re.I | re.S,
)
# Only where a run of spaces begins (`(?<!\s)`): from inside one, each position re-scanned the
# rest of the run (4,000 spaces: 0.4 s).
_THEN_SHORTEN = re.compile(r"(?<!\s)\s+(?:and|then)\s+(?=(?:shorten|make|cut|trim|keep)\b)", re.I)


class TopicRetriever(Protocol):
    """What the service needs of `core.retrieval.Retriever`."""

    async def retrieve(
        self, ctx: Context, question: str, k: int = 5, *, content: ContentKind | None = None
    ) -> list[SearchHit]: ...


@dataclass(frozen=True, slots=True)
class LessonResult:
    """A deck as served: its PDF, widgets and first-slide preview, and where it is stored.
    `cached` says it was found in the store rather than made."""

    deck: Deck
    pdf: bytes
    material_id: int
    cached: bool
    sources: tuple[str, ...]
    widgets: tuple[tuple[str, bytes], ...] = ()
    preview: bytes | None = None
    notes: tuple[str, ...] = ()
    model: str = EXTRACTIVE
    # The cited chunks that are the student's own notes (their sources say so).
    cited_notes: tuple[str, ...] = ()

    @property
    def version(self) -> int:
        return self.deck.version

    @property
    def file_name(self) -> str:
        slug = "-".join(_WORD.findall(normalise_topic(self.deck.topic)))[:60] or "lesson"
        return f"lesson-{slug}-v{self.version}.pdf"

    def caption(self) -> str:
        count = len(self.deck.slides)
        lines = [
            f"{self.deck.topic}: {self.deck.profile.value} profile, {count} slide"
            f"{'s' if count != 1 else ''}, version {self.version}."
        ]
        if self.sources:
            lines.append("Sources: " + "; ".join(self.sources))
        lines.extend(self.notes)
        return "\n".join(lines)

    def replies(self) -> list[Reply]:
        """The preview of the first slide (a photo where the platform shows one inline),
        the PDF, and each widget as an `.html` file beside it. A deck that cites the
        student's notes marks every file private: the core then keeps the response to them."""
        out: list[Reply] = []
        private = bool(self.cited_notes)
        if self.preview is not None:
            first = self.deck.slides[0].title
            out.append(DocumentReply(
                self.file_name.removesuffix(".pdf") + "-preview.png", self.preview,
                media_type="image/png", caption=f"Slide 1 of {len(self.deck.slides)}: {first}",
                private=private,
            ))  # fmt: skip
        out.append(DocumentReply(
            self.file_name, self.pdf, "application/pdf", self.caption(), private=private
        ))  # fmt: skip
        for name, html in self.widgets:
            number = int(re.sub(r"\D", "", name) or 0)
            out.append(DocumentReply(
                name, html, "text/html",
                caption=f"Slide {number}: an interactive widget (open it in a browser).",
                private=private,
            ))  # fmt: skip
        return out

    def content(self, base: int | None, edit: dict[str, Any] | None = None) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "deck": self.deck.model_dump(mode="json"),
            "pdf": base64.b64encode(self.pdf).decode("ascii"),
            "widgets": {name: html.decode("utf-8") for name, html in self.widgets},
            "sources": list(self.sources),
            "notes": list(self.notes),
            "cited_notes": list(self.cited_notes),
            "base": base,
            "edit": edit,
        }

    @classmethod
    def stored(cls, material: GeneratedMaterial, preview: bytes | None) -> LessonResult:
        content = material.content
        return cls(
            deck=Deck.model_validate(content["deck"]),
            pdf=base64.b64decode(content["pdf"]),
            material_id=material.id,
            cached=True,
            sources=tuple(content["sources"]),
            widgets=tuple((n, h.encode("utf-8")) for n, h in content["widgets"].items()),
            preview=preview,
            notes=tuple(content["notes"]),
            model=material.model,
            cited_notes=tuple(content.get("cited_notes", [])),
        )


@dataclass(frozen=True, slots=True)
class _Rendered:
    deck: Deck
    pdf: bytes
    widgets: tuple[tuple[str, bytes], ...]
    notes: tuple[str, ...]
    preview: bytes | None


class LessonService:
    def __init__(
        self,
        *,
        retriever: TopicRetriever,
        embedder: Embedder,
        store: MaterialStore,
        writing: Writing | None = None,
        pages: PagePictures | None = None,
        engine: Engine | str | None = None,
    ) -> None:
        self._retriever = retriever
        self._embedder = embedder
        self._store = store
        self._writer = DeckWriter(writing) if writing is not None else None
        self._pages = pages
        self._engine = engine

    @property
    def maker(self) -> str:
        return self._writer.model.name if self._writer else EXTRACTIVE

    async def command(
        self,
        ctx: Context,
        topic: str,
        *,
        slides: str | None = None,
        profile: str | None = None,
        fresh: bool = False,
        report: StepReport | None = None,
        job: str | None = None,
    ) -> list[Reply]:
        """`/lesson`: a deck or an edit, as replies; its steps told to `report`, saved once
        by the job `job`."""
        parsed = lesson_request(topic, slides=slides, profile=profile, fresh=fresh)
        if isinstance(parsed, LessonEdit):
            result = await self.edit(
                ctx, parsed.slide_number, parsed.instruction, report=report, job=job
            )
        else:
            result = await self.lesson(
                ctx, parsed.topic, bounds=parsed.bounds, profile=parsed.profile,
                fresh=parsed.fresh, report=report, job=job,
            )  # fmt: skip
        return result.replies()

    async def lesson(
        self,
        ctx: Context,
        topic: str,
        *,
        bounds: SlideBounds | None = None,
        profile: Profile | str = Profile.STANDARD,
        fresh: bool = False,
        report: StepReport | None = None,
        job: str | None = None,
    ) -> LessonResult:
        """A deck on `topic` for `ctx`'s student: the stored one (its newest version) when
        the same was asked for before, unless `fresh`, which makes and stores a new one
        (its steps told to `report`); the one the job `job` saved already, if it did."""
        topic = " ".join(topic.split())
        if not topic:
            raise BadInputError("Which topic? Send /lesson TOPIC.")
        if len(topic) > 200:
            raise BadInputError("The topic is too long: at most 200 characters.")
        profile = profile if isinstance(profile, Profile) else parse_profile(profile)
        bounds = bounds or SlideBounds()
        parameters = _parameters(profile, bounds)
        steps = Steps("lesson", topic, LESSON_STEPS, report)
        if (saved := await self._saved_by(job)) is not None:
            await steps.finish()
            return saved
        base = await self._store.latest(_key(ctx, topic, parameters, made_as(ctx)))
        if base is not None and not fresh:
            return await self._served(await self._newest_version(ctx, base))
        await steps.begin(READING)
        hits = await self._on_topic(ctx, topic, bounds)
        await steps.begin(WRITING_SLIDES)
        deck = await self._write(topic, hits, bounds, profile)
        rendered = await self._render(ctx, deck, bounds, steps)
        result = self._result(rendered, hits)
        visibility = made_as(ctx, cites_notes=bool(result.cited_notes))
        save = NewMaterial(
            _key(ctx, topic, parameters, visibility), content=result.content(None),
            source_chunks=[hit.chunk.id for hit in hits], model=self.maker, grounded=True,
            job=job,
        )  # fmt: skip
        if base is not None:
            await self._drop_versions(ctx, base.id)
            material_id = await self._store.replace(save)
        else:
            material_id = await self._store.save(save)
        log.info(
            "lesson made", topic=topic, profile=profile.value, slides=len(rendered.deck.slides),
            material=material_id, model=self.maker, replaced=base is not None,
        )  # fmt: skip
        await steps.finish()
        return _with_id(result, material_id)

    async def edit(
        self, ctx: Context, slide_number: int, instruction: str, *,
        report: StepReport | None = None, job: str | None = None,
    ) -> LessonResult:  # fmt: skip
        """Slide `slide_number` of the student's newest deck revised by `instruction`, from
        fresh passages, as the deck's next version (the one before stays stored); the
        version the job `job` saved already, if it did (not an edit of that version)."""
        instruction = " ".join(instruction.replace("<<<", "").replace(">>>", "").split())
        if not instruction:
            raise BadInputError('Say how to change the slide: /lesson edit N "instruction".')
        making = f"slide {slide_number} of your lesson"
        if (saved := await self._saved_by(job)) is not None:
            await Steps(making, saved.deck.topic, EDIT_STEPS, report).finish()
            return saved
        target = await self._newest_deck(ctx)
        if target is None:
            raise BadInputError("You have no lesson to edit yet: ask for one with /lesson TOPIC.")
        deck = Deck.model_validate(target.content["deck"])
        count = len(deck.slides)
        if not 1 <= slide_number <= count:
            raise BadInputError(
                f"Slide {slide_number} does not exist: your lesson on '{deck.topic}' has "
                f"slides 1 to {count}."
            )
        slide = deck.slides[slide_number - 1]
        steps = Steps(making, deck.topic, EDIT_STEPS, report)
        await steps.begin(READING)
        if self._writer is None:
            revised, hits = await self._extractive_edit(ctx, slide, instruction)
        else:
            query = f"{instruction} {slide.title} {' '.join(slide.content)}"[:QUERY_CHARS]
            hits = await self._retriever.retrieve(
                ctx, query, k=EDIT_PASSAGES, content=ContentKind.TEACHING
            )
            if not hits:
                raise BadInputError("The course material has nothing to revise this slide from.")
            await steps.begin(REVISING_SLIDE)
            revised = await self._model_call(
                self._writer.slide(deck, slide_number, instruction, hits), deck.topic
            )
        slides = list(deck.slides)
        slides[slide_number - 1] = revised
        edited = deck.model_copy(update={"slides": slides, "version": deck.version + 1})
        parameters = {k: v for k, v in target.parameters.items() if k not in ("base", "version")}
        bounds = SlideBounds.parse(parameters["slides"])
        rendered = await self._render(ctx, edited, bounds, steps)
        base_id = target.content.get("base") or target.id
        result = self._result(rendered, hits, earlier=target)
        # An edit made where the notes are read may quote them: a private version.
        visibility = made_as(ctx, cites_notes=bool(result.cited_notes), revises=target.visibility)
        parameters |= {"base": base_id, "version": edited.version}
        material_id = await self._store.save(NewMaterial(
            _key(ctx, target.topic, parameters, visibility),
            content=result.content(base_id, {"slide": slide_number, "instruction": instruction}),
            source_chunks=[*target.source_chunks, *(h.chunk.id for h in hits)],
            model=self.maker, grounded=True, job=job,
        ))  # fmt: skip
        log.info("lesson slide edited", material=material_id, base=base_id,
                 version=edited.version, slide=slide_number)  # fmt: skip
        await steps.finish()
        return _with_id(result, material_id)

    async def replies_for(self, ctx: Context, material_id: int) -> list[Reply] | None:
        """The stored deck `material_id` as it was sent (`/materials send ID`): the very PDF,
        not a new render. None unless it is this student's, in this course, and may be seen
        in this audience (`core.visibility.access`)."""
        material = await self._store.get(material_id)
        if (
            material is None
            or material.kind is not MaterialKind.LESSON
            or access(ctx, material) is not Access.HERE
            or material.content.get("format") != FORMAT_VERSION
        ):
            return None
        return (await self._served(material)).replies()

    # Material ------------------------------------------------------------------------

    async def _on_topic(self, ctx: Context, topic: str, bounds: SlideBounds) -> list[SearchHit]:
        """The passages about `topic`, best first; `BadInputError` when there are none."""
        k = min(max(12, 2 * bounds.maximum), 30)
        # A lesson teaches: a syllabus's schedule, policies and session tables are no slide.
        hits = await self._retriever.retrieve(ctx, topic, k=k, content=ContentKind.TEACHING)
        hits = [hit for hit in hits if hit.chunk.content is ContentKind.TEACHING]
        # A guided exercise's summary is for starting it, not a lesson's material: its
        # skills list and step prompts made a slide of their own.
        hits = [hit for hit in hits if hit.chunk.kind != GUIDED_EXERCISE_KIND]
        words = _terms(topic)
        if hits:
            texts = [hit.chunk.text[:SIMILARITY_CHARS] for hit in hits]
            vectors = await self._embedder.embed([topic, *texts])
            similarity = np.asarray(vectors[1:]) @ np.asarray(vectors[0])
            hits = [
                hit
                for hit, score in zip(hits, similarity, strict=True)
                if score >= MIN_TOPIC_SIMILARITY or words <= _terms(hit.chunk.text)
            ]
        # Passages that only brush the topic ("rate of change" for "related rates") make no
        # lesson on it when the course's schedule names it as a topic of its own.
        named = any(words <= _terms(hit.chunk.text) for hit in hits)
        if not named and await self._listed_only(ctx, topic):
            raise BadInputError(LISTED_ONLY.format(topic=topic))
        if not hits:
            raise BadInputError(
                f"The course material has nothing on '{topic}' to make a lesson from."
            )
        return hits

    async def _listed_only(self, ctx: Context, topic: str) -> bool:
        """Whether the course's logistics (a syllabus, a schedule) speak of `topic`, all its
        words in one chunk: the course lists it without teaching it."""
        hits = await self._retriever.retrieve(ctx, topic, k=5, content=ContentKind.LOGISTICS)
        words = _terms(topic)
        return any(words <= _terms(hit.chunk.text) for hit in hits)

    async def _write(
        self, topic: str, hits: list[SearchHit], bounds: SlideBounds, profile: Profile
    ) -> Deck:
        if self._writer is None:
            try:
                return build_extractive_deck(topic, hits, profile=profile, bounds=bounds)
            except NotEnoughMaterialError as error:
                reason = str(error)
                raise BadInputError(
                    f"{reason[:1].upper()}{reason[1:]}; ask for fewer slides with --slides."
                ) from error
        deck = await self._model_call(
            self._writer.deck(topic, hits[:MODEL_PASSAGES], bounds, profile), topic
        )
        return adapt_deck(deck, bounds)

    async def _model_call(self, call: Any, topic: str) -> Any:
        with model_failures_worded("lesson", topic):
            return await call

    async def _extractive_edit(
        self, ctx: Context, slide: Slide, instruction: str
    ) -> tuple[Slide, list[SearchHit]]:
        """Without a model: "shorten" keeps the first half of the bullets (or the number
        asked for), "add a warning about X" adds the sentence of the fresh passages that
        bears most on X, quoted and cited. Anything else needs a model."""
        warning = _WARNING.search(instruction)
        about = _THEN_SHORTEN.split(warning.group(1))[0].strip(" .!?\"'“”") if warning else ""
        shorten = _SHORTEN.search(_WARNING.sub("", instruction)) is not None
        if not shorten and not about:
            raise BadInputError(NEEDS_MODEL)
        content, citations = list(slide.content), list(slide.citations)
        if shorten:
            wanted = _KEEP.search(instruction)
            keep = int(wanted.group(1)) if wanted else math.ceil(len(content) / 2)
            content = content[: max(keep, 1)]
        hits: list[SearchHit] = []
        if about:
            query = f"{about} {slide.title}"[:QUERY_CHARS]
            hits = await self._retriever.retrieve(
                ctx, query, k=EDIT_PASSAGES, content=ContentKind.TEACHING
            )
            best = _best_sentence(about, hits)
            if best is None:
                raise BadInputError(f"The course material says nothing on '{about}' to warn about.")
            sentence, hit = best
            content = [*content, f"Warning: {sentence}"][-12:]
            chunk = hit.chunk
            cited = Citation(file=chunk.file_name, page=chunk.page,
                             section=chunk.section.strip(), chunk_id=chunk.id)  # fmt: skip
            citations = list(dict.fromkeys([*citations, cited]))
        return slide.model_copy(update={"content": content, "citations": citations}), hits

    # Rendering -----------------------------------------------------------------------

    async def _render(
        self, ctx: Context, deck: Deck, bounds: SlideBounds, steps: Steps
    ) -> _Rendered:
        # Adapted here, not only inside render_deck, so the stored slides are numbered as
        # the PDF shows them and widget numbers point to the right slide.
        deck = adapt_deck(deck, bounds)
        profile = deck.profile
        notes: list[str] = []
        slides, widgets = [], []
        for number, slide in enumerate(deck.slides, 1):
            if slide.widget_html is None:
                slides.append(slide)
                continue
            checked = sanitise_widget(slide.widget_html, title=slide.title)
            if isinstance(checked, RefusedWidget):
                log.info("lesson widget refused", slide=number, reason=checked.reason)
                notes.append(f"Slide {number}'s widget was left out: {checked.reason}.")
                slides.append(slide.model_copy(update={"widget_html": None}))
                continue
            if checked.removed:
                log.info("lesson widget sanitised", slide=number, removed=checked.removed)
            widgets.append((widget_file_name(number), checked.html))
            slides.append(slide)
        deck = deck.model_copy(update={"slides": slides})
        names = {int(re.sub(r"\D", "", name)): name for name, _ in widgets}
        pages = None
        if profile is Profile.VISUAL:
            pages = self._page_images(ctx)
            if pages is None:
                notes.append(NO_PAGES_NOTE)
        await steps.begin(TYPESETTING)
        pdf = await self._typeset(deck, pages, names, self._engine)
        await steps.begin(CHECKING_PDF)
        problems = await asyncio.to_thread(check_pdf, pdf, profile)
        if problems and resolve_engine(self._engine) is Engine.PDFLATEX:
            log.warning("pdflatex deck fails its profile; rendering with Typst",
                        profile=profile.value, problems=problems[:5])  # fmt: skip
            pdf = await self._typeset(deck, pages, names, Engine.TYPST)
            problems = await asyncio.to_thread(check_pdf, pdf, profile)
        if problems:
            log.warning("lesson PDF fails profile checks", profile=profile.value,
                        count=len(problems), problems=problems[:10])  # fmt: skip
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            notes.append(
                f"Note: this PDF does not pass every check of the {profile.value} profile: "
                f"{problems[0]}{more}."
            )
        preview = await asyncio.to_thread(first_slide_png, pdf)
        return _Rendered(deck, pdf, tuple(widgets), tuple(notes), preview)

    @staticmethod
    async def _typeset(
        deck: Deck, pages: SeenPages | None, widgets: dict[int, str], engine: Engine | str | None
    ) -> bytes:
        try:
            return await asyncio.to_thread(
                render_deck, deck, deck.profile, page_images=pages, widgets=widgets, engine=engine
            )
        except RenderError as error:
            log.error("lesson could not be typeset", error=str(error), profile=deck.profile.value)
            raise BadInputError(LAYOUT_FAILED) from error

    def _page_images(self, ctx: Context) -> SeenPages | None:
        return SeenPages(self._pages, ctx) if self._pages is not None else None

    def _result(
        self, rendered: _Rendered, hits: Sequence[SearchHit],
        earlier: GeneratedMaterial | None = None,
    ) -> LessonResult:  # fmt: skip
        private = {hit.chunk.id for hit in hits if hit.chunk.private}
        if earlier is not None:
            private |= set(earlier.content.get("cited_notes", []))
        cited = rendered.deck.citations()
        return LessonResult(
            deck=rendered.deck, pdf=rendered.pdf, material_id=0, cached=False,
            sources=tuple(dict.fromkeys(_label(c, c.chunk_id in private) for c in cited)),
            widgets=rendered.widgets, preview=rendered.preview, notes=rendered.notes,
            model=self.maker,
            cited_notes=tuple(sorted({c.chunk_id for c in cited} & private)),
        )  # fmt: skip

    # The store -----------------------------------------------------------------------

    async def _saved_by(self, job: str | None) -> LessonResult | None:
        """The deck (or version) the job `job` saved on a run that died before answering,
        as a made one (the student never got it), or None."""
        saved = None if job is None else await self._store.saved_by(job)
        if saved is None:
            return None
        return replace(await self._served(saved), cached=False)

    async def _served(self, material: GeneratedMaterial) -> LessonResult:
        pdf = base64.b64decode(material.content["pdf"])
        return LessonResult.stored(material, await asyncio.to_thread(first_slide_png, pdf))

    async def _lessons(self, ctx: Context) -> list[GeneratedMaterial]:
        """This student's decks in the course that this audience may see, newest first: a
        private one may quote their notes, so it stays out of shared places."""
        rows = await self._store.list(
            ctx.course_id, ctx.user_id, kind=MaterialKind.LESSON, visibility=visible_to_owner(ctx)
        )
        return [m for m in rows if m.content.get("format") == FORMAT_VERSION]

    async def _newest_version(self, ctx: Context, base: GeneratedMaterial) -> GeneratedMaterial:
        versions = [m for m in await self._lessons(ctx) if m.parameters.get("base") == base.id]
        return max(versions, key=lambda m: m.parameters["version"], default=base)

    async def _newest_deck(self, ctx: Context) -> GeneratedMaterial | None:
        rows = await self._lessons(ctx)
        return rows[0] if rows else None

    async def _drop_versions(self, ctx: Context, base_id: int) -> None:
        # The edits of a deck that is replaced belong to the old deck.
        rows = await self._store.list(ctx.course_id, ctx.user_id, kind=MaterialKind.LESSON)
        for material in rows:
            if material.parameters.get("base") == base_id:
                await self._store.delete(material.id)


def _parameters(profile: Profile, bounds: SlideBounds) -> dict[str, Any]:
    return {"profile": profile.value, "slides": f"{bounds.minimum}-{bounds.maximum}"}


def _key(
    ctx: Context, topic: str, parameters: dict[str, Any], visibility: Visibility
) -> MaterialKey:
    return MaterialKey(
        ctx.course_id, ctx.user_id, MaterialKind.LESSON, topic, visibility, parameters
    )


def _with_id(result: LessonResult, material_id: int) -> LessonResult:
    return replace(result, material_id=material_id)


def _label(citation: Citation, private: bool) -> str:
    return f"{citation.label()} (your notes)" if private else citation.label()


def _terms(text: str) -> set[str]:
    return {
        w[:-1] if len(w) > 4 and w.endswith("s") else w
        for w in _WORD.findall(text.lower())
        if w not in _STOPWORDS
    }


_CAUTION = re.compile(
    r"\b(?:not|never|only|must|careful|mistake|wrong|fails?|undefined|exists?|unless|avoid)\b",
    re.I,
)


def _best_sentence(about: str, hits: Sequence[SearchHit]) -> tuple[str, SearchHit] | None:
    """The whole sentence of `hits` that bears most on `about`: its own words, then the
    words of the section it is under (material says "as x -> inf" under "Limits at
    Infinity"), a cautionary sentence before a plain one; ties go to the better-ranked
    passage, then the earlier sentence. None when nothing shares a word."""
    terms = _terms(about)
    best: tuple[float, str, SearchHit] | None = None
    for hit in hits:
        under = len(terms & _terms(hit.chunk.section))
        for sentence in split_passage(hit.chunk.text).sentences:
            own = len(terms & _terms(sentence))
            if not own and not under:
                continue
            score = own + 0.5 * under + (0.25 if _CAUTION.search(sentence) else 0.0)
            if best is None or score > best[0]:
                best = (score, sentence, hit)
    return (best[1], best[2]) if best else None


def first_slide_png(pdf: bytes) -> bytes | None:
    """The first page of `pdf` as a PNG (a preview that shows inline in chat)."""
    try:
        document = pdfium.PdfDocument(pdf)
    except pdfium.PdfiumError as error:
        log.warning("lesson preview failed", error=str(error))
        return None
    try:
        if len(document) == 0:
            return None
        page = document[0]
        width, _ = page.get_size()
        image = page.render(scale=PREVIEW_WIDTH_PX / max(width, 1.0)).to_pil()
        out = io.BytesIO()
        image.convert("RGB").save(out, format="PNG", optimize=True)
        return out.getvalue()
    finally:
        document.close()
