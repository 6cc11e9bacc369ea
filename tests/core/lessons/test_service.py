"""Lessons through the real core (`open_assembly`, the sample course's derivatives lecture and
worked exercises ingested): the extractive deck for every profile passing its PDF checks,
the store (a repeat is served without retrieval, --new replaces, an edit is a new version
beside the old one), bad input refused in one line, and the model's path against the fake
Ollama over HTTP (valid decks, repairs, re-asks, a refused widget, broken LaTeX, timeouts,
an edit that keeps the schema)."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
from support.asking import replies
from support.fake_ollama import FakeOllama, running_fake_ollama, scripted

from bot import composition
from bot.composition import Assembly, open_assembly
from config import Settings
from core.commands import ParsedCommand
from core.database import open_database
from core.generation import MaterialKind, MaterialStore
from core.lessons import Deck, Profile, check_pdf
from core.lessons import service as lesson_service
from core.lessons.checks import read_pages
from core.lessons.service import LAYOUT_FAILED, LISTED_ONLY, NEEDS_MODEL, NO_PAGES_NOTE
from core.lessons.typst_engine import RenderError
from core.material import SourceFile
from core.replies import DocumentReply, ErrorReply
from core.retrieval import Retriever
from ingestion.pipeline import discover

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sample-course"
FILES = (SAMPLE / "lecture-02-derivatives.pdf", SAMPLE / "worked-exercises.md")

DECK: dict[str, Any] = {
    "slides": [
        {
            "title": "What a derivative is",
            "content": [
                "The derivative is the slope of the tangent line.",
                "It is the limit of difference quotients.",
            ],
            "math": ["f'(a) = \\lim_{h \\to 0} \\frac{f(a+h) - f(a)}{h}"],
            "widget_html": None,
            "accessibility_notes": "The formula defines the derivative as a limit.",
            "sources": [1],
            "recap": False,
        },
        {
            "title": "The power rule",
            "content": ["The derivative of x to the n is n times x to the n minus one."],
            "math": ["\\frac{d}{dx} x^n = n x^{n-1}"],
            "widget_html": None,
            "accessibility_notes": "",
            "sources": [2],
            "recap": False,
        },
        {
            "title": "The product rule",
            "content": ["The derivative of a product is not the product of the derivatives."],
            "math": ["(fg)' = f'g + fg'"],
            "widget_html": None,
            "accessibility_notes": "",
            "sources": [1, 2],
            "recap": False,
        },
        {
            "title": "Recap",
            "content": ["A derivative is a slope.", "Rules make it quick to compute."],
            "math": [],
            "widget_html": None,
            "accessibility_notes": "",
            "sources": [],
            "recap": True,
        },
    ]
}
UNSAFE_WIDGET = (
    '<div id="w">Slope</div><script src="https://evil.example/x.js"></script>'
    "<script>fetch('https://evil.example/')</script>"
)
SAFE_WIDGET = (
    '<p id="out">slope 2</p><input type="range" id="x" min="0" max="5">'
    "<script>const x = document.getElementById('x');"
    "x.oninput = () => { document.getElementById('out').textContent = 'slope ' + 2 * x.value; };"
    "</script>"
)
EDITED_SLIDE = {
    "title": "The power rule, briefly",
    "content": ["Bring the exponent down and lower it by one.", "Warning: constants vanish."],
    "math": ["\\frac{d}{dx} x^n = n x^{n-1}"],
    "widget_html": None,
    "accessibility_notes": "",
    "sources": [1],
    "recap": False,
}


def deck(**changes: Any) -> dict[str, Any]:
    value = copy.deepcopy(DECK)
    for path, new in changes.items():
        target: Any = value
        *parents, last = path.split("__")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = new
    return value


def pdf_text(pdf: bytes) -> str:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return "\n".join(page.extract_text() or "" for page in document.pages)


def lesson(argument: str) -> dict[str, Any]:
    return {"command": ParsedCommand("lesson", argument)}


def documents(sent: list[Any], media_type: str) -> list[DocumentReply]:
    return [r for r in sent if isinstance(r, DocumentReply) and r.media_type == media_type]


@pytest.fixture(autouse=True)
def _loaded_embedder(embedder: object, monkeypatch: pytest.MonkeyPatch) -> None:
    # The bundled model is loaded once per session, not once per assembly.
    monkeypatch.setattr(composition, "bundled_embedder", lambda _choice: embedder)


async def _ingested(settings: Settings) -> AsyncIterator[Assembly]:
    async with open_assembly(settings) as assembly:
        report = await assembly.bot.ingest_files("sample", [SourceFile.at(f) for f in FILES])
        assert not report.failed
        yield assembly


@pytest.fixture
async def assembly(settings: Settings) -> AsyncIterator[Assembly]:
    async for opened in _ingested(settings):
        yield opened


@pytest.fixture
async def store(settings: Settings) -> AsyncIterator[MaterialStore]:
    database = await open_database(settings)
    yield MaterialStore(database)
    await database.dispose()


@pytest.fixture
def retrievals(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every query the core's retriever runs."""
    seen: list[str] = []
    real = Retriever.retrieve

    async def counted(self: Retriever, ctx: Any, question: str, k: int = 5, **kw: Any) -> Any:
        seen.append(question)
        return await real(self, ctx, question, k, **kw)

    monkeypatch.setattr(Retriever, "retrieve", counted)
    return seen


