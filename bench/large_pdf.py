"""Large PDFs: a 2,000-page course reader (the page limit's default) ingested end to end, and
a 100,000-page PDF refused.

Makes both files in a temporary folder, in a child process (fpdf2 for the reader: a heading
and ~30 lines of distinct text per page; pypdfium2 for the 100,000 blank pages, 12 MB), then
ingests each with the bundled embedder into an embedded Qdrant, as the bot does. Prints the
reader's pages, chunks, wall time and this process's peak RSS, and the refusal's time and
message.

Run: python bench/large_pdf.py [--pages 2000] [--refused-pages 100000]"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pypdfium2 as pdfium
from fpdf import FPDF

from core.embedding.minilm_onnx import bundled_embedder
from core.index import ChunkIndex, EdgeQdrantClient, SparseEncoder
from ingestion import Ingestor, IngestProgress, SourceFile

VOCABULARY = """derivative integral limit series matrix vector eigenvalue proof lemma theorem
gradient probability variance sample estimate hypothesis regression network layer function
domain continuity sequence convergence bound algorithm complexity graph tree path cycle"""
WORDS = tuple(VOCABULARY.split())


def course_reader(path: Path, pages: int) -> None:
    """A text-heavy PDF: per page a numbered heading and ~30 lines of sentences."""
    chooser = random.Random(7)
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    for number in range(1, pages + 1):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 14)
        pdf.cell(0, 10, f"{number}. Topic {number}: {chooser.choice(WORDS).title()}")
        pdf.ln(12)
        pdf.set_font("Helvetica", size=10)
        for _ in range(6):
            sentences = [
                " ".join(chooser.choices(WORDS, k=12)).capitalize() + "." for _ in range(5)
            ]
            pdf.multi_cell(0, 5, " ".join(sentences))
            pdf.ln(3)
    pdf.output(str(path))


def blank_pages(path: Path, pages: int) -> None:
    pdf = pdfium.PdfDocument.new()
    for _ in range(pages):
        pdf.new_page(612, 792).close()
    pdf.save(str(path))
    pdf.close()


def tell(progress: IngestProgress) -> None:
    """A line every 1,000 chunks embedded, to follow a long run."""
    if progress.chunks and progress.chunks % 1000 < 64 and progress.stage == "embedding":
        print(f"  {progress.chunks} chunks embedded, peak_rss_mb={peak_rss_mb():.0f}", flush=True)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run(pages: int, refused_pages: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        reader, huge = folder / "reader.pdf", folder / "huge.pdf"
        started = time.perf_counter()
        # Made in another process: fpdf2's own peak would otherwise count as ingestion's.
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            pool.submit(course_reader, reader, pages).result()
            pool.submit(blank_pages, huge, refused_pages).result()
        made = time.perf_counter() - started
        print(
            f"made {reader.name} ({pages} pages, {reader.stat().st_size / 2**20:.1f} MB) and "
            f"{huge.name} ({refused_pages} pages, {huge.stat().st_size / 2**20:.1f} MB) "
            f"in {made:.0f}s; peak_rss_mb={peak_rss_mb():.0f} before ingesting"
        )
        embedder = bundled_embedder("fast")
        index = ChunkIndex(
            EdgeQdrantClient(folder / "index"),
            "bench",
            embedder.dimensions,
            payload_indexes=True,
            unit_vectors=True,
        )
        await index.ensure()
        ingestor = Ingestor(
            index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=50 << 20
        )
        try:
            started = time.perf_counter()
            report = await ingestor.ingest([SourceFile.at(huge)], "bench", owner_id="student")
            refused_s = time.perf_counter() - started
            [result] = report.results
            print(f"huge: {result.status.value} in {refused_s:.2f}s: {result.error}")
            started = time.perf_counter()
            report = await ingestor.ingest([SourceFile.at(reader)], "bench", on_progress=tell)
            seconds = time.perf_counter() - started
            [result] = report.results
            print(
                f"reader: {result.status.value} pages={result.pages} chunks={result.chunks} "
                f"wall={seconds:.0f}s pages/s={result.pages / seconds:.1f} "
                f"peak_rss_mb={peak_rss_mb():.0f} {result.error}"
            )
        finally:
            await index.close()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--refused-pages", type=int, default=100_000)
    args = parser.parse_args()
    asyncio.run(run(args.pages, args.refused_pages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
