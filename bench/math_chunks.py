"""How many chunks of the teaching courses cut a formula (issue #31): each Markdown file of
/work/shared/datasets/teaching is loaded and chunked as ingestion does (the bundled
embedder's token counter and input size), and a formula of the file, in math marks or in
plain text (`core.plain_math.formula_spans` over the loaded blocks), counts as cut when no
chunk holds it whole; a chunk counts when it holds part of a cut formula. Usage: python
bench/math_chunks.py [TOKENS [DATASET_DIR]], TOKENS the embedder's input (the bundled one's
by default; a smaller one cuts more often)."""

from __future__ import annotations

import sys
from pathlib import Path

from core.embedding.minilm_onnx import MAX_TOKENS
from core.embedding.token_counter import TokenCounter
from core.plain_math import formula_spans
from ingestion.chunking import chunk_document
from ingestion.loaders.markdown import load_markdown

TEACHING = Path("/work/shared/datasets/teaching")
COURSES = ("cs231n-notes", "d2l-dl-basics")


def _squeezed(text: str) -> str:
    return "".join(text.split())


def measure(
    folder: Path, course: str, count: TokenCounter, tokens: int
) -> tuple[int, int, int, int]:
    """(chunks, formulas, formulas cut, chunks cutting one) of one course."""
    chunks = formulas = cut = cutting = 0
    for path in sorted(folder.glob("*.md")):
        document = load_markdown(path, path.name)
        made = chunk_document(document, course, count, tokens)
        texts = [_squeezed(chunk.text) for chunk in made]
        source = "\n\n".join(block.text for block in document.blocks)
        whole = [_squeezed(source[a:b]) for a, b in formula_spans(source)]
        broken = [f for f in whole if not any(f in text for text in texts)]
        chunks += len(made)
        formulas += len(whole)
        cut += len(broken)
        # A chunk holding a cut formula's first or last 12 characters holds part of it.
        ends = {piece for f in broken for piece in (f[:12], f[-12:])}
        cutting += sum(any(piece in text for piece in ends) for text in texts)
    return chunks, formulas, cut, cutting


def main() -> None:
    tokens = int(sys.argv[1]) if len(sys.argv) > 1 else MAX_TOKENS
    root = Path(sys.argv[2]) if len(sys.argv) > 2 else TEACHING
    count = TokenCounter()
    for course in COURSES:
        folder = root / course / "courses" / course
        chunks, formulas, cut, cutting = measure(folder, course, count, tokens)
        print(
            f"{course} at {tokens} tokens: {chunks} chunks, {formulas} formulas, {cut} cut, "
            f"{cutting} chunks holding part of a cut formula"
        )


if __name__ == "__main__":
    main()