# Without a model -------------------------------------------------------------------------


async def test_every_profile_gets_an_extractive_deck_that_passes_its_pdf_checks(
    assembly: Assembly,
) -> None:
    for profile in Profile:
        result = await assembly.bot.generate_lesson(
            "sample", "derivatives", user="ana", slides="3-6", profile=profile
        )
        assert 3 <= len(result.deck.slides) <= 6, profile
        assert check_pdf(result.pdf, profile) == [], profile
        text = pdf_text(result.pdf)
        # The slides quote the course: the lecture's own sentences, and cite it; its
        # plain-text formulas ("d/dx x^n = n * x^(n-1)") are typeset.
        assert "Derivative" in text and "lecture-02-derivatives.pdf" in text, profile
        assert "d/dx" not in text and "x^(n-1)" not in text, profile
        assert result.sources and all("lecture-02" in s or "worked" in s for s in result.sources)
        assert result.preview is not None and result.preview.startswith(b"\x89PNG")
        assert result.model == "extractive"
    # The visual profile shows each slide's cited lecture page, as pictured at ingestion.
    visual = await assembly.bot.generate_lesson(
        "sample", "derivatives", user="ana", slides="3-6", profile="visual"
    )
    assert NO_PAGES_NOTE not in visual.notes
    figures = [p.figures_alt for p in read_pages(visual.pdf) if p.figures_alt]
    cited_pages = [alt for [alt] in figures if alt.startswith("Image of page ")]
    assert cited_pages and all("of lecture-02-derivatives.pdf" in alt for alt in cited_pages)


async def test_without_page_pictures_the_visual_figures_map_the_lesson_and_say_so(
    settings: Settings,
) -> None:
    async for opened in _ingested(settings.model_copy(update={"page_pictures_max_mb": 0})):
        visual = await opened.bot.generate_lesson(
            "sample", "derivatives", user="ana", slides="3-6", profile="visual"
        )
    assert NO_PAGES_NOTE in visual.notes and NO_PAGES_NOTE in visual.caption()
    figures = [alt for p in read_pages(visual.pdf) for alt in p.figures_alt]
    assert figures and all(alt.startswith("Map of the lesson, slide ") for alt in figures)


async def test_a_deck_from_the_whole_course_teaches_from_lectures_not_logistics(
    settings: Settings,
) -> None:
    """With the syllabus and the guided exercises ingested beside the lectures, the deck is
    made of the lectures: no slide of an exercise's summary (its skills, its step prompts),
    none of the syllabus's list of where the slides are."""
    async with open_assembly(settings) as opened:
        await opened.bot.ingest_files("sample", discover([SAMPLE])[0], by="teacher")
        result = await opened.bot.generate_lesson("sample", "derivatives", user="ana")
    assert not [s for s in result.sources if ".exercise." in s or "syllabus" in s]
    text = pdf_text(result.pdf)
    assert "Skills:" not in text and "Course Materials" not in text
    assert "for any real number" in text


