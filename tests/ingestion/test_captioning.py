"""Images in pages become caption chunks through an Ollama vision model (the real `ollama`
client against the fake server); with no vision model they are skipped with one log line."""

from __future__ import annotations

import io
from pathlib import Path

import ollama
from fpdf import FPDF
from PIL import Image
from qdrant_client import AsyncQdrantClient
from structlog.testing import capture_logs
from support.embedders import HashEmbedder
from support.fake_ollama import FakeOllama, running_fake_ollama

from core.context import Context
from core.index import ChunkIndex, SparseEncoder
from core.prompts import CAPTION_IMAGE
from ingestion import Ingestor, SourceFile
from ingestion.captioning import OllamaCaptioner


def pdf_with_figure(path: Path) -> Path:
    picture = io.BytesIO()
    Image.new("RGB", (200, 120), (30, 120, 200)).save(picture, format="PNG")
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=14)
    pdf.cell(text="Figure 1 shows the parabola y = x^2.")
    pdf.add_page()
    pdf.cell(text="The graph of the parabola:")
    pdf.image(io.BytesIO(picture.getvalue()), x=20, y=40, w=80)
    pdf.output(str(path))
    return path


async def make_ingestor(captioner: OllamaCaptioner | None) -> Ingestor:
    embedder = HashEmbedder()
    index = ChunkIndex(
        AsyncQdrantClient(location=":memory:"), "captions", embedder.dimensions, False
    )
    await index.ensure()
    return Ingestor(
        index=index,
        embedder=embedder,
        sparse=SparseEncoder(),
        max_bytes=1 << 20,
        captioner=captioner,
    )


async def test_figures_are_captioned_and_linked_to_their_page(tmp_path: Path) -> None:
    fake = FakeOllama(
        chat_reply=lambda _request: "A blue rectangle standing for the graph of y = x^2."
    )
    with running_fake_ollama(fake):
        captioner = OllamaCaptioner(ollama.AsyncClient(host=fake.url), "llava:7b")
        ingestor = await make_ingestor(captioner)
        pdf = pdf_with_figure(tmp_path / "figures.pdf")
        report = await ingestor.ingest([SourceFile.at(pdf)], "math101")
    assert report.failed == []
    [request] = fake.requests_to("/api/chat")
    assert request["model"] == "llava:7b"
    assert request["messages"][0]["content"] == CAPTION_IMAGE
    assert len(request["messages"][0]["images"]) == 1
    points, _ = await ingestor.index.client.scroll("captions", limit=100, with_payload=True)
    captions = [p.payload for p in points if "[Image]" in p.payload["text"]]
    assert len(captions) == 1
    assert captions[0]["page"] == 2
    assert "[Image] A blue rectangle standing for the graph of y = x^2." in captions[0]["text"]
    ctx = Context(platform="test", course_id="math101", user_id="u")
    assert await ingestor.index.count(ctx) == len(points)


async def test_without_a_vision_model_images_are_skipped_with_one_log_line(tmp_path: Path) -> None:
    ingestor = await make_ingestor(None)
    first = pdf_with_figure(tmp_path / "one.pdf")
    second = pdf_with_figure(tmp_path / "two.pdf")
    with capture_logs() as logs:
        report = await ingestor.ingest([SourceFile.at(first), SourceFile.at(second)], "math101")
    assert report.failed == []
    skipped = [entry for entry in logs if "images are not indexed" in entry["event"]]
    assert len(skipped) == 1


async def test_a_failing_caption_does_not_fail_the_document(tmp_path: Path) -> None:
    with running_fake_ollama() as fake:
        captioner = OllamaCaptioner(ollama.AsyncClient(host=fake.url), "no-such-model")
        fake.chat_reply = lambda _request: (_ for _ in ()).throw(RuntimeError("boom"))
        ingestor = await make_ingestor(captioner)
        report = await ingestor.ingest([SourceFile.at(pdf_with_figure(tmp_path / "f.pdf"))], "c")
    assert report.failed == []
    assert report.chunks == 2
