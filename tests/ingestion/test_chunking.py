from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from core.embedding.token_counter import TokenCounter
from ingestion.chunking import chunk_document
from ingestion.documents import Block, BlockKind, DocumentKind, LoadedDocument, Table
from ingestion.loaders.pdf import load_pdf

MAX_TOKENS = 256


@pytest.fixture(scope="module")
def count() -> TokenCounter:
    return TokenCounter()


def doc(blocks: list[Block], title: str = "Course Handbook") -> LoadedDocument:
    return LoadedDocument(file_name="handbook.md", title=title, blocks=blocks)


def test_each_slide_that_fits_is_one_chunk(count: TokenCounter) -> None:
    slides = [
        Block("Limits", page=1, section=("Limits",)),
        Block("- one-sided limits", BlockKind.LIST_ITEM, page=1, section=("Limits",)),
        Block("Derivatives", page=2, section=("Derivatives",)),
        Block("Speaker: go slowly", BlockKind.NOTES, page=2, section=("Derivatives",)),
    ]
    document = LoadedDocument("deck.pdf", "Deck", slides, kind=DocumentKind.SLIDES, page_count=2)
    chunks = chunk_document(document, "math101", count, MAX_TOKENS)
    assert [(c.page, c.section) for c in chunks] == [(1, "Limits"), (2, "Derivatives")]
    assert "one-sided limits" in chunks[0].text
    assert "go slowly" in chunks[1].text


def test_sections_become_chunks_and_the_header_is_only_embedded(count: TokenCounter) -> None:
    blocks = [
        Block("Intro text.", section=("Course Handbook", "Introduction")),
        Block("Late work loses 10% a day.", section=("Course Handbook", "Policies", "Late")),
    ]
    chunks = chunk_document(doc(blocks), "math101", count, MAX_TOKENS)
    assert [c.section for c in chunks] == ["Introduction", "Policies > Late"]
    assert chunks[1].text == "Late work loses 10% a day."
    assert chunks[1].embed_text.startswith("math101 · Course Handbook · Policies > Late\n")


def test_a_heading_down_a_page_starts_a_chunk_named_by_it(count: TokenCounter) -> None:
    """A page holding the end of one section and the start of the next is two chunks, each
    named by its own heading, not one named by the section the page starts in."""
    blocks = [
        Block("Memos are due on Mondays.", page=3, section=("Section 9: Assignments",)),
        Block("Section 10: Grading", page=3, section=("Section 10: Grading",)),
        Block("Memos count for 30%.", page=3, section=("Section 10: Grading",)),
        Block("The final counts for 40%.", page=4, section=("Section 10: Grading",)),
    ]
    document = LoadedDocument("syllabus.pdf", "Syllabus", blocks, page_count=4)
    chunks = chunk_document(document, "fin408", count, MAX_TOKENS)
    assert [(c.page, c.section, c.text.splitlines()[0]) for c in chunks] == [
        (3, "Section 9: Assignments", "Memos are due on Mondays."),
        (3, "Section 10: Grading", "Section 10: Grading"),
        (4, "Section 10: Grading", "The final counts for 40%."),
    ]
    assert chunks[1].embed_text.startswith("fin408 · Syllabus · Section 10: Grading\n")
    # neighbours on the page are still read with each other
    assert "Memos are due on Mondays." in chunks[1].passage


def test_large_table_is_split_by_rows_with_the_header_repeated(count: TokenCounter) -> None:
    rows = tuple(
        (f"Week {n}", f"Topic number {n} about derivatives and limits", "Quiz") for n in range(80)
    )
    table = Table(header=("Week", "Topic", "Due"), rows=rows)
    block = Block(table.render(), BlockKind.TABLE, section=("Schedule",), table=table)
    chunks = chunk_document(doc([block]), "math101", count, MAX_TOKENS)
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.text.startswith("| Week | Topic | Due |")
        assert count(chunk.embed_text) <= MAX_TOKENS
    body = [line for c in chunks for line in c.text.splitlines()[1:]]
    assert body == [
        f"| Week {n} | Topic number {n} about derivatives and limits | Quiz |" for n in range(80)
    ]


def test_long_paragraph_is_split_between_sentences(count: TokenCounter) -> None:
    sentences = [f"Sentence {n} explains one more detail of the grading policy." for n in range(60)]
    block = Block(" ".join(sentences), section=("Grading",))
    chunks = chunk_document(doc([block]), "c", count, MAX_TOKENS)
    assert len(chunks) > 1
    rebuilt = " ".join(c.text for c in chunks)
    assert rebuilt == " ".join(sentences)
    for chunk in chunks:
        assert chunk.text.endswith(".")
        assert count(chunk.embed_text) <= MAX_TOKENS