async def test_a_lesson_arrives_as_a_preview_a_pdf_and_a_caption(assembly: Assembly) -> None:
    argument = "derivatives --slides 3-5 --profile adhd"
    sent = await replies(assembly.bot, "", "ana", **lesson(argument))
    [preview] = documents(sent, "image/png")
    [pdf] = documents(sent, "application/pdf")
    assert sent.index(preview) < sent.index(pdf)
    assert pdf.file_name == "lesson-derivatives-v1.pdf" and pdf.content.startswith(b"%PDF")
    assert pdf.caption.startswith("derivatives: adhd profile, ")
    assert "version 1." in pdf.caption and "Sources: lecture-02-derivatives.pdf" in pdf.caption
    assert preview.caption.startswith("Slide 1 of ")


async def test_a_repeat_is_served_from_the_store_without_retrieving(
    assembly: Assembly, retrievals: list[str]
) -> None:
    first = await assembly.bot.generate_lesson("sample", "Derivatives", user="ana", slides="3-6")
    asked = len(retrievals)
    assert asked >= 1 and not first.cached
    again = await assembly.bot.generate_lesson("sample", "  derivatives ", user="ana", slides="3-6")
    assert again.cached and again.material_id == first.material_id
    assert again.pdf == first.pdf and len(retrievals) == asked
    # Other parameters, or another student, are another deck.
    other = await assembly.bot.generate_lesson("sample", "derivatives", user="ana", slides="3-5")
    assert not other.cached and len(retrievals) == asked + 1
    bob = await assembly.bot.generate_lesson("sample", "derivatives", user="bob", slides="3-6")
    assert not bob.cached and bob.material_id != first.material_id


async def test_new_replaces_the_stored_deck_and_drops_its_edits(
    assembly: Assembly, store: MaterialStore, retrievals: list[str]
) -> None:
    bot = assembly.bot
    first = await bot.generate_lesson("sample", "derivatives", user="ana", slides="3-6")
    await replies(bot, "", "ana", **lesson('edit 2 "shorten this"'))
    assert len(await store.list("sample", "ana", kind=MaterialKind.LESSON)) == 2
    asked = len(retrievals)
    fresh = await bot.generate_lesson("sample", "derivatives", user="ana", slides="3-6", fresh=True)
    assert not fresh.cached and fresh.material_id != first.material_id
    assert fresh.version == 1 and len(retrievals) == asked + 1
    assert await store.get(first.material_id) is None
    [kept] = await store.list("sample", "ana", kind=MaterialKind.LESSON)
    assert kept.id == fresh.material_id


async def test_an_edit_is_a_new_version_and_the_old_one_is_kept(
    assembly: Assembly, store: MaterialStore
) -> None:
    bot = assembly.bot
    first = await bot.generate_lesson("sample", "derivatives", user="ana", slides="3-6")
    before = first.deck.slides[1]
    assert len(before.content) >= 2
    sent = await replies(
        bot, "", "ana", **lesson('edit 2 "shorten this and add a warning about the chain rule"')
    )
    [pdf] = documents(sent, "application/pdf")
    assert pdf.file_name == "lesson-derivatives-v2.pdf" and "version 2." in pdf.caption
    rows = await store.list("sample", "ana", kind=MaterialKind.LESSON)
    assert len(rows) == 2
    newest, oldest = rows
    assert oldest.id == first.material_id and oldest.parameters.get("version") is None
    assert newest.parameters["version"] == 2 and newest.parameters["base"] == first.material_id
    edited = Deck.model_validate(newest.content["deck"])
    assert edited.version == 2
    slide = edited.slides[1]
    # Shortened to the first half of its bullets, then a cited warning from the material.
    kept = before.content[: (len(before.content) + 1) // 2]
    assert slide.content[: len(kept)] == kept
    assert slide.content[-1].startswith("Warning: ") and "chain rule" in slide.content[-1].lower()
    assert len(slide.citations) >= len(before.citations)
    # The first version is unchanged in the store, and the other slides are as they were.
    assert Deck.model_validate(oldest.content["deck"]) == first.deck
    assert edited.slides[0] == first.deck.slides[0]
    # Asking for the lesson again gives the newest version.
    again = await bot.generate_lesson("sample", "derivatives", user="ana", slides="3-6")
    assert again.cached and again.version == 2


async def test_a_warning_added_without_a_model_is_a_sentence_not_a_table(
    settings: Settings,
) -> None:
    """With the syllabus ingested, its schedule row on "limits at infinity" was the
    warning; now it is a whole sentence of the teaching material, cited."""
    async with open_assembly(settings) as opened:
        await opened.bot.ingest_files("sample", discover([SAMPLE])[0], by="teacher")
        await opened.bot.generate_lesson("sample", "limits", user="ana", slides="3-6")
        sent = await replies(
            opened.bot, "", "ana", **lesson('edit 2 "add a warning about infinity"')
        )
        rows = await MaterialStore(opened.database).list("sample", "ana", kind=MaterialKind.LESSON)
    [pdf] = documents(sent, "application/pdf")
    assert "Warning:" in pdf_text(pdf.content)
    item = Deck.model_validate(rows[0].content["deck"]).slides[1].content[-1]
    assert item.startswith("Warning: ") and ("infty" in item or "infinity" in item.lower())
    assert "|" not in item and "Week" not in item and "Homework" not in item
    assert item.rstrip().endswith((".", "!", "?", "$")), item


async def test_a_topic_the_course_only_lists_gets_one_honest_line(settings: Settings) -> None:
    """The syllabus's schedule names related rates (week 7); no lecture teaches them."""
    async with open_assembly(settings) as opened:
        await opened.bot.ingest_files("sample", discover([SAMPLE])[0], by="teacher")
        [reply] = await replies(opened.bot, "", "ana", **lesson("related rates"))
    assert isinstance(reply, ErrorReply), reply
    assert reply.text == LISTED_ONLY.format(topic="related rates")


async def test_a_table_of_a_pdf_is_a_table_on_its_slide(assembly: Assembly) -> None:
    """The lecture PDF's table of basic derivatives: its cells side by side on the slide,
    not one run of them, nor '| a | b |' rows."""
    result = await assembly.bot.generate_lesson("sample", "derivatives", user="ana", slides="3-6")
    [slide] = [s for s in result.deck.slides if s.tables]
    [table] = slide.tables
    assert table.header == ["Function f(x)", "Derivative f'(x)"]
    assert ["$e^x$", "$e^x$"] in table.rows
    page = read_pages(result.pdf)[result.deck.slides.index(slide)]
    header = next(line for line in page.lines if "Function" in line.text)
    assert header.text.startswith("Function f(x)") and "Derivative f'(x)" in header.text
    assert "|" not in page.all_text()


async def test_without_a_model_other_edits_are_refused_in_one_line(assembly: Assembly) -> None:
    await assembly.bot.generate_lesson("sample", "derivatives", user="ana")
    [reply] = await replies(assembly.bot, "", "ana", **lesson('edit 1 "make it funnier"'))
    assert isinstance(reply, ErrorReply) and reply.text == NEEDS_MODEL


async def test_a_deck_made_in_private_is_not_edited_in_a_shared_place(assembly: Assembly) -> None:
    await replies(assembly.bot, "", "ana", **lesson("derivatives"))
    [reply] = await replies(assembly.bot, "", "ana", shared=True, **lesson("edit 1 shorten"))
    assert isinstance(reply, ErrorReply) and "no lesson to edit" in reply.text


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        ("", "Which topic?"),
        ("derivatives --slides 8-3", "Bad --slides"),
        ("derivatives --slides many", "Bad --slides"),
        ("derivatives --profile comic", "There is no reading profile 'comic'"),
        ("photosynthesis", "nothing on 'photosynthesis'"),
        ("derivatives --slides 30-40", "ask for fewer slides"),
        ("edit 9 shorten", "Slide 9 does not exist"),
        ("edit 2", "Say how to change slide 2"),
    ],
)
async def test_bad_input_is_refused_in_one_line(
    assembly: Assembly, argument: str, expected: str
) -> None:
    if argument.startswith("edit"):
        await assembly.bot.generate_lesson("sample", "derivatives", user="ana", slides="3-4")
    [reply] = await replies(assembly.bot, "", "ana", **lesson(argument))
    assert isinstance(reply, ErrorReply), reply
    assert expected in reply.text and "\n" not in reply.text