def test_list_items_are_never_cut(count: TokenCounter) -> None:
    items = [
        Block(
            f"- Rule {n}: submit your work through the portal before Friday.",
            BlockKind.LIST_ITEM,
            section=("Rules",),
        )
        for n in range(40)
    ]
    chunks = chunk_document(doc(items), "c", count, MAX_TOKENS)
    assert len(chunks) > 1
    lines = [line for c in chunks for line in c.text.splitlines()]
    assert lines == [item.text for item in items]


def test_a_sentence_longer_than_the_budget_is_split_at_words(count: TokenCounter) -> None:
    block = Block(" ".join(["word"] * 600), section=("Run-on",))
    chunks = chunk_document(doc([block]), "c", count, MAX_TOKENS)
    assert all(count(c.embed_text) <= MAX_TOKENS for c in chunks)
    assert sum(len(c.text.split()) for c in chunks) == 600


FORMULAS = (
    # Display and inline math in each notation, with sentence ends and spaces inside.
    "$$ L(\\mathbf{w}, b) = \\frac{1}{n} \\sum_{i=1}^{n} l^{(i)}. \\quad "
    + " + ".join(f"W_{i} x_{i}. B_{i}" for i in range(5))
    + " $$",
    "\\[ f(x) = " + " + ".join(f"a_{i} x^{i}. Then" for i in range(6)) + " \\]",
    "\\\\( g(x) = " + " + ".join(f"c_{i}. D_{i}" for i in range(8)) + " \\\\)",
    "$h(x) = " + " + ".join(f"e_{i}. F_{i}" for i in range(8)) + "$",
)


@pytest.mark.parametrize("formula", FORMULAS)
def test_a_formula_at_a_size_boundary_is_never_cut(count: TokenCounter, formula: str) -> None:
    assert count(formula) < MAX_TOKENS // 2
    filler = "Gradient descent takes a step against the gradient."
    for sentences in range(30):
        # The formula sits wherever the paragraph reaches the budget, one sentence later
        # each time: some chunk boundary falls around (and was inside) it.
        text = " ".join([filler] * sentences + [f"So {formula} holds."] + [filler] * 30)
        chunks = chunk_document(doc([Block(text)]), "c", count, MAX_TOKENS)
        assert len(chunks) > 1
        whole = [c for c in chunks if formula in c.text]
        assert len(whole) == 1, (sentences, [c.text[-80:] for c in chunks])
        assert all(count(c.embed_text) <= MAX_TOKENS for c in chunks)


def test_only_a_formula_longer_than_a_chunk_is_cut(count: TokenCounter) -> None:
    formula = "$$ " + " + ".join(f"w_{{{i}}} x_{{{i}}}" for i in range(200)) + " $$"
    chunks = chunk_document(doc([Block(f"Then {formula} holds.")]), "c", count, MAX_TOKENS)
    assert len(chunks) > 1 and all(count(c.embed_text) <= MAX_TOKENS for c in chunks)
    assert " ".join(c.text for c in chunks).split() == f"Then {formula} holds.".split()


def test_a_plain_text_formula_in_a_run_on_sentence_is_never_cut(count: TokenCounter) -> None:
    """A sentence over the budget is split at words: a formula written in plain text counts
    as one word, as one in math marks does."""
    formula = "f'(a) = lim_{h->0} (f(a + h) - f(a + 2h) + f(a + 3h) - f(a)) / h"
    for words in range(170, 230, 3):
        # No sentence end anywhere: the formula sits where the word split falls.
        text = " ".join(["word"] * words + [formula] + ["word"] * 400)
        chunks = chunk_document(doc([Block(text)]), "c", count, MAX_TOKENS)
        assert len([c for c in chunks if formula in c.text]) == 1, words


@pytest.mark.parametrize(
    "formula",
    [
        "f'(a) = lim_{h->0} (f(a + h) - f(a)) / h",  # plain text, as a PDF prints it
        "$\\frac{d}{dx} x^n = n x^{n-1}$",  # LaTeX source printed from Markdown
    ],
)
def test_a_formula_in_a_generated_pdf_survives_loading_and_chunking(
    count: TokenCounter, formula: str, tmp_path: Path
) -> None:
    """Printed inside a paragraph, wrapped wherever its line ends, a formula comes out of the
    PDF loader and the chunker whole, in one chunk, wherever a chunk boundary falls."""
    filler = "Gradient descent takes a step against the gradient."
    for sentences in range(0, 36, 5):
        pdf = FPDF(format="A4")
        pdf.add_page()
        pdf.set_font("helvetica", "B", 16)
        pdf.cell(0, 10, "Derivatives", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("helvetica", "", 11)
        text = " ".join([filler] * sentences + [f"So {formula} holds."] + [filler] * 30)
        pdf.multi_cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")
        path = tmp_path / f"notes-{sentences}.pdf"
        path.write_bytes(bytes(pdf.output()))
        chunks = chunk_document(load_pdf(path, path.name), "c", count, MAX_TOKENS)
        assert len(chunks) > 1
        whole = [c for c in chunks if formula in c.text]
        assert len(whole) == 1, (sentences, [c.text for c in chunks])