async def test_a_deck_the_engine_cannot_lay_out_is_refused_in_one_line(
    assembly: Assembly, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cannot_fit(*_args: object, **_kwargs: object) -> bytes:
        raise RenderError("the deck does not fit its pages after 8 rounds")

    monkeypatch.setattr(lesson_service, "render_deck", cannot_fit)
    [reply] = await replies(assembly.bot, "", "ana", **lesson("derivatives --profile visual"))
    assert isinstance(reply, ErrorReply), reply
    assert reply.text == LAYOUT_FAILED


async def test_an_edit_before_any_lesson_says_so(assembly: Assembly) -> None:
    [reply] = await replies(assembly.bot, "", "ana", **lesson("edit 1 shorten"))
    assert isinstance(reply, ErrorReply)
    assert reply.text == "You have no lesson to edit yet: ask for one with /lesson TOPIC."


# With a model (the fake Ollama) ------------------------------------------------------------


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeOllama]:
    with running_fake_ollama() as server:
        yield server


@pytest.fixture
def fake(fake_server: FakeOllama) -> FakeOllama:
    fake_server.chat_reply = scripted(json.dumps(DECK))
    fake_server.delay_s = 0.0
    fake_server.requests.clear()
    return fake_server


def llm_settings(tmp_path: Path, fake: FakeOllama, timeout_s: float = 10) -> Settings:
    return Settings(
        _env_file=None,
        data_dir=tmp_path / "data",
        ollama_host=fake.url,
        ollama_models={"generate": "qwen2.5:7b"},
        ollama_timeout_s=timeout_s,
    )  # type: ignore[call-arg]


@pytest.fixture
async def with_model(tmp_path: Path, fake: FakeOllama) -> AsyncIterator[Assembly]:
    async for opened in _ingested(llm_settings(tmp_path, fake)):
        yield opened


def chats(fake: FakeOllama) -> list[dict[str, Any]]:
    return fake.requests_to("/api/chat")


async def test_the_model_writes_a_cited_deck_that_passes_its_checks(
    with_model: Assembly, fake: FakeOllama
) -> None:
    result = await with_model.bot.generate_lesson(
        "sample", "derivatives", user="ana", slides="3-6", profile="dyslexia"
    )
    assert [s.title for s in result.deck.slides] == [s["title"] for s in DECK["slides"]]
    assert result.model == "qwen2.5:7b" and check_pdf(result.pdf, "dyslexia") == []
    assert all(s.citations for s in result.deck.slides[:3])
    [request] = chats(fake)
    user = request["messages"][-1]["content"]
    assert "[1] (" in user and "between 3 and 6 slides" in user and "derivatives" in user
    assert request["format"]["properties"]["slides"]


@pytest.mark.parametrize(
    "broken",
    [
        pytest.param(f"```json\n{json.dumps(DECK)}\n```", id="code-fence"),
        pytest.param(json.dumps(DECK).replace('"recap": true}', '"recap": true},'), id="comma"),
    ],
)
async def test_a_broken_reply_is_repaired_without_asking_again(
    with_model: Assembly, fake: FakeOllama, broken: str
) -> None:
    fake.chat_reply = scripted(broken)
    result = await with_model.bot.generate_lesson("sample", "derivatives", user="ana")
    assert len(result.deck.slides) == 4 and len(chats(fake)) == 1


@pytest.mark.parametrize(
    ("slides", "problem"),
    [
        pytest.param(DECK["slides"] * 3, "at most 6 are allowed", id="too-many"),
        pytest.param(DECK["slides"][:1], "at least 3 are needed", id="too-few"),
    ],
)
async def test_a_slide_count_outside_the_bounds_is_asked_again(
    with_model: Assembly, fake: FakeOllama, slides: list[Any], problem: str
) -> None:
    fake.chat_reply = scripted(json.dumps({"slides": slides}), json.dumps(DECK))
    result = await with_model.bot.generate_lesson("sample", "derivatives", user="ana", slides="3-6")
    assert len(result.deck.slides) == 4
    _, second = chats(fake)
    assert problem in second["messages"][-1]["content"]


async def test_a_passage_number_that_does_not_exist_is_asked_again(
    with_model: Assembly, fake: FakeOllama
) -> None:
    fake.chat_reply = scripted(json.dumps(deck(slides__1__sources=[99])), json.dumps(DECK))
    await with_model.bot.generate_lesson("sample", "derivatives", user="ana")
    _, second = chats(fake)
    assert "slide 2 cites passage 99" in second["messages"][-1]["content"]


async def test_a_model_that_never_fits_the_bounds_is_refused_in_one_line(
    with_model: Assembly, fake: FakeOllama
) -> None:
    fake.chat_reply = scripted(json.dumps({"slides": DECK["slides"][:1]}))
    [reply] = await replies(with_model.bot, "", "ana", **lesson("derivatives --slides 3-6"))
    assert isinstance(reply, ErrorReply) and "\n" not in reply.text
    assert "could not write a well-formed lesson on 'derivatives'" in reply.text
    assert len(chats(fake)) == 3  # the first reply and two re-asks


async def test_unsafe_widgets_are_left_out_and_safe_ones_sent_sanitised(
    with_model: Assembly, fake: FakeOllama
) -> None:
    fake.chat_reply = scripted(
        json.dumps(deck(slides__0__widget_html=UNSAFE_WIDGET, slides__1__widget_html=SAFE_WIDGET))
    )
    sent = await replies(with_model.bot, "", "ana", **lesson("derivatives"))
    [widget] = documents(sent, "text/html")
    assert widget.file_name == "slide-02-widget.html"
    html = widget.content.decode()
    assert "Content-Security-Policy" in html and "getElementById" in html
    assert "evil.example" not in html
    [pdf] = documents(sent, "application/pdf")
    assert "Slide 1's widget was left out: the widget loads an external script" in pdf.caption
    assert "slide-02-widget.html" in pdf_text(pdf.content)


async def test_a_formula_that_cannot_be_typeset_is_shown_as_its_source(
    with_model: Assembly, fake: FakeOllama
) -> None:
    fake.chat_reply = scripted(json.dumps(deck(slides__1__math=["\\frac{1}{"])))
    result = await with_model.bot.generate_lesson("sample", "derivatives", user="ana")
    assert result.deck.slides[1].math == ["\\frac{1}{"]
    assert "\\frac{1}{" in pdf_text(result.pdf)


async def test_a_model_timeout_is_one_clear_line(tmp_path: Path, fake: FakeOllama) -> None:
    fake.delay_s = 1.5
    async for slow in _ingested(llm_settings(tmp_path, fake, timeout_s=0.5)):
        [reply] = await replies(slow.bot, "", "ana", **lesson("derivatives"))
        assert isinstance(reply, ErrorReply)
        assert reply.text == (
            "The language model took too long to write the lesson; try again later."
        )


async def test_an_edit_by_the_model_keeps_the_schema_and_is_grounded_afresh(
    with_model: Assembly, fake: FakeOllama, store: MaterialStore
) -> None:
    first = await with_model.bot.generate_lesson("sample", "derivatives", user="ana")
    fake.chat_reply = scripted(json.dumps(EDITED_SLIDE))
    sent = await replies(
        with_model.bot, "", "ana", **lesson("edit 2 “make it shorter and warn about constants”")
    )
    [pdf] = documents(sent, "application/pdf")
    assert "version 2." in pdf.caption
    _, edit_request = chats(fake)
    user = edit_request["messages"][-1]["content"]
    assert "make it shorter and warn about constants" in user and '"The power rule"' in user
    assert edit_request["format"]["properties"]["sources"]
    newest, oldest = await store.list("sample", "ana", kind=MaterialKind.LESSON)
    edited = Deck.model_validate(newest.content["deck"])
    assert edited.slides[1].title == EDITED_SLIDE["title"] and edited.slides[1].citations
    assert Deck.model_validate(oldest.content["deck"]) == first.deck
